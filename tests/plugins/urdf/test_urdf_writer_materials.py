"""A URDF written back keeps its robot-level ``<material name=...>`` definitions: the
visuals that name them (``<material name="orange"/>``) keep their colour in the saved file
and in any reader of it (urdfdom resolves such a name among the robot's materials)."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from snapframe.core.model import Visual
from snapframe.plugins.urdf.reader import read as read_urdf
from snapframe.plugins.urdf.writer import write

DATA = Path(__file__).resolve().parents[2] / "data" / "urdf"


def _colour(document, link: str) -> tuple | None:
    visual = next(v for v in document.nodes() if isinstance(v, Visual) and v.parent.name == link)
    return visual.color


def test_a_saved_urdf_keeps_the_materials_its_visuals_name(tmp_path):
    original = read_urdf(DATA / "arm.urdf")
    # arm.urdf: <material name="orange"><color rgba="1 0.5 0 1"/></material> at robot
    # level, named by base_link's visual
    assert _colour(original, "base_link") == (1.0, 0.5, 0.0, 1.0)
    write(original, tmp_path / "arm.urdf")
    robot = etree.parse(str(tmp_path / "arm.urdf")).getroot()
    defined = robot.findall("material")
    assert [m.get("name") for m in defined] == ["orange"]
    assert defined[0].find("color").get("rgba") == "1 0.5 0 1"
    assert robot.index(defined[0]) == 0           # before the links, as URDF files put it
    back = read_urdf(tmp_path / "arm.urdf")
    assert [d.message for d in back.diagnostics.warnings if "material" in d.message] == []
    assert _colour(back, "base_link") == (1.0, 0.5, 0.0, 1.0)
    assert _colour(back, "forearm") == _colour(original, "forearm")   # a link's own, reused
