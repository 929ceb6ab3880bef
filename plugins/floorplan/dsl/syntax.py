"""Parsing FloorPlan DSL and Variation DSL text with our textX grammars.

The grammars (``floorplan.tx``, ``variation.tx`` next to this module) only describe the
text; this module turns textX's syntax errors into located :class:`FloorPlanError`s and
tells where any parsed object sits in its file.
"""
from __future__ import annotations

import bisect
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import FloorPlanError

__all__ = ["ParsedText", "parse_fpm_text", "parse_variation_text", "MAX_TEXT_CHARS"]

_HERE = Path(__file__).resolve().parent
#: Larger inputs are refused: the biggest real plan is 43 kB.
MAX_TEXT_CHARS = 20_000_000

# Comments are blanked out before parsing (same length, newlines kept, so positions do not
# move): a textX ``Comment`` rule is tried before every token and cost a third of the parse.
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_NOT_NEWLINE = re.compile(r"[^\n]")

_lock = threading.Lock()
_metamodels: dict[str, Any] = {}


def _metamodel(grammar: str) -> Any:
    """The textX metamodel of one of our grammar files, built once per process."""
    with _lock:
        mm = _metamodels.get(grammar)
        if mm is None:
            from textx import metamodel_from_file
            # autokwd: `of` must not match the start of `office`
            mm = metamodel_from_file(str(_HERE / grammar), autokwd=True,
                                     auto_init_attributes=False)
            _metamodels[grammar] = mm
        return mm


@dataclass
class ParsedText:
    """A parsed model with what is needed to locate its objects in the source."""

    model: Any
    text: str
    file: str | None
    _line_starts: list[int]

    def linecol(self, obj_or_pos: Any) -> tuple[int, int]:
        """1-based line and column of a parsed object (or a character offset)."""
        pos = obj_or_pos if isinstance(obj_or_pos, int) else getattr(obj_or_pos, "_tx_position", 0)
        line = bisect.bisect_right(self._line_starts, pos)
        return line, pos - self._line_starts[line - 1] + 1

    def error(self, message: str, obj: Any = None, element: str | None = None) -> FloorPlanError:
        """A :class:`FloorPlanError` located at ``obj`` (a parsed object or an offset)."""
        if obj is None:
            return FloorPlanError(message, self.file, element=element)
        line, col = self.linecol(obj)
        return FloorPlanError(message, self.file, line, col, element)


def _blank_comments(text: str) -> str:
    return _COMMENT.sub(lambda m: _NOT_NEWLINE.sub(" ", m.group(0)), text)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    i = find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


_READABLE = {"ID": "a name", "DottedName": "a name", "NUMBER": "a number",
             "SIGNED_INT": "an index", "Unit": "a unit (m, deg, rad)", "Axis": "x, y or z",
             "STRING": "a quoted string", "EOF": "the end of the file", "not": "not aligned"}


def _describe_expected(exc: Any) -> str:
    rules = getattr(exc, "expected_rules", None) or []
    names: list[str] = []
    for rule in rules:
        rule_name = getattr(rule, "rule_name", None)
        name = _READABLE.get(rule_name) or getattr(rule, "to_match", None) or rule_name or str(rule)
        name = _READABLE.get(name, name)
        if name and name not in names:
            names.append(name if name.startswith(("a ", "an ", "x,", "the ")) else repr(name))
    if not names:
        return "unexpected text"
    return "expected " + (", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1
                          else names[0])


def _parse(grammar: str, text: str, file: str | Path | None, what: str) -> ParsedText:
    from textx.exceptions import TextXSyntaxError, TextXError
    file = str(file) if file is not None else None
    if len(text) > MAX_TEXT_CHARS:
        raise FloorPlanError(f"{what} too large ({len(text)} characters; at most "
                             f"{MAX_TEXT_CHARS})", file)
    clean = _blank_comments(text.replace("\r\n", "\n").replace("\r", "\n"))
    starts = _line_starts(clean)
    parsed = ParsedText(None, clean, file, starts)
    try:
        parsed.model = _metamodel(grammar).model_from_str(clean)
    except TextXSyntaxError as exc:
        line, col = exc.line, exc.col
        found = clean[starts[line - 1] + col - 1:].split("\n", 1)[0].strip()
        found = f"'{found[:30]}'" if found else "the end of the line" if clean[
            starts[line - 1] + col - 1:].strip() else "the end of the file"
        raise FloorPlanError(f"syntax error: {_describe_expected(exc)}, found {found}",
                             file, line, col) from None
    except TextXError as exc:   # should not happen (no references); still located
        raise FloorPlanError(f"invalid {what}: {exc.message}", file,
                             getattr(exc, "line", None), getattr(exc, "col", None)) from None
    except RecursionError:
        raise FloorPlanError(f"{what} nested too deeply to read", file) from None
    return parsed


def parse_fpm_text(text: str, file: str | Path | None = None) -> ParsedText:
    """Parse FloorPlan DSL text; raises :class:`FloorPlanError` on a syntax error."""
    return _parse("floorplan.tx", text, file, "floor plan")


def parse_variation_text(text: str, file: str | Path | None = None) -> ParsedText:
    """Parse Variation DSL text; raises :class:`FloorPlanError` on a syntax error."""
    return _parse("variation.tx", text, file, "variation model")
