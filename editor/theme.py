"""Light and dark themes that follow the system's colour scheme."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

__all__ = ["apply_theme", "is_dark"]


def is_dark(app: QtWidgets.QApplication) -> bool:
    """True when the system asks for a dark scheme (Qt 6.5+), or the palette is dark."""
    hints = app.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    if scheme is not None:
        value = scheme()
        if value == QtCore.Qt.ColorScheme.Dark:
            return True
        if value == QtCore.Qt.ColorScheme.Light:
            return False
    return app.palette().color(QtGui.QPalette.ColorRole.Window).lightness() < 128


def apply_theme(app: QtWidgets.QApplication, dark: bool | None = None) -> bool:
    """Fusion style with a palette for the scheme; returns whether it is dark."""
    app.setStyle("Fusion")
    dark = is_dark(app) if dark is None else dark
    p = QtGui.QPalette()
    if dark:
        colors = {
            "Window": "#2b2f35", "WindowText": "#e6e9ed", "Base": "#1f2328",
            "AlternateBase": "#262a30", "Text": "#e6e9ed", "Button": "#33383f",
            "ButtonText": "#e6e9ed", "Highlight": "#3d7bd9", "HighlightedText": "#ffffff",
            "ToolTipBase": "#33383f", "ToolTipText": "#e6e9ed", "PlaceholderText": "#8a939e",
            "Mid": "#444a52", "Dark": "#1a1d21", "Light": "#3b4048",
        }
    else:
        colors = {
            "Window": "#eef1f4", "WindowText": "#1e252d", "Base": "#ffffff",
            "AlternateBase": "#f5f7f9", "Text": "#1e252d", "Button": "#e4e8ec",
            "ButtonText": "#1e252d", "Highlight": "#3d7bd9", "HighlightedText": "#ffffff",
            "ToolTipBase": "#ffffff", "ToolTipText": "#1e252d", "PlaceholderText": "#8a939e",
            "Mid": "#c5ccd3", "Dark": "#9aa3ad", "Light": "#ffffff",
        }
    for role, color in colors.items():
        p.setColor(getattr(QtGui.QPalette.ColorRole, role), QtGui.QColor(color))
    app.setPalette(p)
    return dark
