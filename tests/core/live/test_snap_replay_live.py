"""The live document replays SNAP after edits of mates' initial values (and runs it in full
after anything else): the bodies, trace, status and findings are always what a full SNAP
run on the document gives."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Link
from snapframe.core.model.edits import SetDeclared, SetMate
from snapframe.core.model.connecting import AddMateBetween
from snapframe.core.snap import solve
from snapframe.core.snap.document import snap_input

EXAMPLES = Path(__file__).resolve().parents[3] / "resources" / "examples" / "openplx"

CHAIN = """\
Link is Physics3D.Bodies.RigidBody:
    start is Physics3D.Interactions.MateConnector
    end is Physics3D.Interactions.MateConnector:
        position: Math.Vec3.from_xyz(1, 0, 0)
        main_axis: Math.Vec3.from_xyz(0, 1, 1)

Chain is Physics3D.System:
    anchor is Physics3D.Interactions.MateConnector
{bodies}
{mates}
"""


def chain_text(n: int) -> str:
    bodies = "\n".join(f"    link{i} is Link" for i in range(n))
    mates, prev = [], "anchor"
    for i in range(n):
        mates.append(f"    hinge{i} is Physics3D.Interactions.Hinge:\n"
                     f"        connectors: [{prev}, link{i}.start]\n"
                     f"        initial_angle: {0.1 * i}")
        prev = f"link{i}.end"
    return CHAIN.format(bodies=bodies, mates="\n".join(mates))


@pytest.fixture
def chain(tmp_path):
    path = tmp_path / "chain.openplx"
    path.write_text(chain_text(12), encoding="utf-8")
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.errors
    return doc


def assert_matches_a_full_run(doc) -> None:
    """The document's bodies and SNAP's report equal a full run on the document."""
    inp = snap_input(doc.root)
    result = solve(inp.problem)
    snap = doc.live.snap
    assert snap.trace == tuple(result.trace)
    assert snap.status == result.status
    assert [d.message for d in snap.solve_findings] == \
        [d.message for d in result.diagnostics if d.severity >= 1]
    for path in inp.placed:
        assert inp.nodes[path].pose.value == result.local[path], path


def test_value_edits_are_replayed_and_equal_full_runs(chain):
    live = chain.live
    run = live.snap._run
    assert run is not None
    for i, angle in [(5, 0.7), (0, -1.2), (11, 2.0), (5, 0.0)]:
        chain.commands.push(SetMate(chain, chain.element(f"hinge{i}"), initial_angle=angle))
        chain.commands.end_merge()
        assert live.snap._run is run            # replayed, not run again
        assert_matches_a_full_run(chain)
    chain.commands.undo()
    chain.commands.undo()
    assert live.snap._run is run
    assert_matches_a_full_run(chain)
    chain.commands.redo()
    assert_matches_a_full_run(chain)


def test_other_edits_run_snap_in_full_and_replays_resume(chain):
    live = chain.live
    first = live.snap._run
    chain.commands.push(SetDeclared(chain, chain.element("link3"), True))
    assert live.snap._run is not first
    assert_matches_a_full_run(chain)
    second = live.snap._run
    chain.commands.push(SetMate(chain, chain.element("hinge7"), initial_angle=-0.3))
    assert live.snap._run is second
    assert_matches_a_full_run(chain)
    # link3 declared where it was: hinge3 (both sides placed) is only checked, and a
    # hinge may turn, so its angle changes nothing
    chain.commands.push(SetMate(chain, chain.element("hinge3"), initial_angle=1.0))
    assert live.snap._run is second
    assert_matches_a_full_run(chain)
    # hinge2 turned moves link2 away from the declared link3: hinge3's check fails, so
    # SNAP runs in full (closing the loop or reporting hinge3)
    chain.commands.push(SetMate(chain, chain.element("hinge2"), initial_angle=1.0))
    assert live.snap._run is not second
    assert_matches_a_full_run(chain)
    assert [line for line in live.snap.trace if "hinge3" in line and "Checking" in line]


def test_a_mate_made_between_two_connectors_snaps_and_derives_its_joint(tmp_path):
    shutil.copy(EXAMPLES / "clock.openplx", tmp_path)
    clock = load(tmp_path / "clock.openplx", LoadContext(use_environment=False))
    from snapframe.core.model.edits import RemoveNode
    clock.commands.push(RemoveNode(clock, clock.element("hand_hinge")))
    # unmated, the hand is left at the system's origin with a warning
    np.testing.assert_allclose(clock.live.poses.pose("hour_hand"), np.eye(4), atol=1e-12)
    assert any("hour_hand" in d.message for d in clock.live.snap.findings)
    clock.commands.push(AddMateBetween(clock, "hinge", "hinge", "face.center",
                                       "hour_hand.pivot", initial_angle=math.pi / 2))
    X = clock.live.poses.pose("hour_hand")
    # three o'clock (see tests/core/test_mating.py): x_h = -x, y_h = +z, z_h = +y
    np.testing.assert_allclose(X[:3, :3], [[-1, 0, 0], [0, 0, 1], [0, 1, 0]], atol=1e-12)
    np.testing.assert_allclose(X[:3, 3], [0, 0.01, 1.5], atol=1e-12)
    joint = clock.element("hinge")
    derived = [n for n in clock.root.entities if n.extras.get("derived_from_mate") == "hinge"]
    assert joint is not None and derived and derived[0].type == "revolute"
    assert not [d for d in clock.live.snap.findings if "hour_hand" in d.message]
    assert_matches_a_full_run(clock)
    clock.commands.undo()
    np.testing.assert_allclose(clock.live.poses.pose("hour_hand"), np.eye(4), atol=1e-12)
    assert not [n for n in clock.root.entities if n.extras.get("derived_from_mate") == "hinge"]
    assert isinstance(clock.element("hour_hand"), Link)
