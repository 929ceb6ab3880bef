"""Building solids: walls with openings cut out, floor slabs, columns and dividers.

The plans here are built by hand from the numbers of the studio model
(``tests/data/floorplan/studio/fpm/studio.fpm`` and its JSON-LD output), following the
FloorPlan semantics: wall *i* runs from polygon point *i* to *i+1*, its frame sits at the
middle of the inner edge with y pointing away from the room, its outer corners are mitred
where the outer lines of neighbouring walls meet; an opening is a box in the frame of the
first wall it voids, centred on its frame, extruded along +y by the summed thickness.
Expected volumes are worked out from those numbers; the meshes are checked by edge
pairing, the divergence theorem and generalized winding numbers.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from snapframe.plugins.floorplan.errors import FloorPlanError
from snapframe.plugins.floorplan.geometry import (
    Piece, building_pieces, closed_mesh_triangles, floor_piece, signed_volume,
    solid_piece, triangulate_polygon, wall_pieces)
from snapframe.plugins.floorplan.model import (
    COLUMN, DIVIDER, ENTRYWAY, WALL, WINDOW, FloorPlan, Solid, Space)

TOL = 1e-9

# --- building plans by hand ------------------------------------------------------------


def yaw_frame(origin, yaw: float) -> np.ndarray:
    X = np.eye(4)
    c, s = math.cos(yaw), math.sin(yaw)
    X[:3, :3] = [[c, -s, 0], [s, c, 0], [0, 0, 1]]
    X[:3, 3] = origin
    return X


def prism_faces(n: int) -> list[list[int]]:
    """Faces as the FloorPlan output lists them: bottom and top in the same order (so one
    of them is wound inward), then the sides."""
    faces = [list(range(n)), list(range(n, 2 * n))]
    faces += [[k, (k + 1) % n, (k + 1) % n + n, k + n] for k in range(n)]
    return faces


def _line_meet(p, d, q, e):
    """Intersection of the lines p + s d and q + t e (2D)."""
    A = np.array([d, -np.asarray(e)]).T
    s, _ = np.linalg.solve(A, np.asarray(q) - np.asarray(p))
    return np.asarray(p) + s * np.asarray(d)


def room(name: str, polygon_cw, thickness, height: float) -> tuple[Space, list[Solid]]:
    """A space and its mitred walls, from a clockwise (y up) polygon in world x, y."""
    P = np.asarray(polygon_cw, dtype=float)
    n = len(P)
    t = [thickness] * n if np.isscalar(thickness) else list(thickness)
    along = [(P[(i + 1) % n] - P[i]) / np.linalg.norm(P[(i + 1) % n] - P[i]) for i in range(n)]
    out = [np.array([-a[1], a[0]]) for a in along]          # left of the edge: outward

    def outer_corner(i):        # where the outer line of wall i-1 meets the outer line of wall i
        j = (i - 1) % n
        return _line_meet(P[j] + t[j] * out[j], along[j], P[i] + t[i] * out[i], along[i])

    walls = []
    for i in range(n):
        j = (i + 1) % n
        corners2d = [outer_corner(i), outer_corner(j), P[j], P[i]]   # FloorPlan corner order
        pts = [[x, y, 0.0] for x, y in corners2d] + [[x, y, height] for x, y in corners2d]
        mid = (P[i] + P[j]) / 2
        X = yaw_frame([mid[0], mid[1], 0.0], math.atan2(along[i][1], along[i][0]))
        walls.append(Solid(f"{name}-wall-{i}", WALL, X, np.array(pts)[:4], np.array(pts),
                           prism_faces(4), height, thickness=t[i], space=name))
    space = Space(name, np.eye(4), np.column_stack([P, np.zeros(n)]),
                  walls=[w.name for w in walls])
    return space, walls


def opening(name: str, kind: str, wall: Solid, x: float, z: float, width: float,
            height: float, depth: float, voids: list[str], beta: float = 0.0) -> Solid:
    """A rectangular opening centred at (x, 0, z) of ``wall``'s frame, turned ``beta``
    about that frame's y axis, extruded ``depth`` along +y."""
    c, s = math.cos(beta), math.sin(beta)
    X_FO = np.eye(4)
    X_FO[:3, :3] = [[c, 0, s], [0, 1, 0], [-s, 0, c]]
    X_FO[:3, 3] = [x, 0.0, z]
    X_WO = wall.X_WF @ X_FO
    rect = [(-width / 2, height / 2), (width / 2, height / 2),
            (width / 2, -height / 2), (-width / 2, -height / 2)]
    local = [[u, 0.0, v] for u, v in rect] + [[u, depth, v] for u, v in rect]
    pts = (X_WO @ np.column_stack([local, np.ones(8)]).T).T[:, :3]
    return Solid(name, kind, X_WO, pts[:4], pts, prism_faces(4), height,
                 thickness=depth, voids=list(voids))


