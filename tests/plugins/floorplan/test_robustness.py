"""Plans that are valid but awkward, and files that are hostile: each is read, built or
refused with a located diagnostic, never a crash, a hang or unbounded work (issue 12's
review, tests/plugins/floorplan/test_floorplan_review.py, has one test per bug; these
check the fixes further).

Expected values are worked out by hand from the FloorPlan rules (floorplan.md 2.2: wall
i's frame runs from corner i to corner i+1, y to its left, the wall ``t`` thick along +y,
outer corners mitred) or come from pyld itself (pristine ``JsonLdProcessor``).
"""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.diagnostics import Severity
from snapframe.core.model import Plugin
from snapframe.plugins.floorplan.dsl import load_fpm
from snapframe.plugins.floorplan.errors import FloorPlanError
from snapframe.plugins.floorplan.expansion import (MAX_CONTEXT_LIST, ContextBudget, expand,
                                                   expand_with_pyld)
from snapframe.plugins.floorplan.format import read
from snapframe.plugins.floorplan.geometry import (building_pieces, signed_volume,
                                                  triangulate_polygon, wall_pieces)
from snapframe.plugins.floorplan.jsonld import load_jsonld
from snapframe.plugins.floorplan.world import build_document, door_model
from tests.plugins.floorplan.jsonld_cases import JSONLD, STUDIO, studio_with_door

HEADER = """Floor plan: {name}
    Defaults:
        walls:
            thickness: 0.2 m
            height: 2.5 m

"""
T, H = 0.2, 2.5


def _plan_text(name: str, points, extra: str = "") -> str:
    listed = ", ".join(f"({x} m, {y} m)" for x, y in points)
    return HEADER.format(name=name) + f"""    Space room:
        shape: Polygon points: [{listed}]
        location:
            wrt: world
            of: this
{extra}"""


def assert_closed_outward(piece) -> None:
    edges: dict[tuple[int, int], int] = {}
    for a, b, c in piece.triangles:
        for e in ((a, b), (b, c), (c, a)):
            edges[e] = edges.get(e, 0) + 1
    for (a, b), count in edges.items():
        assert count == 1 and edges.get((b, a)) == 1, (piece.name, a, b)
    assert signed_volume(piece.vertices, piece.triangles) > 0


# -- a short wall between two reflex corners --------------------------------------------

@pytest.mark.parametrize("width,volume", [
    # width 2t: the mitres meet at the outer line, (0, 1.2): a triangle 0.4 wide, 0.2 high
    (0.4, 0.5 * 0.4 * 0.2 * H),
    # width 1.5t: the 45 degree mitres from (-0.15, 1) and (0.15, 1) meet at (0, 1.15)
    (0.3, 0.5 * 0.3 * 0.15 * H),
], ids=["niche-2t", "niche-1.5t"])
def test_the_back_wall_of_a_narrow_notch_is_built_as_its_mitres_leave_it(tmp_path, width,
                                                                          volume):
    h = width / 2
    path = tmp_path / "notch.fpm"
    path.write_text(_plan_text("notch", [(-2.0, 2.0), (-h, 2.0), (-h, 1.0), (h, 1.0), (h, 2.0),
                                         (2.0, 2.0), (2.0, -2.0), (-2.0, -2.0)]))
    plan = load_fpm(path)
    back = plan.walls["room-wall-2"]            # (-h, 1) -> (h, 1), out of the room: +y
    problems: list[FloorPlanError] = []
    pieces = building_pieces(plan, problems=problems)
    assert problems == []
    built = [p for p in pieces if p.element == back.name]
    assert [p.name for p in built] == [back.name]
    assert_closed_outward(built[0])
    assert signed_volume(built[0].vertices, built[0].triangles) == pytest.approx(volume)
    # inside the notch's back wall, not beyond the mitres' meeting point
    assert built[0].vertices[:, 1].max() <= 1.0 + (h if width < 2 * T else T) + 1e-12
    doc = read(path)
    assert not doc.diagnostics.errors and not doc.diagnostics.warnings


