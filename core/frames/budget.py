"""How many element instances a document expands to, counted without expanding it.

Every ``//include`` of one file shares one parsed model (the loader caches it) and the
frame graph shares one scope per included model, so a document is stored in space linear
in its files even when it *describes* millions of instances.  Anything that walks every
instance (listing all frames, the ``graph`` edges, every link's inertia, flattening)
expands it.  The count here is what such a walk would visit: each model's own elements
(a link with its visuals and collisions) plus, for each nested model or include, the
count of the model it holds.  Counts are memoised per model, so counting is linear in
the number of distinct models, not in the number of instances.

The same walk counts the characters of the instances' scoped names, which grow with the
nesting (a link 900 models deep has a name of kilobytes).  The budgets themselves are
:data:`snapframe.core.limits.MAX_ELEMENT_INSTANCES` and
:data:`~snapframe.core.limits.MAX_NAME_CHARACTERS`; the loader
(:mod:`snapframe.core.loading`) refuses includes that would exceed them and reports
``Code.RESOURCE_LIMIT``.  Commands that would expand a document ask
:func:`over_budget` first (or call :func:`ensure_expandable`).
"""

from __future__ import annotations

from ..diagnostics import Code, Diagnostic, SourceLocation
from .. import limits
from ..model import Document, Include, Link, Model, Node, World
from ..model.names import SEP

__all__ = ["InstanceCounter", "document_instances", "document_figures", "check_document_budget",
           "over_budget", "ensure_expandable"]

_Container = Model | World | Include


class InstanceCounter:
    """Counts what models, worlds and includes expand to; memoised per model.

    Two figures per container: the element instances below it, and the characters of
    their scoped names relative to it (``arm::link`` is 9): a listing of every instance
    (``frames``, ``graph``, a URDF's link names) holds both, and names grow with the
    nesting.  A model is a template once loaded (includes never mutate the model they
    share), so its figures are kept for the life of the counter: the loader keeps one
    counter per load and each included file is counted once, however often it is
    included.
    """

    def __init__(self) -> None:
        self._models: dict[int, tuple[int, int]] = {}
        self._levels: dict[int, int] = {}

    def contents(self, container: _Container) -> int:
        """Instances below ``container`` (not counting the container itself): its
        entities, each nested model's or include's contents, and an include's model."""
        return self.figures(container)[0]

    def name_chars(self, container: _Container) -> int:
        """Characters of the scoped names (relative to ``container``) of the instances
        below it."""
        return self.figures(container)[1]

    def figures(self, container: _Container) -> tuple[int, int]:
        """(instances, name characters) below ``container``."""
        # Iterative post-order: a chain of nested models deeper than Python's recursion
        # limit is counted like any other.
        counted: dict[int, tuple[int, int]] = {}  # includes and worlds counted in this call
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
        return self._known(container, counted) or (0, 0)

    def levels(self, model: Model) -> int:
        """Levels of models ``model`` nests, itself included (1: no nested model), through
        nested models and the models of includes; memoised per model, counted with an
        explicit post-order walk."""
        stack: list[tuple[Model, bool]] = [(model, False)]
        in_progress: set[int] = set()
        while stack:
            node, children_done = stack.pop()
            if node.id in self._levels:
                continue
            below = _models_below(node)
            if children_done:
                in_progress.discard(node.id)
                self._levels[node.id] = 1 + max((self._levels.get(m.id, 0) for m in below),
                                                default=0)
                continue
            in_progress.add(node.id)
            stack.append((node, True))
            # A model already on the walk is a cycle (only a hand-built document has one).
            stack.extend((m, False) for m in below
                         if m.id not in in_progress and m.id not in self._levels)
        return self._levels[model.id]

    def _known(self, node: _Container, counted: dict[int, tuple[int, int]]
               ) -> tuple[int, int] | None:
        if isinstance(node, Model):
            return self._models.get(node.id)
        if isinstance(node, Include) and not node.entities:
            # The common include (no frames of its own): its model's figures, no walk.
            return (0, 0) if node.model is None else self._models.get(node.model.id)
        return counted.get(id(node))

    def _store(self, node: _Container, value: tuple[int, int],
               counted: dict[int, tuple[int, int]]) -> None:
        if isinstance(node, Model):
            self._models[node.id] = value
        else:
            counted[id(node)] = value

    def _sum(self, node: _Container, counted: dict[int, tuple[int, int]]) -> tuple[int, int]:
        total = chars = 0
        for child in node.entities:
            total += _own_weight(child)
            chars += _own_name_chars(child)
            if isinstance(child, (Model, Include)):
                below, below_chars = self._known(child, counted) or (0, 0)
                total += below
                # Each instance below is named "<child>::<its name below the child>".
                chars += below * (len(_name(child)) + len(SEP)) + below_chars
        if isinstance(node, Include) and node.model is not None:
            below, below_chars = self._known(node.model, counted) or (0, 0)
            total += below
            chars += below_chars
        return total, chars


