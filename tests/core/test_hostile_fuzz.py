"""Seeded fuzzing of loading, the frames listing and inertia with hostile files.

Mutations of the bundled SDFormat and URDF examples and of ``tests/data`` (truncation,
byte flips, duplicated includes, huge numbers, FIFOs and ``/dev/zero`` as include and
mesh URIs) plus generated hostile structures (deep nesting, include cycles, include
chains, expansion bombs) go through what ``snapframe frames`` and ``snapframe inertia``
do.  For every case: no exception escapes, the case ends within a bound, and every
diagnostic names a file.

``SNAPFRAME_FUZZ_SEED`` and ``SNAPFRAME_FUZZ_CASES`` run other or more cases.
"""

from __future__ import annotations

import copy
import os
import signal
import random
import re
import shutil
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from hang_guard import deadline as _deadline
from snapframe.core.diagnostics import Diagnostics
from snapframe.core.frames.budget import over_budget
from snapframe.core.inertia.document_report import link_inertials
from snapframe.core.json_output import frames_json
from snapframe.core.loading import LoadContext, load

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32" or not hasattr(os, "mkfifo"), reason="POSIX"),
    pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM"),
]

REPO = Path(__file__).resolve().parents[2]
SEED = int(os.environ.get("SNAPFRAME_FUZZ_SEED", "20261123"))
MUTATED_CASES = int(os.environ.get("SNAPFRAME_FUZZ_CASES", "2000"))
#: Wall-clock bound of one case (load + frames + inertia); a hang fails at this point.
CASE_SECONDS = 4.0
CORPUS_ROOTS = ("resources/examples", "tests/data/sdformat", "tests/data/urdf")
MODEL_SUFFIXES = (".sdf", ".world", ".urdf")

HUGE_NUMBERS = ("1e308", "-1e308", "1e309", "-1e999", "9" * 400, "nan", "-inf", "1e-320",
                "0x10", "1_0", "\u0661\u0662", "", "1 2 3 4 5 6 7 8 9 10 11 12 13")


class Hung(Exception):
    """A case ran past CASE_SECONDS (raised by the alarm inside the case)."""



def deadline(seconds: float):
    return _deadline(seconds, Hung)


@dataclass
class Case:
    name: str
    path: Path


# -- the hostile folder: the corpus copied, plus FIFOs, devices and cycles -----------------

def build_workspace(root: Path) -> tuple[list[Path], dict[str, list[str]]]:
    """Copy the corpus under ``root`` and add hostile targets; return the model files and
    the hostile URIs for includes and meshes."""
    seeds: list[Path] = []
    for rel in CORPUS_ROOTS:
        src = REPO / rel
        if src.is_dir():
            shutil.copytree(src, root / rel, symlinks=True)
            seeds += sorted(p for p in (root / rel).rglob("*") if p.suffix in MODEL_SUFFIXES
                            and p.is_file())
    shutil.copytree(REPO / "tests/data/meshes", root / "meshes")
    hostile = root / "hostile"
    hostile.mkdir()
    os.mkfifo(hostile / "pipe.sdf")
    os.mkfifo(hostile / "pipe.stl")
    os.mkfifo(hostile / "pipe.bin")
    (hostile / "zero.sdf").symlink_to("/dev/zero")
    (hostile / "zero.stl").symlink_to("/dev/zero")
    (hostile / "pipe_model").mkdir()
    os.mkfifo(hostile / "pipe_model" / "model.config")
    (hostile / "zero_model").mkdir()
    (hostile / "zero_model" / "model.config").symlink_to("/dev/zero")
    (hostile / "buffer_pipe.gltf").write_text((REPO / "tests/data/meshes/wedge_ext.gltf")
                                              .read_text().replace("wedge_ext.bin", "pipe.bin"))
    (hostile / "buffer_zero.gltf").write_text((REPO / "tests/data/meshes/wedge_ext.gltf")
                                              .read_text().replace("wedge_ext.bin", "/dev/zero"))
    (hostile / "self.sdf").write_text(
        '<sdf version="1.9"><model name="s"><link name="l"/>'
        "<include><uri>self.sdf</uri><name>again</name></include></model></sdf>")
    (hostile / "a.sdf").write_text('<sdf version="1.9"><model name="a"><link name="l"/>'
                                   "<include><uri>b.sdf</uri></include></model></sdf>")
    (hostile / "b.sdf").write_text('<sdf version="1.9"><model name="b"><link name="l"/>'
                                   "<include><uri>a.sdf</uri></include></model></sdf>")
    h = str(hostile)
    include_uris = [f"{h}/pipe.sdf", f"file://{h}/pipe.sdf", "/dev/zero", "file:///dev/zero",
                    f"{h}/zero.sdf", f"{h}/pipe_model", f"{h}/zero_model", f"{h}/self.sdf",
                    f"{h}/a.sdf", "/dev", "model://", "http://example.com/m.sdf", "\x00"]
    mesh_uris = [f"{h}/pipe.stl", f"{h}/zero.stl", "/dev/zero", "file:///dev/zero",
                 f"{h}/buffer_pipe.gltf", f"{h}/buffer_zero.gltf", f"{h}/pipe.bin",
                 f"{root}/meshes/wedge.dae", f"{root}/meshes/wedge.glb"]
    return seeds, {"include": include_uris, "mesh": mesh_uris}


