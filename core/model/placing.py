"""Placing a part in an assembly in one undo step: :class:`PlaceInclude`.

SDFormat's composition proposal places an included model by one of its own frames: the
include's ``placement_frame`` PF is put at ``<pose relative_to="T">`` in the including
scope, so ``X_T_PF = offset``.  Nothing is inverted or copied by hand: the part's file keeps
``X_M_PF``, the assembly keeps ``X_T_PF``, and the model frame follows from both
(``X_T_M = offset @ X_M_PF^-1``).  Optionally the part is connected to the target by a
joint whose parent is the target frame and whose child is the placement frame (frames as
joint ends are SDFormat 1.8+, libsdformat 11+: each resolves to the link it is attached
to; the joint frame is the child frame, so a weld leaves both parts where they are and an
axis is written in the placement frame).

Offsets are poses of the placement frame in the target frame; the usual ones are
:func:`flip_offset` (mating faces: the part's z axis against the target's) and
:func:`rotate90_offset`; they compose with ``@``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterable

from ..commands import Macro
from ..diagnostics import Diagnostics, Severity
from ..pose import Pose
from .document import Document
from .edits import (AddInclude, AddJoint, EditRefused, _check_free, _check_name, _check_pose,
                    _label, check_owned)
from .names import MODEL_FRAME, SEP
from .nodes import JOINT_TYPES, Include, Model, Node, World

__all__ = ["PlaceInclude", "JointSpec", "flip_offset", "rotate90_offset"]

#: Joint types whose motion :class:`JointSpec` can describe with one axis.
_ONE_AXIS = ("revolute", "prismatic", "continuous", "fixed")


@dataclass(frozen=True)
class JointSpec:
    """How to connect a placed part: a joint ``type`` (``fixed`` is a weld), its ``axis``
    (unit or not; in ``expressed_in``, default the joint frame = the placement frame),
    ``lower``/``upper`` limits (radians or metres) and an optional ``name`` (default
    ``<part>_weld`` or ``<part>_joint``)."""

    type: str = "fixed"
    axis: tuple[float, float, float] = (0.0, 0.0, 1.0)
    lower: float | None = None
    upper: float | None = None
    name: str = ""
    expressed_in: str = ""


def flip_offset(axis: str = "x") -> Pose:
    """Half a turn about the target's ``x`` (or ``y``) axis: the placed frame's z points
    against the target's z (faces that mate)."""
    return rotate90_offset(axis, 2)


def rotate90_offset(axis: str | Iterable[float] = "z", k: int = 1) -> Pose:
    """``k`` quarter turns about ``axis`` of the target frame (``"x"``, ``"y"``, ``"z"``,
    optionally with a sign, ``"-z"``).  Exact: multiples of 90 degrees give matrices of
    0 and +-1, so a flipped part lands exactly on its target."""
    if isinstance(axis, str):
        text = axis.strip().lower()
        sign = -1 if text.startswith("-") else 1
        index = "xyz".find(text.lstrip("+-"))
        if index < 0 or len(text.lstrip("+-")) != 1:
            raise EditRefused(f"the axis is x, y or z, not [{axis}]")
    else:
        v = [float(c) for c in axis]
        units = [i for i, c in enumerate(v) if c != 0.0]
        if len(v) != 3 or len(units) != 1:
            raise EditRefused("a quarter turn is about a coordinate axis (x, y or z)")
        index, sign = units[0], (1 if v[units[0]] > 0 else -1)
    c, s = ((1, 0), (0, 1), (-1, 0), (0, -1))[(sign * int(k)) % 4]
    i, j = (index + 1) % 3, (index + 2) % 3
    R = [[0.0] * 3 for _ in range(3)]
    R[index][index] = 1.0
    R[i][i], R[i][j], R[j][i], R[j][j] = c, -s, s, c
    return Pose([x for row in R for x in row])


def _version(document: Document) -> tuple[int, int] | None:
    try:
        major, minor = document.version.split(".")[:2]
        return int(major), int(minor)
    except (ValueError, AttributeError):
        return None


def _parent_scope(document: Document, parent: Node):
    """The frame-graph scope of ``parent`` (the root, or a nested model of the document)."""
    graph = document.frames
    if parent is document.root:
        return graph.root
    located = graph._locate(parent.id)
    if located is None:
        return None
    scope, name = located
    vertex = scope.vertices.get(name)
    return vertex.nested if vertex is not None else None


