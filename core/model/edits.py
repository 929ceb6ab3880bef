"""Undoable edits of a :class:`Document`.  Push them on ``document.commands``::

    doc.commands.push(SetPose(doc, link, Pose.from_xyz_rpy(1, 0, 0)))
    doc.commands.undo()

Every edit an editor makes is a typed command here.  A command checks its arguments when
it is made and raises :class:`EditRefused` (a ``ValueError``) with the reason if they are
wrong, before anything changes.  A reference that names nothing (a ``relative_to`` typo)
is *not* refused: the edit is made and the diagnostics say what is wrong, as a fresh load
of the saved file would.

Each command changes nodes and then calls ``document.notify`` so derived data (frames,
diagnostics, inertia, SNAP) updates and views hear about it.  Consecutive edits of the
same value of the same element merge into a single undo step (a drag, a scrubbed slider),
until ``commands.end_merge()``; edits of different elements never merge.

Nodes inside an ``//include`` belong to the included file, shared by every instance: they
are edited in that file, opened as its own document (:meth:`Document.open_include`);
commands on the including document refuse them.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Iterable

from ..commands import Command
from ..events import ChangeKind, DocumentChanged
from ..pose import Pose
from .document import Document
from .names import SEP, is_reserved
from .nodes import (JOINT_TYPES, MATE_TYPES, Collision, Frame, Include, Joint, JointAxis, Link,
                    Mate, MateConnector, Model, Node, Plugin, PoseSpec, Visual, World)

__all__ = ["EditRefused", "SetPose", "SetDeclared", "SetRelativeTo", "SetField", "SetAttachedTo",
           "SetPlacementFrame", "SetDensity", "SetMass", "SetJointType", "SetJointAxis",
           "SetMate", "AddNode", "RemoveNode", "Rename", "AddInclude", "AddFrame", "AddLink",
           "AddJoint", "AddMateConnector", "AddMate"]

_POSED = (Link, Joint, Frame, Model, Include, Visual, Collision)


class EditRefused(ValueError):
    """An edit that cannot be made; ``str(exc)`` is the reason, for the user."""


# -- checks shared by the commands ------------------------------------------------------

def _label(node: Node) -> str:
    name = node.effective_name if isinstance(node, Include) else node.name
    return f"{node.kind} '{name}'" if name else node.kind


def check_owned(document: Document, node: Node) -> None:
    """Refuse edits of nodes the document does not own (template nodes of an include) and
    of nodes derived from others (the joints that stand for a mate)."""
    mate = node.extras.get("derived_from_mate")
    if mate:
        raise EditRefused(f"{_label(node)} stands for the mate '{mate}' (derived from it): "
                          "edit the mate instead")
    if node is document.root or any(a is document.root for a in node.ancestors()):
        return
    where = node.source.file or "an included file"
    raise EditRefused(f"{_label(node)} belongs to {where}, which is included (shared by every "
                      "instance of it): open that file to edit it (Document.open_include)")


def _finite(value: float, what: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise EditRefused(f"{what} must be a number, not {value!r}") from None
    if not math.isfinite(v):
        raise EditRefused(f"{what} must be finite, not {value!r}")
    return v


def _positive(value: float | None, what: str, allow_none: bool = True) -> float | None:
    if value is None:
        if allow_none:
            return None
        raise EditRefused(f"{what} is required")
    v = _finite(value, what)
    if v <= 0:
        raise EditRefused(f"{what} must be positive, not {value!r}")
    return v


def _check_pose(value: Pose) -> None:
    if not isinstance(value, Pose):
        raise EditRefused(f"a pose is needed, not {type(value).__name__}")
    if not all(math.isfinite(v) for v in (*value.R, *value.p)):
        raise EditRefused("the pose has a non-finite value")


def _check_name(name: str, what: str = "name") -> str:
    if not isinstance(name, str) or not name.strip():
        raise EditRefused(f"the {what} must not be empty")
    if SEP in name:
        raise EditRefused(f"the {what} [{name}] must not contain '::' (it separates scopes)")
    if is_reserved(name):
        raise EditRefused(f"the {what} [{name}] is reserved")
    return name


def _entity_name(node: Node) -> str:
    return node.effective_name if isinstance(node, Include) else node.name


def scope_names(container: Node) -> set[str]:
    """Names taken in the scope of ``container`` (a model, world or include)."""
    entities: list[Node] = []
    if isinstance(container, Include):
        entities = [*(container.model.entities if container.model else []), *container.entities]
    elif isinstance(container, (Model, World)):
        for e in container.entities:
            if isinstance(e, Include) and e.merge:
                entities.extend(e.model.entities if e.model else [])
                entities.extend(e.entities)
            else:
                entities.append(e)
    return {_entity_name(e) for e in entities if not isinstance(e, Plugin)}


def _check_free(container: Node, name: str, ignore: Node | None = None) -> None:
    taken = scope_names(container)
    if ignore is not None:
        taken.discard(_entity_name(ignore))
    if name in taken:
        raise EditRefused(f"the name [{name}] is already used in {_label(container)}")


def _siblings(parent: Node, node: Node) -> list[Node]:
    """The list ``node`` lives in (or would live in) under ``parent``."""
    if isinstance(node, Visual) and isinstance(parent, Link):
        return parent.visuals
    if isinstance(node, Collision) and isinstance(parent, Link):
        return parent.collisions
    if isinstance(parent, (Model, World, Include)):
        return parent.entities
    raise EditRefused(f"{parent.kind} cannot hold a {node.kind}")


def _event(kind: str, node: Node, fields: tuple[str, ...] = (), detail: dict | None = None
           ) -> DocumentChanged:
    return DocumentChanged(kind, (node.id,), fields, detail or {}, (node,))


# -- values ---------------------------------------------------------------------------

class SetPose(Command):
    """Set a node's ``<pose>`` value and, optionally, its ``relative_to``."""

    def __init__(self, document: Document, node: Node, value: Pose,
                 relative_to: str | None = None) -> None:
        if not isinstance(node, _POSED):
            raise EditRefused(f"{node.kind} has no pose")
        check_owned(document, node)
        _check_pose(value)
        if relative_to is not None and not isinstance(relative_to, str):
            raise EditRefused("relative_to must be a frame name")
        self.document, self.node = document, node
        self.new_value, self.new_relative_to = value, relative_to
        self.old: PoseSpec | None = None
        self.label = f"Move {node.name or node.kind}"
        self.merge_key = ("pose", node.id, relative_to)

    def _apply(self, spec: PoseSpec | None) -> None:
        before = self.node.pose  # type: ignore[attr-defined]
        self.node.pose = spec  # type: ignore[attr-defined]
        fields = ("pose",) if self.new_relative_to is None else ("pose", "relative_to")
        if (before is None) != (spec is None) or \
                (before is not None and spec is not None and before.written != spec.written):
            fields += ("written",)  # a pose written or removed: checks may change
        self.document.notify(_event(ChangeKind.MODIFIED, self.node, fields))

    def do(self) -> None:
        current: PoseSpec | None = self.node.pose  # type: ignore[attr-defined]
        self.old = current.copy() if current is not None else None
        base = current.copy() if current is not None else PoseSpec()
        base.value = self.new_value
        base.written = True
        if self.new_relative_to is not None:
            base.relative_to = self.new_relative_to
        self._apply(base)

    def redo(self) -> None:
        self.do()

    def undo(self) -> None:
        self._apply(self.old.copy() if self.old is not None else None)

    def merge(self, newer: Command) -> bool:
        if not isinstance(newer, SetPose) or newer.node is not self.node:
            return False
        self.new_value, self.new_relative_to = newer.new_value, newer.new_relative_to
        return True


