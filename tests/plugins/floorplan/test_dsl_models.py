"""Every real ``.fpm`` model reads, with the elements its text declares.

Counts are read off the files: a Rectangle space has 4 walls, a Polygon space one wall per
point; features are the ``Column``/``Divider`` blocks, openings the ``Entryway``/``Window``
blocks.  Layout checks use the DSL's own rules (floorplan.md §2.5): a space placed
``spaced`` against another space's wall shares that wall's outer plane, back to back.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from snapframe.plugins.floorplan.dsl import load_fpm
from snapframe.plugins.floorplan.model import COLUMN, DIVIDER, ENTRYWAY, WALL, WINDOW

DATA = Path(__file__).resolve().parents[2] / "data" / "floorplan"
FPM = DATA / "fpm"

# file: (plan name, spaces, walls, features, openings)
COUNTS = {
    "square.fpm": ("room", 1, 4, 0, 0),
    "room.fpm": ("room", 1, 6, 0, 0),
    "hospital.fpm": ("hospital", 4, 18, 9, 6),
    "kitchen.fpm": ("kitchen", 3, 12, 1, 3),
    "office.fpm": ("office", 8, 31, 0, 9),
    "hbrs.fpm": ("hbrs", 3, 12, 2, 3),
    "brsu_building_c.fpm": ("brsu_building_c", 16, 64, 0, 14),
    "brsu_building_c_with_doors.fpm": ("brsu_building_c_with_doors", 20, 80, 79, 52),
}
ALL = [FPM / name for name in COUNTS] + [DATA / "studio" / "fpm" / "studio.fpm"]


def test_every_fpm_in_the_data_folder_is_listed():
    assert sorted(p.name for p in FPM.glob("*.fpm")) == sorted(COUNTS)


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_counts(name):
    plan = load_fpm(FPM / name)
    assert (plan.name, len(plan.spaces), len(plan.walls), len(plan.features),
            len(plan.openings)) == COUNTS[name]
    assert plan.source == FPM / name


def test_studio_counts_and_kinds():
    plan = load_fpm(DATA / "studio" / "fpm" / "studio.fpm")
    assert list(plan.spaces) == ["lab", "hall"]
    assert plan.spaces["lab"].walls == [f"lab-wall-{i}" for i in range(4)]
    assert {n: s.kind for n, s in plan.features.items()} == {"pillar": COLUMN}
    assert {n: s.kind for n, s in plan.openings.items()} == {"lab_hall": ENTRYWAY,
                                                             "lab_win": WINDOW}
    assert plan.openings["lab_hall"].voids == ["lab-wall-2", "hall-wall-0"]
    # 0.2 m (lab) + 0.1 m (hall's override)
    assert plan.openings["lab_hall"].thickness == pytest.approx(0.3)
    # floorplan.md §2.7: lab.walls[2]'s x runs towards world -x, so x: 1.5 m lands at -1.5
    centre = plan.openings["lab_hall"].X_WF[:3, 3]
    assert centre == pytest.approx([-1.5, -2.0, 1.05])


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_solids_are_well_formed(path):
    plan = load_fpm(path)
    for s in plan.solids():
        n = len(s.polygon)
        assert s.points.shape == (2 * n, 3) and s.points.dtype == np.float64
        np.testing.assert_array_equal(s.points[:n], s.polygon)
        assert len(s.faces) == n + 2
        R = s.X_WF[:3, :3]
        np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-12)
    for w in plan.walls.values():
        assert w.kind == WALL and w.space in plan.spaces
        local = (w.polygon - w.X_WF[:3, 3]) @ w.X_WF[:3, :3]
        # inner corners on the frame's x axis, outer corners at y = thickness
        np.testing.assert_allclose(local[2:, 1], 0.0, atol=1e-9)
        np.testing.assert_allclose(local[:2, 1], w.thickness, atol=1e-9)
        np.testing.assert_allclose(local[:, 2], 0.0, atol=1e-12)
        assert local[2, 0] == pytest.approx(-local[3, 0]) and local[2, 0] > 0
    for f in plan.features.values():
        assert f.kind in (COLUMN, DIVIDER)
    for name, space in plan.spaces.items():
        assert space.walls == [w for w in plan.walls if plan.walls[w].space == name]
        np.testing.assert_allclose(space.polygon[:, 2], 0.0, atol=1e-12)


_SPACED = re.compile(r"Space (\w+):(?:(?!\n\s*Space ).)*?wrt: (\w+)\.walls\[(\d+)\]\s*"
                     r"of: this\.walls\[(\d+)\]\s*spaced", re.S)


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_spaced_rooms_stand_back_to_back(path):
    """`spaced`: the two walls face opposite ways and their outer faces are one plane."""
    plan = load_fpm(path)
    pairs = _SPACED.findall(re.sub(r"//[^\n]*", "", path.read_text()))
    for space, other, i, j in pairs:
        a = plan.walls[f"{other}-wall-{i}"]
        b = plan.walls[f"{space}-wall-{j}"]
        ya, yb = a.X_WF[:3, 1], b.X_WF[:3, 1]
        np.testing.assert_allclose(ya, -yb, atol=1e-9)
        outer_a = a.X_WF[:3, 3] + a.thickness * ya
        outer_b = b.X_WF[:3, 3] + b.thickness * yb
        assert float(np.dot(outer_b - outer_a, ya)) == pytest.approx(0.0, abs=1e-9)
    if path.name == "brsu_building_c_with_doors.fpm":
        assert len(pairs) == 19


def test_two_wall_openings_reach_through_both_walls():
    """An opening in two walls placed back to back by `spaced` ends on the second wall's
    inner face (other pairs of walls are only as close as the plan's author made them)."""
    path = FPM / "brsu_building_c_with_doors.fpm"
    plan = load_fpm(path)
    spaced = {frozenset({f"{other}-wall-{i}", f"{space}-wall-{j}"})
              for space, other, i, j in _SPACED.findall(path.read_text())}
    two = [o for o in plan.openings.values() if len(o.voids) == 2]
    assert len(two) == 24            # the `in: … and …` lines of the file
    checked = 0
    for o in two:
        if frozenset(o.voids) not in spaced:
            continue
        second = plan.walls[o.voids[1]]
        far = o.points[len(o.polygon):]         # the face at y = summed thickness
        offset = (far - second.X_WF[:3, 3]) @ second.X_WF[:3, 1]
        np.testing.assert_allclose(offset, 0.0, atol=1e-9, err_msg=o.name)
        checked += 1
    assert checked == 22


def test_feature_names_reused_in_several_spaces_are_qualified():
    plan = load_fpm(FPM / "brsu_building_c_with_doors.fpm")
    # `door_doorway_01` is a Divider in four spaces (lines 93, 266, 381 and 552)
    reused = [n for n in plan.features if n.endswith(".door_doorway_01")]
    assert len(reused) == 4 and "door_doorway_01" not in plan.features
    assert reused[0] == "left_short_connector.door_doorway_01"
    assert "left_short_connector.door_doorway_01" in plan.spaces["left_short_connector"].features
    assert "column_1" in plan.features          # unique names stay as they are


def test_text_overrides_the_file_and_path_names_it(tmp_path):
    text = (FPM / "square.fpm").read_text().replace("width=2.0 m", "width=4.0 m")
    plan = load_fpm(tmp_path / "other.fpm", text)
    assert plan.source == tmp_path / "other.fpm"
    xs = plan.spaces["my_room"].polygon[:, 0]
    assert xs.max() - xs.min() == pytest.approx(4.0)
