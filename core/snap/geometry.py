"""Small SE(3) and vector helpers for SNAP: mate offsets, constraint errors, loci.

Vectors are plain 3-tuples; the solver does a few thousand tiny operations per run, where
tuple arithmetic beats numpy's per-call overhead (same choice as :mod:`snapframe.core.pose`).
"""

from __future__ import annotations

import math
from typing import Sequence

from ..pose import IDENTITY, Pose

Vec3 = tuple[float, float, float]

#: Tolerances for "a mate is satisfied": metres and radians.  Poses come from a chain of a
#: few compositions of well-conditioned rotations, so errors are ~1e-12; 1e-6 leaves room.
POS_TOL = 1e-6
ANG_TOL = 1e-6


# -- vectors -----------------------------------------------------------------------------------
def sub(a: Sequence[float], b: Sequence[float]) -> Vec3:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def add(a: Sequence[float], b: Sequence[float]) -> Vec3:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def scale(a: Sequence[float], s: float) -> Vec3:
    return (a[0] * s, a[1] * s, a[2] * s)


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Sequence[float], b: Sequence[float]) -> Vec3:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(a: Sequence[float]) -> float:
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


def z_axis(X: Pose) -> Vec3:
    """The z column of ``X``'s rotation: a connector's main axis."""
    R = X.R
    return (R[2], R[5], R[8])


def wrap_angle(a: float) -> float:
    """``a`` mapped to (-pi, pi]."""
    a = math.fmod(a, 2.0 * math.pi)
    if a <= -math.pi:
        a += 2.0 * math.pi
    elif a > math.pi:
        a -= 2.0 * math.pi
    return a


# -- mate offsets ------------------------------------------------------------------------------
def rz_tz(angle: float, shift: float) -> Pose:
    """``Rz(angle) @ Tz(shift)`` (they commute)."""
    if angle == 0.0 and shift == 0.0:
        return IDENTITY
    c, s = math.cos(angle), math.sin(angle)
    X = Pose.__new__(Pose)  # skip Pose.__init__'s float conversions: these are floats already
    X.R, X.p = (c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0), (0.0, 0.0, float(shift))
    return X


def mate_offset(kind: str, angle: float, position: float, distance: float) -> Pose:
    """``D`` in ``X_W1 = X_W0 @ D``: connector 1 measured in connector 0 at SNAP time.

    Hinge turns by ``angle`` about the main axis, Prismatic slides ``position`` along it,
    Cylindrical does both; Distance puts connector 1 ``distance`` along connector 0's main
    axis with the same orientation; Lock, Ball and unknown types align the frames.
    """
    if kind == "hinge":
        return rz_tz(angle, 0.0)
    if kind == "prismatic":
        return rz_tz(0.0, position)
    if kind == "cylindrical":
        return rz_tz(angle, position)
    if kind == "distance":
        return rz_tz(0.0, distance)
    return IDENTITY


def rotation_angle(X: Pose) -> float:
    """Angle of ``X``'s rotation, via atan2 so that tiny angles stay accurate."""
    R = X.R
    s = 0.5 * math.sqrt((R[7] - R[5]) ** 2 + (R[2] - R[6]) ** 2 + (R[3] - R[1]) ** 2)
    c = 0.5 * (R[0] + R[4] + R[8] - 1.0)
    return math.atan2(s, c)


def constraint_error(kind: str, X_G0: Pose, X_G1: Pose, distance: float = 0.0) -> tuple[float, float]:
    """``(position error, angle error)`` of a mate whose connectors are at ``X_G0``, ``X_G1``.

    Only what the mate constrains counts: a hinge may turn about its main axis, a prismatic
    may slide along it, and so on.  The initial values are *not* part of the check (they are
    SNAP's starting point, not constraints), except that a Distance mate holds its distance.
    """
    Q = X_G0.inverse() @ X_G1  # connector 1 in connector 0
    x, y, z = Q.p
    R = Q.R
    axis_err = math.atan2(math.hypot(R[2], R[5]), R[8])  # tilt of c1's main axis from c0's
    if kind == "hinge":
        return math.sqrt(x * x + y * y + z * z), axis_err
    if kind == "prismatic":
        return math.hypot(x, y), rotation_angle(Q)
    if kind == "cylindrical":
        return math.hypot(x, y), axis_err
    if kind == "ball":
        return math.sqrt(x * x + y * y + z * z), 0.0
    if kind == "distance":
        return abs(math.sqrt(x * x + y * y + z * z) - abs(distance)), 0.0
    return math.sqrt(x * x + y * y + z * z), rotation_angle(Q)


def is_rotation(X: Pose, tol: float = 1e-6) -> bool:
    """``X.R`` is orthonormal with determinant +1 (a degenerate connector frame is not)."""
    a, b, c, d, e, f, g, h, i = X.R
    if not math.isfinite(X.p[0] + X.p[1] + X.p[2]):
        return False
    # Columns (a,d,g), (b,e,h), (c,f,i): unit length, orthogonal, right-handed.  A NaN or an
    # infinity in R makes one of these comparisons false.
    return (abs(a * a + d * d + g * g - 1.0) <= tol and abs(b * b + e * e + h * h - 1.0) <= tol
            and abs(c * c + f * f + i * i - 1.0) <= tol and abs(a * b + d * e + g * h) <= tol
            and abs(a * c + d * f + g * i) <= tol and abs(b * c + e * f + h * i) <= tol
            and abs(a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) - 1.0) <= tol)
