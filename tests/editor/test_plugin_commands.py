"""Plugins add `snapframe` commands through the `snapframe.commands` entry points."""

import sys
from importlib.metadata import EntryPoint
from pathlib import Path
from types import ModuleType

import pytest

from snapframe.core import commandline
from snapframe.core.commandline import CommandDescriptor
from snapframe.editor.cli import main

ROOT = Path(__file__).resolve().parents[2]
ARM = ROOT / "resources" / "examples" / "arm_gripper" / "arm_and_gripper.sdf"
CLOCK = ROOT / "resources" / "examples" / "openplx" / "clock.openplx"
GROUP = commandline.ENTRY_POINT_GROUP


def _hello_module() -> ModuleType:
    """A plugin module that is both the descriptor's home and the command's."""
    module = ModuleType("snapframe_test_hello")
    module.COMMAND = CommandDescriptor("hello", "Greet someone (a test plugin).", module.__name__)

    def add_arguments(parser):
        parser.add_argument("who")
        parser.add_argument("--shout", action="store_true")

    def run(args):
        text = f"hello {args.who}"
        print(text.upper() if args.shout else text)
        return 0

    module.add_arguments, module.run = add_arguments, run
    return module


@pytest.fixture
def plugins(monkeypatch):
    """Installed command plugins: the real ones plus a working and a broken test plugin."""
    hello = _hello_module()
    monkeypatch.setitem(sys.modules, hello.__name__, hello)
    real = commandline.command_entry_points()
    fakes = [EntryPoint("hello", f"{hello.__name__}:COMMAND", GROUP),
             EntryPoint("broken", "snapframe_test_no_such_plugin:COMMAND", GROUP)]
    monkeypatch.setattr(commandline, "command_entry_points", lambda: real + fakes)


BROKEN_WARNING = ("snapframe: warning: command plugin 'broken' "
                  "(snapframe_test_no_such_plugin:COMMAND) could not be loaded: ")


def test_the_openplx_plugin_registers_snap_through_the_entry_point():
    assert [ep.value for ep in commandline.command_entry_points() if ep.name == "snap"] == \
        ["snapframe.plugins.openplx.command:COMMAND"]


def test_plugin_commands_are_listed_and_run(plugins, capsys):
    assert main(["--help"]) == 0
    out, err = capsys.readouterr()
    for name in ("check", "frames", "graph", "inertia", "convert", "snap", "hello"):
        assert f"    {name} " in out
    assert "Greet someone (a test plugin)." in out
    assert err.startswith(BROKEN_WARNING)
    assert main(["hello", "world", "--shout"]) == 0
    assert capsys.readouterr().out == "HELLO WORLD\n"


def test_a_broken_plugin_leaves_the_other_commands_working(plugins, capsys):
    assert main(["snap", str(CLOCK)]) == 0
    out, err = capsys.readouterr()
    assert "body      Clock.hour_hand" in out and err.startswith(BROKEN_WARNING)
    # Built-in commands do not even look at plugins.
    assert main(["check", str(ARM)]) == 0
    assert capsys.readouterr() == (f"{ARM}: valid\n", "")
    assert main(["broken"]) == 2
    assert "invalid choice: 'broken'" in capsys.readouterr().err


def test_a_command_whose_module_fails_is_unavailable_not_a_crash(monkeypatch, capsys):
    ghost = ModuleType("snapframe_test_ghost")
    ghost.COMMAND = CommandDescriptor("ghost", "Never runs.", "snapframe_test_no_such_module")
    monkeypatch.setitem(sys.modules, ghost.__name__, ghost)
    monkeypatch.setattr(commandline, "command_entry_points",
                        lambda: [EntryPoint("ghost", f"{ghost.__name__}:COMMAND", GROUP)])
    assert main(["ghost", "x"]) == 2
    assert capsys.readouterr().err.startswith(
        "snapframe ghost: not available in this installation (No module named ")
