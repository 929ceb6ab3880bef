"""The joint sliders panel, driven with the mouse and the keyboard (run under Xvfb)."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.core.model.edits import RemoveNode  # noqa: E402
from snapframe.editor.assembling import JointSlidersPanel  # noqa: E402
from snapframe.editor.session import DocumentSession  # noqa: E402
from widget_actions import LEFT, NONE, show, type_into  # noqa: E402


def drag_slider(slider: QtWidgets.QSlider, fraction: float) -> None:
    """Press on the handle and drag it to ``fraction`` of the groove, as a hand would
    (QTest.mouseMove carries no button, so the moves are sent as events)."""
    option = QtWidgets.QStyleOptionSlider()
    slider.initStyleOption(option)
    handle = slider.style().subControlRect(QtWidgets.QStyle.ComplexControl.CC_Slider, option,
                                           QtWidgets.QStyle.SubControl.SC_SliderHandle, slider)
    start = handle.center()
    end = QtCore.QPoint(int(slider.width() * fraction), start.y())
    QTest.mousePress(slider, LEFT, NONE, start)
    for i in range(1, 11):
        x = start.x() + (end.x() - start.x()) * i / 10
        pos = QtCore.QPointF(x, start.y())
        event = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, pos,
                                  QtCore.QPointF(slider.mapToGlobal(pos.toPoint())),
                                  QtCore.Qt.MouseButton.NoButton, LEFT, NONE)
        QtWidgets.QApplication.sendEvent(slider, event)
    QTest.mouseRelease(slider, LEFT, NONE, end)


def rot_y(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


@pytest.fixture
def arm(qtbot, example_copy):
    """The bundled arm on its own: its joints belong to the document (they can be baked)."""
    return DocumentSession.open(example_copy("arm_gripper") / "arm.sdf")


def test_one_row_per_movable_joint_with_limits_in_degrees_and_metres(qtbot, session):
    panel = JointSlidersPanel(session)
    show(qtbot, panel)
    assert list(panel.rows) == ["arm::shoulder", "arm::elbow", "gripper::left_slide",
                                "gripper::right_slide"]
    shoulder, slide = panel.rows["arm::shoulder"], panel.rows["gripper::left_slide"]
    assert shoulder.kind.text() == "revolute" and shoulder.unit.text() == "°"
    assert (shoulder.low.text(), shoulder.high.text()) == ("−90.0°", "90.0°")
    assert slide.unit.text() == "m" and (slide.low.text(), slide.high.text()) == \
        ("0.000 m", "0.040 m")
    assert not panel.save_button.isEnabled() and not panel.reset_button.isEnabled()


def test_page_up_on_the_shoulder_turns_the_arm_by_15_degrees(qtbot, arm):
    panel = JointSlidersPanel(arm)
    show(qtbot, panel)
    before = {k: arm.live.poses.pose(k).copy() for k in ("upper_arm", "forearm", "body")}
    row = panel.rows["shoulder"]
    QTest.keyClick(row.slider, QtCore.Qt.Key.Key_PageUp)
    theta = math.radians(15)
    assert arm.live.joints.position("shoulder") == pytest.approx(theta)
    assert row.field.text() == "15.0"
    # the joint frame is the upper arm's frame at (0, 0, 0.1): a turn about its y axis
    upper = arm.live.poses.pose("upper_arm")
    np.testing.assert_allclose(upper[:3, :3], rot_y(theta), atol=1e-12)
    np.testing.assert_allclose(upper[:3, 3], before["upper_arm"][:3, 3], atol=1e-12)
    # the forearm, 0.5 m above the shoulder, swings with it
    forearm = arm.live.poses.pose("forearm")
    np.testing.assert_allclose(forearm[:3, 3], [0.5 * math.sin(theta), 0, 0.1 +
                                                0.5 * math.cos(theta)], atol=1e-12)
    np.testing.assert_allclose(arm.live.poses.pose("body"), before["body"])
    assert len(arm.document.commands) == 0 and arm.modified is False   # nothing edited


def test_dragging_the_elbow_slider_moves_the_forearm_and_follows_in_the_field(qtbot, arm):
    panel = JointSlidersPanel(arm)
    show(qtbot, panel)
    row = panel.rows["elbow"]
    moved = []
    arm.posesChanged.connect(lambda e: moved.append(set(e.keys)))
    drag_slider(row.slider, 0.9)
    angle = arm.live.joints.position("elbow")
    assert angle > 1.5   # towards the upper limit (2.5 rad)
    assert row.field.text() == f"{math.degrees(angle):.1f}"
    assert any("forearm" in keys for keys in moved)
    X = arm.live.poses.pose("forearm")
    np.testing.assert_allclose(X[:3, :3], rot_y(angle), atol=1e-9)
    np.testing.assert_allclose(X[:3, 3], [0, 0, 0.6], atol=1e-12)   # turns in place


def test_a_typed_value_beyond_the_limit_is_clamped_and_the_row_says_why(qtbot, arm):
    panel = JointSlidersPanel(arm)
    show(qtbot, panel)
    row = panel.rows["shoulder"]
    type_into(row.field, "120")
    assert arm.live.joints.position("shoulder") == pytest.approx(math.pi / 2)
    assert row.slider.value() == row.slider.maximum()
    assert row.note.isVisible()
    assert row.note.text() == "120.0° is beyond the upper limit: set to 90.0°"
    np.testing.assert_allclose(arm.live.poses.pose("upper_arm")[:3, :3], rot_y(math.pi / 2),
                               atol=1e-12)
    type_into(row.field, "-30")
    assert arm.live.joints.position("shoulder") == pytest.approx(-math.pi / 6)
    assert not row.note.isVisible()


def test_reset_puts_every_joint_back(qtbot, arm):
    panel = JointSlidersPanel(arm)
    show(qtbot, panel)
    written = arm.live.poses.pose("forearm").copy()
    QTest.keyClick(panel.rows["elbow"].slider, QtCore.Qt.Key.Key_PageDown)
    assert panel.reset_button.isEnabled()
    QTest.mouseClick(panel.reset_button, LEFT)
    assert arm.live.joints.positions == {}
    assert panel.rows["elbow"].slider.value() == 0
    np.testing.assert_allclose(arm.live.poses.pose("forearm"), written)
    assert not panel.reset_button.isEnabled()


def test_save_as_initial_position_is_one_undo_step(qtbot, arm):
    panel = JointSlidersPanel(arm)
    show(qtbot, panel)
    document = arm.document
    forearm = document.element("forearm")
    written = forearm.pose.value
    for _ in range(2):
        QTest.keyClick(panel.rows["elbow"].slider, QtCore.Qt.Key.Key_PageUp)   # 30°
    shown = arm.live.poses.pose("forearm").copy()
    QTest.mouseClick(panel.save_button, LEFT)
    assert len(document.commands) == 1
    assert document.commands.undo_label == "Save joint positions as the initial pose"
    assert arm.live.joints.positions == {}           # the moved pose is the written one now
    np.testing.assert_allclose(arm.live.poses.pose("forearm"), shown, atol=1e-12)
    assert not forearm.pose.value.almost_equal(written)
    qtbot.waitUntil(lambda: panel.rows["elbow"].low.text() == "−173.2°")   # limits shifted
    assert panel.rows["elbow"].slider.value() == 0
    assert "Saved 1 joint position" in panel.status.text()
    arm.undo()
    assert forearm.pose.value.almost_equal(written)
    np.testing.assert_allclose(arm.live.poses.pose("forearm")[:3, 3], [0, 0, 0.6], atol=1e-12)
    qtbot.waitUntil(lambda: panel.rows["elbow"].low.text() == "−143.2°")


def test_saving_joints_of_included_files_is_refused_in_the_panel(qtbot, session):
    panel = JointSlidersPanel(session)
    show(qtbot, panel)
    QTest.keyClick(panel.rows["arm::elbow"].slider, QtCore.Qt.Key.Key_PageUp)
    refused = []
    session.refused.connect(refused.append)
    QTest.mouseClick(panel.save_button, LEFT)
    assert len(session.document.commands) == 0
    assert panel.status.isVisible() and "included file" in panel.status.text()
    assert refused == [panel.status.text()]
    assert session.live.joints.position("arm::elbow") == pytest.approx(math.radians(15))


def test_joints_in_a_loop_or_held_by_the_world_are_listed_disabled_with_the_reason(
        qtbot, tmp_path):
    path = tmp_path / "loop.sdf"
    path.write_text("""<?xml version="1.0"?>
