"""Door models: the studio door (object, states, instance) and default doors.

The studio door files (tests/data/floorplan/studio/door-jsonld, written for this project)
place the instance frame against ``fpm:lab-wall-2-frame`` at x 1.075, y 0.15: lab's wall 2
runs along world -x at y = -2 (yaw 180 deg), so the door frame is at world
(-1.075, -2.15, 0), yaw 180 deg, inside the lab_hall entryway (centre (-1.5, -2.0, 1.05),
0.9 m wide, 2.1 m high, 0.3 m deep).
"""
from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

from snapframe.plugins.floorplan.doors import (CLEARANCE, DEFAULT_LOWER, DEFAULT_UPPER,
                                               FLOOR_GAP, LEAF_THICKNESS, default_door)
from snapframe.plugins.floorplan.errors import FloorPlanError
from snapframe.plugins.floorplan.jsonld import load_jsonld
from tests.plugins.floorplan.jsonld_cases import JSONLD, STUDIO, studio_with_door, yaw


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    return load_jsonld(studio_with_door(tmp_path_factory.mktemp("door")))


def _in_opening(plan, name, point, tol=1e-9):
    opening = plan.openings[name]
    local = (opening.points - opening.X_WF[:3, 3]) @ opening.X_WF[:3, :3]
    p = (np.asarray(point) - opening.X_WF[:3, 3]) @ opening.X_WF[:3, :3]
    return bool(np.all(p >= local.min(axis=0) - tol) and np.all(p <= local.max(axis=0) + tol))


def test_the_studio_door_instance_is_placed_in_its_doorway(studio):
    assert len(studio.doors) == 1
    door = studio.doors[0]
    assert door.name == "door-instance-1"
    np.testing.assert_allclose(door.X_WO[:3, 3], (-1.075, -2.15, 0.0), atol=1e-12)
    assert abs(abs(yaw(door.X_WO)) - math.pi) < 1e-12
    np.testing.assert_allclose(door.X_WO[2, :3], (0, 0, 1), atol=1e-12)
    assert door.opening == "lab_hall"
    assert _in_opening(studio, "lab_hall", door.X_WO[:3, 3])
    np.testing.assert_allclose(studio.openings["lab_hall"].X_WF[:3, 3], (-1.5, -2.0, 1.05),
                               atol=1e-12)
    assert door.state_name == "state-ajar"
    assert door.positions == {"joint-hinge": 0.5}


def test_the_studio_door_object(studio):
    obj = studio.doors[0].object
    assert obj.name == "door"
    links = {link.name: link for link in obj.links}
    assert list(links) == ["lining", "leaf"]
    # lining: 0.05 x 0.05 x 2.1 box, its frame 1.05 m up the object frame
    np.testing.assert_allclose(links["lining"].size, (0.05, 0.05, 2.1))
    np.testing.assert_allclose(links["lining"].X_OL[:3, 3], (0, 0, 1.05), atol=1e-12)
    # leaf centre: hinge (0.025 along the lining frame) + 0.425 along the hinge's x
    np.testing.assert_allclose(links["leaf"].X_OL[:3, 3], (0.45, 0, 1.05), atol=1e-12)
    np.testing.assert_allclose(links["leaf"].size, (0.85, 0.04, 2.05))
    assert links["leaf"].mass == 12.0 and links["lining"].mass == 50.0
    np.testing.assert_allclose(links["leaf"].inertia_diagonal, (4.2, 4.93, 0.72))
    assert links["leaf"].material == "Wood" and links["lining"].material == "Grey"
    (joint,) = obj.joints
    assert (joint.name, joint.type, joint.parent, joint.child) == \
        ("joint-hinge", "revolute", "lining", "leaf")
    assert (joint.lower, joint.upper) == (0.0, 1.57)
    np.testing.assert_allclose(joint.axis, (0, 0, 1))
    # the joint frame is the lining's hinge frame: 0.025 along x, 1.05 up
    np.testing.assert_allclose(joint.X_OJ, [[1, 0, 0, 0.025], [0, 1, 0, 0], [0, 0, 1, 1.05],
                                            [0, 0, 0, 1]], atol=1e-12)
    assert obj.states == {"state-closed": {"joint-hinge": 0.0},
                          "state-ajar": {"joint-hinge": 0.5},
                          "state-open": {"joint-hinge": 1.5}}


def test_the_closed_leaf_fills_the_doorway(studio):
    door = studio.doors[0]
    leaf = next(link for link in door.object.links if link.name == "leaf")
    centre = door.X_WO @ leaf.X_OL[:, 3]
    # object x (0.45) runs along world -x: -1.075 - 0.45 = -1.525
    np.testing.assert_allclose(centre[:3], (-1.525, -2.15, 1.05), atol=1e-12)
    assert _in_opening(studio, "lab_hall", centre[:3])


