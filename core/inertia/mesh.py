"""Volume integrals of triangle meshes: exact (closed meshes) and voxel (anything else).

Exact method
    The divergence theorem turns the 10 volume integrals (1, x, y, z, x^2, ..., zx) of a
    closed, outward-wound triangle mesh into sums over triangles (Mirtich 1996; Eberly,
    "Polyhedral Mass Properties").  In the signed-tetrahedron form, with the origin at a
    reference point and triangle corners v0, v1, v2:

        det = v0 . (v1 x v2),  s = v0 + v1 + v2
        V = sum det / 6,  integral(x) = sum det s / 24,
        integral(x x^T) = sum det (v0 v0^T + v1 v1^T + v2 v2^T + s s^T) / 120.

    The kernel evaluates the last bracket in the equal three-term form
    sum_c (s - v_c)(s - v_c)^T, in L2-sized chunks of whole-array numpy calls: about
    45 ms for a 1M-triangle indexed mesh, >10x trimesh (benchmarks/bench_inertia.py).

    The reference point is the bounding-box centre: integrating about the file's origin
    loses ~all digits for a part modelled 1000 m away (see inertia_perf.md section 3a).
    The result is exact for the polyhedron up to rounding; only tessellation separates it
    from the smooth CAD body.  It needs no vertex connectivity: it needs the surface to be
    a closed, consistently oriented 2-cycle, which :func:`check_closed` verifies.

Voxel method (approximate)
    For meshes that are not closed: voxel centres are classified by ray parity along x,
    y and z, and the three votes are combined; a column whose ray crosses the surface an
    odd number of times (it went through a hole) abstains.  Small holes therefore do not
    flood the volume.  Errors fall roughly like h^1.5 (inertia_perf.md section 3b).

Results are :class:`MeshIntegrals` (unit density, the mesh's own frame).  They transform
analytically under any affine map x' = A x + t (scale, non-uniform scale, mirror, pose):
V' = |det A| V, c' = A c + t, C' = |det A| A C A^T, so edits never re-integrate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from ..progress import checkpoint
from .mass_properties import MassProperties

__all__ = ["MeshIntegrals", "ClosureReport", "MeshAnalysis", "integrate_closed", "check_closed",
           "weld_vertices", "voxel_integrals", "analyze_mesh", "default_voxel_size",
           "MAX_VOXELS"]

_E3 = np.eye(3)
#: Upper bound on voxel-grid cells; a finer requested pitch is coarsened (and reported).
MAX_VOXELS = 8_000_000
#: Faces per chunk.  Keeps the ~20 working rows of a chunk in L2/L3, and keeps every
#: dot product below OpenBLAS's threading threshold (10 000 elements): threaded BLAS on
#: such small products is 10-100x slower whenever another process holds a core.
_CHUNK = 8192


@dataclass(frozen=True, eq=False)
class MeshIntegrals:
    """Unit-density volume properties of a solid, in its mesh frame.

    ``volume`` [m^3], ``centroid`` (3,), ``covariance`` = integral((x-c)(x-c)^T dV) about
    the centroid (3, 3).  ``approximate`` is True for the voxel method.
    """

    volume: float
    centroid: np.ndarray
    covariance: np.ndarray
    method: str = "exact"
    approximate: bool = False
    voxel_size: float | None = None

    def mass_properties(self, density: float) -> MassProperties:
        """Mass properties at uniform ``density`` (``I = rho (tr(C) E - C)``)."""
        C = self.covariance
        return MassProperties(density * self.volume, self.centroid,
                              density * (np.trace(C) * _E3 - C), self.approximate)

    def transformed(self, A: np.ndarray | Sequence[Sequence[float]] | None = None,
                    t: Sequence[float] | None = None) -> "MeshIntegrals":
        """The solid mapped by x' = A x + t (A may scale, shear or mirror), in O(1)."""
        A = _E3 if A is None else np.asarray(A, dtype=float).reshape(3, 3)
        t = np.zeros(3) if t is None else np.asarray(t, dtype=float)
        j = abs(float(np.linalg.det(A)))
        return MeshIntegrals(j * self.volume, A @ self.centroid + t,
                             j * (A @ self.covariance @ A.T), self.method, self.approximate,
                             None if self.voxel_size is None else self.voxel_size * j ** (1 / 3))

    def scaled(self, scale: Sequence[float]) -> "MeshIntegrals":
        """``//mesh/scale``: per-axis scale about the mesh origin (negative = mirror)."""
        return self.transformed(np.diag(np.asarray(scale, dtype=float)))

    def translated(self, t: Sequence[float]) -> "MeshIntegrals":
        return self.transformed(None, t)

    @staticmethod
    def combine(parts: Iterable["MeshIntegrals"]) -> "MeshIntegrals":
        """Union of disjoint solids (e.g. submeshes integrated separately)."""
        parts = list(parts)
        if not parts:
            raise ValueError("nothing to combine")
        if len(parts) == 1:
            return parts[0]
        V = sum(p.volume for p in parts)
        c = sum(p.volume * p.centroid for p in parts) / V
        C = sum(p.covariance + p.volume * np.outer(p.centroid - c, p.centroid - c) for p in parts)
        approx = any(p.approximate for p in parts)
        method = "+".join(sorted({p.method for p in parts}))
        sizes = [p.voxel_size for p in parts if p.voxel_size is not None]
        return MeshIntegrals(V, c, C, method, approx, max(sizes) if sizes else None)


