"""URDF through SDFormat ``//include``: frames in the including graph, errors, precedence."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from snapframe.core.diagnostics import Code
from snapframe.core.formats import FormatDescriptor, registry as global_registry
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Link, Model, PoseSpec
from snapframe.core.pose import Pose
from snapframe.plugins.urdf import FORMAT

DATA = Path(__file__).resolve().parents[2] / "data" / "urdf"
CELL = DATA / "cell.sdf"

# World poses for cell.sdf, derived by hand.  Rotations are row-major 3x3 tuples.
RZ90 = (0, -1, 0, 1, 0, 0, 0, 0, 1)
RX90 = (1, 0, 0, 0, 0, -1, 0, 1, 0)
R_FOREARM = (0, 0, 1, 1, 0, 0, 0, 1, 0)  # Rz90 @ Rx90 (see test_urdf_reader.py)
I3 = (1, 0, 0, 0, 1, 0, 0, 0, 1)
# X_W_cell   = T(1, 2, 0).
# X_cell_mount = T(0, 0, 0.8) Rz90 (relative to table, which sits at the cell origin).
# The include places its placement frame upper_arm at X_cell_mount @ T(0, 0, 0.2)
#   = T(0, 0, 1.0) Rz90 (a translation along z is unchanged by a yaw).
# In the URDF, X_M_upper = T(0, 0, 0.2) Rz90, so
#   X_cell_M = X_cell_upper @ inv(X_M_upper) = [Rz90 | (0,0,1)] @ [Rz-90 | (0,0,-0.2)]
#            = [I | (0, 0, 1) + Rz90 (0, 0, -0.2)] = T(0, 0, 0.8).
# Every URDF link is then X_W_cell @ X_cell_M @ X_M_L = T(1, 2, 0.8) @ X_M_L, with X_M_L from
# test_urdf_reader.py.  gripper = tool_link @ T(0, 0, 0.05): Rx90 maps +z to (0, -1, 0), so
# it sits 0.05 lower in y; tcp (0.1 along the tool's z) likewise.
CELL_WORLD_POSES = {
    "cell": Pose(I3, (1, 2, 0)),
    "cell::mount": Pose(RZ90, (1, 2, 0.8)),
    "cell::my_urdf": Pose(I3, (1, 2, 0.8)),
    "cell::my_urdf::base_link": Pose(I3, (1, 2, 0.8)),
    "cell::my_urdf::upper_arm": Pose(RZ90, (1, 2, 1.0)),
    "cell::my_urdf::forearm": Pose(R_FOREARM, (1, 2.5, 1.0)),
    "cell::my_urdf::tool_link": Pose(RX90, (1.3, 2.5, 1.0)),
    "cell::my_urdf::elbow": Pose(R_FOREARM, (1, 2.5, 1.0)),  # joint frame = child frame
    "cell::gripper": Pose(RX90, (1.3, 2.45, 1.0)),
    "cell::gripper_weld": Pose(RX90, (1.3, 2.5, 1.0)),  # its child is my_urdf::tool_link
    "cell::tcp": Pose(RX90, (1.3, 2.4, 1.0)),
}


def context(**kw) -> LoadContext:
    return LoadContext(use_environment=False, **kw)


def world_poses(doc) -> dict[str, Pose]:
    return {f.name: f.pose for f in doc.frames.frames()}


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).strip() + "\n")
    return path


def test_descriptor_is_discovered_as_a_reader_and_include_parser():
    reg = global_registry.copy()
    assert reg.get("urdf") == FORMAT
    assert reg.for_path("robot.URDF") == FORMAT
    assert reg.for_path("robot.urdf", capability="write") == FORMAT   # URDF is written too
    assert FORMAT in reg.include_parsers()


def test_included_urdf_frames_join_the_world_graph():
    doc = load(CELL, context())
    assert not doc.diagnostics.items, [d.format() for d in doc.diagnostics]
    inc, = doc.includes()
    assert inc.format == "urdf" and inc.effective_name == "my_urdf"
    assert inc.model.name == "arm"  # the name override lives on the include, not the model
    poses = world_poses(doc)
    for name, expected in CELL_WORLD_POSES.items():
        assert poses[name].almost_equal(expected, 1e-12), (name, poses[name], expected)
    # Every URDF link and joint is listed under the include's name.
    assert {n for n in poses if n.startswith("cell::my_urdf::")} == {
        f"cell::my_urdf::{n}" for n in ("base_link", "upper_arm", "forearm", "tool_link",
                                        "shoulder", "elbow", "tool_mount")}


def test_a_joint_of_the_including_model_can_take_a_urdf_link_as_child():
    doc = load(CELL, context())
    cell = doc.root.models[0]
    weld, = cell.joints
    assert weld.child_name == "my_urdf::tool_link"
    scope = doc.frames.root.vertices["cell"].nested
    assert scope.body_of("gripper_weld") == "my_urdf::tool_link"
    assert scope.body_of("tcp") == "my_urdf::tool_link"
    assert scope.body_of("my_urdf") == "my_urdf::base_link"  # the canonical link


def test_frames_json_from_the_cli():
    def frames(path: Path) -> dict:
        p = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "frames", str(path),
                            "--json"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        data = json.loads(p.stdout)
        assert data["errors"] == []
        return data["frames"]

    data = frames(CELL)
    for name, expected in CELL_WORLD_POSES.items():
        got = Pose.from_xyz_quat(data[name]["pose"][:3], data[name]["pose"][3:])
        assert got.almost_equal(expected, 1e-9), (name, got, expected)
    assert data["cell::my_urdf::tool_link"]["kind"] == "link"
    assert data["cell::my_urdf"]["kind"] == "model"
    # [x, y, z, qw, qx, qy, qz]: Rx90 is the quaternion (cos 45, sin 45, 0, 0).
    assert data["cell::my_urdf::tool_link"]["pose"] == pytest.approx(
        [1.3, 2.5, 1.0, math.sqrt(0.5), math.sqrt(0.5), 0.0, 0.0], abs=1e-11)
    # A URDF file opens on its own as well.
    arm = frames(DATA / "arm.urdf")
    assert arm["arm"]["kind"] == "model"
    assert arm["arm::tool_link"]["pose"][:3] == [0.3, 0.5, 0.2]


def test_two_includes_share_the_parse_but_not_the_name_or_pose(tmp_path):
    write(tmp_path, "arm.urdf", (DATA / "arm.urdf").read_text())
    path = write(tmp_path, "w.sdf", """
        <sdf version="1.9"><world name="w">
          <include><uri>arm.urdf</uri></include>
          <include><uri>arm.urdf</uri><name>right</name><pose>0 -1 0 0 0 3.141592653589793</pose>
          </include>
        </world></sdf>""")
    doc = load(path, context())
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    left, right = doc.includes()
    assert left.model is right.model  # one parse per file
    poses = world_poses(doc)
    assert poses["arm::tool_link"].p == pytest.approx((0.3, 0.5, 0.2))  # the robot's own name
    # Yaw 180: (x, y) -> (-x, -y), then shifted by (0, -1).
    assert poses["right::tool_link"].p == pytest.approx((-0.3, -1.5, 0.2))


def test_include_in_a_model_file_and_world_root_urdf(tmp_path):
    write(tmp_path, "bolted.urdf", (DATA / "world_root.urdf").read_text())
    path = write(tmp_path, "m.sdf", """
        <sdf version="1.9"><model name="top">
          <link name="frame_rail"/>
          <include><uri>bolted.urdf</uri><pose>2 0 0 0 0 0</pose></include>
          <frame name="on_post" attached_to="bolted::post"/>
        </model></sdf>""")
    doc = load(path, context())
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    poses = world_poses(doc)
    assert poses["top::bolted::base"].p == pytest.approx((2, 0, 0.5))
    assert poses["top::on_post"].p == pytest.approx((2, 0, 1.5))
    # The URDF's world weld is a joint to SDFormat's world.
    scope = doc.frames.root
    assert scope.vertices["bolted"].nested.vertices["world_weld"].node.parent_name == "world"


@pytest.mark.parametrize("broken,needle,code", [
    ("loop.urdf", 'joint name="ab"', Code.ELEMENT_INVALID),
    ("malformed.urdf", "</link>", Code.FILE_READ),
    ("unknown_link.urdf", '<child link="hand"/>', Code.JOINT_CHILD_LINK_INVALID),
])
def test_urdf_errors_surface_in_the_including_document_with_file_and_line(tmp_path, broken,
                                                                          needle, code):
    urdf = tmp_path / "robot.urdf"
    urdf.write_text((DATA / "broken" / broken).read_text())
    path = write(tmp_path, "w.sdf", """
        <sdf version="1.9"><world name="w">
          <include><uri>robot.urdf</uri><name>r</name></include>
        </world></sdf>""")
    doc = load(path, context())
    first = doc.diagnostics.errors[0]
    line = next(i for i, t in enumerate(urdf.read_text().splitlines(), 1) if needle in t)
    assert (first.code, first.file, first.line) == (code, str(urdf.resolve()), line), first.format()
    inc, = doc.includes()
    assert inc.model is None and inc.format == "urdf"


def test_cli_check_prints_the_urdf_location(tmp_path):
    urdf = tmp_path / "robot.urdf"
    urdf.write_text((DATA / "broken" / "two_roots.urdf").read_text())
    path = write(tmp_path, "w.sdf", """
        <sdf version="1.9"><world name="w">
          <include><uri>robot.urdf</uri></include>
        </world></sdf>""")
    p = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "check", str(path)],
                       capture_output=True, text=True)
    assert p.returncode == 1
    assert f"{urdf.resolve()}:5: error ELEMENT_INVALID: URDF robot [two_roots] has 2 root links" \
        in p.stdout


# -- custom parser precedence (spec 1.5: the parser registered last is asked first) ----------
class FakeParsers:
    """Registers custom ``.urdf`` parsers backed by in-memory modules."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.registry = global_registry.copy()  # never touch the process-wide registry
        self.calls: list[str] = []

    def add(self, name: str, behaviour: str) -> None:
        calls = self.calls

        def parse_include(nested, context):
            calls.append(name)
            if behaviour == "decline":
                return None
            if behaviour == "error":
                context.diagnostics.error(Code.PLUGIN_ERROR, f"{name} refuses")
                return None
            # A stand-in interface model with the two frames cell.sdf refers to.
            model = Model(name=name, canonical_link="upper_arm")
            model.add(Link(name="upper_arm"))
            model.add(Link(name="tool_link", pose=PoseSpec(Pose(p=(1, 0, 0)))))
            return model

        module = types.ModuleType(f"_snapframe_test_{name}")
        module.parse_include = parse_include
        self.monkeypatch.setitem(sys.modules, module.__name__, module)
        self.registry.register(FormatDescriptor(
            name=name, label=name, extensions=(".urdf",), implementation=module.__name__,
            can_read=False, can_include=True))

    def load(self):
        return load(CELL, context(registry=self.registry))


