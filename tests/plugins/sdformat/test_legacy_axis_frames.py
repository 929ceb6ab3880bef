"""Joint axes of SDFormat 1.4 to 1.6 files are read in the frame libsdformat reads them in
(review 8, item 6).

In 1.4 an axis is written in the model frame (libsdformat's 1.4 -> 1.5 conversion adds
``<use_parent_model_frame>true``); in 1.5 and 1.6 ``<use_parent_model_frame>true`` says
so (the 1.6 -> 1.7 conversion makes it ``expressed_in="__model__"``); otherwise, and from
1.7 on, an axis is in the joint frame.  The expected directions are libsdformat 12.3's
``JointAxis::ResolveXyz(v, "__model__")`` on these files (a small program against
libsdformat, like /tmp/review8/repro/axis14/ax.cc).
"""

from __future__ import annotations

import pytest

from snapframe.core.model.names import MODEL_FRAME

MODEL = """<?xml version="1.0"?>
<sdf version="{version}">
  <model name="m">
    <pose>0 0 0 0 0 0.3</pose>
    <link name="a"><pose>0 0 0 0 0 0</pose></link>
    <link name="b"><pose>1 0 0 0 0.7 0.5</pose></link>
    <link name="c"><pose>2 0 0 0.4 0 0</pose></link>
    <joint name="j1" type="revolute">
      <pose>0 0.1 0 0 0 0.2</pose>
      <parent>a</parent><child>b</child>
      <axis><xyz>1 0 0</xyz>{flag}<limit><lower>-1</lower><upper>1</upper></limit></axis>
    </joint>
    <joint name="j2" type="prismatic">
      <parent>b</parent><child>c</child>
      <axis><xyz>0 1 0</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis>
    </joint>
    <joint name="j3" type="universal">
      <parent>a</parent><child>d</child>
      <axis><xyz>0 0 1</xyz></axis><axis2><xyz>0 1 0</xyz></axis2>
    </joint>
    <link name="d"><pose>0 3 0 0 0 0</pose></link>
  </model>
</sdf>"""
FLAG = "<use_parent_model_frame>true</use_parent_model_frame>"

# (version, flag on j1) -> {joint: (axis expressed in the model frame?, direction in the
# model frame)} as libsdformat 12.3 resolves them.
IN_JOINT_J2 = (False, (0.0, 0.921061, 0.389418))
CASES = {
    ("1.4", ""): {"j1": (True, (1, 0, 0)), "j2": (True, (0, 1, 0)), "j3": (True, (0, 0, 1))},
    ("1.5", FLAG): {"j1": (True, (1, 0, 0)), "j2": IN_JOINT_J2, "j3": (False, (0, 0, 1))},
    ("1.6", FLAG): {"j1": (True, (1, 0, 0)), "j2": IN_JOINT_J2, "j3": (False, (0, 0, 1))},
    ("1.5", ""): {"j1": (False, (0.562585, 0.533724, -0.631376)), "j2": IN_JOINT_J2},
    # 1.7 has no use_parent_model_frame: the element is ignored.
    ("1.7", FLAG): {"j1": (False, (0.562585, 0.533724, -0.631376)), "j2": IN_JOINT_J2},
}


def _in_model_frame(doc, joint):
    axis = joint.axes[0]
    if axis.expressed_in == MODEL_FRAME:
        return axis.xyz
    R = doc.frames.pose(joint.name).R
    x = axis.xyz
    return tuple(R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2] for i in range(3))


@pytest.mark.parametrize("version,flag", list(CASES))
def test_axis_frames_match_libsdformat(load_text, version, flag):
    doc = load_text(MODEL.format(version=version, flag=flag))
    assert doc.diagnostics.errors == []
    joints = {j.name: j for j in doc.root.joints}
    for name, (in_model, direction) in CASES[(version, flag)].items():
        joint = joints[name]
        assert (joint.axes[0].expressed_in == MODEL_FRAME) == in_model, name
        assert _in_model_frame(doc, joint) == pytest.approx(direction, abs=1e-6), name


def test_both_axes_of_a_1_4_joint_are_in_the_model_frame(load_text):
    doc = load_text(MODEL.format(version="1.4", flag=""))
    [j3] = [j for j in doc.root.joints if j.name == "j3"]
    assert [a.expressed_in for a in j3.axes] == [MODEL_FRAME, MODEL_FRAME]
