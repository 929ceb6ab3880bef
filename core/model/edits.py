"""Undoable edits of a :class:`Document`.  Push them on ``document.commands``::

    doc.commands.push(SetPose(doc, link, Pose.from_xyz_rpy(1, 0, 0)))
    doc.commands.undo()

Each command changes nodes and then calls ``document.notify`` so derived data (the frame
graph) updates incrementally and views hear about it.  Consecutive :class:`SetPose` edits
of one node merge into a single undo step (a drag), until ``commands.end_merge()``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..commands import Command
from ..events import ChangeKind, DocumentChanged
from ..pose import Pose
from .document import Document
from .names import SEP
from .nodes import Frame, Include, Joint, Link, Model, Node, PoseSpec, World

__all__ = ["SetPose", "SetField", "AddNode", "RemoveNode", "Rename", "AddInclude"]

_POSED = (Link, Joint, Frame, Model, Include)


def _owner_entities(parent: Node) -> list[Node]:
    if isinstance(parent, (Model, World, Include)):
        return parent.entities
    raise TypeError(f"{parent.kind} cannot hold entities")


class SetPose(Command):
    """Set a node's ``<pose>`` value and, optionally, its ``relative_to``."""

    def __init__(self, document: Document, node: Node, value: Pose,
                 relative_to: str | None = None) -> None:
        if not isinstance(node, _POSED):
            raise TypeError(f"{node.kind} has no pose")
        self.document, self.node = document, node
        self.new_value, self.new_relative_to = value, relative_to
        self.old: PoseSpec | None = None
        self.label = f"Move {node.name or node.kind}"
        self.merge_key = ("pose", node.id, relative_to)

    def _apply(self, spec: PoseSpec | None) -> None:
        self.node.pose = spec  # type: ignore[attr-defined]
        fields = ("pose",) if self.new_relative_to is None else ("pose", "relative_to")
        self.document.notify(DocumentChanged(ChangeKind.MODIFIED, (self.node.id,), fields))

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


class SetField(Command):
    """Set a plain attribute (``attached_to``, ``placement_frame``, ``static``, ``uri``,
    ``parent_name``, ``child_name``, ``canonical_link``, ``type``...)."""

    def __init__(self, document: Document, node: Node, field: str, value: Any) -> None:
        if not hasattr(node, field) or field in ("id", "parent", "xml", "entities", "model"):
            raise AttributeError(f"{node.kind} has no editable field '{field}'")
        self.document, self.node, self.field, self.new = document, node, field, value
        self.old: Any = None
        self.label = f"Set {field} of {node.name or node.kind}"
        self.merge_key = ("field", node.id, field)

    def _apply(self, value: Any) -> None:
        setattr(self.node, self.field, value)
        self.document.notify(DocumentChanged(ChangeKind.MODIFIED, (self.node.id,), (self.field,)))

    def do(self) -> None:
        self.old = getattr(self.node, self.field)
        self._apply(self.new)

    def undo(self) -> None:
        self._apply(self.old)

    def merge(self, newer: Command) -> bool:
        if isinstance(newer, SetField) and newer.node is self.node and newer.field == self.field:
            self.new = newer.new
            return True
        return False


class AddNode(Command):
    """Insert ``node`` into ``parent`` (a model, world or include) at ``index``."""

    def __init__(self, document: Document, parent: Node, node: Node, index: int | None = None) -> None:
        self.document, self.parent, self.node, self.index = document, parent, node, index
        self.label = f"Add {node.kind} {node.name}".strip()

    def do(self) -> None:
        entities = _owner_entities(self.parent)
        index = len(entities) if self.index is None else self.index
        entities.insert(index, self.node)
        self.node.parent = self.parent
        self.document.notify(DocumentChanged(ChangeKind.ADDED, (self.node.id,)))

    def undo(self) -> None:
        _owner_entities(self.parent).remove(self.node)
        self.document.notify(DocumentChanged(ChangeKind.REMOVED, (self.node.id,)))


class RemoveNode(Command):
    def __init__(self, document: Document, node: Node) -> None:
        if node.parent is None:
            raise ValueError("cannot remove the root")
        self.document, self.node, self.parent = document, node, node.parent
        self.index = 0
        self.label = f"Remove {node.kind} {node.name}".strip()

    def do(self) -> None:
        entities = _owner_entities(self.parent)
        self.index = entities.index(self.node)
        entities.pop(self.index)
        self.document.notify(DocumentChanged(ChangeKind.REMOVED, (self.node.id,)))

    def undo(self) -> None:
        _owner_entities(self.parent).insert(self.index, self.node)
        self.node.parent = self.parent
        self.document.notify(DocumentChanged(ChangeKind.ADDED, (self.node.id,)))


