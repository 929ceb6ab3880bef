"""The concrete-syntax-aware tree of an OpenPLX file.

Expressions and types are ordinary AST nodes with a position.  Statements (one logical
line each) also keep the exact tokens of their line (indentation, spaces, trailing
comment, line break) and the blank/comment lines before them (``leading``), so
:meth:`SourceFile.to_text` rebuilds the file byte for byte from the tree.  A statement
that did not parse is kept as an :class:`ErrorStmt` with its text.
"""

from __future__ import annotations

from typing import Any, Iterator

from .lexer import Kind, Token, TokenSpan, line_breaks

__all__ = [
    "Node", "Expr", "NumberLit", "StringLit", "BoolLit", "NameRef", "ThisRef", "Member", "Call",
    "Index", "Unary", "Binary", "ArrayLit", "InitLit", "Paren", "QName", "TypeRef", "TypeExpr",
    "Param", "Stmt", "Import", "ModelDecl", "GlobalDecl", "OperatorDecl", "Annotation",
    "TraitUse", "MethodDecl", "AttrDecl", "Becomes", "Assign", "ErrorStmt", "SourceFile",
    "unparse_expr",
]

# The nodes are plain classes written out (they were dataclasses: the same constructors,
# attributes and repr, without the code generation that made importing this module cost
# as much as parsing a small file).  Equality is identity, as with ``eq=False``.

#: Default of a list attribute: each node gets a new empty list.
_NEW_LIST: Any = object()


class Node:
    """Anything with a position: ``file``, 1-based ``line`` and ``col``."""

    #: The attributes ``repr`` shows, in constructor order.
    _repr_fields: tuple[str, ...] = ("file", "line", "col")

    def __init__(self, file: str, line: int, col: int) -> None:
        self.file = file
        self.line = line
        self.col = col

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._repr_fields)
        return f"{type(self).__qualname__}({fields})"


# -- expressions --------------------------------------------------------------------


class Expr(Node):
    pass


class NumberLit(Expr):
    _repr_fields = ("file", "line", "col", "text", "value")

    def __init__(self, file: str, line: int, col: int, text: str, value: int | float) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.text = text
        self.value = value


class StringLit(Expr):
    """``kind``: ``plain`` ("..."), ``triple`` (\"\"\"...\"\"\"), ``at`` (@"..."), ``dollar``."""

    _repr_fields = ("file", "line", "col", "text", "value", "kind")

    def __init__(self, file: str, line: int, col: int, text: str, value: str,
                 kind: str = "plain") -> None:
        self.file = file
        self.line = line
        self.col = col
        self.text = text
        self.value = value
        self.kind = kind


class BoolLit(Expr):
    _repr_fields = ("file", "line", "col", "value")

    def __init__(self, file: str, line: int, col: int, value: bool) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.value = value


class NameRef(Expr):
    _repr_fields = ("file", "line", "col", "name")

    def __init__(self, file: str, line: int, col: int, name: str) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.name = name


class ThisRef(Expr):
    pass


class Member(Expr):
    """``target.name``; the position is that of ``name``."""

    _repr_fields = ("file", "line", "col", "target", "name")

    def __init__(self, file: str, line: int, col: int, target: Expr, name: str) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.target = target
        self.name = name


class Call(Expr):
    _repr_fields = ("file", "line", "col", "func", "args")

    def __init__(self, file: str, line: int, col: int, func: Expr, args: list[Expr]) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.func = func
        self.args = args


class Index(Expr):
    _repr_fields = ("file", "line", "col", "target", "index")

    def __init__(self, file: str, line: int, col: int, target: Expr, index: Expr) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.target = target
        self.index = index


class Unary(Expr):
    _repr_fields = ("file", "line", "col", "op", "operand")

    def __init__(self, file: str, line: int, col: int, op: str, operand: Expr) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.op = op
        self.operand = operand


class Binary(Expr):
    _repr_fields = ("file", "line", "col", "op", "left", "right")

    def __init__(self, file: str, line: int, col: int, op: str, left: Expr, right: Expr) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.op = op
        self.left = left
        self.right = right


class ArrayLit(Expr):
    _repr_fields = ("file", "line", "col", "items")

    def __init__(self, file: str, line: int, col: int, items: list[Expr]) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.items = items


