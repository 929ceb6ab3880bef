"""``snapframe``: the headless command line, the application's entry point.

The built-in commands are in :mod:`snapframe.editor.subcommands`; plugins add theirs
through the ``snapframe.commands`` entry points (the contract is
:mod:`snapframe.core.commandline`).  Only the module of the command being run is
imported, and nothing on the way imports Qt, so headless commands start without it.
Plugins are discovered only to list the commands or to run one of theirs.

``snapframe`` with no argument opens the desktop editor, ``snapframe FILE`` opens a file in
it (Qt is imported only then); ``--script SCRIPT.py`` runs a Python file in the started
editor (see :mod:`snapframe.editor.desktop.script`).

Exit codes: 0 success, 1 the input has errors, 2 usage errors.

Run as the program (``main()`` without arguments: the ``snapframe`` script, ``python -m
snapframe.editor.cli``), a headless command runs without Python's cyclic garbage
collector: the process ends when the command does, and the operating system takes its
memory back at once, whereas the collector would scan everything the command built (a
large assembly is a web of a few hundred thousand objects) once or more while it runs and
again at exit.  What the command made is frozen (:func:`gc.freeze`) before the process
exits, so interpreter shutdown does not scan it either.  The desktop editor, a long-lived
process, keeps the collector.
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path
from types import ModuleType
from typing import Mapping, Sequence

from snapframe.core.commandline import (EXIT_INPUT_ERROR, EXIT_OK, EXIT_USAGE, CommandDescriptor,
                                        discover_commands)
from snapframe.core.limits import ResourceLimitError

from .subcommands import BUILTIN_COMMANDS

__all__ = ["main", "build_parser", "available_commands"]


def available_commands(wanted: str | None = None) -> list[CommandDescriptor]:
    """The built-in commands, then the plugins' (warning on stderr about broken ones).

    When ``wanted`` is a built-in command, plugins are not looked at: running ``check``
    must not depend on, nor pay for, any plugin's command.
    """
    commands = list(BUILTIN_COMMANDS)
    names = tuple(c.name for c in commands)
    if wanted not in names:
        found = discover_commands(reserved=names)
        for problem in found.problems:
            print(f"snapframe: warning: {problem}", file=sys.stderr)
        commands += found.commands
    return commands


def build_parser(commands: Sequence[CommandDescriptor],
                 loaded: Mapping[str, ModuleType] | None = None) -> argparse.ArgumentParser:
    """The ``snapframe`` parser listing ``commands``; those in ``loaded`` (name -> the
    imported command module) get their arguments and can run."""
    parser = argparse.ArgumentParser(
        prog="snapframe",
        description="Assemble robots and mechanisms from SDFormat, URDF and OpenPLX files: "
                    "check them, resolve every frame, compute inertia, run SNAP, convert.",
        epilog="Without a command: 'snapframe [FILE...] [--script SCRIPT.py]' opens the "
               "desktop editor (on the files; the script runs in it once it is up).  "
               "Exit codes: 0 success, 1 the input has errors, 2 usage error.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in commands:
        p = sub.add_parser(command.name, help=command.help, description=command.help)
        module = (loaded or {}).get(command.name)
        if module is not None:
            module.add_arguments(p)
            p.set_defaults(func=module.run)
    return parser


def _requested(argv: Sequence[str]) -> str | None:
    """The command named on the command line: its first argument that is not an option
    (``snapframe`` itself has no option taking a value)."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``snapframe`` with ``argv`` (default: ``sys.argv[1:]``, and then this is the
    program: see the module's documentation); returns the exit code."""
    program = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        argv, script = _editor_script(argv)
    except ValueError as exc:
        print(f"snapframe: {exc}", file=sys.stderr)
        return EXIT_USAGE
    editor = script is not None or _opens_editor(argv, _requested(argv))
    if script is not None and not _editor_files_only(argv):
        print("snapframe: --script runs in the desktop editor: give it files to open, "
              "not a command", file=sys.stderr)
        return EXIT_USAGE
    if not program or editor:
        return _main(argv, editor, script)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _main(argv, editor, script)
    finally:
        gc.freeze()  # the process exits next: its objects need not be scanned again
        if was_enabled:
            gc.enable()


def _editor_script(argv: list[str]) -> tuple[list[str], str | None]:
    """``argv`` without ``--script FILE`` (or ``--script=FILE``), and that file (None if
    not given); ValueError for a missing value or a file that does not exist."""
    rest: list[str] = []
    script: str | None = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--script" or arg.startswith("--script="):
            if arg == "--script":
                if i + 1 >= len(argv):
                    raise ValueError("--script needs a Python file")
                value = argv[i + 1]
                i += 1
            else:
                value = arg.partition("=")[2]
            if not Path(value).is_file():
                raise ValueError(f"no such script: {value}")
            script = value
        else:
            rest.append(arg)
        i += 1
    return rest, script


def _editor_files_only(argv: Sequence[str]) -> bool:
    """Whether every argument names a file (what the editor is opened on)."""
    return all(not a.startswith("-") and Path(a).is_file() for a in argv)


def _opens_editor(argv: Sequence[str], wanted: str | None) -> bool:
    """``snapframe`` alone opens the editor; ``snapframe FILE...`` opens files in it."""
    return not argv or (wanted is not None and Path(wanted).is_file() and
                        wanted not in {c.name for c in available_commands(wanted)})


def _main(argv: list[str], editor: bool, script: str | None = None) -> int:
    wanted = _requested(argv)
    if editor:
        from .app import run
        return run([a for a in argv if not a.startswith("-")], script=script)
    commands = available_commands(wanted)
    loaded: dict[str, ModuleType] = {}
    chosen = next((c for c in commands if c.name == wanted), None)
    if chosen is None and wanted is not None and ("." in Path(wanted).name or "/" in wanted):
        # A file name (command names have no dot nor slash) that names no file: say so,
        # rather than "invalid choice" among the commands.
        print(f"snapframe: no such file: {wanted}", file=sys.stderr)
        return EXIT_USAGE
    if chosen is not None:
        try:
            loaded[chosen.name] = chosen.load()
        except Exception as exc:  # a broken or missing plugin module: say so, never crash
            print(f"snapframe {chosen.name}: not available in this installation ({exc})",
                  file=sys.stderr)
            return EXIT_USAGE
    parser = build_parser(commands, loaded)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not getattr(args, "command", None) or not hasattr(args, "func"):
        parser.print_help()
        return EXIT_USAGE
    try:
        return args.func(args)
    except BrokenPipeError:
        return EXIT_OK
    except ResourceLimitError as exc:
        # An input that expands past the budget is an input error, whichever command met
        # it (and however deep): one line and exit 1, never a traceback.
        print(f"snapframe {args.command}: error RESOURCE_LIMIT: {exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR


if __name__ == "__main__":
    sys.exit(main())
