"""The SDFormat reader's value checks, piece by piece: value syntax per spec type, the spec
table, material scripts and sensor types, experimental:params, 1.7 un-flattening.
Expected values come from the spec's element descriptions and libsdformat's rules."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from lxml import etree

from snapframe.core.diagnostics import Code
from snapframe.plugins.sdformat.element_checks import element_problems, sensor_types
from snapframe.plugins.sdformat.include_params import apply_params
from snapframe.plugins.sdformat.spec_table import NODES, ROOTS
from snapframe.plugins.sdformat.spec_values import spec_value_problems, table_version
from snapframe.plugins.sdformat.unflatten import unflatten_world_models
from snapframe.plugins.sdformat.values import value_problem

from tests.conftest import codes

DESCRIPTIONS = Path("/usr/share/sdformat12/1.9")


# -- values ------------------------------------------------------------------------------
@pytest.mark.parametrize("value_type,text", [
    ("double", "inf"), ("double", "-1e3"), ("double", "nan"), ("int", "-3"), ("int", "0x1F"),
    ("unsigned int", "0xffff"), ("bool", "TRUE"), ("bool", "0"), ("vector3", "1 2 3"),
    ("color", "1 0 0"), ("color", "0 0.5 1 1"), ("pose", "1 2 3 0 0 0"), ("vector2i", "4 5"),
    ("double", ""), ("string", "anything"),
    # libsdformat 12 reads an integer with std::stoi: the leading digits of a number.
    ("int", "10.5"), ("int", "1e3"), ("unsigned int", "7."),
])
def test_values_libsdformat_reads(value_type, text):
    assert value_problem(value_type, text) is None


@pytest.mark.parametrize("value_type,text", [
    ("double", "1_0"), ("double", "\u0661"), ("double", "1 2"), ("double", "bad"),
    ("int", ".5"), ("int", "10abc"), ("int", "2147483648"), ("unsigned int", "-1"),
    ("bool", "yes"), ("vector3", "1 2"),
    ("vector3", "0 1 inf"), ("color", "1.5 0 0 1"), ("color", "1 0"), ("pose", "1 2 3"),
    ("pose", "0 0 nan 0 0 0"), ("vector2i", "1 2.5"),
])
def test_values_that_are_refused(value_type, text):
    assert value_problem(value_type, text)


def test_a_pose_reads_its_degrees_and_rotation_format_attributes():
    assert value_problem("pose", "0 0 0 0 0 0 1", {"rotation_format": "quat_xyzw"}) is None
    assert value_problem("pose", "0 0 0 0 0 0 1", {}) is not None


# -- the spec table ----------------------------------------------------------------------
def test_the_table_knows_every_version_and_the_nearest_is_used_for_others():
    assert set(ROOTS) == {"1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "1.12"}
    assert table_version("1.0") == "1.4" and table_version("1.13") == "1.12"
    assert table_version("1.7") == "1.7" and table_version("junk") == "1.12"


def _node(version: str, *path: str):
    index = ROOTS[version]
    for tag in path:
        index = NODES[index][3][tag]
    return NODES[index]


def test_the_table_holds_the_spec_facts():
    # sdf/1.9/surface.sdf: <mu type="double" min="0.0">; camera.sdf: horizontal_fov in
    # [0.1, 6.283186]; link.sdf: velocity_decay/linear is a double; model nests models.
    mu = _node("1.9", "world", "model", "link", "collision", "surface", "friction", "ode", "mu")
    assert mu[:3] == ("double", "0.0", "")
    fov = _node("1.9", "model", "link", "sensor", "camera", "horizontal_fov")
    assert fov[:3] == ("double", "0.1", "6.283186")
    nested = _node("1.9", "model", "model", "model", "link", "velocity_decay", "linear")
    assert nested[0] == "double"
    assert _node("1.9", "model", "link", "sensor", "plugin")[0] == "*"  # free-form content


@pytest.mark.skipif(not DESCRIPTIONS.is_dir(), reason="libsdformat 12 descriptions not installed")
def test_the_table_matches_the_installed_1_9_descriptions():
    # Every typed element of the installed link.sdf is in the table with the same type.
    link = etree.parse(str(DESCRIPTIONS / "link.sdf")).getroot()
    for el in link.iter("element"):
        if el.get("type") and el.getparent() is link:
            assert _node("1.9", "model", "link", el.get("name"))[0] == el.get("type")


def _problems(xml: str, version: str = "1.9"):
    root = etree.fromstring(xml)
    return [(el.tag, attr, message) for el, _, attr, message in spec_value_problems(root, version)]


def test_every_typed_value_is_checked_including_elements_the_model_does_not_hold():
    found = _problems("""<sdf version="1.9"><world name="w"><gravity>0 0 bad</gravity>
        <physics name="p" type="ode"><max_step_size>0.001</max_step_size></physics>
        <model name="m"><link name="l"><velocity_decay><linear>x</linear></velocity_decay>
        <collision name="c"><surface><friction><ode><mu>-1</mu></ode></friction></surface>
        </collision></link></model></world></sdf>""")
    assert [f[0] for f in found] == ["gravity", "linear", "mu"]
    assert "minimum allowed value of [0.0]" in found[2][2]


def test_attributes_plugins_and_custom_elements():
    found = _problems("""<sdf version="1.9"><model name="m"><link name="l">
        <sensor name="s" type="camera"><plugin name="p" filename="f"><mu>-1</mu></plugin>
        </sensor></link><joint name="j" type="revolute"><parent>l</parent><child>l</child>
        <axis><xyz expressed_in="__model__">0 0 1</xyz></axis></joint>
        <unknown><mu>-1</mu></unknown></model></sdf>""")
    assert found == []  # plugin contents and unknown elements are not checked
    found = _problems('<sdf version="1.9"><model name="m"><link name="l"><visual name="v">'
                      '<pose degrees="maybe">0 0 0 0 0 0</pose></visual></link></model></sdf>')
    assert found[0][:2] == ("pose", "degrees")
    assert "Unable to read attribute[degrees]" in found[0][2]


# -- materials and sensors ---------------------------------------------------------------
def test_sensor_types_depend_on_the_version():
    assert "air_speed" not in sensor_types((1, 9)) and "air_speed" in sensor_types((1, 10))
    assert {"gpu_lidar", "wideanglecamera", "boundingbox"} <= sensor_types((1, 6))
    root = etree.fromstring('<sdf><model name="m"><link name="l">'
                            '<sensor name="a" type="air_speed"/>'
                            '<sensor name="b" type="imu"/><sensor name="c"/></link></model></sdf>')
    found = [(c, el.get("name")) for c, _, el in element_problems(root, (1, 9))]
    assert found == [(Code.ATTRIBUTE_INVALID, "a"), (Code.ATTRIBUTE_INVALID, "c")]
    assert [el.get("name") for _, _, el in element_problems(root, (1, 10))] == ["c"]


def test_normal_map_shader_needs_a_normal_map():
    root = etree.fromstring('<sdf><model name="m"><link name="l"><visual name="v"><material>'
                            '<shader type="normal_map_tangentspace"/></material></visual>'
                            '</link></model></sdf>')
    [(code, message, _)] = list(element_problems(root, (1, 9)))
    assert code == Code.ELEMENT_MISSING and "normal_map" in message


# -- in the reader ---------------------------------------------------------------------------
def test_a_value_is_reported_once_when_the_reader_also_reads_it(load_text):
    doc = load_text("""<sdf version="1.9"><model name="m"><link name="l">
        <pose>0 0 x 0 0 0</pose><inertial><mass>1_0</mass></inertial></link></model></sdf>""")
    assert codes(doc) == ["ELEMENT_INVALID", "ELEMENT_INVALID"]
    assert [d.line for d in doc.diagnostics.errors] == [2, 2]


def test_unlimited_joint_limits_are_inf_and_poses_must_be_finite(load_text):
    doc = load_text("""<sdf version="1.9"><model name="m"><link name="a"/><link name="b"/>
        <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz>
        <limit><lower>-inf</lower><upper>INF</upper></limit></axis></joint></model></sdf>""")
    assert codes(doc) == []
    axis = doc.root.joints[0].axes[0]
    assert axis.lower == -math.inf and axis.upper == math.inf
    doc = load_text('<sdf version="1.9"><model name="m"><link name="a"><pose>0 0 inf 0 0 0</pose>'
                    '</link></model></sdf>')
    assert codes(doc) == ["ELEMENT_INVALID"]


# -- experimental:params --------------------------------------------------------------------
MODEL = """<model name="robot"><link name="base"><pose>1 0 0 0 0 0</pose>
  <visual name="v"><geometry><box><size>1 1 1</size></box></geometry></visual></link>
  <model name="arm"><link name="hand"/></model></model>"""


def _apply(params: str):
    model = etree.fromstring(MODEL)
    reports = []
    applied = apply_params(etree.fromstring(f"<params>{params}</params>"), model,
                           lambda code, message, el: reports.append((code, message)))
    return model, applied, reports


def test_params_add_modify_remove_and_replace():
    model, applied, reports = _apply("""
        <link element_id="" name="extra" action="add"><pose>0 0 1 0 0 0</pose></link>
        <link element_id="base" action="modify"><pose relative_to="arm">2 0 0 0 0 0</pose></link>
        <visual element_id="base::v" action="remove"/>
        <link element_id="arm::hand" name="palm" action="replace"/>""")
    assert (applied, reports) == (4, [])
    assert model.find("link[@name='extra']/pose").text == "0 0 1 0 0 0"
    pose = model.find("link[@name='base']/pose")
    assert pose.text == "2 0 0 0 0 0" and pose.get("relative_to") == "arm"
    assert model.find("link[@name='base']/visual") is None
    assert [c.get("name") for c in model.find("model")] == ["palm"]
    assert model.find(".//*[@action]") is None and model.find(".//*[@element_id]") is None


def test_params_child_actions_and_problems():
    model, applied, reports = _apply("""
        <link element_id="base"><visual name="v" action="remove"/>
          <collision name="c" action="add">
            <geometry><sphere><radius>1</radius></sphere></geometry></collision>
        </link>
        <link element_id="nowhere" action="modify"/>
        <link name="x" action="add"/>
        <link element_id="" action="add"/>
        <link element_id="base" action="explode"/>""")
    assert [c.tag for c in model.find("link[@name='base']") if isinstance(c.tag, str)] == \
        ["pose", "collision"]
    assert [code for code, _ in reports] == [Code.ELEMENT_MISSING, Code.ATTRIBUTE_MISSING,
                                             Code.ATTRIBUTE_MISSING, Code.ATTRIBUTE_INVALID]
    assert reports[0][1].startswith("Could not find element <link element_id='nowhere'>")


# -- 1.7 flattened names ------------------------------------------------------------------------
def test_flattened_names_become_a_nested_model_with_its_pose_and_canonical_link():
    sdf = etree.fromstring("""<sdf version="1.7"><world name="w"><model name="P">
        <frame name="M1::__model__" attached_to="M1::L1">
          <pose relative_to="__model__">10 0 0 0 0 0</pose></frame>
        <link name="M1::L1"><pose relative_to="M1::__model__">0 0 1 0 0 0</pose>
          <visual name="v"><pose relative_to="M1::L1"/></visual></link>
        <link name="M1::M2::L"/>
        <joint name="M1::J" type="fixed"><parent>M1::L1</parent><child>M1::M2::L</child></joint>
        <link name="own"/></model></world></sdf>""")
    created = unflatten_world_models(sdf)
    assert [m.get("name") for m in created] == ["M1", "M2"]
    outer = sdf.find("world/model")
    assert [(c.tag, c.get("name")) for c in outer] == [("link", "own"), ("model", "M1")]
    m1 = outer.find("model")
    assert m1.get("canonical_link") == "L1" and m1.find("pose").text == "10 0 0 0 0 0"
    assert m1.find("link[@name='L1']/pose").get("relative_to") == "__model__"
    assert m1.find("link[@name='L1']/visual/pose").get("relative_to") == "L1"
    assert m1.find("joint/child").text == "M2::L" and m1.find("model[@name='M2']/link") is not None
