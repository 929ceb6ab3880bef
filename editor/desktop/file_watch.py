"""Reload on change: open files and the files they include, watched on disk.

A :class:`ReloadWatcher` watches every file an open document was read from (its own,
every file it includes at any depth, and the files a format's reader lists as read with
it in ``extras["source_files"]``: OpenPLX imports, a floor plan folder's JSON files and
its door files).  A burst of changes (a generator writing, ``git checkout``) is taken as
one after a short quiet time.  What changed is compared with what was last seen of the
file (time, size, inode), then with a hash of the content the editor holds (as read, or
as it last wrote it): a generator that rewrites a file with the same content, or a touch,
is no change.  The editor's own writes are recorded when they are made (the document's
``written`` event: a save, with losses or not, and an export over its own file), so they
never look like someone else's.  Programs that save atomically replace the file (a new
inode): its watch is set again after every change.  :meth:`ReloadWatcher.changed_on_disk`
tells the window, before a save, that the file it would overwrite changed since.

Then, for each document to read again (the changed file's own document when one is open,
else every open document including it): with no unsaved edits and the *reload silently*
preference on, it is reloaded at once; otherwise a bar above its view offers *Reload* and
*Ignore*.  A silent reload waits while a drag or a gesture is under way (a gizmo drag, a
joint slider held, a part being placed, a joint being added): it would pull the model
from under it; when that ends, the document is reloaded, or offered if the gesture
changed it.  Reloading keeps the selection (the keys that still exist) and the camera.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from snapframe.core.model import Include, Model
from snapframe.core.model.nodes import walk

from ..session import DocumentSession
from .settings import Preferences

__all__ = ["ReloadWatcher", "ReloadBar", "files_of", "DEBOUNCE_MS"]

#: Changes closer together than this are one change.
DEBOUNCE_MS = 250

Signature = tuple[int, int, int, int] | None


def _signature(path: str) -> Signature:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_dev)


def _resolved(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError, ValueError):
        return str(path)


def _digest(path: str) -> str | None:
    """A hash of the file's content (None: unreadable)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    except (OSError, ValueError):
        return None
    return digest.hexdigest()


def _source_files(owner) -> list[str]:
    """What a reader listed as read with a document or model (``source_files``)."""
    extras = getattr(owner, "extras", None) or {}
    return [_resolved(str(p)) for p in extras.get("source_files", ()) if p]


def files_of(document) -> set[str]:
    """The files ``document`` was read from: its own, every file it includes (merged or
    not, at any depth, each included model walked once) and every file a reader lists
    as read with them (``extras["source_files"]``), resolved."""
    out: set[str] = set()
    if document.path:
        out.add(_resolved(document.path))
    out.update(_source_files(document))
    todo: list = [document.root] if document.root is not None else []
    for other in document.extras.get("other_worlds", ()):
        if other.root is not None:
            todo.append(other.root)
    seen: set[int] = set()
    while todo:
        for node in walk(todo.pop()):
            if isinstance(node, Model):
                out.update(_source_files(node))
            if not isinstance(node, Include):
                continue
            if node.resolved_path:
                path = Path(node.resolved_path)
                out.add(_resolved(str(path)))
            model = node.model
            if isinstance(model, Model) and id(model) not in seen:
                seen.add(id(model))
                todo.append(model)
    return {p for p in out if not Path(p).is_dir()}


