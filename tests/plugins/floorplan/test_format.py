"""The floorplan format: registration, ``snapframe check``/``convert`` on JSON-LD folders
and ``.fpm`` files, and an SDFormat ``//include`` naming a floor plan.

Include poses are checked by composition by hand: a link of the included plan sits at
``X_include @ X_alone``, its pose when the plan is opened on its own.
"""
from __future__ import annotations

import math
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.diagnostics import Code
from snapframe.core.formats import registry
from snapframe.core.loading import LoadContext, load
from snapframe.core.pose import Pose
from snapframe.plugins.floorplan import FORMAT
from tests.plugins.floorplan.jsonld_cases import DATA, JSONLD, STUDIO, copy_example, studio_with_door


def _context() -> LoadContext:
    return LoadContext(use_environment=False)


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "snapframe.editor.cli", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def test_the_format_claims_fpm_files_and_json_ld_folders(tmp_path):
    assert registry.get("floorplan") is not None and FORMAT.can_include
    folder = JSONLD / "hospital"
    for path in (folder, folder / "floorplan.json", DATA / "fpm" / "hospital.fpm"):
        found = registry.for_path(path)
        assert found is not None and found.name == "floorplan", path
    assert registry.for_path(folder / "skeleton.json") is None
    (tmp_path / "plain").mkdir()
    assert registry.for_path(tmp_path / "plain") is None
    assert FORMAT in registry.include_parsers() or \
        "floorplan" in [d.name for d in registry.include_parsers()]


def test_a_json_ld_folder_opens_as_a_world(tmp_path):
    doc = load(studio_with_door(tmp_path), _context())
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    assert doc.format == "floorplan" and doc.is_world
    assert [m.name for m in doc.root.models] == ["building", "door-instance-1"]
    frames = {f.name: f for f in doc.frames.frames()}
    assert "door-instance-1::joint-hinge" in frames


def test_check_and_convert_a_json_ld_folder(tmp_path):
    folder = studio_with_door(tmp_path)
    checked = _cli("check", str(folder))
    assert checked.returncode == 0, checked.stderr
    out = tmp_path / "out" / "studio.sdf"
    done = _cli("convert", str(folder) + "/", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert '<model name="door-instance-1">' in text and 'type="revolute"' in text
    assert len(list((tmp_path / "out" / "studio_meshes").glob("*.stl"))) == 11  # not boxes
    # the converted file is an SDFormat world Snapframe reads again
    back = load(out, _context())
    assert not back.diagnostics.has_errors()
    # and floorplan.json stands for its folder
    done = _cli("convert", str(folder / "floorplan.json"), str(tmp_path / "again.sdf"))
    assert done.returncode == 0, done.stderr


def test_convert_an_fpm_file(tmp_path):
    out = tmp_path / "studio.sdf"
    done = _cli("convert", str(STUDIO / "fpm" / "studio.fpm"), str(out))
    assert done.returncode == 0, done.stderr
    back = load(out, _context())
    assert not back.diagnostics.has_errors()
    building = next(m for m in back.root.models if m.name == "building")
    assert building.static and len(building.links[0].visuals) == 18


def test_check_reports_malformed_json_with_file_and_line(tmp_path):
    folder = copy_example(tmp_path, "square")
    (folder / "shape.json").write_text('{\n  "@context": [\n    "x",\n  ]\n}\n')
    done = _cli("check", str(folder))
    assert done.returncode == 1
    assert f"{folder / 'shape.json'}:4: error FILE_READ: malformed JSON" in done.stdout


def test_check_reports_an_unknown_context_by_url(tmp_path):
    done = _cli("check", str(DATA / "fpm-v1" / "hbrs-jsonld-v1" / "floorplan.json"))
    # a v1 folder has a floorplan.json: it is ours to read, and it names v1 contexts
    assert done.returncode == 1
    assert "unknown JSON-LD context https://hbrs-sesame.github.io/" in done.stdout


def test_a_folder_without_floorplan_json_is_not_a_floor_plan(tmp_path):
    folder = copy_example(tmp_path, "square")
    (folder / "floorplan.json").unlink()
    doc = load(folder, _context())
    assert doc.diagnostics.has_errors()


# -- //include -------------------------------------------------------------------------------

def _world(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "world.sdf"
    path.write_text(textwrap.dedent(f"""\
        <?xml version="1.0"?>
        <sdf version="1.9">
          <world name="w">
        {textwrap.indent(textwrap.dedent(body).strip(), "    ")}
          </world>
        </sdf>
        """))
    return path


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """Frame name -> world pose of the studio with its door opened on its own."""
    folder = studio_with_door(tmp_path_factory.mktemp("alone"))
    doc = load(folder, _context())
    return {f.name: f.pose for f in doc.frames.frames()}


def test_a_world_includes_a_json_ld_folder_and_an_fpm_file(tmp_path, alone):
    studio_with_door(tmp_path)
    shutil.copy(STUDIO / "fpm" / "studio.fpm", tmp_path / "plan.fpm")
    path = _world(tmp_path, """
        <include>
          <uri>studio</uri>
          <name>site</name>
          <pose>10 0 0 0 0 1.5707963267948966</pose>
        </include>
        <include>
          <uri>plan.fpm</uri>
          <name>copy</name>
          <pose>0 20 0 0 0 0</pose>
        </include>
        """)
    doc = load(path, _context())
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    include = doc.root.includes[0]
    assert include.format == "floorplan" and include.resolved_path.endswith("floorplan.json")
    assert [m.name for m in include.model.models] == ["building", "door-instance-1"]
    frames = {f.name: f.pose for f in doc.frames.frames()}
    X_include = Pose.from_xyz_rpy(10, 0, 0, 0, 0, math.pi / 2).matrix()
    for name in ("door-instance-1::leaf", "door-instance-1::lining", "building::building"):
        np.testing.assert_allclose(frames[f"site::{name}"].matrix(),
                                   X_include @ alone[name].matrix(), atol=1e-9, err_msg=name)
    np.testing.assert_allclose(frames["copy::building::building"].matrix()[:3, 3], (0, 20, 0),
                               atol=1e-9)


def test_a_broken_included_plan_is_an_error_at_the_include(tmp_path):
    folder = copy_example(tmp_path, "square")
    (folder / "coordinate.json").unlink()
    path = _world(tmp_path, "<include><uri>square</uri></include>")
    doc = load(path, _context())
    errors = doc.diagnostics.errors
    assert errors and errors[0].code == Code.FILE_READ
    assert "coordinate" in errors[0].message and str(folder) in errors[0].file
    assert doc.root.includes[0].model is None
