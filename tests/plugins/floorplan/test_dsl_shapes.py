"""DSL semantics on small plans written here: polygon orientation, circles, flags, units.

Expected numbers are worked out by hand from the DSL's rules (floorplan.md §2): a wall
stands on the edge from corner i to corner i+1, thickened away from the room; outer
corners are mitred; poses compose as ``[Rz·Ry·Rx | t]``.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from snapframe.plugins.floorplan.dsl import load_fpm
from snapframe.plugins.floorplan.dsl.semantics import CIRCLE_CORNERS

HEAD = """Floor plan: p
    Defaults:
        walls:
            thickness: 0.2 m
            height: 2.0 m
"""


def room(shape: str, extra: str = "") -> str:
    return HEAD + f"""
    Space r:
        shape: {shape}
        location:
            wrt: world
            of: this
{extra}"""


def polygon(points) -> str:
    return "Polygon points:[" + ", ".join(f"({x} m, {y} m)" for x, y in points) + "]"


CW = [(-3, 2), (3, 2), (3, -2), (-3, -2)]
CCW = [(-3, 2), (-3, -2), (3, -2), (3, 2)]


def _xy(solid) -> set[tuple[float, float]]:
    return {(round(float(x), 9), round(float(y), 9)) for x, y, _ in solid.polygon}


def test_clockwise_rectangle_walls_by_hand():
    plan = load_fpm("p.fpm", room(polygon(CW)))
    w0 = plan.walls["r-wall-0"]       # the top edge, (-3, 2) -> (3, 2)
    np.testing.assert_allclose(w0.polygon[:, :2], [[-3.2, 2.2], [3.2, 2.2], [3, 2], [-3, 2]],
                               atol=1e-12)
    np.testing.assert_allclose(w0.X_WF[:3, 3], [0, 2, 0], atol=1e-12)
    np.testing.assert_allclose(w0.X_WF[:3, 1], [0, 1, 0], atol=1e-12)   # y out of the room
    np.testing.assert_allclose(w0.points[4:, 2], 2.0)


def test_counter_clockwise_polygon_walls_thicken_into_the_room_as_floorplan_dsl_builds_them():
    """FloorPlan-DSL runs wall i's frame from corner i to corner i+1 whatever the
    polygon's orientation (floorplan.md 2.2), so a counter-clockwise room has +y, and its
    walls, inside.  CCW wall 0 is the left edge (-3, 2) -> (-3, -2): x along world -y, y
    along world +x, 0.2 m thick into the room; its mitred far corners are where x = -2.8
    meets the inner lines of the walls before and after it, y = 1.8 and y = -1.8."""
    ccw = load_fpm("ccw.fpm", room(polygon(CCW)))
    w0 = ccw.walls["r-wall-0"]
    np.testing.assert_allclose(w0.X_WF[:3, 3], [-3, 0, 0], atol=1e-12)
    np.testing.assert_allclose(w0.X_WF[:3, 0], [0, -1, 0], atol=1e-12)
    np.testing.assert_allclose(w0.X_WF[:3, 1], [1, 0, 0], atol=1e-12)   # into the room
    np.testing.assert_allclose(w0.polygon[:, :2], [[-2.8, 1.8], [-2.8, -1.8], [-3, -2], [-3, 2]],
                               atol=1e-12)
    for wall in ccw.walls.values():
        xs, ys = wall.polygon[:, 0], wall.polygon[:, 1]
        inside = (np.abs(xs) <= 3 + 1e-12) & (np.abs(ys) <= 2 + 1e-12)
        assert inside.all(), wall.name
        # +y of the wall frame points towards the room's centre
        assert float(np.dot(wall.X_WF[:2, 1], wall.X_WF[:2, 3])) < 0
    # said once, located at the space's shape (line 8 of the text)
    assert [(w.file, w.line, w.element) for w in ccw.warnings] == [("ccw.fpm", 8, "r")]
    assert "counter-clockwise" in ccw.warnings[0].message
    assert "into the room" in ccw.warnings[0].message
    assert load_fpm("cw.fpm", room(polygon(CW))).warnings == []


def test_counter_clockwise_room_with_an_opening():
    text = room(polygon(CCW)) + """
    Window w:
        shape: Rectangle width=1.0 m, height=1.0 m
        location:
            in: r.walls[1]
            translation: x: 1.0 m, z: 1.0 m
