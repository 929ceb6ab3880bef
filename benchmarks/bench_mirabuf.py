"""mirabuf benchmark.  Run: ``python benchmarks/bench_mirabuf.py [--repeat N]``.

Loads tests/data/mirabuf/FRC_Field_2018_v14.mira (1 MB gzipped, 981 part instances,
184 meshes) into a ready core model (rigid bodies, visuals, collisions, inertials from
the meshes, joints, frame-graph checks), then writes it back to a ``.mira`` file (the
document's edits written into the assembly read, gzip).  Targets: < 0.3 s each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # noqa: E402 (source checkout)

from snapframe.plugins.mirabuf.reader import read  # noqa: E402
from snapframe.plugins.mirabuf.writer import write  # noqa: E402

FIELD = Path(__file__).resolve().parents[1] / "tests" / "data" / "mirabuf" / "FRC_Field_2018_v14.mira"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    read(FIELD)  # imports and protobuf descriptors
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        doc = read(FIELD)
        times.append(time.perf_counter() - t)
    links = len(doc.root.links)
    visuals = sum(len(link.visuals) for link in doc.root.links)
    print(f"mirabuf field read ({links} links, {visuals} visuals): median "
          f"{statistics.median(times):.3f} s, min {min(times):.3f} s (target < 0.3 s)")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "field.mira"
        write(doc, out)
        writes = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            write(doc, out)
            writes.append(time.perf_counter() - t)
        size = out.stat().st_size
    print(f"mirabuf field write ({size / 1e6:.2f} MB gzip): median "
          f"{statistics.median(writes):.3f} s, min {min(writes):.3f} s (target < 0.3 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
