"""Rigid-body mass properties: mass, centre of mass and the inertia tensor about it.

Conventions (the same as SDFormat, URDF, gz-math and trimesh):

* ``inertia`` is the 3x3 tensor about the centre of mass, expressed in the axes of the
  frame the properties are given in.  Off-diagonal entries are the *tensor* elements,
  ``I[0, 1] = -integral(x y dm)``, so ``ixy == I[0, 1]`` is what ``<ixy>`` holds.
* ``com`` is the centre of mass in that same frame.

Transforms use :class:`snapframe.core.pose.Pose` in the ``X_AB`` notation: properties
given in frame B are moved into frame A with ``mp.expressed_in(X_AB)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..pose import Pose

__all__ = ["MassProperties", "GZ_DEFAULT_TOLERANCE", "combine", "principal_axes", "inertia_epsilon"]

#: gz-math's ``GZ_MASSMATRIX3_DEFAULT_TOLERANCE`` (a multiple of machine epsilon).
GZ_DEFAULT_TOLERANCE = 10.0

_E3 = np.eye(3)


def _as_tensor(I: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
    T = np.array(I, dtype=float).reshape(3, 3)
    # Symmetrise: callers build tensors from rotations that leave ~1e-17 asymmetry.
    return 0.5 * (T + T.T)


@dataclass(frozen=True, eq=False)
class MassProperties:
    """Mass ``mass`` [kg], centre of mass ``com`` (3,) [m] and central tensor ``inertia``
    (3, 3) [kg m^2], all in one frame's axes.  ``approximate`` marks values that come
    from an approximation (the voxel method); it survives every operation below."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray
    approximate: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "mass", float(self.mass))
        object.__setattr__(self, "com", np.array(self.com, dtype=float).reshape(3))
        object.__setattr__(self, "inertia", _as_tensor(self.inertia))

    # -- construction ------------------------------------------------------------------
    @classmethod
    def from_values(cls, mass: float, ixx: float, iyy: float, izz: float, ixy: float = 0.0,
                    ixz: float = 0.0, iyz: float = 0.0,
                    com: Sequence[float] = (0.0, 0.0, 0.0)) -> "MassProperties":
        """From SDFormat-style scalars (products already in the ``-integral(xy dm)`` sign)."""
        I = [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]
        return cls(mass, np.asarray(com, dtype=float), np.asarray(I))

    @classmethod
    def from_inertial_frame(cls, mass: float, X_FC: Pose, I_C: np.ndarray) -> "MassProperties":
        """From a tensor ``I_C`` given in the axes of an inertial frame C placed at ``X_FC``
        (SDFormat's ``//inertial/pose``): the result is expressed in frame F."""
        R = X_FC.rotation_matrix()
        return cls(mass, np.asarray(X_FC.p), R @ _as_tensor(I_C) @ R.T)

    # -- SDFormat scalars ---------------------------------------------------------------
    @property
    def ixx(self) -> float:
        return float(self.inertia[0, 0])

    @property
    def iyy(self) -> float:
        return float(self.inertia[1, 1])

    @property
    def izz(self) -> float:
        return float(self.inertia[2, 2])

    @property
    def ixy(self) -> float:
        return float(self.inertia[0, 1])

    @property
    def ixz(self) -> float:
        return float(self.inertia[0, 2])

    @property
    def iyz(self) -> float:
        return float(self.inertia[1, 2])

    def values(self) -> dict[str, float]:
        """``{"mass", "ixx", "iyy", "izz", "ixy", "ixz", "iyz"}`` as plain floats."""
        return {"mass": self.mass, "ixx": self.ixx, "iyy": self.iyy, "izz": self.izz,
                "ixy": self.ixy, "ixz": self.ixz, "iyz": self.iyz}

    def to_json(self) -> dict:
        return {**self.values(), "com": [float(v) for v in self.com],
                "approximate": self.approximate}

    # -- algebra ------------------------------------------------------------------------
    def expressed_in(self, X_AB: Pose) -> "MassProperties":
        """These properties (given in frame B) expressed in frame A."""
        R = X_AB.rotation_matrix()
        com = R @ self.com + np.asarray(X_AB.p)
        return MassProperties(self.mass, com, R @ self.inertia @ R.T, self.approximate)

    def with_mass(self, mass: float) -> "MassProperties":
        """Same shape and COM, tensor rescaled to ``mass`` (keeps density ratios)."""
        if self.mass == 0.0:
            raise ValueError("cannot rescale zero mass")
        k = float(mass) / self.mass
        return MassProperties(mass, self.com, self.inertia * k, self.approximate)

    def scaled_density(self, factor: float) -> "MassProperties":
        return MassProperties(self.mass * factor, self.com, self.inertia * factor, self.approximate)

    def inertia_about(self, point: Sequence[float]) -> np.ndarray:
        """Tensor about ``point`` (same axes), by the parallel-axis theorem."""
        d = self.com - np.asarray(point, dtype=float)
        return self.inertia + self.mass * (float(d @ d) * _E3 - np.outer(d, d))

    def __add__(self, other: "MassProperties") -> "MassProperties":
        return combine([self, other])

    def principal(self) -> tuple[np.ndarray, np.ndarray]:
        """Principal moments (ascending) and the rotation R whose columns are the axes
        (``inertia == R @ diag(moments) @ R.T``, ``det R = +1``)."""
        return principal_axes(self.inertia)

    def principal_pose(self) -> tuple[np.ndarray, Pose]:
        """Principal moments and the inertial-frame pose (COM, principal axes): the form
        SDFormat recommends, with zero products of inertia."""
        moments, R = self.principal()
        return moments, Pose(R.ravel().tolist(), self.com.tolist())

    def is_valid(self, tolerance: float = GZ_DEFAULT_TOLERANCE) -> bool:
        """gz-math ``MassMatrix3::IsValid``: non-negative mass and (near) positive
        semi-definite tensor whose principal moments obey the triangle inequality."""
        from .validate import mass_matrix_problems
        return not mass_matrix_problems(self.mass, self.inertia, tolerance, strict=False)

    def almost_equal(self, other: "MassProperties", rtol: float = 1e-9) -> bool:
        """Mass, COM and tensor agree to ``rtol`` relative to their own magnitudes."""
        # The COM is compared on the body's own length scale (radius of gyration).
        gyration = (float(np.trace(self.inertia)) / self.mass) ** 0.5 if self.mass > 0 else 0.0
        scale_c = max(float(np.abs(self.com).max()), gyration, 1e-300)
        scale_i = max(float(np.abs(self.inertia).max()), 1e-300)
        return (abs(self.mass - other.mass) <= rtol * abs(self.mass)
                and float(np.abs(self.com - other.com).max()) <= rtol * scale_c
                and float(np.abs(self.inertia - other.inertia).max()) <= rtol * scale_i)

    def __repr__(self) -> str:
        c = ", ".join(f"{v:.6g}" for v in self.com)
        return (f"MassProperties(mass={self.mass:.9g}, com=({c}), ixx={self.ixx:.9g}, "
                f"iyy={self.iyy:.9g}, izz={self.izz:.9g}, ixy={self.ixy:.6g}, "
                f"ixz={self.ixz:.6g}, iyz={self.iyz:.6g})")


