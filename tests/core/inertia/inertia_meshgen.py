"""Closed triangle meshes of the SDFormat primitives, generated in numpy for the tests.

Bodies of revolution are built by *lathing* a profile (r_k, z_k) with N segments: every
z-slice of the result is a regular N-gon, every side quad is planar, and the caps are
fans.  For a cylinder or cone (straight profile) the polyhedron's mass properties are
therefore known exactly: a regular N-gon of circumradius r has

    area        A = (N/2) sin(t) r^2                 = pi r^2 * kA,  kA = sin(t)/t
    polar       J = N r^4 sin(t) (2 + cos(t)) / 12   = (pi r^4/2) * kJ,
                                                      kJ = N sin(t)(2+cos(t))/(6 pi)

with t = 2 pi / N, so m_N = kA m, Izz_N = kJ Izz and Ixx_N = kJ (transverse part) +
kA (z^2 part).  Curved profiles (sphere, capsule) are checked against bounds instead.
"""

from __future__ import annotations

import math

import numpy as np


def box_mesh(size=(1.0, 1.0, 1.0), center=(0.0, 0.0, 0.0)):
    sx, sy, sz = (0.5 * float(s) for s in size)
    V = np.array([[x, y, z] for x in (-sx, sx) for y in (-sy, sy) for z in (-sz, sz)]) + center
    # vertex index = 4 ix + 2 iy + iz; outward-wound quads split in two.
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    F = []
    for a, b, c, d in quads:
        F += [(a, b, c), (a, c, d)]
    return V, np.array(F)


def lathe(profile, n: int):
    """Revolve ``profile`` [(r, z), ...] (from bottom to top, r > 0 except possibly the
    ends, which may sit on the axis) about z with ``n`` segments; closed and outward."""
    prof = [(float(r), float(z)) for r, z in profile]
    phi = 2.0 * np.pi * np.arange(n) / n
    c, s = np.cos(phi), np.sin(phi)
    verts = []
    rings = []  # per profile point: vertex indices (n of them, or 1 for axis points)
    for r, z in prof:
        if r == 0.0:
            rings.append([len(verts)] * n)
            verts.append((0.0, 0.0, z))
        else:
            start = len(verts)
            verts.extend(zip(r * c, r * s, np.full(n, z)))
            rings.append(list(range(start, start + n)))
    faces = []
    for k in range(len(prof) - 1):
        lo, hi = rings[k], rings[k + 1]
        for i in range(n):
            j = (i + 1) % n
            a, b, cc, d = lo[i], lo[j], hi[j], hi[i]
            for tri in ((a, b, cc), (a, cc, d)):
                if len(set(tri)) == 3:
                    faces.append(tri)
    # Caps where the profile ends off the axis: fan around a centre vertex.
    if prof[0][0] != 0.0:
        ci = len(verts)
        verts.append((0.0, 0.0, prof[0][1]))
        ring = rings[0]
        faces += [(ci, ring[(i + 1) % n], ring[i]) for i in range(n)]
    if prof[-1][0] != 0.0:
        ci = len(verts)
        verts.append((0.0, 0.0, prof[-1][1]))
        ring = rings[-1]
        faces += [(ci, ring[i], ring[(i + 1) % n]) for i in range(n)]
    return np.array(verts), np.array(faces, dtype=np.int64)


def cylinder_mesh(r, length, n=128):
    return lathe([(r, -length / 2), (r, length / 2)], n)


def cone_mesh(r, length, n=128):
    """Base at z = -L/2, apex at +L/2 (SDFormat's bounding-box-centred cone)."""
    return lathe([(r, -length / 2), (0.0, length / 2)], n)


def sphere_mesh(r, n_lat=48, n_lon=96):
    th = np.linspace(np.pi, 0.0, n_lat + 1)          # from the south pole up
    prof = [(r * math.sin(t) if 0 < k < n_lat else 0.0, r * math.cos(t)) for k, t in enumerate(th)]
    return lathe(prof, n_lon)


def capsule_mesh(r, length, n_cap=24, n_lon=96):
    th = np.linspace(0.0, np.pi / 2, n_cap + 1)
    bottom = [(r * math.sin(t), -length / 2 - r * math.cos(t)) for t in th]
    top = [(r * math.cos(t), length / 2 + r * math.sin(t)) for t in th]
    prof = bottom + top
    prof[0] = (0.0, prof[0][1])
    prof[-1] = (0.0, prof[-1][1])
    return lathe(prof, n_lon)


def polygon_factors(n: int) -> tuple[float, float]:
    """(kA, kJ) of a regular n-gon relative to its circumscribed circle."""
    t = 2.0 * math.pi / n
    return math.sin(t) / t, n * math.sin(t) * (2.0 + math.cos(t)) / (6.0 * math.pi)


def torus_mesh(R=0.3, r=0.1, nu=64, nv=32):
    u = np.linspace(0, 2 * np.pi, nu, endpoint=False)
    v = np.linspace(0, 2 * np.pi, nv, endpoint=False)
    U, W = np.meshgrid(u, v, indexing="ij")
    X = np.stack([(R + r * np.cos(W)) * np.cos(U), (R + r * np.cos(W)) * np.sin(U),
                  r * np.sin(W)], -1).reshape(-1, 3)
    i = np.arange(nu)[:, None]
    j = np.arange(nv)[None, :]
    a = i * nv + j
    b = ((i + 1) % nu) * nv + j
    c = ((i + 1) % nu) * nv + (j + 1) % nv
    d = i * nv + (j + 1) % nv
    F = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3),
                        np.stack([a, c, d], -1).reshape(-1, 3)])
    return X, F


def auto_link(collisions, name="link", **inertial):
    """A link with ``<inertial auto="true" ...>`` and one collision per
    ``(shape, params, density, X_LC)`` tuple, named c0, c1, ..."""
    from snapframe.core.model.nodes import Collision, Geometry, Inertial, Link, PoseSpec
    link = Link(name=name, inertial=Inertial(auto=True, **inertial))
    for i, (shape, params, density, pose) in enumerate(collisions):
        c = Collision(name=f"c{i}", geometry=Geometry(shape, params), density=density,
                      pose=PoseSpec(pose))
        c.parent = link
        link.collisions.append(c)
    return link
