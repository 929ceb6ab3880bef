"""Determinism and scale: same input, same output (whatever the hash seed); long chains."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from snapframe.core.pose import Pose

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from snaphelpers import Builder  # noqa: E402

from snapframe.core.snap import (SnapBody, SnapConnector, SnapMate, SnapProblem,  # noqa: E402
                                 SnapSystem, solve)

HERE = Path(__file__).resolve().parent


def mixed_problem():
    """Subsystems, forcing, a loop, a conflict and an unmated body in one problem."""
    b = Builder("W")
    b.system("W.arm")
    for n in ("q", "p", "r"):
        b.body(f"W.arm.{n}", "W.arm")
        b.conn(f"W.arm.{n}.a", f"W.arm.{n}")
        b.conn(f"W.arm.{n}.b", f"W.arm.{n}", position=(1, 0, 0))
    b.mate("W.arm.h1", "hinge", "W.arm.p.b", "W.arm.q.a", initial_angle=0.3)
    b.mate("W.arm.h2", "hinge", "W.arm.q.b", "W.arm.r.a", initial_angle=-0.2)
    b.body("W.g", declared=Pose.translation(0, 0, 1))
    b.conn("W.g.c", "W.g", position=(0, 1, 0))
    b.conn("W.g.d", "W.g", position=(2, 0, 0))
    b.mate("W.mount", "lock", "W.arm.p.a", "W.g.c")
    b.mate("W.clash", "lock", "W.arm.p.a", "W.g.d")
    b.body("W.z")
    return b.problem()


def dump(result) -> str:
    return json.dumps({
        "local": {k: [round(v, 12) for v in p.xyz_quat()] for k, p in result.local.items()},
        "world": {k: [round(v, 12) for v in p.xyz_quat()] for k, p in result.world.items()},
        "diagnostics": [d.format() for d in result.diagnostics],
        "trace": result.trace,
        "dofs": {k: [(d.name, round(d.value, 12), d.state) for d in v] for k, v in result.dofs.items()},
    }, sort_keys=False)


def test_same_problem_same_result():
    assert dump(solve(mixed_problem())) == dump(solve(mixed_problem()))


def test_result_does_not_depend_on_the_hash_seed():
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import test_snap_determinism as t; "
            "from snapframe.core.snap import solve; print(t.dump(solve(t.mixed_problem())))")
    outputs = set()
    for seed in ("1", "2", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", code, str(HERE)], env=env, check=True,
                             capture_output=True, text=True).stdout
        outputs.add(out)
    assert len(outputs) == 1
    assert outputs.pop().strip() == dump(solve(mixed_problem()))


@pytest.mark.parametrize("shuffle", [False, True])
def test_long_hinge_chain_matches_the_closed_form(shuffle):
    # Link i (i = 1..n) is hinged to link i-1 (link 0 = a root connector at the origin) with
    # initial angle alpha; links are 1 long along local x.  So link i is turned by i*alpha and
    # starts at sum_{k=1}^{i-1} (cos k*alpha, sin k*alpha).
    n, alpha = 1000, 0.01
    bodies, conns, mates = [], [SnapConnector("W.anchor", "W", Pose())], []
    prev = "W.anchor"
    for i in range(1, n + 1):
        name = f"W.l{i}"
        bodies.append(SnapBody(name, "W", None))
        conns += [SnapConnector(f"{name}.a", name, Pose()),
                  SnapConnector(f"{name}.b", name, Pose.translation(1, 0, 0))]
        mates.append(SnapMate(f"W.h{i}", "hinge", (prev, f"{name}.a"), initial_angle=alpha))
        prev = f"{name}.b"
    if shuffle:  # reversed declaration order: one placement per sweep, same poses
        mates.reverse()
    r = solve(SnapProblem("W", [SnapSystem("W", None, None)], bodies, conns, mates))
    x = sum(math.cos(k * alpha) for k in range(1, n))
    y = sum(math.sin(k * alpha) for k in range(1, n))
    last = r.world[f"W.l{n}"]
    assert last.p == pytest.approx((x, y, 0), abs=1e-9)
    assert last.rpy()[2] == pytest.approx(math.remainder(n * alpha, 2 * math.pi), abs=1e-9)
    assert not r.diagnostics
    sweeps = sum(1 for t in r.trace if t.startswith("Sweep"))
    assert sweeps == (n if shuffle else 1)
