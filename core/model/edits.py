"""Undoable edits of a :class:`Document`.  Push them on ``document.commands``::

    doc.commands.push(SetPose(doc, link, Pose.from_xyz_rpy(1, 0, 0)))
    doc.commands.undo()

Each command changes nodes and then calls ``document.notify`` so derived data (the frame
graph) updates incrementally and views hear about it.  Consecutive :class:`SetPose` edits
of one node merge into a single undo step (a drag), until ``commands.end_merge()``.
"""

from __future__ import annotations

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

    def _apply(self, value: Any, loaded: tuple | None = None) -> None:
        setattr(self.node, self.field, value)
        if isinstance(self.node, Include) and self.field == "uri":
            if loaded is None:
                _load_include(self.document, self.node)
            else:
                self.node.model, self.node.resolved_path, self.node.format = loaded
        self.document.notify(DocumentChanged(ChangeKind.MODIFIED, (self.node.id,), (self.field,)))

    def do(self) -> None:
        self.old = getattr(self.node, self.field)
        node = self.node
        self.old_loaded = ((node.model, node.resolved_path, node.format)
                           if isinstance(node, Include) else None)
        self._apply(self.new)

    def undo(self) -> None:
        self._apply(self.old, self.old_loaded)

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
    """Rename a node and update every reference to it: in its own scope (relative_to,
    attached_to, joint parent/child, axis expressed_in, canonical link, placement frames)
    and in every enclosing scope, where it is seen as ``model::...::name``."""

    def __init__(self, document: Document, node: Node, new_name: str) -> None:
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
        self._notify(self.old_name, self.new_name)

    def _notify(self, old: str, new: str) -> None:
        self.document.notify(DocumentChanged(ChangeKind.RENAMED, (self.node.id,), ("name",),
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
        self.document.notify(DocumentChanged(ChangeKind.ADDED, (self.include.id,)))

    def undo(self) -> None:
        self.parent.entities.remove(self.include)
        self.document.notify(DocumentChanged(ChangeKind.REMOVED, (self.include.id,)))
