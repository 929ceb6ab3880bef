"""Replaying SNAP after initial values change (snapframe.core.snap.replay) gives exactly
what a full run gives on the changed problem: every field of the result, trace included."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from snapframe.core.pose import Pose
from snapframe.core.snap import SnapMate, SnapProblem, solve
from snapframe.core.snap.replay import SnapRun

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from snaphelpers import Builder  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[3] / "resources" / "examples" / "openplx"


def copy(problem: SnapProblem) -> SnapProblem:
    return SnapProblem(problem.root, list(problem.systems), list(problem.bodies),
                       list(problem.connectors), list(problem.mates))


def revalued(m: SnapMate, angle: float = 0.0, position: float = 0.0,
             distance: float = 0.0) -> SnapMate:
    return SnapMate(m.path, m.type, m.connectors, m.initial_angle + angle,
                    m.initial_position + position, m.initial_distance + distance,
                    m.enable_snap, m.file, m.line)


def full(problem: SnapProblem, replaced: dict[int, SnapMate]):
    changed = copy(problem)
    for i, m in replaced.items():
        changed.mates[i] = m
    return solve(changed)


def replays_every_mate(problem: SnapProblem) -> int:
    """Change each mate's values in turn (three edits in a row on one run); every replay
    must equal the full run.  Returns how many edits were replayed."""
    replayed = 0
    for i in range(len(problem.mates)):
        run = SnapRun(copy(problem))
        assert run.result == solve(copy(problem))
        replaced: dict[int, SnapMate] = {}
        for step, (a, p, d) in enumerate([(0.3, -0.2, 0.1), (-1.1, 0.05, 0.4), (0.0, 0.0, 0.0)]):
            new = revalued(problem.mates[i], a * (step + 1), p, d)
            replaced[i] = new
            result = run.revalue([new])
            if result is None:
                assert not run.replayable
                break
            replayed += 1
            assert result == full(problem, replaced)
    return replayed


def chain(n: int, anchored: bool = True) -> SnapProblem:
    b = Builder("W")
    b.conn("W.anchor", "W")
    prev = "W.anchor"
    for i in range(n):
        body = b.body(f"W.l{i}")
        b.conn(f"{body}.start", body)
        b.conn(f"{body}.end", body, position=(1, 0, 0), main_axis=(0, 1, 1))
        if i or anchored:
            b.mate(f"W.h{i}", "hinge", prev, f"{body}.start", initial_angle=0.1 * i)
        prev = f"{body}.end"
    return b.problem()


def test_a_chain_replays_every_edit_exactly():
    problem = chain(12)
    assert replays_every_mate(problem) == 3 * 12


def test_a_chain_snap_has_to_force_replays_exactly():
    problem = chain(8, anchored=False)
    assert "forced" in solve(copy(problem)).status.values()
    assert replays_every_mate(problem) == 3 * 7


def test_every_mate_type_in_subsystems_replays_exactly():
    b = Builder("W")
    b.conn("W.anchor", "W")
    prev = "W.anchor"
    kinds = ["hinge", "prismatic", "cylindrical", "distance", "ball", "lock"]
    for s in range(3):
        sub = b.system(f"W.s{s}")
        for i, kind in enumerate(kinds):
            body = b.body(f"{sub}.b{i}", sub)
            b.conn(f"{body}.a", body, main_axis=(1, 0, 1))
            b.conn(f"{body}.z", body, position=(0.5, 0.2, 0), normal=(0, 1, 0))
            if i:
                b.mate(f"{sub}.m{i}", kind, f"{sub}.b{i - 1}.z", f"{body}.a", initial_angle=0.2,
                       initial_position=0.1, initial_distance=0.3)
        # a connector defined on one body, belonging to another (and on the system)
        b.conn(f"{sub}.b1.r", f"{sub}.b1", redirected_parent=f"{sub}.b4", position=(0, 1, 0))
        b.conn(f"{sub}.fixed", sub, position=(0, 0, 2))
        b.mate(f"W.j{s}", "hinge", prev, f"{sub}.b0.a", initial_angle=-0.4)
        prev = f"{sub}.b{len(kinds) - 1}.z"
    problem = b.problem()
    assert replays_every_mate(problem) == 3 * len(problem.mates)


def test_a_redundant_mate_is_rechecked_and_a_broken_check_needs_a_full_run():
    # two hinges on one axis between the same bodies: the second is only checked
    b = Builder("W")
    b.body("W.base", declared=Pose())
    b.body("W.arm")
    b.conn("W.base.p", "W.base")
    b.conn("W.base.q", "W.base", position=(0, 0, 1))
    b.conn("W.arm.p", "W.arm")
    b.conn("W.arm.q", "W.arm", position=(0, 0, 1))
    b.mate("W.h1", "hinge", "W.base.p", "W.arm.p", initial_angle=0.5)
    b.mate("W.h2", "hinge", "W.base.q", "W.arm.q", initial_angle=0.5)
    problem = b.problem()
    run = SnapRun(copy(problem))
    # the angle of either hinge does not break the other (both turn about one axis)
    new = revalued(problem.mates[0], angle=0.7)
    assert run.revalue([new]) == full(problem, {0: new})
    new2 = revalued(problem.mates[1], angle=-2.0)
    assert run.revalue([new2]) == full(problem, {0: new, 1: new2})
    # a distance mate checked at the wrong distance: the check fails, a full run decides
    b.mates[1] = SnapMate("W.h2", "distance", ("W.base.q", "W.arm.q"), initial_distance=0.0)
    problem = b.problem()
    run = SnapRun(copy(problem))
    assert run.replayable
    assert run.revalue([revalued(problem.mates[1], distance=0.5)]) is None
    assert not run.replayable


def test_runs_with_loop_closures_or_violations_are_not_replayed():
    b = Builder("W")
    b.body("W.a", declared=Pose())
    b.body("W.b")
    b.conn("W.a.c", "W.a")
    b.conn("W.a.d", "W.a", position=(1, 0, 0))
    b.conn("W.b.c", "W.b")
    b.mate("W.one", "lock", "W.a.c", "W.b.c")
    b.mate("W.two", "lock", "W.a.d", "W.b.c")      # conflicts: left violated
    run = SnapRun(b.problem())
    assert not run.replayable
    assert run.revalue([revalued(b.mates[0], angle=1.0)]) is None


def test_other_changes_and_unknown_mates_need_a_full_run():
    problem = chain(3)
    m = problem.mates[1]
    for other in (SnapMate(m.path, "lock", m.connectors, m.initial_angle),
                  SnapMate(m.path, m.type, m.connectors[::-1], m.initial_angle),
                  SnapMate(m.path, m.type, m.connectors, math.inf),
                  SnapMate("W.nothing", "hinge", m.connectors, 1.0)):
        run = SnapRun(copy(problem))
        assert run.revalue([other]) is None


def test_a_disabled_mates_values_play_no_part():
    problem = chain(3)
    m = problem.mates[1]
    problem.mates[1] = SnapMate(m.path, m.type, m.connectors, m.initial_angle,
                                enable_snap=False)
    run = SnapRun(copy(problem))
    new = revalued(problem.mates[1], angle=1.0)
    assert run.revalue([new]) == full(problem, {1: new})


def test_earlier_results_keep_their_trace():
    problem = chain(3)
    run = SnapRun(copy(problem))
    before = run.result
    lines = list(before.trace)
    run.revalue([revalued(problem.mates[2], angle=1.0)])
    assert before.trace == lines
    assert run.result.trace != lines


@pytest.mark.parametrize("name", ["clock.openplx", "three_level_rod.openplx"])
def test_the_bundled_examples_replay_exactly(name):
    from snapframe.core.loading import load
    from snapframe.core.snap.document import snap_input
    problem = snap_input(load(EXAMPLES / name).root).problem
    replays_every_mate(problem)
