"""The Variation DSL: seeded, reproducible variations of a floor plan.

The three real variation files (hospital, kitchen, hbrs) come from FloorPlan-DSL.  Their
distributions set what a sampled value may be: ``uniform([…])`` one of the listed values,
``discrete([(p, v), …])`` one of the ``v`` with ``p > 0``, ``normal`` a number with two
decimals.  Each sampled value must show up in the generated plan.
"""
from __future__ import annotations

import difflib
import re
from pathlib import Path

import numpy as np
import pytest

from snapframe.plugins.floorplan.dsl import load_fpm
from snapframe.plugins.floorplan.errors import FloorPlanError
from snapframe.plugins.floorplan.variation import load_variation, write_variations

DATA = Path(__file__).resolve().parents[2] / "data" / "floorplan"
FPM = DATA / "fpm"
# hbrs.variation asks for negative wall thicknesses (see test_hbrs_negative_thickness...);
# hbrs_positive_thickness.variation is the same file with the minus signs dropped
VARIATIONS = ["hospital.variation", "kitchen.variation", "hbrs_positive_thickness.variation"]

# slot label -> (distribution, allowed values or (mean, std))
EXPECTED = {
    "hospital.variation": {
        "hallway location.translation.x": ("normal", (0.0, 5.0)),
        "hallway defaults.wall.thickness": ("discrete", [0.14, 0.35, 0.51]),
        "reception_hallway shape.width": ("uniform", [2.0, 3.0, 4.0]),
        "reception.divider_left height": ("normal", (1.0, 0.2)),
        "reception.divider_left location.rotation.z": ("discrete", [0.0, 0.20]),
        "room_B location.translation.x": ("uniform", [2.0, 3.0, 4.0, 5.0]),
        "room_B shape.length": ("uniform", [4.2, 5.0, 6.0, 3.0]),
        "doorway_width": ("normal", (1.0, 0.2)),
        "wall_height": ("normal", (1.0, 0.2)),
    },
    "kitchen.variation": {
        "room_a_to_corridor_1 location.translation.x": ("normal", (3.5, 2.0)),
        "room_a_to_corridor_2 location.translation.x": ("normal", (-3.5, 2.0)),
        "room_b_to_corridor location.translation.x": ("normal", (0.0, 4.0)),
        "corridor shape.width": ("uniform", [1.0, 1.5, 2.0, 2.5, 5.0, 10.0]),
        "room_a.extra_wall shape.width": ("discrete", [5.0, 2.0]),
    },
    "hbrs_positive_thickness.variation": {
        "column_height": ("uniform", [0.5, 0.7, 2.4]),
        "room_c022 location.translation.x": ("uniform", [-1.1, -0.95, -1.25]),
        "room_c022 defaults.wall.thickness": ("uniform", [1.1, 0.95, 1.25]),
        "corridor_1.pillar_1 location.translation.x": ("normal", (1.0, 3.0)),
        "room_c025_door_1 location.translation.x": ("normal", (1.0, 1.0)),
    },
}


@pytest.mark.parametrize("name", VARIATIONS)
def test_same_seed_same_output_other_seed_other_output(name):
    v = load_variation(FPM / name)
    first = [s.text for s in v.samples(3, 11)]
    again = [s.text for s in load_variation(FPM / name).samples(3, 11)]
    other = [s.text for s in v.samples(3, 12)]
    assert first == again
    assert len(set(first)) == 3
    assert first != other
    # variation i of seed s is variation 0 of seed s + i
    assert other[:2] == first[1:]
    assert [s.name for s in v.samples(2, 11)] == [f"{v.plan_name}_11.fpm", f"{v.plan_name}_12.fpm"]


@pytest.mark.parametrize("name", VARIATIONS)
def test_sampled_values_stay_within_their_distributions(name):
    v = load_variation(FPM / name)
    samples = v.samples(40, 1000)
    for label, (kind, allowed) in EXPECTED[name].items():
        drawn = [s.values[label] for s in samples]
        if kind == "normal":
            mean, std = allowed
            assert all(round(x, 2) == x for x in drawn), label
            assert all(abs(x - mean) <= 6 * std for x in drawn), label
            assert len(set(drawn)) > 10, label                 # really drawn
        else:
            assert set(drawn) <= set(allowed), label
            assert len(set(drawn)) > 1, label
    assert set(samples[0].values) == set(EXPECTED[name])


