"""Bundled data: example assemblies (``examples/``) and the window icon (``icons/``)."""
from pathlib import Path

#: Folder that holds the bundled example files.
EXAMPLES = Path(__file__).resolve().parent / "examples"
#: Folder that holds the application icon as ``snapframe-<size>.png`` (rendered from
#: ``packaging/icons/hicolor/scalable/apps/snapframe.svg`` by ``packaging/icons/make_icons.py``).
ICONS = Path(__file__).resolve().parent / "icons"
