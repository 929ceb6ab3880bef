"""Assembling: the URI an include is written with, and placing a part by its placement
frame on a target frame (with a weld or a joint) in one undo step, checked against the
live-document references, a fresh load and libsdformat (the oracle)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from assembly_checks import EXAMPLES, assert_poses, oracle_poses, xyz_rpy
from live_checks import Recorder, check_step, reference_poses

from snapframe.core.loading import LoadContext, load
from snapframe.core.model.edits import AddFrame, AddInclude, EditRefused
from snapframe.core.model.include_uri import include_uri_for
from snapframe.core.model.placing import JointSpec, PlaceInclude, flip_offset, rotate90_offset
from snapframe.core.pose import Pose

ARM_GRIPPER = EXAMPLES / "arm_gripper"
MODEL_CONFIG = """<?xml version="1.0"?>
<model><name>{name}</name><sdf version="1.9">model.sdf</sdf></model>"""
PART = """<?xml version="1.0"?>
<sdf version="1.9"><model name="{name}"><link name="l"/>
<frame name="pf" attached_to="l"><pose>0 0 0.1 0 0 0</pose></frame></model></sdf>"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def arm_folder(tmp_path):
    folder = tmp_path / "arm_gripper"
    shutil.copytree(ARM_GRIPPER, folder)
    return folder


def _load(path: Path, **context):
    doc = load(path, LoadContext(use_environment=False, **context))
    assert not doc.diagnostics.errors, [str(d) for d in doc.diagnostics.errors]
    return doc


def _drive(doc, save_as: Path, make):
    """Push the command ``make()`` builds, undo, redo: each checked against references."""
    rec = Recorder(doc.live)
    check_step(doc, rec, lambda: doc.commands.push(make()), save_as)
    check_step(doc, rec, doc.commands.undo, save_as)
    check_step(doc, rec, doc.commands.redo, save_as)
    return rec


# -- 1. which URI ---------------------------------------------------------------------------

@pytest.fixture
def layout(tmp_path):
    """project/assembly.sdf, project/parts/, a sibling folder, a model path and a ROS
    package path (both outside the project), and a far-away file."""
    project = tmp_path / "ws" / "project"
    doc_path = _write(project / "assembly.sdf", PART.format(name="assembly"))
    files = {
        "here": _write(project / "gripper.sdf", PART.format(name="g1")),
        "below": _write(project / "parts" / "gripper.sdf", PART.format(name="g2")),
        "sibling": _write(tmp_path / "ws" / "shared" / "bracket.sdf", PART.format(name="b")),
        "model": _write(tmp_path / "models" / "hand" / "model.sdf", PART.format(name="hand")),
        "model_other": _write(tmp_path / "models" / "hand" / "hand_v2.sdf",
                              PART.format(name="hand2")),
        "package": _write(tmp_path / "ros" / "my_robot" / "urdf" / "arm.sdf",
                          PART.format(name="rosarm")),
        "far": _write(tmp_path / "elsewhere" / "deep" / "thing.sdf", PART.format(name="t")),
    }
    _write(tmp_path / "models" / "hand" / "model.config", MODEL_CONFIG.format(name="hand"))
    _write(tmp_path / "ros" / "my_robot" / "package.xml", "<package><name>my_robot</name></package>")
    search = [tmp_path / "models", tmp_path / "ros"]
    return doc_path, files, search


def test_include_uri_follows_the_documented_rule(layout, tmp_path):
    doc_path, files, search = layout
    doc = _load(doc_path, search_paths=search)
    uri = {name: include_uri_for(doc, path) for name, path in files.items()}
    assert uri["here"] == "file://gripper.sdf"
    assert uri["below"] == "file://parts/gripper.sdf"
    assert uri["sibling"] == "file://../shared/bracket.sdf"
    assert uri["model"] == "model://hand"
    assert include_uri_for(doc, files["model"].parent) == "model://hand"     # the folder
    assert uri["model_other"] == "model://hand/hand_v2.sdf"
    assert uri["package"] == "package://my_robot/urdf/arm.sdf"
    assert uri["far"] == "file://" + files["far"].resolve().as_posix()
    # every URI names the same file again when the document includes it
    for name, path in files.items():
        add = AddInclude(doc, doc.root, uri[name], name=f"inc_{name}")
        doc.commands.push(add)
        assert Path(add.include.resolved_path) == path.resolve(), name
    assert not doc.diagnostics.errors
    # explicit search paths replace the document's: without them, no model:// form
    assert include_uri_for(doc, files["model"], []) == \
        "file://" + files["model"].resolve().as_posix()


