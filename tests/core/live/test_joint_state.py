"""Joint positions (joint sliders): an overlay on the live pose table that moves a joint's
child side about or along its axis without changing the document, clamps to limits,
refuses loops, resets on any edit, and bakes into one undoable command whose saved file
libsdformat reads with the same poses."""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest

from assembly_checks import EXAMPLES, assert_poses, oracle_poses
from live_checks import Recorder, check_step, reference_poses

from snapframe.core.loading import LoadContext, load
from snapframe.core.model.edits import AddJoint, EditRefused, SetPose
from snapframe.core.pose import Pose

# Two links on revolute joints.  j1's axis is the model's y axis (expressed_in
# __model__), not its joint frame's (l1 is turned a quarter about z, so the joint frame's
# y is the model's -x): a wrong reading of expressed_in moves l2 elsewhere.
TWO_LINK = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="two_link">
    <link name="base"/>
    <link name="l1">
      <pose>0 0 0.5 0 0 1.5707963267948966</pose>
      <visual name="v"><geometry><box><size>0.1 0.1 0.1</size></box></geometry></visual>
    </link>
    <link name="l2">
      <pose>0.4 0 0.5 0 0 0</pose>
      <collision name="c"><geometry><sphere><radius>0.05</radius></sphere></geometry></collision>
    </link>
    <joint name="j1" type="revolute">
      <parent>base</parent><child>l1</child>
      <axis><xyz expressed_in="__model__">0 1 0</xyz>
        <limit><lower>-1.5</lower><upper>2</upper></limit></axis>
    </joint>
    <joint name="j2" type="revolute">
      <parent>l1</parent><child>l2</child>
      <axis><xyz>0 0 1</xyz></axis>
    </joint>
    <frame name="tip" attached_to="l2"><pose>0.3 0 0 0 0 0</pose></frame>
    <frame name="marker"><pose relative_to="l2">0 0 0.2 0 0 0</pose></frame>
  </model>
