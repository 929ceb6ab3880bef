"""Small rigid-transform helpers (4x4 numpy arrays) for the DSL semantics."""
from __future__ import annotations

import math

import numpy as np

__all__ = ["pose", "rot_z", "transform_points", "inverse"]


def pose(x: float = 0.0, y: float = 0.0, z: float = 0.0,
         rx: float = 0.0, ry: float = 0.0, rz: float = 0.0) -> np.ndarray:
    """``[Rz(rz)·Ry(ry)·Rx(rx) | (x, y, z)]``, the FloorPlan DSL's order of rotations."""
    cx, sx = math.cos(rx), math.sin(rx)
    cy, sy = math.cos(ry), math.sin(ry)
    cz, sz = math.cos(rz), math.sin(rz)
    return np.array([
        [cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx, x],
        [sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx, y],
        [-sy, cy * sx, cy * cx, z],
        [0.0, 0.0, 0.0, 1.0],
    ])


def rot_z(cos_a: float, sin_a: float, x: float = 0.0, y: float = 0.0) -> np.ndarray:
    """A turn about z given by its cosine and sine, then a shift in the xy plane."""
    return np.array([
        [cos_a, -sin_a, 0.0, x],
        [sin_a, cos_a, 0.0, y],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ])


def inverse(X: np.ndarray) -> np.ndarray:
    """The inverse of a rigid transform."""
    out = np.eye(4)
    R = X[:3, :3]
    out[:3, :3] = R.T
    out[:3, 3] = -R.T @ X[:3, 3]
    return out


def transform_points(X: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Points (N, 3) mapped by ``X``."""
    return points @ X[:3, :3].T + X[:3, 3]
