"""Triangulating a simple polygon by ear clipping, fast enough for thousands of corners.

A corner whose triangle with its two neighbours turns the polygon's way and holds no
other corner is an *ear*: cut it off and go on with the smaller polygon.  Done naively
(rescan the ring from its start after each ear, test every corner against every
candidate) this is cubic; here:

* the ring is a doubly linked list and the search goes on from the ear just cut, so a
  corner that is no ear is looked at again only after the polygon changed near it;
* only corners that are not strictly convex can lie in an ear's triangle (for a simple
  polygon, if any corner does, a reflex one does), so only those are tested, and they
  are kept in a uniform grid: an ear test looks at the cells its triangle's bounding box
  covers, or at the list of those corners when that is shorter.

A star of 12 800 corners takes a fraction of a second.  Collinear corners are kept as
triangle corners (never as the tip of a triangle of no area), so edges shared with
neighbouring faces match.
"""
from __future__ import annotations

import math
from collections import deque

import numpy as np

__all__ = ["triangulate_polygon"]


class _Blockers:
    """The corners that may lie in an ear's triangle, in a uniform grid over the polygon."""

    def __init__(self, xs: list[float], ys: list[float], members: list[int]) -> None:
        self.xs, self.ys = xs, ys
        self.members: set[int] = set(members)
        self.x0, self.y0 = min(xs), min(ys)
        width = max(max(xs) - self.x0, 1e-300)
        height = max(max(ys) - self.y0, 1e-300)
        cells = max(1, len(members))      # about four cells per corner, over the box
        self.size = max(math.sqrt(width * height / 4 / cells), width / cells, height / cells,
                        1e-300)
        self.nx = int(min(width / self.size + 1, 4 * cells))
        self.ny = int(min(height / self.size + 1, 4 * cells))
        self.cells: dict[tuple[int, int], set[int]] = {}
        for k in members:
            self.cells.setdefault(self._cell(xs[k], ys[k]), set()).add(k)

    def _cell(self, x: float, y: float) -> tuple[int, int]:
        # (clamped as floats first: a far point must not overflow int())
        i = int(min(max((x - self.x0) / self.size, 0.0), self.nx - 1))
        j = int(min(max((y - self.y0) / self.size, 0.0), self.ny - 1))
        return i, j

    def add(self, k: int) -> None:
        if k not in self.members:
            self.members.add(k)
            self.cells.setdefault(self._cell(self.xs[k], self.ys[k]), set()).add(k)

    def discard(self, k: int) -> None:
        if k in self.members:
            self.members.discard(k)
            self.cells[self._cell(self.xs[k], self.ys[k])].discard(k)

    def near(self, x0: float, y0: float, x1: float, y1: float):
        """The members whose point may lie in the box [x0, x1] x [y0, y1]."""
        i0, j0 = self._cell(x0, y0)
        i1, j1 = self._cell(x1, y1)
        if (i1 - i0 + 1) * (j1 - j0 + 1) >= len(self.members):
            return self.members
        return [k for i in range(i0, i1 + 1) for j in range(j0, j1 + 1)
                for k in self.cells.get((i, j), ())]


