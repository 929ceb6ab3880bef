"""Link-level auto inertia: libsdformat's Link_TEST / link_dom cases and rules."""

import math

import numpy as np
import pytest
from lxml import etree

from inertia_meshgen import auto_link, box_mesh
from snapframe.core.diagnostics import Code, Severity
from snapframe.core.inertia.calculators import (CalculatorRegistry, auto_inertia_param,
                                                default_registry)
from snapframe.core.inertia.link import compute_link_inertia, resolve_auto_inertials
from snapframe.core.inertia.mass_properties import MassProperties
from snapframe.core.inertia.mesh_calculator import mesh_cache, set_mesh_loader
from snapframe.core.model.nodes import (Model, PoseSpec)
from snapframe.core.pose import Pose


make_link = auto_link


def codes(result, severity=None):
    return [d.code for d in result.diagnostics if severity is None or d.severity == severity]


def test_multiple_collisions():
    """Link_TEST ResolveAutoInertialsWithMultipleCollisions."""
    link = make_link([("box", {"size": (1, 1, 1)}, 2.0, Pose.translation(0, 0, -0.5)),
                      ("cylinder", {"radius": 0.5, "length": 1}, 4.0, Pose.translation(0, 0, 0.5))])
    r = compute_link_inertia(link)
    mp = r.mass_properties
    assert mp.mass == pytest.approx(2 + math.pi, rel=1e-12)          # 5.14159
    assert mp.com[2] == pytest.approx(0.111, abs=5e-4)
    assert [mp.ixx, mp.iyy, mp.izz] == pytest.approx([2.013513, 2.013513, 0.72603], abs=5e-6)
    assert r.diagnostics.items == []
    inertial = r.inertial()
    assert inertial.auto and inertial.mass == pytest.approx(mp.mass)
    assert inertial.pose.value.p == pytest.approx(tuple(mp.com))
    assert inertial.pose.value.R == (1, 0, 0, 0, 1, 0, 0, 0, 1)


def test_user_values_are_overwritten_with_warning():
    """Link_TEST InertialValuesGivenWithAutoSetToTrue: box 1^3 rho 2 -> m 2, I 1/3."""
    link = make_link([("box", {"size": (1, 1, 1)}, 2.0, Pose())])
    link.inertial.pose = PoseSpec(Pose.translation(1, 2, 3), written=True)
    link.inertial.ixx, link.inertial.written_inertia = 99.0, True
    r = compute_link_inertia(link)
    assert r.mass_properties.mass == pytest.approx(2)
    assert r.mass_properties.inertia == pytest.approx(np.eye(3) / 3)
    assert r.mass_properties.com == pytest.approx([0, 0, 0])
    warn = [d for d in r.diagnostics if d.severity == Severity.WARNING]
    assert len(warn) == 1 and "user-defined inertial values were found" in warn[0].message


def test_explicit_mass_rescales():
    """Link_TEST ResolveAutoInertialsWithMass: the same box with <mass>4 -> I = 2/3."""
    link = make_link([("box", {"size": (1, 1, 1)}, 2.0, Pose())], mass=4.0)
    r = compute_link_inertia(link)
    assert r.mass_properties.mass == 4.0
    assert r.mass_properties.inertia == pytest.approx(np.eye(3) * 2 / 3)
    assert r.density_mass == pytest.approx(2.0)


def test_explicit_mass_with_multiple_collisions():
    """Link_TEST ResolveAutoInertialsWithMassAndMultipleCollisions -> (9, 9, 2), pose 0."""
    link = make_link([("box", {"size": (1, 1, 1)}, 4.0, Pose.translation(0, 0, 0.5)),
                      ("box", {"size": (1, 1, 2)}, 1.0, Pose.translation(0, 0, -1))], mass=12.0)
    r = compute_link_inertia(link)
    mp = r.mass_properties
    assert mp.mass == 12.0 and mp.com == pytest.approx([0, 0, 0], abs=1e-15)
    assert mp.inertia == pytest.approx(np.diag([9.0, 9.0, 2.0]))
    assert r.density_mass == pytest.approx(6.0)


