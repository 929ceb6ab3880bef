"""Input and output records of the SNAP solver.

The OpenPLX evaluator builds a :class:`SnapProblem` from an evaluated System tree; the solver
never sees OpenPLX syntax.  Paths are opaque strings (the evaluator uses dotted attribute
paths such as ``World.rod_system.rod``); the only thing read from them is a body's attribute
name, used to pick a system's default reference body.

Pose notation follows :mod:`snapframe.core.pose`: ``X_AB`` is the pose of B in A.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any

from ..diagnostics import Diagnostic
from ..pose import Pose

__all__ = ["SnapSystem", "SnapBody", "SnapConnector", "SnapMate", "SnapProblem", "SnapDof",
           "SnapResult", "MATE_TYPES"]

#: Mate types the solver knows (lower case; ``Physics3D.Interactions.Hinge`` is accepted too).
MATE_TYPES = ("lock", "hinge", "prismatic", "cylindrical", "ball", "distance")

# The records are written out; they were dataclasses and keep their behaviour exactly: the
# constructors, ``repr``, equality on the fields (same class only), and for the frozen ones
# hashing and no assignment after construction.  (Creating a dataclass compiles its
# methods at import: these seven cost ``snapframe snap`` more than solving 100 mates.)

_NEW: Any = object()  # default of a list or dict field: a new empty one per record
_set = object.__setattr__


class _Record:
    """``repr`` and ``==`` over ``_fields``, as a dataclass has them."""

    _fields: tuple[str, ...] = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._fields)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({fields})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()  # type: ignore[attr-defined]
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class _Frozen(_Record):
    """A frozen record: hashable, and its fields cannot be assigned after ``__init__``."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


class SnapSystem(_Frozen):
    """A ``Physics3D.System``.

    ``declared`` is the explicitly assigned ``local_transform`` (relative to ``parent``) or
    ``None`` when SNAP may choose it.  ``reference_body`` is the body path SNAP forces first
    when it has to guess; ``None`` means the default rule (see :mod:`snapframe.core.snap`).
    """

    _fields = ("path", "parent", "declared", "reference_body")
    path: str
    parent: str | None
    declared: Pose | None
    reference_body: str | None

    def __init__(self, path: str, parent: str | None, declared: Pose | None,
                 reference_body: str | None = None) -> None:
        _set(self, "path", path)
        _set(self, "parent", parent)
        _set(self, "declared", declared)
        _set(self, "reference_body", reference_body)


class SnapBody(_Frozen):
    """A rigid body owned by system ``parent``; ``declared`` as for :class:`SnapSystem`."""

    _fields = ("path", "parent", "declared")
    path: str
    parent: str
    declared: Pose | None

    def __init__(self, path: str, parent: str, declared: Pose | None) -> None:
        _set(self, "path", path)
        _set(self, "parent", parent)
        _set(self, "declared", declared)


class SnapConnector(_Frozen):
    """A ``MateConnector``: ``X_OC`` is the connector frame in its owner's frame.

    The connector frame has the main axis along z and the normal along x.  ``owner`` is a
    body or a system path.  For a ``RedirectedMateConnector`` ``redirected_parent`` names the
    body the connector finally belongs to; SNAP still positions it through ``owner``.
    ``adaptive`` marks an ``AdaptiveMateConnector``: a mate using it places nothing; after
    SNAP the connector moves (in its owner) onto the other connector of that mate.
    """

    _fields = ("path", "owner", "X_OC", "redirected_parent", "adaptive")
    path: str
    owner: str
    X_OC: Pose
    redirected_parent: str | None
    adaptive: bool

    def __init__(self, path: str, owner: str, X_OC: Pose, redirected_parent: str | None = None,
                 adaptive: bool = False) -> None:
        _set(self, "path", path)
        _set(self, "owner", owner)
        _set(self, "X_OC", X_OC)
        _set(self, "redirected_parent", redirected_parent)
        _set(self, "adaptive", adaptive)


