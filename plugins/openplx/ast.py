"""The concrete-syntax-aware tree of an OpenPLX file.

Expressions and types are ordinary AST nodes with a position.  Statements (one logical
line each) also keep the exact tokens of their line (indentation, spaces, trailing
comment, line break) and the blank/comment lines before them (``leading``), so
:meth:`SourceFile.to_text` rebuilds the file byte for byte from the tree.  A statement
that did not parse is kept as an :class:`ErrorStmt` with its text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from .lexer import Kind, Token, line_breaks

__all__ = [
    "Node", "Expr", "NumberLit", "StringLit", "BoolLit", "NameRef", "ThisRef", "Member", "Call",
    "Index", "Unary", "Binary", "ArrayLit", "InitLit", "Paren", "QName", "TypeRef", "TypeExpr",
    "Param", "Stmt", "Import", "ModelDecl", "GlobalDecl", "OperatorDecl", "Annotation",
    "TraitUse", "MethodDecl", "AttrDecl", "Becomes", "Assign", "ErrorStmt", "SourceFile",
    "unparse_expr",
]


@dataclass(eq=False)
class Node:
    """Anything with a position: ``file``, 1-based ``line`` and ``col``."""

    file: str
    line: int
    col: int


# -- expressions --------------------------------------------------------------------


@dataclass(eq=False)
class Expr(Node):
    pass


@dataclass(eq=False)
class NumberLit(Expr):
    text: str
    value: int | float


@dataclass(eq=False)
class StringLit(Expr):
    """``kind``: ``plain`` ("..."), ``triple`` (\"\"\"...\"\"\"), ``at`` (@"..."), ``dollar``."""

    text: str
    value: str
    kind: str = "plain"


@dataclass(eq=False)
class BoolLit(Expr):
    value: bool


@dataclass(eq=False)
class NameRef(Expr):
    name: str


@dataclass(eq=False)
class ThisRef(Expr):
    pass


@dataclass(eq=False)
class Member(Expr):
    """``target.name``; the position is that of ``name``."""

    target: Expr
    name: str


@dataclass(eq=False)
class Call(Expr):
    func: Expr
    args: list[Expr]


@dataclass(eq=False)
class Index(Expr):
    target: Expr
    index: Expr


@dataclass(eq=False)
class Unary(Expr):
    op: str
    operand: Expr


@dataclass(eq=False)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(eq=False)
class ArrayLit(Expr):
    items: list[Expr]


@dataclass(eq=False)
class InitLit(Expr):
    """``{a, b, c}``: fills the target type's attributes in declaration order."""

    items: list[Expr]


@dataclass(eq=False)
class Paren(Expr):
    inner: Expr


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


@dataclass(eq=False)
class QName(Node):
    """A dotted name ``A.B.C`` (type names, trait names, attribute paths)."""

    parts: tuple[str, ...]

    def __str__(self) -> str:
        return ".".join(self.parts)


@dataclass(eq=False)
class TypeRef(Node):
    name: QName
    array: bool = False

    def __str__(self) -> str:
        return f"{self.name}[]" if self.array else str(self.name)


@dataclass(eq=False)
class TypeExpr(Node):
    """``T [with A, B] {or U}`` with an optional trailing ``reference``."""

    options: list[TypeRef]
    traits: list[QName] = field(default_factory=list)
    reference: bool = False

    def __str__(self) -> str:
        text = str(self.options[0])
        if self.traits:
            text += " with " + ", ".join(str(t) for t in self.traits)
        for o in self.options[1:]:
            text += f" or {o}"
        if self.reference:
            text += " reference"
        return text


@dataclass(eq=False)
class Param(Node):
    name: str
    type: TypeRef


# -- statements ---------------------------------------------------------------------


@dataclass(eq=False)
class Stmt(Node):
    """One logical line plus its block.

    ``tokens`` is the statement's own line exactly as written (from the indentation to
    the line break, possibly several physical lines for a triple-quoted string);
    ``leading`` are the blank and comment lines just before it; ``children`` the
    statements of the indented block the line opens (its last token is ``:``).
    """

    tokens: list[Token] = field(default_factory=list, repr=False)
    leading: list[Token] = field(default_factory=list, repr=False)
    children: list["Stmt"] = field(default_factory=list, repr=False)
    has_block: bool = False

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


@dataclass(eq=False)
class Import(Stmt):
    path: StringLit | None = None
    alias: QName | None = None


@dataclass(eq=False)
class ModelDecl(Stmt):
    """A top-level model or trait: ``[const] Name [is Base [with T...]]:``."""

    name: str = ""
    base: TypeExpr | None = None
    is_trait: bool = False
    is_const: bool = False


@dataclass(eq=False)
class GlobalDecl(Stmt):
    """A top-level attribute with a value: ``PI is Real: 3.14``."""

    name: str = ""
    type: TypeExpr | None = None
    value: Expr | None = None
    is_const: bool = False


@dataclass(eq=False)
class OperatorDecl(Stmt):
    op: str = ""
    params: list[Param] = field(default_factory=list)
    returns: TypeRef | None = None


@dataclass(eq=False)
class Annotation(Stmt):
    """``.name: literal`` metadata (``.doc`` and friends)."""

    name: str = ""
    value: Expr | None = None


@dataclass(eq=False)
class TraitUse(Stmt):
    traits: list[QName] = field(default_factory=list)


@dataclass(eq=False)
class MethodDecl(Stmt):
    name: str = ""
    params: list[Param] = field(default_factory=list)
    returns: TypeRef | None = None
    static: bool = False


@dataclass(eq=False)
class AttrDecl(Stmt):
    """``[optional] [const] a.b is T [reference] [: value | : block]``."""

    path: QName | None = None
    type: TypeExpr | None = None
    value: Expr | None = None
    optional: bool = False
    is_const: bool = False


@dataclass(eq=False)
class Becomes(Stmt):
    """``a becomes T [with Tr] [: value | : block]``: narrows an inherited attribute."""

    path: QName | None = None
    type: TypeExpr | None = None
    value: Expr | None = None


@dataclass(eq=False)
class Assign(Stmt):
    """``a.b.c: value`` or ``a.b:`` followed by a block."""

    path: QName | None = None
    value: Expr | None = None


@dataclass(eq=False)
class ErrorStmt(Stmt):
    """A line that did not parse; kept verbatim (with its block) for the writer."""

    message: str = ""


@dataclass(eq=False)
class SourceFile:
    """A parsed file: top-level statements, trailing trivia and the problems found."""

    path: str
    statements: list[Stmt]
    trailing: list[Token]
    problems: list = field(default_factory=list)

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
