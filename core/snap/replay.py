"""SNAP again after mates' initial values changed, replaying only what they move.

Which frame each mate places, in which order, which frames get forced and which mates are
only checked depends on which frames are defined when, never on the initial values: those
only change the transforms the placements compute (and the checks' verdicts, and the loop
closures a failed check starts).  So when a run needed no loop closure, left no mate
violated and has no adaptive connector, a change of ``initial_angle``,
``initial_position`` or ``initial_distance`` is solved again by recomputing, in the
original order, the placements that depend on the changed mates, re-checking the mates
whose frames moved, and rewriting the trace lines that print those transforms.  The result
is exactly what :func:`~snapframe.core.snap.solve` gives on the changed problem (the tests
compare them field by field); anything else (a check that now fails, a mate SNAP did not
use) is left to a full run::

    run = SnapRun(problem)                 # a full run, kept
    result = run.revalue([changed_mate])   # None: call SnapRun(new problem) instead
"""

from __future__ import annotations

import math
from typing import Iterable

from .geometry import ANG_TOL, POS_TOL, constraint_error
from .model import SnapDof, SnapMate, SnapProblem, SnapResult
from .solver import _ROOT, _Conn, _Snap

__all__ = ["SnapRun", "VALUE_FIELDS"]

#: The fields of a mate a replay can follow (any other change needs a full run).
VALUE_FIELDS = ("initial_angle", "initial_position", "initial_distance")
#: What a changed mate must keep for a replay to be valid.
_SAME = ("path", "type", "connectors", "enable_snap", "file", "line")


