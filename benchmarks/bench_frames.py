#!/usr/bin/env python3
"""Benchmark: resolving every frame of a world with N chained robot includes.

The worlds come from ``gen_include_world.py``: N includes of a 6-link robot, each placed
by ``<placement_frame>base</placement_frame>`` relative to the previous robot's ``tool``
frame, so that every pose depends on all the poses before it.

Measured, for N = 100 and N = 1000 by default:

1. ``snapframe frames <world> --json`` end to end, as a subprocess: wall time and peak
   RSS (``resource.getrusage(RUSAGE_CHILDREN)``, taken in a fresh helper process per run so
   that one run's peak does not hide the next one's).
2. The libsdformat 12.3 oracle (``tests/oracle/build/sdf_oracle``) the same way, when it
   has been built; by default only for N = 100. For reference, this VM measured 4.9 s and
   1.26 GB at N = 100, and 145 s and 12.3 GB at N = 1000; the research notes quote
   7.4 s and 1.2 GB at N = 100.
3. Re-resolving after one pose edit, through the Python API (``time_pose_edit``): load
   the document, resolve all world poses, set the first include's pose with a command,
   and resolve again.

When both the CLI and the oracle ran for the same N, their frames are compared
(name sets, largest position and rotation difference).

Usage::

    python benchmarks/bench_frames.py [--sizes 100 1000] [--oracle-sizes 100]
                                      [--snapframe PATH] [--json OUT.json]

A part whose tool is missing prints "not available" and is skipped; the script exits 0
unless a tool that is present fails.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out" / "frames"
ORACLE = REPO / "tests" / "oracle" / "build" / "sdf_oracle"
TIMEOUT_S = 600

sys.path.insert(0, str(HERE))
from gen_include_world import generate  # noqa: E402

# A helper that runs one command and reports its wall time and the peak RSS of its child.
# It runs in a fresh interpreter so that RUSAGE_CHILDREN holds that child only.
_MEASURE = r"""
import json, resource, subprocess, sys, time
cmd, env_sdf_path, timeout = json.loads(sys.argv[1])
import os
env = dict(os.environ)
if env_sdf_path:
    env["SDF_PATH"] = env_sdf_path
start = time.perf_counter()
try:
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                          timeout=timeout)
    code, out, err = proc.returncode, proc.stdout, proc.stderr
except subprocess.TimeoutExpired:
    code, out, err = None, b"", b"timeout"
wall = time.perf_counter() - start
rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
sys.stdout.write(json.dumps({"returncode": code, "wall_s": wall, "peak_rss_mb": rss_kb / 1024.0,
                             "stderr": err.decode(errors="replace")[-2000:]}) + "\n")
