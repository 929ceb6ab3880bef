"""The live document driven as an editor drives it, on the bundled examples and on a
generated world: after each do, undo and redo the reported moves, structure, diagnostics
and inertia are checked against references computed from scratch (live_checks.py)."""

from __future__ import annotations

import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from live_checks import Recorder, check_step, reference_poses

from snapframe.core.diagnostics import Code
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Include, Link
from snapframe.core.model.edits import (AddFrame, AddInclude, AddJoint, AddLink, EditRefused,
                                        RemoveNode, Rename, SetAttachedTo, SetDensity, SetJointAxis,
                                        SetJointType, SetMass, SetPlacementFrame, SetPose,
                                        SetRelativeTo)
from snapframe.core.pose import Pose

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "resources" / "examples"


@pytest.fixture
def arm_gripper(tmp_path):
    folder = tmp_path / "arm_gripper"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    doc = load(folder / "arm_and_gripper.sdf", LoadContext(use_environment=False))
    assert not doc.diagnostics.errors
    return doc, folder / "saved.sdf"


@pytest.fixture
def flanges(tmp_path):
    folder = tmp_path / "flanges"
    shutil.copytree(EXAMPLES / "flanges", folder)
    doc = load(folder / "super_armio_bros.sdf", LoadContext(use_environment=False))
    assert not doc.diagnostics.errors
    return doc, folder / "saved.sdf"


def drive(doc, save_as, make, inertia_links=()):
    """Push the command ``make()`` builds, undo it, redo it: each checked."""
    rec = Recorder(doc.live)
    check_step(doc, rec, lambda: doc.commands.push(make()), save_as, inertia_links)
    check_step(doc, rec, doc.commands.undo, save_as, inertia_links)
    check_step(doc, rec, doc.commands.redo, save_as, inertia_links)
    return rec


def test_keys_name_every_instance_element(arm_gripper):
    doc, _ = arm_gripper
    table = doc.live.poses
    frames = {k for k in table.keys if "#" not in k}
    # what `snapframe frames` lists (top model prefix stripped), one key each
    assert frames == set(reference_poses(doc)) - {k for k in table.keys if "#" in k}
    assert {"", "arm", "arm::gripper_mount", "gripper::mount_point", "weld",
            "arm::body#visual:base_visual", "gripper::body#collision:palm_collision"} <= set(table)
    assert doc.element("arm::forearm").name == "forearm"
    assert doc.element("arm_and_gripper::arm::forearm") is doc.element("arm::forearm")
    assert doc.element("arm::body#visual:base_visual").name == "base_visual"
    assert doc.element("arm::nothing") is None


def test_two_includes_of_one_file_have_their_own_keys(load_text):
    robot = """<sdf version="1.9"><model name="r"><link name="l">
      <visual name="v"><geometry><box><size>1 1 1</size></box></geometry></visual></link>
      <frame name="tool" attached_to="l"><pose>0 0 1 0 0 0</pose></frame></model></sdf>"""
    doc = load_text("""<sdf version="1.9"><world name="w">
      <include><uri>robot.sdf</uri><name>a</name></include>
      <include><uri>robot.sdf</uri><name>b</name><pose>2 0 0 0 0 0</pose></include>
    </world></sdf>""", files={"robot.sdf": robot})
    table = doc.live.poses
    assert {"a::l", "b::l", "a::tool", "b::tool", "a::l#visual:v", "b::l#visual:v"} <= set(table)
    assert table.pose("b::tool")[0, 3] == pytest.approx(2.0)
    assert table.pose("a::tool")[2, 3] == pytest.approx(1.0)
    # 100 includes: every frame has its own key (the issue counted 121 node ids)
    includes = "".join(f"<include><uri>robot.sdf</uri><name>r{i}</name></include>"
                       for i in range(100))
    big = load_text(f'<sdf version="1.9"><world name="w">{includes}</world></sdf>',
                    name="big.sdf")
    assert len(big.live.poses) == len(reference_poses(big)) == 1 + 100 * 4


def test_moving_an_included_model_reports_every_moved_key(arm_gripper):
    doc, save_as = arm_gripper
    rec = drive(doc, save_as, lambda: SetPose(doc, doc.element("arm"),
                                               Pose.from_xyz_rpy(0.5, 0, 0, 0, 0, 0.3)))
    # the gripper is placed on arm::gripper_mount: it and the weld follow the arm
    assert {"gripper::body", "weld", "arm::gripper_mount"} <= set(rec.moved())


def test_pose_value_and_frame_edits(arm_gripper):
    doc, save_as = arm_gripper
    gripper = doc.element("gripper")
    drive(doc, save_as, lambda: SetPose(doc, gripper, Pose.from_xyz_rpy(0, 0, 0.1),
                                         relative_to="arm::gripper_mount"))
    drive(doc, save_as, lambda: SetPlacementFrame(doc, gripper, "body"))
    drive(doc, save_as, lambda: SetPose(doc, doc.element("weld"),
                                         Pose.from_xyz_rpy(0, 0, 0.2), relative_to="arm"))
    # re-expressing a pose in another frame keeps the element where it is
    rec = drive(doc, save_as, lambda: SetRelativeTo(doc, gripper, "arm::body"))
    assert rec.moved() == {}


