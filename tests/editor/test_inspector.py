"""The frame inspector, driven as a user would: keys typed into its fields, items picked in
its combos, buttons clicked (run under Xvfb).

Expected poses come from the example files' own derivations (arm_and_gripper.sdf states
X_M_gripper = (0, 0, 1.02, 0, 0, pi/4)), from the core's frame graph and from a fresh
load of the saved file, never from the inspector's own arithmetic.
"""

from __future__ import annotations

import math
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore, QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.core.loading import load  # noqa: E402
from snapframe.core.pose import Pose  # noqa: E402
from snapframe.editor.inspector import FrameInspector, parse_number, pose_snippet  # noqa: E402
from snapframe.editor.session import DocumentSession  # noqa: E402

Key = QtCore.Qt.Key
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier
LEFT = QtCore.Qt.MouseButton.LeftButton




# -- helpers: what a user does ----------------------------------------------------------

def show(qtbot, widget: QtWidgets.QWidget, w: int = 360, h: int = 900) -> None:
    qtbot.addWidget(widget)
    widget.resize(w, h)
    widget.show()
    qtbot.waitExposed(widget)


def type_into(qtbot, field: QtWidgets.QWidget, text: str) -> None:
    """Select what a field shows, type ``text``, press Enter."""
    target = field.lineEdit() if isinstance(field, QtWidgets.QComboBox) else field
    qtbot.keyClick(target, Key.Key_A, CTRL)
    qtbot.keyClick(target, Key.Key_Backspace)
    qtbot.keyClicks(target, text)
    qtbot.keyClick(target, Key.Key_Return)


def pick(qtbot, combo: QtWidgets.QComboBox, text: str) -> None:
    """Open a combo's list and click the item ``text``."""
    index = combo.findText(text, QtCore.Qt.MatchFlag.MatchExactly)
    assert index >= 0, f"{text!r} is not offered: {options(combo)}"
    option = QtWidgets.QStyleOptionComboBox()
    combo.initStyleOption(option)
    arrow = combo.style().subControlRect(QtWidgets.QStyle.ComplexControl.CC_ComboBox, option,
                                         QtWidgets.QStyle.SubControl.SC_ComboBoxArrow, combo)
    qtbot.mouseClick(combo, LEFT, pos=arrow.center())
    view = combo.view()
    qtbot.waitUntil(view.isVisible)
    # A combo ignores releases for a double-click interval after it opened its list (so
    # the click that opened it does not pick an item); a user is slower than that.
    qtbot.wait(QtWidgets.QApplication.doubleClickInterval() + 50)
    model_index = view.model().index(index, combo.modelColumn(), view.rootIndex())
    view.scrollTo(model_index)
    QTest.mouseClick(view.viewport(), LEFT, QtCore.Qt.KeyboardModifier.NoModifier,
                     view.visualRect(model_index).center())
    qtbot.waitUntil(lambda: not view.isVisible())


def world_pose(session: DocumentSession, key: str) -> Pose:
    return Pose.from_matrix(session.live.poses.pose(key))


def near(a: Pose, b: Pose, tol: float = 1e-9) -> bool:
    return np.allclose(a.matrix(), b.matrix(), atol=tol)


@pytest.fixture
def inspector(qtbot, session):
    widget = FrameInspector(session)
    show(qtbot, widget)
    return widget


def options(combo: QtWidgets.QComboBox) -> list[str]:
    return [combo.itemText(i) for i in range(combo.count())]


# -- what it shows --------------------------------------------------------------------

def test_selecting_the_gripper_shows_its_name_file_and_written_pose(inspector, session):
    session.selection.select("gripper")
    assert inspector.name_label.text() == "gripper"
    assert inspector.kind_label.text() == "include (model)"
    assert inspector.key_label.text() == "gripper"
    assert inspector.file_label.text() == "arm_and_gripper.sdf, line 18"
    assert "placement_frame: <b>mount_point</b>" in inspector.include_label.text()
    assert inspector.relative_to.currentText() == "arm::gripper_mount"
    assert [inspector.pose_fields[n].text() for n in ("x", "y", "z", "r0", "r1", "r2")] == \
        ["0.000000"] * 3 + ["0.0000"] * 3
    # arm_and_gripper.sdf: gripper = (0, 0, 1.02, 0, 0, pi/4) in the model frame.
    assert inspector.resolved_position.text() == "0.000000  0.000000  1.020000  m"
    assert inspector.resolved_rotation.text() == "0.0000  0.0000  45.0000  °"
    assert not inspector.readonly_note.isVisible()
    assert inspector.pose_fields["x"].isReadOnly() is False


