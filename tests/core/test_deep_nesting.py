"""Models nested hundreds of levels deep through chains of includes (review 8, item 3).

libsdformat 12 loads a chain of 90 files of 5 nested models each (450 levels) and one of
11 files of 90 (990 levels).  Snapframe reads them in every command without recursing
through the nesting: the frame scopes are built and resolved with explicit stacks and the
loader parses included files bottom-up.  Deeper than
:data:`snapframe.core.limits.MAX_MODEL_NESTING` is refused with ``RESOURCE_LIMIT``; a
single file nests at most 256 XML elements (libxml2), and one deeper than libsdformat's
TinyXML2 reads (an element with content at depth 99) gets a warning.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from snapframe.core import limits
from snapframe.core.diagnostics import Code
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Document, Frame, Include, Link, Model, PoseSpec
from snapframe.core.pose import Pose
from snapframe.editor.cli import main


def write_chain(folder: Path, per_file: int, files: int) -> Path:
    """``f0.sdf`` ... : each file nests ``per_file`` models (a link in each) and the
    innermost includes the next file (the review's reproduction, deepinc/gen.py)."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in range(files):
        opened = "".join(f'<model name="m{i}"><link name="l{i}"/>' for i in range(per_file))
        include = (f"<include><uri>f{f + 1}.sdf</uri><name>inc</name></include>"
                   if f < files - 1 else "")
        (folder / f"f{f}.sdf").write_text(
            f'<?xml version="1.0"?>\n<sdf version="1.9">\n{opened}{include}'
            f'{"</model>" * per_file}</sdf>\n')
    return folder / "f0.sdf"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command", [["check"], ["frames"], ["frames", "--json"], ["graph"],
                                     ["inertia"]])
def test_450_levels_from_90_files_work_in_every_command(tmp_path, capsys, command):
    top = write_chain(tmp_path, 5, 90)
    code, out, err = run(capsys, *command, top)
    assert (code, "Traceback" not in out + err) == (0, True), err[-2000:]
    if command == ["frames"]:
        # 450 models and their links, the top model too
        assert out.rstrip().endswith("(900 frames; angles in degrees)")


def test_the_deepest_frame_of_450_levels_is_named_and_placed(tmp_path):
    doc = load(write_chain(tmp_path, 5, 90), LoadContext(use_environment=False))
    assert doc.diagnostics.errors == []
    deepest = max((f.name for f in doc.frames.frames()), key=lambda n: n.count("::"))
    # An included model takes the include's name (libsdformat names it so: the oracle
    # lists m0::m1::m2::m3::m4::inc::m1::...).
    assert deepest == "m0::" + "m1::m2::m3::m4::inc::" * 89 + "m1::m2::m3::m4::l4"
    assert doc.frames.pose(deepest) == Pose()


def test_990_levels_from_11_files_load_as_libsdformat_loads_them(tmp_path):
    doc = load(write_chain(tmp_path, 90, 11), LoadContext(use_environment=False))
    assert doc.diagnostics.errors == []
    assert len(doc.frames.frames()) == 1980
    # Each file nests its XML 92 deep: within what libsdformat's TinyXML2 reads.
    assert not [w for w in doc.diagnostics.warnings if "TinyXML2" in w.message]


def test_nesting_deeper_than_the_limit_is_refused_where_it_happens(tmp_path, capsys):
    # 11 files of 97 models: the innermost files nest 5 * 97 = 485, 6 * 97 = 582...
    top = write_chain(tmp_path, 97, 11)
    doc = load(top, LoadContext(use_environment=False))
    errors = [d for d in doc.diagnostics.errors if d.code == Code.RESOURCE_LIMIT]
    assert errors and all("MAX_MODEL_NESTING" in e.message for e in errors)
    assert "nests models 1,067 levels deep" in errors[0].message
    assert Path(errors[0].file).name == "f0.sdf"
    code, out, err = run(capsys, "frames", top)
    assert code == 1 and "RESOURCE_LIMIT" in err and "Traceback" not in out + err


def test_two_files_of_250_nested_models_read_with_a_warning_about_libsdformat(tmp_path):
    # libsdformat 12 refuses each file (XML_ELEMENT_DEPTH_EXCEEDED); libxml2 reads 256.
    doc = load(write_chain(tmp_path, 250, 2), LoadContext(use_environment=False))
    assert doc.diagnostics.errors == []
    warned = {Path(w.file).name for w in doc.diagnostics.warnings if "TinyXML2" in w.message}
    assert warned == {"f0.sdf", "f1.sdf"}
    assert len(doc.frames.frames()) == 1000


