"""Cancellation and progress checkpoints of the core (snapframe.core.progress).

A background job runs a load, a SNAP solve or a mesh integration under a Progress; a
cancel must stop it at the next checkpoint with ``Cancelled`` wherever that checkpoint
is (inside an included file's parse too: the readers turn a plugin's ``Exception`` into
a diagnostic, and a cancel must not become one), and without a job the checkpoints
change nothing."""

from __future__ import annotations

import importlib.util
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from snapframe.core import progress
from snapframe.core.live.background import load_ready
from snapframe.core.loading import LoadContext, load
from snapframe.core.progress import Cancelled, Progress, active, checkpoint, phase

REPO = Path(__file__).resolve().parents[2]


def _generator():
    """benchmarks/gen_include_world.py: N chained includes of a 6-link robot."""
    spec = importlib.util.spec_from_file_location(
        "gen_include_world", REPO / "benchmarks" / "gen_include_world.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = folder / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).strip() + "\n")


CONFIG = """<?xml version="1.0"?>
<model><name>{name}</name><sdf version="1.9">model.sdf</sdf></model>"""


@pytest.fixture
def nested_world(tmp_path: Path) -> Path:
    """A world including ``outer`` twice; ``outer`` includes ``inner`` (an include
    parsed inside a format plugin's parse_include)."""
    _write(tmp_path, {
        "inner/model.config": CONFIG.format(name="inner"),
        "inner/model.sdf": """
            <sdf version="1.9"><model name="inner">
              <link name="body"><pose>0 0 0.1 0 0 0</pose></link>
            </model></sdf>""",
        "outer/model.config": CONFIG.format(name="outer"),
        "outer/model.sdf": """
            <sdf version="1.9"><model name="outer">
              <link name="base"/>
              <include><uri>model://inner</uri><name>a</name><pose>1 0 0 0 0 0</pose></include>
              <include><uri>model://inner</uri><name>b</name><pose>2 0 0 0 0 0</pose></include>
            </model></sdf>""",
        "world.sdf": """
            <sdf version="1.9"><world name="w">
              <include><uri>model://outer</uri><name>left</name></include>
              <include><uri>model://outer</uri><name>right</name>
                <pose>0 5 0 0 0 0</pose></include>
            </world></sdf>""",
    })
    return tmp_path / "world.sdf"


def _poses(doc) -> dict[str, np.ndarray]:
    table = doc.live.poses
    return {k: table.pose(k) for k in table.keys}


# -- the Progress object -------------------------------------------------------------------

def test_phases_map_fractions_into_their_share_of_the_job():
    seen: list[tuple[float | None, str]] = []
    p = Progress(report=lambda f, t: seen.append((f, t)), interval=0.0)
    with active(p):
        with phase(0.2, 0.6, "reading"):
            checkpoint(0.5)                      # half of 0.2..0.6
            with phase(0.5, 1.0, "includes"):    # the second half of this phase: 0.4..0.6
                checkpoint(0.5)
        checkpoint(0.9)
    assert seen == [(0.2, "reading"), (0.4, "reading"), (0.4, "includes"), (0.5, "includes"),
                    (0.9, "includes")]
    assert p.fraction == pytest.approx(0.9)


def test_fractions_are_clamped_and_kept_between_reports():
    seen = []
    p = Progress(report=lambda f, t: seen.append(f), interval=3600.0)
    with active(p):
        with phase(0.0, 0.5):                   # a phase start is always reported
            checkpoint(0.3)                     # dropped (too soon) but remembered
            checkpoint(7.0)                     # clamped to the end of the phase
    assert seen == [0.0]
    assert p.fraction == 0.5


def test_without_a_job_checkpoints_do_nothing():
    assert progress.current() is None
    checkpoint(0.5, "nobody listens")           # no error, nothing to report to
    with phase(0.0, 1.0, "x"):
        checkpoint()


def test_a_cancel_stops_at_the_next_checkpoint_only_in_its_own_thread():
    p = Progress()
    p.cancel()
    other: list[BaseException | None] = []

    def elsewhere():
        try:
            checkpoint()                        # this thread runs no job
            other.append(None)
        except BaseException as exc:
            other.append(exc)

    with active(p):
        t = threading.Thread(target=elsewhere)
        t.start()
        t.join()
        with pytest.raises(Cancelled):
            checkpoint()
    assert other == [None]
    assert not issubclass(Cancelled, Exception)   # plugin error handlers do not catch it


# -- loading ---------------------------------------------------------------------------------

class _CancelledAt(Progress):
    """Reports every checkpoint, counts them, and cancels itself at the one
    ``when(count, text)`` picks."""

    def __init__(self, when) -> None:
        super().__init__(report=self._seen, interval=0.0)
        self.when = when
        self.reports = 0

    def _seen(self, _fraction, text: str) -> None:
        self.reports += 1
        if self.when(self.reports, text):
            self.cancel()


def _cancelled_at(when) -> Progress:
    return _CancelledAt(when)


def _count_checkpoints(run) -> int:
    """How many checkpoints ``run()`` passes (every one of them reported)."""
    count = [0]

    def report(_f, _t):
        count[0] += 1
    with active(Progress(report=report, interval=0.0)):
        run()
    return count[0]


def test_a_cancel_at_any_checkpoint_of_a_load_stops_it_with_cancelled(nested_world):
    def run():
        return load(nested_world, LoadContext(use_environment=False))

    total = _count_checkpoints(run)
    assert total >= 6       # per include (the world's and those inside outer) and per child
    for k in range(1, total):
        p = _cancelled_at(lambda n, _t, k=k: n == k)
        with active(p), pytest.raises(Cancelled):
            run()
        assert p.reports == k        # nothing ran past the checkpoint that saw the cancel
    # uncancelled, the same load is complete and valid
    doc = run()
    assert not doc.diagnostics.errors
    assert doc.element("right::b::body") is not None


def test_a_load_under_a_job_gives_what_a_plain_load_gives(nested_world):
    plain = load(nested_world, LoadContext(use_environment=False))
    seen = []
    with active(Progress(report=lambda f, t: seen.append((f, t)))):
        in_job = load_ready(nested_world, LoadContext(use_environment=False))
    assert seen and seen[-1][0] == 1.0
    fractions = [f for f, _t in seen if f is not None]
    assert fractions == sorted(fractions)          # the bar never goes back
    assert [str(d) for d in in_job.diagnostics] == [str(d) for d in plain.diagnostics]
    a, b = _poses(plain), _poses(in_job)
    assert a.keys() == b.keys() and len(a) > 10
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])


