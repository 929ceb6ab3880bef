"""The main window: document tabs with a 3D viewport each, and docked panels.

Panels (scene tree, inspector, diagnostics, history, library, frame graph; joints, mass
and SNAP while they are on screen) follow the current tab's document.  Every edit is a core command, so Undo/Redo, the
history panel and the unsaved-changes prompt work the same for all of them.  Docks,
geometry and recent files are kept between runs (QSettings).

Assembling gestures run one at a time in the current tab, each in a dock of its own that
goes away when it ends: *placing a part* (a model file dropped on the viewport or the scene
tree, Insert ▸ Part from file, or the library's Place) shows a ghost of the part and takes
its target frame from a click in the view or the tree; *adding a joint* (Insert ▸ Joint)
takes its parent and child the same way.  Esc gives a gesture up.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from typing import Callable

from snapframe.core.diagnostics import Code, Severity
from snapframe.core.formats import registry
from snapframe.core.gcpause import gc_paused
from snapframe.core.live.keys import is_inside_include, split_part
from snapframe.core.model.document import IncludedFiles
from snapframe.core.model.names import SEP

from .icons import kind_icon
from .scene_tree import KEY_ROLE, SceneTree
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
    ("mirabuf for Synthesis (*.mira)", "mirabuf", ".mira", None),
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
        from .viewport.render_view import RenderView
        for widget in self.findChildren(RenderView):
            try:
                widget.close_view()
            except Exception:   # already broken: it goes away with the tab anyway
                pass
        self.hide()
        self.setParent(None)
        self.deleteLater()


def includes_file(node, path: str | Path) -> bool:
    """Whether ``node`` (an include, a model) is the file ``path`` or includes it, however
    deep: placing such a part in the document at ``path`` would make the file include
    itself (a cycle no reader can load)."""
    from snapframe.core.model import Include
    from snapframe.core.model.nodes import walk
    target = _resolved(path)
    seen: set[int] = set()
    stack = [node]
    while stack:
        top = stack.pop()
        if id(top) in seen:
            continue
        seen.add(id(top))
        for n in walk(top):
            if isinstance(n, Include):
                if n.resolved_path and _resolved(n.resolved_path) == target:
                    return True
                if n.model is not None:
                    stack.append(n.model)
    return False


def _local_files(mime: QtCore.QMimeData) -> list[str]:
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile()]


def _covered(key: str, keys: list[str]) -> bool:
    """Whether ``key`` is one of ``keys`` or an element inside one of them."""
    head = split_part(key)[0]
    return any(key == k or head == k or head.startswith(k + SEP) for k in keys)


class _DropCatcher(QtCore.QObject):
    """Model files dropped on a document's viewport or scene tree (an event filter on the
    widgets that receive the drop): the window places them in that document, or opens
    them when Ctrl is held.  ``key_at(widget, point)`` names the element under the drop."""

    def __init__(self, window: "MainWindow", key_at: Callable[[QtWidgets.QWidget,
                                                                QtCore.QPoint], str | None],
                 parent: QtCore.QObject) -> None:
        super().__init__(parent)
        self.window = window
        self.key_at = key_at

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt naming)
        Type = QtCore.QEvent.Type
        t = event.type()
        if t not in (Type.DragEnter, Type.DragMove, Type.Drop, Type.DragLeave):
            return False
        if t == Type.DragLeave:
            self.window.statusBar().clearMessage()
            return False
        files = _local_files(event.mimeData())
        if not files:
            return False
        ctrl = bool(event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier)
        if t == Type.DragEnter:
            self.window.statusBar().showMessage(self.window.drop_hint(files, ctrl))
        event.setDropAction(QtCore.Qt.DropAction.CopyAction)
        event.accept()
        if t == Type.Drop:
            key = self.key_at(obj, event.position().toPoint())
            self.window.statusBar().clearMessage()
            # after the drop returns: the drag source must not wait on a placement panel
            QtCore.QTimer.singleShot(0, lambda: self.window.drop_files(files, key, ctrl))
        return True


class _GestureDock(QtWidgets.QDockWidget):
    """The dock of a gesture (placing a part, adding a joint): ``closed`` when the user
    closes it with its title bar's button."""

    closed = QtCore.Signal()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:  # noqa: N802
        super().closeEvent(event)
        self.closed.emit()


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
        #: The gesture under way in the current tab (one at a time) and its dock.
        self.placement = None          # a PlacementPanel while a part is being placed
        self.joint_adder = None        # an AddJointPanel while a joint is being added
        self._gesture_dock: _GestureDock | None = None
        self._gesture_targets: set[str] = set()
        self._mesh_job = None          # the placed part's meshes being integrated (a Job)
        self._pick_token = 0           # which of our picks a view's callback belongs to
        self._pick_view = None         # the viewport our pick is armed in
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
        # autosave, reload on change, preferences (after the theme hook: they may switch it)
        from .desktop.services import install as install_desktop
        self.desktop = install_desktop(self)

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
        self._build_assembling_panels()
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
        # Six decimals in three fields a line need 300 px, the titles of the tabs (the
        # inspector's and its neighbours') their own widths: narrower, they are cut.  A
        # restored layout cannot make it narrower than that either.
        self.inspector_dock.setMinimumWidth(self._right_dock_width())
        self._default_dock_sizes()
        if hasattr(self.inspector, "openIncludeRequested"):
            self.inspector.openIncludeRequested.connect(self.open_include)
        if hasattr(self.library, "openRequested"):
            self.library.openRequested.connect(self.open_in_background)
        if hasattr(self.library, "placeRequested"):
            self.library.placeRequested.connect(lambda path: self.start_placement(path))
        if hasattr(self.library, "foldersChanged"):
            self.library.foldersChanged.connect(
                lambda: self.settings.setValue("library/folders", self.library.folders()))

    #: The right docks' width in a new layout (no saved one, or one that does not apply).
    RIGHT_DOCK_WIDTH = 340

    def _right_dock_width(self) -> int:
        """The narrowest the right docks are readable at: the inspector's rows of three
        fields (300 px) and every title of their tabs in full ("Inspector History Joints
        Mass SNAP", not "Inspec… Hist… Joi…"), measured in this window's style and font."""
        docks = [d for d in (self.inspector_dock, self.history_dock,
                             *getattr(self, "assembling_docks", ())) if d is not None]
        bar = QtWidgets.QTabBar(self)
        bar.hide()
        try:
            for dock in docks:
                bar.addTab(dock.windowTitle())
            tabs = sum(bar.tabSizeHint(i).width() for i in range(bar.count()))
        finally:
            bar.setParent(None)
            bar.deleteLater()
        return max(300, tabs + 8)

    def _default_dock_sizes(self) -> None:
        """The docks' sizes in a new layout: the scene tree and the right docks side by
        side, the bottom strip compact."""
        right = max(self.RIGHT_DOCK_WIDTH, self.inspector_dock.minimumWidth())
        self.resizeDocks([self.scene_dock, self.inspector_dock], [290, right],
                         QtCore.Qt.Orientation.Horizontal)
        # Compact at first: a filter bar and a few rows ("No problems found" needs no more).
        self.resizeDocks([self.diagnostics_dock], [120], QtCore.Qt.Orientation.Vertical)

    def _build_assembling_panels(self) -> None:
        """Joints, mass and SNAP as tabs beside the inspector and the history: each is
        looked at in turn, and the bottom strip is kept short for the diagnostics."""
        from .assembling import JointSlidersPanel, MassTablePanel, SnapPanel
        R = QtCore.Qt.DockWidgetArea.RightDockWidgetArea
        self.joints = JointSlidersPanel(None, self)
        self.mass = MassTablePanel(None, self)
        self.snap = SnapPanel(None, self)
        self.joints_dock = self._dock("Joints", self.joints, R, "joints")
        self.mass_dock = self._dock("Mass", self.mass, R, "mass")
        self.snap_dock = self._dock("SNAP", self.snap, R, "snap")
        previous = self.history_dock
        for dock in (self.joints_dock, self.mass_dock, self.snap_dock):
            self.tabifyDockWidget(previous, dock)
            previous = dock
        self.assembling_docks = (self.joints_dock, self.mass_dock, self.snap_dock)
        #: Which of them are on screen (a tabbed dock behind another tab is not, though
        #: Qt still calls it visible): what their visibilityChanged said last.
        self._on_screen = {dock.objectName(): False for dock in self.assembling_docks}
        for dock in self.assembling_docks:
            dock.visibilityChanged.connect(
                lambda shown, name=dock.objectName(): self._note_on_screen(name, shown))

    def _note_on_screen(self, name: str, shown: bool) -> None:
        self._on_screen[name] = shown
        self._bind_assembling_panels()

    def _bind_assembling_panels(self) -> None:
        """The joints, mass and SNAP panels show the current document while they are on
        screen; hidden (closed, or behind another tab) they let go of it, so a document
        of thousands of joints opens without building rows nobody looks at."""
        if getattr(self, "_closed", False):
            return
        session = self.session
        for dock in self.assembling_docks:
            panel = dock.widget()
            wanted = session if self._on_screen[dock.objectName()] else None
            if panel.session is not wanted:
                panel.set_session(wanted)
            set_viewport = getattr(panel, "set_viewport", None)   # (picks in the view)
            if set_viewport is not None:
                tab = self.current
                set_viewport(tab.viewport if wanted is not None and tab is not None else None)

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
        self.act_open_folder = self._action(
            "Open &Folder…", self.open_folder_dialog,
            tip="Open a folder that is one document (a FloorPlan JSON-LD folder)")
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
        self.act_place_part = self._action(
            "&Part from file…", self.place_part_dialog, QtGui.QKeySequence("Ctrl+Shift+I"),
            tip="Place a model file in the assembly (or drop it on the view)",
            icon=kind_icon("include"))
        self.act_add_joint = self._action(
            "&Joint…", self.start_add_joint, QtGui.QKeySequence("Ctrl+Shift+J"),
            tip="Add a joint between two links picked in the view or the tree",
            icon=kind_icon("joint"))
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
        file.addAction(self.act_open_folder)
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
        insert = bar.addMenu("&Insert")
        insert.addAction(self.act_place_part)
        insert.addAction(self.act_add_joint)
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
                     self.history_dock, self.library_dock, *self.assembling_docks):
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
        # long work (opening a large file) runs in the background: its progress and Cancel
        from .desktop.jobs import JobRunner
        from .desktop.progress import ProgressWidget
        self.jobs = JobRunner(self)
        self.progress = ProgressWidget(self.jobs, self)
        self.statusBar().addPermanentWidget(self.progress)
        # a job whose failure nothing of its own dealt with: said, not only logged
        self.jobs.failed.connect(lambda _job, text: self.show_message(text, 15000))

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

    def add_session(self, session: DocumentSession, current: bool = True) -> _Tab | None:
        """Show ``session`` in a new tab (its tree follows), made the current tab unless
        ``current`` is False; None, with the reason in the status bar and
        :attr:`last_error`, when its 3D view cannot be built: then nothing of it is left
        behind."""
        from .floorplan import show_door_start_states   # a floor plan's doors: start states
        show_door_start_states(session)
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
        self._catch_drops(tab.viewport, tree)
        session.refused.connect(lambda why: self.show_message(f"Not done: {why}"))
        session.stackChanged.connect(self._on_stack_changed)
        session.diagnosticsChanged.connect(lambda _e: self._update_status())
        tab.viewport.rendered.connect(self._on_rendered)
        index = self.tabs.addTab(tab, session.title)
        self._center.setCurrentWidget(self.tabs)
        if current:
            self.tabs.setCurrentIndex(index)
        self._refresh_tab_labels()
        if current:
            self.scene_dock.raise_()   # the document's tree, not the library, after an open
        self.desktop.track(session)   # autosave, reload on change, triad size
        return tab

    def _tab_of(self, document) -> int:
        """Index of the tab showing ``document`` (or a document of the same file), -1."""
        path = _resolved(document.path) if document.path else None
        for i in range(self.tabs.count()):
            other = self.tabs.widget(i).session.document
            if other is document or (path and other.path and _resolved(other.path) == path):
                return i
        return -1

    def open(self, path: str | Path, current: bool = True) -> DocumentSession | None:
        """Open a file in a new tab (or switch to it if open; with ``current`` False the
        current tab stays); errors show in the diagnostics panel with whatever could be
        loaded.

        One document per file: a file that an open document includes opens as that
        included file's document (edits there show in every document including it)."""
        path = str(Path(path).resolve())
        self.last_error = ""
        for i in range(self.tabs.count()):
            document = self.tabs.widget(i).session.document
            if document.path and _resolved(document.path) == path:
                if current:
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
                session = DocumentSession.open(path, search_paths=self.desktop.search_paths(),
                                               parent=self)
                self.included_files.add(session.document)
            finally:
                QtWidgets.QApplication.restoreOverrideCursor()
        return self._show_opened(session, path, current)

    def open_in_background(self, path: str | Path):
        """Open a file as :meth:`open` does, reading it on a worker thread: the window
        keeps answering, the status bar shows the progress, and its Cancel leaves every
        open document as it was.  Returns the :class:`~.desktop.jobs.Job` (None when the
        file is open already, or an open document includes it: then it is shown at once)."""
        path = str(Path(path).resolve())
        for job in self.jobs.jobs:
            if getattr(job, "path", None) == path and not job.cancel_requested:
                return job                  # being opened already (and not cancelled)

        def known() -> bool:
            """Open already, or the file of an include of an open document (one document
            per file): nothing to read."""
            return any(s.document.path and _resolved(s.document.path) == path
                       for s in self.sessions()) or \
                self.included_files.find(path) is not None or \
                any(d.open_included_file(path) is not None
                    for d in self.included_files.documents())

        if known():
            self.open(path)
            return None
        from snapframe.core.live.background import load_ready

        def opened(document) -> None:
            if getattr(self, "_closed", False):
                return
            # landing under a drag or a gesture, its tab is added behind: switching tabs
            # would hide the view (or end the placement) the user is working in
            current = not self.desktop.watcher.busy()
            if not current:
                self.show_message(f"{Path(path).name} is open in a tab of its own (not "
                                  "switched to during the drag or gesture under way)")
            if known():
                self.open(path, current)    # opened meanwhile: that one is shown
                return
            self.last_error = ""
            session = DocumentSession(document, self)
            self.included_files.add(document)
            self._show_opened(session, path, current)

        def failed(exc: BaseException) -> None:
            self.last_error = f"{Path(path).name} could not be opened ({type(exc).__name__}: {exc})"
            _log.error("opening %s failed", path, exc_info=exc)
            self.statusBar().showMessage(self.last_error)

        joints = self._on_screen.get("joints", False)   # (its list is built at once)
        job = self.jobs.submit(f"Opening {Path(path).name}", load_ready, path, joints=joints,
                               context=self.desktop.load_context(),
                               on_result=opened, on_error=failed)
        job.path = path
        job.finished.connect(self._on_open_ended)
        return job

    def _on_open_ended(self, job) -> None:
        """A background open that ended without a document: say so when it was the
        user's Cancel (a failure says why itself)."""
        from .desktop.jobs import CANCELLED
        if job.state == CANCELLED and not getattr(self, "_closed", False):
            name = Path(getattr(job, "path", "") or "").name or "the file"
            self.statusBar().showMessage(f"Cancelled: {name} was not opened", 8000)

    def _show_opened(self, session: DocumentSession, path: str,
                     current: bool = True) -> DocumentSession | None:
        """The tab of a session just opened, or None (see :meth:`add_session`)."""
        with gc_paused():   # the tab's tree items and drawings: long-lived too
            tab = self.add_session(session, current)
        if tab is None:
            self._forget_if_unused(session.document)
            session.deleteLater()
            return None
        self._add_recent(path)
        errors = session.document.diagnostics.errors
        if errors:
            if current:      # (the panel lists the current tab's)
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
        gesture = self.placement or self.joint_adder
        if gesture is not None and gesture.session is tab.session:
            self.end_gesture()
        for job in self.jobs.jobs:       # its background work (SNAP) has nowhere to land
            if getattr(job, "session", None) is tab.session:
                job.cancel()
        document = tab.session.document
        if discarded:
            self._revert(document)
        self.desktop.untrack(tab.session)
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
        gesture = self.placement or self.joint_adder
        if gesture is not None and gesture.session is not session:
            self.end_gesture()          # it was the other document's
        tree = self._tree_of.get(id(session)) if session is not None else None
        if tree is not None:
            self._trees.setCurrentWidget(tree)
        for panel in (self.inspector, self.diagnostics, self.history, self.frame_graph):
            panel.set_session(session)
        self._bind_assembling_panels()
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
        for a in (self.act_save, self.act_close, self.act_fit, self.act_delete, self.act_rename,
                  self.act_place_part, self.act_add_joint):
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
        value shows again), else give up the pick or the gesture under way, else select
        nothing."""
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
        view = self._pick_view
        if view is not None and view.picking:
            view.end_pick()               # the gesture hears it (its on_cancel)
            return
        if self.placement is not None or self.joint_adder is not None:
            self.end_gesture()
            return
        if self.session is not None:
            self.session.selection.clear()

    def delete_selected(self) -> QtWidgets.QDialog | None:
        """Delete the selected elements as one undo step named after them.  When others
        refer to them (a joint naming a link, a pose relative to a frame), a dialog lists
        those first and removes them together (or re-expresses them to stay where they
        are); that dialog is returned.  What cannot be deleted (inside an included
        file...) is left, and said why."""
        session = self.session
        if session is None or not session.selection.keys:
            return None
        from snapframe.core.model.references import dependents
        doc = session.document
        keys = [k for k in session.selection.keys if doc.element(k) is not None]
        refused = [(k, self._inside_include_note(doc.element(k))) for k in keys
                   if is_inside_include(doc.element(k), doc.root)]
        keys = [k for k in keys if k not in {r for r, _ in refused}]
        # references from outside what is deleted: the user sees them before anything goes
        found = {k: [d for d in dependents(doc, k) if not _covered(d.key, keys)]
                 for k in keys}
        found = {k: deps for k, deps in found.items() if deps}
        if found:
            if refused:
                self._say_refused([], refused)
            if len(keys) == 1:
                from .assembling import confirm_remove
                dialog = confirm_remove(self, session, keys[0])
                dialog.removed.connect(lambda removed: self.show_message(
                    f"Deleted {', '.join(k or '(top)' for k in removed)}"))
                return dialog
            return self._confirm_remove_many(session, keys, found)
        self._remove(session, keys, refused)
        return None

    def _remove(self, session: DocumentSession, keys: list[str],
                refused: list[tuple[str, str]], with_dependents: bool = False) -> None:
        """Remove ``keys`` in one undo step (``with_dependents``: with what refers to
        them, see RemoveWithDependents)."""
        from snapframe.core.model.edits import EditRefused, RemoveNode
        from snapframe.core.model.references import RemoveWithDependents
        doc = session.document
        deleted: list[str] = []
        refused = list(refused)
        with doc.commands.macro("Delete") as macro:
            for key in keys:
                node = doc.element(key)
                if node is None:
                    continue   # went with an element deleted before it
                try:
                    doc.commands.push(RemoveWithDependents(doc, node) if with_dependents
                                      else RemoveNode(doc, node))
                except EditRefused as exc:
                    refused.append((key, str(exc)))
                    continue
                deleted.append(key)
            macro.label = f"Delete {', '.join(deleted)}"
        self._say_refused(deleted, refused)

    def _say_refused(self, deleted: list[str], refused: list[tuple[str, str]]) -> None:
        if refused:
            names = ", ".join(k or "(top)" for k, _ in refused)
            why = user_message(refused[0][1])
            done = f"Deleted {', '.join(deleted)}. " if deleted else ""
            self.show_message(f"{done}Not deleted: {names} ({why})", 12000)

    def _confirm_remove_many(self, session: DocumentSession, keys: list[str],
                             found: dict) -> QtWidgets.QMessageBox:
        """Several elements, some referred to from elsewhere: say by what, and remove them
        with it (one undo step) if the user agrees.  Not blocking (``open``)."""
        lines = [f"{d.key or '(top)'}: {d.why}" for deps in found.values() for d in deps]
        box = QtWidgets.QMessageBox(QtWidgets.QMessageBox.Icon.Question, "Delete",
                                    f"Delete {', '.join(keys)}?", parent=self)
        box.setInformativeText(
            f"{len(lines)} reference{'s' if len(lines) != 1 else ''} to them from other "
            "elements: those that cannot exist without them are deleted too, the others "
            "re-expressed to stay where they are. One undo step restores everything.")
        box.setDetailedText("\n".join(lines))
        remove = box.addButton("Delete with dependents",
                               QtWidgets.QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QtWidgets.QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QtWidgets.QMessageBox.StandardButton.Cancel)
        box.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        remove.clicked.connect(lambda: self._remove(session, keys, [], with_dependents=True))
        box.open()
        return box

    def rename_selected(self) -> QtWidgets.QDialog | None:
        """Rename the active element in a dialog that checks the name as it is typed
        (every reference follows, one undo step); returns the dialog."""
        session = self.session
        key = session.selection.active if session is not None else None
        node = session.document.element(key) if key is not None else None
        if node is None:
            return None
        if is_inside_include(node, session.document.root):
            self.show_message(self._inside_include_note(node))
            return None
        from .assembling import rename_element
        dialog = rename_element(self, session, key)
        dialog.renamed.connect(lambda old, new: self.show_message(
            f"Renamed {old or '(top)'} to {new or '(top)'}"))
        return dialog

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
        from .floorplan import door_actions   # (a floor plan's entryways without a door)
        doors = door_actions(self, session, key)
        if doors:
            out += [None, *doors]
        return out

    # -- assembling gestures ------------------------------------------------------------
    def _catch_drops(self, viewport: Viewport, tree: SceneTree) -> None:
        """Model files dropped on this tab's viewport or scene tree are placed into its
        document (the element under the drop, if a frame, is the first target)."""
        from .assembling.placement import FRAME_KINDS

        def in_view(widget: QtWidgets.QWidget, point: QtCore.QPoint) -> str | None:
            if viewport.interactor is None:
                return None
            local = viewport.widget.mapFromGlobal(widget.mapToGlobal(point))
            return viewport.element_at(local.x(), local.y(), FRAME_KINDS)

        def in_tree(_widget: QtWidgets.QWidget, point: QtCore.QPoint) -> str | None:
            return tree.view.indexAt(point).data(KEY_ROLE)

        for widget, key_at in ((viewport, in_view), (viewport.widget, in_view),
                               (tree.view.viewport(), in_tree)):
            widget.setAcceptDrops(True)
            widget.installEventFilter(_DropCatcher(self, key_at, widget))

    def _placement_refusal(self, session: DocumentSession | None, path: str) -> str:
        """Why ``path`` cannot be placed in ``session``'s document ("" when it can)."""
        if session is None:
            return "open an assembly first"
        document = session.document
        name = Path(path).name
        if document.root is None:
            return f"{Path(document.path).name} has no model to place {name} in"
        if document.format == "openplx":
            return "an OpenPLX assembly is put together with mate connectors and mates, " \
                   "not by placing files"
        if registry.for_path(path, capability="read") is None or not Path(path).is_file():
            return f"{name} is not a model file Snapframe reads"
        if document.path and _resolved(path) == _resolved(document.path):
            return f"{name} cannot be placed in itself"
        return ""

    def drop_hint(self, files: list[str], ctrl: bool) -> str:
        """What dropping ``files`` on the current document does (for the status bar)."""
        session = self.session
        if ctrl or len(files) != 1 or self._placement_refusal(session, files[0]):
            return f"Drop to open {', '.join(Path(f).name for f in files)}"
        return f"Drop to place {Path(files[0]).name} in {session.title.rstrip(' *')} " \
               "(Ctrl: open it instead)"

    def drop_files(self, files: list[str], target: str | None = None,
                   open_only: bool = False) -> None:
        """Files dropped on the current document's view or tree: one model file is placed
        into the document (on ``target`` if that is a frame), unless ``open_only`` (Ctrl
        held); anything else is opened."""
        session = self.session
        said = ""
        if not open_only and len(files) == 1:
            reason = self._placement_refusal(session, files[0])
            if not reason:
                self.start_placement(files[0], target)
                return
            # a model file that cannot be placed here (the document itself, an OpenPLX
            # assembly): say why it is opened instead (opening says what else is wrong)
            if session is not None and Path(files[0]).is_file() and \
                    registry.for_path(files[0], capability="read") is not None:
                said = f"{reason}: {Path(files[0]).name} is opened instead"
        for path in files:
            self.open_in_background(path)
        if said:
            self.show_message(said)

    def place_part_dialog(self) -> None:
        """Insert ▸ Part from file: choose a model file and place it."""
        if self.session is None:
            return
        exts = " ".join(f"*{e}" for e in registry.extensions("read"))
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Place a part", self.settings.value("last_dir", str(Path.cwd())),
            f"Models ({exts});;All files (*)")
        if path:
            self.settings.setValue("last_dir", str(Path(path).parent))
            self.start_placement(path)

    def start_placement(self, path: str | Path, target: str | None = None):
        """Start placing the part file ``path`` in the current document: a *Place part*
        dock (:class:`~snapframe.editor.assembling.PlacementPanel`), a ghost of the part
        in the view, and the target frame taken from a click in the view or a selection
        in the tree (``target``, if a frame of the document, is the first one).  Returns
        the panel, or None (the reason in the status bar)."""
        from .assembling import PlacementPanel, drop_targets
        session = self.session
        path = str(path)
        reason = self._placement_refusal(session, path)
        if reason:
            self.show_message(f"Cannot place {Path(path).name}: {reason}")
            return None
        self.end_gesture()
        panel = PlacementPanel(session, path)
        document = session.document
        if document.path and panel.part.root is not None and \
                includes_file(panel.part.root, document.path):
            panel.deleteLater()
            self.show_message(f"Cannot place {Path(path).name}: it includes "
                              f"{Path(document.path).name}, which would then include itself")
            return None
        self._gesture_targets = {t.key for t in drop_targets(session)}
        if target is not None and target in self._gesture_targets:
            panel.set_target(target)
        self.placement = panel
        panel.previewChanged.connect(self._show_ghost)
        panel.placed.connect(self._on_placed)
        panel.cancelled.connect(self.end_gesture)
        session.selectionChanged.connect(self._on_selection_in_gesture)
        session.structureChanged.connect(self._on_structure_in_placement)
        session.posesChanged.connect(self._on_poses_in_placement)
        self._show_gesture_dock("Place part", "place_part", panel)
        self._show_ghost(panel.placement())
        self._pick_target()
        # the part's meshes are integrated on a worker while the user aims: placed, its
        # automatic inertia then finds them in the mesh cache
        from snapframe.core.live.background import mesh_inertia_copies, warm_mesh_inertia
        links = mesh_inertia_copies(panel.part)
        if links:   # (end_gesture cancels it: a part given up needs no inertia)
            self._mesh_job = self.jobs.submit(f"Reading the meshes of {Path(path).name}",
                                              warm_mesh_inertia, links)
        return panel

    def _show_ghost(self, placement) -> None:
        tab = self.current
        if tab is not None and self.placement is not None:
            tab.viewport.show_ghost(placement)

    def _on_structure_in_placement(self, event=None) -> None:
        """Frames came or went while a part is being placed (an undo, a redo): offer the
        frames there are now, and forget a target that is gone."""
        from snapframe.core.model import Include
        from .assembling import drop_targets
        panel = self.placement
        if panel is None:
            return
        document = panel.session.document
        part = _resolved(panel.part_path)

        def new_part(key: str) -> bool:
            # an include of the part being placed (the Place that ends the gesture, which
            # selects it next): not a target
            node = document.element(key.split(SEP)[0])
            return isinstance(node, Include) and bool(node.resolved_path) and \
                _resolved(node.resolved_path) == part

        before = self._gesture_targets
        self._gesture_targets = {t.key for t in drop_targets(panel.session)
                                 if t.key in before or not new_part(t.key)}
        panel.refresh_targets()
        target = panel.target
        renamed = getattr(event, "renamed", None) or {}
        if renamed.get(target) in self._gesture_targets:
            target = renamed[target]                     # (F2 on the target)
        elif target not in self._gesture_targets:
            target = ""                                  # (gone: the root frame)
        panel.set_target(target)    # (checks the name again, shows the ghost again)

    def _on_poses_in_placement(self, _event=None) -> None:
        """The target may have moved (an undo of a move): the ghost follows it."""
        if self.placement is not None:
            self._show_ghost(self.placement.placement())

    def _pick_target(self) -> None:
        from .assembling.placement import FRAME_KINDS
        self._begin_pick(FRAME_KINDS, self._on_target_picked,
                         "Click the frame to place the part on (or choose it in the tree)",
                         self.end_gesture)

    def _on_target_picked(self, key: str) -> None:
        if self.placement is not None:
            self.placement.set_target(key)
            self._pick_target()          # another click chooses another frame

    def _on_placed(self, key: str) -> None:
        target = self.placement.target if self.placement is not None else ""
        self._mesh_job = None     # placed: its inertia still wants the meshes integrated
        self.end_gesture()
        self.show_message(f"Placed {key}" + (f" on {target}" if target else "")
                          + " (Undo removes it)")

    def start_add_joint(self):
        """Insert ▸ Joint: an *Add joint* dock
        (:class:`~snapframe.editor.assembling.AddJointPanel`) whose parent and child are
        clicked in the view or chosen in the tree.  Returns the panel (None without a
        document)."""
        from .assembling import AddJointPanel
        session = self.session
        if session is None:
            return None
        self.end_gesture()
        panel = AddJointPanel(None)
        self.joint_adder = panel
        panel.pickRequested.connect(self._pick_joint_end)
        panel.added.connect(self._on_joint_added)
        panel.closed.connect(self.end_gesture)
        session.selectionChanged.connect(self._on_selection_in_gesture)
        self._show_gesture_dock("Add joint", "add_joint", panel)
        panel.set_session(session)       # asks for the parent: the view starts picking
        return panel

    def _pick_joint_end(self, end: str) -> None:
        if self.joint_adder is None:
            return
        if not end:
            self._end_pick()
            return
        self._begin_pick({"link"}, self._on_joint_end_picked,
                         f"Click the joint's {end} link (or choose it in the tree)",
                         lambda: self.joint_adder is not None and
                         self.joint_adder.set_active_end(""))

    def _on_joint_end_picked(self, key: str) -> None:
        panel = self.joint_adder
        if panel is not None and not panel.take_key(key):
            self._pick_joint_end(panel.active_end)   # not an end: keep waiting

    def _on_joint_added(self, key: str) -> None:
        self.end_gesture()
        self.show_message(f"Added joint {key} (Undo removes it)")

    def _on_selection_in_gesture(self, _event=None) -> None:
        """A selection made in the tree (the view does not select while picking) chooses
        the target of a placement or the end of a joint being picked."""
        session = self.session
        key = session.selection.active if session is not None else None
        if not key:
            return
        if self.placement is not None and key in self._gesture_targets:
            self.placement.set_target(key)
        elif self.joint_adder is not None and self.joint_adder.active_end:
            self.joint_adder.take_key(key)

    def _show_gesture_dock(self, title: str, name: str, panel: QtWidgets.QWidget) -> None:
        """The gesture's panel in a dock of its own, under the inspector's tabs (which it
        shrinks to a strip while it lasts: the panel wants the height, and a sixth tab
        would squeeze every tab's title)."""
        dock = _GestureDock(title, self)
        dock.setObjectName(name)
        dock.setWidget(panel)
        dock.closed.connect(self.end_gesture)
        self._gesture_dock = dock
        # (a dock split from a tabbed one would join its tabs: added as a row of the area)
        self.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, dock,
                           QtCore.Qt.Orientation.Vertical)
        group = next((d for d in (self.inspector_dock, *self.tabifiedDockWidgets(
            self.inspector_dock)) if d.isVisible() and not d.isFloating()), None)
        if group is not None:
            total = group.height() + dock.height()
            wanted = min(panel.sizeHint().height() + 40, total - 120)
            self.resizeDocks([group, dock], [total - wanted, wanted],
                             QtCore.Qt.Orientation.Vertical)
        dock.show()
        dock.raise_()

    def end_gesture(self) -> None:
        """Give up the placement or the joint under way (nothing is changed), or close its
        panel after it is done: the pick, the ghost and the dock go away."""
        panel = self.placement or self.joint_adder
        placing = self.placement is not None
        dock = self._gesture_dock
        mesh_job, self._mesh_job = self._mesh_job, None
        if mesh_job is not None:
            mesh_job.cancel()       # the part was given up: its meshes are not needed
        if panel is None and dock is None:
            return
        self.placement = self.joint_adder = None
        self._gesture_dock = None
        self._gesture_targets = set()
        self._end_pick()
        if panel is not None and panel.session is not None:
            connected = [(panel.session.selectionChanged, self._on_selection_in_gesture)]
            if placing:
                connected += [(panel.session.structureChanged, self._on_structure_in_placement),
                              (panel.session.posesChanged, self._on_poses_in_placement)]
            for signal, slot in connected:
                try:
                    signal.disconnect(slot)
                except (RuntimeError, TypeError):
                    pass
        for i in range(self.tabs.count()):
            self.tabs.widget(i).viewport.hide_ghost()
        if dock is not None:
            focus = QtWidgets.QApplication.focusWidget()
            if focus is None or dock.isAncestorOf(focus):
                # the keyboard focus must not go with the panel: the shortcuts need it
                tab = self.current
                (tab.viewport.widget if tab is not None else self).setFocus()
            dock.closed.disconnect(self.end_gesture)
            self.removeDockWidget(dock)
            dock.deleteLater()
        if self.inspector_dock.isVisible():
            self.inspector_dock.raise_()

    def _begin_pick(self, kinds, on_pick: Callable[[str], None], hint: str,
                    on_cancel: Callable[[], object]) -> None:
        """Arm the current view for one pick of a gesture.  A pick armed here later
        replaces it without calling its ``on_cancel`` (only the user's Esc does)."""
        tab = self.current
        if tab is None:
            return
        self._pick_token += 1
        token = self._pick_token
        self._pick_view = tab.viewport

        def picked(key: str) -> None:
            if token == self._pick_token:
                self._pick_view = None   # the view's pick is over
            on_pick(key)

        def cancelled() -> None:
            if token == self._pick_token:
                self._pick_view = None
                on_cancel()

        tab.viewport.begin_pick(set(kinds), picked, hint, cancelled)

    def _end_pick(self) -> None:
        """Stop the view's pick armed by :meth:`_begin_pick`, quietly."""
        self._pick_token += 1
        view, self._pick_view = self._pick_view, None
        if view is not None and view.interactor is not None and view.picking:
            view.end_pick()

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
        from .floorplan import folder_markers   # a folder's marker file opens the folder
        exts = " ".join([f"*{e}" for e in registry.extensions("read")] + folder_markers())
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Open", self.settings.value("last_dir", str(Path.cwd())),
            f"Models and worlds ({exts});;All files (*)")
        if path:
            self.settings.setValue("last_dir", str(Path(path).parent))
            self.open_in_background(path)

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

    def open_folder_dialog(self) -> None:
        """File ▸ Open Folder: a folder that is one document (a FloorPlan JSON-LD folder)."""
        from .floorplan import open_folder_dialog
        open_folder_dialog(self)

    def _save(self, session: DocumentSession, path, fmt: str, flatten: bool | None) -> bool:
        descriptor = registry.get(fmt)
        if descriptor is None or not descriptor.can_write:
            # read-only formats (a floor plan, mirabuf) are saved as SDFormat worlds
            fmt, flatten, path = "sdformat", False, None
        if path is None:
            suffix = next((s for _l, f, s, _fl in SAVE_FORMATS if f == fmt), ".sdf")
            return self.save_as_dialog(fmt, suffix, flatten)
        if not self._may_overwrite(path):
            return False
        try:
            warnings = session.document.save(path, fmt, flatten=flatten)
        except (OSError, ValueError) as exc:
            QtWidgets.QMessageBox.critical(self, "Not saved", f"{path} was not saved:\n{exc}")
            return False
        self._on_stack(session)
        msg = f"Saved {Path(path).name}"
        # notes (mesh files written beside the output) are news, not losses
        notes = [w for w in warnings if w.severity < Severity.WARNING]
        warnings = [w for w in warnings if w not in notes]
        if notes:
            # (a note's first line sums it up: the files it lists are not status news)
            msg += " · " + "; ".join(n.message.splitlines()[0] for n in notes[:2])
        if warnings:
            # what other tools cannot load (kept for Snapframe) is said apart from losses
            others = [w for w in warnings if w.code == Code.NOT_PORTABLE]
            losses = [w for w in warnings if w not in others]
            parts = []
            if losses:
                parts.append(f"{Path(path).name} was saved, but the format cannot keep "
                             "everything:\n\n" + "\n".join(f"• {w.message}"
                                                            for w in losses[:20]))
            if others:
                parts.append(("Other tools cannot load all of it" if losses else
                              f"{Path(path).name} was saved as it is, but other tools "
                              "cannot load all of it") + ":\n\n"
                             + "\n".join(f"• {w.message}" for w in others[:20]))
            QtWidgets.QMessageBox.warning(self, "Saved, with losses", "\n\n".join(parts))
            msg += f" ({len(warnings)} warning{'s' * (len(warnings) != 1)})"
        self.statusBar().showMessage(msg, 6000)
        self._add_recent(str(Path(path).resolve()))
        return True

    def _may_overwrite(self, path) -> bool:
        """Before a save over a file an open document was read from: when another
        program changed it since (a reload offered and ignored, say), ask whether to
        overwrite that change.  True: go ahead."""
        watcher = getattr(getattr(self, "desktop", None), "watcher", None)
        if watcher is None or not watcher.changed_on_disk(str(path)):
            return True
        box = QtWidgets.QMessageBox(
            QtWidgets.QMessageBox.Icon.Warning, "File changed on disk",
            f"{Path(path).name} was changed on disk since it was read. Saving overwrites "
            "that change with what the editor shows.", parent=self)
        box.setObjectName("overwriteChangedFile")
        overwrite = box.addButton("&Overwrite", QtWidgets.QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QtWidgets.QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QtWidgets.QMessageBox.StandardButton.Cancel)
        box.exec()
        if box.clickedButton() is overwrite:
            return True
        self.show_message(f"Not saved: {Path(path).name} changed on disk (Reload it to take "
                          "the change)")
        return False

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
            action.triggered.connect(lambda _=False, p=path: self.open_in_background(p))
        self.recent_menu.setEnabled(not self.recent_menu.isEmpty())

    # -- window -------------------------------------------------------------------
    def _restore(self) -> None:
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 880)
        if state is None or not self.restoreState(state):
            self._default_dock_sizes()
        folders = self.settings.value("library/folders", [], list) or []
        if folders and hasattr(self.library, "set_folders"):
            self.library.set_folders(folders)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:  # noqa: N802
        if self._confirm_discard(self.sessions()) is None:
            event.ignore()
            return
        self.end_gesture()   # its dock is not part of the layout to keep
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        for i in range(self.tabs.count()):
            self.tabs.widget(i).viewport.close_view()
        self.library.shutdown()   # its thumbnail worker process and scan thread
        self.jobs.shutdown()      # background jobs cancelled: none ends after the window
        self.desktop.shutdown()   # a clean exit: the recovery copies go
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

    def dragMoveEvent(self, event: QtGui.QDragMoveEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QtGui.QDropEvent) -> None:  # noqa: N802
        # read on a worker, as File ▸ Open does: a large file must not freeze the window
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.open_in_background(url.toLocalFile())
        event.acceptProposedAction()

    def about(self) -> None:
        QtWidgets.QMessageBox.about(
            self, "About Snapframe",
            "<h3>Snapframe</h3><p>An assembly editor for robots and mechanisms: SDFormat "
            "composition, automatic inertia, OpenPLX mate connectors with SNAP.</p>"
            "<p>Apache-2.0</p>")