def studio() -> FloorPlan:
    """The studio model: lab 6 x 4 m (walls 0.2 m), hall 6 x 2 m (walls 0.1 m) placed
    against lab's bottom wall with ``spaced`` (0.1 + 0.2 m apart), a 0.9 x 2.1 m entryway
    through both walls, a 1.5 x 1.0 m window in lab's top wall, a 0.3 m square pillar."""
    lab, lab_walls = room("lab", [(-3, 2), (3, 2), (3, -2), (-3, -2)], 0.2, 2.6)
    hall, hall_walls = room("hall", [(-3, -2.3), (3, -2.3), (3, -4.3), (-3, -4.3)], 0.1, 2.6)
    plan = FloorPlan("studio")
    plan.spaces = {"lab": lab, "hall": hall}
    plan.walls = {w.name: w for w in lab_walls + hall_walls}
    door = opening("lab_hall", ENTRYWAY, plan.walls["lab-wall-2"], 1.5, 1.05, 0.9, 2.1,
                   0.2 + 0.1, ["lab-wall-2", "hall-wall-0"])
    window = opening("lab_win", WINDOW, plan.walls["lab-wall-0"], 0.0, 1.4, 1.5, 1.0,
                     0.2, ["lab-wall-0"])
    plan.openings = {"lab_hall": door, "lab_win": window}
    square = [(0.85, 0.65), (1.15, 0.65), (1.15, 0.35), (0.85, 0.35)]
    pts = [[x, y, 0.0] for x, y in square] + [[x, y, 2.6] for x, y in square]
    plan.features = {"pillar": Solid("pillar", COLUMN, yaw_frame([1, 0.5, 0], 0),
                                     np.array(pts)[:4], np.array(pts), prism_faces(4), 2.6,
                                     space="lab")}
    return plan


# --- checking meshes -------------------------------------------------------------------


def assert_closed_outward(piece: Piece) -> None:
    """Every edge on exactly two triangles, walked once each way; positive volume."""
    T = np.asarray(piece.triangles)
    V = np.asarray(piece.vertices)
    assert V.dtype == np.float64 and V.ndim == 2 and V.shape[1] == 3
    assert T.ndim == 2 and T.shape[1] == 3 and len(T) >= 4
    assert T.min() >= 0 and T.max() < len(V)
    directed: dict[tuple[int, int], int] = {}
    for a, b, c in T:
        assert len({a, b, c}) == 3, f"{piece.name}: degenerate triangle"
        for e in ((a, b), (b, c), (c, a)):
            directed[e] = directed.get(e, 0) + 1
    for (a, b), count in directed.items():
        assert count == 1, f"{piece.name}: edge {a}-{b} walked {count} times the same way"
        assert directed.get((b, a)) == 1, f"{piece.name}: edge {a}-{b} has no opposite"
    areas = np.linalg.norm(np.cross(V[T[:, 1]] - V[T[:, 0]], V[T[:, 2]] - V[T[:, 0]]), axis=1)
    assert areas.min() > 1e-14, f"{piece.name}: zero-area triangle"
    assert signed_volume(V, T) > 0, f"{piece.name}: wound inward"


def volume(pieces) -> float:
    return sum(signed_volume(p.vertices, p.triangles) for p in pieces)


