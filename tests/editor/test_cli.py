"""The `snapframe` command line: JSON contract, exit codes, messages."""

import json
import subprocess
import sys

from snapframe.editor.cli import main

ARM = """<sdf version="1.8"><model name="arm"><link name="body"/>
  <frame name="m"><pose>1 0 0 0 0 0</pose></frame></model></sdf>"""


def run(*args):
    p = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", *map(str, args)],
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def test_frames_json_contract_for_a_world(write_files):
    root = write_files({"arm.sdf": ARM, "w.sdf": """
        <sdf version="1.8"><world name="w">
          <frame name="wf"><pose>0 0 1 0 0 0</pose></frame>
          <include><uri>arm.sdf</uri><name>a</name><pose relative_to="wf">0 2 0 0 0 0</pose></include>
        </world></sdf>"""})
    code, out, _ = run("frames", root / "w.sdf", "--json")
    data = json.loads(out)
    assert code == 0 and data["errors"] == []
    assert set(data["frames"]) == {"wf", "a", "a::body", "a::m"}
    assert data["frames"]["a::m"] == {"kind": "frame", "pose": [1.0, 2.0, 1.0, 1.0, 0.0, 0.0, 0.0]}


def test_frames_json_for_a_model_file_lists_the_top_model(write_files):
    root = write_files({"arm.sdf": ARM})
    code, out, _ = run("frames", root / "arm.sdf", "--json")
    data = json.loads(out)
    assert data["frames"]["arm"] == {"kind": "model", "pose": [0.0, 0, 0, 1.0, 0, 0, 0]}
    assert data["frames"]["arm::m"]["pose"][:3] == [1.0, 0.0, 0.0]


def test_check_prints_file_line_code_and_exits_1(write_files):
    root = write_files({"bad.sdf": """
        <sdf version="1.8">
          <model name="m">
            <link name="l"/>
            <frame name="f" attached_to="nope"/>
          </model>
        </sdf>"""})
    code, out, _ = run("check", root / "bad.sdf")
    assert code == 1
    assert f"{root / 'bad.sdf'}:4: error FRAME_ATTACHED_TO_INVALID: attached_to name[nope]" in out
    code, out, _ = run("frames", root / "bad.sdf", "--json")
    err = json.loads(out)["errors"][0]
    assert code == 1 and err["code"] == "FRAME_ATTACHED_TO_INVALID" and err["line"] == 4


def test_usage_errors_exit_2(tmp_path):
    # (no argument at all opens the desktop editor: tests/editor/test_main_window.py)
    assert main(["frobnicate"]) == 2
    assert run("convert", "a.sdf")[0] == 2


def test_explain_and_graph(write_files):
    root = write_files({"arm.sdf": ARM})
    code, out, _ = run("frames", root / "arm.sdf", "--explain", "arm::m")
    assert code == 0 and "frame [m] in __model__ = [__model__] in __model__" in out
    assert "default: the scope frame __model__" in out
    code, out, _ = run("graph", root / "arm.sdf", "--dot")
    assert code == 0 and out.startswith('digraph "arm"') and "relative_to:arm::m" in out
