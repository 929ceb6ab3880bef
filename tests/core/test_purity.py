"""core/ is the bottom layer: it imports no Qt, VTK or pyvista, and imports and names no
plugin (plugins reach core through entry points; checked in a fresh interpreter and in
the source text)."""

import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import snapframe.core

FORBIDDEN = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "qtpy", "vtk", "vtkmodules", "pyvista",
             "pyvistaqt")
CORE = Path(snapframe.core.__path__[0])


def _core_modules() -> list[str]:
    modules = [m.name for m in pkgutil.walk_packages(snapframe.core.__path__, "snapframe.core.")]
    assert "snapframe.core.frames.graph" in modules and len(modules) > 10
    return modules


def _modules_loaded_by_importing_core(condition: str) -> list[str]:
    """Import every core module in a fresh interpreter; the loaded modules matching
    ``condition`` (a Python expression over ``n``, the module name)."""
    code = ("import importlib, sys\n"
            f"for m in {_core_modules()!r}: importlib.import_module(m)\n"
            f"print(','.join(sorted(n for n in sys.modules if {condition})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return [n for n in out.stdout.strip().split(",") if n]


def test_core_imports_no_gui_toolkit():
    assert _modules_loaded_by_importing_core(f"n.split('.')[0] in {FORBIDDEN!r}") == []


def test_core_imports_no_plugin_nor_the_application():
    loaded = _modules_loaded_by_importing_core("n.startswith(('snapframe.plugins', "
                                               "'snapframe.editor'))")
    assert loaded == []


# `snapframe.plugins`, or a relative import climbing out of core into `plugins`
# (`from ..plugins`, `from ...plugins.meshio import`, `from .. import plugins`).
_NAMES_A_PLUGIN = re.compile(r"snapframe\.plugins|from\s+\.{2,}\s*plugins\b"
                             r"|from\s+\.{2,}\s+import\s+[\w\s,(]*\bplugins\b")


def test_core_source_names_no_plugin():
    sources = sorted(CORE.rglob("*.py"))
    assert len(sources) > 10
    offenders = [f"{path.relative_to(CORE)}:{n}: {line.strip()}"
                 for path in sources
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if _NAMES_A_PLUGIN.search(line)]
    assert offenders == []


def test_the_source_check_catches_what_it_should():
    for line in ("from snapframe.plugins.meshio import load_mesh",
                 '_DEFAULT = "snapframe.plugins.meshio:load_mesh"',
                 "from ..plugins import meshio", "from ...plugins.openplx.cli import run",
                 "from .. import plugins", "from .. import editor, plugins"):
        assert _NAMES_A_PLUGIN.search(line), line
    for line in ("from ..diagnostics import Code", "format plugins parse text",
                 "from .plugins_registry import x"):
        assert not _NAMES_A_PLUGIN.search(line), line