class SetDeclared(Command):
    """Fix a body's or system's transform where it is (``declared`` True: SNAP leaves it
    alone, the file declares it) or free it for SNAP to place (False).  In SDFormat terms
    a declared pose is a written ``<pose>``."""

    def __init__(self, document: Document, node: Link | Model, declared: bool) -> None:
        if not isinstance(node, (Link, Model)) or node.pose is None:
            raise EditRefused(f"{_label(node)} has no transform SNAP could place")
        check_owned(document, node)
        self.document, self.node, self.declared = document, node, bool(declared)
        self.old: PoseSpec | None = None
        self.label = f"{'Fix' if declared else 'Free'} {node.name}"

    def do(self) -> None:
        self.old = self.node.pose.copy()
        spec = self.node.pose.copy()
        spec.written = self.declared
        self._apply(spec)

    def undo(self) -> None:
        self._apply(self.old.copy())  # type: ignore[union-attr]

    def _apply(self, spec: PoseSpec) -> None:
        self.node.pose = spec
        self.document.notify(_event(ChangeKind.MODIFIED, self.node, ("pose",)))


def SetRelativeTo(document: Document, node: Node, relative_to: str, *,
                  keep_world_pose: bool = True) -> SetPose:
    """Express ``node``'s pose relative to another frame.  With ``keep_world_pose`` the
    value is recomputed so the element stays where it is (what an inspector does);
    otherwise the written value is kept and the element moves.  Refused when the new
    frame cannot be resolved and the pose is to be kept."""
    spec = getattr(node, "pose", None)
    value = spec.value if spec is not None else Pose()
    if keep_world_pose:
        value = _value_keeping_pose(document, node, relative_to)
    return SetPose(document, node, value, relative_to)