# -- mutations ------------------------------------------------------------------------------

def truncate(rng: random.Random, data: bytes, uris) -> bytes:
    return data[:rng.randrange(len(data) + 1)]


def flip_bytes(rng: random.Random, data: bytes, uris) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if buf:
            buf[rng.randrange(len(buf))] = rng.choice(b"<>/&\"'=:\x00\xff 0123456789-e.")
    return bytes(buf)


def huge_numbers(rng: random.Random, data: bytes, uris) -> bytes:
    text = data.decode("utf-8", "replace")
    numbers = list(re.finditer(r"-?\d+(\.\d+)?(e-?\d+)?", text))
    for m in sorted(rng.sample(numbers, min(len(numbers), rng.randint(1, 6))),
                    key=lambda m: -m.start()):
        text = text[:m.start()] + rng.choice(HUGE_NUMBERS) + text[m.end():]
    return text.encode()


def duplicate_includes(rng: random.Random, data: bytes, uris) -> bytes:
    text = data.decode("utf-8", "replace")
    blocks = re.findall(r"<include\b.*?</include>", text, re.S)
    if not blocks:
        return text.replace("</model>", "<include><uri>" + rng.choice(uris["include"])
                            + "</uri></include></model>", 1).encode()
    block = rng.choice(blocks)
    copies = "".join(re.sub(r"<name>[^<]*</name>", f"<name>dup{k}</name>", block)
                     for k in range(rng.choice((2, 30, 300))))
    return text.replace(block, block + copies, 1).encode()


def hostile_uris(rng: random.Random, data: bytes, uris) -> bytes:
    text = data.decode("utf-8", "replace")

    def include_uri(m: re.Match) -> str:
        return m.group(1) + rng.choice(uris["include"]) + m.group(3)

    def mesh_uri(m: re.Match) -> str:
        return m.group(1) + rng.choice(uris["mesh"]) + m.group(3)

    text = re.sub(r"(<include\b[^>]*>\s*<uri>)([^<]*)(</uri>)", include_uri, text)
    text = re.sub(r"(<mesh>\s*<uri>)([^<]*)(</uri>)", mesh_uri, text)
    text = re.sub(r'(filename=")([^"]*)(")', mesh_uri, text)          # URDF meshes
    if "<include" not in text and "<model" in text:
        text = text.replace("</model>", "<include><uri>" + rng.choice(uris["include"])
                            + "</uri></include></model>", 1)
    return text.encode()


REFERENCE_ATTRIBUTES = ("name", "relative_to", "attached_to", "canonical_link",
                        "placement_frame", "expressed_in", "merge", "auto")
REFERENCE_ELEMENTS = ("parent", "child", "placement_frame", "uri", "name", "static",
                      "density", "mass", "ixx", "size", "radius", "pose")


def xml_edits(rng: random.Random, data: bytes, uris) -> bytes:
    """Edit the element tree: drop, duplicate and move elements, point references at
    other names (cycles, dangling names, scoped names), switch on auto inertia."""
    from lxml import etree
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError:
        return data
    elements = [e for e in root.iter() if isinstance(e.tag, str)]
    names = [e.get("name") for e in elements if e.get("name")] or ["x"]
    names += ["world", "__model__", "__root__", "a::b::c", "::", names[0] + "::" + names[-1]]
    for _ in range(rng.randint(1, 6)):
        el = rng.choice(elements)
        op = rng.randrange(6)
        parent = el.getparent()
        if op == 0 and parent is not None:
            parent.remove(el)
        elif op == 1 and parent is not None:
            for _ in range(rng.choice((1, 2, 50))):
                parent.append(copy.deepcopy(el))
        elif op == 2 and parent is not None:
            target = rng.choice(elements)
            if el not in target.iterancestors() and target is not el:
                target.append(el)  # moved anywhere: into a link, a joint, a pose...
        elif op == 3:
            el.set(rng.choice(REFERENCE_ATTRIBUTES), rng.choice(names))
        elif op == 4:
            child = etree.SubElement(el, rng.choice(REFERENCE_ELEMENTS))
            child.text = rng.choice(names + list(HUGE_NUMBERS))
        else:
            for link in root.iter("link"):
                etree.SubElement(link, "inertial").set("auto", "true")
    return etree.tostring(root)


MUTATIONS: list[Callable] = [truncate, flip_bytes, huge_numbers, duplicate_includes,
                             hostile_uris, xml_edits, xml_edits]


def mutated_cases(seeds: list[Path], uris, rng: random.Random, n: int) -> list[Case]:
    cases = []
    for i in range(n):
        seed = rng.choice(seeds)
        mutation = rng.choice(MUTATIONS)
        data = mutation(rng, seed.read_bytes(), uris)
        if rng.random() < 0.25:  # and a second one on top
            data = rng.choice(MUTATIONS)(rng, data, uris)
        # Next to the original, so its relative and model:// includes still resolve.
        path = seed.with_name(f"__fuzz_{i}{seed.suffix}")
        path.write_bytes(data)
        cases.append(Case(f"{mutation.__name__}({seed.name}) #{i}", path))
    return cases


