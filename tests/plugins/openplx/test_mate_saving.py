"""Saving mates, mate connectors and joints edited in a document read from OpenPLX, and
exporting such a document to SDFormat or converting it to new OpenPLX.

After a save the file must parse and ``snapframe snap`` on it (:func:`snap_command`, the
plugin's own reading and assembly) must give what SNAP gives on the edited core model.
Edits are made on the nodes directly.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from snapframe.core.diagnostics import Code
from snapframe.core.model import (Document, Joint, JointAxis, Mate, MateConnector, PoseSpec,
                                  walk)
from snapframe.core.pose import Pose
from snapframe.core.snap import solve
from snapframe.core.snap.document import apply_snap_result, snap_input
from snapframe.core.snap.joints import derive_mate_joints
from snapframe.plugins.openplx import format as openplx_format
from snapframe.plugins.openplx.cli import snap_command
from snapframe.plugins.openplx.loader import load_file
from snapframe.plugins.openplx.mapping import model_to_source

from .conftest import EXAMPLES

CLOCK = EXAMPLES / "clock.openplx"
ROD = EXAMPLES / "three_level_rod.openplx"


def pose(entry: list[float]) -> Pose:
    return Pose.from_xyz_quat(entry[:3], entry[3:])


def resnap(doc: Document) -> dict[str, Pose]:
    """What the live document does after an edit: SNAP on the core model, then the joints."""
    inp = snap_input(doc.root)
    result = solve(inp.problem)
    apply_snap_result(inp, result)
    derive_mate_joints(doc.root)
    return result.world


def save(doc: Document, out: Path) -> str:
    openplx_format.write(doc, out)
    assert load_file(out).all_problems() == []
    return out.read_text()


def assert_same_assembly(doc: Document, out: Path, extra: set[str] = frozenset()) -> None:
    """The saved file assembles as the edited core model does (``extra``: parts only the
    file has, such as the connectors of a joint saved as a mate)."""
    world = resnap(doc)
    result = snap_command(out)
    assert result["errors"] == []
    assert set(result["frames"]) == set(world) | set(extra)
    for path, X in world.items():
        assert pose(result["frames"][path]["pose"]).almost_equal(X, 1e-9), path


def warnings(doc: Document) -> list[str]:
    return [d.message for d in doc.diagnostics.warnings if d.code == Code.CONVERSION_ERROR]


def connector(name: str, attached_to: str, X: Pose) -> MateConnector:
    return MateConnector(name=name, attached_to=attached_to, pose=PoseSpec(X, "", True))


# -- changing, adding and removing mates in the top model ------------------------------------


def test_changed_mate_values_and_connectors_are_rewritten(tmp_path) -> None:
    doc = openplx_format.read(CLOCK)
    [hinge] = doc.root.mates
    hinge.initial_angle = 0.3
    hinge.connectors = ("hour_hand.pivot", "face.center")
    hinge.enable_snap = True
    out = tmp_path / "clock.openplx"
    text = save(doc, out)
    assert ("    hand_hinge is Physics3D.Interactions.Hinge:\n"
            "        connectors: [hour_hand.pivot, face.center]\n"
            "        initial_angle: 0.3\n") in text
    assert "Math.PI / 2" not in text.split("Clock is")[1]
    assert text.split("Clock is")[0] == CLOCK.read_text().split("Clock is")[0]
    assert warnings(doc) == []
    assert_same_assembly(doc, out)


def test_a_new_type_rewrites_the_declaration_in_place(tmp_path) -> None:
    doc = openplx_format.read(CLOCK)
    [hinge] = doc.root.mates
    hinge.type = "prismatic"
    hinge.initial_position = 0.05
    out = tmp_path / "clock.openplx"
    text = save(doc, out)
    lines = text.splitlines()
    assert lines[35] == "    hand_hinge is Physics3D.Interactions.Prismatic:"   # line 36
    assert "initial_angle" not in text.split("Clock is")[1]
    assert "        initial_position: 0.05" in lines
    assert_same_assembly(doc, out)


def test_added_connector_and_mates_are_declared_in_the_top_model(tmp_path) -> None:
    doc = openplx_format.read(CLOCK)
    root = doc.root
    root.add(connector("face.rim", "face", Pose.from_xyz_rpy(0, 0.02, 0.15, 0.4, 0, 0)))
    root.add(Mate(name="rim_lock", type="lock", connectors=("face.rim", "hour_hand.pivot"),
                  enable_snap=False))
    root.add(Mate(name="to_world", type="distance", connectors=("world", "hour_hand.pivot"),
                  initial_distance=0.5, enable_snap=False))
    out = tmp_path / "clock.openplx"
    text = save(doc, out)
    assert text.endswith(
        "    face.rim is Physics3D.Interactions.MateConnector:\n"
        "        position: {0, 0.02, 0.15}\n"
        f"        main_axis: {{0, {-math.sin(0.4):.12g}, {math.cos(0.4):.12g}}}\n"
        "        normal: {1, 0, 0}\n"
        "    rim_lock is Physics3D.Interactions.Lock:\n"
        "        connectors: [face.rim, hour_hand.pivot]\n"
        "        enable_snap: false\n"
        "    to_world is Physics3D.Interactions.Distance:\n"
        "        connectors: [Physics3D.Interactions.World, hour_hand.pivot]\n"
        "        initial_distance: 0.5\n"
        "        enable_snap: false\n")
    assert warnings(doc) == []
    assert_same_assembly(doc, out)
    again = openplx_format.read(out).root
    assert [(m.name, m.type, m.connectors) for m in again.mates] == [
        ("hand_hinge", "hinge", ("face.center", "hour_hand.pivot")),
        ("rim_lock", "lock", ("face.rim", "hour_hand.pivot")),
        ("to_world", "distance", ("world", "hour_hand.pivot"))]


def test_removed_mate_is_deleted_from_the_text(tmp_path) -> None:
    doc = openplx_format.read(CLOCK)
    [hinge] = doc.root.mates
    doc.root.entities.remove(hinge)
    out = tmp_path / "clock.openplx"
    text = save(doc, out)
    assert "hand_hinge" not in text and "Math.PI / 2" not in text.split("Clock is")[1]
    assert text.endswith("    hour_hand is Hand\n")
    assert_same_assembly(doc, out)


CONNECTED = """
Plate is Physics3D.Bodies.RigidBody:
    hole is Physics3D.Interactions.MateConnector

