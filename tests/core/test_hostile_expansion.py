"""Expansion bombs: small files that describe more instances than the budget are refused
where the expansion happens, in every command, in bounded time and memory."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from snapframe.core import limits
from snapframe.core.diagnostics import Code
from snapframe.core.frames.budget import InstanceCounter, document_instances, over_budget
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Document, Link, Model
from snapframe.editor.cli import main

REPO = Path(__file__).resolve().parents[2]


def write_bomb(folder: Path, levels: int, fan_out: int, merge: bool = False) -> Path:
    """``m0.sdf`` ... ``m<levels-1>.sdf``: each model has one link and includes the next
    file ``fan_out`` times (as ``c0``, ``c1``, ...); ``world.sdf`` includes ``m0`` once."""
    folder.mkdir(parents=True, exist_ok=True)
    attr = ' merge="true"' if merge else ""
    for i in range(levels):
        includes = "" if i == levels - 1 else "".join(
            f"<include{attr}><uri>m{i + 1}.sdf</uri><name>c{k}</name></include>"
            for k in range(fan_out))
        (folder / f"m{i}.sdf").write_text(
            f'<?xml version="1.0"?><sdf version="1.9"><model name="m{i}"><link name="l"/>'
            f"{includes}</model></sdf>")
    world = folder / "world.sdf"
    world.write_text('<?xml version="1.0"?><sdf version="1.9"><world name="w">'
                     "<include><uri>m0.sdf</uri></include></world></sdf>")
    return world


def limit_errors(doc):
    return [d for d in doc.diagnostics.errors if d.code == Code.RESOURCE_LIMIT]


def timed_load(path: Path):
    start = time.perf_counter()
    doc = load(path, LoadContext(use_environment=False))
    return doc, time.perf_counter() - start


def test_eight_files_including_each_other_eight_times_are_refused_in_the_file_that_expands(
        tmp_path):
    # m7 is 1 instance (its link); m6 = 1 + 8 * (1 + 1) = 17; each level up is 1 + 8 * (1 +
    # the level below): 145, 1169, 9361, then m2 would be 74,897.  Inside m2 the includes
    # c0..c4 of m3 add 5 * 9,362 = 46,810; c5 would make 56,172 > 50,000.
    world = write_bomb(tmp_path, 8, 8)
    doc, seconds = timed_load(world)
    assert seconds < 5.0
    errors = limit_errors(doc)
    assert len(errors) == 1, "the root cause once; files including m2 add nothing"
    e = errors[0]
    assert Path(e.file).name == "m2.sdf" and e.line == 1
    assert "<include> [c5] of [m3.sdf]" in e.message and "56,172" in e.message
    assert "50,000" in e.message and "MAX_ELEMENT_INSTANCES" in e.message
    assert over_budget(doc)
    # m1 is kept, without its includes of the refused m2 (as if they had failed to load).
    [m0] = doc.root.includes
    m1 = m0.model.includes[0].model
    assert m1 is not None and [i.model for i in m1.includes] == [None] * 8
    # What is kept is within the budget: nothing can expand it past the limit.
    assert document_instances(doc) <= limits.MAX_ELEMENT_INSTANCES


def test_three_levels_of_100_includes_are_refused_at_the_top_file(tmp_path):
    # m3 = 1, m2 = 1 + 100 * 2 = 201, m1 = 1 + 100 * 202 = 20,201; in m0 each include of m1
    # adds 20,202: the 3rd makes 60,606.
    world = write_bomb(tmp_path, 4, 100)
    doc, seconds = timed_load(world)
    assert seconds < 5.0
    [e] = limit_errors(doc)
    assert Path(e.file).name == "m0.sdf"
    assert "<include> [c2] of [m1.sdf]" in e.message and "60,606" in e.message


def test_merge_includes_are_counted_like_includes(tmp_path):
    world = write_bomb(tmp_path, 8, 8, merge=True)
    doc, seconds = timed_load(world)
    assert seconds < 5.0
    [e] = limit_errors(doc)
    assert Path(e.file).name == "m2.sdf"


def test_each_file_of_a_bomb_is_parsed_once(tmp_path, monkeypatch):
    parsed: list[str] = []
    original = LoadContext._parse_included

    def counting(self, target, *args):
        parsed.append(Path(target).name)
        return original(self, target, *args)

    monkeypatch.setattr(LoadContext, "_parse_included", counting)
    load(write_bomb(tmp_path, 8, 8), LoadContext(use_environment=False))
    assert sorted(parsed) == [f"m{i}.sdf" for i in range(8)]


@pytest.mark.parametrize("command", [
    ["check"], ["frames"], ["frames", "--json"], ["graph"], ["graph", "--dot"], ["inertia"],
    ["inertia", "--json"], ["convert", "OUT.sdf"], ["convert", "OUT.sdf", "--flatten"],
])
def test_every_command_refuses_the_bomb_with_exit_1_and_no_traceback(tmp_path, capsys,
                                                                     command):
    world = write_bomb(tmp_path / "bomb", 8, 8)
    out = tmp_path / "OUT.sdf"
    argv = [command[0], str(world), *[str(out) if a == "OUT.sdf" else a for a in command[1:]],
            ]
    start = time.perf_counter()
    code = main(argv)
    seconds = time.perf_counter() - start
    text = capsys.readouterr()
    assert code == 1
    assert "RESOURCE_LIMIT" in text.out + text.err
    assert "Traceback" not in text.out + text.err
    assert seconds < 5.0
    assert not out.exists()


def test_frames_on_the_bomb_stays_small_in_memory(tmp_path):
    """Before the budget, ``frames`` on this bomb grew past 5 GB and was killed."""
    world = write_bomb(tmp_path, 8, 8)
    # The child reports its own peak (VmHWM): getrusage's ru_maxrss keeps the forking
    # parent's peak across exec on Linux (the pytest process, after many tests).
    code = ("import sys\n"
            "from snapframe.editor.cli import main\n"
            "try:\n    rc = main(['frames', sys.argv[1]])\n"
            "finally:\n"
            "    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
            "    print('peak_kb', hwm.split()[1], file=sys.stderr)\n"
            "sys.exit(rc)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(world)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO)
    deadline = time.monotonic() + 60
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("frames on the bomb did not end within 60 s")
        time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.returncode == 1, stderr
    assert "RESOURCE_LIMIT" in stderr and "Traceback" not in stderr
    peak_mb = int(stderr.rsplit("peak_kb ", 1)[1].split()[0]) / 1024
    assert peak_mb < 400, f"peak RSS {peak_mb:.0f} MB"


def test_a_world_of_1000_robots_is_within_the_budget(tmp_path):
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from gen_include_world import generate
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    world = generate(1000, tmp_path)
    doc, _ = timed_load(world)
    assert not limit_errors(doc) and not over_budget(doc)
    # Each robot: its include, 6 links with a visual and a collision each, 6 joints and
    # the frames base and tool: 1 + 18 + 6 + 2 = 27.
    assert document_instances(doc) == 27_000


def test_the_budget_is_inclusive(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_ELEMENT_INSTANCES", 20)
    (tmp_path / "leaf.sdf").write_text(
        '<sdf version="1.9"><model name="leaf"><link name="l"/></model></sdf>')

    def world(n: int) -> Path:
        path = tmp_path / f"w{n}.sdf"
        path.write_text('<sdf version="1.9"><world name="w">' + "".join(
            f"<include><uri>leaf.sdf</uri><name>r{k}</name></include>" for k in range(n))
            + "</world></sdf>")
        return path

    # Each include is the include itself and the leaf's link: 2 instances.
    doc, _ = timed_load(world(10))
    assert document_instances(doc) == 20 and not limit_errors(doc)
    doc, _ = timed_load(world(11))
    [e] = limit_errors(doc)
    assert Path(e.file).name == "w11.sdf" and "<include> [r10] of [leaf.sdf]" in e.message
    assert "at least 22" in e.message and "more than the 20 " in e.message
    # The refused include is left out (like an include that failed), the rest is kept.
    assert document_instances(doc) == 20


def test_a_file_over_the_budget_by_its_own_elements_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_ELEMENT_INSTANCES", 20)
    path = tmp_path / "big.sdf"
    path.write_text('<sdf version="1.9"><model name="m">' + "".join(
        f'<link name="l{k}"/>' for k in range(25)) + "</model></sdf>")
    doc, _ = timed_load(path)
    [e] = limit_errors(doc)
    assert e.file == str(path) and "expands to 26 element instances" in e.message


def test_counting_is_memoised_and_iterative():
    # A chain of 20,000 nested models: deeper than Python's recursion limit.
    root = top = Model(name="m0")
    for i in range(1, 20_000):
        inner = Model(name=f"m{i}")
        top.add(inner)
        top = inner
    top.add(Link(name="l"))
    assert InstanceCounter().contents(root) == 20_000
    assert document_instances(Document(path="deep.sdf", root=root)) == 20_001


def test_cli_reports_a_resource_limit_error_as_exit_1(tmp_path, capsys, monkeypatch):
    """An API that refuses to expand raises ResourceLimitError: one line, exit 1."""
    import snapframe.editor.subcommands.frames as frames_command

    def refuse(document):
        raise limits.ResourceLimitError("x.sdf: error RESOURCE_LIMIT: too big")

    monkeypatch.setattr(frames_command, "frames_json", refuse)
    path = tmp_path / "m.sdf"
    path.write_text('<sdf version="1.9"><model name="m"><link name="l"/></model></sdf>')
    assert main(["frames", str(path)]) == 1
    err = capsys.readouterr().err
    assert "RESOURCE_LIMIT" in err and "Traceback" not in err
