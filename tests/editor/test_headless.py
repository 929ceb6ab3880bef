"""Headless commands start without Qt, VTK or pyvista, and only load what they run."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARM = ROOT / "resources" / "examples" / "arm_gripper" / "arm_and_gripper.sdf"
CLOCK = ROOT / "resources" / "examples" / "openplx" / "clock.openplx"
FORBIDDEN = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "qtpy", "vtk", "vtkmodules", "pyvista",
             "pyvistaqt")


def run_main(argv: list[str], report: str):
    """``snapframe.editor.cli.main(argv)`` in a fresh interpreter; prints, last, the loaded
    modules that ``report`` (an expression over the module name ``n``) selects."""
    code = ("import sys\n"
            "from snapframe.editor.cli import main\n"
            f"status = main({argv!r})\n"
            f"print('LOADED:' + ','.join(sorted(n for n in sys.modules if {report})))\n"
            "sys.exit(status)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    *output, loaded = p.stdout.splitlines()
    assert loaded.startswith("LOADED:"), p.stdout
    return p.returncode, "\n".join(output), [n for n in loaded[7:].split(",") if n]


@pytest.mark.parametrize("argv, expected", [
    (["check", str(ARM)], f"{ARM}: valid"),
    (["snap", str(CLOCK)], "body      Clock.hour_hand: xyz=(0, 0.01, 1.5)"),
    (["inertia", str(ARM), "--json"], '"arm_and_gripper::arm::body"'),
])
def test_headless_commands_import_no_gui_toolkit(argv, expected):
    code, out, loaded = run_main(argv, f"n.split('.')[0] in {FORBIDDEN!r}")
    assert code == 0 and expected in out
    assert loaded == []


def test_a_built_in_command_loads_no_other_command():
    # (the OpenPLX package itself is loaded: the format registry lists its descriptor)
    others = ("snapframe.plugins.openplx.command", "snapframe.plugins.openplx.cli",
              "snapframe.editor.subcommands.frames", "snapframe.editor.subcommands.inertia")
    code, _, loaded = run_main(["check", str(ARM)], f"n in {others!r}")
    assert code == 0 and loaded == []


def test_the_module_runs_as_a_script():
    p = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "check", str(ARM)],
                       capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout == f"{ARM}: valid\n"