def test_relative_to_offers_only_frames_in_scope_without_cycles(inspector, session):
    session.selection.select("gripper")
    offered = options(inspector.relative_to)
    assert offered[0] == "(default: __model__)"
    assert {"__model__", "arm", "arm::forearm", "arm::gripper_mount"} <= set(offered)
    # Not itself, not its own frames, not the weld (posed in gripper::mount_point): each
    # would make a relative_to cycle.
    assert not any(o == "gripper" or o.startswith("gripper::") for o in offered)
    assert "weld" not in offered
    session.selection.select("weld")
    offered = options(inspector.relative_to)
    assert offered[0] == "(default: gripper::mount_point)"
    assert "weld" not in offered and {"gripper", "gripper::mount_point"} <= set(offered)


def test_relative_to_then_typed_x_is_one_command_each_and_matches_the_saved_file(
        qtbot, inspector, session):
    doc = session.document
    session.selection.select("gripper")
    before = world_pose(session, "gripper")
    pick(qtbot, inspector.relative_to, "arm::forearm")
    assert len(doc.commands) == 1
    gripper = doc.element("gripper")
    assert gripper.pose.relative_to == "arm::forearm"
    assert near(world_pose(session, "gripper"), before)      # kept in place
    # The written pose places mount_point on the forearm: gripper_mount's pose there,
    # (0, 0, 0.4, 0, 0, pi/2) from arm.sdf.
    assert [inspector.pose_fields[n].text() for n in ("x", "y", "z", "r2")] == \
        ["0.000000", "0.000000", "0.400000", "90.0000"]

    type_into(qtbot, inspector.pose_fields["x"], "0.05")
    assert len(doc.commands) == 2
    assert doc.commands.undo_label.startswith("Move")
    assert inspector.pose_fields["x"].text() == "0.050000"
    # The core's frame graph: mount_point = forearm * written pose.
    X_M_forearm = doc.frames.pose("arm::forearm")
    expected_mount = X_M_forearm @ Pose.from_xyz_rpy(0.05, 0, 0.4, 0, 0, math.pi / 2)
    assert near(doc.frames.pose("gripper::mount_point"), expected_mount)
    # ... and a fresh load of the saved file agrees with the live pose table.
    doc.save(flatten=False)
    text = (doc.directory / "arm_and_gripper.sdf").read_text()
    assert 'relative_to="arm::forearm"' in text
    fresh = load(doc.path)
    assert near(fresh.frames.pose("gripper"), world_pose(session, "gripper"))
    assert near(fresh.frames.pose("gripper::mount_point"), expected_mount)
    assert not near(world_pose(session, "gripper"), before)

    session.undo()
    assert near(world_pose(session, "gripper"), before)
    assert inspector.pose_fields["x"].text() == "0.000000"
    assert inspector.relative_to.currentText() == "arm::forearm"
    session.undo()
    assert inspector.relative_to.currentText() == "arm::gripper_mount"
    assert gripper.pose.relative_to == "arm::gripper_mount"
    assert near(world_pose(session, "gripper"), before)


def test_typing_a_frame_name_into_relative_to_is_accepted(qtbot, inspector, session):
    session.selection.select("gripper")
    inspector.keep_in_place.setChecked(False)
    qtbot.mouseClick(inspector.keep_in_place, LEFT)      # back on, by a click
    assert inspector.keep_in_place.isChecked()
    type_into(qtbot, inspector.relative_to, "arm::upper_arm")
    assert session.document.element("gripper").pose.relative_to == "arm::upper_arm"
    assert len(session.document.commands) == 1


def test_moving_without_keeping_in_place_keeps_the_values(qtbot, inspector, session):
    session.selection.select("gripper")
    qtbot.mouseClick(inspector.keep_in_place, LEFT)
    assert not inspector.keep_in_place.isChecked()
    pick(qtbot, inspector.relative_to, "(default: __model__)")
    gripper = session.document.element("gripper")
    assert gripper.pose.relative_to == "" and gripper.pose.value.is_identity()
    # Identity places mount_point at the model frame: the gripper is X_GCg^-1 there.
    X_G_Cg = Pose.from_xyz_rpy(0, 0, -0.02, 0, 0, math.pi / 4)
    assert near(world_pose(session, "gripper"), X_G_Cg.inverse())


