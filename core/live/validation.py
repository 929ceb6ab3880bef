"""Diagnostics that follow edits: an error appears with the edit that causes it and
disappears with its fix or its undo.

A document's findings come from three places, and each is kept where it can be redone:

* what the reader found in the document's own file (kept, attributed to the element at
  or before its line, and dropped while that element is removed);
* what loading each ``//include`` found (kept on the include: it goes and comes back with
  the include);
* the frame-graph checks and, for OpenPLX documents, SNAP's findings: computed again
  after every edit that can change them (not after a drag of a pose value, which cannot).

``document.diagnostics`` always holds the current list, each finding with its element key.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from typing import Callable, Iterable

from ..diagnostics import Diagnostic, Diagnostics
from ..model import Include, Node
from .keys import key_of

__all__ = ["DiagnosticsChanged", "DiagnosticsService"]


def _identity(d: Diagnostic) -> tuple:
    return (d.code, d.message, d.file, d.line)


@dataclass(frozen=True)
class DiagnosticsChanged:
    """The findings after an edit; ``added`` and ``removed`` are the difference."""

    diagnostics: tuple[Diagnostic, ...]
    added: tuple[Diagnostic, ...]
    removed: tuple[Diagnostic, ...]


class DiagnosticsService:
    """Keeps ``document.diagnostics`` current (see the module docstring)."""

    def __init__(self, document, extra: Callable[[], Iterable[Diagnostic]] | None = None) -> None:
        self.document = document
        #: More findings that are redone after edits (SNAP's), supplied by another service.
        self.extra = extra
        loaded = list(document.diagnostics)
        derived = {_identity(d) for d in self._derived()}
        from_includes = {_identity(d) for inc in document.includes()
                         for d in inc.load_diagnostics}
        self._own: list[tuple[Diagnostic, Node | None]] = []
        locate = self._locator()
        for d in loaded:
            ident = _identity(d)
            if ident in derived or ident in from_includes:
                continue
            node = locate(d)
            if node is not None and d.key is None:
                d = replace(d, key=key_of(node, document.root))
            self._own.append((d, node))
        self.current: tuple[Diagnostic, ...] = ()
        self.refresh()

    def _locator(self) -> Callable[[Diagnostic], Node | None]:
        """Finds the document node a reader finding is about: the innermost element that
        starts at or before its line in the document's own file."""
        path = self.document.path
        nodes = sorted(((n.source.line, i, n) for i, n in enumerate(self.document.nodes())
                        if n.source.file == path and n.source.line), key=lambda t: t[:2])
        lines = [t[0] for t in nodes]

        def locate(d: Diagnostic) -> Node | None:
            if d.file != path or not d.line or not lines:
                return None
            i = bisect.bisect_right(lines, d.line) - 1
            return nodes[i][2] if i >= 0 else None
        return locate

    def _derived(self) -> list[Diagnostic]:
        """Findings recomputed from the current document (graph checks, SNAP...)."""
        from ..frames.graph import run_checks
        out = Diagnostics()
        if self.document.root is not None:
            run_checks(self.document.frames, out, self.document.version or "1.11")
        if self.extra is not None:
            out.extend(self.extra())
        return list(out)

    def refresh(self) -> DiagnosticsChanged | None:
        """Recompute; return what changed (None if nothing did)."""
        doc = self.document
        root = doc.root
        present: set[int] = set()
        loaded: list[Include] = []
        for node in doc.nodes():
            present.add(id(node))
            if isinstance(node, Include) and node.load_diagnostics:
                loaded.append(node)
        found = Diagnostics()
        for d, node in self._own:
            if node is None or id(node) in present:
                found.add(d)
        for inc in loaded:
            key = key_of(inc, root)
            found.extend(d if d.key is not None else replace(d, key=key)
                         for d in inc.load_diagnostics)
        found.extend(self._derived())
        new = tuple(found)
        old = self.current
        self.current = new
        doc.diagnostics.replace(new)
        if new == old:
            return None
        old_ids = {_identity(d): d for d in old}
        new_ids = {_identity(d): d for d in new}
        return DiagnosticsChanged(new,
                                  tuple(d for k, d in new_ids.items() if k not in old_ids),
                                  tuple(d for k, d in old_ids.items() if k not in new_ids))

    def of(self, key: str) -> list[Diagnostic]:
        """Findings about the element ``key``."""
        return [d for d in self.current if d.key == key]
