"""``snapframe snap`` and the check function."""

from __future__ import annotations

import json

import pytest

from snapframe.plugins.openplx.cli import check, snap_command

from .conftest import DATA, EXAMPLES


def test_snapframe_snap_json(capsys) -> None:
    from snapframe.core.cli import main
    code = main(["snap", str(EXAMPLES / "three_level_rod.openplx"), "--model", "SnapRod",
                 "--json", "--trace"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out == snap_command(EXAMPLES / "three_level_rod.openplx", "SnapRod", trace=True)
    assert out["frames"]["SnapRod.rod_system.rod_system.rod"]["kind"] == "body"
    assert any("Constraining" in line for line in out["trace"])


def test_snapframe_snap_text_and_exit_code(capsys, tmp_path) -> None:
    from snapframe.core.cli import main
    assert main(["snap", str(EXAMPLES / "clock.openplx")]) == 0
    text = capsys.readouterr().out
    assert "body      Clock.hour_hand: xyz=(0, 0.01, 1.5)" in text
    bad = tmp_path / "bad.openplx"
    bad.write_text("Rig is Physics3D.System:\n    x is Real: 1 +\n")
    assert main(["snap", str(bad)]) == 1
    assert f"{bad}:2: error PARSING_ERROR: expected a value" in capsys.readouterr().err


def test_check_reports_syntax_and_semantic_problems() -> None:
    d = check(DATA / "syntax" / "trailing_comma.openplx")
    assert [(x.line, x.message) for x in d.errors] == [(2, "column 31: trailing comma in the array")]
    assert list(check(EXAMPLES / "clock.openplx")) == []
    warnings = check(DATA / "semantic" / "old_dialect.openplx").warnings
    assert len(warnings) == 5 and not check(DATA / "semantic" / "old_dialect.openplx").has_errors()


def test_check_flags_attributes_left_without_value(tmp_path) -> None:
    path = tmp_path / "incomplete.openplx"
    path.write_text("Rig is Physics3D.System:\n    ball is Physics3D.Geometries.Sphere\n"
                    "    gain is Real\n")
    messages = [(d.line, d.message) for d in check(path).warnings]
    assert (3, "column 5: 'Rig.gain' is declared without a value") in messages


@pytest.mark.parametrize("path", sorted((DATA / "syntax").glob("*.openplx")))
def test_snap_command_never_crashes_on_broken_files(path) -> None:
    out = snap_command(path)
    assert out["errors"], path.name
    assert all(set(e) == {"code", "message", "file", "line"} for e in out["errors"])


def test_check_reports_unknown_names_once_not_the_mates_they_break(tmp_path) -> None:
    path = tmp_path / "typos.openplx"
    path.write_text(
        "Arm is Physics3D.Bodies.RigidBdy:\n"                       # unknown base type
        "    mc is Physics3D.Interactions.MateConnector\n"
        "Rig is Physics3D.System:\n"
        "    base is Physics3D.Bodies.RigidBody:\n"
        "        kinematics.local_transform.position.z: 1\n"
        "        mc is Physics3D.Interactions.MateConnector\n"
        "    arm is Arm\n"
        "    hand is Physics3D.Bodies.RigidBdy:\n"                  # unknown type
        "        mc is Physics3D.Interactions.MateConnector\n"
        "    h1 is Physics3D.Interactions.Hinge:\n"
        "        connectors: [base.mc, arm.mc]\n"
        "    h2 is Physics3D.Interactions.Hinge:\n"
        "        connectors: [base.mc, hand.mc]\n"
        "    h3 is Physics3D.Interactions.Hinge:\n"
        "        connectors: [base.mc, armm.mc]\n"                  # unknown name
        "    h4 is Physics3D.Interactions.Hinge:\n"
        "        connectors: [base.mc, base.nope]\n")                # unknown attribute
    errors = [(d.line, d.message) for d in check(path).errors]
    assert errors == [
        (1, "column 8: unknown type 'Physics3D.Bodies.RigidBdy'"),
        (8, "column 13: unknown type 'Physics3D.Bodies.RigidBdy'"),
        (15, "column 31: unknown name 'armm'"),
        (17, "column 36: 'Physics3D.Bodies.RigidBody' has no attribute 'nope'"),
    ]
    assert len(snap_command(path)["errors"]) == 4
