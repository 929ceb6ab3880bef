"""SE(3) algebra, against hand-derived values."""

import math

import numpy as np
import pytest

from snapframe.core.pose import IDENTITY, Pose, quat_distance


def test_rpy_is_extrinsic_xyz():
    # R = Rz(yaw) Ry(pitch) Rx(roll): yaw 90 deg maps x to y.
    X = Pose.from_xyz_rpy(0, 0, 0, 0, 0, math.pi / 2)
    assert np.allclose(X.rotate((1, 0, 0)), (0, 1, 0))
    # roll 90 deg maps y to z; then yaw 90 deg (applied after, extrinsic) maps x to y.
    X = Pose.from_xyz_rpy(0, 0, 0, math.pi / 2, 0, math.pi / 2)
    assert np.allclose(X.rotate((0, 1, 0)), (0, 0, 1))
    assert np.allclose(X.rotate((1, 0, 0)), (0, 1, 0))


def test_composition_and_inverse():
    X_AB = Pose.from_xyz_rpy(1, 2, 3, 0.1, -0.4, 2.0)
    X_BC = Pose.from_xyz_rpy(-1, 0.5, 0, 1.0, 0.2, -0.3)
    X_AC = X_AB @ X_BC
    assert np.allclose(X_AC.matrix(), X_AB.matrix() @ X_BC.matrix())
    assert (X_AB @ X_AB.inverse()).almost_equal(IDENTITY, 1e-12)


@pytest.mark.parametrize("rpy", [(0.3, -1.2, 2.9), (0, math.pi / 2, 0), (math.pi, 0, 0),
                                 (0.1, -math.pi / 2, 0.4)])
def test_rpy_and_quaternion_round_trip(rpy):
    X = Pose.from_xyz_rpy(0, 0, 0, *rpy)
    again = Pose.from_xyz_rpy(0, 0, 0, *X.rpy())
    assert again.almost_equal(X, 1e-9)
    q = X.quat()
    assert q[0] >= 0 and abs(sum(v * v for v in q) - 1) < 1e-12
    assert Pose.from_xyz_quat((0, 0, 0), q).almost_equal(X, 1e-12)


def test_known_quaternion():
    # 90 deg about z: q = (cos 45, 0, 0, sin 45).
    q = Pose.from_xyz_rpy(0, 0, 0, 0, 0, math.pi / 2).quat()
    assert quat_distance(q, (math.sqrt(0.5), 0, 0, math.sqrt(0.5))) < 1e-9