class SnapMate(_Frozen):
    """A mate between ``connectors[0]`` and ``connectors[1]`` (order matters for initial values)."""

    _fields = ("path", "type", "connectors", "initial_angle", "initial_position",
               "initial_distance", "enable_snap", "file", "line")
    path: str
    type: str
    connectors: tuple[str, str]
    initial_angle: float
    initial_position: float
    initial_distance: float
    enable_snap: bool
    file: str
    line: int

    def __init__(self, path: str, type: str, connectors: tuple[str, str],
                 initial_angle: float = 0.0, initial_position: float = 0.0,
                 initial_distance: float = 0.0, enable_snap: bool = True, file: str = "",
                 line: int = 0) -> None:
        _set(self, "path", path)
        _set(self, "type", type)
        _set(self, "connectors", connectors)
        _set(self, "initial_angle", initial_angle)
        _set(self, "initial_position", initial_position)
        _set(self, "initial_distance", initial_distance)
        _set(self, "enable_snap", enable_snap)
        _set(self, "file", file)
        _set(self, "line", line)

    def _values(self) -> tuple:  # (equality and hash stay on these fields in subclasses)
        return (self.path, self.type, self.connectors, self.initial_angle,
                self.initial_position, self.initial_distance, self.enable_snap, self.file,
                self.line)


class SnapProblem(_Record):
    """One SNAP run: the system tree below ``root`` plus its connectors and mates.

    All lists are in declaration order; that order decides which mate wins a conflict and
    which frame gets forced, so keep it as the source file has it.
    """

    _fields = ("root", "systems", "bodies", "connectors", "mates")

    def __init__(self, root: str, systems: list[SnapSystem] = _NEW,
                 bodies: list[SnapBody] = _NEW, connectors: list[SnapConnector] = _NEW,
                 mates: list[SnapMate] = _NEW) -> None:
        self.root = root
        self.systems = [] if systems is _NEW else systems
        self.bodies = [] if bodies is _NEW else bodies
        self.connectors = [] if connectors is _NEW else connectors
        self.mates = [] if mates is _NEW else mates


class SnapDof(_Record):
    """A free degree of freedom a mate left when it placed a frame.

    ``name`` uses the bundle's DOF names (``around_main``, ``along_main``, ...; a Distance
    mate adds ``orbit_normal``/``orbit_cross`` for connector 1 moving on its sphere).  ``value`` is
    the final value (initial value, or the value a loop closure chose) for the DOFs SNAP can
    move: the hinge angle (rad) and the prismatic slide (m); the others are reported with
    value 0.  ``state`` is ``"free"`` (still free at the end), ``"killed"`` (frozen because
    SNAP had to force a frame while it was free), or ``"used"`` (moved to close the loop of
    mate ``used_by``).
    """

    _fields = ("mate", "name", "frame", "initial", "value", "state", "used_by")

    def __init__(self, mate: str, name: str, frame: str, initial: float, value: float,
                 state: str = "free", used_by: str = "") -> None:
        self.mate = mate
        self.name = name
        self.frame = frame
        self.initial = initial
        self.value = value
        self.state = state
        self.used_by = used_by


class SnapResult(_Record):
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

    _fields = ("local", "world", "diagnostics", "trace", "dofs", "status", "redirected",
               "adapted")

    def __init__(self, local: dict[str, Pose] = _NEW, world: dict[str, Pose] = _NEW,
                 diagnostics: list[Diagnostic] = _NEW, trace: list[str] = _NEW,
                 dofs: dict[str, list[SnapDof]] = _NEW, status: dict[str, str] = _NEW,
                 redirected: dict[str, Pose] = _NEW, adapted: dict[str, Pose] = _NEW) -> None:
        self.local = {} if local is _NEW else local
        self.world = {} if world is _NEW else world
        self.diagnostics = [] if diagnostics is _NEW else diagnostics
        self.trace = [] if trace is _NEW else trace
        self.dofs = {} if dofs is _NEW else dofs
        self.status = {} if status is _NEW else status
        self.redirected = {} if redirected is _NEW else redirected
        self.adapted = {} if adapted is _NEW else adapted

    @property
    def ok(self) -> bool:
        """No error-level diagnostic."""
        return not any(d.is_error for d in self.diagnostics)