def combine(parts: Iterable[MassProperties]) -> MassProperties:
    """Sum of bodies given in one frame: total mass, joint COM, tensor about it."""
    parts = list(parts)
    if not parts:
        raise ValueError("nothing to combine")
    m = np.array([p.mass for p in parts])
    c = np.array([p.com for p in parts])
    I = np.array([p.inertia for p in parts])
    M = float(m.sum())
    if M == 0.0:
        raise ValueError("total mass is zero")
    com = (m @ c) / M
    d = c - com
    md = m[:, None] * d
    J = I.sum(axis=0) + float((md * d).sum()) * _E3 - md.T @ d
    return MassProperties(M, com, J, any(p.approximate for p in parts))


def principal_axes(I: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigen-decomposition of a symmetric tensor with a proper rotation (det = +1)."""
    w, R = np.linalg.eigh(_as_tensor(I))
    if np.linalg.det(R) < 0.0:
        R[:, 2] = -R[:, 2]
    return w, R


def inertia_epsilon(moments: np.ndarray, tolerance: float = GZ_DEFAULT_TOLERANCE) -> float:
    """gz-math ``MassMatrix3::Epsilon``: tolerance x machine-eps x the largest possible
    principal moment (half the trace)."""
    return float(tolerance * np.finfo(float).eps * 0.5 * abs(float(np.sum(moments))))
