"""The contract for ``snapframe`` subcommands, and their entry-point discovery.

The command line itself belongs to the application layer, above core; this module
only says what a command is, so that plugins can add one without depending on the
application.  A plugin exposes a cheap :class:`CommandDescriptor` through the
``snapframe.commands`` entry-point group::

    [project.entry-points."snapframe.commands"]
    mycommand = "mypackage.command:COMMAND"

Listing the commands (``snapframe --help``) loads only the descriptors.  The module the
descriptor names is imported only when its command runs, and must define:

``add_arguments(parser: argparse.ArgumentParser) -> None``
    Declare the command's arguments.
``run(args: argparse.Namespace) -> int``
    Do the work and return the exit code: :data:`EXIT_OK`, :data:`EXIT_INPUT_ERROR` (the
    input has errors) or :data:`EXIT_USAGE`.

A plugin that fails to load becomes a problem in :attr:`DiscoveredCommands.problems`
(printed as a warning), never a crash.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType

__all__ = ["CommandDescriptor", "DiscoveredCommands", "discover_commands",
           "command_entry_points", "ENTRY_POINT_GROUP", "API_VERSION",
           "EXIT_OK", "EXIT_INPUT_ERROR", "EXIT_USAGE"]

ENTRY_POINT_GROUP = "snapframe.commands"
#: Bumped when the contract of the command module changes incompatibly.
API_VERSION = 1

EXIT_OK, EXIT_INPUT_ERROR, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True)
class CommandDescriptor:
    """A subcommand, without importing the module that implements it."""

    name: str
    #: One line for ``snapframe --help``; also the command's own description.
    help: str
    #: Dotted name of the module defining ``add_arguments`` and ``run``.
    module: str
    api_version: int = API_VERSION

    def load(self) -> ModuleType:
        """Import the implementing module; raises ``ImportError`` or ``TypeError``."""
        module = importlib.import_module(self.module)
        missing = [f for f in ("add_arguments", "run") if not callable(getattr(module, f, None))]
        if missing:
            raise TypeError(f"module {self.module} does not define {' and '.join(missing)}()")
        return module


@dataclass
class DiscoveredCommands:
    """The commands plugins add, in entry-point name order, and what could not be loaded."""

    commands: list[CommandDescriptor] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def get(self, name: str) -> CommandDescriptor | None:
        return next((c for c in self.commands if c.name == name), None)


def command_entry_points() -> list[EntryPoint]:
    """The installed ``snapframe.commands`` entry points, sorted by name (stable order)."""
    return sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)


def discover_commands(reserved: tuple[str, ...] = ()) -> DiscoveredCommands:
    """Load every command descriptor (not the modules they name).

    ``reserved`` are names the application already uses: a plugin cannot replace them.
    """
    found = DiscoveredCommands()
    taken = set(reserved)
    for ep in command_entry_points():
        try:
            descriptor = ep.load()
            if not isinstance(descriptor, CommandDescriptor):
                raise TypeError(f"entry point does not name a CommandDescriptor: {descriptor!r}")
            if descriptor.api_version != API_VERSION:
                raise ValueError(f"plugin API version {descriptor.api_version}, "
                                 f"expected {API_VERSION}")
            if descriptor.name in taken:
                raise ValueError(f"the command name '{descriptor.name}' is already taken")
        except Exception as exc:  # a broken plugin must not stop the other commands
            found.problems.append(
                f"command plugin '{ep.name}' ({ep.value}) could not be loaded: {exc}")
            continue
        taken.add(descriptor.name)
        found.commands.append(descriptor)
    return found
