"""The ``Math`` bundle's functions on plain tuples.

The bundle only *declares* these functions (``fn``/``static fn`` have no body in
OpenPLX; the runtime implements them).  The definitions here follow each declaration's
documented meaning; where the documentation is silent, the rule is the one measured on
the reference runtime and recorded in the team's research notes (quoted per function).

Conventions: ``V = (x, y, z)``; ``Q = (x, y, z, w)`` in OpenPLX attribute order
(``{0, 0, 0, 1}`` is the identity); ``M = 9 floats`` row-major (``e00 e01 e02 e10 ...``);
an affine transform is ``(V position, Q rotation)`` and maps a point ``v`` to
``rotation.rotate(v) + position``.
"""

from __future__ import annotations

import math
from typing import Sequence

from snapframe.core.pose import Pose, matrix_from_quat, quat_from_matrix

__all__ = [
    "V", "Q", "M", "X_AXIS", "Y_AXIS", "Z_AXIS", "IDENTITY_Q",
    "add", "sub", "scale", "dot", "cross", "length", "normal", "orthogonal_unit_vector",
    "angle_between_vectors", "q_mul", "q_conj", "q_inverse", "q_normal", "q_rotate",
    "q_angle_axis", "q_from_to", "q_from_euler", "q_to_euler", "EULER_CONVENTIONS",
    "a_mul", "a_inverse", "a_from_axes", "a_transform_point", "a_transform_vector",
    "frame_from_axes", "pose_of", "affine_of_pose", "m_mul", "m_mul_vec", "m_add", "m_sub",
    "m_diag", "FUNCTIONS",
]

V = tuple[float, float, float]
Q = tuple[float, float, float, float]
M = tuple[float, float, float, float, float, float, float, float, float]

X_AXIS: V = (1.0, 0.0, 0.0)
Y_AXIS: V = (0.0, 1.0, 0.0)
Z_AXIS: V = (0.0, 0.0, 1.0)
IDENTITY_Q: Q = (0.0, 0.0, 0.0, 1.0)
_EPS = 1e-12


# -- Vec3 ---------------------------------------------------------------------------


def add(a: Sequence[float], b: Sequence[float]) -> tuple[float, ...]:
    return tuple(x + y for x, y in zip(a, b))


def sub(a: Sequence[float], b: Sequence[float]) -> tuple[float, ...]:
    return tuple(x - y for x, y in zip(a, b))


def scale(a: Sequence[float], s: float) -> tuple[float, ...]:
    return tuple(x * s for x in a)


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b))


def cross(a: V, b: V) -> V:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def length(a: Sequence[float]) -> float:
    return math.sqrt(dot(a, a))


def normal(a: Sequence[float]) -> tuple[float, ...]:
    """The unit vector along ``a`` (a zero vector stays zero)."""
    n = length(a)
    return tuple(a) if n < _EPS else tuple(x / n for x in a)


def orthogonal_unit_vector(v: V) -> V:
    """``Vec3.get_orthogonal_unit_vector``: a unit vector orthogonal to ``v``.

    The bundle declares it without a rule ("Returns a vector orthogonal to the current
    vector").  Rule measured on the 0.16 runtime (research notes, 17 probes): zero the
    component of smallest magnitude (ties prefer z, then y) and swap-negate the other
    two: ``(y, -x, 0)`` if ``|z|`` is smallest, else ``(-z, 0, x)`` if ``|y| <= |x|``,
    else ``(0, z, -y)``; then normalize.  So ``Z -> -X``, ``X -> -Y``, ``Y -> X``.
    """
    x, y, z = v
    ax, ay, az = abs(x), abs(y), abs(z)
    if az <= ax and az <= ay:
        w = (y, -x, 0.0)
    elif ay <= ax:
        w = (-z, 0.0, x)
    else:
        w = (0.0, z, -y)
    return normal(w)  # type: ignore[return-value]


def angle_between_vectors(v1: V, v2: V, rot: V) -> float:
    """Signed angle from ``v1`` to ``v2`` (right-handed about ``rot``), in [-pi, pi]."""
    return math.atan2(dot(cross(v1, v2), normal(rot)), dot(v1, v2))


# -- Quat ---------------------------------------------------------------------------


