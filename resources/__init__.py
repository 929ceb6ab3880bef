"""Bundled data: example assemblies (``examples/``)."""
from pathlib import Path

#: Folder that holds the bundled example files.
EXAMPLES = Path(__file__).resolve().parent / "examples"
