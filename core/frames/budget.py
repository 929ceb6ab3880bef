"""How many element instances a document expands to, counted without expanding it.

Every ``//include`` of one file shares one parsed model (the loader caches it) and the
frame graph shares one scope per included model, so a document is stored in space linear
in its files even when it *describes* millions of instances.  Anything that walks every
instance (listing all frames, the ``graph`` edges, every link's inertia, flattening)
expands it.  The count here is what such a walk would visit: each model's own elements
(a link with its visuals and collisions) plus, for each nested model or include, the
count of the model it holds.  Counts are memoised per model, so counting is linear in
the number of distinct models, not in the number of instances.

The budget itself is :data:`snapframe.core.limits.MAX_ELEMENT_INSTANCES`; the loader
(:mod:`snapframe.core.loading`) refuses includes that would exceed it and reports
``Code.RESOURCE_LIMIT``.  Commands that would expand a document ask
:func:`over_budget` first (or call :func:`ensure_expandable`).
"""

from __future__ import annotations

from ..diagnostics import Code, Diagnostic, SourceLocation
from .. import limits
from ..model import Document, Include, Link, Model, Node, World

__all__ = ["InstanceCounter", "document_instances", "check_document_budget", "over_budget",
           "ensure_expandable"]

_Container = Model | World | Include


class InstanceCounter:
    """Counts what models, worlds and includes expand to; memoised per model.

    A model is a template once loaded (includes never mutate the model they share), so
    its count is kept for the life of the counter: the loader keeps one counter per load
    and each included file is counted once, however often it is included.
    """

    def __init__(self) -> None:
        self._models: dict[int, int] = {}

    def contents(self, container: _Container) -> int:
        """Instances below ``container`` (not counting the container itself): its
        entities, each nested model's or include's contents, and an include's model."""
        # Iterative post-order: a chain of nested models deeper than Python's recursion
        # limit is counted like any other.
        counted: dict[int, int] = {}     # includes and worlds counted in this call
        in_progress: set[int] = set()
        stack: list[tuple[_Container, bool]] = [(container, False)]
        while stack:
            node, children_done = stack.pop()
            if self._known(node, counted) is not None:
                continue
            if children_done:
                in_progress.discard(id(node))
                self._store(node, self._sum(node, counted), counted)
                continue
            in_progress.add(id(node))
            stack.append((node, True))
            for child in _containers_below(node):
                # A container already on the walk is a cycle (the loader refuses include
                # cycles, so only a hand-built document has one): it counts as empty.
                if id(child) not in in_progress and self._known(child, counted) is None:
                    stack.append((child, False))
        return self._known(container, counted) or 0

    def _known(self, node: _Container, counted: dict[int, int]) -> int | None:
        if isinstance(node, Model):
            return self._models.get(node.id)
        if isinstance(node, Include) and not node.entities:
            # The common include (no frames of its own): its model's count, no walk.
            return 0 if node.model is None else self._models.get(node.model.id)
        return counted.get(id(node))

    def _store(self, node: _Container, value: int, counted: dict[int, int]) -> None:
        if isinstance(node, Model):
            self._models[node.id] = value
        else:
            counted[id(node)] = value

    def _sum(self, node: _Container, counted: dict[int, int]) -> int:
        total = 0
        for child in node.entities:
            total += _own_weight(child)
            if isinstance(child, (Model, Include)):
                total += self._known(child, counted) or 0
        if isinstance(node, Include) and node.model is not None:
            total += self._known(node.model, counted) or 0
        return total


def _containers_below(node: _Container) -> list[_Container]:
    below: list[_Container] = [e for e in node.entities if isinstance(e, (Model, Include))]
    if isinstance(node, Include) and node.model is not None:
        below.append(node.model)
    return below


def _own_weight(node: Node) -> int:
    """The instances a node is by itself: one, plus a link's visuals and collisions; an
    include that did not load (or was refused) is nothing, as in the frame graph."""
    if isinstance(node, Link):
        return 1 + len(node.visuals) + len(node.collisions)
    if isinstance(node, Include) and node.model is None:
        return 0
    return 1


def document_instances(document: Document, counter: InstanceCounter | None = None) -> int:
    """Element instances ``document`` expands to (its top model counts as one)."""
    root = document.root
    if not isinstance(root, (Model, World)):
        return 0
    counter = counter or InstanceCounter()
    return (1 if isinstance(root, Model) else 0) + counter.contents(root)


def check_document_budget(document: Document, counter: InstanceCounter | None = None
                          ) -> Diagnostic | None:
    """Add a ``RESOURCE_LIMIT`` error to ``document`` if it expands past the budget (and
    none is reported yet); return the error, or None when the document is within it."""
    if over_budget(document):
        return next(d for d in document.diagnostics.errors if d.code == Code.RESOURCE_LIMIT)
    total = document_instances(document, counter)
    if total <= limits.MAX_ELEMENT_INSTANCES:
        return None
    name = document.path or "<string>"
    message = limits.budget_message(f"[{name}]", f"{total:,}", limits.MAX_ELEMENT_INSTANCES)
    return document.diagnostics.error(Code.RESOURCE_LIMIT, message, SourceLocation(document.path))


def over_budget(document: Document) -> bool:
    """True if loading ``document`` refused an expansion (a ``RESOURCE_LIMIT`` error):
    walking every instance of it must not be started."""
    return any(d.code == Code.RESOURCE_LIMIT and d.is_error for d in document.diagnostics)


def ensure_expandable(document: Document) -> None:
    """Raise :class:`~snapframe.core.limits.ResourceLimitError` (with the loader's message)
    if ``document`` is over the budget; for APIs about to visit every instance."""
    for d in document.diagnostics.errors:
        if d.code == Code.RESOURCE_LIMIT:
            raise limits.ResourceLimitError(d.format())