class InitLit(Expr):
    """``{a, b, c}``: fills the target type's attributes in declaration order."""

    _repr_fields = ("file", "line", "col", "items")

    def __init__(self, file: str, line: int, col: int, items: list[Expr]) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.items = items


class Paren(Expr):
    _repr_fields = ("file", "line", "col", "inner")

    def __init__(self, file: str, line: int, col: int, inner: Expr) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.inner = inner


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


def unparse_expr(e: Expr) -> str:
    """Canonical text of an expression (the writer uses it for generated statements)."""
    if isinstance(e, NumberLit):
        return e.text
    if isinstance(e, StringLit):
        prefix = {"at": "@", "dollar": "$"}.get(e.kind, "")
        return e.text if e.text else f'{prefix}"{e.value}"'
    if isinstance(e, BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, NameRef):
        return e.name
    if isinstance(e, ThisRef):
        return "this"
    if isinstance(e, Member):
        return f"{unparse_expr(e.target)}.{e.name}"
    if isinstance(e, Call):
        return f"{unparse_expr(e.func)}({', '.join(unparse_expr(a) for a in e.args)})"
    if isinstance(e, Index):
        return f"{unparse_expr(e.target)}[{unparse_expr(e.index)}]"
    if isinstance(e, Unary):
        return f"{e.op}{unparse_expr(e.operand)}"
    if isinstance(e, Binary):
        # Left-deep chains (a + b + c ...) can be thousands of terms long: no recursion
        # along the left spine.
        right: list[str] = []
        while isinstance(e, Binary):
            right.append(f" {e.op} {unparse_expr(e.right)}")
            e = e.left
        return unparse_expr(e) + "".join(reversed(right))
    if isinstance(e, ArrayLit):
        return "[" + ", ".join(unparse_expr(i) for i in e.items) + "]"
    if isinstance(e, InitLit):
        return "{" + ", ".join(unparse_expr(i) for i in e.items) + "}"
    if isinstance(e, Paren):
        return f"({unparse_expr(e.inner)})"
    raise TypeError(f"not an expression: {e!r}")


# -- types --------------------------------------------------------------------------


class QName(Node):
    """A dotted name ``A.B.C`` (type names, trait names, attribute paths)."""

    _repr_fields = ("file", "line", "col", "parts")

    def __init__(self, file: str, line: int, col: int, parts: tuple[str, ...]) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.parts = parts

    def __str__(self) -> str:
        return ".".join(self.parts)


class TypeRef(Node):
    _repr_fields = ("file", "line", "col", "name", "array")

    def __init__(self, file: str, line: int, col: int, name: QName, array: bool = False) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.name = name
        self.array = array

    def __str__(self) -> str:
        return f"{self.name}[]" if self.array else str(self.name)


class TypeExpr(Node):
    """``T [with A, B] {or U}`` with an optional trailing ``reference``."""

    _repr_fields = ("file", "line", "col", "options", "traits", "reference")

    def __init__(self, file: str, line: int, col: int, options: list[TypeRef],
                 traits: list[QName] = _NEW_LIST, reference: bool = False) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.options = options
        self.traits = [] if traits is _NEW_LIST else traits
        self.reference = reference

    def __str__(self) -> str:
        text = str(self.options[0])
        if self.traits:
            text += " with " + ", ".join(str(t) for t in self.traits)
        for o in self.options[1:]:
            text += f" or {o}"
        if self.reference:
            text += " reference"
        return text


class Param(Node):
    _repr_fields = ("file", "line", "col", "name", "type")

    def __init__(self, file: str, line: int, col: int, name: str, type: TypeRef) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.name = name
        self.type = type


# -- statements ---------------------------------------------------------------------


