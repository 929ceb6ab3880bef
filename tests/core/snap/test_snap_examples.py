"""SNAP on the two examples of the Physics3D documentation: the clock and the three-level rod.

Expected values are derived by hand in the comments from the alignment equation
``X_W1 = X_W0 @ D`` and, for the rod, the documentation's ``A = S1 S2 R M``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from snapframe.core.diagnostics import Severity
from snapframe.core.pose import Pose
from snapframe.core.snap import solve

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from snaphelpers import Builder, assert_pose, connector_frame, quat_from_to

# ----------------------------------------------------------------------------------------------
# Clock.  The face lies in the world xy plane facing +z (the viewer); twelve o'clock is +y and
# three o'clock is +x.  The face's connector sits 1 cm above the face centre with its main
# axis pointing *into* the clock (-z) and its normal towards twelve (+y):
#     z = (0,0,-1), x = (0,1,0), y = z × x = (1,0,0)  ->  R_F = [[0,1,0],[1,0,0],[0,0,-1]].
# The hand lies along its local +x from its pivot, front side +z; its connector is at the pivot
# with main axis out of its back (-z) and normal along the hand (+x):
#     z = (0,0,-1), x = (1,0,0), y = z × x = (0,-1,0)  ->  R_H = diag(1,-1,-1).
# Hinge [face, hand]:  X_hand = C_F @ Rz(a) @ C_H^-1, rotation R_F Rz(a) R_H.
#   a = 0:     R_F R_H = [[0,-1,0],[1,0,0],[0,0,1]] = Rz(+90°): the hand's x points to +y (12).
#   a = pi/2:  R_F Rz(90°) = [[1,0,0],[0,-1,0],[0,0,-1]]; times R_H = I: the hand points +x
#              (3 o'clock): a positive angle about an axis into the clock turns clockwise as seen
#              by the viewer, i.e. forward in time.
# Swapped order [hand, face]: X_face C_F = X_hand C_H Rz(a)  ->  X_hand = C_F Rz(-a) C_H^-1, so
# a = pi/2 now shows 9 o'clock (-x) and a = -pi/2 shows 3 o'clock.
# The hand's pivot is at the face connector's origin in every case: (0, 0, 0.01).
# ----------------------------------------------------------------------------------------------


def _clock(angle: float, swapped: bool = False):
    b = Builder("Clock")
    b.body("Clock.face", declared=Pose())
    b.body("Clock.hand")
    face = b.conn("Clock.face.pin", "Clock.face", position=(0, 0, 0.01), main_axis=(0, 0, -1),
                  normal=(0, 1, 0))
    hand = b.conn("Clock.hand.hole", "Clock.hand", main_axis=(0, 0, -1), normal=(1, 0, 0))
    pair = (hand, face) if swapped else (face, hand)
    b.mate("Clock.axle", "hinge", *pair, initial_angle=angle)
    return solve(b.problem())


def _hand_direction(result) -> tuple[float, float, float]:
    return result.world["Clock.hand"].rotate((1.0, 0.0, 0.0))


@pytest.mark.parametrize("angle, swapped, direction", [
    (0.0, False, (0, 1, 0)),             # twelve
    (math.pi / 2, False, (1, 0, 0)),     # three: forward in time
    (math.pi, False, (0, -1, 0)),        # six
    (math.pi / 2, True, (-1, 0, 0)),     # swapped connectors flip the sign: nine
    (-math.pi / 2, True, (1, 0, 0)),     # ... so -pi/2 is three again
])
def test_clock_hand_points_where_the_angle_says(angle, swapped, direction):
    r = _clock(angle, swapped)
    assert r.world["Clock.hand"].p == pytest.approx((0, 0, 0.01), abs=1e-12)
    assert _hand_direction(r) == pytest.approx(direction, abs=1e-12)
    # The hand's front (+z) faces the viewer in every case.
    assert r.world["Clock.hand"].rotate((0, 0, 1)) == pytest.approx((0, 0, 1), abs=1e-12)
    assert r.status == {"Clock": "root", "Clock.face": "declared", "Clock.hand": "snapped"}
    assert not [d for d in r.diagnostics if d.severity >= Severity.WARNING]


def test_clock_records_the_hinge_dof_and_traces_the_step():
    r = _clock(0.25)
    (dof,) = r.dofs["Clock.axle"]
    assert (dof.name, dof.frame, dof.initial, dof.value, dof.state) == \
        ("around_main", "Clock.hand", 0.25, 0.25, "free")
    assert any("Constraining from 'Clock.hand.hole' to 'Clock.face.pin' by 'Clock.hand'" in t
               for t in r.trace)


# ----------------------------------------------------------------------------------------------
# Three-level rod (snap_parent.openplx).  World ⊃ rod_system (RodParentParent, S1) ⊃
# rod_system (RodParent, S2) ⊃ rod (Rod, R).
#   M (rod.connector in the rod): position z = -size.z * 0.6 = -0.6, main Y, normal Z:
#       z = (0,1,0), x = (0,0,1), y = z × x = (1,0,0)  ->  R_M rows [[0,1,0],[0,0,1],[1,0,0]].
#   A (world_connector in World): position x = 0.5, main Y, normal X:
#       z = (0,1,0), x = (1,0,0), y = z × x = (0,0,-1) ->  R_A rows [[1,0,0],[0,0,1],[0,-1,0]].
# world_lock connectors [rod.connector, world_connector], Lock so D = I:
#       X_W(world_connector) = X_W(rod connector)  <=>  A = S1 S2 R M.
#   SnapRod:             S1, S2 declared  ->  R  = S2^-1 S1^-1 A M^-1
#   SnapRodParent:       S1, R declared   ->  S2 = S1^-1 A M^-1 R^-1
#   SnapRodParentParent: S2, R declared   ->  S1 = A M^-1 R^-1 S2^-1
# with n = (1,1,1)/sqrt(3) and the declared rotations of the documentation.
# ----------------------------------------------------------------------------------------------

N = (1.0, 1.0, 1.0)
ROD = "World.rod_system.rod_system.rod"
S1, S2 = "World.rod_system", "World.rod_system.rod_system"
M = connector_frame(position=(0, 0, -0.6), main_axis=(0, 1, 0), normal=(0, 0, 1))
A = connector_frame(position=(0.5, 0, 0), main_axis=(0, 1, 0), normal=(1, 0, 0))


def _rod(s1=None, s2=None, r=None):
    b = Builder("World")
    b.conn("World.world_connector", "World", A)
    b.system(S1, "World", s1)
    b.system(S2, S1, s2)
    b.body(ROD, S2, r)
    b.conn(ROD + ".connector", ROD, M)
    b.mate("World.world_lock", "lock", ROD + ".connector", "World.world_connector")
    return solve(b.problem())


def _rod_connector_lands_on_A(res):
    assert_pose(res.world[ROD + ".connector"], A)
    assert_pose(res.world["World.world_connector"], A)


def test_snap_rod_computes_the_rod():
    s1, s2 = quat_from_to((1, 0, 0), N), quat_from_to((0, 1, 0), N)
    res = _rod(s1=s1, s2=s2)
    assert_pose(res.local[ROD], s2.inverse() @ s1.inverse() @ A @ M.inverse())
    assert_pose(res.local[S1], s1)
    assert_pose(res.local[S2], s2)
    assert res.status[ROD] == "snapped"
    _rod_connector_lands_on_A(res)
    assert not res.diagnostics


def test_snap_rod_parent_computes_the_middle_system():
    s1, r = quat_from_to((1, 0, 0), N), quat_from_to((0, 1, 0), N)
    res = _rod(s1=s1, r=r)
    assert_pose(res.local[S2], s1.inverse() @ A @ M.inverse() @ r.inverse())
    assert_pose(res.local[S1], s1)
    assert_pose(res.local[ROD], r)
    assert res.status[S2] == "snapped"
    _rod_connector_lands_on_A(res)


def test_snap_rod_parent_parent_computes_the_top_system():
    s2, r = quat_from_to((1, 0, 0), N), quat_from_to((0, 1, 0), N)
    res = _rod(s2=s2, r=r)
    assert_pose(res.local[S1], A @ M.inverse() @ r.inverse() @ s2.inverse())
    assert_pose(res.local[S2], s2)
    assert_pose(res.local[ROD], r)
    assert res.status[S1] == "snapped"
    _rod_connector_lands_on_A(res)


def test_rod_with_nothing_declared_forces_the_two_lower_frames():
    # Three unknowns for one lock.  SNAP forces the lowest free frame on the first unresolved
    # mate (connectors[1] = world_connector has none, so connectors[0]: the rod, which is also
    # RodParent's reference body), then RodParent, and computes the top system:
    #   S1 = A M^-1,  rotation R_A R_M^T = [[0,0,1],[0,1,0],[-1,0,0]] = Ry(+90°),
    #   p = p_A - R_S1 p_M = (0.5,0,0) - R_S1 (0,0,-0.6) = (0.5,0,0) - (-0.6,0,0) = (1.1,0,0).
    res = _rod()
    assert_pose(res.local[S1], Pose.from_xyz_rpy(1.1, 0, 0, 0, math.pi / 2, 0))
    assert_pose(res.local[S2], Pose())
    assert_pose(res.local[ROD], Pose())
    assert (res.status[ROD], res.status[S2], res.status[S1]) == ("forced", "forced", "snapped")
    _rod_connector_lands_on_A(res)
    forced = [d.element for d in res.diagnostics if "forced to identity" in d.message]
    assert forced == [ROD, S2]
    assert all(d.severity == Severity.INFO for d in res.diagnostics)
    steps = [t for t in res.trace if t.startswith(("Forcing", "Constraining"))]
    assert [s.split("'")[1] for s in steps] == [ROD, S2, ROD + ".connector"]
