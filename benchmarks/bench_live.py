#!/usr/bin/env python3
"""Benchmark: the live document under editing, as an editor drives it.

The world is ``gen_include_world.py``'s: N includes of a 6-link robot, each placed on the
previous one's tool frame (so moving the first robot moves all of them), plus one model
the world owns with an automatic-inertia link (the density edit needs an element the
world document owns: the robots' links belong to the included file).

Measured as medians over repeated steps, each including the delivery of the typed events
to a subscriber (``PosesChanged`` with the new world poses as numpy arrays, and the
structure, inertia and diagnostics events):

* drag step of the last robot (few poses change; target < 2 ms);
* drag step of the first robot, all N follow (target < 20 ms);
* add an include, rename an include (its dependent's reference updated), change a
  collision's density (each target < 10 ms), and the undo of each.

Usage::

    python benchmarks/bench_live.py [--n 1000] [--repeat 30]
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

OWNED_MODEL = """
    <model name="table">
      <static>false</static>
      <link name="top">
        <inertial auto="true"/>
        <collision name="slab">
          <density>700</density>
          <geometry><box><size>1.2 0.8 0.04</size></box></geometry>
        </collision>
      </link>
    </model>
"""


def make_world(n: int, folder: Path) -> Path:
    path = generate(n, folder)
    text = path.read_text().replace("  </world>", OWNED_MODEL + "  </world>")
    path.write_text(text)
    return path


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args(argv)

    from snapframe.core.loading import LoadContext, load
    from snapframe.core.model.edits import AddInclude, Rename, SetDensity, SetPose
    from snapframe.core.pose import Pose

    with tempfile.TemporaryDirectory() as tmp:
        world = make_world(args.n, Path(tmp))
        t0 = time.perf_counter()
        doc = load(world, LoadContext(use_environment=False))
        live = doc.live
        t_open = time.perf_counter() - t0
        assert not doc.diagnostics.errors, [str(d) for d in doc.diagnostics.errors]
        received: list = []
        live.poses_changed.connect(lambda e: received.append(e))
        live.structure_changed.connect(lambda e: received.append(e))
        live.inertia_changed.connect(lambda e: received.append(e))
        live.diagnostics_changed.connect(lambda e: received.append(e))
        print(f"world of {args.n} robots: {len(live.poses)} posed elements; load + live "
              f"document {t_open * 1000:.0f} ms")

        def drag(name: str) -> tuple[float, int]:
            node = doc.element(name)
            base = node.pose.value if node.pose is not None else Pose()
            times, cpu, moved = [], [], 0
            for i in range(args.repeat):
                received.clear()
                step = base @ Pose.from_xyz_rpy(0.001 * (i + 1), 0, 0, 0, 0, 0.002 * (i + 1))
                t, c = time.perf_counter(), time.thread_time()
                doc.commands.push(SetPose(doc, node, step))
                times.append(time.perf_counter() - t)
                cpu.append(time.thread_time() - c)
                moved = sum(len(e) for e in received if hasattr(e, "poses"))
            doc.commands.end_merge()
            doc.commands.undo()
            return median_ms(times), median_ms(cpu), moved

        last_ms, last_cpu, last_moved = drag(f"robot_{args.n - 1}")
        first_ms, first_cpu, first_moved = drag("robot_0")
        print(f"drag step, last robot moves:  {last_ms:7.2f} ms median (CPU {last_cpu:.2f} ms; "
              f"{last_moved} poses delivered; target < 2 ms)")
        print(f"drag step, first robot moves: {first_ms:7.2f} ms median (CPU {first_cpu:.2f} "
              f"ms; {first_moved} poses delivered; target < 20 ms)")

        def timed(make) -> tuple[float, float, float]:
            do_t, undo_t, cpu = [], [], []
            for i in range(max(5, args.repeat // 3)):
                command = make(i)
                t, c = time.perf_counter(), time.thread_time()
                doc.commands.push(command)
                do_t.append(time.perf_counter() - t)
                cpu.append(time.thread_time() - c)
                t = time.perf_counter()
                doc.commands.undo()
                undo_t.append(time.perf_counter() - t)
            return median_ms(do_t), median_ms(undo_t), median_ms(cpu)

        last = f"robot_{args.n - 1}"
        add = timed(lambda i: AddInclude(doc, doc.root, "model://robot6", name=f"extra_{i}",
                                         relative_to=f"{last}::tool", placement_frame="base"))
        mid = f"robot_{args.n // 2}"
        rename = timed(lambda i: Rename(doc, doc.element(mid), f"renamed_{i}"))
        slab = doc.element("table::top#collision:slab")
        density = timed(lambda i: SetDensity(doc, slab, 500.0 + i))
        for label, (d, u, c) in (("add include", add), ("rename (references updated)", rename),
                                 ("density edit", density)):
            print(f"{label + ':':30s} {d:7.2f} ms median (CPU {c:.2f} ms), undo {u:7.2f} ms "
                  "(target < 10 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
