"""The walls a space's polygon gives: wall frames and mitred wall outlines.

Wall ``i`` stands on the edge from corner ``i`` to corner ``i+1`` of the space polygon.  Its
frame has its origin at the middle of that (inner) edge, z up and y pointing into the wall,
away from the room; the wall is ``thickness`` deep along +y.  Its outline in the wall frame
is: the outer corner at the -x end, the outer corner at the +x end, then the inner corners
(+w/2, 0) and (-w/2, 0).  Each outer corner is where the outer lines of two neighbouring
walls meet (a mitre).

The FloorPlan DSL lists polygons clockwise (y up), so that x running from corner ``i`` to
``i+1`` puts +y outside.  A counter-clockwise polygon is taken as FloorPlan-DSL takes it:
the frames still run from corner ``i`` to ``i+1``, so +y points into the room and the
walls are thickened into it (openings and doors placed along a wall frame land where
FloorPlan-DSL and its JSON-LD put them); :func:`is_counter_clockwise` lets the reader
warn about it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .transforms import rot_z

__all__ = ["WallShape", "signed_area", "is_counter_clockwise", "wall_shapes",
           "PolygonProblem"]

_EPS = 1e-12


class PolygonProblem(ValueError):
    """A polygon no wall layout can be made of; ``corner`` is the index at fault."""

    def __init__(self, message: str, corner: int | None = None) -> None:
        super().__init__(message)
        self.corner = corner


@dataclass
class WallShape:
    """One wall in its space's frame."""

    X_SW: np.ndarray         # space frame from wall frame
    outline: np.ndarray      # (4, 2) in the wall frame
    length: float            # length of the inner edge


def signed_area(points: np.ndarray) -> float:
    """The signed area of a closed polygon (positive when counter-clockwise, y up)."""
    x, y = points[:, 0], points[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def is_counter_clockwise(points: np.ndarray) -> bool:
    """Whether a polygon runs counter-clockwise (y up): its walls thicken into the room."""
    return signed_area(points) > 0


def _intersect(p1: np.ndarray, u1: np.ndarray, p2: np.ndarray, u2: np.ndarray) -> np.ndarray | None:
    """Where the lines p1 + s·u1 and p2 + r·u2 cross (None when parallel)."""
    cross = u1[0] * u2[1] - u1[1] * u2[0]
    if abs(cross) < _EPS:
        return None
    d = p2 - p1
    s = (d[0] * u2[1] - d[1] * u2[0]) / cross
    return p1 + s * u1


def wall_shapes(points: np.ndarray, thickness: float) -> list[WallShape]:
    """The walls of a space whose polygon is ``points`` (N, 2), in the space frame.

    Raises :class:`PolygonProblem` for fewer than three corners, repeated corners, a
    polygon without area, or two walls folding back onto each other.
    """
    n = len(points)
    if n < 3:
        raise PolygonProblem(f"a space needs at least 3 corners, this one has {n}")
    area = signed_area(points)
    if abs(area) < _EPS:
        raise PolygonProblem("the polygon has no area (its corners lie on one line)")
    origins, dirs, normals, halves = [], [], [], []
    for i in range(n):
        a, b = points[i], points[(i + 1) % n]
        edge = b - a
        length = float(np.hypot(edge[0], edge[1]))
        if length < 1e-9:
            raise PolygonProblem(f"corners {i} and {(i + 1) % n} are the same point "
                                 "(a wall of length 0)", (i + 1) % n)
        u = edge / length
        origins.append((a + b) / 2)
        dirs.append(u)
        normals.append(np.array([-u[1], u[0]]))   # left of x: out of a clockwise room
        halves.append(length / 2)
    # outer corner k joins wall k-1 and wall k at polygon corner k
    corners = []
    for k in range(n):
        j = k - 1
        pj = origins[j] + thickness * normals[j]
        pk = origins[k] + thickness * normals[k]
        hit = _intersect(pj, dirs[j], pk, dirs[k])
        if hit is None:
            if float(np.dot(dirs[j], dirs[k])) < 0:
                raise PolygonProblem(f"the walls meeting at corner {k} fold back onto "
                                     "each other", k)
            hit = points[k] + thickness * normals[k]   # straight through: no mitre needed
        corners.append(hit)
    shapes = []
    for i in range(n):
        u, o, h = dirs[i], origins[i], halves[i]
        left, right = corners[i], corners[(i + 1) % n]     # the -x end is corner i
        X_SW = rot_z(float(u[0]), float(u[1]), float(o[0]), float(o[1]))
        R = X_SW[:2, :2]
        outer = (np.array([left, right]) - o) @ R     # rows: R^T (p - o)
        outline = np.array([outer[0], outer[1], [h, 0.0], [-h, 0.0]])
        shapes.append(WallShape(X_SW, outline, 2 * h))
    return shapes