def test_structure_edits(arm_gripper):
    doc, save_as = arm_gripper
    root = doc.root
    drive(doc, save_as, lambda: AddFrame(doc, root, "camera", attached_to="arm::forearm",
                                          pose=Pose.from_xyz_rpy(0, 0.1, 0), relative_to="arm"))
    drive(doc, save_as, lambda: AddLink(doc, root, "table", pose=Pose.from_xyz_rpy(1, 0, 0)))
    drive(doc, save_as, lambda: AddJoint(doc, root, "fix_table", "fixed", "arm::body", "table"))
    rec = drive(doc, save_as, lambda: AddInclude(doc, root, "gripper.sdf", name="spare",
                                                  relative_to="camera",
                                                  placement_frame="mount_point"))
    assert "spare::left_finger" in doc.live.poses
    drive(doc, save_as, lambda: RemoveNode(doc, doc.element("spare")))
    rec = drive(doc, save_as, lambda: Rename(doc, doc.element("gripper"), "hand"))
    assert doc.element("weld").child_name == "hand::mount_point"
    assert rec.structure and rec.structure[-1].renamed.get("gripper::body") == "hand::body"


def test_errors_come_with_the_edit_and_go_with_the_undo(arm_gripper):
    doc, save_as = arm_gripper
    weld = doc.element("weld")
    rec = Recorder(doc.live)
    check_step(doc, rec, lambda: doc.commands.push(
        SetPose(doc, weld, Pose(), relative_to="nothing")), save_as)
    added = rec.diagnostics[-1].added
    assert [d.code for d in added] == [Code.POSE_RELATIVE_TO_INVALID]
    assert added[0].key == "weld" and added[0].line > 0
    check_step(doc, rec, doc.commands.undo, save_as)
    assert rec.diagnostics[-1].removed[0].code == Code.POSE_RELATIVE_TO_INVALID
    assert not doc.diagnostics.errors
    # an include of a missing file: URI_LOOKUP with the include, gone with its undo
    check_step(doc, rec, lambda: doc.commands.push(
        AddInclude(doc, doc.root, "missing.sdf", name="ghost")), save_as)
    assert [(d.code, d.key) for d in doc.diagnostics.errors] == [(Code.URI_LOOKUP, "ghost")]
    check_step(doc, rec, doc.commands.undo, save_as)
    assert not doc.diagnostics.errors
    camera = AddFrame(doc, doc.root, "camera", attached_to="arm::forearm")
    doc.commands.push(camera)
    check_step(doc, rec, lambda: doc.commands.push(
        SetAttachedTo(doc, camera.node, "arm::nowhere")), save_as)
    assert [d.code for d in doc.diagnostics.errors] == [Code.FRAME_ATTACHED_TO_INVALID]
    check_step(doc, rec, doc.commands.undo, save_as)


def test_flanges_example(flanges):
    doc, save_as = flanges
    for key in [k for k in doc.live.poses.keys if k.count("::") == 0 and k][:3]:
        node = doc.element(key)
        if isinstance(node, (Include, Link)) or hasattr(node, "pose"):
            drive(doc, save_as, lambda node=node: SetPose(
                doc, node, Pose.from_xyz_rpy(0.1, 0.2, 0.3, 0.1, 0.2, 0.3)))


AUTO = """<sdf version="1.11"><model name="cart">
  <link name="body">
    <inertial auto="true"><density>500</density></inertial>
    <collision name="chassis"><pose>0 0 0.1 0 0 0</pose>
      <geometry><box><size>1 0.5 0.2</size></box></geometry></collision>
    <collision name="mast"><density>2700</density><pose relative_to="mast_base">0 0 0.5 0 0 0</pose>
      <geometry><cylinder><radius>0.05</radius><length>1</length></cylinder></geometry></collision>
    <visual name="shell"><geometry><box><size>1 0.5 0.2</size></box></geometry></visual>
  </link>
  <frame name="mast_base" attached_to="body"><pose>0.3 0 0.2 0 0 0</pose></frame>
  <link name="wheel"><pose>0.4 0.3 0 1.5708 0 0</pose>
    <inertial auto="true"/>
    <collision name="tyre"><geometry><cylinder><radius>0.1</radius><length>0.05</length></cylinder></geometry></collision>
  </link>
  <joint name="axle" type="revolute"><parent>body</parent><child>wheel</child>
    <axis><xyz>0 0 1</xyz></axis></joint>
</model></sdf>"""