def test_include_uri_prefers_the_document_folder_and_avoids_shadowed_names(tmp_path):
    # a model folder inside the project, on a search path too: the relative form wins
    project = tmp_path / "p"
    doc_path = _write(project / "a.sdf", PART.format(name="a"))
    inside = _write(project / "hand" / "model.sdf", PART.format(name="hand"))
    _write(project / "hand" / "model.config", MODEL_CONFIG.format(name="hand"))
    doc = _load(doc_path, search_paths=[project])
    assert include_uri_for(doc, inside) == "file://hand/model.sdf"
    # model://hand would find another "hand" first (an earlier search path): not used
    other = tmp_path / "first"
    _write(other / "hand" / "model.sdf", PART.format(name="other"))
    _write(other / "hand" / "model.config", MODEL_CONFIG.format(name="hand"))
    real = _write(tmp_path / "second" / "hand" / "model.sdf", PART.format(name="hand"))
    _write(tmp_path / "second" / "hand" / "model.config", MODEL_CONFIG.format(name="hand"))
    far_doc = _load(_write(tmp_path / "x" / "y" / "z" / "doc.sdf", PART.format(name="d")))
    assert include_uri_for(far_doc, real, [other, tmp_path / "second"]) == \
        "file://" + real.resolve().as_posix()
    assert include_uri_for(far_doc, real, [tmp_path / "second", other]) == "model://hand"


def test_include_uri_of_an_unsaved_document_is_never_relative(layout):
    from snapframe.core.model import Document, Model
    _, files, search = layout
    doc = Document(root=Model(name="new"), format="sdformat", version="1.9")
    assert include_uri_for(doc, files["here"], search) == \
        "file://" + files["here"].resolve().as_posix()
    assert include_uri_for(doc, files["model"], search) == "model://hand"


# -- 2. placing a part ----------------------------------------------------------------------

# The composition proposal's weld example (resources/examples/arm_gripper): the gripper's
# mount_point coincides with the arm's gripper_mount; poses in the arm's model frame.
X_A_MOUNT = xyz_rpy(0, 0, 1.0, 0, 0, math.pi / 2)
X_A_GRIPPER = xyz_rpy(0, 0, 1.02, 0, 0, math.pi / 4)


def test_place_the_gripper_on_the_arm_with_a_weld(arm_folder):
    path = arm_folder / "arm.sdf"
    doc = _load(path)
    unedited = arm_folder / "unedited.sdf"
    doc.save(unedited, flatten=False)
    doc = _load(path)
    save_as = arm_folder / "checked.sdf"
    uri = include_uri_for(doc, arm_folder / "gripper.sdf")
    assert uri == "file://gripper.sdf"
    place = lambda: PlaceInclude(doc, doc.root, uri, placement_frame="mount_point",
                                 target="arm::gripper_mount", connect="weld")
    rec = _drive(doc, save_as, place)
    assert len(doc.commands) == 1                              # one undo step
    assert {"gripper", "gripper::body", "gripper::mount_point", "gripper_weld"} <= \
        set(rec.structure[-1].added)
    weld = doc.element("gripper_weld")
    assert (weld.type, weld.parent_name, weld.child_name) == \
        ("fixed", "gripper_mount", "gripper::mount_point")
    include = doc.element("gripper")
    assert (include.placement_frame, include.pose.relative_to) == \
        ("mount_point", "gripper_mount")
    table = doc.live.poses
    assert np.allclose(table.pose("gripper::mount_point"), X_A_MOUNT, atol=1e-12)
    assert np.allclose(table.pose("gripper"), X_A_GRIPPER, atol=1e-12)

    # saved and read by libsdformat: the same poses, and those of arm_and_gripper.sdf
    placed = arm_folder / "placed.sdf"
    assert doc.save(placed, flatten=False) == []
    libsdf = oracle_poses(placed)
    assert np.allclose(libsdf["gripper::mount_point"], X_A_MOUNT, atol=1e-9)
    assert np.allclose(libsdf["gripper"], X_A_GRIPPER, atol=1e-9)
    assert_poses(libsdf, doc.live.poses.as_dict(), [k for k in libsdf if k])
    example = oracle_poses(ARM_GRIPPER / "arm_and_gripper.sdf")
    gripper_keys = [k for k in example if k.startswith("gripper")]
    assert len(gripper_keys) == 7
    assert_poses(example, libsdf, gripper_keys)
    assert_poses({k: example["arm::" + k] for k in ("gripper_mount", "forearm", "elbow")},
                 libsdf)
    assert np.allclose(libsdf["gripper_weld"], example["weld"], atol=1e-9)
    # a fresh load of the saved file agrees too
    assert_poses(reference_poses(_load(placed)), doc.live.poses.as_dict(), [
        k for k in libsdf if k])

    # one undo removes everything: the save is the unedited one, byte for byte
    doc.commands.undo()
    undone = arm_folder / "undone.sdf"
    doc.save(undone, flatten=False)
    assert undone.read_bytes() == unedited.read_bytes()
    assert doc.commands.is_clean


