"""The mirabuf reader: the five real Synthesis exports as core models, SDFormat that
libsdformat loads, one hand-computed transform, bad input (speed: benchmarks/bench_mirabuf.py).

Expected counts come from tests/data/mirabuf/README.md (joints and their types) and from
Synthesis's rule that each non-grounded joint separates one more rigid body (notes 4.2).
"""

from __future__ import annotations

import collections
import gzip
import math
from pathlib import Path

import pytest

from snapframe.core.formats import registry
from snapframe.core.model import Document
from snapframe.plugins.mirabuf.generated import assembly_pb2
from snapframe.plugins.mirabuf.reader import read, read_bytes

DATA = Path(__file__).resolve().parents[2] / "data" / "mirabuf"

# links = rigid bodies; joints by SDFormat type; visuals = mesh bodies of every instance.
EXPECTED = {
    # 6 revolute wheel joints -> 6 wheels + the chassis.
    "Dozer_v2.mira": dict(links=7, joints={"revolute": 6}, movable=6),
    # 3 limited revolute joints: CORE (grounded) + 3 swings, 1 body each.
    "HingeTestFission_v1.mira": dict(links=4, joints={"revolute": 3}, movable=3, visuals=4),
    # 2 limited sliders: 3 parts in a chain, 1 body each.
    "SliderTestFission_v2.mira": dict(links=3, joints={"prismatic": 2}, movable=2, visuals=3),
    # no joint: one body.
    "TestCube_v1.mira": dict(links=1, joints={}, movable=0, visuals=1),
}


def _assembly(name: str):
    raw = (DATA / name).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return assembly_pb2.Assembly.FromString(raw)


def _load(name: str) -> Document:
    doc = read(DATA / name)
    assert not doc.diagnostics.has_errors(), [str(d) for d in doc.diagnostics]
    assert doc.root is not None
    return doc


def _field_game_pieces() -> int:
    a = _assembly("FRC_Field_2018_v14.mira")
    defs = a.data.parts.part_definitions
    return sum(1 for i in a.data.parts.part_instances.values()
               if defs[i.part_definition_reference].dynamic)


def _expected(name: str) -> dict:
    if name == "FRC_Field_2018_v14.mira":
        # A field: the grounded body (welded to the world), the moving side of its one
        # revolute joint, and every game piece (instance of a dynamic definition) alone.
        return dict(links=2 + _field_game_pieces(), joints={"revolute": 1, "fixed": 1},
                    movable=1)
    return EXPECTED[name]


ALL = sorted([*EXPECTED, "FRC_Field_2018_v14.mira"])


@pytest.mark.parametrize("name", ALL)
def test_each_file_opens_with_the_expected_bodies_and_joints(name):
    doc = _load(name)
    exp = _expected(name)
    model = doc.root
    assert len(model.links) == exp["links"]
    assert dict(collections.Counter(j.type for j in model.joints)) == exp["joints"]
    visuals = sum(len(link.visuals) for link in model.links)
    if "visuals" in exp:
        assert visuals == exp["visuals"]
    for link in model.links:
        for v in link.visuals:
            assert v.geometry.shape == "mesh" and v.extras["mirabuf_mesh"].triangles.size


def test_dozer_visuals_cover_every_mesh_body():
    doc = _load("Dozer_v2.mira")
    a = _assembly("Dozer_v2.mira")
    defs = a.data.parts.part_definitions
    # One visual per body with a mesh of every part instance (README: 10 bodies with mesh).
    expected = sum(sum(1 for b in defs[i.part_definition_reference].bodies
                       if b.triangle_mesh.WhichOneof("mesh_type") == "mesh")
                   for i in a.data.parts.part_instances.values())
    assert expected >= 10
    assert sum(len(link.visuals) for link in doc.root.links) == expected


def test_limits_and_units():
    hinge = {j.name: j for j in _load("HingeTestFission_v1.mira").root.joints}
    # Limits in radians from the file (value 0): Parallel -0.314159274 .. 2.26892805.
    assert math.isclose(hinge["Parallel"].axes[0].lower, -0.314159274, rel_tol=1e-6)
    assert math.isclose(hinge["Parallel"].axes[0].upper, 2.26892805, rel_tol=1e-6)
    slider = {j.name: j for j in _load("SliderTestFission_v2.mira").root.joints}
    # Slider 1: limits (-45, 0) cm with value -45 -> 0 .. 0.45 m from the pose held.
    ax = slider["Slider_1"].axes[0]
    assert math.isclose(ax.lower, 0.0, abs_tol=1e-9) and math.isclose(ax.upper, 0.45, rel_tol=1e-6)


