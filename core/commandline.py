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
import os
import re
import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = ["CommandDescriptor", "DiscoveredCommands", "discover_commands",
           "command_entry_points", "installed_entry_points", "PathEntryPoint", "ENTRY_POINT_GROUP", "API_VERSION",
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


def installed_entry_points(group: str) -> "list[EntryPoint | PathEntryPoint]":
    """The installed entry points of ``group``, in the order ``importlib.metadata`` lists
    them, read without importing it where the installation allows (see below)."""
    found = _path_entry_points(group)
    if found is None:  # an installation the fast reader does not handle: ask the library
        from importlib.metadata import entry_points
        found = list(entry_points(group=group))
    return found


def command_entry_points() -> "list[EntryPoint | PathEntryPoint]":
    """The installed ``snapframe.commands`` entry points, sorted by name (stable order)."""
    found = installed_entry_points(ENTRY_POINT_GROUP)
    return sorted(found, key=lambda ep: ep.name)


# -- reading entry points without importlib.metadata ----------------------------------
#
# ``importlib.metadata`` costs more to import (email, zipfile, csv, ...) than all of
# ``snapframe snap``'s own start-up, and every plugin command needs the entry points.
# For the ordinary layout (``*.dist-info``/``*.egg-info`` folders in the directories of
# ``sys.path``) they are read here the way ``importlib.metadata.entry_points()`` reads
# them: distributions in ``sys.path`` order, the first of each normalized name only, the
# ``entry_points.txt`` sections.  Anything else (a zip or ``.egg`` on the path, another
# finder that declares distributions, a line the format does not allow) is left to
# ``importlib.metadata`` itself.


class PathEntryPoint:
    """An entry point read from an ``entry_points.txt`` (``name``, ``value``, ``group``
    and :meth:`load`, as :class:`importlib.metadata.EntryPoint` has them)."""

    __slots__ = ("name", "value", "group")
    #: importlib.metadata's syntax of a value (compiled when first loaded: most runs load
    #: one entry point).
    _PATTERN = r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$"

    def __init__(self, name: str, value: str, group: str) -> None:
        self.name, self.value, self.group = name, value, group

    def load(self) -> Any:
        """The module, or the object the value names in it (``module:attr.attr``)."""
        # A malformed value fails here as importlib.metadata's does (no match: None.group).
        match = re.match(self._PATTERN, self.value)
        obj: Any = importlib.import_module(match.group("module"))  # type: ignore[union-attr]
        for attr in filter(None, (match.group("attr") or "").split(".")):
            obj = getattr(obj, attr)
        return obj

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


def _normalize(name: str) -> str:
    """PEP 503 normalization, dashes as underscores (``importlib.metadata``'s rule)."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _path_entry_points(group: str) -> list[PathEntryPoint] | None:
    """The entry points of ``group`` of the distributions on ``sys.path``; None when the
    installation needs ``importlib.metadata`` (see above)."""
    from importlib.machinery import PathFinder
    if any(getattr(f, "find_distributions", None) is not None and f is not PathFinder
           for f in sys.meta_path):
        return None
    seen: set[str] = set()
    out: list[PathEntryPoint] = []
    for entry in sys.path:
        root = entry or "."
        if os.path.basename(root).lower().endswith(".egg"):
            return None
        try:
            children = os.listdir(root)
        except OSError:
            if os.path.isfile(root):  # a zip archive on the path
                return None
            continue  # not a folder (a path hook's marker, a missing folder)
        by_name: dict[str, list[str]] = {}
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")):
                name = _normalize(low.rpartition(".")[0].partition("-")[0])
                by_name.setdefault(name, []).append(child)
        for name, infos in by_name.items():
            for child in infos:
                if name in seen:  # shadowed by an earlier folder of sys.path
                    continue
                seen.add(name)
                try:
                    with open(os.path.join(root, child, "entry_points.txt"),
                              encoding="utf-8") as f:
                        text = f.read()
                except (FileNotFoundError, IsADirectoryError, NotADirectoryError,
                        PermissionError):
                    continue
                parsed = _parse_entry_points(text, group)
                if parsed is None:
                    return None
                out.extend(parsed)
    return out


def _parse_entry_points(text: str, group: str) -> list[PathEntryPoint] | None:
    """The ``group`` section's ``name = value`` lines (None for a line without ``=``)."""
    out: list[PathEntryPoint] = []
    section = None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section is None:
            continue
        name, eq, value = line.partition("=")
        if not eq:
            return None
        if section == group:
            out.append(PathEntryPoint(name.strip(), value.strip(), group))
    return out


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
