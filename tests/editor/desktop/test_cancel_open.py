"""Opening a large world through File ▸ Open while a document is open and edited: the
event loop keeps turning during the load, and the progress bar's Cancel, pressed in
the middle, leaves the open document, its tab and its undo stack exactly as they were."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from snapframe.core.model.edits import SetPose
from snapframe.core.pose import Pose
from snapframe.editor.desktop.jobs import CANCELLED

LEFT = QtCore.Qt.MouseButton.LeftButton
REPO = Path(__file__).resolve().parents[3]
#: The event loop may not stand still longer than this while a file loads (a bound on
#: responsiveness: a user's click waits at most this long; not a speed measurement).
MAX_TICK_GAP_S = 0.25

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")


def generate_world(n: int, folder: Path) -> Path:
    """benchmarks/gen_include_world.py: N chained includes of a 6-link robot."""
    spec = importlib.util.spec_from_file_location(
        "gen_include_world", REPO / "benchmarks" / "gen_include_world.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate(n, folder)


class Ticks:
    """Times of the event loop's turns: a 10 ms timer that notes each time it fires."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.timer = QtCore.QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(lambda: self.times.append(time.perf_counter()))
        self.timer.start()

    def max_gap(self, start: float, end: float, through_end: bool = True) -> float:
        """The longest time without a turn from the last turn before ``start`` to the
        first turn after ``end`` (``through_end`` False: to the last turn before it)."""
        before = [t for t in self.times if t <= start][-1:]
        after = [t for t in self.times if t >= end][:1] if through_end else []
        inside = [t for t in self.times if start < t < end]
        points = before + inside + after
        assert before and (after or not through_end), "the timer did not run around the load"
        assert len(points) > 2, "the loop did not turn during the load"
        return max(b - a for a, b in zip(points, points[1:]))


def test_cancel_in_the_middle_of_a_large_open_leaves_the_open_document_untouched(
        qtbot, window, example_copy, tmp_path, monkeypatch):
    # the document the user works on: open, and edited (one undo step)
    session = window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    doc = session.document
    assert session.push(SetPose(doc, doc.element("gripper"), Pose.from_xyz_rpy(0, 0, 0.05),
                                "arm::gripper_mount"))
    tab, stack = window.tabs.widget(0), doc.commands
    steps, label = len(stack), stack.undo_label
    poses = {k: doc.live.poses.pose(k).copy() for k in doc.live.poses.keys}
    recent = window.settings.value("recent", [], list)
    documents = window.included_files.documents()
    tree = window._trees.currentWidget()

    world = generate_world(1000, tmp_path / "big")
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName",
                        lambda *a, **k: (str(world), ""))
    ticks = Ticks()
    qtbot.wait(50)
    pressed: list[float] = []

    def press_cancel_midway(fraction, _text) -> None:
        # the bar is shown and the load is under way, not over: the user presses Cancel
        if not pressed and fraction is not None and 0.3 <= fraction < 1.0 and \
                window.progress.isVisible():
            pressed.append(fraction)
            QTest.mouseClick(window.progress.cancel_button, LEFT)

    start = time.perf_counter()
    window.act_open.trigger()                     # File ▸ Open (the dialog answers `world`)
    [job] = window.jobs.jobs
    assert job.path == str(world.resolve())
    job.progressed.connect(press_cancel_midway)
    assert job.wait(120)
    end = time.perf_counter()
    qtbot.waitUntil(lambda: ticks.times[-1] > end, timeout=2000)

    assert pressed, "the load ended before it reached the middle"
    assert job.state == CANCELLED
    assert ticks.max_gap(start, end) < MAX_TICK_GAP_S
    # nothing changed: the same tab, session, document, undo stack and poses
    assert window.tabs.count() == 1 and window.tabs.widget(0) is tab
    assert window.session is session and session.document is doc
    assert doc.commands is stack and len(stack) == steps and stack.undo_label == label
    assert not stack.is_clean and window.tabs.tabText(0).endswith("*")
    assert set(doc.live.poses.keys) == set(poses)
    for key, X in poses.items():
        np.testing.assert_array_equal(doc.live.poses.pose(key), X)
    assert window._trees.currentWidget() is tree
    assert window.included_files.documents() == documents
    assert window.settings.value("recent", [], list) == recent
    assert window.last_error == ""
    assert not window.progress.isVisible()
    assert job.join(10)                           # and the worker has stopped
    # and it is still the document the user edits: Undo takes the edit back
    window.act_undo.trigger()
    assert stack.is_clean and stack.can_redo


def test_the_loop_keeps_turning_through_a_whole_large_open(qtbot, window, tmp_path):
    """A complete background open of the same world: the worker's part never holds the
    event loop up; the tab is built on the UI thread afterwards, in one step."""
    world = generate_world(1000, tmp_path / "big")
    ticks = Ticks()
    qtbot.wait(50)
    worker: list[float] = []
    start = time.perf_counter()
    job = window.open_in_background(world)
    job.finished.connect(lambda j: worker.append(start + j.seconds))
    assert job.wait(120) and job.state == "done"
    qtbot.waitUntil(lambda: bool(worker))
    # (up to the worker's end: its result is then shown, which the UI thread does)
    assert ticks.max_gap(start, worker[0], through_end=False) < MAX_TICK_GAP_S
    assert window.tabs.count() == 1
    assert window.session.document.element("robot_999::tool") is not None
