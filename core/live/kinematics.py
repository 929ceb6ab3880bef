"""Joint positions for joint sliders: an overlay on the live pose table.

:class:`JointState` (``document.live.joints``) moves the child side of revolute,
continuous and prismatic joints without changing the document: the pose table's rows of
the moved elements are overwritten and ``live.poses_changed`` lists exactly the keys that
moved, so views follow as after an edit.  Nothing is saved; :meth:`JointState.bake` makes
the command that writes the displaced poses into the document ("save as initial
position"), and any edit of the document (that one included) puts the table back to the
written poses first, so derived data never mixes the two; the keys that go back are
announced in the edit's own ``poses_changed`` (one event per user action).

The kinematics are SDFormat's: every frame is attached to a link (``attached_to``, a
joint to its child, a model to its canonical link); joints at every depth, through
includes, connect links.  Position 0 is the configuration the file writes.  A joint
moves the links on its child side (what stays connected to its child once the joint is
cut), with everything attached to them, about or along its axis through the joint frame
(the axis is ``xyz`` in ``expressed_in``, the joint frame by default, taken at the written
configuration).  A joint whose child side is still connected to its parent side (a
kinematic loop) or to the world or a static model is refused: only trees are solved.
Several joints compose as forward kinematics (the outer joint carries the inner one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..commands import Command, Macro
from ..events import EventEmitter
from ..frames.scope import Scope, Unresolved
from ..model import Include, Joint, JointAxis
from ..model.names import MODEL_FRAME, SEP, WORLD
from ..pose import Pose
from .keys import is_inside_include, join_key, part_key
from .posetable import PosesChanged, joined

__all__ = ["JointState", "JointMove", "PositionsChanged", "MOVABLE_TYPES"]

#: Joint types a position can be set for (one degree of freedom along one axis).
MOVABLE_TYPES = ("revolute", "continuous", "prismatic")
#: Limits at or beyond this are SDFormat's "no limit" defaults (+-1e16).
_NO_LIMIT = 1e15
#: A displaced pose closer than this to the one shown has not moved (metres, matrix entries).
_SHOWN_TOLERANCE = 1e-9
_GROUND = "\x00ground"   # the body of the world and of static models


@dataclass(frozen=True)
class JointMove:
    """What :meth:`JointState.set_position` did: the value asked for, the value set
    (clamped to ``lower``/``upper``; None: no limit) and whether it was clamped."""

    key: str
    requested: float
    value: float
    lower: float | None
    upper: float | None

    @property
    def clamped(self) -> bool:
        return self.value != self.requested

    @property
    def message(self) -> str:
        """Why the value differs from the one asked for ("" when it does not)."""
        if not self.clamped:
            return ""
        which = "upper" if self.value == self.upper else "lower"
        return f"joint [{self.key}]: {self.requested:g} is beyond its {which} limit; " \
               f"set to {self.value:g}"


@dataclass(frozen=True)
class PositionsChanged:
    """The joint positions now set (key -> value; joints at 0 are left out)."""

    positions: dict[str, float] = field(default_factory=dict)


@dataclass
class _JointInfo:
    key: str
    node: Joint
    scope: Scope
    name: str
    prefix: str              # key prefix of the joint's scope ("" or "a::b::")
    parent_body: str | None
    child_body: str | None


class _Kinematics:
    """Bodies (link keys) of every posed key, and the joints between bodies."""

    def __init__(self, graph, table) -> None:
        self.body: dict[str, str] = {}
        self.joints: dict[str, _JointInfo] = {}
        self.keys_of: dict[str, list[str]] = {}
        self.edges: dict[str, list[tuple[str, str]]] = {}
        if graph.root is not None:
            self._visit(graph.root, "")
        for key, body in self.body.items():
            if key in table.index:
                self.keys_of.setdefault(body, []).append(key)
        for info in self.joints.values():
            if info.parent_body is None or info.child_body is None:
                continue
            self.edges.setdefault(info.parent_body, []).append((info.key, info.child_body))
            self.edges.setdefault(info.child_body, []).append((info.key, info.parent_body))

    @staticmethod
    def _body_key(prefix: str, body: str) -> str:
        if body == WORLD or body == MODEL_FRAME or body.endswith(SEP + MODEL_FRAME):
            return _GROUND   # the world, or a static model's frame: it does not move
        return prefix + body

    def _resolve(self, scope: Scope, prefix: str, name: str) -> str | None:
        if name == WORLD:
            return _GROUND
        try:
            return self._body_key(prefix, scope.body_of(name))
        except Unresolved:
            return None

    def _visit(self, scope: Scope, prefix: str) -> None:
        for v in scope.vertices.values():
            key = prefix + v.name
            body = self._resolve(scope, prefix, v.name)
            if body is not None:
                self.body[key] = body
                if v.kind == "link":
                    for part in (*v.node.visuals, *v.node.collisions):  # type: ignore[attr-defined]
                        self.body[part_key(key, part.kind, part.name)] = body
            if v.kind == "joint":
                joint: Joint = v.node  # type: ignore[assignment]
                self.joints[key] = _JointInfo(
                    key, joint, scope, v.name, prefix,
                    self._resolve(scope, prefix, joint.parent_name),
                    self._resolve(scope, prefix, joint.child_name))
            if v.nested is not None:
                self._visit(v.nested, key + SEP)

    def child_side(self, info: _JointInfo) -> set[str]:
        """The bodies that move with the joint's child; refused for a joint in a loop."""
        start, stop = info.child_body, info.parent_body
        came: dict[str, tuple[str, str] | None] = {start: None}   # body -> (joint, from)
        todo = [start]
        while todo:
            body = todo.pop()
            for joint, other in self.edges.get(body, ()):
                if joint == info.key or other in came:
                    continue
                came[other] = (joint, body)
                if other in (stop, _GROUND):
                    raise _loop(info, other, came)
                todo.append(other)
        return set(came)