def _value_keeping_pose(document: Document, node: Node, relative_to: str) -> Pose:
    from ..frames.scope import Unresolved
    located = document.frames._locate(node.id)
    if located is None or isinstance(node, (Visual, Collision)):
        raise EditRefused(f"the pose of {_label(node)} cannot be kept in another frame")
    scope, name = located
    # the new frame must not be placed (directly or not) relative to this element
    head, seen = (relative_to or "").partition(SEP)[0], set()
    while head and head not in seen and head != scope.frame_name:
        if head == name:
            raise EditRefused(f"[{relative_to}] is placed relative to {_label(node)}: "
                              "expressing it there would make a cycle")
        seen.add(head)
        vertex = scope.vertices.get(head)
        if vertex is None:
            break
        head = scope.base_of(vertex).partition(SEP)[0]
    try:
        X_S_node = scope.pose_of(name)
        X_S_rel = scope.pose_of(relative_to or scope.vertices[name].default_relative_to(
            scope.frame_name))
        if scope.vertices[name].placement_frame:
            X_S_node = X_S_node @ scope.vertices[name].nested.pose_of(  # type: ignore[union-attr]
                scope.vertices[name].placement_frame)
    except (Unresolved, KeyError) as exc:
        raise EditRefused(f"cannot express {_label(node)} relative to [{relative_to}]: "
                          f"{getattr(exc, 'reason', exc)}") from None
    return X_S_rel.inverse() @ X_S_node


class _SetAttributes(Command):
    """Set attributes of ``target`` (the node or one of its parts) as one edit of ``node``.

    ``fields`` name what changed in the event; consecutive edits of the same attributes of
    the same element merge (scrubbing a slider is one undo step).
    """

    def __init__(self, document: Document, node: Node, values: dict[str, Any],
                 fields: tuple[str, ...], label: str, target: Any = None) -> None:
        check_owned(document, node)
        self.document, self.node = document, node
        self.target = node if target is None else target
        self.new = dict(values)
        self.old: dict[str, Any] = {}
        self.fields = fields
        self.label = label
        self.merge_key = ("attrs", node.id, id(self.target), tuple(sorted(values)))

    def _apply(self, values: dict[str, Any]) -> None:
        for attr, value in values.items():
            setattr(self.target, attr, value)
        self.document.notify(_event(ChangeKind.MODIFIED, self.node, self.fields))

    def do(self) -> None:
        self.old = {attr: getattr(self.target, attr) for attr in self.new}
        self._apply(self.new)

    def undo(self) -> None:
        self._apply(self.old)

    def merge(self, newer: Command) -> bool:
        if isinstance(newer, _SetAttributes) and newer.node is self.node and \
                newer.target is self.target and newer.new.keys() == self.new.keys():
            self.new = dict(newer.new)
            return True
        return False


class SetField(_SetAttributes):
    """Set a plain attribute (``attached_to``, ``placement_frame``, ``static``, ``uri``,
    ``parent_name``, ``child_name``, ``canonical_link``, ``type``...).  Setting an
    include's ``uri`` loads the file it names."""

    def __init__(self, document: Document, node: Node, field: str, value: Any) -> None:
        if not hasattr(node, field) or field in ("id", "parent", "xml", "entities", "model",
                                                 "name", "pose", "extras", "source",
                                                 "load_diagnostics", "resolved_path", "format"):
            raise EditRefused(f"{node.kind} has no editable field '{field}'")
        _check_field_value(node, field, value)
        super().__init__(document, node, {field: value}, (field,),
                         f"Set {field} of {node.name or node.kind}")
        self.field = field
        self.loaded: tuple | None = None
        self.old_loaded: tuple | None = None

    def _apply(self, values: dict[str, Any]) -> None:
        node = self.node
        if isinstance(node, Include) and self.field == "uri":
            setattr(node, "uri", values["uri"])
            if values is self.new:
                if self.loaded is None:
                    _load_include(self.document, node)
                    self.loaded = (node.model, node.resolved_path, node.format,
                                   node.load_diagnostics)
                loaded = self.loaded
            else:
                loaded = self.old_loaded
            node.model, node.resolved_path, node.format, node.load_diagnostics = loaded
            self.document.notify(_event(ChangeKind.RELOADED, node, ("uri",)))
            return
        super()._apply(values)

    def do(self) -> None:
        node = self.node
        if isinstance(node, Include):
            self.old_loaded = (node.model, node.resolved_path, node.format, node.load_diagnostics)
        super().do()

    def merge(self, newer: Command) -> bool:
        if self.field == "uri":
            return False  # each URI loads a file: one step each
        return super().merge(newer)


