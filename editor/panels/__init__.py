"""Dockable panels of the editor window, each a QWidget over a :class:`DocumentSession`.

Every panel is built as ``Panel(session, parent)`` with ``session`` possibly None (no
document open) and follows the main window's current document through
``set_session(session | None)``:

* :class:`DiagnosticsPanel` -- the document's findings; a click selects the element.
* :class:`HistoryPanel` -- the undo history; a click undoes or redoes to that step.
* :class:`LibraryPanel` -- models found in the user's folders and the model search paths,
  with thumbnails rendered in a separate process; items drag as file URLs.
"""

from __future__ import annotations

import importlib

__all__ = ["DiagnosticsPanel", "HistoryPanel", "LibraryPanel"]

_MODULES = {"DiagnosticsPanel": ".diagnostics", "HistoryPanel": ".history",
            "LibraryPanel": ".library"}


def __getattr__(name: str):
    # Imported on first use: the thumbnail worker process runs a module of this package
    # and must not pay for (or depend on) Qt.
    if name in _MODULES:
        return getattr(importlib.import_module(_MODULES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
