"""Map OpenPLX Physics3D systems to the core document model, and back.

OpenPLX -> core (:func:`assembly_to_model`):

=====================  ==================================================================
system                 :class:`Model` (nested), pose = local transform in the parent system
body                   :class:`Link`, pose = local transform in its system
inertia                :class:`Inertial` (mass, tensor about ``local_cm_transform``); no
                       tensor written -> ``auto`` (OpenPLX derives it from geometries)
contact geometry       :class:`Collision`; visual geometry -> :class:`Visual`
mate connector         :class:`Frame` named ``<body>.<connector>``, attached to the body's
                       link, pose = X_OC (system-owned: ``<connector>`` on the model frame)
Lock / Hinge /         ``fixed`` / ``revolute`` / ``prismatic`` / ``ball`` joint, parent =
Prismatic / Ball       owner of ``connectors[0]``, child = owner of ``connectors[1]``, joint
                       frame = the child's connector frame, axis = its z (main_axis)
Cylindrical            ``continuous`` joint to an intermediate link ``<mate>__slider`` at the
                       child connector, then ``prismatic`` from it to the child
Distance               no joint: SDFormat has no distance constraint.  The two connector
                       frames are kept and the mate is recorded in the model's ``extras``
                       (a warning says so)
=====================  ==================================================================

Poses come from the SNAP result; ``PoseSpec.written`` is True exactly where the OpenPLX
source declares a ``local_transform`` (what the writer keeps declared).  A connector owned
by a system is fixed in the world, so a joint using it has parent ``world``.

core -> OpenPLX (:func:`model_to_source`): one ``Physics3D.System`` per model (nested
models become their own top-level models), a ``RigidBody`` per link with its inertia,
geometries and a MateConnector per explicit frame; each supported joint becomes a mate
between two connectors placed at the joint frame (main_axis = joint axis) on parent and
child, so the frames coincide in the current configuration.  Links that are not the child
of such a joint keep their pose as a declared ``local_transform``; SNAP places the others.
A joint's parent or child may be a frame (the connector goes on its link) or a link of a
nested model (the connector is declared from the host with a dotted path, ``arm.upper.j``).
Names become identifiers, made unique and kept clear of inherited attributes
(``local_transform``, ``inertia``...) with a ``_2``, ``_3`` suffix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from snapframe.core.diagnostics import Code, Diagnostics, SourceLocation
from snapframe.core.model import (Collision, Frame, Geometry, Inertial, Joint, JointAxis, Link,
                                  Model, PoseSpec, Visual)
from snapframe.core.model.names import SEP
from snapframe.core.pose import IDENTITY, Pose

from . import mathlib as m
from .evaluator import Obj
from .physics import Assembly, BodyInfo, ConnectorInfo, GeometryInfo, MateInfo, SystemInfo

__all__ = ["assembly_to_model", "model_to_source", "R_SDF_FROM_OPENPLX_CYLINDER", "fmt"]

#: OpenPLX cylinders and capsules run along local y, SDFormat's along z: the SDFormat
#: shape frame is the OpenPLX geometry frame turned -90 degrees about x (z -> y).
R_SDF_FROM_OPENPLX_CYLINDER = Pose.from_xyz_rpy(0, 0, 0, -math.pi / 2, 0, 0)

_JOINT_OF_MATE = {"lock": "fixed", "hinge": "revolute", "prismatic": "prismatic",
                  "ball": "ball"}
_MATE_OF_JOINT = {"fixed": "Lock", "revolute": "Hinge", "continuous": "Hinge",
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


def assembly_to_model(asm: Assembly, local: dict[str, Pose],
                      diagnostics: Diagnostics | None = None) -> Model:
    """The core model of an assembly; ``local`` are SNAP's local transforms by path."""
    diags = diagnostics if diagnostics is not None else Diagnostics()
    models: dict[str, Model] = {}
    link_of: dict[str, tuple[Model, Link]] = {}

    def build(info: SystemInfo, parent: Model | None) -> Model:
        model = Model(name=info.name if parent is not None else info.path, source=_where(info))
        model.pose = PoseSpec(local.get(info.path, IDENTITY), "", info.declared is not None,
                              _site_location(info.declared_sites, None))
        model.extras.update(openplx_path=info.path, openplx_type=info.obj.type.qname)
        models[info.path] = model
        for c in info.connectors:
            model.add(_connector_frame(c, c.name, ""))
        for b in info.bodies:
            link = _body_link(b, local)
            model.add(link)
            link_of[b.path] = (model, link)
            for c in b.connectors:
                model.add(_connector_frame(c, f"{b.name}.{c.name}", b.name))
        for sub in info.systems:
            model.add(build(sub, model))
        # A System with no bodies at any depth moves nothing: in SDFormat terms it is a
        # static model (which, unlike a dynamic one, needs no link).
        model.static = not _has_bodies(info)
        return model

    root = build(asm.root, None)
    systems = {s.path: s for s in asm.systems}
    for mate in asm.mates:
        _mate_joints(mate, asm, systems, models, link_of, local, diags)
    return root


