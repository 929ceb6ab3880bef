"""The documentation's clock and three-level rod examples: the SNAP problem they give,
and the end-to-end assembly through ``snap_command`` against transforms derived by hand
(A = S1 S2 R M for the rod)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from snapframe.core.pose import Pose
from snapframe.plugins.openplx.cli import snap_command
from snapframe.plugins.openplx.loader import load_file, load_text
from snapframe.plugins.openplx.snap_input import assemble

from .conftest import EXAMPLES

CLOCK = EXAMPLES / "clock.openplx"
ROD = EXAMPLES / "three_level_rod.openplx"


def T(R, p=(0.0, 0.0, 0.0)) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = np.asarray(R, dtype=float)
    out[:3, 3] = p
    return out


def columns(x, y, z) -> np.ndarray:
    return np.column_stack([x, y, z]).astype(float)


def rot_from_to(a, b) -> np.ndarray:
    """Rodrigues: the shortest rotation taking unit vector a to unit vector b."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    axis = np.cross(a, b)
    s, c = np.linalg.norm(axis), float(a @ b)
    k = axis / s
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + s * K + (1 - c) * K @ K


def matrix(entry: list[float]) -> np.ndarray:
    """4x4 of a CLI pose [x, y, z, qw, qx, qy, qz]."""
    return Pose.from_xyz_quat(entry[:3], entry[3:]).matrix()


# Hand-derived frames of the rod example.
N = np.ones(3) / math.sqrt(3)
X, Y, Z = np.eye(3)
A = T(columns(X, -Z, Y), (0.5, 0, 0))           # world_connector: main Y, normal X
M = T(columns(Z, X, Y), (0, 0, -0.6))           # rod.connector: main Y, normal Z, z = -1 * 0.6
S_X = T(rot_from_to(X, N))                      # declared rotations of the example
S_Y = T(rot_from_to(Y, N))
inv = np.linalg.inv


# -- the SNAP problem -------------------------------------------------------------------


def test_clock_problem() -> None:
    _, _, problem = assemble(load_file(CLOCK))
    assert problem.root == "Clock"
    assert [(s.path, s.parent, s.declared) for s in problem.systems] == [("Clock", None, None)]
    face, hand = problem.bodies
    assert (face.path, face.parent, hand.path, hand.declared) == \
        ("Clock.face", "Clock", "Clock.hour_hand", None)
    assert face.declared.almost_equal(Pose.translation(0, 0, 1.5))
    center, pivot = problem.connectors
    assert (center.path, center.owner) == ("Clock.face.center", "Clock.face")
    # centre: z = main (0,-1,0), x = normal (0,0,1), y = z x x = (-1,0,0)
    assert np.allclose(center.X_OC.matrix(), T(columns(Z, -X, -Y), (0, 0.01, 0)))
    # pivot: z = (0,0,-1), x = (1,0,0), y = (0,-1,0); the default position is the origin
    assert np.allclose(pivot.X_OC.matrix(), T(columns(X, -Y, -Z)))
    [hinge] = problem.mates
    assert (hinge.path, hinge.type, hinge.connectors) == \
        ("Clock.hand_hinge", "hinge", ("Clock.face.center", "Clock.hour_hand.pivot"))
    assert hinge.initial_angle == pytest.approx(math.pi / 2) and hinge.enable_snap
    assert (hinge.file, hinge.line) == (str(CLOCK), 36)


@pytest.mark.parametrize("model, declared_systems, body_declared", [
    ("World", [None, None, None], None),
    ("SnapRod", [None, S_X, S_Y], None),
    ("SnapRodParent", [None, S_X, None], S_Y),
    ("SnapRodParentParent", [None, None, S_X], S_Y),
])
def test_rod_problems(model, declared_systems, body_declared) -> None:
    _, _, problem = assemble(load_file(ROD), model)
    assert problem.root == model
    assert [(s.path, s.parent) for s in problem.systems] == [
        (model, None), (f"{model}.rod_system", model),
        (f"{model}.rod_system.rod_system", f"{model}.rod_system")]
    for s, expected in zip(problem.systems, declared_systems):
        assert (s.declared is None) == (expected is None)
        if expected is not None:
            assert np.allclose(s.declared.matrix(), expected)
    [rod] = problem.bodies
    assert (rod.path, rod.parent) == (f"{model}.rod_system.rod_system.rod",
                                      f"{model}.rod_system.rod_system")
    assert (rod.declared is None) == (body_declared is None)
    if body_declared is not None:
        assert np.allclose(rod.declared.matrix(), body_declared)
    world_c, rod_c = problem.connectors
    assert (world_c.path, world_c.owner) == (f"{model}.world_connector", model)
    assert np.allclose(world_c.X_OC.matrix(), A) and np.allclose(rod_c.X_OC.matrix(), M)
    [lock] = problem.mates
    assert lock.type == "lock" and lock.connectors == (rod_c.path, world_c.path)


