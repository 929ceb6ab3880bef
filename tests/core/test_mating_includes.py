"""Mating the connectors of two included OpenPLX parts in an SDFormat document: SDFormat
has no mates, so the mate becomes a placement (the second part's ``placement_frame`` put
on the first connector with ``<pose relative_to>``) and a joint between the two links,
one undo step.

Expectations are worked out by hand from the numbers in the part files below and the
OpenPLX rule for a connector's frame (z = main_axis, x = normal, y = z x x); libsdformat's
rule for a placement frame (/work/shared/reference/sdformat.md: the include's pose is the
placement frame's, X_RM = X_RPf X_MPf^-1); and SNAP's mate convention (the second
connector on the first, turned by the hinge angle about its z).

* face.openplx: body ``face`` declared at z = 0.5 in its system; connector ``center`` at
  (0, 0.01, 0), main axis (0, -1, 0), normal (0, 0, 1): its axes in the face are
  x = (0, 0, 1), y = (-1, 0, 0), z = (0, -1, 0).  Included as ``clock_face`` at (1, 2, 0):
  the centre is at (1, 2.01, 0.5) in the world.
* hand.openplx: body ``hour_hand`` at its system's origin; connector ``pivot`` at
  (-0.01, 0, 0), main axis (0, 0, -1), normal (1, 0, 0): x = (1, 0, 0), y = (0, -1, 0),
  z = (0, 0, -1).  Included as ``hand`` at (0, 0, 3).
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Include, Joint
from snapframe.core.model.connecting import AddMateBetween, MateIncludedParts
from snapframe.core.model.edits import EditRefused

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"

FACE = """\
ClockFace is Physics3D.Bodies.RigidBody:
    inertia.mass: 0.5
    dial is Physics3D.Geometries.Cylinder:
        radius: 0.15
        height: 0.01
    center is Physics3D.Interactions.MateConnector:
        position: {0, 0.01, 0}
        main_axis: {0, -1, 0}
        normal: {0, 0, 1}

FacePart is Physics3D.System:
    face is ClockFace:
        kinematics.local_transform.position.z: 0.5
"""

HAND = """\
Hand is Physics3D.Bodies.RigidBody:
    inertia.mass: 0.01
    blade is Physics3D.Geometries.Box:
        local_transform.position.x: 0.04
        size: {0.1, 0.01, 0.002}
    pivot is Physics3D.Interactions.MateConnector:
        position: {-0.01, 0, 0}
        main_axis: {0, 0, -1}
        normal: {1, 0, 0}

HandPart is Physics3D.System:
    hour_hand is Hand:
        kinematics.local_transform.position.x: 0
"""

ROOM = """<?xml version="1.0"?>
<sdf version="{version}">
  <world name="room">
    <include><uri>file://face.openplx</uri><name>clock_face</name><pose>1 2 0 0 0 0</pose></include>
    <include><uri>file://hand.openplx</uri><name>hand</name><pose>0 0 3 0 0 0</pose></include>
  </world>
