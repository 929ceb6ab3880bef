"""The fast paths of `snapframe snap` give exactly what the general ones give.

Each shortcut taken for speed (lines cut while scanning with their tokens made on first
use, the common statements parsed at once, connector frames and body transforms worked
out once per model, the JSON written by hand, the rounding of whole numbers, entry points
read without importlib.metadata, SNAP without its trace, the command line without the
cyclic garbage collector) is checked here against the way it replaces.
"""

from __future__ import annotations

import gc
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from snapframe.core import commandline
from snapframe.core.json_output import json_numbers
from snapframe.plugins.openplx import parser as P
from snapframe.plugins.openplx.lexer import TokenSpan, scan_lines, tokenize, tokens_between

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "resources" / "examples" / "openplx").glob("*.openplx"))
OPENPLX_DATA = sorted((ROOT / "tests" / "data" / "openplx").rglob("*.openplx"))

LINK = """\
Link is Physics3D.Bodies.RigidBody:
    start is Physics3D.Interactions.MateConnector
    end is Physics3D.Interactions.MateConnector:
        position: Math.Vec3.from_xyz(1, 0, 0)
"""
#: Instances of one model, some modified where they are declared, some not; connectors
#: with bad frames (reported once per place); nested systems.
MIXED = LINK + """\
Bad is Physics3D.Bodies.RigidBody:
    c is Physics3D.Interactions.MateConnector:
        main_axis: Math.Vec3.from_xyz(0, 0, 0)
    d is Physics3D.Interactions.MateConnector:
        normal: Math.Vec3.from_xyz(0, 0, 1)
Arm is Physics3D.System:
    a is Link
    b is Link:
        end.position.x: 3
    h is Physics3D.Interactions.Hinge:
        connectors: [a.end, b.start]
        initial_angle: 0.2
World is Physics3D.System:
    anchor is Physics3D.Interactions.MateConnector
    arm0 is Arm
    arm1 is Arm:
        a.end.position.y: 2
    bad0 is Bad
    bad1 is Bad
    l0 is Link
    l1 is Link:
        kinematics.local_transform.position.z: 1
    p is Physics3D.Interactions.Prismatic:
        connectors: [anchor, arm0.a.start]
        initial_position: 0.5
    q is Physics3D.Interactions.Hinge:
        connectors: [arm0.b.end, arm1.a.start]
    r is Physics3D.Interactions.Ball:
        connectors: [arm1.b.end, l0.start]
    s is Physics3D.Interactions.Hinge:
        connectors: [l0.end, l1.start]
    t is Physics3D.Interactions.Hinge:
        connectors: [l1.end, bad0.c]
    u is Physics3D.Interactions.Hinge:
        connectors: [bad0.d, bad1.d]
"""


def _chain(n: int) -> str:
    lines = [LINK, "Chain is Physics3D.System:",
             "    anchor is Physics3D.Interactions.MateConnector"]
    lines += [f"    link{i} is Link" for i in range(n)]
    prev = "anchor"
    for i in range(n):
        lines += [f"    hinge{i} is Physics3D.Interactions.Hinge:",
                  f"        connectors: [{prev}, link{i}.start]", "        initial_angle: 0.01"]
        prev = f"link{i}.end"
    return "\n".join(lines) + "\n"


# -- parsing --------------------------------------------------------------------------


def _dump(x):
    """Everything a parsed tree holds, tokens included (made now if they were waiting)."""
    if isinstance(x, (list, tuple)):
        return [_dump(i) for i in x]
    if type(x).__name__ == "Token":
        return ("T", x.kind.name, x.text, x.line, x.col, x.value, x.error)
    if type(x).__name__ == "OpenPlxProblem":
        return ("P", x.message, x.file, x.line, x.col, str(x.code), int(x.severity))
    if hasattr(x, "__dict__") and not isinstance(x, type):
        return (type(x).__name__,) + tuple((k.lstrip("_"), _dump(getattr(x, k.lstrip("_"))))
                                           for k in vars(x))
    return x


def _general_parse(text: str, monkeypatch) -> list:
    """The tree of the parser's general way: all tokens first, statements one by one."""
    with monkeypatch.context() as m:
        m.setattr(P, "scan_lines", lambda text: None)
        m.setattr(P._LineParser, "_simple_member", lambda self, first: None)
        return _dump(P.parse(text, "f.openplx"))


