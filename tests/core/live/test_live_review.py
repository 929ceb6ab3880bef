"""Regressions found by the review of the live document: each test is one finding, checked
against a fresh resolution, a fresh load of the saved file, or the rule it broke."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest

from live_checks import Recorder, check_step, reference_poses

from snapframe.core.diagnostics import Code
from snapframe.core.loading import LoadContext, load
from snapframe.core.live.background import BakeInertia
from snapframe.core.model import Geometry, Include, PoseSpec, Visual
from snapframe.core.model.edits import (AddFrame, AddInclude, AddNode, EditRefused, RemoveNode,
                                        Rename, SetField, SetMass, SetMate, SetPose,
                                        SetRelativeTo)
from snapframe.core.pose import Pose

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "resources" / "examples"
ARM = (EXAMPLES / "arm_gripper" / "arm.sdf").read_text()


def files(tmp_path: Path, **texts: str) -> Path:
    for name, text in texts.items():
        (tmp_path / name.replace("__", ".")).write_text(textwrap.dedent(text).strip() + "\n")
    return tmp_path


def open_doc(path: Path):
    return load(path, LoadContext(use_environment=False))


def drive(doc, save_as, make):
    rec = Recorder(doc.live)
    check_step(doc, rec, lambda: doc.commands.push(make()), save_as)
    check_step(doc, rec, doc.commands.undo, save_as)
    check_step(doc, rec, doc.commands.redo, save_as)
    return rec


def test_a_document_that_failed_to_load_is_not_saved_over_its_file(tmp_path):
    bad = tmp_path / "bad.sdf"
    bad.write_text("<sdf version='1.9'><model name='m'>")
    doc = open_doc(bad)
    with pytest.raises(ValueError, match="failed to load"):
        doc.save(flatten=False)
    assert bad.read_text() == "<sdf version='1.9'><model name='m'>"


def test_parts_relative_to_a_removed_frame_leave_the_table(tmp_path):
    folder = tmp_path / "arm"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    doc = open_doc(folder / "arm.sdf")
    save_as = folder / "saved.sdf"
    marker = Visual(name="marker", pose=PoseSpec(Pose(), "gripper_mount", True),
                    geometry=Geometry("sphere", {"radius": 0.01}))
    doc.commands.push(AddNode(doc, doc.element("body"), marker))
    assert "body#visual:marker" in doc.live.poses
    drive(doc, save_as, lambda: RemoveNode(doc, doc.element("gripper_mount")))
    doc.commands.undo()
    drive(doc, save_as, lambda: SetPose(doc, doc.element("gripper_mount"),
                                         Pose.from_xyz_rpy(0, 0, 0.9), "forearm"))


def test_a_failed_chain_does_not_poison_frames_that_resolved(tmp_path):
    # libsdformat lists w2 (relative to model b) whatever happens to g and h
    files(tmp_path, main__sdf="""<sdf version="1.9"><world name="w">
      <frame name="h"><pose relative_to="g">0 0 0 0 0 0</pose></frame>
      <frame name="g"><pose relative_to="b::l">0 0 0 0 0 0</pose></frame>
      <model name="b"><pose>1 0 0 0 0 0</pose><link name="l"/></model>
      <frame name="w2"><pose relative_to="b">0 0 1 0 0 0</pose></frame>
    </world></sdf>""")
    doc = open_doc(tmp_path / "main.sdf")
    drive(doc, tmp_path / "saved.sdf",
          lambda: SetPose(doc, doc.element("g"), Pose(), relative_to="b::nothing"))
    assert np.allclose(doc.live.poses.pose("w2")[:3, 3], (1, 0, 1))


def test_edits_of_a_file_included_twice_reach_every_document(tmp_path):
    files(tmp_path, arm__sdf=ARM,
          asm__sdf="""<sdf version="1.9"><model name="asm"><include><uri>arm.sdf</uri></include>
            <frame name="tipref" attached_to="arm::gripper_mount"/></model></sdf>""",
          main__sdf="""<sdf version="1.9"><world name="w">
            <include><uri>arm.sdf</uri><name>direct</name></include>
            <include><uri>asm.sdf</uri><name>A</name><pose>2 0 0 0 0 0</pose></include>
          </world></sdf>""")
    doc = open_doc(tmp_path / "main.sdf")
    direct = doc.open_include("direct")
    asm = doc.open_include("A")
    assert asm.open_include("arm") is direct          # one document per included file
    rec = Recorder(doc.live)
    direct.commands.push(SetPose(direct, direct.element("forearm"),
                                 Pose.from_xyz_rpy(0, 0, 0.9), "upper_arm"))
    assert len(rec.edited) == 1                       # one update for every instance
    for d in (doc, asm):
        ref = reference_poses(d)
        assert all(np.allclose(d.live.poses.pose(k), X, atol=1e-9) for k, X in ref.items())
    # the frame asm places on the arm moved with the edit made in arm's document
    assert reference_poses(doc)["A::tipref"][2, 3] == pytest.approx(0.9 + 0.4 + 0.1)


def test_merged_elements_say_how_to_edit_them(tmp_path):
    files(tmp_path, arm__sdf=ARM, main__sdf="""<sdf version="1.9"><model name="M">
      <include merge="true"><uri>arm.sdf</uri></include></model></sdf>""")
    doc = open_doc(tmp_path / "main.sdf")
    with pytest.raises(ValueError, match="merge-include"):
        doc.open_include("forearm")


def test_joints_derived_from_mates_are_edited_through_the_mate(tmp_path):
    shutil.copy(EXAMPLES / "openplx" / "clock.openplx", tmp_path / "clock.openplx")
    doc = open_doc(tmp_path / "clock.openplx")
    joint = next(n for n in doc.nodes() if n.kind == "joint")
    with pytest.raises(EditRefused, match="edit the mate"):
        RemoveNode(doc, joint)
    # renaming a connector keeps the mates that use it
    doc.commands.push(Rename(doc, doc.element("hour_hand.pivot"), "hour_hand.axle"))
    assert doc.element("hand_hinge").connectors == ("face.center", "hour_hand.axle")
    assert not doc.diagnostics.errors
    # a distance mate has no joint: the live document warns, as a fresh load does
    doc.commands.push(SetMate(doc, doc.element("hand_hinge"), type="distance"))
    live = sorted((d.code, d.message) for d in doc.diagnostics.warnings)
    out = tmp_path / "distance.openplx"
    doc.save(out)
    fresh = sorted((d.code, d.message) for d in open_doc(out).diagnostics.warnings)
    assert [w for w in live if "istance" in w[1]] == [w for w in fresh if "istance" in w[1]] != []


def test_set_field_checks_types_and_choices(tmp_path):
    folder = tmp_path / "ag"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    doc = open_doc(folder / "arm_and_gripper.sdf")
    weld = doc.element("weld")
    for field, value in (("child_name", 5), ("type", "weird"), ("parent_name", None)):
        with pytest.raises(EditRefused):
            SetField(doc, weld, field, value)
    inc = doc.element("gripper")
    with pytest.raises(EditRefused):
        SetField(doc, inc, "static", "yes")
    doc.commands.push(SetField(doc, weld, "type", "revolute"))
    assert weld.type == "revolute"


def test_bake_undo_restores_the_same_inertial(tmp_path):
    files(tmp_path, main__sdf="""<sdf version="1.9"><model name="m"><link name="l">
      <inertial><mass>2</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial>
      <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
    </link></model></sdf>""")
    doc = open_doc(tmp_path / "main.sdf")
    link = doc.element("l")
    from snapframe.core.inertia import compute_link_inertia
    mp = compute_link_inertia(link, force=True).mass_properties
    doc.commands.push(SetMass(doc, link, 5.0))
    doc.commands.push(BakeInertia(doc, link, mp))
    doc.commands.undo()
    doc.commands.undo()
    assert link.inertial.mass == 2.0
    doc.commands.redo()
    assert link.inertial.mass == 5.0
    with pytest.raises(EditRefused):
        BakeInertia(doc, link, None)


def test_reader_findings_follow_edits_of_what_they_are_about(tmp_path):
    files(tmp_path, arm__sdf=ARM, main__sdf="""<sdf version="1.9"><model name="m">
      <include><uri>arm.sdf</uri><placement_frame>forearm</placement_frame></include>
      <link name="__bad__"><pose>0 0 0 0 0 0</pose></link>
      <link name="l2"><inertial><mass>-1</mass></inertial></link>
    </model></sdf>""")
    doc = open_doc(tmp_path / "main.sdf")
    assert {d.code for d in doc.diagnostics.errors} >= {
        Code.MODEL_PLACEMENT_FRAME_INVALID, Code.RESERVED_NAME, Code.LINK_INERTIA_INVALID}
    rec = Recorder(doc.live)
    save_as = tmp_path / "saved.sdf"
    check_step(doc, rec, lambda: doc.commands.push(
        SetPose(doc, doc.element("arm"), Pose.from_xyz_rpy(0, 0, 1))), save_as)
    bad = next(n for n in doc.nodes() if n.name == "__bad__")
    check_step(doc, rec, lambda: doc.commands.push(Rename(doc, bad, "good")), save_as)
    check_step(doc, rec, lambda: doc.commands.push(SetMass(doc, doc.element("l2"), 1.0)),
               save_as)
    assert not doc.diagnostics.errors
    check_step(doc, rec, doc.commands.undo, save_as)
    assert [d.code for d in doc.diagnostics.errors] == [Code.LINK_INERTIA_INVALID]
    assert doc.diagnostics.errors[0].key == "l2"


def test_two_new_elements_with_the_same_problem_are_two_findings(tmp_path):
    folder = tmp_path / "ag"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    doc = open_doc(folder / "arm_and_gripper.sdf")
    rec = Recorder(doc.live)

    def act():
        with doc.commands.macro("two"):
            for name in ("g1", "g2"):
                doc.commands.push(AddInclude(doc, doc.root, "file://gripper.sdf", name=name,
                                             pose=Pose(), placement_frame="nothing"))
    check_step(doc, rec, act, folder / "saved.sdf")
    assert sorted(d.key for d in doc.diagnostics.errors) == ["g1", "g2"]


def test_renames_update_placement_frames_through_scopes(tmp_path):
    files(tmp_path, main__sdf="""<sdf version="1.9"><world name="w">
      <model name="top" placement_frame="N::K"><pose>0 0 1 0 0 0</pose><link name="a"/>
        <model name="N"><pose>1 0 0 0 0 0</pose><link name="K"><pose>0 1 0 0 0 0</pose></link>
        </model></model></world></sdf>""")
    doc = open_doc(tmp_path / "main.sdf")
    drive(doc, tmp_path / "saved.sdf", lambda: Rename(doc, doc.element("top::N::K"), "K2"))
    assert doc.element("top").placement_frame == "N::K2"


def test_unresolved_elements_are_in_structure_events_and_the_selection_follows(tmp_path):
    folder = tmp_path / "ag"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    doc = open_doc(folder / "arm_and_gripper.sdf")
    rec = Recorder(doc.live)
    doc.commands.push(AddFrame(doc, doc.root, "lost", relative_to="nothing"))
    assert rec.structure[-1].added == ("lost",)
    doc.live.selection.select("lost")
    doc.commands.push(Rename(doc, doc.element("lost"), "found"))
    assert rec.structure[-1].renamed == {"lost": "found"}
    assert doc.live.selection.keys == ["found"]
    doc.commands.push(RemoveNode(doc, doc.element("found")))
    assert rec.structure[-1].removed == ("found",) and doc.live.selection.keys == []


def test_inertia_events_name_every_instance(tmp_path):
    files(tmp_path, wheel__sdf="""<sdf version="1.11"><model name="wheel"><link name="rim">
        <inertial auto="true"/>
        <collision name="c"><geometry><cylinder><radius>0.3</radius><length>0.1</length>
        </cylinder></geometry></collision></link></model></sdf>""",
          main__sdf="""<sdf version="1.11"><world name="w">
        <include><uri>wheel.sdf</uri><name>a</name></include>
        <include><uri>wheel.sdf</uri><name>b</name><pose>1 0 0 0 0 0</pose></include>
      </world></sdf>""")
    doc = open_doc(tmp_path / "main.sdf")
    rec = Recorder(doc.live)
    wheel = doc.open_include("a")
    from snapframe.core.model.edits import SetDensity
    wheel.commands.push(SetDensity(wheel, wheel.element("rim#collision:c"), 2000.0))
    keys = {k for e in rec.inertia for k in e.keys}
    assert keys == {"a::rim", "b::rim"}


def test_the_first_include_of_a_shared_file_can_go(tmp_path):
    robot = """<sdf version="1.9"><model name="r"><link name="l"/>
      <frame name="tool" attached_to="l"><pose>0 0 1 0 0 0</pose></frame>
      <frame name="bad" attached_to="l"><pose relative_to="nothing">0 0 1 0 0 0</pose></frame>
    </model></sdf>"""
    files(tmp_path, robot__sdf=robot, main__sdf="""<sdf version="1.9"><world name="w">
      <include><uri>robot.sdf</uri><name>a</name></include>
      <include><uri>robot.sdf</uri><name>b</name><pose>2 0 0 0 0 0</pose></include>
    </world></sdf>""")
    doc = open_doc(tmp_path / "main.sdf")
    # the finding inside the shared file names the first include, as a fresh load does
    drive(doc, tmp_path / "saved.sdf", lambda: Rename(doc, doc.element("a"), "a2"))
    drive(doc, tmp_path / "saved.sdf", lambda: RemoveNode(doc, doc.element("a2")))


def test_the_top_model_can_be_renamed_and_cycles_are_refused(tmp_path):
    files(tmp_path, main__sdf="""<sdf version="1.9"><model name="m">
      <link name="L1"/><link name="L2"><pose>0 0 1 0 0 0</pose></link>
      <frame name="F" attached_to="L2"><pose>0 0 0.5 0 0 0</pose></frame>
    </model></sdf>""")
    doc = open_doc(tmp_path / "main.sdf")
    doc.commands.push(Rename(doc, doc.root, "machine"))
    assert doc.root.name == "machine" and doc.element("L2") is not None
    doc.commands.undo()
    with pytest.raises(EditRefused, match="cycle"):
        SetRelativeTo(doc, doc.element("L2"), "F")


def test_a_save_that_loses_edits_does_not_mark_the_document_saved(tmp_path):
    folder = tmp_path / "ag"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    doc = open_doc(folder / "arm_and_gripper.sdf")
    from snapframe.core.model.edits import AddJoint
    doc.commands.push(AddJoint(doc, doc.root, "lead", "screw", "arm::forearm", "gripper::body"))
    assert doc.save(folder / "out.openplx") and not doc.commands.is_clean
    assert isinstance(doc.element("gripper"), Include)


def test_sdformat_saves_keep_axis_limits_new_axes_and_replaced_geometry(tmp_path):
    from snapframe.core.model import Geometry
    from snapframe.core.model.edits import SetJointAxis
    folder = tmp_path / "ag"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    doc = open_doc(folder / "arm.sdf")
    doc.commands.push(SetField(doc, doc.element("forearm#collision:forearm_collision"),
                               "geometry", Geometry("sphere", {"radius": 0.2})))
    doc.commands.push(SetJointAxis(doc, doc.element("elbow"), lower=-1.0, effort=5.0))
    doc.commands.push(SetJointAxis(doc, doc.element("elbow"), 1, xyz=(1, 0, 0), lower=-0.5,
                                   upper=0.5))
    assert doc.save(flatten=False) == []
    again = open_doc(folder / "arm.sdf")
    assert again.element("forearm#collision:forearm_collision").geometry.shape == "sphere"
    axes = again.element("elbow").axes
    assert (axes[0].lower, axes[0].upper, axes[0].effort) == (-1.0, 2.5, 5.0)
    assert axes[1].xyz == (1.0, 0.0, 0.0) and (axes[1].lower, axes[1].upper) == (-0.5, 0.5)


def test_save_as_in_another_folder_keeps_the_includes_working(tmp_path):
    folder = tmp_path / "ag"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    doc = open_doc(folder / "arm_and_gripper.sdf")
    (tmp_path / "elsewhere").mkdir()
    assert doc.save(tmp_path / "elsewhere" / "copy.sdf", flatten=False) == []
    copy = open_doc(tmp_path / "elsewhere" / "copy.sdf")
    assert not copy.diagnostics.errors
    assert np.allclose(copy.live.poses.pose("gripper::body"), doc.live.poses.pose("gripper::body"))
    # an export (another format) leaves the document's own URIs alone
    doc.save(tmp_path / "elsewhere" / "copy.openplx")
    assert doc.element("arm").uri == "file://../ag/arm.sdf"


def test_openplx_saves_say_what_they_cannot_keep(tmp_path):
    from snapframe.core.model.edits import SetDensity
    shutil.copy(EXAMPLES / "openplx" / "clock.openplx", tmp_path / "clock.openplx")
    doc = open_doc(tmp_path / "clock.openplx")
    dial = doc.element("face#collision:dial")
    doc.commands.push(SetDensity(doc, dial, 900.0))
    warnings = doc.save()
    assert any("dial" in w.message for w in warnings) and not doc.commands.is_clean
    doc.commands.push(RemoveNode(doc, dial))
    assert any("removed" in w.message for w in doc.save())
