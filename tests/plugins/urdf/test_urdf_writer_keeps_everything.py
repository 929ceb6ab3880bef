"""The URDF writer drops nothing silently: SDFormat content URDF elements cannot hold goes
into <gazebo> extensions the way libsdformat's URDF parser reads them (and Snapframe's URDF
reader reads them back), the rest is reported naming the element; a tree whose joints point
the wrong way for URDF is re-rooted; ``convert`` shows what reading already left out."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Document
from snapframe.core.pose import Pose
from snapframe.plugins.urdf.writer import write
from tests.plugins.composite_assemblies import oracle_binary, run_oracle

REAL = Path(__file__).resolve().parents[2] / "data" / "sdformat_real"
DATA = Path(__file__).resolve().parents[2] / "data" / "urdf"

RICH = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="rich">
    <self_collide>true</self_collide>
    <plugin filename="libfoo.so" name="foo"><param>1</param></plugin>
    <link name="base">
      <gravity>false</gravity>
      <kinematic>true</kinematic>
      <inertial><mass>2</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial>
      <visual name="v">
        <geometry><box><size>1 1 1</size></box></geometry>
        <material><ambient>1 0 0 1</ambient><diffuse>0 1 0 1</diffuse></material>
        <transparency>0.5</transparency>
      </visual>
      <collision name="c">
        <geometry><box><size>1 1 1</size></box></geometry>
        <surface><friction><ode><mu>0.3</mu></ode></friction></surface>
      </collision>
      <sensor name="cam" type="camera"><camera><horizontal_fov>1</horizontal_fov><image><width>10</width><height>10</height></image><clip><near>0.1</near><far>10</far></clip></camera></sensor>
      <light name="lamp" type="point"><diffuse>1 1 1 1</diffuse></light>
    </link>
    <link name="arm">
      <pose>0 0 1 0 0 0</pose>
    </link>
    <joint name="j" type="revolute">
      <parent>base</parent><child>arm</child>
      <axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper><effort>5</effort><velocity>2</velocity></limit>
        <dynamics><damping>0.1</damping><friction>0.2</friction><spring_stiffness>3</spring_stiffness><spring_reference>0.4</spring_reference></dynamics></axis>
      <physics><ode><cfm>0.1</cfm></ode></physics>
      <sensor name="ft" type="force_torque"/>
    </joint>
  </model>
</sdf>
"""


def _load(path: Path) -> Document:
    doc = load(path, LoadContext(search_paths=[path.parent], use_environment=False))
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics.errors]
    return doc


def _save(doc: Document, path: Path) -> tuple[etree._Element, list[str]]:
    before = len(doc.diagnostics.items)
    write(doc, path)
    return etree.parse(str(path)).getroot(), [d.message for d in doc.diagnostics.items[before:]]


def _gazebo(robot: etree._Element, reference: str | None) -> etree._Element:
    [gz] = [g for g in robot.iter("gazebo") if g.get("reference") == reference]
    return gz


def _text(el: etree._Element, path: str) -> str:
    return " ".join(el.find(path).text.split())


# -- bug 5b: the URDF writer keeps what URDF's <gazebo> extensions hold ---------------------
def test_sdformat_content_urdf_lacks_is_kept_in_gazebo_extensions(tmp_path):
    (tmp_path / "rich.sdf").write_text(RICH)
    robot, warnings = _save(_load(tmp_path / "rich.sdf"), tmp_path / "rich.urdf")
    assert warnings == []   # everything is kept
    model = _gazebo(robot, None)
    assert _text(model, "self_collide") == "true"
    assert model.find("plugin").get("name") == "foo" and _text(model, "plugin/param") == "1"
    base = _gazebo(robot, "base")
    assert _text(base, "gravity") == "false" and _text(base, "kinematic") == "true"
    assert base.find("sensor").get("type") == "camera" and base.find("light").get("name") == "lamp"
    assert _text(base, "visual[@name='v']/transparency") == "0.5"
    assert _text(base, "visual[@name='v']/material/ambient") == "1 0 0 1"
    assert _text(base, "collision[@name='c']/surface/friction/ode/mu") == "0.3"
    j = _gazebo(robot, "j")
    # libsdformat's joint extension names for the axis spring (parser_urdf.cc).
    assert (_text(j, "springStiffness"), _text(j, "springReference")) == ("3", "0.4")
    assert _text(j, "physics/ode/cfm") == "0.1" and j.find("sensor").get("name") == "ft"