# -- generated hostile structures -----------------------------------------------------------

def structural_cases(root: Path, uris) -> list[Case]:
    out = root / "structures"
    out.mkdir()
    cases: list[Case] = []

    def add(name: str, text: str, filename: str | None = None) -> None:
        path = out / (filename or f"{name}.sdf")
        path.write_text(text)
        cases.append(Case(name, path))

    for depth in (50, 200, 300, 2000):
        add(f"nested_models_{depth}", '<sdf version="1.9">' + "".join(
            f'<model name="m{k}">' for k in range(depth)) + '<link name="l"/>'
            + "</model>" * depth + "</sdf>")
    for uri in uris["include"]:
        add(f"include_{len(cases)}", '<sdf version="1.9"><world name="w"><include><uri>'
            f"{uri}</uri></include></world></sdf>")
    for uri in uris["mesh"]:
        add(f"mesh_{len(cases)}", '<sdf version="1.11"><model name="m"><link name="l">'
            '<inertial auto="true"/><collision name="c"><density>1000</density><geometry>'
            f"<mesh><uri>{uri}</uri></mesh></geometry></collision></link></model></sdf>")
    add("urdf_fifo_mesh", '<robot name="r"><link name="a"><collision><geometry><mesh '
        f'filename="{uris["mesh"][0]}"/></geometry></collision></link></robot>',
        "fifo_mesh.urdf")
    # A chain of 150 files, each including the next (past the include depth limit).
    chain = out / "chain"
    chain.mkdir()
    for k in range(150):
        nxt = f"<include><uri>c{k + 1}.sdf</uri></include>" if k < 149 else ""
        (chain / f"c{k}.sdf").write_text(f'<sdf version="1.9"><model name="c{k}">'
                                         f'<link name="l"/>{nxt}</model></sdf>')
    cases.append(Case("include_chain_150", chain / "c0.sdf"))
    # Expansion bombs: 8 files x 8 includes (plain and merged), 3 levels x 100.
    for levels, fan_out, merge in ((8, 8, False), (8, 8, True), (4, 100, False)):
        folder = out / f"bomb_{levels}x{fan_out}{'_merge' if merge else ''}"
        folder.mkdir()
        attr = ' merge="true"' if merge else ""
        for k in range(levels):
            inc = "" if k == levels - 1 else "".join(
                f"<include{attr}><uri>m{k + 1}.sdf</uri><name>c{j}</name></include>"
                for j in range(fan_out))
            (folder / f"m{k}.sdf").write_text(f'<sdf version="1.9"><model name="m{k}">'
                                              f'<link name="l"/>{inc}</model></sdf>')
        cases.append(Case(folder.name, folder / "m0.sdf"))
    return cases


# -- running a case -------------------------------------------------------------------------

def run_case(case: Case, search_paths: list[Path]) -> list[str]:
    """Load, list every frame and compute inertia as the commands do; return problems."""
    problems: list[str] = []
    start = time.perf_counter()
    try:
        with deadline(CASE_SECONDS):
            context = LoadContext(use_environment=False,
                                  search_paths=[case.path.parent, *search_paths])
            doc = load(case.path, context)
            diagnostics = Diagnostics()
            diagnostics.extend(doc.diagnostics)
            if doc.root is not None and not over_budget(doc):
                frames_json(doc)
                link_inertials(doc, diagnostics)
    except Hung as exc:
        return [f"{case.name}: {exc}"]
    except Exception as exc:  # noqa: BLE001 - that is what the fuzz test looks for
        frames = traceback.extract_tb(exc.__traceback__)
        ours = [f for f in frames if str(REPO) in f.filename and "/.venv/" not in f.filename]
        where = f"{ours[-1].filename}:{ours[-1].lineno}" if ours else "?"
        return [f"{case.name} ({case.path}): {type(exc).__name__}: {exc} (raised at {where})"]
    seconds = time.perf_counter() - start
    if seconds > CASE_SECONDS:
        problems.append(f"{case.name}: took {seconds:.1f} s")
    for d in diagnostics:
        if not d.file:
            problems.append(f"{case.name}: diagnostic without a file: {d.format()}")
    return problems


def test_hostile_files_end_quickly_with_diagnostics_that_name_a_file(tmp_path):
    seeds, uris = build_workspace(tmp_path)
    assert len(seeds) > 50, "the corpus was not found"
    rng = random.Random(SEED)
    cases = structural_cases(tmp_path, uris) + mutated_cases(seeds, uris, rng, MUTATED_CASES)
    search_paths = [tmp_path / rel for rel in CORPUS_ROOTS]
    problems: list[str] = []
    start = time.perf_counter()
    for case in cases:
        problems += run_case(case, search_paths)
    elapsed = time.perf_counter() - start
    assert not problems, (f"seed {SEED}: {len(problems)} problems in {len(cases)} cases:\n"
                          + "\n".join(problems[:20]))
    assert elapsed < 60, f"{len(cases)} cases took {elapsed:.0f} s"
