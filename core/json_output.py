"""JSON-ready values shared by every front end (command line, plugins' commands, editor).

These are the documented ``--json`` contracts: numbers are rounded the same way and
errors have the same keys wherever they are printed.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from .diagnostics import Diagnostic

__all__ = ["json_numbers", "errors_json", "frames_json"]


def json_numbers(values: Sequence[float], digits: int = 12) -> list[float]:
    """Round for JSON output: 12 digits, and no negative zeros (``-1e-17`` prints as 0.0)."""
    if digits < 0:
        return [round(v, digits) + 0.0 for v in values]
    # A whole number (the zeros and ones of most poses) is its own rounding: ``round``,
    # which converts to decimal and back, is skipped for it.
    return [v + 0.0 if v % 1 == 0 else round(v, digits) + 0.0 for v in values]


def errors_json(diagnostics: Iterable[Diagnostic]) -> list[dict[str, Any]]:
    """``[{"code", "message", "file", "line"}, ...]`` for the errors among ``diagnostics``."""
    return [{"code": str(d.code), "message": d.message, "file": d.file, "line": d.line}
            for d in diagnostics if d.is_error]


def frames_json(document: Any) -> dict[str, Any]:
    """The ``snapframe frames --json`` contract for a loaded document::

        {"errors": [...], "frames": {name: {"kind": ..., "pose": [x, y, z, qw, qx, qy, qz]}}}
    """
    frames = {}
    # a file with several worlds lists each, under its world's name (one world: as is)
    others = document.extras.get("other_worlds") or []
    for doc in [document, *others]:
        if doc.root is None:
            continue
        prefix = f"{doc.root.name}::" if others else ""
        for info in doc.frames.frames():
            frames[prefix + info.name] = {"kind": info.kind,
                                          "pose": json_numbers(info.pose.xyz_quat())}
    return {"errors": errors_json(document.diagnostics.items), "frames": frames}
