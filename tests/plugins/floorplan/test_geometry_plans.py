"""Building solids of the real floor plans: every example of tests/data/floorplan, read
by both readers (JSON-LD folders with ``load_jsonld``, ``.fpm`` models with ``load_fpm``),
and the bundled example (``flat.fpm``).

Checked for every piece: closed and wound outward.  For every opening: its centre (and
points across the wall's thickness) lies in no piece of the walls it voids.  For every
wall whose openings sit inside its straight part (clear of the mitred ends, through the
whole thickness, apart from each other), the pieces' volume is the wall prism's (its
polygon's area times its height, by the shoelace formula) less each hole's width x
height x wall thickness, from the opening's own corner numbers.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from snapframe.plugins.floorplan.geometry import building_pieces, signed_volume
from snapframe.plugins.floorplan.model import FloorPlan, Solid

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "floorplan"
EXAMPLE = ROOT / "resources" / "examples" / "floorplan"
# the current FloorPlan-DSL output (fpm-v1 holds the old dialect; contexts/ no plan)
FOLDERS = sorted(p.parent for p in (DATA / "jsonld").glob("*/floorplan.json")) + \
    [DATA / "studio" / "jsonld"]
MODELS = sorted((DATA / "fpm").glob("*.fpm")) + sorted((DATA / "studio").glob("**/*.fpm")) + \
    [EXAMPLE / "flat.fpm"]
TOL = 1e-9


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def closed_and_outward(piece) -> None:
    T = np.asarray(piece.triangles)
    directed: dict[tuple[int, int], int] = {}
    for a, b, c in T:
        for e in ((a, b), (b, c), (c, a)):
            directed[e] = directed.get(e, 0) + 1
    assert all(n == 1 for n in directed.values()), piece.name
    assert all((b, a) in directed for a, b in directed), piece.name
    assert signed_volume(piece.vertices, T) > 0, piece.name


def winding(piece, point) -> float:
    """Generalized winding number: 1 inside a closed mesh, 0 outside."""
    V = np.asarray(piece.vertices) - np.asarray(point, dtype=float)
    T = np.asarray(piece.triangles)
    a, b, c = V[T[:, 0]], V[T[:, 1]], V[T[:, 2]]
    la, lb, lc = (np.linalg.norm(x, axis=1) for x in (a, b, c))
    num = np.einsum("ij,ij->i", a, np.cross(b, c))
    den = (la * lb * lc + np.einsum("ij,ij->i", a, b) * lc
           + np.einsum("ij,ij->i", b, c) * la + np.einsum("ij,ij->i", c, a) * lb)
    return float(2 * np.arctan2(num, den).sum() / (4 * math.pi))


def local(frame: np.ndarray, points: np.ndarray) -> np.ndarray:
    return (np.asarray(points) - frame[:3, 3]) @ frame[:3, :3]


def expected_wall_volume(wall: Solid, openings: list[Solid]) -> float | None:
    """The wall's volume less its holes, or None when a hole is not a plain through-cut
    of the wall's straight part (then the hand formula does not apply)."""
    ring = local(wall.X_WF, wall.points[:4])[:, :2]
    area = 0.5 * abs(np.dot(ring[:, 0], np.roll(ring[:, 1], -1))
                     - np.dot(np.roll(ring[:, 0], -1), ring[:, 1]))
    height = float(np.ptp(wall.points[:, 2]))
    inner = local(wall.X_WF, wall.points)
    inner = inner[np.abs(inner[:, 1]) < 1e-9]
    x_lo, x_hi = inner[:, 0].min(), inner[:, 0].max()
    t = float(wall.thickness)
    spans = []
    volume = area * height
    for opening in openings:
        box = local(wall.X_WF, opening.points)
        lo, hi = box.min(axis=0), box.max(axis=0)
        # an axis-aligned box (no turn about y) through the whole thickness
        if not np.allclose(np.abs(wall.X_WF[:3, :3].T @ opening.X_WF[:3, :3]), np.eye(3),
                           atol=1e-9):
            return None
        if lo[0] < x_lo - TOL or hi[0] > x_hi + TOL or lo[1] > TOL or hi[1] < t - TOL:
            return None
        z_lo, z_hi = max(lo[2], 0.0), min(hi[2], height)
        spans.append((lo[0], hi[0]))
        volume -= (hi[0] - lo[0]) * max(z_hi - z_lo, 0.0) * t
    spans.sort()
    if any(a[1] > b[0] + TOL for a, b in zip(spans, spans[1:])):
        return None                       # overlapping holes
    return volume


def check_plan(plan: FloorPlan) -> int:
    """Every check of the module text; returns how many walls had their volume checked."""
    pieces = building_pieces(plan)
    for piece in pieces:
        closed_and_outward(piece)
    by_wall: dict[str, list] = {}
    for piece in pieces:
        by_wall.setdefault(piece.element, []).append(piece)
    assert set(plan.walls) <= set(by_wall)
    assert {p.element for p in pieces if p.kind == "floor"} == set(plan.spaces)
    assert {p.element for p in pieces if p.kind in ("column", "divider")} == set(plan.features)
    for opening in plan.openings.values():
        depth = float(opening.thickness)
        for y in (0.1 * depth, 0.5 * depth, 0.9 * depth):
            centre = opening.X_WF[:3, :3] @ np.array([0.0, y, 0.0]) + opening.X_WF[:3, 3]
            for wall in opening.voids:
                for piece in by_wall[wall]:
                    assert abs(winding(piece, centre)) < 1e-6, (opening.name, piece.name)
    checked = 0
    for wall in plan.walls.values():
        cuts = [o for o in plan.openings.values() if wall.name in o.voids]
        expected = expected_wall_volume(wall, cuts)
        if expected is None:
            continue
        got = sum(signed_volume(p.vertices, p.triangles) for p in by_wall[wall.name])
        assert got == pytest.approx(expected, abs=1e-8), wall.name
        checked += 1
        if not cuts:
            assert [p.name for p in by_wall[wall.name]] == [wall.name]
    return checked


@pytest.mark.parametrize("folder", FOLDERS, ids=_id)
def test_json_ld_plans_build_closed_solids_with_empty_holes(folder):
    from snapframe.plugins.floorplan.jsonld import load_jsonld
    plan = load_jsonld(folder)
    checked = check_plan(plan)
    assert checked >= len(plan.walls) - len(plan.openings)


@pytest.mark.parametrize("model", MODELS, ids=_id)
def test_dsl_plans_build_closed_solids_with_empty_holes(model):
    from snapframe.plugins.floorplan.dsl import load_fpm
    plan = load_fpm(model)
    checked = check_plan(plan)
    assert checked >= len(plan.walls) - len(plan.openings)


def test_every_wall_of_the_studio_is_checked_by_volume():
    """The studio's openings lie inside their walls' straight parts: all 8 walls count."""
    from snapframe.plugins.floorplan.jsonld import load_jsonld
    plan = load_jsonld(DATA / "studio" / "jsonld")
    assert check_plan(plan) == 8