@pytest.mark.parametrize("leaf,depth,warned", [
    ("<b>x</b>", 99, True), ("<b><!--c--></b>", 99, True), ("<b/>", 99, False),
    ("<b/>", 100, True), ("<b>x</b>", 98, False)])
def test_the_tinyxml2_depth_rule(tmp_path, leaf, depth, warned):
    # Checked against libsdformat 12.3 (tests/oracle): an element with content at depth
    # 99 (the root is 1) is XML_ELEMENT_DEPTH_EXCEEDED, an empty one is read.
    chain = depth - 4  # <a> elements at depths 4 .. depth - 1, inside a plugin
    (tmp_path / "d.sdf").write_text(
        '<sdf version="1.9"><model name="m"><link name="l"/><plugin name="p" filename="f">'
        + "<a>" * chain + leaf + "</a>" * chain + "</plugin></model></sdf>")
    doc = load(tmp_path / "d.sdf", LoadContext(use_environment=False))
    assert doc.diagnostics.errors == []
    assert any("TinyXML2" in w.message for w in doc.diagnostics.warnings) == warned


def test_xml_deeper_than_256_is_a_file_read_error(tmp_path, capsys):
    top = write_chain(tmp_path, 255, 1)
    code, out, err = run(capsys, "check", top)
    assert code == 1 and "FILE_READ" in out and "Excessive depth" in out


def _nested(depth: int, *, through_includes: bool) -> Document:
    top = model = Model(name="m0")
    for i in range(1, depth):
        model.add(Link(name=f"l{i}"))
        model.add(Frame(name=f"f{i}", pose=PoseSpec(Pose.from_xyz_rpy(0, 0, 1, 0, 0, 0),
                                                     f"m{i}::f{i + 1}", True)))
        sub = Model(name=f"m{i}", pose=PoseSpec(Pose.from_xyz_rpy(0, 0, 1, 0, 0, 0), "", True))
        if through_includes:
            model.add(Include(uri=f"m{i}.sdf", name=f"m{i}", model=sub,
                              resolved_path=f"/p/m{i}.sdf"))
        else:
            model.add(sub)
        model = sub
    model.add(Link(name="leaf"))
    model.add(Frame(name=f"f{depth}"))
    return Document(root=top, format="sdformat")


@pytest.mark.parametrize("through_includes", [False, True])
def test_frame_graphs_of_any_depth_need_no_recursion(through_includes):
    # 3000 levels, each frame placed relative to one a level down: resolving the top frame
    # reaches the bottom.  The interpreter's limit is left at its default.
    assert sys.getrecursionlimit() <= 1000
    doc = _nested(3000, through_includes=through_includes)
    graph = doc.frames
    from snapframe.core.frames import check_document
    check_document(doc)
    assert doc.diagnostics.errors == []
    # f_i is 1 above f_(i+1), which is in m_i, 1 above m_(i-1): 2 per level.
    assert graph.pose("f1").p == pytest.approx((0.0, 0.0, 2 * 2999.0))
    frames = graph.frames()
    assert len(frames) == 1 + 3 * 2999 + 2
    from snapframe.core.frames.export import graph_edges
    assert len(graph_edges(graph)["relative_to"]) == 3 * 2999 + 2
    assert graph.root.body_of("m1::__model__") == "m1::l2"
    assert len(graph.explain("m1::" * 5 + "leaf")) >= 1


def test_writers_share_the_nesting_limit_and_leave_the_recursion_limit_alone():
    from snapframe.plugins import nesting
    assert nesting.MAX_NESTING == limits.MAX_MODEL_NESTING
    before = sys.getrecursionlimit()
    with nesting.recursion_headroom(limits.MAX_MODEL_NESTING):
        assert sys.getrecursionlimit() == before
    with pytest.raises(nesting.NestingTooDeep, match="MAX_MODEL_NESTING"):
        with nesting.recursion_headroom(limits.MAX_MODEL_NESTING + 1):
            pass


def test_each_included_file_is_read_once(tmp_path, monkeypatch):
    import snapframe.core.fileio as fileio
    reads: list[str] = []
    original = fileio.read_regular_file

    def counting(path, *args, **kwargs):
        reads.append(Path(path).name)
        return original(path, *args, **kwargs)

    monkeypatch.setattr(fileio, "read_regular_file", counting)
    load(write_chain(tmp_path, 5, 20), LoadContext(use_environment=False))
    assert sorted(reads) == sorted(f"f{i}.sdf" for i in range(20))