def test_door_limits_without_a_quantity_type_are_an_error(tmp_path):
    # Context drift: since the 2025 qudt context, "value" exists only for Quantity nodes;
    # a limit written without that type loses its value, which must not go unnoticed.
    folder = studio_with_door(tmp_path)
    path = folder / "doors" / "object-door.json"
    document = json.loads(path.read_text())
    for node in document["@graph"]:
        if node["@id"] == "door:joint-hinge-upper-limit":
            node["@type"] = [t for t in node["@type"] if t != "Quantity"]
    path.write_text(json.dumps(document))
    with pytest.raises(FloorPlanError) as caught:
        load_jsonld(folder)
    assert caught.value.file == str(path)
    assert caught.value.element == "joint-hinge-upper-limit"
    assert "Quantity" in caught.value.message


def test_an_instance_against_a_frame_the_plan_lacks(tmp_path):
    folder = studio_with_door(tmp_path)
    path = folder / "doors" / "object-door-instance-1.json"
    document = json.loads(path.read_text())
    for node in document["@graph"]:
        if node["@id"] == "door:pose-location-door-1":
            node["with-respect-to"] = "fpm:lab-wall-9-frame"
    path.write_text(json.dumps(document))
    with pytest.raises(FloorPlanError) as caught:
        load_jsonld(folder)
    assert caught.value.file == str(path)
    assert caught.value.element == "pose-location-door-1"
    assert "lab-wall-9-frame" in caught.value.message


def test_a_start_state_the_door_has_no_position_for(tmp_path):
    folder = studio_with_door(tmp_path)
    path = folder / "doors" / "object-door-instance-1.json"
    document = json.loads(path.read_text())
    document["@graph"].append({"@id": "door:state-gone", "@type": "State"})
    for node in document["@graph"]:
        if node["@id"] == "door:door-instance-1":
            node["start-state"] = "door:state-gone"
    path.write_text(json.dumps(document))
    with pytest.raises(FloorPlanError) as caught:
        load_jsonld(folder)
    assert caught.value.element == "door-instance-1" and "state-gone" in caught.value.message


# -- default doors --------------------------------------------------------------------------

def test_default_door_in_the_studio_entryway():
    plan = load_jsonld(STUDIO / "jsonld")
    door = default_door(plan, "lab_hall")
    assert door.opening == "lab_hall" and door.state_name == "closed"
    (leaf,) = door.object.links
    (hinge,) = door.object.joints
    assert (hinge.type, hinge.parent, hinge.child) == ("revolute", "world", "leaf")
    assert (hinge.lower, hinge.upper) == (DEFAULT_LOWER, DEFAULT_UPPER) == (0.0, 1.57)
    np.testing.assert_allclose(hinge.axis, (0, 0, 1))
    # sized from the opening: 0.9 m wide, 2.1 m high, in a 0.3 m deep doorway
    np.testing.assert_allclose(leaf.size, (0.9 - 2 * CLEARANCE, LEAF_THICKNESS,
                                           2.1 - CLEARANCE - FLOOR_GAP), atol=1e-12)
    opening = plan.openings["lab_hall"]
    # hinged at the jamb at the opening's low-x end (x = -0.45 in the opening frame), in
    # the middle of the 0.3 m deep wall, on the floor
    hinge_local = np.linalg.inv(opening.X_WF) @ door.X_WO[:, 3]
    np.testing.assert_allclose(hinge_local[:3],
                               (-0.45 + CLEARANCE + LEAF_THICKNESS / 2, 0.15, -1.05), atol=1e-12)
    np.testing.assert_allclose(door.X_WO[:3, :3], opening.X_WF[:3, :3], atol=1e-12)
    # the closed leaf lies inside the doorway, every corner of it
    corners = np.array([[sx, sy, sz] for sx in (-.5, .5) for sy in (-.5, .5)
                        for sz in (-.5, .5)]) * leaf.size
    world = (door.X_WO @ leaf.X_OL @ np.c_[corners, np.ones(8)].T).T[:, :3]
    assert all(_in_opening(plan, "lab_hall", p) for p in world)
    # a box's inertia for its mass
    x, y, z = leaf.size
    np.testing.assert_allclose(leaf.inertia_diagonal,
                               leaf.mass / 12 * np.array([y * y + z * z, x * x + z * z,
                                                          x * x + y * y]))


@pytest.mark.parametrize("name", ["hospital", "kitchen", "office", "hbrs"])
def test_a_default_door_fits_every_real_entryway(name):
    plan = load_jsonld(JSONLD / name)
    entryways = [o for o in plan.openings.values() if o.kind == "entryway"]
    assert entryways
    for opening in entryways:
        door = default_door(plan, opening.name)
        (leaf,) = door.object.links
        centre = (door.X_WO @ leaf.X_OL)[:3, 3]
        assert _in_opening(plan, opening.name, centre), opening.name
        assert door.opening == opening.name


def test_default_door_refuses_windows_and_unknown_openings():
    plan = load_jsonld(STUDIO / "jsonld")
    with pytest.raises(FloorPlanError, match="not an entryway"):
        default_door(plan, "lab_win")
    with pytest.raises(FloorPlanError, match="no opening"):
        default_door(plan, "nowhere")
    small = copy.deepcopy(plan)
    opening = small.openings["lab_hall"]
    opening.points = opening.X_WF[:3, 3] + (opening.points - opening.X_WF[:3, 3]) * 0.01
    with pytest.raises(FloorPlanError, match="too small"):
        default_door(small, "lab_hall")
