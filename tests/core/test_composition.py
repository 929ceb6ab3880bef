"""Composition features, with expected poses derived by hand in the comments."""

import math

import pytest

from snapframe.core.pose import Pose
from tests.conftest import codes

S45 = math.sqrt(0.5)


def poses(doc):
    return {f.name: f.pose for f in doc.frames.frames()}


def close(X: Pose, x, y, z, r=0.0, p=0.0, w=0.0, tol=1e-9) -> bool:
    return X.almost_equal(Pose.from_xyz_rpy(x, y, z, r, p, w), tol)


VEHICLE = """
<sdf version="1.9">
  <model name="vehicle">
    <link name="chassis"><pose>1 0 0 0 0 0</pose></link>
    <link name="top"><pose relative_to="chassis">0 0 1 0 0 0</pose></link>
    <frame name="sensor"><pose>0 1 0 0 0 0</pose></frame>
    <joint name="j" type="fixed"><parent>__model__</parent><child>top</child></joint>
  </model>
</sdf>"""


def test_merge_include_puts_children_in_the_including_scope(load_text):
    doc = load_text("""
        <sdf version="1.9"><model name="robot1">
          <include merge="true"><uri>vehicle.sdf</uri>
            <pose>100 0 0 0.7853981633974483 0 0</pose></include>
          <frame name="on_top" attached_to="top"/>
        </model></sdf>""", files={"vehicle.sdf": VEHICLE})
    assert codes(doc) == []
    P = poses(doc)
    # Proxy = include pose; chassis = proxy @ (1,0,0); top = chassis @ (0,0,1) and the roll of
    # pi/4 turns z into (0, -sin45, cos45); sensor = proxy @ (0,1,0) -> (0, cos45, sin45).
    assert close(P["robot1::_merged__vehicle__model__"], 100, 0, 0, math.pi / 4)
    assert close(P["robot1::chassis"], 101, 0, 0, math.pi / 4)
    assert close(P["robot1::top"], 101, -S45, S45, math.pi / 4)
    assert close(P["robot1::sensor"], 100, S45, S45, math.pi / 4)
    assert "robot1::vehicle" not in P and close(P["robot1::on_top"], 101, -S45, S45, math.pi / 4)


def test_merge_include_with_placement_frame(load_text):
    doc = load_text("""
        <sdf version="1.9"><model name="robot2">
          <include merge="true"><uri>vehicle.sdf</uri>
            <placement_frame>top</placement_frame><pose>0 0 2 0 0 0</pose></include>
        </model></sdf>""", files={"vehicle.sdf": VEHICLE})
    assert codes(doc) == []
    # top is at (1,0,1) in the vehicle frame, so the proxy goes to (0,0,2) - (1,0,1).
    P = poses(doc)
    assert close(P["robot2::top"], 0, 0, 2)
    assert close(P["robot2::_merged__vehicle__model__"], -1, 0, 1)


FRAMES_ONLY = """<sdf version="1.8"><model name="marks">
  <frame name="a"><pose>1 0 0 0 0 0</pose></frame></model></sdf>"""


@pytest.mark.parametrize("static,expected", [("true", []), ("false", ["MODEL_WITHOUT_LINK"])])
def test_include_static_override(load_text, static, expected):
    doc = load_text(f"""<sdf version="1.8"><model name="top"><link name="l"/>
          <include><uri>marks.sdf</uri><static>{static}</static></include></model></sdf>""",
                    files={"marks.sdf": FRAMES_ONLY})
    assert codes(doc) == expected


def test_joint_child_in_a_static_model_resolves_to_world(load_text):
    doc = load_text("""<sdf version="1.8"><model name="top"><link name="l"/>
          <include><uri>marks.sdf</uri><static>true</static></include>
          <joint name="j" type="fixed"><parent>l</parent><child>marks::a</child></joint>
          </model></sdf>""", files={"marks.sdf": FRAMES_ONLY})
    assert codes(doc) == ["JOINT_CHILD_LINK_INVALID"]
    assert "resolves to world" in doc.diagnostics.errors[0].message


def test_world_joints_between_nested_frames(load_text):
    doc = load_text("""
        <sdf version="1.10"><world name="w">
          <model name="parent_model"><link name="L"/></model>
          <model name="child_model"><pose>0 1 10 0 0 0</pose><link name="L"/>
            <frame name="F"><pose>0 0 1 0 0 0</pose></frame></model>
          <joint name="J1" type="revolute"><pose>1 0 0 0 0 0</pose>
            <parent>parent_model::L</parent><child>child_model::L</child></joint>
          <joint name="J2" type="fixed"><parent>world</parent><child>child_model::F</child></joint>
        </world></sdf>""")
    assert codes(doc) == []
    P = poses(doc)
    assert close(P["J1"], 1, 1, 10)    # default relative_to: the child frame child_model::L
    assert close(P["J2"], 0, 1, 11)    # child_model::F = (0,1,10) @ (0,0,1)
    assert doc.frames.pose("J1", relative_to="parent_model::L").p == (1.0, 1.0, 10.0)


def test_world_joint_parent_and_child_resolving_to_one_link(load_text):
    doc = load_text("""
        <sdf version="1.10"><world name="w">
          <model name="child_model"><link name="L"/><frame name="F"/></model>
          <joint name="J" type="fixed"><parent>child_model</parent><child>child_model::F</child></joint>
        </world></sdf>""")
    assert codes(doc) == ["JOINT_PARENT_SAME_AS_CHILD"]
    assert "both resolve to [child_model::L]" in doc.diagnostics.errors[0].message


