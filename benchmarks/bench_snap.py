"""Benchmark: SNAP, end to end and alone (issue 8 item 7; issue 4 part 3).

End to end (what a user waits for): ``snapframe snap FILE --json`` in a subprocess, wall
time, on generated OpenPLX files:

* ``chain``: N bodies of one ``Link`` model in one system, each hinged to the previous
  one (``initial_angle: 0.01``), the first to a connector of the system; N = 1000, 2000,
  3000 to show how the time grows.
* ``subsystems``: 100 subsystems of an ``Arm`` model of 10 bodies chained by 9 hinges;
  each arm's first body is hinged to the previous arm's last body (the first to the root).

Targets: under 0.5 s for the 1000-body chain, and linear growth: the 3000-body chain may
take at most 3x the 1000-body one (the fixed start-up cost makes linear growth less).

The subprocesses keep Python's compiled bytecode in a temporary folder (as an installed
package has it) even when ``PYTHONDONTWRITEBYTECODE`` is set; ``--cold`` measures with
whatever the environment says.

SNAP alone (``snapframe.core.snap.solve`` on the same shapes built in memory): each under
100 ms.

Run ``python benchmarks/bench_snap.py`` (``--repeat N`` timed runs per case).  Prints one
line per case with the best and median time and exits 1 if a target is missed.  The end to
end lines also give the CPU time of the same runs (user + system, of the child process):
on a machine shared with other work the wall time varies much more than that.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from snapframe.core.pose import Pose  # needs `pip install -e .` (the Makefile does it)
from snapframe.core.snap import SnapBody, SnapConnector, SnapMate, SnapProblem, SnapSystem, solve

SOLVE_TARGET_S = 0.100
END_TO_END_TARGET_S = 0.5
CHAIN_SIZES = (1000, 2000, 3000)
#: Allowed ratio of the largest chain's time to the smallest one's (sizes ratio: linear).
GROWTH_LIMIT = CHAIN_SIZES[-1] / CHAIN_SIZES[0]
_LINK_END = Pose.translation(1.0, 0.0, 0.0)

_LINK_MODEL = """\
Link is Physics3D.Bodies.RigidBody:
    start is Physics3D.Interactions.MateConnector
    end is Physics3D.Interactions.MateConnector:
        position: Math.Vec3.from_xyz(1, 0, 0)
