"""Saving a composed SDFormat assembly as OpenPLX keeps it modular and keeps every body
where the frame graph (libsdformat's semantics) puts it once SNAP has assembled it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from snapframe.core.diagnostics import Code
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Document, Link, Model, PoseSpec
from snapframe.core.pose import Pose
from snapframe.plugins.openplx import format as openplx_format
from snapframe.plugins.openplx.loader import load_file
from snapframe.plugins.openplx.snap_input import assemble

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "resources" / "examples"


def _load(path: Path) -> Document:
    doc = load(path, LoadContext(search_paths=[path.parent], use_environment=False))
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    return doc


def _links(doc: Document, strip: str = "") -> dict[str, Pose]:
    return {f.name[len(strip):] if strip and f.name.startswith(strip) else f.name: f.pose
            for f in doc.frames.frames() if f.kind == "link"}


def _save(doc: Document, path: Path) -> tuple[str, list]:
    """Write as OpenPLX; the text and the warnings the save reported."""
    before = len(doc.diagnostics.items)
    openplx_format.write(doc, path)
    return path.read_text(), doc.diagnostics.items[before:]


def _assert_same_links(expected: dict[str, Pose], back: Document, strip: str = "") -> None:
    assert not back.diagnostics.has_errors(), [d.format() for d in back.diagnostics]
    got = _links(back, strip)
    assert set(got) == set(expected)
    for name, X in expected.items():
        assert got[name].almost_equal(X, 1e-9), name


def _types(text: str) -> list[str]:
    return re.findall(r"^(\w+) is Physics3D\.System", text, re.M)


def test_weld_example_keeps_both_files_as_types_and_snap_places_the_gripper(tmp_path):
    # The composition proposal's weld example: before, only the header was written.
    doc = _load(EXAMPLES / "arm_gripper" / "arm_and_gripper.sdf")
    text, warnings = _save(doc, tmp_path / "ag.openplx")
    assert _types(text) == ["Arm", "Gripper", "arm_and_gripper"]   # the assembled one last
    assert "    arm is Arm:\n        local_transform:" in text
    # The gripper is placed by its weld (a Lock between the two mount frames), not fixed.
    assert "    gripper is Gripper\n" in text
    assert "weld is Physics3D.Interactions.Lock:\n        connectors: [arm.forearm.weld_parent, " \
           "gripper.body.weld_child]" in text
    assert [w.code for w in warnings] == []
    _assert_same_links(_links(doc), openplx_format.read(tmp_path / "ag.openplx"))
    _, asm, _ = assemble(load_file(tmp_path / "ag.openplx"))
    assert asm.system("arm_and_gripper.gripper").declared is None
    assert asm.system("arm_and_gripper.arm").declared is not None


def test_flange_example_parses_shares_one_type_per_file_and_keeps_every_body(tmp_path):
    # Two nested models of three includes each: before, two empty systems that did not parse.
    doc = _load(EXAMPLES / "flanges" / "super_armio_bros.sdf")
    text, warnings = _save(doc, tmp_path / "sab.openplx")
    assert _types(text) == ["Arm", "FlangeElectric", "Gripper", "super_armio_bros_robot_1",
                            "FlangePneumatic", "super_armio_bros_robot_2", "super_armio_bros"]
    assert text.count("is Arm") == 2 and text.count("is Gripper") == 2
    assert warnings == []
    _assert_same_links(_links(doc), openplx_format.read(tmp_path / "sab.openplx"))


PART = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="link_part">
    <link name="body"><pose>0 0 0.1 0 0 0</pose>
      <inertial><mass>1</mass>
        <inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial>
    </link>
    <link name="tip"><pose relative_to="body">0 0 0.5 0 0 0</pose></link>
    <joint name="bend" type="revolute"><parent>body</parent><child>tip</child>
      <axis><xyz>0 1 0</xyz>
        <limit><lower>-1</lower><upper>2</upper><effort>5</effort></limit></axis>
    </joint>
    <frame name="top_face" attached_to="tip"><pose>0 0 0.25 0 0 0.5</pose></frame>
    <frame name="bottom_face" attached_to="body"><pose>0 0 -0.05 3.14159 0 0</pose></frame>
  </model>
</sdf>
"""


