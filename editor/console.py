"""The in-app Python console: the same scripting object scripts use, inside the window.

``ed`` is the :class:`~snapframe.editor.api.Editor` of this window (``ed.open``,
``ed.select``, ``ed.set_pose``, ``ed.undo``...); ``doc`` is the current document.  Lines run
on the UI thread, so what they change shows at once; their output and errors appear here.
"""

from __future__ import annotations

import code
import contextlib
import io

from PySide6 import QtCore, QtGui, QtWidgets

__all__ = ["ConsolePanel"]

_WELCOME = ("Python console — `ed` is this editor (ed.open, ed.select, ed.set_pose, ed.undo, "
            "ed.save, ed.screenshot), `doc` the current document.\n")


class _Interpreter(code.InteractiveInterpreter):
    """Errors are printed into the console, never handed to ``sys.excepthook`` (which an
    application or a test harness may have replaced)."""

    def showtraceback(self) -> None:
        import sys
        import traceback
        kind, value, tb = sys.exc_info()
        lines = traceback.format_exception(kind, value, tb.tb_next if tb else None)
        self.write("".join(lines))

    def showsyntaxerror(self, filename=None, **kwargs) -> None:
        import sys
        import traceback
        kind, value, _ = sys.exc_info()
        self.write("".join(traceback.format_exception_only(kind, value)))

    def write(self, data: str) -> None:
        import sys
        sys.stderr.write(data)


class ConsolePanel(QtWidgets.QWidget):
    """An output pane and an input line with history (Up/Down)."""

    def __init__(self, namespace: dict, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.namespace = namespace
        self._interp = _Interpreter(namespace)
        self._buffer: list[str] = []
        self._history: list[str] = []
        self._at = 0
        self.output = QtWidgets.QPlainTextEdit(self)
        self.output.setReadOnly(True)
        font = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        self.output.setFont(font)
        self.output.setPlainText(_WELCOME)
        self.prompt = QtWidgets.QLabel(">>>", self)
        self.prompt.setFont(font)
        self.line = QtWidgets.QLineEdit(self)
        self.line.setFont(font)
        self.line.returnPressed.connect(self._run_line)
        self.line.installEventFilter(self)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.prompt)
        row.addWidget(self.line)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.output)
        layout.addLayout(row)

    def run(self, source: str) -> str:
        """Run one line as if typed; return what it printed."""
        self._buffer.append(source)
        text = "\n".join(self._buffer)
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            more = self._interp.runsource(text, "<console>", "single")
        if not more:
            self._buffer.clear()
        self.prompt.setText("..." if more else ">>>")
        return out.getvalue()

    def _run_line(self) -> None:
        source = self.line.text()
        self.line.clear()
        if source.strip():
            self._history.append(source)
        self._at = len(self._history)
        printed = self.run(source)
        self.output.appendPlainText(f"{'...' if len(self._buffer) > 1 else '>>>'} {source}")
        if printed:
            self.output.appendPlainText(printed.rstrip("\n"))
        self.output.verticalScrollBar().setValue(self.output.verticalScrollBar().maximum())

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self.line and event.type() == QtCore.QEvent.Type.KeyPress and self._history:
            if event.key() == QtCore.Qt.Key.Key_Up:
                self._at = max(0, self._at - 1)
                self.line.setText(self._history[self._at])
                return True
            if event.key() == QtCore.Qt.Key.Key_Down:
                self._at = min(len(self._history), self._at + 1)
                self.line.setText(self._history[self._at] if self._at < len(self._history) else "")
                return True
        return False
