"""The desktop services of one main window, installed by :func:`install`.

:class:`DesktopServices` owns the window's preferences (and applies them: units in the
inspector and the Joints panel, the theme, the triads' size, the model search paths), the
autosave manager, the watcher that offers reloads, Edit ▸ Preferences, and the start-up
offer of documents a crashed editor left.  The window calls
:meth:`~DesktopServices.track` for every document it shows,
:meth:`~DesktopServices.untrack` when it closes one and
:meth:`~DesktopServices.shutdown` on a clean exit; :func:`snapframe.editor.app.run` turns
autosave on and makes the offer.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.model.nodes import walk

from ..session import DocumentSession
from .autosave import AutosaveManager, default_recovery_root
from .file_watch import ReloadWatcher
from .recovery import OrphanedSession, RecoveryEntry, claim_orphans, read_recovered
from .settings import Preferences

__all__ = ["DesktopServices", "install"]

_log = logging.getLogger(__name__)


def install(window) -> "DesktopServices":
    """Give ``window`` (a MainWindow) its desktop services; returns them."""
    return DesktopServices(window)


def _resolved(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError, ValueError):
        return str(path)


class DesktopServices(QtCore.QObject):
    """See the module docstring.  Attributes: ``prefs`` (:class:`Preferences`),
    ``autosave`` (:class:`AutosaveManager`), ``watcher`` (:class:`ReloadWatcher`),
    ``act_preferences``, ``recovery_dialog`` and ``preferences_dialog`` (once shown)."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.prefs = Preferences(window.settings, self)
        self.autosave = AutosaveManager(self.prefs, self)
        self.watcher = ReloadWatcher(window, self.prefs, self)
        self.recovery_dialog = None
        self.preferences_dialog = None
        self._orphans: list[OrphanedSession] = []
        self._adopting: dict[int, RecoveryEntry] = {}
        self.autosave.failed.connect(lambda text: window.show_message(text, 12000))
        self._add_actions()
        self.prefs.changed.connect(self.apply)
        for name in ("length_unit", "theme", "search_paths"):
            self.apply(name, startup=True)

    # -- the window's documents --------------------------------------------------------------
    def track(self, session: DocumentSession) -> None:
        """``session`` is shown in a tab: autosave it, watch its files, size its triads."""
        self.autosave.track(session, adopt=self._adopting.pop(id(session), None))
        self.watcher.track(session)
        self._apply_triads()

    def untrack(self, session: DocumentSession) -> None:
        """``session``'s tab closes (saved or discarded): its copy goes."""
        self.autosave.untrack(session)
        self.watcher.untrack(session)

    def shutdown(self) -> None:
        """A clean exit: every recovery copy of this editor is removed."""
        self.autosave.shutdown()
        self.watcher.shutdown()
        for orphan in self._orphans:
            orphan.release()
        self._orphans = []
        for dialog in (self.preferences_dialog, self.recovery_dialog):
            if dialog is not None:
                dialog.close()

    def search_paths(self) -> list[Path]:
        """The model search paths of the preferences (the environment's come after them
        in every load)."""
        return self.prefs.search_paths

    def load_context(self):
        """A fresh :class:`~snapframe.core.loading.LoadContext` with those search paths."""
        from snapframe.core.loading import LoadContext
        return LoadContext(search_paths=self.search_paths())

    # -- preferences ---------------------------------------------------------------------------
    def _add_actions(self) -> None:
        window = self.window
        self.act_preferences = QtGui.QAction("&Preferences…", window)
        self.act_preferences.setShortcut(QtGui.QKeySequence("Ctrl+,"))
        self.act_preferences.setStatusTip("Units, theme, model search paths, autosave, "
                                          "triad size")
        self.act_preferences.setMenuRole(QtGui.QAction.MenuRole.PreferencesRole)
        self.act_preferences.triggered.connect(self.show_preferences)
        window.addAction(self.act_preferences)
        edit = next((a.menu() for a in window.menuBar().actions()
                     if a.menu() is not None and a.text().replace("&", "") == "Edit"), None)
        if edit is not None:
            edit.addSeparator()
            edit.addAction(self.act_preferences)

    def show_preferences(self):
        """Edit ▸ Preferences: the dialog (not modal: changes show at once)."""
        from .preferences_dialog import PreferencesDialog
        if self.preferences_dialog is None:
            self.preferences_dialog = PreferencesDialog(self.prefs, self.window)
        self.preferences_dialog.fill()
        self.preferences_dialog.show()
        self.preferences_dialog.raise_()
        self.preferences_dialog.activateWindow()
        return self.preferences_dialog

    def apply(self, name: str, startup: bool = False) -> None:
        """Apply the preference ``name`` to the window."""
        if name in ("length_unit", "angle_unit"):
            for panel in (self.window.inspector, getattr(self.window, "joints", None)):
                set_units = getattr(panel, "set_units", None)
                if set_units is not None:
                    set_units(self.prefs.length_unit, self.prefs.angle_unit)
        elif name == "theme":
            self._apply_theme(startup)
        elif name == "triad_percent":
            self._apply_triads()
        elif name == "search_paths":
            set_paths = getattr(self.window.library, "set_search_paths", None)
            if set_paths is not None:
                set_paths(self.prefs.search_paths)

    def _apply_theme(self, startup: bool) -> None:
        from ..theme import apply_theme
        app = QtWidgets.QApplication.instance()
        if app is None:
            return
        choice = self.prefs.theme
        fixed = bool(app.property("snapframe_theme_fixed"))
        if choice == "system":
            if fixed or not startup:
                apply_theme(app, None)
            return
        dark = choice == "dark"
        if fixed and bool(app.property("snapframe_dark")) == dark:
            return
        apply_theme(app, dark)

    def _apply_triads(self) -> None:
        scale = self.prefs.triad_scale
        tabs = self.window.tabs
        for i in range(tabs.count()):
            viewport = getattr(tabs.widget(i), "viewport", None)
            mirror = getattr(viewport, "mirror", None)
            if mirror is None or not hasattr(mirror, "set_triad_scale") or \
                    getattr(mirror, "triad_scale", 1.0) == scale:
                continue
            mirror.set_triad_scale(scale)
            viewport.render()

    # -- autosave and recovery ----------------------------------------------------------------
    def start_autosave(self, root: str | Path | None = None) -> None:
        """Keep recovery copies (below ``root``; default: the per-user recovery folder)."""
        self.autosave.start(root)

    def offer_recovery(self, root: str | Path | None = None):
        """Offer the documents that editors which are gone left below ``root`` (default:
        the per-user recovery folder) in a :class:`RecoveryDialog`, opened without
        blocking; returns it, or None when there is nothing to offer."""
        from .recovery_dialog import RecoveryDialog
        folder = Path(root) if root is not None else default_recovery_root()
        self._orphans = claim_orphans(folder)
        entries = [e for orphan in self._orphans for e in orphan.entries]
        if not entries:
            return None
        dialog = RecoveryDialog(entries, self.window)
        dialog.answered.connect(self._on_recovery_answer)
        self.recovery_dialog = dialog
        dialog.open()
        return dialog

    def _on_recovery_answer(self, choice: str, chosen: list) -> None:
        done: list[RecoveryEntry] = []
        if choice == "restore":
            done = self.restore(chosen)
            self.autosave.wait()     # the copies taken over are in this editor's folder
        elif choice == "discard":
            done = list(chosen)
        for orphan in self._orphans:
            for entry in [e for e in orphan.entries if e in done]:
                orphan.forget(entry)
            orphan.finish()           # (its folder goes once nothing is left in it)
        self._orphans = []

    def restore(self, entries: list[RecoveryEntry]) -> list[RecoveryEntry]:
        """Open the documents of ``entries`` as modified documents bound to their files;
        returns the entries restored (those that could not be are said in the status
        bar, and their copies kept)."""
        window = self.window
        loaded = []
        for entry in entries:
            try:
                document = read_recovered(entry, self.search_paths())
            except (OSError, ValueError) as exc:
                window.show_message(f"{entry.label} could not be restored: {exc}", 15000)
                continue
            if document.root is None:
                why = document.diagnostics.errors[0].message if \
                    document.diagnostics.errors else "nothing could be read"
                window.show_message(f"{entry.label} could not be restored: {why}", 15000)
                continue
            loaded.append((entry, document))
        restored = []
        for entry, document in _included_first(loaded):
            if not self._make_room(document):
                window.show_message(f"{entry.label} was not restored: it is open with "
                                    "unsaved changes (its copy is kept)", 15000)
                continue
            self._take_over_includes(document)
            window.included_files.add(document)
            document.commands.set_modified()
            session = DocumentSession(document, window)
            self._adopting[id(session)] = entry
            if window.add_session(session) is None:
                self._adopting.pop(id(session), None)
                window.included_files.forget(document)
                session.deleteLater()
                continue
            restored.append(entry)
        if restored:
            window.show_message(f"Restored {', '.join(e.label for e in restored)}: save to "
                                "keep the changes", 10000)
        return restored

    def _take_over_includes(self, document) -> None:
        """Open documents that include the restored document's file show the restored
        content: its model takes the place of theirs (one document per file)."""
        from snapframe.core.model import Model
        files = self.window.included_files
        if not document.path or not isinstance(document.root, Model):
            return
        for other in files.documents():
            if other is document:
                continue
            try:
                existing = other.open_included_file(document.path)
            except ValueError:
                existing = None
            if existing is not None and isinstance(existing.root, Model):
                files.replace_model(existing.root, document.root)
                files.forget(existing)
                return

    def _make_room(self, document) -> bool:
        """A tab showing the restored document's file without unsaved changes (opened
        from the command line) gives way to it; False if it has changes of its own."""
        if not document.path:
            return True
        target = _resolved(document.path)
        tabs = self.window.tabs
        for i in range(tabs.count()):
            session = getattr(tabs.widget(i), "session", None)
            if session is None or not session.document.path or \
                    _resolved(session.document.path) != target:
                continue
            if session.modified:
                return False
            return bool(self.window.close_tab(i))
        return True


def _included_first(loaded: list[tuple[RecoveryEntry, object]]) -> list:
    """Documents other restored documents include come first, so that those use their
    restored content (one document per file)."""
    paths = {id(doc): _resolved(doc.path) for _e, doc in loaded if doc.path}
    included: set[str] = set()
    for _entry, doc in loaded:
        if doc.root is None:
            continue
        for node in walk(doc.root, into_includes=True):
            resolved = getattr(node, "resolved_path", None)
            if resolved:
                included.add(_resolved(resolved))
    return sorted(loaded, key=lambda pair: paths.get(id(pair[1])) not in included)
