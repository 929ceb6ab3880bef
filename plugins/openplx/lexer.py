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

__all__ = ["Kind", "Token", "tokenize", "tokens_between", "TokenSpan", "scan_lines", "TRIVIA",
           "KEYWORDS", "LINE_BREAK", "line_breaks"]


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
#: Every token, tried in this order at each position.  Strings are matched whole: a
#: triple-quoted one up to the first closing quotes (or, unterminated, to the end of the
#: text), a plain one up to its closing quote (or, unterminated, to the line break); any
#: other character is an ``error`` token of its own.  So every character belongs to a
#: match and one ``finditer`` walks the whole text (it reads every byte of every bundle
#: file a load needs).
_TOKEN = re.compile(r"""
    (?P<ws>[ \t\f\v]+)
  | (?P<name>[^\W\d]\w*)
  | (?P<op>->|[:.,()\[\]{}+\-*/])
  | (?P<newline>\r\n|\r|\n)
  | (?P<number>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
  | (?P<comment>\#[^\r\n]*)
  | (?P<string>[@$]?(?:"{3}[\s\S]*?"{3}|"{3}[\s\S]*|"[^"\r\n]*"?))
  | (?P<error>[\s\S])
""", re.VERBOSE)
_WS, _NAME_GROUP, _OP, _NEWLINE, _NUMBER_GROUP, _COMMENT, _STRING = (
    _TOKEN.groupindex[g] for g in ("ws", "name", "op", "newline", "number", "comment", "string"))
#: ``_TOKEN`` for :func:`scan_lines`: the spaces before a token are part of its match (one
#: match per token instead of two); spaces at the very end match alone (no group).
_SCAN = re.compile(r"""
    [ \t\f\v]*
    (?:
        (?P<name>[^\W\d]\w*)
      | (?P<op>->|[:.,()\[\]{}+\-*/])
      | (?P<newline>\r\n|\r|\n)
      | (?P<number>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
      | (?P<comment>\#[^\r\n]*)
      | (?P<string>[@$]?(?:"{3}[\s\S]*?"{3}|"{3}[\s\S]*|"[^"\r\n]*"?))
      | (?P<error>[^ \t\f\v])
    )
  | [ \t\f\v]+
""", re.VERBOSE)
_S_NAME, _S_OP, _S_NEWLINE, _S_COMMENT = (
    _SCAN.groupindex[g] for g in ("name", "op", "newline", "comment"))
