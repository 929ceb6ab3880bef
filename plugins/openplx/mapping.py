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

core -> OpenPLX (:func:`model_to_source`): one ``Physics3D.System`` per model (nested
models become their own top-level models), a ``RigidBody`` per link with its inertia,
geometries and a MateConnector per explicit frame or mate connector; each
:class:`Mate` is written as that mate, and each other supported joint becomes a mate
between two connectors placed at the joint frame (main_axis = joint axis) on parent and
child, so the frames coincide in the current configuration (joints derived from mates
are not converted again).  Links that are not the child of such a joint or mate keep
their pose as a declared ``local_transform``; SNAP places the others.
A joint's parent or child may be a frame (the connector goes on its link) or a link of a
nested model (the connector is declared from the host with a dotted path, ``arm.upper.j``).
Names become identifiers, made unique and kept clear of inherited attributes
(``local_transform``, ``inertia``...) with a ``_2``, ``_3`` suffix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from snapframe.core.diagnostics import Code, Diagnostics, SourceLocation
from snapframe.core.model import (Collision, Geometry, Inertial, Link, Mate, MateConnector, Model,
                                  PoseSpec, Visual)
from snapframe.core.model.names import SEP
from snapframe.core.pose import IDENTITY, Pose
from snapframe.core.snap.joints import derive_mate_joints
from snapframe.core.snap.paths import (ORDER_KEY, REFERENCE_BODY_KEY, WORLD_CONNECTOR,
                                       WORLD_PATH_KEY, TreeIndex, common_model, is_derived,
                                       scoped_name, walk_models)

from . import mathlib as m
from .evaluator import Obj
from .physics import (MATE_TYPES, Assembly, BodyInfo, ConnectorInfo, GeometryInfo, MateInfo,
                      SystemInfo)

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


@dataclass
class _Out:
    lines: list[str] = field(default_factory=list)

    def add(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)


#: Attributes a converted System or RigidBody inherits: generated members must not reuse them
#: (``local_transform is Physics3D.Bodies.RigidBody`` would replace the system's transform).
_SYSTEM_ATTRS = frozenset({"local_transform", "kinematically_controlled", "reference_body"})
_BODY_ATTRS = frozenset({"inertia", "kinematics", "is_dynamic", "linear_velocity_world_output",
                         "angular_velocity_world_output", "linear_velocity_world_input",
                         "angular_velocity_world_input", "position_output", "rpy_output"})


def _unique(name: str, used: set[str]) -> str:
    """``identifier(name)``, with ``_2``, ``_3``... appended until it is not in ``used``; the
    result is added to ``used`` ("left-wheel" and "left_wheel" stay two bodies)."""
    base = identifier(name)
    out, k = base, 2
    while out in used:
        out, k = f"{base}_{k}", k + 1
    used.add(out)
    return out


def _member_names(model: Model, cache: dict[int, dict[str, str]]) -> dict[str, str]:
    """OpenPLX attribute names of a model's links and nested models, by entity name."""
    names = cache.get(id(model))
    if names is None:
        used = set(_SYSTEM_ATTRS)
        names = {}
        for node in [*_links(model), *model.models]:
            names[node.name] = _unique(node.name, used)
        cache[id(model)] = names
    return names


def identifier(name: str) -> str:
    """An OpenPLX identifier for an SDFormat name (other characters become '_')."""
    out = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)
    if not out or out[0].isdigit():
        out = "_" + out
    from .lexer import KEYWORDS
    return out + "_" if out in KEYWORDS else out


