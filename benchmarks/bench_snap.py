"""Benchmark: SNAP on generated assemblies (issue 4, part 3).

Targets (each well under 100 ms on the CI machine, 2 cores):

* ``chain``: 1000 free bodies in one system, each hinged to the previous one, the first
  hinged to a connector of the root system.
* ``subsystems``: 100 free subsystems of 10 free bodies; inside each, 9 hinges chain the
  bodies; each subsystem's first body is hinged to the previous subsystem's last body (the
  first one to the root).  SNAP has to force every subsystem's reference body and move the
  subsystems as a whole.

Run ``python benchmarks/bench_snap.py`` (``--repeat N`` to change the number of timed runs).
Prints one line per case with the best and median time and exits 1 if a best time misses
the target.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from snapframe.core.pose import Pose  # needs `pip install -e .` (the Makefile does it)
from snapframe.core.snap import SnapBody, SnapConnector, SnapMate, SnapProblem, SnapSystem, solve

TARGET_S = 0.100
_LINK_END = Pose.translation(1.0, 0.0, 0.0)


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


def _time(problem: SnapProblem, repeat: int) -> tuple[float, float, int]:
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args(argv)
    cases = [("chain of 1000 bodies, 1000 hinges", chain_problem()),
             ("100 subsystems x 10 bodies, 1000 hinges", subsystems_problem())]
    failed = False
    for name, problem in cases:
        best, median, n = _time(problem, args.repeat)
        ok = best < TARGET_S
        failed |= not ok
        print(f"snap {name}: best {best * 1e3:.1f} ms, median {median * 1e3:.1f} ms "
              f"({n} poses, {args.repeat} runs) target < {TARGET_S * 1e3:.0f} ms "
              f"{'ok' if ok else 'MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