class Stmt(Node):
    """One logical line plus its block.

    ``tokens`` is the statement's own line exactly as written (from the indentation to
    the line break, possibly several physical lines for a triple-quoted string);
    ``leading`` are the blank and comment lines just before it; ``children`` the
    statements of the indented block the line opens (its last token is ``:``).
    """

    _repr_fields = ("file", "line", "col", "has_block")

    def __init__(self, file: str, line: int, col: int, tokens: list[Token] = _NEW_LIST,
                 leading: list[Token] = _NEW_LIST, children: list[Stmt] = _NEW_LIST,
                 has_block: bool = False) -> None:
        self.file = file
        self.line = line
        self.col = col
        self._tokens = [] if tokens is _NEW_LIST else tokens
        self._leading = [] if leading is _NEW_LIST else leading
        self.children = [] if children is _NEW_LIST else children
        self.has_block = has_block

    # The parser may give a statement its tokens as a TokenSpan: they are made on first use.
    @property
    def tokens(self) -> list[Token]:
        t = self._tokens
        if t.__class__ is TokenSpan:
            t = self._tokens = t.tokens()
        return t

    @tokens.setter
    def tokens(self, value: list[Token]) -> None:
        self._tokens = value

    @property
    def leading(self) -> list[Token]:
        t = self._leading
        if t.__class__ is TokenSpan:
            t = self._leading = t.tokens()
        return t

    @leading.setter
    def leading(self, value: list[Token]) -> None:
        self._leading = value

    @property
    def indent(self) -> str:
        t = self.tokens[0] if self.tokens else None
        return t.text if t is not None and t.kind is Kind.WS and t.col == 1 else ""

    @property
    def trailing_comment(self) -> str:
        comments = [t.text for t in self.tokens if t.kind is Kind.COMMENT]
        return comments[-1] if comments else ""

    def own_text(self) -> str:
        return "".join(t.text for t in self.tokens)

    def to_text(self) -> str:
        """This statement, its leading trivia and its whole block, as written."""
        parts: list[str] = []
        self._emit(parts)
        return "".join(parts)

    def _emit(self, parts: list[str]) -> None:
        for s in self.walk():
            parts.extend(t.text for t in s.leading)
            parts.extend(t.text for t in s.tokens)

    def walk(self) -> Iterator["Stmt"]:
        """This statement and every statement of its block, in file order.  Iterative:
        hostile files nest blocks thousands of levels deep."""
        stack: list[Stmt] = [self]
        while stack:
            s = stack.pop()
            yield s
            stack.extend(reversed(s.children))

    @property
    def end_line(self) -> int:
        """Last physical line of the statement and its block."""
        last = self
        while last.children:
            last = last.children[-1]
        toks = [t for t in last.tokens if t.kind is not Kind.EOF]
        if not toks:
            return last.line
        t = toks[-1]
        return t.line + line_breaks(t.text)[0] - (1 if t.kind is Kind.NEWLINE else 0)


class Import(Stmt):
    _repr_fields = ("file", "line", "col", "has_block", "path", "alias")

    def __init__(self, file: str, line: int, col: int, tokens: list[Token] = _NEW_LIST,
                 leading: list[Token] = _NEW_LIST, children: list[Stmt] = _NEW_LIST,
                 has_block: bool = False, path: StringLit | None = None,
                 alias: QName | None = None) -> None:
        self.file = file
        self.line = line
        self.col = col
        self._tokens = [] if tokens is _NEW_LIST else tokens
        self._leading = [] if leading is _NEW_LIST else leading
        self.children = [] if children is _NEW_LIST else children
        self.has_block = has_block
        self.path = path
        self.alias = alias


class ModelDecl(Stmt):
    """A top-level model or trait: ``[const] Name [is Base [with T...]]:``."""

    _repr_fields = ("file", "line", "col", "has_block", "name", "base", "is_trait", "is_const")

    def __init__(self, file: str, line: int, col: int, tokens: list[Token] = _NEW_LIST,
                 leading: list[Token] = _NEW_LIST, children: list[Stmt] = _NEW_LIST,
                 has_block: bool = False, name: str = "",
                 base: TypeExpr | None = None,
                 is_trait: bool = False,
                 is_const: bool = False) -> None:
        self.file = file
        self.line = line
        self.col = col
        self._tokens = [] if tokens is _NEW_LIST else tokens
        self._leading = [] if leading is _NEW_LIST else leading
        self.children = [] if children is _NEW_LIST else children
        self.has_block = has_block
        self.name = name
        self.base = base
        self.is_trait = is_trait
        self.is_const = is_const


