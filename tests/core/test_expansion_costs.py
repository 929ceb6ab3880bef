"""The expansion budgets bound what every command spends (review 8, item 10).

Measured per element instance on the worst case under the budget (files of ~800 bytes
each including the next seven times), the listing commands cost 15-45 us and the writers
120-170 us; the budget (:data:`snapframe.core.limits.MAX_ELEMENT_INSTANCES`, 50,000)
keeps every listing command to about two seconds there, and the real world of 1000
six-link robots (27,000 instances) within it.  The characters of the instances' scoped
names have a budget of their own (:data:`~snapframe.core.limits.MAX_NAME_CHARACTERS`):
a model nested hundreds of levels deep names every link with kilobytes.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from snapframe.core import limits
from snapframe.core.diagnostics import Code
from snapframe.core.frames.budget import document_figures, over_budget
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Document, Include, Link, Model, Visual
from snapframe.editor.cli import main

REPO = Path(__file__).resolve().parents[2]
PART = ('<link name="l"><visual name="v"><geometry><box><size>1 1 1</size></box></geometry>'
        '</visual><collision name="c"><geometry><box><size>1 1 1</size></box></geometry>'
        "</collision></link>")


def write_fan(folder: Path, files: int, fan_out: int, top_fan_out: int) -> Path:
    """f0 ... : each file a model with a link (a visual, a collision) that includes the
    next file ``fan_out`` times (``top_fan_out`` times in f0)."""
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(files):
        n = top_fan_out if k == 0 else fan_out
        includes = "" if k == files - 1 else "".join(
            f"<include><uri>f{k + 1}.sdf</uri><name>i{j}</name><pose>{j} 0 0 0 0 0</pose>"
            "</include>" for j in range(n))
        (folder / f"f{k}.sdf").write_text(f'<?xml version="1.0"?>\n<sdf version="1.9">'
                                          f'<model name="m{k}">{PART}{includes}</model></sdf>\n')
    return folder / "f0.sdf"


def test_the_reviews_fan_out_is_refused_at_once(tmp_path, capsys):
    # 7 files, 7 includes per level: 686,284 instances described.
    top = write_fan(tmp_path, 7, 7, 7)
    for argv in (["check"], ["frames"], ["graph"], ["inertia"],
                 ["convert", "--flatten", "OUT.sdf"], ["convert", "OUT.urdf"]):
        start = time.perf_counter()
        code = main([argv[0], *(a for a in argv[1:] if a.startswith("--")), str(top),
                     *(str(tmp_path / a) for a in argv[1:] if a.startswith("OUT"))])
        seconds = time.perf_counter() - start
        text = capsys.readouterr()
        assert code == 1 and "RESOURCE_LIMIT" in text.out + text.err, argv
        assert seconds < 5.0, argv


@pytest.mark.parametrize("argv", [["frames"], ["frames", "--json"], ["graph"], ["inertia"]])
def test_the_worst_case_under_the_budget_is_listed_in_seconds(tmp_path, capsys, argv):
    # 6 files, 7 includes per level, 4 at the top: 44,820 instances, within the budget.
    top = write_fan(tmp_path, 6, 7, 4)
    doc = load(top, LoadContext(use_environment=False))
    assert document_figures(doc)[0] == 44_820 and not over_budget(doc)
    start = time.perf_counter()
    assert main([*argv, str(top)]) == 0
    seconds = time.perf_counter() - start
    capsys.readouterr()
    assert seconds < 8.0, f"{argv}: {seconds:.1f} s"   # about 1-1.5 s on a quiet machine


def test_the_world_of_1000_robots_fits_both_budgets(tmp_path):
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from gen_include_world import generate
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    doc = load(generate(1000, tmp_path), LoadContext(use_environment=False))
    assert not over_budget(doc)
    count, chars = document_figures(doc)
    assert count == 27_000 and chars == 648_030
    assert 1.8 * count < limits.MAX_ELEMENT_INSTANCES and 12 * chars < limits.MAX_NAME_CHARACTERS


def test_name_characters_are_counted_as_a_listing_would_print_them():
    link = Link(name="arm")
    link.visuals.append(Visual(name="v"))
    part = Model(name="part", entities=[link])
    for e in part.entities:
        e.parent = part
    top = Model(name="top")
    top.add(Include(uri="p.sdf", name="a", model=part))
    top.add(Include(uri="p.sdf", model=part))       # named after the model: "part"
    doc = Document(root=top)
    names = ["top", "top::a", "top::a::arm", "top::a::arm::v",
             "top::part", "top::part::arm", "top::part::arm::v"]
    assert document_figures(doc) == (len(names), sum(map(len, names)))


def test_deep_and_wide_is_refused_by_the_name_budget(tmp_path, capsys):
    # 9 files of 97 nested models, then 12,000 links: within the element budget, but every
    # link's name is 4 kB long (50 MB of names: a listing of them took 12 s and 1.2 GB).
    for f in range(9):
        opened = "".join(f'<model name="m{i}"><link name="l{i}"/>' for i in range(97))
        nxt = f"f{f + 1}.sdf" if f < 8 else "wide.sdf"
        (tmp_path / f"f{f}.sdf").write_text(
            f'<sdf version="1.9">{opened}<include><uri>{nxt}</uri><name>inc</name></include>'
            f'{"</model>" * 97}</sdf>')
    (tmp_path / "wide.sdf").write_text('<sdf version="1.9"><model name="w">' + "".join(
        f'<link name="link_{i:05d}"/>' for i in range(12_000)) + "</model></sdf>")
    start = time.perf_counter()
    code = main(["frames", str(tmp_path / "f0.sdf")])
    seconds = time.perf_counter() - start
    text = capsys.readouterr()
    assert code == 1 and "MAX_NAME_CHARACTERS" in text.err and seconds < 10.0


def test_messages_list_a_few_items_and_count_the_rest():
    assert limits.listed(range(3)) == "0, 1, 2"
    assert limits.listed(range(10_000), most=2) == "0, 1 and 9,998 more"
    assert limits.listed(["a", "b", "c"], most=2, separator=" -> ") == "a -> b and 1 more"


def test_a_urdf_loop_through_thousands_of_joints_is_one_short_message(tmp_path):
    n = 5000
    links = "".join(f'<link name="l{i}"/>' for i in range(n))
    joints = "".join(f'<joint name="j{i}" type="fixed"><parent link="l{i}"/>'
                     f'<child link="l{(i + 1) % n}"/></joint>' for i in range(n))
    path = tmp_path / "loop.urdf"
    path.write_text(f'<robot name="r">{links}{joints}</robot>')
    doc = load(path, LoadContext(use_environment=False))
    loops = [d for d in doc.diagnostics.errors if "Kinematic loop" in d.message]
    assert loops and all(len(d.message) < 600 for d in doc.diagnostics.errors)
    assert "more" in loops[0].message


def test_an_include_cycle_through_many_files_is_one_short_message(tmp_path):
    n = 60
    for i in range(n):
        (tmp_path / f"c{i}.sdf").write_text(
            f'<sdf version="1.9"><model name="c{i}"><link name="l"/><include>'
            f"<uri>c{(i + 1) % n}.sdf</uri></include></model></sdf>")
    doc = load(tmp_path / "c0.sdf", LoadContext(use_environment=False))
    [cycle] = [d for d in doc.diagnostics.errors if d.code == Code.INCLUDE_CYCLE]
    assert cycle.message.count(".sdf") == 12 and cycle.message.endswith("49 more")


@pytest.mark.parametrize("suffix", [".sdf", ".urdf"])
def test_a_file_with_more_elements_than_the_budget_is_refused_before_it_is_built(
        tmp_path, monkeypatch, suffix):
    # 61 MB of empty links took 109 s and 5.5 GB to be refused after the model was built.
    monkeypatch.setattr(limits, "MAX_ELEMENT_INSTANCES", 100)
    links = "".join(f'<link name="l{i}"/>' for i in range(150))
    text = (f'<sdf version="1.9"><model name="m">{links}</model></sdf>' if suffix == ".sdf"
            else f'<robot name="r">{links}</robot>')
    (tmp_path / f"big{suffix}").write_text(text)
    doc = load(tmp_path / f"big{suffix}", LoadContext(use_environment=False))
    [error] = doc.diagnostics.errors
    assert error.code == Code.RESOURCE_LIMIT and "expands to 15" in error.message
    assert doc.root is None   # no model was built
    # Included, the file is refused the same way, and the include left out.
    (tmp_path / "w.sdf").write_text(f'<sdf version="1.9"><world name="w"><include><uri>big'
                                    f"{suffix}</uri></include></world></sdf>")
    doc = load(tmp_path / "w.sdf", LoadContext(use_environment=False))
    assert [d.code for d in doc.diagnostics.errors] == [Code.RESOURCE_LIMIT]
    assert doc.root.includes[0].model is None
