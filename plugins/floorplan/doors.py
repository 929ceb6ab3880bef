"""Door models: JSON-LD door objects, states and instances, and default doors.

A door model comes in three JSON-LD documents (the structure the scenery_builder door
tutorial documents, in the current metamodel vocabulary):

* the **object**: an ``Object`` with an ``object-frame``, ``object-links`` (each an
  ``ObjectLink`` tying a rigid body to the frame it is posed by), and a ``kinematic-chain``
  whose joints (``RevoluteJoint``; ``PrismaticJoint``; anything else is fixed) connect two
  bodies (``between-attachments``, with ``JointWithTree`` saying which is the parent).  A
  joint's axis is its ``common-axis``: a ``LineCollinearity`` of two bound vectors, each the
  x, y or z vector of a frame; the joint frame is the vector's frame on the parent body.
  The joints must form a tree (no link moved by two joints, no loop), so that the links
  no joint moves are the ones welded to the wall.
  Limits are ``JointLowerLimit``/``JointUpperLimit`` quantities ``of-joint`` it.  Links
  are boxes (``LinkWithPolytope`` -> ``CuboidWithSize``), with an optional inertia
  (``RigidBodyInertia``) and Gazebo material (``GazeboLinkRepresentation``);
* the **states**: ``JointState`` nodes give a joint's position (a ``JointPosition``
  quantity) in a ``State``;
* the **instance**: an ``ObjectInstance`` whose ``frame`` is posed relative to a frame of
  the floor plan (a wall frame, typically), with a ``start-state``.  The instance frame
  is the object frame.

The metamodel does not link a door to its doorway, so the entryway is found
geometrically: the one that holds the centre of the door's boxes at position zero.
"""
from __future__ import annotations

import numpy as np

from .errors import FloorPlanError
from .linked_data import DYN, GEOM, GZB, KC, KC_STATE, OBJ, POLY, QUDT, REL, ST, Graph, Node
from .model import ENTRYWAY, DoorInstance, DoorJoint, DoorLink, DoorObject, FloorPlan
from .poses import ANGLE_UNITS, LENGTH_UNITS, MAX_LENGTH, PoseGraph

__all__ = ["read_doors", "default_door", "find_opening", "door_bounds",
           "DEFAULT_LOWER", "DEFAULT_UPPER", "LEAF_THICKNESS", "CLEARANCE"]

#: Limits of a default door's hinge (rad): closed to a right angle.
DEFAULT_LOWER, DEFAULT_UPPER = 0.0, 1.57
#: A default leaf's thickness and its gap to the jambs, the lintel and the floor (m).
LEAF_THICKNESS = 0.04
CLEARANCE = 0.005
FLOOR_GAP = 0.01
#: Density (kg/m^3) of a default leaf (a light wooden door).
LEAF_DENSITY = 500.0
#: How far (m) a door's centre may lie outside an opening's box and still be in it.
OPENING_TOLERANCE = 0.05


def read_doors(graph: Graph, poses: PoseGraph, plan: FloorPlan, world: str) -> list[DoorInstance]:
    """Every ``ObjectInstance`` of ``graph`` as a :class:`DoorInstance` placed in the world
    (``world`` is the frame the plan's poses lead to)."""
    reader = _DoorReader(graph, poses)
    instances: list[DoorInstance] = []
    names: set[str] = set()
    plan_iri = graph.base + plan.name if graph.base else ""
    for node in graph.of_type(OBJ + "ObjectInstance"):
        name = graph.name(node.iri)
        if name in names:
            raise FloorPlanError(f"two door instances are named {name}", file=node.file,
                                 element=name)
        names.add(name)
        placed_in = graph.ref(node, OBJ + "world", required=False)
        if placed_in is not None and plan_iri and placed_in != plan_iri:
            raise FloorPlanError(f"door instance {name} is placed in the world "
                                 f"{graph.name(placed_in)}, not in the floor plan {plan.name}",
                                 file=node.file, element=name)
        obj = reader.object(graph.node(graph.ref(node, OBJ + "of-object"), node,
                                       OBJ + "of-object", OBJ + "Object"))
        frame = graph.ref(node, OBJ + "frame")
        graph.node(frame, node, OBJ + "frame", GEOM + "Frame")
        X_WO = poses.pose_in(frame, world, node)
        state = graph.ref(node, ST + "start-state", required=False)
        state_name = graph.name(state) if state is not None else None
        positions: dict[str, float] = {}
        if state_name is not None:
            if state_name not in obj.states:
                graph.node(state, node, ST + "start-state", ST + "State")
                raise FloorPlanError(f"start state {state_name} of {name} gives no joint "
                                     f"position of the door {obj.name}", file=node.file,
                                     element=name)
            positions = dict(obj.states[state_name])
        door = DoorInstance(name, obj, X_WO, state_name, positions, file=node.file)
        door.opening = find_opening(plan, door)
        instances.append(door)
    return instances