def test_an_opening_in_a_wall_whose_mitres_cross_is_cut_from_what_is_left(tmp_path):
    """A window in the notch's back wall (1.5 t wide): the wall is the triangle of the
    test above, the 0.1 m x 0.5 m window at its middle takes 0.1 x 0.5 x its depth there."""
    path = tmp_path / "notch.fpm"
    path.write_text(_plan_text("notch", [(-2.0, 2.0), (-0.15, 2.0), (-0.15, 1.0), (0.15, 1.0),
                                         (0.15, 2.0), (2.0, 2.0), (2.0, -2.0), (-2.0, -2.0)],
                               """
    Window w:
        shape: Rectangle width=0.1 m, height=0.5 m
        location:
            in: room.walls[2]
            translation: x: 0.0 m, z: 1.0 m
"""))
    plan = load_fpm(path)
    pieces = wall_pieces(plan.walls["room-wall-2"], [plan.openings["w"]])
    for piece in pieces:
        assert_closed_outward(piece)
    # the window (|x| <= 0.05) cuts through the triangle, whose depth at x is 0.15 - |x|:
    # the cut-out prism is 0.5 high over the area of the triangle between x = -0.05, 0.05
    cut = 0.5 * (2 * (0.15 * 0.05 - 0.05 ** 2 / 2))
    total = sum(signed_volume(p.vertices, p.triangles) for p in pieces)
    assert total == pytest.approx(0.5 * 0.3 * 0.15 * H - cut)


def test_numbers_no_solid_can_be_made_of_are_reported_naming_the_wall():
    """A wall with a corner at 1e300 m (a model built by hand: the readers refuse such
    numbers): building the plan reports it, located, and builds the rest."""
    plan = load_fpm("box.fpm", _plan_text("box", [(-2, 2), (2, 2), (2, -2), (-2, -2)]))
    wall = plan.walls["room-wall-1"]
    wall.points = wall.points.copy()
    wall.points[0] = (1e300, -1e300, 0.0)
    problems: list[FloorPlanError] = []
    pieces = building_pieces(plan, problems=problems)
    assert [(p.element, p.file, p.line) for p in problems] == [("room-wall-1", "box.fpm", 7)]
    assert {p.element for p in pieces} >= {"room-wall-0", "room-wall-2", "room-wall-3"}


def test_a_huge_json_ld_coordinate_is_a_located_error(tmp_path):
    folder = tmp_path / "square"
    shutil.copytree(JSONLD / "square", folder)
    coords = folder / "coordinate.json"
    document = json.loads(coords.read_text())
    node = next(n for n in document["@graph"] if "x" in n)
    node["x"] = 1e300
    coords.write_text(json.dumps(document))
    doc = read(folder)
    (error,) = doc.diagnostics.errors
    assert error.file == str(coords) and error.element == node["@id"]
    assert "out of range" in error.message


def test_a_json_int_too_long_to_read_is_located_at_its_line(tmp_path):
    folder = tmp_path / "square"
    shutil.copytree(JSONLD / "square", folder)
    coords = folder / "coordinate.json"
    lines = coords.read_text().splitlines()
    at = next(k for k, line in enumerate(lines) if '"x":' in line)
    column = lines[at].index('"x":') + 6
    lines[at] = lines[at][:column - 1] + "1" * 5000 + ","
    coords.write_text("\n".join(lines))
    with pytest.raises(FloorPlanError) as caught:
        load_jsonld(folder)
    assert (caught.value.file, caught.value.line, caught.value.column) == \
        (str(coords), at + 1, column)


# -- counter-clockwise spaces ------------------------------------------------------------

CCW = [(-3, 2), (-3, -2), (3, -2), (3, 2)]


def test_a_counter_clockwise_room_is_built_closed_and_warned_about(tmp_path):
    """Thickened into the room: the long walls are trapezoids 6 m inside, 5.6 m at their
    inner face, the short ones 4 and 3.6 m, all 0.2 m deep and 2.5 m high."""
    path = tmp_path / "ccw.fpm"
    path.write_text(_plan_text("ccw", CCW))
    plan = load_fpm(path)
    pieces = [p for p in building_pieces(plan) if p.kind == "wall"]
    for piece in pieces:
        assert_closed_outward(piece)
    total = sum(signed_volume(p.vertices, p.triangles) for p in pieces)
    assert total == pytest.approx(2 * ((6 + 5.6) / 2 + (4 + 3.6) / 2) * T * H)
    doc = read(path)
    (warning,) = doc.diagnostics.warnings
    assert (warning.severity, warning.file, warning.line, warning.element) == \
        (Severity.WARNING, str(path), 8, "room")
    assert "counter-clockwise" in warning.message and "into the room" in warning.message
    assert not doc.diagnostics.errors


