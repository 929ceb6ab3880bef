"""Background jobs: a pure computation on a worker thread, its result on the UI thread.

:class:`JobRunner` runs a callable (a load, a large SNAP solve, a big mesh's inertia) on
a thread of its own under a :class:`~snapframe.core.progress.Progress`, so the core's
checkpoints report progress and can stop it.  Everything the worker says travels to the
UI thread as queued Qt events, in order: progress reports, then the end.  The result is
handed to ``on_result`` on the UI thread, where the document the UI shows is changed in
one step; a job cancelled before its end is delivered never calls ``on_result`` (even
when the worker had already finished), so Cancel leaves the previous state untouched.
Once its end is delivered a job lets go of its callbacks (and of the frames of its
error's traceback) and is deleted, so a closed document is not kept by the job that
opened it; a failure that nothing of the job's own handled (no ``on_error``, or a
callback that raised) is reported by :attr:`JobRunner.failed` for the user to see.

The rule for the callable: it builds something new (a document nobody else holds, a
result of immutable input taken on the UI thread) and never touches what the UI shows.

Python runs one thread at a time: a worker in pure Python gives the UI thread the
interpreter every few milliseconds (``sys.getswitchinterval``), so the event loop keeps
turning, more slowly, while the work goes on.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable

from PySide6 import QtCore

from snapframe.core.progress import Cancelled, Progress, active

__all__ = ["Job", "JobRunner", "RUNNING", "DONE", "FAILED", "CANCELLED"]

RUNNING, DONE, FAILED, CANCELLED = "running", "done", "failed", "cancelled"
_log = logging.getLogger(__name__)


class _Relay(QtCore.QObject):
    """Signals the worker emits; a UI-thread object, so its queued connections deliver
    on the UI thread."""

    progressed = QtCore.Signal(object, str)
    ended = QtCore.Signal(object, object)        # result, exception (or None)


class Job(QtCore.QObject):
    """One background job, as the UI thread sees it.

    :attr:`state` is ``running`` until the worker's end reaches the UI thread, then
    ``done`` (:attr:`result` set, ``on_result`` called), ``failed`` (:attr:`error` set)
    or ``cancelled``.  :attr:`fraction` (0..1, None when unknown) and :attr:`text`
    follow the worker's reports.  :attr:`problem` is what to tell the user about a
    failure the job's own callbacks did not deal with ("" otherwise).

    Delivered, the job is deleted (``deleteLater``): its Python attributes stay readable
    for whoever still holds it, its Qt side is gone.
    """

    progressed = QtCore.Signal(object, str)     # fraction (or None), text
    finished = QtCore.Signal(object)            # this job, once its state is final

    def __init__(self, title: str, on_result: Callable[[Any], None] | None = None,
                 on_error: Callable[[BaseException], None] | None = None,
                 parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.state = RUNNING
        self.result: Any = None
        self.error: BaseException | None = None
        self.fraction: float | None = None
        self.text = ""
        #: seconds the worker ran (set when it ends)
        self.seconds = 0.0
        #: a failure nothing of the job's own dealt with, worded for the user ("" if none)
        self.problem = ""
        self._on_result = on_result
        self._on_error = on_error
        self._relay = _Relay()
        queued = QtCore.Qt.ConnectionType.QueuedConnection
        self._relay.progressed.connect(self._on_progress, queued)
        self._relay.ended.connect(self._on_end, queued)
        self.progress = Progress(report=self._report)
        self._thread: threading.Thread | None = None

    # -- the UI thread's side -------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.state == RUNNING

    @property
    def cancel_requested(self) -> bool:
        return self.progress.cancelled

    def cancel(self) -> None:
        """Stop the job: its result, if it still comes, is dropped; the worker stops at
        its next checkpoint."""
        if self.state != RUNNING or self.progress.cancelled:
            return
        self.progress.cancel()
        self.text = "cancelling"
        self.progressed.emit(self.fraction, self.text)

    def wait(self, timeout: float | None = None) -> bool:
        """Turn the event loop until the job's state is final (for scripts and tests);
        False if ``timeout`` seconds passed first."""
        if self.state != RUNNING:
            return True
        loop = QtCore.QEventLoop()
        self.finished.connect(loop.quit)
        timer = None
        if timeout is not None:
            timer = QtCore.QTimer()
            timer.setSingleShot(True)
            timer.timeout.connect(loop.quit)
            timer.start(max(0, int(timeout * 1000)))
        try:
            if self.state == RUNNING:
                loop.exec()
        finally:
            try:
                self.finished.disconnect(loop.quit)
            except RuntimeError:     # delivered and deleted already: so is the connection
                pass
            if timer is not None:
                timer.stop()
        return self.state != RUNNING

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the worker thread itself (not for the delivery of its end)."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    @QtCore.Slot(object, str)
    def _on_progress(self, fraction, text: str) -> None:
        if self.state != RUNNING or self.progress.cancelled:
            return
        self.fraction, self.text = fraction, text
        self.progressed.emit(fraction, text)

    @QtCore.Slot(object, object)
    def _on_end(self, result, error) -> None:
        if self.state != RUNNING:
            return
        on_result, on_error = self._on_result, self._on_error
        # delivered once: the closures (documents, sessions, inputs) are let go of
        self._on_result = self._on_error = None
        if self.progress.cancelled or isinstance(error, Cancelled):
            self.state = CANCELLED
        elif error is not None:
            self.state, self.error = FAILED, error
            if on_error is not None:
                self._call(on_error, error)
            else:
                _log.error("background job %r failed", self.title, exc_info=error)
                self.problem = f"{self.title} failed: {_worded(error)}"
        else:
            self.state, self.result = DONE, result
            if on_result is not None:
                self._call(on_result, result)
        if self.error is not None:
            # logged: its traceback's frames would keep what the work was building
            self.error.__traceback__ = None
        self.finished.emit(self)
        self.deleteLater()

    def _call(self, handler: Callable, value) -> None:
        try:
            handler(value)
        except Exception as exc:   # a slot must not take the event loop down
            _log.exception("handling the end of background job %r failed", self.title)
            self.state, self.error = FAILED, exc
            self.problem = f"{self.title}: its result could not be used ({_worded(exc)})"

    # -- the worker's side ------------------------------------------------------------------
    def _report(self, fraction: float | None, text: str) -> None:
        try:
            self._relay.progressed.emit(fraction, text)
        except RuntimeError:     # the window (and this job) went away: nobody listens
            pass

    def _run(self, fn: Callable, args: tuple, kwargs: dict) -> None:
        start = time.perf_counter()
        result, error = None, None
        try:
            with active(self.progress):
                self.progress.check()
                result = fn(*args, **kwargs)
        except BaseException as exc:   # Cancelled too: delivered, never raised here
            error = exc
        self.seconds = time.perf_counter() - start
        try:
            self._relay.ended.emit(result, error)
        except RuntimeError:
            pass


class JobRunner(QtCore.QObject):
    """Starts jobs, each on a thread of its own, and lists those running.

    ``started`` and ``ended`` (on the UI thread) let a progress widget follow them;
    ``failed`` carries a job whose failure nothing of its own dealt with and what to
    tell the user about it (the window shows it in the status bar)."""

    started = QtCore.Signal(object)     # a Job
    ended = QtCore.Signal(object)       # a Job whose state is final
    failed = QtCore.Signal(object, str)     # a Job, its Job.problem

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs: list[Job] = []
        self._count = 0
        self._closed = False

    @property
    def jobs(self) -> list[Job]:
        """The jobs running now, oldest first."""
        return list(self._jobs)

    @property
    def closed(self) -> bool:
        """Whether :meth:`shutdown` was called: no job can be submitted any more."""
        return self._closed

    def submit(self, title: str, fn: Callable, *args,
               on_result: Callable[[Any], None] | None = None,
               on_error: Callable[[BaseException], None] | None = None, **kwargs) -> Job:
        """Run ``fn(*args, **kwargs)`` on a worker thread; ``on_result(result)`` (or
        ``on_error(exception)``) is called on the UI thread when it ends, unless the job
        was cancelled first.  ``title`` is what the progress widget shows."""
        if self._closed:
            raise RuntimeError("the job runner was shut down")
        job = Job(title, on_result, on_error, self)
        self._jobs.append(job)
        job.finished.connect(self._on_finished)
        self._count += 1
        job._thread = threading.Thread(target=job._run, args=(fn, args, kwargs), daemon=True,
                                       name=f"snapframe-job-{self._count}")
        self.started.emit(job)
        job._thread.start()
        return job

    def cancel_all(self) -> None:
        for job in self.jobs:
            job.cancel()

    def shutdown(self, timeout: float = 5.0) -> None:
        """Cancel every job and wait (up to ``timeout`` seconds in all) for the workers
        to stop: nothing of theirs runs after the window is gone."""
        self._closed = True
        jobs = self.jobs
        for job in jobs:
            job.cancel()
        deadline = time.monotonic() + timeout
        for job in jobs:
            job.join(max(0.0, deadline - time.monotonic()))

    def _on_finished(self, job: Job) -> None:
        if job in self._jobs:
            self._jobs.remove(job)
        self.ended.emit(job)
        if job.problem:
            self.failed.emit(job, job.problem)


def _worded(exc: BaseException) -> str:
    """An exception as a user reads it: its message, else its type."""
    return str(exc) or type(exc).__name__
