"""Autosave: a recovery copy of every open document a few seconds after it changes.

The first unsaved change of a document starts its timer (the autosave interval
preference).  When it fires, the document's content is taken on the UI thread (the writers
read, and the SDFormat writer updates, the document's own XML tree, which edits change:
no other thread may walk it) and written to the recovery folder by one worker thread, so
the disk (an ``fsync`` per file) never holds up the editor.  Every format Snapframe writes
serialises to memory (``to_string``; mirabuf's without its gzip step); only a plugin
format without ``to_string`` is written by its writer on the UI thread.  A document whose
format cannot be written (a floor plan) is copied as the SDFormat world a save writes for
it, with the meshes it holds in memory (its walls) beside it.  Taking the content of a large
document is not free (the 1000-robot world: 30-70 ms of CPU, up to 145 ms on a busy
two-core machine; ``benchmarks/bench_autosave.py``), so it waits for a pause: while the
user is still editing (a change less than :data:`IDLE_SECONDS` ago) the copy is put off,
by at most one more interval.  Changes made meanwhile are in the copy: at most two intervals
of work are lost however long the user keeps editing.  A document that becomes clean
(saved, or undone to its saved state) loses its copy; a clean exit removes them all
(:meth:`AutosaveManager.shutdown`).
"""

from __future__ import annotations

import inspect
import logging
import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from PySide6 import QtCore

from snapframe.core.formats import registry
from snapframe.core.model import Collision, Document, Visual
from snapframe.core.model.nodes import MeshData

from ..session import DocumentSession
from .recovery import RecoveryEntry, RecoverySession
from .settings import Preferences

__all__ = ["AutosaveManager", "Snapshot", "take_snapshot", "document_snapshot",
           "default_recovery_root", "IDLE_SECONDS"]

_log = logging.getLogger(__name__)
#: A copy is taken once the document has not changed for this long (a pause in the
#: typing or dragging), or one interval late at the latest.
IDLE_SECONDS = 1.0


def default_recovery_root() -> Path:
    """The per-user recovery folder: ``recovery`` in the application's local data folder
    (``$XDG_DATA_HOME/Snapframe/Snapframe/recovery`` on Linux)."""
    from PySide6.QtCore import QStandardPaths
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation)
    if not base:   # no writable location known: the home folder's hidden one
        base = str(Path.home() / ".local" / "share" / "Snapframe")
    return Path(base) / "recovery"


def _suffix_of(document: Document, descriptor) -> str:
    suffix = Path(document.path).suffix if document.path else ""
    if suffix and descriptor.matches(document.path):
        return suffix
    return descriptor.extensions[0] if descriptor.extensions else ".txt"


@dataclass
class Snapshot:
    """A document's content as a recovery copy holds it: ``payload`` (None: the format
    has no ``to_string``, its writer writes the copy), in ``format`` with ``suffix``;
    ``original_format`` the document's own when the copy is in another (a floor plan as
    SDFormat), else ""; ``meshes`` the meshes it holds in memory by URI (the copy names
    them, their triangles are not in its text)."""

    payload: bytes | None
    format: str
    suffix: str
    original_format: str = ""
    meshes: dict[str, MeshData] = field(default_factory=dict)


def _memory_meshes(document: Document) -> dict[str, MeshData]:
    """URI -> triangles of the mesh geometries the document writes without a file."""
    out: dict[str, MeshData] = {}
    for node in document.nodes():
        if not isinstance(node, (Visual, Collision)) or node.geometry is None or \
                node.geometry.shape != "mesh":
            continue
        params = node.geometry.params
        data, uri = params.get("data"), params.get("uri")
        path = params.get("resolved_path")
        if isinstance(data, MeshData) and uri and not (path and os.path.isfile(str(path))):
            out.setdefault(str(uri), data)
    return out


def take_snapshot(document: Document) -> Snapshot | None:
    """The document's content as its writer would save it (includes kept as includes),
    or, for a format that cannot be written (a floor plan), as the SDFormat world a save
    writes.  None when there is nothing to copy (a document that failed to load) or no
    format can hold it.  Runs on the UI thread; the writer's findings are not kept."""
    if document.root is None:
        return None
    own = registry.get(document.format or "sdformat")
    descriptor, original = own, ""
    if own is None or not own.can_write:
        descriptor = registry.get("sdformat")
        original = own.name if own is not None else ""
        if descriptor is None:
            return None
    module = registry.implementation(descriptor)
    to_string = getattr(module, "to_string", None)
    suffix = _suffix_of(document, descriptor)
    if to_string is None:
        return Snapshot(None, descriptor.name, suffix, original)
    try:
        params = inspect.signature(to_string).parameters
    except (TypeError, ValueError):
        return Snapshot(None, descriptor.name, suffix, original)
    options: dict = {}
    if "out_dir" in params:
        options["out_dir"] = document.directory   # paths stay relative to the original
    if descriptor.can_flatten and "flatten" in params:
        options["flatten"] = False
    if "compress" in params:
        options["compress"] = False     # not on the UI thread: readers take it either way
    before = list(document.diagnostics)
    try:
        text = to_string(document, **options)
    finally:
        document.diagnostics.replace(before)   # what a writer reports is about a save
    # (OpenPLX keeps undecodable bytes of its source as surrogates: written back as read)
    data = text.encode("utf-8", errors="surrogateescape") if isinstance(text, str) \
        else bytes(text)
    meshes = _memory_meshes(document) if descriptor.name == "sdformat" else {}
    return Snapshot(data, descriptor.name, suffix, original, meshes)


