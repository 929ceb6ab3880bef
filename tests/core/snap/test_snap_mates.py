"""Each mate type's SNAP offset and check, and the sign flip of swapped connectors.

Set-up shared by the placement tests: a declared base at the identity with connector
``C0 = Tx(1)`` (main axis z, normal x) and a free body with connector ``C1 = Tx(0.5)``.
The alignment equation ``X_base C0 D = X_body C1`` gives ``X_body = Tx(1) D Tx(-0.5)``:

* Lock / Ball (D = I):                  position (0.5, 0, 0), no rotation.
* Hinge a = pi/2 (D = Rz(a)):           (1,0,0) + Rz(90°)(-0.5,0,0) = (1, -0.5, 0), Rz(90°).
* Prismatic p = 0.2 (D = Tz(p)):        (1,0,0.2) + (-0.5,0,0) = (0.5, 0, 0.2).
* Cylindrical a = pi/2, p = 0.2:        (1, -0.5, 0.2), Rz(90°).
* Distance d = 0.3 (D = Tz(d), chosen): (0.5, 0, 0.3).

Swapped connectors [body, base]: ``X_body C1 D = X_base C0`` so ``X_body = Tx(1) D^-1 Tx(-0.5)``.
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

Q = math.pi / 2


def _pair(kind: str, swapped: bool = False, **initial):
    b = Builder("W")
    b.body("W.base", declared=Pose())
    b.body("W.body")
    c0 = b.conn("W.base.c", "W.base", position=(1, 0, 0))
    c1 = b.conn("W.body.c", "W.body", position=(0.5, 0, 0))
    b.mate("W.m", kind, *((c1, c0) if swapped else (c0, c1)), **initial)
    return solve(b.problem())


@pytest.mark.parametrize("kind, initial, expected", [
    ("lock", {}, Pose.translation(0.5, 0, 0)),
    ("lock", {"initial_angle": 1.0, "initial_position": 2.0}, Pose.translation(0.5, 0, 0)),
    ("ball", {}, Pose.translation(0.5, 0, 0)),
    ("hinge", {"initial_angle": Q}, rz(Q, (1, -0.5, 0))),
    ("hinge", {"initial_position": 0.7}, Pose.translation(0.5, 0, 0)),  # hinges do not slide
    ("prismatic", {"initial_position": 0.2}, Pose.translation(0.5, 0, 0.2)),
    ("prismatic", {"initial_angle": Q}, Pose.translation(0.5, 0, 0)),   # ... nor turn prismatics
    ("cylindrical", {"initial_angle": Q, "initial_position": 0.2}, rz(Q, (1, -0.5, 0.2))),
    ("distance", {"initial_distance": 0.3}, Pose.translation(0.5, 0, 0.3)),
    ("Physics3D.Interactions.Hinge", {"initial_angle": Q}, rz(Q, (1, -0.5, 0))),
])
def test_mate_offset_places_the_free_body(kind, initial, expected):
    r = _pair(kind, **initial)
    assert_pose(r.local["W.body"], expected)
    assert r.status["W.body"] == "snapped"
    assert not [d for d in r.diagnostics if d.severity >= Severity.WARNING]


@pytest.mark.parametrize("kind, initial, expected", [
    # X_body = Tx(1) Rz(-a) Tx(-0.5): (1,0,0) + Rz(-90°)(-0.5,0,0) = (1, 0.5, 0).
    ("hinge", {"initial_angle": Q}, rz(-Q, (1, 0.5, 0))),
    ("prismatic", {"initial_position": 0.2}, Pose.translation(0.5, 0, -0.2)),
    ("cylindrical", {"initial_angle": Q, "initial_position": 0.2}, rz(-Q, (1, 0.5, -0.2))),
    ("distance", {"initial_distance": 0.3}, Pose.translation(0.5, 0, -0.3)),
])
def test_swapping_the_connectors_flips_the_initial_values(kind, initial, expected):
    r = _pair(kind, swapped=True, **initial)
    assert_pose(r.local["W.body"], expected)
    assert r.trace[2].startswith("Constraining from 'W.body.c' to 'W.base.c' by 'W.body'")
    assert "connectors[0] side moves" in r.trace[2]


def test_prismatic_slides_along_the_main_axis_not_along_z():
    # Base connector at the origin with main axis +x and normal +y:
    #   z = (1,0,0), x = (0,1,0), y = z × x = (0,0,1); R = [x y z] = [[0,0,1],[1,0,0],[0,1,0]].
    # Body connector = identity.  X_body = C0 Tz(0.2) = (R·(0,0,0.2), R) = ((0.2,0,0), R).
    b = Builder("W")
    b.body("W.base", declared=Pose())
    b.body("W.slider")
    b.conn("W.base.rail", "W.base", main_axis=(1, 0, 0), normal=(0, 1, 0))
    b.conn("W.slider.shoe", "W.slider")
    b.mate("W.p", "prismatic", "W.base.rail", "W.slider.shoe", initial_position=0.2)
    r = solve(b.problem())
    assert_pose(r.local["W.slider"], Pose((0, 0, 1, 1, 0, 0, 0, 1, 0), (0.2, 0, 0)))


def test_mate_offsets_follow_a_moved_declared_base():
    # Base declared at (0,0,2) turned Rz(90°): X_body = X_base Tx(1) Rz(pi/2) Tx(-0.5).
    #   Tx(1) Rz(90°) Tx(-0.5) = Rz(90°) at (1,-0.5,0);  Rz(90°)(1,-0.5,0) = (0.5,1,0);
    #   so X_body = Rz(180°) at (0.5, 1, 2).
    b = Builder("W")
    b.body("W.base", declared=rz(Q, (0, 0, 2)))
    b.body("W.body")
    b.conn("W.base.c", "W.base", position=(1, 0, 0))
    b.conn("W.body.c", "W.body", position=(0.5, 0, 0))
    b.mate("W.m", "hinge", "W.base.c", "W.body.c", initial_angle=Q)
    r = solve(b.problem())
    assert_pose(r.local["W.body"], rz(math.pi, (0.5, 1, 2)))


# -- checks of mates whose both sides are declared: only what the mate constrains counts --------
# The body pose Tx(1) @ T @ Tx(-0.5) puts the body connector at T in the base connector frame.
def _at(T: Pose) -> Pose:
    return Pose.translation(1, 0, 0) @ T @ Pose.translation(-0.5, 0, 0)


@pytest.mark.parametrize("kind, body_pose, satisfied", [
    ("hinge", _at(rz(0.3)), True),                                    # turning about the axis: free
    ("hinge", _at(Pose.translation(0, 0, 0.1)), False),               # sliding: constrained
    ("hinge", _at(Pose.from_xyz_rpy(0, 0, 0, 0.01, 0, 0)), False),    # tilting: constrained
    ("prismatic", _at(Pose.translation(0, 0, 0.1)), True),            # sliding: free
    ("prismatic", _at(rz(0.3)), False),                               # turning: constrained
    ("cylindrical", _at(rz(0.3, (0, 0, 0.1))), True),
    ("cylindrical", _at(Pose.translation(0, 0.1, 0)), False),
    ("ball", _at(Pose.from_xyz_rpy(0, 0, 0, 0.3, 0.2, 0.1)), True),
    ("ball", _at(Pose.translation(0, 0, 0.1)), False),
    ("lock", _at(Pose()), True),
    ("lock", _at(rz(1e-3)), False),
])
def test_check_of_placed_sides(kind, body_pose, satisfied):
    b = Builder("W")
    b.body("W.base", declared=Pose())
    b.body("W.body", declared=body_pose)
    c0 = b.conn("W.base.c", "W.base", position=(1, 0, 0))
    c1 = b.conn("W.body.c", "W.body", position=(0.5, 0, 0))
    b.mate("W.m", kind, c0, c1)
    r = solve(b.problem())
    assert_pose(r.local["W.body"], body_pose, 0.0)  # declared: never moved
    violated = [d for d in r.diagnostics if "violated" in d.message]
    assert (not violated) == satisfied
    if not satisfied:
        assert violated[0].severity == Severity.WARNING and violated[0].element == "W.m"


def test_distance_check_holds_the_initial_distance():
    # Body connector declared 0.3 from the base connector in an arbitrary direction.
    b = Builder("W")
    b.body("W.base", declared=Pose())
    b.body("W.body", declared=Pose.translation(0.5, 0.3 * math.cos(1), 0.3 * math.sin(1)))
    b.conn("W.base.c", "W.base", position=(1, 0, 0))
    b.conn("W.body.c", "W.body", position=(0.5, 0, 0))
    b.mate("W.d", "distance", "W.base.c", "W.body.c", initial_distance=0.3)
    b.mate("W.d2", "distance", "W.base.c", "W.body.c", initial_distance=0.4)
    r = solve(b.problem())
    assert [d.element for d in r.diagnostics] == ["W.d2"]


def test_dofs_recorded_per_mate_type():
    names = {}
    for kind in ("lock", "hinge", "prismatic", "cylindrical", "ball", "distance"):
        r = _pair(kind, initial_angle=0.1, initial_position=0.2)
        names[kind] = [(d.name, d.initial) for d in r.dofs.get("W.m", [])]
    assert names["lock"] == []
    assert names["hinge"] == [("around_main", 0.1)]
    assert names["prismatic"] == [("along_main", 0.2)]
    assert names["cylindrical"] == [("around_main", 0.1), ("along_main", 0.2)]
    assert [n for n, _ in names["ball"]] == ["around_main", "around_normal", "around_cross"]
    assert len(names["distance"]) == 5