def test_old_dialect_rod_gives_the_same_problem() -> None:
    """The documentation's original 0.16 text (Charges, charges, camelCase) still loads."""
    text = ROD.read_text()
    old = (text.replace("Physics3D.Geometries.Box", "Physics3D.Charges.Box")
               .replace("Physics3D.Interactions.MateConnector", "Physics3D.Charges.MateConnector")
               .replace("connectors:", "charges:").replace("angle_axis", "angleAxis")
               .replace("from_to", "fromTo"))
    f = load_text(old, str(ROD))
    _, _, p_old = assemble(f, "SnapRod")
    _, _, p_new = assemble(load_file(ROD), "SnapRod")
    assert [c.X_OC for c in p_old.connectors] == [c.X_OC for c in p_new.connectors]
    assert [s.declared for s in p_old.systems] == [s.declared for s in p_new.systems]
    assert p_old.mates == [m for m in p_new.mates]
    assert all(p.severity.name == "WARNING" for p in f.all_problems())


# -- end to end -------------------------------------------------------------------------


def test_clock_end_to_end() -> None:
    out = snap_command(CLOCK)            # the last System of the file: Clock
    assert out["errors"] == [] and out["warnings"] == []
    assert set(out) == {"errors", "warnings", "frames"}
    frames = out["frames"]
    assert {k: v["kind"] for k, v in frames.items()} == {
        "Clock": "system", "Clock.face": "body", "Clock.hour_hand": "body",
        "Clock.face.center": "connector", "Clock.hour_hand.pivot": "connector"}
    # Hand = F C0 Rz(pi/2) C1^-1 with F = face at z = 1.5: the hand points to three
    # o'clock (-x seen from the front, which is +y) and its front faces +y.
    F = T(np.eye(3), (0, 0, 1.5))
    C0 = T(columns(Z, -X, -Y), (0, 0.01, 0))
    C1 = T(columns(X, -Y, -Z))
    Rz = T([[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    hand = F @ C0 @ Rz @ inv(C1)
    assert np.allclose(hand, T([[-1, 0, 0], [0, 0, 1], [0, 1, 0]], (0, 0.01, 1.5)))
    assert np.allclose(matrix(frames["Clock.hour_hand"]["pose"]), hand)
    assert np.allclose(matrix(frames["Clock.hour_hand"]["local"]), hand)
    assert np.allclose(matrix(frames["Clock.face"]["pose"]), F)
    # The two connector frames differ by the hinge angle about the main axis.
    pivot = matrix(frames["Clock.hour_hand.pivot"]["pose"])
    center = matrix(frames["Clock.face.center"]["pose"])
    assert np.allclose(inv(center) @ pivot, Rz)


def test_clock_at_twelve(tmp_path) -> None:
    path = tmp_path / "clock.openplx"
    path.write_text(CLOCK.read_text().replace("initial_angle: Math.PI / 2", "initial_angle: 0"))
    hand = matrix(snap_command(path)["frames"]["Clock.hour_hand"]["pose"])
    assert np.allclose(hand[:3, 0], Z)      # the hand (local x) points to twelve
    assert np.allclose(hand[:3, 2], Y)      # its front (local z) faces the viewer


@pytest.mark.parametrize("model", ["SnapRod", "SnapRodParent", "SnapRodParentParent"])
def test_rod_end_to_end(model) -> None:
    out = snap_command(ROD, model, trace=True)
    assert out["errors"] == [] and out["trace"]
    f = out["frames"]
    rs, rs2, rod = (f"{model}.rod_system", f"{model}.rod_system.rod_system",
                    f"{model}.rod_system.rod_system.rod")
    if model == "SnapRod":                     # R = S2^-1 S1^-1 A M^-1
        S1, S2 = S_X, S_Y
        R = inv(S2) @ inv(S1) @ A @ inv(M)
    elif model == "SnapRodParent":             # S2 = S1^-1 A M^-1 R^-1
        S1, R = S_X, S_Y
        S2 = inv(S1) @ A @ inv(M) @ inv(R)
    else:                                      # S1 = A M^-1 R^-1 S2^-1
        S2, R = S_X, S_Y
        S1 = A @ inv(M) @ inv(R) @ inv(S2)
    assert np.allclose(matrix(f[rs]["local"]), S1)
    assert np.allclose(matrix(f[rs2]["local"]), S2)
    assert np.allclose(matrix(f[rod]["local"]), R)
    assert np.allclose(matrix(f[rod]["pose"]), S1 @ S2 @ R)
    assert np.allclose(matrix(f[rod + ".connector"]["pose"]), A)      # A = S1 S2 R M
    assert np.allclose(matrix(f[f"{model}.world_connector"]["pose"]), A)


def test_rod_without_declarations_forces_two_identities() -> None:
    out = snap_command(ROD, "World")
    f = out["frames"]
    locals_ = [matrix(f[p]["local"]) for p in
               ("World.rod_system", "World.rod_system.rod_system", "World.rod_system.rod_system.rod")]
    assert sum(np.allclose(L, np.eye(4)) for L in locals_) >= 2
    assert np.allclose(matrix(f["World.rod_system.rod_system.rod.connector"]["pose"]), A)


def test_snap_command_reports_problems() -> None:
    out = snap_command(ROD, "Nope")
    assert out["frames"] == {}
    [err] = out["errors"]
    assert set(err) == {"code", "message", "file", "line"}
    assert "no model named 'Nope'" in err["message"]
    missing = snap_command(EXAMPLES / "does_not_exist.openplx")
    assert missing["errors"][0]["code"] == "FILE_READ"


def test_snap_command_warns_about_unmated_bodies(load, tmp_path) -> None:
    path = tmp_path / "loose.openplx"
    path.write_text("Rig is Physics3D.System:\n    a is Physics3D.Bodies.RigidBody\n")
    out = snap_command(path)
    assert out["errors"] == []
    [w] = out["warnings"]
    assert (w["file"], w["line"]) == (str(path), 2) and "Rig.a" in w["message"]


def test_mate_to_the_world_const_connector(tmp_path) -> None:
    path = tmp_path / "pendulum.openplx"
    path.write_text("""
Rig is Physics3D.System:
    bob is Physics3D.Bodies.RigidBody:
        mc is Physics3D.Interactions.MateConnector:
            position.z: -1
    pin is Physics3D.Interactions.Hinge:
        connectors: [Physics3D.Interactions.World, bob.mc]
        initial_angle: 0.5
""")
    out = snap_command(path)
    assert out["errors"] == []
    world = out["frames"]["Physics3D.Interactions.World"]
    assert world["kind"] == "connector" and np.allclose(matrix(world["pose"]), np.eye(4))
    # bob.mc: main z, default normal = orthogonal(z) = -x, so C1 = (Rz(pi), (0, 0, -1)),
    # and bob = World * Rz(0.5) * C1^-1.
    def Rz(a: float) -> np.ndarray:
        return T([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    C1 = T(Rz(math.pi)[:3, :3], (0, 0, -1))
    assert np.allclose(matrix(out["frames"]["Rig.bob"]["pose"]), Rz(0.5) @ inv(C1))


def test_problem_records_redirected_connectors_and_reference_body(load) -> None:
    f = load("""
Rig is Physics3D.System:
    a is Physics3D.Bodies.RigidBody
    b is Physics3D.Bodies.RigidBody:
        mc is Physics3D.Interactions.MateConnector
    frame_mc is Physics3D.Interactions.RedirectedMateConnector:
        position.x: 2
        redirected_parent: a
    lock is Physics3D.Interactions.Lock:
        connectors: [frame_mc, b.mc]
        enable_snap: false
    reference_body: b
""")
    _, _, problem = assemble(f)
    assert problem.systems[0].reference_body == "Rig.b"
    assert [(c.path, c.owner, c.redirected_parent) for c in problem.connectors] == [
        ("Rig.b.mc", "Rig.b", None), ("Rig.frame_mc", "Rig", "Rig.a")]
    assert problem.connectors[1].X_OC.p == (2.0, 0.0, 0.0)
    assert problem.mates[0].enable_snap is False


ADAPTIVE = """
Car is Physics3D.System:
    chassis is Physics3D.Bodies.RigidBody:
        kinematics.local_transform.position.z: 1
        hinge_point is Physics3D.Interactions.MateConnector:
            position: {1, 0, 0}
            main_axis: {0, 1, 0}
        spring_top is Physics3D.Interactions.AdaptiveMateConnector:
            position: {0.5, 0, 0.2}
    arm is Physics3D.Bodies.RigidBody:
        pivot is Physics3D.Interactions.MateConnector:
            main_axis: {0, 1, 0}
        spring_bottom is Physics3D.Interactions.MateConnector:
            position: {-0.5, 0, 0}
    pivot_hinge is Physics3D.Interactions.Hinge:
        connectors: [chassis.hinge_point, arm.pivot]
        initial_angle: 0.3
    spring is Physics3D.Interactions.Lock:
        connectors: [chassis.spring_top, arm.spring_bottom]
"""


def test_adaptive_mate_connector_adapts_instead_of_being_violated(tmp_path) -> None:
    # Physics3D.Interactions.AdaptiveMateConnector: "it will transform to the relative
    # position of the owning body/system so that it aligns with the other mate connector".
    path = tmp_path / "car.openplx"
    path.write_text(ADAPTIVE)
    out = snap_command(path)
    assert out["errors"] == [] and out["warnings"] == []
    frames = out["frames"]
    assert np.allclose(frames["Car.chassis.spring_top"]["pose"],
                       frames["Car.arm.spring_bottom"]["pose"])
    # The hinge keeps its initial angle: arm turned 0.3 rad about y at (1, 0, 1).
    assert np.allclose(matrix(frames["Car.arm"]["pose"]),
                       matrix(Pose.from_xyz_rpy(1, 0, 1, 0, 0.3, 0).xyz_quat()))
    # The core model shows the adapted frame on the chassis.
    from snapframe.plugins.openplx import format as openplx_format
    doc = openplx_format.read(path)
    assert not doc.diagnostics.has_errors()
    poses = {f.name: f.pose for f in doc.frames.frames()}
    assert poses["Car::chassis.spring_top"].almost_equal(poses["Car::arm.spring_bottom"], 1e-9)
