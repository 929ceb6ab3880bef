"""A :class:`Document`: one open file, its node tree, its undo stack and its events."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..commands import CommandStack
from ..diagnostics import Code, Diagnostic, Diagnostics, Severity
from ..events import ChangeKind, DocumentChanged, EventEmitter
from .nodes import Include, Model, Node, World, walk

__all__ = ["Document", "IncludedFiles"]


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
    #: Emitted with the path :meth:`save` wrote, once it is on disk (faithful save or
    #: export alike): a watcher of the file tells this process's writes from others'.
    written: EventEmitter[str] = field(default_factory=EventEmitter)
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
        so does a save that loses nothing of a document whose own format cannot write (a
        floor plan saved as SDFormat: the new file and format are then the document's);
        other saves are exports.  Warnings about other tools (``Code.NOT_PORTABLE``: what
        libsdformat cannot load that Snapframe reads back) are not losses.  A document
        that failed to load (no content) is not saved.
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
        # the document again: after warnings, what they list is still unsaved.  A format
        # that cannot write (a floor plan) has no save of its own: a lossless save in
        # another format is the only way to keep the document, so it becomes its file.
        lossless = not any(d.severity >= Severity.WARNING and d.code != Code.NOT_PORTABLE
                           for d in warnings)
        own = reg.get(self.format) if self.format else descriptor
        if own is None or own.can_write:
            faithful = descriptor.name == (self.format or descriptor.name) and not flatten \
                and lossless
        else:
            # (flattened, the file holds the includes' models: the document keeps them
            # as includes, so only a document without includes is what the file is)
            faithful = lossless and (not flatten or not self.includes())
        if faithful:
            if self.format and self.format != descriptor.name:
                # the files its reader read with it are not the new file's
                self.extras.pop("source_files", None)
            self.path = str(target)
            self.format = descriptor.name
            self.commands.set_clean()
        else:
            for inc, uri in rebased:
                inc.uri = uri
        self.written.emit(str(target))
        return warnings

    def _rebase_include_uris(self, folder: Path) -> list[tuple[Include, str]]:
        """Point relative include URIs at the same files from ``folder``; returns what
        was changed (include, old URI) so an export can put them back.

        Only a URI that named its file *relative to this document* is rebased: a relative
        URI is also looked up on the search paths (``--path``, ``SDF_PATH``), and one found
        there keeps working as written from any folder (rebasing it would point at a file
        that does not exist)."""
        import os
        if not self.path or folder == self.directory:
            return []
        changed = []
        # (a multi-world file's other worlds are documents of their own, in the same file)
        others = [inc for other in self.extras.get("other_worlds", ()) for inc in
                  other.includes()]
        for inc in [*self.includes(), *others]:
            uri, resolved = inc.uri.strip(), inc.resolved_path
            scheme, sep, rest = uri.partition("://")
            relative = (not sep and not Path(uri).is_absolute()) or \
                (scheme == "file" and not Path(rest).is_absolute())
            if not relative or not resolved:
                continue
            old_target = (self.directory / (rest if sep else uri)).resolve()
            if not _names_file(old_target, Path(resolved).resolve()):
                continue   # found through a search path, not next to the document
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
        return self._document_of(include)

    def open_included_file(self, path: str | Path) -> "Document | None":
        """The document of the file ``path`` when this document includes it (at any depth,
        not merged), as :meth:`open_include` gives it; None when it does not."""
        target = _resolved(path)
        for include in _includes_reached(self.root):
            if include.model is not None and not include.merge and include.resolved_path \
                    and _resolved(include.resolved_path) == target:
                return self._document_of(include)
        return None

    def _document_of(self, include: Include) -> "Document":
        """The one document of the file ``include`` brings in (see :meth:`open_include`)."""
        registry = self._templates()
        model = include.model
        opened = registry.docs.get(id(model))
        if opened is not None:
            return opened
        path = include.resolved_path
        existing = registry.find(path)
        if existing is not None and isinstance(existing.root, Model) and \
                not model.extras.get("include_params"):
            # The file is open already (on its own, or through another load): one document
            # per file, so its model takes the place of this load's copy everywhere.
            registry.replace_model(model, existing.root)
            return existing
        sub = Document(root=model, path=path, format=include.format,
                       version=model.extras.get("format_version", ""))
        sub.extras.update(model.extras.get("document_extras", {}))
        sub.extras["load_context"] = self.extras.get("load_context")
        sub.extras["templates"] = registry
        sub.diagnostics.extend(d for d in include.load_diagnostics if d.file == path)
        registry.listen(sub)
        registry.register(sub)
        return sub

    def reload(self) -> None:
        """Read the document's file again: unsaved edits and the undo history are dropped.

        The document keeps its identity (views stay connected) and takes the file's
        content as it is on disk.  For the file of an include, every document including it
        shows that content at once (one document per file).  Raises ``ValueError`` when
        the file can no longer be read (the document is then unchanged)."""
        from ..loading import LoadContext, load
        if not self.path:
            raise ValueError("the document has no file to read again")
        used = self.extras.get("load_context")
        context = LoadContext() if used is None else LoadContext(
            search_paths=list(used.search_paths), registry=used.registry,
            uri_paths={k: list(v) for k, v in used.uri_paths.items()},
            find_callback=used.find_callback, use_environment=used.use_environment)
        fresh = load(self.path, context)
        if fresh.root is None:
            reason = fresh.diagnostics.errors[0].message if fresh.diagnostics.errors else \
                "it holds nothing that can be read"
            raise ValueError(f"{Path(self.path).name} cannot be read again: {reason}")
        registry = self.extras.get("templates")
        old = self.root
        with self.batch():
            self.root = fresh.root
            self.version = fresh.version or self.version
            self.extras = {**fresh.extras,
                           **({"templates": registry} if registry is not None else {})}
            self.diagnostics.replace(list(fresh.diagnostics))
            self._index = self._node_list = None
            if registry is not None:
                registry.adopt(self)    # its includes of files open here: their documents
            self.notify(DocumentChanged(ChangeKind.RELOADED, (self.root.id,), ("file",),
                                        nodes=(self.root,)))
            if self._live is not None:
                # The findings of the reader are the new file's; the views compare with
                # what they show, so the next refresh reports the difference.
                from ..live.validation import DiagnosticsService
                live = self._live
                shown = live.validation.current
                live.validation = DiagnosticsService(self, extra=live.validation.extra)
                live.validation.current = shown
        if registry is not None and old is not None:
            registry.replace_model(old, self.root)
        self.commands.clear()

    def _templates(self) -> "IncludedFiles":
        registry = self.extras.get("templates")
        if registry is None:
            registry = self.extras["templates"] = IncludedFiles()
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


class IncludedFiles:
    """The documents of files opened for editing, shared by documents that include them:
    one document per file, whichever document opened it, and every document that includes
    that file hears of its edits.

    Every document of one load shares one (created on demand); an editor that opens
    several files makes them share one with :meth:`add`, so that a file opened on its own
    and the same file included by another open document are one document."""

    def __init__(self) -> None:
        self.docs: dict[int, Document] = {}     # id(model) -> the document editing it
        self._listeners: list = []
        self._round: set[int] | None = None
        self._connected: set[int] = set()

    def listen(self, document: Document) -> None:
        import weakref
        if not any(ref() is document for ref in self._listeners):
            self._listeners.append(weakref.ref(document))

    def documents(self) -> list[Document]:
        """The documents that hear of edits of included files (those still alive)."""
        return [d for d in (ref() for ref in self._listeners) if d is not None]

    def register(self, document: Document) -> None:
        """``document`` is the one that edits its root model (an included file's)."""
        self.docs[id(document.root)] = document
        if id(document) not in self._connected:
            self._connected.add(id(document))
            # (its root at the time of the edit: a reload replaces it)
            document.live.edited.connect(lambda _event, s=document: self.changed(s.root, s))

    def add(self, document: Document) -> None:
        """Make ``document`` (loaded on its own) share this registry: it uses the models
        of files already open here for its includes of them, and a model file becomes the
        document of its file for the includes of others."""
        document.extras["templates"] = self
        self.listen(document)
        if isinstance(document.root, Model) and document.path and \
                self.find(document.path) is None:
            self.register(document)
        if self.adopt(document):
            document._template_changed()

    def forget(self, document: Document) -> None:
        """``document`` is closed: no longer offered, no longer told of edits."""
        self._listeners = [r for r in self._listeners if r() not in (None, document)]
        for key in [k for k, d in self.docs.items() if d is document]:
            del self.docs[key]

    def find(self, path: str | Path) -> Document | None:
        """The document of the file ``path`` (paths compared resolved), if any."""
        target = _resolved(path)
        return next((d for d in self.docs.values()
                     if d.path and _resolved(d.path) == target), None)

    def adopt(self, document: Document) -> bool:
        """Point ``document``'s includes of files that have a document here at those
        documents' models; True if any was changed (the caller rebuilds)."""
        changed = False
        # each path resolved once (a world of a thousand includes of one robot)
        by_path = {_resolved(d.path): d for d in self.docs.values() if d.path}
        resolved: dict[str, str] = {}
        for include in _includes_reached(document.root):
            if include.model is None or include.merge or not include.resolved_path or \
                    include.model.extras.get("include_params"):
                continue
            path = str(include.resolved_path)
            if path not in resolved:
                resolved[path] = _resolved(path)
            owner = by_path.get(resolved[path])
            if owner is not None and owner is not document and \
                    isinstance(owner.root, Model) and include.model is not owner.root:
                include.model = owner.root
                changed = True
        return changed

    def replace_model(self, old: Model, new: Model) -> None:
        """Every include of ``old`` (in any document here, at any depth) now brings in
        ``new``; the documents that include it are brought up to date."""
        if old is new:
            return
        for doc in self.documents():
            for include in _includes_reached(doc.root):
                if include.model is old and not include.merge:
                    include.model = new
        if id(old) in self.docs:
            owner = self.docs.pop(id(old))
            if owner.root is new:
                self.docs[id(new)] = owner
        reached = [d for d in self.documents() if d.root is not new and d.reaches(new)]
        outermost = self._round is None
        if outermost:
            self._round = set()
        self._round.update(id(d) for d in reached)   # one update each, not one per path
        try:
            for doc in reached:
                doc._template_changed()
        finally:
            if outermost:
                self._round = None

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


_Templates = IncludedFiles   # (the name it had)


def _resolved(path: str | Path) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError, ValueError):
        return str(path)


def _includes_reached(root: Node | None) -> Iterator[Include]:
    """Every include below ``root``, through included models (each model walked once)."""
    todo, seen = ([root] if root is not None else []), set()
    while todo:
        for n in walk(todo.pop()):
            if isinstance(n, Include):
                model = n.model   # (the model it had: a caller may re-point it)
                yield n
                if model is not None and id(model) not in seen:
                    seen.add(id(model))
                    todo.append(model)


def _names_file(target: Path, resolved: Path) -> bool:
    """Whether the path ``target`` (a URI read relative to the document) is what the
    include resolved to: the file itself, or the model folder holding it."""
    if target == resolved:
        return True
    try:
        return target.is_dir() and resolved.is_relative_to(target)
    except OSError:
        return False
