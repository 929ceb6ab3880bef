"""SNAP's conflict rule on an OpenPLX file (issue 8, item 4; openplx.md 3.4): of two
mates that conflict, the first declared wins with its initial value applied, and the
later one is reported violated.  The hand derivation: both connectors sit at their
bodies' origins, the base is fixed at the identity, so the arm's pose is the first
mate's offset ``D``: ``Rz(initial_angle)`` for a hinge, ``Tz(initial_position)`` for a
prismatic.
"""

from __future__ import annotations

import math

import pytest

from snapframe.plugins.openplx.cli import snap_command

RIG = """\
Rig is Physics3D.System:
    base is Physics3D.Bodies.RigidBody:
        kinematics.local_transform.position.x: 0
        c is Physics3D.Interactions.MateConnector
    arm is Physics3D.Bodies.RigidBody:
        c is Physics3D.Interactions.MateConnector
    first is Physics3D.Interactions.{first}:
        connectors: [base.c, arm.c]
        {value}
    second is Physics3D.Interactions.Lock:
        connectors: [base.c, arm.c]
"""


@pytest.mark.parametrize("first, value, pose", [
    # Rz(0.5): quaternion (cos 0.25, 0, 0, sin 0.25).
    ("Hinge", "initial_angle: 0.5", [0, 0, 0, math.cos(0.25), 0, 0, math.sin(0.25)]),
    ("Prismatic", "initial_position: 0.3", [0, 0, 0.3, 1, 0, 0, 0]),
])
def test_the_first_mate_wins_with_its_initial_value(tmp_path, first, value, pose) -> None:
    path = tmp_path / "rig.openplx"
    path.write_text(RIG.format(first=first, value=value))
    out = snap_command(path, trace=True)
    assert out["errors"] == []
    assert out["frames"]["Rig.arm"]["pose"] == pytest.approx(pose, abs=1e-12)
    [warning] = out["warnings"]
    assert (warning["code"], warning["line"]) == ("SNAP_VIOLATED", 10)
    assert "mate 'Rig.second' (lock) is violated" in warning["message"]
    assert any("the two mates conflict and the earlier one wins" in t for t in out["trace"])