def test_inertial_stats_auto_density_and_mass():
    """link_dom InertialAuto (link density 6 -> m 6, I 1) and InertialAutoExplicitMass."""
    r = compute_link_inertia(make_link([("box", {"size": (1, 1, 1)}, None, Pose())], density=6.0))
    assert r.mass_properties.mass == pytest.approx(6)
    assert r.mass_properties.inertia == pytest.approx(np.eye(3))
    for density in (1000.0, 123.456):
        link = make_link([("box", {"size": (1, 1, 1)}, None, Pose())], mass=6.0, density=density)
        mp = compute_link_inertia(link).mass_properties
        assert mp.mass == 6.0 and mp.inertia == pytest.approx(np.eye(3))
    halves = make_link([("box", {"size": (1, 1, 0.5)}, None, Pose.translation(0, 0, 0.25)),
                        ("box", {"size": (1, 1, 0.5)}, None, Pose.translation(0, 0, -0.25))],
                       mass=6.0)
    mp = compute_link_inertia(halves).mass_properties
    assert mp.mass == 6.0 and mp.inertia == pytest.approx(np.eye(3))


def test_no_collisions_is_element_missing():
    r = compute_link_inertia(make_link([], name="arm"))
    assert r.mass_properties is None
    assert len(r.diagnostics) == 1
    d = r.diagnostics.items[0]
    assert d.code == Code.ELEMENT_MISSING and d.is_error
    assert d.message == ("Inertial is set to auto but there are no <collision> elements for "
                         "the link named arm.")


def test_density_precedence_and_default_warning():
    link = make_link([("box", {"size": (1, 1, 1)}, 10.0, Pose.translation(2, 0, 0)),
                      ("box", {"size": (1, 1, 1)}, None, Pose.translation(-2, 0, 0))])
    r = compute_link_inertia(link)
    assert [p.density for p in r.parts] == [10.0, 1000.0]
    assert r.mass_properties.mass == pytest.approx(1010.0)
    w = [d for d in r.diagnostics if d.code == Code.ELEMENT_MISSING]
    assert len(w) == 1 and not w[0].is_error
    assert "c1" in w[0].message and "1000.000000" in w[0].message
    link.inertial.density = 500.0                       # link density beats the default
    r = compute_link_inertia(link)
    assert [p.density for p in r.parts] == [10.0, 500.0] and r.diagnostics.items == []


def test_no_density_warning_when_mass_is_given():
    r = compute_link_inertia(make_link([("box", {"size": (1, 1, 1)}, None, Pose())], mass=3.0))
    assert r.diagnostics.items == []


def test_static_and_non_auto_links_are_skipped():
    model = Model(name="m", static=True)
    link = make_link([("box", {"size": (1, 1, 1)}, None, Pose())])
    model.add(link)
    r = compute_link_inertia(link)
    assert r.skipped == "static" and r.mass_properties is None and not r.diagnostics.items
    model.static = False
    assert compute_link_inertia(link).ok
    link.inertial.auto = False
    assert compute_link_inertia(link).skipped == "not auto"


def test_unsupported_geometry_warns_and_is_left_out():
    link = make_link([("plane", {"normal": (0, 0, 1), "size": (1, 1)}, 1.0, Pose()),
                      ("box", {"size": (1, 1, 1)}, 2.0, Pose())])
    r = compute_link_inertia(link)
    assert r.mass_properties.mass == pytest.approx(2.0)
    warn = [d for d in r.diagnostics if d.severity == Severity.WARNING]
    assert len(warn) == 1
    assert warn[0].message.startswith("Automatic inertia calculations are not supported for "
                                      "the given Geometry type")
    only = compute_link_inertia(make_link([("heightmap", {}, 1.0, Pose())]))
    assert only.mass_properties is None and Code.LINK_INERTIA_INVALID in codes(only, Severity.ERROR)