def test_a_parser_registered_later_wins(monkeypatch):
    fakes = FakeParsers(monkeypatch)
    fakes.add("first_fake", "model")
    fakes.add("second_fake", "model")
    doc = fakes.load()
    inc, = doc.includes()
    assert inc.format == "second_fake" and inc.model.name == "second_fake"
    assert fakes.calls == ["second_fake"]
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    # The stand-in's tool_link is 1 m along the placement frame's x (yawed 90 deg): +y.
    poses = world_poses(doc)
    assert poses["cell::my_urdf::tool_link"].p == pytest.approx((1, 3, 1.0))
    assert global_registry.include_parsers()[0].name != "second_fake"  # no pollution


def test_a_declining_parser_falls_through_to_the_urdf_plugin(monkeypatch):
    fakes = FakeParsers(monkeypatch)
    fakes.add("picky", "decline")
    doc = fakes.load()
    inc, = doc.includes()
    assert fakes.calls == ["picky"] and inc.format == "urdf" and inc.model.name == "arm"
    assert not doc.diagnostics.items


def test_a_parser_that_reports_an_error_stops_the_search(monkeypatch):
    fakes = FakeParsers(monkeypatch)
    fakes.add("strict", "error")
    doc = fakes.load()
    inc, = doc.includes()
    assert inc.model is None and inc.format == "strict"
    assert doc.diagnostics.errors[0].message == "strict refuses"
    assert fakes.calls == ["strict"]


def test_the_urdf_plugin_registered_again_wins_over_a_fake(monkeypatch):
    fakes = FakeParsers(monkeypatch)
    fakes.add("impostor", "model")
    fakes.registry.register(FORMAT)  # re-registering moves it to the end: most recent
    doc = fakes.load()
    assert doc.includes()[0].format == "urdf" and fakes.calls == []


def test_flattening_an_assembly_writes_the_urdf_as_sdformat(tmp_path):
    # Nodes from URDF carry no XML element, so the SDFormat writer builds fresh SDFormat
    # elements for them instead of copying URDF markup.
    from snapframe.plugins.sdformat.writer import write as write_sdf
    doc = load(CELL, context())
    flat = tmp_path / "flat.sdf"
    write_sdf(doc, flat, flatten=True)
    assert "<robot" not in flat.read_text()
    again = load(flat, context())
    assert not again.diagnostics.has_errors(), [d.format() for d in again.diagnostics]
    assert not again.includes()
    poses = world_poses(again)
    for name, expected in CELL_WORLD_POSES.items():
        assert poses[name].almost_equal(expected, 1e-9), name
