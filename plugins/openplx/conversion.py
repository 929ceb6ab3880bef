"""Core document -> OpenPLX source: documents read from SDFormat or URDF, or built in memory.

One ``Physics3D.System`` type per model, written as a top-level model of one file:

* the top model (or the world) is the **last** type: tools assemble the last top-level
  System of a file;
* a nested model gets a type of its own (``<parent type>_<member>``);
* an **included file** gets one type, shared by every include of it (the included model
  is a template in the core model too), so the assembly stays modular; a merge-include
  adds its model's content to the including model, as it does in SDFormat;
* a link becomes a ``RigidBody`` with its inertia, geometries and a ``MateConnector`` per
  frame on it; a frame on a model (or the world) becomes a connector of that system.

Joints become mates between two connectors placed at the joint frame (main_axis = the
joint axis) on the parent's and the child's body, so the connectors coincide in the
current configuration; limits become ``RotationalRange`` / ``LinearRange`` interactions.
A joint whose end is a frame or a link of a nested or included model gets its connector
on that body, declared from the joint's model with a dotted path
(``gripper.body.weld_child is ...``), which adds it to that one instance only.

**Placement.**  Any assignment of ``local_transform`` fixes a frame for SNAP, so it is
written only where SNAP would not find the frame: a link, nested model or include that
is the child of a joint of its model (the first such joint, unless it closes a loop) is
left free, and SNAP puts it where the mate says, which is where libsdformat puts it
(the connectors coincide there).  An include placed on another include through
``placement_frame`` and welded there is therefore written as what it is, a weld: move
the arm and the gripper follows.  Everything else keeps its resolved pose as a declared
``local_transform`` (the include pose, ``relative_to`` and ``placement_frame`` folded
in by the frame graph).

Anything OpenPLX cannot hold (plugins, joint types without a mate, effort limits, world
elements such as lights, a link's sensors and gravity, a collision's surface, joint springs
and physics...) is reported as a ``CONVERSION_ERROR`` warning naming the element, never
dropped silently.  A link without ``<inertial>`` (or ``<mass>``) gets SDFormat's default
written out (mass 1, unit inertia): OpenPLX's default mass is 0.  An element keeps its
name when it is an OpenPLX identifier; a renamed one (``a-b``, the keyword ``is``) gets a
name no other element of its scope holds as written, and each rename is reported.  The
further worlds of a multi-world file are Systems before the document's own (tools assemble
the last).  Types nested deeper than an OpenPLX reader expands (:data:`.physics.
MAX_SYSTEM_DEPTH` below the assembled System) are refused.  The walk uses explicit stacks:
nesting depth is not limited by recursion.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from snapframe.core.diagnostics import Code, Diagnostics
from snapframe.core.frames.merge import merged_entities, proxy_name
from snapframe.core.frames.scope import Scope, Unresolved
from snapframe.core.model import (Collision, Frame, Include, Joint, Link, Mate,
                                  MateConnector, Model, Node, Plugin, Visual, World)
from snapframe.core.model.names import MODEL_FRAME, SEP, WORLD
from snapframe.core.pose import IDENTITY, Pose
from snapframe.core.snap.paths import TreeIndex, WORLD_CONNECTOR, is_derived, walk_models

from . import mathlib as m
from .mapping import MATE_OF_JOINT, fmt, identifier, transform_lines
from .part_lines import (Lines, collision_density, connector_lines, frame_axes,
                         geometry_lines, has_dynamics, inertial_lines)
from .physics import MATE_TYPES, MAX_SYSTEM_DEPTH

__all__ = ["document_to_source", "model_to_source"]

#: Attributes a converted System or RigidBody inherits: generated members must not reuse
#: them (``local_transform is Physics3D.Bodies.RigidBody`` would replace the transform).
SYSTEM_ATTRS = frozenset({"local_transform", "kinematically_controlled", "reference_body"})
BODY_ATTRS = frozenset({"inertia", "kinematics", "is_dynamic", "linear_velocity_world_output",
                        "angular_velocity_world_output", "linear_velocity_world_input",
                        "angular_velocity_world_input", "position_output", "rpy_output"})
#: Names a generated type or member must not take: they would hide the bundles and the
#: primitive types the written file refers to.
RESERVED = frozenset({"Math", "Physics", "Physics1D", "Physics3D", "DriveTrain", "Robotics",
                      "Sensors", "Simulation", "Terrain", "Urdf", "Vehicles", "Visuals", "Real",
                      "Int", "Bool", "String"})
#: Joint limits wider than this are "no limit" (SDFormat's default is +-1e16).
_NO_LIMIT = 1e15
#: Longest generated nested-type name before it falls back to the member name alone.
_MAX_TYPE_NAME = 64

_INITIAL_VALUES = {"hinge": ("initial_angle",), "prismatic": ("initial_position",),
                   "cylindrical": ("initial_angle", "initial_position"),
                   "distance": ("initial_distance",)}


def unique(name: str, used: set[str], keep: set[str] | frozenset[str] = frozenset()) -> str:
    """``name`` itself when it is a free OpenPLX identifier; else ``identifier(name)`` with
    ``_2``, ``_3``... appended until it is in neither ``used`` nor ``keep`` (the valid names
    other elements of the namespace hold as written, so a renamed element never takes the
    name of another: "a-b" becomes "a_b_2" next to a link "a_b", whatever their order).
    The result is added to ``used``."""
    base = identifier(name)
    if base == name and name not in used:
        used.add(name)
        return name
    out, k = base, 2
    while out in used or out in keep:
        out, k = f"{base}_{k}", k + 1
    used.add(out)
    return out


def exact_names(names, used: set[str]) -> set[str]:
    """The ``names`` an element can keep as they are (valid identifiers not taken)."""
    return {n for n in names if n and identifier(n) == n and n not in used}


def rename_reason(name: str) -> str:
    """Why ``name`` cannot be kept as written (for the rename warning)."""
    from .lexer import KEYWORDS
    if name in KEYWORDS:
        return "an OpenPLX keyword"
    if identifier(name) != name:
        return "not an OpenPLX identifier"
    return "the name is taken in that scope"


@dataclass(eq=False)
class _System:
    """One System type to write: a model (top, nested or an included file) or the world."""

    node: Model | World
    scope: Scope | None
    type_name: str
    static: bool
    #: What the type holds, merge-includes expanded.
    links: list[Link] = field(default_factory=list)
    subsystems: list[tuple[Node, str, "_System"]] = field(default_factory=list)
    frames: list[tuple[str, Frame]] = field(default_factory=list)   # (name in scope, frame)
    #: (name in scope, joint, parent, child)
    joints: list[tuple[str, Joint, str, str]] = field(default_factory=list)
    mates: list[Mate] = field(default_factory=list)
    #: Attribute names: links and sub-systems by entity name.
    link_members: dict[str, str] = field(default_factory=dict)
    #: Valid names the type's members keep as written (renamed ones must not take them),
    #: of the System and of each body (by link name).
    keep: set[str] = field(default_factory=set)
    body_keep: dict[str, set[str]] = field(default_factory=dict)
    members: dict[str, tuple[str, "_System"]] = field(default_factory=dict)
    #: Filled when written: attribute names of the type's bodies and system, and the ones
    #: the type declares on its members' bodies (by dotted path from this system).
    body_attrs: dict[str, set[str]] = field(default_factory=dict)
    system_attrs: set[str] = field(default_factory=set)
    added: dict[str, set[str]] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.node.kind} '{self.node.name}'"


@dataclass
class _End:
    """Where one end of a joint (or a frame) gets its connector."""

    path: list[str]            # attribute names from the joint's system to the owner's system
    owner: _System             # the system whose body (or itself) owns the connector
    link: str | None           # link entity name in ``owner`` (None: the system itself)
    unit: str | None           # entity of the joint's model that moves with it (None: fixed)
    X_OJ: Pose                 # the joint (or frame) in the owner's frame


class _Converter:
    def __init__(self, diagnostics: Diagnostics) -> None:
        self.diags = diagnostics
        self.type_names: set[str] = set(RESERVED)
        self.templates: dict[int, _System] = {}
        self.scope_cache: dict = {}
        #: frame node id -> (system whose type declares the connector, reference there)
        self.connector_refs: dict[int, tuple[_System, str]] = {}
        self.mate_children: set[int] = set()

    def warn(self, message: str, node: Node | None = None) -> None:
        self.diags.warning(Code.CONVERSION_ERROR, message, node.source if node else None)

    def name(self, name: str, used: set[str], keep: set[str], node: Node | None,
             what: str) -> str:
        """An OpenPLX name for an element (see :func:`unique`); a rename is reported."""
        out = unique(name, used, keep)
        if out != name:
            self.warn(f"{what} '{name}' is written as '{out}' in OpenPLX ({rename_reason(name)})",
                      node)
        return out

    # -- the walk -----------------------------------------------------------------------
    def run(self, root: Model | World, top_name: str | None,
            others: list[World] | tuple = ()) -> str:
        """The source of ``root``'s types; ``others`` are further worlds of the same file,
        written as Systems of their own before ``root``'s (tools assemble the last one)."""
        tops = [self._top(root, top_name)] + [self._top(w, None) for w in others]
        order: list[_System] = []
        entered: set[int] = set()
        for top in [*tops[1:], tops[0]]:
            stack: list[tuple[_System, bool]] = [(top, False)]
            while stack:   # post-order: every type after the types it uses, the top one last
                system, done = stack.pop()
                if done:
                    order.append(system)
                    continue
                if id(system) in entered:
                    continue
                entered.add(id(system))
                self._enter(system)
                stack.append((system, True))
                for _, _, sub in reversed(system.subsystems):
                    if id(sub) not in entered:
                        stack.append((sub, False))
        self._check_depth(order, tops)
        for system in order:
            self._write(system)
        name = root.name or "World"
        header = [f"# Converted by Snapframe from the {root.kind} '{name}'.",
                  "# Joints became mates between connectors at the joint frames; links, models",
                  "# and includes that are not the child of a joint keep a declared",
                  "# local_transform, SNAP places the rest."]
        if others:
            header.append(f"# The file's other worlds ({', '.join(t.type_name for t in tops[1:])}) "
                          "are Systems before it; the last System is "
                          f"'{tops[0].type_name}'.")
        return "\n".join([*header, ""]) + "\n\n".join("\n".join(s.lines) for s in order) + "\n"

    def _check_depth(self, order: list[_System], tops: list[_System]) -> None:
        """Refuse types nested deeper than an OpenPLX reader expands (Snapframe's expands
        :data:`.physics.MAX_SYSTEM_DEPTH` systems below the assembled one): the file could
        not be opened again.  Raises :class:`~snapframe.plugins.nesting.NestingTooDeep`."""
        from snapframe.plugins.nesting import NestingTooDeep
        levels: dict[int, int] = {}
        for system in order:   # post-order: a type's sub-systems come before it
            levels[id(system)] = 1 + max((levels[id(sub)] for _, _, sub in system.subsystems),
                                         default=0)
        for top in tops:
            below = levels[id(top)] - 1
            if below > MAX_SYSTEM_DEPTH:
                message = (f"{top.label} would be written as systems nested {below} deep below "
                           f"the assembled one; OpenPLX readers (Snapframe's) expand "
                           f"{MAX_SYSTEM_DEPTH}, so nothing is written")
                self.diags.error(Code.CONVERSION_ERROR, message, top.node.source)
                raise NestingTooDeep(message)

    def _top(self, root: Model | World, top_name: str | None) -> _System:
        if isinstance(root, World):
            scope = Scope.for_world(root, self.scope_cache)
            self._world_leftovers(root)
            return _System(root, scope, self.name(top_name or root.name or "World",
                                                  self.type_names, set(), root, "world"), False)
        scope = Scope.for_model(root, root.name, root.static, self.scope_cache)
        return _System(root, scope, self.name(top_name or root.name, self.type_names, set(),
                                              root, "model"), root.static)

    def _world_leftovers(self, world: World) -> None:
        el = world.xml
        if el is None:
            return
        kept = {"model", "include", "frame", "joint", "plugin"}
        tags = []
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag and tag not in kept and tag not in tags:
                tags.append(tag)
        if tags:
            self.warn(f"world '{world.name}': {', '.join(f'<{t}>' for t in tags)} "
                      f"{'has' if len(tags) == 1 else 'have'} no OpenPLX counterpart; left out",
                      world)

    def _enter(self, system: _System) -> None:
        """Sort the model's content into links, sub-systems, frames, joints and mates."""
        node = system.node
        scope_frame = WORLD if isinstance(node, World) else MODEL_FRAME
        if isinstance(node, Model) and not isinstance(node.parent, Model):
            # Mates may place links of nested models: look at each tree once, from its top.
            self.mate_children |= _mate_children(node)
        pending = list(node.entities)
        pending.reverse()
        includes: list[Include] = []
        while pending:
            e = pending.pop()
            if isinstance(e, Include) and e.merge and e.model is not None:
                # A merge-include adds its model's content here, through a proxy frame.
                merged = merged_entities(e, e.model, scope_frame)
                pending.extend(reversed(merged))
                continue
            if isinstance(e, Link):
                if not is_derived(e):
                    system.links.append(e)
            elif isinstance(e, Model):
                system.subsystems.append((e, "", self._nested(system, e)))
            elif isinstance(e, Include):
                if e.model is None:
                    self.warn(f"include '{e.uri}' in {system.label} was not loaded; nothing of "
                              "it is written", e)
                    continue
                system.subsystems.append((e, "", self._included(system, e)))
                includes.append(e)
            elif isinstance(e, Frame):
                system.frames.append((e.name, e))
            elif isinstance(e, Joint):
                if not is_derived(e):   # mates are written as such
                    system.joints.append((e.name, e, e.parent_name, e.child_name))
            elif isinstance(e, Mate):
                system.mates.append(e)
            elif isinstance(e, Plugin):
                self.warn(f"plugin '{e.name or e.filename}' of {system.label} has no OpenPLX "
                          "counterpart; left out", e)
        for inc in includes:
            # Frames and joints an <include> adds live in the included scope.
            name = inc.effective_name
            for x in inc.entities:
                if isinstance(x, Frame):
                    system.frames.append((f"{name}{SEP}{x.name}", x))
                elif isinstance(x, Joint):
                    ends = [ref if ref == WORLD else f"{name}{SEP}{ref}"
                            for ref in (x.parent_name, x.child_name)]
                    system.joints.append((f"{name}{SEP}{x.name}", x, ends[0], ends[1]))
                elif isinstance(x, Plugin):
                    self.warn(f"plugin '{x.name or x.filename}' of include '{name}' has no "
                              "OpenPLX counterpart; left out", x)
        used = set(SYSTEM_ATTRS) | RESERVED
        system.keep = keep = exact_names(
            [*(link.name for link in system.links),
             *(_entity_name(n) for n, _, _ in system.subsystems),
             *(name for name, f in system.frames
               if SEP not in name and f.attached_to in ("", MODEL_FRAME)),
             *(name for name, _, _, _ in system.joints if SEP not in name),
             *(mate.name for mate in system.mates)], used)
        for link in system.links:
            system.body_keep[link.name] = exact_names(
                [*(p.name for p in [*link.collisions, *link.visuals]),
                 *(f.name for _, f in system.frames if f.attached_to == link.name)],
                set(BODY_ATTRS))
        for link in system.links:
            system.link_members[link.name] = self.name(link.name, used, keep, link, "link")
        named = []
        for sub_node, _, sub in system.subsystems:
            entity = _entity_name(sub_node)
            member = self.name(entity, used, keep, sub_node, sub_node.kind)
            system.members.setdefault(entity, (member, sub))
            named.append((sub_node, member, sub))
        system.subsystems = named
        system.system_attrs = used
        self._leftovers(system)

    def _leftovers(self, system: _System) -> None:
        """Report the SDFormat content of the type's model, links, visuals, collisions and
        joints that the OpenPLX text does not hold (sensors, lights, gravity, surfaces,
        joint springs and physics...), naming each element; what is reported elsewhere
        (plugins, colours, joint types without a mate, effort limits, damping) is left
        to those warnings."""
        node = system.node
        if isinstance(node, Model):
            # (<plugin> elements read as plugins are reported with them)
            # (a foreign model's <static> comes from an extension the model does not apply)
            written = _MODEL_WRITTEN | {"plugin"} if node.xml is not None \
                else _MODEL_WRITTEN - {"static"}
            self._report(node, _view(node), written, f"model '{node.name}'")
            for message, where in node.extras.get("urdf_unconverted", ()):
                self.diags.warning(Code.CONVERSION_ERROR, f"{message}; OpenPLX has no "
                                   "counterpart, left out", where)
        for link in system.links:
            view = _view(link)
            self._report(link, view, _LINK_WRITTEN, f"link '{link.name}'")
            inertial = view.find("inertial") if view is not None else None
            self._report(link, inertial, _INERTIAL_WRITTEN, f"the <inertial> of link '{link.name}'")
            for part in [*link.visuals, *link.collisions]:
                written = _VISUAL_WRITTEN if isinstance(part, Visual) else _COLLISION_WRITTEN
                self._report(part, _view(part), written,
                             f"{part.kind} '{part.name}' of link '{link.name}'")
        for name, joint, _, _ in system.joints:
            view = _view(joint)
            lost = [f"<{c.tag}>" for c in _unwritten(view, _JOINT_WRITTEN)]
            if joint.type in MATE_OF_JOINT:   # (else: the joint is reported as a whole)
                for axis in (c for c in (view if view is not None else []) if c.tag == "axis"):
                    lost += [f"<axis/{path}>" for path in _leaf_paths(axis)
                             if path not in _AXIS_WRITTEN]
            if lost:
                self.warn(f"joint '{name}': {', '.join(dict.fromkeys(lost))} "
                          f"{'has' if len(lost) == 1 else 'have'} no OpenPLX counterpart; "
                          "left out", joint)

    def _report(self, node: Node, view, written: frozenset[str], what: str) -> None:
        lost = [f"<{c.tag}>" for c in _unwritten(view, written)
                if not (c.tag == "material" and _colours_only(c))]
        if lost:
            lost = list(dict.fromkeys(lost))
            self.warn(f"{what}: {', '.join(lost)} {'has' if len(lost) == 1 else 'have'} no "
                      "OpenPLX counterpart; left out", node)

    def _nested(self, system: _System, model: Model) -> _System:
        member = identifier(model.name)
        name = f"{system.type_name}_{member}"
        if len(name) > _MAX_TYPE_NAME:
            name = member
        return _System(model, self._sub_scope(system, model.name, model),
                       unique(name, self.type_names), system.static or model.static)

    def _included(self, system: _System, inc: Include) -> _System:
        template = inc.model
        assert template is not None
        static_here = system.static or inc.effective_static
        found = self.templates.get(id(template))
        if found is None:
            # One type per included file, read as the file stands on its own.
            scope = Scope.for_model(template, template.name, template.static, self.scope_cache)
            found = _System(template, scope, unique(_type_name(template.name), self.type_names),
                            template.static)
            self.templates[id(template)] = found
        if static_here != found.static:
            self.warn(f"include '{inc.effective_name}' in {system.label} is "
                      f"{'static' if static_here else 'not static'} but its file's model is "
                      f"{'static' if found.static else 'not'}; the file's one OpenPLX type "
                      "keeps the model's own setting", inc)
        return found

    def _sub_scope(self, system: _System, name: str, node: Node) -> Scope | None:
        if system.scope is not None:
            vertex = system.scope.vertices.get(name)
            if vertex is not None and vertex.node is node:
                return vertex.nested
        if isinstance(node, Model):
            return Scope.for_model(node, node.name, system.static or node.static, self.scope_cache)
        return None

    # -- one type -------------------------------------------------------------------------
    def _write(self, system: _System) -> None:
        system.lines = _TypeWriter(self, system).write()

    @staticmethod
    def place(placed: dict[str, str | None], parent: str | None, child: str | None) -> None:
        """Leave ``child`` to SNAP (placed from ``parent``) unless it is fixed, already
        placed, or placing it would close a loop (SNAP could then place neither)."""
        if child is None or child == parent or child in placed:
            return
        unit = parent
        while unit is not None and unit != child and unit in placed:
            unit = placed[unit]
        if unit != child:
            placed[child] = parent

    # -- ends of joints and frames --------------------------------------------------------
    def _end(self, system: _System, ref: str, X_CJ: Pose) -> _End | None:
        """The body (or system) that carries a connector for frame ``ref`` of ``system``."""
        scope = system.scope
        if ref == WORLD or scope is None:
            return _End([], system, None, None, X_CJ) if ref == WORLD else None
        try:
            body = scope.body_of(ref)
        except Unresolved:
            return None
        if body in (MODEL_FRAME, WORLD):
            return _End([], system, None, None, X_CJ)
        located = self._locate(system, body)
        if located is None:
            return None
        path, owner, link, unit = located
        try:
            X_CO = scope.pose_of(body if link is not None else body.rpartition(SEP)[0])
        except Unresolved:
            return None
        return _End(path, owner, link, unit, X_CO.inverse() @ X_CJ)

    @staticmethod
    def _locate(system: _System, body: str) -> tuple[list[str], _System, str | None, str] | None:
        """``sub::inner::link`` (or ``sub::__model__``) -> the attribute path from ``system``,
        the system owning it, the link (None: the system) and the unit that moves it."""
        parts = body.split(SEP)
        link: str | None = parts.pop()
        if link == MODEL_FRAME:
            link = None
        if not parts and link is None:
            return None
        unit = parts[0] if parts else link
        path, owner = [], system
        for part in parts:
            entry = owner.members.get(part)
            if entry is None:
                return None
            path.append(entry[0])
            owner = entry[1]
        if link is not None and link not in owner.link_members:
            return None
        assert unit is not None
        return path, owner, link, unit

    def _taken(self, system: _System, end: _End, owner_path: str) -> set[str]:
        """Attribute names a connector declared on ``owner_path`` must avoid: the owner
        type's own and those the systems on the way declare there."""
        owner = end.owner
        names = set(owner.body_attrs.get(end.link, BODY_ATTRS) if end.link is not None
                    else owner.system_attrs)
        parts = owner_path.split(".")
        current = system
        for i in range(len(end.path) + 1):
            names |= current.added.get(".".join(parts[i:]), set())
            if i < len(end.path):
                entry = next((e for e in current.members.values() if e[0] == end.path[i]), None)
                if entry is None:
                    break
                current = entry[1]
        return names

    def _axis(self, joint: Joint, name: str, X_CJ: Pose, pose_of) -> tuple[float, float, float]:
        """The joint axis in the joint frame (unit; z for fixed and ball joints)."""
        if joint.type in ("fixed", "ball") or not joint.axes:
            return (0.0, 0.0, 1.0) if joint.type in ("fixed", "ball") else (1.0, 0.0, 0.0)
        a = joint.axes[0]
        axis = a.xyz
        if a.expressed_in not in ("", joint.name):
            prefix = name.rpartition(SEP)[0]
            frame = a.expressed_in if not prefix or a.expressed_in == MODEL_FRAME \
                else f"{prefix}{SEP}{a.expressed_in}"
            X_CE = IDENTITY if frame == MODEL_FRAME else pose_of(frame)
            if X_CE is not None:
                axis = X_CJ.inverse().rotate(X_CE.rotate(axis))
        if m.length(axis) <= 1e-12:
            return (0.0, 0.0, 1.0)
        return tuple(m.normal(axis))  # type: ignore[return-value]

    def _part_pose(self, part: Collision | Visual, link: Link, X_CL: Pose, pose_of) -> Pose:
        """X_LP: a visual's or collision's frame in its link's (its pose may be written
        relative to another frame of the model)."""
        spec = part.pose
        if spec.relative_to in ("", link.name):
            return spec.value
        X_CR = pose_of(spec.relative_to)
        return X_CL.inverse() @ X_CR @ spec.value if X_CR is not None else spec.value

    def _range_lines(self, out: Lines, jn: str, joint: Joint, used: set[str],
                     keep: set[str] | frozenset[str] = frozenset()) -> bool:
        """The joint's position limits as a range on the mate's connectors; True when it
        also has effort or velocity limits, damping or friction (OpenPLX mates cannot
        hold those)."""
        if not joint.axes:
            return False
        a = joint.axes[0]
        lower = a.lower if a.lower is not None and abs(a.lower) < _NO_LIMIT else None
        upper = a.upper if a.upper is not None and abs(a.upper) < _NO_LIMIT else None
        if (lower is not None or upper is not None) and joint.type in ("revolute", "prismatic"):
            kind = "RotationalRange" if joint.type == "revolute" else "LinearRange"
            name = unique(f"{jn}_range", used, keep)
            out.add(1, f"{name} is Physics3D.Interactions.{kind}:")
            out.add(2, f"connectors: {jn}.connectors")
            out.add(2, f"start: {fmt(lower) if lower is not None else 'Math.NEG_INF'}")
            out.add(2, f"end: {fmt(upper) if upper is not None else 'Math.INF'}")
        return any(getattr(a, k) is not None and 0 <= getattr(a, k) < _NO_LIMIT
                   for k in ("effort", "velocity")) or has_dynamics(joint)

    def _mate_lines(self, out: Lines, system: _System, mate: Mate, name: str) -> None:
        """A :class:`Mate` as the mate it is, its connectors named from its system."""
        model = system.node
        texts = []
        for cname in mate.connectors:
            conn = TreeIndex(model).connector(model, cname) if isinstance(model, Model) else None
            if conn is None and cname == WORLD_CONNECTOR:
                texts.append("Physics3D.Interactions.World")
                continue
            text = self._reference(system, cname, conn)
            if text is None:
                self.warn(f"mate '{mate.name}': connector '{cname}' is not converted; the "
                          "mate is left out", mate)
                return
            texts.append(text)
        kind = mate.type if mate.type in MATE_TYPES else "lock"
        out.add(1, f"{name} is {MATE_TYPES[kind]}:")
        out.add(2, f"connectors: [{texts[0]}, {texts[1]}]")
        for attr in _INITIAL_VALUES.get(kind, ()):
            if getattr(mate, attr) != 0.0:
                out.add(2, f"{attr}: {fmt(getattr(mate, attr))}")
        if not mate.enable_snap:
            out.add(2, "enable_snap: false")

    def _reference(self, system: _System, cname: str, conn: MateConnector | None) -> str | None:
        found = self.connector_refs.get(conn.id) if conn is not None else None
        if found is None:
            return None
        holder, ref = found
        path, current = [], system
        for part in cname.split(SEP)[:-1]:
            entry = current.members.get(part)
            if entry is None:
                return None
            path.append(entry[0])
            current = entry[1]
        return ".".join([*path, ref]) if current is holder else None


