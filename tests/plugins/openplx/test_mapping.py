"""OpenPLX <-> core model: bodies, frames, joints, geometry and inertia survive, in both
directions and through the SDFormat writer."""

from __future__ import annotations

import math

import pytest

from snapframe.core.model import Model
from snapframe.core.pose import Pose
from snapframe.plugins.openplx import format as openplx_format
from snapframe.plugins.openplx.cli import snap_command
from snapframe.plugins.openplx.loader import load_text
from snapframe.plugins.openplx.mapping import model_to_source

from .conftest import EXAMPLES


def world_poses(doc) -> dict[str, Pose]:
    return {f.name: f.pose for f in doc.frames.frames()}


def read_sdformat(tmp_path, name: str, text: str, *, clean: bool = True):
    """Write SDFormat ``text`` to ``tmp_path/name`` and read it (as a user's file would be)."""
    sdformat = pytest.importorskip("snapframe.plugins.sdformat.reader")
    sdf_path = tmp_path / name
    sdf_path.write_text(text)
    doc = sdformat.read(sdf_path)
    if clean:
        assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    return doc


def snap_text(tmp_path, name: str, text: str) -> dict:
    """Save OpenPLX ``text`` as ``tmp_path/name`` and assemble it with ``snapframe snap``."""
    out = tmp_path / name
    out.write_text(text)
    return snap_command(out)



def test_clock_maps_to_links_frames_and_a_revolute_joint() -> None:
    doc = openplx_format.read(EXAMPLES / "clock.openplx")
    assert doc.diagnostics.items == [] and doc.format == "openplx"
    model = doc.root
    assert isinstance(model, Model) and model.name == "Clock"
    face, hand = model.links
    assert (face.name, hand.name) == ("face", "hour_hand")
    assert face.pose.written and not hand.pose.written   # only the face is declared
    assert face.pose.value.almost_equal(Pose.translation(0, 0, 1.5))
    assert face.inertial.mass == 0.5 and face.inertial.auto
    center, pivot = model.frames
    assert (center.name, center.attached_to, pivot.name, pivot.attached_to) == \
        ("face.center", "face", "hour_hand.pivot", "hour_hand")
    assert center.pose.value.rotate((0, 0, 1)) == pytest.approx((0, -1, 0))  # main_axis
    [joint] = model.joints
    assert (joint.name, joint.type, joint.parent_name, joint.child_name) == \
        ("hand_hinge", "revolute", "face", "hour_hand")
    assert joint.pose.value.almost_equal(pivot.pose.value)   # the child connector frame
    assert joint.axes[0].xyz == (0.0, 0.0, 1.0)
    # OpenPLX cylinders run along local y; the SDFormat cylinder axis (z) must map there.
    [dial] = face.collisions
    assert dial.geometry.shape == "cylinder"
    assert dial.geometry.params == {"radius": 0.15, "length": 0.01}
    assert dial.pose.value.rotate((0, 0, 1)) == pytest.approx((0, 1, 0), abs=1e-12)
    # The frame graph of the core document agrees with SNAP's world poses.
    snap = snap_command(EXAMPLES / "clock.openplx")["frames"]
    poses = world_poses(doc)
    for path, name in [("Clock.hour_hand", "Clock::hour_hand"),
                       ("Clock.hour_hand.pivot", "Clock::hour_hand.pivot")]:
        expected = Pose.from_xyz_quat(snap[path]["pose"][:3], snap[path]["pose"][3:])
        assert poses[name].almost_equal(expected, 1e-9)


def test_nested_systems_become_nested_models() -> None:
    doc = openplx_format.read(EXAMPLES / "three_level_rod.openplx")   # SnapRodParentParent
    top = doc.root
    assert top.name == "SnapRodParentParent"
    [world_connector] = top.frames
    assert world_connector.name == "world_connector" and world_connector.attached_to == ""
    [s1] = top.models
    [s2] = s1.models
    [rod] = s2.links
    assert not s1.pose.written and s2.pose.written and rod.pose.written
    [lock] = top.joints
    assert (lock.type, lock.parent_name, lock.child_name) == \
        ("fixed", "world", "rod_system::rod_system::rod")
    poses = world_poses(doc)
    conn = poses["SnapRodParentParent::rod_system::rod_system::rod.connector"]
    assert conn.almost_equal(poses["SnapRodParentParent::world_connector"], 1e-9)


