"""``snapframe check FILE``: one ``file:line: error CODE: message`` line per problem."""

from __future__ import annotations

import argparse
import sys

from snapframe.core.commandline import EXIT_INPUT_ERROR, EXIT_OK

from .common import add_search_path, load_document, print_diagnostics

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file")
    add_search_path(parser)


def run(args: argparse.Namespace) -> int:
    doc = load_document(args.file, args.path)
    print_diagnostics(doc.diagnostics.items, sys.stdout)
    if doc.diagnostics.has_errors():
        n = len(doc.diagnostics.errors)
        print(f"{args.file}: {n} error{'s' if n != 1 else ''}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    print(f"{args.file}: valid")
    return EXIT_OK