"""
    plan = load_fpm("p.fpm", text)
    w = plan.openings["w"]
    # wall 1 is the bottom edge (-3,-2) -> (3,-2): its frame runs from corner 1 to corner
    # 2 (towards +x) with +y into the room (world +y), as FloorPlan-DSL puts it
    np.testing.assert_allclose(w.X_WF[:3, 3], [1.0, -2.0, 1.0], atol=1e-12)
    assert w.points[4:, 1] == pytest.approx([-1.8] * 4)


def test_collinear_corner_needs_no_mitre():
    plan = load_fpm("p.fpm", room(polygon([(0, 0), (0, 2), (1, 2), (2, 2), (2, 0)])))
    w1, w2 = plan.walls["r-wall-1"], plan.walls["r-wall-2"]
    assert (1.0, 2.2) in _xy(w1) and (1.0, 2.2) in _xy(w2)
    assert (-0.2, 2.2) in _xy(w1) and (2.2, 2.2) in _xy(w2)


def test_sharp_corner_is_mitred():
    # a right triangle: the outer corner at the 45° tip lies on both outer lines
    plan = load_fpm("p.fpm", room(polygon([(0, 0), (0, 4), (4, 0)])))
    t = 0.2
    tip = plan.walls["r-wall-2"].polygon[1, :2]      # wall 2 runs (4,0)->(0,0): +x end
    w0 = plan.walls["r-wall-0"].polygon[:2, :2]       # outer corners of (0,0)->(0,4)
    # outer line of wall 0 is x = -t, of wall 2 is y = -t: they meet at (-t, -t)
    assert tuple(np.round(w0[0], 12)) == (-t, -t)
    assert tuple(np.round(tip, 12)) == (-t, -t)
    # the hypotenuse's outer line x + y = 4 + t·√2 meets x = -t at y = 4 + t + t·√2
    np.testing.assert_allclose(w0[1], [-t, 4 + t + t * math.sqrt(2)], atol=1e-12)


def test_circle_space_becomes_a_regular_polygon():
    plan = load_fpm("p.fpm", room("Circle radius=2.0 m"))
    space = plan.spaces["r"]
    assert len(space.walls) == CIRCLE_CORNERS == len(space.polygon)
    np.testing.assert_allclose(np.hypot(space.polygon[:, 0], space.polygon[:, 1]), 2.0)
    np.testing.assert_allclose(space.polygon[0], [2.0, 0.0, 0.0], atol=1e-12)
    assert space.polygon[1, 1] < 0                     # listed clockwise
    for wall in plan.walls.values():                   # all outward
        inner = np.hypot(*wall.polygon[2, :2])
        outer = np.hypot(*wall.polygon[0, :2])
        assert outer > inner


def test_circle_column():
    plan = load_fpm("p.fpm", room(polygon(CW), """        features:
            Column c:
                shape: Circle radius=0.25 m
                height: 2.0 m
                location:
                    wrt: this
                    translation: x: 1.0 m, y: -1.0 m
"""))
    c = plan.features["c"]
    assert len(c.polygon) == CIRCLE_CORNERS
    np.testing.assert_allclose(np.hypot(c.polygon[:, 0] - 1.0, c.polygon[:, 1] + 1.0), 0.25)
    assert c.faces[2] == [0, 1, CIRCLE_CORNERS + 1, CIRCLE_CORNERS]


TWO_ROOMS = HEAD + """
    var gap = 1.0 m
    Space b:
        shape: Rectangle width=4.0 m, length=2.0 m
        location:
            wrt: a.walls[2]
            of: this.walls[0]
            {flags}
    Space a:
        shape: Rectangle width=4.0 m, length=2.0 m
        location:
            wrt: world
            of: this