"""


# -- OpenPLX files -------------------------------------------------------------------------


def chain_openplx(n: int, angle: float = 0.01) -> str:
    """A system of ``n`` links, each hinged to the previous one."""
    lines = [_LINK_MODEL, "Chain is Physics3D.System:",
             "    anchor is Physics3D.Interactions.MateConnector"]
    lines += [f"    link{i} is Link" for i in range(n)]
    prev = "anchor"
    for i in range(n):
        lines += [f"    hinge{i} is Physics3D.Interactions.Hinge:",
                  f"        connectors: [{prev}, link{i}.start]",
                  f"        initial_angle: {angle}"]
        prev = f"link{i}.end"
    return "\n".join(lines) + "\n"


def subsystems_openplx(n_sub: int = 100, n_body: int = 10, angle: float = 0.01) -> str:
    """``n_sub`` arms of ``n_body`` hinged links, the arms hinged end to start."""
    lines = [_LINK_MODEL, "Arm is Physics3D.System:"]
    lines += [f"    link{i} is Link" for i in range(n_body)]
    for i in range(1, n_body):
        lines += [f"    hinge{i} is Physics3D.Interactions.Hinge:",
                  f"        connectors: [link{i - 1}.end, link{i}.start]",
                  f"        initial_angle: {angle}"]
    lines += ["World is Physics3D.System:", "    anchor is Physics3D.Interactions.MateConnector"]
    lines += [f"    arm{s} is Arm" for s in range(n_sub)]
    prev = "anchor"
    for s in range(n_sub):
        lines += [f"    joint{s} is Physics3D.Interactions.Hinge:",
                  f"        connectors: [{prev}, arm{s}.link0.start]",
                  f"        initial_angle: {angle}"]
        prev = f"arm{s}.link{n_body - 1}.end"
    return "\n".join(lines) + "\n"


def _env(cold: bool, cache: str) -> dict[str, str]:
    env = dict(os.environ)
    if not cold:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def time_snap(path: Path, repeat: int, env: dict[str, str], bodies: int
              ) -> tuple[float, float, float, float]:
    """Best and median wall time, and best and median CPU time, of ``snapframe snap PATH
    --json`` (after one warm-up run that also checks the output: no error, every body
    placed)."""
    cmd = [sys.executable, "-m", "snapframe.editor.cli", "snap", str(path), "--json"]
    times, cpu_times = [], []
    for i in range(repeat + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        elapsed = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if i == 0:
            if done.returncode != 0:
                raise SystemExit(f"snapframe snap {path.name} failed: {done.stderr[-2000:]}")
            out = json.loads(done.stdout)
            placed = sum(1 for f in out["frames"].values() if f["kind"] == "body")
            if out["errors"] or placed != bodies:
                raise SystemExit(f"{path.name}: {placed} bodies, errors {out['errors'][:3]}")
            continue
        times.append(elapsed)
        cpu_times.append(cpu)
    return min(times), statistics.median(times), min(cpu_times), statistics.median(cpu_times)


# -- SNAP alone ----------------------------------------------------------------------------


def chain_problem(n: int = 1000, angle: float = 0.01) -> SnapProblem:
    root = "World"
    systems = [SnapSystem(root, None, None)]
    bodies, connectors, mates = [], [], []
    connectors.append(SnapConnector(f"{root}.anchor", root, Pose()))
    prev = f"{root}.anchor"
    for i in range(n):
        b = f"{root}.link{i:04d}"
        bodies.append(SnapBody(b, root, None))
        connectors.append(SnapConnector(f"{b}.start", b, Pose()))
        connectors.append(SnapConnector(f"{b}.end", b, _LINK_END))
        mates.append(SnapMate(f"{root}.hinge{i:04d}", "hinge", (prev, f"{b}.start"),
                              initial_angle=angle))
        prev = f"{b}.end"
    return SnapProblem(root, systems, bodies, connectors, mates)


def subsystems_problem(n_sub: int = 100, n_body: int = 10, angle: float = 0.01) -> SnapProblem:
    root = "World"
    systems = [SnapSystem(root, None, None)]
    bodies, connectors, mates = [], [], []
    connectors.append(SnapConnector(f"{root}.anchor", root, Pose()))
    prev = f"{root}.anchor"
    for s in range(n_sub):
        sub = f"{root}.arm{s:03d}"
        systems.append(SnapSystem(sub, root, None))
        for i in range(n_body):
            b = f"{sub}.link{i:02d}"
            bodies.append(SnapBody(b, sub, None))
            connectors.append(SnapConnector(f"{b}.start", b, Pose()))
            connectors.append(SnapConnector(f"{b}.end", b, _LINK_END))
            if i:
                mates.append(SnapMate(f"{sub}.hinge{i:02d}", "hinge",
                                      (f"{sub}.link{i - 1:02d}.end", f"{b}.start"),
                                      initial_angle=angle))
        # The mate joining the arms lives in the root, after the arms' own mates.
        mates.append(SnapMate(f"{root}.joint{s:03d}", "hinge", (prev, f"{sub}.link00.start"),
                              initial_angle=angle))
        prev = f"{sub}.link{n_body - 1:02d}.end"
    return SnapProblem(root, systems, bodies, connectors, mates)


def time_solve(problem: SnapProblem, repeat: int) -> tuple[float, float, int]:
    times = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = solve(problem)
        times.append(time.perf_counter() - t0)
    assert result is not None
    bad = [d for d in result.diagnostics if d.severity >= 1]
    if bad:
        raise SystemExit(f"unexpected diagnostics: {bad[:3]}")
    return min(times), statistics.median(times), len(result.world)


# -- main ----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per case")
    ap.add_argument("--cold", action="store_true",
                    help="do not keep compiled bytecode for the subprocesses")
    args = ap.parse_args(argv)
    failed = False

    with tempfile.TemporaryDirectory(prefix="bench_snap_") as tmp:
        env = _env(args.cold, str(Path(tmp) / "pycache"))
        cases = [(f"chain of {n} bodies", f"chain{n}.openplx", chain_openplx(n), n)
                 for n in CHAIN_SIZES]
        cases.append(("100 subsystems x 10 bodies", "subsystems.openplx",
                      subsystems_openplx(), 1000))
        chain_times = {}
        for name, file_name, text, bodies in cases:
            path = Path(tmp) / file_name
            path.write_text(text, encoding="utf-8")
            best, median, cpu_best, cpu_median = time_snap(path, args.repeat, env, bodies)
            target = ""
            if bodies == 1000:
                ok = best < END_TO_END_TARGET_S
                failed |= not ok
                target = f" target < {END_TO_END_TARGET_S:.1f} s {'ok' if ok else 'MISSED'}"
            if name.startswith("chain"):
                chain_times[bodies] = best
            print(f"snapframe snap, {name}: best {best:.3f} s, median {median:.3f} s "
                  f"(wall, {args.repeat} runs; CPU best {cpu_best:.3f} s, median "
                  f"{cpu_median:.3f} s){target}", flush=True)
        first, last = CHAIN_SIZES[0], CHAIN_SIZES[-1]
        growth = chain_times[last] / chain_times[first]
        per_1000 = [(chain_times[b] - chain_times[a]) * 1000 / (b - a)
                    for a, b in zip(CHAIN_SIZES, CHAIN_SIZES[1:])]
        ok = growth <= GROWTH_LIMIT
        failed |= not ok
        print(f"growth {first} -> {last} bodies: x{growth:.2f} (linear: at most "
              f"x{GROWTH_LIMIT:.0f}); each further 1000 bodies: "
              f"{', '.join(f'{t:.3f} s' for t in per_1000)} {'ok' if ok else 'MISSED'}")

    for name, problem in [("chain of 1000 bodies, 1000 hinges", chain_problem()),
                          ("100 subsystems x 10 bodies, 1000 hinges", subsystems_problem())]:
        best, median, n = time_solve(problem, max(args.repeat, 15))
        ok = best < SOLVE_TARGET_S
        failed |= not ok
        print(f"solve alone, {name}: best {best * 1e3:.1f} ms, median {median * 1e3:.1f} ms "
              f"({n} poses) target < {SOLVE_TARGET_S * 1e3:.0f} ms {'ok' if ok else 'MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