</sdf>
"""

FACE_CENTER = "clock_face::face.center"
PIVOT = "hand::hour_hand.pivot"


def _load(path: Path):
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.errors, [d.message for d in doc.diagnostics.errors]
    return doc


def write_room(tmp_path: Path, version: str = "1.10") -> Path:
    (tmp_path / "face.openplx").write_text(FACE)
    (tmp_path / "hand.openplx").write_text(HAND)
    path = tmp_path / "room.sdf"
    path.write_text(ROOM.format(version=version))
    return path


def matrix(x, y, z, p) -> np.ndarray:
    X = np.eye(4)
    X[:3, 0], X[:3, 1], X[:3, 2], X[:3, 3] = x, y, z, p
    return X


# the face's centre connector in the world (module docstring)
X_W_CENTER = matrix((0, 0, 1), (-1, 0, 0), (0, -1, 0), (1, 2.01, 0.5))
# hinge at 90 degrees: the pivot is the centre turned a quarter about its z
# (x' = y, y' = -x, z' = z)
X_W_PIVOT_90 = matrix((-1, 0, 0), (0, 0, -1), (0, -1, 0), (1, 2.01, 0.5))
# the hand = pivot * P^-1 with P = diag(1, -1, -1) at (-0.01, 0, 0): its axes are the
# pivot's x, -y, -z, and its origin 0.01 along its own -x... from the pivot:
# p = p_pivot - R_hand (-0.01, 0, 0) = p_pivot + 0.01 x_hand
X_W_HAND_90 = matrix((-1, 0, 0), (0, 0, 1), (0, 1, 0), (0.99, 2.01, 0.5))


@pytest.fixture
def room(tmp_path):
    return _load(write_room(tmp_path))


def pose(doc, key: str) -> np.ndarray:
    return np.asarray(doc.live.poses.pose(key))


def all_poses(doc) -> dict[str, np.ndarray]:
    return {k: np.array(doc.live.poses.pose(k)) for k in doc.live.poses}


def test_a_hinge_places_the_hand_on_the_face_and_joins_them(room):
    before = all_poses(room)
    np.testing.assert_allclose(pose(room, FACE_CENTER), X_W_CENTER, atol=1e-12)
    np.testing.assert_allclose(pose(room, "hand::hour_hand"),
                               matrix((1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 3)), atol=1e-12)
    command = AddMateBetween(room, "", "hinge", FACE_CENTER, PIVOT,
                             initial_angle=math.pi / 2)
    assert isinstance(command, MateIncludedParts)
    room.commands.push(command)
    assert len(room.commands) == 1

    np.testing.assert_allclose(pose(room, PIVOT), X_W_PIVOT_90, atol=1e-12)
    np.testing.assert_allclose(pose(room, "hand::hour_hand"), X_W_HAND_90, atol=1e-12)
    np.testing.assert_allclose(pose(room, FACE_CENTER), X_W_CENTER, atol=1e-12)  # unmoved
    # the include says it as libsdformat reads it
    hand = room.element("hand")
    assert isinstance(hand, Include)
    assert hand.placement_frame == "hour_hand.pivot"
    assert hand.pose.relative_to == FACE_CENTER
    np.testing.assert_allclose(hand.pose.value.matrix(),
                               matrix((0, 1, 0), (-1, 0, 0), (0, 0, 1), (0, 0, 0)), atol=1e-12)
    # the joint: revolute about the pivot's z, from the face (parent) to the hand (child)
    joint = room.element("hinge")
    assert isinstance(joint, Joint) and command.node is joint
    assert (joint.type, joint.parent_name, joint.child_name) == \
        ("revolute", "clock_face::face", "hand::hour_hand")
    [axis] = joint.axes
    assert axis.xyz == (0.0, 0.0, 1.0) and axis.expressed_in == PIVOT
    assert not room.diagnostics.errors

    room.commands.undo()
    assert room.element("hinge") is None
    assert hand.placement_frame == "" and hand.pose.relative_to == ""
    after = all_poses(room)
    assert after.keys() == before.keys()
    for key, X in before.items():
        np.testing.assert_array_equal(after[key], X, err_msg=key)
    room.commands.redo()
    np.testing.assert_allclose(pose(room, "hand::hour_hand"), X_W_HAND_90, atol=1e-12)


def test_a_save_and_reload_keep_the_mate_as_placement_and_joint(room, tmp_path):
    room.commands.push(AddMateBetween(room, "clock_hinge", "hinge", FACE_CENTER, PIVOT,
                                      initial_angle=math.pi / 2))
    saved = all_poses(room)
    out = tmp_path / "saved.sdf"
    room.save(out, flatten=False)
    text = out.read_text()
    assert "<placement_frame>hour_hand.pivot</placement_frame>" in text
    assert f'relative_to="{FACE_CENTER}"' in text
    again = _load(out)
    joint = again.element("clock_hinge")
    assert isinstance(joint, Joint) and joint.type == "revolute"
    assert (joint.parent_name, joint.child_name) == ("clock_face::face", "hand::hour_hand")
    assert joint.axes[0].expressed_in == PIVOT
    reloaded = all_poses(again)
    assert reloaded.keys() == saved.keys()
    for key, X in saved.items():
        np.testing.assert_allclose(reloaded[key], X, atol=1e-12, err_msg=key)
    np.testing.assert_allclose(reloaded["hand::hour_hand"], X_W_HAND_90, atol=1e-12)


def test_prismatic_lock_and_ball_become_their_joints(room):
    # prismatic: 5 cm along the centre's main axis (world -y), not turned
    room.commands.push(AddMateBetween(room, "slide", "prismatic", FACE_CENTER, PIVOT,
                                      initial_position=0.05))
    np.testing.assert_allclose(
        pose(room, PIVOT), matrix((0, 0, 1), (-1, 0, 0), (0, -1, 0), (1, 1.96, 0.5)),
        atol=1e-12)
    joint = room.element("slide")
    assert joint.type == "prismatic" and joint.axes[0].xyz == (0.0, 0.0, 1.0)
    assert joint.axes[0].expressed_in == PIVOT
    room.commands.undo()
    for kind, joint_type in (("lock", "fixed"), ("ball", "ball"),
                             ("Physics3D.Interactions.Lock", "fixed")):
        room.commands.push(AddMateBetween(room, "m", kind, FACE_CENTER, PIVOT))
        np.testing.assert_allclose(pose(room, PIVOT), X_W_CENTER, atol=1e-12)
        joint = room.element("m")
        assert joint.type == joint_type and joint.axes == []
        room.commands.undo()
    hand = room.element("hand")
    assert (hand.placement_frame, hand.pose.relative_to) == ("", "")
    np.testing.assert_allclose(pose(room, "hand::hour_hand"),
                               matrix((1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 3)), atol=1e-12)


@pytest.mark.parametrize("kind, reason", [("cylindrical", "no SDFormat joint"),
                                          ("distance", "no SDFormat joint")])
def test_mates_sdformat_has_no_joint_for_are_refused(room, kind, reason):
    values = {"cylindrical": {"initial_angle": 0.5}, "distance": {"initial_distance": 0.1}}
    with pytest.raises(EditRefused, match=reason) as refused:
        AddMateBetween(room, "m", kind, FACE_CENTER, PIVOT, **values[kind])
    assert kind in str(refused.value)
    with pytest.raises(EditRefused, match=reason):
        MateIncludedParts(room, FACE_CENTER, PIVOT, kind)
    assert len(room.commands) == 0 and room.element("hand").placement_frame == ""


def test_refusals_say_why(room, tmp_path):
    # a hinge has no initial position (and a lock no angle)
    with pytest.raises(EditRefused, match="initial_position"):
        AddMateBetween(room, "m", "hinge", FACE_CENTER, PIVOT, initial_position=0.1)
    with pytest.raises(EditRefused, match="initial_angle"):
        MateIncludedParts(room, FACE_CENTER, PIVOT, "lock", initial_angle=0.3)
    # the placed part is the second connector's: the world cannot be placed
    with pytest.raises(EditRefused, match="swap"):
        MateIncludedParts(room, PIVOT, "world", "lock")
    # not a connector
    with pytest.raises(EditRefused, match="not a mate connector"):
        AddMateBetween(room, "m", "lock", FACE_CENTER, "hand::hour_hand")
    # placed on the face, the hand cannot then carry the face: a cycle
    room.commands.push(AddMateBetween(room, "m", "lock", FACE_CENTER, PIVOT))
    with pytest.raises(EditRefused, match="cycle"):
        AddMateBetween(room, "m2", "lock", PIVOT, FACE_CENTER)
    assert len(room.commands) == 1
    # joints in a world are SDFormat 1.10
    (tmp_path / "v19").mkdir()
    old = _load(write_room(tmp_path / "v19", "1.9"))
    with pytest.raises(EditRefused, match="1.10"):
        AddMateBetween(old, "m", "hinge", FACE_CENTER, PIVOT)
    assert len(old.commands) == 0 and old.element("hand").placement_frame == ""


def test_the_world_connector_places_a_part_in_the_world(room):
    # OpenPLX's world connector: the world frame (z up, x the normal); a lock puts the
    # face's centre on it
    room.commands.push(AddMateBetween(room, "", "lock", "world", FACE_CENTER))
    np.testing.assert_allclose(pose(room, FACE_CENTER), np.eye(4), atol=1e-12)
    joint = room.element("lock")
    assert (joint.type, joint.parent_name, joint.child_name) == \
        ("fixed", "world", "clock_face::face")


ASSEMBLY = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="a">
    <link name="base"/>
    <include><uri>file://clock.openplx</uri><name>c1</name></include>
    <include><uri>file://clock.openplx</uri><name>c2</name><pose>1 0 0 0 0 0</pose></include>
  </model>
</sdf>
"""


