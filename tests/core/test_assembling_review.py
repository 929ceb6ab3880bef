"""Review of "Assembling in the editor" (core): joints and mates named by their ends
refuse what the file could not say or a save would lose, and SNAP's replay after an edit
of initial values is checked against full runs on seeded random problems.

Expectations come from the specs (/work/shared/reference/sdformat.md: ``//world/joint`` is
SDFormat 1.10, frames as joint ends 1.8; openplx.md: which initial values each mate type
has) and from numbers written in the test files."""

from __future__ import annotations

import math
import random
import shutil
import sys
from pathlib import Path

import pytest

from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Joint, Mate
from snapframe.core.model.connecting import AddJointBetween, AddMateBetween
from snapframe.core.model.edits import EditRefused, RemoveNode
from snapframe.core.pose import Pose
from snapframe.core.snap import SnapMate, SnapProblem, solve
from snapframe.core.snap.replay import SnapRun

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"

sys.path.insert(0, str(Path(__file__).resolve().parent / "snap"))
from snaphelpers import Builder  # noqa: E402


def _load(path: Path):
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.errors, [d.message for d in doc.diagnostics.errors]
    return doc


@pytest.fixture
def arm_gripper(tmp_path) -> Path:
    folder = tmp_path / "arm_gripper"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    return folder


# -- joints ---------------------------------------------------------------------------

def test_joint_limits_must_be_finite_numbers(arm_gripper):
    doc = _load(arm_gripper / "arm.sdf")
    for lower, upper in ((math.nan, 1.0), (-1.0, math.inf), ("a", 1.0)):
        with pytest.raises(EditRefused, match="limit"):
            AddJointBetween(doc, "j", "revolute", "upper_arm", "forearm", lower=lower,
                            upper=upper)
    assert len(doc.commands) == 0 and doc.element("j") is None
    # finite limits are kept as given (radians)
    command = AddJointBetween(doc, "j", "revolute", "upper_arm", "forearm", lower=-0.5,
                              upper=0.5)
    doc.commands.push(command)
    axis = doc.element("j").axes[0]
    assert (axis.lower, axis.upper) == (-0.5, 0.5)


@pytest.mark.parametrize("joint_type", ["fixed", "ball", "continuous"])
def test_limits_of_a_joint_type_without_limits_are_refused_not_dropped(arm_gripper, joint_type):
    doc = _load(arm_gripper / "arm.sdf")
    with pytest.raises(EditRefused, match="no limits"):
        AddJointBetween(doc, "j", joint_type, "upper_arm", "forearm", lower=-1.0, upper=1.0)
    # without limits it is made
    doc.commands.push(AddJointBetween(doc, "j", joint_type, "upper_arm", "forearm"))
    assert isinstance(doc.element("j"), Joint) and doc.element("j").type == joint_type


WORLD = """<?xml version="1.0"?>
<sdf version="{version}">
  <world name="w">
    <model name="a"><link name="l"/></model>
    <model name="b"><pose>1 0 0 0 0 0</pose><link name="l"/></model>
  </world>
</sdf>
"""


def test_a_joint_between_two_models_of_a_world_needs_sdformat_1_10(tmp_path):
    # //world/joint is SDFormat 1.10: a 1.9 reader drops it (sdformat.md, section 0)
    (tmp_path / "old.sdf").write_text(WORLD.format(version="1.9"))
    doc = _load(tmp_path / "old.sdf")
    with pytest.raises(EditRefused, match="1.10"):
        AddJointBetween(doc, "j", "revolute", "a::l", "b::l")
    assert len(doc.commands) == 0
    (tmp_path / "new.sdf").write_text(WORLD.format(version="1.10"))
    doc = _load(tmp_path / "new.sdf")
    doc.commands.push(AddJointBetween(doc, "j", "revolute", "a::l", "b::l"))
    joint = doc.element("j")
    assert (joint.parent_name, joint.child_name) == ("a::l", "b::l")
    assert joint.parent is doc.root


OLD_MODEL = """<?xml version="1.0"?>
<sdf version="1.7">
  <model name="m">
    <link name="a"/>
    <link name="b"><pose>1 0 0 0 0 0</pose></link>
    <frame name="f" attached_to="b"><pose>0 0 1 0 0 0</pose></frame>
  </model>
</sdf>
"""


def test_a_frame_as_a_joint_end_needs_sdformat_1_8(tmp_path):
    (tmp_path / "m.sdf").write_text(OLD_MODEL)
    doc = _load(tmp_path / "m.sdf")
    with pytest.raises(EditRefused, match="1.8"):
        AddJointBetween(doc, "j", "fixed", "a", "f")
    doc.commands.push(AddJointBetween(doc, "j", "fixed", "a", "b"))   # links: any version
    assert doc.element("j").child_name == "b"


# -- mates ---------------------------------------------------------------------------

