"""Where SNAP meets the core document: SNAP paths, name lookup and declaration order.

SNAP names systems, bodies, connectors and mates by dotted paths (the OpenPLX attribute
paths): the top model's name, then attribute names.  In the core tree they are

============  =========================================================================
system        a :class:`Model`: its parent's path + ``.`` + its name (the top model:
              its name)
body          a :class:`Link`: its model's path + ``.`` + its name
connector     a :class:`MateConnector`: its owner's path (the link it is attached to, or
              its model) + ``.`` + its short name (``hand.axle`` on ``hand`` -> ``axle``)
mate          a :class:`Mate`: its model's path + ``.`` + its name
============  =========================================================================

A mate names its connectors with scoped names as seen from its model (``hand.axle``,
``sub::hand.axle``); :data:`WORLD_CONNECTOR` names the connector fixed at the origin of
the top model (OpenPLX's ``Physics3D.Interactions.World``).

**Declaration order.**  SNAP's result depends on the order of the mates (and, in its
output, of the rest).  A node read from a file may carry its position in the file's
declaration order as ``extras[ORDER_KEY]``; :func:`declaration_order` sorts nodes by it.
A node without one (added in the editor) keeps its place after the nodes walked before
it: a mate appended to a model comes after every mate of that model and of its nested
models, as it would once saved at the end of the model.
"""

from __future__ import annotations

from typing import Iterable, Iterator, TypeVar

from ..model import Link, Mate, MateConnector, Model, Node
from ..model.names import MODEL_FRAME, SEP

__all__ = ["WORLD_CONNECTOR", "ORDER_KEY", "DERIVED_KEY", "REFERENCE_BODY_KEY",
           "WORLD_PATH_KEY", "TreeIndex", "is_derived", "short_name",
           "scoped_name", "common_model", "walk_models", "declaration_order"]

#: The name a mate uses for the connector fixed at the top model's origin.
WORLD_CONNECTOR = "world"
#: ``extras`` key: a node's position in the source's declaration order (an int).
ORDER_KEY = "snap_order"
#: ``extras`` key of joints and links derived from a mate: the mate's scoped name as seen
#: from the model holding them (see :mod:`snapframe.core.snap.joints`).
DERIVED_KEY = "derived_from_mate"
#: ``Model.extras`` key: the scoped name of the link SNAP forces first in that model.
REFERENCE_BODY_KEY = "snap_reference_body"
#: Top ``Model.extras`` key: the SNAP path of :data:`WORLD_CONNECTOR` (default ``world``).
WORLD_PATH_KEY = "snap_world_connector"

N = TypeVar("N", bound=Node)


def is_derived(node: Node) -> bool:
    """Was ``node`` derived from a mate (a joint, or the intermediate link of a
    cylindrical mate)?  Derived nodes are never SNAP bodies and are never saved as such."""
    return DERIVED_KEY in node.extras


def short_name(connector: MateConnector) -> str:
    """A connector's name in its owner: ``hand.axle`` attached to ``hand`` -> ``axle``."""
    owner = connector.attached_to
    if owner and owner != MODEL_FRAME and connector.name.startswith(owner + "."):
        return connector.name[len(owner) + 1:]
    return connector.name


def scoped_name(node: Node, scope: Model) -> str | None:
    """``node``'s name as seen from ``scope`` (``sub::link``), None if it is not in
    ``scope`` or one of its nested models."""
    parts = [node.name]
    model = node.parent
    while model is not scope:
        if not isinstance(model, Model):
            return None
        parts.append(model.name)
        model = model.parent
    return SEP.join(reversed(parts))


def common_model(a: Model, b: Model) -> Model:
    """The closest model that is (or holds) both ``a`` and ``b``."""
    chain = []
    node: Node | None = a
    while isinstance(node, Model):
        chain.append(node)
        node = node.parent
    node = b
    while isinstance(node, Model):
        if any(node is c for c in chain):
            return node
        node = node.parent
    return chain[-1]


def walk_models(root: Model) -> Iterator[Node]:
    """``root`` and its entities, depth first in entity order (nested models' entities
    right after the model; includes are not entered)."""
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Model):
            stack.extend(reversed(node.entities))


