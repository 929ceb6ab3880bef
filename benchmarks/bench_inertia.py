"""Automatic-inertia benchmarks.  Run: ``python benchmarks/bench_inertia.py [--quick]``.

1. Exact mass properties of a closed 1M-triangle mesh (a finely tessellated torus,
   indexed vertices/faces, float64), snapframe vs trimesh (``pip install trimesh``; the
   ``bench`` extra).  Both are timed in the same run, interleaved, so machine load hits
   both alike; medians and minima are printed.  trimesh is timed two ways:
   ``trimesh.triangles.mass_properties(triangles)`` on a triangle array prepared outside
   the timer (its fastest entry point), and ``Trimesh(V, F).mass_properties`` from the same
   indexed input snapframe gets.
2. Live editing: one edit of a 1000-collision primitive link, then the new link inertial.

Target: >= 10x faster than trimesh for (1), < 1 ms for (2).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # noqa: E402 (source checkout)

from snapframe.core.inertia.link import compute_link_inertia  # noqa: E402
from snapframe.core.inertia.live import LinkInertiaTracker  # noqa: E402
from snapframe.core.inertia.mesh import check_closed, integrate_closed  # noqa: E402
from snapframe.core.model.nodes import Collision, Geometry, Inertial, Link, PoseSpec  # noqa: E402
from snapframe.core.pose import Pose  # noqa: E402


def torus(R: float = 0.3, r: float = 0.1, nu: int = 1000, nv: int = 500):
    """Closed indexed torus with 2 nu nv triangles (1M for the defaults)."""
    u = np.linspace(0, 2 * np.pi, nu, endpoint=False)
    v = np.linspace(0, 2 * np.pi, nv, endpoint=False)
    U, W = np.meshgrid(u, v, indexing="ij")
    V = np.stack([(R + r * np.cos(W)) * np.cos(U), (R + r * np.cos(W)) * np.sin(U),
                  r * np.sin(W)], -1).reshape(-1, 3)
    i = np.arange(nu)[:, None]
    j = np.arange(nv)[None, :]
    a, b = i * nv + j, ((i + 1) % nu) * nv + j
    c, d = ((i + 1) % nu) * nv + (j + 1) % nv, i * nv + (j + 1) % nv
    F = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3),
                        np.stack([a, c, d], -1).reshape(-1, 3)])
    return V, F


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _fmt(ts) -> str:
    return f"median {statistics.median(ts) * 1e3:8.1f} ms   min {min(ts) * 1e3:8.1f} ms"


def bench_mesh(rounds: int, nu: int, nv: int) -> dict:
    V, F = torus(nu=nu, nv=nv)
    print(f"\n[1] exact mass properties, closed torus: {len(F):,} triangles, {len(V):,} vertices")
    try:
        import trimesh
        import trimesh.triangles
    except ImportError:
        trimesh = None
        print("    trimesh not installed (pip install trimesh): snapframe only")
    tris = V[F] if trimesh else None
    ours, ours_checked, tm_tri, tm_obj = [], [], [], []
    integrate_closed(V, F)                                   # warm-up
    for _ in range(rounds):
        dt, (I, _) = _timed(lambda: integrate_closed(V, F))
        ours.append(dt)
        dt, _ = _timed(lambda: (check_closed(V, F), integrate_closed(V, F)))
        ours_checked.append(dt)
        if trimesh:
            dt, mp = _timed(lambda: trimesh.triangles.mass_properties(tris))
            tm_tri.append(dt)
            mesh = trimesh.Trimesh(V, F, process=False)
            dt, mp2 = _timed(lambda: mesh.mass_properties)
            tm_obj.append(dt)
    print(f"    snapframe integrate_closed(V, F)            {_fmt(ours)}")
    print(f"    snapframe check_closed + integrate_closed   {_fmt(ours_checked)}")
    out = {"ours": statistics.median(ours), "faces": len(F)}
    if trimesh:
        print(f"    trimesh.triangles.mass_properties(tris)     {_fmt(tm_tri)}")
        print(f"    trimesh.Trimesh(V, F).mass_properties       {_fmt(tm_obj)}")
        ref = mp2["inertia"]
        err_I = np.abs(I.mass_properties(1.0).inertia - ref).max() / np.abs(ref).max()
        err_v = abs(I.volume - mp2["volume"]) / mp2["volume"]
        print(f"    agreement with trimesh: volume {err_v:.1e}, inertia {err_I:.1e} (relative)")
        s1 = statistics.median(tm_tri) / statistics.median(ours)
        s2 = statistics.median(tm_obj) / statistics.median(ours)
        s3 = statistics.median(tm_tri) / statistics.median(ours_checked)
        print(f"    SPEED-UP (medians): {s1:.1f}x vs triangles.mass_properties, {s2:.1f}x vs "
              f"Trimesh.mass_properties; {s3:.1f}x including our closure check")
        out.update(trimesh=statistics.median(tm_tri), speedup=s1)
    return out


def make_link(n: int, seed: int = 0) -> Link:
    rng = np.random.default_rng(seed)
    link = Link(name="many", inertial=Inertial(auto=True, density=1000.0))
    shapes = [("box", lambda: {"size": tuple(rng.uniform(0.05, 0.3, 3))}),
              ("cylinder", lambda: {"radius": rng.uniform(0.02, 0.1),
                                    "length": rng.uniform(0.1, 0.5)}),
              ("sphere", lambda: {"radius": rng.uniform(0.02, 0.1)}),
              ("capsule", lambda: {"radius": rng.uniform(0.02, 0.1),
                                   "length": rng.uniform(0.1, 0.5)}),
              ("cone", lambda: {"radius": rng.uniform(0.02, 0.1), "length": rng.uniform(0.1, 0.5)})]
    for k in range(n):
        shape, params = shapes[k % len(shapes)]
        c = Collision(name=f"c{k}", geometry=Geometry(shape, params()),
                      pose=PoseSpec(Pose.from_xyz_rpy(*rng.uniform(-1, 1, 6))))
        c.parent = link
        link.collisions.append(c)
    return link


def bench_link(rounds: int, n: int = 1000) -> dict:
    print(f"\n[2] live edit of a {n}-collision primitive link")
    link = make_link(n)
    t_full = [_timed(lambda: compute_link_inertia(link))[0] for _ in range(3)]
    tracker = LinkInertiaTracker(link)
    assert tracker.mass_properties.almost_equal(compute_link_inertia(link).mass_properties, 1e-10)
    target = link.collisions[n // 2]
    resize, move = [], []
    for k in range(rounds):
        target.geometry = Geometry("box", {"size": (0.1, 0.2, 0.3 + 0.001 * k)})
        dt, mp = _timed(lambda: (tracker.collision_changed(target), tracker.mass_properties)[1])
        resize.append(dt)
        target.pose = PoseSpec(Pose.from_xyz_rpy(0.1 * math.sin(k), 0.2, 0.3, k * 0.01, 0, 0))
        dt, mp = _timed(lambda: (tracker.collision_moved(target), tracker.mass_properties)[1])
        move.append(dt)
    full = compute_link_inertia(link).mass_properties
    assert mp.almost_equal(full, 1e-10), "incremental result drifted from the full computation"
    print(f"    full recompute (compute_link_inertia)       {_fmt(t_full)}")
    print(f"    one collision resized -> new link inertial  {_fmt(resize)}")
    print(f"    one collision moved   -> new link inertial  {_fmt(move)}")
    ok = statistics.median(resize) < 1e-3 and statistics.median(move) < 1e-3
    print(f"    budget < 1 ms: {'MET' if ok else 'MISSED'}")
    return {"resize": statistics.median(resize), "move": statistics.median(move)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="100k triangles, fewer rounds")
    ap.add_argument("--rounds", type=int, default=None)
    args = ap.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 9)
    nu, nv = (250, 200) if args.quick else (1000, 500)
    print(f"snapframe inertia benchmark: Python {sys.version.split()[0]}, "
          f"numpy {np.__version__}")
    mesh = bench_mesh(rounds, nu, nv)
    link = bench_link(max(rounds * 20, 50))
    print("\nsummary:")
    if "speedup" in mesh:
        print(f"    {mesh['faces']:,}-triangle exact integration: {mesh['ours'] * 1e3:.1f} ms vs trimesh "
              f"{mesh['trimesh'] * 1e3:.1f} ms -> {mesh['speedup']:.1f}x (target 10x)")
    else:
        print(f"    exact integration: {mesh['ours'] * 1e3:.1f} ms")
    print(f"    1000-collision link edit: {link['resize'] * 1e6:.0f} us (resize), "
          f"{link['move'] * 1e6:.0f} us (move) (target < 1000 us)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