def test_leaving_a_field_confirms_what_was_typed_once(qtbot, inspector, session):
    session.selection.select("gripper")
    inspector.activateWindow()
    qtbot.waitActive(inspector)
    y = inspector.pose_fields["y"]
    y.setFocus()
    qtbot.waitUntil(y.hasFocus)
    qtbot.keyClick(y, Key.Key_A, CTRL)
    qtbot.keyClicks(y, "0.2")
    assert len(session.document.commands) == 0           # not on every keystroke
    qtbot.keyClick(y, Key.Key_Tab)                        # focus moves on: confirmed
    qtbot.waitUntil(lambda: not y.hasFocus())
    assert len(session.document.commands) == 1
    assert session.document.element("gripper").pose.value.p[1] == pytest.approx(0.2)
    assert y.text() == "0.200000"

def test_a_value_that_is_not_a_number_is_refused_with_a_message(qtbot, inspector, session):
    session.selection.select("gripper")
    before = world_pose(session, "gripper")
    type_into(qtbot, inspector.pose_fields["x"], "abc")
    assert inspector.pose_error.isVisible()
    assert "'abc' is not a number" in inspector.pose_error.text()
    assert len(session.document.commands) == 0
    assert inspector.pose_fields["x"].text() == "0.000000"
    # An infinite value parses, and the core refuses it with its reason.
    type_into(qtbot, inspector.pose_fields["z"], "1e999")
    assert "non-finite" in inspector.pose_error.text()
    assert len(session.document.commands) == 0
    assert near(world_pose(session, "gripper"), before)
    # The next good value clears the message.
    type_into(qtbot, inspector.pose_fields["z"], "pi/10")
    assert not inspector.pose_error.isVisible()
    assert session.document.element("gripper").pose.value.p[2] == pytest.approx(math.pi / 10)


def test_a_zero_quaternion_is_refused(qtbot, inspector, session):
    session.selection.select("gripper")
    pick(qtbot, inspector.format_combo, "Quaternion (w x y z)")
    assert [inspector.pose_fields[n].text() for n in ("r0", "r1", "r2", "r3")] == \
        ["1.000000", "0.000000", "0.000000", "0.000000"]
    type_into(qtbot, inspector.pose_fields["r0"], "0")
    assert "zero quaternion" in inspector.pose_error.text()
    assert len(session.document.commands) == 0
    # A quarter turn about z typed as a quaternion (normalised by the core's Pose).
    type_into(qtbot, inspector.pose_fields["r3"], "1")
    X = session.document.element("gripper").pose.value
    assert X.rpy()[2] == pytest.approx(math.pi / 2)
    # the fields keep what was typed while the quaternion is being typed; the next
    # time the element is shown, the normalised values
    assert inspector.pose_fields["r0"].text() == "1.000000"
    session.selection.select("arm")
    session.selection.select("gripper")
    assert inspector.pose_fields["r0"].text() == "0.707107"


def test_rotation_in_degrees_and_radians(qtbot, inspector, session):
    session.selection.select("gripper")
    type_into(qtbot, inspector.pose_fields["r2"], "90")
    assert session.document.element("gripper").pose.value.rpy()[2] == pytest.approx(math.pi / 2)
    pick(qtbot, inspector.format_combo, "RPY, radians")
    assert inspector.pose_fields["r2"].text() == "1.570796"
    assert inspector.rotation_label.text() == "Rotation (rad)"
    type_into(qtbot, inspector.pose_fields["r0"], "0.1")
    assert session.document.element("gripper").pose.value.rpy()[0] == pytest.approx(0.1)
    assert len(session.document.commands) == 2       # one command per typed value


def test_arrow_key_steps_of_one_field_merge_into_one_undo_step(qtbot, inspector, session):
    session.selection.select("gripper")
    x = inspector.pose_fields["x"]
    for _ in range(3):
        qtbot.keyClick(x, Key.Key_Up)
    assert len(session.document.commands) == 1
    assert session.document.element("gripper").pose.value.p[0] == pytest.approx(0.03)
    qtbot.keyClick(inspector.pose_fields["y"], Key.Key_Down)
    assert len(session.document.commands) == 2
    session.undo()
    session.undo()
    assert session.document.element("gripper").pose.value.p == (0.0, 0.0, 0.0)