def winding_number(piece: Piece, point) -> float:
    """Generalized winding number of a closed mesh about a point (1 inside, 0 outside)."""
    V = np.asarray(piece.vertices) - np.asarray(point, dtype=float)
    T = np.asarray(piece.triangles)
    a, b, c = V[T[:, 0]], V[T[:, 1]], V[T[:, 2]]
    la, lb, lc = (np.linalg.norm(x, axis=1) for x in (a, b, c))
    num = np.einsum("ij,ij->i", a, np.cross(b, c))
    den = (la * lb * lc + np.einsum("ij,ij->i", a, b) * lc
           + np.einsum("ij,ij->i", b, c) * la + np.einsum("ij,ij->i", c, a) * lb)
    return float(2 * np.arctan2(num, den).sum() / (4 * math.pi))


def ray_hits(pieces, origin, direction, length: float = 2.0) -> int:
    """How many triangles of ``pieces`` the segment ``origin + t direction``, t in
    (0, length), crosses (Möller-Trumbore)."""
    o, d = np.asarray(origin, float), np.asarray(direction, float)
    hits = 0
    for p in pieces:
        V, T = np.asarray(p.vertices), np.asarray(p.triangles)
        v0, v1, v2 = V[T[:, 0]], V[T[:, 1]], V[T[:, 2]]
        e1, e2 = v1 - v0, v2 - v0
        h = np.cross(d, e2)
        det = np.einsum("ij,ij->i", e1, h)
        ok = np.abs(det) > 1e-15
        inv = np.where(ok, 1 / np.where(ok, det, 1), 0)
        s = o - v0
        u = inv * np.einsum("ij,ij->i", s, h)
        q = np.cross(s, e1)
        v = inv * (q @ d)
        t = inv * np.einsum("ij,ij->i", e2, q)
        hits += int(np.sum(ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 0) & (t < length)))
    return hits


def by_element(pieces, element: str) -> list[Piece]:
    return [p for p in pieces if p.element == element]


def to_world(solid: Solid, local) -> np.ndarray:
    return (solid.X_WF @ np.array([*local, 1.0]))[:3]


# numbers from studio.fpm: a rectangular room's wall is a trapezoid, inner edge L, outer
# edge L + 2 t (both ends mitred at 45 degrees), extruded by the height
LAB_LONG_WALL = (6.0 + 6.4) / 2 * 0.2 * 2.6          # 3.224 m^3
HALL_LONG_WALL = (6.0 + 6.2) / 2 * 0.1 * 2.6         # 1.586 m^3


# --- walls and openings ----------------------------------------------------------------


def test_wall_corners_follow_the_json_ld_output():
    """The hand-built walls reproduce studio's coordinate.json corner numbers."""
    plan = studio()
    wall = plan.walls["lab-wall-2"]
    # coordinate.json: lab-wall-2-corner-0 is (-3.2, 0.2, 0) and corner-2 (3, 0, 0) in the
    # wall frame, which sits at (0, -2) with alpha = pi
    assert np.allclose(wall.points[0], to_world(wall, (-3.2, 0.2, 0.0)))
    assert np.allclose(wall.points[2], to_world(wall, (3.0, 0.0, 0.0)))
    # the entryway's frame: world (-1.5, -2.0, 1.05), its y axis along world -y
    door = plan.openings["lab_hall"]
    assert np.allclose(door.X_WF[:3, 3], (-1.5, -2.0, 1.05))
    assert np.allclose(door.X_WF[:3, 1], (0, -1, 0))


def test_uncut_wall_is_one_piece_with_the_trapezoid_volume():
    plan = studio()
    pieces = wall_pieces(plan.walls["lab-wall-1"], [])
    assert [p.name for p in pieces] == ["lab-wall-1"]
    assert pieces[0].kind == WALL and pieces[0].element == "lab-wall-1"
    assert_closed_outward(pieces[0])
    assert volume(pieces) == pytest.approx((4.0 + 4.4) / 2 * 0.2 * 2.6, abs=TOL)


