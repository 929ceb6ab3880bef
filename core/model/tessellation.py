"""Triangle meshes of SDFormat's primitive shapes, in the geometry's own frame.

SDFormat's conventions: box, sphere and ellipsoid centred on the origin; cylinder, capsule
and cone along z, centred on their length; a plane is a thin square (1 mm) facing its
normal.  Every solid is closed and wound counter-clockwise seen from outside.  Used to draw
shapes and to write them to formats that only hold triangles (mirabuf).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["primitive_triangles", "box_triangles", "ROUND"]

#: Segments around round shapes by default.
ROUND = 24

Triangles = tuple[np.ndarray, np.ndarray]   # points (n, 3) float64, faces (m, 3) int64


def box_triangles(sx: float, sy: float, sz: float) -> Triangles:
    """A box of these sizes centred on the origin."""
    c = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    points = c * np.array([sx, sy, sz])
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    faces = [tri for a, b, c_, d in quads for tri in ((a, b, c_), (a, c_, d))]
    return points, np.array(faces, dtype=np.int64)


def _lathe(profile: list[tuple[float, float]], n: int = ROUND) -> Triangles:
    """A solid of revolution about z from (radius, z) points, bottom to top; rings of
    radius 0 become poles."""
    angles = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    points: list[np.ndarray] = []
    rows: list[tuple[int, bool]] = []   # (first point index, is pole)
    for r, z in profile:
        start = sum(1 if pole else n for _, pole in rows)
        if r <= 1e-12:
            points.append(np.array([[0.0, 0.0, z]]))
            rows.append((start, True))
        else:
            points.append(np.column_stack([ring * r, np.full(n, z)]))
            rows.append((start, False))
    faces: list[tuple[int, int, int]] = []
    for (a, a_pole), (b, b_pole) in zip(rows, rows[1:]):
        for i in range(n):
            j = (i + 1) % n
            if a_pole and b_pole:
                continue
            if a_pole:
                faces.append((a, b + j, b + i))
            elif b_pole:
                faces.append((a + i, a + j, b))
            else:
                faces.append((a + i, a + j, b + j))
                faces.append((a + i, b + j, b + i))
    # close flat ends that are rings, not poles
    allp = np.vstack(points)
    extra = []
    for (start, pole), sign in ((rows[0], -1), (rows[-1], 1)):
        if not pole:
            centre = len(allp) + len(extra)
            extra.append([0.0, 0.0, allp[start, 2]])
            for i in range(n):
                j = (i + 1) % n
                faces.append((centre, start + j, start + i) if sign < 0
                             else (centre, start + i, start + j))
    if extra:
        allp = np.vstack([allp, np.array(extra)])
    return allp, np.array(faces, dtype=np.int64)


def _sphere_profile(r: float, z0: float, top: bool, k: int) -> list[tuple[float, float]]:
    """Quarter circle from the equator (at z0) to a pole, top or bottom."""
    out = []
    for i in range(k + 1):
        t = i / k * math.pi / 2
        out.append((r * math.cos(t), z0 + (r * math.sin(t) if top else -r * math.sin(t))))
    return out


def primitive_triangles(shape: str, params, n: int = ROUND) -> Triangles | None:
    """The triangles of primitive ``shape`` with ``params`` (a dict or key/value pairs as
    in :class:`~snapframe.core.model.Geometry`), ``n`` segments around round shapes; None
    for shapes that are not primitives (mesh, heightmap, polyline)."""
    p = dict(params)
    k = max(n // 4, 1)
    if shape == "box":
        sx, sy, sz = (float(v) for v in p.get("size", (1.0, 1.0, 1.0)))
        return box_triangles(sx, sy, sz)
    if shape == "cylinder":
        r, h = float(p.get("radius", 0.5)), float(p.get("length", 1.0))
        return _lathe([(r, -h / 2), (r, h / 2)], n)
    if shape == "sphere":
        r = float(p.get("radius", 0.5))
        prof = (list(reversed(_sphere_profile(r, 0.0, False, k)))[:-1]
                + _sphere_profile(r, 0.0, True, k))
        return _lathe(prof, n)
    if shape == "capsule":
        r, h = float(p.get("radius", 0.5)), float(p.get("length", 1.0))
        bottom = list(reversed(_sphere_profile(r, -h / 2, False, k)))
        return _lathe(bottom + _sphere_profile(r, h / 2, True, k), n)
    if shape == "ellipsoid":
        rx, ry, rz = (float(v) for v in p.get("radii", (1.0, 1.0, 1.0)))
        sph = primitive_triangles("sphere", (("radius", 1.0),), n)
        assert sph is not None
        return sph[0] * np.array([rx, ry, rz]), sph[1]
    if shape == "cone":
        r, h = float(p.get("radius", 0.5)), float(p.get("length", 1.0))
        return _lathe([(r, -h / 2), (0.0, h / 2)], n)
    if shape == "plane":
        nx, ny, nz = (float(v) for v in p.get("normal", (0.0, 0.0, 1.0)))
        sx, sy = (float(v) for v in p.get("size", (1.0, 1.0)))
        points, faces = box_triangles(sx, sy, 1e-3)
        n = np.array([nx, ny, nz])
        n = n / (np.linalg.norm(n) or 1.0)
        z = np.array([0.0, 0.0, 1.0])
        v = np.cross(z, n)
        c = float(z @ n)
        if np.linalg.norm(v) < 1e-12:
            R = np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
        else:
            vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
            R = np.eye(3) + vx + vx @ vx / (1 + c)
        return points @ R.T, faces
    return None
