"""Save As elsewhere rebases an include URI only when it named its file relative to the
document: a bare or ``model://`` URI found on a search path works as written from any
folder (libsdformat looks relative URIs up on its search paths the same way)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lxml import etree

from snapframe.core.loading import LoadContext, load

REAL = Path(__file__).resolve().parents[1] / "data" / "sdformat_real" / "sdformat" / "test"
MODELS = REAL / "integration" / "model"


def _uris(path: Path) -> list[str]:
    tree = etree.parse(str(path), etree.XMLParser(recover=True))  # (undeclared prefixes)
    return [(u.text or "").strip() for u in tree.iter("uri") if u.getparent().tag == "include"]


def _frames(path: Path, search: list[Path]) -> dict:
    doc = load(path, LoadContext(search_paths=search, use_environment=False))
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics.errors]
    return {f.name: f.pose for f in doc.frames.frames()}


def test_a_uri_found_on_the_search_path_is_not_rebased(tmp_path):
    # /tmp/review8/repro/rebase: `convert src/top.sdf out/top.sdf --path lib` wrote
    # <uri>../src/mymodel</uri>, a folder that does not exist.
    (tmp_path / "src").mkdir()
    (tmp_path / "out").mkdir()
    model = tmp_path / "lib" / "mymodel"
    model.mkdir(parents=True)
    (model / "model.config").write_text("<model><sdf version='1.9'>model.sdf</sdf></model>")
    (model / "model.sdf").write_text('<?xml version="1.0"?>\n<sdf version="1.9">'
                                     '<model name="mymodel"><link name="l"/></model></sdf>\n')
    (tmp_path / "src" / "top.sdf").write_text(
        '<?xml version="1.0"?>\n<sdf version="1.9"><model name="top"><link name="base"/>'
        "<include><uri>mymodel</uri><pose>1 0 0 0 0 0</pose></include></model></sdf>\n")
    search = [tmp_path / "lib"]
    doc = load(tmp_path / "src" / "top.sdf", LoadContext(search_paths=search,
                                                         use_environment=False))
    doc.save(tmp_path / "out" / "top.sdf", flatten=False)
    assert _uris(tmp_path / "out" / "top.sdf") == ["mymodel"]
    written = _frames(tmp_path / "out" / "top.sdf", search)
    for name, X in _frames(tmp_path / "src" / "top.sdf", search).items():
        assert written[name].almost_equal(X, 1e-12), name


def test_a_uri_relative_to_the_document_is_still_rebased(tmp_path):
    (tmp_path / "src" / "parts").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    (tmp_path / "src" / "parts" / "arm.sdf").write_text(
        '<?xml version="1.0"?>\n<sdf version="1.9"><model name="arm"><link name="l"/>'
        "</model></sdf>\n")
    (tmp_path / "src" / "top.sdf").write_text(
        '<?xml version="1.0"?>\n<sdf version="1.9"><model name="top"><link name="base"/>'
        "<include><uri>parts/arm.sdf</uri></include>"
        "<include><uri>file://parts/arm.sdf</uri><name>arm2</name></include></model></sdf>\n")
    doc = load(tmp_path / "src" / "top.sdf", LoadContext(use_environment=False))
    doc.save(tmp_path / "out" / "top.sdf", flatten=False)
    assert _uris(tmp_path / "out" / "top.sdf") == ["../src/parts/arm.sdf",
                                                   "file://../src/parts/arm.sdf"]
    assert set(_frames(tmp_path / "out" / "top.sdf", [])) == \
        {"top", "top::base", "top::arm", "top::arm::l", "top::arm2", "top::arm2::l"}


@pytest.mark.parametrize("rel", ["integration/include_custom_model.sdf", "sdf/includes.sdf",
                                 "sdf/includes_1.5.sdf", "sdf/whitespace.sdf"])
def test_libsdformat_files_keep_their_search_path_uris_on_save_as(tmp_path, rel):
    # libsdformat's own files, whose bare URIs (robot, test_model, test_light...) are found
    # with --path .../integration/model (as libsdformat's tests load them).
    src = REAL / rel
    work = tmp_path / "src"
    work.mkdir()
    shutil.copy(src, work)
    search = [MODELS]
    doc = load(work / src.name, LoadContext(search_paths=search, use_environment=False))
    assert not doc.diagnostics.has_errors()
    out = tmp_path / "elsewhere" / src.name
    out.parent.mkdir()
    doc.save(out, flatten=False)
    assert _uris(out) == _uris(src)
    written = _frames(out, search)
    for name, X in _frames(work / src.name, search).items():
        assert written[name].almost_equal(X, 1e-12), name


def test_the_includes_of_every_world_of_a_file_are_rebased(tmp_path):
    (tmp_path / "src" / "parts").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    (tmp_path / "src" / "parts" / "box.sdf").write_text(
        '<?xml version="1.0"?>\n<sdf version="1.9"><model name="box"><link name="l"/>'
        "</model></sdf>\n")
    (tmp_path / "src" / "w.sdf").write_text(
        '<?xml version="1.0"?>\n<sdf version="1.9">'
        '<world name="a"><include><uri>parts/box.sdf</uri></include></world>'
        '<world name="b"><include><uri>parts/box.sdf</uri><pose>0 1 0 0 0 0</pose></include>'
        "</world></sdf>\n")
    doc = load(tmp_path / "src" / "w.sdf", LoadContext(use_environment=False))
    doc.save(tmp_path / "out" / "w.sdf", flatten=False)
    assert _uris(tmp_path / "out" / "w.sdf") == ["../src/parts/box.sdf"] * 2
    back = load(tmp_path / "out" / "w.sdf", LoadContext(use_environment=False))
    assert not back.diagnostics.has_errors()
    [second] = back.extras["other_worlds"]
    assert {f.name: f.pose.p for f in second.frames.frames()}["box::l"] == (0.0, 1.0, 0.0)
