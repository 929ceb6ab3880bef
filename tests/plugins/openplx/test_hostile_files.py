"""Hostile OpenPLX files end within seconds with a clear error and exit 1 in every command
(issue 8, item 5): ``check``, ``snap``, ``frames`` and ``convert``, through the command
line's ``main`` (what could hang or exhaust memory runs as a subprocess, so it cannot take
the test run with it).

Each file is a few lines generated in a temporary folder.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from snapframe.core.limits import MAX_ELEMENT_INSTANCES

COMMANDS = ("check", "snap", "frames", "convert")
#: Every run must end well within this (they take about half a second).
TIMEOUT_S = 30


def run(command: str, path: Path, tmp_path: Path, subprocess_: bool = False
        ) -> tuple[int, str, float]:
    """``snapframe COMMAND PATH``: (exit code, stdout + stderr, wall time)."""
    args = [command, str(path)]
    if command == "convert":
        args.append(str(tmp_path / "out.sdf"))
    start = time.perf_counter()
    if subprocess_:
        done = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", *args],
                              capture_output=True, text=True, timeout=TIMEOUT_S)
        return done.returncode, done.stdout + done.stderr, time.perf_counter() - start
    from snapframe.editor.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)   # an exception here fails the test: no traceback may escape
    return code, out.getvalue() + err.getvalue(), time.perf_counter() - start


def assert_refused(path: Path, tmp_path: Path, *expected: str, subprocess_: bool = False
                   ) -> None:
    for command in COMMANDS:
        code, out, seconds = run(command, path, tmp_path, subprocess_)
        assert code == 1, (command, out)
        assert "Traceback" not in out, (command, out)
        assert seconds < TIMEOUT_S, (command, seconds)
        for text in expected:
            assert text in out, (command, text, out)


def test_a_type_that_contains_itself_twice(tmp_path: Path) -> None:
    # Each instance holds two more: evaluating every attribute was 2^depth work.
    path = tmp_path / "twice.openplx"
    path.write_text("T:\n    a is T\n    b is T\n")
    assert_refused(path, tmp_path, f"{path}:2:", "model 'T.a' contains itself",
                   f"{path}:3:", "model 'T.b' contains itself")


def test_a_system_that_contains_itself_twice(tmp_path: Path) -> None:
    path = tmp_path / "twice.openplx"
    path.write_text("T is Physics3D.System:\n    a is T\n    b is T\n")
    assert_refused(path, tmp_path, f"{path}:2:", "system 'T.a' contains itself")


@pytest.mark.parametrize("literal", ["9" * 5000, "1" + "0" * 309])
def test_integer_literals_beyond_a_real(tmp_path: Path, literal: str) -> None:
    path = tmp_path / "big.openplx"
    path.write_text(f"A is Physics3D.System:\n    x is Real: {literal}\n")
    assert_refused(path, tmp_path, f"{path}:2:",
                   f"integer literal with {len(literal)} digits is out of range")


def test_an_integer_past_the_float_range_built_by_arithmetic_is_no_crash(tmp_path: Path) -> None:
    # A 300-digit product of 300-digit literals: Python ints would grow until printing or
    # converting one fails; OpenPLX integers are 64-bit, past that they are Reals.
    big = "9" * 300
    path = tmp_path / "product.openplx"
    path.write_text("A is Physics3D.System:\n"
                    f"    x is Real: {big} * {big} * {big}\n"
                    "    b is Physics3D.Bodies.RigidBody:\n"
                    "        kinematics.local_transform.position.x: x\n")
    code, out, _ = run("snap", path, tmp_path)
    assert code == 1 and "Traceback" not in out
    assert "the local_transform of 'A.b' is not finite" in out


def test_a_nul_character_in_an_import_path(tmp_path: Path) -> None:
    path = tmp_path / "nul.openplx"
    path.write_text('import "parts\x00.openplx"\nA is Physics3D.System\n')
    assert_refused(path, tmp_path, f"{path}:1:", "an import path cannot contain a NUL")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifos_and_devices_are_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.openplx"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.openplx"
    zero.symlink_to("/dev/zero")
    # As the file itself: refused, not read (a FIFO blocks for ever, /dev/zero never ends).
    for path, kind in ((fifo, "a FIFO"), (zero, "a device")):
        for command in COMMANDS:
            code, out, seconds = run(command, path, tmp_path, subprocess_=True)
            assert code == 1 and str(path) in out and "Traceback" not in out, (command, out)
    # As an import.
    for target, kind in (("fifo.openplx", "is a FIFO"), ("zero.openplx", "a device")):
        path = tmp_path / f"imports_{target}"
        path.write_text(f'import "{target}"\nA is Physics3D.System\n')
        assert_refused(path, tmp_path, f"{path}:1:", "imported file unreadable", kind,
                       subprocess_=True)
    # A bundle folder holding one.
    bundle = tmp_path / "Parts"
    bundle.mkdir()
    (bundle / "config.openplx").write_text('config is BundleConfig:\n    name: "Parts"\n')
    (bundle / "Arm.openplx").write_text("Arm is Physics3D.Bodies.RigidBody\n")
    os.mkfifo(bundle / "Blocker.openplx")
    path = tmp_path / "cell.openplx"
    path.write_text("Cell is Physics3D.System:\n    arm is Parts.Arm:\n"
                    "        kinematics.local_transform.position.x: 0\n")
    assert_refused(path, tmp_path, "Blocker.openplx", "cannot read bundle file",
                   subprocess_=True)


def _fan_out(levels: int, width: int = 8) -> str:
    lines = ["S0 is Physics3D.System:", "    b is Physics3D.Bodies.RigidBody:",
             "        c is Physics3D.Interactions.MateConnector"]
    for k in range(1, levels + 1):
        lines.append(f"S{k} is Physics3D.System:")
        lines += [f"    s{j} is S{k - 1}" for j in range(width)]
    return "\n".join(lines) + "\n"


def _fan_out_count(levels: int) -> int:
    """Elements S_levels expands to: S0 = system + body + connector, S_k = 1 + 8 S_(k-1)."""
    count = 3
    for _ in range(levels):
        count = 1 + 8 * count
    return count


def test_a_system_fan_out_is_refused_past_the_budget_in_every_command(tmp_path: Path) -> None:
    # 8 subsystems of 8 subsystems ... 10 deep: 2.7 billion elements in 95 lines.
    path = tmp_path / "bomb.openplx"
    path.write_text(_fan_out(10))
    line = 4 + 9 * 9   # 'S10 is Physics3D.System:'
    assert_refused(path, tmp_path, f"{path}:{line}:", "RESOURCE_LIMIT",
                   f"OpenPLX model 'S10' expands to {_fan_out_count(10):,} element "
                   f"instances, more than the {MAX_ELEMENT_INSTANCES:,} Snapframe handles "
                   "(snapframe.core.limits.MAX_ELEMENT_INSTANCES); not expanded")
    # Nothing was built: the process stays as small as for any small file.
    # VmHWM is this process's own peak (getrusage's ru_maxrss keeps the peak of the
    # forking parent across exec on Linux: the pytest process, after many tests).
    code = ("import sys\n"
            "from snapframe.editor.cli import main\n"
            "rc = main(['snap', sys.argv[1]])\n"
            "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
            "print('peak', hwm.split()[1], file=sys.stderr)\n"
            "sys.exit(rc)\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, timeout=TIMEOUT_S)
    assert done.returncode == 1
    peak_kb = int(done.stderr.rsplit("peak ", 1)[1])
    assert peak_kb < 300_000


def test_the_budget_counts_exactly_and_refuses_only_past_it(tmp_path: Path) -> None:
    from snapframe.plugins.openplx.expansion import budget_problem, element_count
    from snapframe.plugins.openplx.loader import load_text
    f = load_text(_fan_out(6), str(tmp_path / "fan.openplx"))
    counts = [element_count(f.evaluator, f.evaluator.model_type(f.symbol(f"S{k}")))
              for k in range(7)]
    assert counts == [_fan_out_count(k) for k in range(7)]  # S6: 823,881; S5: 102,985
    over = [budget_problem(f.evaluator, f.evaluator.model_type(f.symbol(f"S{k}")),
                           f.symbol(f"S{k}").decl) for k in range(7)]
    # Refused exactly past the shared budget (S4: 12,873; S5: 102,985; S6: 823,881).
    assert [p is not None for p in over] == [c > MAX_ELEMENT_INSTANCES for c in counts]
    assert over[-1] is not None and over[3] is None
    # Below the budget the model is built: 3 * 8^2 + 8 + 1 = 201 elements of S2.
    path = tmp_path / "fan.openplx"
    path.write_text(_fan_out(2))
    code, out, _ = run("snap", path, tmp_path)
    assert code == 0 and "RESOURCE_LIMIT" not in out
    assert out.count("\nbody ") + out.startswith("body ") == 64


def _inheritance_chain(n: int) -> str:
    return "M0 is Physics3D.System\n" + "".join(
        f"M{i} is M{i - 1}:\n    x{i} is Real: {i}\n" for i in range(1, n))


def test_a_long_inheritance_chain_is_checked_in_linear_work(tmp_path: Path,
                                                            monkeypatch) -> None:
    # 4,000 models, each extending the previous one with one attribute: `check` used to
    # build every model's full table and evaluate every inherited attribute again
    # (n^2/2 = 8 million), 35 s and 2.7 GB.  Count the attribute values it computes.
    from snapframe.plugins.openplx.cli import check
    from snapframe.plugins.openplx.evaluator import Obj
    computed = {"n": 0}
    original = Obj._compute

    def counting(self, spec):
        computed["n"] += 1
        return original(self, spec)
    monkeypatch.setattr(Obj, "_compute", counting)
    work = {}
    for n in (1000, 4000):
        path = tmp_path / f"chain{n}.openplx"
        path.write_text(_inheritance_chain(n))
        computed["n"] = 0
        start = time.process_time()
        assert check(path).errors == []
        work[n] = (computed["n"], time.process_time() - start)
    assert work[4000][0] < 5 * work[1000][0]   # linear: 4x the models, 4x the values
    assert work[4000][1] < 15.0


def test_nothing_hostile_leaves_a_traceback_in_the_in_process_api(tmp_path: Path) -> None:
    from snapframe.plugins.openplx import format as openplx_format
    from snapframe.plugins.openplx.cli import check, snap_command
    cases = {"twice": "T:\n    a is T\n    b is T\n",
             "big": "A is Physics3D.System:\n    x is Int: " + "7" * 4400 + "\n",
             "nul": 'import "a\x00b.openplx"\nA is Physics3D.System\n',
             "bomb": _fan_out(40)}   # 10^36 elements: counted, saturating, not built
    for name, text in cases.items():
        path = tmp_path / f"{name}.openplx"
        path.write_text(text)
        assert check(path).has_errors(), name
        assert snap_command(path)["errors"], name
        assert openplx_format.read(path).diagnostics.has_errors(), name