def _chain(tmp_path: Path, count: int, joint: str = "revolute") -> Path:
    (tmp_path / "link_part.sdf").write_text(PART)
    body = ['<include><uri>link_part.sdf</uri><name>seg_0</name><pose>1 2 3 0 0 0.3</pose>'
            "</include>"]
    for i in range(1, count):
        body.append(f"<include><uri>link_part.sdf</uri><name>seg_{i}</name>"
                    f"<placement_frame>bottom_face</placement_frame>"
                    f'<pose relative_to="seg_{i - 1}::top_face">0 0 0 0 0 0.2</pose></include>'
                    f'<joint name="j{i}" type="{joint}"><parent>seg_{i - 1}::top_face</parent>'
                    f"<child>seg_{i}::bottom_face</child><axis><xyz>1 0 0</xyz></axis></joint>")
    top = tmp_path / "chain.sdf"
    top.write_text('<?xml version="1.0"?>\n<sdf version="1.9"><model name="chain">'
                   + "".join(body) + "</model></sdf>\n")
    return top


def test_includes_of_one_file_share_one_type_and_chain_through_snap(tmp_path):
    doc = _load(_chain(tmp_path, 5))
    text, _ = _save(doc, tmp_path / "chain.openplx")
    assert _types(text) == ["LinkPart", "chain"]
    assert text.count(" is LinkPart") == 5
    # Only the first segment is fixed; each next one hangs on its joint's hinge.
    assert len(re.findall(r"seg_\d is LinkPart:\n        local_transform", text)) == 1
    _assert_same_links(_links(doc), openplx_format.read(tmp_path / "chain.openplx"))


def test_joint_limits_become_ranges_and_what_mates_cannot_hold_is_reported(tmp_path):
    top = _chain(tmp_path, 2)
    (tmp_path / "link_part.sdf").write_text(PART.replace(
        '<link name="tip">',
        '<link name="tip"><visual name="shell"><geometry><sphere><radius>0.1</radius>'
        "</sphere></geometry><material><diffuse>1 0 0 1</diffuse></material></visual>"
        '<collision name="core"><density>2700</density><geometry><sphere><radius>0.1'
        "</radius></sphere></geometry></collision>"))
    doc = _load(top)
    text, warnings = _save(doc, tmp_path / "chain.openplx")
    assert ("bend_range is Physics3D.Interactions.RotationalRange:\n"
            "        connectors: bend.connectors\n        start: -1\n        end: 2") in text
    assert "            radius: 0.1\n            material.density: 2700\n" in text
    assert sorted(w.message for w in warnings) == [
        "model 'link_part': the colours of visual tip/shell have no counterpart in OpenPLX's "
        "visual materials; left out",
        "model 'link_part': the effort and velocity limits, damping and friction of joint "
        "bend have no counterpart on an OpenPLX mate; left out"]
    assert all(w.code == Code.CONVERSION_ERROR for w in warnings)
    assert openplx_format.read(tmp_path / "chain.openplx").diagnostics.errors == []


def test_a_loop_of_joints_between_includes_leaves_the_last_joint_to_be_checked(tmp_path):
    top = _chain(tmp_path, 3)
    text = top.read_text().replace(
        "</model></sdf>", '<joint name="closing" type="fixed"><parent>seg_2::tip</parent>'
        "<child>seg_0::body</child></joint></model></sdf>")
    top.write_text(text)
    doc = _load(top)
    out, _ = _save(doc, tmp_path / "loop.openplx")
    assert "seg_0 is LinkPart:\n        local_transform" in out   # the loop did not free it
    back = openplx_format.read(tmp_path / "loop.openplx")
    _assert_same_links(_links(doc), back)
    assert not [d for d in back.diagnostics if d.code in (Code.SNAP_FORCED, Code.SNAP_VIOLATED)]


WORLD = """<?xml version="1.0"?>
<sdf version="1.9">
  <world name="lab">
    <light name="sun" type="directional"/>
    <physics name="fast" type="ode"/>
    <include><uri>link_part.sdf</uri><name>left</name><pose>1 0 0 0 0 0</pose></include>
    <include><uri>link_part.sdf</uri><name>right</name><placement_frame>top_face</placement_frame>
      <pose relative_to="left::top_face">0 0 1 0 0 0</pose></include>
    <model name="ground"><static>true</static><link name="slab"/></model>
    <frame name="spot" attached_to="left"><pose>0 1 0 0 0 0</pose></frame>
  </world>
</sdf>
"""


def test_worlds_keep_their_includes_and_report_what_has_no_counterpart(tmp_path):
    (tmp_path / "link_part.sdf").write_text(PART)
    (tmp_path / "lab.sdf").write_text(WORLD)
    doc = _load(tmp_path / "lab.sdf")
    text, warnings = _save(doc, tmp_path / "lab.openplx")
    assert _types(text)[-1] == "lab"
    assert "    left is LinkPart:" in text and "    right is LinkPart:" in text
    assert "        is_dynamic: false" in text          # the static ground's body
    assert [w.message for w in warnings if "world" in w.message] == [
        "world 'lab': <light>, <physics> have no OpenPLX counterpart; left out"]
    back = openplx_format.read(tmp_path / "lab.openplx")
    _assert_same_links(_links(doc), back, strip="lab::")


