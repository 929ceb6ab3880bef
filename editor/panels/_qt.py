"""Small Qt helpers shared by the panels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6 import QtCore, QtGui, QtWidgets

if TYPE_CHECKING:
    # (an annotation only: evaluating Qt.Key builds its 500-member enum at start-up)
    Key = QtGui.QKeySequence.StandardKey | QtCore.Qt.Key


def palette_color(group: QtGui.QPalette.ColorGroup, role: QtGui.QPalette.ColorRole
                  ) -> QtGui.QColor:
    """A colour of the application palette, copied.

    ``QPalette().brush(...)`` hands back a reference into a temporary palette; returned
    from a model's ``data()`` it dangles and corrupts memory, so always copy.
    """
    palette = QtGui.QGuiApplication.palette()
    return QtGui.QColor(palette.color(group, role))


def refilter(proxy: QtCore.QSortFilterProxyModel, change: Callable[[], None]) -> None:
    """Apply ``change`` to a proxy's row filter state and re-filter the rows."""
    if hasattr(proxy, "beginFilterChange"):  # Qt >= 6.9
        proxy.beginFilterChange()
        change()
        proxy.endFilterChange(QtCore.QSortFilterProxyModel.Direction.Rows)
    else:
        change()
        proxy.invalidateRowsFilter()


class _Keys(QtCore.QObject):
    def __init__(self, view: QtWidgets.QAbstractItemView,
                 handlers: dict[Key, Callable[[], None]]) -> None:
        super().__init__(view)
        self.handlers = handlers

    def _handler(self, event: QtGui.QKeyEvent) -> Callable[[], None] | None:
        plain = event.modifiers() & ~QtCore.Qt.KeyboardModifier.KeypadModifier
        for key, callback in self.handlers.items():
            if isinstance(key, QtGui.QKeySequence.StandardKey):
                if event.matches(key):
                    return callback
            elif event.key() == key and plain == QtCore.Qt.KeyboardModifier.NoModifier:
                return callback
        return None

    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:
        kind = event.type()
        if kind in (QtCore.QEvent.Type.ShortcutOverride, QtCore.QEvent.Type.KeyPress):
            callback = self._handler(event)
            if callback is not None:
                if kind == QtCore.QEvent.Type.KeyPress:
                    callback()
                event.accept()
                return True
        return False


def on_keys(view: QtWidgets.QAbstractItemView, handlers: dict[Key, Callable[[], None]]) -> None:
    """Call ``handlers[key]`` when ``key`` (a standard key such as Copy, or a plain key
    such as Return) is pressed in ``view``.

    Item views act on these keys themselves (Ctrl+C copies the current cell's text,
    Return starts editing) and claim them before any shortcut can fire; a filter on the
    view takes them first.
    """
    view.installEventFilter(_Keys(view, handlers))