def _containers_below(node: _Container) -> list[_Container]:
    below: list[_Container] = [e for e in node.entities if isinstance(e, (Model, Include))]
    if isinstance(node, Include) and node.model is not None:
        below.append(node.model)
    return below


def _models_below(model: Model) -> list[Model]:
    """The models directly below ``model``: nested ones and those of its includes."""
    out: list[Model] = []
    for e in model.entities:
        if isinstance(e, Model):
            out.append(e)
        elif isinstance(e, Include) and e.model is not None:
            out.append(e.model)
    return out


def _own_weight(node: Node) -> int:
    """The instances a node is by itself: one, plus a link's visuals and collisions; an
    include that did not load (or was refused) is nothing, as in the frame graph."""
    if isinstance(node, Link):
        return 1 + len(node.visuals) + len(node.collisions)
    if isinstance(node, Include) and node.model is None:
        return 0
    return 1


def _name(node: Node) -> str:
    return node.effective_name if isinstance(node, Include) else node.name


def _own_name_chars(node: Node) -> int:
    """The name characters of the instances a node is by itself (a link's visuals and
    collisions are named ``<link>::<part>``)."""
    if isinstance(node, Include) and node.model is None:
        return 0
    name = len(_name(node))
    if isinstance(node, Link):
        return name + sum(name + len(SEP) + len(p.name) for p in (*node.visuals,
                                                                  *node.collisions))
    return name


def document_figures(document: Document, counter: InstanceCounter | None = None
                     ) -> tuple[int, int]:
    """(element instances, characters of their scoped names) ``document`` expands to; a
    model document's top model counts as one, and its name prefixes every other."""
    root = document.root
    if not isinstance(root, (Model, World)):
        return 0, 0
    below, chars = (counter or InstanceCounter()).figures(root)
    if isinstance(root, World):
        return below, chars
    prefix = len(root.name) + len(SEP)
    return 1 + below, len(root.name) + below * prefix + chars


def document_instances(document: Document, counter: InstanceCounter | None = None) -> int:
    """Element instances ``document`` expands to (its top model counts as one)."""
    return document_figures(document, counter)[0]


def check_document_budget(document: Document, counter: InstanceCounter | None = None
                          ) -> Diagnostic | None:
    """Add a ``RESOURCE_LIMIT`` error to ``document`` if it expands past the budgets (and
    none is reported yet); return the error, or None when the document is within them."""
    if over_budget(document):
        return next(d for d in document.diagnostics.errors if d.code == Code.RESOURCE_LIMIT)
    total, chars = document_figures(document, counter)
    name = document.path or "<string>"
    if total > limits.MAX_ELEMENT_INSTANCES:
        message = limits.budget_message(f"[{name}]", f"{total:,}")
    elif chars > limits.MAX_NAME_CHARACTERS:
        message = limits.names_message(f"[{name}]", f"{chars:,}")
    else:
        return None
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
