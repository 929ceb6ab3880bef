"""The JSON-LD ``@context`` documents floor plans and door models name, served offline.

FloorPlan outputs and door models refer to their contexts by URL (comp-rob2b and secorolab
metamodels on GitHub Pages).  Snapframe never fetches them: each known URL maps to a
context document bundled in ``contexts/`` (our own term tables, checked against pinned
copies of the published ones by the tests), and any other URL is refused with a
:class:`FloorPlanError` naming the file and the URL.  Processing therefore always sees the
same version of every context, with or without a network.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator

from .errors import FloorPlanError

__all__ = ["CONTEXT_FOLDER", "CONTEXT_FILES", "bundled_context", "context_urls",
           "check_context_urls", "make_document_loader", "DocumentLoader"]

#: The bundled context documents.
CONTEXT_FOLDER = Path(__file__).resolve().parent / "contexts"

_COMP_ROB2B = "https://comp-rob2b.github.io/metamodels/"
_SECOROLAB = "https://secorolab.github.io/metamodels/"

#: Known context URL -> bundled file (relative to :data:`CONTEXT_FOLDER`).  FloorPlan-DSL
#: writes the qudt context with ``http://`` in some outputs and ``https://`` in others.
CONTEXT_FILES: dict[str, str] = {
    **{_COMP_ROB2B + p: "comp-rob2b/" + p for p in (
        "qudt.json", "algorithm.json", "newtonian-rigid-body-dynamics.json",
        "geometry/structural-entities.json", "geometry/spatial-relations.json",
        "geometry/coordinates.json", "geometry/spatial-operators.json",
        "kinematic-chain/structural-entities.json", "kinematic-chain/state.json",
        "kinematic-chain/operators.json")},
    "http://comp-rob2b.github.io/metamodels/qudt.json": "comp-rob2b/qudt.json",
    **{_SECOROLAB + p: "secorolab/" + p for p in (
        "floorplan/floorplan.json", "floorplan/object.json", "floorplan/state.json",
        "geometry/polytope.json", "geometry/coordinates.json", "simulation/gazebo.json",
        "kinematic-chain/structural-entities-extension.json")},
}

#: A pyld document loader: ``loader(url, options) -> remote document``.
DocumentLoader = Callable[[str, Any], dict]


@lru_cache(maxsize=None)
def _bundled_text(relative: str) -> str:
    return (CONTEXT_FOLDER / relative).read_text(encoding="utf-8")


def bundled_context(url: str) -> dict | None:
    """The bundled context document for ``url`` (a fresh copy), or None if unknown."""
    relative = CONTEXT_FILES.get(url)
    return None if relative is None else json.loads(_bundled_text(relative))


def context_urls(value: Any) -> Iterator[str]:
    """Every context URL a JSON-LD document names: in any ``@context`` (top level, in
    nodes, in scoped term definitions).  Walked with an explicit stack."""
    stack = [(value, False)]
    while stack:
        item, in_context = stack.pop()
        if isinstance(item, str):
            if in_context:
                yield item
        elif isinstance(item, list):
            stack.extend((v, in_context) for v in item)
        elif isinstance(item, dict):
            for key, v in item.items():
                if key == "@context" or (in_context and key == "@import"):
                    stack.append((v, True))
                elif in_context and isinstance(v, dict):
                    stack.append((v.get("@context"), True))   # a scoped term definition
                elif not in_context:
                    stack.append((v, False))


def check_context_urls(document: Any, file: str | Path,
                       known: dict[str, Any] | None = None) -> None:
    """Raise :class:`FloorPlanError` naming ``file`` and the URL if ``document`` names a
    context that is not bundled (or in ``known``): it would have to be fetched."""
    table = CONTEXT_FILES if known is None else known
    for url in context_urls(document):
        if url not in table:
            raise FloorPlanError(
                f"unknown JSON-LD context {url}: Snapframe reads only the FloorPlan and "
                "door model contexts it bundles and never downloads one", file=file,
                element=url)


def make_document_loader(file: str | Path = "",
                         contexts: dict[str, dict] | None = None) -> DocumentLoader:
    """A pyld document loader over the bundled contexts (or ``contexts``: URL -> parsed
    document, for tests that compare with other versions).  It never touches the network:
    an unknown URL raises :class:`FloorPlanError` naming ``file`` and the URL."""

    def loader(url: str, options: Any = None) -> dict:
        document = contexts.get(url) if contexts is not None else bundled_context(url)
        if document is None:
            raise FloorPlanError(f"unknown JSON-LD context {url}: not bundled, and never "
                                 "downloaded", file=file or None, element=url)
        return {"contentType": "application/ld+json", "contextUrl": None,
                "documentUrl": url, "document": document}

    return loader
