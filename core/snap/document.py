"""SNAP on a core document: build SNAP's input from a :class:`Model` tree, apply its result.

* :func:`snap_input` turns the top model into a :class:`SnapProblem`: the model and its
  nested models are the systems, links the bodies (links derived from mates are not),
  :class:`MateConnector` frames the connectors and :class:`Mate` nodes the mates, named
  by the paths of :mod:`snapframe.core.snap.paths` (for a document read from OpenPLX these
  are the file's attribute paths, so results compare with ``snapframe snap --json``).  A
  body or system is declared (fixed for SNAP) exactly when its pose is ``written``.
* :func:`apply_snap_result` moves every body and system SNAP placed and every adaptive
  connector SNAP adapted, and records SNAP's trace and per-frame status on the top model.

Pure core: no format knows about it, no format is known here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Link, Mate, MateConnector, Model, Node, PoseSpec
from ..model.names import MODEL_FRAME
from ..pose import IDENTITY, Pose
from .model import SnapBody, SnapConnector, SnapMate, SnapProblem, SnapResult, SnapSystem
from .paths import REFERENCE_BODY_KEY, TreeIndex, declaration_order, is_derived, walk_models

__all__ = ["SnapInput", "snap_input", "apply_snap_result", "TRACE_KEY", "STATUS_KEY"]

#: Top ``Model.extras`` keys where :func:`apply_snap_result` keeps SNAP's trace (list of
#: lines) and status (path -> ``"root"``, ``"declared"``, ``"snapped"``, ...).
TRACE_KEY = "snap_trace"
STATUS_KEY = "snap_status"


@dataclass
class SnapInput:
    """SNAP's input for one top model, and the core node behind every SNAP path.

    ``nodes`` maps each path to its node (:class:`Model` for systems, :class:`Link` for
    bodies, :class:`MateConnector` for connectors, :class:`Mate` for mates).  ``placed``
    are the paths whose pose SNAP decides (bodies and systems not declared), ``adaptive``
    the paths of adaptive connectors.
    """

    problem: SnapProblem
    nodes: dict[str, Node] = field(default_factory=dict)
    placed: list[str] = field(default_factory=list)
    adaptive: list[str] = field(default_factory=list)
    root: Model | None = None
    _paths: dict[int, str] | None = field(default=None, repr=False, compare=False)

    def path_of(self, node: Node) -> str | None:
        """The SNAP path of ``node`` (None if SNAP does not see it)."""
        if self._paths is None:
            self._paths = {id(n): path for path, n in self.nodes.items()}
        return self._paths.get(id(node))


def snap_input(model: Model) -> SnapInput:
    """SNAP's input for the top model ``model`` (nothing is solved or changed here)."""
    index = TreeIndex(model)
    inp = SnapInput(SnapProblem(model.name), root=model)
    systems: list[Model] = []
    bodies: list[Link] = []
    connectors: list[MateConnector] = []
    mates: list[Mate] = []
    for node in walk_models(model):
        if isinstance(node, Model):
            systems.append(node)
        elif isinstance(node, Link):
            if not is_derived(node):
                bodies.append(node)
        elif isinstance(node, MateConnector):
            connectors.append(node)
        elif isinstance(node, Mate):
            mates.append(node)
    scopes: dict[int, object] = {}
    problem = inp.problem

    for system in declaration_order(systems):
        path = index.path(system)
        parent = system.parent
        declared = _declared(system, scopes)
        problem.systems.append(SnapSystem(
            path, index.path(parent) if isinstance(parent, Model) and system is not model
            else None, declared, _reference_body(system, index)))
        _register(inp, path, system, declared)
    for body in declaration_order(bodies):
        path = index.path(body)
        declared = _declared(body, scopes)
        problem.bodies.append(SnapBody(path, index.path(body.parent), declared))
        _register(inp, path, body, declared)
    for conn in declaration_order(connectors):
        path = index.path(conn)
        owner = index.owner(conn)
        owner_path = (index.path(owner) if owner is not None
                      else index.unresolved(conn.parent, conn.attached_to))
        redirected = None
        if conn.redirected_parent:
            target = index.link_from(conn.parent, conn.redirected_parent)
            redirected = (index.path(target) if target is not None
                          else index.unresolved(conn.parent, conn.redirected_parent))
        problem.connectors.append(SnapConnector(path, owner_path, _X_OC(conn, owner, scopes),
                                                redirected, conn.adaptive))
        inp.nodes[path] = conn
        if conn.adaptive:
            inp.adaptive.append(path)
    world = index.world_path()
    uses_world = False
    for mate in declaration_order(mates):
        path = index.path(mate)
        pair = tuple(index.mate_connector_path(mate, name) for name in mate.connectors)
        uses_world = uses_world or world in pair
        problem.mates.append(SnapMate(path, mate.type, (pair[0], pair[1]), mate.initial_angle,
                                      mate.initial_position, mate.initial_distance,
                                      mate.enable_snap, mate.source.file, mate.source.line))
        inp.nodes[path] = mate
    if uses_world and world not in inp.nodes:
        # The world connector: at the top model's origin, main axis z, normal x.
        problem.connectors.append(SnapConnector(world, problem.root, IDENTITY))
    return inp


