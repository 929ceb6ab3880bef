"""Minimal, text-preserving edits of a parsed OpenPLX file.

The editor works on the concrete syntax tree: statements it does not touch keep their
exact tokens (comments, spacing, annotations, constructs Snapframe does not understand),
so :meth:`SourceEditor.text` differs from the original only where an edit was made.

Edits address attribute paths inside one top-level model: ``find(model, path)`` lists the
statements that assign ``path`` or a part of it (following nested blocks and dotted
paths), ``remove`` deletes a statement (turning an emptied block owner back into a plain
line), ``set_block`` writes ``path:`` with a block of lines and ``set_value`` writes
``path: value``, each nested into the deepest existing statement of the model that
already opens ``path``'s prefix; ``append`` adds statements to a block and ``retype``
changes a declaration's type in place.
"""

from __future__ import annotations

from . import ast as A
from .lexer import Kind, Token
from .parser import parse

__all__ = ["SourceEditor"]


class SourceEditor:
    """Edits a :class:`SourceFile` in place."""

    def __init__(self, source: A.SourceFile, original_text: str = "") -> None:
        self.source = source
        self.newline = "\r\n" if "\r\n" in original_text else "\n"
        self.changed = False

    def text(self) -> str:
        return self.source.to_text()

    # -- finding ------------------------------------------------------------------
    def _walk(self, stmts: list[A.Stmt], prefix: tuple[str, ...], owner: A.Stmt | None):
        """(statement, its full attribute path or None, its container, its owner) in file
        order, following blocks of path statements (iterative: blocks may nest deeply)."""
        stack = [(stmts, prefix, owner, 0)]
        while stack:
            container, pre, own, i = stack.pop()
            if i >= len(container):
                continue
            s = container[i]
            stack.append((container, pre, own, i + 1))
            path = getattr(s, "path", None)
            full = pre + path.parts if isinstance(path, A.QName) else None
            yield s, full, container, own
            if full is not None and s.children:
                stack.append((s.children, full, s, 0))

    def find(self, model: A.ModelDecl, target: tuple[str, ...]) -> list[A.Stmt]:
        """Statements of ``model`` that assign ``target`` or one of its parts."""
        out = []
        for s, full, _, _ in self._walk(model.children, (), model):
            if full is not None and full[:len(target)] == target and not isinstance(s, A.Becomes):
                out.append(s)
        # A statement inside another found one is removed with it.
        return [s for s in out if not any(s is not o and _contains(o, s) for o in out)]

    def _locate(self, stmt: A.Stmt) -> tuple[list[A.Stmt], A.Stmt | None] | None:
        for top in self.source.statements:
            if top is stmt:
                return self.source.statements, None
            for s in top.walk():
                if stmt in s.children:
                    return s.children, s
        return None

    # -- removing -----------------------------------------------------------------
    def remove(self, stmt: A.Stmt) -> None:
        """Delete ``stmt`` and its block; comments before it move to what follows."""
        where = self._locate(stmt)
        if where is None:
            raise ValueError("statement is not part of this file")
        container, owner = where
        following = self._next_in_file(stmt)
        if following is not None:
            following.leading[:0] = stmt.leading
        else:
            self.source.trailing[:0] = stmt.leading
        container.remove(stmt)
        self.changed = True
        if owner is not None and not owner.children:
            if isinstance(owner, A.Assign):
                self.remove(owner)
            else:
                self._drop_colon(owner)

    def _next_in_file(self, stmt: A.Stmt) -> A.Stmt | None:
        order = list(self.source.walk())
        last = stmt
        while last.children:
            last = last.children[-1]
        i = order.index(last)
        return order[i + 1] if i + 1 < len(order) else None

    def _drop_colon(self, owner: A.Stmt) -> None:
        toks = owner.tokens
        i = max(k for k, t in enumerate(toks) if t.is_op(":"))
        j = i
        while j > 0 and toks[j - 1].kind is Kind.WS and toks[j - 1].col != 1:
            j -= 1
        del toks[j:i + 1]
        owner.has_block = False

    # -- adding -------------------------------------------------------------------
    def _host(self, model: A.ModelDecl, target: tuple[str, ...]) -> tuple[A.Stmt, tuple[str, ...]]:
        """The deepest statement of ``model`` whose block opens a proper prefix of
        ``target`` (else ``model``), and the rest of ``target`` from there."""
        host: A.Stmt = model
        rest = target
        best = 0
        for s, full, _, _ in self._walk(model.children, (), model):
            if full is None or not isinstance(s, (A.AttrDecl, A.Assign, A.Becomes)) or \
                    getattr(s, "value", None) is not None:
                continue
            if best < len(full) < len(target) and target[:len(full)] == full:
                host, rest, best = s, target[len(full):], len(full)
        return host, rest

    def set_block(self, model: A.ModelDecl, target: tuple[str, ...], lines: list[str]) -> None:
        """Write ``target:`` followed by ``lines`` (one more level in) into ``model``."""
        host, rest = self._host(model, target)
        if not rest:
            self.append(host, lines)
            return
        body = [".".join(rest) + ":"] + ["    " + line for line in lines]
        self.append(host, body)

    def set_value(self, model: A.ModelDecl, target: tuple[str, ...], value: str) -> None:
        """Write ``target: value`` into ``model`` (nested like :meth:`set_block`)."""
        host, rest = self._host(model, target)
        self.append(host, [".".join(rest) + ": " + value])

    def retype(self, stmt: A.AttrDecl, type_text: str) -> None:
        """Give the declaration ``stmt`` the type ``type_text`` in place (its block,
        comments and position in the file stay)."""
        toks = stmt.tokens
        start = next(i for i, t in enumerate(toks) if t.is_name("is")) + 1
        while start < len(toks) and toks[start].kind is Kind.WS:
            start += 1
        end = start
        for i in range(start, len(toks)):
            t = toks[i]
            if t.is_op(":") or t.kind in (Kind.COMMENT, Kind.NEWLINE, Kind.EOF):
                break
            if t.kind is not Kind.WS:
                end = i + 1
        first = toks[start]
        toks[start:end] = [Token(Kind.NAME, type_text, first.line, first.col)]
        self.changed = True

    def append(self, host: A.Stmt, lines: list[str]) -> None:
        """Append statements (given as lines with relative 4-space indentation) at the end
        of ``host``'s block, opening the block if ``host`` has none."""
        unit, base = self._indentation(host)
        snippet = "Snippet:" + self.newline + "".join(
            base + _reindent(line, unit) + self.newline for line in lines)
        parsed = parse(snippet, host.file)
        if parsed.problems:
            raise ValueError(f"generated OpenPLX does not parse: {parsed.problems[0]}")
        new = parsed.statements[0].children
        self._ensure_line_break(host)
        if not host.has_block:
            self._add_colon(host)
        host.children.extend(new)
        self.changed = True

    def _indentation(self, host: A.Stmt) -> tuple[str, str]:
        """(one indentation level, the indentation of ``host``'s children)."""
        unit = "    "
        for s in self.source.walk():
            if s.children and s.children[0].indent and not s.indent:
                unit = s.children[0].indent
                break
        if host.children:
            return unit, host.children[0].indent
        return unit, host.indent + unit

    def _ensure_line_break(self, host: A.Stmt) -> None:
        last = host
        while last.children:
            last = last.children[-1]
        toks = last.tokens
        if not toks or toks[-1].kind is not Kind.NEWLINE:
            t = toks[-1] if toks else Token(Kind.WS, "", host.line, 1)
            toks.append(Token(Kind.NEWLINE, self.newline, t.line, t.col + len(t.text)))

    def _add_colon(self, host: A.Stmt) -> None:
        toks = host.tokens
        k = len(toks)
        while k > 0 and toks[k - 1].kind in (Kind.NEWLINE, Kind.COMMENT, Kind.WS):
            k -= 1
        last = toks[k - 1]
        toks.insert(k, Token(Kind.OP, ":", last.line, last.col + len(last.text)))
        host.has_block = True


def _contains(outer: A.Stmt, inner: A.Stmt) -> bool:
    return any(s is inner for s in outer.walk())


def _reindent(line: str, unit: str) -> str:
    stripped = line.lstrip(" ")
    depth = (len(line) - len(stripped)) // 4
    return unit * depth + stripped