def test_world_reading_reports_its_share_per_include(tmp_path):
    world = _generator().generate(40, tmp_path)
    seen = []
    with active(Progress(report=lambda f, t: seen.append(f), interval=0.0)):
        with phase(0.0, 0.5, "reading"):
            doc = load(world, LoadContext(use_environment=False))
    reading = sorted({f for f in seen if f is not None})
    # one step per include of the world's 40 (plus the phase's start), in 0..0.5
    assert len(reading) >= 40 and reading[0] == 0.0 and reading[-1] < 0.5
    assert doc.element("robot_39::tool") is not None


def test_load_ready_builds_the_live_document_and_can_be_cancelled_while_doing_so(tmp_path):
    world = _generator().generate(30, tmp_path)
    p = _cancelled_at(lambda _n, text: text == "resolving poses")  # a live document's phase
    with active(p), pytest.raises(Cancelled):
        load_ready(world, LoadContext(use_environment=False))
    doc = load_ready(world, LoadContext(use_environment=False), joints=True)
    assert doc._live is not None                       # built, not left for the UI thread
    assert len(doc.live.joints.joint_keys()) == 30 * 6


# -- SNAP and mesh inertia ---------------------------------------------------------------------

def _chain_problem(n: int):
    from snapframe.core.pose import Pose
    from snapframe.core.snap import SnapBody, SnapConnector, SnapMate, SnapProblem, SnapSystem
    bodies = [SnapBody(f"Root.b{i}", "Root", None) for i in range(n)]
    connectors = [SnapConnector("Root.anchor", "Root", Pose())]
    mates = []
    for i in range(n):
        connectors += [SnapConnector(f"Root.b{i}.start", f"Root.b{i}", Pose()),
                       SnapConnector(f"Root.b{i}.end", f"Root.b{i}", Pose.translation(1, 0, 0))]
        previous = "Root.anchor" if i == 0 else f"Root.b{i - 1}.end"
        mates.append(SnapMate(f"Root.m{i}", "hinge", (previous, f"Root.b{i}.start")))
    return SnapProblem("Root", [SnapSystem("Root", None, None)], bodies, connectors, mates)


def test_a_snap_solve_stops_when_cancelled_and_solves_the_same_without_a_job():
    from snapframe.core.snap import solve
    problem = _chain_problem(200)
    p = _cancelled_at(lambda n, _t: n == 150)
    with active(p), pytest.raises(Cancelled):
        solve(problem)
    result = solve(problem)              # no job: checkpoints are inert
    # hinge chain at initial angle 0: body i starts where body i-1 ends (1 m each)
    end = result.world["Root.b199"]
    assert end.p == pytest.approx((199.0, 0.0, 0.0))


def test_mesh_integration_stops_when_cancelled():
    from snapframe.core.inertia.mesh import integrate_closed
    # a closed tetrahedron repeated: many chunks of faces
    V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
    F = np.tile(np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]), (20000, 1))
    p = Progress()
    p.cancel()
    with active(p), pytest.raises(Cancelled):
        integrate_closed(V, F)
    integrals, _closed = integrate_closed(V, F)
    # 20000 copies of the unit tetrahedron (volume 1/6)
    assert integrals.volume == pytest.approx(20000 / 6)
