"""References and dependents: what refers to an element (one test per kind of reference),
Rename keeping every kind up to date, and removing an element with what depends on it in
one undo step, each step checked against references computed from scratch."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from assembly_checks import EXAMPLES, assert_poses
from live_checks import Recorder, check_step

from snapframe.core.loading import LoadContext, load
from snapframe.core.model import MateConnector
from snapframe.core.model.edits import AddNode, EditRefused, RemoveNode, Rename
from snapframe.core.model.references import (DependentsExist, RemoveWithDependents, dependents)
from snapframe.core.model.nodes import PoseSpec
from snapframe.core.pose import Pose

PART = """<?xml version="1.0"?>
<sdf version="1.9"><model name="part"><link name="l"/>
  <frame name="pf" attached_to="l"><pose>0 0 0.1 0 0 0</pose></frame></model></sdf>
"""
# Every kind of SDFormat reference, written by the document's own elements.
TOP = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="top" canonical_link="base">
    <link name="base"/>
    <link name="arm">
      <pose relative_to="base">0 0 1 0 0 0.2</pose>
      <visual name="v">
        <pose relative_to="mount">0 0 0.1 0 0 0</pose>
        <geometry><box><size>0.1 0.1 0.1</size></box></geometry>
      </visual>
    </link>
    <frame name="mount" attached_to="arm"><pose>0 0.1 0.5 0 0 0.3</pose></frame>
    <joint name="hinge" type="revolute">
      <parent>base</parent><child>arm</child>
      <axis><xyz expressed_in="mount">1 0 0</xyz></axis>
    </joint>
    <model name="sub" placement_frame="tool">
      <pose relative_to="mount">0 0 0.2 0 0 0</pose>
      <link name="tool"><pose>0 0 0.1 0 0.4 0</pose></link>
      <link name="tool2"><pose>0.3 0 0 0 0 0</pose></link>
    </model>
    <include>
      <uri>file://part.sdf</uri><name>p</name>
      <placement_frame>pf</placement_frame>
      <pose relative_to="mount">0.1 0 0 0 0 0</pose>
    </include>
    <joint name="weld" type="fixed"><parent>mount</parent><child>p::pf</child></joint>
    <frame name="probe" attached_to="base"><pose relative_to="sub::tool">0 0 0.3 0 0 0</pose></frame>
  </model>
</sdf>
"""

EXPECTED = {
    "mount": [("arm#visual:v", "pose relative_to [mount]"),
              ("hinge", "axis expressed_in [mount]"),
              ("sub", "pose relative_to [mount]"),
              ("p", "pose relative_to [mount]"),
              ("weld", "joint parent [mount]")],
    "arm": [("mount", "attached_to [arm]"), ("hinge", "joint child [arm]")],
    "base": [("", "canonical_link [base]"), ("arm", "pose relative_to [base]"),
             ("hinge", "joint parent [base]"), ("probe", "attached_to [base]")],
    "sub::tool": [("sub", "placement_frame [tool]"),
                  ("probe", "pose relative_to [sub::tool]")],
    "sub": [("probe", "pose relative_to [sub::tool]")],
    "p": [("weld", "joint child [p::pf]")],
    "p::pf": [("p", "placement_frame [pf]"), ("weld", "joint child [p::pf]")],
    "weld": [],
    "probe": [],
}


@pytest.fixture
def top(tmp_path):
    (tmp_path / "part.sdf").write_text(PART)
    path = tmp_path / "top.sdf"
    path.write_text(TOP)
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.errors, [str(d) for d in doc.diagnostics.errors]
    return doc, tmp_path / "saved.sdf"


def _drive(doc, save_as, make):
    rec = Recorder(doc.live)
    check_step(doc, rec, lambda: doc.commands.push(make()), save_as)
    check_step(doc, rec, doc.commands.undo, save_as)
    check_step(doc, rec, doc.commands.redo, save_as)
    return rec


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_dependents_of_each_kind_of_reference(top, key):
    doc, _ = top
    assert sorted(dependents(doc, key)) == sorted(EXPECTED[key])


