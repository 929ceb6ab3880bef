"""SNAP's rules: declared frames, subsystems, forcing order, conflicts, diagnostics.

Connectors are pure translations unless said otherwise, so poses can be added by hand:
for a Lock [c0 on P, c1 on Q] with Q free, ``X_Q = X_P @ C0 @ C1^-1``.
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

from snapframe.core.snap import SnapConnector, SnapProblem, SnapSystem, solve  # noqa: E402


def T(x=0.0, y=0.0, z=0.0) -> Pose:
    return Pose.translation(x, y, z)


def forced(r) -> list[str]:
    return [d.element for d in r.diagnostics if "forced to identity" in d.message]


def warnings(r) -> list[str]:
    return [d.message for d in r.diagnostics if d.severity >= Severity.WARNING]


# -- declared frames ---------------------------------------------------------------------------
def test_declared_side_never_moves_whichever_connector_it_holds():
    # [free.c, fixed.c]: the free body is connectors[0]; it moves, the declared one does not.
    # X_free = X_fixed C_fixed C_free^-1 = Tx(3) Ty(1) Tz(-1) = (3, 1, -1).
    b = Builder()
    b.body("W.free")
    b.body("W.fixed", declared=T(3, 0, 0))
    b.conn("W.free.c", "W.free", position=(0, 0, 1))
    b.conn("W.fixed.c", "W.fixed", position=(0, 1, 0))
    b.mate("W.lock", "lock", "W.free.c", "W.fixed.c")
    r = solve(b.problem())
    assert_pose(r.local["W.fixed"], T(3, 0, 0), 0.0)
    assert_pose(r.local["W.free"], T(3, 1, -1))


def test_declared_frames_stay_put_when_a_mate_between_them_is_violated():
    b = Builder()
    b.body("W.a", declared=T(0, 0, 0))
    b.body("W.b", declared=T(5, 0, 0))
    b.conn("W.a.c", "W.a")
    b.conn("W.b.c", "W.b")
    b.mate("W.lock", "lock", "W.a.c", "W.b.c", file="robot.openplx", line=12)
    r = solve(b.problem())
    assert_pose(r.local["W.b"], T(5, 0, 0), 0.0)
    (d,) = r.diagnostics
    assert (d.severity, d.code, d.element, d.file, d.line) == \
        (Severity.WARNING, Code.SNAP_VIOLATED, "W.lock", "robot.openplx", 12)
    assert "violated" in d.message and "5 m" in d.message


def test_subsystem_is_moved_as_a_whole_when_its_body_is_declared():
    # World ⊃ arm (free) ⊃ b (declared Rz(90°) at (0,0,1)); b.c = Tx(1); lock [b.c, W.wc = Tz(5)].
    #   X_arm X_b C = A  ->  X_arm = A (X_b C)^-1.
    #   X_b C = Rz(90°) at (0,0,1) + Rz(90°)(1,0,0) = Rz(90°) at (0,1,1);
    #   its inverse = Rz(-90°) at -Rz(-90°)(0,1,1) = (-1,0,-1);  X_arm = Rz(-90°) at (-1,0,4).
    b = Builder()
    b.system("W.arm")
    b.body("W.arm.b", "W.arm", declared=rz(math.pi / 2, (0, 0, 1)))
    b.conn("W.arm.b.c", "W.arm.b", position=(1, 0, 0))
    b.conn("W.wc", "W", position=(0, 0, 5))
    b.mate("W.lock", "lock", "W.arm.b.c", "W.wc")
    r = solve(b.problem())
    assert_pose(r.local["W.arm"], rz(-math.pi / 2, (-1, 0, 4)))
    assert_pose(r.local["W.arm.b"], rz(math.pi / 2, (0, 0, 1)), 0.0)
    assert r.world["W.arm.b.c"].p == pytest.approx((0, 0, 5), abs=1e-12)
    assert not r.diagnostics


def test_highest_free_frame_below_the_common_ancestor_is_solved():
    # World ⊃ s1 (free) ⊃ s2 (free) ⊃ b (declared Tx(1)); lock [b.c (origin), W.wc = Ty(2)].
    # Two free frames: s2 (the lower) is forced, s1 solved: X_s1 = Ty(2) Tx(-1) = (-1, 2, 0).
    b = Builder()
    b.system("W.s1")
    b.system("W.s1.s2", "W.s1")
    b.body("W.s1.s2.b", "W.s1.s2", declared=T(1, 0, 0))
    b.conn("W.s1.s2.b.c", "W.s1.s2.b")
    b.conn("W.wc", "W", position=(0, 2, 0))
    b.mate("W.lock", "lock", "W.s1.s2.b.c", "W.wc")
    r = solve(b.problem())
    assert forced(r) == ["W.s1.s2"]
    assert_pose(r.local["W.s1"], T(-1, 2, 0))


def test_mate_inside_a_subsystem_is_solved_relative_to_it():
    # Both connectors below arm: G = arm, arm's own placement does not matter.  arm is declared
    # far away and turned; the body still lands at X_b = X_base C0 C1^-1 = (1,0,0) - (0,0,2).
    b = Builder()
    b.system("W.arm", declared=rz(1.0, (7, 8, 9)))
    b.body("W.arm.base", "W.arm", declared=Pose())
    b.body("W.arm.b", "W.arm")
    b.conn("W.arm.base.c", "W.arm.base", position=(1, 0, 0))
    b.conn("W.arm.b.c", "W.arm.b", position=(0, 0, 2))
    b.mate("W.arm.lock", "lock", "W.arm.base.c", "W.arm.b.c")
    r = solve(b.problem())
    assert_pose(r.local["W.arm.b"], T(1, 0, -2))
    assert_pose(r.world["W.arm.b"], rz(1.0, (7, 8, 9)) @ T(1, 0, -2))


def test_system_owned_connector_is_fixed_in_its_system():
    # A connector owned by the declared system arm (at Tx(2)) with X_OC = Tz(1): a free root
    # body locked to it lands at Tx(2) Tz(1) C^-1 where C = Ty(1): (2, -1, 1).
    b = Builder()
    b.system("W.arm", declared=T(2, 0, 0))
    b.body("W.b")
    b.conn("W.arm.mount", "W.arm", position=(0, 0, 1))
    b.conn("W.b.c", "W.b", position=(0, 1, 0))
    b.mate("W.lock", "lock", "W.arm.mount", "W.b.c")
    r = solve(b.problem())
    assert_pose(r.local["W.b"], T(2, -1, 1))
    assert_pose(r.local["W.arm.mount"], T(2, 0, 1))  # connector local = in its owner's system
    assert_pose(r.world["W.arm.mount"], T(2, 0, 1))


# -- forcing ------------------------------------------------------------------------------------
def _three_free_bodies(order=("W.b", "W.a", "W.c"), reference_body=None):
    # m1 = Lock [b.c = Tx(1), c.c = 0];  m2 = Lock [c.c2 = Tx(2), a.c = 0].
    b = Builder()
    b.systems[0] = SnapSystem("W", None, None, reference_body)
    for name in order:
        b.body(name)
    b.conn("W.b.c", "W.b", position=(1, 0, 0))
    b.conn("W.c.c", "W.c")
    b.conn("W.c.c2", "W.c", position=(2, 0, 0))
    b.conn("W.a.c", "W.a")
    b.mate("W.m1", "lock", "W.b.c", "W.c.c")
    b.mate("W.m2", "lock", "W.c.c2", "W.a.c")
    return b


def test_reference_body_is_forced_first():
    # Default reference body: smallest attribute name among all bodies (none declared) = "a",
    # although it is declared second and belongs to the second mate.  Then
    #   m2: X_c = X_a C_a C_c2^-1 = Tx(-2);  m1 (next sweep): X_b = X_c C_c C_b^-1 = Tx(-3).
    # (Forcing connectors[1]'s owner of m1 instead would have given c = I, b = Tx(-1), a = Tx(2).)
    r = solve(_three_free_bodies().problem())
    assert forced(r) == ["W.a"]
    assert_pose(r.local["W.a"], Pose())
    assert_pose(r.local["W.c"], T(-2, 0, 0))
    assert_pose(r.local["W.b"], T(-3, 0, 0))
    assert [t for t in r.trace if t.startswith("Sweep")] == ["Sweep 1", "Sweep 2", "Sweep 3"]


def test_reference_body_name_order_is_bytewise():
    # "B" (0x42) sorts before "a" (0x61).
    b = Builder()
    b.body("W.a")
    b.body("W.B")
    b.conn("W.a.c", "W.a")
    b.conn("W.B.c", "W.B", position=(1, 0, 0))
    b.mate("W.m", "lock", "W.a.c", "W.B.c")
    r = solve(b.problem())
    assert forced(r) == ["W.B"]
    assert_pose(r.local["W.a"], T(1, 0, 0))


def test_explicit_reference_body_wins_over_the_name_rule():
    r = solve(_three_free_bodies(reference_body="W.c").problem())
    assert forced(r) == ["W.c"]
    # m1: X_b = C_c C_b^-1 = Tx(-1);  m2 [c.c2, a.c] with c fixed: X_a = C_c2 C_a^-1 = Tx(2).
    assert_pose(r.local["W.b"], T(-1, 0, 0))
    assert_pose(r.local["W.a"], T(2, 0, 0))


def test_without_free_reference_body_the_owner_of_connectors_1_is_forced():
    # z is declared (so it is the reference body, already fixed) and unmated; x and y only meet
    # each other: the owner of connectors[1] of the first unresolved mate (y) is forced and
    # X_x = C_y C_x^-1 = Ty(1) Tx(-1) = (-1, 1, 0).
    b = Builder()
    b.body("W.z", declared=T(9, 9, 9))
    b.body("W.x")
    b.body("W.y")
    b.conn("W.x.c", "W.x", position=(1, 0, 0))
    b.conn("W.y.c", "W.y", position=(0, 1, 0))
    b.mate("W.m", "hinge", "W.x.c", "W.y.c")
    r = solve(b.problem())
    assert forced(r) == ["W.y"]
    assert_pose(r.local["W.x"], T(-1, 1, 0))
    assert not warnings(r)  # a declared unmated body is intentional


def test_subsystem_reference_body_is_forced_before_other_bodies_of_that_subsystem():
    # World ⊃ arm (free) ⊃ p, q (free; reference body p by name).
    # m1 = Hinge [arm.p.c = Tx(1), arm.q.c = 0] inside arm;  m2 = Lock [arm.q.c2 = 0, W.wc = Tx(5)].
    # Stuck at once.  m1's connectors[1] owner is q, but arm's reference body p goes first:
    #   p = I;  m1: X_q = C_p C_q^-1 = Tx(1);  m2: X_arm X_q C_q2 = Tx(5) -> X_arm = Tx(4).
    b = Builder()
    b.system("W.arm")
    b.body("W.arm.q", "W.arm")
    b.body("W.arm.p", "W.arm")
    b.conn("W.arm.p.c", "W.arm.p", position=(1, 0, 0))
    b.conn("W.arm.q.c", "W.arm.q")
    b.conn("W.arm.q.c2", "W.arm.q")
    b.conn("W.wc", "W", position=(5, 0, 0))
    b.mate("W.arm.m1", "hinge", "W.arm.p.c", "W.arm.q.c")
    b.mate("W.m2", "lock", "W.arm.q.c2", "W.wc")
    r = solve(b.problem())
    assert forced(r) == ["W.arm.p"]
    assert_pose(r.local["W.arm.q"], T(1, 0, 0))
    assert_pose(r.local["W.arm"], T(4, 0, 0))
    assert r.status == {"W": "root", "W.arm": "snapped", "W.arm.q": "snapped", "W.arm.p": "forced"}


def test_forcing_kills_the_free_dofs_recorded_before_it():
    # a is the reference body: forced; h1 places b (DOF free).  c, d only meet each other:
    # before forcing d, the hinge DOF of h1 is killed.  h2 places c; its DOF stays free.
    b = Builder()
    for n in ("a", "b", "c", "d"):
        b.body(f"W.{n}")
        b.conn(f"W.{n}.x", f"W.{n}")
    b.mate("W.h1", "hinge", "W.a.x", "W.b.x")
    b.mate("W.h2", "hinge", "W.c.x", "W.d.x")
    r = solve(b.problem())
    assert forced(r) == ["W.a", "W.d"]
    assert r.dofs["W.h1"][0].state == "killed"
    assert r.dofs["W.h2"][0].state == "free"
    assert any(t.startswith("No progress: killing 1 free DOF(s) (W.h1.around_main)") for t in r.trace)


# -- conflicts ----------------------------------------------------------------------------------
def _conflict(order):
    b = Builder()
    b.body("W.base", declared=Pose())
    b.body("W.body")
    b.conn("W.base.c1", "W.base", position=(1, 0, 0))
    b.conn("W.base.c2", "W.base", position=(0, 1, 0))
    b.conn("W.body.c", "W.body")
    mates = {"W.lock1": "W.base.c1", "W.lock2": "W.base.c2"}
    for name in order:
        b.mate(name, "lock", mates[name], "W.body.c")
    return solve(b.problem())


@pytest.mark.parametrize("order, winner, loser, expected", [
    (("W.lock1", "W.lock2"), "W.lock1", "W.lock2", T(1, 0, 0)),
    (("W.lock2", "W.lock1"), "W.lock2", "W.lock1", T(0, 1, 0)),
])
def test_conflicting_mates_first_declared_wins(order, winner, loser, expected):
    r = _conflict(order)
    assert_pose(r.local["W.body"], expected)
    (d,) = r.diagnostics
    assert d.element == loser and d.severity == Severity.WARNING
    assert "conflicts" in d.message and "first one wins" in d.message
    assert any(t.startswith(f"Mate '{loser}' left violated") for t in r.trace)


# -- diagnostics --------------------------------------------------------------------------------
def test_unmated_free_body_gets_a_warning_and_identity():
    b = Builder()
    b.body("W.lonely")
    b.body("W.placed", declared=T(1, 0, 0))
    r = solve(b.problem())
    assert warnings(r) == ["body 'W.lonely' is not connected by any mate and has no "
                           "local_transform; left at identity"]
    assert r.status["W.lonely"] == "unconstrained"
    assert_pose(r.local["W.lonely"], Pose())


def test_mate_with_unknown_connector_is_reported_and_skipped():
    b = Builder()
    b.body("W.a", declared=Pose())
    b.body("W.b")
    b.conn("W.a.c", "W.a")
    b.mate("W.m", "lock", "W.a.c", "W.b.nope", file="f.openplx", line=3)
    r = solve(b.problem())
    errors = [d for d in r.diagnostics if d.is_error]
    assert [(d.element, d.file, d.line) for d in errors] == [("W.m", "f.openplx", 3)]
    assert "unknown connector 'W.b.nope'" in errors[0].message
    assert not r.ok


def test_disabled_mate_is_ignored():
    b = Builder()
    b.body("W.a", declared=Pose())
    b.body("W.b")
    b.conn("W.a.c", "W.a", position=(1, 0, 0))
    b.conn("W.b.c", "W.b")
    b.mate("W.m", "lock", "W.a.c", "W.b.c", enable_snap=False)
    r = solve(b.problem())
    assert_pose(r.local["W.b"], Pose())
    assert "only connected by mates with enable_snap false" in warnings(r)[0]


def test_unknown_mate_type_aligns_like_a_lock_with_a_warning():
    b = Builder()
    b.body("W.a", declared=Pose())
    b.body("W.b")
    b.conn("W.a.c", "W.a", position=(1, 0, 0))
    b.conn("W.b.c", "W.b")
    b.mate("W.m", "Universal", "W.a.c", "W.b.c", initial_angle=1.0)
    r = solve(b.problem())
    assert_pose(r.local["W.b"], T(1, 0, 0))
    assert "unknown type 'Universal'" in warnings(r)[0]


def test_degenerate_connector_frame_is_an_error():
    # What an evaluator would produce for normal parallel to main_axis without the fallback.
    b = Builder()
    b.body("W.a", declared=Pose())
    b.body("W.b")
    b.conn("W.a.c", "W.a", X_OC=Pose((0, 0, 0, 0, 0, 0, 0, 0, 1)))
    b.conn("W.b.c", "W.b")
    b.mate("W.m", "lock", "W.a.c", "W.b.c")
    r = solve(b.problem())
    errors = [d.message for d in r.diagnostics if d.is_error]
    # One error, at the root cause: the mate using the connector is left out silently.
    assert len(errors) == 1
    assert "frame of connector 'W.a.c' is degenerate" in errors[0] and "parallel" in errors[0]
    assert "Mate 'W.m' ignored: a connector is missing or was left out" in r.trace


def test_non_finite_input_is_reported_never_raised():
    # Hostile numbers (an OpenPLX file may compute 1e308 * 10): no exception, one error each.
    b = Builder()
    b.body("W.a", declared=T(math.inf, 0, 0))
    b.body("W.b")
    b.body("W.c")
    b.conn("W.a.c", "W.a")
    b.conn("W.b.c", "W.b")
    b.conn("W.c.c", "W.c", X_OC=T(math.nan, 0, 0))
    b.mate("W.m", "hinge", "W.a.c", "W.b.c", initial_angle=math.inf)
    b.mate("W.n", "prismatic", "W.a.c", "W.c.c")
    r = solve(b.problem())
    errors = [d.message for d in r.diagnostics if d.is_error]
    assert errors == [
        "the declared local_transform of 'W.a' is not finite; identity is used",
        "the frame of connector 'W.c.c' is not finite; mates using it are not snapped",
        "mate 'W.m': initial_angle is not finite; the mate is not snapped",
    ]
    assert all(math.isfinite(v) for X in r.world.values() for v in (*X.p, *X.R))


def test_two_connectors_on_one_body_can_only_be_checked():
    b = Builder()
    b.body("W.a")
    b.conn("W.a.c1", "W.a")
    b.conn("W.a.c2", "W.a", position=(0, 0, 1))
    b.mate("W.m", "lock", "W.a.c1", "W.a.c2")
    r = solve(b.problem())
    assert any("SNAP can not move them" in w for w in warnings(r))


def test_bad_tree_references_are_reported():
    b = Builder()
    b.system("W.s", "W.nowhere")
    b.body("W.b", "W.missing")
    b.conn("W.c", "W.ghost")
    r = solve(b.problem())
    errors = [d.message for d in r.diagnostics if d.is_error]
    assert any("'W.s' has parent 'W.nowhere'" in e for e in errors)
    assert any("'W.b' has parent 'W.missing'" in e for e in errors)
    assert any("unknown body or system 'W.ghost'" in e for e in errors)


def test_parent_cycle_is_broken_at_the_root():
    b = Builder()
    b.system("W.s1", "W.s2")
    b.system("W.s2", "W.s1")
    r = solve(b.problem())
    assert any("its own ancestor" in d.message for d in r.diagnostics)
    assert set(r.local) == {"W", "W.s1", "W.s2"}


def test_redirected_connector_reports_its_pose_in_the_redirected_parent():
    # Connector defined in system arm (declared Tx(1)) at Ty(1), redirected to body arm.b
    # (declared Tz(2) in arm): in b it is Ty(1) Tz(-2) = (0, 1, -2).  A free body locked to it
    # lands on its world pose (1, 1, 0).
    b = Builder()
    b.system("W.arm", declared=T(1, 0, 0))
    b.body("W.arm.b", "W.arm", declared=T(0, 0, 2))
    b.body("W.tool")
    b.connectors.append(SnapConnector("W.arm.slot", "W.arm", T(0, 1, 0), "W.arm.b"))
    b.conn("W.tool.c", "W.tool")
    b.mate("W.m", "lock", "W.arm.slot", "W.tool.c")
    r = solve(b.problem())
    assert_pose(r.redirected["W.arm.slot"], T(0, 1, -2))
    assert_pose(r.local["W.tool"], T(1, 1, 0))


def test_result_keys_and_connector_local_frames():
    b = Builder()
    b.system("W.arm", declared=T(0, 0, 1))
    b.body("W.arm.b", "W.arm", declared=T(1, 0, 0))
    b.conn("W.arm.b.c", "W.arm.b", position=(0, 1, 0))
    r = solve(SnapProblem("W", b.systems, b.bodies, b.connectors, []))
    assert list(r.local) == ["W", "W.arm", "W.arm.b", "W.arm.b.c"]
    assert list(r.world) == list(r.local)
    assert_pose(r.local["W.arm.b.c"], T(1, 1, 0))   # in arm, the owning system of its owner
    assert_pose(r.world["W.arm.b.c"], T(1, 1, 1))


def test_reference_body_that_is_not_a_body_of_the_system_falls_back_with_a_warning():
    b = _three_free_bodies(reference_body="W.nobody")
    r = solve(b.problem())
    assert any("reference_body 'W.nobody' of 'W' is not one of its bodies" in w for w in warnings(r))
    assert forced(r) == ["W.a"]  # the default rule


def test_adaptive_connector_places_nothing_and_adapts_after_snap():
    # Hinge [base.h, arm.p] at 0.3 rad places arm; the Lock [base.spring (adaptive), arm.s]
    # must neither move arm (loop closure would turn the hinge) nor be reported violated:
    # the adaptive connector moves onto arm.s, expressed in base.
    b = Builder()
    b.body("W.base", declared=T(0, 0, 1))
    b.body("W.arm")
    b.conn("W.base.h", "W.base", position=(1, 0, 0), main_axis=(0, 1, 0))
    b.connectors.append(SnapConnector("W.base.spring", "W.base", T(0.5, 0, 0.2), adaptive=True))
    b.conn("W.arm.p", "W.arm", main_axis=(0, 1, 0))
    b.conn("W.arm.s", "W.arm", position=(-0.5, 0, 0))
    b.mate("W.hinge", "hinge", "W.base.h", "W.arm.p", initial_angle=0.3)
    b.mate("W.spring", "lock", "W.base.spring", "W.arm.s")
    r = solve(b.problem())
    assert warnings(r) == []
    assert r.dofs["W.hinge"][0].value == pytest.approx(0.3)
    # The arm turned 0.3 rad about the hinge axis (world y) at (1, 0, 1).
    assert_pose(r.world["W.arm"], Pose.from_xyz_rpy(1, 0, 1, 0, 0.3, 0))
    assert_pose(r.world["W.base.spring"], r.world["W.arm.s"])
    assert_pose(r.adapted["W.base.spring"], T(0, 0, -1) @ r.world["W.arm.s"])
    assert "W.arm.s" not in r.adapted


def test_adaptive_connector_on_side_1_takes_the_mate_offset():
    b = Builder()
    b.body("W.a", declared=T(1, 0, 0))
    b.body("W.b", declared=T(0, 2, 0))
    b.conn("W.a.c", "W.a")
    b.connectors.append(SnapConnector("W.b.c", "W.b", T(), adaptive=True))
    b.mate("W.m", "prismatic", "W.a.c", "W.b.c", initial_position=0.5)
    r = solve(b.problem())
    assert warnings(r) == []
    assert_pose(r.world["W.b.c"], T(1, 0, 0.5))        # connector 0 @ Tz(0.5)
    assert_pose(r.adapted["W.b.c"], T(1, -2, 0.5))
