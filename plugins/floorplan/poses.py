"""Frames, poses and points of a JSON-LD graph composed into one reference frame.

The FloorPlan metamodels keep numbers apart from relations: a ``Pose`` says which frame is
posed (``of``) relative to which (``with-respect-to``), and a pose coordinate
(``of-pose``) holds the numbers, seen by a frame (``as-seen-by``): x, y, z and the angles
alpha (about z) and beta (about y), so ``T_wrt<-of = [Rz(alpha) Ry(beta) | (x, y, z)]``.
A ``Position`` relates a point to another point (a frame's origin) and its coordinate
gives the vector between them, seen by a frame.

Poses are edges of an undirected frame graph (``T`` one way, its inverse the other): a
frame may be posed relative to several others (FloorPlan-DSL poses the wall a space is
placed by both in its space and against the other space's wall), so each frame's pose in
a reference frame comes from a breadth-first walk from that frame, and every other edge
met on the way is checked against it (a loop of poses that does not close is an error,
as is a frame no pose connects, or a relation naming a frame no file defines: each a
:class:`FloorPlanError` naming the file and the element).

The floor plan's world frame is found by structure, not by name: in the frame graph of
the plan's spaces, the frame that is never posed itself (never ``of``) and in which no
shape's points are given.
"""
from __future__ import annotations

import math
from collections import deque

import numpy as np

from .errors import FloorPlanError
from .linked_data import COORD, GEOM, QUDT, REL, UNIT, Graph, Node

__all__ = ["PoseGraph", "transform", "LENGTH_UNITS", "ANGLE_UNITS", "MAX_LENGTH"]

#: Units a coordinate may give (qudt unit IRIs), as metres and radians.
LENGTH_UNITS = {UNIT + "M": 1.0, UNIT + "CentiM": 0.01, UNIT + "MilliM": 0.001}
ANGLE_UNITS = {UNIT + "RAD": 1.0, UNIT + "DEG": math.pi / 180.0}
#: How far (m, and rotation matrix entries) two chains of poses to one frame may differ.
LOOP_TOLERANCE = 1e-6
#: Larger coordinates and sizes are refused, as the DSL refuses them (a thousand km; a
#: corner at 1e300 m leaves no solid computable).
MAX_LENGTH = 1e6


def transform(x: float = 0.0, y: float = 0.0, z: float = 0.0, alpha: float = 0.0,
              beta: float = 0.0) -> np.ndarray:
    """``[Rz(alpha) Ry(beta) | (x, y, z)]`` as a 4x4 matrix."""
    ca, sa, cb, sb = math.cos(alpha), math.sin(alpha), math.cos(beta), math.sin(beta)
    Rz = np.array([[ca, -sa, 0.0], [sa, ca, 0.0], [0.0, 0.0, 1.0]])
    Ry = np.array([[cb, 0.0, sb], [0.0, 1.0, 0.0], [-sb, 0.0, cb]])
    X = np.eye(4)
    X[:3, :3] = Rz @ Ry
    X[:3, 3] = (x, y, z)
    return X


