"""Review tests for mates between included OpenPLX parts in SDFormat documents.

Expectations are worked out by hand (see tests/core/test_mating_includes.py for the part
files FACE and HAND and the connector frames they give):

* the face's centre connector is at (1, 2.01, 0.5) in the room, its main axis (z) is the
  world's -y;
* the hand's pivot sits at (-0.01, 0, 0) in the hour_hand link, so once the pivot is on
  the centre the link's origin is 1 cm away from it (at (0.99, 2.01, 0.5) for 90 degrees).

A hinge turns the hand about the line through the two connectors, and a ball about their
common point: the SDFormat joint must have its frame there.  A joint's frame is its
``<pose>`` (relative to the child link by default), and ``<axis><xyz expressed_in>`` only
says the axis *direction*; so the joint has to be posed on the connector.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.model import Joint
from snapframe.core.model.connecting import AddMateBetween

from .test_mating_includes import (FACE, FACE_CENTER, HAND, PIVOT, _load, all_poses, pose,
                                   write_room)

CENTRE_IN_ROOM = np.array([1.0, 2.01, 0.5])


@pytest.fixture
def room(tmp_path):
    return _load(write_room(tmp_path))


@pytest.mark.parametrize("kind, values", [("hinge", {"initial_angle": math.pi / 2}),
                                          ("ball", {}),
                                          ("prismatic", {"initial_position": 0.0})])
def test_the_joint_frame_is_on_the_connectors(room, tmp_path, kind, values):
    room.commands.push(AddMateBetween(room, "j", kind, FACE_CENTER, PIVOT, **values))
    assert not room.diagnostics.errors
    X_joint = pose(room, "j")
    # the hinge line / ball centre goes through the face's centre, not the link's origin
    np.testing.assert_allclose(X_joint[:3, 3], CENTRE_IN_ROOM, atol=1e-12)
    assert not np.allclose(pose(room, "hand::hour_hand")[:3, 3], CENTRE_IN_ROOM)
    # and the axis (z of the joint frame, as the axis is (0, 0, 1)) is the main axis, -y
    joint = room.element("j")
    if joint.axes:
        np.testing.assert_allclose(X_joint[:3, 2], [0, -1, 0], atol=1e-12)
        np.testing.assert_allclose(pose(room, PIVOT)[:3, 2], [0, -1, 0], atol=1e-12)
    # kept by a save with the includes and a reload
    out = tmp_path / "saved.sdf"
    room.save(out, flatten=False)
    again = _load(out)
    np.testing.assert_allclose(pose(again, "j")[:3, 3], CENTRE_IN_ROOM, atol=1e-12)
    # undo removes it all
    room.commands.undo()
    assert room.element("j") is None and room.element("hand").placement_frame == ""


NESTED = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="a">
    <link name="base"/>
    <model name="sub">
      <pose>0 0 1 0 0 0.3</pose>
      <include><uri>file://face.openplx</uri><name>f</name><pose>1 0 0 0 0 0</pose></include>
      <include><uri>file://hand.openplx</uri><name>h</name></include>
    </model>
  </model>
</sdf>
"""


def _T(p=(0, 0, 0), R=np.eye(3)):
    X = np.eye(4)
    X[:3, :3], X[:3, 3] = R, p
    return X


def _Rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def test_nested_model_and_top_name_keys_place_by_the_spec(tmp_path):
    (tmp_path / "face.openplx").write_text(FACE)
    (tmp_path / "hand.openplx").write_text(HAND)
    (tmp_path / "a.sdf").write_text(NESTED)
    doc = _load(tmp_path / "a.sdf")
    # keys with the top model's name in front
    doc.commands.push(AddMateBetween(doc, "j", "hinge", "a::sub::f::face.center",
                                     "a::sub::h::hour_hand.pivot", initial_angle=0.4))
    assert not doc.diagnostics.errors
    joint = doc.element("sub::j")
    assert isinstance(joint, Joint) and (joint.parent_name, joint.child_name) == \
        ("f::face", "h::hour_hand")
    h = doc.element("sub::h")
    assert (h.placement_frame, h.pose.relative_to) == ("hour_hand.pivot", "f::face.center")
    # by hand: X_R_PF = X_R_a . offset, the include (model frame) = X_R_PF . X_M_PF^-1
    X_W_sub = _T((0, 0, 1), _Rz(0.3))
    X_sub_a = _T((1, 0, 0)) @ _T((0, 0, 0.5)) @ _T((0, 0.01, 0), np.array(
        [[0, -1, 0], [0, 0, -1], [1, 0, 0]], float))            # columns x, y, z
    X_M_PF = _T((-0.01, 0, 0), np.diag([1.0, -1.0, -1.0]))
    X_sub_h = X_sub_a @ _T(R=_Rz(0.4)) @ np.linalg.inv(X_M_PF)
    np.testing.assert_allclose(pose(doc, "sub::h"), X_W_sub @ X_sub_h, atol=1e-12)
    np.testing.assert_allclose(pose(doc, "sub::h::hour_hand"), X_W_sub @ X_sub_h, atol=1e-12)
    np.testing.assert_allclose(pose(doc, "sub::j")[:3, 3], (X_W_sub @ X_sub_a)[:3, 3],
                               atol=1e-12)
    saved = all_poses(doc)
    doc.save(tmp_path / "out.sdf", flatten=False)
    again = all_poses(_load(tmp_path / "out.sdf"))
    assert again.keys() == saved.keys()
    for key, X in saved.items():
        np.testing.assert_allclose(again[key], X, atol=1e-12, err_msg=key)


RIG = """\
Rig is Physics3D.System:
    a is Physics3D.Bodies.RigidBody:
        kinematics.local_transform.position.z: 1
    b is Physics3D.Bodies.RigidBody:
        kinematics.local_transform.position.z: 2
    frame_mc is Physics3D.Interactions.RedirectedMateConnector:
        position.x: 2
        redirected_parent: b
"""

RIG_ROOM = """<?xml version="1.0"?>
<sdf version="1.10">
  <world name="w">
    <include><uri>file://rig.openplx</uri><name>r</name></include>
    <include><uri>file://hand.openplx</uri><name>h</name></include>
  </world>
</sdf>
"""


def test_a_redirected_connector_is_joined_through_its_redirected_parent(tmp_path):
    # OpenPLX: a RedirectedMateConnector is defined in its owner's coordinates but is a
    # connector of redirected_parent: the mate acts on body b, not on the rig's first body
    (tmp_path / "rig.openplx").write_text(RIG)
    (tmp_path / "hand.openplx").write_text(HAND)
    (tmp_path / "w.sdf").write_text(RIG_ROOM)
    doc = _load(tmp_path / "w.sdf")
    doc.commands.push(AddMateBetween(doc, "j", "hinge", "r::frame_mc", "h::hour_hand.pivot"))
    joint = doc.element("j")
    assert (joint.parent_name, joint.child_name) == ("r::b", "h::hour_hand")
    assert not doc.diagnostics.errors
