"""Edits of an open floor plan document: which entryways have doors, adding a door, and
the doors' start states shown without an edit.

A floor plan opened on its own is a world (:func:`.world.build_document`) whose
``extras["floorplan"]`` is the plan; each door is a model of the world whose
``extras["floorplan_door"]["opening"]`` names its entryway.  What has a door is read from
the document itself, so undo and redo keep it right.  :func:`AddDoor` is one core command
(an :class:`~snapframe.core.model.edits.AddNode` of the door's model): one undo step.

Doors are written closed (their own position zero, see :mod:`.world`);
:func:`show_start_states` turns each to its start state in the document's joint overlay
(``document.live.joints``), which poses the views and writes nothing.
"""
from __future__ import annotations

from typing import Iterable

from snapframe.core.model import Document, Model, World
from snapframe.core.model.edits import AddNode, EditRefused

from .errors import FloorPlanError
from .model import ENTRYWAY, FloorPlan

__all__ = ["plan_of", "doors_by_opening", "entryways_without_door", "entryways_at",
           "start_positions", "show_start_states", "AddDoor"]


def plan_of(document: Document) -> FloorPlan | None:
    """The floor plan ``document`` was built from (None for other documents)."""
    plan = document.extras.get("floorplan") if document is not None else None
    return plan if isinstance(plan, FloorPlan) else None


def doors_by_opening(document: Document) -> dict[str, str]:
    """Entryway name -> the name of the door model standing in it."""
    root = document.root
    out: dict[str, str] = {}
    if not isinstance(root, World):
        return out
    for model in root.models:
        info = model.extras.get("floorplan_door")
        if isinstance(info, dict) and info.get("opening"):
            out.setdefault(str(info["opening"]), model.name)
    return out


def entryways_without_door(document: Document) -> list[str]:
    """The plan's entryways no door stands in, in plan order."""
    plan = plan_of(document)
    if plan is None:
        return []
    taken = doors_by_opening(document)
    return [name for name, opening in plan.openings.items()
            if opening.kind == ENTRYWAY and name not in taken]


def entryways_at(document: Document, key: str) -> list[str]:
    """The entryways without a door that the element ``key`` is about: the entryway
    itself for its frame in the building, those cut into the wall a building piece
    belongs to, or every one for the building model, its link, or the world."""
    free = entryways_without_door(document)
    if not free:
        return []
    node = document.element(key)
    if node is None:
        return []
    element = node.extras.get("floorplan_element") if hasattr(node, "extras") else None
    if element:
        plan = plan_of(document)
        return [name for name in free
                if name == element or element in plan.openings[name].voids]
    building = _building(document)
    if node is document.root or (building is not None and
                                 (node is building or node.parent is building)):
        return free
    return []


def start_positions(document: Document) -> dict[str, float]:
    """Joint key -> start position (the door's own coordinates) of every door joint of a
    floor plan document whose door has a start state away from the written position."""
    root = document.root if document is not None else None
    if plan_of(document) is None or not isinstance(root, World):
        return {}
    out: dict[str, float] = {}
    for model in root.models:
        if "floorplan_door" not in model.extras:
            continue
        for joint in model.joints:
            info = joint.extras.get("floorplan_joint")
            if not isinstance(info, dict) or info.get("start") is None:
                continue
            value = float(info["start"]) - float(info.get("zero") or 0.0)
            if value:
                out[document.key(joint)] = value
    return out


def show_start_states(document: Document, keys: Iterable[str] | None = None
                      ) -> dict[str, float]:
    """Turn each door of a floor plan document (or only the door joints ``keys``) to its
    start state in the joint overlay (views follow; the document is not edited).  Returns
    the positions set; joints the overlay cannot move are left out."""
    wanted = start_positions(document)
    if keys is not None:
        keys = set(keys)
        wanted = {k: v for k, v in wanted.items() if k in keys}
    if not wanted:
        return {}
    joints = document.live.joints
    movable = set(joints.joint_keys())
    wanted = {k: v for k, v in wanted.items() if k in movable}
    if wanted:
        try:
            joints.set_positions(wanted)
        except EditRefused:
            return {}       # a door the overlay cannot move stays as written
    return wanted


def _building(document: Document) -> Model | None:
    root = document.root
    if not isinstance(root, World):
        return None
    return next((m for m in root.models if "floorplan_plan" in m.extras), None)


def AddDoor(document: Document, opening: str) -> AddNode:
    """The command that puts a default hinged door (:func:`.doors.default_door`, closed,
    turning 0 to 1.57 rad) into the entryway ``opening`` as a model of the world.

    Raises :class:`EditRefused` (nothing changed) when the document is no floor plan,
    the opening is no entryway of it or already has a door, or the door does not fit."""
    from .doors import default_door
    from .world import door_model
    plan = plan_of(document)
    if plan is None or not isinstance(document.root, World):
        raise EditRefused("doors are added to a floor plan opened on its own")
    taken = doors_by_opening(document)
    if opening in taken:
        raise EditRefused(f"{opening} already has a door ({taken[opening]})")
    try:
        door = default_door(plan, opening)
    except FloorPlanError as error:
        raise EditRefused(error.message) from None
    used = {getattr(e, "name", "") for e in document.root.entities}
    name, k = door.name, 1
    while name in used:
        k += 1
        name = f"{door.name}_{k}"
    model = door_model(door, name=name, source=plan.source)
    command = AddNode(document, document.root, model)
    command.label = f"Add door to {opening}"
    return command