def test_a_json_ld_space_listed_counter_clockwise_is_warned_about(tmp_path):
    """The square example with its room's polygon listed the other way round."""
    folder = tmp_path / "square"
    shutil.copytree(JSONLD / "square", folder)
    shapes = folder / "shape.json"
    document = json.loads(shapes.read_text())
    polygon = next(n for n in document["@graph"] if n["@id"] == "my_room-polygon")
    polygon["points"].reverse()
    shapes.write_text(json.dumps(document))
    plan = load_jsonld(folder)
    (warning,) = plan.warnings
    assert warning.element == "my_room" and warning.file == str(folder / "floorplan.json")
    assert load_jsonld(JSONLD / "square").warnings == []


# -- long chains of spaces ---------------------------------------------------------------

def test_spaces_chained_in_either_order_are_placed_the_same():
    """Each 2 x 2 m room spaced against the previous one's right wall: room i's centre
    is at x = 2.2 i (two walls 0.1 m thick between them)."""
    def text(order):
        out = """Floor plan: chain
    Defaults:
        walls:
            thickness: 0.1 m
            height: 2.0 m
"""
        for i in order:
            wrt = "world" if i == 0 else f"s{i - 1}.walls[1]"
            of = "this" if i == 0 else "this.walls[3]"
            out += (f"    Space s{i}:\n        shape: Rectangle width=2.0 m, length=2.0 m\n"
                    f"        location:\n            wrt: {wrt}\n            of: {of}\n"
                    + ("            spaced\n" if i else ""))
        return out
    n = 40
    forward = load_fpm("a.fpm", text(range(n)))
    backward = load_fpm("b.fpm", text(reversed(range(n))))
    for i in range(n):
        np.testing.assert_allclose(forward.spaces[f"s{i}"].X_WF[:3, 3], (2.2 * i, 0, 0),
                                   atol=1e-9)
        np.testing.assert_allclose(backward.spaces[f"s{i}"].X_WF, forward.spaces[f"s{i}"].X_WF,
                                   atol=1e-9)


def test_a_loop_of_three_spaces_placed_against_each_other_is_located():
    text = HEADER.format(name="loop")
    for name, other in (("a", "b"), ("b", "c"), ("c", "a")):
        text += (f"    Space {name}:\n        shape: Rectangle width=2.0 m, length=2.0 m\n"
                 f"        location:\n            wrt: {other}\n            of: this\n")
    with pytest.raises(FloorPlanError) as caught:
        load_fpm("loop.fpm", text)
    assert "depends on itself" in caught.value.message
    assert caught.value.element == "a" and caught.value.line == 10


# -- doors -------------------------------------------------------------------------------

def _set_state(folder: Path, value: float) -> Path:
    states = folder / "doors" / "object-door-states.json"
    document = json.loads(states.read_text())
    for node in document["@graph"]:
        if node.get("@id") == "door:joint-position-ajar":
            node["value"] = value
    states.write_text(json.dumps(document))
    return states


@pytest.mark.parametrize("value,held,limit", [(2.5, 1.57, "upper limit 1.57"),
                                              (-0.3, 0.0, "lower limit 0")])
def test_a_start_state_beyond_a_limit_starts_at_the_limit_with_a_warning(tmp_path, value,
                                                                         held, limit):
    folder = studio_with_door(tmp_path)
    states = _set_state(folder, value)
    plan = load_jsonld(folder)
    assert plan.doors[0].positions == {"joint-hinge": value}    # as the file says
    doc = build_document(plan)
    (warning,) = [d for d in doc.diagnostics.items if "start state" in d.message]
    assert warning.severity == Severity.WARNING
    assert (warning.file, warning.element) == (str(states), "joint-hinge")
    assert "state-ajar" in warning.message and limit in warning.message
    door = doc.root.models[1]
    (plugin,) = door.of(Plugin)
    assert float(plugin.xml.findtext("initial_position")) == held
    (joint,) = door.joints[:1]
    assert joint.extras["floorplan_joint"]["start"] == held


