"""Saving OpenPLX: unchanged documents are written byte for byte; edits touch only what
changed, and ``local_transform`` is written exactly where the user fixed a frame."""

from __future__ import annotations

import math

import pytest

from snapframe.core.model import Document, Link, Model
from snapframe.core.pose import Pose
from snapframe.plugins.openplx import format as openplx_format
from snapframe.plugins.openplx.loader import load_file
from snapframe.plugins.openplx.snap_input import assemble

from .conftest import EXAMPLES


def link(doc: Document, name: str) -> Link:
    return next(n for n in doc.nodes() if isinstance(n, Link) and n.name == name)


def declared(path, model=None) -> dict[str, Pose | None]:
    _, asm, _ = assemble(load_file(path), model)
    return {b.path: b.declared for b in asm.bodies} | {s.path: s.declared for s in asm.systems}


@pytest.mark.parametrize("name", ["clock.openplx", "three_level_rod.openplx"])
def test_unchanged_documents_are_written_byte_for_byte(tmp_path, name) -> None:
    doc = openplx_format.read(EXAMPLES / name)
    out = tmp_path / name
    openplx_format.write(doc, out)
    assert out.read_bytes() == (EXAMPLES / name).read_bytes()


def test_comments_crlf_and_unknown_constructs_survive_an_edit(tmp_path) -> None:
    text = ("# header comment\r\n"
            "trait Shiny:\r\n"
            "    .doc: \"\"\"kept\r\n\"\"\"\r\n"
            "    gloss is Real: 0.5   # trailing\r\n"
            "\r\n"
            "Rig is Physics3D.System:\r\n"
            "    .vendor_hint: \"x\"\r\n"
            "    fn on_init()\r\n"
            "    a is Physics3D.Bodies.RigidBody with Shiny  # the only body\r\n"
            "    b is Physics3D.Bodies.RigidBody")            # no final line break
    path = tmp_path / "rig.openplx"
    path.write_bytes(text.encode())
    doc = openplx_format.read(path)
    a = link(doc, "a")
    a.pose.written = True
    a.pose.value = Pose.translation(1, 2, 3)
    openplx_format.write(doc, path)
    new = path.read_bytes().decode()
    assert new == text.replace(
        "with Shiny  # the only body\r\n",
        "with Shiny:  # the only body\r\n"
        "        kinematics.local_transform:\r\n"
        "            position: {1, 2, 3}\r\n"
        "            rotation: {0, 0, 0, 1}\r\n")
    d = declared(path)
    assert d["Rig.a"].almost_equal(Pose.translation(1, 2, 3)) and d["Rig.b"] is None


def test_fixing_and_freeing_bodies(tmp_path) -> None:
    doc = openplx_format.read(EXAMPLES / "clock.openplx")
    link(doc, "face").pose.written = False            # SNAP may move the face now
    hand = link(doc, "hour_hand")
    hand.pose.written = True                          # keep the hand where it is
    out = tmp_path / "clock.openplx"
    openplx_format.write(doc, out)
    text = out.read_text()
    assert "    face is ClockFace\n" in text                      # block emptied and closed
    assert "kinematics.local_transform.position.z" not in text
    assert "    hour_hand is Hand:\n        kinematics.local_transform:\n" in text
    # The comment that stood before the face's override is still there.
    assert "# The clock hangs on the wall" in text
    d = declared(out)
    assert d["Clock.face"] is None
    assert d["Clock.hour_hand"].almost_equal(hand.pose.value, 1e-9)
    # Everything outside the edited statements is unchanged.
    original = (EXAMPLES / "clock.openplx").read_text()
    assert text.split("Clock is Physics3D.System:")[0] == original.split("Clock is Physics3D.System:")[0]


def test_moving_a_declared_system_replaces_its_assignment(tmp_path) -> None:
    doc = openplx_format.read(EXAMPLES / "three_level_rod.openplx")   # SnapRodParentParent
    s2 = doc.root.models[0].models[0]
    new_pose = Pose.from_xyz_rpy(0.1, 0.2, 0.3, 0.0, 0.0, math.pi / 3)
    s2.pose.value = new_pose
    out = tmp_path / "rod.openplx"
    openplx_format.write(doc, out)
    text = out.read_text()
    section = text.split("SnapRodParentParent is World:")[1]
    assert section.count("rod_system.rod_system.local_transform") == 1
    assert "rod_system.rod_system.local_transform.rotation" not in section
    d = declared(out, "SnapRodParentParent")
    assert d["SnapRodParentParent.rod_system.rod_system"].almost_equal(new_pose, 1e-9)
    # The other models of the file are untouched.
    original = (EXAMPLES / "three_level_rod.openplx").read_text()
    assert text.split("SnapRodParentParent is World:")[0] == \
        original.split("SnapRodParentParent is World:")[0]


def test_declarations_outside_the_top_model_cannot_be_removed(tmp_path) -> None:
    path = tmp_path / "clock2.openplx"
    path.write_text((EXAMPLES / "clock.openplx").read_text() + "\nBigClock is Clock\n")
    doc = openplx_format.read(path)
    link(doc, "face").pose.written = False
    openplx_format.write(doc, tmp_path / "out.openplx")
    assert (tmp_path / "out.openplx").read_text() == path.read_text()
    [w] = [d for d in doc.diagnostics.warnings if "cannot make" in d.message]
    assert "BigClock.face" in w.message and "outside model 'BigClock'" in w.message


def test_moving_a_connector_writes_its_axes(tmp_path) -> None:
    doc = openplx_format.read(EXAMPLES / "clock.openplx")
    pivot = next(f for f in doc.root.frames if f.name == "hour_hand.pivot")
    pivot.pose.value = Pose.from_xyz_rpy(0.01, 0, 0, 0, 0, 0)   # main z, normal x
    out = tmp_path / "clock.openplx"
    openplx_format.write(doc, out)
    _, asm, _ = assemble(load_file(out))
    c = asm.connector("Clock.hour_hand.pivot")
    assert c.X_OC.almost_equal(pivot.pose.value, 1e-12)
    assert "hour_hand is Hand:\n        pivot:\n            position: {0.01, 0, 0}" in out.read_text()


def test_documents_from_other_formats_are_converted(tmp_path) -> None:
    model = Model(name="cart")
    body = Link(name="body")
    body.pose.value = Pose.translation(0, 0, 0.2)
    model.add(body)
    doc = Document(root=model, format="sdformat")
    out = tmp_path / "cart.openplx"
    openplx_format.write(doc, out)
    d = declared(out)
    assert d["cart.body"].almost_equal(Pose.translation(0, 0, 0.2))


def test_edits_the_writer_cannot_save_are_reported_not_lost_silently(tmp_path) -> None:
    doc = openplx_format.read(EXAMPLES / "clock.openplx")
    out = tmp_path / "clock.openplx"
    openplx_format.write(doc, out)
    assert doc.diagnostics.items == []                     # nothing edited, nothing said
    face = link(doc, "face")
    face.inertial.mass = 2.0
    face.collisions[0].geometry.params["radius"] = 0.3
    doc.root.joints[0].type = "prismatic"
    openplx_format.write(doc, out)
    assert out.read_bytes() == (EXAMPLES / "clock.openplx").read_bytes()
    path = str(EXAMPLES / "clock.openplx")
    warned = sorted((d.file, d.line, d.message.split(";")[0]) for d in doc.diagnostics.warnings)
    assert warned == [(path, 14, "the geometry of 'dial' changed"),      # "dial is ...:"
                      (path, 33, "the inertia of 'face' changed"),
                      (path, 36, "the joint (mate) settings of 'hand_hinge' changed")]