def _lines_changed(before: str, after: str) -> list[str]:
    return [line for line in difflib.ndiff(before.splitlines(), after.splitlines())
            if line.startswith("+ ")]


def test_only_the_sampled_numbers_change():
    v = load_variation(FPM / "kitchen.variation")
    s = v.sample(3)
    added = _lines_changed(v.plan_text, s.text)
    # the header comment, then at most one changed line per sampled value (a value drawn
    # equal to the one written leaves its line as it was), each holding a sampled number
    assert added[0].startswith("+ // Variation of kitchen.fpm")
    assert 1 < len(added) <= 1 + len(s.values)
    numbers = {repr(x) for x in s.values.values()}
    for line in added[1:]:
        assert set(re.findall(r"-?\d+\.\d+", line)) & numbers, line
    assert len(s.text.splitlines()) == len(v.plan_text.splitlines()) + 1
    assert "// Converted to v2" in s.text                       # comments are kept
    assert f"width={s.values['corridor shape.width']!r} m" in s.text


def test_sampled_values_show_in_the_generated_plans():
    v = load_variation(FPM / "kitchen.variation")
    for s in v.samples(5, 20):
        plan = load_fpm(Path("x.fpm"), s.text)
        # the corridor's width is the length of its walls 0 and 2 (inner edges)
        for i in (0, 2):
            wall = plan.walls[f"corridor-wall-{i}"]
            length = float(np.linalg.norm(wall.polygon[2] - wall.polygon[3]))
            assert length == pytest.approx(s.values["corridor shape.width"])
        # an opening's x is measured along its first wall from the wall's middle
        wall = plan.walls["room_a-wall-0"]
        op = plan.openings["room_a_to_corridor_1"]
        local = np.linalg.inv(wall.X_WF) @ op.X_WF
        assert local[0, 3] == pytest.approx(s.values["room_a_to_corridor_1 location.translation.x"])


def test_hospital_angles_keep_their_unit_and_variables_change():
    v = load_variation(FPM / "hospital.variation")
    s = next(s for s in v.samples(30, 0)
             if s.values["reception.divider_left location.rotation.z"] == 0.2)
    assert "rotation: z: 0.2 deg" in s.text                      # the slot's unit (deg)
    assert f"var wall_height = {s.values['wall_height']!r} m" in s.text
    plan = load_fpm(Path("h.fpm"), s.text)
    d = plan.features["divider_left"]
    space = plan.spaces["reception"]
    rel = np.linalg.inv(space.X_WF) @ d.X_WF
    assert np.arctan2(rel[1, 0], rel[0, 0]) == pytest.approx(np.radians(0.2))
    assert d.height == pytest.approx(s.values["reception.divider_left height"])


def test_hbrs_negative_thickness_is_a_located_error():
    """hbrs.variation (as published) samples a wall thickness from negative values."""
    path = FPM / "hbrs.variation"
    with pytest.raises(FloorPlanError) as info:
        load_variation(path)
    err = info.value
    text = path.read_text()
    pos = text.index("uniform([-1.1, -0.95, -1.25])", text.index("defaults.wall.thickness"))
    assert (err.file, err.line) == (str(path), text.count("\n", 0, pos) + 1)
    assert err.column == pos - text.rfind("\n", 0, pos)
    assert "room_c022 defaults.wall.thickness must be positive" in err.message


def test_write_variations(tmp_path):
    out = tmp_path / "out"
    paths = write_variations(FPM / "hospital.variation", out, 3, 7)
    assert [p.name for p in paths] == ["hospital_7.fpm", "hospital_8.fpm", "hospital_9.fpm"]
    for p in paths:
        plan = load_fpm(p)
        assert len(plan.walls) == 18 and len(plan.openings) == 6
    v = load_variation(FPM / "hospital.variation")
    assert paths[1].read_text() == v.sample(8).text


# ---- variations written here, on the studio plan --------------------------------------
STUDIO = DATA / "studio" / "fpm" / "studio.fpm"


def studio_variation(tmp_path: Path, body: str) -> Path:
    (tmp_path / "studio.fpm").write_text(STUDIO.read_text())
    path = tmp_path / "studio.variation"
    path.write_text('import "studio.fpm"\n' + body)
    return path