def test_model_frame_as_joint_parent(load_text):
    doc = load_text("""<sdf version="1.9"><model name="M"><link name="base_link"/>
          <link name="l2"><pose>0 0 1 0 0 0</pose></link>
          <joint name="j" type="revolute"><pose relative_to="__model__">1 0 0 0 0 0</pose>
            <parent>__model__</parent><child>l2</child></joint></model></sdf>""")
    assert codes(doc) == []
    assert close(poses(doc)["M::j"], 1, 0, 0)


@pytest.mark.parametrize("pose", ['<pose degrees="true">0 10 0 90 0 0</pose>',
                                  '<pose rotation_format="quat_xyzw">0 10 0 0.7071067811865476 0 0 '
                                  '0.7071067811865476</pose>'])
def test_include_pose_formats(load_text, pose):
    doc = load_text(f"""<sdf version="1.9"><world name="w">
          <include><uri>marks.sdf</uri>{pose}</include></world></sdf>""",
                    files={"marks.sdf": FRAMES_ONLY.replace('name="marks">',
                                                            'name="marks"><static>true</static>')})
    assert codes(doc) == []
    assert close(poses(doc)["marks"], 0, 10, 0, math.pi / 2)


def test_uri_schemes_and_search_path_environment(load_text, tmp_path, monkeypatch):
    lib = tmp_path / "lib"
    (lib / "boxy").mkdir(parents=True)
    (lib / "boxy" / "model.config").write_text(
        "<model><sdf version='1.8'>boxy.sdf</sdf></model>")
    (lib / "boxy" / "boxy.sdf").write_text(
        "<sdf version='1.8'><model name='boxy'><link name='l'/></model></sdf>")
    (lib / "pkg" / "urdfish").mkdir(parents=True)
    (lib / "pkg" / "urdfish" / "m.sdf").write_text(
        "<sdf version='1.8'><model name='pm'><link name='l'/></model></sdf>")
    world = """<sdf version="1.8"><world name="w">
      <include><uri>model://boxy</uri></include>
      <include><uri>package://pkg/urdfish/m.sdf</uri></include></world></sdf>"""
    monkeypatch.setenv("SDF_PATH", str(lib))
    from snapframe.core.loading import LoadContext, load
    (tmp_path / "w.sdf").write_text(world)
    doc = load(tmp_path / "w.sdf", LoadContext())
    assert codes(doc) == [] and {"boxy::l", "pm::l"} <= set(poses(doc))
    # Without the environment the same file cannot find them.
    doc = load(tmp_path / "w.sdf", LoadContext(use_environment=False))
    assert codes(doc) == ["URI_LOOKUP", "URI_LOOKUP"]


@pytest.mark.parametrize("version,errors", [("1.6", []), ("1.7", ["DUPLICATE_NAME"])])
def test_pre_1_7_name_collisions_are_renamed(load_text, version, errors):
    doc = load_text(f"""<sdf version="{version}"><world name="w">
          <model name="ground"><pose>1 0 0 0 0 0</pose><link name="l"/></model>
          <frame name="ground"><pose>0 2 0 0 0 0</pose></frame></world></sdf>""")
    assert codes(doc) == errors
    if not errors:
        assert close(poses(doc)["ground_frame"], 0, 2, 0)
        assert doc.diagnostics.warnings[0].code == "DUPLICATE_NAME"


def test_nested_canonical_link_and_interface_names(load_text):
    doc = load_text("""<sdf version="1.8"><model name="top" canonical_link="mid::inner">
          <model name="mid"><pose>0 0 1 0 0 0</pose><link name="inner"/></model>
          <frame name="f" attached_to="__model__"/></model></sdf>""")
    assert codes(doc) == []
    scope = doc.frames.root
    assert scope.body_of("f") == "mid::inner"


def test_explain_lists_each_transform(load_text):
    doc = load_text("""<sdf version="1.8"><model name="m"><link name="l"/>
          <frame name="a" attached_to="l"><pose>1 0 0 0 0 0</pose></frame>
          <frame name="b"><pose relative_to="a">0 1 0 0 0 0</pose></frame></model></sdf>""")
    lines = doc.frames.explain("m::b")
    assert len(lines) == 3 and "relative_to" in lines[0] and "(1 1 0" in lines[0]
    assert "attached_to" in lines[1] and "scope frame" in lines[2]


def test_world_merge_include(load_text):
    holder = """<sdf version="1.10"><model name="holder">
        <model name="M1"><link name="L"/></model>
        <frame name="F1"><pose>0 1 0 0 0 0</pose></frame></model></sdf>"""
    doc = load_text("""<sdf version="1.10"><world name="w">
          <include merge="true"><uri>holder.sdf</uri><pose>100 0 0 0 0 0</pose></include>
        </world></sdf>""", files={"holder.sdf": holder})
    assert codes(doc) == []
    P = poses(doc)
    # The proxy carries the include pose; M1 and F1 join the world relative to it.
    assert close(P["_merged__holder__model__"], 100, 0, 0)
    assert close(P["M1"], 100, 0, 0) and close(P["F1"], 100, 1, 0)


def test_world_merge_include_rejects_top_level_links(load_text):
    doc = load_text("""<sdf version="1.10"><world name="w">
          <include merge="true"><uri>vehicle.sdf</uri></include></world></sdf>""",
                    files={"vehicle.sdf": VEHICLE})
    assert codes(doc) == ["MERGE_INCLUDE_UNSUPPORTED"]