def test_invalid_size_or_density_fails_the_link():
    r = compute_link_inertia(make_link([("box", {"size": (1, 0, 1)}, 1.0, Pose()),
                                        ("sphere", {"radius": 1}, 1.0, Pose())]))
    assert r.mass_properties is None
    err = [d for d in r.diagnostics if d.is_error]
    assert len(err) == 1 and err[0].code == Code.LINK_INERTIA_INVALID
    assert "Inertia Calculated for collision: c0 is invalid" in err[0].message
    assert err[0].element.endswith('collision[@name="c0"]')
    r = compute_link_inertia(make_link([("box", {"size": (1, 1, 1)}, 0.0, Pose())]))
    assert r.mass_properties is None and Code.LINK_INERTIA_INVALID in codes(r, Severity.ERROR)


def test_rotated_collisions_give_products_of_inertia():
    link = make_link([("box", {"size": (0.4, 0.2, 0.1)}, 2700.0,
                       Pose.from_xyz_rpy(0.1, 0, 0.05, 0, 0, 0.3)),
                      ("cylinder", {"radius": 0.05, "length": 0.3}, 7800.0,
                       Pose.from_xyz_rpy(-0.2, 0.1, 0, math.pi / 2, 0, 0)),
                      ("sphere", {"radius": 0.08}, 1000.0, Pose.translation(0, 0, 0.2))])
    mp = compute_link_inertia(link).mass_properties
    assert mp.mass == pytest.approx(42.122978, rel=2e-8)
    assert (mp.ixy, mp.ixz, mp.iyz) == pytest.approx((0.2404563, -0.1622942, 0.0658349), abs=1e-7)


def test_pose_relative_to_needs_a_resolver():
    link = make_link([("box", {"size": (1, 1, 1)}, 1.0, Pose.translation(1, 0, 0))])
    link.collisions[0].pose = PoseSpec(Pose.translation(1, 0, 0), relative_to="some_frame")
    r = compute_link_inertia(link)
    assert r.mass_properties is None and Code.POSE_RELATIVE_TO_INVALID in codes(r)
    r = compute_link_inertia(link, resolve_pose=lambda c: Pose.translation(0, 5, 0))
    assert r.mass_properties.com == pytest.approx([0, 5, 0])
    link.collisions[0].pose = PoseSpec(Pose.translation(1, 0, 0), relative_to="link")
    assert compute_link_inertia(link).mass_properties.com == pytest.approx([1, 0, 0])


def test_custom_calculator_receives_density_geometry_and_params():
    seen = {}

    def calc(props, diagnostics):
        seen.update(density=props.density, shape=props.geometry.shape,
                    voxel=auto_inertia_param(props.auto_inertia_params, "voxel_size"),
                    name=props.collision_name)
        return MassProperties(props.density, [0, 0, 1], np.eye(3))

    reg = default_registry().copy()
    reg.register("heightmap", calc)
    params = etree.fromstring('<auto_inertia_params xmlns:gz="http://gazebosim.org/schema">'
                              '<gz:voxel_size>0.01</gz:voxel_size></auto_inertia_params>')
    link = make_link([("heightmap", {"uri": "x.png"}, 7.0, Pose())], auto_inertia_params=params)
    r = compute_link_inertia(link, registry=reg)
    assert seen == {"density": 7.0, "shape": "heightmap", "voxel": 0.01, "name": "c0"}
    assert r.mass_properties.mass == 7.0 and r.mass_properties.com == pytest.approx([0, 0, 1])
    # collision-level params win over link-level ones
    link.collisions[0].auto_inertia_params = {"gz:voxel_size": "0.5"}
    compute_link_inertia(link, registry=reg)
    assert seen["voxel"] == "0.5"
    assert default_registry().get("heightmap") is None          # the copy was changed only


def test_crashing_calculator_becomes_a_diagnostic():
    reg = CalculatorRegistry()
    reg.register("box", lambda props, d: 1 / 0)
    r = compute_link_inertia(make_link([("box", {"size": (1, 1, 1)}, 1.0, Pose())]), registry=reg)
    assert r.mass_properties is None and Code.PLUGIN_ERROR in codes(r, Severity.ERROR)


