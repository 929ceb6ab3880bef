"""The floor plan as both readers produce it: every element in world coordinates.

The FloorPlan DSL (``.fpm``) reader and the JSON-LD reader are independent paths to this
one model, so comparing their results checks both.  Names are the FloorPlan ids (the
relative ``@id`` of the JSON-LD output): ``lab``, ``lab-wall-2``, ``lab_hall``.

Transforms are 4x4 numpy arrays ``X_WF`` (world from frame).  Point arrays are float64,
shape (N, 3), in metres, world coordinates.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import FloorPlanError

#: Element kinds, as the FloorPlan metamodel types them.
WALL, COLUMN, DIVIDER, ENTRYWAY, WINDOW = "wall", "column", "divider", "entryway", "window"
OPENING_KINDS = (ENTRYWAY, WINDOW)
FEATURE_KINDS = (COLUMN, DIVIDER)


@dataclass
class Solid:
    """A prism element of the plan: a wall, column, divider or opening.

    ``polygon`` is the 2D shape's corner points and ``points``/``faces`` the 3D shape
    (polyhedron), both in world coordinates and in the order the FloorPlan output lists
    them (``<name>-corner-<k>``).  ``faces`` index into ``points``.
    """

    name: str
    kind: str
    X_WF: np.ndarray
    polygon: np.ndarray
    points: np.ndarray
    faces: list[list[int]]
    height: float
    thickness: float | None = None          # walls; openings: the summed wall thickness
    space: str | None = None                # the space a wall or feature belongs to
    voids: list[str] = field(default_factory=list)  # openings: the walls they cut
    file: str | None = None                 # where it is defined (for diagnostics)
    line: int | None = None


@dataclass
class Space:
    """A room: its frame, its floor polygon (world, z = 0) and its walls in order."""

    name: str
    X_WF: np.ndarray
    polygon: np.ndarray
    walls: list[str] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    file: str | None = None                 # where it is defined (for diagnostics)
    line: int | None = None


@dataclass
class DoorLink:
    """One rigid link of a door object: a box in the link frame."""

    name: str
    X_OL: np.ndarray                 # object frame from link frame
    size: np.ndarray                 # box x, y, z sizes (m)
    mass: float | None = None
    inertia_diagonal: np.ndarray | None = None   # ixx, iyy, izz about the link frame
    material: str | None = None


@dataclass
class DoorJoint:
    """A joint of a door object's kinematic chain (revolute, prismatic or fixed)."""

    name: str
    type: str
    parent: str
    child: str
    X_OJ: np.ndarray                 # object frame from joint frame
    axis: np.ndarray                 # unit vector in the joint frame
    lower: float | None = None
    upper: float | None = None


@dataclass
class DoorObject:
    """A door type: links, joints and named states (joint name -> position)."""

    name: str
    links: list[DoorLink]
    joints: list[DoorJoint]
    states: dict[str, dict[str, float]] = field(default_factory=dict)
    file: str | None = None                 # the file defining it (for diagnostics)
    state_files: dict[str, str] = field(default_factory=dict)   # state -> its file


@dataclass
class DoorInstance:
    """A door placed in the plan, at a state (joint name -> position)."""

    name: str
    object: DoorObject
    X_WO: np.ndarray                 # world from the object frame
    state_name: str | None = None
    positions: dict[str, float] = field(default_factory=dict)
    opening: str | None = None       # the entryway it sits in, when known
    file: str | None = None          # the file placing it (for diagnostics)


@dataclass
class FloorPlan:
    """A whole floor plan in world coordinates.

    ``spaces``, ``walls``, ``features`` and ``openings`` keep the source order (the
    order of the FloorPlan output), keyed by name.
    """

    name: str
    spaces: dict[str, Space] = field(default_factory=dict)
    walls: dict[str, Solid] = field(default_factory=dict)
    features: dict[str, Solid] = field(default_factory=dict)
    openings: dict[str, Solid] = field(default_factory=dict)
    doors: list[DoorInstance] = field(default_factory=list)
    source: Path | None = None
    #: what the reader accepted but a user should hear about (a counter-clockwise space,
    #: a start state beyond a joint's limits), each located like an error
    warnings: list[FloorPlanError] = field(default_factory=list)

    def solids(self) -> list[Solid]:
        """Every wall, feature and opening, in that order."""
        return [*self.walls.values(), *self.features.values(), *self.openings.values()]
