"""What a parsed ``.fpm`` model means: a :class:`FloorPlan` in world coordinates.

The rules follow the FloorPlan DSL (secorolab/FloorPlan-DSL, grammar v2):

- lengths are in ``m``, angles in ``deg`` or ``rad`` (a number without unit: metres or
  radians); a variable may stand for a value of its own kind, negated with ``-name``;
- a space's polygon lies in the space frame (a Rectangle ``width × length`` is centred on
  it); every polygon edge becomes a wall (see :mod:`.walls`);
- ``location: wrt: A  of: B  translation: x, y  rotation: z`` poses frame B of this space
  in frame A.  When A and B are both walls, 180° is added about z so the walls stand back
  to back (``not aligned`` turns that off), and ``spaced`` moves B along A's y by both
  wall thicknesses;
- a feature (Column, Divider) is posed by ``wrt`` / ``translation`` / ``rotation``, its
  shape extruded by its ``height``;
- an opening (Entryway, Window) sits in the frame of the first wall it names, translated in
  x and z (the centre of its rectangle) and turned about y; its box goes along +y through
  the summed thickness of the walls it names.

Point order and faces follow the FloorPlan output: a prism's points are its polygon, then
the same points lifted (``height``, or ``thickness`` along y for openings); its faces are
bottom, top, then one side per polygon edge.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import FloorPlanError
from ..model import (COLUMN, DIVIDER, ENTRYWAY, WALL, WINDOW, FloorPlan, Solid, Space)
from .syntax import ParsedText
from .transforms import inverse, pose, transform_points
from .walls import PolygonProblem, is_counter_clockwise, signed_area, wall_shapes

__all__ = ["build_plan", "CIRCLE_CORNERS", "MAX_NUMBER", "LENGTH", "ANGLE"]

LENGTH, ANGLE = "length", "angle"
#: Larger numbers are refused (a million metres; angles would only wrap around).
MAX_NUMBER = 1e6
#: A Circle becomes a regular polygon with this many corners (listed clockwise from +x).
CIRCLE_CORNERS = 32
#: Wall indices have at most this many digits (Python refuses to read a 4300-digit one).
_INDEX_DIGITS = 9
_UNIT_KIND = {"m": LENGTH, "deg": ANGLE, "rad": ANGLE}
_WORD = {LENGTH: "a length", ANGLE: "an angle"}
_UNITS = {LENGTH: "m", ANGLE: "deg or rad"}
_RESERVED = ("world", "this")
_KINDS = {"Column": COLUMN, "Divider": DIVIDER, "Entryway": ENTRYWAY, "Window": WINDOW}


def _kind_name(node: Any) -> str:
    return type(node).__name__


@dataclass
class _Var:
    node: Any
    kind: str
    value: float            # metres or radians


@dataclass
class _SpaceInfo:
    node: Any
    name: str
    thickness: float
    height: float
    corners: np.ndarray                     # (N, 2) in the space frame
    walls: list = field(default_factory=list)
    X_WS: np.ndarray | None = None
    resolving: bool = False
    location: "_Location | None" = None     # read once its placement is resolved


@dataclass
class _Location:
    node: Any
    wrt: Any = None
    of: Any = None
    walls: list = field(default_factory=list)
    translation: dict = field(default_factory=dict)   # axis -> Component
    rotation: dict = field(default_factory=dict)
    spaced: Any = None
    not_aligned: Any = None
    entries: dict = field(default_factory=dict)        # keyword -> entry (for messages)


_ENTRY_KEYWORD = {"WrtEntry": "wrt", "OfEntry": "of", "InEntry": "in",
                  "TranslationEntry": "translation", "RotationEntry": "rotation"}
_ALLOWED = {
    "space": ("wrt", "of", "translation", "rotation", "spaced", "not aligned"),
    "feature": ("wrt", "translation", "rotation"),
    "opening": ("in", "translation", "rotation"),
}


class _Builder:
    """Reads one parsed model into a FloorPlan; every error is located in its text."""

    def __init__(self, parsed: ParsedText) -> None:
        self.parsed = parsed
        self.model = parsed.model
        self.vars: dict[str, _Var] = {}
        self.spaces: dict[str, _SpaceInfo] = {}
        self.elements: dict[str, tuple[str, Any]] = {}     # name -> (what, node)
        self.feature_kinds: dict[str, str] = {}            # features inside spaces
        self.default_thickness: tuple[float, Any] | None = None
        self.default_height: tuple[float, Any] | None = None
        #: what is read but worth a word (FloorPlan-DSL says nothing about them)
        self.warnings: list[FloorPlanError] = []

    # ---- errors -------------------------------------------------------------------
    def error(self, message: str, node: Any, element: str | None = None) -> FloorPlanError:
        return self.parsed.error(message, node, element)

    def line(self, node: Any) -> int:
        return self.parsed.linecol(node)[0]

    # ---- values -------------------------------------------------------------------
    def value(self, node: Any, kind: str, slot: str, element: str | None = None) -> float:
        """A length (m) or angle (rad) from a quantity or a variable reference."""
        if _kind_name(node) == "VariableRef":
            var = self.vars.get(node.name)
            if var is None:
                raise self.error(f"unknown variable '{node.name}'", node, element)
            if var.kind != kind:
                raise self.error(f"{slot} is {_WORD[kind]} but variable '{node.name}' is "
                                 f"{_WORD[var.kind]} (declared in '{var.node.value.unit}'): "
                                 f"use a value in {_UNITS[kind]}", node, element)
            return -var.value if node.negated else var.value
        number = float(node.number)
        if not math.isfinite(number) or abs(number) > MAX_NUMBER:
            raise self.error(f"{slot}: {node.number} is out of range (at most {MAX_NUMBER:g} "
                             "in size)", node, element)
        unit = node.unit
        if unit is not None and _UNIT_KIND[unit] != kind:
            raise self.error(f"{slot} is {_WORD[kind]}: '{unit}' is not a unit for it "
                             f"(use {_UNITS[kind]})", node, element)
        return math.radians(number) if unit == "deg" else number

    def positive(self, node: Any, slot: str, element: str | None) -> float:
        v = self.value(node, LENGTH, slot, element)
        if v <= 0:
            raise self.error(f"{slot} must be positive, not {v:g} m", node, element)
        return v

    # ---- declarations -------------------------------------------------------------
    def read_variables(self) -> None:
        for var in self.model.variables:
            if var.name in self.vars:
                raise self.error(f"variable '{var.name}' is declared twice", var, var.name)
            q = var.value
            if q.unit is None:
                raise self.error(f"variable '{var.name}' needs a unit (m, deg or rad) to say "
                                 "whether it is a length or an angle", q, var.name)
            number = float(q.number)
            if not math.isfinite(number) or abs(number) > MAX_NUMBER:
                raise self.error(f"variable '{var.name}': {q.number} is out of range (at most "
                                 f"{MAX_NUMBER:g} in size)", q, var.name)
            kind = _UNIT_KIND[q.unit]
            self.vars[var.name] = _Var(var, kind, math.radians(number) if q.unit == "deg" else number)

    def wall_values(self, block: Any, element: str | None) -> dict[str, tuple[float, Any]]:
        out: dict[str, tuple[float, Any]] = {}
        for entry in block.entries:
            if entry.key in out:
                raise self.error(f"wall {entry.key} is given twice", entry, element)
            out[entry.key] = (self.positive(entry.value, f"wall {entry.key}", element), entry)
        return out

    def read_defaults(self) -> None:
        d = self.model.defaults
        if d is not None and d.walls is not None:
            values = self.wall_values(d.walls, None)
            self.default_thickness = values.get("thickness")
            self.default_height = values.get("height")

    def declare(self, name: str, what: str, node: Any) -> None:
        if name in _RESERVED:
            raise self.error(f"'{name}' is a reserved word and cannot name a {what}", node, name)
        if name in self.elements:
            other_what, other = self.elements[name]
            line, _ = self.parsed.linecol(other)
            raise self.error(f"the name '{name}' is already used by the {other_what} on line "
                             f"{line} (spaces, openings and features outside spaces share one namespace)",
                             node, name)
        self.elements[name] = (what, node)

    # ---- locations ----------------------------------------------------------------
    def location(self, node: Any, what: str, element: str) -> _Location:
        loc = _Location(node)
        allowed = _ALLOWED[what]
        for entry in node.entries:
            cls = _kind_name(entry)
            keyword = (entry.flag if entry.flag == "spaced" else "not aligned") \
                if cls == "FlagEntry" else _ENTRY_KEYWORD[cls]
            if keyword not in allowed:
                raise self.error(f"'{keyword}' is not part of a {what}'s location "
                                 f"(a {what} takes: {', '.join(allowed)})", entry, element)
            if keyword in loc.entries:
                raise self.error(f"'{keyword}' is given twice in this location", entry, element)
            loc.entries[keyword] = entry
            if cls == "WrtEntry":
                loc.wrt = entry.frame
            elif cls == "OfEntry":
                loc.of = entry.frame
            elif cls == "InEntry":
                loc.walls = list(entry.walls)
            elif cls in ("TranslationEntry", "RotationEntry"):
                target = loc.translation if cls == "TranslationEntry" else loc.rotation
                for comp in entry.components:
                    if comp.axis in target:
                        raise self.error(f"{keyword} {comp.axis} is given twice", comp, element)
                    target[comp.axis] = comp
            elif keyword == "spaced":
                loc.spaced = entry
            else:
                loc.not_aligned = entry
        return loc

    def components(self, loc: _Location, element: str, free_t: str, free_r: str,
                   what: str) -> tuple[list[float], list[float]]:
        """Translation (m) and rotation (rad) along x, y, z; only ``free_t`` / ``free_r``
        axes may be non-zero."""
        t = [0.0, 0.0, 0.0]
        r = [0.0, 0.0, 0.0]
        for axis, comp in loc.translation.items():
            v = self.value(comp.value, LENGTH, f"translation {axis}", element)
            if v != 0.0 and axis not in free_t:
                raise self.error(f"{what} may only be translated along {' and '.join(free_t)}, "
                                 f"not {axis}", comp, element)
            t["xyz".index(axis)] = v
        for axis, comp in loc.rotation.items():
            v = self.value(comp.value, ANGLE, f"rotation {axis}", element)
            if v != 0.0 and axis not in free_r:
                raise self.error(f"{what} may only be rotated about {free_r}, not {axis}",
                                 comp, element)
            r["xyz".index(axis)] = v
        return t, r

    def index(self, ref: Any, element: str) -> int | None:
        """The wall index of a frame reference (``walls[i]``), None for a space frame."""
        if ref.index is None:
            return None
        text = str(ref.index).strip()
        if len(text.lstrip("+-")) > _INDEX_DIGITS:
            raise self.error(f"walls[{text[:12]}...]: an index of {len(text.lstrip('+-'))} "
                             "digits names no wall", ref, element)
        return int(text)

    def frame(self, ref: Any, this: _SpaceInfo | None, element: str) -> tuple[np.ndarray, _SpaceInfo | None, int | None]:
        """World pose of a frame reference, with the space and wall index it names."""
        index = self.index(ref, element)
        if ref.target == "world":
            if index is not None:
                raise self.error("the world has no walls", ref, element)
            return np.eye(4), None, None
        if ref.target == "this":
            if this is None:
                raise self.error("'this' means the enclosing space and is only allowed "
                                 "inside one", ref, element)
            space = this
        else:
            space = self.spaces.get(ref.target)
            if space is None:
                what = self.elements.get(ref.target, (self.feature_kinds.get(ref.target),))[0]
                if what is not None:
                    raise self.error(f"'{ref.target}' is a {what}, not a space", ref, element)
                raise self.error(f"unknown space '{ref.target}'", ref, element)
        X = self.space_pose(space)
        if index is None:
            return X, space, None
        n = len(space.walls)
        if not 0 <= index < n:
            raise self.error(f"space '{space.name}' has {n} walls (walls[0] to walls[{n - 1}]): "
                             f"walls[{index}] does not exist", ref, element)
        return X @ space.walls[index].X_SW, space, index

    # ---- spaces -------------------------------------------------------------------
    def polygon_corners(self, shape: Any, element: str, what: str) -> np.ndarray:
        """Corners (N, 2) of a space or feature shape in its own frame."""
        cls = _kind_name(shape)
        if cls == "Rectangle":
            if shape.length is None:
                raise self.error(f"a {what}'s Rectangle takes width and length, not height",
                                 shape, element)
            w = self.positive(shape.width, "width", element) / 2
            l = self.positive(shape.length, "length", element) / 2
            return np.array([[-w, l], [w, l], [w, -l], [-w, -l]])
        if cls == "Circle":
            r = self.positive(shape.radius, "radius", element)
            a = -2 * np.pi * np.arange(CIRCLE_CORNERS) / CIRCLE_CORNERS
            return np.column_stack([r * np.cos(a), r * np.sin(a)])
        pts = []
        for p in shape.points:
            x = self.value(p.x, LENGTH, "x", element)
            y = self.value(p.y, LENGTH, "y", element)
            if p.z is not None and self.value(p.z, LENGTH, "z", element) != 0.0:
                raise self.error(f"a {what}'s polygon lies in the floor plane: its points "
                                 "take x and y only", p, element)
            pts.append((x, y))
        if len(pts) < 3:
            raise self.error(f"a polygon needs at least 3 points, this one has {len(pts)}",
                             shape, element)
        return np.array(pts, dtype=float)

    def read_space(self, node: Any) -> _SpaceInfo:
        name = node.name
        walls = self.wall_values(node.walls, name) if node.walls is not None else {}
        values = []
        for key, default in (("thickness", self.default_thickness), ("height", self.default_height)):
            got = walls.get(key) or default
            if got is None:
                raise self.error(f"space '{name}' has no wall {key}: give 'Defaults: walls: "
                                 f"{key}: …' at the top or 'walls: {key}: …' in the space",
                                 node, name)
            values.append(got[0])
        corners = self.polygon_corners(node.shape, name, "space")
        info = _SpaceInfo(node, name, values[0], values[1], corners)
        try:
            info.walls = wall_shapes(corners, info.thickness)
        except PolygonProblem as exc:
            at = node.shape
            if exc.corner is not None and _kind_name(node.shape) == "Polygon":
                at = node.shape.points[exc.corner]
            raise self.error(f"space '{name}': {exc}", at, name) from None
        if is_counter_clockwise(corners):
            # FloorPlan-DSL builds it so (wall frames from corner i to i+1, +y to the
            # left): read the same, but say what it does to the room
            self.warnings.append(self.error(
                f"space '{name}' lists its corners counter-clockwise: its walls are "
                "thickened into the room, as FloorPlan-DSL builds them (list the corners "
                "clockwise to have them thickened outward)", node.shape, name))
        return info

    def space_pose(self, space: _SpaceInfo) -> np.ndarray:
        """World pose of a space's frame.  A space placed against another is placed after
        it; the chain of such spaces is followed with a loop (a plan may chain thousands
        of rooms), then placed from its far end."""
        if space.X_WS is not None:
            return space.X_WS
        chain: list[_SpaceInfo] = []
        current: _SpaceInfo | None = space
        while current is not None and current.X_WS is None:
            if current.resolving:
                raise self.error(f"the location of space '{current.name}' depends on itself",
                                 current.node.location, current.name)
            current.resolving = True
            chain.append(current)
            current = self.placed_against(current)
        for info in reversed(chain):
            self.place(info)
        return space.X_WS

    def placed_against(self, space: _SpaceInfo) -> _SpaceInfo | None:
        """The space whose frame (or wall) ``space`` is placed against, if any (an unknown
        name is reported when the space is placed)."""
        space.location = self.location(space.node.location, "space", space.name)
        wrt = space.location.wrt
        if wrt is None or wrt.target in _RESERVED:
            return None
        return self.spaces.get(wrt.target)

    def place(self, space: _SpaceInfo) -> None:
        """Set ``X_WS`` of a space whose reference space (if any) is placed already."""
        name = space.name
        loc = space.location
        if loc.wrt is None or loc.of is None:
            missing = "wrt" if loc.wrt is None else "of"
            raise self.error(f"the location of space '{name}' needs '{missing}:'",
                             space.node.location, name)
        if loc.wrt.target == "this":
            raise self.error("a space cannot be placed relative to itself: 'wrt' names "
                             "world, another space or its wall", loc.wrt, name)
        if loc.of.target != "this":
            raise self.error("'of' names the frame of this space that is placed: "
                             "'this' or 'this.walls[i]'", loc.of, name)
        t, r = self.components(loc, name, "xy", "z", "a space")
        X_W_wrt, wrt_space, wrt_wall = self.frame(loc.wrt, None, name)
        of_index = self.index(loc.of, name)
        if of_index is None:
            X_S_of = np.eye(4)
        else:
            n = len(space.walls)
            if not 0 <= of_index < n:
                raise self.error(f"space '{name}' has {n} walls (walls[0] to walls[{n - 1}]): "
                                 f"walls[{of_index}] does not exist", loc.of, name)
            X_S_of = space.walls[of_index].X_SW
        walls_back_to_back = wrt_wall is not None and of_index is not None
        if loc.spaced is not None:
            if loc.wrt.target == "world":
                raise self.error("a space placed relative to the world cannot be 'spaced'",
                                 loc.spaced, name)
            if not walls_back_to_back:
                raise self.error("'spaced' puts two walls back to back: 'wrt' and 'of' must "
                                 "both name walls", loc.spaced, name)
            if t[1] != 0.0:
                raise self.error("'spaced' sets the distance between the walls: drop the "
                                 "translation in y", loc.translation["y"], name)
            t[1] += space.thickness + wrt_space.thickness
        if walls_back_to_back and loc.not_aligned is None:
            r[2] += math.pi
        X_W_of = X_W_wrt @ pose(t[0], t[1], t[2], r[0], r[1], r[2])
        space.X_WS = X_W_of @ inverse(X_S_of)
        space.resolving = False

    # ---- the plan -----------------------------------------------------------------
    def build(self, file: Path | None) -> FloorPlan:
        self.read_variables()
        self.read_defaults()
        features: list[tuple[Any, _SpaceInfo | None]] = []
        openings = []
        for item in self.model.items:
            cls = _kind_name(item)
            if cls == "Space":
                self.declare(item.name, "space", item)
                self.spaces[item.name] = self.read_space(item)
                seen: dict[str, Any] = {}
                for f in item.features:
                    if f.name in seen:
                        raise self.error(f"space '{item.name}' has two features named "
                                         f"'{f.name}'", f, f.name)
                    seen[f.name] = f
                    self.feature_kinds.setdefault(f.name, f.kind.lower())
                    features.append((f, self.spaces[item.name]))
            elif cls == "Feature":
                self.declare(item.name, item.kind.lower(), item)
                features.append((item, None))
            else:
                self.declare(item.name, item.kind.lower(), item)
                openings.append(item)
        # A feature's name is scoped by its space (the Variation DSL calls it
        # `space.feature`); real plans reuse names like `door_doorway_01` in several
        # spaces.  Such a feature is keyed by its qualified name, a unique one by its own.
        uses: dict[str, int] = {}
        for node, space in features:
            if space is not None:
                uses[node.name] = uses.get(node.name, 0) + 1
        plan = FloorPlan(self.model.name, source=file)
        plan.warnings = self.warnings
        for info in self.spaces.values():
            self.add_space(plan, info)
        for node, space in features:
            key = node.name
            if space is not None and (uses[key] > 1 or key in self.elements):
                key = f"{space.name}.{node.name}"
            self.add_feature(plan, node, space, key)
        for node in openings:
            self.add_opening(plan, node)
        return plan

    def add_space(self, plan: FloorPlan, info: _SpaceInfo) -> None:
        X_WS = self.space_pose(info)
        flat = np.column_stack([info.corners, np.zeros(len(info.corners))])
        line = self.line(info.node)
        space = Space(info.name, X_WS, transform_points(X_WS, flat), file=self.parsed.file,
                      line=line)
        for i, wall in enumerate(info.walls):
            wname = f"{info.name}-wall-{i}"
            X_WF = X_WS @ wall.X_SW
            outline = np.column_stack([wall.outline, np.zeros(4)])
            plan.walls[wname] = _prism(wname, WALL, X_WF, outline, info.height,
                                       thickness=info.thickness, space=info.name)
            plan.walls[wname].file, plan.walls[wname].line = self.parsed.file, line
            space.walls.append(wname)
        plan.spaces[info.name] = space

    def add_feature(self, plan: FloorPlan, node: Any, space: _SpaceInfo | None,
                    name: str) -> None:
        loc = self.location(node.location, "feature", name)
        if loc.wrt is None:
            raise self.error(f"the location of {node.kind} '{name}' needs 'wrt:'",
                             node.location, name)
        t, r = self.components(loc, name, "xy", "z", f"a {node.kind.lower()}")
        X_W_wrt, _, _ = self.frame(loc.wrt, space, name)
        X_WF = X_W_wrt @ pose(*t, *r)
        height = self.positive(node.height, "height", name)
        corners = self.polygon_corners(node.shape, name, node.kind.lower())
        if abs(signed_area(corners)) < 1e-12:
            raise self.error(f"the shape of {node.kind} '{name}' has no area", node.shape, name)
        flat = np.column_stack([corners, np.zeros(len(corners))])
        plan.features[name] = _prism(name, _KINDS[node.kind], X_WF, flat, height,
                                     space=space.name if space else None)
        plan.features[name].file, plan.features[name].line = self.parsed.file, self.line(node)
        if space is not None:
            plan.spaces[space.name].features.append(name)

    def add_opening(self, plan: FloorPlan, node: Any) -> None:
        name = node.name
        loc = self.location(node.location, "opening", name)
        if not loc.walls:
            raise self.error(f"the location of {node.kind} '{name}' needs 'in:' and the "
                             "wall (or two walls) it is in", node.location, name)
        if len(loc.walls) > 2:
            raise self.error("an opening is in one wall or two walls back to back, not "
                             f"{len(loc.walls)}", loc.walls[2], name)
        frames, voids, thickness = [], [], 0.0
        for ref in loc.walls:
            if ref.index is None:
                raise self.error("'in:' names walls, like 'hall.walls[0]'", ref, name)
            X, space, index = self.frame(ref, None, name)
            wname = f"{space.name}-wall-{index}"
            if wname in voids:
                raise self.error(f"wall {wname} is named twice", ref, name)
            frames.append(X)
            voids.append(wname)
            thickness += space.thickness
        t, r = self.components(loc, name, "xz", "y", "an opening")
        X_WF = frames[0] @ pose(*t, *r)
        shape = node.shape
        if _kind_name(shape) != "Rectangle" or shape.height is None:
            got = "a Rectangle with length" if _kind_name(shape) == "Rectangle" else f"a {_kind_name(shape)}"
            raise self.error(f"an opening's shape is a Rectangle with width and height, not {got}",
                             shape, name)
        w = self.positive(shape.width, "width", name) / 2
        h = self.positive(shape.height, "height", name) / 2
        outline = np.array([[-w, 0.0, h], [w, 0.0, h], [w, 0.0, -h], [-w, 0.0, -h]])
        solid = _prism(name, _KINDS[node.kind], X_WF, outline, 2 * h, thickness=thickness,
                       lift=(0.0, thickness, None))
        solid.voids = voids
        solid.file, solid.line = self.parsed.file, self.line(node)
        plan.openings[name] = solid


def _prism(name: str, kind: str, X_WF: np.ndarray, outline: np.ndarray, height: float,
           thickness: float | None = None, space: str | None = None,
           lift: tuple | None = None) -> Solid:
    """A polygon (in the element frame) extruded: along z by ``height``, or for openings
    to y = thickness (``lift``)."""
    n = len(outline)
    top = outline.copy()
    if lift is None:
        top[:, 2] = height
    else:
        top[:, 1] = lift[1]
    local = np.vstack([outline, top])
    points = transform_points(X_WF, local)
    faces = [list(range(n)), list(range(n, 2 * n))]
    faces += [[i, (i + 1) % n, n + (i + 1) % n, n + i] for i in range(n)]
    return Solid(name, kind, X_WF, points[:n].copy(), points, faces, height,
                 thickness=thickness, space=space)


def build_plan(parsed: ParsedText, file: Path | None = None) -> FloorPlan:
    """The floor plan a parsed ``.fpm`` model describes (raises :class:`FloorPlanError`)."""
    return _Builder(parsed).build(file)