#: Fields with a closed set of values.
_CHOICES = {("joint", "type"): JOINT_TYPES, ("mate", "type"): MATE_TYPES}


def _check_field_value(node: Node, field: str, value: Any) -> None:
    """A value of the field's type (an optional field may be cleared with None)."""
    current = getattr(node, field)
    if value is None:
        if current is not None and field not in ("static",):
            raise EditRefused(f"{field} of {_label(node)} cannot be empty")
        return
    expected = type(current) if current is not None else None
    if isinstance(current, bool) or field in ("static", "merge", "enable_snap", "adaptive"):
        if not isinstance(value, bool):
            raise EditRefused(f"{field} is true or false, not {value!r}")
    elif isinstance(current, str) or field in ("uri", "attached_to", "placement_frame",
                                               "parent_name", "child_name", "canonical_link"):
        if not isinstance(value, str):
            raise EditRefused(f"{field} is a name, not {value!r}")
    elif isinstance(current, (int, float)):
        _finite(value, field)
    elif expected is not None and not isinstance(value, expected):
        raise EditRefused(f"{field} of {_label(node)} takes a {expected.__name__}, "
                          f"not {type(value).__name__}")
    choices = _CHOICES.get((node.kind, field))
    if choices is not None and value not in choices:
        raise EditRefused(f"unknown {node.kind} {field} [{value}]; one of {', '.join(choices)}")


def SetAttachedTo(document: Document, frame: Frame, target: str) -> SetField:
    """Attach a frame to another frame (``""``: the model frame)."""
    if not isinstance(frame, Frame):
        raise EditRefused(f"{_label(frame)} is not a frame: only frames have attached_to")
    if not isinstance(target, str):
        raise EditRefused("attached_to must be a frame name")
    return SetField(document, frame, "attached_to", target)


def SetPlacementFrame(document: Document, node: Model | Include, frame: str) -> SetField:
    """Say which frame of a model its pose places (``""``: the model frame)."""
    if not isinstance(node, (Model, Include)):
        raise EditRefused(f"{_label(node)} is not a model: only models have a placement frame")
    if not isinstance(frame, str):
        raise EditRefused("placement_frame must be a frame name")
    return SetField(document, node, "placement_frame", frame)


class SetDensity(_SetAttributes):
    """``//collision/density`` (a collision) or ``//inertial/density`` (a link), in
    kg/m^3; None removes it (the default density applies)."""

    def __init__(self, document: Document, node: Collision | Link, density: float | None) -> None:
        value = _positive(density, "density")
        if isinstance(node, Collision):
            target = node
        elif isinstance(node, Link):
            if node.inertial is None:
                raise EditRefused(f"{_label(node)} has no <inertial> to hold a density")
            target = node.inertial
        else:
            raise EditRefused(f"{_label(node)} has no density (collisions and links have)")
        values: dict[str, Any] = {"density": value}
        super().__init__(document, node, values, ("density",),
                         f"Set density of {node.name}", target)


class SetMass(_SetAttributes):
    """``//inertial/mass`` in kg.  For an automatic inertial it rescales the computed
    tensor; None removes it (the mass then comes from the density)."""

    def __init__(self, document: Document, link: Link, mass: float | None) -> None:
        if not isinstance(link, Link):
            raise EditRefused(f"{_label(link)} has no mass (links have)")
        if link.inertial is None:
            raise EditRefused(f"{_label(link)} has no <inertial>")
        value = _positive(mass, "mass", allow_none=link.inertial.auto)
        values: dict[str, Any] = {"mass": value}
        if not link.inertial.auto:
            values["dirty"] = True  # a written inertial is written back whole
        super().__init__(document, link, values, ("mass",), f"Set mass of {link.name}",
                         link.inertial)