def test_window_leaves_jambs_sill_and_lintel():
    plan = studio()
    window = plan.openings["lab_win"]
    pieces = wall_pieces(plan.walls["lab-wall-0"], [window])
    assert len(pieces) == 4
    assert [p.name for p in pieces] == [f"lab-wall-0-piece-{k}" for k in range(4)]
    for p in pieces:
        assert_closed_outward(p)
    assert volume(pieces) == pytest.approx(LAB_LONG_WALL - 1.5 * 1.0 * 0.2, abs=TOL)
    # jambs are full height; the sill ends at 0.9 m, the lintel starts at 1.9 m
    tops = sorted(round(float(p.vertices[:, 2].max()), 9) for p in pieces)
    bottoms = sorted(round(float(p.vertices[:, 2].min()), 9) for p in pieces)
    assert tops == [0.9, 2.6, 2.6, 2.6] and bottoms == [0.0, 0.0, 0.0, 1.9]


def test_entryway_spanning_two_walls_cuts_both():
    plan = studio()
    pieces = building_pieces(plan)
    lab = by_element(pieces, "lab-wall-2")
    hall = by_element(pieces, "hall-wall-0")
    # a door standing on the floor leaves no sill: two jambs and a lintel in each wall
    assert len(lab) == 3 and len(hall) == 3
    for p in lab + hall:
        assert_closed_outward(p)
    assert volume(lab) == pytest.approx(LAB_LONG_WALL - 0.9 * 2.1 * 0.2, abs=TOL)
    assert volume(hall) == pytest.approx(HALL_LONG_WALL - 0.9 * 2.1 * 0.1, abs=TOL)


def test_holes_are_empty_at_the_opening_centres():
    plan = studio()
    pieces = building_pieces(plan)
    walls = [p for p in pieces if p.kind == WALL]
    door, window = plan.openings["lab_hall"], plan.openings["lab_win"]
    for o, depth in ((door, 0.3), (window, 0.2)):
        for y in (0.25 * depth, 0.5 * depth, 0.75 * depth):
            centre = to_world(o, (0.0, y, 0.0))
            assert all(abs(winding_number(p, centre)) < 1e-9 for p in walls)
        # a 2 m ray through the middle of the opening, across the walls, meets no face
        start = to_world(o, (0.0, -1.0, 0.0))
        assert ray_hits(walls, start, o.X_WF[:3, 1]) == 0
    # beside the window, the wall is solid: exactly one piece holds the point
    beside = to_world(plan.walls["lab-wall-0"], (-1.0, 0.1, 1.4))
    numbers = [winding_number(p, beside) for p in walls]
    assert sum(abs(w - 1) < 1e-9 for w in numbers) == 1
    assert sum(abs(w) < 1e-9 for w in numbers) == len(walls) - 1
    # and a ray beside the door, through lab-wall-2 and hall-wall-0, crosses 4 faces
    start = to_world(door, (0.6, -1.0, 0.0))
    assert ray_hits(walls, start, door.X_WF[:3, 1]) == 4


def test_opening_crossing_the_mitred_end_cuts_exactly():
    """A window x in [2.6, 3.4], z in [1, 2] of lab-wall-0: past the inner corner (x = 3)
    into the mitre, where the wall's cross-section is x in [-3 - y, 3 + y] for y in
    [0, 0.2].  Hole: integral of (3 + y - 2.6) dy = 0.4 * 0.2 + 0.2**2 / 2 = 0.1 m^2, 1 m high."""
    plan = studio()
    wall = plan.walls["lab-wall-0"]
    window = opening("end_win", WINDOW, wall, 3.0, 1.5, 0.8, 1.0, 0.2, ["lab-wall-0"])
    pieces = wall_pieces(wall, [window])
    for p in pieces:
        assert_closed_outward(p)
    assert volume(pieces) == pytest.approx(LAB_LONG_WALL - 0.1, abs=TOL)
    assert len(pieces) == 3             # one jamb (nothing left beyond x = 3.4), sill, lintel
    # the sill and lintel keep the mitred outer corner (3.2, 0.2) of the wall frame
    corner = to_world(wall, (3.2, 0.2, 0.0))[:2]
    keep = [p for p in pieces if np.min(np.linalg.norm(p.vertices[:, :2] - corner, axis=1)) < TOL]
    assert len(keep) == 2
    # the hole is empty right at the wall's end
    assert all(abs(winding_number(p, to_world(wall, (3.05, 0.1, 1.5)))) < 1e-9 for p in pieces)


