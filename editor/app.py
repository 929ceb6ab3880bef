"""Starting the desktop application."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

__all__ = ["application", "run", "window_icon"]


def application():
    """The process's QApplication (created on first use, themed to the system)."""
    from PySide6 import QtWidgets
    from .theme import apply_theme
    app = QtWidgets.QApplication.instance()
    if app is None:
        app = QtWidgets.QApplication(sys.argv[:1])
        app.setApplicationName("Snapframe")
        app.setOrganizationName("Snapframe")
        app.setApplicationDisplayName("Snapframe")
        # Ties the windows to packaging/snapframe.desktop (its icon and name, on Wayland).
        app.setDesktopFileName("snapframe")
        app.setWindowIcon(window_icon())
        app.setProperty("snapframe_dark", apply_theme(app))
    return app


def window_icon():
    """The application icon, every size of ``snapframe.resources.ICONS`` in one QIcon."""
    from PySide6 import QtGui
    from snapframe.resources import ICONS
    icon = QtGui.QIcon()
    for png in sorted(ICONS.glob("snapframe-*.png")):
        icon.addFile(str(png))
    return icon


def run(files: Sequence[str | Path] = (), script: str | Path | None = None) -> int:
    """Open the editor on ``files`` and run until the window closes.

    Documents are autosaved, and those an editor that did not exit cleanly left are
    offered for recovery.  ``script``: a Python file run once the window is up, with
    ``ed`` (the :class:`~snapframe.editor.api.Editor`) in its namespace."""
    from .api import Editor
    editor = Editor(show=True)
    desktop = editor.window.desktop
    desktop.start_autosave()
    for f in files:
        editor.open(f)
    desktop.offer_recovery()
    if script is not None:
        from PySide6 import QtCore
        from .desktop.script import run_script
        QtCore.QTimer.singleShot(0, lambda: run_script(editor, script))
    return editor.run()