class SetJointType(_SetAttributes):
    def __init__(self, document: Document, joint: Joint, joint_type: str) -> None:
        if not isinstance(joint, Joint):
            raise EditRefused(f"{_label(joint)} is not a joint")
        if joint_type not in JOINT_TYPES:
            raise EditRefused(f"unknown joint type [{joint_type}]; one of {', '.join(JOINT_TYPES)}")
        super().__init__(document, joint, {"type": joint_type}, ("type",),
                         f"Set type of {joint.name}")


_UNSET: Any = object()


class SetJointAxis(_SetAttributes):
    """Change a joint's axis (``index`` 0: ``<axis>``, 1: ``<axis2>``): direction
    ``xyz`` (made unit length), ``expressed_in``, limits and dynamics limits.  Arguments
    left out keep their value; None clears a limit."""

    def __init__(self, document: Document, joint: Joint, index: int = 0, *,
                 xyz: Iterable[float] = _UNSET, expressed_in: str = _UNSET,
                 lower: float | None = _UNSET, upper: float | None = _UNSET,
                 effort: float | None = _UNSET, velocity: float | None = _UNSET) -> None:
        if not isinstance(joint, Joint):
            raise EditRefused(f"{_label(joint)} is not a joint")
        if index not in (0, 1):
            raise EditRefused("a joint has axis 0 (<axis>) and axis 1 (<axis2>)")
        axes = list(joint.axes)
        while len(axes) <= index:
            axes.append(JointAxis())
        axis = axes[index]
        changes: dict[str, Any] = {}
        if xyz is not _UNSET:
            v = [_finite(c, "axis component") for c in xyz]
            n = math.sqrt(sum(c * c for c in v)) if len(v) == 3 else 0.0
            if n < 1e-12:
                raise EditRefused("the axis needs three numbers, not all zero")
            changes["xyz"] = tuple(c / n for c in v)
        if expressed_in is not _UNSET:
            changes["expressed_in"] = str(expressed_in)
        for attr, value in (("lower", lower), ("upper", upper), ("effort", effort),
                            ("velocity", velocity)):
            if value is not _UNSET:
                changes[attr] = None if value is None else float(value)
                if value is not None and math.isnan(float(value)):
                    raise EditRefused(f"the {attr} limit must be a number")
        new_axis = replace(axis, **changes)
        if new_axis.lower is not None and new_axis.upper is not None and \
                new_axis.lower > new_axis.upper:
            raise EditRefused(f"the lower limit {new_axis.lower} is above the upper limit "
                              f"{new_axis.upper}")
        for attr in ("effort", "velocity"):
            if getattr(new_axis, attr) is not None and getattr(new_axis, attr) < 0:
                raise EditRefused(f"the {attr} limit must not be negative")
        axes[index] = new_axis
        super().__init__(document, joint, {"axes": axes}, ("axes",), f"Set axis of {joint.name}")


class SetMate(_SetAttributes):
    """Change a mate: ``type``, ``connectors`` (two connector names), ``initial_angle``
    (rad), ``initial_position`` (m), ``initial_distance`` (m), ``enable_snap``."""

    def __init__(self, document: Document, mate: Mate, **values: Any) -> None:
        if not isinstance(mate, Mate):
            raise EditRefused(f"{_label(mate)} is not a mate")
        allowed = {"type", "connectors", "initial_angle", "initial_position",
                   "initial_distance", "enable_snap"}
        unknown = set(values) - allowed
        if unknown:
            raise EditRefused(f"a mate has no {', '.join(sorted(unknown))}")
        clean = _mate_values(values)
        super().__init__(document, mate, clean, tuple(sorted(clean)), f"Edit mate {mate.name}")


