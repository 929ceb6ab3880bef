"""The joints that stand for mates in SDFormat terms (derived data, never saved as such).

=====================  ==================================================================
Lock / Hinge /         ``fixed`` / ``revolute`` / ``prismatic`` / ``ball`` joint named as
Prismatic / Ball       the mate, parent = owner of ``connectors[0]``, child = owner of
                       ``connectors[1]`` (swapped when that one is fixed in the world),
                       joint frame = the child's connector frame, axis = its z (main axis)
Cylindrical            ``continuous`` joint ``<mate>__revolute`` from the parent to an
                       intermediate link ``<mate>__slider`` at the child connector, then
                       ``prismatic`` ``<mate>`` from it to the child
Distance               no joint: SDFormat has no distance constraint
=====================  ==================================================================

A connector owned by a system (not attached to a link) or the world connector is fixed in
the world: the joint's parent is then ``world`` and it lives in the top model; otherwise
it lives in the closest model holding both links.  Derived nodes carry
``extras[DERIVED_KEY]`` (the mate's scoped name as seen from their model) and the mate's
own extras, so they can be found, and told apart from what the user added.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Code, Diagnostics
from ..model import Inertial, Joint, JointAxis, Link, Mate, MateConnector, Model, Node, PoseSpec
from ..pose import IDENTITY
from .paths import (DERIVED_KEY, ORDER_KEY, WORLD_CONNECTOR, TreeIndex, common_model,
                    declaration_order, is_derived, scoped_name, walk_models)

__all__ = ["MateJoints", "plan_mate_joints", "derive_mate_joints", "remove_derived",
           "JOINT_OF_MATE"]

#: Joint type of each single-joint mate type.
JOINT_OF_MATE = {"lock": "fixed", "hinge": "revolute", "prismatic": "prismatic", "ball": "ball"}


@dataclass
class MateJoints:
    """What one mate derives: ``nodes`` (links and joints, in order) to add to ``host``;
    none, with ``reason`` saying why, when SDFormat has nothing for it."""

    mate: Mate
    host: Model | None = None
    nodes: list[Node] = field(default_factory=list)
    reason: str = ""


def plan_mate_joints(model: Model, diagnostics: Diagnostics | None = None) -> list[MateJoints]:
    """The joints every mate of the tree below ``model`` derives, in declaration order,
    as new nodes not yet added anywhere.  ``diagnostics`` gets a warning for each mate
    that derives none (a distance mate, two connectors fixed in the world)."""
    index = TreeIndex(model)
    mates = declaration_order(n for n in walk_models(model) if isinstance(n, Mate))
    plans = [_plan(mate, model, index) for mate in mates]
    if diagnostics is not None:
        for plan in plans:
            if plan.reason:
                diagnostics.warning(Code.WARNING, plan.reason, plan.mate.source)
    return plans


def remove_derived(model: Model) -> list[Node]:
    """Take every derived joint and link out of the tree below ``model``; returns them in
    the order they were in their models."""
    removed: list[Node] = []
    for node in list(walk_models(model)):
        if isinstance(node, Model) and any(is_derived(e) for e in node.entities):
            removed.extend(e for e in node.entities if is_derived(e))
            node.entities = [e for e in node.entities if not is_derived(e)]
    for node in removed:
        node.parent = None
    return removed


def derive_mate_joints(model: Model, diagnostics: Diagnostics | None = None
                       ) -> tuple[list[Node], list[Node]]:
    """Replace the joints and links derived from mates anywhere below ``model`` by new
    ones derived from the current :class:`Mate` nodes (see the module docstring).

    Returns ``(removed, added)``, each in the order the nodes were in / were appended to
    their models.  Run it after :func:`snapframe.core.snap.document.apply_snap_result`
    when mates or connectors changed: joint frames copy the child connector's frame.
    """
    removed = remove_derived(model)
    added: list[Node] = []
    for plan in plan_mate_joints(model, diagnostics):
        if plan.host is None:
            continue
        for node in plan.nodes:
            plan.host.add(node)
            added.append(node)
    return removed, added


# -- one mate -------------------------------------------------------------------------


def _body(connector: MateConnector | None, index: TreeIndex) -> Link | None:
    """The link a connector moves with; None when it is fixed in the world."""
    if connector is None:
        return None
    owner = index.owner(connector)
    return owner if isinstance(owner, Link) else None


def _plan(mate: Mate, top: Model, index: TreeIndex) -> MateJoints:
    plan = MateJoints(mate)
    model = mate.parent
    if not isinstance(model, Model):
        return plan
    conns: list[MateConnector | None] = []
    for name in mate.connectors:
        found = index.connector(model, name)
        if found is None and name != WORLD_CONNECTOR:
            return plan   # SNAP reports the unknown connector
        conns.append(found)
    c0, c1 = conns
    body0, body1 = _body(c0, index), _body(c1, index)
    path = index.path(mate)
    if body0 is None and body1 is None:
        plan.reason = f"mate '{path}' joins two connectors fixed in the world; no joint is made"
        return plan
    # The child carries the joint frame: connectors[1]'s owner unless it is fixed.
    parent_c, child_c = (c0, c1) if body1 is not None else (c1, c0)
    parent_body, child_body = (body0, body1) if body1 is not None else (body1, body0)
    assert child_body is not None and child_c is not None
    host = (top if parent_body is None
            else common_model(parent_body.parent, child_body.parent))  # type: ignore[arg-type]
    if mate.type == "distance":
        plan.reason = (f"Distance mate '{path}' has no SDFormat joint; its connector frames "
                       "are kept, the bodies are not jointed")
        return plan
    parent_name = scoped_name(parent_body, host) if parent_body is not None else "world"
    child_name = scoped_name(child_body, host)
    mate_name = scoped_name(mate, host) or mate.name
    extras = {k: v for k, v in mate.extras.items() if k != ORDER_KEY}
    extras[DERIVED_KEY] = mate_name
    X_CJ = child_c.pose.value
    where = mate.source
    plan.host = host
    if mate.type == "cylindrical":
        # continuous (parent -> slider link at the child connector) + prismatic (-> child);
        # the slider is placed relative to the child, so it follows when SNAP moves it.
        slider = Link(name=f"{mate.name}__slider", source=where)
        slider.pose = PoseSpec(X_CJ, child_name or "", False)
        slider.inertial = Inertial(mass=1e-6, ixx=1e-12, iyy=1e-12, izz=1e-12)
        j1 = Joint(name=f"{mate.name}__revolute", type="continuous", parent_name=parent_name,
                   child_name=slider.name, pose=PoseSpec(IDENTITY, "", True),
                   axes=[JointAxis((0.0, 0.0, 1.0))], source=where)
        j2 = Joint(name=mate.name, type="prismatic", parent_name=slider.name,
                   child_name=child_name or "", pose=PoseSpec(X_CJ, "", True),
                   axes=[JointAxis((0.0, 0.0, 1.0))], source=where)
        plan.nodes = [slider, j1, j2]
    elif mate.type in JOINT_OF_MATE:
        joint = Joint(name=mate.name, type=JOINT_OF_MATE[mate.type], parent_name=parent_name or "",
                      child_name=child_name or "", pose=PoseSpec(X_CJ, "", True), source=where)
        if joint.type in ("revolute", "prismatic"):
            joint.axes = [JointAxis((0.0, 0.0, 1.0), source=where)]
        plan.nodes = [joint]
    else:
        plan.host = None
        plan.reason = f"mate '{path}' has type '{mate.type}', which has no SDFormat joint"
        return plan
    for node in plan.nodes:
        node.extras.update(extras)
    return plan
