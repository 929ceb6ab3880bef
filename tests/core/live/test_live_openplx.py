"""OpenPLX documents: mates and mate connectors edited through commands re-run SNAP; the
assembly equals what SNAP makes of the saved file (the plugin's own read path, as
``snapframe snap`` does), and undo restores the previous assembly."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from live_checks import Recorder, reference_poses

from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Link, Mate
from snapframe.core.model.edits import (AddMate, AddMateConnector, RemoveNode, SetDeclared,
                                        SetMate, SetPose)
from snapframe.core.pose import Pose

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "resources" / "examples" / "openplx"


@pytest.fixture
def clock(tmp_path):
    path = tmp_path / "clock.openplx"
    shutil.copy(EXAMPLES / "clock.openplx", path)
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.errors
    return doc


def body_poses(doc) -> dict[str, np.ndarray]:
    """World poses of the bodies (links), by key."""
    return {k: X for k, X in doc.live.poses.as_dict().items()
            if isinstance(doc.element(k), Link) and "#" not in k}


def snap_of_saved(doc, tmp_path: Path, name: str) -> dict[str, np.ndarray]:
    """Save as OpenPLX, read it back through the plugin (which runs SNAP): body poses."""
    out = tmp_path / name
    doc.save(out)
    fresh = load(out, LoadContext(use_environment=False))
    assert not fresh.diagnostics.errors, [str(d) for d in fresh.diagnostics.errors]
    return body_poses(fresh)


def assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert np.allclose(a[k], b[k], atol=1e-9), k


def hand_angle(doc) -> float:
    """The hour hand's direction in the face plane: 0 at twelve, clockwise positive."""
    X = doc.live.poses.pose("hour_hand")
    x_axis = X[:3, 0]  # the hand points along its local +x
    return math.atan2(x_axis[0], x_axis[2])


def test_mates_and_connectors_are_core_nodes(clock):
    doc = clock
    hinge = doc.element("hand_hinge")
    assert isinstance(hinge, Mate) and hinge.type == "hinge"
    assert hinge.connectors == ("face.center", "hour_hand.pivot")
    assert hinge.initial_angle == pytest.approx(math.pi / 2)
    assert doc.element("face.center").kind == "mate_connector"
    assert doc.live.snap.active


def test_changing_a_mate_re_runs_snap(clock, tmp_path):
    doc = clock
    rec = Recorder(doc.live)
    start = body_poses(doc)
    assert abs(hand_angle(doc)) == pytest.approx(math.pi / 2)
    doc.commands.push(SetMate(doc, doc.element("hand_hinge"), initial_angle=0.0))
    assert hand_angle(doc) == pytest.approx(0.0, abs=1e-9)
    assert "hour_hand" in rec.moved() and "face" not in rec.moved()
    assert len(rec.edited) == 1 and len(rec.poses) == 1
    assert_same(body_poses(doc), snap_of_saved(doc, tmp_path, "zero.openplx"))
    doc.commands.undo()
    assert_same(body_poses(doc), start)
    doc.commands.redo()
    assert hand_angle(doc) == pytest.approx(0.0, abs=1e-9)


def test_removing_and_adding_a_mate(clock, tmp_path):
    doc = clock
    start = body_poses(doc)
    hinge = doc.element("hand_hinge")
    doc.commands.push(RemoveNode(doc, hinge))
    assert "hand_hinge" not in doc.live.poses
    freed = body_poses(doc)
    assert not np.allclose(freed["hour_hand"], start["hour_hand"])
    assert_same(freed, snap_of_saved(doc, tmp_path, "unmated.openplx"))
    doc.commands.undo()
    assert_same(body_poses(doc), start)
    doc.commands.redo()
    # a new mate, at another angle, joins the same connectors again
    doc.commands.push(AddMate(doc, doc.root, "new_hinge", "hinge",
                              ("face.center", "hour_hand.pivot"), initial_angle=math.pi))
    assert abs(hand_angle(doc)) == pytest.approx(math.pi)
    assert "new_hinge" in doc.live.poses          # its derived joint
    assert_same(body_poses(doc), snap_of_saved(doc, tmp_path, "remated.openplx"))
    doc.commands.undo()
    assert_same(body_poses(doc), freed)


def test_moving_a_connector_and_declaring_transforms(clock, tmp_path):
    doc = clock
    start = body_poses(doc)
    center = doc.element("face.center")
    # the hinge's connector on the face moves 5 cm up: SNAP carries the hand with it
    doc.commands.push(SetPose(doc, center, Pose.from_xyz_rpy(0, 0, 0.05) @ center.pose.value))
    moved = body_poses(doc)
    assert moved["hour_hand"][2, 3] == pytest.approx(start["hour_hand"][2, 3] + 0.05)
    assert_same(moved, snap_of_saved(doc, tmp_path, "moved.openplx"))
    doc.commands.undo()
    assert_same(body_poses(doc), start)
    # the face made free, the hand fixed: SNAP now places the face on the hand
    doc.commands.push(SetDeclared(doc, doc.element("hour_hand"), True))
    doc.commands.push(SetDeclared(doc, doc.element("face"), False))
    assert_same(body_poses(doc), snap_of_saved(doc, tmp_path, "declared.openplx"))
    doc.commands.undo()
    doc.commands.undo()
    assert_same(body_poses(doc), start)


def test_a_connector_added_and_mated(clock, tmp_path):
    doc = clock
    with doc.commands.macro("mate at the tip"):
        doc.commands.push(AddMateConnector(doc, doc.root, "tip", attached_to="hour_hand",
                                           pose=Pose.from_xyz_rpy(0.09, 0, 0, 0, math.pi, 0)))
        doc.commands.push(RemoveNode(doc, doc.element("hand_hinge")))
        doc.commands.push(AddMate(doc, doc.root, "tip_lock", "lock",
                                  ("face.center", "hour_hand.tip")))
    assert len(doc.commands) == 1
    assert_same(body_poses(doc), snap_of_saved(doc, tmp_path, "tip.openplx"))
    # the live frames equal a fresh resolution of the document
    ref = reference_poses(doc)
    for k, X in ref.items():
        assert np.allclose(doc.live.poses.pose(k), X, atol=1e-9), k
