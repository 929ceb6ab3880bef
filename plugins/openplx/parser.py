"""Recursive-descent parser for OpenPLX (the dialect of openplx-bundles 0.19.0).

The file is first cut into logical lines (a triple-quoted string may span several
physical lines), then the indentation decides the block structure, then each line is
parsed as one statement.  A line that fails to parse becomes an :class:`ErrorStmt`
(its block is kept unparsed) and one problem is recorded; parsing always goes on, so a
file with mistakes still yields a tree and every mistake found in one pass.

Indentation follows the 0.16 runtime's tolerance: a block is everything indented
deeper than the line that opened it; siblings share the block's indentation, except that
a line may be deeper than a preceding annotation (``World.openplx`` does this).
"""

from __future__ import annotations

from operator import attrgetter

from . import ast as A
from .errors import OpenPlxProblem, OpenPlxSyntaxError
from .lexer import KEYWORDS, TRIVIA, Kind, Token, TokenSpan, line_breaks, scan_lines, tokenize

__all__ = ["parse", "parse_expression"]

_LITERAL_STRING_KINDS = {'"': "plain", "@": "at", "$": "dollar"}
_KIND_OF = attrgetter("kind")
_OP, _NAME = Kind.OP, Kind.NAME

#: Brackets, parentheses, calls, indexing and unary signs may nest this deep in one
#: expression.  Real files stay below ten; the limit keeps hostile input from exhausting
#: the parser's (and the evaluator's) recursion.
MAX_EXPR_NESTING = 100


def parse(text: str, path: str = "") -> A.SourceFile:
    """Parse OpenPLX source.  Never raises for bad input: see ``SourceFile.problems``."""
    return _FileParser(text, path).run()


def parse_expression(text: str, path: str = "") -> A.Expr:
    """Parse a single expression (raises :class:`OpenPlxSyntaxError` when it is not one)."""
    toks = [t for t in tokenize(text)
            if t.kind not in TRIVIA and t.kind not in (Kind.NEWLINE, Kind.EOF)]
    p = _LineParser(toks, path)
    expr = p.expr()
    p.expect_end("expression")
    return expr


# -- block structure ------------------------------------------------------------------


class _Line:
    """A logical line.  (Plain classes here and below: a dataclass costs more to create,
    at import, than parsing a small file.)"""

    __slots__ = ("tokens", "sig", "indent", "error")

    def __init__(self, tokens: list[Token] | TokenSpan, sig: list[Token], indent: int,
                 error: tuple[str, int, int] | None = None) -> None:
        # all tokens of the logical line, incl. trivia and newline (or a span making them)
        self.tokens = tokens
        self.sig = sig  # significant tokens
        self.indent = indent  # indentation width (tabs to multiples of 8)
        self.error = error  # a structural error found while splitting


class _Frame:
    """A block being parsed: the statement that opened it and its indentation."""

    __slots__ = ("owner", "owner_indent", "block_indent", "children", "raw", "last")

    def __init__(self, owner: A.Stmt | None, owner_indent: int, block_indent: int | None,
                 children: list[A.Stmt], raw: bool = False, last: A.Stmt | None = None
                 ) -> None:
        self.owner = owner
        self.owner_indent = owner_indent
        self.block_indent = block_indent
        self.children = children
        self.raw = raw
        self.last = last


def _indent_width(tok: Token) -> int:
    return _text_indent_width(tok.text)