def document_snapshot(document: Document) -> tuple[bytes | None, str, str] | None:
    """``(payload, format, suffix)`` of :func:`take_snapshot` (None when it gives None)."""
    snapshot = take_snapshot(document)
    if snapshot is None:
        return None
    return snapshot.payload, snapshot.format, snapshot.suffix


class _Tracked:
    """One document's autosave state."""

    def __init__(self, session: DocumentSession, entry_id: str, timer: QtCore.QTimer) -> None:
        self.session = session
        self.entry_id = entry_id
        self.timer = timer
        self.has_copy = False
        self.slot = None
        self.first_change = 0.0     # the first change the next copy holds (clock time)
        self.last_change = 0.0


class AutosaveManager(QtCore.QObject):
    """Recovery copies of the tracked documents (see the module docstring).

    Off until :meth:`start` (a window in a test or a script leaves no copies behind).
    Signals: ``saved(RecoveryEntry)`` when a copy is on disk, ``failed(str)`` with the
    reason a copy could not be written (a full disk: the editor goes on).
    """

    saved = QtCore.Signal(object)
    failed = QtCore.Signal(str)
    _finished = QtCore.Signal(object, object, object)   # (tracked, entry, error) from the worker

    def __init__(self, prefs: Preferences, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.prefs = prefs
        self.store: RecoverySession | None = None
        self._tracked: dict[int, _Tracked] = {}
        self._count = 0
        self._executor: ThreadPoolExecutor | None = None
        self._last: Future | None = None
        #: Seconds the last copy took on the UI thread (taking the content).
        self.last_ui_seconds = 0.0
        #: The clock changes are timed with (monotonic seconds; tests replace it).
        self.clock = time.monotonic
        self._finished.connect(self._on_finished, QtCore.Qt.ConnectionType.QueuedConnection)
        prefs.changed.connect(self._on_preference)

    # -- switching on and off ----------------------------------------------------------
    @property
    def enabled(self) -> bool:
        return self.store is not None

    def start(self, root: str | Path | None = None) -> None:
        """Keep recovery copies below ``root`` (default: :func:`default_recovery_root`)."""
        if self.store is not None:
            return
        self.store = RecoverySession(Path(root) if root is not None else default_recovery_root())
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="autosave")
        for tracked in self._tracked.values():
            if tracked.session.modified:
                self._schedule(tracked)

    def shutdown(self) -> None:
        """A clean exit: pending writes finish, then every copy is removed."""
        for tracked in self._tracked.values():
            tracked.timer.stop()
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)
        if self.store is not None:
            self.store.close()
            self.store = None

    @property
    def interval_ms(self) -> int:
        return int(self.prefs.autosave_seconds * 1000)

    def _on_preference(self, name: str) -> None:
        if name != "autosave_seconds":
            return
        for tracked in self._tracked.values():   # the new interval from now on
            tracked.timer.stop()
            if tracked.session.modified:
                self._schedule(tracked)

    # -- documents ---------------------------------------------------------------------
    def track(self, session: DocumentSession, adopt: RecoveryEntry | None = None) -> None:
        """Keep a copy of ``session``'s document while it has unsaved changes.  ``adopt``:
        the recovery copy it was restored from, taken over as its current copy."""
        if id(session) in self._tracked:
            return
        self._count += 1
        timer = QtCore.QTimer(self)
        timer.setSingleShot(True)
        tracked = _Tracked(session, f"doc-{self._count}", timer)
        timer.timeout.connect(lambda t=tracked: self._due(t))
        tracked.slot = lambda event, t=tracked: self._on_stack(t, event)
        session.stackChanged.connect(tracked.slot)
        self._tracked[id(session)] = tracked
        if adopt is not None and self.store is not None:
            # At once (a file copy): the caller deletes the claimed copy next.
            self._drain()
            try:
                self.store.adopt(adopt, tracked.entry_id)
                tracked.has_copy = True
                return
            except OSError as exc:
                self.failed.emit(f"Autosave could not take over {adopt.label}: {exc}")
        if session.modified:
            self._schedule(tracked)

    def untrack(self, session: DocumentSession) -> None:
        """The document is closed: its copy goes (the user saved or discarded it)."""
        tracked = self._tracked.pop(id(session), None)
        if tracked is None:
            return
        tracked.timer.stop()
        tracked.timer.deleteLater()
        try:
            session.stackChanged.disconnect(tracked.slot)
        except (RuntimeError, TypeError):
            pass
        self._remove_copy(tracked)

    def entry_id(self, session: DocumentSession) -> str | None:
        tracked = self._tracked.get(id(session))
        return tracked.entry_id if tracked is not None else None

    def pending(self, session: DocumentSession) -> bool:
        """Whether a copy of ``session`` is due (its timer runs)."""
        tracked = self._tracked.get(id(session))
        return tracked is not None and tracked.timer.isActive()

    def _on_stack(self, tracked: _Tracked, event) -> None:
        if event.clean:
            tracked.timer.stop()
            self._remove_copy(tracked)
        else:
            tracked.last_change = self.clock()
            self._schedule(tracked)

    def _schedule(self, tracked: _Tracked) -> None:
        seconds = self.prefs.autosave_seconds
        if self.store is None or seconds <= 0 or tracked.timer.isActive():
            return     # a timer running already: that copy will hold this change too
        tracked.first_change = self.clock()
        tracked.timer.start(self.interval_ms)

    def _due(self, tracked: _Tracked) -> None:
        """The interval is over: copy now, unless the user is still at it (then at the
        next pause, one interval late at the latest)."""
        now = self.clock()
        quiet = now - tracked.last_change
        late = now - tracked.first_change - self.prefs.autosave_seconds
        if quiet < IDLE_SECONDS and late < self.prefs.autosave_seconds:
            wait = min(IDLE_SECONDS - quiet, self.prefs.autosave_seconds - late)
            tracked.timer.start(max(50, int(wait * 1000)))
            return
        self.write_now(tracked.session)

    # -- writing -----------------------------------------------------------------------------
    def write_now(self, session: DocumentSession) -> bool:
        """Take ``session``'s content now and have it written; False when the document
        has no copy to make (clean, not writable, autosave off)."""
        tracked = self._tracked.get(id(session))
        if tracked is None or self.store is None or not session.modified:
            return False
        tracked.timer.stop()
        document = session.document
        started = time.perf_counter()
        try:
            snapshot = take_snapshot(document)
            if snapshot is None:
                return False
            payload, fmt, suffix = snapshot.payload, snapshot.format, snapshot.suffix
            if payload is None:
                # No serialiser of its own: the format's writer writes the copy here, after
                # what the worker has queued (a removal must not follow it).
                self._drain()
                target = self.store.content_path(tracked.entry_id, suffix)
                before = list(document.diagnostics)
                module = registry.implementation(fmt)
                try:
                    if registry.get(fmt).can_flatten:
                        module.write(document, target, flatten=False)
                    else:
                        module.write(document, target)
                finally:
                    document.diagnostics.replace(before)
        except Exception as exc:   # a writer that fails on this content: say so, go on
            _log.warning("autosave of %s failed", document.path, exc_info=True)
            self.failed.emit(f"Autosave of {Path(document.path).name or 'Untitled'} "
                             f"failed: {exc}")
            return False
        finally:
            self.last_ui_seconds = time.perf_counter() - started
        manifest = {"original_path": str(Path(document.path).resolve()) if document.path else "",
                    "format": fmt, "title": session.title.rstrip(" *"),
                    "saved_at": time.time(),
                    "saved_at_text": time.strftime("%Y-%m-%d %H:%M:%S")}
        if snapshot.original_format:
            manifest["original_format"] = snapshot.original_format
        store, meshes = self.store, snapshot.meshes
        self._submit(tracked, lambda: store.write(tracked.entry_id, suffix, payload, manifest,
                                                  meshes))
        tracked.has_copy = True
        return True

    def _remove_copy(self, tracked: _Tracked) -> None:
        if tracked.has_copy and self.store is not None:
            store, entry_id = self.store, tracked.entry_id
            self._submit(None, lambda: store.remove(entry_id))
        tracked.has_copy = False

    def _submit(self, tracked: _Tracked | None, job) -> None:
        if self._executor is None:
            return

        def run():
            try:
                result = job()
            except Exception as exc:   # reported on the UI thread
                self._finished.emit(tracked, None, exc)
                return
            self._finished.emit(tracked, result, None)
        self._last = self._executor.submit(run)

    def _drain(self) -> None:
        if self._last is not None:
            self._last.result()

    def wait(self) -> None:
        """Wait until every queued write or removal is done (tests, shutdown)."""
        self._drain()

    def _on_finished(self, tracked, result, error) -> None:
        if error is not None:
            self.failed.emit(f"Autosave failed: {error}")
            return
        if isinstance(result, RecoveryEntry):
            self.saved.emit(result)
