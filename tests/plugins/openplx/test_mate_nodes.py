"""OpenPLX mate connectors and mates are core nodes, and SNAP on the core model gives what
SNAP on the file gives.

The reference is the plugin's own assembly of the file (``snapframe snap --json``, i.e.
:func:`snap_command`), never the core pipeline under test.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from snapframe.core.model import Joint, Link, Mate, MateConnector, Model, walk
from snapframe.core.pose import Pose
from snapframe.core.snap import solve
from snapframe.core.snap.document import apply_snap_result, snap_input
from snapframe.core.snap.joints import derive_mate_joints
from snapframe.core.snap.paths import DERIVED_KEY
from snapframe.plugins.openplx import format as openplx_format
from snapframe.plugins.openplx.cli import snap_command
from snapframe.plugins.openplx.loader import load_file
from snapframe.plugins.openplx.snap_input import assemble

from .conftest import EXAMPLES

CLOCK = EXAMPLES / "clock.openplx"
ROD = EXAMPLES / "three_level_rod.openplx"
#: openplx-bundles 0.19.0 files whose default System assembles with mates.
BUNDLE_FILES = ["Vehicles/Wheels/ElasticWheel.openplx",
                "Robotics/EndEffectors/SixDofSuctionCup.openplx",
                "Robotics/Robots/SixAxisSerialManipulator.openplx"]

# Declaration order decides which of two conflicting mates wins, and a mate of a system may
# name connectors outside it (as Robotics joints do): the core model must keep both.
ORDER_AND_OUTSIDE = """
Link is Physics3D.Bodies.RigidBody:
    start is Physics3D.Interactions.MateConnector
    end is Physics3D.Interactions.MateConnector:
        position.x: 1

J is Physics3D.System:
    links is Link[]
    mate is Physics3D.Interactions.Hinge:
        connectors: [links[0].end, links[1].start]
        initial_angle: 0.5

Sub is Physics3D.System:
    a is Link
    b is Link
    inner is Physics3D.Interactions.Prismatic:
        connectors: [a.end, b.start]
        initial_position: 0.25

Arm is Physics3D.System:
    l1 is Link:
        kinematics.local_transform.position.z: 1
    j1 is J:
        links: [l1, l2]
    l2 is Link
    first is Physics3D.Interactions.Lock:
        connectors: [l2.end, sub.a.start]
    sub is Sub
    second is Physics3D.Interactions.Hinge:
        connectors: [l1.start, sub.a.start]
        initial_angle: 1
    l3 is Link
    j2 is J:
        links: [sub.b, l3]
    pin is Physics3D.Interactions.Cylindrical:
        connectors: [Physics3D.Interactions.World, l3.end]
        initial_position: 2