</sdf>
"""
MOVED_BY_J1 = {"l1", "l1#visual:v", "j1", "l2", "l2#collision:c", "j2", "tip"}


@pytest.fixture
def two_link(tmp_path):
    path = tmp_path / "two_link.sdf"
    path.write_text(TWO_LINK)
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.errors, [str(d) for d in doc.diagnostics.errors]
    return doc, tmp_path


class Viewport:
    """What a view shows: the table when it connected, then every poses_changed."""

    def __init__(self, live) -> None:
        self.shown = live.poses.as_dict()
        self.events = []
        live.poses_changed.connect(self.moved)

    def moved(self, event) -> None:
        self.events.append(event)
        self.shown.update(event.as_dict())


def _rotation_about(axis_point, axis, angle) -> np.ndarray:
    """The motion turning by ``angle`` about the line through ``axis_point`` along ``axis``
    (Rodrigues), as a 4x4 matrix: the hand-derived reference."""
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    R = np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K
    M = np.eye(4)
    M[:3, :3] = R
    M[:3, 3] = np.asarray(axis_point) - R @ np.asarray(axis_point)
    return M


def test_rotating_a_joint_moves_its_child_side_about_its_axis(two_link):
    doc, _ = two_link
    live = doc.live
    written = live.poses.as_dict()
    view = Viewport(live)
    move = live.joints.set_position("j1", math.pi / 2)
    assert not move.clamped and move.value == pytest.approx(math.pi / 2)
    # exactly the child side moved, in one event
    assert len(view.events) == 1 and set(view.events[0].keys) == MOVED_BY_J1
    # about the model's y axis through the joint (at l1's origin, (0, 0, 0.5))
    M = _rotation_about((0, 0, 0.5), (0, 1, 0), math.pi / 2)
    for key in MOVED_BY_J1:
        assert np.allclose(live.poses.pose(key), M @ written[key], atol=1e-12), key
    assert np.allclose(live.poses.pose("l2")[:3, 3], (0, 0, 0.1), atol=1e-12)
    assert np.allclose(live.poses.pose("tip")[:3, 3], (0, 0, -0.2), atol=1e-12)
    # a frame attached to the model frame (the canonical link, base) does not move,
    # even though its pose is written relative to l2
    assert np.allclose(live.poses.pose("marker"), written["marker"])
    # the document did not change: a fresh frame graph still gives the written poses
    assert len(doc.commands) == 0 and doc.commands.is_clean
    assert_poses(written, reference_poses(doc), atol=1e-12)
    assert_poses(live.poses.as_dict(), view.shown, atol=0)

    # the inner joint turns about its own axis, carried by the outer one
    live.joints.set_position("j2", math.pi / 2)
    assert set(view.events[-1].keys) == {"l2", "l2#collision:c", "j2", "tip"}
    assert np.allclose(live.poses.pose("tip")[:3, 3], (0, 0.3, 0.1), atol=1e-12)
    live.joints.set_position("j1", 0.0)
    assert np.allclose(live.poses.pose("tip")[:3, 3], (0.4, 0.3, 0.5), atol=1e-12)
    assert live.joints.positions == {"j2": pytest.approx(math.pi / 2)}
    live.joints.reset()
    assert live.joints.positions == {}
    assert_poses(written, live.poses.as_dict(), atol=1e-12)
    assert_poses(live.poses.as_dict(), view.shown, atol=0)


def test_limits_clamp_and_what_cannot_move_is_refused(two_link):
    doc, _ = two_link
    joints = doc.live.joints
    assert sorted(joints.joint_keys()) == ["j1", "j2"]
    assert joints.limits("j1") == (-1.5, 2.0)
    assert joints.limits("j2") == (None, None)       # no <limit>: SDFormat's unlimited
    high = joints.set_position("j1", 3.0)
    assert (high.clamped, high.value, high.requested) == (True, 2.0, 3.0)
    assert "upper limit" in high.message
    low = joints.set_position("j1", -7)
    assert (low.clamped, low.value) == (True, -1.5) and "lower limit" in low.message
    free = joints.set_position("j2", 12.0)
    assert not free.clamped and free.message == ""
    for bad in ("nothing", "tip"):
        with pytest.raises(EditRefused):
            joints.set_position(bad, 0.1)
    with pytest.raises(EditRefused):
        joints.set_position("j1", math.nan)
    doc.commands.push(AddJoint(doc, doc.root, "weld", "fixed", "base", "tip"))
    with pytest.raises(EditRefused, match="only revolute"):
        joints.set_position("weld", 0.1)
    # the weld closes a loop base -> l1 -> l2 -> base: neither joint can move
    for key in ("j1", "j2"):
        with pytest.raises(EditRefused, match="kinematic loop"):
            joints.set_position(key, 0.1)
    doc.commands.undo()
    doc.commands.push(AddJoint(doc, doc.root, "ground", "fixed", "world", "l2"))
    with pytest.raises(EditRefused, match="held by the world"):
        joints.set_position("j2", 0.1)
    assert joints.positions == {}


def test_prismatic_and_continuous_joints(tmp_path):
    path = tmp_path / "slide.sdf"
    path.write_text("""<?xml version="1.0"?>
<sdf version="1.9"><model name="m"><link name="a"/>
  <link name="b"><pose>0 0 0 0 0 0.5</pose></link>
  <link name="c"><pose>1 0 0 0 0 0</pose></link>
  <joint name="slide" type="prismatic"><parent>a</parent><child>b</child>
    <axis><xyz>1 0 0</xyz><limit><lower>0</lower><upper>0.3</upper></limit></axis></joint>
  <joint name="spin" type="continuous"><parent>b</parent><child>c</child>
    <axis><xyz>0 0 1</xyz><limit><lower>-0.1</lower><upper>0.1</upper></limit></axis></joint>