def test_opening_touching_the_wall_end_keeps_the_mitre_wedge():
    """Window x in [2.2, 3.0]: its jamb is flush with the inner corner, so the wedge of
    the mitre (x in [3, 3 + y]) stays as its own full-height piece beside the hole
    (jambs are cut first): a triangle of 0.2 x 0.2 / 2 m^2, 2.6 m high."""
    plan = studio()
    wall = plan.walls["lab-wall-0"]
    window = opening("end_win", WINDOW, wall, 2.6, 1.5, 0.8, 1.0, 0.2, ["lab-wall-0"])
    pieces = wall_pieces(wall, [window])
    for p in pieces:
        assert_closed_outward(p)
    assert volume(pieces) == pytest.approx(LAB_LONG_WALL - 0.8 * 1.0 * 0.2, abs=TOL)
    wedge = [p for p in pieces if p.vertices[:, 0].min() > 3.0 - TOL]
    assert len(wedge) == 1
    assert volume(wedge) == pytest.approx(0.2 * 0.2 / 2 * 2.6, abs=TOL)


def test_opening_deeper_than_the_wall_and_outside_its_height():
    """A cutter 1 m deep starting 0.5 m inside the room, from below the floor to above the
    top, 1 m wide: the wall is split in two, its volume less 1 x 0.2 x 2.6."""
    plan = studio()
    wall = plan.walls["lab-wall-0"]
    cutter = opening("gap", ENTRYWAY, wall, -1.0, 1.3, 1.0, 4.0, 1.0, ["lab-wall-0"])
    cutter.points = cutter.points + wall.X_WF[:3, 1] * -0.5
    pieces = wall_pieces(wall, [cutter])
    assert len(pieces) == 2
    for p in pieces:
        assert_closed_outward(p)
    assert volume(pieces) == pytest.approx(LAB_LONG_WALL - 1.0 * 0.2 * 2.6, abs=TOL)


def test_blind_opening_leaves_the_back_of_the_wall():
    """A niche 0.1 m deep into the 0.2 m wall (1 x 1 m): the back half stays."""
    plan = studio()
    wall = plan.walls["lab-wall-0"]
    niche = opening("niche", WINDOW, wall, 0.0, 1.4, 1.0, 1.0, 0.1, ["lab-wall-0"])
    pieces = wall_pieces(wall, [niche])
    for p in pieces:
        assert_closed_outward(p)
    assert volume(pieces) == pytest.approx(LAB_LONG_WALL - 1.0 * 1.0 * 0.1, abs=TOL)
    inside_niche = to_world(wall, (0.0, 0.05, 1.4))
    behind_niche = to_world(wall, (0.0, 0.15, 1.4))
    assert all(abs(winding_number(p, inside_niche)) < 1e-9 for p in pieces)
    assert sum(abs(winding_number(p, behind_niche) - 1) < 1e-9 for p in pieces) == 1


def test_overlapping_openings_remove_their_union():
    """Windows x in [-2, 0] and [-1, 1], z in [1, 2] and [1.5, 2.5]: union area
    2 + 2 - 1 * 0.5 = 3.5 m^2, times 0.2 m."""
    plan = studio()
    wall = plan.walls["lab-wall-0"]
    a = opening("a", WINDOW, wall, -1.0, 1.5, 2.0, 1.0, 0.2, ["lab-wall-0"])
    b = opening("b", WINDOW, wall, 0.0, 2.0, 2.0, 1.0, 0.2, ["lab-wall-0"])
    pieces = wall_pieces(wall, [a, b])
    for p in pieces:
        assert_closed_outward(p)
    assert volume(pieces) == pytest.approx(LAB_LONG_WALL - 3.5 * 0.2, abs=TOL)
    for point in ((-1.5, 0.1, 1.2), (0.5, 0.1, 2.4), (-0.5, 0.1, 1.75)):
        assert all(abs(winding_number(p, to_world(wall, point))) < 1e-9 for p in pieces)


