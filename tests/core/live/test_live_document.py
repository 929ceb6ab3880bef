"""The live document around the edits: clean state and saving, selection, included files
opened as their own documents, and work done off the UI thread."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from live_checks import Recorder, reference_poses

from snapframe.core.commands import Command, CommandStack
from snapframe.core.diagnostics import Code
from snapframe.core.loading import LoadContext, load
from snapframe.core.live.background import ApplySnapResult, BackgroundJobs, BakeInertia
from snapframe.core.model.edits import (AddFrame, EditRefused, RemoveNode, SetDensity, SetPose)
from snapframe.core.pose import Pose

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "resources" / "examples"


@pytest.fixture
def arm_gripper(tmp_path):
    folder = tmp_path / "arm_gripper"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    return load(folder / "arm_and_gripper.sdf", LoadContext(use_environment=False))


class Note(Command):
    def __init__(self, log, value):
        self.log, self.value, self.label = log, value, f"note {value}"

    def do(self):
        self.log.append(self.value)

    def undo(self):
        self.log.pop()


def test_clean_mark_behaves_as_qundostack_clean_index():
    log, stack = [], CommandStack()
    stack.push(Note(log, 1))
    stack.push(Note(log, 2))
    stack.set_clean()
    assert stack.is_clean
    stack.undo()
    assert not stack.is_clean
    stack.redo()
    assert stack.is_clean
    stack.undo()
    stack.push(Note(log, 3))          # the clean state was in the redo list: gone
    assert not stack.is_clean
    stack.undo()
    assert not stack.is_clean          # back at the length of the clean state, not at it
    stack.set_clean()
    stack.push(Note(log, 4))
    stack.undo()
    assert stack.is_clean


def test_save_marks_clean_and_needs_an_explicit_sdformat_mode(arm_gripper):
    doc = arm_gripper
    doc.commands.push(SetPose(doc, doc.element("arm"), Pose.from_xyz_rpy(0.3, 0, 0)))
    assert not doc.commands.is_clean
    with pytest.raises(ValueError, match="flatten"):
        doc.save()
    assert doc.save(flatten=False) == []
    assert doc.commands.is_clean
    again = load(doc.path, LoadContext(use_environment=False))
    assert again.live.poses.pose("arm::forearm")[0, 3] == pytest.approx(0.3)
    # the modular save kept the includes; a flattened one is an export
    assert len(again.includes()) == 2
    doc.commands.push(SetPose(doc, doc.element("arm"), Pose.from_xyz_rpy(0.4, 0, 0)))
    flat = Path(doc.path).with_name("flat.sdf")
    doc.save(flat, flatten=True)
    assert not doc.commands.is_clean and doc.path != str(flat)
    flat_doc = load(flat, LoadContext(use_environment=False))
    assert flat_doc.includes() == []
    assert np.allclose(flat_doc.live.poses.pose("arm::forearm"),
                       doc.live.poses.pose("arm::forearm"))


def test_saving_to_openplx_lists_what_it_cannot_keep(arm_gripper):
    doc = arm_gripper
    from snapframe.core.model.edits import AddJoint
    # OpenPLX has no screw joint (no such mate)
    doc.commands.push(AddJoint(doc, doc.root, "lead_screw", "screw", "arm::forearm",
                               "gripper::body"))
    warnings = doc.save(Path(doc.path).with_name("out.openplx"))
    assert warnings and all(w.code == Code.CONVERSION_ERROR for w in warnings)
    assert any("lead_screw" in w.message for w in warnings)
    assert not doc.commands.is_clean
    assert not [d for d in doc.diagnostics if d.code == Code.CONVERSION_ERROR]
    with pytest.raises(ValueError, match="no format can write"):
        doc.save(Path(doc.path).with_name("out.xyz"))


def test_selection_is_shared_and_follows_renames_and_removals(arm_gripper):
    doc = arm_gripper
    sel = doc.live.selection
    seen = []
    sel.changed.connect(seen.append)
    sel.select(["arm::forearm", "gripper::body"])
    assert sel.active == "gripper::body" and len(seen) == 1
    sel.toggle("arm::forearm")
    assert sel.keys == ["gripper::body"]
    from snapframe.core.model.edits import Rename
    doc.commands.push(Rename(doc, doc.element("gripper"), "hand"))
    assert sel.keys == ["hand::body"] and sel.active == "hand::body"
    doc.commands.push(RemoveNode(doc, doc.element("hand")))
    assert sel.keys == [] and sel.active is None
    doc.commands.undo()
    # a diagnostic selects its element
    doc.commands.push(SetPose(doc, doc.element("weld"), Pose(), relative_to="nothing"))
    finding = doc.diagnostics.errors[0]
    assert sel.select_diagnostic(finding) and sel.keys == ["weld"]


def test_an_included_file_is_edited_as_its_own_document(arm_gripper):
    doc = arm_gripper
    with pytest.raises(EditRefused, match="open that file"):
        SetPose(doc, doc.element("arm::forearm"), Pose())
    arm = doc.open_include("arm::forearm")
    assert arm is doc.open_include("arm") and arm.path.endswith("arm.sdf")
    rec = Recorder(doc.live)
    before = reference_poses(doc)
    forearm = arm.element("forearm")
    arm.commands.push(SetPose(arm, forearm, Pose.from_xyz_rpy(0, 0, 0.6), "upper_arm"))
    after = reference_poses(doc)
    # every instance and everything placed relative to it follows at once: no stale pose
    moved = rec.moved()
    assert {"arm::forearm", "arm::gripper_mount", "gripper", "gripper::body"} <= set(moved)
    for key, X in after.items():
        assert np.allclose(doc.live.poses.pose(key), X, atol=1e-12), key
    assert after["gripper::body"][2, 3] == pytest.approx(before["gripper::body"][2, 3] + 0.1)
    # the edit is saved in the included file; the assembly keeps its include
    arm.save(flatten=False)
    fresh = load(doc.path, LoadContext(use_environment=False))
    assert np.allclose(fresh.live.poses.pose("gripper::body"), after["gripper::body"])
    arm.commands.undo()
    assert np.allclose(doc.live.poses.pose("gripper::body"), before["gripper::body"])


def test_work_off_the_ui_thread_is_applied_by_commands(arm_gripper, tmp_path):
    doc = arm_gripper
    jobs = BackgroundJobs()
    try:
        loaded = jobs.load(doc.path).result(timeout=30)
        assert set(loaded.live.poses.keys) == set(doc.live.poses.keys)
        # a link's inertia computed on a copy in a worker, then baked by a command
        cart = load_cart(tmp_path)
        body = cart.element("body")
        before = body.inertial.ixx
        result = jobs.link_inertia(body).result(timeout=30)
        assert result.mass_properties.mass == pytest.approx(1000 * 0.2 * 0.1 * 0.3)
        assert body.inertial.ixx == before           # the worker did not touch the link
        cart.commands.push(BakeInertia(cart, body, result.mass_properties))
        assert body.inertial.mass == pytest.approx(6.0)
        cart.commands.undo()
        assert body.inertial.mass is None
    finally:
        jobs.shutdown()


def load_cart(tmp_path):
    path = tmp_path / "cart.sdf"
    path.write_text("""<sdf version="1.11"><model name="cart"><link name="body">
      <inertial auto="true"/>
      <collision name="c"><geometry><box><size>0.2 0.1 0.3</size></box></geometry></collision>
    </link></model></sdf>""")
    return load(path, LoadContext(use_environment=False))


def test_events_are_plain_python_and_survive_a_broken_view(arm_gripper):
    doc = arm_gripper
    calls = []
    doc.live.poses_changed.connect(lambda e: 1 / 0)
    doc.live.poses_changed.connect(lambda e: calls.append(len(e)))
    doc.commands.push(SetPose(doc, doc.element("gripper"), Pose.from_xyz_rpy(0, 0, 1)))
    assert calls and calls[0] > 0
