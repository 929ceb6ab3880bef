"""What keeps a large world interactive: picking through cell locators that follow the
meshes as they move, one frame per click, and a chain of transforms that lists the
steps nearest the element (and comes a turn after the click in a large scene)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from snapframe.core.model.edits import SetPose
from snapframe.core.pose import Pose
from snapframe.editor.inspector import CHAIN_LATER_KEYS, CHAIN_STEPS_SHOWN
from snapframe.editor.teaching import explain_steps
from snapframe.editor.viewport.widget import LOCATOR_MIN_CELLS

LEFT = QtCore.Qt.MouseButton.LeftButton
NONE = QtCore.Qt.KeyboardModifier.NoModifier
REPO = Path(__file__).resolve().parents[3]
ROBOTS = 200

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")


@pytest.fixture
def world(tmp_path) -> Path:
    spec = importlib.util.spec_from_file_location(
        "gen_include_world", REPO / "benchmarks" / "gen_include_world.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate(ROBOTS, tmp_path)


def shown(qtbot, window, path):
    session = window.open(path)
    view = window.current.viewport
    qtbot.waitUntil(lambda: view.render_count > 0)
    return session, view


def test_picking_follows_a_moved_robot_and_a_click_draws_one_frame(qtbot, window, world):
    session, view = shown(qtbot, window, world)
    doc = session.document
    assert view.mirror.visuals.mesh.GetNumberOfPolys() >= LOCATOR_MIN_CELLS
    view.focus("robot_120")
    X = doc.live.poses.pose("robot_120::link_3")
    centre = X[:3, 3] + X[:3, :3] @ np.array([0.0, 0.0, 0.125])   # mid-link, on its axis
    pixel = view.pixel_of(centre)
    hit = view.surface_at(pixel.x(), pixel.y())         # (its locator: the visuals')
    assert hit is not None
    key = view.key_at(pixel.x(), pixel.y())
    assert key is not None
    robot = hit.key.split("::")[0]
    # a click selects it and draws the frame that shows it once
    count = view.render_count
    QTest.mouseClick(view.widget, LEFT, NONE, pixel)
    assert session.selection.keys == [key.partition("#")[0]]
    assert view.render_count == count + 1
    # that robot moved 50 m along its include frame's z: the pixel no longer shows it,
    # and the place the picked point went to does
    include = doc.element(robot)
    T_old = doc.live.poses.pose(robot)
    moved = include.pose.value @ Pose.translation(0, 0, 50.0)
    assert session.push(SetPose(doc, include, moved, include.pose.relative_to))
    view.render()
    other = view.key_at(pixel.x(), pixel.y())
    assert other is None or other.split("::")[0] != robot
    T_new = doc.live.poses.pose(robot)
    assert np.linalg.norm(T_new[:3, 3] - T_old[:3, 3]) == pytest.approx(50.0)
    point = (T_new @ np.linalg.inv(T_old) @ np.append(hit.point, 1.0))[:3]
    view.focus(robot)
    there = view.pixel_of(point)
    found = view.key_at(there.x(), there.y())
    assert found is not None and found.split("::")[0] == robot


def test_the_chain_box_lists_the_steps_nearest_the_element(qtbot, window, world):
    session, view = shown(qtbot, window, world)
    doc = session.document
    inspector = window.inspector
    assert len(doc.live.poses) > CHAIN_LATER_KEYS        # a large scene
    key = "robot_150::tool"
    steps = explain_steps(doc, key)
    assert len(steps) > CHAIN_STEPS_SHOWN
    session.selection.select(key)
    assert inspector.key == key                           # the fields at once...
    qtbot.waitUntil(lambda: f"{len(steps)}. " in inspector.chain_view.toPlainText())
    text = inspector.chain_view.toPlainText()              # ...the chain a turn later
    first = len(steps) - CHAIN_STEPS_SHOWN + 1
    assert f"{first - 1} earlier steps place" in text
    numbered = [f"{i}. " for i in range(first, len(steps) + 1)]
    positions = [text.index(n) for n in numbered]
    assert positions == sorted(positions)
    assert f"\n{first - 1}. " not in text and not text.startswith("1. ")
    # the last step ends where the pose table puts the tool
    np.testing.assert_allclose(steps[-1].composed.matrix(), doc.live.poses.pose(key),
                               atol=1e-9)