def test_merge_includes_write_their_content_into_the_including_system(tmp_path):
    (tmp_path / "link_part.sdf").write_text(PART)
    top = tmp_path / "merged.sdf"
    top.write_text('<?xml version="1.0"?>\n<sdf version="1.9"><model name="merged">'
                   '<link name="base"/>'
                   '<include merge="true"><uri>link_part.sdf</uri><pose>0 1 0 0 0 0</pose>'
                   '</include><joint name="hold" type="fixed"><parent>base</parent>'
                   '<child>body</child></joint>'
                   "</model></sdf>\n")
    doc = _load(top)
    text, _ = _save(doc, tmp_path / "merged.openplx")
    assert _types(text) == ["merged"]
    assert "    tip is Physics3D.Bodies.RigidBody:" in text
    assert "_merged__" not in text      # the proxy frame is the frame graph's, not a connector
    _assert_same_links(_links(doc), openplx_format.read(tmp_path / "merged.openplx"))


def test_plugins_and_includes_that_failed_are_reported(tmp_path):
    (tmp_path / "link_part.sdf").write_text(PART)
    top = tmp_path / "odd.sdf"
    top.write_text('<?xml version="1.0"?>\n<sdf version="1.9"><model name="odd">'
                   '<link name="base"/><plugin name="ctl" filename="libctl.so"/>'
                   '<include><uri>link_part.sdf</uri></include>'
                   "</model></sdf>\n")
    doc = load(top, LoadContext(use_environment=False))
    doc.includes()[0].model = None     # as when the included file could not be read
    _, warnings = _save(doc, tmp_path / "odd.openplx")
    messages = [w.message for w in warnings]
    assert "plugin 'ctl' of model 'odd' has no OpenPLX counterpart; left out" in messages
    assert "include 'link_part.sdf' in model 'odd' was not loaded; nothing of it is written" \
        in messages


def test_a_model_with_only_includes_and_joints_is_a_valid_system(tmp_path):
    # An empty System has no block (a bare "X is Physics3D.System:" does not parse).
    model = Model(name="empty")
    text, _ = _save(Document(root=model, format="sdformat"), tmp_path / "empty.openplx")
    assert _types(text) == ["empty"] and "empty is Physics3D.System\n" in text
    assert load_file(tmp_path / "empty.openplx").all_problems() == []


def _nested_models(depth: int) -> Model:
    top = Model(name="m0")
    model = top
    for i in range(1, depth):
        model.add(Link(name=f"l{i}"))
        sub = Model(name=f"m{i}", pose=PoseSpec(Pose.from_xyz_rpy(1, 0, 0, 0, 0, 0.01), "", True))
        model.add(sub)
        model = sub
    model.add(Link(name="leaf"))
    return top


def test_a_thousand_nested_models_are_refused_without_recursion(tmp_path):
    # A reader expands MAX_SYSTEM_DEPTH systems below the assembled one: a deeper file
    # could not be opened again, so it is not written (and the walk does not recurse).
    import pytest
    from snapframe.plugins.nesting import NestingTooDeep
    from snapframe.plugins.openplx.physics import MAX_SYSTEM_DEPTH
    limit = sys.getrecursionlimit()
    doc = Document(root=_nested_models(1000), format="sdformat")
    with pytest.raises(NestingTooDeep, match=f"nested 999 deep .* expand {MAX_SYSTEM_DEPTH}"):
        openplx_format.write(doc, tmp_path / "deep.openplx")
    assert sys.getrecursionlimit() == limit
    assert not (tmp_path / "deep.openplx").exists()
    # As deep as a reader expands: written, and read back whole.
    depth = MAX_SYSTEM_DEPTH + 1
    text, _ = _save(Document(root=_nested_models(depth), format="sdformat"),
                    tmp_path / "deepest.openplx")
    types = _types(text)
    assert len(types) == depth and types[-1] == "m0"
    assert max(len(t) for t in types) <= 64           # type names do not grow with depth
    assert "    leaf is Physics3D.Bodies.RigidBody:" in text
    back = load(tmp_path / "deepest.openplx")
    assert not back.diagnostics.has_errors(), [d.format() for d in back.diagnostics.errors]
