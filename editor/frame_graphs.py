"""The two frame graphs of a document (``relative_to`` and ``attached_to``) with instance
keys as vertices: what the teaching panel lays out and the viewport draws as arrows.
Qt-free, so offscreen renders can use it too."""

from __future__ import annotations

from dataclasses import dataclass

from snapframe.core.frames.export import graph_edges
from snapframe.core.live.keys import ROOT
from snapframe.core.model import Document
from snapframe.core.model.names import MODEL_FRAME, SEP, WORLD

__all__ = ["GraphData", "document_graph"]


def _edge_key(name: str, top: str) -> str:
    """A vertex name of :func:`graph_edges` as an instance key (model frames are their
    model: ``m::__model__`` -> ``m``; the root frame is ``""``)."""
    if top:
        if name == top:
            name = ""
        elif name.startswith(top + SEP):
            name = name[len(top) + len(SEP):]
    if name in (MODEL_FRAME, WORLD):
        return ROOT
    if name.endswith(SEP + MODEL_FRAME):
        name = name[: -len(SEP + MODEL_FRAME)]
    return name


@dataclass
class GraphData:
    nodes: list[str]
    relative_to: dict[str, str]           # frame -> the frame its pose is written in
    attached_to: list[tuple[str, str]]


def document_graph(document: Document) -> GraphData:
    """The two frame graphs of ``document`` with instance keys as vertices."""
    edges = graph_edges(document.frames)
    root = document.frames.root
    top = root.name if root is not None and root.kind == "model" else ""
    nodes: dict[str, None] = {ROOT: None}
    relative: dict[str, str] = {}
    attached: list[tuple[str, str]] = []
    for a, b in edges["relative_to"]:
        ka, kb = _edge_key(a, top), _edge_key(b, top)
        nodes.setdefault(ka)
        nodes.setdefault(kb)
        if ka != kb:
            relative[ka] = kb
    for a, b in edges["attached_to"]:
        ka, kb = _edge_key(a, top), _edge_key(b, top)
        if ka != kb:
            nodes.setdefault(ka)
            nodes.setdefault(kb)
            attached.append((ka, kb))
    return GraphData(list(nodes), relative, attached)
