"""Bad ``.fpm`` input gives a FloorPlanError naming the file, line, column and element."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from snapframe.plugins.floorplan.dsl import load_fpm
from snapframe.plugins.floorplan.errors import FloorPlanError

STUDIO = (Path(__file__).resolve().parents[2] / "data" / "floorplan" / "studio" / "fpm"
          / "studio.fpm").read_text()
NAME = "bad.fpm"


def at(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based line and column of the ``nth`` occurrence of ``needle``."""
    pos = -1
    for _ in range(nth + 1):
        pos = text.index(needle, pos + 1)
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def error_of(text: str) -> FloorPlanError:
    with pytest.raises(FloorPlanError) as info:
        load_fpm(NAME, text)
    return info.value


def edit(old: str, new: str, count: int = 1) -> str:
    assert old in STUDIO
    return STUDIO.replace(old, new, count)


# (case, edited text, text at the error, words in the message, element)
CASES = [
    ("syntax: missing comma",
     edit("width=6.0 m, length=4.0 m", "width=6.0 m length=4.0 m"),
     "length=4.0 m", ["syntax error", "expected ','"], None),
    ("syntax: unknown keyword",
     edit("            wrt: world\n", "            whereabouts: world\n"),
     "whereabouts", ["syntax error", "'wrt'"], None),
    ("unknown space",
     edit("wrt: lab.walls[2]", "wrt: labb.walls[2]"),
     "labb.walls[2]", ["unknown space 'labb'"], "hall"),
    ("wall index out of range (opening)",
     edit("in: lab.walls[2]", "in: lab.walls[7]"),
     "lab.walls[7]", ["4 walls", "walls[7] does not exist"], "lab_hall"),
    ("wall index out of range (of)",
     edit("of: this.walls[0]", "of: this.walls[4]"),
     "this.walls[4]", ["walls[4] does not exist"], "hall"),
    ("negative wall index",
     edit("in: lab.walls[0]", "in: lab.walls[-1]"),
     "lab.walls[-1]", ["walls[-1] does not exist"], "lab_win"),
    ("unknown variable",
     edit("width=door_w", "width=door_ww"),
     "door_ww", ["unknown variable 'door_ww'"], "lab_hall"),
    ("angle variable in a length slot",
     edit("var door_w = 0.9 m", "var door_w = 0.9 deg"),
     "door_w,", ["width is a length", "'door_w' is an angle"], "lab_hall"),
    ("angle unit in a length slot",
     edit("x: 1.5 m, z: 1.05 m", "x: 1.5 deg, z: 1.05 m"),
     "1.5 deg", ["translation x is a length", "'deg'"], "lab_hall"),
    ("length unit in an angle slot",
     edit("translation: x: 1.0 m, y: 0.5 m", "translation: x: 1.0 m, y: 0.5 m\n"
          "                    rotation: z: 30 m"),
     "30 m", ["rotation z is an angle", "'m'"], "pillar"),
    ("variable without unit",
     edit("var door_w = 0.9 m", "var door_w = 0.9"),
     "0.9\n", ["needs a unit"], "door_w"),
    ("space without wall defaults",
     edit("    Defaults:\n        walls:\n            thickness: 0.2 m\n            height: 2.6 m\n", ""),
     "Space lab", ["no wall thickness", "Defaults"], "lab"),
    ("defaults without height",
     edit("            height: 2.6 m\n", ""),
     "Space lab", ["no wall height"], "lab"),
    ("Circle opening",
     edit("shape: Rectangle width=1.5 m, height=1.0 m", "shape: Circle radius=0.5 m"),
     "Circle radius", ["Rectangle with width and height", "not a Circle"], "lab_win"),
    ("opening rectangle with length",
     edit("width=1.5 m, height=1.0 m", "width=1.5 m, length=1.0 m"),
     "Rectangle width=1.5", ["width and height"], "lab_win"),
    ("space rectangle with height",
     edit("width=6.0 m, length=4.0 m", "width=6.0 m, height=4.0 m"),
     "Rectangle width=6.0", ["width and length"], "lab"),
    ("spaced relative to the world",
     edit("            of: this\n", "            of: this\n            spaced\n"),
     "spaced\n", ["world", "spaced"], "lab"),
    ("spaced with a y translation",
     edit("            spaced\n", "            spaced\n            translation: y: 1 m\n"),
     "y: 1 m", ["drop the translation in y"], "hall"),
    ("opening moved along y",
     edit("translation: x: 0.0 m, z: 1.4 m", "translation: x: 0.0 m, y: 0.1 m, z: 1.4 m"),
     "y: 0.1 m", ["x and z", "not y"], "lab_win"),
    ("space turned about x",
     edit("            of: this\n", "            of: this\n            rotation: x: 10 deg\n"),
     "x: 10 deg", ["about z", "not x"], "lab"),
    ("duplicate name",
     edit("Space hall:", "Space lab:"),
     "Space lab:", ["already used", "line 9"], "lab"),
    ("placement cycle",
     edit("            wrt: world\n            of: this\n",
          "            wrt: hall.walls[0]\n            of: this.walls[2]\n"),
     "wrt: hall", ["depends on itself"], "lab"),
    ("negative thickness",
     edit("thickness: 0.1 m", "thickness: -0.1 m"),
     "-0.1 m", ["must be positive"], "hall"),
    ("number too large",
     edit("width=6.0 m, length=4.0 m", "width=1e300 m, length=4.0 m"),
     "1e300 m", ["out of range"], "lab"),
    ("zero width",
     edit("width=6.0 m, length=4.0 m", "width=0 m, length=4.0 m"),
     "0 m, length", ["width must be positive"], "lab"),
    ("repeated polygon corner",
     edit("shape: Rectangle width=6.0 m, length=2.0 m",
          "shape: Polygon points:[(0 m, 0 m), (0 m, 1 m), (0 m, 1 m), (2 m, 0 m)]"),
     "(0 m, 1 m), (2", ["same point"], "hall"),
    ("polygon on a line",
     edit("shape: Rectangle width=6.0 m, length=2.0 m",
          "shape: Polygon points:[(0 m, 0 m), (1 m, 1 m), (2 m, 2 m)]"),
     "Polygon points", ["no area"], "hall"),
    ("two points only",
     edit("shape: Rectangle width=6.0 m, length=2.0 m",
          "shape: Polygon points:[(0 m, 0 m), (1 m, 1 m)]"),
     "Polygon points", ["at least 3"], "hall"),
    ("three walls for an opening",
     edit("in: lab.walls[0]", "in: lab.walls[0] and lab.walls[1] and lab.walls[3]"),
     "lab.walls[3]", ["not 3"], "lab_win"),
    ("opening in a space, not a wall",
     edit("in: lab.walls[0]", "in: lab"),
     "lab\n", ["names walls"], "lab_win"),
    ("of naming another space",
     edit("of: this.walls[0]", "of: lab.walls[0]"),
     "lab.walls[0]\n", ["'this'"], "hall"),
    ("'this' outside a space",
     edit("in: lab.walls[0]", "in: this.walls[0]"),
     "this.walls[0]", ["enclosing space"], "lab_win"),
    ("a column is not a frame",
     edit("wrt: lab.walls[2]", "wrt: pillar.walls[2]"),
     "pillar.walls[2]", ["'pillar' is a column, not a space"], "hall"),
    ("entry given twice",
     edit("            wrt: world\n", "            wrt: world\n            wrt: world\n"),
     "wrt: world", ["given twice"], "lab"),
    ("entry of another element kind",
     edit("            wrt: world\n", "            wrt: world\n            in: lab.walls[0]\n"),
     "in: lab", ["not part of a space's location"], "lab"),
    ("world has no walls",
     edit("wrt: world", "wrt: world.walls[0]"),
     "world.walls[0]", ["no walls"], "lab"),
    ("reserved name",
     edit("Space hall:", "Space world:"),
     "Space world", ["reserved"], "world"),
]


