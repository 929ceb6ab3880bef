"""SNAP's conflict rule, from the notes on the reference runtime (openplx.md 3.4):

* "When two mates conflict, the first (declaration order) wins; the later one is left
  violated with no load error" - and the first wins *with its initial value applied*: a
  hinge keeps ``initial_angle``, a prismatic ``initial_position``;
* "Simple loops (two hinges forming a triangle; a hinge + prismatic piston) are closed by
  moving earlier mates' free DOFs" - a loop has the DOFs of two mates to move.

Alignment (3.4): ``X_owner1 = X_owner0 @ C0 @ D @ C1^-1`` with ``D = Rz(a) Tz(p)`` in
connector 0's frame.  With both connectors at their owners' origins and the base at the
identity, the moving body's pose is ``D`` itself.  Every expected pose below is worked out
by hand from that equation.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from snapframe.core.diagnostics import Code, Severity
from snapframe.core.pose import Pose

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from snaphelpers import Builder, assert_pose, rz  # noqa: E402

from snapframe.core.snap import solve  # noqa: E402


def _two_mates(first: tuple, second: tuple, swap_first: bool = False) -> "object":
    """A declared base and a free arm joined by two mates on the same two connectors."""
    b = Builder()
    b.body("W.base", declared=Pose())
    b.body("W.arm")
    b.conn("W.base.c", "W.base")
    b.conn("W.arm.c", "W.arm")
    for i, (kind, values) in enumerate((first, second)):
        pair = ("W.arm.c", "W.base.c") if (i == 0 and swap_first) else ("W.base.c", "W.arm.c")
        b.mate(f"W.m{i + 1}", kind, *pair, **values)
    return solve(b.problem())


def _violated(r) -> list[str]:
    return [d.element for d in r.diagnostics
            if d.code == Code.SNAP_VIOLATED and d.severity == Severity.WARNING]


@pytest.mark.parametrize("first, expected", [
    # Hinge a = 0.5 about z: arm = Rz(0.5).
    (("hinge", {"initial_angle": 0.5}), rz(0.5)),
    # Prismatic p = 0.3 along z: arm = Tz(0.3).
    (("prismatic", {"initial_position": 0.3}), Pose.translation(0, 0, 0.3)),
    # Cylindrical a = -1.0, p = 2.0: arm = Rz(-1) Tz(2) = Rz(-1) at (0, 0, 2).
    (("cylindrical", {"initial_angle": -1.0, "initial_position": 2.0}),
     rz(-1.0, (0.0, 0.0, 2.0))),
])
def test_a_later_lock_loses_to_the_first_mate_with_its_initial_value_applied(first, expected):
    r = _two_mates(first, ("lock", {}))
    assert_pose(r.local["W.arm"], expected)
    assert _violated(r) == ["W.m2"]
    assert r.status["W.arm"] == "snapped"
    assert any("the two mates conflict and the earlier one wins" in t for t in r.trace)


def test_a_later_prismatic_loses_to_a_hinge_with_its_angle():
    # The prismatic forbids the turn the hinge's initial angle makes: the hinge wins.
    r = _two_mates(("hinge", {"initial_angle": 0.25}), ("prismatic", {}))
    assert_pose(r.local["W.arm"], rz(0.25))
    assert _violated(r) == ["W.m2"]


def test_declaration_order_decides_the_winner():
    # Lock first: arm = I.  The hinge after it allows any angle about its axis, so it is
    # satisfied as is (an initial value is SNAP's starting point, not a constraint).
    r = _two_mates(("lock", {}), ("hinge", {"initial_angle": 0.5}))
    assert_pose(r.local["W.arm"], Pose())
    assert not r.diagnostics


def test_swapped_connectors_of_the_winning_hinge_flip_its_angle():
    # First mate [arm.c, base.c]: the base is connector 1, so base = arm @ Rz(a) and
    # arm = Rz(-a) (3.4: swapping the connectors flips the sign).
    r = _two_mates(("hinge", {"initial_angle": 0.5}), ("lock", {}), swap_first=True)
    assert_pose(r.local["W.arm"], rz(-0.5))
    assert _violated(r) == ["W.m2"]


def test_the_winner_applies_its_angle_about_its_own_connector_frame():
    # base.c at (1, 0, 0) with main axis +x and normal +y: its frame has x = (0,1,0),
    # y = z cross x = (0,0,1), z = (1,0,0), i.e. R0 = [[0,0,1],[1,0,0],[0,1,0]].
    # arm.c at (0, 0, -0.5) on the arm, not rotated.  Hinge a = pi/2 first, then a lock.
    # X_arm = C0 Rz(pi/2) C1^-1:
    #   R = R0 Rz(pi/2) = [[0,0,1],[0,-1,0],[1,0,0]]: a half turn about (1,0,1)/sqrt2,
    #       quaternion (w, x, y, z) = (0, 1/sqrt2, 0, 1/sqrt2);
    #   p = (1,0,0) + R0 Rz(pi/2) (0,0,0.5) = (1,0,0) + 0.5 * (1,0,0) = (1.5, 0, 0).
    b = Builder()
    b.body("W.base", declared=Pose())
    b.body("W.arm")
    b.conn("W.base.c", "W.base", position=(1, 0, 0), main_axis=(1, 0, 0), normal=(0, 1, 0))
    b.conn("W.arm.c", "W.arm", position=(0, 0, -0.5))
    b.mate("W.hinge", "hinge", "W.base.c", "W.arm.c", initial_angle=math.pi / 2)
    b.mate("W.lock", "lock", "W.base.c", "W.arm.c")
    r = solve(b.problem())
    s = math.sqrt(0.5)
    assert_pose(r.local["W.arm"], Pose.from_xyz_quat((1.5, 0, 0), (0.0, s, 0.0, s)))
    assert _violated(r) == ["W.lock"]


def test_a_conflict_through_a_rigidly_attached_body_is_still_a_conflict():
    # arm hinged to the base at the origin (a = 0.5); tip locked to the arm's end (1,0,0);
    # a ball then wants the tip at (0, 1, 0).  Only the hinge's angle could get it there
    # (the lock has no DOF): one mate's DOF, so a conflict; arm = Rz(0.5),
    # tip = arm @ Tx(1) = Rz(0.5) at (cos 0.5, sin 0.5, 0), and the ball is violated.
    b = Builder()
    b.body("W.base", declared=Pose())
    b.conn("W.base.pivot", "W.base")
    b.conn("W.base.ball", "W.base", position=(0, 1, 0))
    b.body("W.arm")
    b.conn("W.arm.a", "W.arm")
    b.conn("W.arm.b", "W.arm", position=(1, 0, 0))
    b.body("W.tip")
    b.conn("W.tip.c", "W.tip")
    b.mate("W.h", "hinge", "W.base.pivot", "W.arm.a", initial_angle=0.5)
    b.mate("W.fix", "lock", "W.arm.b", "W.tip.c")
    b.mate("W.pin", "ball", "W.tip.c", "W.base.ball")
    r = solve(b.problem())
    assert_pose(r.local["W.arm"], rz(0.5))
    assert_pose(r.local["W.tip"], rz(0.5, (math.cos(0.5), math.sin(0.5), 0.0)))
    assert _violated(r) == ["W.pin"]


def test_two_mates_dofs_still_close_a_loop():
    # The triangle of the notes: ground pivots at the origin and (sqrt2, 0, 0), two links of
    # length 1 hinged in series (h1 a = 0.3, h2 a = 0.2), h3 joins the second link's tip to
    # the second pivot.  Two mates' DOFs move: a loop, closed on the negative branch
    # (test_snap_loops derives the poses): l1 = Rz(45 deg), l2 = Rz(-45 deg) at (√2/2, √2/2).
    r2 = math.sqrt(2.0)
    b = Builder()
    b.body("W.g", declared=Pose())
    b.conn("W.g.c1", "W.g")
    b.conn("W.g.c2", "W.g", position=(r2, 0, 0))
    for name in ("W.l1", "W.l2"):
        b.body(name)
        b.conn(f"{name}.a", name)
        b.conn(f"{name}.b", name, position=(1, 0, 0))
    b.mate("W.h1", "hinge", "W.g.c1", "W.l1.a", initial_angle=0.3)
    b.mate("W.h2", "hinge", "W.l1.b", "W.l2.a", initial_angle=0.2)
    b.mate("W.h3", "hinge", "W.l2.b", "W.g.c2")
    r = solve(b.problem())
    assert_pose(r.local["W.l1"], rz(math.pi / 4))
    assert_pose(r.local["W.l2"], rz(-math.pi / 4, (r2 / 2, r2 / 2, 0)))
    assert not r.diagnostics
