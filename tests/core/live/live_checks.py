"""Reference computations for the live-document tests, independent of the live services.

World poses come from a *fresh* frame graph built on the document as it is now (the
resolver the CLI uses, not the incremental pose table); diagnostics from a fresh load of
the document saved at that moment; inertia from ``compute_link_inertia``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.frames import FrameGraph
from snapframe.core.frames.scope import Unresolved
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Link
from snapframe.core.model.names import SEP

TOL = 1e-9


def reference_poses(doc) -> dict[str, np.ndarray]:
    """key -> 4x4 world pose of every frame, visual and collision, from scratch."""
    graph = FrameGraph(doc)
    out: dict[str, np.ndarray] = {}
    top = doc.root.name + SEP if graph.root is not None and graph.root.kind == "model" else None
    for info in graph.frames():
        key = info.name
        if top is not None:
            key = "" if key == doc.root.name else key[len(top):]
        out[key] = info.pose.matrix()
        if info.kind != "link":
            continue
        link = doc.element(key)
        assert isinstance(link, Link), key
        scope_prefix = key.rpartition(SEP)[0]
        for part in (*link.visuals, *link.collisions):
            rel = part.pose.relative_to
            if rel in ("", link.name):
                X = info.pose @ part.pose.value
            else:
                name = f"{scope_prefix}{SEP}{rel}" if scope_prefix else rel
                try:
                    X = graph.pose((top or "") + name) @ part.pose.value
                except Unresolved:
                    continue
            out[f"{key}#{part.kind}:{part.name}"] = X.matrix()
    out.setdefault("", np.eye(4))
    return out


def moved_keys(before: dict, after: dict) -> set[str]:
    return {k for k in before.keys() & after.keys()
            if np.abs(before[k][:3] - after[k][:3]).max() > TOL}


@dataclass
class Recorder:
    """Collects the live document's typed events for one action."""

    live: object
    poses: list = field(default_factory=list)
    structure: list = field(default_factory=list)
    diagnostics: list = field(default_factory=list)
    inertia: list = field(default_factory=list)
    edited: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self.live.poses_changed.connect(self.poses.append)
        self.live.structure_changed.connect(self.structure.append)
        self.live.diagnostics_changed.connect(self.diagnostics.append)
        self.live.inertia_changed.connect(self.inertia.append)
        self.live.edited.connect(self.edited.append)

    def clear(self) -> None:
        for bucket in (self.poses, self.structure, self.diagnostics, self.inertia, self.edited):
            bucket.clear()

    def moved(self) -> dict[str, np.ndarray]:
        out = {}
        for e in self.poses:
            out.update(e.as_dict())
        return out


def diagnostic_signature(diagnostics) -> list[tuple]:
    return sorted((str(d.severity), str(d.code), d.message, d.key) for d in diagnostics)


def fresh_diagnostics(doc, save_as: Path) -> list[tuple]:
    """Save the document (modular) next to its file and load it again."""
    from snapframe.core.formats import registry
    kept = list(doc.diagnostics)
    registry.implementation("sdformat").write(doc, save_as, flatten=False)
    doc.diagnostics.replace(kept)  # a test's save must not change what it checks
    fresh = load(save_as, LoadContext(use_environment=False))
    return diagnostic_signature(fresh.live.validation.current)


def check_step(doc, rec: Recorder, act, save_as: Path, inertia_links=()) -> None:
    """Run ``act`` and check every promise of the live document against references."""
    before = reference_poses(doc)
    rec.clear()
    act()
    after = reference_poses(doc)
    # one update per user action
    assert len(rec.edited) == 1
    assert len(rec.poses) <= 1 and len(rec.structure) <= 1 and len(rec.diagnostics) <= 1
    # exactly the keys whose world pose differs, with their new poses
    reported = rec.moved()
    assert set(reported) == moved_keys(before, after)
    for k, X in reported.items():
        assert np.allclose(X, after[k], atol=TOL), k
    # structure: what appeared and disappeared
    added = set().union(*(e.added for e in rec.structure)) if rec.structure else set()
    removed = set().union(*(e.removed for e in rec.structure)) if rec.structure else set()
    # posed keys: exactly what appeared in / left the reference; other keys name elements
    # without a resolvable pose that were added (they exist) or removed (they do not)
    assert {k for k in added if k in after or k in before} == after.keys() - before.keys(), (sorted(added)[:5], sorted(after.keys() - before.keys())[:5], sorted(removed)[:5])
    assert {k for k in removed if k in after or k in before} == before.keys() - after.keys()
    assert all(doc.element(k) is not None for k in added - after.keys())
    assert all(doc.element(k) is None or k not in after for k in removed - before.keys())
    # the live table is the reference, entry for entry
    table = doc.live.poses
    assert set(table.keys) == set(after)
    for k, X in after.items():
        assert np.allclose(table.pose(k), X, atol=TOL), k
    # diagnostics equal a fresh load of the saved document
    assert diagnostic_signature(doc.diagnostics) == fresh_diagnostics(doc, save_as)
    # inertia equals a fresh computation: `snapframe inertia` on the saved file
    if inertia_links:
        from snapframe.core.diagnostics import Diagnostics
        from snapframe.core.inertia.document_report import link_inertials
        fresh = link_inertials(load(save_as, LoadContext(use_environment=False)), Diagnostics())
        top = doc.root.name + SEP if doc.root.kind == "model" else ""
        for link in inertia_links:
            live = doc.live.inertia.of(link).mass_properties
            assert link.inertial.computed is live
            ref = fresh.get(top + doc.key(link))
            assert (ref is None) == (live is None)
            if ref is not None:
                assert live.mass == pytest.approx(ref["mass"], rel=1e-12)
                assert np.allclose(live.com, ref["pose"][:3], atol=1e-12)
                I = live.inertia
                assert np.allclose([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]],
                                   [ref[k] for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")],
                                   rtol=1e-9, atol=1e-15)
