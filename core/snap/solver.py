"""The SNAP engine: place free system/body frames so that mated connectors coincide.

See the package docstring (:mod:`snapframe.core.snap`) for the rules; this module is the
bookkeeping.  Terms used below:

* *frame*: one local transform SNAP may have to find, i.e. a body's
  ``kinematics.local_transform`` or a non-root system's ``local_transform``.  It is
  *defined* once declared, snapped or forced; otherwise *free*.
* *chain* of a mate side: the frames from the connector's owner up to (not including) ``G``,
  the closest common ancestor system of the two connectors.  Only these frames change the
  connector's pose relative to ``G``.
* *placement*: a mate that solved the one free frame of one side.  Placements are kept in
  order with the placements they depend on, so a loop closure can change a recorded DOF and
  re-place everything downstream.

Conflicts and loops (``/work/shared/reference/openplx.md`` 3.4: "when two mates conflict,
the first wins; the later one is left violated", and the runtime closes "simple loops: two
hinges forming a triangle, a hinge + prismatic piston"):

* a violated mate is a *loop* when the free DOFs of two different earlier mates move one of
  its sides: SNAP moves those two DOFs (circle/line intersections, :mod:`.closure`);
* it *conflicts* when only one earlier mate's DOFs could move it: that earlier mate wins with
  its ``initial_angle``/``initial_position`` as applied, and the later mate is left violated
  (a warning).  Moving the one DOF would silently replace the earlier mate's initial value
  by whatever the later mate implies.

Declaration-order sweeps are emulated with a priority queue of ``(sweep, mate index)``: a
mate is only revisited when a frame of its chains became defined, at the position the naive
"sweep over all mates until nothing changes" loop would next look at it.  The outcome is the
naive loop's; the cost is the total chain length times a heap's log factor, not the naive
loop's mates x sweeps (quadratic for a chain declared leaf first).
"""

from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING, Iterable

from ..diagnostics import Code, Diagnostic, Diagnostics, Severity, SourceLocation
from ..pose import IDENTITY, Pose
from ..progress import checkpoint
# .closure (loop closures, its dataclasses) is imported when a loop needs closing: most
# assemblies never do, and importing it costs more than solving a hundred mates.
from .geometry import ANG_TOL, POS_TOL, constraint_error, is_rotation, mate_offset, z_axis
from .model import MATE_TYPES, SnapDof, SnapMate, SnapProblem, SnapResult, SnapSystem

if TYPE_CHECKING:
    from .closure import Motion

__all__ = ["solve"]

_ROOT = 0
#: Most recent free DOFs a loop closure looks at (singles and pairs of them).
_CLOSURE_CANDIDATES = 8

# Free DOFs each mate type records, and which ones a loop closure can move ("rot" = the
# angle about the main axis, "lin" = the slide along it).
_DOFS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "lock": (),
    "hinge": (("around_main", "rot"),),
    "prismatic": (("along_main", "lin"),),
    "cylindrical": (("around_main", "rot"), ("along_main", "lin")),
    "ball": (("around_main", None), ("around_normal", None), ("around_cross", None)),
    "distance": (("orbit_normal", None), ("orbit_cross", None), ("around_main", None),
                 ("around_normal", None), ("around_cross", None)),
}


class _Frame:
    __slots__ = ("path", "is_body", "parent", "declared", "local", "state", "placed_by", "name",
                 "depth")

    def __init__(self, path: str, is_body: bool, parent: int, declared: Pose | None, name: str):
        self.path = path
        self.is_body = is_body
        self.parent = parent
        self.declared = declared
        self.local: Pose | None = declared
        self.state = "declared" if declared is not None else "free"
        self.placed_by = -1
        self.name = name
        self.depth = 0


class _Conn:
    __slots__ = ("path", "owner", "X_OC", "redirected", "adaptive")

    def __init__(self, path: str, owner: int, X_OC: Pose, redirected: int, adaptive: bool = False):
        self.path, self.owner, self.X_OC, self.redirected = path, owner, X_OC, redirected
        self.adaptive = adaptive


class _Mate:
    __slots__ = ("index", "src", "kind", "conns", "G", "chains", "done", "outcome", "placement")

    def __init__(self, index: int, src: SnapMate, kind: str, conns: tuple[_Conn, _Conn], G: int,
                 chains: tuple[tuple[int, ...], tuple[int, ...]]):
        self.index, self.src, self.kind, self.conns, self.G = index, src, kind, conns, G
        self.chains = chains
        self.done = False
        self.outcome = ""  # placed | satisfied | closed | violated
        self.placement: _Placement | None = None

    @property
    def path(self) -> str:
        return self.src.path