def test_opening_turned_about_the_wall_normal():
    """A 1 x 0.5 m window turned 30 degrees about the wall's y axis stays a rectangle of
    0.5 m^2 in the wall plane, so the wall loses 0.5 x 0.2 m^3."""
    plan = studio()
    wall = plan.walls["lab-wall-0"]
    tilted = opening("tilted", WINDOW, wall, 0.5, 1.3, 1.0, 0.5, 0.2, ["lab-wall-0"],
                     beta=math.radians(30))
    pieces = wall_pieces(wall, [tilted])
    for p in pieces:
        assert_closed_outward(p)
    assert volume(pieces) == pytest.approx(LAB_LONG_WALL - 0.5 * 0.2, abs=TOL)
    # a point along the turned long axis, 0.45 m from the centre, is in the hole
    u = 0.45 * np.array([math.cos(math.radians(30)), -math.sin(math.radians(30))])
    assert all(abs(winding_number(p, to_world(wall, (0.5 + u[0], 0.1, 1.3 + u[1])))) < 1e-9
               for p in pieces)


def test_opening_elsewhere_or_only_touching_leaves_the_wall_whole():
    plan = studio()
    wall = plan.walls["lab-wall-0"]
    away = opening("away", WINDOW, wall, 0.0, 1.4, 1.0, 1.0, 0.2, ["lab-wall-0"])
    away.points = away.points + np.array([0.0, 0.0, 5.0])      # above the wall
    touching = opening("touch", WINDOW, wall, 0.0, 1.4, 1.0, 1.0, 0.3, ["lab-wall-0"])
    touching.points = touching.points + wall.X_WF[:3, 1] * 0.2  # flush with the outer face
    pieces = wall_pieces(wall, [away, touching])
    assert [p.name for p in pieces] == ["lab-wall-0"]
    assert volume(pieces) == pytest.approx(LAB_LONG_WALL, abs=TOL)


def test_openings_only_cut_the_walls_they_void():
    plan = studio()
    plan.openings["lab_win"].voids = []
    pieces = building_pieces(plan)
    assert [p.name for p in by_element(pieces, "lab-wall-0")] == ["lab-wall-0"]


def test_building_lists_walls_then_floors_then_features():
    plan = studio()
    pieces = building_pieces(plan)
    kinds = [p.kind for p in pieces]
    assert kinds == sorted(kinds, key=["wall", "floor", "column"].index)
    names = [p.name for p in pieces]
    assert len(set(names)) == len(names)
    assert {p.element for p in pieces if p.kind == "floor"} == {"lab", "hall"}
    assert [p.name for p in pieces if p.kind == COLUMN] == ["pillar"]
    for p in pieces:
        assert_closed_outward(p)
    # 8 walls, minus both holes; floors 6 x 4 and 6 x 2 m, 0.05 m deep; the pillar
    walls = 2 * LAB_LONG_WALL + 2 * (4.0 + 4.4) / 2 * 0.2 * 2.6 \
        + 2 * HALL_LONG_WALL + 2 * (2.0 + 2.2) / 2 * 0.1 * 2.6
    holes = 0.9 * 2.1 * 0.3 + 1.5 * 1.0 * 0.2
    expected = walls - holes + (24 + 12) * 0.05 + 0.3 * 0.3 * 2.6
    assert volume(pieces) == pytest.approx(expected, abs=1e-8)


# --- floors ----------------------------------------------------------------------------

L_SHAPE = [(0, 0), (0, 3), (1, 3), (1, 1), (2, 1), (2, 0)]       # clockwise, y up