def declaration_order(nodes: Iterable[N]) -> list[N]:
    """``nodes`` (in walk order) sorted into declaration order (see the module docstring)."""
    keyed = []
    last = -1
    for i, node in enumerate(nodes):
        rank = node.extras.get(ORDER_KEY)
        if isinstance(rank, int) and not isinstance(rank, bool):
            last = max(last, rank)
            keyed.append(((rank, 0, i), node))
        else:
            keyed.append(((last, 1, i), node))
    keyed.sort(key=lambda item: item[0])
    return [node for _, node in keyed]


class TreeIndex:
    """Name lookup in a model tree (built lazily per model, so lookups stay O(1) for
    assemblies of thousands of parts).  Build a new one after the tree changes."""

    def __init__(self, root: Model) -> None:
        self.root = root
        self._tables: dict[int, tuple[dict[str, Model], dict[str, Link],
                                      dict[str, MateConnector]]] = {}
        self._paths: dict[int, str] = {}

    def _table(self, model: Model):
        table = self._tables.get(id(model))
        if table is None:
            models: dict[str, Model] = {}
            links: dict[str, Link] = {}
            connectors: dict[str, MateConnector] = {}
            for e in model.entities:
                if isinstance(e, Model):
                    models.setdefault(e.name, e)
                elif isinstance(e, Link) and not is_derived(e):
                    links.setdefault(e.name, e)
                elif isinstance(e, MateConnector):
                    connectors.setdefault(e.name, e)
            table = self._tables[id(model)] = (models, links, connectors)
        return table

    def _descend(self, model: Model, scoped: str) -> tuple[Model | None, str]:
        *heads, last = scoped.split(SEP)
        for head in heads:
            nxt = self._table(model)[0].get(head)
            if nxt is None:
                return None, last
            model = nxt
        return model, last

    def link(self, model: Model, scoped: str) -> Link | None:
        """The (non-derived) link ``scoped`` names in ``model``."""
        found, last = self._descend(model, scoped)
        return self._table(found)[1].get(last) if found is not None else None

    def connector(self, model: Model, scoped: str) -> MateConnector | None:
        """The mate connector ``scoped`` names in ``model``."""
        found, last = self._descend(model, scoped)
        return self._table(found)[2].get(last) if found is not None else None

    def link_from(self, model: Model, scoped: str) -> Link | None:
        """A link named from ``model``, else from the top model."""
        return self.link(model, scoped) or (self.link(self.root, scoped)
                                            if model is not self.root else None)

    def owner(self, connector: MateConnector) -> Link | Model | None:
        """The link a connector is attached to, or its model (``attached_to`` empty)."""
        model = connector.parent
        if not isinstance(model, Model):
            return None
        if connector.attached_to in ("", MODEL_FRAME):
            return model
        return self.link(model, connector.attached_to)

    # -- paths ----------------------------------------------------------------------
    def path(self, node: Node) -> str:
        """SNAP path of a model, link, mate connector or mate (see the module docstring)."""
        cached = self._paths.get(id(node))
        if cached is not None:
            return cached
        parent = node.parent
        if isinstance(node, MateConnector):
            owner = self.owner(node)
            if owner is None:   # attached to something unknown: SNAP reports the owner
                base = self.unresolved(parent, node.attached_to)
            else:
                base = self.path(owner)
            path = f"{base}.{short_name(node)}"
        elif isinstance(parent, Model):
            path = f"{self.path(parent)}.{node.name}"
        else:
            path = node.name
        self._paths[id(node)] = path
        return path

    def unresolved(self, model: Node | None, scoped: str) -> str:
        """The path a name that resolves to nothing would have (so SNAP can report it)."""
        base = self.path(model) if isinstance(model, Model) else ""
        rest = scoped.replace(SEP, ".")
        return f"{base}.{rest}" if base else rest

    def world_path(self) -> str:
        return str(self.root.extras.get(WORLD_PATH_KEY, WORLD_CONNECTOR))

    def mate_connector_path(self, mate: Mate, scoped: str) -> str:
        """SNAP path of the connector a mate names (``world``, unless a connector of the
        mate's model has that name: the world connector)."""
        model = mate.parent
        if not isinstance(model, Model):
            return scoped
        found = self.connector(model, scoped)
        if found is not None:
            return self.path(found)
        return self.world_path() if scoped == WORLD_CONNECTOR else self.unresolved(model, scoped)
