"""What a user does to a widget, for the pytest-qt tests: show it, type into a field."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

LEFT = QtCore.Qt.MouseButton.LeftButton
NONE = QtCore.Qt.KeyboardModifier.NoModifier


def show(qtbot, widget: QtWidgets.QWidget, w: int = 420, h: int = 420) -> None:
    """Show ``widget`` at w x h and wait until it is on screen."""
    qtbot.addWidget(widget)
    widget.resize(w, h)
    widget.show()
    qtbot.waitExposed(widget)


def type_into(field: QtWidgets.QWidget, text: str) -> None:
    """Select what a field (a line edit, a spin box, an editable combo) holds, type
    ``text`` and press Return."""
    field.setFocus()
    edit = field.lineEdit() if hasattr(field, "lineEdit") else field
    edit.selectAll()
    QTest.keyClicks(edit, text)
    QTest.keyClick(edit, QtCore.Qt.Key.Key_Return)
