"""Input and output records of the SNAP solver.

The OpenPLX evaluator builds a :class:`SnapProblem` from an evaluated System tree; the solver
never sees OpenPLX syntax.  Paths are opaque strings (the evaluator uses dotted attribute
paths such as ``World.rod_system.rod``); the only thing read from them is a body's attribute
name, used to pick a system's default reference body.

Pose notation follows :mod:`snapframe.core.pose`: ``X_AB`` is the pose of B in A.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Diagnostic
from ..pose import Pose

__all__ = ["SnapSystem", "SnapBody", "SnapConnector", "SnapMate", "SnapProblem", "SnapDof",
           "SnapResult", "MATE_TYPES"]

#: Mate types the solver knows (lower case; ``Physics3D.Interactions.Hinge`` is accepted too).
MATE_TYPES = ("lock", "hinge", "prismatic", "cylindrical", "ball", "distance")


@dataclass(frozen=True)
class SnapSystem:
    """A ``Physics3D.System``.

    ``declared`` is the explicitly assigned ``local_transform`` (relative to ``parent``) or
    ``None`` when SNAP may choose it.  ``reference_body`` is the body path SNAP forces first
    when it has to guess; ``None`` means the default rule (see :mod:`snapframe.core.snap`).
    """

    path: str
    parent: str | None
    declared: Pose | None
    reference_body: str | None = None


@dataclass(frozen=True)
class SnapBody:
    """A rigid body owned by system ``parent``; ``declared`` as for :class:`SnapSystem`."""

    path: str
    parent: str
    declared: Pose | None


@dataclass(frozen=True)
class SnapConnector:
    """A ``MateConnector``: ``X_OC`` is the connector frame in its owner's frame.

    The connector frame has the main axis along z and the normal along x.  ``owner`` is a
    body or a system path.  For a ``RedirectedMateConnector`` ``redirected_parent`` names the
    body the connector finally belongs to; SNAP still positions it through ``owner``.
    ``adaptive`` marks an ``AdaptiveMateConnector``: a mate using it places nothing; after
    SNAP the connector moves (in its owner) onto the other connector of that mate.
    """

    path: str
    owner: str
    X_OC: Pose
    redirected_parent: str | None = None
    adaptive: bool = False


@dataclass(frozen=True)
class SnapMate:
    """A mate between ``connectors[0]`` and ``connectors[1]`` (order matters for initial values)."""

    path: str
    type: str
    connectors: tuple[str, str]
    initial_angle: float = 0.0
    initial_position: float = 0.0
    initial_distance: float = 0.0
    enable_snap: bool = True
    file: str = ""
    line: int = 0


@dataclass
class SnapProblem:
    """One SNAP run: the system tree below ``root`` plus its connectors and mates.

    All lists are in declaration order; that order decides which mate wins a conflict and
    which frame gets forced, so keep it as the source file has it.
    """

    root: str
    systems: list[SnapSystem] = field(default_factory=list)
    bodies: list[SnapBody] = field(default_factory=list)
    connectors: list[SnapConnector] = field(default_factory=list)
    mates: list[SnapMate] = field(default_factory=list)


@dataclass
class SnapDof:
    """A free degree of freedom a mate left when it placed a frame.

    ``name`` uses the bundle's DOF names (``around_main``, ``along_main``, ...; a Distance
    mate adds ``orbit_normal``/``orbit_cross`` for connector 1 moving on its sphere).  ``value`` is
    the final value (initial value, or the value a loop closure chose) for the DOFs SNAP can
    move: the hinge angle (rad) and the prismatic slide (m); the others are reported with
    value 0.  ``state`` is ``"free"`` (still free at the end), ``"killed"`` (frozen because
    SNAP had to force a frame while it was free), or ``"used"`` (moved to close the loop of
    mate ``used_by``).
    """

    mate: str
    name: str
    frame: str
    initial: float
    value: float
    state: str = "free"
    used_by: str = ""


@dataclass
class SnapResult:
    """What :func:`snapframe.core.snap.solve` found.

    * ``local``: every system and body relative to its owning system (the root is the
      identity), every connector expressed in the owning system of its owner.
    * ``world``: everything, connectors included, in the root system frame.
    * ``status``: per system/body ``"root"``, ``"declared"``, ``"snapped"``, ``"forced"`` or
      ``"unconstrained"`` (no mate reached it: left at identity).
    * ``redirected``: per redirected connector, its pose in its ``redirected_parent`` body.
    * ``adapted``: per adaptive connector that adapted, its new frame in its owner (the
      ``X_OC`` that puts it on the other connector of its mate).
    * ``dofs``: per mate that placed a frame, the free DOFs it recorded (declaration order).
    * ``trace``: one line per step, in the order SNAP took them.
    """

    local: dict[str, Pose] = field(default_factory=dict)
    world: dict[str, Pose] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    dofs: dict[str, list[SnapDof]] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)
    redirected: dict[str, Pose] = field(default_factory=dict)
    adapted: dict[str, Pose] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """No error-level diagnostic."""
        return not any(d.is_error for d in self.diagnostics)