def _text_indent_width(text: str) -> int:
    width = 0
    for ch in text:
        if ch == "\ufeff":  # a byte order mark is not indentation
            continue
        width = (width // 8 + 1) * 8 if ch == "\t" else width + 1
    return width


def _split_lines(tokens: list[Token]) -> tuple[list[_Line], list[tuple[Token, int]]]:
    """Cut tokens into logical lines; also return the brackets left open.

    Inside ``()``, ``[]`` and ``{}`` a line break does not end the line (bundle files
    write long arrays over several lines).  A continuation line must be indented deeper
    than the statement, or as deep when it starts with the closing bracket; otherwise the
    bracket is reported unclosed and the statement ends at the previous line, so one
    missing bracket cannot swallow the rest of the file.
    """
    lines: list[_Line] = []
    unclosed: list[tuple[Token, int]] = []
    current: list[Token] = []
    opened: list[Token] = []
    stmt_indent = 0
    n = len(tokens)
    EOF, WS, OP, NEWLINE = Kind.EOF, Kind.WS, Kind.OP, Kind.NEWLINE  # locals: the hot loop
    for i, tok in enumerate(tokens):
        kind = tok.kind
        if kind is EOF:
            break
        if not current:
            stmt_indent = _indent_width(tok) if kind is WS and tok.col == 1 else 0
        elif opened and tok.col == 1 and kind is not NEWLINE:
            j = i + 1 if kind is WS else i
            first = tokens[j] if j < n else tok
            if first.kind not in (Kind.NEWLINE, Kind.COMMENT, Kind.EOF):
                indent = _indent_width(tok) if kind is WS else 0
                closing = first.kind is Kind.OP and first.text in ")]}"
                if indent < stmt_indent or (indent == stmt_indent and not closing):
                    unclosed.append((opened[0], len(lines)))
                    lines.append(_make_line(current))
                    current, opened = [], []
                    # this token starts the next line
                    stmt_indent = _indent_width(tok) if kind is WS else 0
        current.append(tok)
        if kind is OP:
            text = tok.text
            if text in "([{":
                opened.append(tok)
            elif text in ")]}" and opened:
                opened.pop()
        elif kind is NEWLINE and not opened:
            lines.append(_make_line(current))
            current = []
    if current:
        if opened:
            unclosed.append((opened[0], len(lines)))
        lines.append(_make_line(current))
    return lines, unclosed


_INSIGNIFICANT = frozenset({*TRIVIA, Kind.NEWLINE})
_INDENTS: dict[str, int] = {}


def _make_line(tokens: list[Token]) -> _Line:
    sig = [t for t in tokens if t.kind not in _INSIGNIFICANT]
    first = tokens[0]
    indent = _indent_of(first.text) if first.kind is Kind.WS and first.col == 1 else 0
    if first.text == "\ufeff" and len(tokens) > 1 and tokens[1].kind is Kind.WS:
        indent = _indent_width(tokens[1])
    return _Line(tokens, sig, indent)


def _indent_of(text: str) -> int:
    """The width of an indentation (the few that files use are kept)."""
    indent = _INDENTS.get(text, -1)
    if indent < 0:
        indent = _text_indent_width(text)
        if len(text) <= 64:
            _INDENTS[text] = indent
    return indent


def _scanned_lines(text: str, scanned: list) -> list[_Line]:
    """The lines :func:`.lexer.scan_lines` found, their tokens left to be made."""
    return [_Line(TokenSpan(text, start, end, line), sig,
                  _indent_of(indent) if indent is not None else 0)
            for start, end, line, sig, indent in scanned]


class _FileParser:
    def __init__(self, text: str, path: str) -> None:
        self.path = path
        self.text = text
        self.problems: list[OpenPlxProblem] = []
        scanned = scan_lines(text)
        if scanned is not None:
            # The usual file: lines cut while scanning, only significant tokens made.
            self.lines, self.unclosed = _scanned_lines(text, scanned[0]), []
            #: Any ERROR token at all?  (Lines are searched for one only when there is.)
            self.has_bad_tokens = scanned[1]
        else:
            tokens = tokenize(text)
            self.lines, self.unclosed = _split_lines(tokens)
            self.has_bad_tokens = Kind.ERROR in map(_KIND_OF, tokens)

    def problem(self, message: str, line: int, col: int) -> None:
        self.problems.append(OpenPlxProblem(message, self.path, line, col))

    def run(self) -> A.SourceFile:
        root = _Frame(None, -1, 0, [])
        stack = [root]
        # The blank and comment lines before the next statement: their tokens, or (lines
        # from scan_lines) the first one's span, which is extended to the statement.
        pending: list[Token] | TokenSpan = []
        lines, unclosed = self.lines, self.unclosed
        unclosed_at = {index: tok for tok, index in unclosed}
        for index, line in enumerate(lines):
            if index in unclosed_at:
                tok = unclosed_at[index]
                line.error = (f"'{tok.text}' is never closed", tok.line, tok.col)
            if not line.sig:
                if line.tokens.__class__ is TokenSpan:
                    if not pending:
                        pending = line.tokens
                    else:
                        pending.end = line.tokens.end  # type: ignore[union-attr]
                else:
                    pending.extend(line.tokens)  # type: ignore[union-attr]
                continue
            first = line.sig[0]
            w = line.indent
            while len(stack) > 1 and w <= stack[-1].owner_indent:
                self._close(stack.pop())
            top = stack[-1]
            if top.block_indent is None:
                top.block_indent = w
            raw_reason = ""
            if w > top.block_indent:
                if isinstance(top.last, A.Annotation) and not top.raw:
                    top.block_indent = w  # tolerated: deeper than a preceding annotation
                else:
                    raw_reason = "unexpected indentation"
            elif w < top.block_indent:
                raw_reason = "indentation does not match any outer block"
            if top.raw:
                stmt: A.Stmt = self._raw(line, "")
            elif raw_reason:
                self.problem(raw_reason, first.line, first.col)
                stmt = self._raw(line, raw_reason)
            else:
                stmt = self._statement(line, top_level=top.owner is None)
                if (isinstance(stmt, A.TraitUse) and isinstance(top.owner, A.ModelDecl)
                        and top.owner.is_trait):
                    message = "a trait cannot use 'with'; extend the other trait with 'is'"
                    self.problem(message, first.line, first.col)
                    stmt = self._raw(line, message)
            stmt.leading, pending = pending, []
            top.children.append(stmt)
            top.last = stmt
            if stmt.has_block:
                stack.append(_Frame(stmt, w, None, stmt.children,
                                    raw=top.raw or isinstance(stmt, A.ErrorStmt)))
        while len(stack) > 1:
            self._close(stack.pop())
        return A.SourceFile(self.path, root.children, pending, self.problems)

    def _close(self, frame: _Frame) -> None:
        if frame.block_indent is None and not frame.raw and frame.owner is not None:
            colon = [t for t in frame.owner.tokens if t.is_op(":")][-1]
            self.problem("expected an indented block after ':'", colon.line, colon.col)

    def _raw(self, line: _Line, message: str) -> A.ErrorStmt:
        first = line.sig[0]
        ends_block = line.sig[-1].is_op(":")
        return A.ErrorStmt(self.path, first.line, first.col, tokens=line.tokens,
                           has_block=ends_block, message=message)

    def _statement(self, line: _Line, top_level: bool) -> A.Stmt:
        p = _LineParser(line.sig, self.path)
        try:
            if line.error is not None:
                raise OpenPlxSyntaxError(*line.error)
            if self.has_bad_tokens:
                bad = next((t for t in line.sig if t.kind is Kind.ERROR), None)
                if bad is not None:
                    raise OpenPlxSyntaxError(bad.error, bad.line, bad.col)
            stmt = p.top_statement() if top_level else p.member_statement()
        except OpenPlxSyntaxError as exc:
            self.problem(exc.message, exc.line, exc.col)
            return self._raw(line, exc.message)
        stmt.tokens = line.tokens
        return stmt


# -- one logical line ----------------------------------------------------------------


class _LineParser:
    """Parses the significant tokens of one logical line."""

    __slots__ = ("toks", "n", "path", "i", "depth")

    def __init__(self, toks: list[Token], path: str) -> None:
        self.toks = toks
        self.n = len(toks)
        self.path = path
        self.i = 0
        self.depth = 0  # current bracket/sign nesting of the expression being parsed

    @property
    def end_pos(self) -> tuple[int, int]:
        """Position reported for "end of line": just after the last token."""
        if not self.toks:
            return (1, 1)
        last = self.toks[-1]
        breaks, after = line_breaks(last.text)
        if breaks:
            return (last.line + breaks, len(last.text) - after + 1)
        return (last.line, last.col + len(last.text))

    # -- token helpers -------------------------------------------------------------
    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.toks[j] if j < self.n else None

    def at_end(self) -> bool:
        return self.i >= self.n

    def next(self) -> Token:
        tok = self.peek()
        if tok is None:
            raise self.error_at_end("unexpected end of line")
        self.i += 1
        return tok

    def error(self, message: str, tok: Token | None) -> OpenPlxSyntaxError:
        if tok is None:
            return self.error_at_end(message)
        return OpenPlxSyntaxError(message, tok.line, tok.col)

    def error_at_end(self, message: str) -> OpenPlxSyntaxError:
        return OpenPlxSyntaxError(message, *self.end_pos)

    def describe(self, tok: Token | None) -> str:
        if tok is None:
            return "end of line"
        if tok.kind is Kind.STRING:
            return "a string"
        return f"'{tok.text}'"

    # accept_op/accept_kw/ident are the parser's inner loop: written out for speed.
    def accept_op(self, text: str) -> Token | None:
        i = self.i
        if i < self.n:
            tok = self.toks[i]
            if tok.kind is _OP and tok.text == text:
                self.i = i + 1
                return tok
        return None

    def accept_kw(self, word: str) -> Token | None:
        i = self.i
        if i < self.n:
            tok = self.toks[i]
            if tok.kind is _NAME and tok.text == word:
                self.i = i + 1
                return tok
        return None

    def expect_op(self, text: str, what: str) -> Token:
        tok = self.peek()
        if tok is None or not tok.is_op(text):
            raise self.error(f"expected '{text}' {what}, found {self.describe(tok)}", tok)
        self.i += 1
        return tok

    def expect_end(self, what: str) -> None:
        tok = self.peek()
        if tok is not None:
            raise self.error(f"unexpected {self.describe(tok)} after {what}", tok)

    def ident(self, what: str) -> Token:
        i = self.i
        tok = self.toks[i] if i < self.n else None
        if tok is None or tok.kind is not Kind.NAME:
            raise self.error(f"expected {what}, found {self.describe(tok)}", tok)
        if tok.text in KEYWORDS:
            raise self.error(f"'{tok.text}' is a keyword and cannot be used as {what}", tok)
        self.i += 1
        return tok

    def qname(self, what: str) -> A.QName:
        first = self.ident(what)
        parts = [first.text]
        toks, n = self.toks, self.n
        while self.i < n:
            tok = toks[self.i]
            if tok.kind is not _OP or tok.text != ".":
                break
            self.i += 1
            parts.append(self.ident(what).text)
        return A.QName(self.path, first.line, first.col, tuple(parts))

    def node_args(self, tok: Token) -> tuple[str, int, int]:
        return self.path, tok.line, tok.col

    # -- statements -----------------------------------------------------------------
    def block_or_value(self) -> tuple[bool, A.Expr | None]:
        """After ':' : either the end of the line (a block follows) or an expression."""
        if self.at_end():
            return True, None
        value = self.expr()
        self.expect_end("the value")
        return False, value

    def keyword_as_name(self) -> None:
        """``with is Real`` would otherwise read as a trait list: name the real mistake."""
        first, second = self.peek(), self.peek(1)
        if (first is not None and first.kind is Kind.NAME and first.text in KEYWORDS
                and second is not None and (second.is_name("is") or second.is_name("becomes")
                                            or second.is_op(":"))):
            raise self.error(f"'{first.text}' is a keyword and cannot be used as a name", first)

    def top_statement(self) -> A.Stmt:
        first = self.peek()
        pos = self.node_args(first)
        if first is not None and first.kind is _NAME and first.text not in KEYWORDS:
            # The common case, a model or a global: no keyword form below applies.
            return self._declaration(pos, False)
        self.keyword_as_name()
        if first.is_name("import"):
            self.i += 1
            tok = self.peek()
            if tok is None or tok.kind is not Kind.STRING:
                raise self.error(f"expected a file name string after 'import', found "
                                 f"{self.describe(tok)}", tok)
            path = self.string_lit(self.next())
            alias = None
            if self.accept_kw("as"):
                alias = self.qname("an import alias")
            self.expect_end("the import")
            return A.Import(*pos, path=path, alias=alias)
        if first.is_name("trait"):
            self.i += 1
            name = self.ident("a trait name")
            base = None
            if self.accept_kw("is"):
                base = self.type_expr()
                self.check_model_base(base, "a trait")
            has_block = bool(self.accept_op(":"))
            self.expect_end("the trait declaration")
            return A.ModelDecl(*pos, name=name.text, base=base, is_trait=True, has_block=has_block)
        if first.is_name("operator"):
            self.i += 1
            op = self.next()
            if op.kind is not Kind.OP or op.text not in "+-*/":
                raise self.error(f"expected one of + - * / after 'operator', found "
                                 f"{self.describe(op)}", op)
            params = self.params()
            returns = self.returns()
            self.expect_end("the operator declaration")
            return A.OperatorDecl(*pos, op=op.text, params=params, returns=returns)
        return self._declaration(pos, bool(self.accept_kw("const")))

    def _declaration(self, pos: tuple[str, int, int], is_const: bool) -> A.Stmt:
        """``Name [is Base]: ...`` or ``Name is Type: value`` (after ``const``, if any)."""
        tok = self.peek()
        if tok is None or tok.kind is not Kind.NAME:
            raise self.error("expected a model, trait, operator or import declaration, found "
                             f"{self.describe(tok)}", tok)
        if tok.text in KEYWORDS:
            raise self.error(f"unexpected keyword '{tok.text}' at the start of a declaration",
                             tok)
        name = self.ident("a model name")
        nxt = self.peek()
        if nxt is not None and nxt.is_op("."):
            raise self.error("a top-level declaration needs a plain name (no '.'), "
                             "or is this line indented wrongly?", nxt)
        base = None
        if self.accept_kw("is"):
            base = self.type_expr()
        elif nxt is not None and not nxt.is_op(":"):
            raise self.error(f"expected 'is' or ':' after the model name, found "
                             f"{self.describe(nxt)}", nxt)
        if self.accept_op(":"):
            has_block, value = self.block_or_value()
            if value is not None:
                if base is None:
                    raise self.error("a top-level value needs a type: write 'Name is Type: "
                                     "value'", self.toks[1])
                return A.GlobalDecl(*pos, name=name.text, type=base, value=value,
                                    is_const=is_const)
            if base is not None:
                self.check_model_base(base, "a model")
            return A.ModelDecl(*pos, name=name.text, base=base, is_const=is_const,
                               has_block=True)
        self.expect_end("the model declaration")
        return A.ModelDecl(*pos, name=name.text, base=base, is_const=is_const)

    def check_model_base(self, base: A.TypeExpr, what: str) -> None:
        """What a model or trait extends is one model: no array, union or reference (a
        top-level value such as ``X is Real[]: [1]`` may have those types)."""
        if len(base.options) > 1:
            raise self.error(f"{what} extends one model, not a union ('or')", base.options[1])
        if base.options[0].array:
            raise self.error(f"{what} cannot extend an array type", base.options[0])
        if base.reference:
            raise self.error(f"'reference' marks an attribute's type; {what} cannot extend a "
                             "reference", base)
        if what == "a trait" and base.traits:
            raise self.error("a trait cannot use 'with'; extend the other trait with 'is'",
                             base.traits[0])

    def member_statement(self) -> A.Stmt:
        first = self.peek()
        pos = self.node_args(first)
        if first is not None and first.kind is _NAME and first.text not in KEYWORDS:
            # The common case, 'a.b is T', 'a.b becomes T' or 'a.b: value': no keyword
            # form below applies.
            return self._simple_member(first) or self._attribute(pos, False, False)
        self.keyword_as_name()
        if first.is_op("."):
            self.i += 1
            name = self.ident("an annotation name")
            self.expect_op(":", "after the annotation name")
            value = self.annotation_value()
            self.expect_end("the annotation value")
            return A.Annotation(*pos, name=name.text, value=value)
        if first.is_name("with"):
            self.i += 1
            traits = [self.qname("a trait name")]
            while self.accept_op(","):
                traits.append(self.qname("a trait name"))
            self.expect_end("the trait list")
            return A.TraitUse(*pos, traits=traits)
        static = bool(self.accept_kw("static"))
        if static or first.is_name("fn"):
            if not self.accept_kw("fn"):
                raise self.error("expected 'fn' after 'static'", self.peek())
            name = self.ident("a method name")
            params = self.params()
            returns = self.returns()
            self.expect_end("the method declaration")
            return A.MethodDecl(*pos, name=name.text, params=params, returns=returns,
                                static=static)
        optional = bool(self.accept_kw("optional"))
        is_const = bool(self.accept_kw("const"))
        return self._attribute(pos, optional, is_const)

    def _simple_member(self, first: Token) -> A.Stmt | None:
        """The two most frequent members, ``name is A.B.C`` (with ``:`` for a block) and
        ``a.b: 1.5``, built at once: exactly the nodes :meth:`_attribute` builds for them.
        None for any other line (it goes the general way, which also finds the mistakes)."""
        toks, n, path = self.toks, self.n, self.path
        if n < 3:
            return None
        second = toks[1]
        if second.kind is _NAME and second.text == "is":
            i, parts = 2, []
            while True:  # the type's dotted name
                tok = toks[i]
                if tok.kind is not _NAME or tok.text in KEYWORDS:
                    return None
                parts.append(tok.text)
                i += 1
                if i + 1 < n and toks[i].kind is _OP and toks[i].text == ".":
                    i += 1
                    continue
                break
            has_block = False
            if i < n:
                last = toks[i]
                if i != n - 1 or last.kind is not _OP or last.text != ":":
                    return None
                has_block = True
            name_tok = toks[2]
            ref = A.TypeRef(path, name_tok.line, name_tok.col,
                            A.QName(path, name_tok.line, name_tok.col, tuple(parts)), False)
            self.i = n
            return A.AttrDecl(path, first.line, first.col, has_block=has_block,
                              path=A.QName(path, first.line, first.col, (first.text,)),
                              type=A.TypeExpr(path, ref.line, ref.col, [ref], [], False),
                              value=None, optional=False, is_const=False)
        if second.kind is not _OP or second.text != ":":
            return None
        last = toks[-1]
        if n == 3 and last.kind is Kind.NUMBER:
            value: A.Expr = A.NumberLit(path, last.line, last.col, last.text, last.value)
        elif n > 4 and last.kind is _OP and last.text == "]" and toks[2].kind is _OP \
                and toks[2].text == "[":
            # 'connectors: [a.end, b.start]': an array of dotted names
            items: list[A.Expr] = []
            i = 3
            while True:
                tok = toks[i]
                if tok.kind is not _NAME or tok.text in KEYWORDS:
                    return None
                item: A.Expr = A.NameRef(path, tok.line, tok.col, tok.text)
                i += 1
                dots = 0
                while toks[i].kind is _OP and toks[i].text == ".":
                    tok = toks[i + 1]
                    dots += 1
                    if i + 1 == n - 1 or tok.kind is not _NAME or tok.text in KEYWORDS \
                            or dots > 50:  # (the nesting limit is for the general way)
                        return None
                    item = A.Member(path, tok.line, tok.col, item, tok.text)
                    i += 2
                items.append(item)
                if i == n - 1:
                    break
                if toks[i].kind is not _OP or toks[i].text != "," or i + 1 == n - 1:
                    return None
                i += 1
            value = A.ArrayLit(path, toks[2].line, toks[2].col, items)
        else:
            return None
        self.i = n
        return A.Assign(path, first.line, first.col, has_block=False,
                        path=A.QName(path, first.line, first.col, (first.text,)), value=value)

    def _attribute(self, pos: tuple[str, int, int], optional: bool, is_const: bool) -> A.Stmt:
        """An attribute declaration, ``becomes`` or assignment, from its path on."""
        path = self.qname("an attribute name")
        if self.accept_kw("is"):
            typ = self.type_expr()
            has_block, value = False, None
            if self.accept_op(":"):
                has_block, value = self.block_or_value()
            else:
                self.expect_end("the attribute declaration")
            return A.AttrDecl(*pos, path=path, type=typ, value=value, optional=optional,
                              is_const=is_const, has_block=has_block)
        if optional or is_const:
            raise self.error("expected 'is' in an attribute declaration", self.peek())
        if self.accept_kw("becomes"):
            typ = self.type_expr()
            has_block, value = False, None
            if self.accept_op(":"):
                has_block, value = self.block_or_value()
            else:
                self.expect_end("the 'becomes' declaration")
            return A.Becomes(*pos, path=path, type=typ, value=value, has_block=has_block)
        tok = self.peek()
        if tok is None or not tok.is_op(":"):
            raise self.error(f"expected ':', 'is' or 'becomes' after '{path}', found "
                             f"{self.describe(tok)}", tok)
        self.i += 1
        has_block, value = self.block_or_value()
        return A.Assign(*pos, path=path, value=value, has_block=has_block)

    def annotation_value(self) -> A.Expr:
        tok = self.peek()
        neg = None
        if tok is not None and tok.is_op("-"):
            neg = self.next()
            tok = self.peek()
        if tok is not None and tok.kind is Kind.NUMBER:
            self.i += 1
            lit = A.NumberLit(*self.node_args(tok), text=tok.text, value=tok.value)
            if neg is not None:
                return A.Unary(*self.node_args(neg), op="-", operand=lit)
            return lit
        if neg is None and tok is not None:
            if tok.kind is Kind.STRING:
                return self.string_lit(self.next())
            if tok.is_name("true") or tok.is_name("false"):
                self.i += 1
                return A.BoolLit(*self.node_args(tok), value=tok.text == "true")
        raise self.error("an annotation value must be a constant (string, number, true or "
                         f"false), found {self.describe(tok)}", tok)

    def params(self) -> list[A.Param]:
        self.expect_op("(", "to open the parameter list")
        params: list[A.Param] = []
        if self.accept_op(")"):
            return params
        while True:
            name = self.ident("a parameter name")
            self.expect_op(":", f"after parameter '{name.text}'")
            params.append(A.Param(*self.node_args(name), name=name.text, type=self.type_ref()))
            if self.accept_op(")"):
                return params
            self.expect_op(",", "or ')' in the parameter list")

    def returns(self) -> A.TypeRef | None:
        if self.accept_op("->"):
            return self.type_ref()
        return None

    def type_ref(self) -> A.TypeRef:
        name = self.qname("a type name")
        array = False
        if self.accept_op("["):
            self.expect_op("]", "to close the array type")
            array = True
        return A.TypeRef(self.path, name.line, name.col, name=name, array=array)

    def type_expr(self) -> A.TypeExpr:
        first = self.type_ref()
        options: list[A.TypeRef] = [first]
        traits: list[A.QName] = []
        i = self.i
        if i >= self.n or self.toks[i].kind is not _NAME:  # no 'with', 'or', 'reference'
            return A.TypeExpr(self.path, first.line, first.col, options, traits, False)
        if self.accept_kw("with"):
            traits.append(self.qname("a trait name"))
            while self.accept_op(","):
                traits.append(self.qname("a trait name"))
        while self.accept_kw("or"):
            options.append(self.type_ref())
        reference = bool(self.accept_kw("reference"))
        return A.TypeExpr(self.path, first.line, first.col, options=options, traits=traits,
                          reference=reference)

    # -- expressions ----------------------------------------------------------------
    def expr(self) -> A.Expr:
        left = self.term()
        toks, n = self.toks, self.n
        while self.i < n:
            tok = toks[self.i]
            if tok.kind is not _OP or (tok.text != "+" and tok.text != "-"):
                break
            self.i += 1
            left = A.Binary(self.path, tok.line, tok.col, tok.text, left, self.term())
        return left

    def term(self) -> A.Expr:
        left = self.unary()
        toks, n = self.toks, self.n
        while self.i < n:
            tok = toks[self.i]
            if tok.kind is not _OP or (tok.text != "*" and tok.text != "/"):
                break
            self.i += 1
            left = A.Binary(self.path, tok.line, tok.col, tok.text, left, self.unary())
        return left

    def nest(self, tok: Token) -> None:
        """Enter one more nesting level at ``tok`` (an opening bracket or a sign)."""
        self.depth += 1
        if self.depth > MAX_EXPR_NESTING:
            raise self.error(f"expression nested too deeply (more than {MAX_EXPR_NESTING} "
                             "levels of brackets, '.', calls, indexing or signs)", tok)

    def unary(self) -> A.Expr:
        tok = self.toks[self.i] if self.i < self.n else None
        if tok is not None and tok.kind is _OP and (tok.text == "-" or tok.text == "+"):
            self.i += 1
            self.nest(tok)
            operand = self.unary()
            self.depth -= 1
            return A.Unary(*self.node_args(tok), op=tok.text, operand=operand)
        return self.postfix()

    def postfix(self) -> A.Expr:
        e = self.primary()
        start = self.depth  # each '.', call and index nests the expression one level more
        toks, n = self.toks, self.n
        while True:
            tok = toks[self.i] if self.i < n else None
            if tok is None or tok.kind is not _OP or tok.text not in ".([":
                self.depth = start
                return e
            self.i += 1
            self.nest(tok)
            if tok.text == ".":
                name = self.ident("an attribute or method name after '.'")
                e = A.Member(self.path, name.line, name.col, e, name.text)
            elif tok.text == "(":
                e = A.Call(self.path, tok.line, tok.col, e, self.items(")", "argument list"))
            else:
                index = self.expr()
                self.expect_op("]", "to close the index")
                e = A.Index(self.path, tok.line, tok.col, e, index)

    def items(self, close: str, what: str) -> list[A.Expr]:
        out: list[A.Expr] = []
        if self.accept_op(close):
            return out
        while True:
            out.append(self.expr())
            if self.accept_op(close):
                return out
            comma = self.peek()
            if comma is None or not comma.is_op(","):
                raise self.error(f"expected ',' or '{close}' in the {what}, found "
                                 f"{self.describe(comma)}", comma)
            self.i += 1
            nxt = self.peek()
            if nxt is not None and nxt.is_op(close):
                raise self.error(f"trailing comma in the {what}", comma)

    def string_lit(self, tok: Token) -> A.StringLit:
        text = tok.text
        kind = _LITERAL_STRING_KINDS[text[0]]
        if text.lstrip("@$").startswith('"""'):
            kind = "triple" if kind == "plain" else kind
        return A.StringLit(*self.node_args(tok), text=text, value=tok.value, kind=kind)

    def primary(self) -> A.Expr:
        tok = self.toks[self.i] if self.i < self.n else None
        if tok is None:
            raise self.error_at_end("expected a value, found end of line")
        kind = tok.kind
        if kind is _NAME:
            text = tok.text
            if text not in KEYWORDS:
                self.i += 1
                return A.NameRef(self.path, tok.line, tok.col, text)
            if text in ("true", "false"):
                self.i += 1
                return A.BoolLit(self.path, tok.line, tok.col, text == "true")
            if text == "this":
                self.i += 1
                return A.ThisRef(self.path, tok.line, tok.col)
            raise self.error(f"unexpected keyword '{text}' in an expression", tok)
        pos = self.node_args(tok)
        if kind is Kind.NUMBER:
            self.i += 1
            return A.NumberLit(*pos, text=tok.text, value=tok.value)
        if kind is Kind.STRING:
            self.i += 1
            return self.string_lit(tok)
        if tok.is_op("("):
            self.i += 1
            self.nest(tok)
            inner = self.expr()
            self.expect_op(")", "to close the parenthesis")
            self.depth -= 1
            return A.Paren(*pos, inner=inner)
        if tok.is_op("["):
            self.i += 1
            self.nest(tok)
            items = self.items("]", "array")
            self.depth -= 1
            return A.ArrayLit(*pos, items=items)
        if tok.is_op("{"):
            self.i += 1
            self.nest(tok)
            items = self.items("}", "initializer")
            self.depth -= 1
            return A.InitLit(*pos, items=items)
        raise self.error(f"expected a value, found {self.describe(tok)}", tok)
