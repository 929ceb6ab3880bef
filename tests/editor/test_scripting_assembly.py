"""Assembling from a script: the Editor object's add_include, add_joint, add_mate, remove and
rename (run under Xvfb).  Each is one undo step and says why when it is refused; expected
poses come from the numbers in the bundled files."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore  # noqa: E402

from snapframe.core.model import Include, Joint, Mate  # noqa: E402
from snapframe.core.model.placing import JointSpec  # noqa: E402
from snapframe.core.pose import Pose  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")

#: arm.sdf: gripper_mount = upper_arm (0 0 0.1) * forearm (0 0 0.5) * (0 0 0.4, yaw pi/2).
X_ARM_MOUNT = Pose.from_xyz_rpy(0, 0, 1.0, 0, 0, math.pi / 2)
#: gripper.sdf: mount_point in the gripper's model frame.
X_GRIPPER_MOUNT_POINT = Pose.from_xyz_rpy(0, 0, -0.02, 0, 0, math.pi / 4)


@pytest.fixture
def ed(qtbot, tmp_path):
    from snapframe.editor import Editor
    settings = QtCore.QSettings(str(tmp_path / "settings.ini"),
                                QtCore.QSettings.Format.IniFormat)
    editor = Editor(show=False, settings=settings)
    yield editor
    editor.close()


def test_add_include_places_the_gripper_on_the_arm_in_one_undo_step(ed, example_copy):
    folder = example_copy("arm_gripper")
    doc = ed.open(folder / "arm.sdf")
    key = ed.add_include(folder / "gripper.sdf", placement_frame="mount_point",
                         relative_to="arm::gripper_mount", joint="weld")  # a scoped name
    assert key == "gripper"
    include = doc.element("gripper")
    assert isinstance(include, Include) and include.uri == "file://gripper.sdf"
    assert (include.placement_frame, include.pose.relative_to) == \
        ("mount_point", "gripper_mount")
    weld = doc.element("gripper_weld")
    assert (weld.type, weld.parent_name, weld.child_name) == \
        ("fixed", "gripper_mount", "gripper::mount_point")
    # the placement frame lands on the target: X_A_G = X_A_mount * X_G_mount_point^-1
    expected = (X_ARM_MOUNT @ X_GRIPPER_MOUNT_POINT.inverse()).matrix()
    np.testing.assert_allclose(ed.pose("gripper").matrix(), expected, atol=1e-12)
    assert len(doc.commands) == 1
    ed.undo()
    assert doc.element("gripper") is None and doc.element("gripper_weld") is None
    ed.redo()
    np.testing.assert_allclose(ed.pose("gripper").matrix(), expected, atol=1e-12)


def test_add_include_with_an_offset_and_a_joint_described_by_a_dict(ed, example_copy):
    folder = example_copy("arm_gripper")
    doc = ed.open(folder / "arm.sdf")
    key = ed.add_include("file://gripper.sdf", name="hand", placement_frame="mount_point",
                         relative_to="gripper_mount", pose=(0, 0, 0.05),
                         joint={"type": "revolute", "axis": (0, 0, 1), "limits": (-1, 1),
                                "name": "wrist"})
    assert key == "hand"
    wrist = doc.element("wrist")
    assert isinstance(wrist, Joint) and wrist.type == "revolute"
    assert (wrist.axes[0].lower, wrist.axes[0].upper) == (-1, 1)
    assert wrist.child_name == "hand::mount_point"
    # 5 cm out along the mount's z, then the part's own offset
    expected = X_ARM_MOUNT @ Pose.translation(0, 0, 0.05) @ X_GRIPPER_MOUNT_POINT.inverse()
    np.testing.assert_allclose(ed.pose("hand").matrix(), expected.matrix(), atol=1e-12)
    # a JointSpec works the same
    ed.add_include("file://gripper.sdf", name="hand2", relative_to="gripper_mount",
                   joint=JointSpec(type="prismatic", axis=(1, 0, 0), upper=0.1))
    assert doc.element("hand2_joint").type == "prismatic"
    assert len(doc.commands) == 2


def test_add_include_refusals_say_why_and_change_nothing(ed, example_copy):
    folder = example_copy("arm_gripper")
    doc = ed.open(folder / "arm.sdf")
    with pytest.raises(ValueError, match=r"placement frame \[palm\]"):
        ed.add_include(folder / "gripper.sdf", placement_frame="palm")
    with pytest.raises(ValueError, match=r"no frame to place on \[nowhere\]"):
        ed.add_include(folder / "gripper.sdf", relative_to="nowhere")
    with pytest.raises(ValueError, match="no file"):
        ed.add_include(folder / "missing.sdf")
    with pytest.raises(ValueError, match="already used"):
        ed.add_include(folder / "gripper.sdf", name="forearm")
    with pytest.raises(ValueError, match="unknown joint type"):
        ed.add_include(folder / "gripper.sdf", relative_to="gripper_mount", joint="hinge")
    with pytest.raises(ed.EditRefused):       # the same exception, for scripts
        ed.add_include(folder / "gripper.sdf", pose=(1, 2))
    assert len(doc.commands) == 0 and doc.element("gripper") is None


def test_add_joint_between_two_included_parts(ed, example_copy):
    doc = ed.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    key = ed.add_joint("spin", "revolute", "arm::forearm", "arm_and_gripper::gripper::body",
                       axis=(1, 0, 0), limits=(-0.5, 0.5))
    assert key == "spin"
    joint = doc.element("spin")
    assert (joint.parent_name, joint.child_name) == ("arm::forearm", "gripper::body")
    assert joint.axes[0].xyz == (1, 0, 0)
    assert (joint.axes[0].lower, joint.axes[0].upper) == (-0.5, 0.5)
    assert doc.live.joints.limits("spin") == pytest.approx((-0.5, 0.5))
    ed.undo()
    assert doc.element("spin") is None
    with pytest.raises(ValueError, match=r"no joint parent \[arm::wrist\]"):
        ed.add_joint("j", "fixed", "arm::wrist", "gripper::body")
    with pytest.raises(ValueError, match="collision"):
        ed.add_joint("j", "fixed", "arm::forearm", "gripper::body#collision:palm_collision")
    assert len(doc.commands) == 0


def test_add_mate_joins_connectors_and_snap_assembles_again(ed, example_copy):
    doc = ed.open(example_copy("openplx") / "clock.openplx")
    table = doc.live.poses
    written = table.pose("hour_hand").copy()          # SNAP's assembly of the file
    assert ed.remove("hand_hinge") == ["hand_hinge"]
    freed = table.pose("hour_hand").copy()
    assert not np.allclose(freed, written)
    # the file's mate again, by its connectors' keys: the hand goes back to three o'clock
    key = ed.add_mate("face.center", "hour_hand.pivot", "hinge", initial_angle=math.pi / 2)
    assert key == "hinge"
    mate = doc.element("hinge")
    assert isinstance(mate, Mate) and mate.connectors == ("face.center", "hour_hand.pivot")
    np.testing.assert_allclose(table.pose("hour_hand"), written, atol=1e-9)
    assert len(doc.commands) == 2
    ed.undo()
    np.testing.assert_allclose(table.pose("hour_hand"), freed, atol=1e-9)
    with pytest.raises(ValueError, match="not a mate connector"):
        ed.add_mate("face", "hour_hand.pivot", "lock")
    with pytest.raises(ValueError, match="unknown mate type"):
        ed.add_mate("face.center", "hour_hand.pivot", "glue")


def test_add_mate_takes_the_world_connector(ed, example_copy):
    doc = ed.open(example_copy("openplx") / "clock.openplx")
    ed.remove("hand_hinge")
    # OpenPLX's world connector sits at the top system's origin, main axis z, normal x:
    # locked to it, the hand's pivot frame is the system's frame
    key = ed.add_mate("world", "hour_hand.pivot", "lock")
    assert doc.element(key).connectors == ("world", "hour_hand.pivot")
    np.testing.assert_allclose(doc.live.poses.pose("hour_hand.pivot"), np.eye(4), atol=1e-9)
    with pytest.raises(ValueError, match="two different connectors"):
        ed.add_mate("world", "world", "lock")


def test_remove_refuses_what_others_depend_on_unless_asked(ed, example_copy):
    doc = ed.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    gripper = ed.pose("gripper").matrix()
    with pytest.raises(ValueError) as refused:
        ed.remove("arm_and_gripper::arm")
    # the weld names arm::gripper_mount as its parent, the gripper is placed relative to it
    assert "weld: joint parent [arm::gripper_mount]" in str(refused.value)
    assert "gripper: pose relative_to [arm::gripper_mount]" in str(refused.value)
    assert doc.element("arm") is not None and len(doc.commands) == 0
    assert ed.remove("arm", with_dependents=True) == ["arm", "weld"]
    assert doc.element("arm") is None and doc.element("weld") is None
    np.testing.assert_allclose(ed.pose("gripper").matrix(), gripper, atol=1e-12)   # kept
    assert len(doc.commands) == 1
    ed.undo()
    assert doc.element("arm") is not None and doc.element("weld") is not None
    with pytest.raises(ValueError, match="belongs to"):
        ed.remove("arm::forearm")                 # inside the included arm.sdf


def test_rename_updates_references_in_one_undo_step(ed, example_copy):
    doc = ed.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    assert ed.rename("gripper", "hand") == "hand"
    assert doc.element("weld").child_name == "hand::mount_point"
    assert "hand::mount_point" in doc.live.poses
    assert len(doc.commands) == 1
    ed.undo()
    assert doc.element("weld").child_name == "gripper::mount_point"
    with pytest.raises(ValueError, match="already used"):
        ed.rename("gripper", "arm")
    with pytest.raises(ValueError, match="::"):
        ed.rename("gripper", "a::b")
    with pytest.raises(ValueError, match=r"no element to rename \[hand\]"):
        ed.rename("hand", "claw")
    assert len(doc.commands) == 0
