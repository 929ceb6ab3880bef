"""``snapframe``: the headless command line over the same core the editor uses.

Exit codes: 0 success, 1 the input has errors, 2 usage errors.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Callable, Sequence

from .diagnostics import Diagnostic

__all__ = ["main", "frames_json", "json_numbers"]

EXIT_OK, EXIT_INPUT_ERROR, EXIT_USAGE = 0, 1, 2


def _load(path: str, search_paths: Sequence[str] = ()):
    from .loading import LoadContext, load
    context = LoadContext(search_paths=[Path(p) for p in search_paths])
    return load(path, context)


def _errors_json(diagnostics: Sequence[Diagnostic]) -> list[dict]:
    return [{"code": str(d.code), "message": d.message, "file": d.file, "line": d.line}
            for d in diagnostics if d.is_error]


def json_numbers(values: Sequence[float], digits: int = 12) -> list[float]:
    """Round for JSON output: 12 digits, and no negative zeros (``-1e-17`` prints as 0.0)."""
    return [round(v, digits) + 0.0 for v in values]


def frames_json(document) -> dict:
    """The ``snapframe frames --json`` contract for a loaded document."""
    frames = {}
    if document.root is not None:
        for info in document.frames.frames():
            frames[info.name] = {"kind": info.kind, "pose": json_numbers(info.pose.xyz_quat())}
    return {"errors": _errors_json(document.diagnostics.items), "frames": frames}


def _print_diagnostics(diagnostics, stream) -> None:
    for d in diagnostics:
        print(d.format(), file=stream)


# -- commands -------------------------------------------------------------------------
def cmd_check(args: argparse.Namespace) -> int:
    doc = _load(args.file, args.path)
    _print_diagnostics(doc.diagnostics.items, sys.stdout)
    if doc.diagnostics.has_errors():
        n = len(doc.diagnostics.errors)
        print(f"{args.file}: {n} error{'s' if n != 1 else ''}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    print(f"{args.file}: valid")
    return EXIT_OK


def cmd_frames(args: argparse.Namespace) -> int:
    doc = _load(args.file, args.path)
    if args.explain:
        if doc.root is None:
            _print_diagnostics(doc.diagnostics.items, sys.stderr)
            return EXIT_INPUT_ERROR
        for line in doc.frames.explain(args.explain):
            print(line)
        return EXIT_INPUT_ERROR if doc.diagnostics.has_errors() else EXIT_OK
    data = frames_json(doc)
    if args.json:
        # dumps (one shot) uses the C encoder; dump would stream through the Python one.
        sys.stdout.write(json.dumps(data, indent=1 if args.pretty else None) + "\n")
    else:
        _print_diagnostics(doc.diagnostics.items, sys.stderr)
        rows = [(name, f["kind"], f["pose"]) for name, f in data["frames"].items()]
        width = max((len(r[0]) for r in rows), default=4)
        print(f"{'frame':<{width}}  {'kind':<5}  {'x':>10} {'y':>10} {'z':>10}  "
              f"{'roll':>8} {'pitch':>8} {'yaw':>8}")
        from .pose import Pose
        for name, kind, pose in rows:
            X = Pose.from_xyz_quat(pose[:3], pose[3:])
            # round, then add 0.0, so that -1e-17 prints as 0.00 rather than -0.00
            r, p, w = (round(math.degrees(a), 6) + 0.0 for a in X.rpy())
            x, y, z = (round(v, 9) + 0.0 for v in pose[:3])
            print(f"{name:<{width}}  {kind:<5}  {x:>10.4f} {y:>10.4f} {z:>10.4f}  "
                  f"{r:>8.2f} {p:>8.2f} {w:>8.2f}")
        print(f"({len(rows)} frames; angles in degrees)")
    return EXIT_INPUT_ERROR if data["errors"] else EXIT_OK


def cmd_graph(args: argparse.Namespace) -> int:
    from .frames.export import graph_edges, to_dot
    doc = _load(args.file, args.path)
    if doc.root is None:
        _print_diagnostics(doc.diagnostics.items, sys.stderr)
        return EXIT_INPUT_ERROR
    edges = graph_edges(doc.frames)
    if args.dot:
        print(to_dot(edges, doc.root.name))
    else:
        for graph in ("attached_to", "relative_to"):
            print(f"{graph} graph:")
            for a, b in edges[graph]:
                print(f"  {a} -> {b}")
    _print_diagnostics(doc.diagnostics.items, sys.stderr)
    return EXIT_INPUT_ERROR if doc.diagnostics.has_errors() else EXIT_OK


def cmd_convert(args: argparse.Namespace) -> int:
    from .formats import registry
    doc = _load(args.input, args.path)
    if doc.diagnostics.has_errors():
        _print_diagnostics(doc.diagnostics.items, sys.stderr)
        print(f"{args.input}: not converted because it has errors", file=sys.stderr)
        return EXIT_INPUT_ERROR
    descriptor = registry.for_path(args.output, capability="write")
    if descriptor is None:
        print(f"snapframe: no format can write '{args.output}' (writable: "
              f"{', '.join(registry.extensions('write'))})", file=sys.stderr)
        return EXIT_USAGE
    options = {"flatten": True} if args.flatten else {}
    registry.implementation(descriptor).write(doc, args.output, **options)
    return EXIT_OK


def _plugin_command(name: str) -> Callable[[argparse.Namespace], int]:
    """Commands whose work lives in a plugin or an optional core module."""
    def run(args: argparse.Namespace) -> int:
        import importlib
        module_name, func = {
            "inertia": ("snapframe.core.inertia.cli", "run"),
            "snap": ("snapframe.plugins.openplx.cli", "run"),
        }[name]
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            print(f"snapframe {name}: not available in this installation ({exc})", file=sys.stderr)
            return EXIT_USAGE
        return getattr(module, func)(args)
    return run


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="snapframe",
        description="Assemble robots and mechanisms from SDFormat, URDF and OpenPLX files: "
                    "check them, resolve every frame, compute inertia, run SNAP, convert.",
        epilog="Exit codes: 0 success, 1 the input has errors, 2 usage error.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_text: str, func) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(func=func)
        return p

    def search(p: argparse.ArgumentParser) -> None:
        p.add_argument("--path", action="append", default=[], metavar="DIR",
                       help="extra folder to search for model:// and relative includes "
                            "(repeatable; SDF_PATH and GZ_SIM_RESOURCE_PATH are used too)")

    p = add("check", "Validate a file: print 'file:line: error CODE: message' lines.", cmd_check)
    p.add_argument("file")
    search(p)

    p = add("frames", "Resolve every model, link, joint and frame (world files: in the world "
            "frame; model files: in the top model's frame).", cmd_frames)
    p.add_argument("file")
    p.add_argument("--json", action="store_true",
                   help='print {"errors": [...], "frames": {name: {"kind", "pose": '
                        '[x, y, z, qw, qx, qy, qz]}}}')
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    p.add_argument("--explain", metavar="FRAME",
                   help="explain the chain of transforms that places FRAME (scoped name)")
    search(p)

    p = add("graph", "Print the attached_to and relative_to graphs.", cmd_graph)
    p.add_argument("file")
    p.add_argument("--dot", action="store_true", help="Graphviz output")
    search(p)

    p = add("inertia", "Mass properties of every link (computed where //inertial/@auto is set).",
            _plugin_command("inertia"))
    p.add_argument("file")
    p.add_argument("--json", action="store_true",
                   help='print {"errors": [...], "links": {name: {"mass", "pose", "ixx", ...}}}')
    p.add_argument("--write", metavar="OUT", help="save the file with computed values filled in")
    search(p)

    p = add("snap", "Assemble an OpenPLX system with SNAP and print every frame.",
            _plugin_command("snap"))
    p.add_argument("file")
    p.add_argument("--model", help="model to assemble (default: the last top-level "
                                   "Physics3D.System)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--trace", action="store_true", help="explain each SNAP step")

    p = add("convert", "Convert between formats (by file extension).", cmd_convert)
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--flatten", action="store_true",
                   help="SDFormat output: replace includes by the models they name")
    search(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return args.func(args)
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
