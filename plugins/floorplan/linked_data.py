"""Expanded JSON-LD documents merged into one graph of nodes, read with located errors.

Every node keeps the file it was defined in, so a missing property or a dangling ``@id``
is reported as a :class:`FloorPlanError` naming that file and the element.  The
vocabulary IRIs are the ones the FloorPlan and door metamodels define (see
``contexts/``); nothing here looks at the text of an ``@id``.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from .errors import FloorPlanError

__all__ = ["Node", "Graph", "FP", "POLY", "GEOM", "REL", "COORD", "QUDT", "UNIT", "OBJ", "ST",
           "KC", "KC_STATE", "DYN", "GZB"]

_COMP_ROB2B = "https://comp-rob2b.github.io/metamodels/"
_SECOROLAB = "https://secorolab.github.io/metamodels/"
FP = _SECOROLAB + "floorplan/floorplan#"
POLY = _SECOROLAB + "geometry/polytope#"
OBJ = _SECOROLAB + "floorplan/object#"
ST = _SECOROLAB + "floorplan/state#"
GZB = _SECOROLAB + "gazebo#"
GEOM = _COMP_ROB2B + "geometry/structural-entities#"
REL = _COMP_ROB2B + "geometry/spatial-relations#"
COORD = _COMP_ROB2B + "geometry/coordinates#"
KC = _COMP_ROB2B + "kinematic-chain/structural-entities#"
KC_STATE = _COMP_ROB2B + "kinematic-chain/state#"
DYN = _COMP_ROB2B + "newtonian-rigid-body-dynamics/structural-entities#"
QUDT = "http://qudt.org/schema/qudt/"
UNIT = "http://qudt.org/vocab/unit/"


@dataclass(eq=False)
class Node:
    """One node: its IRI, types, expanded property values and the file defining it."""

    iri: str
    types: list[str] = field(default_factory=list)
    props: dict[str, list] = field(default_factory=dict)
    file: str = ""

    def has_type(self, iri: str) -> bool:
        return iri in self.types


class Graph:
    """The nodes of several expanded documents, by IRI (a node split over several files
    is merged), with typed accessors that raise located errors."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self._by_type: dict[str, list[Node]] = {}
        self._blank = itertools.count()
        #: IRI prefix names are given relative to (the floor plan's ``@base``).
        self.base = ""

    # -- building -------------------------------------------------------------------------
    def add_document(self, nodes: Iterable[dict], file: str) -> None:
        """Add the node objects of one expanded document (embedded nodes are flattened)."""
        stack = [n for n in reversed(list(nodes)) if isinstance(n, dict)]
        while stack:
            item = stack.pop()
            iri = item.get("@id")
            if not isinstance(iri, str):
                iri = f"_:snapframe{next(self._blank)}"
            node = self.nodes.get(iri)
            if node is None:
                node = self.nodes[iri] = Node(iri, file=file)
            elif not node.file:
                node.file = file
            for t in item.get("@type", ()):
                if t not in node.types:
                    node.types.append(t)
                    self._by_type.setdefault(t, []).append(node)
            for prop, values in item.items():
                if prop.startswith("@"):
                    continue
                node.props.setdefault(prop, []).extend(
                    self._flatten(v, stack) for v in values)

    def _flatten(self, value: Any, stack: list) -> Any:
        """An embedded node object becomes a reference (the node is added too)."""
        if isinstance(value, dict) and "@value" not in value and "@list" not in value:
            if len(value) > 1 or "@id" not in value:
                if "@id" not in value:
                    value = {**value, "@id": f"_:snapframe{next(self._blank)}"}
                stack.append(value)
                return {"@id": value["@id"]}
        if isinstance(value, dict) and "@list" in value:
            return {"@list": [self._flatten(v, stack) for v in value["@list"]]}
        return value

    # -- lookup ---------------------------------------------------------------------------
    def of_type(self, iri: str) -> list[Node]:
        """Nodes with type ``iri``, in the order they were read."""
        return list(self._by_type.get(iri, ()))

    def name(self, iri: str) -> str:
        """The name of ``iri``: relative to :attr:`base`, else its last segment."""
        if self.base and iri.startswith(self.base) and len(iri) > len(self.base):
            return iri[len(self.base):]
        for sep in ("#", "/", ":"):
            if sep in iri.rstrip(sep):
                return iri.rstrip(sep).rsplit(sep, 1)[1]
        return iri

    def node(self, iri: str, referrer: Node | None = None, prop: str = "",
             type_iri: str | None = None) -> Node:
        """The node ``iri``; a dangling reference (or one to a node without the type
        ``type_iri``) raises :class:`FloorPlanError` naming the referring file and node."""
        node = self.nodes.get(iri)
        if node is None or (type_iri is not None and not node.has_type(type_iri)):
            what = f" as {_short(prop)}" if prop else ""
            kind = f" (a {_short(type_iri)})" if type_iri else ""
            problem = "is not defined in any file read" if node is None else \
                f"is not a {_short(type_iri)}"
            raise FloorPlanError(f"{self.name(iri)}{kind}, named by "
                                 f"{self.name(referrer.iri) if referrer else 'the plan'}{what}, "
                                 f"{problem}", file=referrer.file if referrer else None,
                                 element=self.name(referrer.iri) if referrer else self.name(iri))
        return node

    # -- values ---------------------------------------------------------------------------
    def values(self, node: Node, prop: str) -> list:
        return node.props.get(prop, [])

    def ref(self, node: Node, prop: str, required: bool = True) -> str | None:
        """The one IRI ``prop`` names (the first, if several)."""
        for v in self.values(node, prop):
            if isinstance(v, dict) and isinstance(v.get("@id"), str):
                return v["@id"]
        if required:
            raise self.missing(node, prop, "a reference")
        return None

    def refs(self, node: Node, prop: str, required: bool = True) -> list[str]:
        """The IRIs ``prop`` names: an ``@list`` in order, or every value."""
        out: list[str] = []
        values = self.values(node, prop)
        for v in values:
            items = v["@list"] if isinstance(v, dict) and "@list" in v else [v]
            out.extend(i["@id"] for i in items
                       if isinstance(i, dict) and isinstance(i.get("@id"), str))
        if required and not values:
            raise self.missing(node, prop, "references")
        return out

    def nested_refs(self, node: Node, prop: str) -> list[list[str]]:
        """A list of lists of IRIs (polyhedron faces)."""
        out: list[list[str]] = []
        for v in self.values(node, prop):
            items = v["@list"] if isinstance(v, dict) and "@list" in v else [v]
            for item in items:
                inner = item["@list"] if isinstance(item, dict) and "@list" in item else [item]
                out.append([i["@id"] for i in inner
                            if isinstance(i, dict) and isinstance(i.get("@id"), str)])
        return out

    def number(self, node: Node, prop: str, default: float | None = None,
               limit: float | None = None) -> float:
        """The number ``prop`` holds (a JSON number or numeric text), finite (and at most
        ``limit`` in size, when given)."""
        for v in self.values(node, prop):
            raw = v.get("@value") if isinstance(v, dict) else None
            if isinstance(raw, bool):
                break
            try:
                value = float(raw)
            except (TypeError, ValueError):
                break
            except OverflowError:           # an integer beyond any float (10**400)
                value = math.inf
            if not math.isfinite(value):
                raise FloorPlanError(f"{_short(prop)} of {self.name(node.iri)} is not a "
                                     f"finite number: {_shown(raw)}", file=node.file,
                                     element=self.name(node.iri))
            if limit is not None and abs(value) > limit:
                raise FloorPlanError(f"{_short(prop)} of {self.name(node.iri)} is out of "
                                     f"range: {_shown(raw)} (at most {limit:g} in size)",
                                     file=node.file, element=self.name(node.iri))
            return value
        else:
            if default is not None:
                return default
            raise self.missing(node, prop, "a number")
        raise FloorPlanError(f"{_short(prop)} of {self.name(node.iri)} is not a number",
                             file=node.file, element=self.name(node.iri))

    def text(self, node: Node, prop: str) -> str | None:
        for v in self.values(node, prop):
            if isinstance(v, dict) and isinstance(v.get("@value"), str):
                return v["@value"]
        return None

    def missing(self, node: Node, prop: str, what: str) -> FloorPlanError:
        return FloorPlanError(f"{self.name(node.iri)} has no {_short(prop)} ({what} expected"
                              "; a key its contexts do not define is dropped)",
                              file=node.file, element=self.name(node.iri))


def _shown(raw: Any) -> str:
    """A value for a message: long ones cut short."""
    text = repr(raw) if not isinstance(raw, int) else str(raw)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def _short(iri: str | None) -> str:
    """The term of a vocabulary IRI (``...floorplan#walls`` -> ``walls``)."""
    if not iri:
        return ""
    for sep in ("#", "/"):
        if sep in iri:
            return iri.rsplit(sep, 1)[1] or iri
    return iri
