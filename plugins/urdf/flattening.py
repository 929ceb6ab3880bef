"""A composed document flattened to one scope: every link, joint and frame at every depth
(nested models, includes, merge-includes), posed in the root frame (the world, or the
top model), with joint ends resolved to the links they move.

This is what a URDF needs: URDF has no models and no includes.  Names stay SDFormat's
scoped names (``robot::arm::link``); the writer turns them into URDF names.  The frame
graph (:mod:`snapframe.core.frames`) does the resolving, so the poses are the ones
``snapframe frames`` prints; the scopes are walked with an explicit stack.
"""

from __future__ import annotations

from dataclasses import dataclass

from snapframe.core.diagnostics import Code, Diagnostics
from snapframe.core.frames.scope import Scope, Unresolved
from snapframe.core.model import Document, Frame, Joint, Link, Model, World
from snapframe.core.model.names import MODEL_FRAME, SEP, WORLD
from snapframe.core.pose import IDENTITY, Pose

__all__ = ["FlatLink", "FlatJoint", "FlatFrame", "Flattened", "flatten"]


@dataclass(eq=False)
class FlatLink:
    """A link: its scoped name, node, pose ``X_RL`` in the root frame and its scope."""

    name: str
    node: Link
    X_RL: Pose
    scope: Scope
    #: In a static model (fixed in the world).
    static: bool


@dataclass(eq=False)
class FlatJoint:
    """A joint between two links (``world`` for the world), with its frame ``X_RJ`` and
    its first axis as a unit vector in the joint frame."""

    name: str
    node: Joint
    parent: str
    child: str
    X_RJ: Pose
    axis_J: tuple[float, float, float]


@dataclass(eq=False)
class FlatFrame:
    """An explicit frame and the link it is attached to (``world`` when fixed in it)."""

    name: str
    node: Frame
    body: str
    X_RF: Pose


@dataclass
class Flattened:
    links: list[FlatLink]
    joints: list[FlatJoint]
    frames: list[FlatFrame]
    #: The link the top model's frame is attached to (its canonical link), if any.
    canonical: str = ""


def flatten(document: Document, diagnostics: Diagnostics) -> Flattened:
    """Every link, joint and frame of ``document``; what cannot be resolved is reported
    (as a warning) and left out."""
    root = document.root
    out = Flattened([], [], [])
    if isinstance(root, World):
        top = document.frames.root
    elif isinstance(root, Model):
        top = document.frames.root
    else:
        return out
    if top is None:
        return out
    if isinstance(root, Model) and not root.static:
        try:
            out.canonical = top.body_of(MODEL_FRAME)
        except Unresolved:
            pass
    stack: list[tuple[Scope, str, Pose, bool]] = [(top, "", IDENTITY, top.static)]
    while stack:
        scope, prefix, X_RS, static = stack.pop()
        nested: list[tuple[Scope, str, Pose, bool]] = []
        for v in scope.vertices.values():
            name = prefix + v.name
            try:
                X_RV = X_RS @ scope.pose_of(v.name)
            except Unresolved as exc:
                diagnostics.warning(Code.CONVERSION_ERROR, f"cannot resolve the pose of "
                                    f"'{name}': {exc}; left out", v.node.source)
                continue
            node = v.node
            if v.kind == "link" and isinstance(node, Link):
                out.links.append(FlatLink(name, node, X_RV, scope, static))
            elif v.kind == "joint" and isinstance(node, Joint):
                joint = _joint(scope, prefix, node, name, X_RS, X_RV, diagnostics)
                if joint is not None:
                    out.joints.append(joint)
            elif v.kind == "frame":
                if _is_merge_proxy(v.name):
                    continue   # stands for a merged model frame; no frame of the user's
                body = _body(scope, prefix, v.name)
                if body is None:
                    diagnostics.warning(Code.CONVERSION_ERROR, f"frame '{name}' is attached to "
                                        "nothing that can be resolved; left out", v.node.source)
                    continue
                out.frames.append(FlatFrame(name, node, body, X_RV))  # type: ignore[arg-type]
            elif v.kind == "model" and v.nested is not None:
                nested.append((v.nested, name + SEP, X_RV, static or v.nested.static))
        stack.extend(reversed(nested))   # document order: nested models after their parent
    return out


def _body(scope: Scope, prefix: str, ref: str) -> str | None:
    """The link ``ref`` is attached to, scoped from the root (``world`` when fixed there)."""
    if ref == WORLD:
        return WORLD
    try:
        body = scope.body_of(ref)
    except Unresolved:
        return None
    if body == WORLD or body == MODEL_FRAME or body.endswith(SEP + MODEL_FRAME):
        return WORLD   # the world frame, or the frame of a static model: fixed in the world
    return prefix + body


def _joint(scope: Scope, prefix: str, node: Joint, name: str, X_RS: Pose, X_RJ: Pose,
           diagnostics: Diagnostics) -> FlatJoint | None:
    parent = _body(scope, prefix, node.parent_name)
    child = _body(scope, prefix, node.child_name)
    if parent is None or child is None:
        bad = node.parent_name if parent is None else node.child_name
        diagnostics.warning(Code.CONVERSION_ERROR, f"joint '{name}': '{bad}' does not resolve "
                            "to a link; the joint is left out", node.source)
        return None
    axis = (0.0, 0.0, 1.0)
    if node.axes:
        a = node.axes[0]
        axis = a.xyz
        if a.expressed_in not in ("", node.name):
            try:
                X_SE = IDENTITY if a.expressed_in == MODEL_FRAME else scope.pose_of(a.expressed_in)
                X_JS = (X_RS.inverse() @ X_RJ).inverse()
                axis = X_JS.rotate(X_SE.rotate(axis))
            except Unresolved:
                pass
        n = sum(c * c for c in axis) ** 0.5
        axis = (axis[0] / n, axis[1] / n, axis[2] / n) if n > 1e-12 else (0.0, 0.0, 1.0)
    return FlatJoint(name, node, parent, child, X_RJ, axis)  # type: ignore[arg-type]


def _is_merge_proxy(name: str) -> bool:
    return name.startswith("_merged__") and name.endswith("__model__")
