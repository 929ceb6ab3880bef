"""The diagnostics panel: the open document's findings as a filterable table.

Rows follow ``session.document.diagnostics`` (refreshed on ``diagnosticsChanged``, so an
edit that fixes a problem removes its row).  Clicking a row selects the element the
finding is about through the shared selection, so the scene tree and the viewport follow;
findings about a file as a whole (no key) are listed but select nothing.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.diagnostics import Diagnostic, Severity

from ..icons import status_icon
from ..session import DocumentSession
from ._binding import SessionBinding
from ._qt import on_keys, palette_color, refilter

__all__ = ["DiagnosticsModel", "DiagnosticsPanel", "DIAGNOSTIC_ROLE", "summary_text"]

DIAGNOSTIC_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
_SORT_ROLE = QtCore.Qt.ItemDataRole.UserRole + 2

_SEVERITY, _CODE, _MESSAGE, _LOCATION = range(4)
_HEADERS = ("", "Code", "Message", "Location")
_NOUNS = {Severity.ERROR: ("error", "errors"), Severity.WARNING: ("warning", "warnings"),
          Severity.INFO: ("message", "messages")}


def summary_text(counts: dict[Severity, int]) -> str:
    """``"2 errors, 1 warning"``; ``"No problems"`` when every count is zero."""
    parts = []
    for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO):
        n = counts.get(severity, 0)
        if n:
            parts.append(f"{n} {_NOUNS[severity][n != 1]}")
    return ", ".join(parts) or "No problems"


class DiagnosticsModel(QtCore.QAbstractTableModel):
    """Table of diagnostics: severity icon, code, message, ``file:line``."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._items: list[Diagnostic] = []
        self._base: Path | None = None

    def set_diagnostics(self, items: list[Diagnostic], base: Path | None = None) -> None:
        """Show ``items``; file names are shown relative to ``base`` (the document's folder)."""
        self.beginResetModel()
        self._items = list(items)
        self._base = base
        self.endResetModel()

    def diagnostic(self, row: int) -> Diagnostic:
        return self._items[row]

    def rowCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:
        return 0 if parent.isValid() else len(_HEADERS)

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation,
                   role: int = QtCore.Qt.ItemDataRole.DisplayRole):
        if orientation == QtCore.Qt.Orientation.Horizontal and \
                role == QtCore.Qt.ItemDataRole.DisplayRole:
            return _HEADERS[section]
        return None

    def location(self, d: Diagnostic) -> str:
        """``file:line``, the file relative to the document's folder when inside it."""
        if not d.file:
            return ""
        path = Path(d.file)
        shown = path.name
        if self._base is not None:
            try:
                shown = path.relative_to(self._base).as_posix()
            except ValueError:
                pass
        return f"{shown}:{d.line}" if d.line else shown

    def data(self, index: QtCore.QModelIndex, role: int = QtCore.Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        d = self._items[index.row()]
        col = index.column()
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            return ("", str(d.code), d.message, self.location(d))[col]
        if role == QtCore.Qt.ItemDataRole.DecorationRole and col == _SEVERITY:
            return status_icon(str(d.severity))
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return _tooltip(d)
        if role == DIAGNOSTIC_ROLE:
            return d
        if role == _SORT_ROLE:
            if col == _SEVERITY:
                return -int(d.severity)  # worst first
            if col == _LOCATION:  # by file, then by line number (not as text)
                return f"{d.file}\0{d.line:09d}"
            return str(d.code) if col == _CODE else d.message
        if role == QtCore.Qt.ItemDataRole.ForegroundRole and d.key is None and col == _MESSAGE:
            # about the file as a whole: nothing to select, say so quietly
            return palette_color(QtGui.QPalette.ColorGroup.Active,
                                 QtGui.QPalette.ColorRole.PlaceholderText)
        return None


def _tooltip(d: Diagnostic) -> str:
    lines = [f"<b>{d.severity}</b> {escape(str(d.code))}", escape(d.message)]
    if d.file:
        lines.append(escape(f"{d.file}:{d.line}" if d.line else d.file))
    if d.key is not None:
        lines.append(f"element: <code>{escape(d.key) or '(top)'}</code> (click to select)")
    else:
        lines.append("<i>about the file as a whole: no element to select</i>")
    return "<br>".join(lines)


class _Filter(QtCore.QSortFilterProxyModel):
    """Hides severities that are switched off and rows that do not contain the text."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.shown = {Severity.ERROR, Severity.WARNING, Severity.INFO}
        self.text = ""
        self.setSortRole(_SORT_ROLE)

    def set_shown(self, severity: Severity, on: bool) -> None:
        refilter(self, lambda: (self.shown.add if on else self.shown.discard)(severity))

    def set_text(self, text: str) -> None:
        refilter(self, lambda: setattr(self, "text", text.strip().casefold()))

    def filterAcceptsRow(self, row: int, parent: QtCore.QModelIndex) -> bool:
        d: Diagnostic = self.sourceModel().diagnostic(row)
        if d.severity not in self.shown:
            return False
        if not self.text:
            return True
        haystack = " ".join((str(d.code), d.message, d.file, d.element, d.key or ""))
        return self.text in haystack.casefold()


class DiagnosticsPanel(QtWidgets.QWidget):
    """Filterable table of the current document's diagnostics.

    Signals: ``activated(Diagnostic)`` when the user clicks a row (or presses Enter on it);
    ``summaryChanged(str)`` with :attr:`summary` for the status bar.
    """

    activated = QtCore.Signal(object)
    summaryChanged = QtCore.Signal(str)

    def __init__(self, session: DocumentSession | None, parent: QtWidgets.QWidget | None = None
                 ) -> None:
        super().__init__(parent)
        self._binding = SessionBinding([("diagnosticsChanged", self._on_diagnostics)])
        self._counts: dict[Severity, int] = {}
        self._summary = summary_text({})
        self.model = DiagnosticsModel(self)
        self.proxy = _Filter(self)
        self.proxy.setSourceModel(self.model)

        self.toggles: dict[Severity, QtWidgets.QToolButton] = {}
        bar = QtWidgets.QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.setSpacing(2)
        for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO):
            button = QtWidgets.QToolButton(self)
            button.setCheckable(True)
            button.setChecked(True)
            button.setAutoRaise(True)
            button.setIcon(status_icon(str(severity)))
            button.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setToolTip(f"Show {_NOUNS[severity][1]}")
            button.toggled.connect(lambda on, s=severity: self.proxy.set_shown(s, on))
            self.toggles[severity] = button
            bar.addWidget(button)
        self.filter = QtWidgets.QLineEdit(self)
        self.filter.setPlaceholderText("Filter (code, message, file, element)")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.proxy.set_text)
        bar.addWidget(self.filter, 1)

        self.view = QtWidgets.QTableView(self)
        self.view.setModel(self.proxy)
        self.view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, QtCore.Qt.SortOrder.AscendingOrder)  # the core's order
        self.view.setWordWrap(False)
        self.view.setAlternatingRowColors(True)
        self.view.setShowGrid(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(
            self.view.fontMetrics().height() + 6)
        header = self.view.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(_SEVERITY, QtWidgets.QHeaderView.ResizeMode.Fixed)
        header.resizeSection(_SEVERITY, 26)
        header.setSectionResizeMode(_CODE, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(_MESSAGE, QtWidgets.QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(_LOCATION, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.view.clicked.connect(self._activate)

        self.copy_action = QtGui.QAction("Copy", self.view)
        self.copy_action.setShortcut(QtGui.QKeySequence.StandardKey.Copy)  # shown in the menu
        self.copy_action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
        self.copy_action.triggered.connect(self.copy_selection)
        self.select_action = QtGui.QAction("Select element", self.view)
        self.select_action.setShortcut(QtGui.QKeySequence(QtCore.Qt.Key.Key_Return))
        self.select_action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
        self.select_action.triggered.connect(self._activate_current)
        on_keys(self.view, {QtGui.QKeySequence.StandardKey.Copy: self.copy_selection,
                            QtCore.Qt.Key.Key_Return: self._activate_current,
                            QtCore.Qt.Key.Key_Enter: self._activate_current})
        self.view.addAction(self.select_action)
        self.view.addAction(self.copy_action)
        self.view.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.ActionsContextMenu)

        # An empty table looks broken; say that there is nothing wrong instead.
        self.empty = QtWidgets.QLabel(self)
        self.empty.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.empty.setEnabled(False)
        self.stack = QtWidgets.QStackedWidget(self)
        self.stack.addWidget(self.view)
        self.stack.addWidget(self.empty)

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        self.set_session(session)

    # -- public API ---------------------------------------------------------------
    @property
    def session(self) -> DocumentSession | None:
        return self._binding.session

    def set_session(self, session: DocumentSession | None) -> None:
        """Show the diagnostics of ``session`` (None: no document)."""
        self._binding.bind(session)
        self._on_diagnostics(None)

    @property
    def summary(self) -> str:
        """``"2 errors, 1 warning"`` for the whole document (filters do not change it)."""
        return self._summary

    @property
    def counts(self) -> dict[Severity, int]:
        """Number of diagnostics of each severity in the document."""
        return dict(self._counts)

    def diagnostics(self) -> list[Diagnostic]:
        """The rows as shown (filtered and sorted)."""
        return [self.proxy.index(r, 0).data(DIAGNOSTIC_ROLE) for r in range(self.proxy.rowCount())]

    def selected_diagnostics(self) -> list[Diagnostic]:
        rows = sorted({i.row() for i in self.view.selectionModel().selectedRows()})
        return [self.proxy.index(r, 0).data(DIAGNOSTIC_ROLE) for r in rows]

    def copy_selection(self) -> None:
        """Put the selected rows on the clipboard, one ``file:line: error CODE: message``
        line each (as ``snapframe check`` prints them)."""
        items = self.selected_diagnostics()
        if items:
            QtWidgets.QApplication.clipboard().setText("\n".join(d.format() for d in items))

    # -- updates ------------------------------------------------------------------
    def _on_diagnostics(self, _event) -> None:
        session = self.session
        items = list(session.document.diagnostics) if session is not None else []
        base = None
        if session is not None and session.document.path:
            base = Path(session.document.path).resolve().parent
        self.model.set_diagnostics(items, base)
        counts = {s: 0 for s in Severity}
        for d in items:
            counts[d.severity] += 1
        self._counts = counts
        for severity, button in self.toggles.items():
            n = counts[severity]
            button.setText(f"{n} {_NOUNS[severity][n != 1].capitalize()}")
        self.empty.setText("No document open" if session is None else
                           "✓  No problems found")
        self.stack.setCurrentWidget(self.view if items else self.empty)
        summary = summary_text(counts)
        if summary != self._summary:
            self._summary = summary
            self.summaryChanged.emit(summary)

    def _activate_current(self) -> None:
        self._activate(self.view.currentIndex())

    def _activate(self, index: QtCore.QModelIndex) -> None:
        if not index.isValid() or self.session is None:
            return
        d: Diagnostic = index.data(DIAGNOSTIC_ROLE)
        self.session.selection.select_diagnostic(d)  # False (nothing selected) without a key
        self.activated.emit(d)
