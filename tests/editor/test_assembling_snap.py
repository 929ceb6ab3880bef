"""The SNAP panel on the bundled OpenPLX examples (run under Xvfb)."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore, QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.editor.assembling import SnapPanel  # noqa: E402
from snapframe.editor.assembling.snap_panel import snap_keys  # noqa: E402
from snapframe.editor.session import DocumentSession  # noqa: E402
from widget_actions import LEFT, NONE, show, type_into  # noqa: E402


def click_cell(table: QtWidgets.QTableWidget, row: int, column: int) -> None:
    item = table.item(row, column)
    QTest.mouseClick(table.viewport(), LEFT, NONE, table.visualItemRect(item).center())


def hand_direction(session: DocumentSession) -> np.ndarray:
    """Where the clock's hand points (its local x axis) in the world."""
    return session.live.poses.pose("hour_hand")[:3, 0]


@pytest.fixture
def clock(qtbot, example_copy):
    return DocumentSession.open(example_copy("openplx") / "clock.openplx")


@pytest.fixture
def rod(qtbot, example_copy):
    return DocumentSession.open(example_copy("openplx") / "three_level_rod.openplx")


def test_lists_the_mate_its_values_and_snaps_result(qtbot, clock):
    panel = SnapPanel(clock)
    show(qtbot, panel, 640, 620)
    assert panel.mate_keys == ["hand_hinge"]
    mates = panel.mates
    assert mates.item(0, 0).text() == "hand_hinge"
    assert mates.cellWidget(0, 1).currentText() == "hinge"
    assert mates.item(0, 2).text() == "face.center  ↔  hour_hand.pivot"
    assert mates.cellWidget(0, 3).text() == "90.00"          # Math.PI / 2 in degrees
    assert not mates.cellWidget(0, 4).isEnabled()            # a hinge has no position
    assert mates.item(0, 5).text() == "satisfied"
    assert panel.body_keys == ["face", "hour_hand"]
    assert [panel.bodies.item(r, 2).text() for r in range(2)] == ["declared", "snapped"]
    assert panel.tabs.tabText(0) == "Findings (0)"
    bar = panel.tabs.tabBar()
    QTest.mouseClick(bar, LEFT, NONE, bar.tabRect(1).center())     # the Trace tab
    assert panel.trace.toPlainText().startswith("SNAP 'Clock': 1 systems, 2 bodies")


def test_typing_the_initial_angle_turns_the_hand_and_undo_turns_it_back(qtbot, clock):
    panel = SnapPanel(clock)
    show(qtbot, panel, 640, 620)
    # three o'clock: the hand points along the world's -x (the face's front is +y)
    np.testing.assert_allclose(hand_direction(clock), [-1, 0, 0], atol=1e-12)
    moved = []
    clock.posesChanged.connect(lambda e: moved.append(e.keys))
    type_into(panel.mates.cellWidget(0, 3), "45")
    mate = clock.document.element("hand_hinge")
    assert mate.initial_angle == pytest.approx(math.pi / 4)
    assert len(clock.document.commands) == 1
    assert any("hour_hand" in keys for keys in moved)
    # the hinge turns the hand about the face's -y axis through the centre connector:
    # from twelve (+z) by 45 degrees towards three (-x)
    s = math.sin(math.pi / 4)
    np.testing.assert_allclose(hand_direction(clock), [-s, 0, s], atol=1e-12)
    np.testing.assert_allclose(clock.live.poses.pose("hour_hand")[:3, 3], [0, 0.01, 1.5],
                               atol=1e-12)
    clock.undo()
    np.testing.assert_allclose(hand_direction(clock), [-1, 0, 0], atol=1e-12)
    qtbot.waitUntil(lambda: panel.mates.cellWidget(0, 3).text() == "90.00")


def test_stepping_the_angle_with_arrow_keys_is_one_undo_step(qtbot, clock):
    panel = SnapPanel(clock)
    show(qtbot, panel, 640, 620)
    field = panel.mates.cellWidget(0, 3)
    field.setFocus()
    for _ in range(3):
        QTest.keyClick(field, QtCore.Qt.Key.Key_Down)
        qtbot.wait(1)
    assert clock.document.element("hand_hinge").initial_angle == \
        pytest.approx(math.radians(87))
    assert len(clock.document.commands) == 1
    qtbot.wait(20)   # the panel's refresh after each step
    assert panel.mates.cellWidget(0, 3) is field        # not rebuilt under the user's keys
    assert field.text() == "87.00"
    clock.undo()
    assert clock.document.element("hand_hinge").initial_angle == pytest.approx(math.pi / 2)