class _DoorReader:
    """Reads door objects from the graph (each once)."""

    def __init__(self, graph: Graph, poses: PoseGraph) -> None:
        self.g = graph
        self.poses = poses
        self.objects: dict[str, DoorObject] = {}

    def object(self, node: Node) -> DoorObject:
        found = self.objects.get(node.iri)
        if found is None:
            found = self.objects[node.iri] = self._read(node)
        return found

    def _in_object(self, frame: str, object_frame: str, about: Node) -> np.ndarray:
        """``X_O<-frame``: ``frame`` posed in the object frame (both in one pose tree)."""
        self.g.node(frame, about, "", GEOM + "Frame")
        return self.poses.pose_in(frame, object_frame, about)

    def _read(self, node: Node) -> DoorObject:
        g = self.g
        name = g.name(node.iri)
        object_frame = g.ref(node, OBJ + "object-frame")
        g.node(object_frame, node, OBJ + "object-frame", GEOM + "Frame")
        links: list[DoorLink] = []
        body_names: dict[str, str] = {}
        for iri in g.refs(node, OBJ + "object-links"):
            object_link = g.node(iri, node, OBJ + "object-links")
            body = g.ref(object_link, OBJ + "link")
            g.node(body, object_link, OBJ + "link")
            frame = g.ref(object_link, OBJ + "link-frame")
            link = DoorLink(g.name(body), self._in_object(frame, object_frame, object_link),
                            self._box(body, object_link))
            self._inertia(body, link)
            for gz in g.of_type(GZB + "GazeboLinkRepresentation"):
                if g.ref(gz, GZB + "gz-link", required=False) == iri:
                    link.material = g.text(gz, GZB + "material")
            if body in body_names:
                raise FloorPlanError(f"door {name} lists the body {link.name} twice",
                                     file=node.file, element=name)
            body_names[body] = link.name
            links.append(link)
        if not links:
            raise FloorPlanError(f"door {name} has no links", file=node.file, element=name)
        joints: dict[str, DoorJoint] = {}
        chain = g.ref(node, OBJ + "kinematic-chain", required=False)
        if chain is not None:
            chain_node = g.node(chain, node, OBJ + "kinematic-chain", KC + "KinematicChain")
            for iri in g.refs(chain_node, KC + "joints", required=False):
                joint = g.node(iri, chain_node, KC + "joints", KC + "Joint")
                joints[iri] = self._joint(joint, object_frame, body_names)
        _check_tree(name, node, list(joints.values()))
        states, files = self._states(joints)
        return DoorObject(name, links, list(joints.values()), states, node.file, files)

    def _box(self, body: str, about: Node) -> np.ndarray:
        g = self.g
        shapes = [n for n in g.of_type(OBJ + "LinkWithPolytope")
                  if g.ref(n, OBJ + "link", required=False) == body]
        # the visual representation first: it is the one drawn
        shapes.sort(key=lambda n: not n.has_type(OBJ + "LinkVisualRepresentation"))
        for shape in shapes:
            polytope = g.node(g.ref(shape, OBJ + "polytope"), shape, OBJ + "polytope")
            if not polytope.has_type(POLY + "CuboidWithSize"):
                continue
            scale = 1.0
            for unit in g.refs(polytope, QUDT + "unit", required=False):
                if unit not in LENGTH_UNITS:
                    raise FloorPlanError(f"{g.name(polytope.iri)}: unknown length unit {unit}",
                                         file=polytope.file, element=g.name(polytope.iri))
                scale = LENGTH_UNITS[unit]
            size = np.array([g.number(polytope, POLY + k, limit=MAX_LENGTH / scale)
                             for k in ("x-size", "y-size", "z-size")]) * scale
            if np.any(size <= 0):
                raise FloorPlanError(f"{g.name(polytope.iri)} has a size that is not positive",
                                     file=polytope.file, element=g.name(polytope.iri))
            return size
        raise FloorPlanError(f"link {g.name(body)} has no box (a LinkWithPolytope whose "
                             "polytope is a CuboidWithSize): only boxes are door geometry",
                             file=about.file, element=g.name(body))

    def _inertia(self, body: str, link: DoorLink) -> None:
        g = self.g
        for inertia in g.of_type(DYN + "RigidBodyInertia"):
            if g.ref(inertia, DYN + "of-body", required=False) != body:
                continue
            link.mass = g.number(inertia, DYN + "mass")
            link.inertia_diagonal = np.array([g.number(inertia, DYN + k, 0.0)
                                              for k in ("xx", "yy", "zz")])
            if link.mass <= 0 or np.any(link.inertia_diagonal < 0):
                raise FloorPlanError(f"{g.name(inertia.iri)}: mass and moments of inertia "
                                     "must be positive", file=inertia.file,
                                     element=g.name(inertia.iri))
            return

    def _joint(self, node: Node, object_frame: str, bodies: dict[str, str]) -> DoorJoint:
        g = self.g
        name = g.name(node.iri)
        kind = ("revolute" if node.has_type(KC + "RevoluteJoint") else
                "prismatic" if node.has_type(OBJ + "PrismaticJoint") else "fixed")
        parent = child = None
        for tree in g.of_type(OBJ + "JointWithTree"):
            if g.ref(tree, OBJ + "joint-without-tree", required=False) == node.iri:
                parent = g.ref(tree, OBJ + "parent")
                children = g.refs(tree, OBJ + "children")
                child = children[0] if len(children) == 1 else None
                if child is None:
                    raise FloorPlanError(f"joint {name} has {len(children)} children: a "
                                         "joint moves one body", file=tree.file,
                                         element=name)
                break
        else:
            # no tree given: the attachments in the order they are written
            attached = g.refs(node, KC + "between-attachments")
            if len(attached) == 2:
                parent, child = attached
        if parent is None or child is None:
            raise FloorPlanError(f"joint {name}: no JointWithTree gives its parent and child, "
                                 "and it is not between two attachments", file=node.file,
                                 element=name)
        for body in (parent, child):
            if body not in bodies:
                g.node(body, node)
                raise FloorPlanError(f"joint {name} attaches {g.name(body)}, which is not a "
                                     "link of its door", file=node.file, element=name)
        X_OJ, axis = self._axis(node, parent, object_frame)
        joint = DoorJoint(name, kind, bodies[parent], bodies[child], X_OJ, axis)
        if kind != "fixed":
            joint.lower = self._limit(node, OBJ + "JointLowerLimit", kind)
            joint.upper = self._limit(node, OBJ + "JointUpperLimit", kind)
            if joint.lower is not None and joint.upper is not None and joint.lower > joint.upper:
                raise FloorPlanError(f"joint {name}: lower limit {joint.lower:g} is above the "
                                     f"upper limit {joint.upper:g}", file=node.file,
                                     element=name)
        return joint

    def _axis(self, node: Node, parent: str, object_frame: str) -> tuple[np.ndarray, np.ndarray]:
        """The joint frame (in the object frame) and the axis in it, from ``common-axis``:
        the frame whose x, y or z vector is one of the collinear lines (the parent's)."""
        g = self.g
        axis_iri = g.ref(node, KC + "common-axis", required=False)
        if axis_iri is None:
            if node.has_type(KC + "RevoluteJoint") or node.has_type(OBJ + "PrismaticJoint"):
                raise self.g.missing(node, KC + "common-axis", "the joint axis")
            return np.eye(4), np.array([0.0, 0.0, 1.0])
        line = g.node(axis_iri, node, KC + "common-axis")
        lines = g.refs(line, REL + "lines")
        parent_simplices = set(g.refs(g.nodes[parent], GEOM + "simplices", required=False)) \
            if parent in g.nodes else set()
        candidates: list[tuple[bool, str, int]] = []
        for vector in lines:
            for frame in self.poses.frames.values():
                for k, letter in enumerate("xyz"):
                    if g.ref(frame, GEOM + f"vector-{letter}", required=False) == vector:
                        candidates.append((frame.iri not in parent_simplices, frame.iri, k))
        if not candidates:
            raise FloorPlanError(f"joint {g.name(node.iri)}: the lines of its common axis "
                                 f"{g.name(axis_iri)} are not the x, y or z vector of any frame",
                                 file=line.file, element=g.name(node.iri))
        candidates.sort(key=lambda c: c[0])   # a frame of the parent body first
        _, frame, k = candidates[0]
        axis = np.zeros(3)
        axis[k] = 1.0
        return self._in_object(frame, object_frame, node), axis

    def _quantity(self, node: Node, kind: str, what: str) -> float:
        g = self.g
        if QUDT + "value" not in node.props:
            raise FloorPlanError(
                f"{what} {g.name(node.iri)} has no value: with the current qudt context "
                "'value' is defined only for nodes typed Quantity", file=node.file,
                element=g.name(node.iri))
        value = g.number(node, QUDT + "value")
        units = g.refs(node, QUDT + "unit", required=False)
        table = LENGTH_UNITS if kind == "prismatic" else ANGLE_UNITS
        for unit in units:
            if unit not in table:
                raise FloorPlanError(f"{g.name(node.iri)}: unit {unit} does not fit a "
                                     f"{kind} joint", file=node.file, element=g.name(node.iri))
            value *= table[unit]
        return value

    def _limit(self, joint: Node, type_iri: str, kind: str) -> float | None:
        g = self.g
        for node in g.of_type(type_iri):
            if g.ref(node, KC_STATE + "of-joint", required=False) == joint.iri:
                return self._quantity(node, kind, "the joint limit")
        return None

    def _states(self, joints: dict[str, DoorJoint]
                ) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
        """State name -> joint name -> position, for the joints (by IRI) of one door, and
        state name -> the file giving it."""
        g = self.g
        states: dict[str, dict[str, float]] = {}
        files: dict[str, str] = {}
        for node in g.of_type(ST + "JointState"):
            joint_iri = g.ref(node, ST + "joint", required=False)
            joint = joints.get(joint_iri) if joint_iri else None
            if joint is None:
                continue
            state = g.ref(node, ST + "state")
            g.node(state, node, ST + "state", ST + "State")
            position = g.node(g.ref(node, ST + "pose"), node, ST + "pose")
            value = self._quantity(position, joint.type, "the joint position")
            states.setdefault(g.name(state), {})[joint.name] = value
            files.setdefault(g.name(state), node.file)
        return states, files