def test_dependents_inside_includes_and_transitively(tmp_path):
    folder = tmp_path / "arm_gripper"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    doc = load(folder / "arm_and_gripper.sdf", LoadContext(use_environment=False))
    # the included file's own references, named by instance keys
    assert dependents(doc, "arm::forearm") == [
        ("arm::elbow", "joint child [forearm]"),
        ("arm::gripper_mount", "pose relative_to [forearm]"),
        ("arm::gripper_mount", "attached_to [forearm]")]
    assert dependents(doc, "arm::gripper_mount") == [
        ("gripper", "pose relative_to [arm::gripper_mount]"),
        ("weld", "joint parent [arm::gripper_mount]")]
    assert ("weld", "joint child [gripper::mount_point]") in \
        dependents(doc, "arm::forearm", transitive=True)
    with pytest.raises(KeyError):
        dependents(doc, "arm::nothing")
    with pytest.raises(EditRefused, match="included"):
        RemoveWithDependents(doc, doc.element("arm::forearm"))


RENAMES = {
    # key, new name, the references that must follow (node key, attribute path, value)
    "mount": ("m2", [("arm#visual:v", "pose.relative_to", "m2"),
                     ("hinge", "axes.0.expressed_in", "m2"),
                     ("sub", "pose.relative_to", "m2"), ("p", "pose.relative_to", "m2"),
                     ("weld", "parent_name", "m2")]),
    "base": ("b2", [("", "canonical_link", "b2"), ("arm", "pose.relative_to", "b2"),
                    ("hinge", "parent_name", "b2"), ("probe", "attached_to", "b2")]),
    "arm": ("a2", [("mount", "attached_to", "a2"), ("hinge", "child_name", "a2")]),
    "sub::tool": ("t2", [("sub", "placement_frame", "t2"),
                         ("probe", "pose.relative_to", "sub::t2")]),
    "sub": ("s2", [("probe", "pose.relative_to", "s2::tool")]),
    "p": ("p2", [("weld", "child_name", "p2::pf")]),
}


def _attribute(node, path: str):
    value = node
    for part in path.split("."):
        value = value[int(part)] if part.isdigit() else getattr(value, part)
    return value


@pytest.mark.parametrize("key", sorted(RENAMES))
def test_rename_updates_every_kind_of_reference(top, key):
    doc, save_as = top
    new_name, expected = RENAMES[key]
    before = dependents(doc, key)
    new_key = key.rpartition("::")[0] + ("::" if "::" in key else "") + new_name
    _drive(doc, save_as, lambda: Rename(doc, doc.element(key), new_name))
    for ref_key, path, value in expected:
        node = doc.element(ref_key.replace(key, new_key) if ref_key.startswith(key + "::")
                           else ref_key)
        assert _attribute(node, path) == value, (ref_key, path)
    assert not doc.diagnostics.errors, [str(d) for d in doc.diagnostics.errors]
    # the same elements depend on it under its new name
    assert [d.key for d in dependents(doc, new_key)] == [d.key for d in before]


def test_remove_refuses_with_the_list_or_removes_with_dependents(top):
    doc, save_as = top
    with pytest.raises(DependentsExist) as refused:
        doc.commands.push(RemoveNode(doc, doc.element("mount"), refuse_if_referenced=True))
    assert sorted(refused.value.dependents) == sorted(EXPECTED["mount"])
    assert "hinge: axis expressed_in [mount]" in str(refused.value)
    assert len(doc.commands) == 0
    # an element nothing refers to is removed either way
    doc.commands.push(RemoveNode(doc, doc.element("probe"), refuse_if_referenced=True))
    doc.commands.undo()

    poses = doc.live.poses.as_dict()
    axis_before = poses["mount"][:3, :3] @ np.array([1.0, 0.0, 0.0])
    remove = RemoveWithDependents(doc, doc.element("mount"))
    assert remove.removed == ["mount", "weld"]
    assert sorted(k for k, _ in remove.adjusted) == ["arm#visual:v", "hinge", "p", "sub"]
    _drive(doc, save_as, lambda: remove)
    assert len(doc.commands) == 1
    assert not doc.diagnostics.errors, [str(d) for d in doc.diagnostics.errors]
    assert doc.element("mount") is None and doc.element("weld") is None
    # what was only placed by it stays where it is, written in its default frame
    kept = [k for k in poses if k and not k.startswith(("mount", "weld"))]
    assert_poses(poses, doc.live.poses.as_dict(), kept, atol=1e-12)
    for key in ("sub", "p", "arm#visual:v"):
        assert doc.element(key).pose.relative_to == ""
    hinge = doc.element("hinge")
    assert hinge.axes[0].expressed_in == ""
    axis_after = doc.live.poses.pose("hinge")[:3, :3] @ np.array(hinge.axes[0].xyz)
    assert np.allclose(axis_after, axis_before, atol=1e-12)
    doc.commands.undo()
    assert doc.element("hinge").axes[0].expressed_in == "mount"
    assert sorted(dependents(doc, "mount")) == sorted(EXPECTED["mount"])