class SnapRun:
    """A SNAP run on ``problem`` that can be replayed after initial values change.

    ``result`` is the latest result; ``problem`` is updated in place by :meth:`revalue`.
    """

    def __init__(self, problem: SnapProblem, trace: bool = True) -> None:
        self.problem = problem
        self._snap = _Snap(problem, trace)
        self.result: SnapResult = self._snap.run()
        snap = self._snap
        self._index: dict[str, int] = {}
        duplicated: set[str] = set()
        for i, m in enumerate(problem.mates):
            if m.path in self._index:
                duplicated.add(m.path)
            self._index[m.path] = i
        for path in duplicated:
            del self._index[path]   # which of them SNAP used is not worth tracking
        self._mates = {m.path: m for m in snap.mates}
        self._children: list[list[int]] | None = None
        self._owned: dict[int, list[tuple[str, _Conn]]] | None = None
        #: False once a replay is impossible (a closure, a violated mate, an adaptive
        #: connector, or a replay that failed half-way): use a new run.
        self.replayable = not snap.adaptive_mates and all(
            m.outcome in ("placed", "satisfied") for m in snap.mates)

    def revalue(self, mates: Iterable[SnapMate]) -> SnapResult | None:
        """Solve again with ``mates`` (SnapMates of this problem, by path, whose initial
        values changed and nothing else); the new result, or None when only a full run
        can tell (this run is then spent)."""
        if not self.replayable:
            return None
        snap = self._snap
        changed = []
        for new in mates:
            i = self._index.get(new.path)
            if i is None:
                return self._spent()
            old = self.problem.mates[i]
            if any(getattr(new, f) != getattr(old, f) for f in _SAME) or \
                    not all(math.isfinite(getattr(new, f)) for f in VALUE_FIELDS):
                return self._spent()
            if all(getattr(new, f) == getattr(old, f) for f in VALUE_FIELDS):
                continue
            m = self._mates.get(new.path)
            if m is None and old.enable_snap:
                return self._spent()   # SNAP looked at it but placed nothing with it
            changed.append((i, new, m))
        if not changed:
            return self.result
        placements = []
        for i, new, m in changed:
            self.problem.mates[i] = new
            if m is None:
                continue               # enable_snap false: its values play no part
            m.src = new
            pl = m.placement
            if pl is not None:
                pl.set_values(new.initial_angle, new.initial_position)
                for d in (snap.dofs[k] for k in pl.dofs):
                    d.initial = (new.initial_angle if d.kind == "rot" else
                                 new.initial_position if d.kind == "lin" else 0.0)
                placements.append(pl.index)
        affected: set[int] = set()
        for q in placements:
            if q not in affected:
                affected |= snap._affected(q)
        order = sorted(affected)
        for q in order:   # dependencies first: a placement's deps were made before it
            pl = snap.placements[q]
            snap.frames[pl.frame].local = snap._solve_frame(pl)
        if not self._still_satisfied(order, [m for _i, _n, m in changed if m is not None]):
            return self._spent()
        if snap.tracing:
            trace = snap.trace = list(snap.trace)   # earlier results keep theirs
            for q in order:
                pl = snap.placements[q]
                trace[pl.trace_line] = snap._placement_line(pl)
            for q in placements:
                pl = snap.placements[q]
                for j, k in enumerate(pl.dofs, start=1):
                    trace[pl.trace_line + j] = snap._dof_line(snap.dofs[k])
        self.result = self._updated_result({snap.placements[q].frame for q in order},
                                           placements)
        return self.result

    def _updated_result(self, moved: set[int], placements: list[int]) -> SnapResult:
        """The previous result with what moved worked out again, as ``_Snap._result``
        works it out (same operations, same order: the same numbers)."""
        snap, before = self._snap, self.result
        frames = snap.frames
        if self._children is None:
            self._children = [[] for _ in frames]
            for f in range(1, len(frames)):
                self._children[frames[f].parent].append(f)
        todo: set[int] = set()
        stack = list(moved)
        while stack:
            f = stack.pop()
            if f not in todo:
                todo.add(f)
                stack.extend(self._children[f])
        res = SnapResult(dict(before.local), dict(before.world), list(before.diagnostics),
                         snap.trace if snap.tracing else [], dict(before.dofs),
                         dict(before.status), dict(before.redirected), dict(before.adapted))
        local, world = res.local, res.world
        for f in sorted(todo, key=lambda f: (frames[f].depth, f)):
            fr = frames[f]
            local[fr.path] = fr.local  # type: ignore[assignment]
            world[fr.path] = fr.local if fr.parent == _ROOT else \
                world[frames[fr.parent].path] @ fr.local  # type: ignore[operator]
        for f in todo:
            for path, conn in self._connectors_on().get(f, ()):
                fr = frames[f]
                X = fr.local @ conn.X_OC  # type: ignore[operator]
                local[path] = X
                world[path] = X if fr.parent == _ROOT else world[frames[fr.parent].path] @ X
        for path, conn in self._connectors_on().get(-1, ()):   # redirected ones
            if conn.owner in todo or conn.redirected in todo:
                res.redirected[path] = world[frames[conn.redirected].path].inverse() @ world[path]
        for q in placements:
            pl = snap.placements[q]
            m = pl.mate
            res.dofs[m.path] = [SnapDof(m.path, d.name, frames[pl.frame].path, d.initial, d.value,
                                        d.state, d.used_by)
                                for d in (snap.dofs[i] for i in pl.dofs)]
        return res

    def _connectors_on(self) -> dict[int, list[tuple[str, _Conn]]]:
        """Per owner frame, the connectors the result lists (as ``_Snap._result`` picks
        them); under -1 the redirected ones."""
        if self._owned is None:
            snap = self._snap
            frame_paths = {fr.path for fr in snap.frames}
            seen: set[str] = set()
            self._owned = {}
            for c in self.problem.connectors:
                conn = snap.conns.get(c.path)
                if conn is None or c.path in frame_paths or c.path in seen:
                    continue
                seen.add(c.path)
                if conn.owner != _ROOT:
                    self._owned.setdefault(conn.owner, []).append((c.path, conn))
                if conn.redirected >= 0:
                    self._owned.setdefault(-1, []).append((c.path, conn))
        return self._owned

    def _still_satisfied(self, order: list[int], changed: list) -> bool:
        """Do the mates checked as satisfied still hold with the moved frames?"""
        snap = self._snap
        to_check = {m.index for m in changed if m.outcome == "satisfied"}
        for q in order:
            for k in snap.frame_mates[snap.placements[q].frame]:
                if snap.mates[k].outcome == "satisfied":
                    to_check.add(k)
        for k in sorted(to_check):
            m = snap.mates[k]
            pe, ae = constraint_error(m.kind, snap._side_pose(m, 0), snap._side_pose(m, 1),
                                      m.src.initial_distance)
            if pe > POS_TOL or ae > ANG_TOL:
                return False
        return True

    def _spent(self) -> None:
        self.replayable = False
        return None
