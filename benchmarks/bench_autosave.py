#!/usr/bin/env python3
"""Benchmark: an autosave copy of the 1000-robot world (``gen_include_world.py``).

Autosave takes the document's content on the UI thread (the writer reads, and updates,
the document's own XML tree, which edits change) and writes it to the recovery folder on a
worker thread.  Measured as medians, after an edit of one robot's pose:

* taking the content (``document_snapshot``: the UI thread's share; target < 50 ms, and
  autosave waits for a pause in the editing to take it);
* writing it with its manifest, atomically (``RecoverySession.write``: the worker's);
* the whole save on one thread (the format's own ``write``), for comparison.

Usage::

    python benchmarks/bench_autosave.py [--n 1000] [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gen_include_world import generate  # noqa: E402


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args(argv)

    from snapframe.core.formats import registry
    from snapframe.core.loading import LoadContext, load
    from snapframe.core.model.edits import SetPose
    from snapframe.core.pose import Pose
    from snapframe.editor.desktop.autosave import document_snapshot
    from snapframe.editor.desktop.recovery import RecoverySession

    with tempfile.TemporaryDirectory() as tmp:
        world = generate(args.n, Path(tmp) / "world")
        doc = load(world, LoadContext(use_environment=False))
        assert not doc.diagnostics.errors, [str(d) for d in doc.diagnostics.errors]
        doc.live  # noqa: B018 (the editor has it: edits keep it current)
        store = RecoverySession(Path(tmp) / "recovery")
        snap, snap_cpu, write, whole = [], [], [], []
        size = 0
        for i in range(args.repeat):
            doc.commands.push(SetPose(doc, doc.element("robot_5"),
                                      Pose.from_xyz_rpy(0.001 * i, 0, 0), None))
            t0, c0 = time.perf_counter(), time.process_time()
            payload, fmt, suffix = document_snapshot(doc)
            t1, c1 = time.perf_counter(), time.process_time()
            snap_cpu.append(c1 - c0)
            store.write("doc-1", suffix, payload, {"original_path": str(world), "format": fmt})
            t2 = time.perf_counter()
            registry.implementation(fmt).write(doc, Path(tmp) / f"whole{suffix}", flatten=False)
            t3 = time.perf_counter()
            snap.append(t1 - t0)
            write.append(t2 - t1)
            whole.append(t3 - t2)
            size = len(payload)
        store.close()
    print(f"autosave of the {args.n}-robot world ({size / 1024:.0f} KiB), medians of "
          f"{args.repeat}:")
    print(f"  content taken on the UI thread      {median_ms(snap):7.1f} ms  "
          f"(CPU {median_ms(snap_cpu):.1f} ms; target < 50 ms)")
    print(f"  written by the worker (+ manifest)  {median_ms(write):7.1f} ms")
    print(f"  the format's write on one thread    {median_ms(whole):7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
