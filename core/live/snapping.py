"""SNAP that follows edits, for documents with mate connectors and mates (OpenPLX).

After any edit of a mate connector, a mate, or a body's or system's transform (declared or
not), SNAP runs again on the core document (``snapframe.core.snap.document``) and moves
the bodies and systems it places.  SNAP is deterministic, so an undo (which restores
the edited values) followed by the same run restores the previous assembly exactly: the
placement is derived data, like resolved frames, and belongs to the same undo step as the
edit that caused it.  When mates are added, removed, retyped or re-pointed, the joints
that stand for them in SDFormat terms are derived again.

An edit of mates' initial values only (a typed angle, a scrubbed slider) is solved again
by replaying the placements it moves (:class:`~snapframe.core.snap.replay.SnapRun`) on
SNAP's input kept from the last run; any other change of the document builds the input
again and runs SNAP in full.  Both give the same result.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..diagnostics import Diagnostic, Diagnostics, Severity
from ..events import ChangeKind, DocumentChanged
from ..model import Link, Mate, MateConnector, Model, Node, walk
from .keys import key_of

__all__ = ["SnapChanged", "SnapService", "has_mates"]

#: Fields of a mate whose change re-derives its joints (the others only re-run SNAP).
_JOINT_FIELDS = frozenset({"type", "connectors", "name"})
#: Fields of a mate whose change SNAP can replay (see the module docstring).
_VALUE_FIELDS = frozenset({"initial_angle", "initial_position", "initial_distance"})


@dataclass(frozen=True)
class SnapChanged:
    """SNAP ran again: its trace, per-frame status and findings."""

    trace: tuple[str, ...]
    status: dict
    diagnostics: tuple[Diagnostic, ...]
    moved: tuple[str, ...]
    #: whether the findings differ from those of the previous event (the document's
    #: diagnostics need redoing only then)
    findings_changed: bool = True


def has_mates(root: Node | None) -> bool:
    return root is not None and any(isinstance(n, (Mate, MateConnector)) for n in walk(root))


class SnapService:
    """Re-runs SNAP on the document's top model (see the module docstring)."""

    def __init__(self, document) -> None:
        self.document = document
        self.trace: tuple[str, ...] = ()
        self.status: dict = {}
        self.solve_findings: tuple[Diagnostic, ...] = ()
        #: what deriving joints from the mates found (a distance mate has no joint)
        self.joint_findings: tuple[Diagnostic, ...] = ()
        #: When set, edits do not solve SNAP here: the application solves it in the
        #: background and applies the result (snapframe.core.live.background).
        self.deferred = False
        # SNAP's input and run kept for replays, and the mates whose values changed since
        self._input = None
        self._run = None
        self._revalued: dict[int, Mate] = {}
        self._keys: tuple | None = None
        document.changed.connect(self._on_change)
        self._solve(apply=False)
        if self.active:
            from ..snap.joints import plan_mate_joints
            found = Diagnostics()
            plan_mate_joints(self.document.root, found)
            self.joint_findings = tuple(d for d in found if d.severity >= Severity.WARNING)
        self._reported = self.findings     # what the document's diagnostics hold

    @property
    def findings(self) -> tuple[Diagnostic, ...]:
        return self.solve_findings + self.joint_findings

    @property
    def active(self) -> bool:
        return isinstance(self.document.root, Model) and has_mates(self.document.root)

    @staticmethod
    def concerns(node: Node, fields: tuple[str, ...]) -> bool:
        """Whether an edit of ``node`` can change SNAP's result."""
        if isinstance(node, (Mate, MateConnector)):
            return True
        return isinstance(node, (Link, Model)) and bool({"pose", "relative_to"} & set(fields))

    @staticmethod
    def rederives_joints(node: Node, kind: str, fields: tuple[str, ...]) -> bool:
        if isinstance(node, Mate):
            return kind != "modified" or bool(_JOINT_FIELDS & set(fields))
        # a derived joint's frame is its child connector's frame
        return isinstance(node, MateConnector)

    def run(self, derive_joints: bool, solve: bool = True
            ) -> tuple[list[Node], bool, SnapChanged | None]:
        """Solve and apply (unless ``solve`` is False: the result comes from a background
        solve); return (nodes whose pose SNAP changed, whether joints were derived again,
        the event to announce)."""
        if not self.active:
            return [], False, None
        moved = self._solve(apply=True) if solve else []
        rederived = False
        if derive_joints:
            from ..snap.joints import derive_mate_joints
            found = Diagnostics()
            derive_mate_joints(self.document.root, found)
            self.joint_findings = tuple(d for d in found if d.severity >= Severity.WARNING)
            rederived = True
        root = self.document.root
        findings = self.findings
        event = SnapChanged(self.trace, dict(self.status), findings,
                            tuple(key_of(n, root) for n in moved), findings != self._reported)
        self._reported = findings
        return moved, rederived, event

    def snap_input(self):
        """SNAP's input for the document as it is now (kept between edits that leave it
        unchanged: use it, never change it)."""
        inp = self._input
        if inp is None or inp.root is not self.document.root or self._revalued:
            from ..snap.document import snap_input
            inp = snap_input(self.document.root)
        return inp

    def path_keys(self) -> dict[str, str]:
        """SNAP path (``Clock.hour_hand``) -> key (``hour_hand``) of every system, body,
        connector and mate SNAP sees (kept with the input)."""
        inp = self.snap_input()
        if self._keys is None or self._keys[0] is not inp:
            root = self.document.root
            self._keys = (inp, {path: key_of(node, root) for path, node in inp.nodes.items()})
        return self._keys[1]

    def _on_change(self, event: DocumentChanged) -> None:
        """Keep the input and the run only through edits of mates' initial values."""
        if event.kind == ChangeKind.MODIFIED and event.nodes and event.fields and \
                _VALUE_FIELDS.issuperset(event.fields) and \
                all(isinstance(n, Mate) for n in event.nodes):
            for node in event.nodes:
                self._revalued[id(node)] = node
        elif self._input is not None:
            self._input = self._run = None
            self._revalued.clear()

    def _solve(self, apply: bool) -> list[Node]:
        if not self.active:
            self._input = self._run = None
            self._revalued.clear()
            return []
        from ..snap.document import apply_snap_result
        inp, result = self._replay()
        if result is None:
            from ..snap.document import snap_input
            from ..snap.replay import SnapRun
            inp = snap_input(self.document.root)
            run = SnapRun(inp.problem)
            result = run.result
            # an adaptive connector moves in its owner after SNAP: that changes the input
            self._input = inp if not inp.adaptive else None
            self._run = run if self._input is not None and run.replayable else None
        self._revalued.clear()
        moved = apply_snap_result(inp, result) if apply else []
        self.adopt(inp, result)
        return moved

    def _replay(self):
        """(input, result) of a replay of the mates whose values changed; (None, None)
        when SNAP must run in full."""
        inp, run = self._input, self._run
        if inp is None or run is None or inp.root is not self.document.root:
            return None, None
        from ..snap.model import SnapMate
        by_path = {m.path: m for m in inp.problem.mates}
        changed = []
        for node in self._revalued.values():
            path = inp.path_of(node)
            old = by_path.get(path) if path is not None else None
            if old is None:
                return None, None
            changed.append(SnapMate(path, node.type, old.connectors, node.initial_angle,
                                    node.initial_position, node.initial_distance,
                                    node.enable_snap, node.source.file, node.source.line))
        result = run.revalue(changed)
        return (inp, result) if result is not None else (None, None)

    def adopt(self, inp, result) -> None:
        """Take over the trace, status and findings of a result (solved here or in the
        background)."""
        self.trace = tuple(result.trace)
        self.status = dict(result.status)
        self.solve_findings = tuple(self._locate(d, inp) for d in result.diagnostics
                                    if d.severity >= Severity.WARNING)

    def _locate(self, d: Diagnostic, inp) -> Diagnostic:
        """Give a SNAP finding (which names a SNAP path) its element's key and place."""
        node = inp.nodes.get(d.element) if hasattr(inp, "nodes") else None
        if node is None:
            return d
        src = node.source
        return replace(d, file=d.file or src.file, line=d.line or src.line,
                       key=key_of(node, self.document.root))