MATES = """
Rig is Physics3D.System:
    base is Physics3D.Bodies.RigidBody:
        kinematics.local_transform.position.z: 1
        a is Physics3D.Interactions.MateConnector
        b is Physics3D.Interactions.MateConnector:
            position.x: 1
        c is Physics3D.Interactions.MateConnector:
            position.y: 1
    slider is Physics3D.Bodies.RigidBody:
        mc is Physics3D.Interactions.MateConnector
    knob is Physics3D.Bodies.RigidBody:
        mc is Physics3D.Interactions.MateConnector
    bob is Physics3D.Bodies.RigidBody:
        mc is Physics3D.Interactions.MateConnector
    cyl is Physics3D.Interactions.Cylindrical:
        connectors: [base.a, slider.mc]
        initial_position: 0.25
    ball is Physics3D.Interactions.Ball:
        connectors: [base.b, knob.mc]
    rope is Physics3D.Interactions.Distance:
        connectors: [base.c, bob.mc]
        initial_distance: 0.5
"""


def test_cylindrical_ball_and_distance_mates(tmp_path) -> None:
    path = tmp_path / "mates.openplx"
    path.write_text(MATES)
    doc = openplx_format.read(path)
    model = doc.root
    joints = {j.name: j for j in model.joints}
    assert set(joints) == {"cyl__revolute", "cyl", "ball"}
    rev, pri = joints["cyl__revolute"], joints["cyl"]
    assert (rev.type, rev.parent_name, rev.child_name) == ("continuous", "base", "cyl__slider")
    assert (pri.type, pri.parent_name, pri.child_name) == ("prismatic", "cyl__slider", "slider")
    assert joints["ball"].type == "ball"
    slider_link = next(l for l in model.links if l.name == "cyl__slider")
    assert slider_link.extras["derived_from_mate"] == "cyl" and slider_link.inertial.mass > 0
    # Distance: no joint, a warning; the mate is a Mate node like the others.
    assert [(m.name, m.type) for m in model.mates] == \
        [("cyl", "cylindrical"), ("ball", "ball"), ("rope", "distance")]
    assert any("Distance mate 'Rig.rope'" in d.message for d in doc.diagnostics.warnings)
    poses = world_poses(doc)
    assert poses["Rig::slider"].p == pytest.approx((0, 0, 1.25))   # slid along main (z)
    assert poses["Rig::bob"].p == pytest.approx((0, 1, 1.5))
    # the intermediate link sits at the child connector (the origin of the slider body)
    assert poses["Rig::cyl__slider"].p == pytest.approx(poses["Rig::slider"].p)


def test_openplx_to_core_to_openplx_keeps_the_assembly() -> None:
    doc = openplx_format.read(EXAMPLES / "clock.openplx")
    text = model_to_source(doc.root)
    again = load_text(text)
    assert again.all_problems() == []
    before = world_poses(doc)
    after = openplx_format.read_model(again, again.diagnostics())[0]
    from snapframe.core.model import Document
    doc2 = Document(root=after)
    after_poses = world_poses(doc2)
    for name in ("Clock::face", "Clock::hour_hand"):
        assert after_poses[name].almost_equal(before[name], 1e-9), name
    assert [j.type for j in after.joints] == ["revolute"]
    assert {f.name for f in after.frames} >= {"face.center", "hour_hand.pivot"}


