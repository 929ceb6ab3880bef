"""The placement panel: the bundled gripper onto the bundled arm (run under Xvfb)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore, QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.core.loading import LoadContext, load  # noqa: E402
from snapframe.core.model import Joint  # noqa: E402
from snapframe.core.model.placing import flip_offset, rotate90_offset  # noqa: E402
from snapframe.core.pose import Pose  # noqa: E402
from snapframe.editor.assembling import PlacementPanel, drop_targets  # noqa: E402
from snapframe.editor.session import DocumentSession  # noqa: E402
from widget_actions import LEFT, show, type_into  # noqa: E402


CELL = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="arm_and_gripper">
    <include><uri>file://arm.sdf</uri></include>
  </model>
</sdf>
"""


@pytest.fixture
def folder(example_copy) -> Path:
    """A copy of the arm_gripper example with cell.sdf: the arm alone, to put the gripper
    on (named as arm_and_gripper.sdf's model so their keys can be compared)."""
    target = example_copy("arm_gripper")
    (target / "cell.sdf").write_text(CELL)
    return target


@pytest.fixture
def cell(qtbot, folder) -> DocumentSession:
    return DocumentSession.open(folder / "cell.sdf")


def test_lists_the_parts_frames_and_the_assemblys_targets(qtbot, cell, folder):
    panel = PlacementPanel(cell, folder / "gripper.sdf")
    show(qtbot, panel, 400, 640)
    combo = panel.frame_combo
    assert [combo.itemData(i) for i in range(combo.count())] == \
        ["", "body", "left_finger", "right_finger", "left_slide", "right_slide", "mount_point"]
    assert combo.itemText(6) == "mount_point  (frame)" and combo.itemText(0) == "(model frame)"
    assert panel.name_edit.text() == "gripper"
    targets = drop_targets(cell)
    assert [t.key for t in targets] == ["", "arm", "arm::body", "arm::upper_arm",
                                        "arm::forearm", "arm::shoulder", "arm::elbow",
                                        "arm::gripper_mount"]
    assert targets[0].label == "(model frame of arm_and_gripper)"
    assert panel.target_combo.labels() == [t.label for t in targets]
    assert [t.key for t in drop_targets(cell, ("frame",))] == ["arm::gripper_mount"]


def test_the_gripper_welded_onto_the_arm_is_where_arm_and_gripper_puts_it(qtbot, cell, folder):
    panel = PlacementPanel(cell, folder / "gripper.sdf")
    show(qtbot, panel, 400, 640)
    previews, placed = [], []
    panel.previewChanged.connect(previews.append)
    panel.placed.connect(placed.append)
    panel.frame_combo.setFocus()
    QTest.keyClicks(panel.frame_combo, "mount")
    assert panel.placement_frame == "mount_point"
    panel.set_target("arm::gripper_mount")            # as the viewport does on a click
    panel.connect_combo.setFocus()
    QTest.keyClicks(panel.connect_combo, "Weld")
    assert panel.connect_spec().type == "fixed"
    assert previews[-1].target == "arm::gripper_mount"
    assert previews[-1].placement_frame == "mount_point"
    ghost = previews[-1].model_pose
    QTest.mouseClick(panel.place_button, LEFT)

    document = cell.document
    assert placed == ["gripper"]
    assert len(document.commands) == 1 and document.commands.undo_label == \
        "Place gripper on arm::gripper_mount"
    assert cell.selection.active == "gripper"
    weld = document.element("gripper_weld")
    assert isinstance(weld, Joint) and weld.type == "fixed"
    assert (weld.parent_name, weld.child_name) == ("arm::gripper_mount", "gripper::mount_point")
    np.testing.assert_allclose(cell.live.poses.pose("gripper"), ghost, atol=1e-12)

    document.save(flatten=False)
    saved = load(folder / "cell.sdf", LoadContext(use_environment=False))
    reference = load(folder / "arm_and_gripper.sdf", LoadContext(use_environment=False))
    assert not saved.diagnostics.errors
    keys = [k for k in reference.live.poses.keys if k.startswith(("gripper", "arm"))]
    assert "gripper::mount_point" in keys
    for key in keys:
        np.testing.assert_allclose(saved.live.poses.pose(key), reference.live.poses.pose(key),
                                   atol=1e-12, err_msg=key)
    # gripper = gripper_mount * X_GCg^-1 = (0, 0, 1.02) turned pi/4 about z
    X = saved.live.poses.pose("gripper")
    np.testing.assert_allclose(X[:3, 3], [0, 0, 1.02], atol=1e-12)
    assert math.atan2(X[1, 0], X[0, 0]) == pytest.approx(math.pi / 4)

    cell.undo()
    assert document.element("gripper") is None and document.element("gripper_weld") is None


