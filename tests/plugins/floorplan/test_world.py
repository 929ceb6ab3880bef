"""FloorPlan -> world: the building as one static model, each door as a model with its
hinge, limits and start state; checked in Snapframe's core and in libsdformat 12.3.

Door numbers (studio door, see test_doors): object frame at world (-1.075, -2.15, 0),
yaw 180 deg; hinge at (0.025, 0, 1.05) in the object frame, axis z; the leaf's centre
0.425 m along the hinge's x; limits 0 to 1.57 rad; start state "ajar", 0.5 rad.  The door
is written in its own coordinates (closed, limits 0 to 1.57 rad, so a joint position is
the door's angle); the start state travels as the initial position of a gz-sim
JointPositionController plugin in the door's model.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from snapframe.core.model.nodes import MeshData
from snapframe.core.pose import Pose
from snapframe.plugins.floorplan.doors import default_door
from snapframe.plugins.floorplan.geometry import building_pieces
from snapframe.plugins.floorplan.format import load_plan
from snapframe.plugins.floorplan.jsonld import load_jsonld
from snapframe.core.model import Plugin
from snapframe.plugins.floorplan.editing import show_start_states, start_positions
from snapframe.plugins.floorplan.world import BUILDING, START, build_document, build_model
from tests.plugins.floorplan.jsonld_cases import (DATA, EXAMPLES, JSONLD, STUDIO, joints_binary,
                                                  read_joints, studio_with_door)

BUNDLED = Path(__file__).resolve().parents[3] / "resources" / "examples" / "floorplan"
HINGE = np.array([0.025, 0.0, 1.05])
LEAF_OFFSET = 0.425
AJAR = 0.5


def _rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _leaf_in_object(q: float) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3] = _rz(q)
    X[:3, 3] = HINGE + _rz(q) @ (LEAF_OFFSET, 0, 0)
    return X


def _object_in_world() -> np.ndarray:
    X = np.eye(4)
    X[:3, :3] = _rz(math.pi)
    X[:3, 3] = (-1.075, -2.15, 0)
    return X


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    return load_jsonld(studio_with_door(tmp_path_factory.mktemp("world")))


def _model(doc, name):
    return next(m for m in doc.root.models if m.name == name)


def test_the_building_is_one_static_model_with_a_visual_and_collision_per_piece(studio):
    doc = build_document(studio)
    assert doc.root.name == "studio"
    assert [m.name for m in doc.root.models] == [BUILDING, "door-instance-1"]
    building = _model(doc, BUILDING)
    assert building.static and [link.name for link in building.links] == [BUILDING]
    link = building.links[0]
    # walls: lab 0 (window: 2 jambs, sill, lintel) + lab 1 + lab 2 (door: 2 jambs,
    # lintel) + lab 3, hall 0 (door) + hall 1-3; 2 floors; the pillar
    assert len(link.visuals) == len(link.collisions) == 4 + 1 + 3 + 1 + 3 + 3 + 2 + 1
    for visual, collision in zip(link.visuals, link.collisions):
        assert visual.name == collision.name
        assert visual.geometry.shape == collision.geometry.shape
        if visual.geometry.shape == "mesh":
            data = visual.geometry.params["data"]
            assert isinstance(data, MeshData) and collision.geometry.params["data"] is data
    by_kind: dict[str, set] = {}
    for v in link.visuals:
        by_kind.setdefault(v.extras["floorplan_kind"], set()).add(v.extras["floorplan_element"])
    assert by_kind == {"wall": set(studio.walls), "floor": set(studio.spaces),
                       "column": {"pillar"}}
    # Boxes: the sill and lintel of the window, the lintels of the doorway in both walls,
    # the two rectangular floors, the pillar; the rest (mitred wall ends) are meshes.
    shapes = [v.geometry.shape for v in link.visuals]
    assert shapes.count("box") == 2 + 2 + 2 + 1 and shapes.count("mesh") == 11
    assert doc.extras["floorplan"] is studio


def _corners(size, X) -> np.ndarray:
    half = np.array([[sx, sy, sz] for sx in (-.5, .5) for sy in (-.5, .5)
                     for sz in (-.5, .5)]) * size
    return half @ X[:3, :3].T + X[:3, 3]


def test_each_opening_is_a_frame_of_the_building(studio):
    building = _model(build_document(studio), BUILDING)
    frames = {f.name: f for f in building.frames}
    assert list(frames) == ["lab_hall", "lab_win"]
    for name, frame in frames.items():
        opening = studio.openings[name]
        assert frame.attached_to == BUILDING
        assert frame.extras["floorplan_kind"] == opening.kind
        np.testing.assert_allclose(frame.pose.value.matrix(), opening.X_WF, atol=1e-12)
    # the doorway's frame is the centre of its rectangle: the middle of its 8 corners in
    # x and z (y runs through the walls from the frame)
    opening = studio.openings["lab_hall"]
    local = (opening.points - opening.X_WF[:3, 3]) @ opening.X_WF[:3, :3]
    mid = (local.min(axis=0) + local.max(axis=0)) / 2
    assert abs(mid[0]) < 1e-12 and abs(mid[2]) < 1e-12
    np.testing.assert_allclose(frames["lab_hall"].pose.value.matrix()[:3, 3],
                               (-1.5, -2.0, 1.05), atol=1e-12)


def test_box_pieces_are_exactly_the_pieces(studio):
    doc = build_document(studio)
    pieces = {p.name: p for p in building_pieces(studio)}
    link = _model(doc, BUILDING).links[0]
    boxes = [v for v in link.visuals if v.geometry.shape == "box"]
    for visual in boxes:
        corners = _corners(np.array(visual.geometry.params["size"]),
                           visual.pose.value.matrix())
        vertices = pieces[visual.name].vertices
        assert len(vertices) == 8
        for corner in corners:
            assert np.min(np.linalg.norm(vertices - corner, axis=1)) < 1e-9, visual.name
    sizes = {v.name: v.geometry.params["size"] for v in boxes}
    # the lintel over lab_hall in lab's wall: 0.9 wide, 0.2 deep, 2.6 - 2.1 high, centred
    # over the doorway (-1.5, -2.1) at z 2.35, in the wall's frame (yaw 180 deg)
    lintel = next(v for v in boxes if v.extras["floorplan_element"] == "lab-wall-2")
    assert sizes[lintel.name] == pytest.approx((0.9, 0.2, 0.5))
    X = lintel.pose.value.matrix()
    np.testing.assert_allclose(X[:3, 3], (-1.5, -2.1, 2.35), atol=1e-9)
    np.testing.assert_allclose(X[:3, :3], studio.walls["lab-wall-2"].X_WF[:3, :3], atol=1e-12)
    pillar = next(v for v in boxes if v.name == "pillar")
    assert sizes["pillar"] == pytest.approx((0.3, 0.3, 2.6))
    np.testing.assert_allclose(pillar.pose.value.matrix()[:3, 3], (1.0, 0.5, 1.3), atol=1e-9)


def _controllers(model) -> list:
    return [e for e in model.entities if isinstance(e, Plugin)]


def test_the_door_is_written_in_its_own_coordinates(studio):
    doc = build_document(studio)
    door = _model(doc, "door-instance-1")
    np.testing.assert_allclose(door.pose.value.matrix(), _object_in_world(), atol=1e-12)
    links = {link.name: link for link in door.links}
    np.testing.assert_allclose(links["lining"].pose.value.matrix()[:3, 3], (0, 0, 1.05),
                               atol=1e-12)
    # closed: the door's position zero
    np.testing.assert_allclose(links["leaf"].pose.value.matrix(), _leaf_in_object(0.0),
                               atol=1e-12)
    assert links["leaf"].visuals[0].geometry.params["size"] == (0.85, 0.04, 2.05)
    joints = {j.name: j for j in door.joints}
    hinge = joints["joint-hinge"]
    assert (hinge.type, hinge.parent_name, hinge.child_name) == ("revolute", "lining", "leaf")
    assert hinge.axes[0].xyz == (0.0, 0.0, 1.0)
    assert (hinge.axes[0].lower, hinge.axes[0].upper) == (0.0, 1.57)   # as modelled
    assert hinge.pose.relative_to == "__model__"
    np.testing.assert_allclose(hinge.pose.value.matrix()[:3, 3], HINGE, atol=1e-12)
    assert hinge.extras["floorplan_joint"] == {
        "zero": 0.0, "lower": 0.0, "upper": 1.57, "start": AJAR,
        "states": {"state-closed": 0.0, "state-ajar": 0.5, "state-open": 1.5}}
    anchor = joints["lining_to_world"]
    assert (anchor.type, anchor.parent_name, anchor.child_name) == ("fixed", "world", "lining")
    assert door.extras["floorplan_door"]["opening"] == "lab_hall"
    assert door.extras["floorplan_door"]["state"] == "state-ajar"
    # the start state, for Gazebo: a position controller starting the hinge at 0.5 rad
    (plugin,) = _controllers(door)
    assert plugin.filename == "gz-sim-joint-position-controller-system"
    assert plugin.name == "gz::sim::systems::JointPositionController"
    assert plugin.xml.tag == "plugin"
    assert plugin.xml.findtext("joint_name") == "joint-hinge"
    assert float(plugin.xml.findtext("initial_position")) == AJAR
    # the leaf's given inertia is not a body's (4.2 + 0.72 < 4.93): its box's is written
    inertial = links["leaf"].inertial
    assert inertial.mass == 12.0
    assert (inertial.ixx, inertial.iyy, inertial.izz) == pytest.approx(
        (12 / 12 * (0.04 ** 2 + 2.05 ** 2), 12 / 12 * (0.85 ** 2 + 2.05 ** 2),
         12 / 12 * (0.85 ** 2 + 0.04 ** 2)))
    assert any("inertia" in d.message and "leaf" in d.message for d in doc.diagnostics)
    assert links["lining"].inertial.ixx == 18.4


def test_the_start_state_configuration_on_request(studio):
    # written ajar, the limits counted from there; no controller then
    doc = build_document(studio, door_configuration=START)
    door = _model(doc, "door-instance-1")
    leaf = next(link for link in door.links if link.name == "leaf")
    np.testing.assert_allclose(leaf.pose.value.matrix(), _leaf_in_object(AJAR), atol=1e-12)
    hinge = next(j for j in door.joints if j.name == "joint-hinge")
    assert hinge.axes[0].lower == pytest.approx(0.0 - AJAR)
    assert hinge.axes[0].upper == pytest.approx(1.57 - AJAR)
    assert hinge.extras["floorplan_joint"]["zero"] == AJAR
    assert _controllers(door) == []


def test_joint_positions_are_the_door_states(studio):
    # a joint position is the door's own angle: 1.5 is "open", 0 "closed"
    doc = build_document(studio)
    joints = doc.live.joints
    key = next(k for k in joints.joint_keys() if k.endswith("joint-hinge"))
    assert joints.limits(key) == (0.0, 1.57)
    for state, value in (("state-closed", 0.0), ("state-open", 1.5), ("state-ajar", 0.5)):
        joints.set_position(key, value)
        X = doc.live.poses.pose("door-instance-1::leaf")
        np.testing.assert_allclose(X, _object_in_world() @ _leaf_in_object(value), atol=1e-9,
                                   err_msg=state)
    joints.reset()


def test_the_start_state_is_shown_without_an_edit(studio):
    doc = build_document(studio)
    key = "door-instance-1::joint-hinge"
    assert start_positions(doc) == {key: AJAR}
    assert show_start_states(doc) == {key: AJAR}
    assert doc.live.joints.position(key) == AJAR
    np.testing.assert_allclose(doc.live.poses.pose("door-instance-1::leaf"),
                               _object_in_world() @ _leaf_in_object(AJAR), atol=1e-9)
    assert len(doc.commands) == 0
    # the document still holds the closed door
    leaf = doc.element("door-instance-1::leaf")
    np.testing.assert_allclose(leaf.pose.value.matrix(), _leaf_in_object(0.0), atol=1e-12)
    # a default door starts closed, at its position zero: nothing to move
    plan = load_jsonld(STUDIO / "jsonld")
    plan.doors.append(default_door(plan, "lab_hall"))
    closed = build_document(plan)
    assert start_positions(closed) == {} and show_start_states(closed) == {}


def test_a_default_door_hinges_on_the_world():
    plan = load_jsonld(STUDIO / "jsonld")
    plan.doors.append(default_door(plan, "lab_hall"))
    doc = build_document(plan)
    door = _model(doc, "lab_hall_door")
    (hinge,) = door.joints
    assert (hinge.type, hinge.parent_name, hinge.child_name) == ("revolute", "world", "leaf")
    assert (hinge.axes[0].lower, hinge.axes[0].upper) == (0.0, 1.57)
    (plugin,) = _controllers(door)                                     # starts closed
    assert plugin.xml.findtext("joint_name") == "hinge"
    assert float(plugin.xml.findtext("initial_position")) == 0.0
    assert not doc.diagnostics.has_errors()


def test_the_plan_as_one_model_for_an_include(studio):
    model = build_model(studio)
    assert model.name == "studio" and not model.static
    assert [m.name for m in model.models] == [BUILDING, "door-instance-1"]
    assert model.models[0].static


def test_a_written_world_reads_back(studio, tmp_path):
    from snapframe.core.loading import LoadContext, load
    doc = build_document(studio)
    out = tmp_path / "studio.sdf"
    doc.save(out, "sdformat", flatten=False)
    back = load(out, LoadContext(use_environment=False))
    assert not back.diagnostics.has_errors(), back.diagnostics.items
    back.live      # (the live checks too: a plugin's class name holds '::', no error)
    assert not back.diagnostics.has_errors(), back.diagnostics.items
    door = _model(back, "door-instance-1")
    leaf = next(link for link in door.links if link.name == "leaf")
    np.testing.assert_allclose(leaf.pose.value.matrix(), _leaf_in_object(0.0), atol=1e-9)
    (plugin,) = _controllers(door)
    assert plugin.filename == "gz-sim-joint-position-controller-system"
    assert float(plugin.xml.findtext("initial_position")) == AJAR
    building = _model(back, BUILDING)
    assert [f.name for f in building.frames] == ["lab_hall", "lab_win"]
    stls = sorted((tmp_path / "studio_meshes").glob("*.stl"))
    assert len(stls) == 11          # one per piece that is not a box


# -- libsdformat ----------------------------------------------------------------------------

def _oracle():
    from tests.plugins.composite_assemblies import oracle_binary
    binary, why = oracle_binary()
    if binary is None:
        pytest.skip(why)
    return binary


def _write(plan, path: Path) -> Path:
    doc = build_document(plan)
    doc.save(path, "sdformat", flatten=False)
    return path


@pytest.mark.oracle
def test_libsdformat_loads_the_studio_door_in_its_doorway_with_its_start_state(studio, tmp_path):
    from tests.plugins.composite_assemblies import run_oracle
    path = _write(studio, tmp_path / "studio.sdf")
    result = run_oracle(_oracle(), path)
    assert result["errors"] == []
    frames = result["frames"]
    assert frames["door-instance-1"]["kind"] == "model"
    assert frames["building::building"]["kind"] == "link"

    def pose(name):
        p = frames[name]["pose"]
        return Pose.from_xyz_quat(p[:3], p[3:]).matrix()

    X_WO = _object_in_world()
    np.testing.assert_allclose(pose("door-instance-1"), X_WO, atol=1e-9)
    np.testing.assert_allclose(pose("door-instance-1::leaf"), X_WO @ _leaf_in_object(0.0),
                               atol=1e-9)
    # the door model is posed in its doorway: its hinge and its lining stand inside the
    # lab_hall entryway's box
    opening = studio.openings["lab_hall"]
    local = (opening.points - opening.X_WF[:3, 3]) @ opening.X_WF[:3, :3]
    lo, hi = local.min(axis=0), local.max(axis=0)
    for name in ("door-instance-1::joint-hinge", "door-instance-1::lining"):
        p = (pose(name)[:3, 3] - opening.X_WF[:3, 3]) @ opening.X_WF[:3, :3]
        assert np.all(p >= lo) and np.all(p <= hi), name
    # and the entryway itself is a frame of the building, where the plan puts it
    assert frames["building::lab_hall"]["kind"] == "frame"
    np.testing.assert_allclose(pose("building::lab_hall"), opening.X_WF, atol=1e-9)

    binary, why = joints_binary()
    if binary is None:
        pytest.skip(why)
    joints = read_joints(binary, path)
    assert joints["errors"] == []
    hinge = joints["joints"]["door-instance-1::joint-hinge"]
    assert hinge["type"] == 6                                   # sdf::JointType::REVOLUTE
    assert (hinge["parent"], hinge["child"]) == ("lining", "leaf")
    assert hinge["axis"] == pytest.approx([0, 0, 1])
    assert (hinge["lower"], hinge["upper"]) == (0.0, 1.57)     # exactly as modelled
    anchor = joints["joints"]["door-instance-1::lining_to_world"]
    assert (anchor["type"], anchor["parent"], anchor["child"]) == (3, "world", "lining")

    # the start state (ajar, 0.5 rad) is the position controller's initial position
    tree = etree.parse(str(path))
    plugins = tree.xpath('/sdf/world/model[@name="door-instance-1"]/plugin')
    assert [(p.get("filename"), p.get("name")) for p in plugins] == [
        ("gz-sim-joint-position-controller-system",
         "gz::sim::systems::JointPositionController")]
    assert plugins[0].findtext("joint_name") == "joint-hinge"
    assert float(plugins[0].findtext("initial_position")) == AJAR


def _real_plans():
    from snapframe.plugins.floorplan.dsl import load_fpm
    for name in EXAMPLES:
        yield f"jsonld-{name}", lambda n=name: load_jsonld(JSONLD / n)
    for fpm in sorted((DATA / "fpm").glob("*.fpm")):
        yield f"fpm-{fpm.stem}", lambda f=fpm: load_fpm(f)
    yield "fpm-studio", lambda: load_fpm(STUDIO / "fpm" / "studio.fpm")
    # the bundled example, with the door of its flat.doors/ folder
    yield "example-flat", lambda: load_plan(BUNDLED / "flat.fpm")


@pytest.mark.oracle
@pytest.mark.parametrize("name,loader", list(_real_plans()), ids=[n for n, _ in _real_plans()])
def test_libsdformat_loads_every_real_example(name, loader, tmp_path):
    from tests.plugins.composite_assemblies import run_oracle
    plan = loader()
    given = [door.name for door in plan.doors]
    taken = {door.opening for door in plan.doors}
    free = [o.name for o in plan.openings.values() if o.kind == "entryway" and o.name not in taken]
    for opening in free:                            # and a default door in each free doorway
        plan.doors.append(default_door(plan, opening))
    path = _write(plan, tmp_path / f"{name}.sdf")
    result = run_oracle(_oracle(), path)
    assert result["errors"] == [], result["errors"][:3]
    frames = result["frames"]
    kinds = [f["kind"] for f in frames.values()]
    assert kinds.count("model") == 1 + len(given) + len(free)
    for door in given:
        assert frames[door]["kind"] == "model", door
    for opening in free:                            # a default door: one hinge on the world
        assert frames[f"{opening}_door::hinge"]["kind"] == "joint"
    if not given:
        assert kinds.count("joint") == len(free)
    assert "building::building" in frames
    # a frame per opening, at the opening's frame
    for opening in plan.openings.values():
        frame = result["frames"][f"building::{opening.name}"]
        assert frame["kind"] == "frame"
        X = Pose.from_xyz_quat(frame["pose"][:3], frame["pose"][3:]).matrix()
        np.testing.assert_allclose(X, opening.X_WF, atol=1e-9, err_msg=opening.name)