@pytest.mark.parametrize("case, text, needle, words, element", CASES, ids=[c[0] for c in CASES])
def test_located_error(case, text, needle, words, element):
    err = error_of(text)
    nth = 1 if case in ("duplicate name", "entry given twice", "'this' outside a space") else 0
    assert err.file == NAME
    assert (err.line, err.column) == at(text, needle, nth), str(err)
    for w in words:
        assert w in err.message, str(err)
    assert err.element == element
    # the printed form starts with file:line:column
    assert str(err).startswith(f"{NAME}:{err.line}:{err.column}: ")


def test_a_feature_named_like_a_space_is_qualified_by_its_space():
    # feature names are scoped by their space (`lab.hall` in the Variation DSL)
    plan = load_fpm(NAME, edit("Column pillar:", "Column hall:"))
    assert "lab.hall" in plan.features and "hall" in plan.spaces


def test_end_of_file_inside_a_space():
    text = STUDIO[:STUDIO.index("location:")]
    err = error_of(text)
    assert err.line == text.count("\n") + 1 and "end of the file" in err.message


def test_unreadable_and_binary_files(tmp_path):
    with pytest.raises(FloorPlanError) as info:
        load_fpm(tmp_path / "missing.fpm")
    assert info.value.file == str(tmp_path / "missing.fpm") and "cannot read" in info.value.message
    bad = tmp_path / "binary.fpm"
    bad.write_bytes(b"Floor plan: x\n\xff\xfe")
    with pytest.raises(FloorPlanError) as info:
        load_fpm(bad)
    assert "UTF-8" in info.value.message
    with pytest.raises(FloorPlanError) as info:
        load_fpm(tmp_path)                      # a folder
    assert "cannot read" in info.value.message


def test_comments_do_not_move_locations():
    text = edit("wrt: lab.walls[2]", "wrt: labb.walls[2] // the lab /* not */").replace(
        "Floor plan: studio", "/* a block\ncomment */ Floor plan: studio // trailing")
    err = error_of(text)
    assert (err.line, err.column) == at(text, "labb.walls[2]")


def test_windows_line_endings_keep_lines():
    text = edit("in: lab.walls[2]", "in: lab.walls[9]").replace("\n", "\r\n")
    err = error_of(text)
    assert err.line == at(text.replace("\r\n", "\n"), "lab.walls[9]")[0]


def test_every_error_is_a_floorplan_error_never_a_crash():
    """Cutting the studio text after every token gives a located error, never another
    exception."""
    tokens = [m.end() for m in re.finditer(r"\S+", STUDIO)]
    for end in tokens[:-1]:
        try:
            load_fpm(NAME, STUDIO[:end])
        except FloorPlanError as err:
            assert err.file == NAME and err.line is not None