def test_an_element_of_an_included_file_is_read_only(qtbot, inspector, session):
    session.selection.select("gripper::body")
    assert inspector.readonly_note.isVisible()
    assert "gripper.sdf" in inspector.readonly_label.text()
    assert inspector.pose_fields["x"].isReadOnly()
    assert not inspector.relative_to.isEnabled()
    type_into(qtbot, inspector.pose_fields["x"], "1")
    assert len(session.document.commands) == 0
    with qtbot.waitSignal(inspector.openIncludeRequested) as signal:
        qtbot.mouseClick(inspector.open_include_button, LEFT)
    assert signal.args == ["gripper::body"]


def test_the_resolved_pose_in_another_frame_matches_the_pose_table(qtbot, inspector, session):
    session.selection.select("gripper")
    type_into(qtbot, inspector.resolved_in, "arm::forearm")
    X_W_A = session.live.poses.pose("arm::forearm")
    X_W_F = session.live.poses.pose("gripper")
    expected = Pose.from_matrix(np.linalg.inv(X_W_A) @ X_W_F)
    assert near(inspector.resolved_pose(), expected)
    # By hand: gripper_mount (0, 0, 0.4, yaw 90°) on the forearm, times X_GCg^-1 with
    # X_GCg = (0, 0, -0.02, yaw 45°): (0, 0, 0.42, yaw 45°).
    assert inspector.resolved_position.text() == "0.000000  0.000000  0.420000  m"
    assert inspector.resolved_rotation.text() == "0.0000  0.0000  45.0000  °"
    # It follows an edit of the forearm's frame chain (the arm moves as a whole).
    type_into(qtbot, inspector.pose_fields["z"], "0.1")
    assert inspector.resolved_position.text() == "0.000000  0.000000  0.520000  m"


def test_copy_pose_puts_an_sdformat_snippet_on_the_clipboard(qtbot, inspector, session):
    session.selection.select("gripper")
    type_into(qtbot, inspector.pose_fields["r2"], "90")
    qtbot.mouseClick(inspector.copy_pose_button, LEFT)
    text = QtWidgets.QApplication.clipboard().text()
    assert text == '<pose relative_to="arm::gripper_mount">0 0 0 0 0 1.5707963267948966</pose>'


def test_the_chain_box_explains_each_step_with_its_numbers(qtbot, inspector, session):
    session.selection.select("gripper::mount_point")
    text = inspector.chain_view.toPlainText()
    order = ["1. arm", "2. arm::upper_arm", "3. arm::forearm", "4. arm::gripper_mount",
             "5. gripper", "6. gripper::mount_point"]
    positions = [text.index(o) for o in order]
    assert positions == sorted(positions)
    assert "places mount_point" in text
    assert "⇒ in arm_and_gripper: 0 0 1.02 | 0° 0° 45°" in text          # the gripper
    assert text.rstrip().endswith("⇒ in arm_and_gripper: 0 0 1 | 0° 0° 90°")   # mount_point
    qtbot.mouseClick(inspector.chain_as_text, LEFT)
    assert inspector.chain_view.toPlainText().splitlines() == \
        session.document.frames.explain("gripper::mount_point")


# -- joints -----------------------------------------------------------------------------