def test_two_includes_of_one_file_are_mated_to_each_other(tmp_path):
    # clock.openplx (resources/examples/openplx): the face F declared at z = 1.5, its
    # centre C as above (at (0, 0.01, 0) on it), the hand on it by a hinge at 90 degrees
    shutil.copy(EXAMPLES / "openplx" / "clock.openplx", tmp_path)
    (tmp_path / "a.sdf").write_text(ASSEMBLY)
    doc = _load(tmp_path / "a.sdf")
    with pytest.raises(EditRefused, match="own file"):
        AddMateBetween(doc, "m", "lock", "c1::face.center", "c1::hour_hand.pivot")
    doc.commands.push(AddMateBetween(doc, "m", "lock", "c1::face.center",
                                     "c2::hour_hand.pivot"))
    assert len(doc.commands) == 1
    X_center = matrix((0, 0, 1), (-1, 0, 0), (0, -1, 0), (0, 0.01, 1.5))
    np.testing.assert_allclose(pose(doc, "c1::face.center"), X_center, atol=1e-12)
    np.testing.assert_allclose(pose(doc, "c2::hour_hand.pivot"), X_center, atol=1e-12)
    # c2's pivot is its centre turned +90 degrees about the centre's z, so c2 as a whole
    # is turned -90 degrees about that axis (world -y) through the centre: its face is
    # turned +90 degrees about +y (x -> -z, z -> +x) and, on the axis, stays at (0, 0, 1.5)
    np.testing.assert_allclose(pose(doc, "c2::face"),
                               matrix((0, 0, -1), (0, 1, 0), (1, 0, 0), (0, 0, 1.5)),
                               atol=1e-12)
    joint = doc.element("m")
    assert (joint.type, joint.parent_name, joint.child_name) == \
        ("fixed", "c1::face", "c2::hour_hand")
    c2 = doc.element("c2")
    assert (c2.placement_frame, c2.pose.relative_to) == ("hour_hand.pivot", "c1::face.center")
    assert not doc.diagnostics.errors
    doc.commands.undo()
    np.testing.assert_allclose(pose(doc, "c2::face"),
                               matrix((1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1.5)), atol=1e-12)