def test_changing_the_type_pushes_set_mate(qtbot, clock):
    panel = SnapPanel(clock)
    show(qtbot, panel, 640, 620)
    combo = panel.mates.cellWidget(0, 1)
    combo.setFocus()
    QTest.keyClick(combo, QtCore.Qt.Key.Key_Up)        # hinge -> lock (the one before)
    assert clock.document.element("hand_hinge").type == "lock"
    assert len(clock.document.commands) == 1
    qtbot.waitUntil(lambda: not panel.mates.cellWidget(0, 3).isEnabled())   # a lock has no angle
    clock.undo()
    assert clock.document.element("hand_hinge").type == "hinge"
    qtbot.waitUntil(lambda: panel.mates.cellWidget(0, 1).currentText() == "hinge")


def test_declaring_the_hand_then_locking_it_is_violated_and_shown(qtbot, clock):
    panel = SnapPanel(clock)
    show(qtbot, panel, 640, 620)
    check = panel.bodies.cellWidget(1, 1).findChild(QtWidgets.QCheckBox)
    assert not check.isChecked()
    QTest.mouseClick(check, LEFT)
    assert clock.document.element("hour_hand").pose.written
    qtbot.waitUntil(lambda: panel.bodies.item(1, 2).text() == "declared")
    panel.set_mate_type("hand_hinge", "lock")
    qtbot.waitUntil(lambda: panel.mates.item(0, 5).text() == "violated")
    assert panel.tabs.tabText(0) == "Findings (1)"
    finding = panel.findings.item(0)
    assert "hand_hinge" in finding.text() and "violated" in finding.text()
    panel.findings.scrollToItem(finding)
    QTest.mouseClick(panel.findings.viewport(), LEFT, NONE,
                     panel.findings.visualItemRect(finding).center())
    assert clock.selection.active == "hand_hinge"
    assert "1 mate violated" in panel.summary.text()
    clock.undo()
    clock.undo()
    assert not clock.document.element("hour_hand").pose.written
    qtbot.waitUntil(lambda: panel.bodies.item(1, 2).text() == "snapped")
    assert panel.mates.item(0, 5).text() == "satisfied"


def test_freeing_a_declared_system_lets_snap_place_it(qtbot, rod):
    panel = SnapPanel(rod)
    show(qtbot, panel, 640, 620)
    assert panel.body_keys == ["rod_system", "rod_system::rod_system",
                               "rod_system::rod_system::rod"]
    row = panel.body_keys.index("rod_system::rod_system")
    check = panel.bodies.cellWidget(row, 1).findChild(QtWidgets.QCheckBox)
    assert check.isChecked()
    QTest.mouseClick(check, LEFT)
    assert len(rod.document.commands) == 1
    assert not rod.document.element("rod_system::rod_system").pose.written
    qtbot.waitUntil(lambda: panel.bodies.item(row, 2).text() == "forced")
    assert "1 forced" in panel.summary.text()
    rod.undo()
    qtbot.waitUntil(lambda: panel.bodies.item(row, 2).text() == "declared")
    assert panel.bodies.cellWidget(row, 1).findChild(QtWidgets.QCheckBox).isChecked()


def test_clicking_a_mate_or_a_body_selects_it(qtbot, rod):
    panel = SnapPanel(rod)
    show(qtbot, panel, 640, 620)
    click_cell(panel.mates, 0, 0)
    assert rod.selection.active == "world_lock"
    click_cell(panel.bodies, 2, 0)
    assert rod.selection.active == "rod_system::rod_system::rod"


def test_snap_paths_map_to_keys(rod):
    keys = snap_keys(rod.document)
    assert keys["SnapRodParentParent.rod_system.rod_system.rod"] == "rod_system::rod_system::rod"
    assert keys["SnapRodParentParent.world_lock"] == "world_lock"


def test_documents_without_mates_say_so(qtbot, session):
    panel = SnapPanel(session)
    show(qtbot, panel, 640, 620)
    assert panel.placeholder.isVisible() and not panel.content.isVisible()
    assert "no mates" in panel.placeholder.text()
    assert not panel.make_box.isVisible()      # SDFormat cannot keep mates
    panel.set_session(None)
    assert panel.placeholder.text() == "No document"