def test_joint_type_and_limits_become_commands(qtbot, inspector, session):
    doc = session.document
    session.selection.select("weld")
    assert inspector.joint_group.isVisible()
    assert inspector.no_axis_label.text() == "A fixed joint has no axis."
    pick(qtbot, inspector.joint_type, "revolute")
    weld = doc.element("weld")
    assert weld.type == "revolute" and doc.commands.undo_label == "Set type of weld"
    assert inspector.limit_units["lower"].text() == "rad"
    assert inspector.limit_units["effort"].text() == "N·m"
    type_into(qtbot, inspector.limit_fields["upper"], "1.2")
    type_into(qtbot, inspector.limit_fields["lower"], "-0.5")
    assert (weld.axes[0].lower, weld.axes[0].upper) == (-0.5, 1.2)
    assert len(doc.commands) == 3
    # lower above upper: the core's reason, nothing changed.
    type_into(qtbot, inspector.limit_fields["lower"], "2")
    assert "above the upper limit" in inspector.joint_error.text()
    assert weld.axes[0].lower == -0.5 and len(doc.commands) == 3
    assert inspector.limit_fields["lower"].text() == "-0.5"
    # An empty field removes the limit.
    type_into(qtbot, inspector.limit_fields["upper"], "")
    assert weld.axes[0].upper is None and len(doc.commands) == 4
    # The axis direction, made unit length by the core.
    type_into(qtbot, inspector.axis_fields["x"], "1")
    assert weld.axes[0].xyz == pytest.approx((math.sqrt(0.5), 0.0, math.sqrt(0.5)))
    pick(qtbot, inspector.joint_type, "prismatic")
    assert inspector.limit_units["lower"].text() == "m"
    assert inspector.limit_units["velocity"].text() == "m/s"
    assert len(doc.commands) == 6
    for _ in range(6):
        session.undo()
    assert weld.type == "fixed" and weld.axes == []
    assert inspector.no_axis_label.isVisible()


def test_joint_parent_and_child_links_select_them(qtbot, inspector, session):
    arm = DocumentSession(session.document.open_include("arm"))
    inspector.set_session(arm)
    arm.selection.select("elbow")
    assert inspector.kind_label.text() == "revolute joint"
    assert not inspector.readonly_note.isVisible()       # edited in its own file
    assert inspector.limit_fields["upper"].text() == "2.5"
    inspector.child_label.linkActivated.emit("forearm")
    assert arm.selection.active == "forearm"


# -- frames: attached_to ------------------------------------------------------------

def test_attached_to_offers_frames_in_scope_and_edits_are_commands(qtbot, inspector, session):
    arm = DocumentSession(session.document.open_include("arm"))
    inspector.set_session(arm)
    arm.selection.select("gripper_mount")
    assert inspector.attached_to.currentText() == "forearm"
    offered = options(inspector.attached_to)
    assert offered[0] == "(default: __model__)"
    assert {"body", "upper_arm", "forearm", "shoulder", "elbow"} <= set(offered)
    assert "gripper_mount" not in offered and "__model__" not in offered
    pick(qtbot, inspector.attached_to, "upper_arm")
    assert arm.document.element("gripper_mount").attached_to == "upper_arm"
    assert arm.document.commands.undo_label == "Set attached_to of gripper_mount"


# -- links: inertia -----------------------------------------------------------------

AUTO = """\
<?xml version="1.0"?>
<sdf version="1.11">
  <model name="crate">
    <link name="box">
      <inertial auto="true"/>
      <collision name="shell">
        <pose>0.1 0 0 0 0 0</pose>
        <geometry><box><size>1 2 0.5</size></box></geometry>
      </collision>
      <visual name="look">
        <geometry><box><size>1 2 0.5</size></box></geometry>
      </visual>
    </link>
    <link name="plate">
      <inertial>
        <pose>0 0 0.25 0 0 0</pose>
        <mass>3</mass>
        <inertia><ixx>0.5</ixx><iyy>0.25</iyy><izz>0.125</izz>
                 <ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
      </inertial>
    </link>
    <frame name="corner" attached_to="box"><pose>0.5 1 0 0 0 0</pose></frame>
  </model>
</sdf>
"""


@pytest.fixture
def crate(qtbot, tmp_path):
    path = tmp_path / "crate.sdf"
    path.write_text(textwrap.dedent(AUTO))
    session = DocumentSession.open(path)
    widget = FrameInspector(session)
    show(qtbot, widget)
    return session, widget


def test_auto_inertia_is_computed_and_follows_density_and_mass_edits(qtbot, crate):
    session, inspector = crate
    session.selection.select("box")
    assert inspector.inertia_source.text() == "computed from 1 collision (auto)"
    # 1 x 2 x 0.5 m of water: 1000 kg, centred on the collision at x = 0.1.
    assert inspector.computed_mass.text() == "1000 kg"
    assert inspector.com_label.text() == "0.100000  0.000000  0.000000  m"
    # Box moments m/12 (b² + c²) ...: 1000/12 * (4.25, 1.25, 5) kg m².
    assert inspector.moments_label.text() == "104.17  354.17  416.67  kg·m²"
    with qtbot.waitSignal(session.inertiaChanged):
        type_into(qtbot, inspector.density, "500")
    assert inspector.computed_mass.text() == "500 kg"
    type_into(qtbot, inspector.mass, "2")
    assert inspector.computed_mass.text() == "2 kg"
    assert session.document.commands.undo_label == "Set mass of box"
    type_into(qtbot, inspector.density, "-1")
    assert "density must be positive" in inspector.inertia_error.text()
    assert len(session.document.commands) == 2


