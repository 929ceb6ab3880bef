"""The `snapframe.commands` contract: what is a valid command plugin, what becomes a problem."""

import sys
from importlib.metadata import EntryPoint
from types import ModuleType

import pytest

from snapframe.core import commandline
from snapframe.core.commandline import CommandDescriptor, discover_commands

GROUP = commandline.ENTRY_POINT_GROUP


@pytest.fixture
def install(monkeypatch):
    """``install(name=value, ...)``: the entry points of the group; values may be any
    object, stored in a fake module."""
    def install(**values):
        module = ModuleType("snapframe_test_commands")
        eps = []
        for name, value in values.items():
            setattr(module, name, value)
            eps.append(EntryPoint(name, f"{module.__name__}:{name}", GROUP))
        monkeypatch.setitem(sys.modules, module.__name__, module)
        monkeypatch.setattr(commandline, "command_entry_points", lambda: eps)
    return install


def test_descriptors_load_without_their_module(install):
    install(a=CommandDescriptor("a", "A.", "snapframe_test_not_imported"))
    found = discover_commands()
    assert [c.name for c in found.commands] == ["a"] and found.problems == []
    assert "snapframe_test_not_imported" not in sys.modules
    assert found.get("a").help == "A." and found.get("b") is None


def test_bad_plugins_become_problems(install):
    install(a_wrong_type="not a descriptor",
            b_future=CommandDescriptor("future", "F.", "m", api_version=99),
            c_taken=CommandDescriptor("check", "Steals a built-in name.", "m"),
            d_ok=CommandDescriptor("ok", "OK.", "m"),
            e_twice=CommandDescriptor("ok", "Same name again.", "m"))
    found = discover_commands(reserved=("check",))
    assert [c.help for c in found.commands] == ["OK."]
    assert [p.split(" could not be loaded: ")[1] for p in found.problems] == [
        "entry point does not name a CommandDescriptor: 'not a descriptor'",
        "plugin API version 99, expected 1",
        "the command name 'check' is already taken",
        "the command name 'ok' is already taken",
    ]


def test_load_checks_the_module_defines_the_contract(monkeypatch):
    half = ModuleType("snapframe_test_half")
    half.run = lambda args: 0
    monkeypatch.setitem(sys.modules, half.__name__, half)
    with pytest.raises(TypeError, match="does not define add_arguments()"):
        CommandDescriptor("half", "Half a command.", half.__name__).load()