def _texts() -> list[str]:
    texts = [p.read_text(encoding="utf-8", errors="surrogateescape")
             for p in EXAMPLES + OPENPLX_DATA]
    texts += [MIXED, _chain(3), "", "\n", "A", "   ", "A:\n  \n\n", "A:\n    x: 1  # c\n\n# t\n",
              "x: [a, b.c.d, e]\n", "x: [a, ]\n", "x: [a b]\n", "x: [a.]\n", "x: [this]\n",
              "a is B.\n", "a is B.C:\n", "a is B with T\n", "a is B[]\n", "a is is\n",
              "A:\n    x: 1.5e3\n    y: [\n        a,\n    ]\n", '\ufeffA:\n\ufeff  x: 1\n',
              'A:\n    s: """a\nb"""  \n    t: "u\n', "A:\r\n\tx: 1\r    y: 2\n\x0c"]
    rnd = random.Random(11)
    pieces = ["a", "b", "is", ".", ",", "[", "]", ":", "1", "2.5", "X", "Y.Z", " ", "\n",
              "    ", "#c", '"s"', "this", "with", "(", ")", "\t", '"""x\ny"""']
    for _ in range(400):
        texts.append("".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 30))))
    return texts


def test_scanned_lines_and_simple_statements_give_the_general_tree(monkeypatch) -> None:
    for text in _texts():
        assert _dump(P.parse(text, "f.openplx")) == _general_parse(text, monkeypatch), text


def test_bundle_files_give_the_general_tree(monkeypatch) -> None:
    from snapframe.plugins.openplx.workspace import default_bundle_roots
    roots = default_bundle_roots()
    if not roots:
        pytest.skip("openplx-bundles is not installed")
    files = sorted(roots[0].rglob("*.openplx"))
    assert files
    for f in files[::7]:
        text = f.read_text(encoding="utf-8")
        assert _dump(P.parse(text, "f.openplx")) == _general_parse(text, monkeypatch), f


def test_tokens_made_later_are_those_of_the_whole_text() -> None:
    text = 'A is B:\n    x: "a"  # c\n\n    y: """1\n2"""\n  \tz: [a, b]\r\n'
    tokens = tokenize(text)
    scanned = scan_lines(text)
    assert scanned is not None
    lines, bad = scanned
    assert not bad
    made = [t for start, end, line, _, _ in lines
            for t in TokenSpan(text, start, end, line).tokens()]
    assert made == tokens[:-1]  # all but EOF
    assert tokens_between(text, 0, len(text), 1) == tokens[:-1]
    # A statement's tokens and the lines before it wait in spans until first asked for.
    source = P.parse(text, "f")
    stmt = source.statements[0].children[1]
    assert stmt._leading.__class__ is TokenSpan
    assert "".join(t.text for t in stmt.leading) == "\n"
    assert source.to_text() == text


def test_texts_the_scan_leaves_to_the_general_way() -> None:
    assert scan_lines("x: [\n  a]\n") is None        # a bracket across a line break
    assert scan_lines("x: (a\n") is None             # never closed
    assert scan_lines("\ufeffA\n") is None           # a byte order mark
    assert scan_lines("A is B\n") is not None


# -- evaluation -----------------------------------------------------------------------


def _snap(path: Path, monkeypatch=None, general: bool = False) -> dict:
    from snapframe.plugins.openplx import cli
    from snapframe.plugins.openplx.evaluator import Obj
    if not general:
        return cli.snap_command(path, trace=True)
    with monkeypatch.context() as m:
        # no template keys: every connector frame and body transform worked out again
        m.setattr(Obj, "template_key", lambda self: None)
        return cli.snap_command(path, trace=True)


@pytest.mark.parametrize("text", [MIXED, _chain(40)], ids=["mixed", "chain"])
def test_frames_worked_out_once_per_model_are_the_same(tmp_path: Path, monkeypatch,
                                                      text: str) -> None:
    path = tmp_path / "m.openplx"
    path.write_text(text)
    fast = _snap(path)
    assert fast == _snap(path, monkeypatch, general=True)
    assert fast["frames"] and any(fast["errors"] + fast["warnings"]) == (text == MIXED)


def test_template_keys_of_unmodified_instances_and_their_members(tmp_path: Path) -> None:
    from snapframe.plugins.openplx.loader import load_text
    f = load_text(MIXED, str(tmp_path / "m.openplx"))
    world = f.instantiate("World")
    arm0, arm1 = world.get("arm0"), world.get("arm1")
    link = f.evaluator.model_type(f.symbol("Link"))
    assert arm0.template_key() == (arm0.type, ())            # unmodified
    assert arm1.template_key() == ((world.type, ()), "arm1")  # built from World's specs
    assert arm0.get("a").template_key() == (link, ())
    assert arm0.get("b").template_key() == ((arm0.type, ()), "b")
    assert arm0.get("a").get("end").template_key() == ((link, ()), "end")


