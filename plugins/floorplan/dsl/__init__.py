"""The FloorPlan DSL (``.fpm``, grammar v2): our own textX grammar and its semantics.

``load_fpm(path)`` reads a floor plan into a :class:`~snapframe.plugins.floorplan.model.FloorPlan`
in world coordinates, the same model the JSON-LD reader gives for the FloorPlan tools'
output.  Every problem is a :class:`~snapframe.plugins.floorplan.errors.FloorPlanError` with
the file, line and column.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import FloorPlanError
from ..model import FloorPlan
from .syntax import MAX_TEXT_CHARS, ParsedText, parse_fpm_text

__all__ = ["load_fpm", "parse_fpm", "read_text"]


def read_text(path: Path) -> str:
    """A DSL file's text (UTF-8); unreadable files are a :class:`FloorPlanError`."""
    from snapframe.core.fileio import read_regular_file
    try:
        data = read_regular_file(path, MAX_TEXT_CHARS)
    except OSError as exc:
        raise FloorPlanError(f"cannot read the file: {exc.strerror or exc}", path) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FloorPlanError(f"not UTF-8 text (byte {exc.start})", path) from None


def parse_fpm(path: Path | str | None, text: str | None = None) -> ParsedText:
    """The parsed (not yet interpreted) model of a ``.fpm`` file or text."""
    if text is None:
        if path is None:
            raise ValueError("parse_fpm needs a path or a text")
        text = read_text(Path(path))
    return parse_fpm_text(text, path)


def load_fpm(path: Path | str | None, text: str | None = None) -> FloorPlan:
    """Read a ``.fpm`` floor plan (from ``text`` when given, else from ``path``).

    ``path`` names the file in error messages and becomes ``FloorPlan.source``.
    Raises :class:`FloorPlanError` with file, line and column for any problem.
    """
    from .semantics import build_plan
    parsed = parse_fpm(path, text)
    return build_plan(parsed, Path(path) if path is not None else None)