@pytest.mark.parametrize("reverse", [False, True], ids=["cw", "ccw"])
def test_floor_slab_of_a_non_convex_space_either_way_round(reverse):
    ring = L_SHAPE[::-1] if reverse else L_SHAPE
    pts = np.array([[x, y, 0.0] for x, y in ring])
    # shoelace by hand: the L is a 1 x 3 and a 1 x 1 rectangle, 4 m^2
    slab = floor_piece(Space("el", np.eye(4), pts), thickness=0.1)
    assert slab.name == "el-floor" and slab.kind == "floor" and slab.element == "el"
    assert_closed_outward(slab)
    assert signed_volume(slab.vertices, slab.triangles) == pytest.approx(0.4, abs=TOL)
    assert slab.vertices[:, 2].max() == pytest.approx(0.0)
    assert slab.vertices[:, 2].min() == pytest.approx(-0.1)
    # the notch (1.5, 2) is not floor, (0.5, 2) is
    assert abs(winding_number(slab, (1.5, 2.0, -0.05))) < 1e-9
    assert abs(winding_number(slab, (0.5, 2.0, -0.05)) - 1) < 1e-9


def test_floor_slab_sits_at_the_space_height():
    pts = np.array([[0, 0, 1.5], [0, 2, 1.5], [2, 2, 1.5], [2, 0, 1.5]], dtype=float)
    slab = floor_piece(Space("upstairs", np.eye(4), pts), thickness=0.2)
    assert slab.vertices[:, 2].max() == pytest.approx(1.5)
    assert signed_volume(slab.vertices, slab.triangles) == pytest.approx(0.8, abs=TOL)


def test_triangulation_covers_the_polygon_with_collinear_corners():
    # a 2 x 1 rectangle with an extra corner in the middle of each long side
    ring = np.array([(0, 0), (1, 0), (2, 0), (2, 1), (1, 1), (0, 1)], dtype=float)
    for pts in (ring, ring[::-1]):
        tris = triangulate_polygon(pts)
        assert len(tris) == len(pts) - 2
        total = 0.0
        for a, b, c in tris:
            (ax, ay), (bx, by), (cx, cy) = pts[a], pts[b], pts[c]
            area = 0.5 * ((bx - ax) * (cy - ay) - (by - ay) * (cx - ax))
            sign = 1 if pts is ring else -1
            assert sign * area > 0                    # wound like the polygon
            total += abs(area)
        assert total == pytest.approx(2.0)


def test_self_crossing_space_polygon_is_reported():
    bowtie = np.array([[0, 0, 0], [2, 2, 0], [2, 0, 0], [0, 2, 0]], dtype=float)
    with pytest.raises(FloorPlanError) as info:
        floor_piece(Space("knot", np.eye(4), bowtie))
    assert info.value.element == "knot"


# --- columns and dividers --------------------------------------------------------------


def divider(name: str, ring, height: float, flip: bool = False) -> Solid:
    pts = [[x, y, 0.0] for x, y in ring] + [[x, y, height] for x, y in ring]
    faces = prism_faces(len(ring))
    if flip:
        faces = [f[::-1] for f in faces]
    return Solid(name, DIVIDER, np.eye(4), np.array(pts)[: len(ring)], np.array(pts),
                 faces, height)