Rig is Physics3D.System:
    base is Plate:
        kinematics.local_transform.position.z: 1
    lid is Plate
    base.peg is Physics3D.Interactions.MateConnector:
        position.x: 0.5
    lid.pos is Physics3D.Interactions.MateConnector
    snap_lid is Physics3D.Interactions.Lock:
        connectors: [base.peg, lid.pos]
"""


def test_removed_connectors_declared_in_the_top_model_are_deleted(tmp_path) -> None:
    src = tmp_path / "rig.openplx"
    src.write_text(CONNECTED)
    doc = openplx_format.read(src)
    root = doc.root
    by_name = {c.name: c for c in walk(root) if isinstance(c, MateConnector)}
    [lock] = root.mates
    root.entities.remove(by_name["base.peg"])     # declared in Rig: deleted
    root.entities.remove(lock)
    root.entities.remove(by_name["lid.hole"])     # declared in Plate: kept, with a warning
    root.add(Mate(name="lid_hinge", type="hinge", connectors=("base.hole", "lid.pos"),
                  initial_angle=0.5))
    out = tmp_path / "out.openplx"
    text = save(doc, out)
    assert "peg" not in text and "snap_lid" not in text
    assert text.endswith("    lid.pos is Physics3D.Interactions.MateConnector\n"
                         "    lid_hinge is Physics3D.Interactions.Hinge:\n"
                         "        connectors: [base.hole, lid.pos]\n"
                         "        initial_angle: 0.5\n")
    assert warnings(doc) == [f"cannot remove connector 'Rig.lid.hole': it is declared at "
                             f"{src}:3, outside model 'Rig'; the file keeps it"]
    # The file keeps lid.hole, which the edited core model no longer has.
    assert_same_assembly(doc, out, extra={"Rig.lid.hole"})


def test_a_removed_mate_still_used_by_the_top_model_is_reported(tmp_path) -> None:
    src = tmp_path / "clock.openplx"
    src.write_text(CLOCK.read_text() + "    limit is Physics3D.Interactions.RotationalRange:\n"
                                       "        connectors: hand_hinge.connectors\n")
    doc = openplx_format.read(src)
    doc.root.entities.remove(doc.root.mates[0])
    openplx_format.write(doc, tmp_path / "out.openplx")
    assert warnings(doc) == [f"removed mate 'Clock.hand_hinge' is still used at {src}:40; fix "
                             "that statement or the saved file will not load"]


def test_plain_frames_become_connectors_and_renames_are_reported(tmp_path) -> None:
    from snapframe.core.model import Frame
    doc = openplx_format.read(CLOCK)
    root = doc.root
    root.add(Frame(name="marker", attached_to="face",
                   pose=PoseSpec(Pose.translation(0, 0, 0.2), "", True)))
    root.mates[0].name = "axle"
    out = tmp_path / "clock.openplx"
    text = save(doc, out)
    assert text.endswith("    face.marker is Physics3D.Interactions.MateConnector:\n"
                         "        position: {0, 0, 0.2}\n"
                         "        main_axis: {0, 0, 1}\n"
                         "        normal: {1, 0, 0}\n")
    assert warnings(doc) == ["'axle' was renamed or moved in the editor; saving that to "
                             "OpenPLX is not supported yet, the file keeps 'Clock.hand_hinge'"]


# -- nested systems and declarations outside the top model --------------------------------


def test_mates_and_connectors_of_nested_systems_use_dotted_declarations(tmp_path) -> None:
    doc = openplx_format.read(ROD, model_name="SnapRodParentParent")
    s2 = doc.root.models[0].models[0]
    s2.add(connector("anchor", "", Pose.from_xyz_rpy(0.1, 0, 0.2, 0, 0.3, 0)))
    s2.add(connector("rod.tip", "rod", Pose.translation(0, 0, 0.5)))
    s2.add(Mate(name="tip_slide", type="prismatic", connectors=("anchor", "rod.tip"),
                initial_position=0.2, enable_snap=False))
    out = tmp_path / "rod.openplx"
    text = save(doc, out)
    section = text.split("SnapRodParentParent is World:")[1]
    assert "    rod_system.rod_system.anchor is Physics3D.Interactions.MateConnector:\n" in section
    assert "    rod_system.rod_system.rod.tip is Physics3D.Interactions.MateConnector:\n" in section
    assert ("    rod_system.rod_system.tip_slide is Physics3D.Interactions.Prismatic:\n"
            "        connectors: [rod_system.rod_system.anchor, rod_system.rod_system.rod.tip]\n"
            "        initial_position: 0.2\n"
            "        enable_snap: false\n") in section
    # The models the top model is built from are untouched.
    assert text.split("SnapRodParentParent is World:")[0] == \
        ROD.read_text().split("SnapRodParentParent is World:")[0]
    assert_same_assembly(doc, out)


def test_a_mate_declared_in_a_base_model_gets_overrides_or_a_warning(tmp_path) -> None:
    doc = openplx_format.read(ROD, model_name="SnapRodParentParent")
    [lock] = doc.root.mates
    lock.connectors = ("world_connector", "rod_system::rod_system::rod.connector")
    out = tmp_path / "rod.openplx"
    text = save(doc, out)
    assert text.endswith("    world_lock.connectors: [world_connector, "
                         "rod_system.rod_system.rod.connector]\n")
    assert warnings(doc) == []
    assert_same_assembly(doc, out)
    # Its type and its existence are the base model's: they cannot change from here.
    lock.type = "hinge"
    doc.root.entities.remove(lock)
    openplx_format.write(doc, out)
    assert out.read_text() == ROD.read_text()
    where = f"it is declared at {ROD}:34, outside model 'SnapRodParentParent'"
    assert warnings(doc) == [f"cannot remove mate 'SnapRodParentParent.world_lock': {where}; "
                             "the file keeps it"]


def test_a_type_change_of_a_base_model_mate_is_reported(tmp_path) -> None:
    doc = openplx_format.read(ROD, model_name="SnapRodParentParent")
    [lock] = doc.root.mates
    lock.type = "ball"
    openplx_format.write(doc, tmp_path / "rod.openplx")
    assert (tmp_path / "rod.openplx").read_text() == ROD.read_text()
    [w] = warnings(doc)
    assert w.startswith("cannot change the type of mate 'SnapRodParentParent.world_lock' to "
                        "'ball'") and w.endswith("the file keeps a lock mate")


# -- joints added by the user ---------------------------------------------------------------


def test_an_added_joint_is_saved_as_a_mate_between_new_connectors(tmp_path) -> None:
    doc = openplx_format.read(CLOCK)
    root = doc.root
    [hinge] = root.mates
    root.entities.remove(hinge)
    resnap(doc)   # the hand is no longer mated: SNAP leaves it at the origin
    joint = Joint(name="spin", type="revolute", parent_name="face", child_name="hour_hand",
                  pose=PoseSpec(Pose.translation(0.01, 0.02, 0), "", True),
                  axes=[JointAxis((0.0, 1.0, 0.0))])
    root.add(joint)
    root.add(Joint(name="thread", type="screw", parent_name="face", child_name="hour_hand"))
    out = tmp_path / "clock.openplx"
    text = save(doc, out)
    # Both connectors sit at the joint frame with main_axis along the joint axis.
    assert text.endswith(
        "    face.spin_parent is Physics3D.Interactions.MateConnector:\n"
        "        position: {0.01, 0.02, -1.5}\n"
        "        main_axis: {0, 1, 0}\n"
        "        normal: {1, 0, 0}\n"
        "    hour_hand.spin_child is Physics3D.Interactions.MateConnector:\n"
        "        position: {0.01, 0.02, 0}\n"
        "        main_axis: {0, 1, 0}\n"
        "        normal: {1, 0, 0}\n"
        "    spin is Physics3D.Interactions.Hinge:\n"
        "        connectors: [face.spin_parent, hour_hand.spin_child]\n")
    assert warnings(doc) == ["joint 'thread' of type 'screw' has no OpenPLX mate; it is not "
                             "saved"]
    # The connectors coincide where the links are: SNAP keeps the hand where it was.
    assert_same_assembly(doc, out, extra={"Clock.face.spin_parent", "Clock.hour_hand.spin_child"})
    again = openplx_format.read(out).root
    spin = next(m for m in again.mates if m.name == "spin")
    assert (spin.type, spin.connectors) == ("hinge", ("face.spin_parent", "hour_hand.spin_child"))


def test_derived_joints_and_links_are_not_saved_as_such(tmp_path) -> None:
    doc = openplx_format.read(CLOCK)
    [hinge] = doc.root.mates
    hinge.type = "cylindrical"
    resnap(doc)    # derives hand_hinge__slider, hand_hinge__revolute and hand_hinge
    out = tmp_path / "clock.openplx"
    text = save(doc, out)
    assert "slider" not in text and "__revolute" not in text
    assert "    hand_hinge is Physics3D.Interactions.Cylindrical:" in text
    assert warnings(doc) == []
    assert_same_assembly(doc, out)


# -- other formats ---------------------------------------------------------------------------

MATES = """
Rig is Physics3D.System:
    base is Physics3D.Bodies.RigidBody:
        kinematics.local_transform.position.z: 1
        a is Physics3D.Interactions.MateConnector
        c is Physics3D.Interactions.MateConnector:
            position.y: 1
    knob is Physics3D.Bodies.RigidBody:
        mc is Physics3D.Interactions.MateConnector
    bob is Physics3D.Bodies.RigidBody:
        mc is Physics3D.Interactions.MateConnector
    turn is Physics3D.Interactions.Hinge:
        connectors: [base.a, knob.mc]
    rope is Physics3D.Interactions.Distance:
        connectors: [base.c, bob.mc]
        initial_distance: 0.5