def model_to_source(model: Model, diagnostics: Diagnostics | None = None,
                    top_name: str | None = None) -> str:
    """OpenPLX source for a core model (see the module docstring for the rules)."""
    from snapframe.core.frames.scope import Scope, Unresolved

    diags = diagnostics if diagnostics is not None else Diagnostics()
    blocks: list[list[str]] = []
    names_cache: dict[int, dict[str, str]] = {}
    type_names: set[str] = set()
    # Frames written as connectors: node id -> (the model whose System declares it, its
    # reference there), for the mates that use them.
    connector_refs: dict[int, tuple[Model, str]] = {}
    mate_children = _mate_children(model)

    def emit(model: Model, type_name: str) -> None:
        scope = Scope.for_model(model, model.name, model.static, {})
        member = _member_names(model, names_cache)
        used = set(_SYSTEM_ATTRS) | set(member.values())   # the system's attribute names
        links = _links(model)
        link_used = {link.name: set(_BODY_ATTRS) for link in links}
        geometry_names = {id(node): _unique(node.name or node.geometry.shape,
                                            link_used[link.name])
                          for link in links for node in [*link.collisions, *link.visuals]}
        out = _Out()
        out.add(0, f"{type_name} is Physics3D.System:")
        own_joints = [j for j in model.joints if not is_derived(j)]   # mates are written as such
        joints = [j for j in own_joints if j.type in MATE_OF_JOINT]
        for j in own_joints:
            if j.type not in MATE_OF_JOINT:
                diags.warning(Code.CONVERSION_ERROR, f"joint '{j.name}' of type '{j.type}' has "
                              "no OpenPLX mate; the child keeps its pose", j.source)
        # links SNAP places (the child of a converted joint or of a mate)
        children: set[str] = {link.name for link in links if link.id in mate_children}
        link_names = {link.name: member[link.name] for link in links}
        # (name, position, main_axis, normal) per link, in the link frame
        connectors: dict[str, list[tuple]] = {link.name: [] for link in links}
        # Connectors on links of nested models, declared from here with a dotted path:
        # (OpenPLX path of the link, name, position, main_axis, normal).
        nested_connectors: list[tuple] = []
        system_connectors: list[tuple] = []
        mates: list[tuple[str, str, str, str]] = []

        def pose_of(name: str) -> Pose | None:
            try:
                return scope.pose_of(name)
            except Unresolved as exc:
                diags.warning(Code.CONVERSION_ERROR, f"cannot resolve the pose of '{name}': {exc}")
                return None

        for fr in model.frames:
            try:
                # A frame on the model frame stays a connector of the system (fixed in it,
                # as OpenPLX system connectors are), not one of the canonical link.
                body = scope.body_of(fr.name) if fr.attached_to not in ("", "__model__") else ""
            except Unresolved:
                body = ""
            X_MF = pose_of(fr.name)
            if X_MF is None:
                continue
            # A frame named "<link>.<x>" (how OpenPLX connectors are shown) keeps "x".
            short = fr.name[len(body) + 1:] if fr.name.startswith(body + ".") else fr.name
            nested = (_nested_link_path(model, body, names_cache) if body not in connectors
                      else None)
            if body in connectors or nested is not None:
                X_ML = pose_of(body)
                X_LF = X_ML.inverse() @ X_MF if X_ML is not None else X_MF
                if nested is None:
                    data = _frame_connector(_unique(short, link_used[body]), X_LF)
                    connectors[body].append(data)
                    connector_refs[fr.id] = (model, f"{link_names[body]}.{data[0]}")
                else:
                    data = _frame_connector(identifier(fr.name), X_LF)
                    nested_connectors.append((nested, *data))
                    connector_refs[fr.id] = (model, f"{nested}.{data[0]}")
            else:
                data = _frame_connector(_unique(fr.name, used), X_MF)
                system_connectors.append(data)
                connector_refs[fr.id] = (model, data[0])

        for j in joints:
            X_MJ = pose_of(j.name)
            if X_MJ is None:
                continue
            axis = j.axes[0].xyz if j.axes else (1.0, 0.0, 0.0)
            if j.axes and j.axes[0].expressed_in not in ("", j.name):
                X_ME = pose_of(j.axes[0].expressed_in) if j.axes[0].expressed_in != "__model__" \
                    else IDENTITY
                if X_ME is not None:
                    axis = X_MJ.inverse().rotate(X_ME.rotate(axis))
            axis = tuple(m.normal(axis)) if m.length(axis) > 1e-12 else (0.0, 0.0, 1.0)
            if j.type in ("fixed", "ball"):
                axis = (0.0, 0.0, 1.0)
            normal = m.orthogonal_unit_vector(axis)  # type: ignore[arg-type]
            jn = _unique(j.name, used)
            # Both ends first: a joint that cannot be converted leaves nothing behind (and
            # its child keeps a declared pose).
            ends: list[tuple] = []   # (where, link or dotted path, connector data, mate end)
            for role, name in (("parent", j.parent_name), ("child", j.child_name)):
                cname = f"{jn}_{role}"
                if name == "world":
                    wname = _unique(f"{jn}_world", used)
                    data = (wname, X_MJ.p, X_MJ.rotate(axis), X_MJ.rotate(normal))
                    ends.append(("system", None, data, wname))
                    continue
                # The parent or child may be a link, a frame on a link, or a link of a
                # nested model: the connector goes on the link the frame is attached to.
                try:
                    body = name if name in connectors else scope.body_of(name)
                except Unresolved:
                    body = ""
                nested = (_nested_link_path(model, body, names_cache) if body not in connectors
                          else None)
                X_ML = pose_of(body) if body in connectors or nested is not None else None
                if X_ML is None:
                    diags.warning(Code.CONVERSION_ERROR, f"joint '{j.name}': '{name}' is not on "
                                  "a link of this model or of its nested models; the mate is "
                                  "left out", j.source)
                    ends = []
                    break
                X_LJ = X_ML.inverse() @ X_MJ
                if nested is None:
                    cname = _unique(cname, link_used[body])
                data = (cname, X_LJ.p, X_LJ.rotate(axis), X_LJ.rotate(normal))
                if nested is None:
                    ends.append(("link", body, data, f"{link_names[body]}.{cname}"))
                else:
                    ends.append(("nested", nested, data, f"{nested}.{cname}"))
            if len(ends) != 2:
                continue
            for where, owner, data, _ in ends:
                if where == "system":
                    system_connectors.append(data)
                elif where == "link":
                    connectors[owner].append(data)
                else:
                    nested_connectors.append((owner, *data))
            if ends[1][0] == "link":
                children.add(ends[1][1])
            mates.append((jn, MATE_OF_JOINT[j.type], ends[0][3], ends[1][3]))

        for name, pos, main, nrm in system_connectors:
            _connector_lines(out, 1, name, pos, main, nrm)
        for link in links:
            ln = link_names[link.name]
            out.add(1, f"{ln} is Physics3D.Bodies.RigidBody:")
            X_ML = pose_of(link.name) or IDENTITY
            if link.name not in children:
                out.add(2, "kinematics.local_transform:")
                for line in transform_lines(X_ML):
                    out.add(3, line)
            _inertial_lines(out, 2, link.inertial)
            for node in [*link.collisions, *link.visuals]:
                _geometry_lines(out, 2, node, isinstance(node, Collision), diags,
                                geometry_names[id(node)])
            for name, pos, main, nrm in connectors[link.name]:
                _connector_lines(out, 2, name, pos, main, nrm)
        for sub in model.models:
            sub_type = _unique(f"{type_name}_{member[sub.name]}", type_names)
            X = pose_of(sub.name) or IDENTITY
            out.add(1, f"{member[sub.name]} is {sub_type}:")
            out.add(2, "local_transform:")
            for line in transform_lines(X):
                out.add(3, line)
            emit(sub, sub_type)
        for path, name, pos, main, nrm in nested_connectors:
            _connector_lines(out, 1, f"{path}.{name}", pos, main, nrm)
        for jn, mate_type, a, b in mates:
            out.add(1, f"{jn} is Physics3D.Interactions.{mate_type}:")
            out.add(2, f"connectors: [{a}, {b}]")
        for mate in model.mates:
            _mate_lines(out, mate, _unique(mate.name, used), connector_refs, names_cache, diags)
        if model.includes:
            diags.warning(Code.CONVERSION_ERROR, f"model '{model.name}': includes are not "
                          "converted to OpenPLX (flatten the file first)")
        blocks.append(out.lines)

    emit(model, _unique(top_name or model.name, type_names))
    header = [f"# Converted by Snapframe from the model '{model.name}'.",
              "# Joints became mates between connectors at the joint frames; links that are",
              "# not the child of a joint keep a declared local_transform, SNAP places the rest.",
              ""]
    # Nested models were emitted first and the top model last: tools assemble the *last*
    # top-level System of a file, so the top model must stay at the end.
    text_blocks = ["\n".join(b) for b in blocks]
    return "\n".join(header) + "\n\n".join(text_blocks) + "\n"