@pytest.mark.parametrize("flip", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_features_are_wound_outward_whatever_the_input(flip, reverse):
    ring = L_SHAPE[::-1] if reverse else L_SHAPE
    piece = solid_piece(divider("wall_l", ring, 2.0, flip=flip))
    assert piece.kind == DIVIDER and piece.name == "wall_l"
    assert_closed_outward(piece)
    assert signed_volume(piece.vertices, piece.triangles) == pytest.approx(8.0, abs=TOL)
    assert abs(winding_number(piece, (1.5, 2.0, 1.0))) < 1e-9


def test_open_feature_is_reported_or_collected():
    broken = divider("leaky", [(0, 0), (0, 1), (1, 1), (1, 0)], 1.0)
    broken.faces = broken.faces[1:]                            # no bottom
    with pytest.raises(FloorPlanError) as info:
        solid_piece(broken)
    assert info.value.element == "leaky"
    plan = studio()
    plan.features["leaky"] = broken
    problems: list[FloorPlanError] = []
    pieces = building_pieces(plan, problems=problems)
    assert [e.element for e in problems] == ["leaky"]
    assert "leaky" not in {p.element for p in pieces}
    assert "pillar" in {p.element for p in pieces}


def test_closed_mesh_rejects_faces_naming_missing_points():
    with pytest.raises(ValueError):
        closed_mesh_triangles(np.zeros((3, 3)), [[0, 1, 5]])


def test_wall_listed_with_inward_faces_is_cut_the_same():
    plan = studio()
    wall = plan.walls["lab-wall-0"]
    wall.faces = [f[::-1] for f in wall.faces]
    pieces = wall_pieces(wall, [plan.openings["lab_win"]])
    for p in pieces:
        assert_closed_outward(p)
    assert volume(pieces) == pytest.approx(LAB_LONG_WALL - 1.5 * 1.0 * 0.2, abs=TOL)


def test_a_wall_that_is_no_convex_prism():
    """An L-shaped wall (hand-written JSON-LD could give one) is drawn whole; an opening
    in it cannot be cut by convex clipping, which is reported naming the wall."""
    ring = [(0, 0), (0, 2), (0.2, 2), (0.2, 0.2), (2, 0.2), (2, 0)]
    el = divider("odd-wall", ring, 2.0)
    el.kind, el.X_WF = WALL, yaw_frame([1, 0, 0], 0.0)
    # shoelace by hand: 0.2 x 2 + 1.8 x 0.2 = 0.76 m^2, 2 m high
    whole = wall_pieces(el, [])
    assert [p.name for p in whole] == ["odd-wall"]
    assert_closed_outward(whole[0])
    assert volume(whole) == pytest.approx(1.52, abs=TOL)
    window = opening("w", WINDOW, el, 0.0, 1.0, 0.5, 0.5, 0.2, ["odd-wall"])
    with pytest.raises(FloorPlanError) as info:
        wall_pieces(el, [window])
    assert info.value.element == "odd-wall"
    plan = FloorPlan("odd", walls={"odd-wall": el}, openings={"w": window})
    problems: list[FloorPlanError] = []
    assert building_pieces(plan, problems=problems) == []
    assert [e.element for e in problems] == ["odd-wall"]


def test_counter_clockwise_room_walls_are_cut_and_closed_too():
    """A counter-clockwise polygon gives walls thickened into the room (as FloorPlan-DSL
    makes them): the mitred edge is then 2 t shorter, 6 - 0.4 = 5.6 m, and the wall
    (6 + 5.6) / 2 x 0.2 x 2.6 m^3; a 1.5 x 1 m window through it takes 0.3 m^3."""
    space, walls = room("ccw", [(-3, -2), (3, -2), (3, 2), (-3, 2)], 0.2, 2.6)
    wall = walls[0]
    window = opening("win", WINDOW, wall, 0.0, 1.4, 1.5, 1.0, 0.2, [wall.name])
    pieces = wall_pieces(wall, [window])
    for p in pieces:
        assert_closed_outward(p)
    assert volume(pieces) == pytest.approx((6.0 + 5.6) / 2 * 0.2 * 2.6 - 0.3, abs=TOL)
    slab = floor_piece(space, thickness=0.1)
    assert_closed_outward(slab)
    assert signed_volume(slab.vertices, slab.triangles) == pytest.approx(24 * 0.1, abs=TOL)


def test_collinear_corners_make_no_zero_area_triangles():
    """A divider whose outline has extra corners in the middle of its sides (2 x 1 m, 1 m
    high): closed, outward, every triangle with area, 2 m^3; cut by nothing."""
    ring = [(0, 0), (0, 0.5), (0, 1), (1, 1), (2, 1), (2, 0), (1, 0)]
    piece = solid_piece(divider("strip", ring, 1.0))
    assert_closed_outward(piece)
    assert signed_volume(piece.vertices, piece.triangles) == pytest.approx(2.0, abs=TOL)
