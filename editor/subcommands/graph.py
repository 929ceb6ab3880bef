"""``snapframe graph FILE [--dot]``: the attached_to and relative_to graphs.

A valid file that holds no model or world (an empty ``<sdf>``, a file of only a light, an
OpenPLX library) has empty graphs: they are printed, with a note on stderr, and the exit
status is 0, as ``snapframe check`` calls the file valid.  A file that failed to load
prints its errors and exits 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

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
    if doc.root is None and doc.diagnostics.has_errors():
        print_diagnostics(doc.diagnostics.items, sys.stderr)
        return EXIT_INPUT_ERROR   # it did not load: there is no graph to print
    if expansion_refused(doc, sys.stderr, "graph"):
        return EXIT_INPUT_ERROR
    # A document without a root has a frame graph without scopes: empty edge lists.
    edges = graph_edges(doc.frames)
    if args.dot:
        print(to_dot(edges, doc.root.name if doc.root is not None else Path(args.file).stem))
    else:
        for graph in ("attached_to", "relative_to"):
            print(f"{graph} graph:")
            for a, b in edges[graph]:
                print(f"  {a} -> {b}")
    print_diagnostics(doc.diagnostics.items, sys.stderr)
    if doc.root is None:
        print(f"{args.file}: no model or world: the graphs are empty", file=sys.stderr)
    return EXIT_INPUT_ERROR if doc.diagnostics.has_errors() else EXIT_OK
