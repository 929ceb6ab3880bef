"""``snapframe inertia FILE [--json] [--write OUT]``: mass properties of every link.

The values come from :func:`snapframe.core.inertia.document_report.link_inertials`; this
module only prints them or saves the file with them filled in.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from snapframe.core.commandline import EXIT_INPUT_ERROR, EXIT_OK, EXIT_USAGE
from snapframe.core.diagnostics import Diagnostics
from snapframe.core.inertia.document_report import link_inertials
from snapframe.core.json_output import errors_json

from .common import (add_search_path, expansion_refused, load_document, over_budget,
                     print_diagnostics)

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file")
    parser.add_argument("--json", action="store_true",
                        help='print {"errors": [...], "links": {name: {"mass", "pose", '
                             '"ixx", ...}}}')
    parser.add_argument("--write", metavar="OUT",
                        help="save the file with computed values filled in")
    add_search_path(parser)


def _json_safe(value):
    """``value`` with every float that is not finite as the text SDFormat writes for it
    ("inf", "-inf", "nan"): libsdformat accepts a mass of inf, and JSON has no such number
    (json.dumps would print Infinity, which no JSON reader accepts)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def run(args: argparse.Namespace) -> int:
    doc = load_document(args.file, getattr(args, "path", []))
    if args.json and over_budget(doc):
        sys.stdout.write(json.dumps({"errors": errors_json(doc.diagnostics.items),
                                     "links": {}}) + "\n")
        return EXIT_INPUT_ERROR
    if expansion_refused(doc, sys.stderr, "inertia"):
        return EXIT_INPUT_ERROR   # every link of every instance would be visited
    diagnostics = Diagnostics()
    diagnostics.extend(doc.diagnostics)
    links = link_inertials(doc, diagnostics, write=bool(args.write)) if doc.root else {}
    errors = errors_json(diagnostics.items)
    if args.write:
        code = _write(doc, diagnostics, args.write)
        if code != EXIT_OK:
            return code
        if not args.json:
            # Say why a link was left as it was (failed mesh, bad mass) and which written
            # values are only approximate (voxel fallback): the exit code alone does not.
            print_diagnostics(diagnostics.items, sys.stderr)
    if args.json:
        sys.stdout.write(json.dumps({"errors": errors, "links": _json_safe(links)}) + "\n")
    elif not args.write:
        print_diagnostics(diagnostics.items, sys.stderr)
        _print_table(links)
    return EXIT_INPUT_ERROR if errors else EXIT_OK


def _write(doc, diagnostics: Diagnostics, out: str) -> int:
    """Save ``doc`` (with the computed values stored) as ``out``, or say why not."""
    if doc.diagnostics.has_errors() or doc.format != "sdformat":
        print_diagnostics(diagnostics.errors, sys.stderr)
        print(f"snapframe inertia: not writing {out}: "
              + ("the input has errors" if doc.diagnostics.has_errors()
                 else "--write needs an SDFormat input"), file=sys.stderr)
        return EXIT_INPUT_ERROR
    from snapframe.core.formats import registry
    descriptor = registry.for_path(out, capability="write")
    if descriptor is None or descriptor.name != "sdformat":
        print(f"snapframe inertia: --write needs a .sdf output, got '{out}'", file=sys.stderr)
        return EXIT_USAGE
    registry.implementation(descriptor).write(doc, Path(out))
    return EXIT_OK


def _print_table(links: dict[str, dict]) -> None:
    width = max((len(n) for n in links), default=4)
    print(f"{'link':<{width}}  {'mass':>10}  {'com x':>9} {'com y':>9} {'com z':>9}  "
          f"{'ixx':>10} {'iyy':>10} {'izz':>10} {'ixy':>10} {'ixz':>10} {'iyz':>10}")
    for name, e in links.items():
        x, y, z = e["pose"][:3]
        print(f"{name:<{width}}  {e['mass']:>10.5g}  {x:>9.4g} {y:>9.4g} {z:>9.4g}  "
              + " ".join(f"{e[k]:>10.4g}" for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz"))
              + ("  (approximate)" if e.get("approximate") else ""))
