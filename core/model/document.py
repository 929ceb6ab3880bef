"""A :class:`Document`: one open file, its node tree, its undo stack and its events."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..commands import CommandStack
from ..diagnostics import Diagnostic, Diagnostics
from ..events import ChangeKind, DocumentChanged, EventEmitter
from .nodes import Include, Model, Node, World, walk

__all__ = ["Document"]


@dataclass(eq=False)
class Document:
    """The root of what a reader produced.

    ``root`` is a :class:`World` or a top-level :class:`Model`.  ``diagnostics`` holds what
    the reader found; graph checks add theirs through :mod:`snapframe.core.frames`.
    ``version`` is the SDFormat version string (or the source format's version).
    """

    root: World | Model | None = None
    path: str = ""
    format: str = ""
    version: str = ""
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    #: Format-specific document-level data (the parsed XML tree, OpenPLX sources, ...).
    extras: dict[str, Any] = field(default_factory=dict)
    commands: CommandStack = field(default_factory=CommandStack)
    changed: EventEmitter[DocumentChanged] = field(default_factory=EventEmitter)
    _index: dict[int, Node] | None = field(default=None, repr=False)
    _frames: Any = field(default=None, repr=False)
    _live: Any = field(default=None, repr=False)
    _node_list: list | None = field(default=None, repr=False)
    _batch_depth: int = field(default=0, repr=False)

    def __post_init__(self) -> None:
        self.commands.batch = self.batch

    # -- queries ------------------------------------------------------------------
    @property
    def is_world(self) -> bool:
        return isinstance(self.root, World)

    @property
    def directory(self) -> Path:
        return Path(self.path).resolve().parent if self.path else Path.cwd()

    def nodes(self, *, into_includes: bool = False) -> Iterator[Node]:
        if self.root is not None:
            yield from walk(self.root, into_includes=into_includes)

    def node_list(self) -> list[Node]:
        """The document's own nodes (not inside includes) in document order; kept until a
        node is added or removed (services walk them after every structural edit)."""
        cached = self._node_list
        if cached is None:
            cached = self._node_list = list(self.nodes())
        return cached

    def node(self, node_id: int) -> Node | None:
        """Node of this document (not inside includes) by id."""
        if self._index is None:
            self._index = {n.id: n for n in self.nodes()}
        return self._index.get(node_id)

    def includes(self) -> list[Include]:
        return [n for n in self.nodes() if isinstance(n, Include)]

    # -- derived data -------------------------------------------------------------
    @property
    def frames(self):
        """The :class:`snapframe.core.frames.FrameGraph` of this document (built on demand,
        kept up to date incrementally by :meth:`notify`)."""
        if self._frames is None:
            from ..frames import FrameGraph  # local: frames imports the model
            self._frames = FrameGraph(self)
        return self._frames

    @property
    def live(self):
        """The :class:`snapframe.core.live.LiveDocument`: keys, world pose table,
        diagnostics, inertia and SNAP kept current after every edit, typed events and the
        selection.  Created on first use (or on the first edit)."""
        if self._live is None:
            from ..live.services import LiveDocument  # local: live imports the model
            self._live = LiveDocument(self)
        return self._live

    def element(self, key: str) -> Node | None:
        """The node an instance key (or scoped name) names; for elements inside an
        include, the included file's shared node."""
        from ..live.keys import find
        return find(self.root, key)

    def key(self, node: Node) -> str:
        """The instance key of one of this document's own nodes."""
        from ..live.keys import key_of
        return key_of(node, self.root) if self.root is not None else ""

    # -- saving -------------------------------------------------------------------
    def save(self, path: str | Path | None = None, format: str | None = None, *,
             flatten: bool | None = None, registry=None) -> list[Diagnostic]:
        """Write the document (atomically) and return the warnings about what the target
        format cannot express: nothing is dropped silently.

        ``format`` is a registered format name (default: chosen by ``path``'s extension);
        a format that can flatten (SDFormat) needs an explicit ``flatten``: False keeps
        every ``//include`` as written (a modular save), True writes the included models
        in place.  A save in the document's own format that keeps its structure and
        reports nothing lost becomes the document's file and marks the undo stack clean;
        other saves are exports.  A document that failed to load (no content) is not saved.
        Raises ``ValueError`` for a format that cannot write and ``OSError`` when the
        file cannot be written (the old file is then untouched).
        """
        from ..formats import registry as default_registry
        reg = registry or default_registry
        target = Path(path) if path is not None else Path(self.path) if self.path else None
        if target is None:
            raise ValueError("the document has no file yet: give a path")
        if self.root is None:
            raise ValueError("the document has no content (it failed to load): saving it "
                             "would replace the file with an empty one")
        descriptor = reg.get(format) if format else reg.for_path(target, capability="write")
        if descriptor is None or not descriptor.can_write:
            known = ", ".join(reg.extensions("write"))
            raise ValueError(f"no format can write '{target.name}'"
                             f"{f' as {format}' if format else ''} (writable: {known})")
        options = {}
        if descriptor.can_flatten:
            if flatten is None:
                raise ValueError(f"saving {descriptor.label} needs an explicit choice: "
                                 "flatten=False keeps the includes (modular), flatten=True "
                                 "writes them in place")
            options["flatten"] = flatten
        before = list(self.diagnostics)
        # Relative include URIs are relative to the file: written elsewhere, they must
        # still name the same files (kept so if the save makes that the document's file).
        rebased = self._rebase_include_uris(target.resolve().parent)
        try:
            reg.implementation(descriptor).write(self, target, **options)
        except BaseException:
            for inc, uri in rebased:
                inc.uri = uri
            raise
        finally:
            # What the writer reported is about this save, not about the document.
            seen = {(d.code, d.message, d.file, d.line) for d in before}
            warnings = [d for d in self.diagnostics
                        if (d.code, d.message, d.file, d.line) not in seen]
            self.diagnostics.replace(before)
        # Only a save that kept everything in the document's own structure makes the file
        # the document again: after warnings, what they list is still unsaved.
        faithful = descriptor.name == (self.format or descriptor.name) and not flatten \
            and not warnings
        if faithful:
            self.path = str(target)
            self.format = descriptor.name
            self.commands.set_clean()
        else:
            for inc, uri in rebased:
                inc.uri = uri
        return warnings

    def _rebase_include_uris(self, folder: Path) -> list[tuple[Include, str]]:
        """Point relative include URIs at the same files from ``folder``; returns what
        was changed (include, old URI) so an export can put them back."""
        import os
        if not self.path or folder == self.directory:
            return []
        changed = []
        for inc in self.includes():
            uri, resolved = inc.uri.strip(), inc.resolved_path
            scheme, sep, rest = uri.partition("://")
            relative = (not sep and not Path(uri).is_absolute()) or \
                (scheme == "file" and not Path(rest).is_absolute())
            if not relative or not resolved:
                continue
            old_target = (self.directory / (rest if sep else uri)).resolve()
            new = os.path.relpath(old_target, folder)
            changed.append((inc, inc.uri))
            inc.uri = f"file://{new}" if sep else new
        return changed

    # -- included files -------------------------------------------------------------
    def open_include(self, key: str) -> "Document":
        """The file an include (named by its key, or by the key of anything inside it)
        brings in, as a document of its own: edits there change every instance and
        everything placed relative to them here at once; save it to keep them.

        The returned document shares the included model with this one (an included file
        is a template shared by its instances), so there is one document per file.
        """
        from ..live.keys import split_part
        include = self._outermost_include(split_part(key)[0])
        if include is None:
            merged = self._merge_include_of(key)
            if merged is not None:
                include = merged
        if include is None or include.model is None:
            raise ValueError(f"[{key}] is not an include of this document that was loaded")
        if include.merge:
            raise ValueError(f"[{key}] comes from a merge-include of {include.resolved_path}: "
                             "its elements were copied into this model; open that file "
                             "itself to edit it, then reload")
        registry = self._templates()
        model = include.model
        opened = registry.docs.get(id(model))
        if opened is not None:
            return opened
        path = include.resolved_path
        sub = Document(root=model, path=path, format=include.format,
                       version=model.extras.get("format_version", ""))
        sub.extras.update(model.extras.get("document_extras", {}))
        sub.extras["load_context"] = self.extras.get("load_context")
        sub.extras["templates"] = registry
        sub.diagnostics.extend(d for d in include.load_diagnostics if d.file == path)
        registry.docs[id(model)] = sub
        registry.listen(sub)
        sub.live.edited.connect(lambda _event, m=model, s=sub: registry.changed(m, s))
        return sub

    def _templates(self) -> "_Templates":
        registry = self.extras.get("templates")
        if registry is None:
            registry = self.extras["templates"] = _Templates()
            registry.listen(self)
        return registry

    def _merge_include_of(self, key: str) -> Include | None:
        """The merge-include whose model holds the element ``key`` names, if any."""
        from ..live.keys import find
        node = find(self.root, key)
        if node is None:
            return None
        top = node
        while top.parent is not None:
            top = top.parent
        return next((i for i in self.includes() if i.merge and i.model is top), None)

    def _outermost_include(self, key: str) -> Include | None:
        from ..live.keys import find
        from .names import SEP
        parts = key.split(SEP) if key else []
        for i in range(1, len(parts) + 1):
            node = find(self.root, SEP.join(parts[:i]))
            if isinstance(node, Include):
                return node
            if node is None:
                return None
        return None

    def reaches(self, model: Model) -> bool:
        """Whether ``model`` (an included file's model) is part of this document, at any
        include depth (each included file is walked once)."""
        todo, seen = [self.root] if self.root is not None else [], set()
        while todo:
            for n in walk(todo.pop()):
                if isinstance(n, Include) and n.model is not None and id(n.model) not in seen:
                    if n.model is model:
                        return True
                    seen.add(id(n.model))
                    todo.append(n.model)
        return False

    def _template_changed(self) -> None:
        """An included file's document was edited: every instance of it changed (one
        rebuild, whatever the number of instances)."""
        if self.root is not None:
            self.notify(DocumentChanged(ChangeKind.RELOADED, (self.root.id,), ("template",),
                                        nodes=(self.root,)))

    # -- change notification ------------------------------------------------------
    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group changes into one update of derived data and one event of each kind
        (the command stack wraps every push, undo, redo and macro in one)."""
        if self._batch_depth == 0 and self._live is None and self.root is not None:
            self.live  # capture the state before the first edit, to compare with after
        self._batch_depth += 1
        try:
            yield
        finally:
            self._batch_depth -= 1
            if self._batch_depth == 0 and self._live is not None:
                self._live.flush()

    def notify(self, event: DocumentChanged) -> None:
        """Called by commands after they changed nodes: update derived data, tell views."""
        if event.kind in (ChangeKind.ADDED, ChangeKind.REMOVED, ChangeKind.RELOADED):
            self._index = None
            self._node_list = None
        moved = self._frames.on_change(event) if self._frames is not None else {"*"}
        self.changed.emit(event)
        if self._live is not None:
            self._live.note(event, moved)
            if self._batch_depth == 0:
                self._live.flush()


class _Templates:
    """The documents of included files opened for editing, shared by every document of
    one load: one document per included model, whichever document opened it, and every
    document that includes that model hears of its edits."""

    def __init__(self) -> None:
        self.docs: dict[int, Document] = {}
        self._listeners: list = []
        self._round: set[int] | None = None

    def listen(self, document: Document) -> None:
        import weakref
        self._listeners.append(weakref.ref(document))

    def changed(self, model: Model, source: Document) -> None:
        # An edit may reach a document twice (directly, and through another included
        # document that reacts to it): each document updates once per edit.
        outermost = self._round is None
        if outermost:
            self._round = {id(source)}
        try:
            alive = []
            for ref in self._listeners:
                doc = ref()
                if doc is None:
                    continue
                alive.append(ref)
                if id(doc) not in self._round and doc.reaches(model):
                    self._round.add(id(doc))
                    doc._template_changed()
            self._listeners = alive
        finally:
            if outermost:
                self._round = None