def _links(model: Model) -> list[Link]:
    """The links written as bodies (not the ones derived from mates)."""
    return [link for link in model.links if not is_derived(link)]


def _mate_children(model: Model) -> set[int]:
    """Ids of the links mates place (owner of ``connectors[1]``, or of ``connectors[0]``
    when that one is fixed in the world): they get no declared transform."""
    index = TreeIndex(model)
    out: set[int] = set()
    for node in walk_models(model):
        if not isinstance(node, Mate) or not isinstance(node.parent, Model):
            continue
        owners = [index.owner(c) if c is not None else None
                  for c in (index.connector(node.parent, n) for n in node.connectors)]
        child = next((o for o in reversed(owners) if isinstance(o, Link)), None)
        if child is not None:
            out.add(child.id)
    return out


_INITIAL_VALUES = {"hinge": ("initial_angle",), "prismatic": ("initial_position",),
                   "cylindrical": ("initial_angle", "initial_position"),
                   "distance": ("initial_distance",)}


def _mate_lines(out: "_Out", mate: Mate, name: str, refs: dict[int, tuple[Model, str]],
                cache: dict[int, dict[str, str]], diags: Diagnostics) -> None:
    """A :class:`Mate` as the mate it is, its connectors named from its model."""
    model = mate.parent
    index = TreeIndex(model)  # type: ignore[arg-type]
    texts = []
    for cname in mate.connectors:
        conn = index.connector(model, cname)  # type: ignore[arg-type]
        if conn is None and cname == WORLD_CONNECTOR:
            texts.append("Physics3D.Interactions.World")
            continue
        found = refs.get(conn.id) if conn is not None else None
        prefix = _member_path(model, found[0], cache) if found is not None else None  # type: ignore
        if found is None or prefix is None:
            diags.warning(Code.CONVERSION_ERROR, f"mate '{mate.name}': connector '{cname}' is "
                          "not converted; the mate is left out", mate.source)
            return
        texts.append(".".join([*prefix, found[1]]))
    kind = mate.type if mate.type in MATE_TYPES else "lock"
    out.add(1, f"{name} is {MATE_TYPES[kind]}:")
    out.add(2, f"connectors: [{texts[0]}, {texts[1]}]")
    for attr in _INITIAL_VALUES.get(kind, ()):
        if getattr(mate, attr) != 0.0:
            out.add(2, f"{attr}: {fmt(getattr(mate, attr))}")
    if not mate.enable_snap:
        out.add(2, "enable_snap: false")