SDF = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="arm">
    <link name="base">
      <pose>0 0 0.5 0 0 0.3</pose>
      <inertial><mass>2</mass><inertia><ixx>0.1</ixx><iyy>0.2</iyy><izz>0.3</izz></inertia></inertial>
      <collision name="body"><geometry><box><size>0.2 0.2 1</size></box></geometry></collision>
    </link>
    <link name="upper">
      <pose relative_to="base">0.1 0 0.5 0 0.4 0</pose>
      <collision name="tube"><pose>0 0 0.2 0 0 0</pose>
        <geometry><cylinder><radius>0.05</radius><length>0.4</length></cylinder></geometry>
      </collision>
    </link>
    <link name="slide">
      <pose relative_to="upper">0 0 0.4 0 0 0</pose>
    </link>
    <link name="tool"><pose relative_to="slide">0 0.1 0 0 0 0</pose></link>
    <joint name="shoulder" type="revolute">
      <parent>base</parent><child>upper</child>
      <axis><xyz>0 1 0</xyz></axis>
    </joint>
    <joint name="extend" type="prismatic">
      <pose>0 0 -0.1 0 0 0</pose>
      <parent>upper</parent><child>slide</child>
      <axis><xyz expressed_in="__model__">1 0 0</xyz></axis>
    </joint>
    <joint name="weld" type="fixed"><parent>slide</parent><child>tool</child></joint>
    <frame name="tip" attached_to="tool"><pose>0 0 0.05 0 0 0</pose></frame>
  </model>
</sdf>
"""


def test_sdformat_model_to_openplx_reassembles_at_the_same_poses(tmp_path) -> None:
    doc = read_sdformat(tmp_path, "arm.sdf", SDF)
    text = model_to_source(doc.root)
    result = snap_text(tmp_path, "arm.openplx", text)
    assert result["errors"] == [], result["errors"]
    sdf_poses = world_poses(doc)
    for link in ("base", "upper", "slide", "tool"):
        got = result["frames"][f"arm.{link}"]["pose"]
        assert Pose.from_xyz_quat(got[:3], got[3:]).almost_equal(sdf_poses[f"arm::{link}"], 1e-9)
    tip = result["frames"]["arm.tool.tip"]["pose"]
    assert Pose.from_xyz_quat(tip[:3], tip[3:]).almost_equal(sdf_poses["arm::tip"], 1e-9)
    # Only the root link is declared; joints became mates of the right kind.
    source = load_text(text)
    arm = source.instantiate("arm")
    assert [type_of(arm, n) for n in ("shoulder", "extend", "weld")] == \
        ["Physics3D.Interactions.Hinge", "Physics3D.Interactions.Prismatic",
         "Physics3D.Interactions.Lock"]
    from snapframe.plugins.openplx.physics import collect
    asm = collect(source.evaluator, arm)
    assert [b.name for b in asm.bodies if b.declared is not None] == ["base"]
    base = next(b for b in asm.bodies if b.name == "base")
    assert base.mass == 2 and base.tensor[0] == pytest.approx(0.1)
    upper = next(b for b in asm.bodies if b.name == "upper")
    [tube] = upper.geometries
    assert tube.shape == "Cylinder" and tube.params == {"radius": 0.05, "height": 0.4}
    # The prismatic axis given in the model frame is the connector's main axis.
    extend = next(m for m in asm.mates if m.name == "extend")
    c = asm.connector(extend.connectors[1])
    X_M_slide = sdf_poses["arm::slide"]
    assert X_M_slide.rotate(c.X_OC.rotate((0, 0, 1))) == pytest.approx((1, 0, 0), abs=1e-12)


def type_of(obj, name: str) -> str:
    return obj.get(name).type.qname


def test_openplx_through_the_sdformat_writer(tmp_path) -> None:
    sdformat = pytest.importorskip("snapframe.plugins.sdformat.format")
    doc = openplx_format.read(EXAMPLES / "clock.openplx")
    sdformat.write(doc, tmp_path / "clock.sdf")
    back = sdformat.read(tmp_path / "clock.sdf")
    assert not back.diagnostics.has_errors(), [d.format() for d in back.diagnostics]
    model = back.root
    assert [l.name for l in model.links] == ["face", "hour_hand"]
    assert [f.name for f in model.frames] == ["face.center", "hour_hand.pivot"]
    assert [(j.name, j.type, j.parent_name, j.child_name) for j in model.joints] == \
        [("hand_hinge", "revolute", "face", "hour_hand")]
    before, after = world_poses(doc), world_poses(back)
    for name in before:
        assert after[name].almost_equal(before[name], 1e-9), name


def test_nodes_point_at_their_declarations() -> None:
    doc = openplx_format.read(EXAMPLES / "clock.openplx")
    face, hand = doc.root.links
    path = str(EXAMPLES / "clock.openplx")
    assert (face.source.file, face.source.line) == (path, 33)       # "face is ClockFace:"
    assert face.pose.source.line == 34                               # its local_transform
    assert hand.source.line == 35
    assert doc.root.frames[0].source.line == 17                       # "center is ..."
    assert doc.root.joints[0].source.line == 36


NESTED_SDF = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="robot">
    <link name="base"><pose>0 0 0.2 0 0 0</pose></link>
    <model name="arm">
      <pose>1 0 0 0 0 0.5</pose>
      <link name="upper"><pose>0 0 0.3 0 0 0</pose></link>
      <link name="lower"><pose>0 0 0.8 0 0 0</pose></link>
      <joint name="elbow" type="revolute">
        <parent>upper</parent><child>lower</child><axis><xyz>0 1 0</xyz></axis>
      </joint>
    </model>
  </model>
</sdf>
"""