class PoseGraph:
    """The frames of a graph and the poses between them (see the module text)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        g = graph
        self.frames = {n.iri: n for n in g.of_type(GEOM + "Frame")}
        #: frame -> [(neighbour, pose node, True when the frame is the pose's ``of``)]
        self.edges: dict[str, list[tuple[str, Node, bool]]] = {}
        #: frames some pose places (``of``)
        self.posed: set[str] = set()
        for pose in g.of_type(REL + "Pose"):
            of = g.ref(pose, REL + "of")
            wrt = g.ref(pose, REL + "with-respect-to")
            g.node(of, pose, REL + "of", GEOM + "Frame")
            g.node(wrt, pose, REL + "with-respect-to", GEOM + "Frame")
            self.posed.add(of)
            self.edges.setdefault(of, []).append((wrt, pose, True))
            self.edges.setdefault(wrt, []).append((of, pose, False))
        #: relation -> its coordinate node (the first, if several)
        self.coordinates: dict[str, Node] = {}
        #: frames a position coordinate is seen by (the frames shapes are given in)
        self.shape_frames: set[str] = set()
        for prop in (COORD + "of-pose", COORD + "of-position"):
            for node in g.nodes.values():
                if prop in node.props:
                    self.coordinates.setdefault(g.ref(node, prop), node)
                    if prop == COORD + "of-position":
                        seen_by = g.ref(node, COORD + "as-seen-by", required=False)
                        if seen_by:
                            self.shape_frames.add(seen_by)
        #: point -> the frame it is the origin of
        self.origin_of: dict[str, str] = {}
        for frame in self.frames.values():
            origin = g.ref(frame, GEOM + "origin", required=False)
            if origin is not None:
                self.origin_of.setdefault(origin, frame.iri)
        #: point -> its Position relation
        self.positions: dict[str, Node] = {}
        for position in g.of_type(REL + "Position"):
            point = g.ref(position, REL + "of")
            self.positions.setdefault(point, position)
        self._trees: dict[str, dict[str, np.ndarray]] = {}
        self._local: dict[str, np.ndarray] = {}
        self._points: dict[tuple[str, str], tuple[np.ndarray, str]] = {}

    # -- frames ---------------------------------------------------------------------------
    def anchor(self, reference: str, frames: dict[str, np.ndarray], file: str = "") -> None:
        """Pose ``frames`` (frame IRI -> ``X_reference<-frame``) known by other means (a
        floor plan read from the DSL) in ``reference``, as if a pose relation said so.
        Call before the first query."""
        for iri, X in frames.items():
            if iri == reference:
                continue
            pose = Node(f"_:snapframe-anchor:{iri}", [REL + "Pose"], file=file)
            self._local[pose.iri] = np.asarray(X, dtype=float)
            self.posed.add(iri)
            self.edges.setdefault(iri, []).append((reference, pose, True))
            self.edges.setdefault(reference, []).append((iri, pose, False))
        self._trees.clear()

    def pose_transform(self, pose: Node) -> np.ndarray:
        """``T_wrt<-of`` from the coordinate of ``pose``."""
        done = self._local.get(pose.iri)
        if done is not None:
            return done
        g = self.graph
        of = g.ref(pose, REL + "of")
        wrt = g.ref(pose, REL + "with-respect-to")
        c = self.coordinates.get(pose.iri)
        if c is None:
            raise FloorPlanError(f"pose {g.name(pose.iri)} of frame {g.name(of)} has no "
                                 "coordinates (no node names it as of-pose)", file=pose.file,
                                 element=g.name(pose.iri))
        length, angle = self._units(c)
        seen_by = g.ref(c, COORD + "as-seen-by", required=False) or wrt
        values = [g.number(c, COORD + k, 0.0, MAX_LENGTH / length) for k in ("x", "y", "z")]
        values += [g.number(c, COORD + k, 0.0) for k in ("alpha", "beta", "gamma")]
        if values[5]:
            raise FloorPlanError(f"{g.name(c.iri)}: a rotation about x (gamma) is not part "
                                 "of FloorPlan poses (alpha about z, beta about y)",
                                 file=c.file, element=g.name(c.iri))
        T = transform(*(v * length for v in values[:3]), values[3] * angle, values[4] * angle)
        if seen_by == of:
            # The offset is seen by the posed frame: turn it into the reference frame.
            T[:3, 3] = T[:3, :3] @ T[:3, 3]
        elif seen_by != wrt:
            raise FloorPlanError(
                f"{g.name(c.iri)} is seen by {g.name(seen_by)}: a pose's coordinates must be "
                f"seen by its reference frame {g.name(wrt)} (or by {g.name(of)})",
                file=c.file, element=g.name(c.iri))
        self._local[pose.iri] = T
        return T

    def tree(self, reference: str) -> dict[str, np.ndarray]:
        """``frame -> X_reference<-frame`` for every frame connected to ``reference``."""
        found = self._trees.get(reference)
        if found is not None:
            return found
        poses: dict[str, np.ndarray] = {reference: np.eye(4)}
        queue = deque([reference])
        used: set[str] = set()
        while queue:
            frame = queue.popleft()
            X = poses[frame]
            for other, pose, frame_is_of in self.edges.get(frame, ()):
                T = self.pose_transform(pose)
                X_other = X @ (np.linalg.inv(T) if frame_is_of else T)
                if other not in poses:
                    poses[other] = X_other
                    used.add(pose.iri)
                    queue.append(other)
                elif pose.iri not in used:
                    used.add(pose.iri)
                    self._check_loop(pose, other, poses[other], X_other)
        self._trees[reference] = poses
        return poses

    def _check_loop(self, pose: Node, frame: str, X_a: np.ndarray, X_b: np.ndarray) -> None:
        """Two chains of poses reach ``frame``; they must agree."""
        offset = float(np.linalg.norm(X_a[:3, 3] - X_b[:3, 3]))
        turn = float(np.linalg.norm(X_a[:3, :3] - X_b[:3, :3]))
        if offset > LOOP_TOLERANCE or turn > LOOP_TOLERANCE:
            g = self.graph
            raise FloorPlanError(
                f"frame {g.name(frame)} is posed inconsistently: the pose "
                f"{g.name(pose.iri)} puts it {offset:.6g} m from where the other poses do "
                "(a cycle of poses that does not close)", file=pose.file,
                element=g.name(pose.iri))

    def pose_in(self, frame: str, reference: str, element: Node | None = None) -> np.ndarray:
        """``X_reference<-frame``, or a :class:`FloorPlanError` about ``element`` if no
        chain of poses connects the two."""
        X = self.tree(reference).get(frame)
        if X is None:
            g = self.graph
            about = element or self.frames.get(frame)
            raise FloorPlanError(
                f"frame {g.name(frame)} is not connected to {g.name(reference)} by poses "
                "(a missing pose, or a missing spatial_relations.json or coordinate.json)",
                file=about.file if about else None,
                element=g.name(about.iri) if about else g.name(frame))
        return X

    def world_frame(self, start: str, about: Node | None = None) -> str:
        """The world frame of the plan ``start`` (a space's frame) belongs to: the frame
        connected to it that is never posed and in which no shape is given."""
        connected = self.tree(start)
        roots = [f for f in connected if f not in self.posed]
        plain = [f for f in roots if f not in self.shape_frames]
        found = plain if plain else roots
        if len(found) == 1:
            return found[0]
        g = self.graph
        names = ", ".join(sorted(g.name(f) for f in found)) or "none"
        raise FloorPlanError(f"cannot tell the world frame of the floor plan: frames that "
                             f"no pose places and no shape is given in: {names}",
                             file=about.file if about else None,
                             element=g.name(about.iri) if about else None)

    # -- points ---------------------------------------------------------------------------
    def point(self, point: str, reference: str, referrer: Node | None = None
              ) -> tuple[np.ndarray, str]:
        """``(position in reference, frame)`` of a point: a frame's origin (that frame), or
        a point placed by a ``Position`` relative to another point (the frame its
        coordinate is seen by)."""
        key = (reference, point)
        done = self._points.get(key)
        if done is not None:
            return done
        g = self.graph
        chain: list[str] = []
        current = point
        while (reference, current) not in self._points:
            if current in chain:
                raise FloorPlanError("points are positioned relative to each other in a "
                                     "cycle: " + " -> ".join(g.name(p) for p in chain),
                                     file=referrer.file if referrer else None,
                                     element=g.name(referrer.iri) if referrer else g.name(point))
            chain.append(current)
            if current in self.origin_of:
                frame = self.origin_of[current]
                X = self.pose_in(frame, reference, referrer)
                self._points[(reference, current)] = (X[:3, 3].copy(), frame)
                break
            position = self.positions.get(current)
            if position is None:
                raise FloorPlanError(
                    f"point {g.name(current)} has no position (no Position relation places "
                    "it and no frame has it as origin)",
                    file=referrer.file if referrer else None,
                    element=g.name(referrer.iri) if referrer else g.name(current))
            current = g.ref(position, REL + "with-respect-to")
        for p in reversed(chain):
            if (reference, p) in self._points:
                continue
            position = self.positions[p]
            base, _ = self._points[(reference, g.ref(position, REL + "with-respect-to"))]
            c = self.coordinates.get(position.iri)
            if c is None:
                raise FloorPlanError(f"position {g.name(position.iri)} has no coordinates "
                                     "(no node names it as of-position)", file=position.file,
                                     element=g.name(position.iri))
            seen_by = g.ref(c, COORD + "as-seen-by")
            g.node(seen_by, c, COORD + "as-seen-by", GEOM + "Frame")
            X = self.pose_in(seen_by, reference, referrer)
            length, _ = self._units(c)
            v = np.array([g.number(c, COORD + k, 0.0, MAX_LENGTH / length)
                          for k in ("x", "y", "z")]) * length
            self._points[(reference, p)] = (base + X[:3, :3] @ v, seen_by)
        return self._points[key]

    # -- units ----------------------------------------------------------------------------
    def _units(self, c: Node) -> tuple[float, float]:
        """The length and angle scale of a coordinate's ``unit`` (metres, radians when
        not given)."""
        length, angle = 1.0, 1.0
        for unit in self.graph.refs(c, QUDT + "unit", required=False):
            if unit in LENGTH_UNITS:
                length = LENGTH_UNITS[unit]
            elif unit in ANGLE_UNITS:
                angle = ANGLE_UNITS[unit]
            else:
                raise FloorPlanError(f"{self.graph.name(c.iri)}: unknown unit {unit}",
                                     file=c.file, element=self.graph.name(c.iri))
        return length, angle