def _member_path(model: Model, inner: Model, cache: dict[int, dict[str, str]]
                 ) -> list[str] | None:
    """Attribute names from the System of ``model`` down to that of ``inner``."""
    parts: list[str] = []
    node: Model = inner
    while node is not model:
        parent = node.parent
        if not isinstance(parent, Model):
            return None
        parts.append(_member_names(parent, cache)[node.name])
        node = parent
    return list(reversed(parts))


def _nested_link_path(model: Model, scoped: str, cache: dict[int, dict[str, str]]) -> str | None:
    """``arm::upper`` (a link of nested model ``arm``) -> ``arm.upper``, the OpenPLX path of
    that body from ``model``; None unless every part is a nested model and the last a link."""
    parts = scoped.split(SEP)
    if len(parts) < 2:
        return None
    node, path = model, []
    for part in parts[:-1]:
        sub = next((m for m in node.models if m.name == part), None)
        if sub is None:
            return None
        path.append(_member_names(node, cache)[part])
        node = sub
    if not any(link.name == parts[-1] for link in node.links):
        return None
    path.append(_member_names(node, cache)[parts[-1]])
    return ".".join(path)


def _frame_connector(name: str, X: Pose) -> tuple:
    """Connector data for a frame: main_axis = its z axis, normal = its x axis."""
    R = X.R
    return (name, X.p, (R[2], R[5], R[8]), (R[0], R[3], R[6]))


