"""Map OpenPLX Physics3D systems to the core document model, and back.

OpenPLX -> core (:func:`assembly_to_model`):

=====================  ==================================================================
system                 :class:`Model` (nested), pose = local transform in the parent system
body                   :class:`Link`, pose = local transform in its system
inertia                :class:`Inertial` (mass, tensor about ``local_cm_transform``); no
                       tensor written -> ``auto`` (OpenPLX derives it from geometries)
contact geometry       :class:`Collision`; visual geometry -> :class:`Visual`
mate connector         :class:`MateConnector` named ``<body>.<connector>``, attached to the
                       body's link, pose = X_OC (system-owned: ``<connector>`` on the model
                       frame); redirected / adaptive connectors say so
mate                   :class:`Mate` in the model of its system, connectors named from there
                       (``hand.axle``, ``sub::hand.axle``; ``Physics3D.Interactions.World``
                       is ``world``).  The joints that stand for it in SDFormat terms are
                       derived by :func:`snapframe.core.snap.joints.derive_mate_joints`
=====================  ==================================================================

``PoseSpec.written`` is True exactly where the OpenPLX source declares a
``local_transform`` (what SNAP keeps fixed and the writer keeps declared).  Each system,
body, connector and mate records its place in the file's declaration order
(``extras["snap_order"]``) and each system its ``reference_body``
(``extras["snap_reference_body"]``), so that SNAP run on the core model
(:mod:`snapframe.core.snap.document`) gives what it gives on the file.

core -> OpenPLX (:func:`model_to_source`): see :mod:`.conversion`; this module keeps the
text primitives both directions share (numbers, vectors, transforms, identifiers).
"""

from __future__ import annotations

import math

from snapframe.core.diagnostics import Code, Diagnostics, SourceLocation
from snapframe.core.model import (Collision, Geometry, Inertial, Link, Mate, MateConnector, Model,
                                  PoseSpec, Visual)
from snapframe.core.model.names import SEP
from snapframe.core.pose import IDENTITY, Pose
from snapframe.core.snap.joints import derive_mate_joints
from snapframe.core.snap.paths import (ORDER_KEY, REFERENCE_BODY_KEY, WORLD_CONNECTOR,
                                       WORLD_PATH_KEY, common_model, scoped_name)

from .evaluator import Obj
from .physics import Assembly, BodyInfo, ConnectorInfo, GeometryInfo, MateInfo, SystemInfo

__all__ = ["assembly_to_model", "model_to_source", "R_SDF_FROM_OPENPLX_CYLINDER", "fmt",
           "identifier", "MATE_OF_JOINT"]

#: OpenPLX cylinders and capsules run along local y, SDFormat's along z: the SDFormat
#: shape frame is the OpenPLX geometry frame turned -90 degrees about x (z -> y).
R_SDF_FROM_OPENPLX_CYLINDER = Pose.from_xyz_rpy(0, 0, 0, -math.pi / 2, 0, 0)

#: The mate each SDFormat joint type becomes (the others have none).
MATE_OF_JOINT = {"fixed": "Lock", "revolute": "Hinge", "continuous": "Hinge",
                 "prismatic": "Prismatic", "ball": "Ball"}


def _src(file: str, line: int) -> SourceLocation:
    return SourceLocation(file, line)


def _where(info) -> SourceLocation:
    """Where a system, body or connector is declared (its attribute, else its model)."""
    if info.where is not None:
        return _src(*info.where)
    decl = info.obj.type.decl if info.obj is not None else None
    return _src(decl.file, decl.line) if decl is not None else SourceLocation()


def _site_location(sites: list, fallback) -> SourceLocation:
    for mod in sites:
        if mod.stmt is not None:
            return _src(mod.stmt.file, mod.stmt.line)
    if fallback is not None:
        return _src(fallback.file, fallback.line)
    return SourceLocation()


# -- OpenPLX -> core ----------------------------------------------------------------

#: The const connector OpenPLX fixes at the world origin (a mate names it ``world``).
T_WORLD_CONNECTOR = "Physics3D.Interactions.World"