def test_hand_checked_transform_in_hinge_test():
    """Swing:2 is at (0, 0, 35) cm with identity rotation under the design root (identity):
    in metres, Y-up -> Z-up ((x, y, z) -> (x, -z, y)): (0, -0.35, 0), and its axes are
    the design axes turned +90 degrees about x.  Its joint FourtyFive turns about the
    design's +z (world (0, -1, 0) after the turn) through (25, 137.5, 45) cm -> (0.25,
    -0.45, 1.375) m."""
    model = _load("HingeTestFission_v1.mira").root
    swing = next(l for l in model.links if l.name == "Swing_2")
    X = swing.pose.value
    assert all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(X.p, (0.0, -0.35, 0.0)))
    R = X.R
    expected_R = (1, 0, 0, 0, 0, -1, 0, 1, 0)
    assert all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(R, expected_R))
    joint = next(j for j in model.joints if j.name == "FourtyFive")
    assert joint.child_name == "Swing_2"
    pivot = (X @ joint.pose.value).p
    assert all(math.isclose(a, b, abs_tol=1e-6) for a, b in zip(pivot, (0.25, -0.45, 1.375)))
    axis_world = X.rotate(joint.axes[0].xyz)
    assert all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(axis_world, (0, -1, 0)))
    # The option keeps the file's axes: the same swing at (0, 0, 0.35).
    kept = read(DATA / "HingeTestFission_v1.mira", keep_y_up=True).root
    swing = next(l for l in kept.links if l.name == "Swing_2")
    assert all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(swing.pose.value.p, (0, 0, 0.35)))


def test_mass_comes_from_the_file():
    # CORE (the grounded body) 108.37978852381504 kg, each Swing 10.016166415345902 kg; the
    # root definition's 138.4 kg is the total and adds nothing.
    model = _load("HingeTestFission_v1.mira").root
    masses = sorted(l.inertial.mass for l in model.links)
    assert math.isclose(masses[-1], 108.37978852381504, rel_tol=1e-9)
    assert all(math.isclose(m, 10.016166415345902, rel_tol=1e-9) for m in masses[:3])
    for link in model.links:
        i = link.inertial
        assert i.ixx > 0 and i.iyy > 0 and i.izz > 0


def test_registered_for_mira_files():
    d = registry.for_path("x.mira")
    assert d is not None and d.name == "mirabuf" and d.can_read and d.can_write


@pytest.mark.parametrize("data", [b"", b"garbage that is not protobuf \xff\xff\xff\xff",
                                  b"\x1f\x8b\x08\x00garbage"])
def test_garbage_gives_a_diagnostic_naming_the_file(tmp_path, data):
    p = tmp_path / "bad.mira"
    p.write_bytes(data)
    doc = read(p)
    assert doc.root is None
    assert doc.diagnostics.has_errors()
    assert any(str(p) in d.message for d in doc.diagnostics.errors)


@pytest.mark.parametrize("name", ["HingeTestFission_v1.mira", "Dozer_v2.mira"])
def test_truncated_input_never_crashes(tmp_path, name):
    raw = (DATA / name).read_bytes()
    for cut in (len(raw) // 3, len(raw) // 2, len(raw) - 7):
        p = tmp_path / f"cut{cut}.mira"
        p.write_bytes(raw[:cut])
        doc = read(p)  # must not raise
        if doc.root is None:
            assert any(str(p) in d.message for d in doc.diagnostics.errors)


def test_a_folder_is_refused(tmp_path):
    d = tmp_path / "dir.mira"
    d.mkdir()
    doc = read(d)
    assert doc.root is None and doc.diagnostics.has_errors()


def test_gzip_bomb_is_refused(monkeypatch):
    import snapframe.plugins.mirabuf.reader as r
    monkeypatch.setattr(r, "MAX_INFLATED_BYTES", 1000)
    doc = read_bytes(gzip.compress(b"\0" * 5000), "bomb.mira")
    assert doc.root is None and "bomb.mira" in doc.diagnostics.errors[0].message


@pytest.mark.oracle
@pytest.mark.parametrize("name", ALL)
def test_converted_sdformat_loads_in_libsdformat(tmp_path, name):
    from tests.plugins.composite_assemblies import oracle_binary, run_oracle
    from snapframe.plugins.sdformat.writer import write
    oracle, why = oracle_binary()
    if oracle is None:
        pytest.skip(why)
    doc = _load(name)
    out = tmp_path / (Path(name).stem + ".sdf")
    write(doc, out)
    result = run_oracle(oracle, out)
    assert result["errors"] == []
    kinds = collections.Counter(f["kind"] for f in result["frames"].values())
    exp = _expected(name)
    assert kinds["link"] == exp["links"]
    assert kinds["joint"] == sum(exp["joints"].values())
    movable = sum(1 for j in doc.root.joints if j.type != "fixed")
    assert movable == exp["movable"]
