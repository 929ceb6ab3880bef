"""The main window: document tabs with a 3D viewport each, and docked panels.

Panels (scene tree, inspector, diagnostics, history, library, frame graph) follow the
current tab's document.  Every edit is a core command, so Undo/Redo, the history panel
and the unsaved-changes prompt work the same for all of them.  Docks, geometry and recent
files are kept between runs (QSettings).
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.formats import registry

from .icons import kind_icon
from .scene_tree import SceneTree
from .session import DocumentSession
from .viewport.scene import Look
from .viewport.widget import VIEWS, Viewport

__all__ = ["MainWindow", "SAVE_FORMATS"]

#: Save-as choices: (label, format name, file suffix, flatten)
SAVE_FORMATS = (
    ("SDFormat, includes kept (*.sdf)", "sdformat", ".sdf", False),
    ("SDFormat, flattened (*.sdf)", "sdformat", ".sdf", True),
    ("OpenPLX (*.openplx)", "openplx", ".openplx", None),
    ("URDF (*.urdf)", "urdf", ".urdf", None),
)
MAX_RECENT = 10


class _Tab(QtWidgets.QWidget):
    """One document: its session and viewport."""

    def __init__(self, session: DocumentSession, look: Look, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.viewport = Viewport(session, look, self)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.viewport)


class MainWindow(QtWidgets.QMainWindow):
    """Snapframe's main window (see the module docstring)."""

    sessionChanged = QtCore.Signal(object)   # the current DocumentSession or None

    def __init__(self, settings: QtCore.QSettings | None = None, dark: bool = False) -> None:
        super().__init__()
        self.settings = settings or QtCore.QSettings("Snapframe", "Snapframe")
        self.look = Look.dark() if dark else Look()
        self.setWindowTitle("Snapframe")
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self.tabs = QtWidgets.QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.setTabsClosable(True)
        self.tabs.tabCloseRequested.connect(self.close_tab)
        self.tabs.currentChanged.connect(self._on_tab)
        self._empty = QtWidgets.QLabel(
            "<h2>Snapframe</h2><p>Open an SDFormat, URDF or OpenPLX file<br>"
            "(File ▸ Open, or drop it here).</p>", self)
        self._empty.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self._center = QtWidgets.QStackedWidget(self)
        self._center.addWidget(self._empty)
        self._center.addWidget(self.tabs)
        self.setCentralWidget(self._center)
        self._trees = QtWidgets.QStackedWidget(self)
        self._tree_of: dict[int, SceneTree] = {}
        self._build_panels()
        self._build_actions()
        self._build_menus()
        self._build_status()
        self._restore()
        self._update_actions()

    # -- panels -------------------------------------------------------------------
    def _dock(self, title: str, widget: QtWidgets.QWidget, area, name: str) -> QtWidgets.QDockWidget:
        dock = QtWidgets.QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_panels(self) -> None:
        from .inspector import FrameInspector
        from .panels import DiagnosticsPanel, HistoryPanel, LibraryPanel
        from .teaching import FrameGraphPanel
        L, R, B = (QtCore.Qt.DockWidgetArea.LeftDockWidgetArea,
                   QtCore.Qt.DockWidgetArea.RightDockWidgetArea,
                   QtCore.Qt.DockWidgetArea.BottomDockWidgetArea)
        self.inspector = FrameInspector(None, self)
        self.diagnostics = DiagnosticsPanel(None, self)
        self.history = HistoryPanel(None, self)
        self.library = LibraryPanel(None, self)
        self.frame_graph = FrameGraphPanel(None, self)
        self.scene_dock = self._dock("Scene", self._trees, L, "scene")
        self.library_dock = self._dock("Library", self.library, L, "library")
        self.tabifyDockWidget(self.scene_dock, self.library_dock)
        self.scene_dock.raise_()
        self.inspector_dock = self._dock("Inspector", self.inspector, R, "inspector")
        self.history_dock = self._dock("History", self.history, R, "history")
        self.tabifyDockWidget(self.inspector_dock, self.history_dock)
        self.inspector_dock.raise_()
        # Diagnostics, the frame graph (teaching mode) and the console share the bottom
        # dock as pages of one tab widget: they want the full width, and tabified docks
        # built before the window shows leave stray tab bars behind in Qt.
        from .console import ConsolePanel
        self.console = ConsolePanel({"window": self}, self)
        self.bottom_tabs = QtWidgets.QTabWidget(self)
        self.bottom_tabs.setDocumentMode(True)
        self.bottom_tabs.setTabPosition(QtWidgets.QTabWidget.TabPosition.South)
        self.bottom_tabs.addTab(self.diagnostics, "Diagnostics")
        self.bottom_tabs.addTab(self.frame_graph, "Frame graph")
        self.bottom_tabs.addTab(self.console, "Console")
        self.diagnostics_dock = self._dock("Diagnostics", self.bottom_tabs, B, "bottom")
        self.graph_dock = self.console_dock = self.diagnostics_dock
        self.bottom_tabs.currentChanged.connect(
            lambda i: self.diagnostics_dock.setWindowTitle(self.bottom_tabs.tabText(i)))
        self.sessionChanged.connect(
            lambda s: self.console.namespace.__setitem__("doc", s.document if s else None))
        self.resizeDocks([self.scene_dock, self.inspector_dock], [290, 340],
                         QtCore.Qt.Orientation.Horizontal)
        self.resizeDocks([self.diagnostics_dock], [170], QtCore.Qt.Orientation.Vertical)
        if hasattr(self.inspector, "openIncludeRequested"):
            self.inspector.openIncludeRequested.connect(self.open_include)
        if hasattr(self.library, "openRequested"):
            self.library.openRequested.connect(self.open)
        if hasattr(self.library, "foldersChanged"):
            self.library.foldersChanged.connect(
                lambda: self.settings.setValue("library/folders", self.library.folders()))

    # -- actions ------------------------------------------------------------------
    def _action(self, text: str, slot, shortcut=None, tip: str = "", checkable: bool = False,
                icon: QtGui.QIcon | None = None) -> QtGui.QAction:
        action = QtGui.QAction(text, self)
        if icon is not None:
            action.setIcon(icon)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.setStatusTip(tip or text.replace("&", "").rstrip("…"))
        action.setCheckable(checkable)
        if checkable:
            action.toggled.connect(slot)
        else:
            action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        S = QtGui.QKeySequence.StandardKey
        style = self.style()
        SP = QtWidgets.QStyle.StandardPixmap
        self.act_open = self._action("&Open…", self.open_dialog, S.Open,
                                     icon=style.standardIcon(SP.SP_DialogOpenButton))
        self.act_save = self._action("&Save", self.save, S.Save,
                                     icon=style.standardIcon(SP.SP_DialogSaveButton))
        self.act_close = self._action("&Close", lambda: self.close_tab(self.tabs.currentIndex()),
                                      S.Close)
        self.act_quit = self._action("&Quit", self.close, S.Quit)
        self.act_undo = self._action("&Undo", self.undo, S.Undo,
                                     icon=style.standardIcon(SP.SP_ArrowBack))
        self.act_redo = self._action("&Redo", self.redo, None,
                                     icon=style.standardIcon(SP.SP_ArrowForward))
        self.act_redo.setShortcuts([QtGui.QKeySequence("Ctrl+Shift+Z"), QtGui.QKeySequence("Ctrl+Y")])
        self.act_delete = self._action("&Delete", self.delete_selected, S.Delete)
        self.act_rename = self._action("Re&name…", self.rename_selected, QtGui.QKeySequence("F2"))
        self.act_select_none = self._action("Select &None", self.select_none,
                                            QtGui.QKeySequence("Esc"))
        self.act_fit = self._action("&Fit view", self.fit, QtGui.QKeySequence("F"),
                                    icon=kind_icon("model"))
        self.act_views = {name: self._action(f"{name.capitalize()} view",
                                             lambda _=False, n=name: self.set_view(n),
                                             QtGui.QKeySequence(f"Ctrl+{i + 1}"))
                          for i, name in enumerate(VIEWS)}
        self.act_ortho = self._action("&Orthographic", self.set_orthographic,
                                      QtGui.QKeySequence("O"), checkable=True)
        self.act_layers: dict[str, QtGui.QAction] = {}
        for name, label in (("visuals", "Visuals"), ("collisions", "Collisions"),
                            ("link", "Link frames"), ("joint", "Joint frames"),
                            ("frame", "Frames"), ("mate_connector", "Mate connectors"),
                            ("model", "Model frames"), ("joint axes", "Joint axes and limits"),
                            ("inertia boxes", "Inertia boxes and centres of mass"),
                            ("grid", "Floor grid")):
            action = self._action(label, lambda on, n=name: self.set_layer(n, on), checkable=True)
            action.setChecked(name in ("visuals", "link", "frame", "mate_connector",
                                       "joint axes", "grid"))
            self.act_layers[name] = action
        self.act_teaching = self._action("&Teaching mode", self.set_teaching,
                                         QtGui.QKeySequence("T"), checkable=True)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        file.addAction(self.act_open)
        self.recent_menu = file.addMenu("Open &Recent")
        file.addSeparator()
        file.addAction(self.act_save)
        save_as = file.addMenu("Save &As")
        for label, fmt, suffix, flatten in SAVE_FORMATS:
            save_as.addAction(self._action(label.split(" (")[0] + "…",
                                           lambda _=False, f=fmt, s=suffix, fl=flatten:
                                           self.save_as_dialog(f, s, fl)))
        file.addSeparator()
        file.addAction(self.act_close)
        file.addAction(self.act_quit)
        edit = bar.addMenu("&Edit")
        for a in (self.act_undo, self.act_redo, None, self.act_rename, self.act_delete,
                  self.act_select_none):
            edit.addSeparator() if a is None else edit.addAction(a)
        view = bar.addMenu("&View")
        view.addAction(self.act_fit)
        for a in self.act_views.values():
            view.addAction(a)
        view.addAction(self.act_ortho)
        view.addSeparator()
        show = view.addMenu("&Show")
        for a in self.act_layers.values():
            show.addAction(a)
        view.addAction(self.act_teaching)
        view.addSeparator()
        panels = view.addMenu("&Panels")
        for dock in (self.scene_dock, self.inspector_dock, self.diagnostics_dock,
                     self.history_dock, self.library_dock):
            panels.addAction(dock.toggleViewAction())
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self._action("&About Snapframe", self.about))
        tools = self.addToolBar("Main")
        tools.setObjectName("main_toolbar")
        tools.setIconSize(QtCore.QSize(18, 18))
        for a in (self.act_open, self.act_save, None, self.act_undo, self.act_redo, None,
                  self.act_fit):
            tools.addSeparator() if a is None else tools.addAction(a)
        for name in VIEWS:
            button = self.act_views[name]
            button.setText(name.capitalize())
            tools.addAction(button)
        tools.addAction(self.act_ortho)
        tools.addSeparator()
        for name, short in (("collisions", "Collisions"), ("inertia boxes", "Inertia"),
                            ("joint", "Joints")):
            button = tools.addAction(short)
            button.setCheckable(True)
            button.setToolTip(self.act_layers[name].text())
            action = self.act_layers[name]
            button.setChecked(action.isChecked())
            button.toggled.connect(action.setChecked)
            action.toggled.connect(button.setChecked)
        self._refresh_recent()

    def _build_status(self) -> None:
        self.status_diag = QtWidgets.QLabel(self)
        self.status_render = QtWidgets.QLabel(self)
        # room for "render 1234 ms": the label must not resize with every frame
        self.status_render.setMinimumWidth(self.status_render.fontMetrics().horizontalAdvance("render 00000 ms") + 8)
        self.statusBar().addPermanentWidget(self.status_diag)
        self.statusBar().addPermanentWidget(self.status_render)

    # -- sessions -----------------------------------------------------------------
    @property
    def current(self) -> _Tab | None:
        tab = self.tabs.currentWidget()
        return tab if isinstance(tab, _Tab) else None

    @property
    def session(self) -> DocumentSession | None:
        tab = self.current
        return tab.session if tab is not None else None

    def sessions(self) -> list[DocumentSession]:
        return [self.tabs.widget(i).session for i in range(self.tabs.count())]

    def add_session(self, session: DocumentSession) -> _Tab:
        tab = _Tab(session, self.look, self.tabs)
        tree = SceneTree(session, self._context_actions, self._trees)
        self._trees.addWidget(tree)
        self._tree_of[id(session)] = tree
        session.refused.connect(lambda why: self.statusBar().showMessage(f"Not done: {why}", 8000))
        session.stackChanged.connect(self._on_stack_changed)
        session.diagnosticsChanged.connect(lambda _e: self._update_status())
        tab.viewport.rendered.connect(
            lambda sec: self.status_render.setText(f"render {sec * 1000:.0f} ms"))
        index = self.tabs.addTab(tab, session.title)
        self.tabs.setTabToolTip(index, session.document.path)
        self._center.setCurrentWidget(self.tabs)
        self.tabs.setCurrentIndex(index)
        for name, action in self.act_layers.items():
            tab.viewport.mirror.set_visible(name, action.isChecked())
        tab.viewport.mirror.set_visible("frame graphs", self.act_teaching.isChecked())
        # drawn by its first paint, fitted at its final size (see Viewport.resizeEvent)
        tab.viewport.set_view("iso", render=False)
        return tab

    def open(self, path: str | Path) -> DocumentSession | None:
        """Open a file in a new tab (or switch to it if open); errors show in the
        diagnostics panel with whatever could be loaded."""
        path = str(Path(path).resolve())
        for i in range(self.tabs.count()):
            if self.tabs.widget(i).session.document.path == path:
                self.tabs.setCurrentIndex(i)
                return self.tabs.widget(i).session
        QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.WaitCursor)
        try:
            session = DocumentSession.open(path, parent=self)
        finally:
            QtWidgets.QApplication.restoreOverrideCursor()
        self.add_session(session)
        self._add_recent(path)
        errors = session.document.diagnostics.errors
        if errors:
            self.diagnostics_dock.show()
            self.bottom_tabs.setCurrentWidget(self.diagnostics)
            self.statusBar().showMessage(f"{Path(path).name}: {len(errors)} error(s); "
                                         "the rest is shown", 10000)
        return session

    def open_include(self, key: str) -> None:
        """Open the file an include brings in, as its own tab (edits there change every
        instance here)."""
        session = self.session
        if session is None:
            return
        try:
            document = session.document.open_include(key)
        except ValueError as exc:
            self.statusBar().showMessage(str(exc), 8000)
            return
        for i in range(self.tabs.count()):
            if self.tabs.widget(i).session.document is document:
                self.tabs.setCurrentIndex(i)
                return
        self.add_session(DocumentSession(document, self))

    def close_tab(self, index: int) -> bool:
        tab = self.tabs.widget(index)
        if not isinstance(tab, _Tab):
            return True
        if not self._confirm_discard([tab.session]):
            return False
        tree = self._tree_of.pop(id(tab.session), None)
        if tree is not None:
            self._trees.removeWidget(tree)
            tree.deleteLater()
        self.tabs.removeTab(index)
        tab.viewport.close_view()
        tab.deleteLater()
        if self.tabs.count() == 0:
            self._center.setCurrentWidget(self._empty)
            self._on_tab(-1)
        return True

    def _on_tab(self, _index: int) -> None:
        session = self.session
        tree = self._tree_of.get(id(session)) if session is not None else None
        if tree is not None:
            self._trees.setCurrentWidget(tree)
        for panel in (self.inspector, self.diagnostics, self.history, self.frame_graph):
            panel.set_session(session)
        self.library.set_session(session)
        self._update_actions()
        self._update_status()
        self.sessionChanged.emit(session)

    def _on_stack_changed(self, _event) -> None:
        self._on_stack(None)

    def _on_stack(self, _session: DocumentSession | None) -> None:
        """Tab titles (the * of unsaved changes) and the Undo/Redo actions."""
        for i in range(self.tabs.count()):
            self.tabs.setTabText(i, self.tabs.widget(i).session.title)
        self._update_actions()

    def _update_actions(self) -> None:
        session = self.session
        stack = session.document.commands if session is not None else None
        # (a CommandStack is falsy when empty: it has a length)
        can_undo = stack is not None and stack.can_undo
        can_redo = stack is not None and stack.can_redo
        self.act_undo.setEnabled(can_undo)
        self.act_redo.setEnabled(can_redo)
        self.act_undo.setText(f"&Undo {stack.undo_label}" if can_undo else "&Undo")
        self.act_redo.setText(f"&Redo {stack.redo_label}" if can_redo else "&Redo")
        for a in (self.act_save, self.act_close, self.act_fit, self.act_delete, self.act_rename):
            a.setEnabled(session is not None)
        title = f"{session.title} — Snapframe" if session is not None else "Snapframe"
        self.setWindowTitle(title)

    def _update_status(self) -> None:
        session = self.session
        if session is None:
            self.status_diag.setText("")
            return
        d = session.document.diagnostics
        e, w = len(d.errors), len(d.warnings)
        self.status_diag.setText(f"{e} error{'s' * (e != 1)}, {w} warning{'s' * (w != 1)}"
                                 if e or w else "no problems")

    # -- editing ------------------------------------------------------------------
    def undo(self) -> None:
        if self.session is not None:
            self.session.undo()

    def redo(self) -> None:
        if self.session is not None:
            self.session.redo()

    def select_none(self) -> None:
        if self.session is not None:
            self.session.selection.clear()

    def delete_selected(self) -> None:
        session = self.session
        if session is None or not session.selection.keys:
            return
        from snapframe.core.model.edits import RemoveNode
        doc = session.document
        with doc.commands.macro(f"Delete {', '.join(session.selection.keys)}"):
            for key in list(session.selection.keys):
                node = doc.element(key)
                if node is not None and not session.make(RemoveNode, node):
                    break

    def rename_selected(self) -> None:
        session = self.session
        key = session.selection.active if session is not None else None
        node = session.document.element(key) if key is not None else None
        if node is None:
            return
        old = getattr(node, "effective_name", node.name)
        name, ok = QtWidgets.QInputDialog.getText(self, "Rename", f"New name for {old}:",
                                                  text=old)
        if ok and name and name != old:
            from snapframe.core.model.edits import Rename
            session.make(Rename, node, name)

    def _context_actions(self, key: str) -> list[QtGui.QAction | None]:
        from snapframe.core.model import Include
        session = self.session
        node = session.document.element(key) if session is not None else None
        out: list[QtGui.QAction | None] = []
        focus = QtGui.QAction("Focus in viewport", self)
        focus.triggered.connect(lambda: self.current.viewport.focus(key))
        out.append(focus)
        copy = QtGui.QAction("Copy name", self)
        copy.triggered.connect(lambda: QtWidgets.QApplication.clipboard().setText(key))
        out.append(copy)
        if isinstance(node, Include) or (key and "::" in key):
            inc = QtGui.QAction("Open included file", self)
            inc.triggered.connect(lambda: self.open_include(key))
            out.append(inc)
        out += [None, self.act_rename, self.act_delete]
        return out

    # -- view ---------------------------------------------------------------------
    def fit(self) -> None:
        if self.current is not None:
            self.current.viewport.fit()

    def set_view(self, name: str) -> None:
        if self.current is not None:
            self.current.viewport.set_view(name)

    def set_orthographic(self, on: bool) -> None:
        if self.current is not None:
            self.current.viewport.set_orthographic(on)

    def set_layer(self, name: str, on: bool) -> None:
        for i in range(self.tabs.count()):
            self.tabs.widget(i).viewport.set_layer_visible(name, on)

    def set_teaching(self, on: bool) -> None:
        """Teaching mode: every frame's triad, the frame graph panel, and the chain of
        the selected frame explained."""
        for name in ("link", "joint", "frame", "mate_connector", "model"):
            self.act_layers[name].setChecked(on or name in ("link", "frame", "mate_connector"))
        self.set_layer("frame graphs", on)   # arrows between the triads
        if on:
            self.diagnostics_dock.show()
            self.bottom_tabs.setCurrentWidget(self.frame_graph)
            self.resizeDocks([self.diagnostics_dock], [300], QtCore.Qt.Orientation.Vertical)
        elif self.bottom_tabs.currentWidget() is self.frame_graph:
            self.bottom_tabs.setCurrentWidget(self.diagnostics)

    # -- files --------------------------------------------------------------------
    def open_dialog(self) -> None:
        exts = " ".join(f"*{e}" for e in registry.extensions("read"))
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Open", self.settings.value("last_dir", str(Path.cwd())),
            f"Models and worlds ({exts});;All files (*)")
        if path:
            self.settings.setValue("last_dir", str(Path(path).parent))
            self.open(path)

    def save(self) -> bool:
        session = self.session
        if session is None:
            return False
        doc = session.document
        flatten = False if (doc.format or "sdformat") == "sdformat" else None
        return self._save(session, doc.path or None, doc.format or "sdformat", flatten)

    def save_as_dialog(self, fmt: str, suffix: str, flatten: bool | None) -> bool:
        session = self.session
        if session is None:
            return False
        start = Path(session.document.path or "untitled").with_suffix(suffix)
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Save as", str(start),
                                                        f"{fmt} (*{suffix})")
        return bool(path) and self._save(session, path, fmt, flatten)

    def _save(self, session: DocumentSession, path, fmt: str, flatten: bool | None) -> bool:
        if path is None:
            return self.save_as_dialog(fmt, ".sdf", flatten)
        try:
            warnings = session.document.save(path, fmt, flatten=flatten)
        except (OSError, ValueError) as exc:
            QtWidgets.QMessageBox.critical(self, "Not saved", f"{path} was not saved:\n{exc}")
            return False
        self._on_stack(session)
        msg = f"Saved {Path(path).name}"
        if warnings:
            QtWidgets.QMessageBox.warning(
                self, "Saved, with losses",
                f"{Path(path).name} was saved, but the format cannot keep everything:\n\n"
                + "\n".join(f"• {w.message}" for w in warnings[:20]))
            msg += f" ({len(warnings)} warning{'s' * (len(warnings) != 1)})"
        self.statusBar().showMessage(msg, 6000)
        self._add_recent(str(Path(path).resolve()))
        return True

    def _confirm_discard(self, sessions: list[DocumentSession]) -> bool:
        modified = [s for s in sessions if s.modified]
        for session in modified:
            name = Path(session.document.path).name or "Untitled"
            answer = QtWidgets.QMessageBox.question(
                self, "Unsaved changes", f"{name} has unsaved changes. Save them?",
                QtWidgets.QMessageBox.StandardButton.Save
                | QtWidgets.QMessageBox.StandardButton.Discard
                | QtWidgets.QMessageBox.StandardButton.Cancel,
                QtWidgets.QMessageBox.StandardButton.Save)
            if answer == QtWidgets.QMessageBox.StandardButton.Cancel:
                return False
            if answer == QtWidgets.QMessageBox.StandardButton.Save:
                doc = session.document
                flatten = False if (doc.format or "sdformat") == "sdformat" else None
                if not self._save(session, doc.path or None, doc.format or "sdformat", flatten):
                    return False
        return True

    def _add_recent(self, path: str) -> None:
        recent = [p for p in self.settings.value("recent", [], list) or [] if p != path]
        self.settings.setValue("recent", [path, *recent][:MAX_RECENT])
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.value("recent", [], list) or []:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.triggered.connect(lambda _=False, p=path: self.open(p))
        self.recent_menu.setEnabled(not self.recent_menu.isEmpty())

    # -- window -------------------------------------------------------------------
    def _restore(self) -> None:
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 880)
        if state is not None:
            self.restoreState(state)
        folders = self.settings.value("library/folders", [], list) or []
        if folders and hasattr(self.library, "set_folders"):
            self.library.set_folders(folders)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:  # noqa: N802
        if not self._confirm_discard(self.sessions()):
            event.ignore()
            return
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        for i in range(self.tabs.count()):
            self.tabs.widget(i).viewport.close_view()
        event.accept()

    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QtGui.QDropEvent) -> None:  # noqa: N802
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.open(url.toLocalFile())
        event.acceptProposedAction()

    def about(self) -> None:
        QtWidgets.QMessageBox.about(
            self, "About Snapframe",
            "<h3>Snapframe</h3><p>An assembly editor for robots and mechanisms: SDFormat "
            "composition, automatic inertia, OpenPLX mate connectors with SNAP.</p>"
            "<p>Apache-2.0</p>")