class _TypeWriter:
    """Writes one System type: its connectors, bodies, members and interactions."""

    def __init__(self, converter: _Converter, system: _System) -> None:
        self.conv, self.system = converter, system
        self.out = Lines()
        self.used = system.system_attrs          # the System's attribute names
        self.body_used = {link.name: set(BODY_ATTRS) for link in system.links}
        system.body_attrs = self.body_used
        self.geometry_names = {
            id(part): converter.name(part.name, self.body_used[link.name],
                                     system.body_keep[link.name], part,
                                     f"{part.kind} of link '{link.name}'")
            if part.name else unique(part.geometry.shape, self.body_used[link.name],
                                     system.body_keep[link.name])
            for link in system.links for part in [*link.collisions, *link.visuals]}
        self.own: dict[str, list[tuple]] = {link.name: [] for link in system.links}
        self.declared_from_here: list[tuple[str, tuple]] = []   # (dotted owner, connector)
        self.system_connectors: list[tuple] = []
        self.mates: list[tuple[str, str, str, str, Joint]] = []  # name, type, refs, joint
        #: Units (links, sub-systems) SNAP places -> the unit they are placed from.
        self.placed: dict[str, str | None] = {}

    def write(self) -> list[str]:
        self.out.add(0, f"{self.system.type_name} is Physics3D.System:")
        self.frames()
        self.joints()
        for name, position, main, normal in self.system_connectors:
            connector_lines(self.out, 1, name, position, main, normal)
        self.bodies()
        self.members()
        for owner_path, (name, position, main, normal) in self.declared_from_here:
            connector_lines(self.out, 1, f"{owner_path}.{name}", position, main, normal)
        self.interactions()
        lines = self.out.lines
        if len(lines) == 1:
            lines[0] = lines[0][:-1]    # an empty System: no block
        return lines

    def pose_of(self, name: str) -> Pose | None:
        scope = self.system.scope
        if scope is None:
            return None
        try:
            return scope.pose_of(name)
        except Unresolved as exc:
            self.conv.warn(f"cannot resolve the pose of '{name}' in {self.system.label}: {exc}",
                           self.system.node)
            return None

    def connector(self, end: _End, wanted: str, axes: tuple, frame: Frame | None = None) -> str:
        """Declare a connector at ``end``; returns how this system refers to it.  For a
        ``frame`` (a name the user gave), a rename is reported."""
        position, main, normal = axes
        system = self.system

        def named(used: set[str], keep: set[str]) -> str:
            if frame is None:
                return unique(wanted, used, keep)
            return self.conv.name(wanted, used, keep, frame, "frame")

        if not end.path and end.link is not None:
            name = named(self.body_used[end.link], system.body_keep.get(end.link, set()))
            self.own[end.link].append((name, position, main, normal))
            return f"{system.link_members[end.link]}.{name}"
        if not end.path:
            name = named(self.used, system.keep)
            self.system_connectors.append((name, position, main, normal))
            return name
        owner_path = ".".join(end.path + ([end.owner.link_members[end.link]]
                                          if end.link is not None else []))
        name = named(self.conv._taken(system, end, owner_path), set())
        system.added.setdefault(owner_path, set()).add(name)
        self.declared_from_here.append((owner_path, (name, position, main, normal)))
        return f"{owner_path}.{name}"

    def frames(self) -> None:
        system = self.system
        for name, fr in system.frames:
            if _is_proxy(fr):
                continue   # a merge-include's proxy frame: the frame graph keeps it
            X_CF = self.pose_of(name)
            if X_CF is None:
                continue
            on_model = SEP not in name and fr.attached_to in ("", MODEL_FRAME)
            end = None if on_model else self.conv._end(system, name, X_CF)
            if end is None:
                # A frame on the model frame stays a connector of the system (fixed in
                # it, as OpenPLX system connectors are), not one of the canonical link.
                end = _End([], system, None, None, X_CF)
            short = name.rpartition(SEP)[2]
            if end.link is not None and short.startswith(end.link + "."):
                short = short[len(end.link) + 1:]   # "<link>.<x>", how connectors are shown
            ref = self.connector(end, short, frame_axes(end.X_OJ), fr)
            self.conv.connector_refs[fr.id] = (system, ref)

    def joints(self) -> None:
        """Each joint as a mate between connectors at its frame; the child is left to SNAP
        (see :meth:`_Converter.place`)."""
        system, conv = self.system, self.conv
        for link in system.links:
            if link.id in conv.mate_children:
                self.placed[link.name] = None
        for name, j, parent, child in system.joints:
            if j.type not in MATE_OF_JOINT:
                conv.warn(f"joint '{j.name}' of type '{j.type}' has no OpenPLX mate; the "
                          "child keeps its pose", j)
                continue
            X_CJ = self.pose_of(name)
            if X_CJ is None:
                continue
            axis = conv._axis(j, name, X_CJ, self.pose_of)
            normal = m.orthogonal_unit_vector(axis)  # type: ignore[arg-type]
            ends = [conv._end(system, ref, X_CJ) for ref in (parent, child)]
            if ends[0] is None or ends[1] is None:
                bad = parent if ends[0] is None else child
                conv.warn(f"joint '{j.name}': '{bad}' is not on a link of {system.label} or of "
                          "its nested models; the mate is left out", j)
                continue
            jn = conv.name(j.name if SEP not in name else name.replace(SEP, "_"), self.used,
                           system.keep, j, "joint")
            refs = []
            for end, role in zip(ends, ("parent", "child")):
                axes = (end.X_OJ.p, end.X_OJ.rotate(axis), end.X_OJ.rotate(normal))
                refs.append(self.connector(end, f"{jn}_{role}", axes))
            self.mates.append((jn, MATE_OF_JOINT[j.type], refs[0], refs[1], j))
            conv.place(self.placed, ends[0].unit, ends[1].unit)

    def bodies(self) -> None:
        out, system = self.out, self.system
        coloured = []
        for link in system.links:
            out.add(1, f"{system.link_members[link.name]} is Physics3D.Bodies.RigidBody:")
            X_CL = self.pose_of(link.name) or IDENTITY
            if link.name not in self.placed:
                out.add(2, "kinematics.local_transform:")
                for line in transform_lines(X_CL):
                    out.add(3, line)
            if system.static:
                out.add(2, "is_dynamic: false")
            inertial_lines(out, 2, link.inertial)
            for part in [*link.collisions, *link.visuals]:
                X_LP = self.conv._part_pose(part, link, X_CL, self.pose_of)
                geometry_lines(out, 2, part, X_LP, self.conv.diags, self.geometry_names[id(part)],
                               collision_density(part, link.inertial))
                if isinstance(part, Visual) and part.color is not None:
                    coloured.append(f"{link.name}/{part.name}")
            for name, position, main, normal in self.own[link.name]:
                connector_lines(out, 2, name, position, main, normal)
        if coloured:
            self.conv.warn(f"{system.label}: the colours of visual"
                           f"{'s' if len(coloured) > 1 else ''} {', '.join(coloured)} have no "
                           "counterpart in OpenPLX's visual materials; left out", system.node)

    def members(self) -> None:
        for sub_node, member, sub in self.system.subsystems:
            entity = _entity_name(sub_node)
            if entity in self.placed:
                self.out.add(1, f"{member} is {sub.type_name}")
                continue
            X = self.pose_of(entity) or IDENTITY
            self.out.add(1, f"{member} is {sub.type_name}:")
            self.out.add(2, "local_transform:")
            for line in transform_lines(X):
                self.out.add(3, line)

    def interactions(self) -> None:
        out, system, conv = self.out, self.system, self.conv
        unlimited: list[str] = []
        for jn, mate_type, ref0, ref1, joint in self.mates:
            out.add(1, f"{jn} is Physics3D.Interactions.{mate_type}:")
            out.add(2, f"connectors: [{ref0}, {ref1}]")
            if conv._range_lines(out, jn, joint, self.used, system.keep):
                unlimited.append(joint.name)
        if unlimited:
            conv.warn(f"{system.label}: the effort and velocity limits, damping and friction "
                      f"of joint{'s' if len(unlimited) > 1 else ''} {', '.join(unlimited)} "
                      "have no counterpart on an OpenPLX mate; left out", system.node)
        for mate in system.mates:
            conv._mate_lines(out, system, mate, conv.name(mate.name, self.used, system.keep,
                                                          mate, "mate"))


