"""``snapframe convert`` turns every bundled example into every writable format, and what
it writes puts every link where the example does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lxml import etree

from snapframe.core.loading import LoadContext, load
from snapframe.core.model.names import SEP
from snapframe.editor.cli import main
from tests.plugins.composite_assemblies import misplaced, relative_to

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.relative_to(REPO / "resources" / "examples")
                  for p in (REPO / "resources" / "examples").rglob("*")
                  if p.suffix in (".sdf", ".openplx"))
TARGETS = {"modular.sdf": [], "flat.sdf": ["--flatten"], "out.openplx": [], "out.urdf": []}


def _links(path: Path) -> dict:
    doc = load(path, LoadContext(search_paths=[path.parent], use_environment=False))
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    return {f.name: f.pose for f in doc.frames.frames() if f.kind == "link"}


def _from_root(poses: dict, robot: str, root: str) -> dict:
    """Poses from URDF's model frame: the root link's, or the world's for a "world" root."""
    return poses if root == "world" else relative_to(poses, f"{robot}{SEP}{root}")


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
@pytest.mark.parametrize("target", TARGETS)
def test_convert_writes_every_example_in_every_format_in_place(tmp_path, example, target):
    folder = tmp_path / "examples"
    shutil.copytree(REPO / "resources" / "examples" / example.parent, folder)
    source = folder / example.name
    out = folder / f"{source.stem}_{target}"    # next to the parts: modular includes resolve
    assert main(["convert", str(source), str(out), *TARGETS[target]]) == 0
    expected = _links(source)
    got = _links(out)
    if out.suffix == ".urdf":
        robot = etree.parse(str(out)).getroot()
        children = {j.find("child").get("link") for j in robot.iter("joint")}
        root = next(el.get("name") for el in robot.iter("link")
                    if el.get("name") not in children)
        name = robot.get("name")
        expected = {f"{name}{SEP}{n.split(SEP, 1)[1].replace(SEP, '_')}": X
                    for n, X in expected.items()}
        expected = _from_root(expected, name, root)
        got = _from_root(got, name, root)
    assert misplaced(expected, got) == []
