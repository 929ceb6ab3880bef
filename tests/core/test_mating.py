"""Mate connectors where a body's surface was clicked (snapframe.core.model.mating).

Expected frames are worked out by hand from the clock example's comments: the face is
declared at z = 1.5 with the identity rotation; at the file's hinge angle (pi/2, three
o'clock) the hand's axes in the world are x_h = (-1, 0, 0), y_h = (0, 0, 1),
z_h = (0, 1, 0) (its front faces the world's +y, like the face's), its origin at the face
connector (0, 0.01, 1.5).
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.loading import load
from snapframe.core.model import MateConnector
from snapframe.core.model.edits import EditRefused
from snapframe.core.model.mating import AddMateConnectorAt, connector_pose, normal_for

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples" / "openplx"


@pytest.fixture
def clock(tmp_path):
    shutil.copy(EXAMPLES / "clock.openplx", tmp_path)
    return load(tmp_path / "clock.openplx")


def columns(pose) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    R = np.array(pose.R).reshape(3, 3)
    return R[:, 0], R[:, 1], R[:, 2]


@pytest.mark.parametrize("main, normal", [
    ((1, 0, 0), (0, 0, 1)),          # a side face: the normal points up
    ((0, -1, 0), (0, 0, 1)),
    ((0, 0, 1), (1, 0, 0)),          # top and bottom faces: along +x
    ((0, 0, -1), (1, 0, 0)),
    # 53 degrees from z: z minus its part along the main axis, (0, -0.48, 0.64), normalised
    ((0, 0.8, 0.6), (0, -0.6, 0.8)),
    # 37 degrees from z (more than 30): (0,0,1) - 0.8 (0.6,0,0.8) = (-0.48, 0, 0.36)
    ((0.6, 0, 0.8), (-0.8, 0, 0.6)),
])
def test_the_normal_is_the_bodys_z_or_x_turned_perpendicular(main, normal):
    n = normal_for(main)
    np.testing.assert_allclose(n, normal, atol=1e-12)
    assert abs(float(np.dot(n, main))) < 1e-12


def test_a_main_axis_near_z_takes_x():
    # 20 degrees from +z: z's perpendicular part is sin(20 deg) = 0.34 < 0.5, so x is used
    a = math.radians(20)
    main = (math.sin(a), 0.0, math.cos(a))
    # x minus its part along the main axis, normalised: (cos a, 0, -sin a)
    np.testing.assert_allclose(normal_for(main), [math.cos(a), 0, -math.sin(a)], atol=1e-12)


def test_connector_pose_follows_the_openplx_frame_rule():
    # the clock face's connector: main (0,-1,0), normal (0,0,1) -> y = z x x = (-1,0,0)
    X = connector_pose((0, 0.01, 0), (0, -1, 0), (0, 0, 1))
    x, y, z = columns(X)
    np.testing.assert_allclose(x, [0, 0, 1])
    np.testing.assert_allclose(y, [-1, 0, 0])
    np.testing.assert_allclose(z, [0, -1, 0])
    assert X.p == (0.0, 0.01, 0.0)
    with pytest.raises(EditRefused, match="parallel"):
        connector_pose((0, 0, 0), (0, 0, 1), (0, 0, 2))
    with pytest.raises(EditRefused, match="non-zero"):
        connector_pose((0, 0, 0), (0, 0, 0))


def test_a_connector_clicked_on_the_face_front(clock):
    face = clock.element("face")
    # the dial's front (+y) at 5 cm right of and above its centre
    cmd = AddMateConnectorAt(clock, face, (0.05, 0.005, 1.55), (0, 1, 0))
    clock.commands.push(cmd)
    node = clock.element("face.mc")
    assert isinstance(node, MateConnector) and node.attached_to == "face"
    assert node.pose.value.p == pytest.approx((0.05, 0.005, 0.05))
    x, y, z = columns(node.pose.value)
    np.testing.assert_allclose(z, [0, 1, 0], atol=1e-12)     # the face normal
    np.testing.assert_allclose(x, [0, 0, 1], atol=1e-12)     # the body's +z
    np.testing.assert_allclose(y, [1, 0, 0], atol=1e-12)     # z x x
    # its world frame from the pose table: the same (the face is not turned)
    X = clock.live.poses.pose("face.mc")
    np.testing.assert_allclose(X[:3, 3], [0.05, 0.005, 1.55], atol=1e-12)
    assert len(clock.commands) == 1
    clock.commands.undo()
    assert clock.element("face.mc") is None


def test_a_connector_on_the_turned_hand_is_expressed_in_the_hand(clock):
    hand = clock.element("hour_hand")
    # the blade's front face (hand z = +0.001) 6 cm along the hand: world point
    # (0, 0.01, 1.5) + 0.06 x_h + 0.001 z_h = (-0.06, 0.011, 1.5), normal z_h = (0, 1, 0)
    clock.commands.push(AddMateConnectorAt(clock, hand, (-0.06, 0.011, 1.5), (0, 1, 0),
                                           "tip"))
    node = clock.element("hour_hand.tip")
    assert node.pose.value.p == pytest.approx((0.06, 0.0, 0.001), abs=1e-12)
    x, y, z = columns(node.pose.value)
    np.testing.assert_allclose(z, [0, 0, 1], atol=1e-12)   # main: the hand's own +z
    np.testing.assert_allclose(x, [1, 0, 0], atol=1e-12)   # near z: the hand's +x
    np.testing.assert_allclose(y, [0, 1, 0], atol=1e-12)
    # into the body: the main axis reversed (then y = z x x = (0, -1, 0))
    clock.commands.push(AddMateConnectorAt(clock, hand, (-0.06, 0.011, 1.5), (0, 1, 0),
                                           into=True))
    x, y, z = columns(clock.element("hour_hand.mc").pose.value)
    np.testing.assert_allclose(z, [0, 0, -1], atol=1e-12)
    np.testing.assert_allclose(y, [0, -1, 0], atol=1e-12)


def test_connector_names_are_free_and_refusals_say_why(clock):
    face = clock.element("face")
    for _ in range(2):
        clock.commands.push(AddMateConnectorAt(clock, face, (0, 0.005, 1.5), (0, 1, 0)))
    assert clock.element("face.mc") is not None and clock.element("face.mc_2") is not None
    with pytest.raises(EditRefused, match="already used"):
        AddMateConnectorAt(clock, face, (0, 0.005, 1.5), (0, 1, 0), "center")
    with pytest.raises(EditRefused, match="non-zero"):
        AddMateConnectorAt(clock, face, (0, 0, 1.5), (0, 0, 0))
    with pytest.raises(EditRefused, match="finite"):
        AddMateConnectorAt(clock, face, (0, math.nan, 1.5), (0, 1, 0))
    with pytest.raises(EditRefused, match="body"):
        AddMateConnectorAt(clock, clock.element("hand_hinge"), (0, 0, 0), (0, 1, 0))
