"""SNAP on the core document: the input built from a Model tree, the result applied back,
and the joints derived from mates.

Models are built by hand here (no format involved); expected values come from the
alignment equation ``X_W1 = X_W0 @ D`` and the derivation rules written in the tests.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from snapframe.core.diagnostics import Code, Diagnostics
from snapframe.core.model import (Joint, Link, Mate, MateConnector, Model, PoseSpec)
from snapframe.core.pose import IDENTITY, Pose
from snapframe.core.snap import solve
from snapframe.core.snap.document import apply_snap_result, snap_input
from snapframe.core.snap.joints import derive_mate_joints, plan_mate_joints
from snapframe.core.snap.paths import DERIVED_KEY, ORDER_KEY, REFERENCE_BODY_KEY

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from snaphelpers import assert_pose, connector_frame, rz


def connector(name: str, attached_to: str = "", X: Pose = IDENTITY, **kw) -> MateConnector:
    return MateConnector(name=name, attached_to=attached_to, pose=PoseSpec(X, "", True), **kw)


def link(name: str, declared: Pose | None = None) -> Link:
    node = Link(name=name)
    if declared is not None:
        node.pose = PoseSpec(declared, "", True)
    return node


def rig() -> Model:
    """Rig: a fixed base, an arm hinged to it, and a nested system ``sub`` with a hand
    locked to the arm; a system connector ``anchor`` at (0, 0, 2)."""
    top = Model(name="Rig")
    top.add(connector("anchor", X=Pose.translation(0, 0, 2)))
    top.add(link("base", Pose.translation(1, 0, 0)))
    top.add(connector("base.pin", "base", connector_frame((0, 0, 0.5))))
    top.add(link("arm"))
    top.add(connector("arm.hole", "arm"))
    top.add(connector("arm.tip", "arm", Pose.translation(1, 0, 0)))
    sub = Model(name="sub")
    top.add(sub)
    sub.add(link("hand"))
    sub.add(connector("hand.grip", "hand"))
    top.add(Mate(name="shoulder", type="hinge", connectors=("base.pin", "arm.hole"),
                 initial_angle=math.pi / 2))
    top.add(Mate(name="wrist", type="lock", connectors=("arm.tip", "sub::hand.grip")))
    return top


# -- snap_input ---------------------------------------------------------------------------


def test_paths_follow_names_and_scopes() -> None:
    inp = snap_input(rig())
    p = inp.problem
    assert p.root == "Rig"
    assert [(s.path, s.parent) for s in p.systems] == [("Rig", None), ("Rig.sub", "Rig")]
    assert [(b.path, b.parent) for b in p.bodies] == \
        [("Rig.base", "Rig"), ("Rig.arm", "Rig"), ("Rig.sub.hand", "Rig.sub")]
    assert [(c.path, c.owner) for c in p.connectors] == [
        ("Rig.anchor", "Rig"), ("Rig.base.pin", "Rig.base"), ("Rig.arm.hole", "Rig.arm"),
        ("Rig.arm.tip", "Rig.arm"), ("Rig.sub.hand.grip", "Rig.sub.hand")]
    assert [(m.path, m.type, m.connectors) for m in p.mates] == [
        ("Rig.shoulder", "hinge", ("Rig.base.pin", "Rig.arm.hole")),
        ("Rig.wrist", "lock", ("Rig.arm.tip", "Rig.sub.hand.grip"))]
    assert set(inp.nodes) == {s.path for s in p.systems} | {b.path for b in p.bodies} | \
        {c.path for c in p.connectors} | {m.path for m in p.mates}


def test_only_written_poses_are_declared() -> None:
    top = rig()
    p = snap_input(top).problem
    declared = {x.path: x.declared for x in [*p.systems, *p.bodies]}
    assert declared == {"Rig": None, "Rig.sub": None, "Rig.base": Pose.translation(1, 0, 0),
                        "Rig.arm": None, "Rig.sub.hand": None}
    # A pose given relative to another frame is declared as the pose in the parent model.
    arm = top.links[1]
    arm.pose = PoseSpec(Pose.translation(0, 1, 0), "base", True)
    [arm_body] = [b for b in snap_input(top).problem.bodies if b.path == "Rig.arm"]
    assert_pose(arm_body.declared, Pose.translation(1, 1, 0))


def test_mate_fields_world_connector_reference_body_and_redirected() -> None:
    top = rig()
    top.add(Mate(name="tether", type="distance", connectors=("world", "sub::hand.grip"),
                 initial_distance=0.25, enable_snap=False))
    top.extras[REFERENCE_BODY_KEY] = "arm"
    redirected = connector("frame_mc", redirected_parent="base", adaptive=True)
    top.add(redirected)
    p = snap_input(top).problem
    tether = p.mates[-1]
    assert (tether.connectors, tether.initial_distance, tether.enable_snap) == \
        (("world", "Rig.sub.hand.grip"), 0.25, False)
    world = p.connectors[-1]   # the world connector comes after every declared one
    assert (world.path, world.owner, world.X_OC) == ("world", "Rig", IDENTITY)
    assert p.systems[0].reference_body == "Rig.arm"
    frame_mc = next(c for c in p.connectors if c.path == "Rig.frame_mc")
    assert (frame_mc.redirected_parent, frame_mc.adaptive) == ("Rig.base", True)


def test_declaration_order_follows_ranks_then_appends_new_nodes_after_their_model() -> None:
    # File order: m_first (top), sub.m_sub, m_last (top).  Mates of a model come after its
    # nested models in the entity list; the ranks restore the file's order.
    top = rig()
    for mate in top.mates:
        top.entities.remove(mate)
    sub = top.models[0]
    sub.add(link("finger"))
    sub.add(connector("finger.c", "finger"))
    first = Mate(name="m_first", type="lock", connectors=("arm.tip", "sub::hand.grip"))
    m_sub = Mate(name="m_sub", type="lock", connectors=("hand.grip", "finger.c"))
    last = Mate(name="m_last", type="lock", connectors=("base.pin", "arm.hole"))
    for node, rank in ((first, 0), (m_sub, 1), (last, 2)):
        node.extras[ORDER_KEY] = rank
    sub.add(m_sub)
    top.add(first)
    top.add(last)
    # A mate added in the editor to ``sub`` is saved at the end of ``sub``: after m_sub,
    # before m_last.
    sub.add(Mate(name="m_new", type="lock", connectors=("hand.grip", "finger.c")))
    names = [m.path for m in snap_input(top).problem.mates]
    assert names == ["Rig.m_first", "Rig.sub.m_sub", "Rig.sub.m_new", "Rig.m_last"]


def test_mates_naming_unknown_connectors_reach_snap_as_paths() -> None:
    top = rig()
    top.add(Mate(name="bad", type="lock", connectors=("arm.nope", "sub::ghost.c")))
    bad = snap_input(top).problem.mates[-1]
    assert bad.connectors == ("Rig.arm.nope", "Rig.sub.ghost.c")
    result = solve(snap_input(top).problem)
    assert any("Rig.arm.nope" in d.message for d in result.diagnostics)


def test_derived_links_are_not_bodies() -> None:
    top = rig()
    top.mates[0].type = "cylindrical"
    derive_mate_joints(top)
    assert [b.path for b in snap_input(top).problem.bodies] == \
        ["Rig.base", "Rig.arm", "Rig.sub.hand"]


# -- apply_snap_result --------------------------------------------------------------------


def test_apply_places_free_frames_and_reports_what_moved() -> None:
    top = rig()
    inp = snap_input(top)
    result = solve(inp.problem)
    changed = apply_snap_result(inp, result)
    base, arm = top.links
    hand = top.models[0].links[0]
    # shoulder: X_arm = X_base @ C_pin @ Rz(pi/2) @ C_hole^-1 with C_hole = I.
    expected_arm = Pose.translation(1, 0, 0) @ connector_frame((0, 0, 0.5)) @ rz(math.pi / 2)
    assert_pose(arm.pose.value, expected_arm)
    assert not arm.pose.written and arm.pose.relative_to == ""
    assert base.pose.value == Pose.translation(1, 0, 0) and base.pose.written
    # wrist: hand and sub are both free; SNAP forces sub's reference body (the hand) to
    # identity and moves sub as a whole to put the grip on the arm's tip.
    sub = top.models[0]
    assert_pose(hand.pose.value, IDENTITY)
    assert_pose(sub.pose.value, expected_arm @ Pose.translation(1, 0, 0))
    assert changed == [sub, arm]   # systems first; the top model and the hand stay identity
    assert top.extras["snap_trace"] == result.trace
    assert top.extras["snap_status"]["Rig.arm"] == "snapped"
    # Nothing moves the second time.
    inp = snap_input(top)
    assert apply_snap_result(inp, solve(inp.problem)) == []


def test_apply_moves_adaptive_connectors() -> None:
    top = Model(name="W")
    top.add(link("a", IDENTITY))
    top.add(connector("a.c", "a", Pose.translation(0, 0, 1)))
    top.add(link("b", Pose.translation(2, 0, 0)))
    adaptive = connector("b.c", "b", adaptive=True)
    top.add(adaptive)
    top.add(Mate(name="m", type="lock", connectors=("a.c", "b.c")))
    inp = snap_input(top)
    changed = apply_snap_result(inp, solve(inp.problem))
    # The adaptive connector moves (in b) onto a.c: X_bc = X_b^-1 X_a X_ac.
    assert changed == [adaptive]
    assert_pose(adaptive.pose.value, Pose.translation(-2, 0, 1))


# -- derive_mate_joints -------------------------------------------------------------------


@pytest.mark.parametrize("mate_type, joints", [
    ("lock", [("shoulder", "fixed", "base", "arm", [])]),
    ("hinge", [("shoulder", "revolute", "base", "arm", [(0.0, 0.0, 1.0)])]),
    ("prismatic", [("shoulder", "prismatic", "base", "arm", [(0.0, 0.0, 1.0)])]),
    ("ball", [("shoulder", "ball", "base", "arm", [])]),
    ("cylindrical", [("shoulder__revolute", "continuous", "base", "shoulder__slider",
                      [(0.0, 0.0, 1.0)]),
                     ("shoulder", "prismatic", "shoulder__slider", "arm", [(0.0, 0.0, 1.0)])]),
    ("distance", []),
])
def test_each_mate_type_derives_its_joints(mate_type, joints) -> None:
    top = rig()
    shoulder = top.mates[0]
    shoulder.type = mate_type
    derive_mate_joints(top)
    mine = [j for j in top.joints if j.extras[DERIVED_KEY] == "shoulder"]
    assert [(j.name, j.type, j.parent_name, j.child_name, [a.xyz for a in j.axes])
            for j in mine] == joints
    for j in mine:
        if j.child_name == "arm":   # the joint frame is the child's connector frame
            assert j.pose.value == IDENTITY and j.pose.relative_to == ""
    sliders = [link for link in top.links if DERIVED_KEY in link.extras]
    assert [s.name for s in sliders] == (["shoulder__slider"] if mate_type == "cylindrical"
                                         else [])
    if sliders:   # at the child connector, following the child
        assert (sliders[0].pose.relative_to, sliders[0].pose.value) == ("arm", IDENTITY)


def test_joint_placement_rules() -> None:
    top = rig()
    # The wrist joins the arm (top) and the hand (sub): it lives in the top model with the
    # hand's scoped name, and its frame is the hand's connector frame.
    sub = top.models[0]
    sub.entities[1].pose = PoseSpec(Pose.translation(0, 0.1, 0), "", True)   # hand.grip
    # A hinge to a system connector: that end is fixed in the world, so the other body is
    # the child even when it is connectors[0], and the joint goes to the top model.
    sub.add(connector("mount", X=Pose.translation(0, 0, 3)))
    sub.add(Mate(name="pin", type="hinge", connectors=("hand.grip", "mount")))
    # Both ends in sub: the joint stays in sub.
    sub.add(link("finger"))
    sub.add(connector("finger.c", "finger", Pose.translation(0.2, 0, 0)))
    sub.add(Mate(name="knuckle", type="ball", connectors=("hand.grip", "finger.c")))
    # Two connectors fixed in the world: no joint, a warning.
    top.add(Mate(name="idle", type="lock", connectors=("anchor", "world")))
    diags = Diagnostics()
    removed, added = derive_mate_joints(top, diags)
    assert removed == []
    # Declaration order (no ranks: the walk order, sub's mates before the top model's).
    assert [(j.name, j.parent.name, j.parent_name, j.child_name) for j in added] == [
        ("pin", "Rig", "world", "sub::hand"),
        ("knuckle", "sub", "hand", "finger"),
        ("shoulder", "Rig", "base", "arm"),
        ("wrist", "Rig", "arm", "sub::hand")]
    pin, knuckle, _, wrist = added
    assert pin.pose.value == wrist.pose.value == Pose.translation(0, 0.1, 0)   # hand.grip
    assert knuckle.pose.value == Pose.translation(0.2, 0, 0)                  # finger.c
    assert all(j.extras[DERIVED_KEY] == name for j, name in
               zip(added, ("sub::pin", "knuckle", "shoulder", "wrist")))
    assert [(d.code, d.message) for d in diags] == [
        (Code.WARNING, "mate 'Rig.idle' joins two connectors fixed in the world; no joint is "
                       "made")]
    # Deriving again replaces them: the old ones come back as removed, in model order.
    removed, again = derive_mate_joints(top)
    assert [j.name for j in removed] == ["pin", "shoulder", "wrist", "knuckle"]
    assert [j.name for j in again] == ["pin", "knuckle", "shoulder", "wrist"]
    assert all(j.parent is None for j in removed)
    assert sum(isinstance(e, Joint) for e in top.entities) == 3


def test_plan_says_why_a_mate_has_no_joint() -> None:
    top = rig()
    top.mates[0].type = "distance"
    [shoulder, wrist] = plan_mate_joints(top)
    assert shoulder.host is None and shoulder.nodes == []
    assert shoulder.reason.startswith("Distance mate 'Rig.shoulder' has no SDFormat joint")
    assert wrist.host is top and [n.name for n in wrist.nodes] == ["wrist"]
    assert wrist.nodes[0].parent is None   # planned, not added
