"""Writing URDF: one tree of links from any composed document, with what URDF cannot hold
reported, and read back (by Snapframe and, where marked, by libsdformat) in place."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from lxml import etree

from snapframe.core.diagnostics import Code
from snapframe.core.formats import registry
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Document
from snapframe.core.pose import Pose
from snapframe.plugins.urdf.reader import read as read_urdf
from snapframe.plugins.urdf.writer import NotATree, write

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "resources" / "examples"
DATA = REPO / "tests" / "data" / "urdf"


def _load(path: Path) -> Document:
    doc = load(path, LoadContext(search_paths=[path.parent], use_environment=False))
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    return doc


def _sdf(tmp_path: Path, text: str, name: str = "m.sdf", **files: str) -> Document:
    for fname, body in files.items():
        (tmp_path / fname.replace("__", ".")).write_text(body)
    (tmp_path / name).write_text('<?xml version="1.0"?>\n<sdf version="1.9">' + text + "</sdf>\n")
    return _load(tmp_path / name)


def _save(doc: Document, path: Path) -> tuple[etree._Element, list[str]]:
    before = len(doc.diagnostics.items)
    write(doc, path)
    return etree.parse(str(path)).getroot(), [d.message for d in doc.diagnostics.items[before:]]


def _joint(robot: etree._Element, name: str) -> etree._Element:
    return next(j for j in robot.iter("joint") if j.get("name") == name)


def _link_poses(doc: Document) -> dict[str, Pose]:
    return {f.name: f.pose for f in doc.frames.frames() if f.kind == "link"}


def test_urdf_is_a_writable_format_and_saves_through_the_document(tmp_path):
    assert registry.for_path("robots.urdf", capability="write").name == "urdf"
    doc = _load(EXAMPLES / "arm_gripper" / "arm_and_gripper.sdf")
    warnings = doc.save(tmp_path / "robots.urdf")
    assert (tmp_path / "robots.urdf").is_file()
    assert all(w.code == Code.CONVERSION_ERROR for w in warnings)


def test_a_composed_assembly_is_written_flat_and_read_back_in_place(tmp_path):
    doc = _load(EXAMPLES / "arm_gripper" / "arm_and_gripper.sdf")
    robot, warnings = _save(doc, tmp_path / "ag.urdf")
    assert warnings == []
    links = [el.get("name") for el in robot.iter("link")]
    # Scoped names become URDF names; frames become massless links.
    assert links == ["arm_body", "arm_upper_arm", "arm_forearm", "gripper_body",
                     "gripper_left_finger", "gripper_right_finger", "arm_gripper_mount",
                     "gripper_mount_point"]
    weld = _joint(robot, "weld")
    assert (weld.get("type"), weld.find("parent").get("link"), weld.find("child").get("link")) \
        == ("fixed", "arm_forearm", "gripper_body")
    # libsdformat would merge the links a fixed joint joins: the extension keeps them.
    assert robot.find("gazebo[@reference='weld']/preserveFixedJoint").text == "true"
    shoulder = _joint(robot, "arm_shoulder")
    assert shoulder.find("axis").get("xyz") == "0 1 0"
    assert shoulder.find("limit").attrib == {"lower": "-1.5707963267948966",
                                             "upper": "1.5707963267948966",
                                             "effort": "-1", "velocity": "-1"}
    back = read_urdf(tmp_path / "ag.urdf")
    assert not back.diagnostics.has_errors()
    want = _link_poses(doc)
    got = _link_poses(back)
    for name, X in want.items():
        urdf_name = name.split("::", 1)[1].replace("::", "_")
        assert got[f"arm_and_gripper::{urdf_name}"].almost_equal(X, 1e-12), name
    assert got["arm_and_gripper::gripper_mount_point"].almost_equal(
        doc.frames.pose("arm_and_gripper::gripper::mount_point"), 1e-12)


def test_inertials_geometry_and_colours_are_written_as_urdf_has_them(tmp_path):
    doc = _sdf(tmp_path, """<model name="m"><link name="a">
      <inertial><pose>0.1 0 0 0 0.5 0</pose><mass>2</mass>
        <inertia><ixx>1</ixx><ixy>0.1</ixy><ixz>0</ixz><iyy>2</iyy><iyz>0</iyz><izz>2.5</izz>
        </inertia></inertial>
      <visual name="v"><pose>0 0 1 0 0 0</pose><geometry><box><size>1 2 3</size></box></geometry>
        <material><diffuse>1 0 0 1</diffuse></material></visual>
      <collision name="c"><geometry><cylinder><radius>0.5</radius><length>2</length></cylinder>
        </geometry></collision>
      <collision name="cap"><geometry><capsule><radius>0.1</radius><length>1</length></capsule>
        </geometry></collision>
    </link><link name="b"><pose>0 0 2 0 0 0</pose></link>
    <joint name="j" type="ball"><parent>a</parent><child>b</child></joint></model>""")
    robot, warnings = _save(doc, tmp_path / "m.urdf")
    a = robot.find("link[@name='a']")
    inertial = a.find("inertial")
    assert inertial.find("origin").get("xyz") == "0.1 0 0"
    assert inertial.find("origin").get("rpy").split()[1] == "0.5"
    assert inertial.find("mass").get("value") == "2"
    assert inertial.find("inertia").attrib == {"ixx": "1", "ixy": "0.1", "ixz": "0", "iyy": "2",
                                               "iyz": "0", "izz": "2.5"}
    assert a.find("visual/geometry/box").get("size") == "1 2 3"
    assert a.find("visual/material/color").get("rgba") == "1 0 0 1"
    assert a.find("collision/geometry/cylinder").attrib == {"radius": "0.5", "length": "2"}
    # SDFormat's default inertial for a link that has none: mass 1, unit inertia.
    b = robot.find("link[@name='b']/inertial")
    assert b.find("mass").get("value") == "1" and b.find("inertia").get("ixx") == "1"
    assert _joint(robot, "j").get("type") == "fixed"
    assert sorted(warnings) == [
        "collision 'cap' of link 'a' is a capsule, which URDF does not have; left out",
        "joint 'j' of type 'ball' has no URDF counterpart; written as fixed"]


def test_a_kinematic_loop_is_an_error_naming_the_joint_and_nothing_is_written(tmp_path):
    doc = _sdf(tmp_path, """<model name="loop"><link name="a"/><link name="b"/><link name="c"/>
      <joint name="ab" type="revolute"><parent>a</parent><child>b</child></joint>
      <joint name="bc" type="revolute"><parent>b</parent><child>c</child></joint>
      <joint name="ca" type="fixed"><parent>c</parent><child>a</child></joint></model>""")
    out = tmp_path / "loop.urdf"
    with pytest.raises(NotATree, match="joint 'ca' closes a kinematic loop"):
        write(doc, out)
    assert not out.exists()
    [error] = doc.diagnostics.errors
    assert error.code == Code.CONVERSION_ERROR and "(joints ab, bc, ca)" in error.message


def test_a_loop_through_the_world_is_an_error_naming_the_joint(tmp_path):
    # Two links each fixed in the world and joined to each other: no choice of joint
    # directions makes a tree (the world is the root), so nothing is written.
    doc = _sdf(tmp_path, """<model name="m"><link name="a"/><link name="c"/>
      <joint name="wa" type="fixed"><parent>world</parent><child>a</child></joint>
      <joint name="wc" type="fixed"><parent>world</parent><child>c</child></joint>
      <joint name="ac" type="revolute"><parent>a</parent><child>c</child></joint></model>""")
    (tmp_path / "m.urdf").write_text("old")
    with pytest.raises(NotATree, match=r"joint 'ac' closes a kinematic loop \(joints wa, wc, ac\)"):
        write(doc, tmp_path / "m.urdf")
    assert (tmp_path / "m.urdf").read_text() == "old"


def test_joints_to_frames_and_nested_models_are_written_through_their_links(tmp_path):
    doc = _sdf(tmp_path, """<model name="m"><link name="base"/>
      <frame name="mount" attached_to="base"><pose>0 0 1 0 0 0.5</pose></frame>
      <model name="tool"><pose relative_to="mount">0 0 0.2 0 0 0</pose>
        <link name="grip"><pose>0.1 0 0 0 0 0</pose></link>
        <frame name="flange" attached_to="grip"><pose>0 0 -0.1 0 0 0</pose></frame></model>
      <joint name="spin" type="continuous"><pose relative_to="mount"/>
        <parent>mount</parent><child>tool::flange</child><axis><xyz>0 0 1</xyz></axis>
      </joint></model>""")
    robot, warnings = _save(doc, tmp_path / "m.urdf")
    spin = _joint(robot, "spin")
    assert (spin.find("parent").get("link"), spin.find("child").get("link")) == \
        ("base", "tool_grip")
    # The axis (z of "mount", through its origin) passes 0.1 m from tool::grip's origin.
    assert warnings == ["joint 'spin': its axis passes 0.1 m from the child link's origin; URDF "
                        "puts every joint axis through the child link's origin, so it moves "
                        "there"]
    back = _link_poses(read_urdf(tmp_path / "m.urdf"))
    assert back["m::tool_grip"].almost_equal(doc.frames.pose("m::tool::grip"), 1e-12)
    assert back["m::tool_flange"].almost_equal(doc.frames.pose("m::tool::flange"), 1e-12)


def test_static_models_hang_from_a_world_link_and_free_trees_float(tmp_path):
    doc = _sdf(tmp_path, """<world name="w">
      <model name="ground"><static>true</static><pose>0 0 -1 0 0 0</pose><link name="slab"/>
      </model>
      <model name="box"><pose>1 2 3 0 0 0.4</pose><link name="body"/></model>
      <frame name="spot"><pose>5 0 0 0 0 0</pose></frame></world>""", name="w.sdf")
    robot, warnings = _save(doc, tmp_path / "w.urdf")
    assert [el.get("name") for el in robot.iter("link")][0] == "world"
    slab = _joint(robot, "ground_slab_fixed")
    assert slab.get("type") == "fixed" and slab.find("origin").get("xyz") == "0 0 -1"
    assert _joint(robot, "box_body_floating").get("type") == "floating"
    assert _joint(robot, "spot_joint").find("parent").get("link") == "world"
    assert warnings == ["link box::body is not connected to the root 'world' by joints; URDF "
                        "holds one tree, so it hangs from it on floating joints (which "
                        "libsdformat 12 cannot load)"]
    back = _link_poses(read_urdf(tmp_path / "w.urdf"))
    assert back["w::box_body"].almost_equal(doc.frames.pose("box::body"), 1e-12)


def test_frames_fixed_in_the_world_without_a_world_link_are_dropped_and_said(tmp_path):
    doc = _sdf(tmp_path, """<world name="w"><model name="box"><link name="body"/></model>
      <frame name="spot"><pose>5 0 0 0 0 0</pose></frame></world>""", name="w.sdf")
    robot, warnings = _save(doc, tmp_path / "w.urdf")
    assert [el.get("name") for el in robot.iter("link")] == ["box_body"]
    assert warnings == ["frame spot is fixed in the world (or on a link left out), which this "
                        "URDF has no link for; dropped"]


def test_the_root_links_offset_from_the_model_frame_is_reported(tmp_path):
    doc = _sdf(tmp_path, '<model name="m"><link name="a"><pose>1 0 0 0 0 0</pose></link></model>')
    _, warnings = _save(doc, tmp_path / "m.urdf")
    assert warnings == ["URDF has no model frame: link poses are written relative to the root "
                        "link 'a', which model 'm' places at (1, 0, 0, ...)"]


def test_mesh_uris_stay_package_uris_or_become_paths_relative_to_the_file(tmp_path):
    (tmp_path / "parts" / "meshes").mkdir(parents=True)
    (tmp_path / "parts" / "meshes" / "arm.stl").write_text("solid a\nendsolid a\n")
    (tmp_path / "parts" / "arm.sdf").write_text("""<sdf version="1.9"><model name="arm">
      <link name="l">
        <visual name="v"><geometry><mesh><uri>meshes/arm.stl</uri><scale>2 2 2</scale></mesh>
        </geometry></visual>
        <visual name="p"><geometry><mesh><uri>package://arm_description/meshes/a.dae</uri></mesh>
        </geometry></visual></link></model></sdf>""")
    doc = _sdf(tmp_path, '<model name="cell"><include><uri>parts/arm.sdf</uri></include></model>')
    robot, _ = _save(doc, tmp_path / "out" / "cell.urdf")
    meshes = [m.attrib for m in robot.iter("mesh")]
    assert meshes == [{"filename": "../parts/meshes/arm.stl", "scale": "2 2 2"},
                      {"filename": "package://arm_description/meshes/a.dae"}]


def test_a_urdf_written_back_keeps_what_the_reader_set_aside(tmp_path):
    for name in ("arm.urdf", "floating_and_planar.urdf", "world_root.urdf"):
        doc = read_urdf(DATA / name)
        robot, warnings = _save(doc, tmp_path / name)
        original = etree.parse(str(DATA / name)).getroot()
        assert sorted(el.get("name") for el in robot.iter("link")) == \
            sorted(el.get("name") for el in original.iter("link")), name
        types = {j.get("name"): j.get("type") for j in original.iter("joint")}
        assert {j.get("name"): j.get("type") for j in robot.iter("joint")} == types, name
        back = read_urdf(tmp_path / name)
        before, after = _link_poses(doc), _link_poses(back)
        assert before.keys() == after.keys()
        assert all(after[k].almost_equal(before[k], 1e-12) for k in before), name
    arm = etree.parse(str(tmp_path / "arm.urdf")).getroot()
    # Materials by name and links without <inertial> (massless in URDF) come back as written.
    assert arm.find("link[@name='base_link']/visual/material").get("name") == "orange"
    assert arm.find("link[@name='forearm']/inertial") is None


@pytest.mark.oracle
def test_libsdformat_reads_the_written_urdf_with_every_link_in_place(tmp_path):
    from tests.plugins.composite_assemblies import oracle_binary, oracle_poses, run_oracle
    oracle, why = oracle_binary()
    if oracle is None:
        pytest.skip(why)
    doc = _load(EXAMPLES / "arm_gripper" / "arm_and_gripper.sdf")
    write(doc, tmp_path / "ag.urdf")
    result = run_oracle(oracle, tmp_path / "ag.urdf")
    assert result["errors"] == []
    got = oracle_poses(result)
    for name, X in _link_poses(doc).items():
        urdf = "arm_and_gripper::" + name.split("::", 1)[1].replace("::", "_")
        assert got[urdf].almost_equal(X, 1e-9), name
    assert math.isclose(got["arm_and_gripper::gripper_body"].p[2], 1.02)
