"""Bad JSON-LD is a FloorPlanError naming the file and the element, never a crash.

Each case edits a copy of a real generated folder the way a broken export or a hand edit
would break it.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from snapframe.plugins.floorplan.errors import FloorPlanError
from snapframe.plugins.floorplan.jsonld import load_jsonld
from tests.plugins.floorplan.jsonld_cases import JSONLD, copy_example


def _edit(path: Path, change) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document, indent=2))


def _graph(document: dict) -> list[dict]:
    return document["@graph"]


def _error(folder: Path) -> FloorPlanError:
    with pytest.raises(FloorPlanError) as caught:
        load_jsonld(folder)
    return caught.value


def test_malformed_json_gives_line_and_column(tmp_path):
    folder = copy_example(tmp_path, "square")
    text = (folder / "skeleton.json").read_text().splitlines()
    text[5] = text[5] + ","          # a stray comma inside the @context object
    (folder / "skeleton.json").write_text("\n".join(text))
    error = _error(folder)
    assert error.file == str(folder / "skeleton.json")
    assert error.line is not None and error.line >= 6 and error.column is not None
    assert "malformed JSON" in error.message
    assert f"{folder / 'skeleton.json'}:{error.line}:{error.column}" in str(error)


def test_not_a_json_ld_document(tmp_path):
    folder = copy_example(tmp_path, "square")
    (folder / "shape.json").write_text("42")
    error = _error(folder)
    assert error.file == str(folder / "shape.json") and "JSON-LD" in error.message


def test_missing_coordinates_break_the_chain(tmp_path):
    folder = copy_example(tmp_path, "square")
    (folder / "coordinate.json").unlink()
    error = _error(folder)
    assert "coordinate" in error.message
    assert error.element and error.file and Path(error.file).parent == folder


def test_a_missing_pose_of_a_wall_frame_names_the_wall(tmp_path):
    folder = copy_example(tmp_path, "square")
    _edit(folder / "spatial_relations.json", lambda d: d.update({"@graph": [
        n for n in _graph(d) if n["@id"] != "pose-my_room-wall-1-frame-wrt-my_room-frame"]}))
    error = _error(folder)
    assert "my_room-wall-1-frame" in error.message and "not connected" in error.message
    assert error.element == "my_room-wall-1"
    assert error.file == str(folder / "floorplan.json")


def test_dangling_id_names_the_referring_node(tmp_path):
    folder = copy_example(tmp_path, "square")
    # the frame the pose of wall 2 names no longer exists
    _edit(folder / "skeleton.json", lambda d: d.update({"@graph": [
        n for n in _graph(d) if n["@id"] != "my_room-wall-2-frame"]}))
    error = _error(folder)
    assert error.file == str(folder / "spatial_relations.json")
    assert error.element == "pose-my_room-wall-2-frame-wrt-my_room-frame"
    assert "my_room-wall-2-frame" in error.message and "not defined" in error.message


def test_a_wall_the_space_lists_but_no_file_defines(tmp_path):
    folder = copy_example(tmp_path, "square")

    def drop_wall(d):
        d["@graph"] = [n for n in _graph(d) if n["@id"] != "my_room-wall-3"]
    _edit(folder / "floorplan.json", drop_wall)
    error = _error(folder)
    assert error.file == str(folder / "floorplan.json") and error.element == "my_room"
    assert "my_room-wall-3" in error.message


def _pose_hallway_in_world(folder: Path, x: float) -> None:
    """Add a second pose of hallway-frame: directly in the world frame, at ``x``."""
    def relation(d):
        d["@graph"].append({"@id": "pose-hallway-frame-wrt-world-frame", "@type": "Pose",
                            "of": "hallway-frame", "with-respect-to": "world-frame"})

    def coordinate(d):
        d["@graph"].append({
            "@id": "coord-pose-hallway-frame-wrt-world-frame",
            "@type": ["PoseReference", "PoseCoordinate", "VectorXYZ", "EulerAngles"],
            "of-pose": "pose-hallway-frame-wrt-world-frame", "as-seen-by": "world-frame",
            "unit": ["M", "RAD"], "x": x, "y": 4.49, "z": 0.0,
            "alpha": 0.7853981633974483})
    _edit(folder / "spatial_relations.json", relation)
    _edit(folder / "coordinate.json", coordinate)


def test_a_loop_of_poses_that_closes_is_fine(tmp_path):
    # The hallway is placed through reception.walls[0]; posing its frame in the world as
    # well, where that chain puts it, closes a loop of poses consistently.
    reference = load_jsonld(JSONLD / "hospital").spaces["hallway"].X_WF
    folder = copy_example(tmp_path, "hospital")
    _pose_hallway_in_world(folder, 0.0)
    _edit(folder / "coordinate.json", lambda d: [n.update(
        {"x": float(reference[0, 3]), "y": float(reference[1, 3]),
         "alpha": float(np.arctan2(reference[1, 0], reference[0, 0]))})
        for n in _graph(d) if n["@id"] == "coord-pose-hallway-frame-wrt-world-frame"])
    plan = load_jsonld(folder)
    np.testing.assert_allclose(plan.spaces["hallway"].X_WF, reference, atol=1e-9)


def test_a_loop_of_poses_that_does_not_close(tmp_path):
    folder = copy_example(tmp_path, "hospital")
    _pose_hallway_in_world(folder, 3.0)
    error = _error(folder)
    assert "inconsistent" in error.message and "cycle" in error.message
    assert error.file == str(folder / "spatial_relations.json")
    assert error.element.startswith("pose-hallway")


def test_two_frames_posed_relative_to_each_other_only(tmp_path):
    # wall 1's frame posed in wall 3's and wall 3's in wall 1's, both cut off from the room
    folder = copy_example(tmp_path, "square")

    def swap(d):
        for n in _graph(d):
            if n["@id"] == "pose-my_room-wall-1-frame-wrt-my_room-frame":
                n["with-respect-to"] = "my_room-wall-3-frame"
            if n["@id"] == "pose-my_room-wall-3-frame-wrt-my_room-frame":
                n["of"], n["with-respect-to"] = "my_room-wall-3-frame", "my_room-wall-1-frame"
    _edit(folder / "spatial_relations.json", swap)
    error = _error(folder)
    assert "not connected" in error.message and error.element == "my_room-wall-1"


def test_points_positioned_in_a_cycle(tmp_path):
    folder = copy_example(tmp_path, "square")

    def cycle(d):
        for n in _graph(d):
            if n["@id"] == "position-my_room-corner-0-wrt-my_room-frame":
                n["with-respect-to"] = "my_room-corner-1"
            if n["@id"] == "position-my_room-corner-1-wrt-my_room-frame":
                n["with-respect-to"] = "my_room-corner-0"
    _edit(folder / "spatial_relations.json", cycle)
    error = _error(folder)
    assert "cycle" in error.message and "my_room-corner-0" in error.message
    assert error.file == str(folder / "floorplan.json") and error.element == "my_room"


def test_no_floor_plan_node(tmp_path):
    folder = copy_example(tmp_path, "square")
    (folder / "floorplan.json").unlink()
    error = _error(folder)
    assert "no FloorPlan" in error.message and error.file == str(folder)


def test_two_floor_plans_at_once(tmp_path):
    with pytest.raises(FloorPlanError) as caught:
        load_jsonld([JSONLD / "square", JSONLD / "kitchen"])
    assert "2 FloorPlan nodes" in caught.value.message


def test_a_missing_folder_or_an_empty_one(tmp_path):
    with pytest.raises(FloorPlanError) as caught:
        load_jsonld(tmp_path / "nowhere")
    assert caught.value.file == str(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FloorPlanError) as caught:
        load_jsonld(tmp_path / "empty")
    assert "no JSON-LD files" in caught.value.message


def test_a_fifo_is_refused_not_waited_for(tmp_path):
    import os
    folder = copy_example(tmp_path, "square")
    (folder / "shape.json").unlink()
    os.mkfifo(folder / "shape.json")
    error = _error(folder)
    assert error.file == str(folder / "shape.json") and "FIFO" in error.message


def test_a_wrong_number_names_the_element(tmp_path):
    folder = copy_example(tmp_path, "square")

    def bad(d):
        for n in _graph(d):
            if n["@id"] == "my_room-wall-0":
                n["height"] = "tall"
    _edit(folder / "floorplan.json", bad)
    error = _error(folder)
    assert error.element == "my_room-wall-0" and "height" in error.message


# -- coordinates written otherwise: the same plan -------------------------------------------

def _reception_pose(folder: Path, **values) -> None:
    def change(d):
        for n in _graph(d):
            if n["@id"] == "coord-pose-reception-frame-wrt-world-frame":
                n.update(values)
    _edit(folder / "coordinate.json", change)


def _same_plan(a, b) -> None:
    for name, wall in a.walls.items():
        np.testing.assert_allclose(b.walls[name].points, wall.points, atol=1e-9, err_msg=name)
    for name, opening in a.openings.items():
        np.testing.assert_allclose(b.openings[name].X_WF, opening.X_WF, atol=1e-9)


def test_centimetres_and_degrees_are_converted(tmp_path):
    folder = copy_example(tmp_path, "hospital")
    _reception_pose(folder, unit=["CentiM", "DEG"], x=1000.0, y=500.0, alpha=45.0)
    _same_plan(load_jsonld(JSONLD / "hospital"), load_jsonld(folder))


def test_a_pose_seen_by_the_posed_frame(tmp_path):
    # The reception frame's offset (10, 5) in the world, seen by the reception frame
    # itself (turned 45 deg): (10 c + 5 s, -10 s + 5 c) with c = s = cos 45 deg.
    folder = copy_example(tmp_path, "hospital")
    c = s = math.cos(math.radians(45))
    _reception_pose(folder, **{"as-seen-by": "reception-frame", "x": 10 * c + 5 * s,
                               "y": -10 * s + 5 * c})
    _same_plan(load_jsonld(JSONLD / "hospital"), load_jsonld(folder))


def test_a_pose_seen_by_a_third_frame_is_refused(tmp_path):
    folder = copy_example(tmp_path, "hospital")
    _reception_pose(folder, **{"as-seen-by": "hallway-frame"})
    error = _error(folder)
    assert error.element == "coord-pose-reception-frame-wrt-world-frame"
    assert error.file == str(folder / "coordinate.json")


def test_an_unknown_unit_is_refused(tmp_path):
    folder = copy_example(tmp_path, "hospital")
    _reception_pose(folder, unit=["FT", "RAD"])
    error = _error(folder)
    assert "unknown unit http://qudt.org/vocab/unit/FT" in error.message
    assert error.element == "coord-pose-reception-frame-wrt-world-frame"


def test_invalid_json_ld_is_an_error_not_a_crash(tmp_path):
    folder = copy_example(tmp_path, "square")
    _edit(folder / "shape.json", lambda d: d["@context"].append({"@version": 2.0}))
    error = _error(folder)
    assert error.file == str(folder / "shape.json") and "invalid JSON-LD" in error.message
