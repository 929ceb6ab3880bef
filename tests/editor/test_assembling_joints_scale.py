"""The joint sliders panel on a world of 1000 included 6-joint robots: 6000 joints, rows for
a few of them, the filter and the selection pick which (run under Xvfb)."""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.editor.assembling import JointSlidersPanel  # noqa: E402
from snapframe.editor.assembling.joint_sliders import MAX_ROWS, JointRow  # noqa: E402
from snapframe.editor.session import DocumentSession  # noqa: E402
from widget_actions import LEFT, NONE, show  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
ROBOTS = 1000
#: gen_include_world's robot: joint_1 … joint_6, revolute, limits ±3.14159 rad.
JOINTS = [f"joint_{j}" for j in range(1, 7)]


def robot_joints(i: int) -> list[str]:
    return [f"robot_{i}::{name}" for name in JOINTS]


@pytest.fixture(scope="module")
def world_file(tmp_path_factory) -> Path:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from gen_include_world import generate
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    return generate(ROBOTS, tmp_path_factory.mktemp("world"))


@pytest.fixture
def world(qtbot, world_file) -> DocumentSession:
    return DocumentSession.open(world_file)


def all_built(qtbot, panel: JointSlidersPanel, count: int = MAX_ROWS) -> None:
    """Wait until the panel shows ``count`` rows (it builds the rows past the first
    screenful in the next turns of the event loop)."""
    qtbot.waitUntil(lambda: len(panel.rows) == count, timeout=5000)
    qtbot.wait(10)


def assert_laid_out(panel: JointSlidersPanel) -> None:
    """The rows shown stack one under the other at the list's full width, none squeezed
    and none left unplaced."""
    rows = list(panel.rows.values())
    width = rows[0].parentWidget().width()
    assert all(r.isVisible() and r.width() == width for r in rows)
    assert all(r.height() >= r.sizeHint().height() for r in rows)
    assert rows[0].y() == 0
    assert all(b.y() == a.y() + a.height() for a, b in zip(rows, rows[1:]))


def apply_filter(panel: JointSlidersPanel, text: str) -> None:
    """Type ``text`` into the filter box (replacing what it holds) as a user would; ""
    deletes what it holds."""
    panel.filter.selectAll()
    if text:
        QTest.keyClicks(panel.filter, text)
    else:
        QTest.keyClick(panel.filter, QtCore.Qt.Key.Key_Backspace)
    assert panel.filter.text() == text


def test_6000_joints_show_in_well_under_a_second_with_rows_for_a_few(
        qtbot, world, world_file, no_modal_dialogs):
    panel = JointSlidersPanel(world)       # hidden: the rows wait until it shows
    qtbot.addWidget(panel)
    panel.set_session(None)
    panel.set_session(world)
    assert panel.findChildren(JointRow) == []
    panel.set_session(None)
    show(qtbot, panel, 420, 700)

    start = time.perf_counter()
    panel.set_session(world)
    all_built(qtbot, panel)
    seconds = time.perf_counter() - start
    assert seconds < 2.0, f"{seconds:.2f} s"   # about 0.2-0.4 s on our 2-core machines

    assert 20 <= MAX_ROWS <= 100
    every = [k for i in range(ROBOTS) for k in robot_joints(i)]   # document order
    assert list(panel.rows) == every[:MAX_ROWS]
    assert len(panel.findChildren(JointRow)) == MAX_ROWS
    assert panel.summary.isVisible()
    assert panel.summary.text() == f"Showing {MAX_ROWS} of 6000 joints — type to filter"
    assert_laid_out(panel)

    other = DocumentSession.open(world_file)
    start = time.perf_counter()
    panel.set_session(other)
    all_built(qtbot, panel)
    seconds = time.perf_counter() - start
    assert seconds < 2.0, f"switching: {seconds:.2f} s"
    assert len(panel.findChildren(JointRow)) == MAX_ROWS   # the old rows are gone
    assert no_modal_dialogs == []


