"""Closed-form primitives against the numbers in the research notes.

Expected values are copied from /work/shared/reference/inertia_perf.md section 1 (table
"Numeric test cases") and sdformat.md section 5.4 (libsdformat's *_TEST.cc values); they
are never computed with the code under test.
"""

import math

import numpy as np
import pytest

from snapframe.core.inertia import primitives as P
from snapframe.core.inertia.aggregate import aggregate
from snapframe.core.inertia.mass_properties import MassProperties
from snapframe.core.pose import Pose


def close(a, b, rel):
    return abs(a - b) <= rel * abs(b)


# (shape function, args, mass, ixx, iyy, izz, com z) -- inertia_perf.md section 1
PERF_TABLE = [
    (P.box, ((1, 2, 3), 1000), 6000, 6500, 5000, 2500, 0.0),
    (P.cylinder, (0.1, 0.5, 7800), 122.522113, 2.8588493, 2.8588493, 0.61261057, 0.0),
    (P.sphere, (0.25, 1000), 65.449847, 1.6362462, 1.6362462, 1.6362462, 0.0),
    (P.capsule, (0.05, 0.3, 2700), 7.7754418, 0.09286352, 0.09286352, 0.009365873, 0.0),
    (P.ellipsoid, ((0.3, 0.2, 0.1), 500), 12.566371, 0.12566371, 0.25132741, 0.32672564, 0.0),
    (P.cone, (0.1, 0.3, 1000), 3.1415927, 0.015315264, 0.015315264, 0.009424778, -0.075),
]


def _ids(v):
    return getattr(v, "__name__", None)


@pytest.mark.parametrize("fn,args,m,ixx,iyy,izz,z", PERF_TABLE, ids=_ids)
def test_perf_table(fn, args, m, ixx, iyy, izz, z):
    mp = fn(*args)
    # The notes print 8 significant digits.
    assert close(mp.mass, m, 1e-7)
    assert close(mp.ixx, ixx, 1e-7) and close(mp.iyy, iyy, 1e-7) and close(mp.izz, izz, 1e-7)
    assert mp.ixy == mp.ixz == mp.iyz == 0.0
    assert mp.com[0] == mp.com[1] == 0.0 and mp.com[2] == pytest.approx(z, abs=1e-15)


# libsdformat *_TEST.cc values (sdformat.md 5.4), printed with ~6 significant digits.
SDF_TESTS = [
    (P.box, ((2, 2, 2), 2710), 21680, 14453.33, 14453.33, 14453.33, 0.0),
    (P.sphere, (0.1, 2170), 9.08967, 0.0363587, 0.0363587, 0.0363587, 0.0),
    (P.cylinder, (0.1, 2, 2170), 136.345, 45.7892, 45.7892, 0.681726, 0.0),
    (P.capsule, (0.1, 2, 2710), 181.626, 69.4322, 69.4322, 0.896778, 0.0),
    (P.ellipsoid, ((1, 10, 100), 2170), 9.08967e6, 1.83611e10, 1.81812e10, 1.83611e8, 0.0),
    (P.cone, (0.1, 2, 2170), 45.4484, 6.88543, 6.88543, 0.136345, -0.5),
    (P.box, ((1, 1, 1), 1000), 1000, 166.667, 166.667, 166.667, 0.0),   # default density
]


@pytest.mark.parametrize("fn,args,m,ixx,iyy,izz,z", SDF_TESTS, ids=_ids)
def test_libsdformat_values(fn, args, m, ixx, iyy, izz, z):
    mp = fn(*args)
    assert close(mp.mass, m, 5e-6)
    assert close(mp.ixx, ixx, 5e-6) and close(mp.iyy, iyy, 5e-6) and close(mp.izz, izz, 5e-6)
    assert mp.com[2] == pytest.approx(z, abs=1e-15)


def test_capsule_equals_cylinder_plus_two_hemispheres():
    """Independent of the closed form: build the capsule from parts with the aggregator.
    A hemisphere of mass mh has its centroid 3r/8 from the flat face, axial moment
    2/5 mh r^2 and transverse moment 83/320 mh r^2 about its centroid."""
    r, l, rho = 0.05, 0.3, 2700.0
    mh = rho * 2.0 / 3.0 * math.pi * r ** 3
    hemi = MassProperties(mh, [0, 0, 0], np.diag([83 / 320 * mh * r * r] * 2 + [0.4 * mh * r * r]))
    d = l / 2 + 3 * r / 8
    total = aggregate([(P.cylinder(r, l, rho), Pose()),
                       (hemi, Pose.translation(0, 0, d)), (hemi, Pose.translation(0, 0, -d))])
    cap = P.capsule(r, l, rho)
    assert total.almost_equal(cap, 1e-13)


def test_cone_about_apex_matches_textbook():
    """Solid cone about its apex: I_transverse = 3/5 m h^2 + 3/20 m r^2."""
    r, h, rho = 0.2, 0.7, 500.0
    mp = P.cone(r, h, rho)
    apex = np.array([0.0, 0.0, h / 2])
    I_apex = mp.inertia_about(apex)
    assert I_apex[0, 0] == pytest.approx(mp.mass * (0.6 * h * h + 0.15 * r * r), rel=1e-13)


@pytest.mark.parametrize("call", [
    lambda: P.box((1, 0, 1), 1000), lambda: P.box((1, -1, 1), 1000), lambda: P.sphere(0, 1000),
    lambda: P.cylinder(1, 1, 0), lambda: P.cone(1, float("nan"), 1), lambda: P.capsule(-1, 1, 1),
    lambda: P.ellipsoid((1, 1, 0), 1)])
def test_non_positive_sizes_are_rejected(call):
    with pytest.raises(ValueError):
        call()


def test_primitive_dispatch_uses_geometry_params():
    mp = P.primitive_mass_properties("ellipsoid", {"radii": [0.3, 0.2, 0.1]}, 500)
    assert close(mp.izz, 0.32672564, 1e-7)
    with pytest.raises(KeyError):
        P.primitive_mass_properties("plane", {}, 1)
    with pytest.raises(KeyError):
        P.primitive_mass_properties("box", {}, 1)
