"""The attached_to and relative_to graphs as edge lists and Graphviz text."""

from __future__ import annotations

from typing import Iterator

from ..model.names import SEP
from .graph import FrameGraph
from .scope import Scope, Unresolved, Vertex

__all__ = ["graph_edges", "to_dot"]


def graph_edges(graph: FrameGraph) -> dict[str, list[tuple[str, str]]]:
    """``{"attached_to": [(a, b), ...], "relative_to": [...]}`` with scoped vertex names."""
    edges: dict[str, list[tuple[str, str]]] = {"attached_to": [], "relative_to": []}
    if graph.root is not None:
        prefix = graph.root.name + SEP if graph.root.kind == "model" else ""
        _scope_edges(graph.root, prefix, edges)
    return edges


def _scope_edges(top: Scope, top_prefix: str, edges: dict) -> None:
    # Depth-first in document order (a vertex's edges, then those of the scope it holds,
    # then its next sibling's) with an explicit stack: models nest deeper than Python's
    # recursion limit.
    stack: list[tuple[Scope, str, Iterator[Vertex]]] = []

    def enter(scope: Scope, prefix: str) -> None:
        if scope.kind == "model":
            frame = prefix + scope.frame_name
            if scope.static:
                edges["attached_to"].append((frame, "world"))
            else:
                try:
                    edges["attached_to"].append((frame, prefix + scope.body_of(scope.frame_name)))
                except Unresolved:
                    pass
        stack.append((scope, prefix, iter(scope.vertices.values())))

    enter(top, top_prefix)
    while stack:
        scope, prefix, pending = stack[-1]
        v = next(pending, None)
        if v is None:
            stack.pop()
            continue
        me = prefix + v.name
        if v.kind == "frame":
            target = v.node.attached_to or scope.frame_name  # type: ignore[attr-defined]
            edges["attached_to"].append((me, prefix + target))
        elif v.kind == "joint":
            edges["attached_to"].append((me, prefix + v.node.child_name))  # type: ignore
        elif v.kind == "model" and v.nested is not None:
            edges["attached_to"].append((me, me + SEP + "__model__"))
        edges["relative_to"].append((me, prefix + v.relative_to(scope.frame_name)))
        if v.nested is not None:
            enter(v.nested, me + SEP)


def to_dot(edges: dict[str, list[tuple[str, str]]], name: str) -> str:
    lines = [f'digraph "{name}" {{', "  rankdir=LR;"]
    for graph, style in (("attached_to", "solid"), ("relative_to", "dashed")):
        lines.append(f"  subgraph cluster_{graph} {{")
        lines.append(f'    label="{graph}";')
        for a, b in edges[graph]:
            lines.append(f'    "{graph}:{a}" -> "{graph}:{b}" [style={style}];')
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines)