def test_converted_nested_models_keep_the_top_model_last(tmp_path) -> None:
    # Tools assemble the *last* top-level System of a file: the nested models' systems
    # must come before the top model, or converting SDFormat -> OpenPLX assembles a part.
    doc = read_sdformat(tmp_path, "robot.sdf", NESTED_SDF)
    text = model_to_source(doc.root)
    source = load_text(text)
    assert source.default_model().name == "robot"
    result = snap_text(tmp_path, "robot.openplx", text)
    assert result["errors"] == []
    sdf_poses = world_poses(doc)
    for path, name in [("robot.base", "robot::base"), ("robot.arm.upper", "robot::arm::upper"),
                       ("robot.arm.lower", "robot::arm::lower")]:
        got = result["frames"][path]["pose"]
        assert Pose.from_xyz_quat(got[:3], got[3:]).almost_equal(sdf_poses[name], 1e-9), path


JOINTS_TO_FRAMES_AND_NESTED_LINKS = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="robot">
    <link name="base"><pose>0 0 0.2 0 0 0</pose></link>
    <model name="arm">
      <pose>1 0 0 0 0 0.5</pose>
      <link name="upper"><pose>0 0 0.3 0 0 0</pose></link>
    </model>
    <frame name="mount" attached_to="base"><pose>0.1 0 0.1 0 0 0</pose></frame>
    <link name="tool"><pose>1.2 0.1 0.9 0.3 0 0</pose></link>
    <link name="cap"><pose>0.2 0.1 0.7 0 0.2 0</pose></link>
    <joint name="wrist" type="revolute">
      <parent>arm::upper</parent><child>tool</child><axis><xyz>0 0 1</xyz></axis>
    </joint>
    <joint name="screw_on" type="fixed">
      <parent>mount</parent><child>cap</child>
    </joint>
  </model>
</sdf>
"""


def test_joints_to_frames_and_nested_links_become_mates(tmp_path) -> None:
    # A joint whose parent is a frame or a link of a nested model used to be dropped while
    # its child was still left for SNAP to place: the child fell back to the origin.
    doc = read_sdformat(tmp_path, "robot.sdf", JOINTS_TO_FRAMES_AND_NESTED_LINKS)
    text = model_to_source(doc.root)
    assert "arm.upper.wrist_parent is Physics3D.Interactions.MateConnector:" in text
    result = snap_text(tmp_path, "robot.openplx", text)
    assert result["errors"] == [] and result["warnings"] == []
    sdf_poses = world_poses(doc)
    for link in ("tool", "cap"):
        got = result["frames"][f"robot.{link}"]["pose"]
        assert Pose.from_xyz_quat(got[:3], got[3:]).almost_equal(sdf_poses[f"robot::{link}"],
                                                                 1e-9), link
    source = load_text(text)
    robot = source.instantiate("robot")
    assert [type_of(robot, n) for n in ("wrist", "screw_on")] == \
        ["Physics3D.Interactions.Hinge", "Physics3D.Interactions.Lock"]


WORLD_WITH_JOINT = """<?xml version="1.0"?>
<sdf version="1.10">
  <world name="lab">
    <model name="table">
      <pose>1 0 0 0 0 0</pose>
      <link name="top"><pose>0 0 0.8 0 0 0</pose></link>
    </model>
    <model name="robot">
      <pose>1 0 0.8 0 0 0.3</pose>
      <link name="base"/>
    </model>
    <joint name="bolt" type="fixed"><parent>table::top</parent><child>robot::base</child></joint>
  </world>