def test_gazebo_extensions_written_for_urdf_come_back_as_the_sdformat_they_were(tmp_path):
    (tmp_path / "rich.sdf").write_text(RICH)
    write(_load(tmp_path / "rich.sdf"), tmp_path / "rich.urdf")
    back = _load(tmp_path / "rich.urdf")
    assert back.save(tmp_path / "back.sdf", flatten=False) == []
    model = etree.parse(str(tmp_path / "back.sdf")).getroot().find("model")
    original = etree.fromstring(RICH.encode()).find("model")
    for path in ("self_collide", "plugin/param", "link[@name='base']/gravity",
                 "link[@name='base']/kinematic", "link[@name='base']/light/diffuse",
                 "link[@name='base']/sensor/camera/image/width",
                 "link[@name='base']/visual/transparency",
                 "link[@name='base']/visual/material/ambient",
                 "link[@name='base']/visual/material/diffuse",
                 "link[@name='base']/collision/surface/friction/ode/mu",
                 "joint/axis/dynamics/spring_stiffness", "joint/axis/dynamics/spring_reference",
                 "joint/axis/dynamics/damping", "joint/axis/dynamics/friction",
                 "joint/physics/ode/cfm"):
        assert _text(model, path) == _text(original, path), path
    assert model.find("joint/sensor").get("name") == "ft"


def test_libsdformat_reads_the_extensions_written(tmp_path):
    binary, why = oracle_binary()
    if binary is None:
        pytest.skip(why)
    (tmp_path / "rich.sdf").write_text(RICH)
    write(_load(tmp_path / "rich.sdf"), tmp_path / "rich.urdf")
    result = run_oracle(binary, tmp_path / "rich.urdf")
    assert result["errors"] == [] and "rich::base" in result["frames"]


def test_what_no_extension_holds_is_reported_naming_the_element(tmp_path):
    (tmp_path / "m.sdf").write_text("""<?xml version="1.0"?><sdf version="1.9">
      <model name="m"><link name="a"><inertial><mass>1</mass>
        <fluid_added_mass><xx>1</xx></fluid_added_mass></inertial></link><link name="b"/>
      <joint name="j" type="revolute"><parent>a</parent><child>b</child>
        <axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper><stiffness>9</stiffness>
        </limit></axis></joint></model></sdf>""")
    _, warnings = _save(_load(tmp_path / "m.sdf"), tmp_path / "m.urdf")
    assert "link 'a': <fluid_added_mass> of its <inertial> have no URDF counterpart; " \
           "left out" in warnings
    assert "joint 'j': <axis/limit/stiffness> has no URDF counterpart; left out" in warnings


def test_a_world_written_as_urdf_reports_its_own_content_and_other_worlds(tmp_path):
    doc = _load(REAL / "gz-sim" / "examples" / "worlds" / "shapes_bitmask.sdf")
    _, warnings = _save(doc, tmp_path / "w.urdf")
    assert "world 'shapes_bitmask': <physics>, <plugin>, <scene>, <light> have no URDF " \
           "counterpart; left out" in warnings
    _, warnings = _save(_load(REAL / "handmade" / "two_worlds.sdf"), tmp_path / "two.urdf")
    assert any("other world 'second' cannot be written" in w for w in warnings)


# -- re-rooting: a tree of links whatever the direction of its joints ----------------------
ROBOT = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="robot">
    <link name="r0"/>
    <link name="r1"><pose>0 0 1 0 0 0</pose></link>
    <link name="r2"><pose>0 0 2 0 0 0.3</pose></link>
    <joint name="j01" type="revolute"><parent>r0</parent><child>r1</child>
      <axis><xyz>0 1 0</xyz><limit><lower>-0.5</lower><upper>1.5</upper></limit></axis></joint>
    <joint name="j12" type="prismatic"><parent>r1</parent><child>r2</child>
      <axis><xyz>1 0 0</xyz><limit><lower>0</lower><upper>0.2</upper></limit></axis></joint>
  </model>
</sdf>
"""


def _weld_top(tmp_path: Path, parent: str) -> Path:
    (tmp_path / "robot.sdf").write_text(ROBOT)
    top = tmp_path / "top.sdf"
    top.write_text(f"""<?xml version="1.0"?>
<sdf version="1.9">
  <model name="top">
    <link name="base"/>
    <include><uri>robot.sdf</uri><pose>1 2 0 0 0 0.5</pose></include>
    <joint name="weld" type="fixed"><parent>{parent}</parent><child>robot::r1</child></joint>
  </model>