def test_a_mate_refuses_initial_values_its_type_does_not_have(tmp_path):
    shutil.copytree(EXAMPLES / "openplx", tmp_path / "openplx")
    doc = _load(tmp_path / "openplx" / "clock.openplx")
    doc.commands.push(RemoveNode(doc, doc.element("hand_hinge")))
    ends = ("face.center", "hour_hand.pivot")
    # a Lock has no initial_angle, a Hinge no initial_position (openplx.md, 3.3): an
    # OpenPLX save could not keep them
    with pytest.raises(EditRefused, match="initial_angle"):
        AddMateBetween(doc, "m", "lock", *ends, initial_angle=0.5)
    with pytest.raises(EditRefused, match="initial_position"):
        AddMateBetween(doc, "m", "hinge", *ends, initial_angle=0.5, initial_position=0.1)
    with pytest.raises(EditRefused, match="initial_angle"):
        AddMateBetween(doc, "m", "Physics3D.Interactions.Prismatic", *ends, initial_angle=1.0)
    assert len(doc.commands) == 1 and doc.element("m") is None
    # zeros say nothing: accepted; the values a type has are kept
    doc.commands.push(AddMateBetween(doc, "m", "lock", *ends, initial_angle=0.0,
                                     initial_position=0.0))
    doc.commands.undo()
    doc.commands.push(AddMateBetween(doc, "m", "cylindrical", *ends, initial_angle=0.5,
                                     initial_position=0.1))
    mate = doc.element("m")
    assert isinstance(mate, Mate) and (mate.initial_angle, mate.initial_position) == (0.5, 0.1)


ASSEMBLY = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="a">
    <link name="base"/>
    <include><uri>file://clock.openplx</uri><name>c1</name></include>
    <include><uri>file://clock.openplx</uri><name>c2</name><pose>1 0 0 0 0 0</pose></include>
  </model>
</sdf>
"""


def test_connectors_of_included_parts_are_mated_as_a_placement_and_a_joint(tmp_path):
    # no SNAP mate lands in the SDFormat file (it could not be saved, nor solved there):
    # c2 is placed by its pivot on c1's dial centre and joined to it
    shutil.copy(EXAMPLES / "openplx" / "clock.openplx", tmp_path)
    (tmp_path / "a.sdf").write_text(ASSEMBLY)
    doc = _load(tmp_path / "a.sdf")
    assert "c1::face.center" in doc.live.poses
    command = AddMateBetween(doc, "m", "lock", "c1::face.center", "c2::hour_hand.pivot")
    doc.commands.push(command)
    assert isinstance(doc.element("m"), Joint) and doc.element("m").type == "fixed"
    assert not any(isinstance(n, Mate) for n in doc.nodes()) and not doc.live.snap.active
    table = doc.live.poses
    assert Pose.from_matrix(table.pose("c2::hour_hand.pivot")).almost_equal(
        Pose.from_matrix(table.pose("c1::face.center")), 1e-9)
    assert len(doc.commands) == 1 and not doc.diagnostics.errors


# -- SNAP replay ----------------------------------------------------------------------

def _copy(p: SnapProblem) -> SnapProblem:
    return SnapProblem(p.root, list(p.systems), list(p.bodies), list(p.connectors),
                       list(p.mates))


def _random_problem(rng: random.Random) -> SnapProblem:
    b = Builder("W")
    systems = ["W"]
    for i in range(rng.randint(0, 3)):
        parent = rng.choice(systems)
        declared = Pose.from_xyz_rpy(*[rng.uniform(-1, 1) for _ in range(6)]) \
            if rng.random() < 0.3 else None
        systems.append(b.system(f"{parent}.s{i}", parent, declared=declared))
    bodies = []
    for i in range(rng.randint(2, 7)):
        parent = rng.choice(systems)
        declared = Pose.from_xyz_rpy(*[rng.uniform(-1, 1) for _ in range(6)]) \
            if rng.random() < 0.2 else None
        bodies.append(b.body(f"{parent}.b{i}", parent, declared=declared))
    conns = []
    for i in range(rng.randint(3, 10)):
        owner = rng.choice(bodies + systems)
        conns.append(b.conn(f"{owner}.c{i}", owner,
                            position=[rng.uniform(-1, 1) for _ in range(3)],
                            main_axis=[rng.uniform(0.2, 1), rng.uniform(-1, 1), 0.3],
                            normal=[0.1, rng.uniform(0.3, 1), rng.uniform(-1, 1)]))
    for i in range(rng.randint(1, 8)):
        c0, c1 = rng.sample(conns, 2)
        b.mate(f"W.m{i}", rng.choice(["hinge", "prismatic", "cylindrical", "distance",
                                      "ball", "lock"]), c0, c1,
               initial_angle=rng.uniform(-3, 3), initial_position=rng.uniform(-1, 1),
               initial_distance=rng.uniform(0, 1))
    return b.problem()


def test_replays_after_random_value_edits_equal_full_runs_field_by_field():
    rng = random.Random(45)
    replayed = 0
    for _ in range(60):
        problem = _random_problem(rng)
        run, current = SnapRun(_copy(problem)), _copy(problem)
        for _step in range(6):
            changed = []
            for i in rng.sample(range(len(current.mates)), rng.randint(1, len(current.mates))):
                m = current.mates[i]
                current.mates[i] = SnapMate(m.path, m.type, m.connectors, rng.uniform(-4, 4),
                                            rng.uniform(-2, 2), rng.uniform(0, 2),
                                            m.enable_snap, m.file, m.line)
                changed.append(current.mates[i])
            result, expected = run.revalue(changed), solve(_copy(current))
            if result is None:
                run = SnapRun(_copy(current))
                continue
            replayed += 1
            for name in ("local", "world", "diagnostics", "trace", "dofs", "status",
                         "redirected", "adapted"):
                assert getattr(result, name) == getattr(expected, name), name
    assert replayed > 20
