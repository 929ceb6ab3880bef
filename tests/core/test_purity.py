"""core/ must import no Qt, VTK or pyvista (checked in a fresh interpreter)."""

import pkgutil
import subprocess
import sys

import snapframe.core

FORBIDDEN = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "qtpy", "vtk", "vtkmodules", "pyvista",
             "pyvistaqt")


def test_core_imports_no_gui_toolkit():
    modules = [m.name for m in pkgutil.walk_packages(snapframe.core.__path__, "snapframe.core.")]
    assert "snapframe.core.frames.graph" in modules and len(modules) > 10
    code = ("import importlib, sys\n"
            f"for m in {modules!r}: importlib.import_module(m)\n"
            f"bad = sorted(n for n in sys.modules if n.split('.')[0] in {FORBIDDEN!r})\n"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
