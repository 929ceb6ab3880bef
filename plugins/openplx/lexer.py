"""Lossless tokenizer for OpenPLX source.

Every character of the input belongs to exactly one token, whitespace and comments
included, so joining the ``text`` of all tokens gives the input back byte for byte.
The parser ignores the trivia kinds (``WS``, ``COMMENT``) but keeps them in the tree for
the writer.
"""

from __future__ import annotations

import enum
import re
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
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_WS = re.compile(r"[ \t\f\v]+")
_OPS = ("->", ":", ".", ",", "(", ")", "[", "]", "{", "}", "+", "-", "*", "/")


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens; never raises (bad input becomes ``ERROR`` tokens)."""
    tokens: list[Token] = []
    pos, line, line_start, n = 0, 1, 0, len(text)

    def add(kind: Kind, end: int, value: object = None, error: str = "") -> None:
        nonlocal pos
        tokens.append(Token(kind, text[pos:end], line, pos - line_start + 1, value, error))
        pos = end

    if text.startswith("\ufeff"):
        add(Kind.WS, 1)
    while pos < n:
        c = text[pos]
        if c == "\n" or c == "\r":
            end = pos + 2 if text.startswith("\r\n", pos) else pos + 1
            add(Kind.NEWLINE, end)
            line, line_start = line + 1, pos
            continue
        m = _WS.match(text, pos)
        if m:
            add(Kind.WS, m.end())
            continue
        if c == "#":
            end = pos
            while end < n and text[end] not in "\r\n":
                end += 1
            add(Kind.COMMENT, end)
            continue
        m = _NAME.match(text, pos)
        if m:
            add(Kind.NAME, m.end())
            continue
        m = _NUMBER.match(text, pos)
        if m:
            s = m.group()
            add(Kind.NUMBER, m.end(), float(s) if any(ch in s for ch in ".eE") else int(s))
            continue
        if c == '"' or (c in "@$" and text.startswith('"', pos + 1)):
            start_line, start_col = line, pos - line_start + 1
            end, value, error, newlines = _scan_string(text, pos)
            tokens.append(Token(Kind.ERROR if error else Kind.STRING, text[pos:end], start_line,
                                start_col, value, error))
            if newlines:
                line += newlines
                line_start = line_breaks(text, pos, end)[1]
            pos = end
            continue
        for op in _OPS:
            if text.startswith(op, pos):
                add(Kind.OP, pos + len(op))
                break
        else:
            if c == "'":
                msg = "single quotes do not delimit strings; use double quotes"
            elif c in "<>=!&|":
                msg = f"unexpected character '{c}' (OpenPLX has no comparison or logic operators)"
            else:
                msg = f"unexpected character {c!r}"
            add(Kind.ERROR, pos + 1, error=msg)
    tokens.append(Token(Kind.EOF, "", line, pos - line_start + 1))
    return tokens


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