def _mate_values(values: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key == "type":
            t = str(value).lower().rpartition(".")[2]
            if t not in MATE_TYPES:
                raise EditRefused(f"unknown mate type [{value}]; one of {', '.join(MATE_TYPES)}")
            out[key] = t
        elif key == "connectors":
            pair = tuple(value)
            if len(pair) != 2 or not all(isinstance(c, str) and c for c in pair):
                raise EditRefused("a mate joins exactly two connectors")
            if pair[0] == pair[1]:
                raise EditRefused("a mate joins two different connectors")
            out[key] = pair
        elif key == "enable_snap":
            out[key] = bool(value)
        else:
            out[key] = _finite(value, key.replace("_", " "))
    return out


# -- structure --------------------------------------------------------------------------

class AddNode(Command):
    """Insert ``node`` into ``parent`` (a model, world or include; a link for visuals
    and collisions) at ``index``."""

    def __init__(self, document: Document, parent: Node, node: Node, index: int | None = None) -> None:
        check_owned(document, parent)
        _siblings(parent, node)
        if isinstance(node, (Visual, Collision)):
            if any(p.name == node.name for p in _siblings(parent, node)):
                raise EditRefused(f"{_label(parent)} already has a {node.kind} [{node.name}]")
        elif not isinstance(node, Plugin):
            _check_name(_entity_name(node) if not isinstance(node, Include) or node.name
                        else "include")
            if _entity_name(node):
                _check_free(parent, _entity_name(node))
        self.document, self.parent, self.node, self.index = document, parent, node, index
        self.label = f"Add {node.kind} {_entity_name(node)}".strip()

    def do(self) -> None:
        siblings = _siblings(self.parent, self.node)
        index = len(siblings) if self.index is None else self.index
        siblings.insert(index, self.node)
        self.node.parent = self.parent
        self.document.notify(_event(ChangeKind.ADDED, self.node))

    def undo(self) -> None:
        _siblings(self.parent, self.node).remove(self.node)
        self.document.notify(_event(ChangeKind.REMOVED, self.node))


class RemoveNode(Command):
    """Remove an element (include, link, joint, frame, model, mate connector, mate,
    visual or collision).  What referred to it is not changed: the diagnostics show it.

    With ``refuse_if_referenced`` an element that others refer to is not removed:
    :class:`~snapframe.core.model.references.DependentsExist` (an :class:`EditRefused`)
    lists them; ``RemoveWithDependents`` removes it with them in one undo step."""

    def __init__(self, document: Document, node: Node, *,
                 refuse_if_referenced: bool = False) -> None:
        if node.parent is None:
            raise EditRefused("the document's root cannot be removed")
        check_owned(document, node)
        if refuse_if_referenced:
            from .references import DependentsExist, dependents
            found = dependents(document, document.key(node))
            if found:
                listed = "; ".join(f"{d.key or '(top)'}: {d.why}" for d in found[:8])
                more = f" and {len(found) - 8} more" if len(found) > 8 else ""
                raise DependentsExist(f"{_label(node)} is referred to by {len(found)} "
                                      f"element{'s' if len(found) > 1 else ''} ({listed}{more}): "
                                      "remove them with it (RemoveWithDependents) or change "
                                      "them first", found)
        self.document, self.node, self.parent = document, node, node.parent
        self.index = 0
        self.label = f"Remove {_label(node)}"

    def do(self) -> None:
        siblings = _siblings(self.parent, self.node)
        self.index = siblings.index(self.node)
        siblings.pop(self.index)
        self.document.notify(_event(ChangeKind.REMOVED, self.node))

    def undo(self) -> None:
        _siblings(self.parent, self.node).insert(self.index, self.node)
        self.node.parent = self.parent
        self.document.notify(_event(ChangeKind.ADDED, self.node))


def AddFrame(document: Document, parent: Model | World | Include, name: str, *,
             attached_to: str = "", pose: Pose | None = None, relative_to: str = "") -> AddNode:
    """A new ``<frame>`` (SDFormat 1.7+); ``relative_to`` empty means ``attached_to``."""
    frame = Frame(name=_check_name(name), attached_to=attached_to,
                  pose=PoseSpec(_pose(pose), relative_to, pose is not None or bool(relative_to)))
    return AddNode(document, parent, frame)


def AddLink(document: Document, parent: Model, name: str, *, pose: Pose | None = None,
            relative_to: str = "") -> AddNode:
    if not isinstance(parent, Model):
        raise EditRefused("links belong to models")
    link = Link(name=_check_name(name),
                pose=PoseSpec(_pose(pose), relative_to, pose is not None or bool(relative_to)))
    return AddNode(document, parent, link)


def AddJoint(document: Document, parent: Model | World, name: str, joint_type: str,
             parent_frame: str, child_frame: str, *, axis: Iterable[float] | None = None,
             lower: float | None = None, upper: float | None = None,
             pose: Pose | None = None, relative_to: str = "") -> AddNode:
    """A joint between two frames of ``parent``'s scope (``world`` allowed as parent)."""
    if joint_type not in JOINT_TYPES:
        raise EditRefused(f"unknown joint type [{joint_type}]; one of {', '.join(JOINT_TYPES)}")
    if not parent_frame or not child_frame:
        raise EditRefused("a joint needs a parent and a child frame")
    if parent_frame == child_frame:
        raise EditRefused("a joint's parent and child must be different frames")
    axes = []
    if joint_type not in ("fixed", "ball"):
        v = [_finite(c, "axis component") for c in (axis or (0.0, 0.0, 1.0))]
        n = math.sqrt(sum(c * c for c in v)) if len(v) == 3 else 0.0
        if n < 1e-12:
            raise EditRefused("the axis needs three numbers, not all zero")
        if lower is not None and upper is not None and lower > upper:
            raise EditRefused(f"the lower limit {lower} is above the upper limit {upper}")
        axes.append(JointAxis(tuple(c / n for c in v), lower=lower, upper=upper))
    joint = Joint(name=_check_name(name), type=joint_type, parent_name=parent_frame,
                  child_name=child_frame, axes=axes,
                  pose=PoseSpec(_pose(pose), relative_to, pose is not None or bool(relative_to)))
    return AddNode(document, parent, joint)


def AddMateConnector(document: Document, parent: Model, name: str, *, attached_to: str = "",
                     pose: Pose | None = None) -> AddNode:
    """A mate connector on body ``attached_to`` (a link of ``parent``; empty: on the
    system itself); ``pose`` is X_OC, the connector frame in its owner (z: main axis,
    x: normal).  Named like the mapping names connectors: ``<body>.<name>``."""
    if not isinstance(parent, Model):
        raise EditRefused("mate connectors belong to models (OpenPLX systems)")
    if attached_to and not any(link.name == attached_to for link in parent.links):
        raise EditRefused(f"{_label(parent)} has no body (link) [{attached_to}]")
    short = _check_name(name)
    full = f"{attached_to}.{short}" if attached_to and not short.startswith(attached_to + ".") \
        else short
    connector = MateConnector(name=full, attached_to=attached_to,
                              pose=PoseSpec(_pose(pose), "", True))
    return AddNode(document, parent, connector)


def AddMate(document: Document, parent: Model, name: str, mate_type: str,
            connectors: tuple[str, str], **values: Any) -> AddNode:
    """A mate between two connectors (names as seen from ``parent``)."""
    if not isinstance(parent, Model):
        raise EditRefused("mates belong to models (OpenPLX systems)")
    clean = _mate_values({"type": mate_type, "connectors": connectors, **values})
    mate = Mate(name=_check_name(name), **clean)
    return AddNode(document, parent, mate)


def _pose(pose: Pose | None) -> Pose:
    if pose is None:
        return Pose()
    _check_pose(pose)
    return pose


def _rename_ref(ref: str, old: str, new: str) -> str:
    if ref == old:
        return new
    if ref.startswith(old + SEP):
        return new + ref[len(old):]
    return ref


class Rename(Command):
    """Rename a node and update every reference to it: in its own scope (relative_to,
    attached_to, joint parent/child, axis expressed_in, canonical link, placement frames,
    mate connectors, a connector's redirected_parent)
    and in every enclosing scope, where it is seen as ``model::...::name``."""

    def __init__(self, document: Document, node: Node, new_name: str) -> None:
        check_owned(document, node)
        _check_name(new_name)
        if node.parent is None:
            pass  # the top model or world: nothing in the file refers to its name
        elif isinstance(node, (Visual, Collision)):
            if any(p.name == new_name for p in _siblings(node.parent, node) if p is not node):
                raise EditRefused(f"{_label(node.parent)} already has a {node.kind} [{new_name}]")
        else:
            _check_free(node.parent, new_name, ignore=node)
        self.document, self.node, self.new_name = document, node, new_name
        self.old_name = node.name if not isinstance(node, Include) else node.effective_name
        self.changes: list[tuple[Any, str, Any, Any]] = []
        self.label = f"Rename {self.old_name} to {new_name}"

    @staticmethod
    def _scope_nodes(container: Node) -> list[Node]:
        """Nodes whose references are resolved in ``container``'s scope.  Frames and joints
        added by an include belong to the included model's scope, not this one."""
        if isinstance(container, Include):
            return list(container.entities)
        out: list[Node] = []
        for e in getattr(container, "entities", []):
            out.append(e)
            if isinstance(e, Link):
                out.extend(e.collisions)
                out.extend(e.visuals)
        return out

    def _update(self, container: Node, old: str, new: str, change) -> None:
        for n in self._scope_nodes(container):
            pose = getattr(n, "pose", None)
            if isinstance(pose, PoseSpec) and pose.relative_to:
                renamed = _rename_ref(pose.relative_to, old, new)
                if renamed != pose.relative_to:
                    new_spec = pose.copy()
                    new_spec.relative_to = renamed
                    change(n, "pose", new_spec)
            if isinstance(n, Frame):
                change(n, "attached_to", _rename_ref(n.attached_to, old, new))
                if isinstance(n, MateConnector):
                    change(n, "redirected_parent", _rename_ref(n.redirected_parent, old, new))
            elif isinstance(n, Mate):
                change(n, "connectors", tuple(_rename_ref(c, old, new) for c in n.connectors))
            elif isinstance(n, Joint):
                change(n, "parent_name", _rename_ref(n.parent_name, old, new))
                change(n, "child_name", _rename_ref(n.child_name, old, new))
                for axis in n.axes:
                    change(axis, "expressed_in", _rename_ref(axis.expressed_in, old, new))
        if isinstance(container, Model):
            change(container, "canonical_link", _rename_ref(container.canonical_link, old, new))

    def do(self) -> None:
        self.changes = []
        old, new = self.old_name, self.new_name

        def change(obj: Any, attr: str, value: Any) -> None:
            before = getattr(obj, attr)
            if before != value:
                self.changes.append((obj, attr, before, value))
                setattr(obj, attr, value)

        change(self.node, "name", new)
        container = self.node.parent
        if isinstance(self.node, (Visual, Collision)):
            container = None  # parts are named, but nothing refers to them
        if container is not None:
            self._update(container, old, new, change)
            if isinstance(container, (Model, Include)):
                # A placement frame names a frame inside the model it places.
                change(container, "placement_frame", _rename_ref(container.placement_frame, old, new))
        # Enclosing scopes see the node as "<model>::...::<name>".
        cur = container
        while isinstance(cur, (Model, Include)) and cur.parent is not None:
            scope_name = cur.effective_name if isinstance(cur, Include) else cur.name
            old, new = f"{scope_name}::{old}", f"{scope_name}::{new}"
            cur = cur.parent
            self._update(cur, old, new, change)
            if isinstance(cur, (Model, Include)):
                change(cur, "placement_frame", _rename_ref(cur.placement_frame, old, new))
        self._notify(self.old_name, self.new_name)

    def _notify(self, old: str, new: str) -> None:
        self.document.notify(_event(ChangeKind.RENAMED, self.node, ("name",),
                                    {"old": old, "new": new}))

    def undo(self) -> None:
        for obj, attr, before, _after in reversed(self.changes):
            setattr(obj, attr, before)
        self._notify(self.new_name, self.old_name)

    def redo(self) -> None:
        for obj, attr, _before, after in self.changes:
            setattr(obj, attr, after)
        self._notify(self.old_name, self.new_name)


def _load_include(document: Document, include: Include, context=None) -> None:
    """(Re)load what ``include.uri`` names, with the settings the document was loaded with."""
    from ..loading import LoadContext
    context = context or document.extras.get("load_context") or LoadContext()
    parent = include.parent
    scope_name = parent.name if isinstance(parent, Model) else ""
    include.model, include.resolved_path, include.format = None, "", ""
    context.load_include(include, document.directory, scope_name, document.diagnostics)


class AddInclude(Command):
    """Add an ``//include`` of ``uri`` to ``parent``; the file is loaded on first ``do``.

    Problems loading it are added to the document's diagnostics; the include is added
    anyway (as written) so the user can fix the URI.
    """

    def __init__(self, document: Document, parent: Model | World, uri: str, *, name: str = "",
                 pose: Pose | None = None, relative_to: str = "", placement_frame: str = "",
                 static: bool | None = None, context=None) -> None:
        check_owned(document, parent)
        if not isinstance(parent, (Model, World)):
            raise EditRefused("includes go into a model or a world")
        if not isinstance(uri, str) or not uri.strip():
            raise EditRefused("an include needs a URI")
        if name:
            _check_name(name)
            _check_free(parent, name)
        if pose is not None:
            _check_pose(pose)
        self.document, self.parent = document, parent
        if pose is None and relative_to:
            pose = Pose()  # "at that frame": the identity relative to it
        self.include = Include(name=name, uri=uri, placement_frame=placement_frame, static=static,
                               pose=PoseSpec(pose, relative_to, True) if pose is not None else None)
        self.context = context
        self.loaded = False
        self.label = f"Add include {name or uri}"

    def do(self) -> None:
        if not self.loaded:
            self.include.parent = self.parent
            _load_include(self.document, self.include, self.context)
            self.loaded = True
        self.parent.entities.append(self.include)
        self.include.parent = self.parent
        self.document.notify(_event(ChangeKind.ADDED, self.include))

    def undo(self) -> None:
        self.parent.entities.remove(self.include)
        self.document.notify(_event(ChangeKind.REMOVED, self.include))
