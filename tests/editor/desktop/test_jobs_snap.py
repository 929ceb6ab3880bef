"""A typed mate value in a large OpenPLX assembly: SNAP solves on a worker, the edit
and its result land as one undo step, exactly as the synchronous edit would place the
bodies; the progress bar's Cancel leaves the assembly as it was."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from snapframe.core.loading import LoadContext, load
from snapframe.core.model.edits import SetMate
from snapframe.editor.assembling.snap_panel import BACKGROUND_SNAP_FRAMES
from snapframe.editor.desktop.jobs import CANCELLED, DONE

LEFT = QtCore.Qt.MouseButton.LeftButton
BODIES = 500

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")

LINK = """\
Link is Physics3D.Bodies.RigidBody:
    start is Physics3D.Interactions.MateConnector
    end is Physics3D.Interactions.MateConnector:
        position: Math.Vec3.from_xyz(1, 0, 0)
"""


def chain(n: int) -> str:
    """``n`` links of 1 m, each hinged to the previous one's end (the first to an
    anchor), every hinge at 0.01 rad."""
    lines = [LINK, "Chain is Physics3D.System:",
             "    anchor is Physics3D.Interactions.MateConnector"]
    lines += [f"    link{i} is Link" for i in range(n)]
    previous = "anchor"
    for i in range(n):
        lines += [f"    hinge{i} is Physics3D.Interactions.Hinge:",
                  f"        connectors: [{previous}, link{i}.start]",
                  "        initial_angle: 0.01"]
        previous = f"link{i}.end"
    return "\n".join(lines) + "\n"


@pytest.fixture
def chain_file(tmp_path) -> Path:
    path = tmp_path / "chain.openplx"
    path.write_text(chain(BODIES), encoding="utf-8")
    return path


def poses(doc) -> dict[str, np.ndarray]:
    table = doc.live.poses
    return {k: table.pose(k).copy() for k in table.keys}


def open_chain(qtbot, window, path):
    session = window.open(path)
    window.snap_dock.show()
    window.snap_dock.raise_()
    panel = window.snap
    qtbot.waitUntil(lambda: panel.session is session)
    assert len(session.live.snap.status) >= BACKGROUND_SNAP_FRAMES
    return session, panel


def test_a_typed_mate_value_is_solved_in_the_background_as_one_undo_step(
        qtbot, window, chain_file):
    session, panel = open_chain(qtbot, window, chain_file)
    doc = session.document
    before, steps = poses(doc), len(doc.commands)
    assert panel.set_mate_value("hinge100", "initial_angle", 0.3) == ""
    [job] = window.jobs.jobs
    assert doc.element("hinge100").initial_angle == pytest.approx(0.01)   # not yet
    assert job.wait(60) and job.state == DONE
    assert doc.element("hinge100").initial_angle == pytest.approx(0.3)
    assert len(doc.commands) == steps + 1 and doc.commands.undo_label == "Edit mate hinge100"
    # the same bodies where a synchronous edit of a fresh copy puts them
    fresh = load(chain_file, LoadContext(use_environment=False))
    fresh.live
    fresh.commands.push(SetMate(fresh, fresh.element("hinge100"), initial_angle=0.3))
    after, expected = poses(doc), poses(fresh)
    assert after.keys() == expected.keys()
    for key in expected:
        np.testing.assert_allclose(after[key], expected[key], atol=1e-9, err_msg=key)
    # links after the hinge turned by 0.29 rad more; those before did not move
    np.testing.assert_array_equal(after["link50"], before["link50"])
    assert not np.allclose(after["link300"], before["link300"])
    # SNAP's findings and status follow the result
    assert session.live.snap.status.get("Chain.link300") == "snapped"
    window.act_undo.trigger()
    assert doc.element("hinge100").initial_angle == pytest.approx(0.01)
    for key, X in before.items():
        np.testing.assert_allclose(doc.live.poses.pose(key), X, atol=1e-9, err_msg=key)


def test_cancel_while_snap_solves_leaves_the_assembly_as_it_was(qtbot, window, chain_file):
    session, panel = open_chain(qtbot, window, chain_file)
    doc = session.document
    before, steps = poses(doc), len(doc.commands)
    assert panel.set_mate_value("hinge10", "initial_angle", math.radians(45)) == ""
    [job] = window.jobs.jobs
    assert window.progress.isVisible()
    QTest.mouseClick(window.progress.cancel_button, LEFT)    # before the end is delivered
    assert job.wait(60) and job.state == CANCELLED
    assert doc.element("hinge10").initial_angle == pytest.approx(0.01)
    assert len(doc.commands) == steps
    after = poses(doc)
    for key, X in before.items():
        np.testing.assert_array_equal(after[key], X, err_msg=key)


def test_the_newest_value_typed_wins(qtbot, window, chain_file):
    session, panel = open_chain(qtbot, window, chain_file)
    doc = session.document
    steps = len(doc.commands)
    assert panel.set_mate_value("hinge5", "initial_angle", 0.2) == ""
    [first] = window.jobs.jobs
    assert panel.set_mate_value("hinge5", "initial_angle", 0.4) == ""
    assert first.cancel_requested
    [second] = [j for j in window.jobs.jobs if j is not first]
    assert second.wait(60) and first.wait(60)
    assert first.state == CANCELLED and second.state == DONE
    assert doc.element("hinge5").initial_angle == pytest.approx(0.4)
    assert len(doc.commands) == steps + 1


def test_values_of_two_mates_typed_while_snap_solves_land_in_order_as_two_steps(
        qtbot, window, chain_file):
    """The second mate waits for the first's solve to land and is solved from the
    document as that left it: the bodies end where two synchronous edits put them."""
    session, panel = open_chain(qtbot, window, chain_file)
    doc = session.document
    steps = len(doc.commands)
    assert panel.set_mate_value("hinge10", "initial_angle", 0.3) == ""
    assert panel.set_mate_value("hinge20", "initial_angle", 0.4) == ""
    [first] = window.jobs.jobs                 # one solve at a time
    assert first.wait(60) and first.state == DONE
    qtbot.waitUntil(lambda: not window.jobs.jobs, timeout=60000)
    assert len(doc.commands) == steps + 2
    assert doc.commands.undo_label == "Edit mate hinge20"
    fresh = load(chain_file, LoadContext(use_environment=False))
    fresh.live
    fresh.commands.push(SetMate(fresh, fresh.element("hinge10"), initial_angle=0.3))
    fresh.commands.push(SetMate(fresh, fresh.element("hinge20"), initial_angle=0.4))
    after, expected = poses(doc), poses(fresh)
    for key in expected:
        np.testing.assert_allclose(after[key], expected[key], atol=1e-9, err_msg=key)
    window.act_undo.trigger()                  # the second step only
    assert doc.element("hinge20").initial_angle == pytest.approx(0.01)
    assert doc.element("hinge10").initial_angle == pytest.approx(0.3)


def test_a_result_solved_for_a_document_edited_meanwhile_is_not_applied(
        qtbot, window, chain_file):
    """An edit made while SNAP solves (here another mate's value, set by a script)
    makes the result stale: the typed value is then solved on the UI thread, from the
    document as it is, and the bodies end where the two synchronous edits put them."""
    session, panel = open_chain(qtbot, window, chain_file)
    doc = session.document
    assert panel.set_mate_value("hinge100", "initial_angle", 0.3) == ""
    [job] = window.jobs.jobs
    assert session.make(SetMate, doc.element("hinge300"), initial_angle=-0.2)
    assert job.wait(60) and job.state == DONE
    assert doc.element("hinge100").initial_angle == pytest.approx(0.3)
    assert doc.element("hinge300").initial_angle == pytest.approx(-0.2)
    fresh = load(chain_file, LoadContext(use_environment=False))
    fresh.live
    fresh.commands.push(SetMate(fresh, fresh.element("hinge300"), initial_angle=-0.2))
    fresh.commands.push(SetMate(fresh, fresh.element("hinge100"), initial_angle=0.3))
    after, expected = poses(doc), poses(fresh)
    for key in expected:
        np.testing.assert_allclose(after[key], expected[key], atol=1e-9, err_msg=key)


def test_closing_the_tab_cancels_its_snap(qtbot, window, chain_file):
    session, panel = open_chain(qtbot, window, chain_file)
    doc = session.document
    steps = len(doc.commands)
    assert panel.set_mate_value("hinge100", "initial_angle", 0.3) == ""
    [job] = window.jobs.jobs
    assert window.close_tab(window.tabs.indexOf(window.current))
    assert job.cancel_requested
    assert job.wait(60) and job.state == CANCELLED
    assert len(doc.commands) == steps
    assert doc.element("hinge100").initial_angle == pytest.approx(0.01)