def apply_snap_result(inp: SnapInput, result: SnapResult) -> list[Node]:
    """Give every body and system SNAP placed its local transform (``relative_to`` its
    parent model, ``written`` stays False) and every adapted connector its new frame;
    keep the trace and status on the top model.  Returns the nodes whose pose changed."""
    changed: list[Node] = []
    for path in inp.placed:
        X = result.local.get(path)
        node = inp.nodes[path]
        if X is not None and _set_pose(node, X):
            changed.append(node)
    for path in inp.adaptive:
        X = result.adapted.get(path)
        if X is not None and _set_pose(inp.nodes[path], X):
            changed.append(inp.nodes[path])
    if inp.root is not None:
        inp.root.extras[TRACE_KEY] = list(result.trace)
        inp.root.extras[STATUS_KEY] = dict(result.status)
    return changed


# -- helpers ------------------------------------------------------------------------


def _register(inp: SnapInput, path: str, node: Node, declared: Pose | None) -> None:
    inp.nodes[path] = node
    if declared is None:
        inp.placed.append(path)


def _set_pose(node: Node, X: Pose) -> bool:
    old: PoseSpec = node.pose  # type: ignore[attr-defined]
    if old.value == X and not old.relative_to:
        return False
    node.pose = PoseSpec(X, "", old.written, old.source)  # type: ignore[attr-defined]
    return True


def _scope(model: Model, scopes: dict):
    """The frame scope of ``model`` (only built for poses given relative to a frame)."""
    scope = scopes.get(id(model))
    if scope is None:
        from ..frames.scope import Scope  # local: the frame graph is only needed rarely
        scope = scopes[id(model)] = Scope.for_model(model, model.name, model.static, {})
    return scope


def _pose_in_parent(node: Link | Model, scopes: dict) -> Pose:
    """``node``'s pose in its parent model's frame."""
    spec = node.pose
    parent = node.parent
    if spec.relative_to in ("", MODEL_FRAME) or not isinstance(parent, Model):
        return spec.value
    from ..frames.scope import Unresolved
    try:
        return _scope(parent, scopes).pose_of(node.name)  # type: ignore[attr-defined]
    except Unresolved:
        return spec.value   # the frame checks report the bad reference


def _declared(node: Link | Model, scopes: dict) -> Pose | None:
    return _pose_in_parent(node, scopes) if node.pose.written else None


def _X_OC(conn: MateConnector, owner: Link | Model | None, scopes: dict) -> Pose:
    """The connector frame in its owner's frame."""
    spec = conn.pose
    model = conn.parent
    default = spec.relative_to in ("", conn.attached_to) or \
        (owner is model and spec.relative_to == MODEL_FRAME)
    if default or owner is None or not isinstance(model, Model):
        return spec.value
    from ..frames.scope import Unresolved
    try:
        scope = _scope(model, scopes)
        X_MC = scope.pose_of(conn.name)  # type: ignore[attr-defined]
        X_MO = IDENTITY if owner is model else scope.pose_of(conn.attached_to)  # type: ignore
        return X_MO.inverse() @ X_MC
    except Unresolved:
        return spec.value


def _reference_body(system: Model, index: TreeIndex) -> str | None:
    name = system.extras.get(REFERENCE_BODY_KEY)
    if not name:
        return None
    link = index.link_from(system, str(name))
    return index.path(link) if link is not None else index.unresolved(system, str(name))
