"""Typed mate values of one large assembly, solved by SNAP on a worker one after another.

The SNAP panel hands a typed initial value of a mate in a large assembly to the
:class:`MateSolves` of that document; it runs SNAP on the window's job runner and lands
the edit with SNAP's result as one undo step.  The queue belongs to the document, not to
what the panel shows: switching tabs or hiding the SNAP dock changes nothing of it.

* A newer value for the *same* mate replaces the one waiting, or cancels the solve
  under way and starts again with it.
* A value for *another* mate waits until the solve under way has landed, then is solved
  from the document as that left it: edits land in the order they were typed, each on
  the document its solve started from.
* When the document was edited while SNAP solved (an undo, another panel, a reload),
  the result is stale: the edit is made the usual way instead (SNAP solves it on the
  UI thread), as it is when the solve fails.
* A refusal reaches the user through the session's ``refused`` signal (the status bar).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

from PySide6 import QtCore

from snapframe.core.model import Mate
from snapframe.core.model.edits import EditRefused, SetMate

from ..desktop.jobs import DONE, FAILED
from ..session import DocumentSession
from ._common import make

__all__ = ["MateSolves"]

_log = logging.getLogger(__name__)


@dataclass(eq=False)
class _MateEdit:
    """One mate's typed values waiting for, or being solved by, SNAP."""

    mate: Mate
    values: dict
    inp: object = None              # SNAP's input taken when typed (used if started at once)
    job: object = None              # its Job while SNAP solves it
    superseded: bool = False        # a newer value of the same mate took its place


class MateSolves(QtCore.QObject):
    """The background mate edits of one session (see the module docstring).

    ``landed(str)``: an edit was made, refused (the reason) or given up, so the panel
    showing this document puts its fields back to the document's values; ``idle()``:
    nothing waits or runs any more."""

    landed = QtCore.Signal(str)
    idle = QtCore.Signal()

    def __init__(self, session: DocumentSession, runner, is_open: Callable[[], bool],
                 parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._runner = runner
        self._is_open = is_open
        self._waiting: list[_MateEdit] = []
        self._running: _MateEdit | None = None
        self._changed = False       # the document was edited since the running solve began
        session.edited.connect(self._on_edited)

    @property
    def busy(self) -> bool:
        """Whether an edit waits or is being solved."""
        return self._running is not None or bool(self._waiting)

    @property
    def jobs(self) -> list:
        """The job under way (a list of at most one)."""
        return [self._running.job] if self._running is not None else []

    def submit(self, mate: Mate, values: dict, inp=None) -> None:
        """Solve ``mate``'s typed ``values`` (validated by the caller) after the edits
        waiting; ``inp`` is SNAP's input for them taken now, used if it starts at once."""
        running = self._running
        if running is not None and running.mate is mate:
            # the newest value of this mate wins: its solve starts again with it
            running.superseded = True
            running.job.cancel()
            self._running = None
            self._waiting.insert(0, _MateEdit(mate, {**running.values, **values}))
        else:
            for entry in self._waiting:
                if entry.mate is mate:
                    entry.values = {**entry.values, **values}
                    entry.inp = None
                    break
            else:
                self._waiting.append(_MateEdit(mate, dict(values),
                                               inp if not self.busy else None))
        self._next()

    def cancel(self) -> None:
        """Give up every edit waiting and the solve under way (the document is left as
        it is)."""
        self._waiting.clear()
        if self._running is not None:
            self._running.job.cancel()

    def close(self) -> None:
        """Cancel everything and stop following the session."""
        self.cancel()
        try:
            self.session.edited.disconnect(self._on_edited)
        except (RuntimeError, TypeError):
            pass

    # -- one edit after another --------------------------------------------------------
    def _next(self) -> None:
        from snapframe.core.live.background import snap_input_with_values
        from snapframe.core.snap import solve
        while self._running is None and self._waiting:
            if not self._is_open() or self._runner.closed:   # tab or window closed
                self._waiting.clear()
                break
            entry = self._waiting.pop(0)
            inp = entry.inp
            if inp is None:
                try:
                    inp = snap_input_with_values(self.session.document, entry.mate,
                                                 entry.values)
                except Exception:   # the usual path says what is wrong
                    _log.exception("SNAP's input for %s failed", entry.mate.name)
                    inp = None
            if inp is None:                # cannot be solved ahead (any more): here
                self._apply_here(entry)
                continue
            self._changed = False
            job = self._runner.submit(
                f"Assembling (SNAP) for {entry.mate.name}", solve, inp.problem,
                on_result=lambda result, e=entry, i=inp: self._solved(e, i, result),
                on_error=lambda exc, e=entry: self._failed(e, exc))
            job.session = self.session      # (closing its tab cancels it)
            job.finished.connect(lambda j, e=entry: self._ended(e, j))
            entry.job, entry.inp = job, None
            self._running = entry
        if not self.busy:
            self.idle.emit()

    def _solved(self, entry: _MateEdit, inp, result) -> None:
        from snapframe.core.live.background import push_solved_mate_edit
        if entry.superseded or not self._is_open():
            return
        if self._changed:     # the document moved on while SNAP solved: solved here
            self._apply_here(entry)
            return
        try:
            push_solved_mate_edit(self.session.document, entry.mate, entry.values, inp, result)
        except EditRefused as exc:
            self.session.refused.emit(str(exc))
            self.landed.emit(str(exc))
            return
        self.landed.emit("")

    def _failed(self, entry: _MateEdit, exc: BaseException) -> None:
        _log.warning("SNAP on a worker failed for %s (%s): solved here instead",
                     entry.mate.name, exc)
        if not entry.superseded and self._is_open():
            self._apply_here(entry)

    def _apply_here(self, entry: _MateEdit) -> None:
        """The edit made the usual way, on this document (SNAP runs on this thread); a
        refusal goes to the status bar through the session."""
        self.landed.emit(make(self.session, SetMate, entry.mate, **entry.values))

    def _ended(self, entry: _MateEdit, job) -> None:
        if self._running is entry:
            self._running = None
            if job.state not in (DONE, FAILED):
                self.landed.emit("")       # cancelled: the fields show the document again
        self._next()

    def _on_edited(self, _event) -> None:
        self._changed = True