def _target_name(document: Document, scope, parent_key: str, target: str) -> str:
    """``target`` (a key of the assembly, or the top model's scoped name) as the parent
    scope names it; refused if it names no frame there or is outside that scope
    (SDFormat never refers upwards)."""
    keys = [target]
    root = document.root
    if isinstance(root, Model) and target.startswith(root.name + SEP):
        keys.append(target[len(root.name) + len(SEP):])
    outside = True
    for key in keys:
        if not parent_key:
            name = key
        elif key == parent_key:
            name = MODEL_FRAME
        elif key.startswith(parent_key + SEP):
            name = key[len(parent_key) + len(SEP):]
        else:
            continue
        outside = False
        if scope.has(name):
            return name
    if outside:
        raise EditRefused(f"[{target}] is outside [{parent_key}]: a pose in a model can only "
                          "refer to frames inside it")
    raise EditRefused(f"there is no frame [{target}] to place on")


class PlaceInclude(Macro):
    """Add an ``//include`` of ``uri`` to ``parent`` with its ``placement_frame`` at
    ``offset`` in the frame ``target`` and, with ``connect``, a joint from the target frame
    to the placement frame: one undo step.

    ``target`` is a key of the assembly (``arm::gripper_mount``; the top model's scoped
    name is accepted too), inside ``parent``; empty places relative to ``parent``'s own
    frame.  ``connect`` is None (only placed), ``"weld"`` (a ``fixed`` joint), a joint
    type, or a :class:`JointSpec`.

    The part may be any file an include can name (SDFormat, URDF, OpenPLX through its
    format plugin); the assembly must not be an OpenPLX document (refused: OpenPLX
    composes with mates, and its saves cannot write an include).

    Refused (:class:`EditRefused`, the document unchanged) when the file cannot be loaded,
    the name is taken, the placement frame or the target does not exist or cannot be
    resolved, the target is outside ``parent``, or the file's SDFormat version cannot
    express it.  The target must resolve now; as the part is new, nothing can be placed
    relative to it yet, so placing it cannot close a ``relative_to`` cycle.
    """

    def __init__(self, document: Document, parent: Model | World | str, uri: str, *,
                 name: str = "", placement_frame: str = "", target: str = "",
                 offset: Pose | None = None, connect: JointSpec | str | None = None,
                 static: bool | None = None, context=None) -> None:
        if isinstance(parent, str):
            found = document.element(parent)
            if found is None:
                raise EditRefused(f"there is no model [{parent}] to place into")
            parent = found  # type: ignore[assignment]
        if not isinstance(parent, (Model, World)):
            raise EditRefused(f"{_label(parent)} cannot hold an include (a model or a world "
                              "can)")
        check_owned(document, parent)
        if document.format == "openplx":
            raise EditRefused("an OpenPLX assembly is put together with mate connectors and "
                              "mates (AddMateConnector, AddMate), and an OpenPLX save cannot "
                              "write an //include: place parts in an SDFormat document (it "
                              "can include .openplx files)")
        offset = Pose() if offset is None else offset
        _check_pose(offset)
        spec = _joint_spec(connect)
        self._check_version(document, parent, bool(placement_frame or spec), spec)
        scope = _parent_scope(document, parent)
        if scope is None:
            raise EditRefused(f"the frames of {_label(parent)} cannot be resolved")
        from ..frames.scope import Scope, Unresolved
        parent_key = document.key(parent)
        relative_to = _target_name(document, scope, parent_key, target) if target else ""
        if relative_to:
            try:
                scope.pose_of(relative_to)
            except Unresolved as exc:
                raise EditRefused(f"the target [{target}] cannot be resolved: {exc.reason}") \
                    from None

        add = AddInclude(document, parent, uri, name=name, pose=offset,
                         relative_to="" if relative_to == scope.frame_name else relative_to,
                         placement_frame=placement_frame, static=static, context=context)
        include = add.include
        model = _preload(document, add, parent, context)
        part = include.effective_name
        _check_name(part, "part name")
        _check_free(parent, part)
        placed = Scope.for_model(model, part, bool(static) or model.static, {})
        frame = placement_frame or model.placement_frame
        if frame:
            if not placed.has(frame):
                raise EditRefused(f"the placement frame [{frame}] is not a frame of "
                                  f"{include.resolved_path or uri}")
            try:
                placed.pose_of(frame)
                placed.body_of(frame)
            except Unresolved as exc:
                raise EditRefused(f"the placement frame [{frame}] cannot be resolved in "
                                  f"{include.resolved_path or uri}: {exc.reason}") from None
        commands = [add]
        if spec is not None:
            commands.append(self._joint(document, parent, scope, placed, part, frame,
                                        relative_to, target, spec))
        super().__init__(f"Place {part}" + (f" on {target}" if target else ""), commands)
        self.document, self.parent, self.include = document, parent, include
        self.joint = commands[1].node if len(commands) > 1 else None  # type: ignore[attr-defined]

    @staticmethod
    def _check_version(document: Document, parent: Node, composes: bool,
                       spec: JointSpec | None) -> None:
        version = _version(document)
        if document.format not in ("", "sdformat") or version is None:
            return
        if composes and version < (1, 8):
            raise EditRefused(f"placement frames and joints between frames need SDFormat 1.8 "
                              f"or later; this file is {document.version}")
        if spec is not None and isinstance(parent, World) and version < (1, 10):
            raise EditRefused(f"joints in a world need SDFormat 1.10 (//world/joint); this "
                              f"file is {document.version}: place the parts in a model")

    @staticmethod
    def _joint(document: Document, parent, scope, placed, part: str, frame: str,
               relative_to: str, target: str, spec: JointSpec):
        from ..frames.scope import Unresolved
        if not relative_to or relative_to == scope.frame_name:
            raise EditRefused("connecting a part needs a target frame to connect it to")
        try:
            scope.body_of(relative_to)
        except Unresolved as exc:
            raise EditRefused(f"the target [{target}] is attached to no link: {exc.reason}") \
                from None
        if frame:
            child = f"{part}{SEP}{frame}"
        else:
            try:  # the model frame as a joint end is SDFormat 1.10: name its canonical link
                child = f"{part}{SEP}{placed.body_of(MODEL_FRAME)}"
            except Unresolved as exc:
                raise EditRefused(f"the part has no link to connect: {exc.reason}") from None
        name = spec.name or f"{part}_{'weld' if spec.type == 'fixed' else 'joint'}"
        _check_name(name, "joint name")
        if name == part:
            raise EditRefused(f"the name [{name}] is already used by the part")
        _check_free(parent, name)
        axis = None if spec.type == "fixed" else spec.axis
        add = AddJoint(document, parent, name, spec.type, relative_to, child, axis=axis,
                       lower=spec.lower, upper=spec.upper)
        if spec.expressed_in and add.node.axes:
            ref = spec.expressed_in
            inside = ref.startswith(part + SEP) and placed.has(ref[len(part) + len(SEP):])
            if not inside and not scope.has(ref):
                raise EditRefused(f"the axis cannot be expressed in [{ref}]: no such frame")
            add.node.axes[0] = replace(add.node.axes[0], expressed_in=ref)
        return add


