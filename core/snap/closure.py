"""Closed-form loop closure for SNAP: two free mate DOFs moved to meet a point.

When a mate's two sides are already placed but its connectors do not meet, SNAP tries to
turn or slide free DOFs that two earlier mates recorded (hinge angles, prismatic slides); a
mate that only one earlier mate's DOFs could satisfy conflicts with it, and the earlier one
keeps its initial values (the solver's rule).  Every such DOF, changed by ``delta``, moves
the part of the assembly it carries rigidly:

* a rotational DOF turns it by ``sign * delta`` about a world line ``(point, axis)``;
* a translational DOF shifts it by ``sign * delta`` along ``axis``.

That is a :class:`Motion`.  A point carried by one motion sweeps a *locus* (a circle or a
line); closing the loop is intersecting two loci (circle-circle = "two hinges", circle-line =
"hinge + prismatic piston", line-line = two slides) and reading the DOF changes back.  This
module only does that geometry; the solver decides which DOFs to try, applies the changes,
re-places the frames and checks the result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .geometry import POS_TOL, Vec3, add, cross, dot, norm, scale, sub, wrap_angle

__all__ = ["Motion", "Circle", "Line", "intersect", "solve_pair_separate", "solve_pair_series"]

_PARALLEL = 1e-9  # |sin| below which two directions count as parallel


@dataclass(frozen=True)
class Circle:
    center: Vec3
    normal: Vec3  # unit
    radius: float


@dataclass(frozen=True)
class Line:
    point: Vec3
    direction: Vec3  # unit


@dataclass(frozen=True)
class Motion:
    """World effect of one DOF: ``sign * delta`` about (rotational) or along ``axis``."""

    rotational: bool
    point: Vec3
    axis: Vec3  # unit
    sign: float  # +1.0 or -1.0

    def locus(self, through: Vec3) -> Circle | Line:
        """Where the point ``through`` can go when only this DOF changes."""
        if not self.rotational:
            return Line(through, self.axis)
        center = add(self.point, scale(self.axis, dot(sub(through, self.point), self.axis)))
        return Circle(center, self.axis, norm(sub(through, center)))

    def delta(self, start: Vec3, goal: Vec3) -> float | None:
        """The DOF change that carries ``start`` to ``goal``, or None if no change does."""
        u = self.axis
        if not self.rotational:
            d = sub(goal, start)
            t = dot(d, u)
            if norm(sub(d, scale(u, t))) > POS_TOL:
                return None
            return self.sign * t
        a = sub(start, self.point)
        b = sub(goal, self.point)
        if abs(dot(a, u) - dot(b, u)) > POS_TOL:
            return None
        a_perp = sub(a, scale(u, dot(a, u)))
        b_perp = sub(b, scale(u, dot(b, u)))
        ra, rb = norm(a_perp), norm(b_perp)
        if abs(ra - rb) > POS_TOL:
            return None
        if ra <= POS_TOL:  # on the axis: any angle keeps it there
            return 0.0
        phi = math.atan2(dot(u, cross(a_perp, b_perp)), dot(a_perp, b_perp))
        return wrap_angle(self.sign * phi)


def _eps(*lengths: float) -> float:
    m = max((1.0, *lengths))
    return POS_TOL * m


def _circle_circle(c1: Circle, c2: Circle) -> list[Vec3]:
    if norm(cross(c1.normal, c2.normal)) > _PARALLEL:
        return []  # non-parallel axes: not a planar loop, not handled
    d = sub(c2.center, c1.center)
    tol = _eps(c1.radius, c2.radius)
    if abs(dot(d, c1.normal)) > tol:
        return []  # circles in parallel but distinct planes never meet
    d = sub(d, scale(c1.normal, dot(d, c1.normal)))
    dist = norm(d)
    if dist <= tol:
        return []  # concentric: either no or infinitely many solutions
    a = (c1.radius ** 2 - c2.radius ** 2 + dist ** 2) / (2.0 * dist)
    h2 = c1.radius ** 2 - a * a
    if h2 < -tol * max(1.0, c1.radius):
        return []
    h = math.sqrt(max(h2, 0.0))
    e = scale(d, 1.0 / dist)
    mid = add(c1.center, scale(e, a))
    if h <= tol:
        return [mid]
    w = cross(c1.normal, e)
    return [add(mid, scale(w, h)), sub(mid, scale(w, h))]


def _circle_line(c: Circle, line: Line) -> list[Vec3]:
    f = sub(line.point, c.center)
    v = line.direction
    vn = dot(v, c.normal)
    tol = _eps(c.radius, norm(f))
    if abs(vn) > _PARALLEL:  # the line pierces the circle's plane once
        t = -dot(f, c.normal) / vn
        x = add(line.point, scale(v, t))
        return [x] if abs(norm(sub(x, c.center)) - c.radius) <= tol else []
    if abs(dot(f, c.normal)) > tol:
        return []
    b = dot(f, v)
    disc = b * b - (dot(f, f) - c.radius ** 2)
    if disc < -tol * max(1.0, c.radius):
        return []
    s = math.sqrt(max(disc, 0.0))
    if s <= tol:
        return [add(line.point, scale(v, -b))]
    return [add(line.point, scale(v, -b - s)), add(line.point, scale(v, -b + s))]


def _line_line(l1: Line, l2: Line) -> list[Vec3]:
    w = sub(l1.point, l2.point)
    b = dot(l1.direction, l2.direction)
    den = 1.0 - b * b
    if den <= _PARALLEL:
        return []  # parallel slides: a single slide would have done it, or nothing does
    d, e = dot(l1.direction, w), dot(l2.direction, w)
    s = (b * e - d) / den
    t = (e - b * d) / den
    x1 = add(l1.point, scale(l1.direction, s))
    x2 = add(l2.point, scale(l2.direction, t))
    if norm(sub(x1, x2)) > _eps(norm(w)):
        return []
    return [scale(add(x1, x2), 0.5)]


def intersect(a: Circle | Line, b: Circle | Line) -> list[Vec3]:
    """Common points of two loci (at most two; empty when they miss or coincide)."""
    if isinstance(a, Circle) and isinstance(b, Circle):
        return _circle_circle(a, b)
    if isinstance(a, Circle):
        return _circle_line(a, b)  # type: ignore[arg-type]
    if isinstance(b, Circle):
        return _circle_line(b, a)
    return _line_line(a, b)


def solve_pair_separate(m1: Motion, p1: Vec3, m2: Motion, p2: Vec3) -> list[tuple[float, float]]:
    """``m1`` carries ``p1`` and ``m2`` carries ``p2`` (the mate's two sides): make them meet."""
    out: list[tuple[float, float]] = []
    for x in intersect(m1.locus(p1), m2.locus(p2)):
        d1, d2 = m1.delta(p1, x), m2.delta(p2, x)
        if d1 is not None and d2 is not None:
            out.append((d1, d2))
    return out


def solve_pair_series(prox: Motion, dist: Motion, p: Vec3, q: Vec3) -> list[tuple[float, float]]:
    """Both DOFs carry ``p``; ``prox`` also carries ``dist``'s axis.  Bring ``p`` onto ``q``.

    The combined motion is ``prox(dist(p))`` about the *current* axes, so ``dist(p)`` must lie
    on ``dist``'s locus through ``p`` and on the pre-image of ``q`` under ``prox``, which is
    ``prox``'s locus through ``q``.  Returns ``(delta_prox, delta_dist)`` pairs.
    """
    out: list[tuple[float, float]] = []
    for x in intersect(dist.locus(p), prox.locus(q)):
        dd, dp = dist.delta(p, x), prox.delta(x, q)
        if dd is not None and dp is not None:
            out.append((dp, dd))
    return out
