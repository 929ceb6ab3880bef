"""FloorPlan -> core document: a world with the building and its doors.

* The **building** is one static model with one link; every piece of it (a wall with its
  openings cut out, split into pieces; a floor slab; a column; a divider; see
  :func:`.geometry.building_pieces`) is a visual and a collision.  A piece that is a box
  in its element's frame (a wall piece between openings, a rectangular column, divider or
  floor) is an SDFormat ``<box>`` placed in that frame; any other (a mitred wall end, a
  polygon) is a mesh held in memory (:class:`MeshData`, world coordinates, metres), which
  writers save as an STL file next to the output.
* Each **door** is a model of its own, posed at the door's object frame, with a link per
  door link (a box, its inertia and colour) and a joint per door joint.  The link with
  no parent joint is welded to the world (a fixed joint), unless a joint already hinges
  on the world (a default door).

**The start state.**  A door is written in its own coordinates: its links at position
zero (closed, for the doors here) and its joint limits as the door model gives them (0 to
1.57 rad), so a joint position in the world file, in libsdformat and in a simulator is the
door's own angle (``ajar`` is 0.5 rad, ``open`` 1.5 rad).  Where the door starts is
carried for Gazebo by a ``JointPositionController`` system plugin in the door's model, one
per joint with a start position: it names the joint and gives the start position as its
``<initial_position>`` (gz-sim since Fortress), so the simulation drives the door there
when it starts and a command on the controller's topic moves it to any other angle.  A
start state beyond a joint's limits is held at the limit, with a warning naming the state's
file, the state and the joint.  An editor shows the start state through its joint overlay
(see :func:`.editing.start_positions`); nothing moved is written.

``door_configuration="start"`` writes the door at its start state instead (the child links
turned by the start position, the limits measured from there: -0.5 to 1.07 rad for the
ajar door), for tools that read no plugins; then no controller is written.  Either way
each joint's ``extras["floorplan_joint"]`` keeps the door's own coordinates: ``zero``
(the door position the written configuration stands for), the modelled ``lower`` and
``upper``, the ``start`` position (None without a start state) and the ``states`` (name ->
position), so a view can show door positions and state names; the door model's
``extras["floorplan_door"]`` names the instance, the object, the start state and the
entryway.

**Openings as frames.**  The building model has a frame per entryway and window, named
after it, attached to the building link at the opening's frame (the centre of its
rectangle, x along the wall, y through it), so a scene tree lists the doorways and a door
can be hung off one.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from snapframe.core.diagnostics import Code, Diagnostics, SourceLocation
from lxml import etree

from snapframe.core.model import (Collision, Document, Frame, Geometry, Inertial, Joint,
                                  JointAxis, Link, Model, Plugin, PoseSpec, Visual, World)
from snapframe.core.model.names import MODEL_FRAME, WORLD, is_reserved
from snapframe.core.model.nodes import MeshData
from snapframe.core.pose import Pose

from .errors import FloorPlanError
from .model import DoorInstance, DoorObject, FloorPlan

__all__ = ["build_document", "build_model", "building_model", "door_model", "configuration",
           "start_controller", "plan_pieces",
           "BUILDING", "START", "ZERO", "COLORS", "CONTROLLER_FILENAME", "CONTROLLER_NAME"]

#: The building model's name.
BUILDING = "building"
#: Door configurations: at the object's position zero (the default), or at the
#: instance's start state.
START, ZERO = "start", "zero"
#: The gz-sim system that holds a door joint and starts it at ``<initial_position>``.
CONTROLLER_FILENAME = "gz-sim-joint-position-controller-system"
CONTROLLER_NAME = "gz::sim::systems::JointPositionController"
#: Colours (RGBA) of building pieces by kind, and of door materials by name.
COLORS = {"wall": (0.86, 0.85, 0.82, 1.0), "floor": (0.62, 0.62, 0.64, 1.0),
          "column": (0.74, 0.74, 0.78, 1.0), "divider": (0.70, 0.66, 0.60, 1.0),
          "Wood": (0.60, 0.42, 0.24, 1.0), "Grey": (0.50, 0.50, 0.52, 1.0),
          "door": (0.72, 0.55, 0.35, 1.0)}
#: How far (m, per metre of the piece's extent) a vertex may be from a box corner.
BOX_TOLERANCE = 1e-9
#: Density (kg/m^3) for a door link whose model gives no mass.
DOOR_DENSITY = 500.0
_NAME_BAD = re.compile(r"[^A-Za-z0-9_.\-]+")


def _pose(X: np.ndarray) -> Pose:
    return Pose.from_matrix(np.asarray(X, dtype=float))


def _clean(name: str, fallback: str) -> str:
    """An SDFormat-safe name: no ``::``, not reserved."""
    out = _NAME_BAD.sub("_", name).strip("_") or fallback
    return out + "_" if is_reserved(out) else out


def _unique(name: str, used: set[str]) -> str:
    out, k = name, 1
    while out in used:
        k += 1
        out = f"{name}_{k}"
    used.add(out)
    return out


# -- the building ---------------------------------------------------------------------------

def plan_pieces(plan: FloorPlan, problems: list[FloorPlanError] | None = None) -> list:
    """The building's pieces (:func:`.geometry.building_pieces`), each with ``name``,
    ``kind``, world ``vertices`` and outward ``triangles``."""
    from .geometry import building_pieces
    return building_pieces(plan, problems=problems)


def _element_frame(plan: FloorPlan, element: str) -> np.ndarray | None:
    for table in (plan.walls, plan.features, plan.spaces):
        found = table.get(element)
        if found is not None:
            return np.asarray(found.X_WF, dtype=float)
    return None


def _as_box(vertices: np.ndarray, X_WF: np.ndarray) -> tuple[tuple, np.ndarray] | None:
    """``(size, X_WB)`` if ``vertices`` are exactly the 8 corners of a box aligned with
    the frame ``X_WF`` (a wall piece between two openings, a rectangular column, divider
    or floor slab), else None: such a piece is written as an SDFormat ``<box>``."""
    V = np.asarray(vertices, dtype=float)
    if len(V) < 8:
        return None
    local = (V - X_WF[:3, 3]) @ X_WF[:3, :3]
    lo, hi = local.min(axis=0), local.max(axis=0)
    tol = BOX_TOLERANCE * max(1.0, float(np.abs(local).max()))
    size = hi - lo
    if np.any(size <= tol):
        return None
    at_corner = (np.abs(local - lo) <= tol) | (np.abs(local - hi) <= tol)
    if not at_corner.all():
        return None
    corners = {tuple(row) for row in (np.abs(local - hi) <= tol).astype(int)}
    if len(corners) != 8:
        return None
    X = np.array(X_WF, dtype=float)
    X[:3, 3] = X_WF[:3, 3] + X_WF[:3, :3] @ ((lo + hi) / 2)
    return tuple(float(v) for v in size), X


def building_model(plan: FloorPlan, pieces: list | None = None,
                   diagnostics: Diagnostics | None = None) -> Model:
    """The static building model: one link, a visual and a collision per piece, and a
    frame per opening (attached to the link, at the opening's frame)."""
    where = SourceLocation(str(plan.source or ""))
    problems: list[FloorPlanError] = []
    if pieces is None:
        pieces = plan_pieces(plan, problems)
    if diagnostics is not None:
        for problem in problems:
            diagnostics.warning(Code.CONVERSION_ERROR, f"{problem.message}: left out of the "
                                "building", SourceLocation(problem.file or where.file,
                                                           problem.line or 0),
                                problem.element or "")
    model = Model(name=BUILDING, static=True, source=where,
                  pose=PoseSpec(Pose(), "", False, where))
    model.extras["floorplan_plan"] = plan
    link = Link(name=BUILDING, source=where)
    used: set[str] = set()
    for piece in pieces:
        name = _unique(_clean(piece.name, "piece"), used)
        element = getattr(piece, "element", "") or piece.name
        extras = {"floorplan_element": element, "floorplan_kind": piece.kind}
        frame = _element_frame(plan, element)
        box = _as_box(piece.vertices, frame) if frame is not None else None
        if box is not None:
            size, X_LB = box
            geometry = Geometry("box", {"size": size})
            pose = PoseSpec(_pose(X_LB), "", True, where)
        else:
            data = MeshData(piece.vertices, piece.triangles, name)
            geometry = Geometry("mesh", {
                "uri": f"floorplan://{_clean(plan.name, 'plan')}/{name}",
                "scale": (1.0, 1.0, 1.0), "submesh": None, "center_submesh": False,
                "resolved_path": None, "data": data})
            pose = PoseSpec(Pose(), "", False, where)
        visual = Visual(name=name, source=where, pose=pose.copy(),
                        geometry=Geometry(geometry.shape, dict(geometry.params)),
                        color=COLORS.get(piece.kind, COLORS["wall"]), extras=dict(extras))
        collision = Collision(name=name, source=where, pose=pose.copy(),
                              geometry=Geometry(geometry.shape, dict(geometry.params)),
                              extras=dict(extras))
        visual.parent = collision.parent = link
        link.visuals.append(visual)
        link.collisions.append(collision)
    model.add(link)
    names = {BUILDING}
    for opening in plan.openings.values():
        frame = Frame(name=_unique(_clean(opening.name, "opening"), names), source=where,
                      attached_to=BUILDING,
                      pose=PoseSpec(_pose(opening.X_WF), "", True, where),
                      extras={"floorplan_element": opening.name,
                              "floorplan_kind": opening.kind})
        model.add(frame)
    return model


# -- doors ----------------------------------------------------------------------------------

def _motion(kind: str, axis: np.ndarray, q: float) -> np.ndarray:
    """The joint's motion at position ``q`` in its own frame."""
    M = np.eye(4)
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    if kind == "revolute":
        K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
        M[:3, :3] = np.eye(3) + np.sin(q) * K + (1 - np.cos(q)) * (K @ K)
    elif kind == "prismatic":
        M[:3, 3] = a * q
    return M


def configuration(obj: DoorObject, positions: dict[str, float]
                  ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """``(X_OL per link, X_OJ per joint)`` with the joints at ``positions`` (forward
    kinematics from the root links; a joint frame moves with its child)."""
    moved: dict[str, np.ndarray] = {}
    children: dict[str, list] = {}
    for joint in obj.joints:
        children.setdefault(joint.parent, []).append(joint)
    child_names = {j.child for j in obj.joints}
    queue = [(link.name, np.eye(4)) for link in obj.links if link.name not in child_names]
    queue.append((WORLD, np.eye(4)))
    frames: dict[str, np.ndarray] = {}
    while queue:
        body, G = queue.pop()
        if body in moved:
            continue
        moved[body] = G
        for joint in children.get(body, ()):
            q = positions.get(joint.name, 0.0)
            M = _motion(joint.type, joint.axis, q)
            frames[joint.name] = G @ joint.X_OJ @ M
            queue.append((joint.child, G @ joint.X_OJ @ M @ np.linalg.inv(joint.X_OJ)))
    links = {link.name: moved.get(link.name, np.eye(4)) @ link.X_OL for link in obj.links}
    for joint in obj.joints:
        frames.setdefault(joint.name, joint.X_OJ)
    return links, frames


def _box_moments(mass: float, size: np.ndarray) -> tuple[float, float, float]:
    x, y, z = size
    return (mass / 12 * (y * y + z * z), mass / 12 * (x * x + z * z),
            mass / 12 * (x * x + y * y))


def _inertial(link, where: SourceLocation, diagnostics: Diagnostics | None,
              door: str) -> Inertial:
    """The link's inertia as the model gives it; a box's own when the model gives none,
    or gives moments no body can have (one larger than the other two together: rounded
    values of a thin leaf do that), which is said in a warning."""
    size = np.asarray(link.size, dtype=float)
    mass = link.mass if link.mass is not None else DOOR_DENSITY * float(np.prod(size))
    moments = _box_moments(mass, size)
    if link.inertia_diagonal is not None:
        given = tuple(float(v) for v in link.inertia_diagonal)
        a, b, c = sorted(given)
        if a + b >= c * (1 - 1e-12):
            moments = given
        elif diagnostics is not None:
            diagnostics.warning(
                Code.CONVERSION_ERROR,
                f"door {door}, link {link.name}: the moments of inertia "
                f"{', '.join(f'{v:g}' for v in given)} are not those of a body (the "
                f"smaller two add up to less than the largest); those of its box "
                f"({', '.join(f'{v:.4g}' for v in moments)}) are written instead", where)
    return Inertial(mass=mass, ixx=moments[0], iyy=moments[1], izz=moments[2],
                    written_inertia=True, source=where)


def _number(value: float) -> str:
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def start_controller(joint: str, position: float,
                     where: SourceLocation | None = None) -> Plugin:
    """The gz-sim ``JointPositionController`` plugin that starts the joint named
    ``joint`` (its name in the door's model) at ``position`` and holds it there."""
    el = etree.Element("plugin", filename=CONTROLLER_FILENAME, name=CONTROLLER_NAME)
    etree.SubElement(el, "joint_name").text = joint
    etree.SubElement(el, "initial_position").text = _number(position)
    return Plugin(name=CONTROLLER_NAME, filename=CONTROLLER_FILENAME, xml=el,
                  source=where or SourceLocation())


def _start_positions(door: DoorInstance, diagnostics: Diagnostics | None,
                     where: SourceLocation) -> dict[str, float]:
    """The door's start positions, each held within its joint's limits: a start state
    beyond them is said in a warning naming the state's file, the state and the joint
    (a simulator would not start the door there either)."""
    joints = {j.name: j for j in door.object.joints}
    out: dict[str, float] = {}
    for name, value in door.positions.items():
        joint = joints.get(name)
        held = value
        if joint is not None and joint.type != "fixed":
            if joint.lower is not None and held < joint.lower:
                held, which, limit = joint.lower, "lower", joint.lower
            if joint.upper is not None and held > joint.upper:
                held, which, limit = joint.upper, "upper", joint.upper
        if held != value and diagnostics is not None:
            unit = "m" if joint.type == "prismatic" else "rad"
            file = door.object.state_files.get(door.state_name or "") or door.file or \
                where.file
            diagnostics.warning(
                Code.WARNING,
                f"door {door.name}: its start state {door.state_name} puts the joint {name} "
                f"at {value:g} {unit}, beyond its {which} limit {limit:g} {unit}: it starts "
                f"at {held:g} {unit}", SourceLocation(str(file)), name)
        out[name] = held
    return out


def door_model(door: DoorInstance, configuration_: str = ZERO, name: str | None = None,
               source: str | Path | None = None,
               diagnostics: Diagnostics | None = None) -> Model:
    """The model of one door instance (see the module text for ``configuration_``)."""
    if configuration_ not in (START, ZERO):
        raise ValueError(f"door configuration must be {START!r} or {ZERO!r}")
    where = SourceLocation(str(source or ""))
    obj = door.object
    starts = _start_positions(door, diagnostics, where)
    written = dict(starts) if configuration_ == START else {}
    links, frames = configuration(obj, written)
    model = Model(name=name or _clean(door.name, "door"), source=where,
                  pose=PoseSpec(_pose(door.X_WO), "", True, where))
    model.extras["floorplan_door"] = {"instance": door.name, "object": obj.name,
                                      "state": door.state_name, "opening": door.opening,
                                      "configuration": configuration_}
    used: set[str] = set()
    names: dict[str, str] = {}
    for link in obj.links:
        names[link.name] = _unique(_clean(link.name, "link"), used)
    for link in obj.links:
        node = Link(name=names[link.name], source=where,
                    pose=PoseSpec(_pose(links[link.name]), "", True, where),
                    inertial=_inertial(link, where, diagnostics, door.name))
        box = Geometry("box", {"size": tuple(float(v) for v in link.size)})
        color = COLORS.get(link.material or "", COLORS["door"])
        visual = Visual(name="visual", source=where, geometry=box, color=color)
        collision = Collision(name="collision", source=where,
                              geometry=Geometry("box", dict(box.params)))
        visual.parent = collision.parent = node
        node.visuals.append(visual)
        node.collisions.append(collision)
        model.add(node)
    joint_names: set[str] = set(used)
    hinged_on_world = False
    controllers: list[Plugin] = []
    for joint in obj.joints:
        parent = WORLD if joint.parent == WORLD else names.get(joint.parent)
        child = names.get(joint.child)
        if parent is None or child is None:
            raise FloorPlanError(f"joint {joint.name} of door {obj.name} names a link the "
                                 "door does not have", file=source, element=joint.name)
        hinged_on_world |= parent == WORLD
        q = written.get(joint.name, 0.0)
        axis = JointAxis(xyz=tuple(float(v) for v in joint.axis), source=where)
        if joint.type != "fixed":
            axis.lower = joint.lower - q if joint.lower is not None else None
            axis.upper = joint.upper - q if joint.upper is not None else None
        node = Joint(name=_unique(_clean(joint.name, "joint"), joint_names), type=joint.type,
                     parent_name=parent, child_name=child, source=where,
                     pose=PoseSpec(_pose(frames[joint.name]), MODEL_FRAME, True, where),
                     axes=[axis] if joint.type != "fixed" else [])
        start = starts.get(joint.name) if joint.type != "fixed" else None
        node.extras["floorplan_joint"] = {
            "zero": q, "lower": joint.lower, "upper": joint.upper, "start": start,
            "states": {state: values[joint.name] for state, values in obj.states.items()
                       if joint.name in values}}
        model.add(node)
        if start is not None and configuration_ == ZERO:
            controllers.append(start_controller(node.name, start, where))
    if not hinged_on_world:
        # The door's frame (its root links) stands in the wall: welded to the world.
        child_names = {j.child for j in obj.joints}
        for link in obj.links:
            if link.name not in child_names:
                model.add(Joint(name=_unique(f"{names[link.name]}_to_world", joint_names),
                                type="fixed", parent_name=WORLD, child_name=names[link.name],
                                source=where))
    for plugin in controllers:      # after the joints they name
        model.add(plugin)
    return model


# -- the whole plan -------------------------------------------------------------------------

def _models(plan: FloorPlan, door_configuration: str, diagnostics: Diagnostics | None,
            pieces: list | None) -> list[Model]:
    if diagnostics is not None:
        for warning in plan.warnings:
            diagnostics.warning(Code.WARNING, warning.message,
                                SourceLocation(warning.file or str(plan.source or ""),
                                               warning.line or 0), warning.element or "")
    used = {BUILDING}
    models = [building_model(plan, pieces, diagnostics)]
    for door in plan.doors:
        models.append(door_model(door, door_configuration,
                                 _unique(_clean(door.name, "door"), used), plan.source,
                                 diagnostics))
    return models


def build_document(plan: FloorPlan, *, path: str | Path = "", door_configuration: str = ZERO,
                   pieces: list | None = None) -> Document:
    """A document whose root is a world named after the plan, holding the building and
    one model per door.  Elements the geometry cannot build are left out with a warning
    in the document's diagnostics; the plan is ``document.extras["floorplan"]``."""
    doc = Document(path=str(path or plan.source or ""), format="floorplan")
    where = SourceLocation(str(plan.source or ""))
    world = World(name=_clean(plan.name, "floorplan"), source=where)
    for model in _models(plan, door_configuration, doc.diagnostics, pieces):
        world.add(model)
    doc.root = world
    doc.extras["floorplan"] = plan
    return doc


def build_model(plan: FloorPlan, *, door_configuration: str = ZERO, pieces: list | None = None,
                diagnostics: Diagnostics | None = None) -> Model:
    """The plan as one model (for an ``//include``): the building and the doors nested in
    a model named after the plan."""
    where = SourceLocation(str(plan.source or ""))
    model = Model(name=_clean(plan.name, "floorplan"), source=where)
    for nested in _models(plan, door_configuration, diagnostics, pieces):
        model.add(nested)
    model.extras["floorplan"] = plan
    return model
