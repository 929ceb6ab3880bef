"""Math bundle functions, evaluated through OpenPLX expressions, against values worked
out by hand (quaternions are (x, y, z, w) in OpenPLX order)."""

from __future__ import annotations

import math
import random

import pytest

from snapframe.plugins.openplx import mathlib as m
from snapframe.plugins.openplx.loader import load_text

H = math.sqrt(0.5)


@pytest.fixture(scope="module")
def values():
    """Evaluate ``name is Type: expression`` lines in one system; returns a getter."""
    lines = {
        "aa_z": ("Math.Quat", "Math.Quat.angle_axis(Math.PI / 2, Math.Vec3.Z_AXIS())"),
        "aa_111": ("Math.Quat", "Math.Quat.angle_axis(2 * Math.PI / 3, {1, 1, 1})"),
        "x_by_111": ("Math.Vec3", "aa_111.rotate(Math.Vec3.X_AXIS())"),
        "A": ("Math.AffineTransform", "Math.AffineTransform.from({1, 0, 0}, aa_z)"),
        "B": ("Math.AffineTransform", "Math.AffineTransform.from({0, 2, 0}, "
                                      "Math.Quat.angle_axis(Math.PI / 2, Math.Vec3.X_AXIS()))"),
        "AB": ("Math.AffineTransform", "A * B"),
        "AB_z": ("Math.Vec3", "AB.transform_vec3_point(Math.Vec3.Z_AXIS())"),
        "AB_v": ("Math.Vec3", "AB.transform_vec3_vector(Math.Vec3.Z_AXIS())"),
        "I": ("Math.AffineTransform", "AB.inverse() * AB"),
        "from_to": ("Math.Quat", "Math.Quat.from_to(Math.Vec3.X_AXIS(), Math.Vec3.Y_AXIS())"),
        "from_to_back": ("Math.Quat", "Math.Quat.from_to(Math.Vec3.X_AXIS(), {-2, 0, 0})"),
        "axes": ("Math.AffineTransform",
                 "Math.AffineTransform.from_axes(Math.Vec3.Y_AXIS(), {1, 1, 0}, {1, 2, 3})"),
        "len5": ("Real", "Math.Vec3.from_xyz(3, 0, 4).length()"),
        "combo": ("Math.Vec3", "Math.Vec3.from_xyz(1, 2, 3) * 2.0 + Math.Vec3.Y_AXIS()"),
        "neg": ("Real", "-(len5 + 2) / 4"),
        "dot": ("Real", "Math.Vec3.from_xyz(1, 2, 3) * {4, 5, 6}"),
        "cross": ("Math.Vec3", "Math.Vec3.X_AXIS().cross(Math.Vec3.Y_AXIS())"),
        "sin": ("Real", "Math.Functions.sin(Math.PI / 6)"),
        "deg": ("Real", "Math.Functions.deg_to_rad(180)"),
        "mean": ("Real", "Math.Functions.mean([1, 2, 6])"),
        "max": ("Real", "Math.Functions.max([1, 7, 6])"),
        "round": ("Int", "Math.Functions.round(2.5)"),
        "inf": ("Real", "Math.INF"),
        "angle": ("Real", "Math.Vec3.angle_between_vectors(Math.Vec3.X_AXIS(), "
                          "Math.Vec3.Y_AXIS(), {0, 0, -1})"),
        "tensor": ("Math.Matrix3x3",
                   "Physics3D.Bodies.Inertia.symmetric_tensor({1, 2, 3}, 0.1, 0.2, 0.3)"),
        "mv": ("Math.Vec3", "Math.Matrix3x3.diag(1, 2, 3) * {1, 1, 1}"),
        "euler": ("Math.Quat", "Math.Quat.from_euler_angles(0.3, 0, 0)"),
        "qdiv": ("Math.Quat", "aa_z / aa_z"),
    }
    text = "Probe is Physics3D.System:\n" + "".join(
        f"    {k} is {t}: {e}\n" for k, (t, e) in lines.items())
    f = load_text(text)
    obj = f.instantiate("Probe")
    ev = f.evaluator

    def get(name: str):
        v = obj.get(name)
        assert ev.problems == [], [str(p) for p in ev.problems]
        t = lines[name][0]
        if t == "Math.Vec3":
            return ev.vec3(v)
        if t == "Math.Quat":
            return ev.quat(v)
        if t == "Math.AffineTransform":
            return ev.affine(v)
        if t == "Math.Matrix3x3":
            return ev.matrix3(v)
        return v
    return get


def approx(v, tol=1e-12):
    return pytest.approx(v, abs=tol)


def test_quat_from_axis_angle(values) -> None:
    assert values("aa_z") == approx((0.0, 0.0, H, H))
    # 120 degrees about (1, 1, 1): sin(60)/sqrt(3) = 0.5 per component, cos(60) = 0.5.
    assert values("aa_111") == approx((0.5, 0.5, 0.5, 0.5))
    assert values("x_by_111") == approx((0.0, 1.0, 0.0))
    assert values("euler") == approx((math.sin(0.15), 0.0, 0.0, math.cos(0.15)))