def _check_tree(door: str, node: Node, joints: list[DoorJoint]) -> None:
    """Refuse a kinematic chain that is no tree: a link moved by two joints, or joints
    in a loop.  Such a door has no link left to weld to the wall (every link is some
    joint's child) and a world file would let it fall as a free body."""
    moved_by: dict[str, DoorJoint] = {}
    for joint in joints:
        other = moved_by.get(joint.child)
        if other is not None:
            raise FloorPlanError(f"door {door}: the link {joint.child} is moved by two joints, "
                                 f"{other.name} and {joint.name}: a door's joints must form a "
                                 "tree (a closed chain cannot be written)", file=node.file,
                                 element=door)
        moved_by[joint.child] = joint
    for joint in joints:
        path, body = [joint], joint.parent
        while body in moved_by:
            up = moved_by[body]
            if up in path:
                loop = path[path.index(up):][::-1]      # from parent to child
                links = " -> ".join([loop[0].parent] + [j.child for j in loop])
                raise FloorPlanError(
                    f"door {door}: the joints {', '.join(j.name for j in loop)} form a "
                    f"loop ({links}): no link of the door is fixed to the wall",
                    file=node.file, element=door)
            path.append(up)
            body = up.parent


# -- where a door is ------------------------------------------------------------------------

def door_bounds(obj: DoorObject) -> tuple[np.ndarray, np.ndarray]:
    """The box (min, max corners) around the links of ``obj`` at position zero, in the
    object frame."""
    corners = np.array([[sx, sy, sz] for sx in (-0.5, 0.5) for sy in (-0.5, 0.5)
                        for sz in (-0.5, 0.5)])
    points = []
    for link in obj.links:
        local = corners * link.size
        points.append(local @ link.X_OL[:3, :3].T + link.X_OL[:3, 3])
    allp = np.vstack(points)
    return allp.min(axis=0), allp.max(axis=0)