def test_a_written_inertial_shows_as_written(qtbot, crate):
    session, inspector = crate
    session.selection.select("plate")
    assert inspector.inertia_source.text() == "as written in the file"
    assert not inspector.density.isVisible()
    assert inspector.mass.text() == "3"
    assert inspector.com_label.text() == "0.000000  0.000000  0.250000  m"
    assert inspector.moments_label.text() == "0.125  0.25  0.5  kg·m²"
    type_into(qtbot, inspector.mass, "4")
    assert session.document.element("plate").inertial.mass == 4.0


def test_a_collision_shows_its_geometry_and_density(qtbot, crate):
    session, inspector = crate
    session.selection.select("box#collision:shell")
    assert inspector.geometry_group.isVisible()
    assert inspector.geometry_label.text() == "box 1 × 2 × 0.5 m"
    assert inspector.relative_to.currentText() == "(default: box)"
    type_into(qtbot, inspector.part_density, "250")
    assert session.live.inertia.of(session.document.element("box")).mass_properties.mass == \
        pytest.approx(250.0)
    # A collision expressed relative to another frame keeps its place.
    before = world_pose(session, "box#collision:shell")
    pick(qtbot, inspector.relative_to, "corner")
    shell = session.document.element("box#collision:shell")
    assert shell.pose.relative_to == "corner"
    assert near(world_pose(session, "box#collision:shell"), before)
    assert shell.pose.value.p == pytest.approx((-0.4, -1.0, 0.0))


def test_a_visual_shows_its_geometry_without_density(qtbot, crate):
    session, inspector = crate
    session.selection.select("box#visual:look")
    assert inspector.geometry_label.text() == "box 1 × 2 × 0.5 m"
    assert not inspector.part_density.isVisible()
    assert inspector.kind_label.text() == "visual"


# -- sessions ---------------------------------------------------------------------------

def test_switching_sessions_and_nothing_selected(qtbot, inspector, session, example_copy):
    assert inspector.placeholder.isVisible()
    session.selection.select("gripper")
    assert not inspector.placeholder.isVisible()
    other = DocumentSession.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    inspector.set_session(other)
    assert inspector.placeholder.isVisible()
    session.selection.select("arm")       # the old session no longer drives it
    assert inspector.placeholder.isVisible()
    other.selection.select("weld")
    assert inspector.name_label.text() == "weld"
    inspector.set_session(None)
    assert inspector.placeholder.text() == "No document open."


def test_a_removed_element_clears_the_inspector(qtbot, inspector, session):
    from snapframe.core.model.edits import RemoveNode
    session.selection.select("weld")
    session.push(RemoveNode(session.document, session.document.element("weld")))
    assert inspector.placeholder.isVisible()
    session.undo()
    session.selection.select("weld")
    assert inspector.name_label.text() == "weld"


# -- pure helpers -----------------------------------------------------------------

@pytest.mark.parametrize("text, value", [("0.5", 0.5), ("0,25", 0.25), ("-1e-3", -0.001),
                                         ("pi/2", math.pi / 2), ("2*(1+0.5)", 3.0)])
def test_parse_number_accepts_numbers_and_simple_arithmetic(text, value):
    assert parse_number(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["abc", "1/0", "__import__('os')", "1 +", "[1]"])
def test_parse_number_refuses_the_rest(text):
    with pytest.raises(ValueError):
        parse_number(text)


def test_pose_snippet_writes_radians_and_the_frame():
    X = Pose.from_xyz_rpy(0.5, 0, -0.02, 0, 0, math.pi / 4)
    assert pose_snippet(X, "a::b") == \
        '<pose relative_to="a::b">0.5 0 -0.02 0 0 0.7853981633974483</pose>'
    assert pose_snippet(Pose()) == "<pose>0 0 0 0 0 0</pose>"