</sdf>
"""


def test_world_joints_are_kept_when_a_world_is_written_as_openplx(tmp_path) -> None:
    from snapframe.plugins.openplx.writer import document_text
    doc = read_sdformat(tmp_path, "lab.sdf", WORLD_WITH_JOINT)
    text = document_text(doc)
    assert "    bolt is Physics3D.Interactions.Lock:\n" in text
    result = snap_text(tmp_path, "lab.openplx", text)
    assert result["errors"] == [] and result["warnings"] == []
    got = result["frames"]["lab.robot.base"]["pose"]
    assert Pose.from_xyz_quat(got[:3], got[3:]).almost_equal(
        Pose.from_xyz_rpy(1, 0, 0.8, 0, 0, 0.3), 1e-9)


def test_system_connectors_stay_system_connectors_through_sdformat(tmp_path) -> None:
    # A connector owned by a system is fixed in it; written to SDFormat as a frame on the
    # model frame, it must come back as a system connector, not ride on the first link.
    sdformat = pytest.importorskip("snapframe.plugins.sdformat.format")
    src = tmp_path / "rig.openplx"
    src.write_text("Rig is Physics3D.System:\n"
                   "    anchor is Physics3D.Interactions.MateConnector:\n"
                   "        position.z: 1\n"
                   "    arm is Physics3D.Bodies.RigidBody:\n"
                   "        mc is Physics3D.Interactions.MateConnector\n"
                   "    j is Physics3D.Interactions.Hinge:\n"
                   "        connectors: [anchor, arm.mc]\n"
                   "        initial_angle: 0.5\n")
    doc = openplx_format.read(src)
    sdformat.write(doc, tmp_path / "rig.sdf")
    back = sdformat.read(tmp_path / "rig.sdf")
    text = model_to_source(back.root)
    f = load_text(text)
    from snapframe.plugins.openplx.snap_input import assemble
    _, asm, _ = assemble(f)
    assert asm.connector("Rig.anchor").owner == "Rig"
    assert asm.connector("Rig.anchor").X_OC.almost_equal(
        Pose.from_xyz_rpy(0, 0, 1, 0, 0, math.pi), 1e-9)


CLASHING_NAMES = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="cart">
    <link name="left-wheel"><pose>0 1 0 0 0 0</pose></link>
    <link name="left_wheel"><pose>0 2 0 0 0 0</pose>
      <inertial><mass>5</mass></inertial>
      <collision name="inertia"><geometry><sphere><radius>0.1</radius></sphere></geometry></collision>
    </link>
    <link name="local_transform"><pose>0 3 0 0 0 0</pose></link>
    <frame name="reference_body"><pose>1 0 0 0 0 0</pose></frame>
  </model>
</sdf>
"""


def test_names_that_clash_in_openplx_are_made_unique(tmp_path) -> None:
    # "left-wheel" and "left_wheel" are one OpenPLX identifier; "inertia", "local_transform"
    # and "reference_body" are inherited attributes a generated member must not replace.
    doc = read_sdformat(tmp_path, "cart.sdf", CLASHING_NAMES, clean=False)
    text = model_to_source(doc.root)
    source = load_text(text)
    from snapframe.plugins.openplx.snap_input import assemble
    _, asm, _ = assemble(source)
    assert source.all_problems() == []
    # The valid name is kept by its own link; the renamed one gets a fresh name.
    assert [(b.name, b.declared.p) for b in asm.bodies] == [
        ("left_wheel_2", (0, 1, 0)), ("left_wheel", (0, 2, 0)), ("local_transform_2", (0, 3, 0))]
    assert asm.bodies[1].mass == 5 and [g.name for g in asm.bodies[1].geometries] == ["inertia_2"]
    assert asm.root.declared is None and asm.root.reference_body is None
    assert [c.path for c in asm.connectors] == ["cart.reference_body_2"]
