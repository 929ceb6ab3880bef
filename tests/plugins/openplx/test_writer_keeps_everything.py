"""The OpenPLX writer (documents from SDFormat or URDF): SDFormat's default inertia written
explicitly, names kept when they are OpenPLX names and every rename reported, every world
of a file written, everything else OpenPLX cannot hold reported naming the element, and
no file its own reader would refuse for nesting."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Document
from snapframe.plugins.nesting import NestingTooDeep
from snapframe.plugins.openplx import format as openplx_format
from snapframe.plugins.openplx.physics import MAX_SYSTEM_DEPTH

REAL = Path(__file__).resolve().parents[2] / "data" / "sdformat_real"


def _sdf(tmp_path: Path, body: str, name: str = "m.sdf") -> Document:
    path = tmp_path / name
    path.write_text(f'<?xml version="1.0"?>\n<sdf version="1.9">{body}</sdf>\n')
    doc = load(path, LoadContext(search_paths=[tmp_path], use_environment=False))
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics.errors]
    return doc


def _save(doc: Document, path: Path) -> tuple[str, list[str]]:
    before = len(doc.diagnostics.items)
    openplx_format.write(doc, path)
    return path.read_text(), [d.message for d in doc.diagnostics.items[before:]]


def _read_back(path: Path) -> Document:
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics.errors]
    return doc


# -- bug 5e: a link without <inertial> has mass 1 (SDFormat), not 0 (OpenPLX) --------------
def test_sdformats_default_inertia_is_written_explicitly(tmp_path):
    doc = _sdf(tmp_path, """<model name="m">
      <link name="base"><inertial><mass>2</mass></inertial></link>
      <link name="arm"><pose>0 0 1 0 0 0</pose></link>
      <link name="nomass"><pose>0 0 2 0 0 0</pose><inertial><pose>0 0 0.1 0 0 0</pose>
        </inertial></link>
      <joint name="j" type="revolute"><parent>base</parent><child>arm</child>
        <axis><xyz>0 1 0</xyz></axis></joint></model>""")
    text, _ = _save(doc, tmp_path / "m.openplx")
    back = _read_back(tmp_path / "m.openplx")
    links = {link.name: link for link in back.root.links}
    # SDFormat spec (link.sdf / inertial.sdf): <mass> defaults to 1, <inertia> to ixx=iyy=
    # izz=1 with no products; a link without <inertial> has these values.
    for name, mass in (("base", 2.0), ("arm", 1.0), ("nomass", 1.0)):
        inertial = links[name].inertial
        assert inertial.mass == mass, name
        assert (inertial.ixx, inertial.iyy, inertial.izz) == (1.0, 1.0, 1.0), name
        assert (inertial.ixy, inertial.ixz, inertial.iyz) == (0.0, 0.0, 0.0), name


def test_automatic_inertia_without_a_mass_is_left_to_the_geometry(tmp_path):
    doc = _sdf(tmp_path, """<model name="m"><link name="a"><inertial auto="true"/>
      <collision name="c"><density>2</density><geometry><box><size>1 1 1</size></box>
      </geometry></collision></link></model>""")
    text, _ = _save(doc, tmp_path / "m.openplx")
    assert "inertia.mass" not in text


# -- bug 16: names ----------------------------------------------------------------------------
@pytest.mark.parametrize("first, second", [("a-b", "a_b"), ("a_b", "a-b")])
def test_a_valid_name_is_kept_and_a_renamed_one_gets_a_fresh_name(tmp_path, first, second):
    z = {first: 0, second: 1}
    doc = _sdf(tmp_path, f"""<model name="m">
      <link name="{first}"><pose>0 0 {z[first]} 0 0 0</pose></link>
      <link name="{second}"><pose>0 0 {z[second]} 0 0 0</pose></link>
      <link name="is"><pose>0 0 5 0 0 0</pose></link></model>""")
    _, warnings = _save(doc, tmp_path / "m.openplx")
    back = _read_back(tmp_path / "m.openplx")
    heights = {link.name: link.pose.value.p[2] for link in back.root.links}
    # OpenPLX "a_b" is SDFormat's "a_b", whatever the order; "a-b" is a fresh name.
    assert heights["a_b"] == z["a_b"] and heights["a_b_2"] == z["a-b"]
    assert heights["is_"] == 5.0   # "is" is an OpenPLX keyword
    assert sorted(w for w in warnings if "is written as" in w) == [
        "link 'a-b' is written as 'a_b_2' in OpenPLX (not an OpenPLX identifier)",
        "link 'is' is written as 'is_' in OpenPLX (an OpenPLX keyword)"]


def test_renamed_frames_joints_and_geometries_are_reported(tmp_path):
    doc = _sdf(tmp_path, """<model name="m">
      <link name="a"><collision name="c-1"><geometry><sphere><radius>1</radius></sphere>
        </geometry></collision></link>
      <link name="b"><pose>0 0 1 0 0 0</pose></link>
      <frame name="f.x" attached_to="a"/>
      <joint name="j-1" type="fixed"><parent>a</parent><child>b</child></joint></model>""")
    _, warnings = _save(doc, tmp_path / "m.openplx")
    renamed = sorted(w for w in warnings if "is written as" in w)
    assert renamed == [
        "collision of link 'a' 'c-1' is written as 'c_1' in OpenPLX (not an OpenPLX identifier)",
        "frame 'f.x' is written as 'f_x' in OpenPLX (not an OpenPLX identifier)",
        "joint 'j-1' is written as 'j_1' in OpenPLX (not an OpenPLX identifier)"]
    _read_back(tmp_path / "m.openplx")


# -- bug 5a: every world ------------------------------------------------------------------------
def test_every_world_of_a_file_is_written(tmp_path):
    doc = load(REAL / "handmade" / "two_worlds.sdf", LoadContext(use_environment=False))
    text, warnings = _save(doc, tmp_path / "w.openplx")
    assert "second is Physics3D.System:" in text and "first is Physics3D.System:" in text
    # Tools assemble the last System: the document's own (first) world, as before.
    assert text.rstrip().rfind("first is Physics3D.System:") > text.find("second is")
    back = _read_back(tmp_path / "w.openplx")
    poses = {f.name: f.pose for f in back.frames.frames()}
    expected = {f.name: f.pose for f in doc.frames.frames()}
    for name, X in expected.items():
        assert poses[f"first::{name}"].almost_equal(X, 1e-9), name


# -- bug 5b: what OpenPLX cannot hold is reported naming the element ----------------------------
def test_everything_openplx_cannot_hold_is_reported(tmp_path):
    from tests.plugins.urdf.test_urdf_writer_keeps_everything import RICH
    (tmp_path / "rich.sdf").write_text(RICH)
    doc = load(tmp_path / "rich.sdf", LoadContext(use_environment=False))
    _, warnings = _save(doc, tmp_path / "rich.openplx")
    for expected in (
            "plugin 'foo' of model 'rich' has no OpenPLX counterpart; left out",
            "model 'rich': <self_collide> has no OpenPLX counterpart; left out",
            "link 'base': <gravity>, <kinematic>, <sensor>, <light> have no OpenPLX "
            "counterpart; left out",
            "visual 'v' of link 'base': <transparency> has no OpenPLX counterpart; left out",
            "collision 'c' of link 'base': <surface> has no OpenPLX counterpart; left out",
            "joint 'j': <physics>, <sensor>, <axis/dynamics/spring_stiffness>, "
            "<axis/dynamics/spring_reference> have no OpenPLX counterpart; left out"):
        assert expected in warnings, (expected, warnings)


def test_urdf_extensions_openplx_cannot_hold_are_reported(tmp_path):
    (tmp_path / "r.urdf").write_text("""<robot name="r">
      <gazebo><plugin name="p" filename="libp.so"/></gazebo>
      <link name="a"/><link name="b"/>
      <joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>
      <gazebo reference="a"><sensor name="s" type="imu"/></gazebo>
      <transmission name="t"/></robot>""")
    doc = load(tmp_path / "r.urdf", LoadContext(use_environment=False))
    _, warnings = _save(doc, tmp_path / "r.openplx")
    assert "model 'r': <plugin> has no OpenPLX counterpart; left out" in warnings
    assert "link 'a': <sensor> has no OpenPLX counterpart; left out" in warnings
    assert any('<transmission name="t">' in w for w in warnings)


# -- bug 4: nothing deeper than its reader expands --------------------------------------------
def test_includes_nested_deeper_than_the_reader_expands_are_refused(tmp_path):
    # /tmp/review8/repro/deepplx: 14 files of 5 nested models, each including the next.
    files, per_file = 14, 5
    for f in range(files):
        body = "".join(f'<model name="m{i}"><link name="l{i}"/>' for i in range(per_file))
        if f < files - 1:
            body += f"<include><uri>f{f + 1}.sdf</uri><name>inc</name></include>"
        (tmp_path / f"f{f}.sdf").write_text('<?xml version="1.0"?>\n<sdf version="1.9">'
                                             f"{body}{'</model>' * per_file}</sdf>\n")
    doc = load(tmp_path / "f0.sdf", LoadContext(use_environment=False))
    assert files * per_file - 1 > MAX_SYSTEM_DEPTH
    with pytest.raises(NestingTooDeep, match=f"expand {MAX_SYSTEM_DEPTH}"):
        doc.save(tmp_path / "o.openplx")
    assert not (tmp_path / "o.openplx").exists()


def test_a_frame_and_a_joint_added_to_an_openplx_file_report_their_renames(tmp_path):
    # Saving edits of a file read from OpenPLX (mate_writer): a keyword or a non-identifier
    # cannot be kept as written; the new name is said.
    from snapframe.core.model import Frame, Joint, JointAxis, PoseSpec
    from snapframe.core.pose import Pose
    clock = Path(__file__).resolve().parents[3] / "resources" / "examples" / "openplx" / \
        "clock.openplx"
    doc = openplx_format.read(clock)
    root = doc.root
    root.add(Frame(name="is", attached_to="face",
                   pose=PoseSpec(Pose.translation(0, 0, 0.2), "", True)))
    [hinge] = root.mates
    root.entities.remove(hinge)
    root.add(Joint(name="spin-2", type="revolute", parent_name="face", child_name="hour_hand",
                   axes=[JointAxis((0.0, 0.0, 1.0))]))
    _, warnings = _save(doc, tmp_path / "clock.openplx")
    assert "frame 'is' is saved as connector 'is_' (its name is taken or is no OpenPLX " \
           "name)" in warnings
    assert "joint 'spin-2' is saved as mate 'spin_2' (its name is taken or is no OpenPLX " \
           "name)" in warnings
    text = (tmp_path / "clock.openplx").read_text()
    assert "face.is_ is Physics3D.Interactions.MateConnector:" in text
    assert "    spin_2 is Physics3D.Interactions.Hinge:" in text