class GlobalDecl(Stmt):
    """A top-level attribute with a value: ``PI is Real: 3.14``."""

    _repr_fields = ("file", "line", "col", "has_block", "name", "type", "value", "is_const")

    def __init__(self, file: str, line: int, col: int, tokens: list[Token] = _NEW_LIST,
                 leading: list[Token] = _NEW_LIST, children: list[Stmt] = _NEW_LIST,
                 has_block: bool = False, name: str = "",
                 type: TypeExpr | None = None,
                 value: Expr | None = None,
                 is_const: bool = False) -> None:
        self.file = file
        self.line = line
        self.col = col
        self._tokens = [] if tokens is _NEW_LIST else tokens
        self._leading = [] if leading is _NEW_LIST else leading
        self.children = [] if children is _NEW_LIST else children
        self.has_block = has_block
        self.name = name
        self.type = type
        self.value = value
        self.is_const = is_const


class OperatorDecl(Stmt):
    _repr_fields = ("file", "line", "col", "has_block", "op", "params", "returns")

    def __init__(self, file: str, line: int, col: int, tokens: list[Token] = _NEW_LIST,
                 leading: list[Token] = _NEW_LIST, children: list[Stmt] = _NEW_LIST,
                 has_block: bool = False, op: str = "",
                 params: list[Param] = _NEW_LIST,
                 returns: TypeRef | None = None) -> None:
        self.file = file
        self.line = line
        self.col = col
        self._tokens = [] if tokens is _NEW_LIST else tokens
        self._leading = [] if leading is _NEW_LIST else leading
        self.children = [] if children is _NEW_LIST else children
        self.has_block = has_block
        self.op = op
        self.params = [] if params is _NEW_LIST else params
        self.returns = returns


class Annotation(Stmt):
    """``.name: literal`` metadata (``.doc`` and friends)."""

    _repr_fields = ("file", "line", "col", "has_block", "name", "value")

    def __init__(self, file: str, line: int, col: int, tokens: list[Token] = _NEW_LIST,
                 leading: list[Token] = _NEW_LIST, children: list[Stmt] = _NEW_LIST,
                 has_block: bool = False, name: str = "",
                 value: Expr | None = None) -> None:
        self.file = file
        self.line = line
        self.col = col
        self._tokens = [] if tokens is _NEW_LIST else tokens
        self._leading = [] if leading is _NEW_LIST else leading
        self.children = [] if children is _NEW_LIST else children
        self.has_block = has_block
        self.name = name
        self.value = value


class TraitUse(Stmt):
    _repr_fields = ("file", "line", "col", "has_block", "traits")

    def __init__(self, file: str, line: int, col: int, tokens: list[Token] = _NEW_LIST,
                 leading: list[Token] = _NEW_LIST, children: list[Stmt] = _NEW_LIST,
                 has_block: bool = False, traits: list[QName] = _NEW_LIST) -> None:
        self.file = file
        self.line = line
        self.col = col
        self._tokens = [] if tokens is _NEW_LIST else tokens
        self._leading = [] if leading is _NEW_LIST else leading
        self.children = [] if children is _NEW_LIST else children
        self.has_block = has_block
        self.traits = [] if traits is _NEW_LIST else traits


class MethodDecl(Stmt):
    _repr_fields = ("file", "line", "col", "has_block", "name", "params", "returns", "static")

    def __init__(self, file: str, line: int, col: int, tokens: list[Token] = _NEW_LIST,
                 leading: list[Token] = _NEW_LIST, children: list[Stmt] = _NEW_LIST,
                 has_block: bool = False, name: str = "",
                 params: list[Param] = _NEW_LIST,
                 returns: TypeRef | None = None,
                 static: bool = False) -> None:
        self.file = file
        self.line = line
        self.col = col
        self._tokens = [] if tokens is _NEW_LIST else tokens
        self._leading = [] if leading is _NEW_LIST else leading
        self.children = [] if children is _NEW_LIST else children
        self.has_block = has_block
        self.name = name
        self.params = [] if params is _NEW_LIST else params
        self.returns = returns
        self.static = static


class AttrDecl(Stmt):
    """``[optional] [const] a.b is T [reference] [: value | : block]``."""

    _repr_fields = ("file", "line", "col", "has_block", "path", "type", "value", "optional",
                    "is_const")

    def __init__(self, file: str, line: int, col: int, tokens: list[Token] = _NEW_LIST,
                 leading: list[Token] = _NEW_LIST, children: list[Stmt] = _NEW_LIST,
                 has_block: bool = False, path: QName | None = None,
                 type: TypeExpr | None = None,
                 value: Expr | None = None,
                 optional: bool = False,
                 is_const: bool = False) -> None:
        self.file = file
        self.line = line
        self.col = col
        self._tokens = [] if tokens is _NEW_LIST else tokens
        self._leading = [] if leading is _NEW_LIST else leading
        self.children = [] if children is _NEW_LIST else children
        self.has_block = has_block
        self.path = path
        self.type = type
        self.value = value
        self.optional = optional
        self.is_const = is_const