def test_affine_transform_composition(values) -> None:
    # A = (p=(1,0,0), Rz 90), B = (p=(0,2,0), Rx 90):
    # p = (1,0,0) + Rz90 (0,2,0) = (-1,0,0); q = qz * qx = (0.5, 0.5, 0.5, 0.5).
    p, q = values("AB")
    assert p == approx((-1.0, 0.0, 0.0))
    assert q == approx((0.5, 0.5, 0.5, 0.5))
    # z -> Rx90 -> (0,-1,0) -> Rz90 -> (1,0,0); plus (-1,0,0).
    assert values("AB_z") == approx((0.0, 0.0, 0.0))
    assert values("AB_v") == approx((1.0, 0.0, 0.0))
    p, q = values("I")
    assert p == approx((0.0, 0.0, 0.0)) and q == approx((0.0, 0.0, 0.0, 1.0))


def test_from_to_and_from_axes(values) -> None:
    assert values("from_to") == approx((0.0, 0.0, H, H))
    # Opposite vectors: half a turn about get_orthogonal_unit_vector(X) = -Y.
    assert values("from_to_back") == approx((0.0, -1.0, 0.0, 0.0))
    # new Z = Y, new X = (1,1,0) projected -> X; Y = Z x X = -Z.  Rotation columns
    # (X, -Z, Y): row 1 is (0, 0, 1) = (0, cos, -sin), so -90 degrees about X.
    p, q = values("axes")
    assert p == approx((1.0, 2.0, 3.0)) and q == approx((-H, 0.0, 0.0, H))


def test_vec3_operators_and_functions(values) -> None:
    assert values("len5") == pytest.approx(5.0)
    assert values("combo") == approx((2.0, 5.0, 6.0))
    assert values("neg") == pytest.approx(-7 / 4)
    assert values("dot") == pytest.approx(32.0)
    assert values("cross") == approx((0.0, 0.0, 1.0))
    assert values("angle") == pytest.approx(-math.pi / 2)
    assert values("mv") == approx((1.0, 2.0, 3.0))
    assert values("qdiv") == approx((0.0, 0.0, 0.0, 1.0))


def test_functions_and_constants(values) -> None:
    assert values("sin") == pytest.approx(0.5)
    assert values("deg") == pytest.approx(math.pi)
    assert values("mean") == pytest.approx(3.0)
    assert values("max") == 7
    assert values("round") == 3
    assert values("inf") == math.inf
    assert values("tensor") == approx((1, 0.1, 0.2, 0.1, 2, 0.3, 0.2, 0.3, 3))


@pytest.mark.parametrize("v, expected", [
    # Rule measured on the reference runtime (research notes, section 2.3).
    ((0, 0, 1), (-1, 0, 0)), ((0, 0, -2), (1, 0, 0)), ((1, 0, 0), (0, -1, 0)),
    ((0, 1, 0), (1, 0, 0)), ((0, -1, 0), (-1, 0, 0)), ((-1, 0, 0), (0, 1, 0)),
    ((1, 1, 1), (H, -H, 0)), ((1, 0, 1), (-H, 0, H)),
    ((0, 0.001, 1), (0, 1 / math.hypot(1, 0.001), -0.001 / math.hypot(1, 0.001))),
])
def test_get_orthogonal_unit_vector(v, expected) -> None:
    f = load_text("P is Physics3D.System:\n"
                  f"    v is Math.Vec3: Math.Vec3.from_xyz({v[0]}, {v[1]}, {v[2]})"
                  ".get_orthogonal_unit_vector()\n")
    got = f.evaluator.vec3(f.instantiate("P").get("v"))
    assert got == approx(expected)
    assert m.dot(got, v) == pytest.approx(0.0, abs=1e-12)


def test_euler_conventions_static_vs_rotating_and_round_trip() -> None:
    # Static x-y-z by (a, b, c) equals rotating z-y-x by (c, b, a).
    assert m.q_from_euler("xyzs", 0.1, 0.2, 0.3) == approx(m.q_from_euler("zyxr", 0.3, 0.2, 0.1))
    # xyzs is R = Rz(c) Ry(b) Rx(a).
    expected = m.q_mul(m.q_angle_axis(0.3, m.Z_AXIS),
                       m.q_mul(m.q_angle_axis(0.2, m.Y_AXIS), m.q_angle_axis(0.1, m.X_AXIS)))
    assert m.q_from_euler("xyzs", 0.1, 0.2, 0.3) == approx(expected)
    rng = random.Random(7)
    assert len(m.EULER_CONVENTIONS) == 24
    for conv in m.EULER_CONVENTIONS:
        proper = conv[0] == conv[2]
        for _ in range(20):
            a, c = rng.uniform(-3, 3), rng.uniform(-3, 3)
            b = rng.uniform(0.1, 3.0) if proper else rng.uniform(-1.4, 1.4)
            assert m.q_to_euler(m.q_from_euler(conv, a, b, c), conv) == approx((a, b, c), 1e-9)


def test_connector_frame_rule() -> None:
    # main_axis = z; normal projected to the plane orthogonal to it becomes x; y = z x x.
    (x, y, z), ok = m.frame_from_axes((0, 2, 0), (1, 5, 0))
    assert ok and x == approx((1, 0, 0)) and y == approx((0, 0, -1)) and z == approx((0, 1, 0))
    (x, y, z), ok = m.frame_from_axes((0, 0, 1), (0, 0, 3))   # parallel: fallback
    assert not ok and x == approx((-1, 0, 0)) and y == approx((0, -1, 0))
