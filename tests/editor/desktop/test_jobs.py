"""The background job runner and the status bar's progress widget, driven as the UI
drives them: results on the UI thread, progress in order, Cancel that drops the result
(even one the worker already finished) and stops the worker at its next checkpoint."""

from __future__ import annotations

import threading

import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from snapframe.core.progress import Cancelled, checkpoint, phase
from snapframe.editor.desktop.jobs import CANCELLED, DONE, FAILED, JobRunner
from snapframe.editor.desktop.progress import STEPS, ProgressWidget

LEFT = QtCore.Qt.MouseButton.LeftButton


@pytest.fixture
def runner(qtbot):
    holder = QtWidgets.QWidget()
    qtbot.addWidget(holder)
    jobs = JobRunner(holder)
    yield jobs
    jobs.shutdown()


def test_the_work_runs_on_a_worker_and_its_result_arrives_on_the_ui_thread(qtbot, runner):
    ui = threading.current_thread()
    where: dict[str, threading.Thread] = {}

    def work(a, b=0):
        where["work"] = threading.current_thread()
        return a + b

    got = []
    job = runner.submit("Adding", work, 2, b=3,
                        on_result=lambda r: got.append((r, threading.current_thread())))
    assert runner.jobs == [job] and job.running
    with qtbot.waitSignal(runner.ended, timeout=5000):
        pass
    assert job.state == DONE and job.result == 5
    assert got == [(5, ui)]
    assert where["work"] is not ui
    assert runner.jobs == []


def test_progress_reports_arrive_in_order_before_the_end(qtbot, runner):
    events = []

    def work():
        with phase(0.0, 0.5, "first half"):
            for i in range(5):
                checkpoint(i / 5)
        with phase(0.5, 1.0, "second half"):
            checkpoint(1.0, force=True)
        return "ok"

    job = runner.submit("Counting", work, on_result=lambda r: events.append(("end", r)))
    job.progressed.connect(lambda f, t: events.append((f, t)))
    assert job.wait(5)
    assert events[-1] == ("end", "ok")
    reports = events[:-1]
    assert reports[0] == (0.0, "first half")
    assert reports[-1] == (1.0, "second half")
    fractions = [f for f, _t in reports]
    assert fractions == sorted(fractions)


def test_an_exception_fails_the_job_and_reaches_on_error(qtbot, runner):
    errors, results = [], []

    def work():
        raise ValueError("bad input")

    job = runner.submit("Failing", work, on_result=results.append, on_error=errors.append)
    assert job.wait(5)
    assert job.state == FAILED and isinstance(job.error, ValueError)
    assert [str(e) for e in errors] == ["bad input"] and results == []


def test_cancel_drops_a_result_the_worker_already_finished(qtbot, runner):
    release = threading.Event()
    finished = threading.Event()
    results = []

    def work():
        release.wait(5)
        finished.set()
        return "late"

    job = runner.submit("Waiting", work, on_result=results.append)
    job.cancel()                 # before the worker ends...
    release.set()
    assert finished.wait(5) and job.join(5)   # ...which it then does, normally
    assert job.wait(5)
    assert job.state == CANCELLED and results == [] and job.result is None


def test_cancel_stops_the_worker_at_its_next_checkpoint(qtbot, runner):
    started = threading.Event()
    stopped = []

    def work():
        started.set()
        try:
            for _ in range(10_000_000):      # until the cancel is seen
                checkpoint()
        except Cancelled:
            stopped.append(True)
            raise
        return "never"

    results = []
    job = runner.submit("Spinning", work, on_result=results.append)
    assert started.wait(5)
    job.cancel()
    assert job.join(5)
    assert stopped == [True]
    assert job.wait(5) and job.state == CANCELLED and results == []


def test_the_progress_widget_follows_the_newest_job_and_its_cancel_button(qtbot, runner):
    host = QtWidgets.QWidget()                   # (as the status bar holds it)
    qtbot.addWidget(host)
    widget = ProgressWidget(runner, host)
    QtWidgets.QHBoxLayout(host).addWidget(widget)
    host.show()
    assert widget.isHidden()                     # nothing runs
    gates = [threading.Event(), threading.Event()]
    reached = threading.Event()

    def first():
        checkpoint(0.25, "step one", force=True)
        reached.set()
        while not gates[0].is_set():
            checkpoint()
            gates[0].wait(0.01)
        return 1

    def second():
        gates[1].wait(5)
        return 2

    job1 = runner.submit("Opening a.sdf", first)
    assert reached.wait(5)
    qtbot.waitUntil(lambda: job1.text == "step one")
    assert widget.isVisible() and widget.job is job1
    assert widget.bar.maximum() == STEPS and widget.bar.value() == STEPS // 4
    assert widget.label.toolTip() == "Opening a.sdf: step one"
    job2 = runner.submit("Opening b.sdf", second)
    assert widget.job is job2
    assert widget.bar.maximum() == 0              # no report yet: busy
    assert widget.label.toolTip() == "Opening b.sdf (+1 more)"
    gates[1].set()
    qtbot.waitUntil(lambda: not job2.running)
    assert widget.job is job1 and widget.isVisible()
    QTest.mouseClick(widget.cancel_button, LEFT)
    assert job1.cancel_requested
    qtbot.waitUntil(lambda: not job1.running)
    assert job1.state == CANCELLED and job1.result is None
    assert widget.isHidden()


def test_a_failure_nothing_of_the_job_handles_is_reported_for_the_user(qtbot, runner):
    """A worker's exception without an ``on_error``, or a result handler that raises,
    reaches ``failed`` with words for the status bar; one that ``on_error`` deals with
    does not."""
    said = []
    runner.failed.connect(lambda job, text: said.append((job.title, text)))

    def boom():
        raise ValueError("no such file")

    def refuse(_result):
        raise RuntimeError("the document is gone")

    unhandled = runner.submit("Opening a.sdf", boom)
    assert unhandled.wait(5) and unhandled.state == FAILED
    broken = runner.submit("Assembling", lambda: 1, on_result=refuse)
    assert broken.wait(5) and broken.state == FAILED
    handled = runner.submit("Reading", boom, on_error=lambda _exc: None)
    assert handled.wait(5) and handled.state == FAILED
    assert said == [("Opening a.sdf", "Opening a.sdf failed: no such file"),
                    ("Assembling", "Assembling: its result could not be used "
                                   "(the document is gone)")]
    # (the error is kept, the worker's frames it pointed to are not)
    assert str(unhandled.error) == "no such file" and unhandled.error.__traceback__ is None