def _rename_ref(ref: str, old: str, new: str) -> str:
    if ref == old:
        return new
    if ref.startswith(old + SEP):
        return new + ref[len(old):]
    return ref


class Rename(Command):
    """Rename a node and update every reference to it in its scope (relative_to,
    attached_to, joint parent/child, canonical link, placement frames, axis expressed_in)."""

    def __init__(self, document: Document, node: Node, new_name: str) -> None:
        self.document, self.node, self.new_name = document, node, new_name
        self.old_name = node.name if not isinstance(node, Include) else node.effective_name
        self.changes: list[tuple[Any, str, Any, Any]] = []
        self.label = f"Rename {self.old_name} to {new_name}"

    def _scope_nodes(self) -> list[Node]:
        scope = self.node.parent
        if isinstance(scope, Include):  # frames/joints added by an include
            scope = scope.parent
        if scope is None:
            return []
        out: list[Node] = []
        for e in getattr(scope, "entities", []):
            out.append(e)
            if isinstance(e, Include):
                out.extend(e.entities)
            if isinstance(e, Link):
                out.extend(e.collisions)
                out.extend(e.visuals)
        return out

    def do(self) -> None:
        self.changes = []
        old, new = self.old_name, self.new_name

        def change(obj: Any, attr: str, value: Any) -> None:
            before = getattr(obj, attr)
            if before != value:
                self.changes.append((obj, attr, before, value))
                setattr(obj, attr, value)

        change(self.node, "name", new)
        scope = self.node.parent if not isinstance(self.node.parent, Include) else self.node.parent.parent
        for n in self._scope_nodes():
            pose = getattr(n, "pose", None)
            if isinstance(pose, PoseSpec) and pose.relative_to:
                renamed = _rename_ref(pose.relative_to, old, new)
                if renamed != pose.relative_to:
                    new_spec = pose.copy()
                    new_spec.relative_to = renamed
                    change(n, "pose", new_spec)
            if isinstance(n, Frame):
                change(n, "attached_to", _rename_ref(n.attached_to, old, new))
            if isinstance(n, Joint):
                change(n, "parent_name", _rename_ref(n.parent_name, old, new))
                change(n, "child_name", _rename_ref(n.child_name, old, new))
                for axis in n.axes:
                    change(axis, "expressed_in", _rename_ref(axis.expressed_in, old, new))
            if isinstance(n, Include):
                pass  # placement frames name frames *inside* the include
        if isinstance(scope, Model):
            change(scope, "canonical_link", _rename_ref(scope.canonical_link, old, new))
            change(scope, "placement_frame", _rename_ref(scope.placement_frame, old, new))
        self.document.notify(DocumentChanged(ChangeKind.RENAMED, (self.node.id,), ("name",),
                                             {"old": old, "new": new}))

    def undo(self) -> None:
        for obj, attr, before, _after in reversed(self.changes):
            setattr(obj, attr, before)
        self.document.notify(DocumentChanged(ChangeKind.RENAMED, (self.node.id,), ("name",),
                                             {"old": self.new_name, "new": self.old_name}))

    def redo(self) -> None:
        for obj, attr, _before, after in self.changes:
            setattr(obj, attr, after)
        self.document.notify(DocumentChanged(ChangeKind.RENAMED, (self.node.id,), ("name",),
                                             {"old": self.old_name, "new": self.new_name}))


class AddInclude(Command):
    """Add an ``//include`` of ``uri`` to ``parent``; the file is loaded on first ``do``.

    Problems loading it are added to the document's diagnostics; the include is added
    anyway (as written) so the user can fix the URI.
    """

    def __init__(self, document: Document, parent: Model | World, uri: str, *, name: str = "",
                 pose: Pose | None = None, relative_to: str = "", placement_frame: str = "",
                 static: bool | None = None, context=None) -> None:
        self.document, self.parent = document, parent
        self.include = Include(name=name, uri=uri, placement_frame=placement_frame, static=static,
                               pose=PoseSpec(pose, relative_to, True) if pose is not None else None)
        self.context = context
        self.loaded = False
        self.label = f"Add include {name or uri}"

    def do(self) -> None:
        if not self.loaded:
            from ..loading import LoadContext
            context = self.context or LoadContext()
            scope_name = self.parent.name if isinstance(self.parent, Model) else ""
            self.include.parent = self.parent
            context.load_include(self.include, self.document.directory, scope_name,
                                 self.document.diagnostics)
            self.loaded = True
        self.parent.entities.append(self.include)
        self.include.parent = self.parent
        self.document.notify(DocumentChanged(ChangeKind.ADDED, (self.include.id,)))

    def undo(self) -> None:
        self.parent.entities.remove(self.include)
        self.document.notify(DocumentChanged(ChangeKind.REMOVED, (self.include.id,)))