def test_the_filter_finds_a_robots_joints_in_any_case(qtbot, world, no_modal_dialogs):
    panel = JointSlidersPanel(world)
    show(qtbot, panel, 420, 700)
    all_built(qtbot, panel)
    apply_filter(panel, "Robot_517::")
    # no rows are built while typing: the filter waits for a pause
    assert list(panel.rows)[:6] == robot_joints(0)
    qtbot.waitUntil(lambda: list(panel.rows) == robot_joints(517))
    assert all(r.isVisible() for r in panel.rows.values())
    assert panel.summary.text() == "6 of 6000 joints match “Robot_517::”"
    assert panel.rows["robot_517::joint_4"].name.full_text() == "robot_517::joint_4"

    QTest.keyClicks(panel.filter, "JOINT_4")
    QTest.keyClick(panel.filter, QtCore.Qt.Key.Key_Return)   # Enter does not wait
    assert list(panel.rows) == ["robot_517::joint_4"]

    apply_filter(panel, "joint_3")
    qtbot.waitUntil(lambda: len(panel.rows) == MAX_ROWS, timeout=5000)
    assert all(k.endswith("::joint_3") for k in panel.rows)
    assert_laid_out(panel)
    assert panel.summary.text() == \
        f"Showing {MAX_ROWS} of 1000 joints matching “joint_3” — type more to narrow"

    apply_filter(panel, "gripper")
    qtbot.waitUntil(lambda: panel.rows == {})
    assert panel.placeholder.isVisible() and panel.placeholder.text() == \
        "No joint matches “gripper”"
    assert not panel.scroll.isVisible()
    assert no_modal_dialogs == []


def test_the_selected_robots_joints_come_first(qtbot, world, no_modal_dialogs):
    # the user clicked a link of robot_50, then opened the Joints tab
    world.selection.select("robot_50::link_3")
    panel = JointSlidersPanel(world)
    show(qtbot, panel, 420, 700)
    all_built(qtbot, panel)
    assert list(panel.rows)[:12] == robot_joints(50) + robot_joints(0)
    assert panel.summary.text() == \
        f"Showing {MAX_ROWS} of 6000 joints, robot_50's first — type to filter"

    # selecting while it shows, scrolled to the end: the include itself, then a visual
    # of another robot; the list goes back to the top, where they are
    bar = panel.scroll.verticalScrollBar()
    QTest.keyClick(bar, QtCore.Qt.Key.Key_End)
    assert bar.value() == bar.maximum() > 0
    world.selection.select("robot_731")
    qtbot.waitUntil(lambda: list(panel.rows)[:6] == robot_joints(731))
    assert bar.value() == 0
    world.selection.select("robot_12::link_2#visual:link_2_visual")
    qtbot.waitUntil(lambda: list(panel.rows)[:6] == robot_joints(12))
    all_built(qtbot, panel)
    assert_laid_out(panel)
    # with the filter, the selected robot's matches come first too
    apply_filter(panel, "joint_2")
    qtbot.waitUntil(lambda: list(panel.rows)[:2] == ["robot_12::joint_2", "robot_0::joint_2"])
    all_built(qtbot, panel)
    assert_laid_out(panel)
    assert panel.summary.text() == f"Showing {MAX_ROWS} of 1000 joints matching “joint_2”, " \
        "robot_12's first — type more to narrow"
    # a filter that leaves the selected robot no joint says nothing of it
    apply_filter(panel, "robot_5")
    qtbot.waitUntil(lambda: list(panel.rows)[:2] == ["robot_5::joint_1", "robot_5::joint_2"])
    assert panel.summary.text() == \
        f"Showing {MAX_ROWS} of 666 joints matching “robot_5” — type more to narrow"
    apply_filter(panel, "")
    world.selection.clear()
    qtbot.waitUntil(lambda: list(panel.rows)[:6] == robot_joints(0))
    assert no_modal_dialogs == []