def _connector_lines(out: _Out, depth: int, name: str, position, main, nrm) -> None:
    out.add(depth, f"{name} is Physics3D.Interactions.MateConnector:")
    out.add(depth + 1, f"position: {vec_text(position)}")
    out.add(depth + 1, f"main_axis: {vec_text(main)}")
    out.add(depth + 1, f"normal: {vec_text(nrm)}")


def _inertial_lines(out: _Out, depth: int, inertial: Inertial | None) -> None:
    if inertial is None:
        return
    if inertial.mass is not None:
        out.add(depth, f"inertia.mass: {fmt(inertial.mass)}")
    if inertial.written_inertia or not inertial.auto:
        i = inertial
        out.add(depth, "inertia.tensor: Physics3D.Bodies.Inertia.symmetric_tensor("
                       f"{vec_text((i.ixx, i.iyy, i.izz))}, {fmt(i.ixy)}, {fmt(i.ixz)}, "
                       f"{fmt(i.iyz)})")
    if not inertial.pose.value.is_identity():
        out.add(depth, "kinematics.local_cm_transform:")
        for line in transform_lines(inertial.pose.value):
            out.add(depth + 1, line)


def _geometry_lines(out: _Out, depth: int, node: Collision | Visual, contact: bool,
                    diags: Diagnostics, name: str) -> None:
    g = node.geometry
    ns = "Physics3D.Geometries" if contact else "Visuals.Geometries"
    X = node.pose.value
    if g.shape == "box":
        lines = [f"size: {vec_text(g.params.get('size', (1, 1, 1)))}"]
        kind = "Box"
    elif g.shape == "sphere":
        lines, kind = [f"radius: {fmt(g.params.get('radius', 1.0))}"], "Sphere"
    elif g.shape in ("cylinder", "capsule"):
        kind = "Cylinder" if g.shape == "cylinder" else "Capsule"
        if not contact and kind == "Capsule":
            diags.warning(Code.CONVERSION_ERROR, f"visual capsule '{node.name}' has no OpenPLX "
                          "visual counterpart; left out", node.source)
            return
        lines = [f"radius: {fmt(g.params.get('radius', 1.0))}",
                 f"height: {fmt(g.params.get('length', 1.0))}"]
        X = X @ R_SDF_FROM_OPENPLX_CYLINDER.inverse()
    elif g.shape == "mesh":
        kind = "ExternalTriMeshGeometry"
        uri = g.params.get("resolved_path") or g.params.get("uri", "")
        lines = [f'path: "{uri}"', f"scale: {vec_text(g.params.get('scale', (1, 1, 1)))}"]
    else:
        diags.warning(Code.CONVERSION_ERROR, f"geometry '{node.name}' ({g.shape}) has no OpenPLX "
                      "counterpart; left out", node.source)
        return
    out.add(depth, f"{name} is {ns}.{kind}:")
    if not X.is_identity():
        out.add(depth + 1, "local_transform:")
        for line in transform_lines(X):
            out.add(depth + 2, line)
    for line in lines:
        out.add(depth + 1, line)