def test_placing_in_an_assembly_reproduces_the_bundled_example(arm_folder):
    asm = _write(arm_folder / "asm.sdf", """<?xml version="1.0"?>
<sdf version="1.9"><model name="arm_and_gripper">
  <include><uri>file://arm.sdf</uri></include>
</model></sdf>""")
    doc = _load(asm)
    _drive(doc, arm_folder / "checked.sdf", lambda: PlaceInclude(
        doc, doc.root, include_uri_for(doc, arm_folder / "gripper.sdf"),
        placement_frame="mount_point", target="arm::gripper_mount",
        connect=JointSpec(name="weld")))
    doc.save(flatten=False)
    mine = oracle_poses(asm)
    example = oracle_poses(ARM_GRIPPER / "arm_and_gripper.sdf")
    assert mine.keys() == example.keys()
    assert_poses(example, mine)
    # written as the bundled file writes it
    text = asm.read_text()
    for piece in ("<placement_frame>mount_point</placement_frame>",
                  '<pose relative_to="arm::gripper_mount">',
                  "<parent>arm::gripper_mount</parent>", "<child>gripper::mount_point</child>"):
        assert piece in text


def test_offsets_flip_and_quarter_turns(arm_folder):
    assert np.array_equal(rotate90_offset("z").rotation_matrix(),
                          [[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    assert np.array_equal(flip_offset().rotation_matrix(), np.diag([1.0, -1.0, -1.0]))
    assert np.array_equal(rotate90_offset("-z", 3).rotation_matrix(),
                          rotate90_offset("z", 1).rotation_matrix())
    assert rotate90_offset("y", 4).is_identity(0.0)
    for k in range(-3, 5):
        expected = Pose.from_xyz_rpy(pitch=math.pi / 2 * k).rotation_matrix()
        assert np.allclose(rotate90_offset("y", k).rotation_matrix(), expected, atol=1e-15)
    with pytest.raises(EditRefused):
        rotate90_offset("w")
    with pytest.raises(EditRefused):
        rotate90_offset((1, 1, 0))

    doc = _load(arm_folder / "arm.sdf")
    offset = Pose.translation(0, 0, 0.05) @ flip_offset() @ rotate90_offset("z")
    doc.commands.push(PlaceInclude(doc, doc.root, "file://gripper.sdf",
                                   placement_frame="mount_point", target="gripper_mount",
                                   offset=offset, connect="weld"))
    # the placement frame is at the offset, in the target frame
    X_T = doc.live.poses.pose("gripper_mount")
    X_PF = doc.live.poses.pose("gripper::mount_point")
    assert np.allclose(np.linalg.inv(X_T) @ X_PF, offset.matrix(), atol=1e-12)
    assert X_PF[2, 2] == pytest.approx(-1.0)         # flipped: z against the target's z
    out = arm_folder / "flipped.sdf"
    doc.save(out, flatten=False)
    assert_poses(oracle_poses(out), doc.live.poses.as_dict(),
                 ["gripper::mount_point", "gripper", "gripper::left_finger", "gripper_weld"])


def test_place_with_a_revolute_joint(arm_folder):
    doc = _load(arm_folder / "arm.sdf")
    spec = JointSpec("revolute", axis=(0, 0, 2), lower=-1.0, upper=1.0, name="wrist",
                     expressed_in="hand::mount_point")
    save_as = arm_folder / "checked.sdf"
    _drive(doc, save_as, lambda: PlaceInclude(doc, doc.root, "file://gripper.sdf",
                                               name="hand", placement_frame="mount_point",
                                               target="gripper_mount", connect=spec))
    wrist = doc.element("wrist")
    assert (wrist.type, wrist.parent_name, wrist.child_name) == \
        ("revolute", "gripper_mount", "hand::mount_point")
    axis = wrist.axes[0]
    assert (axis.xyz, axis.expressed_in, axis.lower, axis.upper) == \
        ((0.0, 0.0, 1.0), "hand::mount_point", -1.0, 1.0)
    # the joint frame is the placement frame: it turns the hand about the mount's z
    joints = doc.live.joints
    joints.set_position("wrist", 0.5)
    X_mount = doc.live.poses.pose("gripper_mount")
    X_pf = doc.live.poses.pose("hand::mount_point")
    assert np.allclose(np.linalg.inv(X_mount) @ X_pf, xyz_rpy(yaw=0.5), atol=1e-12)
    joints.reset()
    out = arm_folder / "wrist.sdf"
    doc.save(out, flatten=False)
    assert_poses(oracle_poses(out), doc.live.poses.as_dict(), ["wrist", "hand::body"])


def test_an_openplx_part_in_an_sdformat_assembly(arm_folder):
    shutil.copy(EXAMPLES / "openplx" / "clock.openplx", arm_folder / "clock.openplx")
    doc = _load(arm_folder / "arm.sdf")
    uri = include_uri_for(doc, arm_folder / "clock.openplx")
    _drive(doc, arm_folder / "checked.sdf", lambda: PlaceInclude(
        doc, doc.root, uri, name="clock", placement_frame="face.center",
        target="gripper_mount", offset=flip_offset(), connect="weld"))
    X = np.linalg.inv(doc.live.poses.pose("gripper_mount")) @ \
        doc.live.poses.pose("clock::face.center")
    assert np.allclose(X, flip_offset().matrix(), atol=1e-12)
    assert doc.element("clock_weld").child_name == "clock::face.center"


def test_refusals_leave_the_document_unchanged(arm_folder, tmp_path):
    doc = _load(arm_folder / "arm_and_gripper.sdf")
    before = arm_folder / "before.sdf"
    doc.save(before, flatten=False)
    poses = doc.live.poses.as_dict()
    diagnostics = list(doc.diagnostics)
    nested = _load(_write(arm_folder / "nested.sdf", """<?xml version="1.0"?>
<sdf version="1.9"><model name="top"><link name="l"/>
  <model name="sub"><link name="s"/></model></model></sdf>"""))
    cases = {
        "taken": lambda: PlaceInclude(doc, doc.root, "file://gripper.sdf",
                                      placement_frame="mount_point", target="arm::gripper_mount"),
        "no placement frame": lambda: PlaceInclude(doc, doc.root, "file://gripper.sdf",
                                                   name="g2", placement_frame="nowhere",
                                                   target="arm::gripper_mount"),
        "no target": lambda: PlaceInclude(doc, doc.root, "file://gripper.sdf", name="g2",
                                          placement_frame="mount_point", target="arm::nothing"),
        "no file": lambda: PlaceInclude(doc, doc.root, "file://missing.sdf", name="g2"),
        "joint name taken": lambda: PlaceInclude(doc, doc.root, "file://gripper.sdf",
                                                 name="g2", placement_frame="mount_point",
                                                 target="arm::gripper_mount",
                                                 connect=JointSpec(name="weld")),
        "ball joint": lambda: PlaceInclude(doc, doc.root, "file://gripper.sdf", name="g2",
                                           target="arm::gripper_mount",
                                           connect=JointSpec("ball")),
        "joint without target": lambda: PlaceInclude(doc, doc.root, "file://gripper.sdf",
                                                     name="g2", connect="weld"),
        "included parent": lambda: PlaceInclude(doc, doc.element("arm"), "file://gripper.sdf"),
        "bad offset": lambda: PlaceInclude(doc, doc.root, "file://gripper.sdf", name="g2",
                                           offset=Pose.translation(math.nan, 0, 0)),
    }
    for why, make in cases.items():
        with pytest.raises(EditRefused) as refused:
            doc.commands.push(make())
        assert str(refused.value), why
    # upwards: a model in a model places only relative to frames inside it
    with pytest.raises(EditRefused, match="outside"):
        PlaceInclude(nested, nested.element("sub"), str(arm_folder / "gripper.sdf"),
                     placement_frame="mount_point", target="l")
    assert len(doc.commands) == 0
    assert list(doc.diagnostics) == diagnostics
    after = arm_folder / "after.sdf"
    doc.save(after, flatten=False)
    assert after.read_bytes() == before.read_bytes()
    assert_poses(poses, doc.live.poses.as_dict(), atol=0.0)


def test_a_reference_waiting_for_the_part_is_not_a_target(arm_folder):
    """A frame placed relative to the part before it exists (a dangling reference) cannot
    be the target: placing the part there would close a relative_to cycle."""
    doc = _load(arm_folder / "arm.sdf")
    doc.commands.push(AddFrame(doc, doc.root, "slot", attached_to="forearm",
                               pose=Pose(), relative_to="gripper::mount_point"))
    with pytest.raises(EditRefused, match="cannot be resolved"):
        PlaceInclude(doc, doc.root, "file://gripper.sdf", placement_frame="mount_point",
                     target="slot")
    assert len(doc.commands) == 1


def test_versions_and_formats_that_cannot_express_it(arm_folder, tmp_path):
    old = _load(_write(arm_folder / "old.sdf", """<?xml version="1.0"?>
<sdf version="1.7"><model name="old"><link name="l"/>
<frame name="f" attached_to="l"/></model></sdf>"""))
    with pytest.raises(EditRefused, match="1.8"):
        PlaceInclude(old, old.root, "file://gripper.sdf", placement_frame="mount_point",
                     target="f")
    world = _load(_write(arm_folder / "world.sdf", """<?xml version="1.0"?>
<sdf version="1.9"><world name="w"><include><uri>file://arm.sdf</uri></include></world></sdf>"""))
    with pytest.raises(EditRefused, match="1.10"):
        PlaceInclude(world, world.root, "file://gripper.sdf", placement_frame="mount_point",
                     target="arm::gripper_mount", connect="weld")
    # placing without a joint is fine in a 1.9 world
    world.commands.push(PlaceInclude(world, world.root, "file://gripper.sdf",
                                     placement_frame="mount_point",
                                     target="arm::gripper_mount"))
    assert np.allclose(world.live.poses.pose("gripper::mount_point"),
                       world.live.poses.pose("arm::gripper_mount"), atol=1e-12)
    shutil.copy(EXAMPLES / "openplx" / "clock.openplx", arm_folder / "clock.openplx")
    clock = _load(arm_folder / "clock.openplx")
    with pytest.raises(EditRefused, match="mate"):
        PlaceInclude(clock, clock.root, "file://gripper.sdf", placement_frame="mount_point",
                     target="face")


def test_place_into_a_nested_model(arm_folder):
    path = _write(arm_folder / "bench.sdf", """<?xml version="1.0"?>
<sdf version="1.9"><model name="bench"><link name="table"/>
  <model name="station"><pose>1 0 0.5 0 0 0.4</pose>
    <link name="plate"/>
    <frame name="socket" attached_to="plate"><pose>0 0.2 0.1 0.3 0 0</pose></frame>
  </model>
</model></sdf>""")
    doc = _load(path)
    station = doc.element("station")
    place = PlaceInclude(doc, "station", include_uri_for(doc, arm_folder / "gripper.sdf"),
                         placement_frame="mount_point", target="station::socket",
                         connect="weld")
    _drive(doc, arm_folder / "checked.sdf", lambda: place)
    assert place.include.parent is station and place.joint.parent is station
    assert place.include.pose.relative_to == "socket"
    assert (place.joint.parent_name, place.joint.child_name) == \
        ("socket", "gripper::mount_point")
    table = doc.live.poses
    assert np.allclose(table.pose("station::gripper::mount_point"),
                       table.pose("station::socket"), atol=1e-12)
    doc.save(flatten=False)
    assert_poses(oracle_poses(path), table.as_dict(),
                 ["station::gripper::mount_point", "station::gripper::left_finger",
                  "station::gripper_weld"])
