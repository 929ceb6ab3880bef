"""Floor plan inputs that used to take minutes (issue 12's review).  Run:
``python benchmarks/bench_floorplan_limits.py [--repeat N]``.

* the floor slab of a star-shaped space of 4 000 and 12 800 corners (ear clipping; the
  old triangulation took about 7 s and 85 s);
* a plan folder holding an extra JSON-LD document whose 700 (2 000) nodes of a type with
  a scoped context of 1 000 (2 000) terms each embed another (pyld alone: about 20 s and
  two minutes);
* a ``@context`` naming one context 100 000 times in a row;
* a ``.fpm`` chaining 1 500 spaces, each placed against the one before (a RecursionError
  before).

Each figure is the median of N runs in one process (the first run warms the caches).
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # noqa: E402 (source checkout)

SQUARE = ROOT / "tests" / "data" / "floorplan" / "jsonld" / "square"


def _median(run, repeat: int) -> float:
    run()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def star_floor(n: int):
    from snapframe.plugins.floorplan.geometry import floor_piece
    from snapframe.plugins.floorplan.model import Space
    k = np.arange(n)
    a = -2 * np.pi * k / n
    r = np.where(k % 2 == 0, 20.0, 18.0)
    ring = np.column_stack([r * np.cos(a), r * np.sin(a), np.zeros(n)])
    return lambda: floor_piece(Space("star", np.eye(4), ring))


def hostile_folder(tmp: Path, nodes: int, terms: int):
    from snapframe.plugins.floorplan.jsonld import load_jsonld
    folder = tmp / f"hostile-{nodes}-{terms}"
    shutil.copytree(SQUARE, folder)
    scoped = {f"t{i}": f"http://x.example/t{i}" for i in range(terms)}
    document = {"@context": {"@vocab": "http://x.example/",
                             "T": {"@id": "http://x.example/T", "@context": scoped}},
                "@graph": [{"@id": f"n{i}", "@type": "T", "p": {"@id": f"m{i}", "@type": "T"}}
                           for i in range(nodes)]}
    (folder / "extra.json").write_text(json.dumps(document))
    return lambda: load_jsonld(folder)


def repeated_context():
    from snapframe.plugins.floorplan.expansion import expand
    url = "https://comp-rob2b.github.io/metamodels/geometry/structural-entities.json"
    document = {"@context": [url] * 100_000, "@graph": [{"@id": "https://example.org/f",
                                                         "@type": "Frame"}]}
    return lambda: expand(document, "x.json", "file:///x.json")


def chain(tmp: Path, n: int):
    from snapframe.plugins.floorplan.dsl import load_fpm
    text = ("Floor plan: chain\n    Defaults:\n        walls:\n            thickness: 0.2 m\n"
            "            height: 2.5 m\n")
    for i in reversed(range(n)):
        wrt = "world" if i == 0 else f"s{i - 1}.walls[1]"
        of = "this" if i == 0 else "this.walls[3]"
        text += (f"    Space s{i}:\n        shape: Rectangle width=2.0 m, length=2.0 m\n"
                 f"        location:\n            wrt: {wrt}\n            of: {of}\n"
                 + ("            spaced\n" if i else ""))
    path = tmp / "chain.fpm"
    path.write_text(text)
    return lambda: load_fpm(path)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for n in (4000, 12800):
            print(f"floor slab of a {n}-corner star: {_median(star_floor(n), args.repeat):.3f} s")
        for nodes, terms in ((700, 1000), (2000, 2000)):
            seconds = _median(hostile_folder(tmp, nodes, terms), args.repeat)
            print(f"plan folder with {nodes} embedded nodes x {terms}-term scoped context: "
                  f"{seconds:.3f} s")
        print(f"@context naming one context 100 000 times: "
              f"{_median(repeated_context(), args.repeat):.3f} s")
        print(f"1 500 spaces chained: {_median(chain(tmp, 1500), args.repeat):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
