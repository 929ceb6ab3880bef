"""``snapframe render FILE -o OUT.png``: an offscreen picture of a model or world."""

from __future__ import annotations

import argparse
import sys

from .common import add_search_path, load_document

__all__ = ["add_arguments", "run"]


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must be WxH, like 1024x768, not {text!r}")
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        raise argparse.ArgumentTypeError("width and height must be between 16 and 8192")
    return w, h


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True, metavar="OUT.png", help="PNG to write")
    p.add_argument("--size", type=_size, default=(1024, 768), metavar="WxH")
    p.add_argument("--view", choices=("iso", "top", "front", "side"), default="iso")
    p.add_argument("--frames", action="store_true", help="draw link, frame and joint triads")
    p.add_argument("--collisions", action="store_true", help="draw collision geometry")
    add_search_path(p)


def run(args: argparse.Namespace) -> int:
    doc = load_document(args.file, args.path)
    for d in doc.diagnostics.errors:
        print(d.format(), file=sys.stderr)
    if doc.root is None:
        print(f"{args.file}: nothing to draw", file=sys.stderr)
        return 1
    from snapframe.editor.render import render_document
    try:
        out = render_document(doc, args.output, args.size, args.view, args.frames,
                              args.collisions)
    except OSError as exc:
        print(f"{args.output}: cannot write the picture: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(out)
    return 1 if doc.diagnostics.has_errors() else 0