def _joint_spec(connect: JointSpec | str | None) -> JointSpec | None:
    if connect is None or connect is False:
        return None
    if isinstance(connect, str):
        kind = "fixed" if connect in ("weld", "fixed") else connect
        connect = JointSpec(type=kind)
    if not isinstance(connect, JointSpec):
        raise EditRefused("connect is None, 'weld', a joint type or a JointSpec")
    if connect.type not in JOINT_TYPES:
        raise EditRefused(f"unknown joint type [{connect.type}]; one of {', '.join(JOINT_TYPES)}")
    if connect.type not in _ONE_AXIS:
        raise EditRefused(f"a {connect.type} joint is not made by placing a part (one of "
                          f"{', '.join(_ONE_AXIS)}); add it with AddJoint")
    for limit in (connect.lower, connect.upper):
        if limit is not None and not math.isfinite(float(limit)):
            raise EditRefused("joint limits must be finite numbers")
    return connect


def _preload(document: Document, add: AddInclude, parent: Node, context) -> Model:
    """Load the file now (to check the placement against it) without touching the
    document: what loading found stays on the include, the document hears of it when
    the include is added."""
    from ..loading import LoadContext
    include: Include = add.include
    context = context or document.extras.get("load_context") or LoadContext()
    include.parent = parent
    scope_name = parent.name if isinstance(parent, Model) else ""
    found = Diagnostics()
    context.load_include(include, document.directory, scope_name, found)
    add.loaded = True
    if include.model is None:
        errors = [d.message for d in found if d.severity >= Severity.ERROR]
        include.parent = None
        raise EditRefused(f"cannot place [{include.uri}]: "
                          + ("; ".join(errors) if errors else "the file could not be loaded"))
    return include.model