#: Children of SDFormat elements the OpenPLX text holds (or reports on its own).
_MODEL_WRITTEN = frozenset({"pose", "static", "link", "joint", "frame", "model", "include"})
_LINK_WRITTEN = frozenset({"pose", "inertial", "visual", "collision"})
_INERTIAL_WRITTEN = frozenset({"pose", "mass", "inertia", "density", "auto_inertia_params"})
_VISUAL_WRITTEN = frozenset({"pose", "geometry"})
_COLLISION_WRITTEN = frozenset({"pose", "geometry", "density", "auto_inertia_params"})
_JOINT_WRITTEN = frozenset({"pose", "parent", "child", "axis", "axis2"})
_AXIS_WRITTEN = frozenset({"xyz", "limit/lower", "limit/upper", "limit/effort", "limit/velocity",
                           "dynamics/damping", "dynamics/friction", "use_parent_model_frame"})


def _view(node: Node):
    """The SDFormat element of ``node``: the one it was read from, or what another
    format's reader set aside as SDFormat for it (a URDF ``<gazebo>`` extension)."""
    return node.xml if node.xml is not None else node.extras.get("sdformat_elements")


def _unwritten(el, written: frozenset[str]) -> list:
    if el is None:
        return []
    return [c for c in el if isinstance(c.tag, str) and c.tag not in written]


