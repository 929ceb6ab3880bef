"""SNAP that follows edits, for documents with mate connectors and mates (OpenPLX).

After any edit of a mate connector, a mate, or a body's or system's transform (declared or
not), SNAP runs again on the core document (``snapframe.core.snap.document``) and moves
the bodies and systems it places.  SNAP is deterministic, so an undo (which restores
the edited values) followed by the same run restores the previous assembly exactly: the
placement is derived data, like resolved frames, and belongs to the same undo step as the
edit that caused it.  When mates are added, removed, retyped or re-pointed, the joints
that stand for them in SDFormat terms are derived again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..diagnostics import Diagnostic, Diagnostics, Severity
from ..model import Link, Mate, MateConnector, Model, Node, walk
from .keys import key_of

__all__ = ["SnapChanged", "SnapService", "has_mates"]

#: Fields of a mate whose change re-derives its joints (the others only re-run SNAP).
_JOINT_FIELDS = frozenset({"type", "connectors", "name"})


@dataclass(frozen=True)
class SnapChanged:
    """SNAP ran again: its trace, per-frame status and findings."""

    trace: tuple[str, ...]
    status: dict
    diagnostics: tuple[Diagnostic, ...]
    moved: tuple[str, ...]


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
        self._solve(apply=False)
        if self.active:
            from ..snap.joints import plan_mate_joints
            found = Diagnostics()
            plan_mate_joints(self.document.root, found)
            self.joint_findings = tuple(d for d in found if d.severity >= Severity.WARNING)

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
        event = SnapChanged(self.trace, dict(self.status), self.findings,
                            tuple(key_of(n, root) for n in moved))
        return moved, rederived, event

    def _solve(self, apply: bool) -> list[Node]:
        if not self.active:
            return []
        from ..snap import solve
        from ..snap.document import apply_snap_result, snap_input
        inp = snap_input(self.document.root)
        result = solve(inp.problem)
        moved = apply_snap_result(inp, result) if apply else []
        self.adopt(inp, result)
        return moved

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