class ReloadBar(QtWidgets.QFrame):
    """The offer above a document's view: what changed, *Reload* and *Ignore*."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reloadBar")
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setStyleSheet("#reloadBar { background: #f3d98b; color: #3b3423; }"
                           "#reloadBar QLabel { color: #3b3423; }")
        self.label = QtWidgets.QLabel(self)
        self.label.setWordWrap(True)
        self.reload_button = QtWidgets.QPushButton("&Reload", self)
        self.ignore_button = QtWidgets.QPushButton("&Ignore", self)
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        row.addWidget(self.label, 1)
        row.addWidget(self.reload_button)
        row.addWidget(self.ignore_button)
        #: The documents Reload reads again.
        self.targets: list = []
        self.files: list[str] = []

    def offer(self, targets: list, files: list[str], unsaved: bool) -> None:
        for t in targets:
            if t not in self.targets:
                self.targets.append(t)
        self.files = sorted(set(self.files) | set(files))
        names = ", ".join(Path(f).name for f in self.files)
        text = f"{names} changed on disk."
        if unsaved:
            text += " Reloading discards your unsaved changes."
        self.label.setText(text)
        self.show()


class ReloadWatcher(QtCore.QObject):
    """Watches the files of a window's documents (see the module docstring).

    Signals: ``reloaded(document)`` after a document was read again; ``offered(ReloadBar)``
    when a bar is shown.
    """

    reloaded = QtCore.Signal(object)
    offered = QtCore.Signal(object)

    def __init__(self, window, prefs: Preferences, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window
        self.prefs = prefs
        self.watcher = QtCore.QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_change)
        self.watcher.directoryChanged.connect(self._on_folder)
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.check)
        self._pending: set[str] = set()
        #: What was last seen of each watched file.
        self._known: dict[str, Signature] = {}
        #: A hash of each watched file's content as the editor has it: as it was read (or
        #: read again), or as this editor last wrote it (its own saves).
        self._content: dict[str, str] = {}
        #: Silent reloads waiting for a drag or a gesture to end: id -> (document, files).
        self._deferred: dict[int, tuple[object, list[str]]] = {}
        self._retry = QtCore.QTimer(self)
        self._retry.setSingleShot(True)
        self._retry.setInterval(DEBOUNCE_MS)
        self._retry.timeout.connect(self._run_deferred)
        self._sessions: dict[int, DocumentSession] = {}
        self._files: dict[int, set[str]] = {}
        self._slots: dict[int, list] = {}
        self._bars: dict[int, ReloadBar] = {}
        self._closed = False

    # -- what is watched ---------------------------------------------------------------
    def track(self, session: DocumentSession) -> None:
        if id(session) in self._sessions:
            return
        self._sessions[id(session)] = session
        slots = [(session.structureChanged, lambda _e, s=session: self._refresh(s)),
                 (session.stackChanged, lambda e, s=session: self._on_stack(s, e)),
                 (session.document.written, lambda p, s=session: self._on_written(s, p))]
        for signal, slot in slots:
            signal.connect(slot)
        self._slots[id(session)] = slots
        self._refresh(session)

    def untrack(self, session: DocumentSession) -> None:
        if self._sessions.pop(id(session), None) is None:
            return
        for signal, slot in self._slots.pop(id(session), []):
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass
        self._files.pop(id(session), None)
        self._deferred.pop(id(session.document), None)
        bar = self._bars.pop(id(session), None)
        if bar is not None:
            bar.deleteLater()
        self._sync_watches()

    def shutdown(self) -> None:
        self._closed = True
        self._timer.stop()
        self._retry.stop()
        self._deferred.clear()
        for session in list(self._sessions.values()):
            self.untrack(session)

    def changed_on_disk(self, path: str) -> bool:
        """Whether the file ``path``, which an open document was read from (or saved
        to), now holds other content than the editor read or wrote there: a save over
        it would overwrite another program's change (one the user ignored, say)."""
        resolved = _resolved(path)
        held = self._content.get(resolved)
        if held is None:
            return False
        now = _digest(resolved)
        return now is not None and now != held

    def _note_content(self, path: str) -> None:
        """The file's content is now what the editor has of it (read, or written)."""
        digest = _digest(path)
        if digest is None:
            self._content.pop(path, None)
        else:
            self._content[path] = digest

    def watched(self) -> set[str]:
        """Every file watched now."""
        return set().union(*self._files.values()) if self._files else set()

    def bar(self, session: DocumentSession) -> ReloadBar | None:
        """The reload offer shown above ``session``'s view, if any (visible or not)."""
        return self._bars.get(id(session))

    def _refresh(self, session: DocumentSession) -> None:
        """The document's files again (an include added or re-pointed, a Save As)."""
        files = files_of(session.document)
        for path in files:
            if path not in self._known:
                self._known[path] = _signature(path)
                self._note_content(path)
        self._files[id(session)] = files
        self._sync_watches()

    def _on_stack(self, session: DocumentSession, event) -> None:
        # A Save As may have given the document another path: watch that.  (What the
        # save wrote is recorded by _on_written; undoing to the saved state writes
        # nothing, and a change another program made meanwhile is still a change.)
        path = session.document.path
        if event.clean and path and _resolved(path) not in self._files.get(id(session), set()):
            self._refresh(session)

    def _on_written(self, session: DocumentSession, path: str) -> None:
        """``session``'s document wrote ``path`` (a save, with losses or not): when that is
        its own file, what is on disk now is this editor's doing, not a change to offer.
        (An export over another document's file is that document's change.)"""
        resolved = _resolved(path)
        document = session.document
        if not document.path or _resolved(document.path) != resolved:
            return
        self._known[resolved] = _signature(resolved)
        self._note_content(resolved)
        if resolved not in self._files.get(id(session), set()):
            self._refresh(session)
        # The file was replaced (atomic save): its watch follows the old inode.  It is set
        # again once the notice of this write has come (or the quiet time passed).
        self._on_change(resolved)

    def _sync_watches(self) -> None:
        if self._closed:
            return
        wanted = self.watched()
        folders = {str(Path(p).parent) for p in wanted if not os.path.exists(p)}
        have_files = set(self.watcher.files())
        have_dirs = set(self.watcher.directories())
        stale = [p for p in have_files if p not in wanted] + \
            [d for d in have_dirs if d not in folders]
        if stale:
            self.watcher.removePaths(stale)
        new = [p for p in wanted if p not in have_files and os.path.exists(p)]
        new += [d for d in folders if d not in have_dirs and os.path.isdir(d)]
        if new:
            self.watcher.addPaths(new)

    def _watch_again(self, paths: list[str]) -> None:
        """A watch on a replaced file follows the old inode: set it again."""
        present = [p for p in paths if p in set(self.watcher.files())]
        if present:
            self.watcher.removePaths(present)
        self._sync_watches()

    # -- changes -----------------------------------------------------------------------------
    def _on_change(self, path: str) -> None:
        self._pending.add(path)
        self._timer.start()

    def _on_folder(self, folder: str) -> None:
        for path in self.watched():
            if str(Path(path).parent) == folder:
                self._pending.add(path)
        self._timer.start()

    def check(self) -> list:
        """Take the changes seen since the last check (normally called after the quiet
        time): returns the documents that were reloaded or offered for reloading."""
        pending, self._pending = self._pending, set()
        if self._closed or not pending:
            return []
        changed = []
        for path in sorted(pending):
            now = _signature(path)
            if now == self._known.get(path):
                continue              # our own save, or touched without a change
            self._known[path] = now
            held = self._content.get(path)
            if held is not None and now is not None and _digest(path) == held:
                continue              # the content the editor has (rewritten the same,
                                      # touched, or our own write stat'ed late)
            if now is not None:       # (deleted: nothing to read; a new file is awaited)
                changed.append(path)
        self._watch_again(sorted(pending))
        if not changed:
            return []
        return self._handle(changed)

    def _targets_of(self, path: str) -> list:
        """The documents to read again for a change of ``path``: its own document if
        one is open (its includers follow it), else every open document including it."""
        own = self.window.included_files.find(path)
        if own is not None:
            return [own]
        for session in self._sessions.values():
            if session.document.path and _resolved(session.document.path) == path:
                return [session.document]
        return [s.document for sid, s in self._sessions.items()
                if path in self._files.get(sid, set())]

    def _sessions_showing(self, document) -> list[DocumentSession]:
        """Open documents whose view a reload of ``document`` changes."""
        out = []
        for session in self._sessions.values():
            doc = session.document
            if doc is document or (isinstance(document.root, Model) and document.root is not
                                   None and doc.reaches(document.root)):
                out.append(session)
        return out

    def _handle(self, changed: list[str]) -> list:
        targets: list = []
        files_for: dict[int, list[str]] = {}
        for path in changed:
            for doc in self._targets_of(path):
                if doc not in targets:
                    targets.append(doc)
                files_for.setdefault(id(doc), []).append(path)
        silent = self.prefs.reload_silently
        done = []
        for doc in targets:
            if silent and doc.commands.is_clean:
                if self.busy():
                    # not under a drag or a gesture: when it ends (see _run_deferred)
                    _doc, files = self._deferred.get(id(doc), (doc, []))
                    self._deferred[id(doc)] = (doc, sorted({*files, *files_for[id(doc)]}))
                    self._retry.start()
                else:
                    self._deferred.pop(id(doc), None)
                    self.reload([doc])
            else:
                self._deferred.pop(id(doc), None)
                for session in self._sessions_showing(doc):
                    self._offer(session, doc, files_for[id(doc)])
            done.append(doc)
        return done

    def busy(self) -> bool:
        """Whether a drag or a gesture is under way in the window: a gizmo drag, a joint
        slider held, a part being placed or a joint being added."""
        window = self.window
        if getattr(window, "placement", None) is not None or \
                getattr(window, "joint_adder", None) is not None:
            return True
        tabs = window.tabs
        for i in range(tabs.count()):
            gizmo = getattr(getattr(tabs.widget(i), "viewport", None), "gizmo", None)
            if gizmo is not None and gizmo.dragging:
                return True
        joints = getattr(window, "joints", None)
        if isinstance(joints, QtWidgets.QWidget):
            return any(s.isSliderDown() for s in joints.findChildren(QtWidgets.QSlider))
        return False

    def _run_deferred(self) -> None:
        """The reloads put off by a drag or a gesture, once it is over: reloaded if the
        document is still unchanged, else offered (the gesture edited it)."""
        if self._closed or not self._deferred:
            return
        if self.busy():
            self._retry.start()
            return
        deferred, self._deferred = self._deferred, {}
        for doc, files in deferred.values():
            views = self._sessions_showing(doc)
            if not views:
                continue          # closed meanwhile
            if self.prefs.reload_silently and doc.commands.is_clean:
                self.reload([doc])
            else:
                for session in views:
                    self._offer(session, doc, files)

    def _offer(self, session: DocumentSession, document, files: list[str]) -> None:
        bar = self._bars.get(id(session))
        if bar is None:
            tab = self._tab_of(session)
            if tab is None:
                return
            bar = ReloadBar(tab)
            tab.layout().insertWidget(0, bar)
            bar.reload_button.clicked.connect(lambda _=False, s=session: self._reload_bar(s))
            bar.ignore_button.clicked.connect(lambda _=False, s=session: self._ignore_bar(s))
            self._bars[id(session)] = bar
        bar.offer([document], files, unsaved=not document.commands.is_clean)
        self.offered.emit(bar)

    def _tab_of(self, session: DocumentSession):
        tabs = self.window.tabs
        for i in range(tabs.count()):
            tab = tabs.widget(i)
            if getattr(tab, "session", None) is session:
                return tab
        return None

    def _reload_bar(self, session: DocumentSession) -> None:
        bar = self._bars.get(id(session))
        if bar is None:
            return
        targets = list(bar.targets)
        self._ignore_bar(session)
        self.reload(targets)

    def _ignore_bar(self, session: DocumentSession) -> None:
        bar = self._bars.get(id(session))
        if bar is not None:
            bar.targets, bar.files = [], []
            bar.hide()

    # -- reloading -----------------------------------------------------------------------------
    def reload(self, documents: list) -> list:
        """Read ``documents`` again from disk, keeping the selection and the camera of
        every view they change; returns those that could not be read (the reason in the
        status bar, the document unchanged)."""
        failed = []
        for document in documents:
            views = self._sessions_showing(document)
            kept = [(s, s.selection.keys, self._camera_of(s)) for s in views]
            try:
                document.reload()
            except ValueError as exc:
                failed.append(document)
                self.window.show_message(f"Not reloaded: {exc}", 12000)
                continue
            for path in files_of(document):
                # read again: what it holds is the editor's now (not a change to offer,
                # nor one a save would overwrite)
                self._known[path] = _signature(path)
                self._note_content(path)
            for session, keys, camera in kept:
                doc = session.document
                alive = [k for k in keys if k in doc.live.poses or doc.element(k) is not None]
                if alive != session.selection.keys:
                    session.selection.select(alive)
                self._restore_camera(session, camera)
                self._refresh(session)
                bar = self._bars.get(id(session))
                if bar is not None and document in bar.targets:
                    bar.targets.remove(document)
                    if not bar.targets:
                        self._ignore_bar(session)
            name = Path(document.path).name
            self.window.show_message(f"{name} reloaded: it changed on disk", 6000)
            self.reloaded.emit(document)
        return failed

    def _camera_of(self, session: DocumentSession):
        tab = self._tab_of(session)
        if tab is None:
            return None
        camera = tab.viewport.canvas.camera
        return (camera.GetPosition(), camera.GetFocalPoint(), camera.GetViewUp(),
                camera.GetViewAngle(), camera.GetParallelScale(),
                camera.GetParallelProjection())

    def _restore_camera(self, session: DocumentSession, state) -> None:
        tab = self._tab_of(session)
        if tab is None or state is None:
            return
        position, focal, up, angle, scale, parallel = state
        camera = tab.viewport.canvas.camera
        camera.SetPosition(*position)
        camera.SetFocalPoint(*focal)
        camera.SetViewUp(*up)
        camera.SetViewAngle(angle)
        camera.SetParallelScale(scale)
        camera.SetParallelProjection(parallel)
        tab.viewport.canvas.renderer.ResetCameraClippingRange()
        tab.viewport.render()
