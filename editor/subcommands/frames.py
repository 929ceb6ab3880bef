"""``snapframe frames FILE [--json [--pretty] | --explain FRAME]``: every frame, resolved."""

from __future__ import annotations

import argparse
import json
import math
import sys

from snapframe.core.commandline import EXIT_INPUT_ERROR, EXIT_OK
from snapframe.core.json_output import errors_json, frames_json

from .common import (add_search_path, expansion_refused, load_document, over_budget,
                     print_diagnostics)

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file")
    parser.add_argument("--json", action="store_true",
                        help='print {"errors": [...], "frames": {name: {"kind", "pose": '
                             '[x, y, z, qw, qx, qy, qz]}}}')
    parser.add_argument("--pretty", action="store_true", help="indent the JSON")
    parser.add_argument("--explain", metavar="FRAME",
                        help="explain the chain of transforms that places FRAME (scoped name)")
    add_search_path(parser)


def run(args: argparse.Namespace) -> int:
    doc = load_document(args.file, args.path)
    if args.explain:
        if doc.root is None:
            print_diagnostics(doc.diagnostics.items, sys.stderr)
            return EXIT_INPUT_ERROR
        for line in doc.frames.explain(args.explain):
            print(line)
        return EXIT_INPUT_ERROR if doc.diagnostics.has_errors() else EXIT_OK
    if args.json and over_budget(doc):
        # Same contract as always: the errors, and no frames (listing them would expand).
        sys.stdout.write(json.dumps({"errors": errors_json(doc.diagnostics.items),
                                     "frames": {}}, indent=1 if args.pretty else None) + "\n")
        return EXIT_INPUT_ERROR
    if expansion_refused(doc, sys.stderr, "frames"):
        return EXIT_INPUT_ERROR
    data = frames_json(doc)
    if args.json:
        # dumps (one shot) uses the C encoder; dump would stream through the Python one.
        sys.stdout.write(json.dumps(data, indent=1 if args.pretty else None) + "\n")
    else:
        print_diagnostics(doc.diagnostics.items, sys.stderr)
        _print_table(data["frames"])
    return EXIT_INPUT_ERROR if data["errors"] else EXIT_OK


def _print_table(frames: dict[str, dict]) -> None:
    from snapframe.core.pose import Pose
    rows = [(name, f["kind"], f["pose"]) for name, f in frames.items()]
    width = max((len(r[0]) for r in rows), default=4)
    print(f"{'frame':<{width}}  {'kind':<5}  {'x':>10} {'y':>10} {'z':>10}  "
          f"{'roll':>8} {'pitch':>8} {'yaw':>8}")
    for name, kind, pose in rows:
        X = Pose.from_xyz_quat(pose[:3], pose[3:])
        # round, then add 0.0, so that -1e-17 prints as 0.00 rather than -0.00
        r, p, w = (round(math.degrees(a), 6) + 0.0 for a in X.rpy())
        x, y, z = (round(v, 9) + 0.0 for v in pose[:3])
        print(f"{name:<{width}}  {kind:<5}  {x:>10.4f} {y:>10.4f} {z:>10.4f}  "
              f"{r:>8.2f} {p:>8.2f} {w:>8.2f}")
    print(f"({len(rows)} frames; angles in degrees)")
