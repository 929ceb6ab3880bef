"""Closed-form mass properties of SDFormat's primitive shapes, uniform density.

Each function returns :class:`MassProperties` in the shape's own frame (the frame of its
``<collision>``), with exactly the gz-math / libsdformat conventions:

* box ``size`` = full side lengths, centred;
* cylinder, capsule and cone lie along z; capsule ``length`` is the cylindrical part only;
* ellipsoid ``radii`` = semi-axes;
* the cone is centred on its bounding box, so its centroid sits at ``z = -length / 4``.

Non-positive sizes or density raise :class:`ValueError` (libsdformat returns no inertial).
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Sequence

import numpy as np

from .mass_properties import MassProperties

__all__ = ["box", "cylinder", "sphere", "capsule", "ellipsoid", "cone",
           "PRIMITIVE_SHAPES", "primitive_mass_properties"]


def _positive(name: str, *values: float) -> None:
    for v in values:
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0.0):
            raise ValueError(f"{name} must be positive and finite, got {v!r}")


def _diag(m: float, ixx: float, iyy: float, izz: float, z: float = 0.0) -> MassProperties:
    return MassProperties(m, np.array([0.0, 0.0, z]), np.diag([ixx, iyy, izz]))


def box(size: Sequence[float], density: float) -> MassProperties:
    x, y, z = (float(v) for v in size)
    _positive("box size", x, y, z)
    _positive("density", density)
    m = density * x * y * z
    return _diag(m, m / 12.0 * (y * y + z * z), m / 12.0 * (x * x + z * z),
                 m / 12.0 * (x * x + y * y))


def cylinder(radius: float, length: float, density: float) -> MassProperties:
    r, l = float(radius), float(length)
    _positive("cylinder radius/length", r, l)
    _positive("density", density)
    m = density * math.pi * r * r * l
    ixx = m / 12.0 * (3.0 * r * r + l * l)
    return _diag(m, ixx, ixx, 0.5 * m * r * r)


def sphere(radius: float, density: float) -> MassProperties:
    r = float(radius)
    _positive("sphere radius", r)
    _positive("density", density)
    m = density * 4.0 / 3.0 * math.pi * r ** 3
    i = 0.4 * m * r * r
    return _diag(m, i, i, i)


def capsule(radius: float, length: float, density: float) -> MassProperties:
    """Cylinder of ``length`` plus two hemispherical caps (gz-math ``Capsule``).

    Each cap, of mass m_h, has its centroid 3r/8 from its flat face and a transverse
    moment 83/320 m_h r^2 about it; moving it to the capsule centre (d = l/2 + 3r/8)
    gives m_h (2r^2/5 + 3rl/8 + l^2/4), since 83/320 + 9/64 = 2/5.
    """
    r, l = float(radius), float(length)
    _positive("capsule radius/length", r, l)
    _positive("density", density)
    m_c = density * math.pi * r * r * l
    m_s = density * 4.0 / 3.0 * math.pi * r ** 3        # both caps together
    ixx = m_c / 12.0 * (3.0 * r * r + l * l) + m_s * (0.4 * r * r + 0.375 * r * l + 0.25 * l * l)
    izz = r * r * (0.5 * m_c + 0.4 * m_s)
    return _diag(m_c + m_s, ixx, ixx, izz)


def ellipsoid(radii: Sequence[float], density: float) -> MassProperties:
    a, b, c = (float(v) for v in radii)
    _positive("ellipsoid radii", a, b, c)
    _positive("density", density)
    m = density * 4.0 / 3.0 * math.pi * a * b * c
    return _diag(m, m / 5.0 * (b * b + c * c), m / 5.0 * (a * a + c * c), m / 5.0 * (a * a + b * b))


def cone(radius: float, length: float, density: float) -> MassProperties:
    """Cone with its base at z = -l/2 and apex at z = +l/2 (bounding-box centred)."""
    r, l = float(radius), float(length)
    _positive("cone radius/length", r, l)
    _positive("density", density)
    m = density * math.pi * r * r * l / 3.0
    ixx = 3.0 * m * (4.0 * r * r + l * l) / 80.0
    return _diag(m, ixx, ixx, 0.3 * m * r * r, z=-0.25 * l)


def _vec3(params: Mapping, key: str) -> tuple[float, float, float]:
    v = params[key]
    if len(v) != 3:
        raise ValueError(f"{key} needs 3 values, got {len(v)}")
    return (float(v[0]), float(v[1]), float(v[2]))


#: shape name -> function(params, density) for the closed-form shapes.
PRIMITIVE_SHAPES: dict[str, Callable[[Mapping, float], MassProperties]] = {
    "box": lambda p, rho: box(_vec3(p, "size"), rho),
    "cylinder": lambda p, rho: cylinder(p["radius"], p["length"], rho),
    "sphere": lambda p, rho: sphere(p["radius"], rho),
    "capsule": lambda p, rho: capsule(p["radius"], p["length"], rho),
    "ellipsoid": lambda p, rho: ellipsoid(_vec3(p, "radii"), rho),
    "cone": lambda p, rho: cone(p["radius"], p["length"], rho),
}


def primitive_mass_properties(shape: str, params: Mapping, density: float) -> MassProperties:
    """Mass properties of a primitive ``Geometry`` (``shape``, ``params``) at ``density``.

    Raises ``KeyError`` for a shape that is not a primitive or a missing parameter, and
    ``ValueError`` for a non-positive size or density.
    """
    return PRIMITIVE_SHAPES[shape](params, float(density))