def assembly_to_model(asm: Assembly, local: dict[str, Pose],
                      diagnostics: Diagnostics | None = None) -> Model:
    """The core model of an assembly.  ``local`` are SNAP's local transforms by path
    (frames it does not name keep their declared transform, else the identity: run
    :func:`snapframe.core.snap.document.snap_input` on the model to place them)."""
    diags = diagnostics if diagnostics is not None else Diagnostics()
    models: dict[str, Model] = {}
    links: dict[str, Link] = {}
    connectors: dict[str, MateConnector] = {}
    order = {id(x): i for items in (asm.systems, asm.bodies, asm.connectors, asm.mates)
             for i, x in enumerate(items)}

    def build(info: SystemInfo, parent: Model | None) -> Model:
        model = Model(name=info.name if parent is not None else info.path, source=_where(info))
        model.pose = PoseSpec(_local(info, local), "", info.declared is not None,
                              _site_location(info.declared_sites, None))
        model.extras.update(openplx_path=info.path, openplx_type=info.obj.type.qname)
        model.extras[ORDER_KEY] = order[id(info)]
        models[info.path] = model
        for c in info.connectors:
            connectors[c.path] = model.add(_connector(c, c.name, "", order[id(c)]))
        for b in info.bodies:
            link = _body_link(b, local)
            link.extras[ORDER_KEY] = order[id(b)]
            model.add(link)
            links[b.path] = link
            for c in b.connectors:
                connectors[c.path] = model.add(_connector(c, f"{b.name}.{c.name}", b.name,
                                                          order[id(c)]))
        for sub in info.systems:
            model.add(build(sub, model))
        # A System with no bodies at any depth moves nothing: in SDFormat terms it is a
        # static model (which, unlike a dynamic one, needs no link).
        model.static = not _has_bodies(info)
        return model

    root = build(asm.root, None)
    root.extras[WORLD_PATH_KEY] = T_WORLD_CONNECTOR   # SNAP's name for a mate's "world"
    for info in asm.systems:
        if info.reference_body is not None:
            model = models[info.path]
            model.extras[REFERENCE_BODY_KEY] = _body_name(info.reference_body, model, links,
                                                          root)
    for c in asm.connectors:
        if c.redirected_parent is not None and c.path in connectors:
            node = connectors[c.path]
            node.redirected_parent = _body_name(c.redirected_parent, node.parent, links, root)
    for info in asm.mates:
        mate = _mate_node(info, asm, models, connectors, root, diags)
        if mate is not None:
            mate.extras[ORDER_KEY] = order[id(info)]
    derive_mate_joints(root, diags)
    return root


def _local(info: SystemInfo | BodyInfo, local: dict[str, Pose]) -> Pose:
    X = local.get(info.path)
    if X is not None:
        return X
    return info.declared if info.declared is not None else IDENTITY


def _has_bodies(info: SystemInfo) -> bool:
    return bool(info.bodies) or any(_has_bodies(sub) for sub in info.systems)


def _body_name(path: str, model: Model, links: dict[str, Link], root: Model) -> str:
    """How ``model`` names the body at ``path``: its scoped name from ``model``, else from
    the top model (how :class:`~snapframe.core.snap.paths.TreeIndex` looks names up).  A
    path that is no body keeps its dotted rest, for SNAP to report as it does on the file."""
    link = links.get(path)
    if link is not None:
        return scoped_name(link, model) or scoped_name(link, root) or link.name
    base = model.extras["openplx_path"] + "."
    return (path[len(base):] if path.startswith(base) else path).replace(".", SEP)


def _connector(c: ConnectorInfo, name: str, attached_to: str, rank: int) -> MateConnector:
    conn = MateConnector(name=name, attached_to=attached_to,
                         pose=PoseSpec(c.X_OC, "", True, _where(c)), source=_where(c),
                         adaptive=c.adaptive)
    conn.extras.update(openplx_path=c.path,
                       openplx_type=c.obj.type.qname if c.obj is not None else "",
                       main_axis=c.main_axis, normal=c.normal)
    conn.extras[ORDER_KEY] = rank
    return conn


def _is_world(c: ConnectorInfo | None) -> bool:
    return c is not None and c.obj is not None and c.obj.type.qname == T_WORLD_CONNECTOR


def _mate_node(info: MateInfo, asm: Assembly, models: dict[str, Model],
               connectors: dict[str, MateConnector], root: Model,
               diags: Diagnostics) -> Mate | None:
    """The :class:`Mate` of ``info``, added to the model of its system.  A mate whose
    connectors are not all inside its system (Robotics joints mate the links around them)
    goes to the closest model holding both, named by its dotted path from there."""
    ends: list[MateConnector | None] = []
    for p in info.connectors:
        c = asm.connector(p)
        if _is_world(c):
            ends.append(None)
        elif p in connectors:
            ends.append(connectors[p])
        else:
            diags.warning(Code.CONVERSION_ERROR, f"mate '{info.path}' uses connector '{p}', "
                          "which the editor cannot show; the mate is left out",
                          _src(info.file, info.line))
            return None
    holder = models.get(info.system, root)
    for end in ends:
        if end is not None and scoped_name(end, holder) is None:
            holder = common_model(holder, end.parent)  # type: ignore[arg-type]
    holder_path = holder.extras["openplx_path"]
    name = info.path[len(holder_path) + 1:] if info.path.startswith(holder_path + ".") \
        else info.name
    names = [scoped_name(end, holder) if end is not None else WORLD_CONNECTOR for end in ends]
    mate = Mate(name=name, source=_src(info.file, info.line), type=info.type,
                connectors=(names[0] or "", names[1] or ""),
                initial_angle=info.initial_angle, initial_position=info.initial_position,
                initial_distance=info.initial_distance, enable_snap=info.enable_snap)
    mate.extras.update(openplx_path=info.path,
                       openplx_type=info.obj.type.qname if info.obj is not None else "")
    holder.add(mate)
    return mate


