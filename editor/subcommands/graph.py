"""``snapframe graph FILE [--dot]``: the attached_to and relative_to graphs."""

from __future__ import annotations

import argparse
import sys

from snapframe.core.commandline import EXIT_INPUT_ERROR, EXIT_OK

from .common import add_search_path, expansion_refused, load_document, print_diagnostics

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file")
    parser.add_argument("--dot", action="store_true", help="Graphviz output")
    add_search_path(parser)


def run(args: argparse.Namespace) -> int:
    from snapframe.core.frames.export import graph_edges, to_dot
    doc = load_document(args.file, args.path)
    if doc.root is None:
        print_diagnostics(doc.diagnostics.items, sys.stderr)
        return EXIT_INPUT_ERROR
    if expansion_refused(doc, sys.stderr, "graph"):
        return EXIT_INPUT_ERROR
    edges = graph_edges(doc.frames)
    if args.dot:
        print(to_dot(edges, doc.root.name))
    else:
        for graph in ("attached_to", "relative_to"):
            print(f"{graph} graph:")
            for a, b in edges[graph]:
                print(f"  {a} -> {b}")
    print_diagnostics(doc.diagnostics.items, sys.stderr)
    return EXIT_INPUT_ERROR if doc.diagnostics.has_errors() else EXIT_OK
