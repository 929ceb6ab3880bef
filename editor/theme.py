"""Light and dark themes that follow the system's colour scheme, also when it changes while
the editor runs.

Widgets that draw with colours of their own (the inspector's notes, the frame graph) take
them from the application palette through :func:`theme_colors` and redraw on a palette
change, so one palette switch restyles everything.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

__all__ = ["apply_theme", "is_dark", "palette_is_dark", "theme_colors", "theme_signals"]

_LIGHT = {
    "Window": "#eef1f4", "WindowText": "#1e252d", "Base": "#ffffff",
    "AlternateBase": "#f5f7f9", "Text": "#1e252d", "Button": "#e4e8ec",
    "ButtonText": "#1e252d", "Highlight": "#3d7bd9", "HighlightedText": "#ffffff",
    "ToolTipBase": "#ffffff", "ToolTipText": "#1e252d", "PlaceholderText": "#8a939e",
    "Mid": "#c5ccd3", "Dark": "#9aa3ad", "Light": "#ffffff", "Midlight": "#f2f4f6",
    "Shadow": "#6b7580", "BrightText": "#ffffff", "Link": "#1f5fbf", "LinkVisited": "#6a3fb5",
}
_DARK = {
    "Window": "#2b2f35", "WindowText": "#e6e9ed", "Base": "#1f2328",
    "AlternateBase": "#262a30", "Text": "#e6e9ed", "Button": "#33383f",
    "ButtonText": "#e6e9ed", "Highlight": "#3d7bd9", "HighlightedText": "#ffffff",
    "ToolTipBase": "#33383f", "ToolTipText": "#e6e9ed", "PlaceholderText": "#8a939e",
    "Mid": "#444a52", "Dark": "#1a1d21", "Light": "#3b4048", "Midlight": "#363b42",
    "Shadow": "#111316", "BrightText": "#ffffff", "Link": "#7db4ff", "LinkVisited": "#c3a2ff",
}
#: Disabled widgets: text and controls visibly faded against the enabled ones.
_LIGHT_DISABLED = {
    "WindowText": "#9aa3ad", "Text": "#9aa3ad", "ButtonText": "#9aa3ad", "Base": "#f1f3f5",
    "Button": "#e9ecef", "Highlight": "#b8c4d4", "HighlightedText": "#f5f7f9",
    "Light": "#f7f8fa", "PlaceholderText": "#b3bac2",
}
_DARK_DISABLED = {
    "WindowText": "#6c747e", "Text": "#6c747e", "ButtonText": "#6c747e", "Base": "#25292e",
    "Button": "#2f3339", "Highlight": "#3a4250", "HighlightedText": "#8a939e",
    "Light": "#2b2f35", "PlaceholderText": "#5a626c",
}


class ThemeSignals(QtCore.QObject):
    """``changed(dark)`` after :func:`apply_theme` switched the palette.  Top-level
    windows are not always sent a palette change event; they listen here."""

    changed = QtCore.Signal(bool)


def theme_signals(app: QtCore.QCoreApplication | None = None) -> ThemeSignals:
    """The application's one :class:`ThemeSignals`."""
    app = app or QtCore.QCoreApplication.instance()
    signals = app.findChild(ThemeSignals, "snapframe_theme")
    if signals is None:
        signals = ThemeSignals(app)
        signals.setObjectName("snapframe_theme")
    return signals


def palette_is_dark(palette: QtGui.QPalette) -> bool:
    return palette.color(QtGui.QPalette.ColorRole.Window).lightness() < 128


def is_dark(app: QtWidgets.QApplication) -> bool:
    """True when the system asks for a dark scheme (Qt 6.5+), or the platform's own palette
    (as it was before :func:`apply_theme` replaced it) is dark."""
    hints = app.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    if scheme is not None:
        value = scheme()
        if value == QtCore.Qt.ColorScheme.Dark:
            return True
        if value == QtCore.Qt.ColorScheme.Light:
            return False
    system = app.property("snapframe_system_dark")
    return bool(system) if system is not None else palette_is_dark(app.palette())


def build_palette(dark: bool) -> QtGui.QPalette:
    """The palette of a scheme, Disabled colours included."""
    p = QtGui.QPalette()
    Role, Group = QtGui.QPalette.ColorRole, QtGui.QPalette.ColorGroup
    for role, color in (_DARK if dark else _LIGHT).items():
        p.setColor(getattr(Role, role), QtGui.QColor(color))   # every group
    for role, color in (_DARK_DISABLED if dark else _LIGHT_DISABLED).items():
        p.setColor(Group.Disabled, getattr(Role, role), QtGui.QColor(color))
    return p


def apply_theme(app: QtWidgets.QApplication, dark: bool | None = None) -> bool:
    """Fusion style with a palette for the scheme; returns whether it is dark.

    With ``dark`` None the system's scheme is followed, now and whenever it changes
    (``QStyleHints.colorSchemeChanged``): every widget then gets a palette change event,
    and the ``snapframe_dark`` application property says which scheme is on.  With
    ``dark`` True or False that scheme stays until the next call."""
    if app.property("snapframe_system_dark") is None:
        # the platform's own palette, before ours replaces it: what "follow the system"
        # goes back to where the system names no scheme
        app.setProperty("snapframe_system_dark", palette_is_dark(app.palette()))
    app.setStyle("Fusion")
    follow = dark is None
    dark = is_dark(app) if dark is None else dark
    app.setPalette(build_palette(dark))
    app.setProperty("snapframe_dark", dark)
    # a scheme the user chose (the preferences) stays when the system's changes
    app.setProperty("snapframe_theme_fixed", not follow)
    theme_signals(app).changed.emit(dark)
    hints = app.styleHints()
    if follow and hasattr(hints, "colorSchemeChanged") and \
            not app.property("snapframe_follows_scheme"):
        app.setProperty("snapframe_follows_scheme", True)
        hints.colorSchemeChanged.connect(lambda scheme: _on_scheme(app, scheme))
    return dark


def _on_scheme(app: QtWidgets.QApplication, scheme: QtCore.Qt.ColorScheme) -> None:
    if scheme == QtCore.Qt.ColorScheme.Unknown or app.property("snapframe_theme_fixed"):
        return
    dark = scheme == QtCore.Qt.ColorScheme.Dark
    if dark != palette_is_dark(app.palette()):
        apply_theme(app, dark)
        app.setProperty("snapframe_theme_fixed", False)   # still the system's choice


def theme_colors(palette: QtGui.QPalette | None = None) -> dict[str, str]:
    """Colours the editor's own drawings use, for the current palette: ``note`` and
    ``note_border`` (the read-only note), ``canvas`` (a diagram's background), ``box``,
    ``box_active``, ``box_border`` and ``text`` (its boxes), ``muted`` (secondary text),
    ``link``."""
    palette = palette or QtWidgets.QApplication.palette()
    Role = QtGui.QPalette.ColorRole
    if palette_is_dark(palette):
        colors = {"note": "#3b3423", "note_border": "#7a6630", "canvas": "#1f2328",
                  "box": "#2f343b", "box_active": "#4a3a22", "box_border": "#59616b",
                  "muted": "#9aa3ad"}
    else:
        colors = {"note": "#fff6dd", "note_border": "#e8cf88", "canvas": "#f4f6f8",
                  "box": "#fbfbfc", "box_active": "#fff4e0", "box_border": "#9aa3ad",
                  "muted": "#6b7580"}
    colors["text"] = palette.color(Role.Text).name()
    colors["link"] = palette.color(Role.Link).name()
    return colors