"""


def pose(entry: list[float]) -> Pose:
    return Pose.from_xyz_quat(entry[:3], entry[3:])


def nodes_of(root: Model, cls: type) -> list:
    return [n for n in walk(root) if isinstance(n, cls)]


# -- the nodes --------------------------------------------------------------------------


def test_clock_has_two_connectors_and_a_hinge() -> None:
    doc = openplx_format.read(CLOCK)
    center, pivot = nodes_of(doc.root, MateConnector)
    assert (center.name, center.attached_to, pivot.name, pivot.attached_to) == \
        ("face.center", "face", "hour_hand.pivot", "hour_hand")
    # z = main_axis, x = normal (the file: center main (0,-1,0) normal (0,0,1)).
    assert center.pose.value.rotate((0, 0, 1)) == pytest.approx((0, -1, 0))
    assert center.pose.value.rotate((1, 0, 0)) == pytest.approx((0, 0, 1))
    [hinge] = doc.root.mates
    assert (hinge.name, hinge.type, hinge.connectors, hinge.enable_snap) == \
        ("hand_hinge", "hinge", ("face.center", "hour_hand.pivot"), True)
    assert hinge.initial_angle == pytest.approx(math.pi / 2)
    assert (hinge.source.file, hinge.source.line) == (str(CLOCK), 36)


@pytest.mark.parametrize("model", ["SnapRod", "SnapRodParent", "SnapRodParentParent"])
def test_rod_has_a_world_connector_a_rod_connector_and_a_lock(model) -> None:
    doc = openplx_format.read(ROD, model_name=model)
    connectors = nodes_of(doc.root, MateConnector)
    assert [(c.name, c.attached_to, c.parent.name) for c in connectors] == \
        [("world_connector", "", model), ("rod.connector", "rod", "rod_system")]
    [lock] = nodes_of(doc.root, Mate)
    assert lock.parent is doc.root
    assert (lock.type, lock.connectors) == \
        ("lock", ("rod_system::rod_system::rod.connector", "world_connector"))


def test_mates_outside_their_system_and_the_world_connector(tmp_path) -> None:
    path = tmp_path / "arm.openplx"
    path.write_text(ORDER_AND_OUTSIDE)
    root = openplx_format.read(path).root
    mates = {m.name: m for m in nodes_of(root, Mate)}
    # j1's mate joins l1 and l2 of Arm: it is kept in Arm, named by its path from there.
    assert mates["j1.mate"].parent is root and mates["j1.mate"].connectors == \
        ("l1.end", "l2.start")
    assert mates["j2.mate"].connectors == ("sub::b.end", "l3.start")
    assert mates["inner"].parent.name == "sub"
    assert mates["pin"].connectors == ("world", "l3.end")
    assert (mates["pin"].type, mates["pin"].initial_position) == ("cylindrical", 2.0)


# -- SNAP on the core model ---------------------------------------------------------------


def _core_snap_matches_the_file(path: Path, model: str | None = None) -> None:
    doc = openplx_format.read(path, model_name=model)
    root = doc.root
    # Scramble what SNAP places, then place it again from the core model alone.
    inp = snap_input(root)
    for p in inp.placed:
        inp.nodes[p].pose.value = Pose.translation(9, 9, 9)
    result = solve(inp.problem)
    apply_snap_result(inp, result)
    expected = snap_command(path, model)["frames"]
    assert set(result.world) == set(expected)
    for p, frame in expected.items():
        assert result.world[p].almost_equal(pose(frame["pose"]), 1e-9), p
        node = inp.nodes.get(p)
        if isinstance(node, (Link, Model)):   # the pose applied to the node is SNAP's local
            assert node.pose.value.almost_equal(pose(frame["local"]), 1e-9), p
    # The same input as the plugin's, in the same (declaration) order.
    _, _, problem = assemble(load_file(path), model)
    mine = inp.problem
    assert [(s.path, s.parent, s.reference_body) for s in mine.systems] == \
        [(s.path, s.parent, s.reference_body) for s in problem.systems]
    assert [(b.path, b.parent) for b in mine.bodies] == [(b.path, b.parent) for b in problem.bodies]
    assert [(c.path, c.owner, c.redirected_parent, c.adaptive) for c in mine.connectors] == \
        [(c.path, c.owner, c.redirected_parent, c.adaptive) for c in problem.connectors]
    assert [(m.path, m.type, m.connectors, m.initial_angle, m.initial_position,
             m.initial_distance, m.enable_snap, m.line) for m in mine.mates] == \
        [(m.path, m.type, m.connectors, m.initial_angle, m.initial_position,
          m.initial_distance, m.enable_snap, m.line) for m in problem.mates]


def test_core_snap_reproduces_the_clock() -> None:
    _core_snap_matches_the_file(CLOCK)


@pytest.mark.parametrize("model", ["SnapRod", "SnapRodParent", "SnapRodParentParent", "World"])
def test_core_snap_reproduces_the_rod(model) -> None:
    _core_snap_matches_the_file(ROD, model)


def test_core_snap_keeps_declaration_order_and_outside_connectors(tmp_path) -> None:
    path = tmp_path / "arm.openplx"
    path.write_text(ORDER_AND_OUTSIDE)
    _core_snap_matches_the_file(path)
    # 'first' (declared before sub) wins over 'second': sub.a sits at l2's end.
    frames = snap_command(path)["frames"]
    assert pose(frames["Arm.sub.a.start"]["pose"]).almost_equal(
        pose(frames["Arm.l2.end"]["pose"]), 1e-9)


@pytest.mark.parametrize("name", BUNDLE_FILES)
def test_core_snap_reproduces_bundle_files_with_mates(bundle_root, name) -> None:
    _core_snap_matches_the_file(bundle_root / name)


# -- joints derived from mates ------------------------------------------------------------


@pytest.mark.parametrize("mate_type, expected", [
    ("lock", [("hand_hinge", "fixed", "face", "hour_hand")]),
    ("prismatic", [("hand_hinge", "prismatic", "face", "hour_hand")]),
    ("ball", [("hand_hinge", "ball", "face", "hour_hand")]),
    ("cylindrical", [("hand_hinge__revolute", "continuous", "face", "hand_hinge__slider"),
                     ("hand_hinge", "prismatic", "hand_hinge__slider", "hour_hand")]),
    ("distance", []),
    ("hinge", [("hand_hinge", "revolute", "face", "hour_hand")]),
])
def test_changing_a_mate_type_derives_the_joints_the_rules_say(mate_type, expected) -> None:
    doc = openplx_format.read(CLOCK)
    root = doc.root
    [hinge] = root.mates
    [old] = root.joints
    hinge.type = mate_type
    removed, added = derive_mate_joints(root)
    assert removed == [old]
    assert [(j.name, j.type, j.parent_name, j.child_name) for j in root.joints] == expected
    pivot = next(c for c in nodes_of(root, MateConnector) if c.name == "hour_hand.pivot")
    for j in root.joints:
        assert j.extras[DERIVED_KEY] == "hand_hinge"
        if j.child_name == "hour_hand":
            assert j.pose.value == pivot.pose.value
    assert [n.name for n in added] == \
        (["hand_hinge__slider"] if mate_type == "cylindrical" else []) + [e[0] for e in expected]


def test_reading_gives_the_joints_of_the_rules(tmp_path) -> None:
    path = tmp_path / "arm.openplx"
    path.write_text(ORDER_AND_OUTSIDE)
    root = openplx_format.read(path).root
    joints = [(j.name, j.parent.name, j.type, j.parent_name, j.child_name)
              for j in nodes_of(root, Joint)]
    assert joints == [
        ("inner", "sub", "prismatic", "a", "b"),
        ("j1.mate", "Arm", "revolute", "l1", "l2"),
        ("first", "Arm", "fixed", "l2", "sub::a"),
        ("second", "Arm", "revolute", "l1", "sub::a"),
        ("j2.mate", "Arm", "revolute", "sub::b", "l3"),
        ("pin__revolute", "Arm", "continuous", "world", "pin__slider"),
        ("pin", "Arm", "prismatic", "pin__slider", "l3"),
    ]
