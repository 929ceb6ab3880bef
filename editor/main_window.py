"""The main window: document tabs with a 3D viewport each, and docked panels.

Panels (scene tree, inspector, diagnostics, history, library, frame graph) follow the
current tab's document.  Every edit is a core command, so Undo/Redo, the history panel
and the unsaved-changes prompt work the same for all of them.  Docks, geometry and recent
files are kept between runs (QSettings).
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.formats import registry
from snapframe.core.gcpause import gc_paused
from snapframe.core.live.keys import is_inside_include
from snapframe.core.model.document import IncludedFiles

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
#: Set (to anything but "" or "0") to show the last render time in the status bar.
DEBUG_ENV = "SNAPFRAME_DEBUG"
_log = logging.getLogger(__name__)
#: "(Document.open_include)" and the like: how a script does it, not how a user does.
_API_NAME = re.compile(r"\s*\((?:[A-Z]\w*\.)+\w+(?:\(\))?\)")


def user_message(text: str) -> str:
    """A core message for the status bar: developer API names left out."""
    return _API_NAME.sub("", text)


def _file_labels(paths: list[str]) -> list[str]:
    """File names, with their folder where two of them share a name (``arm.sdf —
    robot_1``), as tabs and the recent files list show them."""
    names = [Path(p).name or "Untitled" for p in paths]
    out = []
    for path, name in zip(paths, names):
        if path and names.count(name) > 1:
            folder = Path(path).parent.name or str(Path(path).parent)
            out.append(f"{name} — {folder}")
        else:
            out.append(name)
    return out


def _history_icon(redo: bool) -> QtGui.QIcon:
    """Undo/redo arrows: the icon theme's, else a curved arrow drawn here (Fusion has
    no undo icon of its own)."""
    theme = getattr(QtGui.QIcon, "ThemeIcon", None)
    if theme is not None:
        icon = QtGui.QIcon.fromTheme(theme.EditRedo if redo else theme.EditUndo)
    else:
        icon = QtGui.QIcon.fromTheme("edit-redo" if redo else "edit-undo")
    if not icon.isNull():
        return icon
    icon = QtGui.QIcon()
    for mode, role in ((QtGui.QIcon.Mode.Normal, QtGui.QPalette.ColorGroup.Active),
                       (QtGui.QIcon.Mode.Disabled, QtGui.QPalette.ColorGroup.Disabled)):
        color = QtWidgets.QApplication.palette().color(role, QtGui.QPalette.ColorRole.ButtonText)
        pix = QtGui.QPixmap(36, 36)
        pix.fill(QtCore.Qt.GlobalColor.transparent)
        p = QtGui.QPainter(pix)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        if redo:   # the mirror image of undo
            p.translate(36, 0)
            p.scale(-1, 1)
        pen = QtGui.QPen(color, 3.2)
        pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
        p.setPen(pen)
        path = QtGui.QPainterPath(QtCore.QPointF(10, 14))
        path.lineTo(22, 14)
        path.cubicTo(33, 14, 33, 30, 22, 30)
        path.lineTo(14, 30)
        p.drawPath(path)
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        p.setBrush(color)
        p.drawPolygon(QtGui.QPolygonF([QtCore.QPointF(3, 14), QtCore.QPointF(12, 6),
                                       QtCore.QPointF(12, 22)]))
        p.end()
        pix.setDevicePixelRatio(2)
        icon.addPixmap(pix, mode)
    return icon


def _resolved(path: str | Path) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError, ValueError):
        return str(path)


def _key_inside(parent, key: str, document) -> str:
    """The key, in ``document`` (an included file's), of the element ``key`` names in
    ``parent``; "" for the include itself or when it is not in that file."""
    head, mark, part = key.partition("#")
    names = head.split("::")
    for i in range(1, len(names) + 1):
        node = parent.element("::".join(names[:i]))
        if node is not None and getattr(node, "model", None) is document.root and \
                node.kind == "include":
            rest = "::".join(names[i:])
            return rest + (mark + part if rest and mark else "")
    return ""


class _Tab(QtWidgets.QWidget):
    """One document: its session and viewport."""

    def __init__(self, session: DocumentSession, look: Look, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.orthographic = False
        try:
            self.viewport = Viewport(session, look, self)
        except BaseException:
            self._discard()
            raise
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.viewport)

    def _discard(self) -> None:
        """A viewport that failed half-way: release whatever VTK had made, then this tab
        (nothing of it stays parented to the tab widget)."""
        from vtkmodules.qt.QVTKRenderWindowInteractor import QVTKRenderWindowInteractor
        for widget in self.findChildren(QVTKRenderWindowInteractor):
            try:
                widget.GetRenderWindow().GetInteractor().EnableRenderOff()
                widget.hide()
                widget.GetRenderWindow().Finalize()
            except Exception:   # already broken: it goes away with the tab anyway
                pass
        self.hide()
        self.setParent(None)
        self.deleteLater()


class MainWindow(QtWidgets.QMainWindow):
    """Snapframe's main window (see the module docstring)."""

    sessionChanged = QtCore.Signal(object)   # the current DocumentSession or None

    def __init__(self, settings: QtCore.QSettings | None = None, dark: bool = False) -> None:
        super().__init__()
        self.settings = settings or QtCore.QSettings("Snapframe", "Snapframe")
        self.look = Look.dark() if dark else Look()
        #: One document per file: files opened here and the files they include.
        self.included_files = IncludedFiles()
        #: Why the last file could not be opened ("" if it could).
        self.last_error = ""
        self._debug = os.environ.get(DEBUG_ENV, "") not in ("", "0")
        self._teaching_layers: dict[str, bool] | None = None
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
        from .theme import theme_signals
        theme_signals().changed.connect(self._follow_palette)

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
        for page in (self.diagnostics, self.frame_graph, self.console):
            # their views scroll: the dock may be a strip of a few rows (the user drags it
            # taller), not the ~180 px their toolbars and legends would ask for
            page.setMinimumHeight(72)
        self.diagnostics_dock = self._dock("Diagnostics", self.bottom_tabs, B, "bottom")
        self.graph_dock = self.console_dock = self.diagnostics_dock
        self.bottom_tabs.currentChanged.connect(
            lambda i: self.diagnostics_dock.setWindowTitle(self.bottom_tabs.tabText(i)))
        self.sessionChanged.connect(
            lambda s: self.console.namespace.__setitem__("doc", s.document if s else None))
        # Six decimals in three fields a line need this much; narrower, the fields cut.
        self.inspector_dock.setMinimumWidth(300)
        self.resizeDocks([self.scene_dock, self.inspector_dock], [290, 340],
                         QtCore.Qt.Orientation.Horizontal)
        # Compact at first: a filter bar and a few rows ("No problems found" needs no more).
        self.resizeDocks([self.diagnostics_dock], [120], QtCore.Qt.Orientation.Vertical)
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
        self.act_undo = self._action("&Undo", self.undo, S.Undo, icon=_history_icon(False))
        self.act_redo = self._action("&Redo", self.redo, None, icon=_history_icon(True))
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
        self.recent_menu.setToolTipsVisible(True)   # the full path of each
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
                            ("joint", "Joint frames")):
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
        # Render times are for developers: shown with SNAPFRAME_DEBUG, else in a tooltip.
        self.status_render.setVisible(self._debug)

    def show_message(self, text: str, timeout: int = 8000) -> None:
        """A message in the status bar (core wording, API names left out)."""
        self.statusBar().showMessage(user_message(text), timeout)

    def _on_rendered(self, seconds: float) -> None:
        text = f"render {seconds * 1000:.0f} ms"
        if self._debug:
            self.status_render.setText(text)
        self.status_diag.setToolTip(f"Last 3D frame: {text[7:]}")

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

    def add_session(self, session: DocumentSession) -> _Tab | None:
        """Show ``session`` in a new tab (its tree follows); None, with the reason in the
        status bar and :attr:`last_error`, when its 3D view cannot be built: then
        nothing of it is left behind."""
        tab: _Tab | None = None
        try:
            tab = _Tab(session, self.look, self.tabs)   # (cleans up after itself if it fails)
            for name, action in self.act_layers.items():
                tab.viewport.mirror.set_visible(name, action.isChecked())
            tab.viewport.mirror.set_visible("frame graphs", self.act_teaching.isChecked())
            # drawn by its first paint, fitted at its final size (see Viewport.resizeEvent)
            tab.viewport.set_view("iso", render=False)
        except Exception as exc:
            _log.exception("the 3D view of %s failed", session.document.path)
            if tab is not None:
                try:
                    tab.viewport.close_view()
                finally:
                    tab._discard()
            name = Path(session.document.path).name or "the document"
            self.last_error = f"{name} cannot be shown: its 3D view failed " \
                              f"({type(exc).__name__}: {exc})"
            self.statusBar().showMessage(self.last_error)
            return None
        tree = SceneTree(session, self._context_actions, self._trees)
        self._trees.addWidget(tree)
        self._tree_of[id(session)] = tree
        session.refused.connect(lambda why: self.show_message(f"Not done: {why}"))
        session.stackChanged.connect(self._on_stack_changed)
        session.diagnosticsChanged.connect(lambda _e: self._update_status())
        tab.viewport.rendered.connect(self._on_rendered)
        index = self.tabs.addTab(tab, session.title)
        self._center.setCurrentWidget(self.tabs)
        self.tabs.setCurrentIndex(index)
        self._refresh_tab_labels()
        self.scene_dock.raise_()   # the document's tree, not the library, after an open
        return tab

    def _tab_of(self, document) -> int:
        """Index of the tab showing ``document`` (or a document of the same file), -1."""
        path = _resolved(document.path) if document.path else None
        for i in range(self.tabs.count()):
            other = self.tabs.widget(i).session.document
            if other is document or (path and other.path and _resolved(other.path) == path):
                return i
        return -1

    def open(self, path: str | Path) -> DocumentSession | None:
        """Open a file in a new tab (or switch to it if open); errors show in the
        diagnostics panel with whatever could be loaded.

        One document per file: a file that an open document includes opens as that
        included file's document (edits there show in every document including it)."""
        path = str(Path(path).resolve())
        self.last_error = ""
        for i in range(self.tabs.count()):
            document = self.tabs.widget(i).session.document
            if document.path and _resolved(document.path) == path:
                self.tabs.setCurrentIndex(i)
                return self.tabs.widget(i).session
        document = self.included_files.find(path)
        if document is None:
            for other in self.included_files.documents():
                try:
                    document = other.open_included_file(path)
                except ValueError:
                    document = None
                if document is not None:
                    break
        if document is not None:
            session = DocumentSession(document, self)
        else:
            QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.WaitCursor)
            try:
                session = DocumentSession.open(path, parent=self)
                self.included_files.add(session.document)
            finally:
                QtWidgets.QApplication.restoreOverrideCursor()
        with gc_paused():   # the tab's tree items and drawings: long-lived too
            tab = self.add_session(session)
        if tab is None:
            self._forget_if_unused(session.document)
            session.deleteLater()
            return None
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
        instance here); the element ``key`` names is selected there."""
        session = self.session
        if session is None:
            return
        parent = session.document
        try:
            document = parent.open_include(key)
        except ValueError as exc:
            self.show_message(str(exc))
            return
        index = self._tab_of(document)
        if index >= 0:
            self.tabs.setCurrentIndex(index)
        elif self.add_session(DocumentSession(document, self)) is None:
            return
        inner = _key_inside(parent, key, document)
        if inner and document.element(inner) is not None:
            document.live.selection.select(inner)

    def close_tab(self, index: int) -> bool:
        tab = self.tabs.widget(index)
        if not isinstance(tab, _Tab):
            return True
        discarded = self._confirm_discard([tab.session])
        if discarded is None:
            return False
        document = tab.session.document
        if discarded:
            self._revert(document)
        tree = self._tree_of.pop(id(tab.session), None)
        if tree is not None:
            self._trees.removeWidget(tree)
            tree.deleteLater()
        self.tabs.removeTab(index)
        tab.viewport.close_view()
        tab.deleteLater()
        self._forget_if_unused(document)
        if self.tabs.count() == 0:
            self._center.setCurrentWidget(self._empty)
            self._on_tab(-1)
        self._refresh_tab_labels()
        return True

    def _users_of(self, document) -> list:
        """The other open documents that include ``document``'s file."""
        root = document.root
        if root is None:
            return []
        return [d for d in self.included_files.documents()
                if d is not document and d.reaches(root)]

    def _revert(self, document) -> None:
        """Unsaved edits the user discarded: a file other documents include is read
        again, so they show it as it is on disk (its undo history goes too)."""
        if not self._users_of(document):
            return
        try:
            document.reload()
        except ValueError as exc:
            self.show_message(f"Could not discard the changes: {exc}", 12000)
            return
        self.show_message(f"Changes to {Path(document.path).name} discarded")

    def _forget_if_unused(self, document) -> None:
        if self._tab_of(document) < 0 and not self._users_of(document):
            self.included_files.forget(document)

    def _on_tab(self, _index: int) -> None:
        session = self.session
        tree = self._tree_of.get(id(session)) if session is not None else None
        if tree is not None:
            self._trees.setCurrentWidget(tree)
        for panel in (self.inspector, self.diagnostics, self.history, self.frame_graph):
            panel.set_session(session)
        self.library.set_session(session)
        # the projection is the tab's own: the toggle shows this tab's
        tab = self.current
        blocked = self.act_ortho.blockSignals(True)
        self.act_ortho.setChecked(tab is not None and tab.orthographic)
        self.act_ortho.blockSignals(blocked)
        self._update_actions()
        self._update_status()
        self.sessionChanged.emit(session)

    def _on_stack_changed(self, _event) -> None:
        self._on_stack(None)

    def _on_stack(self, _session: DocumentSession | None) -> None:
        """Tab titles (the * of unsaved changes) and the Undo/Redo actions."""
        self._refresh_tab_labels()
        self._update_actions()

    def _refresh_tab_labels(self) -> None:
        """Tab titles (with the folder where two files share a name) and tooltips (the
        path, which a Save As changes)."""
        sessions = self.sessions()
        labels = _file_labels([s.document.path for s in sessions])
        for i, (session, label) in enumerate(zip(sessions, labels)):
            star = "" if session.document.commands.is_clean else " *"
            tip = session.document.path or "not saved yet"
            # (after every edit of a drag: set only what changed, a tab bar relayout is not free)
            if self.tabs.tabText(i) != label + star:
                self.tabs.setTabText(i, label + star)
            if self.tabs.tabToolTip(i) != tip:
                self.tabs.setTabToolTip(i, tip)

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
        index = self.tabs.currentIndex()
        title = f"{self.tabs.tabText(index)} — Snapframe" if session is not None else "Snapframe"
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
        """Esc: close an open list, else give up the text typed in a field (the field's
        value shows again), else select nothing."""
        popup = QtWidgets.QApplication.activePopupWidget()
        if popup is not None:
            popup.hide()
            return
        widget = QtWidgets.QApplication.focusWidget()
        while widget is not None and not hasattr(widget, "cancel_edit"):
            widget = widget.parentWidget()
        if widget is not None and widget.is_edited():
            widget.cancel_edit()
            return
        if self.session is not None:
            self.session.selection.clear()

    def delete_selected(self) -> None:
        """Delete the selected elements: one undo step named after what was deleted; what
        cannot be deleted (inside an included file...) is left, and said why."""
        session = self.session
        if session is None or not session.selection.keys:
            return
        from snapframe.core.model.edits import EditRefused, RemoveNode
        doc = session.document
        deleted: list[str] = []
        refused: list[tuple[str, str]] = []
        with doc.commands.macro("Delete") as macro:
            for key in list(session.selection.keys):
                node = doc.element(key)
                if node is None:
                    continue   # went with an element deleted before it
                try:
                    doc.commands.push(RemoveNode(doc, node))
                except EditRefused as exc:
                    refused.append((key, str(exc)))
                    continue
                deleted.append(key)
            macro.label = f"Delete {', '.join(deleted)}"
        if refused:
            names = ", ".join(k for k, _ in refused)
            why = user_message(refused[0][1])
            done = f"Deleted {', '.join(deleted)}. " if deleted else ""
            self.show_message(f"{done}Not deleted: {names} ({why})", 12000)

    def rename_selected(self) -> None:
        session = self.session
        key = session.selection.active if session is not None else None
        node = session.document.element(key) if key is not None else None
        if node is None:
            return
        if is_inside_include(node, session.document.root):
            self.show_message(self._inside_include_note(node))
            return
        old = getattr(node, "effective_name", node.name)
        name, ok = QtWidgets.QInputDialog.getText(self, "Rename", f"New name for {old}:",
                                                  text=old)
        if ok and name and name != old:
            from snapframe.core.model.edits import Rename
            session.make(Rename, node, name)

    @staticmethod
    def _inside_include_note(node) -> str:
        where = Path(node.source.file).name if node.source.file else "an included file"
        return f"{node.name or node.kind} belongs to {where}: open that file " \
               "(Open included file) to rename or delete it"

    def _context_actions(self, key: str) -> list[QtGui.QAction | None]:
        from snapframe.core.model import Include
        session = self.session
        doc = session.document if session is not None else None
        node = doc.element(key) if doc is not None else None
        out: list[QtGui.QAction | None] = []
        focus = QtGui.QAction("Focus in viewport", self)
        focus.triggered.connect(lambda: self.current.viewport.focus(key))
        out.append(focus)
        copy = QtGui.QAction("Copy name", self)
        copy.triggered.connect(lambda: QtWidgets.QApplication.clipboard().setText(key))
        out.append(copy)
        inside = node is not None and is_inside_include(node, doc.root)
        opens = inside or (isinstance(node, Include) and node.model is not None
                           and not node.merge)
        if opens:
            inc = QtGui.QAction("Open included file", self)
            inc.triggered.connect(lambda: self.open_include(key))
            out.append(inc)
        out.append(None)
        if inside:
            # Shared by every instance of that file: edited there, not here.
            note = QtGui.QAction(self._inside_include_note(node).replace(
                " (Open included file)", ""), self)
            note.setEnabled(False)
            out.append(note)
        else:
            out += [self.act_rename, self.act_delete]
        return out

    # -- view ---------------------------------------------------------------------
    def fit(self) -> None:
        if self.current is not None:
            self.current.viewport.fit()

    def set_view(self, name: str) -> None:
        if self.current is not None:
            self.current.viewport.set_view(name)

    def set_orthographic(self, on: bool) -> None:
        tab = self.current
        if tab is not None:
            tab.orthographic = on
            tab.viewport.set_orthographic(on)

    def set_layer(self, name: str, on: bool) -> None:
        for i in range(self.tabs.count()):
            self.tabs.widget(i).viewport.set_layer_visible(name, on)

    def set_teaching(self, on: bool) -> None:
        """Teaching mode: every frame's triad, the frame graph panel, and the chain of
        the selected frame explained.  Turned off, the triads shown are the user's own
        choice again."""
        names = ("link", "joint", "frame", "mate_connector", "model")
        restore_height = None
        if on:
            if self._teaching_layers is None:
                self._teaching_layers = {n: self.act_layers[n].isChecked() for n in names}
                self._teaching_dock_height = self.diagnostics_dock.height()
            for name in names:
                self.act_layers[name].setChecked(True)
        elif self._teaching_layers is not None:
            for name, shown in self._teaching_layers.items():
                self.act_layers[name].setChecked(shown)
            self._teaching_layers = None
            restore_height = getattr(self, "_teaching_dock_height", None)
        self.set_layer("frame graphs", on)   # arrows between the triads
        if on:
            self.diagnostics_dock.show()
            self.bottom_tabs.setCurrentWidget(self.frame_graph)
            self.resizeDocks([self.diagnostics_dock], [300], QtCore.Qt.Orientation.Vertical)
        else:
            if self.bottom_tabs.currentWidget() is self.frame_graph:
                self.bottom_tabs.setCurrentWidget(self.diagnostics)
            if restore_height:   # the graph needed the room, the user's layout did not
                self.resizeDocks([self.diagnostics_dock], [restore_height],
                                 QtCore.Qt.Orientation.Vertical)

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
        if not path:
            return False
        if Path(path).suffix.lower() != suffix:
            # A name typed without the extension gets the chosen format's: the file must
            # be one the editor can open again (and find the format of) by its name.
            path += suffix
            if Path(path).exists():
                answer = QtWidgets.QMessageBox.question(
                    self, "Replace file", f"{Path(path).name} already exists. Replace it?",
                    QtWidgets.QMessageBox.StandardButton.Yes
                    | QtWidgets.QMessageBox.StandardButton.Cancel,
                    QtWidgets.QMessageBox.StandardButton.Cancel)
                if answer != QtWidgets.QMessageBox.StandardButton.Yes:
                    return False
        return self._save(session, path, fmt, flatten)

    def _save(self, session: DocumentSession, path, fmt: str, flatten: bool | None) -> bool:
        if path is None:
            suffix = next((s for _l, f, s, _fl in SAVE_FORMATS if f == fmt), ".sdf")
            return self.save_as_dialog(fmt, suffix, flatten)
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

    def _confirm_discard(self, sessions: list[DocumentSession]
                         ) -> list[DocumentSession] | None:
        """Ask about each session with unsaved changes: save, discard or cancel.  Returns
        the sessions whose changes the user discarded, None if they cancelled."""
        modified = [s for s in sessions if s.modified]
        discarded: list[DocumentSession] = []
        for session in modified:
            name = Path(session.document.path).name or "Untitled"
            answer = QtWidgets.QMessageBox.question(
                self, "Unsaved changes", f"{name} has unsaved changes. Save them?",
                QtWidgets.QMessageBox.StandardButton.Save
                | QtWidgets.QMessageBox.StandardButton.Discard
                | QtWidgets.QMessageBox.StandardButton.Cancel,
                QtWidgets.QMessageBox.StandardButton.Save)
            if answer == QtWidgets.QMessageBox.StandardButton.Cancel:
                return None
            if answer == QtWidgets.QMessageBox.StandardButton.Save:
                doc = session.document
                flatten = False if (doc.format or "sdformat") == "sdformat" else None
                if not self._save(session, doc.path or None, doc.format or "sdformat", flatten):
                    return None
            else:
                discarded.append(session)
        return discarded

    def _add_recent(self, path: str) -> None:
        recent = [p for p in self.settings.value("recent", [], list) or [] if p != path]
        self.settings.setValue("recent", [path, *recent][:MAX_RECENT])
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        paths = self.settings.value("recent", [], list) or []
        for path, label in zip(paths, _file_labels(paths)):
            action = self.recent_menu.addAction(label)
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
        if self._confirm_discard(self.sessions()) is None:
            event.ignore()
            return
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        for i in range(self.tabs.count()):
            self.tabs.widget(i).viewport.close_view()
        self.library.shutdown()   # its thumbnail worker process and scan thread
        # closed views must not be drawn again (a theme change would)
        from .theme import theme_signals
        try:
            theme_signals().changed.disconnect(self._follow_palette)
        except (RuntimeError, TypeError):
            pass
        self._closed = True
        event.accept()

    def changeEvent(self, event: QtCore.QEvent) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() in (QtCore.QEvent.Type.ApplicationPaletteChange,
                            QtCore.QEvent.Type.PaletteChange):
            self._follow_palette()

    def _follow_palette(self, *_args) -> None:
        """The theme changed (the system's colour scheme): the 3D views follow."""
        from .theme import palette_is_dark
        if getattr(self, "_closed", False):
            return
        # (drawn in the palette's colours when the theme has no undo/redo icons)
        self.act_undo.setIcon(_history_icon(False))
        self.act_redo.setIcon(_history_icon(True))
        dark = palette_is_dark(QtWidgets.QApplication.palette())
        if dark == (self.look.background == Look.dark().background):
            return
        self.look = Look.dark() if dark else Look()
        for i in range(self.tabs.count()):
            viewport = self.tabs.widget(i).viewport
            set_look = getattr(viewport, "set_look", None)   # (the viewport's own method)
            if set_look is not None:
                set_look(self.look)

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