def triangulate_polygon(points2d: np.ndarray, stats: dict[str, int] | None = None
                        ) -> list[tuple[int, int, int]]:
    """Ear-clipping triangulation of a simple polygon (clockwise or counter-clockwise).

    Returns index triples into ``points2d``, each wound like the polygon.  Collinear
    corners are kept as triangle corners, so edges shared with neighbouring faces match.
    Raises ValueError when the polygon has no area or crosses itself.  ``stats``, when
    given, receives the number of ear tests (``ears``) and of corner-in-triangle tests
    (``points``) made: the work done, for tests that check it stays near linear.
    """
    pts = np.asarray(points2d, dtype=np.float64)
    n = len(pts)
    if n < 3:
        raise ValueError("a polygon needs at least 3 points")
    if not np.isfinite(pts[:, :2]).all():
        raise ValueError("the polygon has a corner that is not a finite point")
    x, y = pts[:, 0], pts[:, 1]
    area = 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))
    if not math.isfinite(area) or abs(area) <= 0.0:
        raise ValueError("the polygon has no area")
    if n == 3:
        return [(0, 1, 2)]
    sign = 1.0 if area > 0 else -1.0
    scale = max(float(np.ptp(x)), float(np.ptp(y)), 1e-300)
    eps = 1e-12 * scale * scale
    # the turn at every corner (its neighbours' cross product), all at once
    px, py = np.roll(x, 1), np.roll(y, 1)
    nx_, ny_ = np.roll(x, -1), np.roll(y, -1)
    turn = sign * ((x - px) * (ny_ - py) - (y - py) * (nx_ - px))
    if bool((turn > eps).all()):
        return [(0, k, k + 1) for k in range(1, n - 1)]      # strictly convex: a fan
    xs, ys = x.tolist(), y.tolist()
    nxt = list(range(1, n)) + [0]
    prv = [n - 1] + list(range(n - 1))
    blockers = _Blockers(xs, ys, [k for k in range(n) if not turn[k] > eps])
    counts = {"ears": 0, "points": 0}

    def cross(a: int, b: int, c: int) -> float:
        return sign * ((xs[b] - xs[a]) * (ys[c] - ys[a]) - (ys[b] - ys[a]) * (xs[c] - xs[a]))

    def is_ear(b: int) -> bool:
        counts["ears"] += 1
        a, c = prv[b], nxt[b]
        if cross(a, b, c) <= eps:
            return False
        ax, ay, bx, by, cx, cy = xs[a], ys[a], xs[b], ys[b], xs[c], ys[c]
        corners = ((ax, ay), (bx, by), (cx, cy))
        candidates = blockers.near(min(ax, bx, cx), min(ay, by, cy),
                                   max(ax, bx, cx), max(ay, by, cy))
        for k in candidates:
            if k == a or k == b or k == c:
                continue
            counts["points"] += 1
            kx, ky = xs[k], ys[k]
            if (kx, ky) in corners:
                continue
            if (sign * ((bx - ax) * (ky - ay) - (by - ay) * (kx - ax)) >= -eps
                    and sign * ((cx - bx) * (ky - by) - (cy - by) * (kx - bx)) >= -eps
                    and sign * ((ax - cx) * (ky - cy) - (ay - cy) * (kx - cx)) >= -eps):
                return False
        return True

    def classify(k: int) -> None:
        if cross(prv[k], k, nxt[k]) > eps:
            blockers.discard(k)
        else:
            blockers.add(k)

    triangles: list[tuple[int, int, int]] = []
    alive = [True] * n
    remaining = n
    # Whether a corner is an ear changes only when a neighbour is cut off (a corner in
    # its triangle means a reflex one there, which stays until its own ear is cut), so
    # each corner is tested once, and again after a neighbour went: at most n plus two
    # per ear cut.
    queue = deque(range(n))
    queued = [True] * n
    last = 0
    while remaining > 3:
        if queue:
            b = queue.popleft()
            queued[b] = False
            if not alive[b] or not is_ear(b):
                continue
        else:
            # nothing queued is an ear (rounding can hide one): look around the ring once
            b, found = last, False
            for _ in range(remaining):
                if is_ear(b):
                    found = True
                    break
                b = nxt[b]
            if not found:
                k, flat = b, True
                for _ in range(remaining):
                    if abs(cross(prv[k], k, nxt[k])) > eps:
                        flat = False
                        break
                    k = nxt[k]
                if flat:        # only collinear corners left around a sliver
                    break
                raise ValueError("the polygon crosses itself")
        a, c = prv[b], nxt[b]
        triangles.append((a, b, c))
        nxt[a], prv[c] = c, a
        alive[b] = False
        blockers.discard(b)
        remaining -= 1
        last = c
        for k in (a, c):
            classify(k)
            if not queued[k]:
                queued[k] = True
                queue.append(k)
    ear = last
    if remaining == 3:
        triangles.append((prv[ear], ear, nxt[ear]))
    if stats is not None:
        stats.update(counts)
    tris = np.array(triangles, dtype=np.int64).reshape(-1, 3)
    a, b, c = pts[tris[:, 0], :2], pts[tris[:, 1], :2], pts[tris[:, 2], :2]
    covered = 0.5 * float(np.abs((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1])
                                 - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])).sum())
    if abs(covered - abs(area)) > 1e-9 * max(abs(area), 1.0):
        raise ValueError("the polygon crosses itself")
    return triangles