def test_snap_without_trace_gives_the_same_result() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from bench_snap import chain_problem, subsystems_problem
    finally:
        sys.path.pop(0)
    from snapframe.core.snap import solve
    for problem in (chain_problem(50), subsystems_problem(5, 4)):
        a, b = solve(problem), solve(problem, trace=False)
        assert a.trace and b.trace == []
        assert (a.local, a.world, a.status, a.dofs, a.diagnostics) == \
            (b.local, b.world, b.status, b.dofs, b.diagnostics)


# -- output ---------------------------------------------------------------------------


def test_the_json_written_by_hand_is_json_dumps(tmp_path: Path) -> None:
    from snapframe.plugins.openplx.cli import _json_text, snap_command
    path = tmp_path / "m.openplx"
    path.write_text(MIXED)
    for source in [path, *EXAMPLES, *OPENPLX_DATA]:
        for trace in (False, True):
            out = snap_command(source, trace=trace)
            assert _json_text(out) == json.dumps(out, indent=None), source
    nan, inf = math.nan, math.inf
    odd = {"errors": [{"code": "X", "message": 'é "q"\u2028', "file": "ü", "line": 1}],
           "warnings": [],
           "frames": {"a\u00e9": {"kind": "bodé", "local": [nan, inf, -inf, 1e-20, 1e20, 0.0],
                                  "pose": [nan, 1.0]},
                      "b": {"kind": "system", "local": [1.5, 2.0], "pose": [1.5, 2.0]},
                      "c": {"local": [1, 2.0, True], "kind": "x", "pose": [1.0]}, "d": {}},
           "trace": ["t"]}
    assert _json_text(odd) == json.dumps(odd)


def test_whole_numbers_are_rounded_as_round_does() -> None:
    rnd = random.Random(3)
    values = [0.0, -0.0, 1.0, -3.0, 2.0 ** 60, 1e300, -1e300, math.inf, -math.inf, 5e-324, 7,
              -2, True, 2 ** 70, 0.5, 1e16 + 2]
    values += [rnd.uniform(-1e4, 1e4) for _ in range(2000)]
    values += [float(rnd.randint(-10 ** 17, 10 ** 17)) for _ in range(2000)]
    for digits in (12, 3, 0):
        for v in values:
            [a] = json_numbers([v], digits)
            b = round(v, digits) + 0.0
            assert type(a) is type(b) and a == b and math.copysign(1, a) == math.copysign(1, b)
    [a] = json_numbers([math.nan])
    assert math.isnan(a)
    assert json_numbers([150.0], -2) == [round(150.0, -2) + 0.0]


# -- start-up -------------------------------------------------------------------------


def test_entry_points_read_without_importlib_metadata_are_the_same() -> None:
    from importlib.metadata import entry_points
    for group in ("snapframe.commands", "snapframe.formats", "snapframe.mesh_loaders",
                  "console_scripts"):
        fast = commandline._path_entry_points(group)
        assert fast is not None
        assert [(e.name, e.value, e.group) for e in fast] == \
            [(e.name, e.value, e.group) for e in entry_points(group=group)]
    [snap] = [e for e in commandline.command_entry_points() if e.name == "snap"]
    assert snap.load().name == "snap"


def test_entry_point_files_the_fast_reader_leaves_to_importlib() -> None:
    assert commandline._parse_entry_points("[g]\na = m:x\n# c\n[h]\nb=n\n", "g")[0].value == "m:x"
    assert commandline._parse_entry_points("[g]\nno equals sign\n", "g") is None


def test_the_command_run_in_process_leaves_the_collector_as_it_was(capsys) -> None:
    from snapframe.editor.cli import main
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    assert main(["snap", str(EXAMPLES[0]), "--json"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    assert json.loads(capsys.readouterr().out)["frames"]


def test_the_program_prints_what_the_function_returns(tmp_path: Path) -> None:
    from snapframe.plugins.openplx.cli import snap_command
    path = tmp_path / "c.openplx"
    path.write_text(_chain(30))
    done = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "snap", str(path),
                           "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == json.dumps(snap_command(path)) + "\n"
    # The snap command does not load what it does not use.
    code = ("import sys\nfrom snapframe.editor.cli import main\n"
            f"main(['snap', {str(path)!r}, '--json'])\n"
            "print(sorted(m for m in ('importlib.metadata', 'openplxbundles', 'statistics', "
            "'snapframe.core.formats', 'snapframe.core.snap.closure') if m in sys.modules), "
            "file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.stderr.strip() == "[]"
