"""Combining parts (collisions) into one link inertial.

Each part is ``(MassProperties in its own frame C, X_LC)``.  The sum (gz-math
``Inertial::operator+``):

1. part COM in the link frame:   c_i = p_i + R_i c_i'
2. total mass and COM:            M = sum m_i,  c = sum m_i c_i / M
3. tensors into link axes:        I_i^L = R_i I_i R_i^T
4. shift to c (parallel axis):    I = sum [I_i^L + m_i (|d_i|^2 E - d_i d_i^T)],  d_i = c_i - c

The result is expressed in the link frame with identity rotation (like libsdformat).

:class:`PartsAggregator` keeps steps 1 and 3 cached per part in stacked numpy arrays, so
an edit of one part of a 1000-part link costs one 3x3 rotation plus a vectorised
re-sum (tens of microseconds), with no accumulated round-off: the sum is always
recomputed from the cached per-part values, never updated by subtraction.
"""

from __future__ import annotations

from typing import Hashable, Iterable, Iterator

import numpy as np

from ..pose import IDENTITY, Pose
from .mass_properties import MassProperties, combine

__all__ = ["aggregate", "PartsAggregator", "combine"]

_E3 = np.eye(3)


def _sum_stacked(m: np.ndarray, c: np.ndarray, I: np.ndarray,
                 approximate: bool = False) -> MassProperties:
    M = float(m.sum())
    if not M > 0.0:
        raise ValueError(f"total mass must be positive, got {M}")
    com = (m @ c) / M
    d = c - com
    md = m[:, None] * d
    # Sums over the part axis as matrix products: numpy's axis-0 reductions over
    # (n, 3, 3) are several times slower than a (1, n) @ (n, 9) product.
    ones = np.ones(len(m))
    spread = float(ones @ (md * d).sum(axis=1))
    J = (ones @ I.reshape(-1, 9)).reshape(3, 3) + spread * _E3 - md.T @ d
    return MassProperties(M, com, J, approximate)


def aggregate(parts: Iterable[tuple[MassProperties, Pose]]) -> MassProperties:
    """Sum of parts, each given in its own frame C with pose ``X_LC`` in the link frame L.

    Returns the link's mass properties in L (COM and tensor about it, in L's axes).
    """
    parts = list(parts)
    if not parts:
        raise ValueError("no parts to aggregate")
    n = len(parts)
    m = np.empty(n)
    c = np.empty((n, 3))
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    I = np.empty((n, 3, 3))
    for i, (mp, X) in enumerate(parts):
        m[i] = mp.mass
        c[i] = mp.com
        R[i] = np.asarray(X.R).reshape(3, 3)
        p[i] = X.p
        I[i] = mp.inertia
    c_L = np.einsum("nij,nj->ni", R, c) + p
    I_L = R @ I @ R.transpose(0, 2, 1)
    return _sum_stacked(m, c_L, I_L, any(mp.approximate for mp, _ in parts))


class PartsAggregator:
    """Incremental link inertial over keyed parts (e.g. collision ids).

    ``set(key, mp, X_LC)`` adds or replaces one part in O(1); ``total()`` re-sums all parts
    with a handful of vectorised numpy calls.  Removing a part moves the last slot into
    its place, so the arrays stay dense.
    """

    __slots__ = ("_keys", "_index", "_m", "_c", "_I", "_n", "_total", "_approx")

    def __init__(self, capacity: int = 16) -> None:
        capacity = max(int(capacity), 1)
        self._keys: list[Hashable] = []
        self._index: dict[Hashable, int] = {}
        self._m = np.zeros(capacity)
        self._c = np.zeros((capacity, 3))
        self._I = np.zeros((capacity, 3, 3))
        self._n = 0
        self._total: MassProperties | None = None
        self._approx: set[Hashable] = set()

    def __len__(self) -> int:
        return self._n

    def __contains__(self, key: Hashable) -> bool:
        return key in self._index

    def keys(self) -> Iterator[Hashable]:
        return iter(list(self._keys))

    def _grow(self) -> None:
        cap = 2 * len(self._m)
        for name in ("_m", "_c", "_I"):
            old = getattr(self, name)
            new = np.zeros((cap, *old.shape[1:]))
            new[: self._n] = old[: self._n]
            setattr(self, name, new)

    def set(self, key: Hashable, mp: MassProperties, X_LC: Pose = IDENTITY) -> None:
        """Add or replace part ``key``: properties in its frame C, placed at ``X_LC``."""
        i = self._index.get(key)
        if i is None:
            if self._n == len(self._m):
                self._grow()
            i = self._n
            self._n += 1
            self._index[key] = i
            self._keys.append(key)
        r = X_LC.R
        R = np.array(((r[0], r[1], r[2]), (r[3], r[4], r[5]), (r[6], r[7], r[8])))
        self._m[i] = mp.mass
        self._c[i] = R @ mp.com + X_LC.p
        self._I[i] = R @ mp.inertia @ R.T
        if mp.approximate:
            self._approx.add(key)
        else:
            self._approx.discard(key)
        self._total = None

    def set_pose(self, key: Hashable, mp: MassProperties, X_LC: Pose) -> None:
        """Alias of :meth:`set` for the common "part moved" edit."""
        self.set(key, mp, X_LC)

    def remove(self, key: Hashable) -> None:
        i = self._index.pop(key)
        self._approx.discard(key)
        last = self._n - 1
        if i != last:
            moved = self._keys[last]
            self._keys[i] = moved
            self._index[moved] = i
            self._m[i], self._c[i], self._I[i] = self._m[last], self._c[last], self._I[last]
        self._keys.pop()
        self._n = last
        self._total = None

    def clear(self) -> None:
        self._keys.clear()
        self._index.clear()
        self._approx.clear()
        self._n = 0
        self._total = None

    def part(self, key: Hashable) -> MassProperties:
        """Part ``key`` as cached: in the link frame."""
        i = self._index[key]
        return MassProperties(self._m[i], self._c[i], self._I[i], key in self._approx)

    def total(self) -> MassProperties:
        """The link's mass properties (link frame, about the joint COM); cached until the
        next edit.  Raises ``ValueError`` when empty or the total mass is not positive."""
        if self._total is None:
            if self._n == 0:
                raise ValueError("no parts to aggregate")
            n = self._n
            self._total = _sum_stacked(self._m[:n], self._c[:n], self._I[:n], bool(self._approx))
        return self._total


def parts_total(parts: Iterable[MassProperties]) -> MassProperties:
    """Sum of parts already expressed in one frame (alias of :func:`combine`)."""
    return combine(parts)
