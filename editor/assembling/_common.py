"""Small helpers shared by the assembling panels: pushing edits with their refusal,
coalesced refreshes, number formatting and a few label styles."""

from __future__ import annotations

import logging
import math
import time
from typing import Callable

from PySide6 import QtCore, QtGui, QtWidgets

from ..session import DocumentSession

_log = logging.getLogger(__name__)

ERROR_STYLE = "color: #c0392b;"
WARNING_STYLE = "color: #b9770e;"
OK_STYLE = "color: #1e8449;"
MUTED_STYLE = "color: #6b7580;"
MONO_STYLE = "font-family: monospace;"
#: The minus sign of typeset numbers (a hyphen looks like a dash in a column of values).
MINUS = "\u2212"


def make(session: DocumentSession, factory: Callable, *args, **kwargs) -> str:
    """Build a command with ``factory(document, *args, **kwargs)`` and push it through the
    session (one undo step).  Returns "" when done, else the reason it was refused (the
    session's ``refused`` signal has carried it to the status bar too)."""
    reasons: list[str] = []

    def note(reason: str) -> None:
        reasons.append(reason)

    session.refused.connect(note)
    try:
        ok = session.make(factory, *args, **kwargs)
    except Exception as exc:  # a bug must not take the editor down: say what happened
        _log.exception("edit %s failed", getattr(factory, "__name__", factory))
        return f"internal error: {exc}"
    finally:
        session.refused.disconnect(note)
    return "" if ok else (reasons[-1] if reasons else "the edit was refused")


class Coalescer(QtCore.QObject):
    """Calls ``callback`` once, ``interval_ms`` after the first of a burst of requests
    (a slider drag sends dozens of pose events a second; a table needs one refresh).

    The wait grows with the callback's cost (at least :attr:`DUTY` times its last run,
    at most :attr:`LONGEST_MS`): a refresh that takes half a second on a world of a
    thousand robots runs now and then during a drag instead of freezing it."""

    #: Waits last at least this many times the callback's last run...
    DUTY = 4.0
    #: ...but never longer than this (milliseconds).
    LONGEST_MS = 2000

    def __init__(self, callback: Callable[[], None], interval_ms: int = 0,
                 parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._callback = callback
        self._interval = interval_ms
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._run)

    def request(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Run now if a request is pending."""
        if self._timer.isActive():
            self._timer.stop()
            self._run()

    def _run(self) -> None:
        started = time.perf_counter()
        try:
            self._callback()
        finally:
            spent_ms = (time.perf_counter() - started) * 1000.0
            self._timer.setInterval(int(min(max(self._interval, self.DUTY * spent_ms),
                                            self.LONGEST_MS)))

    @property
    def pending(self) -> bool:
        return self._timer.isActive()


def num(value: float | None, decimals: int = 4) -> str:
    """A fixed-point number with a true minus sign and no ``-0``; "—" for None."""
    if value is None or not math.isfinite(value):
        return "—" if value is None else str(value)
    text = f"{value:.{decimals}f}"
    if float(text) == 0.0:
        text = text.lstrip("-")
    return text.replace("-", MINUS)


def sci(value: float | None, decimals: int = 3) -> str:
    """Scientific notation, the same shape for every value of a column (inertia spans
    many decades): ``6.667e−03``; "—" for None."""
    if value is None:
        return "—"
    text = f"{value:.{decimals}e}"
    if float(text) == 0.0:
        text = text.lstrip("-")
    return text.replace("-", MINUS)


def label(text: str = "", style: str = "", parent: QtWidgets.QWidget | None = None,
          wrap: bool = False) -> QtWidgets.QLabel:
    widget = QtWidgets.QLabel(text, parent)
    if style:
        widget.setStyleSheet(style)
    widget.setWordWrap(wrap)
    return widget


def note_label(parent: QtWidgets.QWidget | None = None) -> QtWidgets.QLabel:
    """A wrapped, selectable label for refusals and notes; hidden while empty."""
    widget = label("", ERROR_STYLE, parent, wrap=True)
    widget.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
    widget.hide()
    return widget


def show_note(widget: QtWidgets.QLabel, text: str, style: str = ERROR_STYLE) -> None:
    if widget.styleSheet() != style:
        widget.setStyleSheet(style)
    widget.setText(text)
    widget.setVisible(bool(text))


def bold(widget: QtWidgets.QWidget) -> QtWidgets.QWidget:
    font = widget.font()
    font.setBold(True)
    widget.setFont(font)
    return widget


class ElidedLabel(QtWidgets.QLabel):
    """A one-line label that elides its text in the middle when narrow (long scoped names
    keep both their model and their element visible); the full text is the tooltip."""

    def __init__(self, text: str = "", parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                           QtWidgets.QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(40)
        self.setText(text)

    def setText(self, text: str) -> None:  # type: ignore[override]
        self._full = text
        self.setToolTip(text)
        self._elide()

    def full_text(self) -> str:
        return self._full

    def sizeHint(self) -> QtCore.QSize:
        hint = super().sizeHint()
        return QtCore.QSize(self.fontMetrics().horizontalAdvance(self._full) + 4, hint.height())

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, QtCore.Qt.TextElideMode.ElideMiddle,
                                              max(self.width(), 40))
        super().setText(shown)


def hline(parent: QtWidgets.QWidget | None = None) -> QtWidgets.QFrame:
    line = QtWidgets.QFrame(parent)
    line.setFrameShape(QtWidgets.QFrame.Shape.HLine)
    line.setFrameShadow(QtWidgets.QFrame.Shadow.Sunken)
    return line
