"""The undo history panel (as Qt's QUndoView): every step of the document's command stack.

Row 0 is the state the document was opened in, then one row per done command, then the
undone ones (greyed) in the order a redo would bring them back.  The current position is
the selected row; the saved (clean) state carries a disk icon.  Choosing a row undoes or
redoes, one command at a time through the session, until the document is in that state.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.commands import CommandStack

from ..session import DocumentSession
from ._binding import SessionBinding
from ._qt import palette_color

__all__ = ["HistoryModel", "HistoryPanel"]


def _history(stack: CommandStack) -> tuple[list[str], int, int | None]:
    """(labels of every step after the initial state, current position, clean position).

    Position ``i`` is the state after the first ``i`` steps.  The stack does not publish
    its lists; they are read here in one place.
    """
    done = [c.label for c in stack._done]
    undone = [c.label for c in reversed(stack._undone)]  # _undone[-1] is redone first
    return done + undone, len(done), getattr(stack, "_clean_index", None)


class HistoryModel(QtCore.QAbstractListModel):
    """List model of a command stack's history (see the module docstring)."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._labels: list[str] = []
        self.initial_label = "<empty>"
        self.current = 0
        self.clean: int | None = None

    def refresh(self, stack: CommandStack | None, initial_label: str = "<empty>") -> bool:
        """Show ``stack``; False when that changes nothing (every step of a drag merges
        into the same undo step: the list stays as it is)."""
        labels, current, clean = ([], 0, None) if stack is None else _history(stack)
        if (labels, current, clean, initial_label) == \
                (self._labels, self.current, self.clean, self.initial_label):
            return False
        self.beginResetModel()
        self._labels, self.current, self.clean = labels, current, clean
        self.initial_label = initial_label
        self.endResetModel()
        return True

    def rowCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._labels) + 1

    def label(self, row: int) -> str:
        return self.initial_label if row == 0 else self._labels[row - 1]

    def data(self, index: QtCore.QModelIndex, role: int = QtCore.Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row = index.row()
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            return self.label(row) + ("  · saved" if row == self.clean else "")
        if role == QtCore.Qt.ItemDataRole.DecorationRole:
            return _saved_icon() if row == self.clean else _blank_icon()
        if role == QtCore.Qt.ItemDataRole.ForegroundRole and row > self.current:
            return palette_color(QtGui.QPalette.ColorGroup.Disabled, QtGui.QPalette.ColorRole.Text)
        if role == QtCore.Qt.ItemDataRole.FontRole and row > self.current:
            font = QtGui.QFont()
            font.setItalic(True)
            return font
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            notes = []
            if row == self.current:
                notes.append("current state")
            elif row > self.current:
                notes.append("undone: click to redo up to here")
            else:
                notes.append("click to undo back to here")
            if row == self.clean:
                notes.append("saved")
            return f"{self.label(row)} — {', '.join(notes)}"
        return None


@lru_cache(maxsize=1)
def _blank_icon() -> QtGui.QIcon:
    # Every row gets an icon of the same size, so the labels stay aligned.
    pix = QtGui.QPixmap(16, 16)
    pix.fill(QtCore.Qt.GlobalColor.transparent)
    return QtGui.QIcon(pix)


@lru_cache(maxsize=1)
def _saved_icon() -> QtGui.QIcon:
    """A small floppy disk, drawn (theme icons are missing on many desktops)."""
    s = 32
    pix = QtGui.QPixmap(s, s)
    pix.fill(QtCore.Qt.GlobalColor.transparent)
    p = QtGui.QPainter(pix)
    p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    p.setPen(QtCore.Qt.PenStyle.NoPen)
    p.setBrush(QtGui.QColor("#1e8c4e"))
    p.drawRoundedRect(QtCore.QRectF(3, 3, s - 6, s - 6), 4, 4)
    p.setBrush(QtGui.QColor("white"))
    p.drawRect(QtCore.QRectF(9, 3, s - 18, 9))                 # shutter
    p.drawRoundedRect(QtCore.QRectF(8, 17, s - 16, 10), 2, 2)  # label
    p.end()
    pix.setDevicePixelRatio(2)
    return QtGui.QIcon(pix)


class HistoryPanel(QtWidgets.QWidget):
    """The undo history of the current document; choosing a row goes to that state."""

    def __init__(self, session: DocumentSession | None, parent: QtWidgets.QWidget | None = None
                 ) -> None:
        super().__init__(parent)
        self._binding = SessionBinding([("stackChanged", self._on_stack)])
        self._moving = False
        self.model = HistoryModel(self)
        self.view = QtWidgets.QListView(self)
        self.view.setModel(self.model)
        self.view.setUniformItemSizes(True)
        self.view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        # Arrow keys move through the history too, as in QUndoView.
        self.view.selectionModel().currentRowChanged.connect(self._on_current_row)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.set_session(session)

    # -- public API ---------------------------------------------------------------
    @property
    def session(self) -> DocumentSession | None:
        return self._binding.session

    def set_session(self, session: DocumentSession | None) -> None:
        """Show the history of ``session`` (None: no document)."""
        self._binding.bind(session)
        self._on_stack(None)

    @property
    def current_row(self) -> int:
        """The row of the document's present state (0: as opened)."""
        return self.model.current

    def go_to(self, row: int) -> None:
        """Undo or redo until the document is in the state after row ``row``."""
        session = self.session
        if session is None:
            return
        stack = session.document.commands
        self._moving = True  # one refresh at the end, not one per step
        try:
            while len(stack) > row and stack.can_undo:
                session.undo()
            while len(stack) < row and stack.can_redo:
                session.redo()
        finally:
            self._moving = False
            self._on_stack(None)

    # -- updates ------------------------------------------------------------------
    def _on_stack(self, _event) -> None:
        if self._moving:
            return
        session = self.session
        if session is None:
            changed = self.model.refresh(None, "No document")
        else:
            path = session.document.path
            changed = self.model.refresh(session.document.commands,
                                         f"Open {Path(path).name}" if path else "New document")
        if not changed:
            return
        self._moving = True  # selecting the current row is not a request to move
        try:
            index = self.model.index(self.model.current, 0)
            self.view.selectionModel().setCurrentIndex(
                index, QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect)
            self.view.scrollTo(index)
        finally:
            self._moving = False

    def _on_current_row(self, current: QtCore.QModelIndex, _previous: QtCore.QModelIndex) -> None:
        if not self._moving and current.isValid() and current.row() != self.model.current:
            self.go_to(current.row())
