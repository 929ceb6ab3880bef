"""The model library panel: models in the user's folders and on the model search paths.

Folders are scanned in a worker thread (:mod:`.library_scan`); models show as tiles with
a rendered thumbnail (:mod:`.thumbnails`, drawn by a child process and cached on disk),
their ``model.config`` name and description.  Tiles drag out as ``text/uri-list`` with
the file URL (for a model directory, the SDFormat file its model.config names; the
directory itself is in the :data:`LIBRARY_MIME` payload), so the assembly view can take a
drop and place the part; a double-click asks the window to open the file
(:attr:`LibraryPanel.openRequested`), the *Place in assembly* menu entry to place it in the
open document (:attr:`LibraryPanel.placeRequested`).

The list of user folders is the panel's state that the main window keeps in QSettings:
:meth:`LibraryPanel.folders`, :meth:`LibraryPanel.set_folders`,
:attr:`LibraryPanel.foldersChanged`.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from html import escape
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.formats import registry
from snapframe.core.loading import ENV_SEARCH_VARIABLES, LoadContext

from ..icons import kind_icon, status_icon
from ..session import DocumentSession
from ._qt import on_keys, refilter
from .library_scan import LibraryEntry, scan_folders
from .thumbnails import Thumbnailer

__all__ = ["LibraryModel", "LibraryPanel", "ENTRY_ROLE", "LIBRARY_MIME"]

ENTRY_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
#: Drag payload besides the URL: JSON ``{"path", "file", "name", "kind"}`` of the entry.
LIBRARY_MIME = "application/x-snapframe-library-item"
THUMBNAIL_SIZE = 128
ICON_SIZE = 96


@lru_cache(maxsize=4)
def _placeholder(state: str) -> QtGui.QIcon:
    """A faint model glyph while a thumbnail renders; with a warning badge if it failed."""
    s = THUMBNAIL_SIZE
    pix = QtGui.QPixmap(s, s)
    pix.fill(QtCore.Qt.GlobalColor.transparent)
    p = QtGui.QPainter(pix)
    p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    p.setOpacity(0.35)
    kind_icon("model", s // 2).paint(p, QtCore.QRect(s // 4, s // 4, s // 2, s // 2))
    if state == "failed":
        p.setOpacity(1.0)
        status_icon("warning", 16).paint(p, QtCore.QRect(s - 40, s - 40, 32, 32))
    p.end()
    return QtGui.QIcon(pix)


class LibraryModel(QtCore.QAbstractListModel):
    """The library's entries as a list model with thumbnails and drag support."""

    def __init__(self, thumbnailer: Thumbnailer, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.thumbnailer = thumbnailer
        self.search_paths: list[Path] = []
        self._entries: list[LibraryEntry] = []
        self._rows: dict[str, int] = {}            # str(entry.file) -> row
        self._icons: dict[str, QtGui.QIcon] = {}   # str(entry.file) -> thumbnail
        self._failed: dict[str, str] = {}
        self._asked: set[str] = set()
        thumbnailer.ready.connect(self._on_ready)
        thumbnailer.failed.connect(self._on_failed)

    def set_entries(self, entries: list[LibraryEntry]) -> None:
        self.beginResetModel()
        old = {str(e.file): e.mtime_ns for e in self._entries}
        self._entries = list(entries)
        self._rows = {str(e.file): i for i, e in enumerate(self._entries) if e.file is not None}
        for key, row in self._rows.items():
            if old.get(key, self._entries[row].mtime_ns) != self._entries[row].mtime_ns:
                # edited since its thumbnail was made: draw it again
                self._icons.pop(key, None)
                self._failed.pop(key, None)
                self._asked.discard(key)
        self.endResetModel()

    def entries(self) -> list[LibraryEntry]:
        return list(self._entries)

    def entry(self, row: int) -> LibraryEntry:
        return self._entries[row]

    def thumbnail(self, entry: LibraryEntry) -> QtGui.QIcon | None:
        """The rendered thumbnail of ``entry``, None until it has arrived."""
        return self._icons.get(str(entry.file)) if entry.file is not None else None

    # -- Qt model API -------------------------------------------------------------
    def rowCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._entries)

    def data(self, index: QtCore.QModelIndex, role: int = QtCore.Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        e = self._entries[index.row()]
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            return _breakable(e.name)
        if role == QtCore.Qt.ItemDataRole.DecorationRole:
            return self._decoration(e)
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return _tooltip(e, self._failed.get(str(e.file)))
        if role == ENTRY_ROLE:
            return e
        return None

    def flags(self, index: QtCore.QModelIndex) -> QtCore.Qt.ItemFlag:
        if not index.isValid():
            return QtCore.Qt.ItemFlag.NoItemFlags
        flags = QtCore.Qt.ItemFlag.ItemIsEnabled | QtCore.Qt.ItemFlag.ItemIsSelectable
        if self._entries[index.row()].file is not None:
            flags |= QtCore.Qt.ItemFlag.ItemIsDragEnabled
        return flags

    def supportedDragActions(self) -> QtCore.Qt.DropAction:
        return QtCore.Qt.DropAction.CopyAction

    def mimeTypes(self) -> list[str]:
        return ["text/uri-list", LIBRARY_MIME]

    def mimeData(self, indexes: list[QtCore.QModelIndex]) -> QtCore.QMimeData:
        """``text/uri-list`` with the file URL of each entry, and :data:`LIBRARY_MIME`."""
        entries = [self._entries[i.row()] for i in indexes if i.isValid()]
        entries = [e for e in dict.fromkeys(entries) if e.file is not None]
        mime = QtCore.QMimeData()
        mime.setUrls([QtCore.QUrl.fromLocalFile(str(e.file)) for e in entries])
        payload = [{"path": str(e.path), "file": str(e.file), "name": e.name, "kind": e.kind}
                   for e in entries]
        mime.setData(LIBRARY_MIME, QtCore.QByteArray(json.dumps(payload).encode()))
        return mime

    # -- thumbnails ---------------------------------------------------------------
    def _decoration(self, e: LibraryEntry) -> QtGui.QIcon:
        if e.file is None:
            return _placeholder("failed")
        key = str(e.file)
        icon = self._icons.get(key)
        if icon is not None:
            return icon
        if key in self._failed:
            return _placeholder("failed")
        if key not in self._asked:
            # asked for when first shown: a large library renders what is on screen first
            self._asked.add(key)
            image = self.thumbnailer.request(e.file, e.mtime_ns, self.search_paths)
            if image is not None:
                icon = self._icons[key] = QtGui.QIcon(QtGui.QPixmap.fromImage(image))
                return icon
        return _placeholder("pending")

    def request_all(self) -> None:
        """Ask for every thumbnail now (not only those shown)."""
        for row in range(len(self._entries)):
            self._decoration(self._entries[row])

    def pending(self) -> int:
        """Thumbnails asked for and not arrived (or failed) yet."""
        return len(self._asked - self._icons.keys() - self._failed.keys())

    def _on_ready(self, path: str, image: QtGui.QImage) -> None:
        self._icons[path] = QtGui.QIcon(QtGui.QPixmap.fromImage(image))
        self._changed(path)

    def _on_failed(self, path: str, reason: str) -> None:
        self._failed[path] = reason
        self._changed(path)

    def _changed(self, path: str) -> None:
        row = self._rows.get(path)
        if row is not None:
            index = self.index(row, 0)
            self.dataChanged.emit(index, index, [QtCore.Qt.ItemDataRole.DecorationRole,
                                                 QtCore.Qt.ItemDataRole.ToolTipRole])


def _breakable(name: str) -> str:
    """``name`` with invisible break points after ``_ . -``, so that a file name such as
    ``flange_pneumatic.sdf`` wraps onto two lines under its tile instead of being cut."""
    for mark in "_.-":
        name = name.replace(mark, mark + "\u200b")
    return name


def _tooltip(e: LibraryEntry, failure: str | None) -> str:
    lines = [f"<b>{escape(e.name)}</b>"]
    if e.description:
        lines.append(escape(e.description))
    lines.append(f"<small>{escape(str(e.path))}</small>")
    if e.file is None:
        lines.append("<i>model.config names no SDFormat file that can be read</i>")
    if failure:
        lines.append(f"<i>no thumbnail: {escape(failure)}</i>")
    return "<br>".join(lines)


class _Filter(QtCore.QSortFilterProxyModel):
    """Entries whose name or description contains the text, in the chosen location."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.text = ""
        self.location: str | None = None

    def set_text(self, text: str) -> None:
        refilter(self, lambda: setattr(self, "text", text.strip().casefold()))

    def set_location(self, location: str | None) -> None:
        refilter(self, lambda: setattr(self, "location", location))

    def filterAcceptsRow(self, row: int, parent: QtCore.QModelIndex) -> bool:
        e: LibraryEntry = self.sourceModel().entry(row)
        if self.location is not None and str(e.location) != self.location:
            return False
        return not self.text or self.text in f"{e.name}\n{e.description}".casefold()


class _TileDelegate(QtWidgets.QStyledItemDelegate):
    """Tiles of one fixed size.  The default delegate measures each item from its data,
    which would ask for every thumbnail when the view lays out; with a fixed size only
    the tiles that are painted ask, so a large library renders what is on screen first."""

    def __init__(self, size: QtCore.QSize, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.size = size

    def sizeHint(self, option, index) -> QtCore.QSize:  # noqa: N802 (Qt's name)
        return self.size


class LibraryPanel(QtWidgets.QWidget):
    """Model library (see the module docstring).

    Signals: ``openRequested(str)`` (a file to open, on double-click or Enter),
    ``placeRequested(str)`` (a file to place in the open assembly), ``foldersChanged(list)``
    (the user's folders, to persist), ``scanned()`` (the list is up to date with the
    folders).
    """

    openRequested = QtCore.Signal(str)
    placeRequested = QtCore.Signal(str)
    foldersChanged = QtCore.Signal(list)
    scanned = QtCore.Signal()

    def __init__(self, session: DocumentSession | None, parent: QtWidgets.QWidget | None = None,
                 *, cache_dir: Path | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._folders: list[str] = []
        self._scanning = False
        # Scans are plain file-system reads in a thread that touches no Qt object; the UI
        # thread polls for the result, so a panel deleted mid-scan is never called back.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="library-scan")
        self._future: Future | None = None
        self._poll = QtCore.QTimer(self)
        self._poll.setInterval(25)
        self._poll.timeout.connect(self._check_scan)
        self.thumbnailer = Thumbnailer(cache_dir, THUMBNAIL_SIZE, self)
        self.model = LibraryModel(self.thumbnailer, self)
        self.proxy = _Filter(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortCaseSensitivity(QtCore.Qt.CaseSensitivity.CaseInsensitive)

        self.search = QtWidgets.QLineEdit(self)
        self.search.setPlaceholderText("Search models")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.proxy.set_text)
        self.search.textChanged.connect(lambda *_: self._update_status())
        self.location = QtWidgets.QComboBox(self)
        self.location.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.location.setMinimumContentsLength(12)
        self.location.currentIndexChanged.connect(self._on_location)
        self.add_button = QtWidgets.QToolButton(self)
        self.add_button.setText("Add folder…")
        self.add_button.setToolTip("Add a folder of models to the library")
        self.add_button.clicked.connect(self._choose_folder)
        self.remove_button = QtWidgets.QToolButton(self)
        self.remove_button.setText("Remove")
        self.remove_button.setToolTip("Remove the chosen folder from the library "
                                      "(its files are not touched)")
        self.remove_button.clicked.connect(self._remove_current)

        self.view = QtWidgets.QListView(self)
        self.view.setModel(self.proxy)
        self.view.setViewMode(QtWidgets.QListView.ViewMode.IconMode)
        self.view.setIconSize(QtCore.QSize(ICON_SIZE, ICON_SIZE))
        # room for two lines of name under each tile
        line = self.view.fontMetrics().lineSpacing()
        grid = QtCore.QSize(ICON_SIZE + 36, ICON_SIZE + 2 * line + 14)
        self.view.setGridSize(grid)
        self.view.setItemDelegate(_TileDelegate(grid - QtCore.QSize(6, 6), self.view))
        self.view.setUniformItemSizes(True)
        self.view.setResizeMode(QtWidgets.QListView.ResizeMode.Adjust)
        self.view.setMovement(QtWidgets.QListView.Movement.Static)
        self.view.setWordWrap(True)
        self.view.setTextElideMode(QtCore.Qt.TextElideMode.ElideMiddle)
        self.view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setDragEnabled(True)
        self.view.setDragDropMode(QtWidgets.QAbstractItemView.DragDropMode.DragOnly)
        self.view.setDefaultDropAction(QtCore.Qt.DropAction.CopyAction)
        self.view.doubleClicked.connect(self._open_index)
        open_action = QtGui.QAction("Open", self.view)
        open_action.setShortcut(QtGui.QKeySequence(QtCore.Qt.Key.Key_Return))  # for the menu
        open_action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
        open_action.triggered.connect(self._open_current)
        self.place_action = QtGui.QAction("Place in assembly", self.view)
        self.place_action.setToolTip("Place this model in the open document (or drag it "
                                     "onto the view)")
        self.place_action.triggered.connect(self._place_current)
        self.place_action.setEnabled(False)   # until a document is open
        copy_action = QtGui.QAction("Copy path", self.view)
        copy_action.setShortcut(QtGui.QKeySequence.StandardKey.Copy)
        copy_action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
        copy_action.triggered.connect(self._copy_path)
        on_keys(self.view, {QtGui.QKeySequence.StandardKey.Copy: self._copy_path,
                            QtCore.Qt.Key.Key_Return: self._open_current,
                            QtCore.Qt.Key.Key_Enter: self._open_current})
        self.view.addActions([open_action, self.place_action, copy_action])
        self.view.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.ActionsContextMenu)

        self.status = QtWidgets.QLabel(self)
        self.status.setEnabled(False)  # the disabled palette: a quiet caption
        self.status.setWordWrap(True)
        self.thumbnailer.ready.connect(lambda *_: self._update_status())
        self.thumbnailer.failed.connect(lambda *_: self._update_status())

        top = QtWidgets.QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(2)
        top.addWidget(self.location, 1)
        top.addWidget(self.add_button)
        top.addWidget(self.remove_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.search)
        layout.addWidget(self._build_pages(), 1)
        layout.addWidget(self.status)
        self._fill_locations()
        self.rescan()

    def _build_pages(self) -> QtWidgets.QStackedWidget:
        # An empty library says what it looks for and offers the one useful action.
        self.empty = QtWidgets.QWidget(self)
        self.empty_text = QtWidgets.QLabel(self.empty)
        self.empty_text.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.empty_text.setWordWrap(True)
        self.empty_text.setEnabled(False)
        add = QtWidgets.QPushButton("Add folder…", self.empty)
        add.clicked.connect(self._choose_folder)
        box = QtWidgets.QVBoxLayout(self.empty)
        box.addStretch(1)
        box.addWidget(self.empty_text)
        box.addWidget(add, 0, QtCore.Qt.AlignmentFlag.AlignHCenter)
        box.addStretch(1)
        self.pages = QtWidgets.QStackedWidget(self)
        self.pages.addWidget(self.view)
        self.pages.addWidget(self.empty)
        return self.pages

    # -- public API ---------------------------------------------------------------
    def set_session(self, session: DocumentSession | None) -> None:
        """The library is the same for every document; *Place in assembly* places into
        ``session``'s."""
        self.session = session
        self.place_action.setEnabled(session is not None)

    def folders(self) -> list[str]:
        """The folders the user added (the main window keeps them in QSettings)."""
        return list(self._folders)

    def set_folders(self, folders: list[str]) -> None:
        """Replace the user's folders (duplicates dropped, order kept) and rescan."""
        clean = list(dict.fromkeys(str(Path(f).expanduser()) for f in folders if f))
        if clean == self._folders:
            return
        self._folders = clean
        self._fill_locations()
        self.foldersChanged.emit(self.folders())
        self.rescan()

    def add_folder(self, folder: str | Path) -> None:
        self.set_folders([*self._folders, str(folder)])

    def remove_folder(self, folder: str | Path) -> None:
        self.set_folders([f for f in self._folders if f != str(folder)])

    def search_paths(self) -> list[Path]:
        """The model search paths: the preferences' (:meth:`set_search_paths`), then the
        environment's (SDF_PATH, GZ_SIM_RESOURCE_PATH...)."""
        extra = list(getattr(self, "_extra_search_paths", []))
        return list(dict.fromkeys(LoadContext(search_paths=extra).all_search_paths()))

    def set_search_paths(self, paths: list[Path]) -> None:
        """The model search paths of the preferences, listed before the environment's."""
        paths = [Path(p) for p in paths]
        if paths == getattr(self, "_extra_search_paths", []):
            return
        self._extra_search_paths = paths
        self._fill_locations()
        self.rescan()

    def roots(self) -> list[Path]:
        """Every folder the library lists: the user's first, then the search paths."""
        return list(dict.fromkeys([*(Path(f) for f in self._folders), *self.search_paths()]))

    def entries(self) -> list[LibraryEntry]:
        """What the library lists now (unfiltered)."""
        return self.model.entries()

    @property
    def scanning(self) -> bool:
        return self._scanning

    def rescan(self) -> None:
        """Look through the folders again (in a worker thread; :attr:`scanned` when done)."""
        self._scanning = True
        self.thumbnailer.cancel()
        roots = self.roots()
        self.model.search_paths = roots
        self._update_status()
        # a scan still running finishes unseen: only the newest result is taken
        self._future = self._executor.submit(scan_folders, roots, registry.extensions("read"))
        self._poll.start()

    def _check_scan(self) -> None:
        future = self._future
        if future is None or not future.done():
            return
        self._poll.stop()
        self._future = None
        try:
            entries = future.result()
        except Exception:  # an unreadable folder must not take the application down
            entries = []
        self._on_scanned(entries)

    def shutdown(self) -> None:
        """Stop rendering thumbnails and scanning (the window is closing)."""
        self.thumbnailer.shutdown()
        self._poll.stop()
        self._future = None
        self._executor.shutdown(wait=False, cancel_futures=True)

    # -- slots --------------------------------------------------------------------
    def _on_scanned(self, entries: list[LibraryEntry]) -> None:
        self._scanning = False
        self.model.set_entries(entries)
        self._update_status()
        self.scanned.emit()

    def _fill_locations(self) -> None:
        current = self.location.currentData()
        self.location.blockSignals(True)
        self.location.clear()
        self.location.addItem("All locations", None)
        env = {str(Path(p)): var for var in ENV_SEARCH_VARIABLES
               for p in os.environ.get(var, "").split(os.pathsep) if p}
        for folder in self._folders:
            self.location.addItem(kind_icon("include"), _short(folder), folder)
            self.location.setItemData(self.location.count() - 1, folder,
                                      QtCore.Qt.ItemDataRole.ToolTipRole)
        for path in self.search_paths():
            if str(path) in self._folders:
                continue
            label = f"{_short(str(path))}  ({env.get(str(path), 'search path')})"
            self.location.addItem(label, str(path))
            self.location.setItemData(self.location.count() - 1,
                                      f"{path}\nfrom {env.get(str(path), 'the search path')}",
                                      QtCore.Qt.ItemDataRole.ToolTipRole)
        found = self.location.findData(current)
        self.location.setCurrentIndex(max(found, 0))
        self.location.blockSignals(False)
        self._on_location()

    def _on_location(self, *_args) -> None:
        location = self.location.currentData()
        self.proxy.set_location(location)
        self.remove_button.setEnabled(location in self._folders)
        self._update_status()

    def _choose_folder(self) -> None:
        folder = QtWidgets.QFileDialog.getExistingDirectory(
            self, "Add a folder of models", self._folders[-1] if self._folders else "")
        if folder:
            self.add_folder(folder)
            self.location.setCurrentIndex(max(self.location.findData(str(Path(folder))), 0))

    def _remove_current(self) -> None:
        location = self.location.currentData()
        if location in self._folders:
            self.remove_folder(location)

    def _entry_at(self, index: QtCore.QModelIndex) -> LibraryEntry | None:
        return index.data(ENTRY_ROLE) if index.isValid() else None

    def _open_index(self, index: QtCore.QModelIndex) -> None:
        entry = self._entry_at(index)
        if entry is not None and entry.file is not None:
            self.openRequested.emit(str(entry.file))

    def _open_current(self) -> None:
        self._open_index(self.view.currentIndex())

    def _place_current(self) -> None:
        entry = self._entry_at(self.view.currentIndex())
        if entry is not None and entry.file is not None:
            self.placeRequested.emit(str(entry.file))

    def _copy_path(self) -> None:
        entry = self._entry_at(self.view.currentIndex())
        if entry is not None:
            QtWidgets.QApplication.clipboard().setText(str(entry.file or entry.path))

    def _update_status(self) -> None:
        n = len(self.model.entries())
        self.pages.setCurrentWidget(self.view if n or self._scanning else self.empty)
        if self._scanning:
            self.status.setText("Looking for models…")
            return
        if n == 0:
            kinds = ", ".join(registry.extensions("read"))
            first = "No models found in these folders." if self.roots() else \
                "No model folders yet."
            self.empty_text.setText(f"{first}\n\nA library folder holds model directories "
                                    f"(with a model.config) or files ({kinds}).")
            self.status.hide()
            return
        self.status.show()
        shown = self.proxy.rowCount()
        text = f"{n} model{'s' if n != 1 else ''}"
        if shown != n:
            text = f"{shown} of {text} shown"
        pending = self.model.pending()
        if pending:
            text += f" · rendering {pending} thumbnail{'s' if pending != 1 else ''}…"
        self.status.setText(text)


def _short(folder: str) -> str:
    """``~/models/robots`` rather than ``/home/name/models/robots``."""
    home = str(Path.home())
    return "~" + folder[len(home):] if folder.startswith(home + os.sep) else folder
