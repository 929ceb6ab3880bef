"""What the built-in subcommands share: loading a file and printing diagnostics."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Iterable, Sequence, TextIO

from snapframe.core.diagnostics import Diagnostic

__all__ = ["add_search_path", "load_document", "print_diagnostics", "over_budget",
           "expansion_refused"]


def add_search_path(parser: argparse.ArgumentParser) -> None:
    """The ``--path DIR`` option of every command that loads SDFormat-like files."""
    parser.add_argument("--path", action="append", default=[], metavar="DIR",
                        help="extra folder to search for model:// and relative includes "
                             "(repeatable; SDF_PATH and GZ_SIM_RESOURCE_PATH are used too)")


def load_document(path: str, search_paths: Sequence[str] = ()):
    """Load ``path`` with the format registry, searching ``search_paths`` for includes."""
    from snapframe.core.loading import LoadContext, load
    context = LoadContext(search_paths=[Path(p) for p in search_paths])
    return load(path, context)


def over_budget(doc) -> bool:
    """True if loading ``doc`` refused an expansion past the budget (a RESOURCE_LIMIT
    error): then no command may walk every instance of it."""
    from snapframe.core.frames.budget import over_budget as refused
    return refused(doc)


def expansion_refused(doc, stream: TextIO, command: str) -> bool:
    """:func:`over_budget`, after printing the diagnostics and why nothing is listed."""
    if not over_budget(doc):
        return False
    print_diagnostics(doc.diagnostics.items, stream)
    print(f"snapframe {command}: {doc.path or 'input'}: not expanded (see RESOURCE_LIMIT above)",
          file=stream)
    return True


def print_diagnostics(diagnostics: Iterable[Diagnostic], stream: TextIO) -> None:
    """One ``file:line: severity CODE: message`` line per diagnostic."""
    for d in diagnostics:
        print(d.format(), file=stream)