def test_remove_with_dependents_transitively_and_model_level_references(top):
    doc, save_as = top
    poses = doc.live.poses.as_dict()
    # the arm takes its frame, its joint and, through the frame, the weld with it
    remove = RemoveWithDependents(doc, doc.element("arm"))
    assert remove.removed == ["arm", "hinge", "mount", "weld"]
    assert sorted(k for k, _ in remove.adjusted) == ["p", "sub"]
    _drive(doc, save_as, lambda: remove)
    assert_poses(poses, doc.live.poses.as_dict(),
                 ["sub", "sub::tool", "sub::tool2", "p", "p::l", "probe"], atol=1e-12)
    doc.commands.undo()
    # a canonical link that goes is no longer named
    _drive(doc, save_as, lambda: RemoveWithDependents(doc, doc.element("base")))
    assert doc.root.canonical_link == "" and doc.element("probe") is None
    doc.commands.undo()
    # a placement frame that goes: the model keeps its place through its own frame
    remove = RemoveWithDependents(doc, doc.element("sub::tool"))
    assert sorted(k for k, _ in remove.adjusted) == ["probe", "sub"]
    _drive(doc, save_as, lambda: remove)
    sub = doc.element("sub")
    assert sub.placement_frame == "" and sub.pose.relative_to == "mount"
    assert_poses(poses, doc.live.poses.as_dict(), ["sub", "sub::tool2", "probe"], atol=1e-12)
    assert not doc.diagnostics.errors, [str(d) for d in doc.diagnostics.errors]


@pytest.fixture
def clock(tmp_path):
    path = tmp_path / "clock.openplx"
    shutil.copy(EXAMPLES / "openplx" / "clock.openplx", path)
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.errors
    return doc


def test_mates_and_connectors(clock):
    doc = clock
    assert dependents(doc, "hour_hand.pivot") == [
        ("hand_hinge", "mate connector [hour_hand.pivot]")]
    # the joint derived from the mate is not listed: it follows the mate
    assert dependents(doc, "hour_hand") == [("hour_hand.pivot", "attached_to [hour_hand]")]
    assert ("hand_hinge", "mate connector [hour_hand.pivot]") in \
        dependents(doc, "hour_hand", transitive=True)
    with pytest.raises(DependentsExist):
        RemoveNode(doc, doc.element("hour_hand"), refuse_if_referenced=True)
    remove = RemoveWithDependents(doc, doc.element("hour_hand"))
    assert remove.removed == ["hand_hinge", "hour_hand", "hour_hand.pivot"]
    doc.commands.push(remove)
    assert doc.element("hour_hand") is None and doc.element("hand_hinge") is None
    assert not doc.diagnostics.errors, [str(d) for d in doc.diagnostics.errors]
    doc.commands.undo()
    assert doc.element("hand_hinge").connectors == ("face.center", "hour_hand.pivot")
    assert not doc.diagnostics.errors


def test_rename_follows_a_redirected_connector(clock):
    doc = clock
    redirected = MateConnector(name="face.grip", attached_to="face",
                               redirected_parent="hour_hand",
                               pose=PoseSpec(Pose.from_xyz_rpy(0, 0, 0.1), "", True))
    doc.commands.push(AddNode(doc, doc.root, redirected))
    assert ("face.grip", "redirected_parent [hour_hand]") in dependents(doc, "hour_hand")
    doc.commands.push(Rename(doc, doc.element("hour_hand"), "hand"))
    assert redirected.redirected_parent == "hand"
    assert doc.element("hand_hinge").connectors == ("face.center", "hour_hand.pivot")
    doc.commands.undo()
    assert redirected.redirected_parent == "hour_hand"
    doc.commands.redo()
    assert redirected.redirected_parent == "hand"
