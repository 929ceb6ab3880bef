"""Aggregation of parts into one link inertial (inertia_perf.md section 2)."""

import math
import time

import numpy as np
import pytest

from snapframe.core.inertia import primitives as P
from snapframe.core.inertia.aggregate import PartsAggregator, aggregate
from snapframe.core.inertia.mass_properties import MassProperties, combine, principal_axes
from snapframe.core.pose import Pose

WORKED = [
    (P.box((0.4, 0.2, 0.1), 2700), Pose.from_xyz_rpy(0.1, 0, 0.05, 0, 0, 0.3)),
    (P.cylinder(0.05, 0.3, 7800), Pose.from_xyz_rpy(-0.2, 0.1, 0, math.pi / 2, 0, 0)),
    (P.sphere(0.08, 1000), Pose.from_xyz_rpy(0, 0, 0.2)),
]


def test_worked_example():
    mp = aggregate(WORKED)
    assert mp.mass == pytest.approx(42.122978, rel=2e-8)
    assert mp.com == pytest.approx([-0.0359819, 0.0436301, 0.0358221], abs=1e-7)
    expected = {"ixx": 0.4530096, "iyy": 1.2979291, "izz": 1.5150087,
                "ixy": 0.2404563, "ixz": -0.1622942, "iyz": 0.0658349}
    for key, value in expected.items():
        assert getattr(mp, key) == pytest.approx(value, abs=1e-7), key


def test_worked_example_principal_axes():
    w, R = aggregate(WORKED).principal()
    assert w == pytest.approx([0.3631550, 1.3589534, 1.5438391], abs=1e-7)
    assert np.linalg.det(R) == pytest.approx(1.0)
    assert R @ np.diag(w) @ R.T == pytest.approx(aggregate(WORKED).inertia, abs=1e-12)


def test_product_of_inertia_sign_convention():
    """Two 1 kg point-like cubes at (1,1,0) and (-1,-1,0): integral(xy dm) = +2, ixy = -2."""
    tiny = P.box((1e-3, 1e-3, 1e-3), 1e9)               # 1 kg
    mp = aggregate([(tiny, Pose.translation(1, 1, 0)), (tiny, Pose.translation(-1, -1, 0))])
    assert mp.ixy == pytest.approx(-2.0, rel=1e-6)
    assert mp.inertia[0, 1] == mp.ixy


def test_inertial_stats_four_cubes():
    """gz sdf --inertial-stats on inertial_stats.sdf: 4 cubes (1 m, 6 kg each, I = 1)
    at (+-5, 0, 0) and (0, +-5, 0) -> mass 24, COM 0, I = diag(304, 304, 604)."""
    cube = P.box((1, 1, 1), 6.0)
    poses = [Pose.translation(5, 0, 0), Pose.translation(-5, 0, 0),
             Pose.translation(0, 5, 0), Pose.translation(0, -5, 0)]
    mp = aggregate([(cube, p) for p in poses])
    assert mp.mass == pytest.approx(24)
    assert mp.com == pytest.approx([0, 0, 0], abs=1e-15)
    assert mp.inertia == pytest.approx(np.diag([304.0, 304.0, 604.0]), abs=1e-12)


def test_rotation_moves_tensor_into_link_axes():
    box = P.box((1, 2, 3), 1.0)
    mp = aggregate([(box, Pose.from_xyz_rpy(0, 0, 0, 0, 0, math.pi / 2))])
    assert mp.ixx == pytest.approx(box.iyy) and mp.iyy == pytest.approx(box.ixx)
    assert mp.izz == pytest.approx(box.izz)


def test_cone_centroid_offset_is_rotated():
    """The cone's COM is at z = -L/4 in its own frame: flipping it puts the COM above."""
    cone = P.cone(0.1, 0.4, 1000)
    mp = aggregate([(cone, Pose.from_xyz_rpy(1, 0, 0, math.pi, 0, 0))])
    assert mp.com == pytest.approx([1, 0, 0.1], abs=1e-15)


def test_combine_matches_aggregate_and_add():
    parts_in_link = [mp.expressed_in(X) for mp, X in WORKED]
    a = combine(parts_in_link)
    b = parts_in_link[0] + parts_in_link[1] + parts_in_link[2]
    c = aggregate(WORKED)
    assert a.almost_equal(c, 1e-13) and b.almost_equal(c, 1e-13)


def test_aggregator_incremental_matches_batch():
    rng = np.random.default_rng(1)
    agg = PartsAggregator(capacity=2)                       # forces growth
    parts = {}
    for i in range(50):
        mp = P.box(rng.uniform(0.1, 1, 3), rng.uniform(100, 5000))
        X = Pose.from_xyz_rpy(*rng.normal(size=6))
        parts[i] = (mp, X)
        agg.set(i, mp, X)
    assert agg.total().almost_equal(aggregate(parts.values()), 1e-12)
    parts[7] = (P.sphere(0.3, 800), Pose.translation(3, 2, 1))
    agg.set(7, *parts[7])
    del parts[11]
    agg.remove(11)
    assert len(agg) == 49 and 11 not in agg
    assert agg.total().almost_equal(aggregate(parts.values()), 1e-12)
    assert agg.part(7).com == pytest.approx([3, 2, 1])


def test_aggregator_edit_of_1000_parts_is_fast():
    """The live-editing budget: one edit of a 1000-collision link and a re-sum < 1 ms.
    (Measured as the best of several runs so a busy CI machine does not flake.)"""
    agg = PartsAggregator()
    rng = np.random.default_rng(2)
    for i in range(1000):
        agg.set(i, P.box((0.1, 0.2, 0.3), 1000), Pose.from_xyz_rpy(*rng.normal(size=6)))
    agg.total()
    best = float("inf")
    for k in range(20):
        t = time.perf_counter()
        agg.set(500, P.cylinder(0.1, 0.2 + 0.01 * k, 7800),
                Pose.from_xyz_rpy(0.1, 0.2, 0.3, k, 0, 0))
        agg.total()
        best = min(best, time.perf_counter() - t)
    assert best < 1e-3


def test_empty_or_massless_is_an_error():
    with pytest.raises(ValueError):
        aggregate([])
    with pytest.raises(ValueError):
        PartsAggregator().total()


def test_with_mass_keeps_com_and_shape():
    mp = aggregate(WORKED)
    scaled = mp.with_mass(10.0)
    assert scaled.mass == 10.0 and scaled.com == pytest.approx(mp.com)
    assert scaled.inertia == pytest.approx(mp.inertia * 10.0 / mp.mass)


def test_principal_axes_is_a_proper_rotation():
    I = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.8]])
    w, R = principal_axes(I)
    assert np.linalg.det(R) == pytest.approx(1.0) and np.all(np.diff(w) >= 0)
    mp = MassProperties(1.0, [0, 0, 0], I)
    moments, X = mp.principal_pose()
    back = MassProperties.from_inertial_frame(1.0, X, np.diag(moments))
    assert back.inertia == pytest.approx(I, abs=1e-14)
