"""SDFormat ``//include`` of a ``.mira`` file (the mirabuf custom model parser).

The expected poses are not written down from the reader's output: they are the poses the
links have when the ``.mira`` file is opened on its own, composed by hand with the
include's pose (an include places the included model's frame; the Dozer's model frame is
the identity, so each link's world pose is ``X_include @ X_alone``).
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from snapframe.core.diagnostics import Code
from snapframe.core.formats import registry as global_registry
from snapframe.core.loading import LoadContext, load
from snapframe.core.pose import Pose
from snapframe.plugins.mirabuf import FORMAT

DATA = Path(__file__).resolve().parents[2] / "data" / "mirabuf"
DOZER = "Dozer_v2.mira"
# The Dozer's links (the reader's rigid bodies: the chassis and six wheels).
DOZER_LINKS = 7


def context() -> LoadContext:
    return LoadContext(use_environment=False)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).strip() + "\n")
    return path


def poses(doc) -> dict[str, Pose]:
    return {f.name: f.pose for f in doc.frames.frames()}


@pytest.fixture(scope="module")
def alone() -> dict[str, Pose]:
    """Link name -> world pose of the Dozer opened on its own (model frame = world)."""
    doc = load(DATA / DOZER, context())
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    model = doc.root
    assert model.pose.value.almost_equal(Pose(), 0.0)
    all_poses = poses(doc)
    links = {link.name: all_poses[f"{model.name}::{link.name}"] for link in model.links}
    assert len(links) == DOZER_LINKS
    return links


def test_descriptor_is_an_include_parser():
    reg = global_registry.copy()
    assert FORMAT.can_include
    assert FORMAT in reg.include_parsers()
    assert reg.for_path("robot.MIRA") == FORMAT


@pytest.mark.parametrize("root", ["world", "model"])
def test_included_dozer_links_sit_at_the_include_pose(tmp_path, alone, root):
    shutil.copy(DATA / DOZER, tmp_path / DOZER)
    inner = ('<include><uri>file://Dozer_v2.mira</uri><name>dozer</name>'
             '<pose>1 0 0 0 0 0</pose></include>')
    if root == "world":
        text = f'<sdf version="1.9"><world name="w">{inner}</world></sdf>'
        prefix = "dozer::"
    else:
        text = f'<sdf version="1.9"><model name="top"><link name="base"/>{inner}</model></sdf>'
        prefix = "top::dozer::"
    doc = load(write(tmp_path, "scene.sdf", text), context())
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    inc, = doc.includes()
    assert inc.format == "mirabuf" and inc.effective_name == "dozer"
    assert inc.model is not None and inc.model.name == "Dozer_v2"  # the name is the include's
    got = poses(doc)
    X_include = Pose.translation(1, 0, 0)
    assert {n[len(prefix):] for n in got if n.startswith(prefix) and "::" not in n[len(prefix):]
            and n[len(prefix):] in alone} == set(alone)
    for name, X_alone in alone.items():
        expected = X_include @ X_alone
        assert got[prefix + name].almost_equal(expected, 1e-9), (name, got[prefix + name],
                                                                  expected)


def test_a_rotated_include_composes_rotation_and_translation(tmp_path, alone):
    shutil.copy(DATA / DOZER, tmp_path / DOZER)
    path = write(tmp_path, "w.sdf", f"""
        <sdf version="1.9"><world name="w">
          <include><uri>{DOZER}</uri><name>d</name>
            <pose>0 2 0.5 0 0 {math.pi / 2!r}</pose></include>
        </world></sdf>""")
    doc = load(path, context())
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    got = poses(doc)
    # Yaw 90 degrees: (x, y, z) -> (-y, x, z), then shifted by (0, 2, 0.5).
    for name, X_alone in alone.items():
        x, y, z = X_alone.p
        assert tuple(got[f"d::{name}"].p) == pytest.approx((-y, x + 2, z + 0.5), abs=1e-9)
        expected = Pose.from_xyz_rpy(0, 2, 0.5, 0, 0, math.pi / 2) @ X_alone
        assert got[f"d::{name}"].almost_equal(expected, 1e-9)


def test_two_includes_of_one_file_share_its_parsed_model(tmp_path, alone):
    shutil.copy(DATA / DOZER, tmp_path / DOZER)
    path = write(tmp_path, "w.sdf", f"""
        <sdf version="1.9"><world name="w">
          <include><uri>file://{DOZER}</uri><name>dozer</name><pose>1 0 0 0 0 0</pose></include>
          <include><uri>{DOZER}</uri><name>twin</name><pose>-1 0 0 0 0 0</pose></include>
        </world></sdf>""")
    doc = load(path, context())
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    a, b = doc.includes()
    assert a.model is b.model  # one parse per file
    assert all(x is y for x, y in zip(a.model.links, b.model.links))
    # The in-memory meshes are shared too (one MeshData per part body).
    meshes = {id(v.geometry.params["data"]) for link in a.model.links for v in link.visuals
              if v.geometry.params.get("data") is not None}
    assert len(meshes) == 10   # the Dozer's bodies with a mesh (tests/data/mirabuf/README.md)
    got = poses(doc)
    for name, X_alone in alone.items():
        assert got[f"dozer::{name}"].almost_equal(Pose.translation(1, 0, 0) @ X_alone, 1e-9)
        assert got[f"twin::{name}"].almost_equal(Pose.translation(-1, 0, 0) @ X_alone, 1e-9)


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, t in enumerate(path.read_text().splitlines(), 1) if needle in t)


@pytest.mark.parametrize("content", [
    b"this is not a mirabuf assembly \x01\x02\x03\xff",
    b"\x1f\x8b\x08\x00truncated gzip",
    b"",
])
def test_a_corrupt_mira_include_is_an_error_at_the_include(tmp_path, content):
    (tmp_path / "bad.mira").write_bytes(content)
    path = write(tmp_path, "w.sdf", """
        <sdf version="1.9"><world name="w">
          <model name="kept"><link name="l"/></model>
          <include><uri>bad.mira</uri><name>b</name></include>
        </world></sdf>""")
    doc = load(path, context())
    errors = doc.diagnostics.errors
    assert errors, "a corrupt include must be reported"
    first = errors[0]
    assert first.code == Code.FILE_READ
    assert (first.file, first.line) == (str(path), _line_of(path, "bad.mira"))
    assert str(tmp_path / "bad.mira") in first.message
    inc, = doc.includes()
    assert inc.model is None and inc.format == "mirabuf"
    assert "kept::l" in poses(doc)  # the rest of the world still loads


def test_a_missing_mira_include_is_an_error_at_the_include(tmp_path):
    path = write(tmp_path, "w.sdf", """
        <sdf version="1.9"><world name="w">
          <include><uri>file://missing.mira</uri><name>m</name></include>
        </world></sdf>""")
    doc = load(path, context())
    first = doc.diagnostics.errors[0]
    assert first.code == Code.URI_LOOKUP and "missing.mira" in first.message
    assert (first.file, first.line) == (str(path), _line_of(path, "missing.mira"))
    assert doc.includes()[0].model is None


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "snapframe.editor.cli", *args],
                          capture_output=True, text=True, timeout=300)


def test_cli_check_and_flattened_convert(tmp_path):
    shutil.copy(DATA / DOZER, tmp_path / DOZER)
    path = write(tmp_path, "w.sdf", f"""
        <sdf version="1.9"><world name="w">
          <include><uri>file://{DOZER}</uri><name>dozer</name><pose>1 0 0 0 0 0</pose></include>
          <include><uri>{DOZER}</uri><name>twin</name><pose>-1 0 0 0 0 0</pose></include>
        </world></sdf>""")
    p = _cli("check", str(path))
    assert p.returncode == 0, p.stdout + p.stderr
    out = tmp_path / "out"
    out.mkdir()
    flat = out / "flat.sdf"
    p = _cli("convert", "--flatten", str(path), str(flat))
    assert p.returncode == 0, p.stdout + p.stderr
    # One STL file per mesh body the Dozer holds (10 of its 11 bodies have a mesh), written
    # once although two includes use them.
    stls = sorted((out / "flat_meshes").glob("*.stl"))
    assert len(stls) == 10, stls
    text = flat.read_text()
    assert "<include>" not in text and "mirabuf://" not in text
    for stl in stls:
        assert f"flat_meshes/{stl.name}" in text
    p = _cli("check", str(flat))
    assert p.returncode == 0, p.stdout + p.stderr
    # The flattened file puts the links where the include did.
    a = poses(load(path, context()))
    b = poses(load(flat, context()))
    for name in [n for n in a if n.startswith(("dozer::", "twin::"))]:
        assert b[name].almost_equal(a[name], 1e-9), name
