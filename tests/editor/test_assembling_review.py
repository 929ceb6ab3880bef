"""Review of "Assembling in the editor" (window and scripting, under Xvfb): a part that
would make the assembly include itself is refused, bad script arguments raise
``ValueError`` instead of passing silently or crashing, the placement gesture follows
undo and redo, and panels forget what an undo removed.

Expected poses come from the numbers written in resources/examples/arm_gripper."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore  # noqa: E402

from snapframe.core.model.edits import SetPose  # noqa: E402
from snapframe.core.pose import Pose  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_assembling_window import (drop, file_mime, open_doc, settings,  # noqa: E402,F401
                                    triad_pose, window)

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")

#: arm.sdf: gripper_mount = upper_arm (0 0 0.1) * forearm (0 0 0.5) * (0 0 0.4, yaw pi/2).
X_ARM_MOUNT = Pose.from_xyz_rpy(0, 0, 1.0, 0, 0, math.pi / 2)


@pytest.fixture
def ed(qtbot, tmp_path):
    from snapframe.editor import Editor
    s = QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    editor = Editor(show=False, settings=s)
    yield editor
    for session in editor.window.sessions():
        session.document.commands.set_clean()
    editor.close()


# -- an assembly that would include itself ----------------------------------------------

def test_a_script_cannot_make_the_document_include_itself(ed, example_copy):
    folder = example_copy("arm_gripper")
    doc = ed.open(folder / "arm.sdf")
    with pytest.raises(ValueError, match="include itself"):
        ed.add_include(folder / "arm.sdf")                    # the document's own file
    # arm_and_gripper.sdf includes arm.sdf: arm.sdf would include itself through it
    with pytest.raises(ValueError, match="include itself"):
        ed.add_include(folder / "arm_and_gripper.sdf")
    assert len(doc.commands) == 0
    assert [e.name for e in doc.root.entities if e.kind == "include"] == []
    # another part is placed as before
    assert ed.add_include(folder / "gripper.sdf") == "gripper"


def test_a_dropped_part_that_includes_the_document_is_not_placed(qtbot, window,
                                                                  example_copy):
    folder = example_copy("arm_gripper")
    session, view = open_doc(qtbot, window, folder / "arm.sdf")
    drop(view.widget, file_mime(folder / "arm_and_gripper.sdf"), QtCore.QPoint(20, 60))
    qtbot.waitUntil(lambda: "arm_and_gripper.sdf" in window.statusBar().currentMessage())
    assert "include itself" in window.statusBar().currentMessage()
    assert window.placement is None and not view.picking and not view.ghost.visible
    assert window.tabs.count() == 1 and len(session.document.commands) == 0


def test_the_document_dropped_on_itself_says_why_it_is_not_placed(qtbot, window,
                                                                   example_copy):
    folder = example_copy("arm_gripper")
    session, view = open_doc(qtbot, window, folder / "arm.sdf")
    drop(view.widget, file_mime(folder / "arm.sdf"), QtCore.QPoint(20, 60))
    qtbot.waitUntil(lambda: "itself" in window.statusBar().currentMessage())
    assert "arm.sdf cannot be placed in itself" in window.statusBar().currentMessage()
    assert window.placement is None and window.tabs.count() == 1
    assert len(session.document.commands) == 0


# -- script arguments -------------------------------------------------------------------

def test_add_joint_refuses_limits_that_are_not_a_pair_of_finite_numbers(ed, example_copy):
    doc = ed.open(example_copy("arm_gripper") / "arm.sdf")
    for limits in ((math.nan, 1.0), ("a", 1.0), (1.0, 2.0, 3.0), 5.0):
        with pytest.raises(ValueError, match="limit"):
            ed.add_joint("j", "revolute", "upper_arm", "forearm", limits=limits)
    with pytest.raises(ValueError, match="no limits"):
        ed.add_joint("j", "fixed", "upper_arm", "forearm", limits=(-1, 1))
    with pytest.raises(ValueError, match="limit"):
        ed.add_include(example_copy("arm_gripper") / "gripper.sdf",
                       relative_to="gripper_mount",
                       joint={"type": "revolute", "limits": (1, 2, 3)})
    assert len(doc.commands) == 0 and doc.element("j") is None


def test_add_mate_refuses_a_value_its_type_cannot_keep(ed, example_copy):
    doc = ed.open(example_copy("openplx") / "clock.openplx")
    ed.remove("hand_hinge")
    with pytest.raises(ValueError, match="initial_angle"):
        ed.add_mate("face.center", "hour_hand.pivot", "lock", initial_angle=1.0)
    assert len(doc.commands) == 1 and doc.element("lock") is None


def test_renaming_to_the_same_name_is_no_undo_step(ed, example_copy):
    doc = ed.open(example_copy("arm_gripper") / "arm.sdf")
    assert ed.rename("forearm", "forearm") == "forearm"
    assert len(doc.commands) == 0
    with pytest.raises(ValueError, match="::"):
        ed.rename("forearm", "a::b")


# -- the placement gesture and undo -----------------------------------------------------

def test_the_placement_follows_an_undo_that_removes_or_moves_its_target(qtbot, window,
                                                                         example_copy):
    from snapframe.core.model.edits import AddFrame
    folder = example_copy("arm_gripper")
    session, view = open_doc(qtbot, window, folder / "arm.sdf")
    doc = session.document
    doc.commands.push(AddFrame(doc, doc.root, "spot", attached_to="forearm"))
    panel = window.start_placement(folder / "gripper.sdf", "spot")
    panel.set_placement_frame("mount_point")
    assert panel.target == "spot" and view.ghost.visible

    doc.commands.undo()                                   # the frame goes
    assert doc.element("spot") is None
    assert panel.target == ""                             # not a target that is gone
    assert "spot" not in [panel.target_combo.value_at(i)
                          for i in range(panel.target_combo.count())]
    # the ghost on the root frame: the mount point at the arm's model frame
    np.testing.assert_allclose(triad_pose(view.ghost.placement, "mount_point"), np.eye(4),
                               atol=1e-9)
    doc.commands.redo()
    assert "spot" in [panel.target_combo.value_at(i) for i in range(panel.target_combo.count())]

    # the target moves (an edit or an undo): the ghost goes with it
    panel.set_target("gripper_mount")
    np.testing.assert_allclose(triad_pose(view.ghost.placement, "mount_point"),
                               X_ARM_MOUNT.matrix(), atol=1e-9)
    doc.commands.push(SetPose(doc, doc.element("gripper_mount"), Pose.translation(0, 0, 0.3)))
    # forearm at (0, 0, 0.6) (arm.sdf), the mount 0.3 above it, unturned
    np.testing.assert_allclose(triad_pose(view.ghost.placement, "mount_point"),
                               Pose.translation(0, 0, 0.9).matrix(), atol=1e-9)
    doc.commands.undo()
    np.testing.assert_allclose(triad_pose(view.ghost.placement, "mount_point"),
                               X_ARM_MOUNT.matrix(), atol=1e-9)
    key = panel.place()
    assert key == "gripper" and window.placement is None
    assert "on gripper_mount" in window.statusBar().currentMessage()


def test_the_placement_target_follows_a_rename(qtbot, window, example_copy):
    from snapframe.core.model.edits import Rename
    folder = example_copy("arm_gripper")
    session, view = open_doc(qtbot, window, folder / "arm.sdf")
    doc = session.document
    panel = window.start_placement(folder / "gripper.sdf", "gripper_mount")
    doc.commands.push(Rename(doc, doc.element("gripper_mount"), "wrist"))
    assert panel.target == "wrist"
    np.testing.assert_allclose(triad_pose(view.ghost.placement, ""), X_ARM_MOUNT.matrix(),
                               atol=1e-9)
    doc.commands.undo()
    assert panel.target == "gripper_mount"
    assert panel.place() == "gripper"
    assert doc.element("gripper").pose.relative_to == "gripper_mount"


def test_the_placement_name_is_checked_again_after_an_undo(qtbot, window, example_copy):
    from snapframe.core.model.edits import AddFrame
    folder = example_copy("arm_gripper")
    session, view = open_doc(qtbot, window, folder / "arm.sdf")
    doc = session.document
    doc.commands.push(AddFrame(doc, doc.root, "gripper", attached_to="forearm"))
    panel = window.start_placement(folder / "gripper.sdf", "gripper_mount")
    assert panel.name_edit.text() == "gripper_2"
    panel.name_edit.setText("gripper")                 # taken by the frame
    assert not panel.place_button.isEnabled()
    doc.commands.undo()                                # the frame goes: the name is free
    assert panel.place_button.isEnabled()
    doc.commands.redo()
    assert not panel.place_button.isEnabled()


# -- panels after an undo, messages --------------------------------------------------------

def test_the_new_mate_section_forgets_the_axes_of_connectors_an_edit_removed(
        qtbot, example_copy):
    from snapframe.core.model.edits import RemoveNode
    from snapframe.core.model.references import RemoveWithDependents
    from snapframe.editor.assembling import SnapPanel
    from snapframe.editor.session import DocumentSession
    session = DocumentSession.open(example_copy("openplx") / "clock.openplx")
    panel = SnapPanel(session)
    qtbot.addWidget(panel)
    panel.show()
    creator = panel.creator
    creator.choose(0, "face.center")
    creator.choose(1, "hour_hand.pivot")
    # face.center: main axis (0, -1, 0), normal (0, 0, 1) on the unturned face
    assert "0: main (0, −1, 0) · normal (0, 0, 1)" in creator.axes.text()
    doc = session.document
    doc.commands.push(RemoveWithDependents(doc, doc.element("face.center")))
    doc.commands.push(RemoveNode(doc, doc.element("hour_hand.pivot")))
    qtbot.wait(20)
    assert creator.chosen() == ("", "")
    assert creator.axes.text() == "" and not creator.axes.isVisible()


def test_chosen_joint_ends_and_connectors_follow_a_rename(qtbot, example_copy):
    from snapframe.core.model.edits import Rename
    from snapframe.editor.assembling import AddJointPanel, SnapPanel
    from snapframe.editor.session import DocumentSession
    arm = DocumentSession.open(example_copy("arm_gripper") / "arm.sdf")
    joints = AddJointPanel(arm)
    qtbot.addWidget(joints)
    assert joints.set_end("parent", "upper_arm") and joints.set_end("child", "forearm")
    doc = arm.document
    doc.commands.push(Rename(doc, doc.element("upper_arm"), "upper"))
    assert (joints.parent_key, joints.child_key) == ("upper", "forearm")
    doc.commands.undo()
    assert joints.parent_key == "upper_arm"

    clock = DocumentSession.open(example_copy("openplx") / "clock.openplx")
    panel = SnapPanel(clock)
    qtbot.addWidget(panel)
    panel.creator.choose(0, "face.center")
    panel.creator.choose(1, "hour_hand.pivot")
    doc = clock.document
    doc.commands.push(Rename(doc, doc.element("face.center"), "face.middle"))
    assert panel.creator.chosen() == ("face.middle", "hour_hand.pivot")


def test_deleting_the_top_model_names_it(qtbot, window, example_copy):
    session, _view = open_doc(qtbot, window, example_copy("arm_gripper") /
                              "arm_and_gripper.sdf")
    session.selection.select([""])
    window.delete_selected()
    message = window.statusBar().currentMessage()
    assert "Not deleted: (top) (" in message and "root cannot be removed" in message
    assert len(session.document.commands) == 0
