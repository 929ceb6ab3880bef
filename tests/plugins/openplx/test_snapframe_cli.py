"""`snapframe check/snap/convert` on OpenPLX files, through the installed format registry."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CLOCK = ROOT / "resources" / "examples" / "openplx" / "clock.openplx"
BROKEN = ROOT / "tests" / "data" / "openplx" / "semantic" / "circular.openplx"


def run(*args):
    p = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", *map(str, args)],
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def test_check_reports_the_root_cause_with_file_and_line():
    code, out, _ = run("check", BROKEN)
    assert code == 1
    assert out.splitlines() == [f"{BROKEN}:3: error ELEMENT_INVALID: column 16: circular "
                                "reference while evaluating 'Arm.a'"]


def test_snap_json_contract():
    code, out, _ = run("snap", CLOCK, "--json")
    data = json.loads(out)
    assert code == 0 and data["errors"] == []
    kinds = {name: f["kind"] for name, f in data["frames"].items()}
    assert kinds["Clock"] == "system" and kinds["Clock.face"] == "body"
    assert kinds["Clock.face.center"] == "connector"
    # The hand's pivot coincides with the face's centre after SNAP.
    assert data["frames"]["Clock.hour_hand.pivot"]["pose"][:3] == \
        data["frames"]["Clock.face.center"]["pose"][:3]


def test_convert_openplx_to_sdformat_and_back(tmp_path):
    sdf = tmp_path / "clock.sdf"
    assert run("convert", CLOCK, sdf)[0] == 0
    code, out, _ = run("frames", sdf, "--json")
    frames = json.loads(out)["frames"]
    assert code == 0 and frames["Clock::hand_hinge"]["kind"] == "joint"
    back = tmp_path / "clock2.openplx"
    assert run("convert", sdf, back)[0] == 0
    code, out, _ = run("snap", back, "--json")
    assert code == 0 and "Clock.face" in json.loads(out)["frames"]


def test_syntax_error_is_the_only_report(tmp_path):
    bad = tmp_path / "bad.openplx"
    bad.write_text("Arm is Physics3D.System:\n    a is Real: 1\nB is Physics3D.System:\n")
    code, out, _ = run("check", bad)
    assert code == 1 and len(out.splitlines()) == 1 and "PARSING_ERROR" in out


def test_a_system_that_contains_itself_is_reported_not_followed(tmp_path):
    loop = tmp_path / "loop.openplx"
    loop.write_text("Outer is Physics3D.System:\n    inner is Outer\n")
    code, out, _ = run("check", loop)
    assert code == 1
    assert f"{loop}:2: error ELEMENT_INVALID: column 5: system 'Outer.inner' contains itself" in out


def test_a_system_without_bodies_is_valid_openplx(tmp_path):
    empty = tmp_path / "empty.openplx"
    empty.write_text("A is Physics3D.System:\n    x is Real: 1\n")
    code, out, _ = run("check", empty)
    assert code == 0, out
