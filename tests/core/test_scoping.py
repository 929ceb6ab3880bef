"""Every VALID / ERROR line of the composition proposal's scoping examples (section 1.3.2,
1.4.2, 1.4.3 and example 1.2 of the SDFormat 1.8 "Model composition" proposal)."""

from __future__ import annotations

import pytest

from tests.conftest import codes

MODEL = """
<sdf version="1.8">
  <model name="top_model">
    <frame name="top_frame"/>
    <link name="top_link">
      <pose relative_to="{top_link_rel}"/>
    </link>
    <model name="mid_model">
      <pose relative_to="top_link"/>
      <link name="mid_link">
        <pose relative_to="{mid_link_rel}"/>
      </link>
      <model name="bottom_model">
        <pose relative_to="mid_link"/>
        <link name="bottom_link">
          <pose relative_to="{bottom_link_rel}"/>
        </link>
        <frame name="bottom_frame" attached_to="{bottom_frame_att}"/>
      </model>
      <model name="bottom_model_2">
        <model name="mid_model">
          <link name="mid_link"/>
        </model>
        <link name="bottom_link">
          <pose relative_to="mid_model::mid_link"/>
        </link>
      </model>
      {mid_to_top}
      <frame name="mid_to_bottom" attached_to="{mid_to_bottom_att}"/>
    </model>
  </model>
</sdf>
"""

VALID_MODEL = dict(top_link_rel="top_frame", mid_link_rel="", bottom_link_rel="",
                   bottom_frame_att="bottom_link", mid_to_top="",
                   mid_to_bottom_att="bottom_model::bottom_link")


def test_model_example_valid_lines_load_cleanly(load_text):
    doc = load_text(MODEL.format(**VALID_MODEL))
    assert codes(doc) == []
    names = {f.name for f in doc.frames.frames()}
    assert "top_model::mid_model::bottom_model_2::mid_model::mid_link" in names


@pytest.mark.parametrize("field,value,code", [
    ("top_link_rel", "some_unknown_frame", "POSE_RELATIVE_TO_INVALID"),   # encapsulation
    ("top_link_rel", "top_model::top_frame", "POSE_RELATIVE_TO_INVALID"),  # shadowing
    ("mid_link_rel", "top_link", "POSE_RELATIVE_TO_INVALID"),             # outer scope
    ("bottom_link_rel", "mid_link", "POSE_RELATIVE_TO_INVALID"),
    ("bottom_link_rel", "mid_model::mid_link", "POSE_RELATIVE_TO_INVALID"),
    ("bottom_link_rel", "top_frame", "POSE_RELATIVE_TO_INVALID"),
    ("bottom_frame_att", "bottom_model::bottom_link", "FRAME_ATTACHED_TO_INVALID"),
    ("mid_to_top", '<frame name="mid_to_top" attached_to="top_frame"/>',
     "FRAME_ATTACHED_TO_INVALID"),
    ("mid_to_bottom_att", "bottom_link", "FRAME_ATTACHED_TO_INVALID"),     # bad scope
    ("mid_to_bottom_att", "mid_model::bottom_model::bottom_link", "FRAME_ATTACHED_TO_INVALID"),
])
def test_model_example_error_lines(load_text, field, value, code):
    doc = load_text(MODEL.format(**{**VALID_MODEL, field: value}))
    # Exactly one root cause, reported once (no cascade into graph errors).
    assert codes(doc) == [code]
    err = doc.diagnostics.errors[0]
    assert err.file.endswith("main.sdf") and err.line > 0
    referenced = value.split('"')[-2] if value.startswith("<") else value
    assert f"[{referenced}]" in err.message


WORLD = """
<sdf version="1.8">
  <world name="simple_world">
    <frame name="world_frame"/>
    <frame name="world_scope_frame" attached_to="{scope_att}"/>
    <model name="top_model">
      <pose relative_to="world_frame"/>
      <frame name="top_frame" {top_frame_att}/>
      <link name="top_link">
        <pose relative_to="{top_link_rel}"/>
      </link>
    </model>
    <joint name="top_model_weld" type="fixed">
      <parent>{parent}</parent>
      <child>{child}</child>
    </joint>
  </world>
</sdf>
"""
VALID_WORLD = dict(scope_att="world_frame", top_frame_att="", top_link_rel="top_frame",
                   parent="world", child="top_model::top_link")