def test_a_start_state_within_the_limits_gives_no_warning(tmp_path):
    plan = load_jsonld(studio_with_door(tmp_path))
    doc = build_document(plan)
    assert not [d for d in doc.diagnostics.items if "start state" in d.message]
    (plugin,) = doc.root.models[1].of(Plugin)
    assert float(plugin.xml.findtext("initial_position")) == 0.5      # ajar, as written


def _add_joint(folder: Path, parent: str, child: str) -> None:
    path = folder / "doors" / "object-door.json"
    document = json.loads(path.read_text())
    graph = document["@graph"]
    graph.append({"@id": "door:joint-extra", "@type": ["Joint", "RevoluteJoint"],
                  "between-attachments": [parent, child], "common-axis": "door:axis-hinge"})
    graph.append({"@id": "door:joint-extra-tree", "@type": "JointWithTree",
                  "joint-without-tree": "door:joint-extra", "parent": parent,
                  "children": [child]})
    for node in graph:
        if node["@id"] == "door:kinematic-chain":
            node["joints"].append("door:joint-extra")
    path.write_text(json.dumps(document))


def test_a_door_whose_joints_form_a_loop_is_refused_naming_them(tmp_path):
    folder = studio_with_door(tmp_path)
    _add_joint(folder, "door:leaf", "door:lining")
    with pytest.raises(FloorPlanError) as caught:
        load_jsonld(folder)
    error = caught.value
    assert error.file == str(folder / "doors" / "object-door.json")
    assert "joint-hinge" in error.message and "joint-extra" in error.message
    assert "loop" in error.message
    doc = read(folder)                     # the document: one error, nothing raised
    assert [d.file for d in doc.diagnostics.errors] == [error.file]


def test_a_link_moved_by_two_joints_is_refused(tmp_path):
    folder = studio_with_door(tmp_path)
    _add_joint(folder, "door:lining", "door:leaf")
    with pytest.raises(FloorPlanError) as caught:
        load_jsonld(folder)
    assert "two joints" in caught.value.message
    assert "joint-hinge" in caught.value.message and "joint-extra" in caught.value.message


def test_a_door_model_of_a_tree_still_welds_its_root_to_the_world(tmp_path):
    plan = load_jsonld(studio_with_door(tmp_path))
    model = door_model(plan.doors[0])
    assert [(j.parent_name, j.child_name) for j in model.joints if j.parent_name == "world"] \
        == [("world", "lining")]


# -- JSON-LD context work ----------------------------------------------------------------

def _pristine(document, path: Path, base: str):
    """``pyld``'s own expansion (its processor as shipped) against the bundled contexts."""
    from pyld import jsonld
    from pyld.context_resolver import ContextResolver
    from snapframe.plugins.floorplan.context_loader import make_document_loader
    loader = make_document_loader(path)
    return jsonld.JsonLdProcessor().expand(document, {
        "documentLoader": loader, "contextResolver": ContextResolver({}, loader),
        "base": base})


def _hostile(nodes: int, terms: int) -> dict:
    scoped = {f"t{i}": f"http://x.example/t{i}" for i in range(terms)}
    return {"@context": {"@vocab": "http://x.example/",
                         "T": {"@id": "http://x.example/T", "@context": scoped},
                         "q": {"@id": "http://x.example/q", "@context": {"t1": "http://y/t"}}},
            "@graph": [{"@id": f"n{i}", "@type": "T", "t0": i, "q": {"t1": 2, "t2": 3},
                        "p": {"@id": f"m{i}", "@type": "T", "t1": "v"}}
                       for i in range(nodes)]}


DOORS = sorted(STUDIO.glob("door-jsonld/*.json"))


@pytest.mark.parametrize("path", DOORS, ids=lambda p: p.name)
def test_the_bounded_expansion_is_pyld_expansion_on_real_door_files(path):
    document = json.loads(path.read_text())
    base = path.resolve().as_uri()
    assert expand_with_pyld(document, path, base).nodes == _pristine(document, path, base)