# ---------------------------------------------------------------------------------------
# Exact integration
# ---------------------------------------------------------------------------------------
def _check_arrays(V: np.ndarray, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    V = np.asarray(V, dtype=float)
    F = np.asarray(F)
    if V.ndim != 2 or V.shape[1] != 3:
        raise ValueError(f"vertices must be (n, 3), got {V.shape}")
    if F.ndim != 2 or F.shape[1] != 3:
        raise ValueError(f"faces must be (m, 3), got {F.shape}")
    if not np.issubdtype(F.dtype, np.integer):
        raise ValueError(f"faces must be integer indices, got {F.dtype}")
    if len(F) and len(V) == 0:
        raise ValueError("faces reference vertices but there are none")
    return V, F


def _raw_integrals(V: np.ndarray, F: np.ndarray, chunk: int = _CHUNK
                   ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray, float]:
    """Signed sums about the bbox centre: (6 V, 24 integral(x), 120 integral(xx^T), centre,
    largest bbox extent).

    Per triangle the second-moment weight is  v0 v0^T + v1 v1^T + v2 v2^T + s s^T, which
    equals  p0 p0^T + p1 p1^T + p2 p2^T  with p_c the sum of the *other two* corners
    (expand (s - v_c)(s - v_c)^T): three outer products instead of four, and
    sum_c p_c = 2 s gives the first moment from the same weighted rows.

    Layout: vertices transposed (3, n) so each coordinate gathers from one contiguous
    array; a chunk of faces is gathered into G[coord, corner, face], the p_c into
    P[coord, slot, face].  Every step is one numpy call on a (3, k) block with a
    preallocated output, so nothing is allocated per chunk.
    """
    n, m = len(V), len(F)
    VT = np.array(V.T, dtype=float, order="C")
    lo, hi = VT.min(axis=1), VT.max(axis=1)
    ctr = 0.5 * (lo + hi)
    VT -= ctr[:, None]
    X, Y, Z = VT
    k0 = min(chunk, m)
    idx = np.empty((3, k0), dtype=np.int64)
    G = np.empty((3, 3, k0))
    P = np.empty((3, 3, k0))
    c1 = np.empty((3, k0))
    c2 = np.empty((3, k0))
    det = np.empty(k0)
    h = np.empty((3, k0))
    s0 = 0.0
    s1 = np.zeros(3)
    q = np.zeros((3, 3))
    for a in range(0, m, chunk):
        checkpoint()           # (a big mesh in a background job: cancel between chunks)
        k = min(chunk, m - a)
        if k != k0:            # the last, shorter chunk
            idx, G, P, c1, c2, det, h = (idx[:, :k], np.empty((3, 3, k)), np.empty((3, 3, k)),
                                         c1[:, :k], c2[:, :k], det[:k], h[:, :k])
            k0 = k
        np.copyto(idx, F[a:a + k].T, casting="unsafe")
        # One pass checks both bounds: negative indices become huge as unsigned.
        if int(idx.view(np.uint64).max()) >= n:
            raise IndexError(f"face indices out of range [0, {n}) in faces {a}..{a + k - 1}")
        # Bounds are checked, so the cheaper no-check gather mode is safe.
        np.take(X, idx, out=G[0], mode="wrap")
        np.take(Y, idx, out=G[1], mode="wrap")
        np.take(Z, idx, out=G[2], mode="wrap")
        x, y, z = G
        # det = v0 . (v1 x v2)
        np.multiply(y[1], z[2], out=c1[0]); np.multiply(z[1], y[2], out=c2[0])
        np.multiply(z[1], x[2], out=c1[1]); np.multiply(x[1], z[2], out=c2[1])
        np.multiply(x[1], y[2], out=c1[2]); np.multiply(y[1], x[2], out=c2[2])
        np.subtract(c1, c2, out=c1)
        np.multiply(G[:, 0], c1, out=c1)
        np.add(c1[0], c1[1], out=det)
        np.add(det, c1[2], out=det)
        np.add(G[:, 1], G[:, 2], out=P[:, 0])
        np.add(G[:, 2], G[:, 0], out=P[:, 1])
        np.add(G[:, 0], G[:, 1], out=P[:, 2])
        s0 += float(det.sum())
        for ca in range(3):
            np.multiply(P[ca], det, out=h)          # det * p_c (coordinate ca), 3 slots
            s1[ca] += float(h.sum())
            for slot in range(3):
                hs = h[slot]
                for cb in range(ca, 3):
                    q[ca, cb] += hs @ P[cb, slot]
    S2 = np.triu(q) + np.triu(q, 1).T
    return s0, 0.5 * s1, S2, ctr, float((hi - lo).max())


def integrate_closed(V: np.ndarray, F: np.ndarray, chunk: int = _CHUNK
                     ) -> tuple[MeshIntegrals, bool]:
    """Exact unit-density integrals of a closed mesh.

    Returns ``(integrals, inverted)``: ``inverted`` is True when the signed volume came out
    negative (faces wound inwards); the integrals are then sign-corrected.  The caller is
    responsible for checking closure (:func:`check_closed`).  Raises ``ValueError`` for a
    zero-volume surface and ``IndexError`` for out-of-range face indices.
    """
    V, F = _check_arrays(V, F)
    if len(F) == 0:
        raise ValueError("mesh has no triangles")
    s0, s1, S2, ctr, extent = _raw_integrals(V, F, chunk)
    vol = s0 / 6.0
    # Cancellation floor: a surface that encloses nothing sums to rounding noise.
    if not abs(vol) > 1e-13 * max(extent, 1e-300) ** 3:
        raise ValueError("mesh encloses no volume (flat or self-cancelling surface)")
    M1 = s1 / 24.0
    M2 = S2 / 120.0
    c_rel = M1 / vol
    C = M2 - np.outer(M1, c_rel)
    inverted = vol < 0.0
    if inverted:
        vol, C = -vol, -C
    C = 0.5 * (C + C.T)
    return MeshIntegrals(vol, ctr + c_rel, C), inverted


# ---------------------------------------------------------------------------------------
# Closure
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClosureReport:
    """Is the surface a closed, consistently oriented 2-cycle (what the exact method needs)?

    ``welded``: closure holds only after merging coincident vertices (files that split
    vertices per face, e.g. STL or COLLADA with hard normals, are fine).  The edge counts
    are filled by the exact analysis (always when not closed, or when asked):
    ``boundary_edges`` used by one face, ``nonmanifold_edges`` by more than two,
    ``inconsistent_edges`` used twice in the same direction (flipped faces).
    """

    closed: bool
    welded: bool = False
    boundary_edges: int | None = None
    nonmanifold_edges: int | None = None
    inconsistent_edges: int | None = None

    @property
    def manifold(self) -> bool | None:
        if self.boundary_edges is None:
            return None
        return self.boundary_edges == 0 and self.nonmanifold_edges == 0 and \
            self.inconsistent_edges == 0

    def describe(self) -> str:
        if self.closed and self.boundary_edges is None:
            return "closed and consistently oriented"
        parts = []
        if self.boundary_edges:
            parts.append(f"{self.boundary_edges} open (boundary) edges")
        if self.inconsistent_edges:
            parts.append(f"{self.inconsistent_edges} edges with inconsistently wound faces")
        if self.nonmanifold_edges:
            parts.append(f"{self.nonmanifold_edges} non-manifold edges (more than two faces)")
        if not parts:
            return "closed and consistently oriented"
        return ", ".join(parts)


def weld_vertices(V: np.ndarray, F: np.ndarray) -> np.ndarray:
    """Faces re-indexed so that vertices at exactly the same position share one index
    (exact comparison after a lexicographic sort; -0.0 equals 0.0)."""
    V, F = _check_arrays(V, F)
    if len(V) == 0:
        return np.asarray(F, dtype=np.intp)
    order = np.lexsort((V[:, 2], V[:, 1], V[:, 0]))
    S = V[order]
    new = np.empty(len(S), dtype=bool)
    new[0] = True
    np.any(S[1:] != S[:-1], axis=1, out=new[1:])
    labels = np.empty(len(S), dtype=np.intp)
    labels[order] = np.cumsum(new) - 1
    return labels[F]


_HASH_SEED = 0x51A9F7A3E


def _edge_balance(F: np.ndarray, n: int) -> bool:
    """True when every directed edge a->b is matched by b->a (as multisets).

    Sum over directed edges of h1[a] h2[b] - h1[b] h2[a] with random 64-bit vertex
    labels, in wrapping uint64 arithmetic: zero when the edge multiset is balanced,
    non-zero with probability ~1 - 2^-60 otherwise.  Linear time, no sort.  The two
    labels are stored side by side and gathered as one 16-byte item; the sums are
    integer dot products over strided views, so no temporaries are made.
    """
    rng = np.random.default_rng(_HASH_SEED)
    labels = rng.bit_generator.random_raw(2 * n).reshape(n, 2)
    packed = labels.view(np.complex128).reshape(n)       # a 16-byte item per vertex
    mask = (1 << 64) - 1
    total = 0
    step = 1 << 16
    buf = np.empty((min(step, len(F)), 3), dtype=np.complex128)
    for a in range(0, len(F), step):
        f = F[a:a + step]
        g = buf[: len(f)]
        np.take(packed, f, out=g, mode="clip")           # indices were range-checked
        L = g.view(np.uint64).reshape(len(f), 3, 2)
        h1, h2 = L[:, :, 0], L[:, :, 1]
        plus = int(h1[:, 0] @ h2[:, 1]) + int(h1[:, 1] @ h2[:, 2]) + int(h1[:, 2] @ h2[:, 0])
        minus = int(h1[:, 1] @ h2[:, 0]) + int(h1[:, 2] @ h2[:, 1]) + int(h1[:, 0] @ h2[:, 2])
        total = (total + plus - minus) & mask
    return total == 0


def _edge_counts(F: np.ndarray, n: int) -> tuple[int, int, int]:
    """Exact (boundary, non-manifold, inconsistent) undirected-edge counts (sort based)."""
    F = np.asarray(F, dtype=np.int64)
    # A zero-area triangle with a repeated corner (common in welded STL soups) is a
    # self-loop plus an edge walked both ways: it bounds nothing and changes no
    # integral, so it must not be counted as open, mis-wound or non-manifold.
    F = F[(F[:, 0] != F[:, 1]) & (F[:, 1] != F[:, 2]) & (F[:, 2] != F[:, 0])]
    a = F.reshape(-1)
    b = np.roll(F, -1, axis=1).reshape(-1)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keys = lo * np.int64(n) + hi
    sign = np.where(a < b, 1, -1)
    _, inv, counts = np.unique(keys, return_inverse=True, return_counts=True)
    net = np.bincount(inv.reshape(-1), weights=sign, minlength=len(counts))
    boundary = int(np.count_nonzero(counts == 1))
    nonmanifold = int(np.count_nonzero(counts > 2))
    inconsistent = int(np.count_nonzero((counts == 2) & (net != 0)))
    return boundary, nonmanifold, inconsistent


def check_closed(V: np.ndarray, F: np.ndarray, *, exact: bool = False) -> ClosureReport:
    """Check that the surface is closed and consistently oriented.

    A fast linear-time edge-balance test runs first (on the given indices, then, if
    needed, on vertices welded by position).  With ``exact=True``, or when the test fails,
    a sort-based pass counts boundary, non-manifold and inconsistently wound edges.
    Non-manifold but balanced edges (two solids touching along an edge) still integrate
    exactly, so they do not make ``closed`` False.
    """
    V, F = _check_arrays(V, F)
    n = len(V)
    if len(F) and (int(F.min()) < 0 or int(F.max()) >= n):
        raise IndexError(f"face indices out of range [0, {n})")
    welded = False
    closed = _edge_balance(F, n)
    if closed and not exact:
        return ClosureReport(True, False)
    # Judge the geometry, not the indexing: merge coincident vertices first.
    Fw = weld_vertices(V, F)
    if not closed:
        welded = True
        closed = _edge_balance(Fw, n)
        if closed and not exact:
            return ClosureReport(True, True)
    b, nm, inc = _edge_counts(Fw, n)
    return ClosureReport(closed, welded, b, nm, inc)


# ---------------------------------------------------------------------------------------
# Voxel method
# ---------------------------------------------------------------------------------------
def default_voxel_size(V: np.ndarray, max_voxels: int = MAX_VOXELS) -> float:
    """1/100 of the largest extent, coarsened if the grid would exceed ``max_voxels``."""
    ext = np.ptp(np.asarray(V, dtype=float), axis=0)
    h = float(ext.max()) / 100.0
    return _fit_pitch(ext, h, max_voxels)


def _fit_pitch(ext: np.ndarray, h: float, max_voxels: int) -> float:
    ext = np.maximum(ext, 1e-300)
    while np.prod(np.ceil(ext / h) + 1.0) > max_voxels:
        h *= 1.25
    return h


def _edge_fn(Pu, Pv, Qu, Qv, Xu, Xv):
    """Canonical 2-D edge function (Q - P) x (X - P) and its traversal direction.

    Endpoints are put in lexicographic order before evaluating, then the sign restored,
    so two triangles sharing an edge compute bit-identical magnitudes (no double counting
    or gaps where a ray passes exactly through the shared edge).
    """
    swap = (Pu > Qu) | ((Pu == Qu) & (Pv > Qv))
    Au, Av = np.where(swap, Qu, Pu), np.where(swap, Qv, Pv)
    Bu, Bv = np.where(swap, Pu, Qu), np.where(swap, Pv, Qv)
    du, dv = Bu - Au, Bv - Av
    e = du * (Xv - Av) - dv * (Xu - Au)
    sgn = np.where(swap, -1.0, 1.0)
    return e * sgn, du * sgn, dv * sgn


def _parity_axis(V: np.ndarray, F: np.ndarray, axis: int, origin: np.ndarray, h: float,
                 dims: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inside-by-ray-parity along ``axis`` for all voxel centres.

    Returns ``(inside, reliable)``: ``inside`` (nx, ny, nz) bool and ``reliable`` (same
    shape, broadcast from columns) False where the column's ray crosses the surface an odd
    number of times.
    """
    u_ax, v_ax = [(1, 2), (2, 0), (0, 1)][axis]
    T = V[F]                                     # (m, 3 corners, 3 coords)
    U, W, D = T[:, :, u_ax], T[:, :, v_ax], T[:, :, axis]
    nu, nv, nd = int(dims[u_ax]), int(dims[v_ax]), int(dims[axis])
    ou, ov, od = origin[u_ax], origin[v_ax], origin[axis]
    # Candidate voxel-centre columns inside each triangle's projected bounding box.
    i0 = np.maximum(np.ceil((U.min(1) - ou) / h - 0.5), 0).astype(np.int64)
    i1 = np.minimum(np.floor((U.max(1) - ou) / h - 0.5), nu - 1).astype(np.int64)
    j0 = np.maximum(np.ceil((W.min(1) - ov) / h - 0.5), 0).astype(np.int64)
    j1 = np.minimum(np.floor((W.max(1) - ov) / h - 0.5), nv - 1).astype(np.int64)
    ni = np.maximum(i1 - i0 + 1, 0)
    nj = np.maximum(j1 - j0 + 1, 0)
    cnt = ni * nj
    toggles = np.zeros((nu, nv, nd + 1), dtype=np.int32)
    total = int(cnt.sum())
    step = 1 << 21                               # candidate points per batch (memory cap)
    starts = np.concatenate(([0], np.cumsum(cnt)))
    tri_lo = 0
    while tri_lo < len(F) and total:
        checkpoint()
        tri_hi = int(np.searchsorted(starts, starts[tri_lo] + step, side="right")) - 1
        tri_hi = max(tri_hi, tri_lo + 1)
        sel = slice(tri_lo, tri_hi)
        c = cnt[sel]
        tri = np.repeat(np.arange(tri_lo, tri_hi), c)
        local = np.arange(int(c.sum())) - np.repeat(starts[sel] - starts[tri_lo], c)
        tri_lo = tri_hi
        if len(tri) == 0:
            continue
        iu = i0[tri] + local // nj[tri]
        iv = j0[tri] + local % nj[tri]
        Xu = ou + (iu + 0.5) * h
        Xv = ov + (iv + 0.5) * h
        u, w, d = U[tri], W[tri], D[tri]
        e0, du0, dv0 = _edge_fn(u[:, 1], w[:, 1], u[:, 2], w[:, 2], Xu, Xv)
        e1, du1, dv1 = _edge_fn(u[:, 2], w[:, 2], u[:, 0], w[:, 0], Xu, Xv)
        e2, du2, dv2 = _edge_fn(u[:, 0], w[:, 0], u[:, 1], w[:, 1], Xu, Xv)
        area2 = ((u[:, 1] - u[:, 0]) * (w[:, 2] - w[:, 0])
                 - (u[:, 2] - u[:, 0]) * (w[:, 1] - w[:, 0]))
        o = np.sign(area2)
        ok = o != 0.0                            # triangles seen edge-on never count
        hit = ok.copy()
        for e, du, dv in ((e0, du0, dv0), (e1, du1, dv1), (e2, du2, dv2)):
            e, du, dv = e * o, du * o, dv * o
            # On an edge, only one of the two triangles sharing it takes the point.
            tie = (e == 0.0) & ((dv > 0.0) | ((dv == 0.0) & (du > 0.0)))
            hit &= (e > 0.0) | tie
        if not hit.any():
            continue
        e0, e1, e2 = e0[hit], e1[hit], e2[hit]
        dd = (e0 * d[hit, 0] + e1 * d[hit, 1] + e2 * d[hit, 2]) / (e0 + e1 + e2)
        kd = np.clip(np.ceil((dd - od) / h - 0.5), 0, nd).astype(np.int64)
        np.add.at(toggles, (iu[hit], iv[hit], kd), 1)
    crossings = toggles.sum(axis=2)
    inside = (np.cumsum(toggles[:, :, :nd], axis=2) & 1).astype(bool)
    reliable = np.broadcast_to(((crossings & 1) == 0)[:, :, None], inside.shape)
    # Back to (x, y, z) index order.
    order = {0: (2, 0, 1), 1: (1, 2, 0), 2: (0, 1, 2)}[axis]
    return inside.transpose(order), reliable.transpose(order)


def voxel_integrals(V: np.ndarray, F: np.ndarray, voxel_size: float | None = None,
                    max_voxels: int = MAX_VOXELS) -> MeshIntegrals:
    """Approximate integrals of the solid a (possibly open) mesh bounds, on a voxel grid.

    Each voxel centre is inside when the majority of the x, y and z parity rays that
    crossed the surface an even number of times say so.  Voxels are solid cubes, so each
    adds its own h^2/12 term.  ``voxel_size`` is coarsened when the grid would exceed
    ``max_voxels`` (the pitch used is in the result).
    """
    V, F = _check_arrays(V, F)
    if len(F) == 0:
        raise ValueError("mesh has no triangles")
    lo, hi = V.min(axis=0), V.max(axis=0)
    ext = hi - lo
    h = float(voxel_size) if voxel_size else default_voxel_size(V, max_voxels)
    if not (math.isfinite(h) and h > 0.0):
        raise ValueError(f"voxel_size must be positive, got {voxel_size!r}")
    h = _fit_pitch(ext, h, max_voxels)
    dims = np.maximum(np.ceil(ext / h).astype(np.int64), 1)
    # Centre the grid on the bounding box so symmetric parts give symmetric voxels.
    origin = 0.5 * (lo + hi) - 0.5 * dims * h
    votes_in = np.zeros(tuple(dims), dtype=np.int8)
    votes = np.zeros(tuple(dims), dtype=np.int8)
    raw_in = np.zeros(tuple(dims), dtype=np.int8)
    for axis in range(3):
        inside, reliable = _parity_axis(V, F, axis, origin, h, dims)
        votes_in += inside & reliable
        votes += reliable
        raw_in += inside
    # Majority of reliable votes; where no axis is reliable, the raw majority of three.
    solid = np.where(votes > 0, 2 * votes_in > votes, raw_in >= 2)
    idx = np.argwhere(solid)
    N = len(idx)
    if N == 0:
        raise ValueError(f"no voxel of pitch {h:g} is inside the mesh")
    vv = h ** 3
    centres = origin + (idx + 0.5) * h
    c = centres.mean(axis=0)
    d = centres - c
    C = vv * (d.T @ d) + N * vv * h * h / 12.0 * _E3
    return MeshIntegrals(N * vv, c, C, "voxel", True, h)


# ---------------------------------------------------------------------------------------
# One call for callers
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MeshAnalysis:
    """What :func:`analyze_mesh` found: the integrals plus why they were computed so."""

    integrals: MeshIntegrals
    closure: ClosureReport
    inverted: bool = False
    notes: list[str] = field(default_factory=list)


def analyze_mesh(V: np.ndarray, F: np.ndarray, *, method: str = "auto",
                 voxel_size: float | None = None) -> MeshAnalysis:
    """Integrate a mesh with the right method.

    ``method``: ``"auto"`` (exact when closed, else voxels), ``"exact"`` (exact even when
    not closed: the result then depends on the holes), or ``"voxel"``.
    """
    if method not in ("auto", "exact", "voxel"):
        raise ValueError(f"unknown inertia method {method!r} (auto, exact or voxel)")
    V, F = _check_arrays(V, F)
    if len(F) == 0:
        raise ValueError("mesh has no triangles")
    if not np.isfinite(V).all():
        raise ValueError("mesh has non-finite vertex coordinates")
    closure = check_closed(V, F)
    notes: list[str] = []
    if method == "voxel" or (method == "auto" and not closure.closed):
        integrals = voxel_integrals(V, F, voxel_size)
        if voxel_size and integrals.voxel_size and integrals.voxel_size > voxel_size * 1.0001:
            notes.append(f"voxel_size {voxel_size:g} coarsened to {integrals.voxel_size:g} "
                         f"(grid limit {MAX_VOXELS} voxels)")
        return MeshAnalysis(integrals, closure, False, notes)
    integrals, inverted = integrate_closed(V, F)
    return MeshAnalysis(integrals, closure, inverted, notes)