@pytest.mark.parametrize("parent", ["world", "world_frame"])
def test_world_example_valid_lines(load_text, parent):
    doc = load_text(WORLD.format(**{**VALID_WORLD, "parent": parent}))
    assert codes(doc) == []
    frames = {f.name: f for f in doc.frames.frames()}
    assert frames["top_model_weld"].kind == "joint"
    assert {"world_frame", "world_scope_frame", "top_model", "top_model::top_link"} <= set(frames)


@pytest.mark.parametrize("field,value,code", [
    ("scope_att", "simple_world::world_frame", "FRAME_ATTACHED_TO_INVALID"),
    ("top_frame_att", 'attached_to="world_frame"', "FRAME_ATTACHED_TO_INVALID"),
    ("top_link_rel", "top_model::top_frame", "POSE_RELATIVE_TO_INVALID"),
    ("child", "top_link", "JOINT_CHILD_LINK_INVALID"),
])
def test_world_example_error_lines(load_text, field, value, code):
    doc = load_text(WORLD.format(**{**VALID_WORLD, field: value}))
    assert codes(doc) == [code]


MID = """
<sdf version="1.8">
  <model name="mid_model">
    <link name="mid_link"/>
  </model>
</sdf>
"""


@pytest.mark.parametrize("target,ok", [("my_custom_name::mid_link", True),
                                       ("mid_model::mid_link", False)])
def test_include_name_defines_the_scope(load_text, target, ok):
    doc = load_text(f"""
        <sdf version="1.8">
          <model name="top_model">
            <include>
              <uri>file://mid_model.sdf</uri>
              <name>my_custom_name</name>
            </include>
            <frame name="top_to_mid" attached_to="{target}"/>
          </model>
        </sdf>""", files={"mid_model.sdf": MID})
    assert codes(doc) == ([] if ok else ["FRAME_ATTACHED_TO_INVALID"])


@pytest.mark.parametrize("rel,ok", [("super_frame", True), ("mug::super_frame", False)])
def test_include_pose_is_evaluated_in_the_including_scope(load_text, rel, ok):
    mug = """
        <sdf version="1.8"><model name="mug"><link name="body"/></model></sdf>"""
    doc = load_text(f"""
        <sdf version="1.8">
          <model name="super_model">
            <frame name="super_frame"><pose>0 0 1 0 0 0</pose></frame>
            <link name="table"/>
            <include>
              <uri>file://mug.sdf</uri>
              <pose relative_to="{rel}"/>
            </include>
          </model>
        </sdf>""", files={"mug.sdf": mug})
    assert codes(doc) == ([] if ok else ["POSE_RELATIVE_TO_INVALID"])
    if ok:
        frames = {f.name: f.pose for f in doc.frames.frames()}
        assert frames["super_model::mug"].p == (0.0, 0.0, 1.0)


def test_gripper_cannot_weld_to_something_outside_its_file(load_text):
    bad_gripper = """
        <sdf version="1.8">
          <model name="gripper">
            <link name="gripper"/>
            <joint name="weld" type="fixed">
              <parent>arm::body</parent>
              <child>gripper</child>
            </joint>
          </model>
        </sdf>"""
    arm = """<sdf version="1.8"><model name="arm"><link name="body"/></model></sdf>"""
    doc = load_text("""
        <sdf version="1.8">
          <model name="arm_and_gripper">
            <include><uri>file://arm.sdf</uri></include>
            <include><uri>file://gripper_with_weld.sdf</uri></include>
          </model>
        </sdf>""", files={"arm.sdf": arm, "gripper_with_weld.sdf": bad_gripper})
    assert codes(doc) == ["JOINT_PARENT_LINK_INVALID"]
    # The diagnostic points into the file that is wrong, not the one that includes it.
    assert doc.diagnostics.errors[0].file.endswith("gripper_with_weld.sdf")