#: _SCAN's group numbers of the rare kinds, as _rare() knows them (_TOKEN's).
_RARE_OF_SCAN = {_SCAN.groupindex[g]: _TOKEN.groupindex[g] for g in ("number", "string", "error")}


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens; never raises (bad input becomes ``ERROR`` tokens)."""
    tokens, line, line_start = _tokenize(text, 0, len(text), 1, 0)
    tokens.append(Token(Kind.EOF, "", line, len(text) - line_start + 1))
    return tokens


def tokens_between(text: str, start: int, end: int, line: int) -> list[Token]:
    """The tokens :func:`tokenize` makes for ``text[start:end]``, where ``start`` begins
    line ``line`` and ``end`` ends a token (no ``EOF``)."""
    return _tokenize(text, start, end, line, start)[0]


def _tokenize(text: str, pos: int, end: int, line: int, line_start: int
              ) -> tuple[list[Token], int, int]:
    """The tokens of ``text[pos:end]``, and the line and the index it starts at after them."""
    tokens: list[Token] = []
    append = tokens.append
    if pos == 0 and text.startswith("\ufeff"):
        append(Token(Kind.WS, "\ufeff", 1, 1))
        pos = 1
    # The loop makes a Token per character run of the input: tokens are made without
    # calling the dataclass __init__ (a Python frame each), their fields set here.
    new, T = object.__new__, Token
    WS, NAME, OP, NEWLINE = Kind.WS, Kind.NAME, Kind.OP, Kind.NEWLINE
    for m in _TOKEN.finditer(text, pos, end):
        group = m.lastindex  # the groups of _TOKEN, by number: ints compare fastest
        tok = new(T)
        tok.text = m.group()
        tok.line = line
        tok.col = m.start() - line_start + 1
        tok.value = None
        tok.error = ""
        if group == _WS:
            tok.kind = WS
        elif group == _NAME_GROUP:
            tok.kind = NAME
        elif group == _OP:
            tok.kind = OP
        elif group == _NEWLINE:
            tok.kind = NEWLINE
            line, line_start = line + 1, m.end()
        elif group == _COMMENT:
            tok.kind = Kind.COMMENT
        else:
            line, line_start = _rare(tok, group, text, m.start(), m.end(), line, line_start)
        append(tok)
    return tokens, line, line_start


def _rare(tok: Token, group: int, text: str, start: int, end: int, line: int,
          line_start: int) -> tuple[int, int]:
    """Kind, value and error of a number, string or error token; returns the line and
    the index its start, after it (a triple-quoted string may span lines)."""
    if group == _NUMBER_GROUP:
        tok.value, tok.error = _number(tok.text)
        tok.kind = Kind.ERROR if tok.error else Kind.NUMBER
    elif group == _STRING:
        tok.value, tok.error = _string(tok.text)
        tok.kind = Kind.ERROR if tok.error else Kind.STRING
        if "\n" in tok.text or "\r" in tok.text:  # a triple-quoted string's lines
            newlines, after = line_breaks(text, start, end)
            line, line_start = line + newlines, after
    else:
        c = tok.text
        if c == "'":
            tok.error = "single quotes do not delimit strings; use double quotes"
        elif c in "<>=!&|":
            tok.error = (f"unexpected character '{c}' (OpenPLX has no comparison or logic "
                         "operators)")
        else:
            tok.error = f"unexpected character {c!r}"
        tok.kind = Kind.ERROR
    return line, line_start


class TokenSpan:
    """The tokens of ``text[start:end]``, made when first asked for (:meth:`tokens`).

    A statement keeps the exact tokens of its line (spaces, comments, line break) for the
    writer; a load that only evaluates never reads them, so they wait here."""

    __slots__ = ("text", "start", "end", "line")

    def __init__(self, text: str, start: int, end: int, line: int) -> None:
        self.text, self.start, self.end, self.line = text, start, end, line

    def tokens(self) -> list[Token]:
        return tokens_between(self.text, self.start, self.end, self.line)


#: A logical line found by :func:`scan_lines`: ``(start, end, line, significant tokens,
#: indentation text or None)``.
ScannedLine = tuple[int, int, int, list[Token], "str | None"]


def scan_lines(text: str) -> tuple[list[ScannedLine], bool] | None:
    """Logical lines of a text in which no bracket stays open at a line break or at the
    end (the usual file), with only their significant tokens made (the others are what
    ``TokenSpan(text, start, end, line)`` makes later); and whether an ``ERROR`` token was
    met.  None for any other text (or one with a byte order mark anywhere): the parser cuts
    :func:`tokenize`'s tokens into lines then."""
    if "\ufeff" in text:  # (the parser measures the indentation after one specially)
        return None
    lines: list[ScannedLine] = []
    sig: list[Token] = []
    line, line_start = 1, 0  # physical line and the index it starts at
    start, first_line = 0, 1  # the logical line's start and its first physical line
    indent: str | None = None
    depth = 0  # brackets open, counted as the parser's line splitting counts them
    bad = False
    new, T = object.__new__, Token
    NAME, OP = Kind.NAME, Kind.OP
    S_NAME, S_OP, S_NEWLINE, S_COMMENT = _S_NAME, _S_OP, _S_NEWLINE, _S_COMMENT
    for m in _SCAN.finditer(text):
        group = m.lastindex
        if group is None:  # spaces at the end of the text
            if m.start() == start:
                indent = m.group()
            continue
        at = m.start(group)
        if at != m.start() and m.start() == start:  # the indentation: spaces at column 1
            indent = text[start:at]
        if group == S_NEWLINE:
            if depth:
                return None  # a statement continues on the next line
            line, line_start = line + 1, m.end()
            lines.append((start, line_start, first_line, sig, indent))
            sig, start, first_line, indent = [], line_start, line, None
            continue
        if group == S_COMMENT:
            continue
        tok = new(T)
        tok.text = m.group(group)
        tok.line = line
        tok.col = at - line_start + 1
        tok.value = None
        tok.error = ""
        if group == S_NAME:
            tok.kind = NAME
        elif group == S_OP:
            tok.kind = OP
            if tok.text in "([{":
                depth += 1
            elif depth and tok.text in ")]}":
                depth -= 1
        else:
            line, line_start = _rare(tok, _RARE_OF_SCAN[group], text, at, m.end(), line,
                                     line_start)
            bad = bad or tok.kind is Kind.ERROR
        sig.append(tok)
    if depth:
        return None  # brackets never closed
    if start < len(text):
        lines.append((start, len(text), first_line, sig, indent))
    return lines, bad


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


def _string(text: str) -> tuple[str, str]:
    """``(value, error)`` of a string literal's whole text (as ``_TOKEN`` matches it).

    ``"..."`` may not contain a line break; ``\"\"\"...\"\"\"`` may.  ``@"..."`` and
    ``$"..."`` are plain strings with a prefix.  There are no escape sequences.
    """
    body = text[1:] if text[0] in "@$" else text
    if body.startswith('"""'):
        if len(body) >= 6 and body.endswith('"""'):
            return body[3:-3], ""
        return "", "unterminated triple-quoted string"
    if len(body) >= 2 and body.endswith('"'):
        return body[1:-1], ""
    return "", "unterminated string (a line ends before the closing quote)"