</sdf>
""")
    return top


def test_a_weld_onto_an_included_models_second_link_is_written_reversed(tmp_path):
    # robot::r1 has two parent joints (robot::j01 and the weld); the fixed weld turns round.
    doc = _load(_weld_top(tmp_path, "base"))
    robot, warnings = _save(doc, tmp_path / "top.urdf")
    weld = next(j for j in robot.iter("joint") if j.get("name") == "weld")
    assert (weld.find("parent").get("link"), weld.find("child").get("link")) == \
        ("robot_r1", "base")
    assert any("joint 'weld' is written from 'robot::r1' to 'base'" in w for w in warnings)
    # Every link where Snapframe and libsdformat put it in the original (relative to the
    # URDF's root link, robot::r0).
    expected = {f.name: f.pose for f in doc.frames.frames() if f.kind == "link"}
    X_r0 = expected["top::robot::r0"]
    back = _load(tmp_path / "top.urdf")
    got = {f.name: f.pose for f in back.frames.frames() if f.kind == "link"}
    for name, X in expected.items():
        urdf = "top::" + name[len("top::"):].replace("::", "_")
        assert got[urdf].almost_equal(X_r0.inverse() @ X, 1e-9), name
    binary, _ = oracle_binary()
    if binary is not None:
        theirs = run_oracle(binary, tmp_path / "top.urdf")
        assert theirs["errors"] == []
        for name, f in theirs["frames"].items():
            if f["kind"] == "link":
                X = Pose.from_xyz_quat(f["pose"][:3], f["pose"][3:])
                assert got[name].almost_equal(X, 1e-6), name


def _urdf_motion(robot: etree._Element, name: str, q: float) -> tuple[str, str, Pose]:
    """(parent, child, X_parent_child(q)) of a URDF revolute joint: origin, then a turn
    by q about the axis in the child (= joint) frame."""
    j = next(j for j in robot.iter("joint") if j.get("name") == name)
    o = j.find("origin")
    xyz = [float(v) for v in (o.get("xyz", "0 0 0") if o is not None else "0 0 0").split()]
    rpy = [float(v) for v in (o.get("rpy", "0 0 0") if o is not None else "0 0 0").split()]
    ax = [float(v) for v in j.find("axis").get("xyz").split()]
    s, c = math.sin(q / 2), math.cos(q / 2)
    turn = Pose.from_xyz_quat((0, 0, 0), (c, ax[0] * s, ax[1] * s, ax[2] * s))
    return (j.find("parent").get("link"), j.find("child").get("link"),
            Pose.from_xyz_rpy(*xyz, *rpy) @ turn)


def test_a_reversed_revolute_joint_keeps_its_motion_and_limits(tmp_path):
    # Welded to the world at robot::r1: r1 is the root, so robot::j01 turns round.
    doc = _load(_weld_top(tmp_path, "world"))
    robot, warnings = _save(doc, tmp_path / "top.urdf")
    parent, child, _ = _urdf_motion(robot, "robot_j01", 0.0)
    assert (parent, child) == ("robot_r1", "robot_r0")
    j01 = next(j for j in robot.iter("joint") if j.get("name") == "robot_j01")
    assert (j01.find("limit").get("lower"), j01.find("limit").get("upper")) == ("-0.5", "1.5")
    # Hand derivation: SDFormat's j01 frame is r1's (pose relative to the child), axis y,
    # so X_r0_r1(q) = T(0, 0, 1) R_y(q) and X_r1_r0(q) = R_y(-q) T(0, 0, -1): r0 turns by
    # -q about y.  URDF turns the child about the axis through its own origin, so the
    # orientation is kept and the axis moves from r1's origin to r0's, 1 m away (reported).
    assert any("robot::j01': its axis passes 1 m" in w for w in warnings)
    for q in (0.0, 0.7, -0.4):
        _, _, X = _urdf_motion(robot, "robot_j01", q)
        expected = (math.cos(-q / 2), 0.0, math.sin(-q / 2), 0.0)
        got = X.quat()
        assert max(abs(a - b) for a, b in zip(got, expected)) < 1e-9 or \
            max(abs(a + b) for a, b in zip(got, expected)) < 1e-9, q


# -- bug 5d: convert shows what reading left out -------------------------------------------
def test_convert_prints_the_readers_warnings_once(tmp_path):
    src = DATA / "floating_and_planar.urdf"
    done = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "convert", str(src),
                           str(tmp_path / "out.sdf")], capture_output=True, text=True)
    assert done.returncode == 0
    lines = done.stderr.splitlines()
    for joint, kind in (("fly", "floating"), ("slide", "planar")):
        said = [line for line in lines if f"Joint [{joint}] is of type [{kind}]" in line]
        assert len(said) == 1, lines
