"""Edits go through commands; re-resolution after a pose edit touches only dependents."""

import math

from snapframe.core.model.edits import Rename, SetField, SetPose
from snapframe.core.pose import Pose

ROBOT = """
<sdf version="1.8">
  <model name="robot">
    <link name="base"/>
    <link name="tip"><pose>0 0 1 0 0 0</pose></link>
    <joint name="j" type="revolute"><parent>base</parent><child>tip</child></joint>
    <frame name="tool" attached_to="tip"><pose relative_to="tip">0 0 0.5 0 0 0</pose></frame>
  </model>
</sdf>
"""
WORLD = """
<sdf version="1.8">
  <world name="w">
    <include><uri>robot.sdf</uri><name>r0</name><pose>1 0 0 0 0 0</pose></include>
    <include><uri>robot.sdf</uri><name>r1</name><placement_frame>base</placement_frame>
      <pose relative_to="r0::tool"/></include>
    <include><uri>robot.sdf</uri><name>r2</name><pose>0 5 0 0 0 0</pose></include>
    <frame name="marker" attached_to="r1"><pose relative_to="r1::tool"/></frame>
  </world>
</sdf>
"""


def world_poses(doc):
    return {f.name: f.pose for f in doc.frames.frames()}


def test_pose_edit_updates_dependents_only_and_undoes(load_text):
    doc = load_text(WORLD, files={"robot.sdf": ROBOT})
    assert not doc.diagnostics.errors
    before = world_poses(doc)
    assert before["r1"].p == (1.0, 0.0, 1.5)          # r1::base on r0::tool
    assert before["marker"].p == (1.0, 0.0, 3.0)      # r1::tool
    r0 = next(i for i in doc.includes() if i.name == "r0")
    forgotten = []
    doc.changed.connect(lambda e: forgotten.append(
        doc.frames.root.vertices.keys() - doc.frames.root._X.keys()))
    doc.commands.push(SetPose(doc, r0, Pose.from_xyz_rpy(2, 0, 0, 0, 0, math.pi / 2)))
    # Only r0 and what depends on it were forgotten; r2 kept its cached pose.
    assert forgotten == [{"r0", "r1", "marker"}]
    after = world_poses(doc)
    assert after["r0"].p == (2.0, 0.0, 0.0)
    assert after["r1::tool"].almost_equal(
        Pose.from_xyz_rpy(2, 0, 3, 0, 0, math.pi / 2), 1e-12)
    assert after["r2"] == before["r2"]
    doc.commands.undo()
    assert world_poses(doc)["marker"].almost_equal(before["marker"], 1e-12)


def test_consecutive_pose_edits_merge_into_one_undo_step(load_text):
    doc = load_text(ROBOT)
    tip = doc.root.links[1]
    for z in (1.1, 1.2, 1.3):
        doc.commands.push(SetPose(doc, tip, Pose.from_xyz_rpy(0, 0, z)))
    assert len(doc.commands) == 1
    assert world_poses(doc)["robot::tool"].p == (0.0, 0.0, 1.8)
    doc.commands.undo()
    assert world_poses(doc)["robot::tool"].p == (0.0, 0.0, 1.5)


def test_events_reach_views(load_text):
    doc = load_text(ROBOT)
    seen = []
    doc.changed.connect(seen.append)
    doc.commands.push(SetField(doc, doc.root.frames[0], "attached_to", "base"))
    assert seen and seen[-1].node_ids == (doc.root.frames[0].id,)
    assert seen[-1].fields == ("attached_to",)


def test_rename_updates_references(load_text):
    doc = load_text(ROBOT)
    tip = doc.root.links[1]
    doc.commands.push(Rename(doc, tip, "flange"))
    joint, frame = doc.root.joints[0], doc.root.frames[0]
    assert joint.child_name == "flange"
    assert frame.attached_to == "flange" and frame.pose.relative_to == "flange"
    assert world_poses(doc)["robot::tool"].p == (0.0, 0.0, 1.5)
    doc.commands.undo()
    assert joint.child_name == "tip" and frame.pose.relative_to == "tip"
    assert "robot::tip" in world_poses(doc)


def test_changing_relative_to_re_resolves_against_the_new_frame(load_text):
    doc = load_text(WORLD, files={"robot.sdf": ROBOT})
    doc.frames.resolve()
    r2 = next(i for i in doc.includes() if i.name == "r2")
    doc.commands.push(SetPose(doc, r2, Pose.from_xyz_rpy(0, 0, 1), relative_to="r1::tool"))
    doc.frames.resolve()
    P = world_poses(doc)
    assert P["r2"].almost_equal(P["r1::tool"] @ Pose.from_xyz_rpy(0, 0, 1), 1e-12)
    doc.commands.undo()
    assert world_poses(doc)["r2"].p == (0.0, 5.0, 0.0)


def test_add_and_remove_include_with_undo(load_text, tmp_path):
    from snapframe.core.model.edits import AddInclude, RemoveNode
    doc = load_text("""<sdf version="1.8"><world name="w">
          <frame name="table"><pose>0 0 1 0 0 0</pose></frame></world></sdf>""",
                    files={"robot.sdf": ROBOT})
    events = []
    doc.changed.connect(events.append)
    add = AddInclude(doc, doc.root, "robot.sdf", name="r", pose=Pose(),
                     relative_to="table", placement_frame="base")
    doc.commands.push(add)
    assert world_poses(doc)["r::tool"].p == (0.0, 0.0, 2.5)
    assert events[-1].kind == "added"
    doc.commands.push(RemoveNode(doc, add.include))
    assert "r" not in world_poses(doc)
    doc.commands.undo()
    assert world_poses(doc)["r::tip"].p == (0.0, 0.0, 2.0)
    doc.commands.undo()
    doc.commands.undo()
    assert set(world_poses(doc)) == {"table"}
    doc.commands.redo()
    assert "r::base" in world_poses(doc)


def test_frames_and_joints_added_by_an_include(load_text):
    doc = load_text("""<sdf version="1.8"><model name="cell"><link name="floor"/>
          <include><uri>robot.sdf</uri><name>r</name>
            <frame name="camera" attached_to="tip"><pose relative_to="tip">0 0 0.1 0 0 0</pose></frame>
          </include>
          <joint name="mount" type="fixed"><parent>floor</parent><child>r::base</child></joint>
        </model></sdf>""", files={"robot.sdf": ROBOT})
    assert not doc.diagnostics.errors
    P = world_poses(doc)
    # The added frame lives in the included model's scope, next to the model's own frames.
    assert P["cell::r::camera"].p == (0.0, 0.0, 1.1)
