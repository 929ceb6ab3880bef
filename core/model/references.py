"""What refers to an element, and removing an element together with what depends on it.

SDFormat references are names resolved in the scope that holds the referring element
(never upwards): a joint's ``parent``/``child``, a frame's ``attached_to``, any
``pose/@relative_to``, a joint axis's ``expressed_in``, a model's ``canonical_link`` and
``placement_frame`` (of an include or a ``//model/@placement_frame``); OpenPLX adds a
mate's two connectors and a redirected connector's ``redirected_parent``.  An element
``a::b::c`` is therefore referred to from the scope of ``a::b`` as ``c``, from ``a`` as
``b::c`` and from the top as ``a::b::c`` (a reference to anything inside it, such as
``a::b::c::frame``, depends on it too).  :func:`dependents` walks exactly those scopes,
through includes (a key inside an include lists the references of the included file, as
instance keys) and merge-includes.

:class:`RemoveWithDependents` removes an element and, in the same undo step, what cannot
exist without it, and re-expresses what was only placed by it so that it stays where it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, NamedTuple

from ..commands import Macro
from ..frames.scope import Unresolved
from ..live.keys import _children_in_scope, _entity_name, join_key, part_key, split_part
from ..pose import Pose
from .document import Document
from .edits import (EditRefused, RemoveNode, SetField, SetJointAxis, SetPlacementFrame, SetPose,
                    _label, _value_keeping_pose, check_owned)
from .names import SEP
from .nodes import (Collision, Frame, Include, Joint, Link, Mate, MateConnector, Model, Node,
                    Plugin, PoseSpec, Visual)

__all__ = ["Dependent", "dependents", "RemoveWithDependents", "DependentsExist"]


class Dependent(NamedTuple):
    """An element that refers to another: its key and why (``"joint child [gripper::x]"``)."""

    key: str
    why: str


@dataclass(frozen=True)
class _Reference:
    """One reference found: the referring node, where the reference is written, what it
    says, and how removing its target affects the node."""

    key: str           # key of the referring element (a part key for visuals, collisions)
    node: Node         # the node holding the reference (the link for a part's pose: part)
    field: str         # "relative_to", "attached_to", "parent", "child", "expressed_in",
                       # "connector", "redirected_parent", "canonical_link", "placement_frame"
    ref: str           # the name as written
    index: int = 0     # axis index (expressed_in) or connector index (mates)

    @property
    def why(self) -> str:
        what = {"relative_to": "pose relative_to", "parent": "joint parent",
                "child": "joint child", "expressed_in": "axis expressed_in",
                "connector": "mate connector"}.get(self.field, self.field)
        return f"{what} [{self.ref}]"

    @property
    def breaks_node(self) -> bool:
        """Whether the referring element cannot exist without the target (removed with
        it) rather than only placed or oriented by it (re-expressed)."""
        return self.field in ("attached_to", "parent", "child", "connector",
                              "redirected_parent")


class DependentsExist(EditRefused):
    """Removing an element others refer to was refused; ``dependents`` lists them."""

    def __init__(self, message: str, found: list[Dependent]) -> None:
        super().__init__(message)
        self.dependents = found


def _names(ref: str, name: str) -> bool:
    """Whether the reference ``ref`` names ``name`` or something inside it."""
    return ref == name or ref.startswith(name + SEP)


def _node_references(node: Node, key: str) -> Iterator[tuple[str, Node, str, str, int]]:
    """(key, node, field, reference, index) of every reference ``node`` writes."""
    pose = getattr(node, "pose", None)
    if isinstance(pose, PoseSpec) and pose.relative_to:
        yield key, node, "relative_to", pose.relative_to, 0
    if isinstance(node, Frame) and node.attached_to:
        yield key, node, "attached_to", node.attached_to, 0
    if isinstance(node, MateConnector) and node.redirected_parent:
        yield key, node, "redirected_parent", node.redirected_parent, 0
    if isinstance(node, Joint):
        if node.parent_name:
            yield key, node, "parent", node.parent_name, 0
        if node.child_name:
            yield key, node, "child", node.child_name, 0
        for i, axis in enumerate(node.axes):
            if axis.expressed_in:
                yield key, node, "expressed_in", axis.expressed_in, i
    if isinstance(node, Mate):
        for i, connector in enumerate(node.connectors):
            if connector:
                yield key, node, "connector", connector, i
    if isinstance(node, Link):
        for part in (*node.visuals, *node.collisions):
            if part.pose.relative_to:
                yield part_key(key, part.kind, part.name), part, "relative_to", \
                    part.pose.relative_to, 0


def _references_to(root: Node, key: str) -> list[_Reference]:
    """Every reference to the element ``key`` (or to something inside it)."""
    head, kind, _ = split_part(key)
    if kind or not key:
        return []  # nothing refers to a visual, a collision or the root
    parts = head.split(SEP)
    out: list[_Reference] = []
    container: Node = root
    prefix = ""
    for i, first in enumerate(parts):
        name = SEP.join(parts[i:])   # how this scope names the element
        if isinstance(container, (Model, Include)):
            if isinstance(container, Model) and _names(container.canonical_link, name):
                out.append(_Reference(prefix, container, "canonical_link",
                                      container.canonical_link))
            placement = container.placement_frame
            if isinstance(container, Include) and not placement and container.model:
                placement = container.model.placement_frame
            if placement and _names(placement, name):
                out.append(_Reference(prefix, container, "placement_frame", placement))
        step = None
        for entity in _children_in_scope(container):
            if isinstance(entity, Plugin) or entity.extras.get("derived_from_mate"):
                continue   # a joint derived from a mate follows it: the mate refers
            entity_key = join_key(prefix, _entity_name(entity))
            if _entity_name(entity) == first and step is None:
                step = entity
            if entity_key == head:
                continue   # the element itself: its own references go with it
            for ref_key, node, field, ref, index in _node_references(entity, entity_key):
                if _names(ref, name):
                    out.append(_Reference(ref_key, node, field, ref, index))
        if step is None or not isinstance(step, (Model, Include)) or i == len(parts) - 1:
            break
        container = step
        prefix = join_key(prefix, first)
    return out


def dependents(document: Document, key: str, *, transitive: bool = False) -> list[Dependent]:
    """What refers to the element ``key`` (see the module docstring), as ``(key, why)``,
    each once per reference: the outermost scope first, in document order within it.  With ``transitive``, also what refers
    to those, and so on.  Raises ``KeyError`` for a key that names nothing."""
    if document.element(key) is None:
        raise KeyError(f"no element [{key}]")
    out: list[Dependent] = []
    seen_keys = {key}
    todo = [key]
    while todo:
        current = todo.pop(0)
        for r in _references_to(document.root, current):
            dep = Dependent(r.key, r.why)
            if dep not in out:
                out.append(dep)
            if transitive and r.key not in seen_keys:
                seen_keys.add(r.key)
                todo.append(r.key)
    return out


def _covered(key: str, keys: set[str]) -> bool:
    """Whether ``key`` is one of ``keys`` or inside one of them."""
    head = split_part(key)[0]
    return any(head == k or head.startswith(k + SEP) for k in keys)


class RemoveWithDependents(Macro):
    """Remove ``node`` and, in the same undo step, deal with what refers to it:

    * removed with it (they cannot exist without it): joints naming it as parent or
      child, frames and mate connectors attached to it, connectors redirected to it,
      mates naming a removed connector, and so on, transitively;
    * kept where they are: elements and visuals/collisions whose pose is relative to it
      are re-expressed in their default frame (the scope frame, their link...) with the
      same world pose; an axis expressed in it is re-expressed in its joint frame; a
      ``canonical_link`` naming it is cleared (the first link is canonical again); a
      ``placement_frame`` naming it is cleared, the model's pose rewritten to keep it put.

    ``removed`` lists the keys removed, ``adjusted`` what was re-expressed (key, why).
    Refused when any of it belongs to an included file.
    """

    def __init__(self, document: Document, node: Node) -> None:
        if node.parent is None:
            raise EditRefused("the document's root cannot be removed")
        check_owned(document, node)
        root = document.root
        start = document.key(node)
        removed: dict[str, Node] = {start: node}
        fixes: list[_Reference] = []
        todo = [start]
        while todo:
            current = todo.pop(0)
            for r in _references_to(root, current):
                if _covered(r.key, set(removed)):
                    continue
                if r.breaks_node and not isinstance(r.node, (Visual, Collision)):
                    removed[r.key] = r.node
                    todo.append(r.key)
                else:
                    fixes.append(r)
        keys = set(removed)
        # what lies inside a removed element goes with it
        tops = {k: n for k, n in removed.items()
                if not any(k != o and k.startswith(o + SEP) for o in keys)}
        fixes = [f for f in fixes if not _covered(f.key, keys)]
        for n in tops.values():
            check_owned(document, n)
        commands = [*self._fixes(document, fixes, keys)]
        commands.extend(RemoveNode(document, n) for n in tops.values())
        super().__init__(f"Remove {_label(node)} with its dependents", commands)
        self.removed = sorted(tops)
        self.adjusted = [Dependent(f.key, f.why) for f in fixes]

    @staticmethod
    def _fixes(document: Document, fixes: list[_Reference], removed: set[str]):
        """Commands that keep the referring elements where they are (values computed
        before anything changes)."""
        done: set[tuple[int, str, int]] = set()
        for f in fixes:
            if (f.node.id, f.field, f.index) in done:
                continue
            done.add((f.node.id, f.field, f.index))
            check_owned(document, f.node)
            if f.field == "relative_to":
                yield SetPose(document, f.node, _kept_value(document, f.node), relative_to="")
            elif f.field == "expressed_in":
                yield _axis_in_joint_frame(document, f.node, f.index)  # type: ignore[arg-type]
            elif f.field == "canonical_link":
                yield SetField(document, f.node, "canonical_link", "")
            elif f.field == "placement_frame":
                node = f.node
                yield SetPose(document, node, _kept_value(document, node, placement=""))
                yield SetPlacementFrame(document, node, "")  # type: ignore[arg-type]


def _kept_value(document: Document, node: Node, *, placement: str | None = None) -> Pose:
    """The pose value that keeps ``node`` where it is relative to its default frame (the
    written value, with ``relative_to`` dropped, if it cannot be resolved now).  With
    ``placement`` "" (a placement frame being cleared): the value of the model frame."""
    spec = getattr(node, "pose", None)
    fallback = spec.value if spec is not None else Pose()
    if isinstance(node, (Visual, Collision)):
        link = node.parent
        located = document.frames._locate(link.id) if link is not None else None
        if located is None:
            return fallback
        scope, name = located
        try:
            return scope.pose_of(name).inverse() @ scope.pose_of(node.pose.relative_to) @ \
                node.pose.value
        except Unresolved:
            return fallback
    if placement is not None:
        located = document.frames._locate(node.id)
        if located is None:
            return fallback
        scope, name = located
        try:
            base = spec.relative_to if spec is not None else ""
            X_S_base = scope.pose_of(base or scope.frame_name)
            return X_S_base.inverse() @ scope.pose_of(name)
        except (Unresolved, AttributeError):
            return fallback
    try:
        return _value_keeping_pose(document, node, "")
    except EditRefused:
        return fallback


def _axis_in_joint_frame(document: Document, joint: Joint, index: int) -> SetJointAxis:
    axis = joint.axes[index]
    xyz = axis.xyz
    located = document.frames._locate(joint.id)
    if located is not None:
        scope, name = located
        try:
            X_J_E = scope.pose_of(name).inverse() @ scope.pose_of(axis.expressed_in)
            xyz = X_J_E.rotate(axis.xyz)
        except Unresolved:
            pass
    return SetJointAxis(document, joint, index, xyz=xyz, expressed_in="")