class Becomes(Stmt):
    """``a becomes T [with Tr] [: value | : block]``: narrows an inherited attribute."""

    _repr_fields = ("file", "line", "col", "has_block", "path", "type", "value")

    def __init__(self, file: str, line: int, col: int, tokens: list[Token] = _NEW_LIST,
                 leading: list[Token] = _NEW_LIST, children: list[Stmt] = _NEW_LIST,
                 has_block: bool = False, path: QName | None = None,
                 type: TypeExpr | None = None,
                 value: Expr | None = None) -> None:
        self.file = file
        self.line = line
        self.col = col
        self._tokens = [] if tokens is _NEW_LIST else tokens
        self._leading = [] if leading is _NEW_LIST else leading
        self.children = [] if children is _NEW_LIST else children
        self.has_block = has_block
        self.path = path
        self.type = type
        self.value = value


class Assign(Stmt):
    """``a.b.c: value`` or ``a.b:`` followed by a block."""

    _repr_fields = ("file", "line", "col", "has_block", "path", "value")

    def __init__(self, file: str, line: int, col: int, tokens: list[Token] = _NEW_LIST,
                 leading: list[Token] = _NEW_LIST, children: list[Stmt] = _NEW_LIST,
                 has_block: bool = False, path: QName | None = None,
                 value: Expr | None = None) -> None:
        self.file = file
        self.line = line
        self.col = col
        self._tokens = [] if tokens is _NEW_LIST else tokens
        self._leading = [] if leading is _NEW_LIST else leading
        self.children = [] if children is _NEW_LIST else children
        self.has_block = has_block
        self.path = path
        self.value = value


class ErrorStmt(Stmt):
    """A line that did not parse; kept verbatim (with its block) for the writer."""

    _repr_fields = ("file", "line", "col", "has_block", "message")

    def __init__(self, file: str, line: int, col: int, tokens: list[Token] = _NEW_LIST,
                 leading: list[Token] = _NEW_LIST, children: list[Stmt] = _NEW_LIST,
                 has_block: bool = False, message: str = "") -> None:
        self.file = file
        self.line = line
        self.col = col
        self._tokens = [] if tokens is _NEW_LIST else tokens
        self._leading = [] if leading is _NEW_LIST else leading
        self.children = [] if children is _NEW_LIST else children
        self.has_block = has_block
        self.message = message


class SourceFile:
    """A parsed file: top-level statements, trailing trivia and the problems found."""

    def __init__(self, path: str, statements: list[Stmt], trailing: list[Token],
                 problems: list = _NEW_LIST) -> None:
        self.path = path
        self.statements = statements
        self._trailing = trailing
        self.problems = [] if problems is _NEW_LIST else problems

    @property
    def trailing(self) -> list[Token]:
        t = self._trailing
        if t.__class__ is TokenSpan:
            t = self._trailing = t.tokens()
        return t

    @trailing.setter
    def trailing(self, value: list[Token]) -> None:
        self._trailing = value

    def __repr__(self) -> str:
        return (f"{type(self).__qualname__}(path={self.path!r}, statements={self.statements!r}, "
                f"trailing={self.trailing!r}, problems={self.problems!r})")

    def to_text(self) -> str:
        parts: list[str] = []
        for s in self.statements:
            s._emit(parts)
        parts.extend(t.text for t in self.trailing)
        return "".join(parts)

    def walk(self) -> Iterator[Stmt]:
        for s in self.statements:
            yield from s.walk()

    @property
    def models(self) -> list[ModelDecl]:
        return [s for s in self.statements if isinstance(s, ModelDecl)]

    def model(self, name: str) -> ModelDecl | None:
        for s in self.statements:
            if isinstance(s, ModelDecl) and s.name == name:
                return s
        return None

    @property
    def ok(self) -> bool:
        return not self.problems
