"""Loop closure: a mate whose sides are both placed is satisfied by moving earlier free DOFs.

All mechanisms are planar in the world xy plane with every main axis along +z, links along
their local +x.  The bodies free for SNAP are connectors[1] of the mates that place them, so
each recorded DOF turns (slides) its body by +delta about (along) the fixed connector's axis.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from snapframe.core.diagnostics import Severity
from snapframe.core.pose import Pose

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from snaphelpers import Builder, assert_pose, rz  # noqa: E402

from snapframe.core.snap import solve  # noqa: E402

R2 = math.sqrt(2.0)


def _link(b: Builder, name: str, length: float = 1.0) -> None:
    b.body(name)
    b.conn(f"{name}.a", name)
    b.conn(f"{name}.b", name, position=(length, 0, 0))


def test_two_hinges_in_series_close_a_triangle_on_the_negative_branch():
    # Ground g (declared) has pivots c1 = origin and c2 = (sqrt2, 0, 0).  l1, l2 have length 1.
    #   h1 [g.c1, l1.a], h2 [l1.b, l2.a], h3 [l2.b, g.c2]   (initial angles 0)
    # h1, h2 place l1 = I, l2 = Tx(1): l2.b sits at (2,0,0), h3 is violated by 2 - sqrt2.
    # Closing with the two hinge angles t1, t2 is a two-link chain reaching (sqrt2, 0): the
    # elbow triangle has sides 1, 1, sqrt2, so the elbow angle is ±90° and the shoulder ∓45°.
    # Negative branch: the later hinge (h2, the elbow) turns by -90°, so h1 = +45°:
    #   l1 = Rz(45°) at the origin, l1.b = (√2/2, √2/2, 0);
    #   l2 = Rz(45° - 90°) = Rz(-45°) at (√2/2, √2/2, 0), l2.b = (√2/2 + √2/2, √2/2 - √2/2) = (√2, 0).
    b = Builder()
    b.body("W.g", declared=Pose())
    b.conn("W.g.c1", "W.g")
    b.conn("W.g.c2", "W.g", position=(R2, 0, 0))
    _link(b, "W.l1")
    _link(b, "W.l2")
    b.mate("W.h1", "hinge", "W.g.c1", "W.l1.a")
    b.mate("W.h2", "hinge", "W.l1.b", "W.l2.a")
    b.mate("W.h3", "hinge", "W.l2.b", "W.g.c2")
    r = solve(b.problem())
    assert_pose(r.local["W.l1"], rz(math.pi / 4))
    assert_pose(r.local["W.l2"], rz(-math.pi / 4, (R2 / 2, R2 / 2, 0)))
    assert r.world["W.l2.b"].p == pytest.approx((R2, 0, 0), abs=1e-12)
    assert [(d.value, d.state, d.used_by) for d in r.dofs["W.h1"] + r.dofs["W.h2"]] == \
        [(pytest.approx(math.pi / 4), "used", "W.h3"), (pytest.approx(-math.pi / 2), "used", "W.h3")]
    assert not r.diagnostics
    assert any(t.startswith("Satisfying 'W.h3' by rotating W.h1.around_main") for t in r.trace)


def test_two_hinges_on_both_sides_meet_at_a_circle_intersection():
    # Ground pivots at (0,0) (h1 -> left link l) and (1,0) (h2 -> right link r), links of length 1.
    # h3 [l.b, r.b] joins the link tips: l.b starts at (1,0), r.b at (2,0).
    # Circles of radius 1 about (0,0) and (1,0) meet at (1/2, ±√3/2).
    #   (1/2, +√3/2): l turns +60°, r turns from (1,0) to (-1/2, √3/2) about (1,0): +120°.
    #   (1/2, -√3/2): l turns -60°, r turns -120°.   Negative branch (later hinge h2 < 0): this one.
    b = Builder()
    b.body("W.g", declared=Pose())
    b.conn("W.g.left", "W.g")
    b.conn("W.g.right", "W.g", position=(1, 0, 0))
    _link(b, "W.l")
    _link(b, "W.r")
    b.mate("W.h1", "hinge", "W.g.left", "W.l.a")
    b.mate("W.h2", "hinge", "W.g.right", "W.r.a")
    b.mate("W.h3", "hinge", "W.l.b", "W.r.b")
    r = solve(b.problem())
    assert_pose(r.local["W.l"], rz(-math.pi / 3))
    assert_pose(r.local["W.r"], rz(-2 * math.pi / 3, (1, 0, 0)))
    assert r.world["W.l.b"].p == pytest.approx((0.5, -math.sqrt(3) / 2, 0), abs=1e-12)
    assert not r.diagnostics


def test_hinge_and_prismatic_close_a_piston():
    # Cylinder hinged to the ground at the origin (h1), rod sliding in it along the cylinder's
    # local x (prismatic p: both connectors have main axis +x, normal +y), rod end Tx(1) hinged
    # to the ground at (0, 2, 0) (h3).  Start: cyl = I, rod = I, rod end at (1,0,0): violated.
    # The rod end moves on the line (1 + s, 0) (slide) and must be at distance 2 from the
    # hinge: 1 + s = ±2 -> s = 1 (shorter slide) or s = -3; then the hinge turns (2,0) onto
    # (0,2): +90°.  cyl = Rz(90°); rod = Rz(90°) Tx(1) = Rz(90°) at (0, 1, 0).
    b = Builder()
    b.body("W.g", declared=Pose())
    b.conn("W.g.c1", "W.g")
    b.conn("W.g.c2", "W.g", position=(0, 2, 0))
    b.body("W.cyl")
    b.conn("W.cyl.a", "W.cyl")
    b.conn("W.cyl.s", "W.cyl", main_axis=(1, 0, 0), normal=(0, 1, 0))
    b.body("W.rod")
    b.conn("W.rod.s", "W.rod", main_axis=(1, 0, 0), normal=(0, 1, 0))
    b.conn("W.rod.e", "W.rod", position=(1, 0, 0))
    b.mate("W.h1", "hinge", "W.g.c1", "W.cyl.a")
    b.mate("W.p", "prismatic", "W.cyl.s", "W.rod.s")
    b.mate("W.h3", "hinge", "W.rod.e", "W.g.c2")
    r = solve(b.problem())
    assert_pose(r.local["W.cyl"], rz(math.pi / 2))
    assert_pose(r.local["W.rod"], rz(math.pi / 2, (0, 1, 0)))
    assert r.dofs["W.p"][0].value == pytest.approx(1.0)
    assert r.dofs["W.h1"][0].value == pytest.approx(math.pi / 2)
    assert not r.diagnostics


def test_a_ball_only_the_hinge_could_reach_conflicts_and_the_hinge_keeps_its_angle():
    # Link hinged at the origin (angle 0: l = I), tip at (1,0); a ball wants the tip at (0,1,0).
    # Only h's angle could move it: a conflict, not a loop (a closure needs two mates' DOFs),
    # so h wins with its initial angle and the ball is left √2 m apart.
    b = Builder()
    b.body("W.g", declared=Pose())
    b.conn("W.g.c", "W.g")
    b.conn("W.g.ball", "W.g", position=(0, 1, 0))
    _link(b, "W.l")
    b.mate("W.h", "hinge", "W.g.c", "W.l.a")
    b.mate("W.tip", "ball", "W.l.b", "W.g.ball")
    r = solve(b.problem())
    assert_pose(r.local["W.l"], Pose())
    (d,) = r.diagnostics
    assert d.element == "W.tip" and d.severity == Severity.WARNING
    assert "1.41 m" in d.message
    assert r.dofs["W.h"][0].state == "free" and r.dofs["W.h"][0].value == 0.0


def test_loop_that_cannot_close_is_left_violated_and_the_first_mates_win():
    # As the circle-intersection case but pivots 3 apart: links of length 1 never meet.
    b = Builder()
    b.body("W.g", declared=Pose())
    b.conn("W.g.left", "W.g")
    b.conn("W.g.right", "W.g", position=(3, 0, 0))
    _link(b, "W.l")
    _link(b, "W.r")
    b.mate("W.h1", "hinge", "W.g.left", "W.l.a", initial_angle=0.2)
    b.mate("W.h2", "hinge", "W.g.right", "W.r.a", initial_angle=0.3)
    b.mate("W.h3", "hinge", "W.l.b", "W.r.b")
    r = solve(b.problem())
    assert_pose(r.local["W.l"], rz(0.2))
    assert_pose(r.local["W.r"], rz(0.3, (3, 0, 0)))
    (d,) = r.diagnostics
    assert d.element == "W.h3" and d.severity == Severity.WARNING
    assert [x.state for x in r.dofs["W.h1"] + r.dofs["W.h2"]] == ["free", "free"]
    assert any(t.startswith("Loop closure of 'W.h3' failed") for t in r.trace)


def test_loop_closure_keeps_earlier_satisfied_mates():
    # The series triangle again, plus a ball declared before h3 that pins l1's tip at its
    # initial spot (1,0,0).  The pin is satisfied when checked, so h1 may no longer move;
    # h2 alone cannot close h3 (it keeps l2's tip 1 from (1,0,0), the target is sqrt2 - 1 away),
    # so h3 stays violated and nothing moves.
    b = Builder()
    b.body("W.g", declared=Pose())
    b.conn("W.g.c1", "W.g")
    b.conn("W.g.c2", "W.g", position=(R2, 0, 0))
    b.conn("W.g.pin", "W.g", position=(1, 0, 0))
    _link(b, "W.l1")
    _link(b, "W.l2")
    b.mate("W.h1", "hinge", "W.g.c1", "W.l1.a")
    b.mate("W.h2", "hinge", "W.l1.b", "W.l2.a")
    b.mate("W.pin", "ball", "W.l1.b", "W.g.pin")
    b.mate("W.h3", "hinge", "W.l2.b", "W.g.c2")
    r = solve(b.problem())
    assert_pose(r.local["W.l1"], Pose())
    assert_pose(r.local["W.l2"], Pose.translation(1, 0, 0))
    assert [d.element for d in r.diagnostics] == ["W.h3"]


def test_an_orientation_only_the_hinge_could_fix_is_a_conflict():
    # l is hinged at the origin (angle 0 -> l = I); a lock joins l.k (origin, no rotation) to
    # g.k (origin, turned Rz(0.5)): only the hinge angle could fix it, so the hinge keeps its
    # initial angle 0 and the lock is left 0.5 rad off.
    b = Builder()
    b.body("W.g", declared=Pose())
    b.conn("W.g.c", "W.g")
    b.conn("W.g.k", "W.g", X_OC=rz(0.5))
    b.body("W.l")
    b.conn("W.l.a", "W.l")
    b.conn("W.l.k", "W.l")
    b.mate("W.h", "hinge", "W.g.c", "W.l.a")
    b.mate("W.lock", "lock", "W.l.k", "W.g.k")
    r = solve(b.problem())
    assert_pose(r.local["W.l"], Pose())
    assert r.dofs["W.h"][0].value == 0.0
    (d,) = r.diagnostics
    assert d.element == "W.lock" and "0 m and 0.5 rad apart" in d.message


def test_hinge_and_slide_on_opposite_sides_take_the_shorter_slide():
    # Arm hinged at the origin (tip Tx(1)); slider on a rail through (0.5,0,0) along +y, starting
    # 0.5 up the rail; a ball joins the arm tip and the slider.  Tip circle x²+y² = 1 meets the
    # rail x = 0.5 at y = ±√3/2: sliding to +√3/2 is 0.366 long, to -√3/2 is 1.366, so the
    # slider goes to (0.5, √3/2) and the arm turns +60°.
    b = Builder()
    b.body("W.g", declared=Pose())
    b.conn("W.g.pivot", "W.g")
    b.conn("W.g.rail", "W.g", position=(0.5, 0, 0), main_axis=(0, 1, 0), normal=(1, 0, 0))
    _link(b, "W.arm")
    b.body("W.slider")
    b.conn("W.slider.c", "W.slider", main_axis=(0, 1, 0), normal=(1, 0, 0))
    b.mate("W.h", "hinge", "W.g.pivot", "W.arm.a")
    b.mate("W.p", "prismatic", "W.g.rail", "W.slider.c", initial_position=0.5)
    b.mate("W.b", "ball", "W.arm.b", "W.slider.c")
    r = solve(b.problem())
    assert_pose(r.local["W.arm"], rz(math.pi / 3))
    assert r.dofs["W.p"][0].value == pytest.approx(math.sqrt(3) / 2)
    assert r.world["W.slider.c"].p == pytest.approx((0.5, math.sqrt(3) / 2, 0), abs=1e-12)
    assert not r.diagnostics


def test_two_slides_meet_where_their_rails_cross():
    # Slider s1 on a rail along +x through the origin, s2 on a rail along +y through (2,3,0);
    # a ball joins them: the rails cross at (2,0,0): s1 slides +2, s2 slides -3.
    b = Builder()
    b.body("W.g", declared=Pose())
    b.conn("W.g.r1", "W.g", main_axis=(1, 0, 0), normal=(0, 1, 0))
    b.conn("W.g.r2", "W.g", position=(2, 3, 0), main_axis=(0, 1, 0), normal=(1, 0, 0))
    for s, axis, normal in (("W.s1", (1, 0, 0), (0, 1, 0)), ("W.s2", (0, 1, 0), (1, 0, 0))):
        b.body(s)
        b.conn(f"{s}.c", s, main_axis=axis, normal=normal)
        b.conn(f"{s}.k", s)
    b.mate("W.p1", "prismatic", "W.g.r1", "W.s1.c")
    b.mate("W.p2", "prismatic", "W.g.r2", "W.s2.c")
    b.mate("W.b", "ball", "W.s1.k", "W.s2.k")
    r = solve(b.problem())
    assert [r.dofs[m][0].value for m in ("W.p1", "W.p2")] == [pytest.approx(2), pytest.approx(-3)]
    assert r.world["W.s1.k"].p == pytest.approx((2, 0, 0), abs=1e-12)
    assert not r.diagnostics