def test_target_typed_offset_typed_flip_and_rotate(qtbot, cell, folder):
    panel = PlacementPanel(cell, folder / "gripper.sdf")
    show(qtbot, panel, 400, 640)
    type_into(panel.target_combo, "arm::forearm")
    assert panel.target == "arm::forearm"
    type_into(panel.offset_fields["z"], "0.1")
    assert panel.offset.p == pytest.approx((0, 0, 0.1))
    QTest.mouseClick(panel.flip_button, LEFT)          # about x, chosen by default
    assert panel.offset.almost_equal(Pose.translation(0, 0, 0.1) @ flip_offset("x"))
    assert panel.offset_fields["roll"].text() == "180.00"
    assert panel.offset_fields["z"].text() == "0.1000"   # turned in place
    QTest.mouseClick(panel.axis_buttons["z"], LEFT)
    QTest.mouseClick(panel.rotate_button, LEFT)
    assert panel.offset.almost_equal(Pose.translation(0, 0, 0.1) @ flip_offset("x")
                                     @ rotate90_offset("z"))
    QTest.mouseClick(panel.zero_button, LEFT)
    assert panel.offset.is_identity()


def test_a_revolute_joint_with_limits_typed_in_degrees(qtbot, cell, folder):
    panel = PlacementPanel(cell, folder / "gripper.sdf")
    show(qtbot, panel, 400, 640)
    panel.set_placement_frame("mount_point")
    panel.set_target("arm::gripper_mount")
    panel.set_connect("revolute")
    assert panel.limits_row.isVisible() and panel.axis_row.isVisible()
    type_into(panel.lower, "-45")
    type_into(panel.upper, "45")
    type_into(panel.joint_name, "wrist")
    assert panel.place() == "gripper"
    joint = cell.document.element("wrist")
    assert joint.type == "revolute"
    assert (joint.axes[0].lower, joint.axes[0].upper) == \
        pytest.approx((-math.pi / 4, math.pi / 4))
    assert cell.live.joints.limits("wrist") == pytest.approx((-math.pi / 4, math.pi / 4))
    assert panel.name_edit.text() == "gripper_2"      # a second one would need a new name


def test_refusals_are_shown_in_the_panel_and_change_nothing(qtbot, cell, folder):
    panel = PlacementPanel(cell, folder / "gripper.sdf")
    show(qtbot, panel, 400, 640)
    type_into(panel.name_edit, "arm")
    assert "already used" in panel.note.text() and panel.note.isVisible()   # as typed
    assert not panel.place_button.isEnabled()
    assert panel.place() is None                     # and the core refuses it too
    assert "already used" in panel.note.text()
    assert len(cell.document.commands) == 0
    type_into(panel.name_edit, "gripper")
    panel.set_connect("weld")                          # a weld needs a target frame
    QTest.mouseClick(panel.place_button, LEFT)
    assert "target frame" in panel.note.text()
    assert len(cell.document.commands) == 0
    panel.set_target("arm::gripper_mount")
    assert not panel.note.isVisible()                  # the refusal was about the old choice


def test_a_part_that_cannot_be_read_disables_place(qtbot, cell, folder):
    (folder / "broken.sdf").write_text("<sdf version='1.9'><model name=")
    panel = PlacementPanel(cell, folder / "broken.sdf")
    show(qtbot, panel, 400, 640)
    assert not panel.place_button.isEnabled()
    assert panel.note.text().startswith("cannot read broken.sdf")


def test_openplx_documents_offer_no_drop_targets(qtbot, example_copy):
    s = DocumentSession.open(example_copy("openplx") / "clock.openplx")
    assert drop_targets(s) == []