<sdf version="1.9">
  <model name="loop">
    <link name="a"/><link name="b"><pose>1 0 0 0 0 0</pose></link>
    <link name="c"><pose>0 1 0 0 0 0</pose></link>
    <joint name="ab" type="revolute"><parent>a</parent><child>b</child>
      <axis><xyz>0 0 1</xyz></axis></joint>
    <joint name="bc" type="revolute"><parent>b</parent><child>c</child>
      <axis><xyz>0 0 1</xyz></axis></joint>
    <joint name="ca" type="revolute"><parent>c</parent><child>a</child>
      <axis><xyz>0 0 1</xyz></axis></joint>
    <model name="fixture">
      <link name="base"/><link name="arm"/>
      <joint name="anchor" type="fixed"><parent>world</parent><child>arm</child></joint>
      <joint name="hinge" type="continuous"><parent>base</parent><child>arm</child></joint>
    </model>
  </model>
</sdf>
""")
    s = DocumentSession.open(path)
    panel = JointSlidersPanel(s)
    show(qtbot, panel)
    for key in ("ab", "bc", "ca"):
        row = panel.rows[key]
        assert not row.slider.isEnabled() and not row.field.isEnabled()
        assert "kinematic loop" in row.note.text()
    hinge = panel.rows["fixture::hinge"]
    assert not hinge.slider.isEnabled()
    assert "held by the world or a static model" in hinge.note.text()
    assert (hinge.low.text(), hinge.high.text()) == ("(−180.0°)", "(180.0°)")


def test_rows_follow_structure_changes(qtbot, arm):
    panel = JointSlidersPanel(arm)
    show(qtbot, panel)
    arm.push(RemoveNode(arm.document, arm.document.element("elbow")))
    qtbot.waitUntil(lambda: list(panel.rows) == ["shoulder"])
    arm.undo()
    qtbot.waitUntil(lambda: list(panel.rows) == ["shoulder", "elbow"])


def test_filter_and_no_document(qtbot, session):
    panel = JointSlidersPanel(session)
    show(qtbot, panel)
    QTest.keyClicks(panel.filter, "slide")
    assert [k for k, r in panel.rows.items() if r.isVisible()] == \
        ["gripper::left_slide", "gripper::right_slide"]
    panel.set_session(None)
    assert panel.rows == {} and panel.placeholder.text() == "No document"