class _Placement:
    __slots__ = ("index", "mate", "side", "frame", "pos", "angle", "position", "deps", "children",
                 "dofs", "_target_offset", "trace_line")

    def __init__(self, index: int, mate: _Mate, side: int, frame: int, pos: int):
        self.index, self.mate, self.side, self.frame, self.pos = index, mate, side, frame, pos
        self.trace_line = -1  # where its "Constraining" line is in the trace (a replay rewrites it)
        self.angle = mate.src.initial_angle
        self.position = mate.src.initial_position
        self.deps: tuple[int, ...] = ()  # placements of the other frames in the mate's chains
        self.children: list[int] = []  # placements that list this one in their deps
        self.dofs: list[int] = []
        self._target_offset: Pose | None = None

    def set_values(self, angle: float, position: float) -> None:
        self.angle, self.position = angle, position
        self._target_offset = None

    def target_offset(self) -> Pose:
        """Moving side's connector in the fixed side's: ``D`` for side 1, ``D^-1`` for side 0."""
        if self._target_offset is None:
            D = mate_offset(self.mate.kind, self.angle, self.position, self.mate.src.initial_distance)
            self._target_offset = D if self.side == 1 or D is IDENTITY else D.inverse()
        return self._target_offset


class _Dof:
    __slots__ = ("index", "placement", "name", "kind", "initial", "state", "used_by")

    def __init__(self, index: int, placement: _Placement, name: str, kind: str | None, initial: float):
        self.index, self.placement, self.name, self.kind = index, placement, name, kind
        self.initial = initial
        self.state = "free"
        self.used_by = ""

    @property
    def value(self) -> float:
        if self.kind == "rot":
            return self.placement.angle
        if self.kind == "lin":
            return self.placement.position
        return 0.0

    def label(self) -> str:
        return f"{self.placement.mate.path}.{self.name}"


def _finite(X: Pose) -> bool:
    return all(math.isfinite(v) for v in (*X.p, *X.R))


def _attr_name(path: str, parent: str) -> str:
    """A body's attribute name in its system (what the reference-body rule sorts on)."""
    if parent and path.startswith(parent + "."):
        return path[len(parent) + 1:]
    return path.rsplit(".", 1)[-1]


def _fmt(X: Pose) -> str:
    x, y, z = X.p
    w, qx, qy, qz = X.quat()
    return f"xyz=({x:.6g}, {y:.6g}, {z:.6g}) wxyz=({w:.6g}, {qx:.6g}, {qy:.6g}, {qz:.6g})"


class _NoTrace(list):
    """The trace of a run nobody reads: lines are dropped (and the per-mate ones are not
    even formatted, see ``_Snap.tracing``)."""

    def append(self, line: str) -> None:
        pass

    def insert(self, index: int, line: str) -> None:  # type: ignore[override]
        pass