def _body_link(b: BodyInfo, local: dict[str, Pose]) -> Link:
    link = Link(name=b.name, source=_where(b))
    link.pose = PoseSpec(_local(b, local), "", b.declared is not None,
                         _site_location(b.declared_sites, None))
    link.extras.update(openplx_path=b.path, openplx_type=b.obj.type.qname,
                       is_dynamic=b.is_dynamic)
    inertia = b.obj.try_get("inertia")
    is_obj = isinstance(inertia, Obj)
    tensor_written = is_obj and bool(inertia.assignments("tensor"))
    mass_written = is_obj and bool(inertia.assignments("mass"))
    inertial = Inertial(auto=not tensor_written, mass=b.mass if mass_written else None,
                        pose=PoseSpec(b.X_BCm, "", not b.X_BCm.is_identity()))
    if b.tensor is not None and tensor_written:
        t = b.tensor
        inertial.ixx, inertial.iyy, inertial.izz = t[0], t[4], t[8]
        inertial.ixy, inertial.ixz, inertial.iyz = t[1], t[2], t[5]
        inertial.written_inertia = True
    link.inertial = inertial
    for g in b.geometries:
        node = _geometry_node(g)
        if isinstance(node, Collision):
            link.collisions.append(node)
        else:
            link.visuals.append(node)
        node.parent = link
    return link


def _geometry_node(g: GeometryInfo) -> Collision | Visual:
    p = g.params
    X = g.X_BG
    if g.shape == "Box":
        geom = Geometry("box", {"size": tuple(p.get("size", (0.0, 0.0, 0.0)))})
    elif g.shape == "Sphere":
        geom = Geometry("sphere", {"radius": p.get("radius", 0.0)})
    elif g.shape in ("Cylinder", "Capsule"):
        geom = Geometry(g.shape.lower(), {"radius": p.get("radius", 0.0),
                                          "length": p.get("height", 0.0)})
        X = X @ R_SDF_FROM_OPENPLX_CYLINDER
    elif g.shape == "ExternalTriMeshGeometry":
        geom = Geometry("mesh", {"uri": p.get("path", ""), "scale": tuple(p.get("scale", (1, 1, 1))),
                                 "submesh": None, "center_submesh": False,
                                 "resolved_path": p.get("path")})
    else:
        geom = Geometry("empty", {})
    decl = g.obj.type.decl
    cls = Collision if g.contact else Visual
    node = cls(name=g.name, source=_src(*g.where) if g.where else _src(decl.file, decl.line))
    node.pose = PoseSpec(X, "", not X.is_identity())
    node.geometry = geom
    node.extras.update(openplx_path=g.path, openplx_type=g.obj.type.qname, openplx_shape=g.shape,
                       openplx_params=dict(p))
    return node


# -- core -> OpenPLX ----------------------------------------------------------------


def fmt(v: float) -> str:
    """A number as OpenPLX text (shortest form that reads back to 12 significant digits)."""
    if v == 0 or abs(v) < 1e-15:
        return "0"
    text = f"{v:.12g}"
    if "e" not in text and "." not in text:
        return text
    if "e" in text:
        mant, exp = text.split("e")
        return f"{mant}e{int(exp)}"
    return text


def vec_text(v) -> str:
    return "{" + ", ".join(fmt(x) for x in v) + "}"


def quat_text(pose: Pose) -> str:
    """``{x, y, z, w}`` (OpenPLX order) of a pose's rotation."""
    w, x, y, z = pose.quat()
    return vec_text((x, y, z, w))


def transform_lines(pose: Pose, full: bool = False) -> list[str]:
    """Block lines of an AffineTransform value; ``full`` writes position and rotation even
    when they are zero / identity (an override must replace an inherited value)."""
    lines = []
    if full or any(abs(c) > 1e-15 for c in pose.p):
        lines.append(f"position: {vec_text(pose.p)}")
    if full or not all(abs(a - b) <= 1e-15 for a, b in zip(pose.R, IDENTITY.R)):
        lines.append(f"rotation: {quat_text(pose)}")
    return lines or ["position: {0, 0, 0}"]


def identifier(name: str) -> str:
    """An OpenPLX identifier for an SDFormat name (other characters become '_')."""
    out = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)
    if not out or out[0].isdigit():
        out = "_" + out
    from .lexer import KEYWORDS
    return out + "_" if out in KEYWORDS else out


def model_to_source(model: Model, diagnostics: Diagnostics | None = None,
                    top_name: str | None = None) -> str:
    """OpenPLX source for a core model: see :mod:`.conversion`."""
    from .conversion import model_to_source as convert   # conversion imports this module
    return convert(model, diagnostics, top_name)
