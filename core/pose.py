"""Rigid transforms (SE(3)) in the ``X_AB`` notation.

``X_AB`` is the pose of frame B measured in frame A, so ``X_AC = X_AB @ X_BC``.
Quaternions are ``(w, x, y, z)``; roll-pitch-yaw angles are extrinsic X-Y-Z
(``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)``), as in SDFormat.

A :class:`Pose` is immutable.  It stores the rotation matrix and translation as
plain tuples of floats: for the few-hundred-nanosecond compositions that frame
resolution does by the thousand, tuple arithmetic beats numpy's per-call overhead.
Use :meth:`Pose.matrix` to get a numpy 4x4 for bulk work.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Pose", "IDENTITY", "quat_from_rpy", "rpy_from_matrix", "matrix_from_quat"]

_Rot = tuple[float, float, float, float, float, float, float, float, float]


class Pose:
    """An SE(3) transform: rotation ``R`` (row-major 3x3) and translation ``p``."""

    __slots__ = ("R", "p")

    def __init__(self, R: Sequence[float] = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0),
                 p: Sequence[float] = (0.0, 0.0, 0.0)) -> None:
        self.R: _Rot = tuple(float(v) for v in R)  # type: ignore[assignment]
        self.p: tuple[float, float, float] = (float(p[0]), float(p[1]), float(p[2]))

    # -- construction -------------------------------------------------------------
    @classmethod
    def from_xyz_rpy(cls, x: float = 0.0, y: float = 0.0, z: float = 0.0,
                     roll: float = 0.0, pitch: float = 0.0, yaw: float = 0.0) -> "Pose":
        """Pose from a translation and extrinsic X-Y-Z Euler angles (radians)."""
        cr, sr = math.cos(roll), math.sin(roll)
        cp, sp = math.cos(pitch), math.sin(pitch)
        cy, sy = math.cos(yaw), math.sin(yaw)
        R = (cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
             sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
             -sp, cp * sr, cp * cr)
        return cls(R, (x, y, z))

    @classmethod
    def from_xyz_quat(cls, xyz: Sequence[float], wxyz: Sequence[float]) -> "Pose":
        """Pose from a translation and a quaternion ``(w, x, y, z)`` (normalised here)."""
        return cls(matrix_from_quat(wxyz), xyz)

    @classmethod
    def from_matrix(cls, T: "np.ndarray | Sequence[Sequence[float]]") -> "Pose":
        """Pose from a 4x4 homogeneous matrix (or a 3x4 one)."""
        import numpy as np  # lazy: the CLI's hot path never needs numpy
        T = np.asarray(T, dtype=float)
        return cls(T[:3, :3].ravel().tolist(), T[:3, 3].tolist())

    @classmethod
    def translation(cls, x: float, y: float, z: float) -> "Pose":
        return cls(p=(x, y, z))

    # -- algebra ------------------------------------------------------------------
    def __matmul__(self, other: "Pose") -> "Pose":
        a, b = self.R, other.R
        q = other.p
        R = (a[0] * b[0] + a[1] * b[3] + a[2] * b[6],
             a[0] * b[1] + a[1] * b[4] + a[2] * b[7],
             a[0] * b[2] + a[1] * b[5] + a[2] * b[8],
             a[3] * b[0] + a[4] * b[3] + a[5] * b[6],
             a[3] * b[1] + a[4] * b[4] + a[5] * b[7],
             a[3] * b[2] + a[4] * b[5] + a[5] * b[8],
             a[6] * b[0] + a[7] * b[3] + a[8] * b[6],
             a[6] * b[1] + a[7] * b[4] + a[8] * b[7],
             a[6] * b[2] + a[7] * b[5] + a[8] * b[8])
        p = (a[0] * q[0] + a[1] * q[1] + a[2] * q[2] + self.p[0],
             a[3] * q[0] + a[4] * q[1] + a[5] * q[2] + self.p[1],
             a[6] * q[0] + a[7] * q[1] + a[8] * q[2] + self.p[2])
        new = Pose.__new__(Pose)
        new.R, new.p = R, p
        return new

    def inverse(self) -> "Pose":
        """``X_BA`` for ``self = X_AB``."""
        r, p = self.R, self.p
        Rt = (r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8])
        q = (-(Rt[0] * p[0] + Rt[1] * p[1] + Rt[2] * p[2]),
             -(Rt[3] * p[0] + Rt[4] * p[1] + Rt[5] * p[2]),
             -(Rt[6] * p[0] + Rt[7] * p[1] + Rt[8] * p[2]))
        new = Pose.__new__(Pose)
        new.R, new.p = Rt, q
        return new

    def transform_point(self, v: Sequence[float]) -> tuple[float, float, float]:
        r, p = self.R, self.p
        return (r[0] * v[0] + r[1] * v[1] + r[2] * v[2] + p[0],
                r[3] * v[0] + r[4] * v[1] + r[5] * v[2] + p[1],
                r[6] * v[0] + r[7] * v[1] + r[8] * v[2] + p[2])

    def rotate(self, v: Sequence[float]) -> tuple[float, float, float]:
        r = self.R
        return (r[0] * v[0] + r[1] * v[1] + r[2] * v[2],
                r[3] * v[0] + r[4] * v[1] + r[5] * v[2],
                r[6] * v[0] + r[7] * v[1] + r[8] * v[2])

    # -- views --------------------------------------------------------------------
    def matrix(self) -> "np.ndarray":
        """4x4 homogeneous matrix."""
        import numpy as np
        T = np.eye(4)
        T[:3, :3] = np.asarray(self.R).reshape(3, 3)
        T[:3, 3] = self.p
        return T

    def rotation_matrix(self) -> "np.ndarray":
        import numpy as np
        return np.asarray(self.R, dtype=float).reshape(3, 3)

    def quat(self) -> tuple[float, float, float, float]:
        """Unit quaternion ``(w, x, y, z)`` with ``w >= 0`` (a canonical sign)."""
        return quat_from_matrix(self.R)

    def rpy(self) -> tuple[float, float, float]:
        return rpy_from_matrix(self.R)

    def xyz_quat(self) -> list[float]:
        """``[x, y, z, qw, qx, qy, qz]``, the JSON form used by the CLI."""
        return [*self.p, *self.quat()]

    def xyz_rpy(self) -> list[float]:
        return [*self.p, *self.rpy()]

    def is_identity(self, tol: float = 1e-12) -> bool:
        return self.almost_equal(IDENTITY, tol)

    def almost_equal(self, other: "Pose", tol: float = 1e-9) -> bool:
        """Translation and rotation-matrix entries agree within ``tol``."""
        return (all(abs(a - b) <= tol for a, b in zip(self.p, other.p))
                and all(abs(a - b) <= tol for a, b in zip(self.R, other.R)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pose) and self.R == other.R and self.p == other.p

    def __hash__(self) -> int:
        return hash((self.R, self.p))

    def __repr__(self) -> str:
        x, y, z, r, p, w = self.xyz_rpy()
        return f"Pose(xyz=({x:.6g}, {y:.6g}, {z:.6g}), rpy=({r:.6g}, {p:.6g}, {w:.6g}))"


IDENTITY = Pose()


def matrix_from_quat(wxyz: Sequence[float]) -> _Rot:
    w, x, y, z = (float(v) for v in wxyz)
    n = math.sqrt(w * w + x * x + y * y + z * z)
    if n == 0.0:
        raise ValueError("zero quaternion")
    w, x, y, z = w / n, x / n, y / n, z / n
    return (1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
            2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
            2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y))


def quat_from_matrix(R: Sequence[float]) -> tuple[float, float, float, float]:
    """Shepperd's method: pick the largest diagonal term for numerical stability."""
    m00, m01, m02, m10, m11, m12, m20, m21, m22 = R
    tr = m00 + m11 + m22
    if tr > 0.0:
        s = math.sqrt(tr + 1.0) * 2.0
        w, x, y, z = 0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s
    elif m00 > m11 and m00 > m22:
        s = math.sqrt(1.0 + m00 - m11 - m22) * 2.0
        w, x, y, z = (m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s
    elif m11 > m22:
        s = math.sqrt(1.0 + m11 - m00 - m22) * 2.0
        w, x, y, z = (m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s
    else:
        s = math.sqrt(1.0 + m22 - m00 - m11) * 2.0
        w, x, y, z = (m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    n = math.sqrt(w * w + x * x + y * y + z * z)
    return (w / n, x / n, y / n, z / n)


def quat_from_rpy(roll: float, pitch: float, yaw: float) -> tuple[float, float, float, float]:
    return Pose.from_xyz_rpy(0, 0, 0, roll, pitch, yaw).quat()


def rpy_from_matrix(R: Sequence[float]) -> tuple[float, float, float]:
    """Extrinsic X-Y-Z angles; at gimbal lock (|pitch| = pi/2) roll carries the rotation."""
    m00, m01, m02, m10, m11, m12, m20, m21, m22 = R
    sp = max(-1.0, min(1.0, -m20))
    pitch = math.asin(sp)
    if abs(sp) < 1.0 - 1e-12:
        roll = math.atan2(m21, m22)
        yaw = math.atan2(m10, m00)
    else:
        yaw = 0.0
        roll = math.atan2(-m12, m11)
    return (roll, pitch, yaw)


def quat_distance(a: Iterable[float], b: Iterable[float]) -> float:
    """Angle-like distance between two unit quaternions, insensitive to sign."""
    dot = abs(sum(x * y for x, y in zip(a, b)))
    return 2.0 * math.acos(min(1.0, dot))
