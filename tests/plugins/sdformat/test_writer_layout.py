"""A modular save writes the elements the editor added on lines of their own, indented as
their siblings are in the file (whatever its indentation unit), and taking one away again
gives back the file as it was; includes of files only Snapframe reads are reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapframe.core.diagnostics import Code, Severity
from snapframe.core.loading import LoadContext, load
from snapframe.core.model.edits import AddInclude, AddJoint

MODEL = """<?xml version="1.0"?>
<sdf version="1.9">
{i}<model name="m">
{i}{i}<link name="a"/>
{i}{i}<link name="b">
{i}{i}{i}<pose>1 0 0 0 0 0</pose>
{i}{i}</link>
{i}</model>
</sdf>
"""


@pytest.mark.parametrize("unit", ["  ", "    ", "\t"])
def test_an_added_joint_is_indented_like_its_siblings(tmp_path: Path, unit: str):
    path = tmp_path / "m.sdf"
    original = MODEL.format(i=unit)
    path.write_text(original)
    doc = load(path, LoadContext(use_environment=False))
    doc.commands.push(AddJoint(doc, doc.root, "j", "revolute", "a", "b"))
    assert doc.save(flatten=False) == []
    lines = path.read_text().splitlines()
    start = lines.index(f"{unit * 2}<joint name=\"j\" type=\"revolute\">")
    end = lines.index(f"{unit * 2}</joint>")
    assert lines[start - 1] == f"{unit * 2}</link>"            # after the last link
    inner = lines[start + 1:end]
    assert f"{unit * 3}<parent>a</parent>" in inner and f"{unit * 3}<child>b</child>" in inner
    assert all(line.startswith(unit * 3) for line in inner)
    assert lines[end + 1:] == [f"{unit}</model>", "</sdf>"]       # closing tags in place
    again = load(path, LoadContext(use_environment=False))
    assert again.element("j") is not None and not again.diagnostics.errors
    doc.commands.undo()
    assert doc.save(flatten=False) == []
    assert path.read_text().splitlines()[2:] == original.splitlines()[2:]


def test_an_include_of_a_file_only_snapframe_reads_is_reported_and_kept(tmp_path: Path):
    import shutil
    shutil.copytree(Path(__file__).resolve().parents[3] / "resources" / "examples" /
                    "floorplan", tmp_path, dirs_exist_ok=True)
    world = tmp_path / "w.sdf"
    world.write_text('<?xml version="1.0"?>\n<sdf version="1.9">\n  <world name="w">\n'
                     '  </world>\n</sdf>\n')
    doc = load(world, LoadContext(use_environment=False))
    doc.commands.push(AddInclude(doc, doc.root, "flat.fpm", name="plan"))
    found = doc.save(flatten=False)
    [warning] = [d for d in found if d.severity >= Severity.WARNING]
    assert warning.code == Code.NOT_PORTABLE and warning.key == "plan"
    assert warning.message == "include plan: libsdformat and Gazebo cannot load flat.fpm; " \
                              "Save As SDFormat flattened writes it in place"
    assert doc.commands.is_clean                      # kept as it is: saved, not exported
    assert "<uri>flat.fpm</uri>" in world.read_text()
    # flattened, the plan is written in place: nothing to report
    flat = doc.save(tmp_path / "flat_w.sdf", flatten=True)
    assert not [d for d in flat if d.severity >= Severity.WARNING]
    assert "<include>" not in (tmp_path / "flat_w.sdf").read_text()