def _loop(info: _JointInfo, reached: str, came: dict) -> Exception:
    from ..model.edits import EditRefused
    path, body = [], reached
    while came[body] is not None:
        joint, body = came[body]
        path.append(joint)
    through = " -> ".join(reversed(path))
    if reached == _GROUND and reached != info.parent_body:
        return EditRefused(f"joint [{info.key}] cannot move: its child side is held by the "
                           f"world or a static model (through {through})")
    return EditRefused(f"joint [{info.key}] is in a kinematic loop (its child is connected "
                       f"to its parent also through {through}): only joints of a tree can be "
                       "moved")


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    C = 1.0 - c
    return np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])


class JointState:
    """Joint positions of a live document (see the module docstring).  Use
    ``document.live.joints``."""

    def __init__(self, live) -> None:
        self.live = live
        self.document = live.document
        #: joint key -> position (rad or m) of the joints moved away from 0
        self.positions: dict[str, float] = {}
        #: announced when positions change (a move, a reset, an edit that resets them)
        self.changed: EventEmitter[PositionsChanged] = EventEmitter()
        self._kin: _Kinematics | None = None
        self._written: dict[str, np.ndarray] = {}   # written pose of each displaced key
        self._shown: dict[str, np.ndarray] = {}     # its displaced pose in the table
        self._restored: dict[str, np.ndarray] = {}  # shown before an edit restored them
        self.document.changed.connect(self._on_document_changed)

    # -- queries ------------------------------------------------------------------
    def _kinematics(self) -> _Kinematics:
        if self._kin is None:
            self._kin = _Kinematics(self.document.frames, self.live.poses)
        return self._kin

    def joint_keys(self) -> list[str]:
        """Keys of the joints whose position can be set (every depth)."""
        return [k for k, info in self._kinematics().joints.items()
                if info.node.type in MOVABLE_TYPES and k in self.live.poses]

    def limits(self, joint_key: str) -> tuple[float | None, float | None]:
        """(lower, upper) of a joint's position; None where it has no limit (a
        continuous joint has none)."""
        info = self._info(joint_key)
        return _limits(info.node)

    def position(self, joint_key: str) -> float:
        return self.positions.get(joint_key, 0.0)

    def moving_keys(self, joint_key: str) -> list[str]:
        """Keys that move with the joint (its child side and everything attached)."""
        kin = self._kinematics()
        info = self._info(joint_key)
        return sorted(k for body in kin.child_side(info) for k in kin.keys_of.get(body, ()))

    def _info(self, joint_key: str) -> _JointInfo:
        from ..model.edits import EditRefused
        info = self._kinematics().joints.get(joint_key)
        if info is None:
            raise EditRefused(f"there is no joint [{joint_key}]")
        if info.node.type not in MOVABLE_TYPES:
            raise EditRefused(f"joint [{joint_key}] is {info.node.type}: only "
                              f"{', '.join(MOVABLE_TYPES)} joints have a position to set")
        if info.parent_body is None or info.child_body is None or joint_key not in \
                self.live.poses:
            raise EditRefused(f"joint [{joint_key}] cannot be resolved (see the diagnostics)")
        return info

    # -- moving -------------------------------------------------------------------
    def set_position(self, joint_key: str, value: float) -> JointMove:
        """Move a joint to ``value`` (radians, or metres for a prismatic joint), clamped
        to its limits; the child side follows at once (``live.poses_changed``).  Raises
        :class:`EditRefused` for an unknown or fixed joint, or one in a kinematic loop."""
        return self.set_positions({joint_key: value})[0]

    def set_positions(self, values: dict[str, float]) -> list[JointMove]:
        """Several joints at once (one ``poses_changed``)."""
        from ..model.edits import EditRefused
        moves = []
        kin = self._kinematics()
        for key, value in values.items():
            info = self._info(key)
            try:
                requested = float(value)
            except (TypeError, ValueError):
                raise EditRefused(f"a joint position is a number, not {value!r}") from None
            if not math.isfinite(requested):
                raise EditRefused(f"a joint position must be finite, not {value!r}")
            kin.child_side(info)   # refuses loops (and a bad axis) before anything moves
            self._motion(info, 0.0)
            lower, upper = _limits(info.node)
            v = requested
            if lower is not None:
                v = max(v, lower)
            if upper is not None:
                v = min(v, upper)
            moves.append(JointMove(key, requested, v, lower, upper))
        for move in moves:
            if move.value == 0.0:
                self.positions.pop(move.key, None)
            else:
                self.positions[move.key] = move.value
        self._show()
        self.changed.emit(PositionsChanged(dict(self.positions)))
        return moves

    def reset(self) -> None:
        """Every joint back to 0: the poses the document writes."""
        self.positions.clear()
        self._show()
        self.changed.emit(PositionsChanged({}))

    # -- the overlay --------------------------------------------------------------
    def _displaced(self) -> dict[str, np.ndarray]:
        """key -> displaced pose of every key the current positions move."""
        kin = self._kinematics()
        table = self.live.poses
        active = [(key, value) for key, value in self.positions.items()]
        sides = {key: kin.child_side(kin.joints[key]) for key, _ in active}
        motions = {key: self._motion(kin.joints[key], value) for key, value in active}
        # outer joints (larger child side) first: they carry the inner ones
        order = sorted(sides, key=lambda k: -len(sides[k]))
        moved: dict[str, np.ndarray] = {}
        bodies = set().union(*sides.values()) if sides else set()
        for body in bodies:
            D = np.eye(4)
            for key in order:
                if body in sides[key]:
                    D = D @ motions[key]
            for k in kin.keys_of.get(body, ()):
                if k not in self._written:
                    self._written[k] = table.pose(k)
                moved[k] = D @ self._written[k]
        return moved

    def _written_pose(self, key: str) -> np.ndarray:
        if key in self._written:
            return self._written[key]
        return self.live.poses.pose(key)

    def _motion(self, info: _JointInfo, value: float) -> np.ndarray:
        """The joint's motion in root-frame coordinates of the written configuration:
        ``X_RJ @ (rotation or translation in J) @ X_RJ^-1``."""
        from ..model.edits import EditRefused
        X_RJ = self._written_pose(info.key)
        axis = info.node.axes[0] if info.node.axes else JointAxis()
        xyz = np.asarray(axis.xyz, dtype=float)
        frame = axis.expressed_in
        if frame and frame != info.name:
            scope_key = info.prefix[:-len(SEP)] if info.prefix else ""
            frame_key = scope_key if frame == info.scope.frame_name else \
                join_key(scope_key, frame)
            if frame_key not in self.live.poses:
                raise EditRefused(f"the axis of joint [{info.key}] is expressed in [{frame}], "
                                  "which cannot be resolved")
            R_RE = self._written_pose(frame_key)[:3, :3]
            xyz = X_RJ[:3, :3].T @ R_RE @ xyz
        n = float(np.linalg.norm(xyz))
        if n < 1e-12:
            raise EditRefused(f"the axis of joint [{info.key}] has no direction")
        xyz = xyz / n
        local = np.eye(4)
        if info.node.type == "prismatic":
            local[:3, 3] = xyz * value
        else:
            local[:3, :3] = _rotation(xyz, value)
        return X_RJ @ local @ np.linalg.inv(X_RJ)

    def _show(self) -> None:
        """Write the displaced poses (and the written ones of keys no longer displaced)
        into the table; announce exactly the rows that changed."""
        table = self.live.poses
        target = self._displaced() if self.positions else {}
        for key in list(self._written):
            if key not in target:
                target[key] = self._written.pop(key)
        keys, poses = [], []
        rows = []
        for key, X in target.items():
            row = table.index.get(key)
            if row is None:
                continue
            if np.abs(table.X[row, :3] - X[:3]).max() > 1e-12:
                table.X[row] = X
                keys.append(key)
                poses.append(X)
                rows.append(row)
        self._shown = {k: X for k, X in target.items() if k in self._written}
        if keys:
            self.live.poses_changed.emit(PosesChanged(
                tuple(keys), np.array(poses), tuple(table.kind(k) for k in keys),
                np.array(rows, dtype=np.int64), table.generation))

    # -- edits reset the overlay --------------------------------------------------
    def _on_document_changed(self, _event) -> None:
        """An edit begins: put the table back to the written poses (nothing announced
        yet: the live document compares its update against them)."""
        self._kin = None
        if not self._written:
            return
        table = self.live.poses
        for key, X in self._written.items():
            row = table.index.get(key)
            if row is not None:
                table.X[row] = X
        self._restored.update(self._shown)
        self._written.clear()
        self._shown.clear()

    def settle(self, event: PosesChanged) -> PosesChanged:
        """Called by the live document once the edit's poses are up to date, before it
        announces them: views still show the displaced poses of the keys the edit did not
        move; they join the edit's one ``poses_changed``; the positions are 0 again."""
        self._kin = None
        restored, self._restored = self._restored, {}
        had = bool(self.positions)
        self.positions.clear()
        if had:
            self.changed.emit(PositionsChanged({}))
        if not restored:
            return event
        table = self.live.poses
        listed = set(event.keys)
        keys = [k for k, X in restored.items() if k not in listed and k in table.index and
                np.abs(table.pose(k)[:3] - X[:3]).max() > _SHOWN_TOLERANCE]
        if not keys:
            return event
        rows = np.array([table.index[k] for k in keys], dtype=np.int64)
        return joined(event, PosesChanged(tuple(keys), table.X[rows],
                                          tuple(table.kind(k) for k in keys), rows,
                                          table.generation))

    # -- saving -------------------------------------------------------------------
    def bake(self, *, shift_limits: bool = True) -> Command:
        """The command (one undo step) that writes the displaced poses into the document,
        so the current positions become the written configuration (position 0).  Each
        pose stays written relative to the frame it is written in; only the values that
        change are written (also of elements that did not move but are written relative
        to one that did).  Push it right away: it holds the values of this moment.  With ``shift_limits`` the limits of the moved joints are
        shifted by their position, so each joint keeps its physical range.  Refused when
        nothing is displaced or what would change belongs to an included file."""
        from ..model.edits import EditRefused, SetJointAxis, SetPose
        if not self.positions:
            raise EditRefused("no joint is moved: there is nothing to save")
        kin = self._kinematics()
        for key in sorted(self.positions):
            mate = kin.joints[key].node.extras.get("derived_from_mate")
            if mate:
                # SNAP places the bodies from the mate: written poses would be re-placed
                raise EditRefused(f"joint [{key}] stands for the mate '{mate}': its initial "
                                  "position is the mate's initial_angle or initial_position "
                                  "(SetMate), from which SNAP places the bodies")
        document = self.document
        root = document.root
        table = self.live.poses
        shown = self._shown
        commands: list[Command] = []
        foreign: list[str] = []
        # what moved, and what is written relative to something that moved (a frame
        # attached elsewhere but placed relative to a moved link stays where it is)
        for key in table.keys:
            node = document.element(key) if key else None
            if node is None or not hasattr(node, "pose"):
                continue
            found = self._pose_frames(key, node)
            if found is None:
                continue
            target, base = found
            if target not in shown and base not in shown:
                continue
            X = np.linalg.inv(table.pose(base)) @ table.pose(target)
            value = Pose.from_matrix(X)
            if value.almost_equal(_written_value(node), 1e-9):
                continue
            if is_inside_include(node, root):
                foreign.append(key)
                continue
            commands.append(SetPose(document, node, value))
        if foreign:
            raise EditRefused(
                "the moved poses of " + ", ".join(f"[{k}]" for k in foreign[:5])
                + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
                + " are written in an included file: open it to save them "
                  "(Document.open_include), or move the joints of this document only")
        for key, value in sorted(self.positions.items()):
            node = kin.joints[key].node
            axis = node.axes[0] if node.axes else None
            if not shift_limits or axis is None or node.type == "continuous" or \
                    is_inside_include(node, root):
                continue
            lower, upper = _limits(node)
            if lower is None and upper is None:
                continue
            commands.append(SetJointAxis(
                document, node, 0,
                lower=axis.lower - value if lower is not None else axis.lower,
                upper=axis.upper - value if upper is not None else axis.upper))
        return Macro("Save joint positions as the initial pose", commands)

    def _pose_frames(self, key: str, node) -> tuple[str, str] | None:
        """(the key the ``<pose>`` of ``node`` places, the key it is written relative
        to): ``X_base_target`` is the value.  The target is the placement frame for a
        model placed by one."""
        table = self.live.poses
        located = self.document.frames._locate(node.id)
        if located is None:
            return None
        scope, name = located
        head, mark, _ = key.partition("#")
        prefix = head[: len(head) - len(name)]   # the key of the scope, with "::"
        target = key
        if mark:   # a visual or collision: relative to its link, or to a frame
            base = node.pose.relative_to or name
        else:
            vertex = scope.vertices.get(name)
            if vertex is None or vertex.node is not node:
                return None
            base = scope.base_of(vertex)
            placement = vertex.placement_frame if vertex.kind == "model" else ""
            if placement:
                target = key + SEP + placement
        if base in (scope.frame_name, ""):
            base_key = prefix[:-len(SEP)] if prefix else ""
        else:
            base_key = prefix + base
        if base_key not in table.index or target not in table.index:
            return None
        return target, base_key


def _written_value(node) -> Pose:
    """The value of a node's ``<pose>``; an include without one uses its model's."""
    if node.pose is not None:
        return node.pose.value
    if isinstance(node, Include) and node.model is not None:
        return node.model.pose.value
    return Pose()


def _limits(joint: Joint) -> tuple[float | None, float | None]:
    if joint.type == "continuous" or not joint.axes:
        return None, None
    axis = joint.axes[0]
    lower = axis.lower if axis.lower is not None and axis.lower > -_NO_LIMIT else None
    upper = axis.upper if axis.upper is not None and axis.upper < _NO_LIMIT else None
    return lower, upper