def _opening_box(X_WF: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    local = (points - X_WF[:3, 3]) @ X_WF[:3, :3]
    return local.min(axis=0), local.max(axis=0)


def find_opening(plan: FloorPlan, door: DoorInstance) -> str | None:
    """The entryway (else any opening) whose box holds the centre of ``door`` at position
    zero, or None."""
    lo, hi = door_bounds(door.object)
    centre = door.X_WO[:3, :3] @ ((lo + hi) / 2) + door.X_WO[:3, 3]
    for wanted in (True, False):
        for opening in plan.openings.values():
            if (opening.kind == ENTRYWAY) != wanted:
                continue
            olo, ohi = _opening_box(opening.X_WF, opening.points)
            c = (centre - opening.X_WF[:3, 3]) @ opening.X_WF[:3, :3]
            if np.all(c >= olo - OPENING_TOLERANCE) and np.all(c <= ohi + OPENING_TOLERANCE):
                return opening.name
    return None


def _translation(x: float, y: float, z: float) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = (x, y, z)
    return X


def default_door(plan: FloorPlan, opening_name: str) -> DoorInstance:
    """A plain door for the entryway ``opening_name``: one leaf (no lining), hinged at the
    jamb at the low-x end of the opening (its frame's x runs along the wall), turning
    about +z from closed (0) to a right angle (1.57 rad), into the side the opening
    frame's +y points to (away from the first space of the doorway).  The leaf fills the
    opening but for :data:`CLEARANCE` at the jambs and the lintel and :data:`FLOOR_GAP`
    at the floor, :data:`LEAF_THICKNESS` thick (or the wall's thickness, if thinner), in
    the middle of the wall; its hinge joint's parent is the world."""
    opening = plan.openings.get(opening_name)
    if opening is None:
        raise FloorPlanError(f"the floor plan has no opening {opening_name}",
                             file=plan.source, element=opening_name)
    if opening.kind != ENTRYWAY:
        raise FloorPlanError(f"{opening_name} is a {opening.kind}, not an entryway: doors go "
                             "in entryways", file=plan.source, element=opening_name)
    lo, hi = _opening_box(opening.X_WF, opening.points)
    width, depth, height = hi - lo
    thickness = min(LEAF_THICKNESS, depth)
    length = width - 2 * CLEARANCE
    tall = height - CLEARANCE - FLOOR_GAP
    if length <= thickness or tall <= 0:
        raise FloorPlanError(f"{opening_name} ({width:.3f} x {height:.3f} m) is too small "
                             "for a door", file=plan.source, element=opening_name)
    # The hinge line: half a leaf thickness in from the jamb, so the opened leaf clears it.
    hinge_x = lo[0] + CLEARANCE + thickness / 2
    X_WO = opening.X_WF @ _translation(hinge_x, (lo[1] + hi[1]) / 2, lo[2])
    size = np.array([length, thickness, tall])
    mass = LEAF_DENSITY * float(np.prod(size))
    x, y, z = size
    leaf = DoorLink("leaf", _translation(length / 2 - thickness / 2, 0.0, FLOOR_GAP + tall / 2),
                    size, mass, mass / 12.0 * np.array([y * y + z * z, x * x + z * z,
                                                        x * x + y * y]), "Wood")
    hinge = DoorJoint("hinge", "revolute", "world", "leaf", np.eye(4),
                      np.array([0.0, 0.0, 1.0]), DEFAULT_LOWER, DEFAULT_UPPER)
    name = f"{opening_name}_door"
    obj = DoorObject(name, [leaf], [hinge], {"closed": {"hinge": DEFAULT_LOWER},
                                             "open": {"hinge": DEFAULT_UPPER}})
    return DoorInstance(name, obj, X_WO, "closed", {"hinge": DEFAULT_LOWER}, opening_name)

