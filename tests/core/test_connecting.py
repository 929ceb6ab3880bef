"""Joints and mates between elements named by their keys (core.model.connecting): the
scope they go into and how their ends are written there, by SDFormat's and OpenPLX's
scoping rules (references resolve in the model holding the joint or mate, never
upwards)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Joint, Mate
from snapframe.core.model.connecting import (AddJointBetween, AddMateBetween, enclosing_model,
                                             free_name)
from snapframe.core.model.edits import EditRefused, RemoveNode

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"

ROBOT = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="cell">
    <model name="robot">
      <include><uri>file://arm.sdf</uri></include>
      <link name="tool"><pose>0 0 1.2 0 0 0</pose></link>
    </model>
    <link name="table"/>
  </model>
</sdf>
"""


@pytest.fixture
def arm_gripper(tmp_path):
    folder = tmp_path / "arm_gripper"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    (folder / "cell.sdf").write_text(ROBOT)
    return folder


def test_a_joint_between_two_includes_goes_into_the_model_holding_both(arm_gripper):
    doc = load(arm_gripper / "arm_and_gripper.sdf", LoadContext(use_environment=False))
    command = AddJointBetween(doc, "wrist", "revolute", "arm::forearm", "gripper::body",
                              axis=(0, 0, 2), lower=-1.0, upper=1.0)
    doc.commands.push(command)
    joint = doc.element("wrist")
    assert isinstance(joint, Joint) and joint.parent is doc.root
    # the top model sees the ends through the includes' names
    assert (joint.parent_name, joint.child_name) == ("arm::forearm", "gripper::body")
    assert joint.axes[0].xyz == pytest.approx((0, 0, 1))
    assert (joint.axes[0].lower, joint.axes[0].upper) == (-1.0, 1.0)
    assert len(doc.commands) == 1 and not doc.diagnostics.errors
    doc.commands.undo()
    assert doc.element("wrist") is None


def test_inside_a_nested_model_the_ends_are_named_from_that_model(arm_gripper):
    doc = load(arm_gripper / "cell.sdf", LoadContext(use_environment=False))
    # both ends in the included arm: the arm's file is not this document's, so the joint
    # goes one level up, into robot (a model of this file)
    model, key = enclosing_model(doc, ["robot::arm::upper_arm", "robot::arm::forearm"])
    assert key == "robot" and model is doc.element("robot")
    doc.commands.push(AddJointBetween(doc, "extra", "fixed", "robot::arm::forearm",
                                      "robot::tool"))
    joint = doc.element("robot::extra")
    assert joint.parent is doc.element("robot")
    assert (joint.parent_name, joint.child_name) == ("arm::forearm", "tool")
    assert joint.axes == []                               # a weld has no axis
    # ends in different nested models meet at the top
    assert enclosing_model(doc, ["robot::tool", "table"])[1] == ""
    doc.commands.push(AddJointBetween(doc, "to_table", "fixed", "table", "robot::tool"))
    assert doc.element("to_table").child_name == "robot::tool"
    # the world as parent (a model attached to the world it is placed in)
    doc.commands.push(AddJointBetween(doc, "anchor", "fixed", "world", "table"))
    assert doc.element("anchor").parent_name == "world"
    assert not doc.diagnostics.errors


def test_joint_ends_that_name_nothing_or_no_frame_are_refused(arm_gripper):
    doc = load(arm_gripper / "arm_and_gripper.sdf", LoadContext(use_environment=False))
    with pytest.raises(EditRefused, match=r"no element \[arm::nothing\]"):
        AddJointBetween(doc, "j", "fixed", "arm::nothing", "gripper::body")
    with pytest.raises(EditRefused, match="visual"):
        AddJointBetween(doc, "j", "fixed", "arm::forearm#visual:forearm_visual",
                        "gripper::body")
    with pytest.raises(EditRefused, match="different"):
        AddJointBetween(doc, "j", "fixed", "gripper::body", "gripper::body")
    with pytest.raises(EditRefused, match="already used"):
        AddJointBetween(doc, "weld", "fixed", "arm::forearm", "gripper::body")
    with pytest.raises(EditRefused, match="unknown joint type"):
        AddJointBetween(doc, "j", "hinge", "arm::forearm", "gripper::body")
    assert len(doc.commands) == 0


def test_free_name_counts_up_past_the_names_taken(arm_gripper):
    doc = load(arm_gripper / "arm_and_gripper.sdf", LoadContext(use_environment=False))
    assert free_name(doc.root, "weld") == "weld_2"
    assert free_name(doc.root, "wrist") == "wrist"


def _body_poses(doc) -> dict[str, np.ndarray]:
    table = doc.live.poses
    return {k: table.pose(k).copy() for k in table.keys if table.kind(k) == "link"}


@pytest.mark.parametrize("example, mate", [("clock.openplx", "hand_hinge"),
                                           ("three_level_rod.openplx", "world_lock")])
def test_a_mate_removed_and_added_again_by_its_connector_keys_assembles_as_the_file(
        tmp_path, example, mate):
    folder = tmp_path / "openplx"
    shutil.copytree(EXAMPLES / "openplx", folder)
    doc = load(folder / example, LoadContext(use_environment=False))
    written = _body_poses(doc)                      # SNAP's assembly of the file as written
    old: Mate = doc.element(mate)
    values = dict(initial_angle=old.initial_angle, initial_position=old.initial_position)
    parent_key = doc.key(old.parent)
    keys = [f"{parent_key}::{c}" if parent_key else c for c in old.connectors]
    doc.commands.push(RemoveNode(doc, old))
    command = AddMateBetween(doc, mate, old.type, *keys, **values)
    doc.commands.push(command)
    new = doc.element(mate)
    assert isinstance(new, Mate) and new.parent is old.parent
    assert new.connectors == old.connectors               # written as the file wrote them
    for key, X in written.items():
        np.testing.assert_allclose(doc.live.poses.pose(key), X, atol=1e-9, err_msg=key)


def test_a_new_mate_turns_the_hand_by_its_initial_angle(tmp_path):
    folder = tmp_path / "openplx"
    shutil.copytree(EXAMPLES / "openplx", folder)
    doc = load(folder / "clock.openplx", LoadContext(use_environment=False))
    doc.commands.push(RemoveNode(doc, doc.element("hand_hinge")))
    doc.commands.push(AddMateBetween(doc, "hinge", "hinge", "face.center", "hour_hand.pivot",
                                     initial_angle=0.0))
    # the file's comment: with initial_angle 0 the hand shows twelve (it points along its
    # local x, and twelve o'clock is +z)
    X = doc.live.poses.pose("hour_hand")
    np.testing.assert_allclose(X[:3, 0], (0, 0, 1), atol=1e-9)
    with pytest.raises(EditRefused, match="not a mate connector"):
        AddMateBetween(doc, "m", "lock", "face", "hour_hand.pivot")
    with pytest.raises(EditRefused, match="unknown mate type"):
        AddMateBetween(doc, "m", "glue", "face.center", "hour_hand.pivot")
