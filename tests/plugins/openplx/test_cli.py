"""``snapframe snap`` and the check function."""

from __future__ import annotations

import json

import pytest

from snapframe.plugins.openplx.cli import check, snap_command

from .conftest import DATA, EXAMPLES


def test_snapframe_snap_json(capsys) -> None:
    from snapframe.editor.cli import main
    code = main(["snap", str(EXAMPLES / "three_level_rod.openplx"), "--model", "SnapRod",
                 "--json", "--trace"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out == snap_command(EXAMPLES / "three_level_rod.openplx", "SnapRod", trace=True)
    assert out["frames"]["SnapRod.rod_system.rod_system.rod"]["kind"] == "body"
    assert any("Constraining" in line for line in out["trace"])


def test_snapframe_snap_text_and_exit_code(capsys, tmp_path) -> None:
    from snapframe.editor.cli import main
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


def test_syntax_errors_in_a_user_bundle_are_reported(tmp_path) -> None:
    bundle = tmp_path / "MyParts"
    bundle.mkdir()
    (bundle / "config.openplx").write_text('config is BundleConfig:\n    name: "MyParts"\n')
    (bundle / "Arm.openplx").write_text("Arm is Physics3D.Bodies.RigidBody:\n"
                                        "    mc is Physics3D.Interactions.MateConnector:\n"
                                        "        position.x: 1 +\n")
    main = tmp_path / "main.openplx"
    main.write_text("Rig is Physics3D.System:\n    arm is MyParts.Arm:\n"
                    "        kinematics.local_transform.position.x: 0\n")
    expected = (str(bundle / "Arm.openplx"), 3, "column 24: expected a value, found end of line")
    assert [(d.file, d.line, d.message) for d in check(main).errors] == [expected]
    [error] = snap_command(main)["errors"]
    assert (error["file"], error["line"], error["code"]) == (expected[0], 3, "PARSING_ERROR")


def test_a_mistake_in_an_inherited_model_is_reported_once(tmp_path) -> None:
    path = tmp_path / "family.openplx"
    path.write_text("Arm is Physics3D.System:\n"
                    "    a is Real: b\n"
                    "    b is Real: a\n"
                    "    c is Real\n"
                    "Big is Arm\n"
                    "Huge is Big\n")
    d = check(path)
    assert [(x.line, x.message) for x in d.errors] == \
        [(3, "column 16: circular reference while evaluating 'Arm.a'")]
    assert [(x.line, x.message) for x in d.warnings] == \
        [(4, "column 5: 'Arm.c' is declared without a value")]


def test_bad_numbers_are_reported_where_they_are_written(tmp_path) -> None:
    # Infinite or NaN values and a zero quaternion: one error each, at the user's
    # assignment (not at the bundle's declaration), no exception, finite JSON.
    path = tmp_path / "numbers.openplx"
    path.write_text("A is Physics3D.System:\n"
                    "    b is Physics3D.Bodies.RigidBody:\n"
                    "        kinematics.local_transform.position.x: Math.INF\n"
                    "        mc is Physics3D.Interactions.MateConnector\n"
                    "    c is Physics3D.Bodies.RigidBody:\n"
                    "        mc is Physics3D.Interactions.MateConnector:\n"
                    "            position.x: Math.INF - Math.INF\n"
                    "    d is Physics3D.Bodies.RigidBody:\n"
                    "        kinematics.local_transform.rotation: {0, 0, 0, 0}\n"
                    "        mc is Physics3D.Interactions.MateConnector\n"
                    "    h is Physics3D.Interactions.Hinge:\n"
                    "        connectors: [b.mc, d.mc]\n"
                    "        initial_angle: 1e308 * 10\n")
    out = snap_command(path)
    assert [(e["file"], e["line"], e["message"]) for e in out["errors"]] == [
        (str(path), 3, "the local_transform of 'A.b' is not finite (column 48)"),
        (str(path), 7, "position of mate connector 'A.c.mc' is not finite (column 25)"),
        (str(path), 9, "cannot evaluate the local_transform of 'A.d': zero rotation quaternion "
                       "(column 46)"),
        (str(path), 13, "initial_angle of mate 'A.h' is not finite; 0 is used (column 24)"),
    ]
    json.dumps(out, allow_nan=False)   # no Infinity / NaN in the output