def _has_bodies(info: SystemInfo) -> bool:
    return bool(info.bodies) or any(_has_bodies(sub) for sub in info.systems)


def _connector_frame(c: ConnectorInfo, name: str, attached_to: str) -> Frame:
    frame = Frame(name=name, attached_to=attached_to,
                  pose=PoseSpec(c.X_OC, "", True, _where(c)), source=_where(c))
    frame.extras.update(openplx_path=c.path,
                        openplx_type=c.obj.type.qname if c.obj is not None else "",
                        main_axis=c.main_axis, normal=c.normal)
    return frame


def _body_link(b: BodyInfo, local: dict[str, Pose]) -> Link:
    link = Link(name=b.name, source=_where(b))
    link.pose = PoseSpec(local.get(b.path, IDENTITY), "", b.declared is not None,
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


def _common_system(a: str, b: str, systems: dict[str, SystemInfo]) -> str:
    """Closest common ancestor system of two system paths."""
    chain_a = []
    s: str | None = a
    while s is not None:
        chain_a.append(s)
        s = systems[s].parent if s in systems else None
    s = b
    while s is not None:
        if s in chain_a:
            return s
        s = systems[s].parent if s in systems else None
    return chain_a[-1]


def _scoped(path: str, model_path: str) -> str:
    """``World.a.b.link`` seen from model ``World`` -> ``a::b::link``."""
    rel = path[len(model_path) + 1:] if path.startswith(model_path + ".") else path
    return rel.replace(".", SEP)


def _mate_joints(mate: MateInfo, asm: Assembly, systems: dict[str, SystemInfo],
                 models: dict[str, Model], link_of: dict[str, tuple[Model, Link]],
                 local: dict[str, Pose], diags: Diagnostics) -> None:
    c0, c1 = (asm.connector(p) for p in mate.connectors)
    where = _src(mate.file, mate.line)
    if c0 is None or c1 is None:
        return
    body0 = c0.owner if c0.owner in link_of else None
    body1 = c1.owner if c1.owner in link_of else None
    if body0 is None and body1 is None:
        diags.warning(Code.WARNING, f"mate '{mate.path}' joins two connectors fixed in the "
                      "world; no joint is made", where)
        return
    # The child carries the joint frame: connectors[1]'s owner unless it is fixed in the world.
    parent_c, child_c = (c0, c1) if body1 is not None else (c1, c0)
    parent_body, child_body = (body0, body1) if body1 is not None else (body1, body0)
    owner_systems = [link_of[b][0].extras["openplx_path"] for b in (parent_body, child_body) if b]
    host_path = (_common_system(owner_systems[0], owner_systems[-1], systems)
                 if len(owner_systems) == 2 else asm.root.path)
    if parent_body is None:
        host_path = asm.root.path
    host = models[host_path]
    parent_name = _scoped(parent_body, host_path) if parent_body else "world"
    child_name = _scoped(child_body, host_path)
    X_CJ = child_c.X_OC
    extras = dict(openplx_path=mate.path, openplx_type=mate.obj.type.qname,
                  openplx_mate=mate.type, connectors=mate.connectors,
                  initial_angle=mate.initial_angle, initial_position=mate.initial_position,
                  initial_distance=mate.initial_distance, enable_snap=mate.enable_snap)
    if mate.type == "distance":
        host.extras.setdefault("openplx_mates", []).append(extras)
        diags.warning(Code.WARNING, f"Distance mate '{mate.path}' has no SDFormat joint; its "
                      "connector frames are kept, the bodies are not jointed", where)
        return
    if mate.type == "cylindrical":
        # continuous (parent -> slider link at the child connector) + prismatic (-> child)
        child_model, child_link = link_of[child_body]
        slider = Link(name=f"{mate.name}__slider", source=where)
        X_host_child = _pose_in(host, child_model, child_link)
        slider.pose = PoseSpec(X_host_child @ X_CJ, "", False)
        slider.inertial = Inertial(mass=1e-6, ixx=1e-12, iyy=1e-12, izz=1e-12)
        slider.extras.update(openplx_synthetic=True, openplx_path=mate.path)
        host.add(slider)
        j1 = Joint(name=f"{mate.name}__revolute", type="continuous", parent_name=parent_name,
                   child_name=slider.name, pose=PoseSpec(IDENTITY, "", True),
                   axes=[JointAxis((0.0, 0.0, 1.0))], source=where)
        j2 = Joint(name=mate.name, type="prismatic", parent_name=slider.name,
                   child_name=child_name, pose=PoseSpec(X_CJ, "", True),
                   axes=[JointAxis((0.0, 0.0, 1.0))], source=where)
        for j in (j1, j2):
            j.extras.update(extras)
            host.add(j)
        return
    joint = Joint(name=mate.name, type=_JOINT_OF_MATE[mate.type], parent_name=parent_name,
                  child_name=child_name, pose=PoseSpec(X_CJ, "", True), source=where)
    if joint.type in ("revolute", "prismatic"):
        joint.axes = [JointAxis((0.0, 0.0, 1.0), source=where)]
    joint.extras.update(extras)
    host.add(joint)


def _pose_in(host: Model, model: Model, link: Link) -> Pose:
    """Pose of ``link`` (in ``model``) in ``host``'s frame, following nested model poses."""
    X = link.pose.value
    node = model
    while node is not None and node is not host:
        X = node.pose.value @ X
        node = node.parent  # type: ignore[assignment]
    return X


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
    """``_ident(name)``, with ``_2``, ``_3``... appended until it is not in ``used``; the
    result is added to ``used`` ("left-wheel" and "left_wheel" stay two bodies)."""
    base = _ident(name)
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
        for node in [*model.links, *model.models]:
            names[node.name] = _unique(node.name, used)
        cache[id(model)] = names
    return names


def _ident(name: str) -> str:
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

    def emit(model: Model, type_name: str) -> None:
        scope = Scope.for_model(model, model.name, model.static, {})
        member = _member_names(model, names_cache)
        used = set(_SYSTEM_ATTRS) | set(member.values())   # the system's attribute names
        link_used = {link.name: set(_BODY_ATTRS) for link in model.links}
        geometry_names = {id(node): _unique(node.name or node.geometry.shape,
                                            link_used[link.name])
                          for link in model.links for node in [*link.collisions, *link.visuals]}
        out = _Out()
        out.add(0, f"{type_name} is Physics3D.System:")
        joints = [j for j in model.joints if j.type in _MATE_OF_JOINT]
        for j in model.joints:
            if j.type not in _MATE_OF_JOINT:
                diags.warning(Code.CONVERSION_ERROR, f"joint '{j.name}' of type '{j.type}' has "
                              "no OpenPLX mate; the child keeps its pose", j.source)
        children: set[str] = set()   # links SNAP places (the child of a converted joint)
        link_names = {link.name: member[link.name] for link in model.links}
        # (name, position, main_axis, normal) per link, in the link frame
        connectors: dict[str, list[tuple]] = {link.name: [] for link in model.links}
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
                    connectors[body].append(_frame_connector(_unique(short, link_used[body]),
                                                             X_LF))
                else:
                    nested_connectors.append((nested, *_frame_connector(_ident(fr.name), X_LF)))
            else:
                system_connectors.append(_frame_connector(_unique(fr.name, used), X_MF))

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
            mates.append((jn, _MATE_OF_JOINT[j.type], ends[0][3], ends[1][3]))

        for name, pos, main, nrm in system_connectors:
            _connector_lines(out, 1, name, pos, main, nrm)
        for link in model.links:
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