def test_a_shown_slider_moves_its_joint_and_rows_follow_the_core(qtbot, world,
                                                                 no_modal_dialogs):
    world.selection.select("robot_321::link_1")
    panel = JointSlidersPanel(world)
    show(qtbot, panel, 420, 700)
    all_built(qtbot, panel)
    poses = world.live.poses
    keys = ["robot_321::link_1", "robot_321::link_2", "robot_321::link_6", "robot_320::link_2"]
    before = {k: poses.pose(k).copy() for k in keys}
    row = panel.rows["robot_321::joint_2"]
    assert (row.low.text(), row.high.text()) == ("−180.0°", "180.0°")

    QTest.keyClick(row.slider, QtCore.Qt.Key.Key_PageUp)
    theta = math.radians(15)
    assert world.live.joints.position("robot_321::joint_2") == pytest.approx(theta)
    assert row.field.text() == "15.0"
    # joint_2 sits at link_2's origin and turns about its y axis: link_2 turns in place
    c, s = math.cos(theta), math.sin(theta)
    R_y = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    link_2 = poses.pose("robot_321::link_2")
    np.testing.assert_allclose(link_2[:3, :3], before["robot_321::link_2"][:3, :3] @ R_y,
                               atol=1e-9)
    np.testing.assert_allclose(link_2[:3, 3], before["robot_321::link_2"][:3, 3], atol=1e-9)
    assert not np.allclose(poses.pose("robot_321::link_6"), before["robot_321::link_6"])
    for key in ("robot_321::link_1", "robot_320::link_2"):
        np.testing.assert_allclose(poses.pose(key), before[key])
    assert len(world.document.commands) == 0

    # moved elsewhere (the console): the shown row follows
    world.live.joints.set_position("robot_321::joint_3", math.radians(-30))
    assert panel.rows["robot_321::joint_3"].slider.value() == -300   # 0.1° a tick
    # beyond the limit from the field: clamped, and the row says so
    field = panel.rows["robot_321::joint_5"].field
    field.setFocus()
    field.lineEdit().selectAll()
    QTest.keyClicks(field.lineEdit(), "200")
    QTest.keyClick(field.lineEdit(), QtCore.Qt.Key.Key_Return)
    assert world.live.joints.position("robot_321::joint_5") == pytest.approx(3.14159)
    assert "beyond the upper limit" in panel.rows["robot_321::joint_5"].note.text()
    assert no_modal_dialogs == []


def test_reset_also_resets_the_joints_not_shown(qtbot, world, no_modal_dialogs):
    panel = JointSlidersPanel(world)
    show(qtbot, panel, 420, 700)
    all_built(qtbot, panel)
    poses = world.live.poses
    written = {k: poses.pose(k).copy() for k in ("robot_0::link_1", "robot_999::link_4")}
    QTest.keyClick(panel.rows["robot_0::joint_1"].slider, QtCore.Qt.Key.Key_PageUp)
    apply_filter(panel, "robot_999::")
    qtbot.waitUntil(lambda: list(panel.rows) == robot_joints(999))
    QTest.keyClick(panel.rows["robot_999::joint_4"].slider, QtCore.Qt.Key.Key_PageDown)
    apply_filter(panel, "robot_5::")
    qtbot.waitUntil(lambda: list(panel.rows) == robot_joints(5))
    assert set(world.live.joints.positions) == {"robot_0::joint_1", "robot_999::joint_4"}
    for key, X in written.items():
        assert not np.allclose(poses.pose(key), X)

    assert panel.reset_button.isEnabled()
    QTest.mouseClick(panel.reset_button, LEFT, NONE)
    assert world.live.joints.positions == {}
    for key, X in written.items():
        np.testing.assert_allclose(poses.pose(key), X)
    assert not panel.reset_button.isEnabled()
    apply_filter(panel, "")
    qtbot.waitUntil(lambda: "robot_0::joint_1" in panel.rows)
    assert panel.rows["robot_0::joint_1"].slider.value() == 0
    assert panel.rows["robot_0::joint_1"].field.text() == "0.0"
    assert no_modal_dialogs == []


def test_when_every_joint_has_a_row_the_selection_scrolls_to_its_model(qtbot, session,
                                                                        no_modal_dialogs):
    panel = JointSlidersPanel(session)
    show(qtbot, panel, 420, 130)       # room for about two rows of the four
    order = ["arm::shoulder", "arm::elbow", "gripper::left_slide", "gripper::right_slide"]
    assert list(panel.rows) == order and not panel.summary.isVisible()
    bar, viewport = panel.scroll.verticalScrollBar(), panel.scroll.viewport()
    slide = panel.rows["gripper::left_slide"]

    def slide_in_view() -> bool:
        top = slide.mapTo(viewport, QtCore.QPoint(0, 0)).y()
        return 0 <= top and top + slide.height() <= viewport.height()

    assert bar.value() == 0 and not slide_in_view()
    session.selection.select("gripper::right_finger")
    qtbot.waitUntil(slide_in_view)
    assert bar.value() > 0
    assert list(panel.rows) == order                    # rows keep the document's order
    assert no_modal_dialogs == []
