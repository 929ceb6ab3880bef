"""The FloorPlan JSON-LD reader on the real generated folders.

Expected values come from the files and from the FloorPlan semantics
(shared notes floorplan.md sections 2.2, 4.2, 4.3), worked out by hand below, never from
what the reader prints.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from snapframe.plugins.floorplan.jsonld import load_jsonld
from snapframe.plugins.floorplan.model import COLUMN, DIVIDER, ENTRYWAY, WALL, WINDOW
from tests.plugins.floorplan.jsonld_cases import COUNTS, EXAMPLES, JSONLD, STUDIO, yaw

TOL = 1e-9


@pytest.fixture(scope="module")
def plans():
    out = {name: load_jsonld(JSONLD / name) for name in EXAMPLES}
    out["studio"] = load_jsonld(STUDIO / "jsonld")
    return out


@pytest.mark.parametrize("name", [*EXAMPLES, "studio"])
def test_counts_read_off_the_files(plans, name):
    plan = plans[name]
    spaces, walls, features, openings = COUNTS[name]
    assert (len(plan.spaces), len(plan.walls), len(plan.features), len(plan.openings)) == \
        (spaces, walls, features, openings)
    assert sum(len(s.walls) for s in plan.spaces.values()) == walls
    assert all(w.kind == WALL for w in plan.walls.values())
    assert all(f.kind in (COLUMN, DIVIDER) for f in plan.features.values())
    assert all(o.kind in (ENTRYWAY, WINDOW) for o in plan.openings.values())
    assert plan.doors == []


def test_names_are_the_relative_ids(plans):
    assert plans["square"].name == "room"          # square.fpm's model is named room
    assert list(plans["square"].spaces) == ["my_room"]
    assert list(plans["square"].walls) == [f"my_room-wall-{i}" for i in range(4)]
    studio = plans["studio"]
    assert list(studio.spaces) == ["lab", "hall"]
    assert list(studio.openings) == ["lab_hall", "lab_win"]
    assert list(studio.features) == ["pillar"]


def test_square_wall_0_traced_end_to_end(plans):
    # floorplan.md 4.2: my_room-wall-0 is posed at (0, 1, 0), alpha 0 in my_room-frame,
    # which is at the world origin; its corner-0 is (-1.2, 0.2, 0) in the wall frame (the
    # mitred outer corner of a 2 x 2 m room with 0.2 m walls), corners 4-7 repeat 0-3 at
    # z = 2.5.
    wall = plans["square"].walls["my_room-wall-0"]
    np.testing.assert_allclose(wall.X_WF[:3, 3], (0, 1, 0), atol=TOL)
    np.testing.assert_allclose(wall.X_WF[:3, :3], np.eye(3), atol=TOL)
    np.testing.assert_allclose(wall.points[0], (-1.2, 1.2, 0), atol=TOL)
    np.testing.assert_allclose(wall.polygon[0], (-1.2, 1.2, 0), atol=TOL)
    np.testing.assert_allclose(wall.points[4:], wall.points[:4] + (0, 0, 2.5), atol=TOL)
    # the inner points of the wall are (+w/2, 0) and (-w/2, 0): room corners 1 and 0
    np.testing.assert_allclose(wall.polygon[2], (1, 1, 0), atol=TOL)
    np.testing.assert_allclose(wall.polygon[3], (-1, 1, 0), atol=TOL)
    assert wall.thickness == pytest.approx(0.2) and wall.height == pytest.approx(2.5)
    assert len(wall.faces) == 6 and wall.faces[2] == [0, 1, 5, 4]
    assert wall.space == "my_room"


def test_studio_layout(plans):
    plan = plans["studio"]
    lab, hall = plan.spaces["lab"], plan.spaces["hall"]
    # lab: 6 x 4 m at the world origin; points (-w/2, +l/2), (+w/2, +l/2), ...
    np.testing.assert_allclose(lab.polygon, [(-3, 2, 0), (3, 2, 0), (3, -2, 0), (-3, -2, 0)],
                               atol=TOL)
    # lab.walls[2] (bottom) runs from (3, -2) to (-3, -2): x along world -x, y away
    # from the room (world -y): yaw 180 deg, origin at the inner edge's midpoint.
    w2 = plan.walls["lab-wall-2"]
    np.testing.assert_allclose(w2.X_WF[:3, 3], (0, -2, 0), atol=TOL)
    assert abs(abs(yaw(w2.X_WF)) - math.pi) < TOL
    # hall: wall 0 against lab's wall 2 ("spaced": 0.2 + 0.1 m further), turned back to
    # back; hall is 2 m long, so its centre is 1 m beyond its wall 0: (0, -3.3).
    np.testing.assert_allclose(hall.X_WF[:3, 3], (0, -3.3, 0), atol=TOL)
    np.testing.assert_allclose(hall.polygon, [(-3, -2.3, 0), (3, -2.3, 0), (3, -4.3, 0),
                                              (-3, -4.3, 0)], atol=TOL)
    assert plan.walls["hall-wall-0"].thickness == pytest.approx(0.1)
    # the entryway: 1.5 m along lab.walls[2]'s x (world -x), centre 1.05 m up
    door = plan.openings["lab_hall"]
    np.testing.assert_allclose(door.X_WF[:3, 3], (-1.5, -2, 1.05), atol=TOL)
    assert door.voids == ["lab-wall-2", "hall-wall-0"]
    assert door.thickness == pytest.approx(0.3)          # both walls
    assert door.height == pytest.approx(2.1)
    local_x = (door.polygon - door.X_WF[:3, 3]) @ door.X_WF[:3, 0]
    assert np.ptp(local_x) == pytest.approx(0.9)        # door_w
    window = plan.openings["lab_win"]
    np.testing.assert_allclose(window.X_WF[:3, 3], (0, 2, 1.4), atol=TOL)
    assert window.kind == WINDOW and window.height == pytest.approx(1.0)
    pillar = plan.features["pillar"]
    np.testing.assert_allclose(np.sort(pillar.polygon[:, 0]), [0.85, 0.85, 1.15, 1.15], atol=TOL)
    np.testing.assert_allclose(np.sort(pillar.polygon[:, 1]), [0.35, 0.35, 0.65, 0.65], atol=TOL)
    assert pillar.height == pytest.approx(2.6) and pillar.space == "lab"
    assert lab.features == ["pillar"]


def test_hospital_rotated_reception_and_a_space_placed_by_its_wall(plans):
    plan = plans["hospital"]
    c, s = math.cos(math.radians(45)), math.sin(math.radians(45))

    def world(x, y):       # reception's frame: (10, 5), rotated 45 deg (hospital.fpm)
        return np.array([10 + c * x - s * y, 5 + s * x + c * y, 0.0])

    reception = plan.spaces["reception"]
    np.testing.assert_allclose(reception.polygon[0], world(-7, 6), atol=TOL)
    np.testing.assert_allclose(reception.polygon[3], world(4, -6), atol=TOL)
    # hallway.walls[2] is placed against reception.walls[0] (the edge (-7, 6) -> (7, 6),
    # frame origin (0, 6), yaw 45 deg): x 2 m along it, "spaced" 0.40 + 0.20 m out,
    # turned 180 deg; the reader reaches it through the hallway's own frame or through
    # that pose, and both agree.
    wall = plan.walls["hallway-wall-2"]
    expected = world(0, 6) + np.array([c * 2 - s * 0.6, s * 2 + c * 0.6, 0])
    np.testing.assert_allclose(wall.X_WF[:3, 3], expected, atol=1e-9)
    assert math.isclose(math.remainder(yaw(wall.X_WF) - math.radians(225), 2 * math.pi), 0,
                        abs_tol=1e-9)


@pytest.mark.parametrize("name", [*EXAMPLES, "studio"])
def test_walls_sit_on_their_space_polygon(plans, name):
    # A wall's inner points are the space polygon's corners i+1 and i (floorplan.md 2.2):
    # two different chains of poses (wall frame vs space frame) meet here.
    plan = plans[name]
    for space in plan.spaces.values():
        n = len(space.walls)
        assert n == len(space.polygon)
        for i, wall_name in enumerate(space.walls):
            wall = plan.walls[wall_name]
            np.testing.assert_allclose(wall.polygon[2], space.polygon[(i + 1) % n], atol=1e-9)
            np.testing.assert_allclose(wall.polygon[3], space.polygon[i], atol=1e-9)
            np.testing.assert_allclose(wall.X_WF[:3, 3],
                                       (space.polygon[i] + space.polygon[(i + 1) % n]) / 2,
                                       atol=1e-9)


@pytest.mark.parametrize("name", [*EXAMPLES, "studio"])
def test_openings_lie_in_the_walls_they_void(plans, name):
    plan = plans[name]
    for opening in plan.openings.values():
        first = plan.walls[opening.voids[0]]
        # its frame sits in the first wall's inner face, and the walls it voids add up to
        # its thickness
        local = np.linalg.inv(first.X_WF) @ opening.X_WF
        assert abs(local[1, 3]) < 1e-9, opening.name
        assert opening.thickness == pytest.approx(
            sum(plan.walls[w].thickness for w in opening.voids))
        wall_local = (first.points - first.X_WF[:3, 3]) @ first.X_WF[:3, :3]
        open_local = (opening.points - first.X_WF[:3, 3]) @ first.X_WF[:3, :3]
        assert open_local[:, 0].min() >= wall_local[:, 0].min() - 1e-9, opening.name
        assert open_local[:, 0].max() <= wall_local[:, 0].max() + 1e-9, opening.name


def test_floorplan_json_stands_for_its_folder(plans):
    plan = load_jsonld(STUDIO / "jsonld" / "floorplan.json")
    assert list(plan.walls) == list(plans["studio"].walls)
    assert plan.source == STUDIO / "jsonld"