def test_the_bounded_expansion_is_pyld_expansion_with_embedded_scoped_nodes(tmp_path):
    path = tmp_path / "x.json"
    document = _hostile(30, 20)
    expanded = expand(document, path, path.as_uri())
    assert not expanded.fast
    assert expanded.nodes == _pristine(_hostile(30, 20), path, path.as_uri())


def test_context_work_beyond_the_budget_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "x.json"
    with pytest.raises(FloorPlanError) as caught:
        expand(_hostile(50, 1000), path, path.as_uri(), ContextBudget(definitions=500))
    assert caught.value.file == str(path) and "term definitions" in caught.value.message
    spent = ContextBudget()
    expand(_hostile(50, 1000), path, path.as_uri(), spent)
    assert 1000 <= spent.defined < 5 * 1000        # the scoped context: a few times


URL = "https://comp-rob2b.github.io/metamodels/geometry/structural-entities.json"
QUDT = "https://comp-rob2b.github.io/metamodels/qudt.json"


def test_a_context_url_named_many_times_in_a_row_is_processed_once(tmp_path):
    path = tmp_path / "x.json"
    graph = [{"@id": "https://example.org/f", "@type": "Frame",
              "origin": "https://example.org/o"}]
    spent = ContextBudget()
    many = expand({"@context": [URL] * 100_000 + [QUDT] * 1000, "@graph": graph}, path,
                  path.as_uri(), spent)
    once = _pristine({"@context": [URL, QUDT], "@graph": graph}, path, path.as_uri())
    assert many.nodes == once
    assert spent.defined < 1000


def test_a_long_list_of_contexts_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "x.json"
    document = {"@context": [URL, QUDT] * MAX_CONTEXT_LIST, "@graph": []}
    with pytest.raises(FloorPlanError) as caught:
        expand(document, path, path.as_uri())
    assert caught.value.file == str(path)
    assert f"lists {2 * MAX_CONTEXT_LIST} contexts" in caught.value.message


# -- triangulation -----------------------------------------------------------------------

def comb(teeth: int) -> np.ndarray:
    """Teeth 1 m wide and 10 m high, 1 m apart, on a base 1.5 m deep (clockwise)."""
    ring = []
    for i in range(teeth):
        ring += [(2.0 * i, 0.0), (2.0 * i, 10.0), (2.0 * i + 1, 10.0), (2.0 * i + 1, 0.5)]
    ring = ring[:-1] + [(2.0 * teeth - 1, -1.0), (0.0, -1.0)]
    return np.array(ring)


@pytest.mark.parametrize("teeth", [3, 200])
def test_a_comb_is_triangulated_exactly(teeth):
    """The area by hand: the teeth 10 m^2 each, the base (2 teeth - 1) m long and 1 m
    deep, and between two teeth a triangle 1 m wide and 0.5 m high under the slanted
    edge from (2i + 1, 0.5) down to (2i + 2, 0)."""
    ring = comb(teeth)
    x, y = ring[:, 0], ring[:, 1]
    area = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)))
    for pts in (ring, ring[::-1]):
        stats: dict[str, int] = {}
        tris = triangulate_polygon(pts, stats)
        assert len(tris) == len(pts) - 2
        covered = 0.0
        sign = 1 if pts is not ring else -1           # the comb is listed clockwise
        for a, b, c in tris:
            (ax, ay), (bx, by), (cx, cy) = pts[a], pts[b], pts[c]
            twice = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
            assert sign * twice > 0                   # wound like the polygon, not flat
            covered += abs(twice) / 2
        assert covered == pytest.approx(area)
        assert stats["ears"] <= 3 * len(pts)
    assert area == pytest.approx(teeth * 10.0 + (2 * teeth - 1) * 1.0
                                 + (teeth - 1) * 0.25, rel=1e-12)


def test_a_polygon_crossing_itself_is_refused():
    with pytest.raises(ValueError, match="crosses itself"):
        triangulate_polygon(np.array([[0, 0], [4, 0], [4, 2], [1, -1], [0, 2]], dtype=float))
    with pytest.raises(ValueError, match="finite"):
        triangulate_polygon(np.array([[0, 0], [math.inf, 0], [0, 1]], dtype=float))
