"""Starting the desktop application."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

__all__ = ["application", "run"]


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
        app.setProperty("snapframe_dark", apply_theme(app))
    return app


def run(files: Sequence[str | Path] = ()) -> int:
    """Open the editor on ``files`` and run until the window closes."""
    from .api import Editor
    editor = Editor(show=True)
    for f in files:
        editor.open(f)
    return editor.run()