def test_inertia_follows_density_mass_and_collision_edits(load_text, tmp_path):
    doc = load_text(AUTO, name="cart.sdf")
    assert not doc.diagnostics.errors
    save_as = tmp_path / "saved.sdf"
    body, wheel = doc.element("body"), doc.element("wheel")
    links = (body, wheel)
    chassis = doc.element("body#collision:chassis")
    mass0 = doc.live.inertia.of(body).mass_properties.mass
    assert mass0 == pytest.approx(500 * 0.1 + 2700 * math.pi * 0.05 ** 2 * 1.0)
    rec = drive(doc, save_as, lambda: SetDensity(doc, chassis, 1000.0), links)
    assert doc.live.inertia.of(body).mass_properties.mass == pytest.approx(mass0 + 50)
    drive(doc, save_as, lambda: SetDensity(doc, body, 800.0), links)
    drive(doc, save_as, lambda: SetMass(doc, wheel, 3.0), links)
    assert doc.live.inertia.of(wheel).mass_properties.mass == pytest.approx(3.0)
    # moving a collision (and the frame another collision is placed on) moves the COM
    drive(doc, save_as, lambda: SetPose(doc, chassis, Pose.from_xyz_rpy(0.2, 0, 0.1)), links)
    drive(doc, save_as, lambda: SetPose(doc, doc.element("mast_base"),
                                         Pose.from_xyz_rpy(-0.3, 0, 0.2)), links)
    events = rec.inertia
    assert events and events[-1].keys == ("body",)


def test_joint_edits_and_refusals(arm_gripper):
    doc, save_as = arm_gripper
    root = doc.root
    add = AddJoint(doc, root, "hinge", "revolute", "arm::forearm", "gripper::body",
                   axis=(0, 0, 2), lower=-1, upper=1)
    doc.commands.push(add)
    joint = add.node
    assert joint.axes[0].xyz == (0.0, 0.0, 1.0)
    drive(doc, save_as, lambda: SetJointType(doc, joint, "prismatic"))
    drive(doc, save_as, lambda: SetJointAxis(doc, joint, xyz=(1, 0, 0), lower=-0.5))
    stack_size = len(doc.commands)
    for bad in (lambda: SetJointAxis(doc, joint, xyz=(0, 0, 0)),
                lambda: SetJointAxis(doc, joint, lower=2.0),          # above upper
                lambda: SetJointType(doc, joint, "hovering"),
                lambda: SetPose(doc, joint, Pose.from_xyz_rpy(math.inf, 0, 0)),
                lambda: Rename(doc, joint, "weld"),                    # name taken
                lambda: Rename(doc, joint, "a::b"),
                lambda: SetMass(doc, doc.element("gripper::body"), 2.0),   # inside an include
                lambda: SetPose(doc, doc.element("arm::forearm"), Pose())):
        with pytest.raises(EditRefused):
            doc.commands.push(bad())
    assert len(doc.commands) == stack_size


def test_one_event_per_macro(arm_gripper):
    doc, save_as = arm_gripper
    rec = Recorder(doc.live)

    def act():
        with doc.commands.macro("place spare"):
            doc.commands.push(AddFrame(doc, doc.root, "slot", attached_to="arm::forearm",
                                       relative_to="arm::gripper_mount"))
            doc.commands.push(AddInclude(doc, doc.root, "gripper.sdf", name="spare",
                                         relative_to="slot", placement_frame="mount_point"))
            doc.commands.push(SetPose(doc, doc.element("arm"), Pose.from_xyz_rpy(0, 1, 0)))
    check_step(doc, rec, act, save_as)
    assert len(doc.commands) == 1
    check_step(doc, rec, doc.commands.undo, save_as)
    check_step(doc, rec, doc.commands.redo, save_as)


def test_drags_of_different_elements_do_not_merge(arm_gripper):
    doc, _ = arm_gripper
    for z in (0.1, 0.2):
        doc.commands.push(SetPose(doc, doc.element("arm"), Pose.from_xyz_rpy(0, 0, z)))
    assert len(doc.commands) == 1
    doc.commands.push(SetPose(doc, doc.element("gripper"), Pose.from_xyz_rpy(0, 0, 0.3)))
    assert len(doc.commands) == 2


@pytest.mark.parametrize("n", [30])
def test_generated_world_of_chained_robots(tmp_path, n):
    sys.path.insert(0, str(REPO / "benchmarks"))
    from gen_include_world import generate
    world = generate(n, tmp_path)
    doc = load(world, LoadContext(use_environment=False))
    save_as = tmp_path / "saved.sdf"
    rec = drive(doc, save_as, lambda: SetPose(doc, doc.element("robot_0"),
                                               Pose.from_xyz_rpy(0, 0, 0.5, 0, 0, 0.4)))
    assert len(rec.moved()) == n * 27
    drive(doc, save_as, lambda: SetPose(doc, doc.element(f"robot_{n - 1}"),
                                         Pose.from_xyz_rpy(0, 0, 0.1), "robot_0::tool"))
    drive(doc, save_as, lambda: AddInclude(doc, doc.root, "model://robot6", name="extra",
                                            relative_to="robot_3::tool", placement_frame="base"))
    drive(doc, save_as, lambda: Rename(doc, doc.element("robot_5"), "five"))
    drive(doc, save_as, lambda: RemoveNode(doc, doc.element("robot_7")))
    assert np.isfinite(doc.live.poses.X[: len(doc.live.poses)]).all()
