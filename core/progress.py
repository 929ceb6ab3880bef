"""Progress reports and cancellation for long computations (loads, SNAP, mesh inertia).

Long work in the core (reading a world of a thousand includes, building its live
document, solving a large SNAP problem, integrating a big mesh) calls :func:`checkpoint`
at natural points: per include, per body, per link.  When the work runs under a
:class:`Progress` (a worker thread of the editor does ``with progress.active(p): ...``),
a checkpoint reports how far it got and raises :class:`Cancelled` once someone asked
for a cancel; anywhere else (the command line, a script, the synchronous editor path)
a checkpoint is one context-variable lookup and does nothing else.

Fractions nest through :meth:`Progress.phase`: a loader reports its own 0..1 and the
phase maps it into the share of the whole job it was given::

    p = Progress(report=print)
    with active(p):
        with p.phase(0.0, 0.6, "Reading"):
            checkpoint(0.5)            # reported as 0.3, "Reading"
        with p.phase(0.6, 1.0, "Checking"):
            ...

The active progress is a :class:`contextvars.ContextVar`: each thread has its own, so a
load running synchronously on the UI thread never sees a worker's token.  Nothing here
knows about Qt; the editor's job runner turns the reports into signals.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

__all__ = ["Cancelled", "Progress", "active", "current", "checkpoint", "phase",
           "REPORT_INTERVAL_S"]

#: Fine-grained reports closer together than this are dropped (a phase's start is
#: always reported): enough for a progress bar, negligible for the loop that reports.
REPORT_INTERVAL_S = 0.03


class Cancelled(BaseException):
    """The work was cancelled at a checkpoint; whatever it built is to be dropped.

    A :class:`BaseException`, like ``KeyboardInterrupt``: the readers turn a plugin's
    ``Exception`` into a diagnostic and carry on, and a cancel must not be read as one."""


class Progress:
    """A cancellation token and a progress sink for one job.

    ``report(fraction, text)`` is called on the worker's thread with the fraction of the
    whole job done (0..1, or None when unknown) and what is being done; it must be quick
    and thread-safe (the editor emits a queued Qt signal).  :meth:`cancel` may be called
    from any thread; the worker notices at its next checkpoint.
    """

    def __init__(self, report: Callable[[float | None, str], None] | None = None,
                 interval: float = REPORT_INTERVAL_S) -> None:
        self._report = report
        self._interval = interval
        self._cancelled = threading.Event()
        self._last = float("-inf")
        #: (start, end, text) of the phase being run: sub-fractions map into it
        self._span: tuple[float, float, str] = (0.0, 1.0, "")
        #: the last fraction reported (of the whole job) and its text
        self.fraction: float | None = None
        self.text = ""

    # -- cancellation ---------------------------------------------------------------
    def cancel(self) -> None:
        """Ask the work to stop (it raises :class:`Cancelled` at its next checkpoint)."""
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def check(self) -> None:
        """Raise :class:`Cancelled` if a cancel was asked for."""
        if self._cancelled.is_set():
            raise Cancelled()

    # -- reports ----------------------------------------------------------------------
    def update(self, fraction: float | None = None, text: str | None = None,
               force: bool = False) -> None:
        """Report ``fraction`` (0..1 of the current phase) and ``text``; checks for a
        cancel first.  Reports closer together than the interval are dropped unless
        ``force``."""
        if self._cancelled.is_set():
            raise Cancelled()
        start, end, label = self._span
        if fraction is not None:     # kept even when not reported: the next report has it
            self.fraction = start + (end - start) * min(max(float(fraction), 0.0), 1.0)
        if text is not None:
            self.text = text
        elif label:
            self.text = label
        now = time.monotonic()
        if not force and now - self._last < self._interval:
            return
        self._last = now
        if self._report is not None:
            self._report(self.fraction, self.text)

    @contextmanager
    def phase(self, start: float, end: float, text: str = "") -> Iterator["Progress"]:
        """Within the block, fractions 0..1 mean ``start``..``end`` of the current span
        (phases nest); the phase's start is reported at once."""
        outer = self._span
        o_start, o_end, o_text = outer
        width = o_end - o_start
        self._span = (o_start + width * start, o_start + width * end, text or o_text)
        try:
            self.update(0.0, text or None, force=True)
            yield self
        finally:
            self._span = outer


_ACTIVE: ContextVar[Progress | None] = ContextVar("snapframe_progress", default=None)


def current() -> Progress | None:
    """The progress of the job running on this thread, or None."""
    return _ACTIVE.get()


@contextmanager
def active(progress: Progress | None) -> Iterator[Progress | None]:
    """Make ``progress`` the one :func:`checkpoint` reports to on this thread."""
    token = _ACTIVE.set(progress)
    try:
        yield progress
    finally:
        _ACTIVE.reset(token)


def checkpoint(fraction: float | None = None, text: str | None = None,
               force: bool = False) -> None:
    """Report progress of the current phase (``force``: even right after another
    report) and stop here if the job was cancelled (raises :class:`Cancelled`); nothing
    at all outside a job."""
    progress = _ACTIVE.get()
    if progress is not None:
        progress.update(fraction, text, force)


@contextmanager
def phase(start: float, end: float, text: str = "") -> Iterator[None]:
    """:meth:`Progress.phase` of the current job (nothing outside a job)."""
    progress = _ACTIVE.get()
    if progress is None:
        yield
        return
    with progress.phase(start, end, text):
        yield
