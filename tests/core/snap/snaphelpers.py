"""Test helpers: connector frames by the OpenPLX rule and a terse SnapProblem builder.

Kept independent of the solver so that tests derive expectations by hand.
"""

from __future__ import annotations

import math
from typing import Sequence

from snapframe.core.pose import Pose
from snapframe.core.snap import (SnapBody, SnapConnector, SnapMate, SnapProblem, SnapSystem)


def _unit(v: Sequence[float]) -> tuple[float, float, float]:
    n = math.sqrt(sum(c * c for c in v))
    return (v[0] / n, v[1] / n, v[2] / n)


def connector_frame(position=(0.0, 0.0, 0.0), main_axis=(0.0, 0.0, 1.0),
                    normal=(1.0, 0.0, 0.0)) -> Pose:
    """MateConnector frame: z = main_axis, x = normal (orthogonal part), y = z x x."""
    z = _unit(main_axis)
    d = sum(a * b for a, b in zip(normal, z))
    x = _unit([n - d * c for n, c in zip(normal, z)])
    y = (z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0])
    # Columns x, y, z; Pose.R is row-major.
    return Pose((x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]), position)


def quat_from_to(a: Sequence[float], b: Sequence[float]) -> Pose:
    """Shortest rotation taking direction a to b (Math.Quat.from_to)."""
    a, b = _unit(a), _unit(b)
    axis = (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    c = sum(x * y for x, y in zip(a, b))
    s = math.sqrt(sum(x * x for x in axis))
    angle = math.atan2(s, c)
    if s < 1e-15:
        return Pose()
    axis = tuple(x / s for x in axis)
    h = angle / 2.0
    return Pose.from_xyz_quat((0, 0, 0), (math.cos(h), *(x * math.sin(h) for x in axis)))


def rz(a: float, xyz=(0.0, 0.0, 0.0)) -> Pose:
    return Pose.from_xyz_rpy(*xyz, 0.0, 0.0, a)


class Builder:
    """``b = Builder("W"); b.body("W.a", declared=Pose()); b.conn(...); b.mate(...)``."""

    def __init__(self, root: str = "W") -> None:
        self.root = root
        self.systems = [SnapSystem(root, None, None)]
        self.bodies: list[SnapBody] = []
        self.connectors: list[SnapConnector] = []
        self.mates: list[SnapMate] = []

    def system(self, path, parent=None, declared=None, reference_body=None):
        self.systems.append(SnapSystem(path, parent or self.root, declared, reference_body))
        return path

    def body(self, path, parent=None, declared=None):
        self.bodies.append(SnapBody(path, parent or self.root, declared))
        return path

    def conn(self, path, owner, X_OC=None, redirected_parent=None, **frame):
        X = X_OC if X_OC is not None else connector_frame(**frame)
        self.connectors.append(SnapConnector(path, owner, X, redirected_parent))
        return path

    def mate(self, path, type, c0, c1, **kw):
        self.mates.append(SnapMate(path, type, (c0, c1), **kw))
        return path

    def problem(self) -> SnapProblem:
        return SnapProblem(self.root, list(self.systems), list(self.bodies),
                           list(self.connectors), list(self.mates))


def assert_pose(actual: Pose, expected: Pose, tol: float = 1e-9) -> None:
    assert actual.almost_equal(expected, tol), f"{actual!r} != {expected!r}"