class _FakeMesh:
    def __init__(self, subs):
        self.submeshes = subs


class _Sub:
    def __init__(self, name, V, F):
        self.name, self.vertices, self.faces = name, V, F


@pytest.fixture
def fake_loader():
    calls = []

    def loader(path):
        calls.append(path)
        V1, F1 = box_mesh((1, 2, 3), (10, 0, 0))
        V2, F2 = box_mesh((1, 1, 1), (0, 0, 5))
        return _FakeMesh([_Sub("big", V1, F1), _Sub("small", V2, F2)])

    set_mesh_loader(loader)
    yield calls
    set_mesh_loader(None)


def test_mesh_collision_uses_cache_scale_submesh_and_center(tmp_path, fake_loader):
    f = tmp_path / "part.obj"
    f.write_text("placeholder")
    geom = {"uri": "part.obj", "resolved_path": str(f), "scale": (1, 1, 1)}
    whole = compute_link_inertia(make_link([("mesh", geom, 1000.0, Pose())])).mass_properties
    assert whole.mass == pytest.approx(7000.0)
    scaled = compute_link_inertia(make_link([("mesh", {**geom, "scale": (2, -1, 0.5)}, 1000.0,
                                              Pose())])).mass_properties
    assert scaled.mass == pytest.approx(7000.0)          # |det| = 1
    assert scaled.com == pytest.approx(np.array([2, -1, 0.5]) * whole.com)
    sub = compute_link_inertia(make_link([("mesh", {**geom, "submesh": "small"}, 1000.0,
                                           Pose())])).mass_properties
    assert sub.mass == pytest.approx(1000.0) and sub.com == pytest.approx([0, 0, 5])
    centred = compute_link_inertia(make_link([("mesh", {**geom, "submesh": "small",
                                                        "center_submesh": True}, 1000.0,
                                               Pose())])).mass_properties
    assert centred.com == pytest.approx([0, 0, 0], abs=1e-12)
    assert len(fake_loader) == 1                         # one read for all four edits
    missing = compute_link_inertia(make_link([("mesh", {**geom, "submesh": "nope"}, 1.0, Pose())]))
    assert missing.mass_properties is None
    msg = [d.message for d in missing.diagnostics if d.is_error][0]
    assert "Submesh 'nope' not found" in msg and "'big', 'small'" in msg


def test_mesh_without_resolved_path(fake_loader):
    r = compute_link_inertia(make_link([("mesh", {"uri": "model://x/a.stl"}, 1.0, Pose())]))
    assert r.mass_properties is None and Code.URI_INVALID in codes(r, Severity.ERROR)


def test_unreadable_mesh_file_is_a_diagnostic(tmp_path):
    set_mesh_loader(None)
    mesh_cache().clear()
    bad = tmp_path / "broken.stl"
    bad.write_bytes(b"\x00" * 90)
    r = compute_link_inertia(make_link([("mesh", {"uri": "broken.stl", "resolved_path": str(bad)},
                                         1.0, Pose())]))
    err = [d for d in r.diagnostics if d.is_error]
    assert r.mass_properties is None and err[0].code == Code.FILE_READ
    assert str(bad) in err[0].message


def test_resolve_auto_inertials_walks_and_writes():
    model = Model(name="m")
    a = make_link([("box", {"size": (1, 1, 1)}, 6.0, Pose())], name="a")
    b = make_link([("sphere", {"radius": 1}, 1.0, Pose())], name="b")
    b.inertial.auto = False
    model.add(a)
    model.add(b)
    results = resolve_auto_inertials(model, write=True)
    assert [r.link.name for r in results] == ["a"]
    assert a.inertial.mass == pytest.approx(6.0) and a.inertial.ixx == pytest.approx(1.0)
    assert a.inertial.auto and a.inertial.written_inertia
    js = results[0].to_json()
    assert js["mass"] == pytest.approx(6.0) and js["pose"] == [0, 0, 0, 0, 0, 0]