</model></sdf>""")
    doc = load(path, LoadContext(use_environment=False))
    joints = doc.live.joints
    b0, c0 = doc.live.poses.pose("b"), doc.live.poses.pose("c")
    move = joints.set_position("slide", 0.5)
    assert move.value == 0.3
    # along b's x axis (the joint frame is the child's), turned 0.5 rad about z
    shift = 0.3 * np.array([math.cos(0.5), math.sin(0.5), 0.0])
    assert np.allclose(doc.live.poses.pose("b")[:3, 3], b0[:3, 3] + shift, atol=1e-12)
    assert np.allclose(doc.live.poses.pose("c")[:3, 3], c0[:3, 3] + shift, atol=1e-12)
    # a continuous joint ignores limits
    spin = joints.set_position("spin", 10.0)
    assert not spin.clamped and joints.limits("spin") == (None, None)


def test_an_edit_puts_the_written_poses_back_first(two_link):
    doc, tmp = two_link
    live = doc.live
    view = Viewport(live)
    changes = []
    live.joints.changed.connect(changes.append)
    live.joints.set_position("j1", 1.0)
    rec = Recorder(live)
    for act in (lambda: doc.commands.push(SetPose(doc, doc.element("marker"),
                                                  Pose.from_xyz_rpy(0, 0, 0.3), "l2")),
                doc.commands.undo):
        shown = dict(view.shown)
        rec.clear()
        act()
        # one event, with exactly the keys whose shown pose changed: the displaced ones
        # going back and what the edit moved
        after = reference_poses(doc)
        assert len(rec.edited) == 1 and len(rec.poses) == 1
        assert set(rec.moved()) == {k for k in after
                                    if np.abs(after[k][:3] - shown[k][:3]).max() > 1e-9}
        assert live.joints.positions == {} and changes[-1].positions == {}
        assert_poses(after, live.poses.as_dict(), atol=1e-12)
        assert_poses(live.poses.as_dict(), view.shown, atol=1e-12)
        live.joints.set_position("j2", 0.5)
    # with nothing displaced, an edit is checked as any edit
    live.joints.reset()
    check_step(doc, rec, doc.commands.redo, tmp / "saved.sdf")


def test_bake_writes_the_positions_as_one_undoable_step(two_link):
    doc, tmp = two_link
    live = doc.live
    joints = live.joints
    with pytest.raises(EditRefused, match="nothing"):
        joints.bake()
    joints.set_positions({"j1": 0.7, "j2": -0.4})
    displaced = live.poses.as_dict()
    bake = joints.bake()
    rec = Recorder(live)
    save_as = tmp / "saved.sdf"
    view = Viewport(live)
    check_step(doc, rec, lambda: doc.commands.push(bake), save_as)
    assert len(doc.commands) == 1 and joints.positions == {}
    # the written poses are the displaced ones; nothing moved for the view
    assert_poses(displaced, reference_poses(doc), atol=1e-12)
    assert_poses(displaced, view.shown, atol=1e-12)
    # poses stay written relative to what they were written in
    assert doc.element("l2").pose.relative_to == ""
    # the marker is attached to base (it did not move) but written relative to l2
    assert doc.element("marker").pose.relative_to == "l2"
    assert not doc.element("marker").pose.value.almost_equal(Pose.from_xyz_rpy(0, 0, 0.2))
    assert doc.element("j2").pose.written is False     # still at its child: not written
    # limits keep the joint's physical range
    axis = doc.element("j1").axes[0]
    assert (axis.lower, axis.upper) == (pytest.approx(-2.2), pytest.approx(1.3))

    # saved: a fresh load and libsdformat give the same poses
    out = tmp / "baked.sdf"
    doc.save(out, flatten=False)
    fresh = load(out, LoadContext(use_environment=False))
    assert not fresh.diagnostics.errors
    assert_poses(displaced, reference_poses(fresh), atol=1e-12)
    libsdf = oracle_poses(out)
    assert_poses(libsdf, displaced, [k for k in libsdf if k], atol=1e-9)

    check_step(doc, rec, doc.commands.undo, save_as)
    assert doc.element("l1").pose.value.almost_equal(
        Pose.from_xyz_rpy(0, 0, 0.5, 0, 0, math.pi / 2), 0)
    check_step(doc, rec, doc.commands.redo, save_as)
    assert_poses(displaced, live.poses.as_dict(), atol=1e-12)
    keep = joints.set_position("j1", 0.3)
    assert not keep.clamped
    assert joints.bake(shift_limits=False).commands[-1].label.startswith("Move")


def test_joints_of_included_files_move_the_assembly_but_bake_only_there(tmp_path):
    folder = tmp_path / "arm_gripper"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    doc = load(folder / "arm_and_gripper.sdf", LoadContext(use_environment=False))
    live = doc.live
    written = live.poses.as_dict()
    joints = live.joints
    assert {"arm::shoulder", "arm::elbow", "gripper::left_slide"} <= set(joints.joint_keys())
    moving = set(joints.moving_keys("arm::elbow"))
    # the welded gripper is on the elbow's child side, the upper arm is not
    assert {"arm::forearm", "arm::gripper_mount", "gripper", "gripper::body",
            "gripper::left_finger", "weld"} <= moving
    assert not moving & {"arm::upper_arm", "arm::body", "arm", ""}
    joints.set_position("arm::elbow", 1.0)
    elbow = written["arm::elbow"]
    M = _rotation_about(elbow[:3, 3], elbow[:3, :3] @ (0, 1, 0), 1.0)
    for key in moving:
        assert np.allclose(live.poses.pose(key), M @ written[key], atol=1e-12), key
    # a finger slides along the gripper's -y, carried by the elbow
    joints.set_position("gripper::left_slide", 0.02)
    finger = M @ written["gripper::left_finger"]
    expected = finger[:3, 3] + finger[:3, :3] @ (0, -0.02, 0)
    assert np.allclose(live.poses.pose("gripper::left_finger")[:3, 3], expected, atol=1e-12)
    with pytest.raises(EditRefused, match="included file"):
        joints.bake()
    joints.reset()
    assert_poses(written, live.poses.as_dict(), atol=1e-12)


def test_a_joint_that_stands_for_a_mate_moves_but_bakes_into_the_mate(tmp_path):
    path = tmp_path / "clock.openplx"
    shutil.copy(EXAMPLES / "openplx" / "clock.openplx", path)
    doc = load(path, LoadContext(use_environment=False))
    joints = doc.live.joints
    written = doc.live.poses.pose("hour_hand")
    joints.set_position("hand_hinge", 0.5)
    assert not np.allclose(doc.live.poses.pose("hour_hand"), written)
    with pytest.raises(EditRefused, match="initial_angle"):
        joints.bake()
    joints.reset()
    assert np.allclose(doc.live.poses.pose("hour_hand"), written, atol=1e-12)


def test_bake_writes_a_pose_for_an_include_that_had_none(tmp_path):
    """A part welded to a moved link moves with it; an include without <pose> gets one."""
    folder = tmp_path / "arm_gripper"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    path = folder / "cell.sdf"
    path.write_text("""<?xml version="1.0"?>
<sdf version="1.9"><model name="cell">
  <link name="base"/>
  <link name="boom"><pose>0 0 0.5 0 0 0</pose></link>
  <joint name="swing" type="revolute"><parent>base</parent><child>boom</child>
    <axis><xyz>0 0 1</xyz></axis></joint>
  <include><uri>file://gripper.sdf</uri></include>
  <joint name="hold" type="fixed"><parent>boom</parent><child>gripper::body</child></joint>
</model></sdf>""")
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.errors
    assert doc.element("gripper").pose is None
    joints = doc.live.joints
    assert "gripper::left_finger" in joints.moving_keys("swing")
    joints.set_position("swing", 0.8)
    displaced = doc.live.poses.as_dict()
    rec = Recorder(doc.live)
    check_step(doc, rec, lambda: doc.commands.push(joints.bake()), folder / "saved.sdf")
    assert doc.element("gripper").pose is not None
    assert_poses(displaced, doc.live.poses.as_dict(), atol=1e-12)
    doc.save(flatten=False)
    libsdf = oracle_poses(path)
    assert_poses(libsdf, displaced, [k for k in libsdf if k], atol=1e-9)
    check_step(doc, rec, doc.commands.undo, folder / "saved.sdf")
    assert doc.element("gripper").pose is None