class _Snap:
    """One solver run; build with a problem, call :meth:`run` once."""

    def __init__(self, problem: SnapProblem, trace: bool = True) -> None:
        self.problem = problem
        self.diag = Diagnostics()
        self.tracing = trace
        self.trace: list[str] = [] if trace else _NoTrace()
        self.frames: list[_Frame] = []
        self.index: dict[str, int] = {}
        self.conns: dict[str, _Conn] = {}
        self.mates: list[_Mate] = []
        self.frame_mates: list[list[int]] = []
        self.bodies_of: list[list[int]] = []
        self.ref_cache: dict[int, int | None] = {}
        self.system_src: dict[str, SnapSystem] = {}
        self.mated: dict[int, bool] = {}  # body -> True if an enabled mate uses it
        self.rejected: set[str] = set()  # connectors left out (reported): their mates are too
        #: Mates with an adaptive connector (they place nothing), declaration order.
        self.adaptive_mates: list[tuple[SnapMate, str, _Conn, _Conn]] = []
        self.placements: list[_Placement] = []
        self.dofs: list[_Dof] = []
        self.alive: list[int] = []  # DOF indices recorded since the last forcing
        self.sweep = -1
        self.heap: list[tuple[int, int]] = []  # (sweep, mate index) visits still to make
        self.scheduled: list[int] = []  # per mate: sweep of its queued visit, or -1

    # ------------------------------------------------------------------------------ diagnostics
    def _report(self, severity: Severity, message: str, element: str = "",
                where: SnapMate | None = None, code: Code = Code.SNAP_ERROR) -> None:
        loc = SourceLocation(where.file, where.line) if where is not None else SourceLocation()
        self.diag.add(Diagnostic(severity, code, message, loc.file, loc.line, element))

    # ------------------------------------------------------------------------------ building
    def _build(self) -> None:
        p = self.problem
        for s in p.systems:
            self.system_src.setdefault(s.path, s)
        root_src = self.system_src.get(p.root)
        self._add_frame(p.root, False, -1, None, p.root)
        self.frames[_ROOT].state = "root"
        self.frames[_ROOT].local = IDENTITY
        if root_src is not None and root_src.declared is not None:
            self.trace.append(f"Root system '{p.root}': its local_transform is ignored "
                              "(the root system is the world frame)")

        # Systems first (any order of declaration), then resolve parents.
        pending: list[tuple[int, str | None]] = []
        for s in p.systems:
            if s.path == p.root:
                continue
            if s.path in self.index:
                self._report(Severity.ERROR, f"duplicate system path '{s.path}' (ignored)", s.path)
                continue
            pending.append((self._add_frame(s.path, False, _ROOT, s.declared, ""), s.parent))
        for f, parent in pending:
            self.frames[f].parent = self._resolve_system(parent, self.frames[f].path, "system")
        self._break_cycles()

        for b in p.bodies:
            if b.path in self.index:
                self._report(Severity.ERROR, f"duplicate body path '{b.path}' (ignored)", b.path)
                continue
            parent = self._resolve_system(b.parent, b.path, "body")
            self._add_frame(b.path, True, parent, b.declared, _attr_name(b.path, b.parent))

        self._set_depths()
        self.bodies_of = [[] for _ in self.frames]
        for f, fr in enumerate(self.frames):
            if fr.is_body:
                self.bodies_of[fr.parent].append(f)
        self.frame_mates = [[] for _ in self.frames]

        # Instances of one model share their connectors' frames (immutable Poses): each
        # frame is checked once.
        rotations: dict[int, tuple[Pose, bool]] = {}
        for c in p.connectors:
            if c.path in self.conns:
                self._report(Severity.ERROR, f"duplicate connector path '{c.path}' (ignored)", c.path)
                continue
            owner = self.index.get(c.owner)
            if owner is None:
                self._report(Severity.ERROR, f"connector '{c.path}' is owned by unknown body or "
                             f"system '{c.owner}'", c.path)
                continue
            known = rotations.get(id(c.X_OC))
            if known is None or known[0] is not c.X_OC:
                known = rotations[id(c.X_OC)] = (c.X_OC, is_rotation(c.X_OC))
            if not known[1]:
                why = ("is not finite" if not _finite(c.X_OC) else
                       "is degenerate (is its normal parallel to its main_axis?)")
                self._report(Severity.ERROR, f"the frame of connector '{c.path}' {why}; mates "
                             "using it are not snapped", c.path)
                self.rejected.add(c.path)
                continue
            redirected = -1
            if c.redirected_parent is not None:
                r = self.index.get(c.redirected_parent)
                if r is None or not self.frames[r].is_body:
                    self._report(Severity.ERROR, f"connector '{c.path}' is redirected to "
                                 f"'{c.redirected_parent}', which is not a body", c.path)
                else:
                    redirected = r
            self.conns[c.path] = _Conn(c.path, owner, c.X_OC, redirected, c.adaptive)

        for s in p.systems:
            if s.reference_body is not None and s.path in self.index:
                self._reference_body(self.index[s.path])  # reports a bad one up front

        seen_mates: set[str] = set()
        for m in p.mates:
            checkpoint()     # (a large problem solved in a background job)
            if m.path in seen_mates:
                self._report(Severity.ERROR, f"duplicate mate path '{m.path}' (ignored)", m.path, m)
                continue
            seen_mates.add(m.path)
            self._add_mate(m)

    def _add_frame(self, path: str, is_body: bool, parent: int, declared: Pose | None,
                   name: str) -> int:
        if declared is not None and not _finite(declared):
            self._report(Severity.ERROR, f"the declared local_transform of '{path}' is not "
                         "finite; identity is used", path)
            declared = IDENTITY
        f = len(self.frames)
        self.frames.append(_Frame(path, is_body, parent, declared, name))
        self.index[path] = f
        return f

    def _resolve_system(self, parent: str | None, child: str, what: str) -> int:
        f = self.index.get(parent) if parent is not None else None
        if f is None or self.frames[f].is_body:
            self._report(Severity.ERROR, f"{what} '{child}' has parent '{parent}', which is not a "
                         f"system of '{self.problem.root}'; treated as a child of the root", child)
            return _ROOT
        return f

    def _break_cycles(self) -> None:
        state = [0] * len(self.frames)  # 0 unvisited, 1 on the current walk, 2 reaches the root
        state[_ROOT] = 2
        for start in range(len(self.frames)):
            walk: list[int] = []
            f = start
            while state[f] == 0:
                state[f] = 1
                walk.append(f)
                f = self.frames[f].parent
            if state[f] == 1:  # came back onto this walk: a parent cycle
                self._report(Severity.ERROR, f"system '{self.frames[f].path}' is its own ancestor; "
                             "treated as a child of the root", self.frames[f].path)
                self.frames[f].parent = _ROOT
            for g in walk:
                state[g] = 2

    def _set_depths(self) -> None:
        known = [False] * len(self.frames)
        known[_ROOT] = True
        for start in range(len(self.frames)):
            walk = []
            f = start
            while not known[f]:
                walk.append(f)
                f = self.frames[f].parent
            d = self.frames[f].depth
            for g in reversed(walk):
                d += 1
                self.frames[g].depth = d
                known[g] = True

    def _system_of(self, frame: int) -> int:
        """The system a connector on ``frame`` is expressed in."""
        fr = self.frames[frame]
        return fr.parent if fr.is_body else frame

    def _common_system(self, a: int, b: int) -> int:
        fa, fb = self.frames, self.frames
        while fa[a].depth > fb[b].depth:
            a = fa[a].parent
        while fb[b].depth > fa[a].depth:
            b = fb[b].parent
        while a != b:
            a, b = fa[a].parent, fb[b].parent
        return a

    def _chain(self, frame: int, G: int) -> tuple[int, ...]:
        out = []
        while frame != G:
            out.append(frame)
            frame = self.frames[frame].parent
        return tuple(out)

    def _add_mate(self, m: SnapMate) -> None:
        kind = m.type.strip().rsplit(".", 1)[-1].lower()
        if kind not in MATE_TYPES:
            self._report(Severity.WARNING, f"mate '{m.path}' has unknown type '{m.type}'; SNAP aligns "
                         "its connectors like a Lock", m.path, m)
            kind = "lock"
        if len(m.connectors) != 2:
            self._report(Severity.ERROR, f"mate '{m.path}' needs exactly two connectors, has "
                         f"{len(m.connectors)}", m.path, m)
            return
        conns = [self.conns.get(name) for name in m.connectors]
        adaptive = any(c is not None and c.adaptive for c in conns)
        for c in conns:
            if c is not None and self.frames[c.owner].is_body and not adaptive:
                self.mated[c.owner] = self.mated.get(c.owner, False) or m.enable_snap
        for name, c in zip(m.connectors, conns):
            if c is None and name not in self.rejected:
                self._report(Severity.ERROR, f"mate '{m.path}' references unknown connector "
                             f"'{name}'", m.path, m)
        if conns[0] is None or conns[1] is None:
            self.trace.append(f"Mate '{m.path}' ignored: a connector is missing or was left out")
            return
        bad = [a for a, v in (("initial_angle", m.initial_angle),
                              ("initial_position", m.initial_position),
                              ("initial_distance", m.initial_distance)) if not math.isfinite(v)]
        if bad:
            self._report(Severity.ERROR, f"mate '{m.path}': {bad[0]} is not finite; the mate is "
                         "not snapped", m.path, m)
            return
        c0, c1 = conns
        if not m.enable_snap:
            self.trace.append(f"Mate '{m.path}' ignored: enable_snap is false")
            return
        if adaptive:
            # An AdaptiveMateConnector follows SNAP's result: the mate places nothing and
            # can not be violated; the connector moves onto the other one at the end.
            if c0.adaptive and c1.adaptive:
                self._report(Severity.WARNING, f"mate '{m.path}' joins two adaptive connectors; "
                             "neither can adapt to the other, both keep their frames", m.path, m)
                return
            self.adaptive_mates.append((m, kind, c0, c1))
            self.trace.append(f"Mate '{m.path}': connector "
                              f"'{(c0 if c0.adaptive else c1).path}' is adaptive; it adapts "
                              "after SNAP, the mate places nothing")
            return
        if c0.owner == c1.owner:
            # Both connectors ride on one frame: SNAP has nothing to move, only to check.
            err = constraint_error(kind, c0.X_OC, c1.X_OC, m.initial_distance)
            if err[0] > POS_TOL or err[1] > ANG_TOL:
                self._report(Severity.WARNING, f"mate '{m.path}' joins two connectors of "
                             f"'{self.frames[c0.owner].path}' that do not coincide ({err[0]:.3g} m, "
                             f"{err[1]:.3g} rad apart); SNAP can not move them", m.path, m)
            self.trace.append(f"Mate '{m.path}': both connectors on '{self.frames[c0.owner].path}', "
                              "nothing to snap")
            return
        G = self._common_system(self._system_of(c0.owner), self._system_of(c1.owner))
        chains = (self._chain(c0.owner, G), self._chain(c1.owner, G))
        j = len(self.mates)
        mate = _Mate(j, m, kind, (c0, c1), G, chains)
        self.mates.append(mate)
        for f in chains[0] + chains[1]:
            self.frame_mates[f].append(j)

    # ------------------------------------------------------------------------------ poses
    def _side_pose(self, m: _Mate, side: int) -> Pose:
        """Connector ``side`` of ``m`` in ``G`` (every frame of its chain must be defined)."""
        X = m.conns[side].X_OC
        frames = self.frames
        for f in m.chains[side]:
            X = frames[f].local @ X  # type: ignore[operator]
        return X

    def _world(self, frame: int) -> Pose:
        """Pose of ``frame`` in the root; free frames count as identity (provisional)."""
        X = IDENTITY
        frames = self.frames
        while frame != _ROOT:
            local = frames[frame].local
            if local is not None:
                X = local @ X
            frame = frames[frame].parent
        return X

    def _solve_frame(self, pl: _Placement) -> Pose:
        """Local transform of ``pl.frame`` that makes its side meet the other side (the SNAP
        transform ``S = N^-1 A P^-1``)."""
        m, side = pl.mate, pl.side
        chain = m.chains[side]
        frames = self.frames
        below = m.conns[side].X_OC
        for f in chain[:pl.pos]:
            below = frames[f].local @ below  # type: ignore[operator]
        target = self._side_pose(m, 1 - side)
        offset = pl.target_offset()
        if offset is not IDENTITY:
            target = target @ offset
        above = None  # the chain above the moved frame is usually empty: skip identities
        for f in chain[pl.pos + 1:]:
            local = frames[f].local
            above = local if above is None else local @ above  # type: ignore[operator]
        if above is not None:
            target = above.inverse() @ target
        return target @ below.inverse()

    # ------------------------------------------------------------------------------ sweeps
    def run(self) -> SnapResult:
        self._build()
        p = self.problem
        enabled = sum(1 for m in p.mates if m.enable_snap)
        self.trace.insert(0, f"SNAP '{p.root}': {len(p.systems)} systems, {len(p.bodies)} bodies, "
                             f"{len(p.connectors)} connectors, {len(p.mates)} mates ({enabled} with "
                             "enable_snap)")
        n = len(self.mates)
        self.heap = [(0, j) for j in range(n)]  # sorted, hence already a heap
        self.scheduled = [0] * n
        first_pending = 0
        while True:
            while self.heap:
                s, j = heapq.heappop(self.heap)
                if self.scheduled[j] != s:
                    continue  # superseded by an earlier visit
                self.scheduled[j] = -1
                checkpoint()
                if s != self.sweep:
                    self.sweep = s
                    self.trace.append(f"Sweep {s + 1}")
                self._visit(self.mates[j], s)
            while first_pending < n and self.mates[first_pending].done:
                first_pending += 1
            if first_pending == n:
                break
            self._force(self.mates[first_pending])
        return self._finish()

    def _push(self, j: int, s: int) -> None:
        cur = self.scheduled[j]
        if cur != -1 and cur <= s:
            return  # an (earlier) visit is already queued and will see the change
        self.scheduled[j] = s
        heapq.heappush(self.heap, (s, j))

    def _notify(self, frame: int, s: int, j: int) -> None:
        """``frame`` became defined while visiting mate ``j`` in sweep ``s``."""
        for k in self.frame_mates[frame]:
            if not self.mates[k].done:
                self._push(k, s if k > j else s + 1)

    def _visit(self, m: _Mate, s: int) -> None:
        if m.done:
            return
        free = [[f for f in chain if self.frames[f].local is None] for chain in m.chains]
        n0, n1 = len(free[0]), len(free[1])
        if n0 == 0 and n1 == 0:
            self._check(m)
        elif n0 + n1 == 1:
            side = 0 if n0 == 1 else 1
            self._place(m, side, free[side][0], s)

    def _place(self, m: _Mate, side: int, frame: int, s: int) -> None:
        fr = self.frames[frame]
        pl = _Placement(len(self.placements), m, side, frame, m.chains[side].index(frame))
        deps = sorted({self.frames[f].placed_by for f in m.chains[0] + m.chains[1]
                       if f != frame and self.frames[f].placed_by >= 0})
        pl.deps = tuple(deps)
        for d in deps:
            self.placements[d].children.append(pl.index)
        self.placements.append(pl)
        fr.local = self._solve_frame(pl)
        fr.state = "snapped"
        fr.placed_by = pl.index
        m.done, m.outcome, m.placement = True, "placed", pl
        tracing = self.tracing  # (one placement per mate: its lines cost as much as it)
        if tracing:
            pl.trace_line = len(self.trace)
            self.trace.append(self._placement_line(pl))
        for name, kind in _DOFS[m.kind]:
            initial = (m.src.initial_angle if kind == "rot" else
                       m.src.initial_position if kind == "lin" else 0.0)
            d = _Dof(len(self.dofs), pl, name, kind, initial)
            self.dofs.append(d)
            pl.dofs.append(d.index)
            self.alive.append(d.index)
            if tracing:
                self.trace.append(self._dof_line(d))
        self._notify(frame, s, m.index)

    def _placement_line(self, pl: _Placement) -> str:
        m, side = pl.mate, pl.side
        c_move, c_fixed = m.conns[side], m.conns[1 - side]
        return (f"Constraining from '{c_move.path}' to '{c_fixed.path}' by "
                f"'{self.frames[pl.frame].path}' (mate '{m.path}', {m.kind}, connectors[{side}] "
                f"side moves): {_fmt(self.frames[pl.frame].local)}")  # type: ignore[arg-type]

    def _dof_line(self, d: _Dof) -> str:
        return (f"Mate '{d.placement.mate.path}' add dof {d.name} = {d.initial:.6g} on "
                f"'{self.frames[d.placement.frame].path}'")

    def _check(self, m: _Mate) -> None:
        m.done = True
        pe, ae = constraint_error(m.kind, self._side_pose(m, 0), self._side_pose(m, 1),
                                  m.src.initial_distance)
        if pe <= POS_TOL and ae <= ANG_TOL:
            m.outcome = "satisfied"
            if self.tracing:
                self.trace.append(f"Checking '{m.path}': both sides placed, satisfied")
            return
        self.trace.append(f"Checking '{m.path}': both sides placed, violated by {pe:.6g} m, "
                          f"{ae:.6g} rad; trying loop closure")
        if self._close_loop(m):
            m.outcome = "closed"
            return
        m.outcome = "violated"
        self.trace.append(f"Mate '{m.path}' left violated")
        self._report(Severity.WARNING, f"mate '{m.path}' ({m.kind}) is violated after SNAP: its "
                     f"connectors are {pe:.3g} m and {ae:.3g} rad apart; it conflicts with declared "
                     "transforms or with mates SNAP applied first (the first one wins)", m.path, m.src,
                     Code.SNAP_VIOLATED)

    # ------------------------------------------------------------------------------ forcing
    def _reference_body(self, system: int) -> int | None:
        if system in self.ref_cache:
            return self.ref_cache[system]
        src = self.system_src.get(self.frames[system].path)
        ref: int | None = None
        if src is not None and src.reference_body is not None:
            r = self.index.get(src.reference_body)
            if r is not None and self.frames[r].is_body and self.frames[r].parent == system:
                ref = r
            else:
                self._report(Severity.WARNING, f"reference_body '{src.reference_body}' of "
                             f"'{src.path}' is not one of its bodies; using the default rule",
                             src.path)
        if ref is None:
            bodies = self.bodies_of[system]
            pool = [b for b in bodies if self.frames[b].declared is not None] or bodies
            if pool:
                ref = min(pool, key=lambda b: (self.frames[b].name.encode("utf-8"), b))
        self.ref_cache[system] = ref
        return ref

    def _force(self, first: _Mate) -> None:
        if self.alive:
            for d in self.alive:
                self.dofs[d].state = "killed"
            self.trace.append(f"No progress: killing {len(self.alive)} free DOF(s) "
                              f"({', '.join(self.dofs[d].label() for d in self.alive)})")
            self.alive = []
        frame, why, where = -1, "", None
        ref = self._reference_body(_ROOT)
        if ref is not None and self.frames[ref].local is None and self.frame_mates[ref]:
            frame, why = ref, f"reference body of '{self.frames[_ROOT].path}'"
        else:
            side = 1
            for side in (1, 0):
                frame = next((f for f in first.chains[side] if self.frames[f].local is None), -1)
                if frame >= 0:
                    break
            if frame < 0:  # cannot happen: a pending mate always has a free frame when stuck
                first.done, first.outcome = True, "violated"
                self._report(Severity.ERROR, f"mate '{first.path}': SNAP found no frame to force",
                             first.path, first.src)
                return
            owner = first.conns[side].owner
            where = first.src  # point the editor at the mate that needed the guess
            why = (f"{'owner of' if frame == owner else 'first free frame above'} connectors[{side}] "
                   f"'{first.conns[side].path}' of first unresolved mate '{first.path}'")
            fr = self.frames[frame]
            if fr.is_body and fr.parent != _ROOT:
                # A subsystem's reference body is the first of its bodies SNAP fixes.
                r = self._reference_body(fr.parent)
                if (r is not None and r != frame and self.frames[r].local is None
                        and self.frame_mates[r]):
                    why = (f"reference body of '{self.frames[fr.parent].path}', before {why}")
                    frame = r
        fr = self.frames[frame]
        fr.local = IDENTITY
        fr.state = "forced"
        self.trace.append(f"Forcing '{fr.path}' to identity ({why})")
        self._report(Severity.INFO, f"redundant transform of '{fr.path}' forced to identity: the "
                     f"mates do not determine it ({why})", fr.path, where, Code.SNAP_FORCED)
        s = self.sweep + 1
        for k in self.frame_mates[frame]:
            if not self.mates[k].done:
                self._push(k, s)

    # ------------------------------------------------------------------------------ loop closure
    def _affected(self, pl: int) -> set[int]:
        """Placements that move when placement ``pl``'s DOFs change (``pl`` included)."""
        out = {pl}
        todo = [pl]
        while todo:
            for c in self.placements[todo.pop()].children:
                if c not in out:
                    out.add(c)
                    todo.append(c)
        return out

    def _moves(self, affected: set[int], frame: int) -> bool:
        """Does changing those placements move ``frame`` in the world?"""
        frames = self.frames
        while frame != _ROOT:
            if frames[frame].placed_by in affected:
                return True
            frame = frames[frame].parent
        return False

    def _motion(self, d: _Dof) -> "Motion":
        from .closure import Motion
        pl = d.placement
        fixed = pl.mate.conns[1 - pl.side]
        W = self._world(fixed.owner) @ fixed.X_OC
        # Connector 1 = connector 0 @ Rz(a) Tz(p): raising a or p turns/slides the side-1 part
        # about/along connector 0's main axis; when side 0 was the one placed, it goes backwards.
        return Motion(d.kind == "rot", W.p, z_axis(W), 1.0 if pl.side == 1 else -1.0)

    def _close_loop(self, m: _Mate) -> bool:
        from .closure import solve_pair_separate, solve_pair_series
        cands = [i for i in reversed(self.alive) if self.dofs[i].kind is not None
                 and self.dofs[i].state == "free"][:_CLOSURE_CANDIDATES]
        if not cands:
            self.trace.append(f"Loop closure of '{m.path}': no free DOF to move")
            return False
        owners = (m.conns[0].owner, m.conns[1].owner)
        points = tuple((self._world(o) @ c.X_OC).p for o, c in zip(owners, m.conns))
        info = []  # (dof, affected placements, side it carries, motion); most recent first
        for i in cands:
            d = self.dofs[i]
            aff = self._affected(d.placement.index)
            on = [self._moves(aff, o) for o in owners]
            if on[0] != on[1]:
                info.append((d, aff, 0 if on[0] else 1, self._motion(d)))
        if len({id(d.placement) for d, *_ in info}) == 1:
            # Only one earlier mate could move: the two mates conflict, and the earlier one
            # wins with its initial values (a loop closure needs two mates' DOFs).
            self.trace.append(f"Loop closure of '{m.path}' not tried: only the free DOFs of "
                              f"'{info[0][0].placement.mate.path}' move one side; the two mates "
                              "conflict and the earlier one wins")
            return False
        attempts: list[list[tuple[_Dof, float]]] = []
        for a in range(len(info)):
            for b in range(a + 1, len(info)):
                late, early = info[a], info[b]  # info is newest first
                if late[0].placement is early[0].placement:
                    continue  # one mate's own DOFs (a cylindrical's): that mate alone
                if early[2] != late[2]:
                    sols = solve_pair_separate(early[3], points[early[2]], late[3], points[late[2]])
                else:
                    side = early[2]
                    late_axis = late[0].placement.mate.conns[1 - late[0].placement.side].owner
                    early_axis = early[0].placement.mate.conns[1 - early[0].placement.side].owner
                    if not self._moves(early[1], late_axis) and self._moves(late[1], early_axis):
                        dp = solve_pair_series(late[3], early[3], points[side], points[1 - side])
                        sols = [(de, dl) for dl, de in dp]
                    else:  # early carries late's axis (or they share one, as a cylindrical's)
                        sols = solve_pair_series(early[3], late[3], points[side], points[1 - side])
                sols.sort(key=lambda sol: self._branch_key(early[0], late[0], sol))
                attempts.extend([[(early[0], de), (late[0], dl)] for de, dl in sols])
        for changes in attempts:
            if self._try_closure(m, changes):
                return True
        if not info:
            self.trace.append(f"Loop closure of '{m.path}' failed: no free DOF moves one side only")
        else:
            self.trace.append(f"Loop closure of '{m.path}' failed: no change of the free DOFs "
                              f"({', '.join(d.label() for d, *_ in info)}) satisfies it")
        return False

    @staticmethod
    def _branch_key(early: _Dof, late: _Dof, sol: tuple[float, float]) -> tuple:
        """Which of two solutions to try first.

        Two hinges: the negative-angle branch, i.e. the one where the later-recorded hinge
        turns by a negative angle (the elbow of a two-link chain bends clockwise about its
        axis); otherwise the smaller change.  With a slide: the shorter slide first.
        """
        de, dl = sol
        if early.kind == "rot" and late.kind == "rot":
            return (0 if dl < 0.0 else 1, abs(de) + abs(dl))
        lin = sum(abs(v) for d, v in ((early, de), (late, dl)) if d.kind == "lin")
        rot = sum(abs(v) for d, v in ((early, de), (late, dl)) if d.kind == "rot")
        return (lin, rot)

    def _try_closure(self, m: _Mate, changes: list[tuple[_Dof, float]]) -> bool:
        saved_values = [(d.placement, d.placement.angle, d.placement.position) for d, _ in changes]
        for d, delta in changes:
            pl = d.placement
            if d.kind == "rot":
                pl.set_values(pl.angle + delta, pl.position)
            else:
                pl.set_values(pl.angle, pl.position + delta)
        replay: set[int] = set()
        for d, _ in changes:
            replay |= self._affected(d.placement.index)
        saved_locals = []
        for q in sorted(replay):
            pl = self.placements[q]
            saved_locals.append((pl.frame, self.frames[pl.frame].local))
            self.frames[pl.frame].local = self._solve_frame(pl)
        # The closed mate must hold, and so must every mate that was already satisfied.
        to_check = {m.index}
        for f, _ in saved_locals:
            for k in self.frame_mates[f]:
                if self.mates[k].outcome in ("satisfied", "closed"):
                    to_check.add(k)
        ok = True
        for k in sorted(to_check):
            mk = self.mates[k]
            pe, ae = constraint_error(mk.kind, self._side_pose(mk, 0), self._side_pose(mk, 1),
                                      mk.src.initial_distance)
            if pe > POS_TOL or ae > ANG_TOL:
                ok = False
                break
        if not ok:
            for pl, a, p in saved_values:
                pl.set_values(a, p)
            for f, local in reversed(saved_locals):
                self.frames[f].local = local
            return False
        parts = []
        for d, delta in changes:
            d.state, d.used_by = "used", m.path
            verb = "rotating" if d.kind == "rot" else "sliding"
            parts.append(f"{verb} {d.label()} by {delta:.6g} (now {d.value:.6g})")
        self.alive = [i for i in self.alive if self.dofs[i].state == "free"]
        self.trace.append(f"Satisfying '{m.path}' by {' and '.join(parts)}")
        return True

    # ------------------------------------------------------------------------------ result
    def _finish(self) -> SnapResult:
        self._leave_the_rest()
        return self._result()

    def _leave_the_rest(self) -> None:
        """Free frames no mate reached stay at identity (with their warnings)."""
        frames = self.frames
        redirect_targets = {c.redirected for c in self.conns.values() if c.redirected >= 0}
        for f, fr in enumerate(frames):
            if fr.local is None:
                fr.local = IDENTITY
                fr.state = "unconstrained"
                if fr.is_body and f in redirect_targets:
                    self._report(Severity.WARNING, f"body '{fr.path}' is only reached through "
                                 "redirected connectors, which SNAP positions by their defining "
                                 "owner; it has no local_transform and is left at identity", fr.path,
                                 code=Code.SNAP_UNMATED)
                elif fr.is_body:
                    if f not in self.mated:
                        self._report(Severity.WARNING, f"body '{fr.path}' is not connected by any "
                                     "mate and has no local_transform; left at identity", fr.path,
                                     code=Code.SNAP_UNMATED)
                    elif not self.mated[f]:
                        self._report(Severity.WARNING, f"body '{fr.path}' is only connected by mates "
                                     "with enable_snap false and has no local_transform; left at "
                                     "identity", fr.path, code=Code.SNAP_UNMATED)
                self.trace.append(f"Leaving '{fr.path}' at identity: no snapped mate determines it")

    def _result(self) -> SnapResult:
        """The result from the frames as they are (all defined by now)."""
        res = SnapResult()
        frames = self.frames
        world: list[Pose] = [IDENTITY] * len(frames)
        order = sorted(range(1, len(frames)), key=lambda f: (frames[f].depth, f))
        for f in order:
            parent = frames[f].parent
            local = frames[f].local
            # Every local is set by now (free frames became identity above).
            world[f] = local if parent == _ROOT else world[parent] @ local  # type: ignore
        for m, kind, c0, c1 in self.adaptive_mates:
            # Connector 1 = connector 0 @ D: the adaptive side takes the pose that makes it so.
            D = mate_offset(kind, m.initial_angle, m.initial_position, m.initial_distance)
            if c1.adaptive:
                moving, W = c1, world[c0.owner] @ c0.X_OC @ D
            else:
                moving, W = c0, world[c1.owner] @ c1.X_OC @ D.inverse()
            moving.X_OC = world[moving.owner].inverse() @ W
            res.adapted[moving.path] = moving.X_OC
            self.trace.append(f"Adapting '{moving.path}' to mate '{m.path}': "
                              f"{_fmt(moving.X_OC)} in '{frames[moving.owner].path}'")
        for f in self._output_order():
            fr = frames[f]
            res.local[fr.path] = fr.local  # type: ignore[assignment]
            res.world[fr.path] = world[f]
            res.status[fr.path] = fr.state
        for c in self.problem.connectors:
            conn = self.conns.get(c.path)
            if conn is None or c.path in res.world:
                continue
            owner = conn.owner
            local = conn.X_OC if owner == _ROOT else frames[owner].local @ conn.X_OC  # type: ignore
            res.local[c.path] = local
            parent = frames[owner].parent
            # A connector's local pose is already in the root when its owner's system is the root.
            res.world[c.path] = local if owner == _ROOT or parent == _ROOT else world[parent] @ local
            if conn.redirected >= 0:
                res.redirected[c.path] = world[conn.redirected].inverse() @ res.world[c.path]
        for m in self.mates:
            pl = m.placement
            if pl is None:
                continue
            res.dofs[m.path] = [SnapDof(m.path, d.name, frames[pl.frame].path, d.initial, d.value,
                                        d.state, d.used_by) for d in (self.dofs[i] for i in pl.dofs)]
        res.diagnostics = list(self.diag)
        res.trace = self.trace if self.tracing else []
        return res

    def _output_order(self) -> Iterable[int]:
        """Root, then systems, then bodies, each in declaration order."""
        yield _ROOT
        yield from (f for f in range(1, len(self.frames)) if not self.frames[f].is_body)
        yield from (f for f in range(1, len(self.frames)) if self.frames[f].is_body)


def solve(problem: SnapProblem, *, trace: bool = True) -> SnapResult:
    """Run SNAP on ``problem``; see :mod:`snapframe.core.snap` for the rules.
    ``trace=False``: :attr:`SnapResult.trace` is left empty (not worked out)."""
    return _Snap(problem, trace).run()
