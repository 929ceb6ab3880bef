"""The incremental tracker (must always equal the full computation) and the CLI report."""

import json

import numpy as np
import pytest

from snapframe.core.diagnostics import Code, SourceLocation
from snapframe.core.inertia.link import compute_link_inertia
from snapframe.core.inertia.live import LinkInertiaTracker
from snapframe.core.inertia.mass_properties import MassProperties
from snapframe.core.inertia.report import inertia_report
from snapframe.core.model.nodes import Collision, Geometry, Inertial, Link, Model, PoseSpec
from snapframe.core.pose import Pose


def collision(name, shape, params, pose=Pose(), density=None):
    return Collision(name=name, geometry=Geometry(shape, params), pose=PoseSpec(pose),
                     density=density)


def make_link(n=30, seed=0):
    rng = np.random.default_rng(seed)
    link = Link(name="l", inertial=Inertial(auto=True, density=900.0))
    for k in range(n):
        c = collision(f"c{k}", ["box", "sphere"][k % 2],
                      {"size": tuple(rng.uniform(0.1, 0.5, 3))} if k % 2 == 0 else {"radius": 0.1},
                      Pose.from_xyz_rpy(*rng.uniform(-1, 1, 6)))
        c.parent = link
        link.collisions.append(c)
    return link


def full(link):
    return compute_link_inertia(link).mass_properties


def test_tracker_follows_every_kind_of_edit():
    link = make_link()
    tr = LinkInertiaTracker(link)
    assert tr.mass_properties.almost_equal(full(link), 1e-12)
    c = link.collisions[3]
    c.geometry = Geometry("cylinder", {"radius": 0.2, "length": 0.7})
    tr.collision_changed(c)
    assert tr.mass_properties.almost_equal(full(link), 1e-12)
    c.pose = PoseSpec(Pose.from_xyz_rpy(2, 0, 0, 0.3, 0, 0))
    tr.collision_moved(c)
    assert tr.mass_properties.almost_equal(full(link), 1e-12)
    c.density = 7800.0
    tr.collision_changed(c)
    assert tr.mass_properties.almost_equal(full(link), 1e-12)
    gone = link.collisions.pop(0)
    tr.collision_removed(gone)
    new = collision("extra", "cone", {"radius": 0.3, "length": 0.2}, Pose.translation(0, 0, 3))
    link.collisions.append(new)
    tr.collision_added(new)
    assert tr.mass_properties.almost_equal(full(link), 1e-12)
    link.inertial.mass = 5.0
    assert tr.mass_properties.mass == 5.0
    assert tr.mass_properties.almost_equal(full(link), 1e-12)


def test_tracker_reports_and_recovers_from_errors():
    link = make_link(4)
    tr = LinkInertiaTracker(link)
    c = link.collisions[1]
    c.geometry = Geometry("sphere", {"radius": -1})
    tr.collision_changed(c)
    assert tr.mass_properties is None and tr.has_errors()
    assert Code.LINK_INERTIA_INVALID in [d.code for d in tr.diagnostics()]
    c.geometry = Geometry("sphere", {"radius": 0.2})
    tr.collision_changed(c)
    assert not tr.has_errors() and tr.mass_properties.almost_equal(full(link), 1e-12)


def test_approximate_flag_propagates():
    a = MassProperties(1.0, [0, 0, 0], np.eye(3), approximate=True)
    b = MassProperties(1.0, [1, 0, 0], np.eye(3))
    assert (a + b).approximate and not (b + b).approximate
    assert a.expressed_in(Pose.translation(1, 2, 3)).approximate and a.with_mass(3).approximate


def test_report_covers_auto_given_and_default_links():
    model = Model(name="robot")
    auto = Link(name="auto", inertial=Inertial(auto=True))
    c = collision("c", "box", {"size": (1, 1, 1)}, density=6.0)
    c.parent = auto
    auto.collisions.append(c)
    bad = Link(name="bad", inertial=Inertial(mass=2.0, ixx=1, iyy=1, izz=3, written_inertia=True,
                                             source=SourceLocation("/m/robot.sdf", 17)))
    c2 = collision("c2", "sphere", {"radius": 0.5}, density=100.0)
    c2.parent = bad
    bad.collisions.append(c2)
    plain = Link(name="plain")
    for link in (auto, bad, plain):
        model.add(link)
    rep = inertia_report(model, write=True)
    by = {e["link"]: e for e in rep.entries}
    assert by["auto"]["mode"] == "auto" and by["auto"]["mass"] == pytest.approx(6.0)
    assert by["auto"]["pose"] == [0, 0, 0, 0, 0, 0] and by["auto"]["approximate"] is False
    assert auto.inertial.mass == pytest.approx(6.0) and auto.inertial.auto      # written
    assert by["bad"]["mode"] == "given" and by["bad"]["valid"] is False
    assert by["bad"]["proposed"]["mass"] == pytest.approx(2.0)                  # mass kept
    assert by["bad"]["proposed"]["ixx"] == pytest.approx(0.4 * 2.0 * 0.25)
    assert by["plain"]["mode"] == "default"
    errs = [d for d in rep.diagnostics if d.is_error]
    assert len(errs) == 1 and errs[0].line == 17 and not rep.ok
    json.dumps(rep.to_json())                                                   # serialisable