sys.stdout.buffer.write(out)
"""


def measure(cmd: list[str], sdf_path: str = "", timeout: float = TIMEOUT_S) -> dict:
    """Run ``cmd`` once; return wall time, peak RSS, return code and its stdout."""
    helper = subprocess.run([sys.executable, "-c", _MEASURE,
                             json.dumps([cmd, sdf_path, timeout])],
                            capture_output=True)
    head, _, body = helper.stdout.partition(b"\n")
    result = json.loads(head)
    result["stdout"] = body
    return result


def find_snapframe(explicit: str | None) -> str | None:
    candidates = [explicit, os.environ.get("SNAPFRAME_CLI"),
                  str(REPO / ".venv" / "bin" / "snapframe"), shutil.which("snapframe")]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return c
    return None


def compare_frames(a: dict, b: dict) -> dict:
    """Largest differences between two ``frames`` dicts (positions in m, rotations in rad)."""
    common = a.keys() & b.keys()
    dp = dr = 0.0
    for name in common:
        pa, pb = a[name]["pose"], b[name]["pose"]
        dp = max(dp, math.dist(pa[:3], pb[:3]))
        # |qa - qb| = 2 sin(angle / 4) for unit quaternions (well conditioned near 0)
        chord = min(math.dist(pa[3:], pb[3:]), math.dist(pa[3:], [-v for v in pb[3:]]))
        dr = max(dr, 4 * math.asin(min(1.0, chord / 2)))
    return {"only_snapframe": len(a.keys() - b.keys()), "only_oracle": len(b.keys() - a.keys()),
            "common": len(common), "max_position_diff_m": dp, "max_rotation_diff_rad": dr}


# =======================================================================================
# time_pose_edit: re-resolving after one pose edit, through the Python API.
#
# Uses snapframe.core (the lead's API):
#   doc = snapframe.core.loading.load(path)        -> Document; doc.frames is a FrameGraph
#   doc.frames.frames()                            -> every frame with its world pose
#   doc.commands.push(SetPose(doc, include, pose)) -> the edit, as an undoable command
# If that API is not there (yet), the measurement is skipped with a message.
# =======================================================================================
def time_pose_edit(world_path: str | Path, repeat: int = 11) -> dict | None:
    """Load ``world_path``, resolve all world poses, move the first include with a command,
    resolve again.  Returns the timings in seconds, or None (with a printed reason) when
    ``snapframe.core`` does not provide the API yet."""
    try:
        from snapframe.core import loading
        from snapframe.core.model.edits import SetPose
        from snapframe.core.pose import Pose
    except ImportError as exc:
        print(f"  pose edit: skipped, snapframe.core API not available ({exc})")
        return None

    t0 = time.perf_counter()
    doc = loading.load(str(world_path))
    t1 = time.perf_counter()
    try:
        graph = doc.frames
        first = graph.frames()
        t2 = time.perf_counter()
        includes = doc.includes()
    except AttributeError as exc:
        print(f"  pose edit: skipped, Document/FrameGraph API incomplete ({exc})")
        return None
    if not includes:
        print("  pose edit: skipped, the document has no includes")
        return None
    def edit_and_resolve(include, table: bool) -> list[float]:
        """Push a pose edit, then re-resolve: every model frame of the world (the frame
        graph), or the full table of every frame at every depth (what a view would redraw)."""
        times = []
        for k in range(repeat):
            new_pose = Pose.from_xyz_rpy(0.001 * (k + 1), 0.0, 0.0, 0.0, 0.0, 0.01 * (k + 1))
            s = time.perf_counter()
            doc.commands.push(SetPose(doc, include, new_pose))
            doc.commands.end_merge()
            if table:
                graph.frames()
            else:
                graph.resolve()
            times.append(time.perf_counter() - s)
        return sorted(times)

    graph_first = edit_and_resolve(includes[0], table=False)    # everything downstream moves
    graph_last = edit_and_resolve(includes[-1], table=False)    # nothing depends on it
    table_first = edit_and_resolve(includes[0], table=True)
    after = graph.frames()
    moved = sum(1 for a, b in zip(first, after) if not a.pose.almost_equal(b.pose, 1e-12))
    return {"load_s": t1 - t0, "first_resolve_s": t2 - t1, "frames": len(first),
            "graph_edit_first_s": graph_first, "graph_edit_last_s": graph_last,
            "table_edit_first_s": table_first, "frames_moved": moved}


# ---------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--oracle-sizes", type=int, nargs="*", default=[100],
                    help="sizes to run the libsdformat oracle on (it needs ~12 MB per include)")
    ap.add_argument("--snapframe", help="path of the snapframe CLI (default: .venv/bin/snapframe, "
                                        "$SNAPFRAME_CLI, or snapframe on PATH)")
    ap.add_argument("--outdir", default=str(OUT))
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)

    cli = find_snapframe(args.snapframe)
    oracle = str(ORACLE) if ORACLE.exists() else None
    results: dict = {"sizes": {}}
    failed = False
    for n in args.sizes:
        world = generate(n, args.outdir)
        print(f"N={n}: {world}")
        row: dict = {}
        outputs: dict = {}
        if cli is None:
            print("  snapframe frames --json: not available")
        else:
            r = measure([cli, "frames", str(world), "--json"], sdf_path=str(world.parent))
            row["snapframe"] = {k: r[k] for k in ("returncode", "wall_s", "peak_rss_mb")}
            try:
                outputs["snapframe"] = json.loads(r["stdout"])["frames"]
                row["snapframe"]["frames"] = len(outputs["snapframe"])
            except (ValueError, KeyError):
                pass
            ok = r["returncode"] in (0, 1) and "snapframe" in outputs
            failed |= not ok
            print(f"  snapframe frames --json: {r['wall_s']:.2f} s, peak RSS "
                  f"{r['peak_rss_mb']:.0f} MB, exit {r['returncode']}"
                  + ("" if ok else f"  FAILED: {r['stderr'][-300:]}"))
        if oracle is None:
            print("  libsdformat 12.3 oracle: not available (run tests/oracle/build.sh)")
        elif n in (args.oracle_sizes or []):
            r = measure([oracle, "--path", str(world.parent), str(world)])
            row["oracle"] = {k: r[k] for k in ("returncode", "wall_s", "peak_rss_mb")}
            try:
                outputs["oracle"] = json.loads(r["stdout"])["frames"]
                row["oracle"]["frames"] = len(outputs["oracle"])
            except (ValueError, KeyError):
                pass
            ok = r["returncode"] == 0
            failed |= not ok
            print(f"  libsdformat 12.3 oracle: {r['wall_s']:.2f} s, peak RSS "
                  f"{r['peak_rss_mb']:.0f} MB, exit {r['returncode']}"
                  + ("" if ok else f"  FAILED: {r['stderr'][-300:]}"))
        else:
            print(f"  libsdformat 12.3 oracle: not run for N={n} (--oracle-sizes)")
        if "snapframe" in outputs and "oracle" in outputs:
            cmp_ = compare_frames(outputs["snapframe"], outputs["oracle"])
            row["comparison"] = cmp_
            print(f"  snapframe vs oracle: {cmp_['common']} common frames, "
                  f"{cmp_['only_snapframe']} only in snapframe, {cmp_['only_oracle']} only in "
                  f"oracle; max |dp| {cmp_['max_position_diff_m']:.2e} m, max rotation "
                  f"{cmp_['max_rotation_diff_rad']:.2e} rad")
        edit = time_pose_edit(world)
        if edit is not None:
            row["pose_edit"] = edit
            def ms(key: str) -> str:
                e = edit[key]
                return f"best {e[0] * 1e3:.2f} ms, median {e[len(e) // 2] * 1e3:.2f} ms"
            print(f"  python API: load {edit['load_s']:.2f} s, first table of {edit['frames']} "
                  f"frames {edit['first_resolve_s'] * 1e3:.1f} ms")
            print(f"  pose edit of the first include + re-resolve all {n} model frames "
                  f"(target < 5 ms at N=1000): {ms('graph_edit_first_s')}")
            print(f"  pose edit of the last include + re-resolve: {ms('graph_edit_last_s')}")
            print(f"  pose edit of the first include + full table of every frame: "
                  f"{ms('table_edit_first_s')} ({edit['frames_moved']} frames moved)")
        results["sizes"][str(n)] = row
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