def _leaf_paths(el, prefix: str = "") -> list[str]:
    out = []
    for c in el:
        if isinstance(c.tag, str):
            path = f"{prefix}{c.tag}"
            kids = [k for k in c if isinstance(k.tag, str)]
            out.extend(_leaf_paths(c, path + "/") if kids else [path])
    return out


def _colours_only(material) -> bool:
    """A material of colours only (its colour loss is reported with the visual's)."""
    return all(c.tag in ("ambient", "diffuse", "specular", "emissive")
               for c in material if isinstance(c.tag, str))


def _type_name(name: str) -> str:
    """A type name for an included file's model: CamelCase, so it reads apart from the
    members (``arm is Arm``)."""
    parts = [p for p in identifier(name).split("_") if p]
    return "".join(p[0].upper() + p[1:] for p in parts) or "Model"


def _entity_name(node: Node) -> str:
    return node.effective_name if isinstance(node, Include) else node.name


def _is_proxy(frame: Frame) -> bool:
    """Is ``frame`` the proxy a merge-include adds for its model frame?"""
    name = frame.name
    return (name.startswith("_merged__") and name.endswith("__model__")
            and name == proxy_name(name[len("_merged__"):-len("__model__")]))


def _mate_children(model: Model) -> set[int]:
    """Ids of the links mates place (owner of ``connectors[1]``, or of ``connectors[0]``
    when that one is fixed in the world): they get no declared transform."""
    if not any(isinstance(n, Mate) for n in walk_models(model)):
        return set()
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


def document_to_source(root: Model | World, diagnostics: Diagnostics | None = None,
                       top_name: str | None = None, other_worlds: list[World] | tuple = ()
                       ) -> str:
    """OpenPLX source for a model or a world (see the module docstring); what OpenPLX
    cannot hold goes to ``diagnostics`` as warnings.  ``other_worlds`` (the further worlds
    of a multi-world file) are written too, as Systems before ``root``'s."""
    from snapframe.plugins.nesting import nesting_depth, recursion_headroom
    diags = diagnostics if diagnostics is not None else Diagnostics()
    depth = max(nesting_depth(r) for r in (root, *other_worlds))
    with recursion_headroom(depth):
        return _Converter(diags).run(root, top_name, other_worlds)


def model_to_source(model: Model, diagnostics: Diagnostics | None = None,
                    top_name: str | None = None) -> str:
    """OpenPLX source for a core model (see :func:`document_to_source`)."""
    return document_to_source(model, diagnostics, top_name)
