"""Doors next to a ``.fpm``: the door JSON-LD files of ``<stem>.doors/`` (or named by the
caller) posed against the frames of the plan the DSL reader builds.

Expected values come from the JSON-LD path: the same studio door files read inside the
studio's generated JSON-LD folder (tests/data/floorplan/studio, see its README), and the
frames of the JSON-LD FloorPlan-DSL generated for every example.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.loading import LoadContext, load
from snapframe.plugins.floorplan.door_files import (doors_folder, plan_base, plan_frames,
                                                    read_plan_doors)
from snapframe.plugins.floorplan.dsl import load_fpm
from snapframe.plugins.floorplan.errors import FloorPlanError
from snapframe.plugins.floorplan.format import load_plan, read
from snapframe.plugins.floorplan.jsonld import load_jsonld, read_graph
from snapframe.plugins.floorplan.linked_data import GEOM
from snapframe.plugins.floorplan.poses import PoseGraph
from tests.plugins.floorplan.jsonld_cases import DATA, JSONLD, STUDIO, studio_with_door

TOL = 1e-6
DOOR_FILES = STUDIO / "door-jsonld"
PAIRS = {name: (DATA / "fpm" / f"{name}.fpm", JSONLD / name)
         for name in ("square", "hospital", "kitchen", "office", "hbrs")}
PAIRS["studio"] = (STUDIO / "fpm" / "studio.fpm", STUDIO / "jsonld")


@pytest.fixture(scope="module")
def by_jsonld(tmp_path_factory):
    """The studio with its door, read by the JSON-LD path."""
    return load_jsonld(studio_with_door(tmp_path_factory.mktemp("ld")))


def _fpm_with_doors(tmp: Path) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    fpm = tmp / "studio.fpm"
    shutil.copy(STUDIO / "fpm" / "studio.fpm", fpm)
    shutil.copytree(DOOR_FILES, tmp / "studio.doors")
    return fpm


def _same_door(a, b) -> None:
    assert (a.name, a.state_name, a.positions, a.opening) == \
        (b.name, b.state_name, b.positions, b.opening)
    np.testing.assert_allclose(a.X_WO, b.X_WO, atol=TOL, rtol=0)
    assert [link.name for link in a.object.links] == [link.name for link in b.object.links]
    for la, lb in zip(a.object.links, b.object.links):
        np.testing.assert_allclose(la.X_OL, lb.X_OL, atol=TOL, rtol=0, err_msg=la.name)
        np.testing.assert_allclose(la.size, lb.size, atol=TOL, rtol=0, err_msg=la.name)
    for ja, jb in zip(a.object.joints, b.object.joints):
        assert (ja.name, ja.type, ja.parent, ja.child, ja.lower, ja.upper) == \
            (jb.name, jb.type, jb.parent, jb.child, jb.lower, jb.upper)
        np.testing.assert_allclose(ja.X_OJ, jb.X_OJ, atol=TOL, rtol=0)
    assert a.object.states == b.object.states


def test_the_doors_folder_is_named_after_the_plan():
    assert doors_folder(Path("/x/flat.fpm")) == Path("/x/flat.doors")
    assert plan_base(load_fpm(STUDIO / "fpm" / "studio.fpm")) == \
        "https://secorolab.github.io/models/floorplan/studio/"


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_dsl_plan_frames_are_the_generated_json_ld_frames(name):
    # every frame FloorPlan-DSL's JSON-LD defines, under the same id, at the same pose
    fpm, folder = PAIRS[name]
    plan = load_fpm(fpm)
    graph, _ = read_graph(folder)
    base = plan_base(plan)
    graph.base = base
    ld_frames = {graph.name(n.iri) for n in graph.of_type(GEOM + "Frame")}
    ours = plan_frames(plan)
    assert set(ours) == ld_frames
    poses = PoseGraph(graph)
    for frame, X in ours.items():
        np.testing.assert_allclose(X, poses.pose_in(base + frame, base + "world-frame"),
                                   atol=TOL, rtol=0, err_msg=frame)


def test_a_fpm_reads_the_door_files_beside_it(tmp_path, by_jsonld):
    plan = load_plan(_fpm_with_doors(tmp_path))
    assert len(plan.doors) == 1
    door = plan.doors[0]
    # where the JSON-LD path puts it: world (-1.075, -2.15, 0), yaw 180 deg, in lab_hall
    _same_door(door, by_jsonld.doors[0])
    np.testing.assert_allclose(door.X_WO[:3, 3], (-1.075, -2.15, 0.0), atol=TOL)
    assert door.opening == "lab_hall"


def test_door_files_named_by_the_caller(tmp_path, by_jsonld):
    fpm = STUDIO / "fpm" / "studio.fpm"
    assert load_plan(fpm).doors == []            # nothing beside it in tests/data
    files = sorted(DOOR_FILES.glob("*.json"))
    plan = load_plan(fpm, doors=files)
    _same_door(plan.doors[0], by_jsonld.doors[0])
    plan = load_fpm(fpm)
    (door,) = read_plan_doors(plan, DOOR_FILES)
    _same_door(door, by_jsonld.doors[0])
    # and an empty list reads no doors, even with a doors folder beside the plan
    assert load_plan(_fpm_with_doors(tmp_path), doors=[]).doors == []


def test_the_opened_fpm_is_the_world_of_the_json_ld_folder(tmp_path):
    fpm = _fpm_with_doors(tmp_path / "a")
    folder = studio_with_door(tmp_path / "b")
    a, b = read(fpm), read(folder)
    assert not a.diagnostics.has_errors(), [d.format() for d in a.diagnostics.errors]
    assert [m.name for m in a.root.models] == [m.name for m in b.root.models] == \
        ["building", "door-instance-1"]
    frames_a = {f.name: f.pose.matrix() for f in a.frames.frames()}
    frames_b = {f.name: f.pose.matrix() for f in b.frames.frames()}
    for name in ("door-instance-1", "door-instance-1::leaf", "door-instance-1::joint-hinge",
                 "building::lab_hall"):
        np.testing.assert_allclose(frames_a[name], frames_b[name], atol=TOL, err_msg=name)


def test_convert_a_fpm_with_its_doors(tmp_path):
    fpm = _fpm_with_doors(tmp_path)
    out = tmp_path / "out" / "studio.sdf"
    done = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "convert", str(fpm),
                           str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    back = load(out, LoadContext(use_environment=False))
    assert not back.diagnostics.has_errors()
    assert [m.name for m in back.root.models] == ["building", "door-instance-1"]


def test_a_folder_named_like_the_plan_is_not_read(tmp_path):
    # FloorPlan-DSL writes a plan's JSON-LD to a folder named after it: not door files
    shutil.copy(STUDIO / "fpm" / "studio.fpm", tmp_path / "studio.fpm")
    shutil.copytree(STUDIO / "jsonld", tmp_path / "studio")
    shutil.copytree(DOOR_FILES, tmp_path / "studio" / "doors")
    plan = load_plan(tmp_path / "studio.fpm")
    assert plan.doors == []


# -- errors -----------------------------------------------------------------------------

def _instance(folder: Path) -> Path:
    return folder / "object-door-instance-1.json"


def _edit_instance(tmp_path: Path, old: str, new: str) -> tuple[Path, Path]:
    fpm = _fpm_with_doors(tmp_path)
    path = _instance(tmp_path / "studio.doors")
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return fpm, path


def test_a_frame_the_plan_does_not_have_is_an_error_naming_the_pose(tmp_path):
    fpm, path = _edit_instance(tmp_path, '"with-respect-to": "fpm:lab-wall-2-frame"',
                               '"with-respect-to": "fpm:lab-wall-9-frame"')
    with pytest.raises(FloorPlanError) as caught:
        load_plan(fpm)
    error = caught.value
    assert Path(error.file) == path and error.element == "pose-location-door-1"
    assert "names the frame lab-wall-9-frame, which no file defines" in error.message
    assert "lab-wall-2-frame" in error.message          # the plan's frames are listed
    # read() makes it a diagnostic naming the file, never an exception
    doc = read(fpm)
    (diagnostic,) = doc.diagnostics.errors
    assert Path(diagnostic.file) == path and "lab-wall-9-frame" in diagnostic.message


def test_a_frame_of_another_base_gets_a_hint(tmp_path):
    fpm, _ = _edit_instance(tmp_path, '"fpm": "https://secorolab.github.io/models/floorplan/studio/"',
                            '"fpm": "https://example.org/plans/studio/"')
    with pytest.raises(FloorPlanError, match=r"names its frames https://secorolab\.github\.io/"
                       r"models/floorplan/studio/<id>"):
        load_plan(fpm)


def test_a_floor_plan_among_the_door_files_is_refused(tmp_path):
    fpm = _fpm_with_doors(tmp_path)
    shutil.copy(STUDIO / "jsonld" / "floorplan.json", tmp_path / "studio.doors")
    with pytest.raises(FloorPlanError, match="only door models are read") as caught:
        load_plan(fpm)
    assert Path(caught.value.file).name == "floorplan.json"


def test_malformed_door_json_names_file_and_line(tmp_path):
    fpm = _fpm_with_doors(tmp_path)
    path = _instance(tmp_path / "studio.doors")
    path.write_text('{\n  "@context": [\n    "x",\n  ]\n}\n')
    doc = read(fpm)
    (diagnostic,) = doc.diagnostics.errors
    assert (Path(diagnostic.file), diagnostic.line) == (path, 4)
    assert "malformed JSON" in diagnostic.message


def test_a_door_placed_in_another_world_is_refused(tmp_path):
    fpm, path = _edit_instance(tmp_path, '"world": "fpm:studio"', '"world": "fpm:elsewhere"')
    with pytest.raises(FloorPlanError, match="placed in the world elsewhere") as caught:
        load_plan(fpm)
    assert Path(caught.value.file) == path
    json.loads(path.read_text())      # (the file itself is well-formed)
