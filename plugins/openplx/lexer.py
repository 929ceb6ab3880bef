"""Lossless tokenizer for OpenPLX source.

Every character of the input belongs to exactly one token, whitespace and comments
included, so joining the ``text`` of all tokens gives the input back byte for byte.
The parser ignores the trivia kinds (``WS``, ``COMMENT``) but keeps them in the tree for
the writer.
"""

from __future__ import annotations

import enum
import re
import sys
from dataclasses import dataclass

__all__ = ["Kind", "Token", "tokenize", "TRIVIA", "KEYWORDS", "LINE_BREAK", "line_breaks"]


class Kind(enum.Enum):
    NAME = "name"
    NUMBER = "number"
    STRING = "string"
    OP = "operator"
    NEWLINE = "newline"
    WS = "whitespace"
    COMMENT = "comment"
    ERROR = "error"
    EOF = "end of file"

    # Members are singletons compared by identity: hash them so too (Enum's own __hash__
    # is Python code, and sets of kinds are tested for every token).
    __hash__ = object.__hash__


TRIVIA = frozenset({Kind.WS, Kind.COMMENT})

#: Words with a meaning in the grammar (the last four are reserved, unused by the bundles).
KEYWORDS = frozenset({"is", "becomes", "with", "trait", "const", "static", "fn", "operator",
                      "import", "as", "or", "reference", "optional", "this", "true", "false",
                      "delete", "external", "if", "of"})


@dataclass(slots=True)
class Token:
    """A token: ``text`` exactly as written, 1-based ``line``/``col`` of its first character.

    For strings ``value`` is the decoded content; ``error`` explains an ``ERROR`` token.
    """

    kind: Kind
    text: str
    line: int
    col: int
    value: object = None
    error: str = ""

    def is_op(self, text: str) -> bool:
        return self.kind is Kind.OP and self.text == text

    def is_name(self, text: str) -> bool:
        return self.kind is Kind.NAME and self.text == text

    def __repr__(self) -> str:
        return f"Token({self.kind.name}, {self.text!r}, {self.line}:{self.col})"


_NAME = re.compile(r"[^\W\d]\w*")
#: A line break as the tokenizer counts them: CRLF, LF or a lone CR.
LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_breaks(text: str, start: int = 0, end: int | None = None) -> tuple[int, int]:
    """``(number of line breaks in text[start:end], index just after the last one or -1)``."""
    n, last = 0, -1
    for m in LINE_BREAK.finditer(text, start, len(text) if end is None else end):
        n, last = n + 1, m.end()
    return n, last
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
#: Digits an integer literal may have: more than a 64-bit float can hold is a mistake (and
#: Python refuses to convert more than 4,300 digits to an int at all).
MAX_INT_DIGITS = 309
#: One token at a position, tried in this order; a string's opening quote is matched
#: here and scanned by ``_scan_string``.  One regular expression per token keeps the
#: tokenizer fast (it reads every byte of every bundle file a load needs).
_TOKEN = re.compile(r"""
    (?P<newline>\r\n|\r|\n)
  | (?P<ws>[ \t\f\v]+)
  | (?P<comment>\#[^\r\n]*)
  | (?P<name>[^\W\d]\w*)
  | (?P<number>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
  | (?P<string>[@$]?")
  | (?P<op>->|[:.,()\[\]{}+\-*/])
""", re.VERBOSE)
_KINDS = {"newline": Kind.NEWLINE, "ws": Kind.WS, "comment": Kind.COMMENT, "name": Kind.NAME,
          "op": Kind.OP}


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens; never raises (bad input becomes ``ERROR`` tokens)."""
    tokens: list[Token] = []
    append = tokens.append
    pos, line, line_start, n = 0, 1, 0, len(text)
    if text.startswith("\ufeff"):
        append(Token(Kind.WS, "\ufeff", 1, 1))
        pos = 1
    match = _TOKEN.match
    while pos < n:
        m = match(text, pos)
        group = m.lastgroup if m is not None else None
        col = pos - line_start + 1
        if group is None:
            c = text[pos]
            if c == "'":
                msg = "single quotes do not delimit strings; use double quotes"
            elif c in "<>=!&|":
                msg = f"unexpected character '{c}' (OpenPLX has no comparison or logic operators)"
            else:
                msg = f"unexpected character {c!r}"
            append(Token(Kind.ERROR, c, line, col, None, msg))
            pos += 1
            continue
        end = m.end()
        if group == "ws" or group == "name" or group == "op":  # most tokens
            append(Token(_KINDS[group], text[pos:end], line, col))
        elif group == "string":
            end, value, error, newlines = _scan_string(text, pos)
            append(Token(Kind.ERROR if error else Kind.STRING, text[pos:end], line, col, value,
                         error))
            if newlines:
                line += newlines
                line_start = line_breaks(text, pos, end)[1]
        elif group == "number":
            value, error = _number(m.group())
            append(Token(Kind.ERROR if error else Kind.NUMBER, text[pos:end], line, col, value,
                         error))
        else:
            append(Token(_KINDS[group], text[pos:end], line, col))
            if group == "newline":
                line, line_start = line + 1, end
        pos = end
    tokens.append(Token(Kind.EOF, "", line, pos - line_start + 1))
    return tokens


def _number(s: str) -> tuple[float | int | None, str]:
    """The value of a number literal, or an error for an integer too large for a Real."""
    if any(ch in s for ch in ".eE"):
        return float(s), ""  # out of range overflows to inf, reported where it is used
    digits = len(s.lstrip("0"))
    if digits > MAX_INT_DIGITS or (digits == MAX_INT_DIGITS and int(s) > _MAX_REAL):
        return None, (f"integer literal with {digits} digits is out of range (a number must "
                      "fit a 64-bit float)")
    return int(s), ""


_MAX_REAL = int(sys.float_info.max)


def _scan_string(text: str, pos: int) -> tuple[int, str, str, int]:
    """Scan a string literal at ``pos``: returns (end, value, error, newlines consumed).

    ``"..."`` may not contain a line break; ``\"\"\"...\"\"\"`` may.  ``@"..."`` and
    ``$"..."`` are plain strings with a prefix.  There are no escape sequences.
    """
    start = pos
    if text[pos] in "@$":
        pos += 1
    if text.startswith('"""', pos):
        close = text.find('"""', pos + 3)
        if close < 0:
            end = len(text)
            return end, "", "unterminated triple-quoted string", line_breaks(text, start, end)[0]
        end = close + 3
        return end, text[pos + 3:close], "", line_breaks(text, start, end)[0]
    end = pos + 1
    while end < len(text) and text[end] not in '"\r\n':
        end += 1
    if end >= len(text) or text[end] != '"':
        return end, "", "unterminated string (a line ends before the closing quote)", 0
    return end + 1, text[pos + 1:end], "", 0