"""


def test_back_to_back_by_default_and_spaced():
    plan = load_fpm("p.fpm", TWO_ROOMS.format(flags="spaced"))   # b refers to a, declared later
    a2, b0 = plan.walls["a-wall-2"], plan.walls["b-wall-0"]
    np.testing.assert_allclose(b0.X_WF[:3, 1], -a2.X_WF[:3, 1], atol=1e-12)
    # b's top wall origin is 0.4 m below a's bottom wall: a's centre y=0, a's bottom y=-1
    np.testing.assert_allclose(b0.X_WF[:3, 3], [0, -1.4, 0], atol=1e-12)
    np.testing.assert_allclose(plan.spaces["b"].X_WF[:3, 3], [0, -2.4, 0], atol=1e-12)


def test_not_aligned_keeps_the_wall_frames_parallel():
    plan = load_fpm("p.fpm", TWO_ROOMS.format(flags="not aligned\n            translation: y: -2.0 m"))
    a2, b0 = plan.walls["a-wall-2"], plan.walls["b-wall-0"]
    np.testing.assert_allclose(b0.X_WF[:3, :3], a2.X_WF[:3, :3], atol=1e-12)
    np.testing.assert_allclose(b0.X_WF[:3, 3], [0, 1.0, 0], atol=1e-12)   # -2 along a2's y (world -y)


def test_variables_negation_units_and_unitless_numbers():
    text = HEAD + """
    var off = 1.5 m
    var turn = 90 deg
    var turn_rad = 0.5 rad
    Space r:
        shape: Rectangle width=4, length=2.0 m
        location:
            wrt: world
            of: this
            translation: x: -off, y: off
            rotation: z: -turn
        features:
            Column c:
                shape: Rectangle width=0.5 m, length=0.5 m
                height: 1
                location:
                    wrt: this
                    rotation: z: turn_rad
"""
    plan = load_fpm("p.fpm", text)
    X = plan.spaces["r"].X_WF
    np.testing.assert_allclose(X[:3, 3], [-1.5, 1.5, 0], atol=1e-12)
    np.testing.assert_allclose(X[:2, 0], [0, -1], atol=1e-12)          # turned by -90°
    xs = plan.spaces["r"].polygon
    assert np.ptp(xs[:, 1]) == pytest.approx(4.0)                       # width 4 (m) along world y
    c = plan.features["c"]
    assert c.height == 1.0
    np.testing.assert_allclose(c.X_WF[:3, :3], X[:3, :3] @ np.array(
        [[math.cos(0.5), -math.sin(0.5), 0], [math.sin(0.5), math.cos(0.5), 0], [0, 0, 1]]),
        atol=1e-12)


def test_opening_turned_about_y():
    text = room(polygon(CW)) + """
    Window w:
        shape: Rectangle width=1.0 m, height=0.5 m
        location:
            in: r.walls[0]
            translation: x: 1.0 m, z: 1.5 m
            rotation: y: 90 deg
"""
    w = load_fpm("p.fpm", text).openings["w"]
    # in the wall frame: Ry(90°) maps (x, y, z) to (z, y, -x); corner 0 = (-0.5, 0, 0.25)
    # becomes (0.25, 0, 0.5), then shifted to (1.25, 0, 2.0); wall 0's frame is the world's
    # turned by 0 about z, at (0, 2, 0)
    np.testing.assert_allclose(w.polygon[0], [1.25, 2.0, 2.0], atol=1e-12)
    np.testing.assert_allclose(w.points[4], [1.25, 2.2, 2.0], atol=1e-12)


def test_top_level_feature():
    text = room(polygon(CW)) + """
    Divider d:
        shape: Rectangle width=2.0 m, length=0.1 m
        height: 1.0 m
        location:
            wrt: r.walls[1]
            translation: x: 0.5 m
"""
    plan = load_fpm("p.fpm", text)
    d = plan.features["d"]
    assert d.space is None and "d" not in plan.spaces["r"].features
    # wall 1 runs (3,2)->(3,-2): its x is world -y, origin (3, 0)
    np.testing.assert_allclose(d.X_WF[:3, 3], [3.0, -0.5, 0.0], atol=1e-12)
