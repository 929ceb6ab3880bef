"""The mass table panel (run under Xvfb)."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore, QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.core.live.masstable import mass_table  # noqa: E402
from snapframe.editor.assembling import MassTablePanel  # noqa: E402
from snapframe.editor.assembling._common import num  # noqa: E402
from snapframe.editor.assembling.mass_table import HEADERS  # noqa: E402
from snapframe.editor.session import DocumentSession  # noqa: E402
from widget_actions import LEFT, show  # noqa: E402


CELL = """<?xml version="1.0"?>
<sdf version="1.11">
  <model name="cell">
    <include><uri>file://arm_and_gripper.sdf</uri><name>robot</name></include>
    <link name="table">
      <pose>0.6 0 0.35 0 0 0</pose>
      <inertial auto="true"><density>700</density></inertial>
      <collision name="top"><geometry><box><size>0.8 0.6 0.04</size></box></geometry></collision>
    </link>
    <link name="camera_mount"><pose>0.6 0.2 0.6 0 0 0</pose></link>
    <joint name="fix_table" type="fixed">
      <parent>robot::arm::body</parent><child>table</child>
    </joint>
  </model>
</sdf>
"""


def cell(panel: MassTablePanel, row: int, column: str) -> str:
    return panel.model.index(row, HEADERS.index(column)).data()


def click_row(view: QtWidgets.QTableView, row: int) -> None:
    index = view.model().index(row, 0)
    QTest.mouseClick(view.viewport(), LEFT, QtCore.Qt.KeyboardModifier.NoModifier,
                     view.visualRect(index).center())


@pytest.fixture
def cell_session(qtbot, example_copy):
    """The arm and gripper included in a cell with an automatic table and a link without
    inertia."""
    folder = example_copy("arm_gripper")
    (folder / "cell.sdf").write_text(CELL)
    return DocumentSession.open(folder / "cell.sdf")


def test_rows_and_totals_are_those_of_mass_table(qtbot, cell_session):
    panel = MassTablePanel(cell_session)
    show(qtbot, panel, 900, 360)
    expected = mass_table(cell_session.document)
    keys = [r.key for r in expected.rows]
    assert [panel.model.key(r) for r in range(len(keys))] == keys
    totals = len(keys)
    assert panel.model.rowCount() == totals + 1 and panel.model.key(totals) is None
    assert cell(panel, totals, "Link") == "Total (7 links)"
    assert cell(panel, totals, "Mass [kg]") == f"{expected.total_mass:.4f}"
    assert panel.table.total_mass == pytest.approx(expected.total_mass)
    for i, axis in enumerate("xyz"):
        assert cell(panel, totals, f"COM {axis} [m]") == num(expected.com[i], 4)
    for i, name in enumerate(("Ixx", "Iyy", "Izz")):
        assert cell(panel, totals, f"{name} [kg·m²]") == f"{expected.inertia[i, i]:.3e}"
    # the robot's six written links (5 kg) and the table computed from its box
    assert expected.total_mass == pytest.approx(5.0 + 0.8 * 0.6 * 0.04 * 700)
    table_row = keys.index("table")
    assert cell(panel, table_row, "Source") == "computed"
    assert cell(panel, table_row, "Mass [kg]") == "13.4400"
    assert cell(panel, table_row, "COM x [m]") == "0.6000"


def test_a_link_without_inertia_is_listed_missing_and_left_out(qtbot, cell_session):
    panel = MassTablePanel(cell_session)
    show(qtbot, panel, 900, 360)
    row = panel.model.row_of("camera_mount")
    assert cell(panel, row, "Source") == "missing"
    assert cell(panel, row, "Mass [kg]") == "—"
    assert cell(panel, panel.model.rowCount() - 1, "Source") == "1 missing"
    assert "1 without inertia, not counted: camera_mount" in panel.summary.text()


def test_clicking_a_row_selects_the_link_and_the_selection_shows_its_row(qtbot, cell_session):
    panel = MassTablePanel(cell_session)
    show(qtbot, panel, 900, 360)
    row = panel.model.row_of("robot::arm::forearm")
    click_row(panel.view, row)
    assert cell_session.selection.active == "robot::arm::forearm"
    click_row(panel.view, panel.model.rowCount() - 1)     # the totals select nothing
    assert cell_session.selection.active == "robot::arm::forearm"
    cell_session.selection.select("table")
    assert panel.view.selectionModel().currentIndex().row() == panel.model.row_of("table")


def test_moving_a_joint_moves_the_centres_of_mass(qtbot, cell_session):
    panel = MassTablePanel(cell_session)
    show(qtbot, panel, 900, 360)
    row = panel.model.row_of("robot::arm::forearm")
    assert cell(panel, row, "COM x [m]") == "0.0000"
    cell_session.live.joints.set_position("robot::arm::shoulder", math.pi / 2)
    # about y through (0, 0, 0.1): the forearm's centre, 0.7 m above, swings to +x
    qtbot.waitUntil(lambda: cell(panel, row, "COM x [m]") == "0.7000")
    assert cell(panel, row, "COM z [m]") == "0.1000"
    np.testing.assert_allclose(panel.table.com, mass_table(cell_session.document).com)


def test_bake_computed_inertia_is_one_undo_step(qtbot, cell_session):
    panel = MassTablePanel(cell_session)
    show(qtbot, panel, 900, 360)
    document = cell_session.document
    inertial = document.element("table").inertial
    assert inertial.mass is None
    assert panel.bake_button.isEnabled() and panel.bake_button.text() == \
        "Bake computed inertia (1)"
    QTest.mouseClick(panel.bake_button, LEFT)
    assert len(document.commands) == 1
    assert inertial.mass == pytest.approx(13.44) and inertial.auto
    assert inertial.izz == pytest.approx(13.44 * (0.8 ** 2 + 0.6 ** 2) / 12)
    qtbot.waitUntil(lambda: not panel.bake_button.isEnabled())   # nothing new to write
    cell_session.undo()
    assert inertial.mass is None
    qtbot.waitUntil(panel.bake_button.isEnabled)


def test_bake_with_nothing_computed_says_why(qtbot, session):
    panel = MassTablePanel(session)
    show(qtbot, panel, 900, 360)
    assert not panel.bake_button.isEnabled()
    assert not panel.bake()
    assert "no computed inertia" in panel.status.text()
    assert len(session.document.commands) == 0


def test_refresh_waits_while_hidden(qtbot, cell_session):
    panel = MassTablePanel(cell_session)
    show(qtbot, panel, 900, 360)
    panel.hide()
    cell_session.live.joints.set_position("robot::arm::shoulder", math.pi / 2)
    qtbot.wait(150)
    row = panel.model.row_of("robot::arm::forearm")
    assert cell(panel, row, "COM x [m]") == "0.0000"       # not recomputed while hidden
    panel.show()
    assert cell(panel, row, "COM x [m]") == "0.7000"
