"""``snapframe convert IN OUT [--flatten]``: between formats, chosen by file extension.

``snapframe convert plan.variation OUT_DIR [--count N] [--seed S]`` writes N seeded
variations of a floor plan into OUT_DIR, each as ``<plan>_<seed>.fpm`` and the SDFormat
world ``<plan>_<seed>.sdf`` made from it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from snapframe.core.commandline import EXIT_INPUT_ERROR, EXIT_OK, EXIT_USAGE

from .common import add_search_path, load_document, print_diagnostics

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--flatten", action="store_true",
                        help="SDFormat output: replace includes by the models they name")
    parser.add_argument("--count", type=int, metavar="N",
                        help="floor plan variation (.variation) input: how many variations "
                             "to write into the output folder (default 1)")
    parser.add_argument("--seed", type=int, metavar="S",
                        help="floor plan variation input: seed of the first variation "
                             "(default 0); variation i uses S+i, the same seed gives the "
                             "same files")
    add_search_path(parser)


def run(args: argparse.Namespace) -> int:
    from snapframe.core.formats import registry
    if args.input.lower().endswith(".variation"):
        return _run_variations(args)
    if args.count is not None or args.seed is not None:
        print("snapframe convert: --count and --seed are for a .variation input",
              file=sys.stderr)
        return EXIT_USAGE
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


def _run_variations(args: argparse.Namespace) -> int:
    """Variations of a floor plan: N ``.fpm`` files and their SDFormat worlds in a folder."""
    from snapframe.core.formats import registry
    from snapframe.plugins.floorplan.errors import FloorPlanError
    from snapframe.plugins.floorplan.variation import write_variations
    count = 1 if args.count is None else args.count
    seed = 0 if args.seed is None else args.seed
    out = Path(args.output)
    if count < 1:
        print(f"snapframe convert: --count must be at least 1, not {count}", file=sys.stderr)
        return EXIT_USAGE
    if seed < 0:
        print(f"snapframe convert: --seed must not be negative, not {seed}", file=sys.stderr)
        return EXIT_USAGE
    if out.exists() and not out.is_dir():
        print(f"snapframe convert: the output of a .variation input is a folder; "
              f"'{out}' is a file", file=sys.stderr)
        return EXIT_USAGE
    world_format = registry.for_path("world.sdf", capability="write")
    if world_format is None:
        print("snapframe convert: no SDFormat writer is installed", file=sys.stderr)
        return EXIT_USAGE
    try:
        plans = write_variations(args.input, out, count, seed)
    except FloorPlanError as exc:
        print(f"{exc}", file=sys.stderr)
        print(f"{args.input}: no variations written", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except (ValueError, OSError) as exc:
        print(f"snapframe convert: {out} not written: {exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    for plan in plans:
        doc = load_document(str(plan), args.path)
        if doc.diagnostics.has_errors():
            print_diagnostics(doc.diagnostics.items, sys.stderr)
            print(f"{plan}: no world written because it has errors", file=sys.stderr)
            return EXIT_INPUT_ERROR
        world = plan.with_suffix(".sdf")
        read_warnings = list(doc.diagnostics.items)
        print_diagnostics(read_warnings, sys.stderr)
        try:
            warnings = doc.save(world, world_format.name,
                                flatten=False if world_format.can_flatten else None)
        except (ValueError, OSError) as exc:
            print(f"snapframe convert: {world} not written: {exc}", file=sys.stderr)
            return EXIT_INPUT_ERROR
        said = {d.format() for d in read_warnings}
        print_diagnostics([d for d in warnings if d.format() not in said], sys.stderr)
        print(world)
    return EXIT_OK
