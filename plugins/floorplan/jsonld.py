"""FloorPlan JSON-LD (the six files FloorPlan-DSL writes, plus door models) -> FloorPlan.

:func:`load_jsonld` reads every JSON file of a folder (and of its direct subfolders, so
door models can sit next to the plan), expands each one offline (:mod:`.expansion`: the
bundled contexts, never a download), merges the nodes into one graph and reads the
elements from it by their types and links, with no look at the text of an ``@id``:

* the ``FloorPlan`` node lists the ``spaces`` and ``openings``; a space lists its ``walls``;
  columns and dividers are found by type, since the generator links them from their space
  by ``feature``, a key the floor plan context does not define (a spec-compliant reader
  drops it); a feature belongs to the space whose floor polygon holds its centre;
* an element's ``shape`` is a polygon and its ``3d-shape`` a polyhedron, lists of points;
* an element's frame is the frame its shape's points are given in (the coordinates'
  ``as-seen-by``): the metamodel links an element to its frame in no other way;
* every point and frame is composed into the root of the pose tree (:mod:`.poses`), the
  world frame, which the first space's frame leads to.

Doors (an object with a kinematic chain, its states, an instance placed against a plan
frame) are read by :func:`.doors.read_doors` from the same graph.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable

import numpy as np

from snapframe.core.fileio import read_regular_file

from .errors import FloorPlanError
from .expansion import ContextBudget, expand
from .linked_data import COORD, FP, POLY, Graph, Node
from .model import (COLUMN, DIVIDER, ENTRYWAY, WALL, WINDOW, FloorPlan, Solid, Space)
from .poses import MAX_LENGTH, PoseGraph

__all__ = ["load_jsonld", "jsonld_files", "read_graph", "MAX_FILES", "MAX_FILE_BYTES",
           "MAX_TOTAL_BYTES"]

#: Most JSON files one floor plan reads (the largest example has six).
MAX_FILES = 1000
#: Largest JSON file read (the largest generated file is 2.5 MB).
MAX_FILE_BYTES = 64 << 20
#: Most bytes all the files of one floor plan may have together.
MAX_TOTAL_BYTES = 256 << 20

_KINDS = {FP + "Wall": WALL, FP + "Column": COLUMN, FP + "Divider": DIVIDER,
          FP + "Entryway": ENTRYWAY, FP + "Window": WINDOW}


def jsonld_files(path: Path | Iterable[Path]) -> list[Path]:
    """The JSON files a floor plan is read from: a folder's ``*.json`` files and those of
    its direct subfolders (sorted by name); a ``floorplan.json`` stands for its folder;
    other files for themselves."""
    paths = [Path(path)] if isinstance(path, (str, Path)) else [Path(p) for p in path]
    if len(paths) == 1 and paths[0].name == "floorplan.json" and paths[0].is_file():
        paths = [paths[0].parent]
    files: list[Path] = []
    def listed(folder: Path) -> list[Path]:      # hidden files and folders are not read
        return sorted(f for f in folder.glob("*.json")
                      if not f.is_dir() and not f.name.startswith("."))

    for p in paths:
        if p.is_dir():
            files.extend(listed(p))
            for sub in sorted(d for d in p.iterdir()
                              if d.is_dir() and not d.name.startswith(".")):
                files.extend(listed(sub))
        elif p.exists():
            files.append(p)
        else:
            raise FloorPlanError("no such file or folder", file=p)
        if len(files) > MAX_FILES:
            raise FloorPlanError(f"more than {MAX_FILES} JSON files; not read", file=p)
    if not files:
        raise FloorPlanError("no JSON-LD files (*.json) found", file=paths[0] if paths else None)
    return files


def _parse(file: Path, budget: list[int]) -> object:
    try:
        data = read_regular_file(file, MAX_FILE_BYTES)
    except OSError as exc:
        raise FloorPlanError(f"cannot be read: {exc.strerror or exc}", file=file) from None
    budget[0] -= len(data)
    if budget[0] < 0:
        raise FloorPlanError(f"the floor plan's files hold more than {MAX_TOTAL_BYTES} bytes; "
                             "not read", file=file)
    try:
        return json.loads(data)
    except UnicodeDecodeError as exc:
        raise FloorPlanError(f"not UTF-8 text: {exc.reason}", file=file) from None
    except json.JSONDecodeError as exc:
        raise FloorPlanError(f"malformed JSON: {exc.msg}", file=file, line=exc.lineno,
                             column=exc.colno) from None
    except ValueError as exc:
        # Python reads integers of at most 4300 digits (a guard against slow parsing)
        line, column = _long_number(data)
        raise FloorPlanError(f"a number too long to read: {exc}", file=file, line=line,
                             column=column) from None
    except RecursionError:
        raise FloorPlanError("malformed JSON: nested too deeply", file=file) from None


def _long_number(data: bytes) -> tuple[int | None, int | None]:
    """Line and column of the first run of more than 4300 digits in ``data``."""
    found = re.search(rb"[0-9]{4301,}", data)
    if found is None:
        return None, None
    start = found.start()
    line = data.count(b"\n", 0, start) + 1
    return line, start - (data.rfind(b"\n", 0, start) + 1) + 1


def read_graph(path: Path | Iterable[Path]) -> tuple[Graph, list[Path]]:
    """The expanded nodes of every file of ``path`` (see :func:`jsonld_files`)."""
    files = jsonld_files(path)
    graph = Graph()
    budget = [MAX_TOTAL_BYTES]
    work = ContextBudget()          # context processing, for all the files together
    for file in files:
        document = _parse(file, budget)
        if not isinstance(document, (dict, list)):
            raise FloorPlanError("not a JSON-LD document (a JSON object or array expected)",
                                 file=file)
        expanded = expand(document, file, file.resolve().as_uri(), work)
        graph.add_document(expanded.nodes, str(file))
    return graph, files


def load_jsonld(path: Path | list[Path]) -> FloorPlan:
    """Read a floor plan (and its doors) from JSON-LD: a folder, its ``floorplan.json``,
    or a list of folders and files.  Raises :class:`FloorPlanError` naming the file and
    element for anything it cannot read (malformed JSON, an unknown context, a dangling
    ``@id``, a frame whose chain of poses does not reach the world, a cycle)."""
    graph, files = read_graph(path)
    poses = PoseGraph(graph)
    reader = _Reader(graph, files, poses)
    plan = reader.plan()
    from .doors import read_doors   # doors are read from the same graph
    plan.doors = read_doors(graph, poses, plan, reader.world)
    return plan


class _Reader:
    """Turns the graph's floor plan nodes into a :class:`FloorPlan`."""

    def __init__(self, graph: Graph, files: list[Path], poses: PoseGraph) -> None:
        self.g = graph
        self.files = files
        plans = graph.of_type(FP + "FloorPlan")
        if not plans:
            raise FloorPlanError("no FloorPlan node in the files read (floorplan.json "
                                 "missing?)", file=files[0].parent if files else None)
        if len(plans) > 1:
            raise FloorPlanError(f"{len(plans)} FloorPlan nodes: one floor plan at a time",
                                 file=plans[1].file, element=plans[1].iri)
        self.node = plans[0]
        # Names are relative to the plan's base: its IRI's folder.
        graph.base = self.node.iri.rsplit("/", 1)[0] + "/" if "/" in self.node.iri else ""
        self.poses = poses
        #: the root of the pose tree: the frame the first space's points lead to
        self.world = ""

    def plan(self) -> FloorPlan:
        g = self.g
        plan = FloorPlan(g.name(self.node.iri), source=self._source())
        spaces = [g.node(i, self.node, FP + "spaces", FP + "Space")
                  for i in g.refs(self.node, FP + "spaces")]
        if not spaces:
            raise FloorPlanError("the floor plan has no spaces", file=self.node.file,
                                 element=plan.name)
        for space in spaces:
            self._space(space, plan)
        for kind in (FP + "Column", FP + "Divider"):
            for feature in g.of_type(kind):
                solid = self._solid(feature, _KINDS[kind])
                solid.space = self._space_holding(plan, solid)
                if solid.space is not None:
                    plan.spaces[solid.space].features.append(solid.name)
                self._add(plan.features, solid, feature)
        for iri in g.refs(self.node, FP + "openings", required=False):
            opening = g.node(iri, self.node, FP + "openings")
            kind = next((_KINDS[t] for t in opening.types if t in (FP + "Entryway",
                                                                    FP + "Window")), None)
            if kind is None:
                raise FloorPlanError(f"opening {g.name(iri)} is neither an Entryway nor a "
                                     "Window", file=opening.file, element=g.name(iri))
            solid = self._solid(opening, kind)
            for wall in g.refs(opening, FP + "voids", required=False):
                if g.name(wall) not in plan.walls:
                    g.node(wall, opening, FP + "voids", FP + "Wall")
                    raise FloorPlanError(f"opening {solid.name} voids {g.name(wall)}, a wall "
                                         "of no space of the plan", file=opening.file,
                                         element=solid.name)
                solid.voids.append(g.name(wall))
            self._add(plan.openings, solid, opening)
        return plan

    def _source(self) -> Path:
        folders = {f.parent for f in self.files}
        return Path(self.node.file).parent if len(folders) != 1 else folders.pop()

    @staticmethod
    def _add(table: dict, solid: Solid, node: Node) -> None:
        if solid.name in table:
            raise FloorPlanError(f"{solid.name} is listed twice", file=node.file,
                                 element=solid.name)
        table[solid.name] = solid

    # -- shapes ---------------------------------------------------------------------------
    def _points(self, owner: Node, shape_iri: str) -> tuple[np.ndarray, list[str], str]:
        """World points of a shape (polygon or polyhedron), their IRIs, and the frame the
        first of them is given in."""
        g = self.g
        shape = g.node(shape_iri, owner)
        iris = g.refs(shape, POLY + "points")
        if not iris:
            raise FloorPlanError(f"shape {g.name(shape_iri)} has no points", file=shape.file,
                                 element=g.name(owner.iri))
        out = np.empty((len(iris), 3))
        frame = ""
        for k, iri in enumerate(iris):
            g.node(iri, shape, POLY + "points")
            if not self.world:
                self.world = self._find_world(iri, shape)
            out[k], seen_by = self.poses.point(iri, self.world, owner)
            frame = frame or seen_by
        return out, iris, frame

    def _find_world(self, point: str, shape: Node) -> str:
        """The world frame, found from the first point of the first space's shape."""
        position = self.poses.positions.get(point)
        c = self.poses.coordinates.get(position.iri) if position is not None else None
        frame = self.g.ref(c, COORD + "as-seen-by", required=False) if c is not None else None
        if frame is None:
            frame = self.poses.origin_of.get(point)
        if frame is None:
            raise FloorPlanError(f"point {self.g.name(point)} of {self.g.name(shape.iri)} has "
                                 "no coordinates (coordinate.json missing?)", file=shape.file,
                                 element=self.g.name(shape.iri))
        return self.poses.world_frame(frame, shape)

    def _frame_of(self, owner: Node, frame: str) -> np.ndarray:
        return self.poses.pose_in(frame, self.world, owner)

    def _space(self, node: Node, plan: FloorPlan) -> None:
        g = self.g
        name = g.name(node.iri)
        if name in plan.spaces:
            raise FloorPlanError(f"space {name} is listed twice", file=node.file, element=name)
        shape = g.ref(node, FP + "shape")
        polygon, _, frame = self._points(node, shape)
        space = Space(name, self._frame_of(node, frame), polygon, file=node.file)
        plan.spaces[name] = space
        local = (polygon - space.X_WF[:3, 3]) @ space.X_WF[:3, :3]
        x, y = local[:, 0], local[:, 1]
        if float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)) > 0:
            plan.warnings.append(FloorPlanError(
                f"space {name} lists its corners counter-clockwise: its walls are "
                "thickened into the room (as FloorPlan-DSL builds them)", file=node.file,
                element=name))
        for iri in g.refs(node, FP + "walls", required=False):
            wall = g.node(iri, node, FP + "walls", FP + "Wall")
            solid = self._solid(wall, WALL)
            solid.space = name
            self._add(plan.walls, solid, wall)
            space.walls.append(solid.name)

    def _solid(self, node: Node, kind: str) -> Solid:
        g = self.g
        name = g.name(node.iri)
        shape = g.ref(node, FP + "shape")
        polygon, _, frame = self._points(node, shape)
        X_WF = self._frame_of(node, frame)
        solid_iri = g.ref(node, FP + "3d-shape")
        points, iris, _ = self._points(node, solid_iri)
        index = {iri: k for k, iri in enumerate(iris)}
        solid_node = g.node(solid_iri, node)
        faces: list[list[int]] = []
        for face in g.nested_refs(solid_node, POLY + "faces"):
            try:
                faces.append([index[i] for i in face])
            except KeyError as exc:
                raise FloorPlanError(f"a face of {g.name(solid_iri)} names the point "
                                     f"{g.name(exc.args[0])}, which is not one of its points",
                                     file=solid_node.file, element=name) from None
        if len(faces) < 4 or any(len(f) < 3 for f in faces):
            raise FloorPlanError(f"{g.name(solid_iri)} is not a closed solid ({len(faces)} "
                                 "faces)", file=solid_node.file, element=name)
        thickness = g.number(node, FP + "thickness", limit=MAX_LENGTH) \
            if FP + "thickness" in node.props else None
        if kind in (ENTRYWAY, WINDOW):
            # An opening's rectangle lies in the x-z plane of its frame (no height given).
            local = (points - X_WF[:3, 3]) @ X_WF[:3, :3]
            height = float(np.ptp(local[:, 2]))
        else:
            height = g.number(node, FP + "height", limit=MAX_LENGTH)
        for what, value in (("height", height), ("thickness", thickness)):
            if value is not None and value <= 0.0:
                raise FloorPlanError(f"{name} has a {what} of {value:g} m", file=node.file,
                                     element=name)
        return Solid(name, kind, X_WF, polygon, points, faces, height, thickness,
                     file=node.file)

    def _space_holding(self, plan: FloorPlan, solid: Solid) -> str | None:
        """The space whose floor polygon holds the centre of ``solid`` (x, y)."""
        centre = solid.points[:, :2].mean(axis=0)
        for space in plan.spaces.values():
            if _inside(centre, space.polygon[:, :2]):
                return space.name
        return None


def _inside(p: np.ndarray, ring: np.ndarray) -> bool:
    """Point in polygon (even-odd rule), either winding."""
    x, y = float(p[0]), float(p[1])
    inside = False
    n = len(ring)
    for i in range(n):
        x1, y1 = ring[i]
        x2, y2 = ring[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            t = (y - y1) / (y2 - y1)
            if x < x1 + t * (x2 - x1):
                inside = not inside
    return inside