def test_values_not_written_yet_are_added(tmp_path):
    path = studio_variation(tmp_path, """
lab: {
    location.translation.x : uniform([1.0])
    location.translation.y : uniform([2.0])
    defaults.wall.thickness : uniform([0.3])
    defaults.wall.height : uniform([3.0])
}
hall: { walls.height : uniform([2.4]) }
lab_win: { location.rotation.y : uniform([5.0]) }
""")
    s = load_variation(path).sample(0)
    plan = load_fpm(tmp_path / s.name, s.text)
    np.testing.assert_allclose(plan.spaces["lab"].X_WF[:3, 3], [1.0, 2.0, 0.0], atol=1e-12)
    assert plan.walls["lab-wall-0"].thickness == 0.3 and plan.walls["lab-wall-0"].height == 3.0
    assert plan.walls["hall-wall-0"].thickness == 0.1 and plan.walls["hall-wall-0"].height == 2.4
    win = plan.openings["lab_win"]
    wall = plan.walls["lab-wall-0"]
    rel = np.linalg.inv(wall.X_WF) @ win.X_WF
    assert np.arctan2(rel[0, 2], rel[0, 0]) == pytest.approx(np.radians(5.0))   # deg added


def test_normal_draws_for_sizes_stay_positive(tmp_path):
    path = studio_variation(tmp_path, "lab: { shape.width : normal(mean=0.1, std=1.0) }\n")
    drawn = [s.values["lab shape.width"] for s in load_variation(path).samples(50, 0)]
    assert min(drawn) > 0 and len(set(drawn)) > 10


def test_a_variable_used_as_a_size_stays_positive(tmp_path):
    path = studio_variation(tmp_path, "door_w : uniform([0.8, -0.5])\n")
    with pytest.raises(FloorPlanError) as info:
        load_variation(path)
    assert "door_w must be positive" in info.value.message and info.value.line == 2


@pytest.mark.parametrize("body, needle, words", [
    ("nowhere: { height : uniform([1.0]) }\n", "nowhere", ["no space, opening or feature"]),
    ("lab: { colour : uniform([1.0]) }\n", "colour", ["not a value of a space"]),
    ("lab_hall: { location.translation.y : uniform([1.0]) }\n", "location.translation.y",
     ["only translated along x and z"]),
    ("lab: { shape.height : uniform([1.0]) }\n", "shape.height", ["width and length"]),
    ("lab: { shape.width : discrete([(0.5, 1.0), (0.4, 2.0)]) }\n", "discrete",
     ["sum to 1"]),
    ("lab: { shape.width : normal(mean=1.0, std=-1.0) }\n", "normal", ["std"]),
    ("door_w: { value : uniform([1.0]) }\n", "door_w", ["is a variable"]),
    ("lab : uniform([1.0])\n", "lab", ["is an element"]),
    ("nothing : uniform([1.0])\n", "nothing", ["no variable 'nothing'"]),
    ("lab: { shape.width : uniform([1.0]) }\nlab: { shape.width : uniform([2.0]) }\n",
     "shape.width : uniform([2.0", ["already varied on line 2"]),
    ("lab: { shape.width : uniform(1.0) }\n", "1.0) }", ["syntax error"]),
])
def test_variation_errors_are_located(tmp_path, body, needle, words):
    path = studio_variation(tmp_path, body)
    with pytest.raises(FloorPlanError) as info:
        load_variation(path)
    err = info.value
    text = path.read_text()
    pos = text.index(needle)
    assert (err.file, err.line, err.column) == (
        str(path), text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)), str(err)
    for w in words:
        assert w in err.message, str(err)


def test_missing_import_and_bad_plan_are_located(tmp_path):
    path = tmp_path / "v.variation"
    path.write_text('// nothing here\nimport "absent.fpm"\n')
    with pytest.raises(FloorPlanError) as info:
        load_variation(path)
    assert (info.value.line, info.value.column) == (2, 1) and "does not exist" in info.value.message
    (tmp_path / "absent.fpm").write_text("Floor plan: broken\n Space s:\n")
    with pytest.raises(FloorPlanError) as info:
        load_variation(path)
    assert info.value.file == str((tmp_path / "absent.fpm").resolve())
    assert info.value.line == 3 and "end of the file" in info.value.message


def test_count_is_bounded():
    v = load_variation(FPM / "kitchen.variation")
    assert v.samples(0, 1) == []
    with pytest.raises(ValueError):
        v.samples(-1, 1)