"""


def test_sdformat_export_writes_connectors_as_frames_and_warns_for_a_distance_mate(tmp_path
                                                                                    ) -> None:
    sdformat = pytest.importorskip("snapframe.plugins.sdformat.format")
    src = tmp_path / "rig.openplx"
    src.write_text(MATES)
    doc = openplx_format.read(src)
    before = len(doc.diagnostics.items)
    sdformat.write(doc, tmp_path / "rig.sdf")
    text = (tmp_path / "rig.sdf").read_text()
    assert "<mate" not in text
    assert text.count("<frame ") == 4 and '<frame name="base.a" attached_to="base">' in text
    assert '<joint name="turn" type="revolute">' in text and "rope" not in text
    [w] = doc.diagnostics.items[before:]
    assert (w.code, w.line) == (Code.CONVERSION_ERROR, 14)
    assert "Distance mate 'Rig.rope' has no SDFormat joint" in w.message
    assert "it is not saved" in w.message
    back = sdformat.read(tmp_path / "rig.sdf")
    assert not back.diagnostics.has_errors()
    assert [f.name for f in back.root.frames] == ["base.a", "base.c", "knob.mc", "bob.mc"]


def test_converting_to_new_openplx_writes_mates_as_mates(tmp_path) -> None:
    doc = openplx_format.read(CLOCK)
    doc.root.mates[0].initial_angle = 0.25
    text = model_to_source(doc.root)
    assert ("    hand_hinge is Physics3D.Interactions.Hinge:\n"
            "        connectors: [face.center, hour_hand.pivot]\n"
            "        initial_angle: 0.25\n") in text
    assert "hand_hinge_parent" not in text     # not converted again from its joint
    out = tmp_path / "converted.openplx"
    out.write_text(text)
    assert load_file(out).all_problems() == []
    assert_same_assembly(doc, out)
