"""Every writer keeps every link of a composed assembly where libsdformat puts it.

Random composite assemblies (seeded: includes placed by placement frames on frames of
other includes, nested models, welds and joints between includes, worlds) are written
as SDFormat (modular and flattened), OpenPLX and URDF, and each written file is read
back:

* SDFormat by libsdformat 12.3 (the oracle) and by Snapframe (``frames``);
* OpenPLX by Snapframe's OpenPLX reader, which assembles it with SNAP;
* URDF by Snapframe's URDF reader and, for trees, by libsdformat (which reads URDF).

The expected poses are the oracle's for the original assembly, to 1e-6.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from lxml import etree

from snapframe.core.loading import LoadContext, load
from snapframe.core.model.names import SEP
from snapframe.core.pose import Pose
from tests.plugins.composite_assemblies import (Assembly, make_assembly, misplaced,
                                                oracle_binary, oracle_poses, relative_to,
                                                run_oracle)

CASES = 20


@pytest.fixture(scope="module")
def oracle() -> Path:
    binary, why = oracle_binary()
    if binary is None:
        pytest.skip(why)
    return binary


def _snapframe_links(path: Path) -> tuple[dict[str, Pose], list[str]]:
    doc = load(path, LoadContext(search_paths=[path.parent], use_environment=False))
    errors = [d.format() for d in doc.diagnostics.errors]
    return {f.name: f.pose for f in doc.frames.frames() if f.kind == "link"}, errors


def _strip(poses: dict[str, Pose], prefix: str) -> dict[str, Pose]:
    return {name[len(prefix):] if name.startswith(prefix) else name: X
            for name, X in poses.items()}


def _urdf_root(path: Path) -> str:
    robot = etree.parse(str(path)).getroot()
    children = {j.find("child").get("link") for j in robot.iter("joint")}
    return next(el.get("name") for el in robot.iter("link") if el.get("name") not in children)


def check_assembly(asm: Assembly, oracle: Path) -> dict[str, list[str]]:
    """Write ``asm`` with every writer and read each file back; per writer (and reader),
    the links that are missing or misplaced."""
    from snapframe.plugins.openplx import format as openplx_format
    from snapframe.plugins.sdformat.writer import write as write_sdformat
    from snapframe.plugins.urdf.writer import write as write_urdf

    modular, flat = asm.folder / "out_modular.sdf", asm.folder / "flat" / "out_flat.sdf"
    openplx, urdf = asm.folder / "out.openplx", asm.folder / "out.urdf"
    # libsdformat starts slowly (~0.2 s a file): its runs overlap with our own work.
    with ThreadPoolExecutor(max_workers=4) as pool:
        original_run = pool.submit(run_oracle, oracle, asm.top)
        doc = load(asm.top, LoadContext(search_paths=[asm.folder], use_environment=False))
        write_sdformat(doc, modular, flatten=False)   # the includes stay includes
        write_sdformat(doc, flat, flatten=True)       # apart from the parts: self-contained
        openplx_format.write(doc, openplx)
        write_urdf(doc, urdf)
        runs = {"sdformat modular": pool.submit(run_oracle, oracle, modular),
                "sdformat flattened": pool.submit(run_oracle, oracle, flat)}
        if asm.is_tree:
            runs["urdf"] = pool.submit(run_oracle, oracle, urdf)
        problems: dict[str, list[str]] = {}
        original = original_run.result()
        assert original["errors"] == [], (asm.seed, original["errors"])
        expected = oracle_poses(original)
        ours, errors = _snapframe_links(asm.top)
        problems["snapframe frames (original)"] = errors + misplaced(expected, ours)
        for label, path in (("sdformat modular", modular), ("sdformat flattened", flat)):
            back, errors = _snapframe_links(path)
            problems[f"{label} / snapframe"] = errors + misplaced(expected, back)

        # OpenPLX: read back, which assembles the written systems with SNAP.
        back_doc = openplx_format.read(openplx)
        errors = [d.format() for d in back_doc.diagnostics.errors]
        back = {} if back_doc.root is None else \
            {f.name: f.pose for f in back_doc.frames.frames() if f.kind == "link"}
        if asm.is_world and back_doc.root is not None:
            back = _strip(back, f"{back_doc.root.name}{SEP}")
        problems["openplx / snap"] = errors + misplaced(expected, back)

        # URDF: scoped names become URDF names; poses count from the root link (URDF's
        # model frame), or from the world when the tree hangs from a "world" link.
        root = _urdf_root(urdf)
        robot = etree.parse(str(urdf)).getroot().get("name")
        top_prefix = "" if asm.is_world else f"{asm.top_name}{SEP}"
        renamed = {f"{robot}{SEP}{_strip({n: X}, top_prefix).popitem()[0].replace(SEP, '_')}": X
                   for n, X in expected.items()}
        reference = f"{robot}{SEP}{root}"
        if root != "world":
            renamed = relative_to(renamed, reference)
        back, errors = _snapframe_links(urdf)
        if root != "world":
            back = relative_to(back, reference)
        problems["urdf / snapframe"] = errors + misplaced(renamed, back)

        for label, run in runs.items():
            theirs = run.result()
            got = oracle_poses(theirs)
            if label == "urdf" and root != "world" and reference in got:
                got = relative_to(got, reference)
            problems[f"{label} / libsdformat"] = [e["message"] for e in theirs["errors"]] + \
                misplaced(renamed if label == "urdf" else expected, got)
    return problems


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(CASES))
def test_every_writer_keeps_every_link_where_libsdformat_puts_it(tmp_path, oracle, seed):
    asm = make_assembly(tmp_path / f"assembly_{seed}", seed)
    problems = {writer: found for writer, found in check_assembly(asm, oracle).items() if found}
    assert problems == {}, f"seed {seed} ({asm.top.name}): {problems}"


def test_the_cases_cover_worlds_forests_groups_and_repeated_includes(tmp_path):
    # The generator must keep producing what the round trip is meant to exercise.
    kinds = {"world": 0, "forest": 0, "group": 0, "repeated": 0, "placement": 0, "weld": 0}
    for seed in range(CASES):
        asm = make_assembly(tmp_path / f"a{seed}", seed)
        top = (asm.folder / "top.sdf").read_text()
        kinds["world"] += asm.is_world
        kinds["forest"] += not asm.is_tree and not asm.is_world
        kinds["group"] += '<model name="group">' in top
        uris = [line for line in top.split("<uri>")[1:]]
        kinds["repeated"] += len({u.split("<")[0] for u in uris}) < len(uris)
        kinds["placement"] += "<placement_frame>" in top
        kinds["weld"] += "weld_" in top
    assert all(count > 0 for count in kinds.values()), kinds
