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

from ..diagnostics import Code, Diagnostic, Diagnostics
from ..model import Include, Model, Node
from .keys import key_of

__all__ = ["DiagnosticsChanged", "DiagnosticsService", "element_checks", "ELEMENT_CHECK_CODES"]

#: Codes of the findings :func:`element_checks` makes (names and settings of elements that
#: edits can change; the reader reports them at load with the same words).
ELEMENT_CHECK_CODES = frozenset({Code.RESERVED_NAME, Code.MODEL_PLACEMENT_FRAME_INVALID})


def _key_of_element(document, d: Diagnostic) -> str | None:
    """The key of the document node a finding's element path names, if any."""
    paths = getattr(document, "_element_keys", None)
    if paths is None or paths[0] is not document.root:
        root = document.root
        paths = (root, {n.element_path(): key_of(n, root) for n in document.nodes()})
        document._element_keys = paths
    found = paths[1].get(d.element)
    if found is None and "/" in d.element:  # a child element (".../inertial")
        found = paths[1].get(d.element.rpartition("/")[0])
    return found


def element_checks(document, out: Diagnostics) -> None:
    """Findings about the document's own elements that edits can cause or fix: reserved
    names, ``::`` in names (SDFormat 1.8+), and an include's placement frame without a
    pose.  Elements of included files are checked by their own loads."""
    from ..model import Joint
    from ..model.names import SEP, is_reserved
    version = document.version or "1.11"
    try:
        vt = tuple(int(p) for p in version.split(".")[:2])
    except ValueError:
        vt = (1, 11)
    root = document.root

    def at(node):   # path and key, computed only for a finding
        return node.source, node.element_path(), key_of(node, root) if node is not root else ""
    for node in document.node_list():
        if node is root and not isinstance(node, Model):
            continue
        name = node.name
        bad_name = bool(name) and (is_reserved(name) or (SEP in name and vt >= (1, 8)))
        if isinstance(node, Include):
            if bad_name:
                if is_reserved(name):
                    out.error(Code.RESERVED_NAME, f"The supplied model name [{name}] is "
                              "reserved.", *at(node))
                else:
                    out.error(Code.RESERVED_NAME, "Detected delimiter '::' in element name in "
                              f"<include><name>{name}</name>", *at(node))
            if node.placement_frame and node.pose is None:
                out.error(Code.MODEL_PLACEMENT_FRAME_INVALID, "<pose> is required when "
                          "specifying the placement_frame element", *at(node))
            continue
        # A plugin's name is its class ("gz::sim::systems::..."), no frame: libsdformat
        # checks no plugin name for '::'.
        if bad_name and node.kind not in ("mate", "plugin"):
            if is_reserved(name):
                out.error(Code.RESERVED_NAME, f"The supplied {node.kind} name [{name}] is "
                          "reserved.", *at(node))
            else:
                out.error(Code.RESERVED_NAME, "Detected delimiter '::' in element name in "
                          f"<{node.kind} name='{name}'/>", *at(node))
        if isinstance(node, Joint):
            for tag in ("parent", "child"):
                if getattr(node, f"{tag}_name") == "__root__":
                    _, path, key = at(node)
                    out.error(Code.RESERVED_NAME, f"The supplied joint {tag} name [__root__] is "
                              "not valid.", getattr(node, f"{tag}_source"), path, key)


def _identity(d: Diagnostic) -> tuple:
    return (d.code, d.message, d.file, d.line, None if d.line else d.key)


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
        fresh = self._derived()
        derived = {_identity(d) for d in fresh}
        # the reader's copies of findings the checks redo (their line may differ)
        redone = {(d.code, d.message) for d in fresh}
        from_includes = {_identity(d) for inc in document.includes()
                         for d in inc.load_diagnostics}
        self._own: list[tuple[Diagnostic, Node | None]] = []
        locate = self._locator()
        for d in loaded:
            ident = _identity(d)
            if ident in derived or ident in from_includes or (d.code, d.message) in redone:
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
            element_checks(self.document, out)
            from ..model_checks import check_values
            root = self.document.root
            for d in check_values(self.document):
                if d.key is None:
                    d = replace(d, key=_key_of_element(self.document, d))
                out.add(d)
        if self.extra is not None:
            out.extend(self.extra())
        return list(out)

    def refresh(self) -> DiagnosticsChanged | None:
        """Recompute; return what changed (None if nothing did)."""
        doc = self.document
        root = doc.root
        present: set[int] = set()
        loaded: list[Include] = []
        for node in doc.node_list():
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
