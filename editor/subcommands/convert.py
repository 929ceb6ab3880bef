"""``snapframe convert IN OUT [--flatten]``: between formats, chosen by file extension."""

from __future__ import annotations

import argparse
import sys

from snapframe.core.commandline import EXIT_INPUT_ERROR, EXIT_OK, EXIT_USAGE

from .common import add_search_path, load_document, print_diagnostics

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--flatten", action="store_true",
                        help="SDFormat output: replace includes by the models they name")
    add_search_path(parser)


def run(args: argparse.Namespace) -> int:
    from snapframe.core.formats import registry
    doc = load_document(args.input, args.path)
    if doc.diagnostics.has_errors():
        print_diagnostics(doc.diagnostics.items, sys.stderr)
        print(f"{args.input}: not converted because it has errors", file=sys.stderr)
        return EXIT_INPUT_ERROR
    descriptor = registry.for_path(args.output, capability="write")
    if descriptor is None:
        print(f"snapframe: no format can write '{args.output}' (writable: "
              f"{', '.join(registry.extensions('write'))})", file=sys.stderr)
        return EXIT_USAGE
    flatten = bool(args.flatten) if descriptor.can_flatten else None
    # What reading already left out (a URDF floating joint, say) is lost to the output
    # too: said once, before what the writer adds.
    read_warnings = list(doc.diagnostics.items)
    print_diagnostics(read_warnings, sys.stderr)
    try:
        warnings = doc.save(args.output, descriptor.name, flatten=flatten)
    except (ValueError, OSError) as exc:   # a loop for URDF, an unwritable path...
        print(f"snapframe convert: {args.output} not written: {exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    # what the target format cannot keep is said, never dropped silently
    said = {d.format() for d in read_warnings}
    print_diagnostics([d for d in warnings if d.format() not in said], sys.stderr)
    return EXIT_OK