def q_mul(a: Q, b: Q) -> Q:
    """Hamilton product ``a * b`` (apply ``b`` first, then ``a``)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def q_conj(q: Q) -> Q:
    return (-q[0], -q[1], -q[2], q[3])


def q_inverse(q: Q) -> Q:
    n2 = dot(q, q)
    if n2 < _EPS:
        raise ZeroDivisionError("inverse of a zero quaternion")
    c = q_conj(q)
    return (c[0] / n2, c[1] / n2, c[2] / n2, c[3] / n2)


def q_normal(q: Q) -> Q:
    return normal(q)  # type: ignore[return-value]


def q_rotate(q: Q, v: V) -> V:
    """Rotate ``v`` by the (normalized) rotation ``q``."""
    R = matrix_from_quat((q[3], q[0], q[1], q[2]))
    return (R[0] * v[0] + R[1] * v[1] + R[2] * v[2],
            R[3] * v[0] + R[4] * v[1] + R[5] * v[2],
            R[6] * v[0] + R[7] * v[1] + R[8] * v[2])


def q_angle_axis(angle: float, axis: V) -> Q:
    """Rotation of ``angle`` radians about ``axis`` (right-hand rule)."""
    ux, uy, uz = normal(axis)
    s = math.sin(angle / 2.0)
    return (ux * s, uy * s, uz * s, math.cos(angle / 2.0))


def q_from_to(a: V, b: V) -> Q:
    """The shortest rotation turning direction ``a`` into direction ``b``.

    Opposite directions: half a turn about ``orthogonal_unit_vector(a)``.
    """
    ua, ub = normal(a), normal(b)
    d = dot(ua, ub)
    if d >= 1.0 - 1e-15:
        return IDENTITY_Q
    if d <= -1.0 + 1e-12:
        ox, oy, oz = orthogonal_unit_vector(ua)  # type: ignore[arg-type]
        return (ox, oy, oz, 0.0)
    cx, cy, cz = cross(ua, ub)  # type: ignore[arg-type]
    return q_normal((cx, cy, cz, 1.0 + d))


def _axis_q(axis: int, angle: float) -> Q:
    s, c = math.sin(angle / 2.0), math.cos(angle / 2.0)
    q = [0.0, 0.0, 0.0, c]
    q[axis] = s
    return tuple(q)  # type: ignore[return-value]


_AXIS = {"x": 0, "y": 1, "z": 2}
#: The 24 conventions of ``Quat.from_euler_angles_<c>``: three axes, then ``s`` (static,
#: i.e. extrinsic: rotate about the fixed axes in the order written) or ``r`` (rotating,
#: i.e. intrinsic: about the moving axes in the order written).
EULER_CONVENTIONS = tuple(f"{a}{f}" for f in "sr" for a in (
    "xyz", "xyx", "xzy", "xzx", "yzx", "yzy", "yxz", "yxy", "zxy", "zxz", "zyx", "zyz"))


def q_from_euler(convention: str, a: float, b: float, c: float) -> Q:
    """``from_euler_angles_<convention>``: ``xyzs`` is R = Rz(c) Ry(b) Rx(a); ``xyzr``
    is R = Rx(a) Ry(b) Rz(c) (the rotating frame turns about x, then its y, then its z)."""
    if convention not in EULER_CONVENTIONS:
        raise ValueError(f"unknown Euler convention '{convention}'")
    i, j, k = (_AXIS[ch] for ch in convention[:3])
    qi, qj, qk = _axis_q(i, a), _axis_q(j, b), _axis_q(k, c)
    if convention[3] == "s":
        return q_mul(qk, q_mul(qj, qi))
    return q_mul(qi, q_mul(qj, qk))


def _intrinsic_angles(R: Sequence[float], i: int, j: int, k: int) -> tuple[float, float, float]:
    """Angles (a, b, c) with R = R_i(a) R_j(b) R_k(c); ``k == i`` for proper Euler."""
    m = [R[0:3], R[3:6], R[6:9]]
    if i != k:
        e = 1.0 if (i, j, k) in ((0, 1, 2), (1, 2, 0), (2, 0, 1)) else -1.0
        sb = max(-1.0, min(1.0, e * m[i][k]))
        b = math.asin(sb)
        if math.sqrt(max(0.0, 1.0 - sb * sb)) > 1e-9:
            return (math.atan2(-e * m[j][k], m[k][k]), b, math.atan2(-e * m[i][j], m[i][i]))
        return (math.atan2(e * m[k][j], m[j][j]), b, 0.0)
    kk = 3 - i - j
    e = 1.0 if (i, j, kk) in ((0, 1, 2), (1, 2, 0), (2, 0, 1)) else -1.0
    cb = max(-1.0, min(1.0, m[i][i]))
    b = math.acos(cb)
    if math.sqrt(max(0.0, 1.0 - cb * cb)) > 1e-9:
        return (math.atan2(m[j][i], -e * m[kk][i]), b, math.atan2(m[i][j], e * m[i][kk]))
    return (math.atan2(e * m[kk][j], m[j][j]), b, 0.0)


def q_to_euler(q: Q, convention: str) -> V:
    """``to_euler_angles_<convention>``: the inverse of :func:`q_from_euler`."""
    if convention not in EULER_CONVENTIONS:
        raise ValueError(f"unknown Euler convention '{convention}'")
    i, j, k = (_AXIS[ch] for ch in convention[:3])
    R = matrix_from_quat((q[3], q[0], q[1], q[2]))
    if convention[3] == "r":
        return _intrinsic_angles(R, i, j, k)
    c, b, a = _intrinsic_angles(R, k, j, i)  # static (i, j, k) == rotating (k, j, i) reversed
    return (a, b, c)


# -- AffineTransform ----------------------------------------------------------------

Affine = tuple[V, Q]


def a_mul(a: Affine, b: Affine) -> Affine:
    """``a * b``: apply ``b``, then ``a``."""
    pa, qa = a
    pb, qb = b
    return (add(pa, q_rotate(qa, pb)), q_mul(qa, qb))  # type: ignore[return-value]


def a_inverse(a: Affine) -> Affine:
    p, q = a
    qi = q_inverse(q)
    return (scale(q_rotate(qi, p), -1.0), qi)  # type: ignore[return-value]


def a_transform_point(a: Affine, v: V) -> V:
    return add(q_rotate(a[1], v), a[0])  # type: ignore[return-value]


def a_transform_vector(a: Affine, v: V) -> V:
    return q_rotate(a[1], v)


def frame_from_axes(main_axis: V, normal_axis: V) -> tuple[tuple[V, V, V], bool]:
    """Columns ``(x, y, z)`` of the frame with z along ``main_axis`` and x along the part
    of ``normal_axis`` orthogonal to it (y = z × x).

    Returns ``(columns, ok)``; ``ok`` is False when ``normal_axis`` is (nearly) parallel
    to ``main_axis`` or zero, in which case x falls back to
    ``orthogonal_unit_vector(main_axis)`` as the runtime was observed to do.
    """
    z = normal(main_axis)
    n = sub(normal_axis, scale(z, dot(normal_axis, z)))
    ok = length(n) > 1e-9 * max(1.0, length(normal_axis))
    x = normal(n) if ok else orthogonal_unit_vector(z)  # type: ignore[arg-type]
    y = cross(z, x)  # type: ignore[arg-type]
    return (x, y, z), ok  # type: ignore[return-value]


def _q_from_columns(x: V, y: V, z: V) -> Q:
    R = (x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2])
    w, qx, qy, qz = quat_from_matrix(R)
    return (qx, qy, qz, w)


def a_from_axes(new_z: V, new_x: V, position: V) -> Affine:
    """``AffineTransform.from_axes``: rotate (Z, X) onto (new_Z, new_X projected), then
    translate to ``position`` (documented in ``Math/AffineTransform.openplx``)."""
    (x, y, z), _ = frame_from_axes(new_z, new_x)
    return (tuple(position), _q_from_columns(x, y, z))  # type: ignore[return-value]


def pose_of(a: Affine) -> Pose:
    """The core :class:`Pose` of an affine transform."""
    p, q = a
    if dot(q, q) < _EPS:
        raise ZeroDivisionError("zero rotation quaternion")
    return Pose.from_xyz_quat(p, (q[3], q[0], q[1], q[2]))


def affine_of_pose(pose: Pose) -> Affine:
    w, x, y, z = pose.quat()
    return (pose.p, (x, y, z, w))


# -- Matrix3x3 ----------------------------------------------------------------------


def m_mul(a: M, b: M) -> M:
    return tuple(sum(a[3 * r + t] * b[3 * t + c] for t in range(3))
                 for r in range(3) for c in range(3))  # type: ignore[return-value]


def m_mul_vec(a: M, v: V) -> V:
    return tuple(sum(a[3 * r + t] * v[t] for t in range(3)) for r in range(3))  # type: ignore


def m_add(a: M, b: M) -> M:
    return add(a, b)  # type: ignore[return-value]


def m_sub(a: M, b: M) -> M:
    return sub(a, b)  # type: ignore[return-value]


def m_diag(x: float, y: float, z: float) -> M:
    return (x, 0.0, 0.0, 0.0, y, 0.0, 0.0, 0.0, z)


# -- Math.Functions -----------------------------------------------------------------


def _harmonic(values: Sequence[float]) -> float:
    return len(values) / sum(1.0 / v for v in values)


# statistics (with fractions and decimal) is imported when a file uses these: most never do.
def _mean(values: Sequence[float]) -> float:
    import statistics
    return statistics.fmean(values)


def _median(values: Sequence[float]) -> float:
    import statistics
    return statistics.median(values)


#: ``Math.Functions`` by name.  ``arctan2(x, y)`` passes its arguments in the declared
#: order to atan2 (first argument is the numerator, as in C's ``atan2(y, x)``).
FUNCTIONS = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "arcsin": math.asin,
    "arccos": math.acos, "arctan": math.atan, "arctan2": math.atan2, "sqrt": math.sqrt,
    "pow": math.pow, "mean": _mean, "median": _median,
    "harmonic_mean": _harmonic, "min": min, "max": max, "sum": lambda v: math.fsum(v),
    "equals_approx": lambda value, ref: abs(value - ref) <= 1e-6 * max(1.0, abs(ref)),
    "inf": lambda: math.inf, "neg_inf": lambda: -math.inf,
    "rad_to_deg": math.degrees, "deg_to_rad": math.radians,
    "round": lambda x: int(math.floor(x + 0.5)), "floor": lambda x: int(math.floor(x)),
    "ceil": lambda x: int(math.ceil(x)),
}
