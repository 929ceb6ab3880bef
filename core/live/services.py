"""The live document's services and the typed events they announce.

:class:`LiveDocument` is created on a document's first edit (or when a view asks for
``document.live``).  Commands report what they changed through ``Document.notify``; the
frame graph is updated at once (later sub-commands of a macro may need it), everything
else is collected and brought up to date once per user action, when the outermost
command, undo, redo or macro ends:

1. SNAP runs again if the action touched a mate, a mate connector or a body's transform;
2. the pose table recomputes the blocks that moved (or rebuilds after structural edits);
3. inertia is recomputed for the links whose collisions or mass settings changed;
4. diagnostics are redone when the action can change them (not for a drag);
5. one event per kind is emitted: :attr:`LiveDocument.edited`, ``structure_changed``,
   ``poses_changed``, ``snap_changed``, ``inertia_changed``, ``diagnostics_changed``; the
   selection forgets keys that no longer exist.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..events import ChangeKind, DocumentChanged, EventEmitter
from ..frames.graph import ROOT_REBUILT
from ..model import Mate, Node, walk
from ..model.names import SEP
from ..progress import phase
from .inertia import InertiaChanged, InertiaService
from .keys import find, join_key, key_of, subtree_keys
from .posetable import PosesChanged, PoseTable
from .selection import Selection
from .snapping import SnapChanged, SnapService
from .validation import DiagnosticsChanged, DiagnosticsService

def _attached(node: Node, root: Node) -> bool:
    """Whether ``node`` is in the document now (a removed node keeps its parent pointer,
    so every step up must be a child of its parent)."""
    current = node
    while current is not root:
        parent = current.parent
        if parent is None or not any(c is current for c in _holders(parent)):
            return False
        current = parent
    return True


def _holders(parent: Node) -> list:
    from ..model import Include, Link
    if isinstance(parent, Link):
        return [*parent.visuals, *parent.collisions]
    if isinstance(parent, Include):
        return [*parent.entities, *([parent.model] if parent.model is not None else [])]
    return list(getattr(parent, "entities", ()))


__all__ = ["LiveDocument", "Edited", "StructureChanged", "PosesChanged", "InertiaChanged",
           "DiagnosticsChanged", "SnapChanged"]

#: Edits of these fields cannot change a finding of the graph checks (a drag, inertia
#: settings, geometry), so they do not re-validate.
VALIDATION_NEUTRAL = frozenset({"pose", "density", "geometry", "color", "initial_angle",
                                "initial_position", "initial_distance"})
_STRUCTURAL = (ChangeKind.ADDED, ChangeKind.REMOVED, ChangeKind.RENAMED, ChangeKind.RELOADED)


@dataclass(frozen=True)
class Edited:
    """One user action (a command, an undo, a redo, a macro): every change it made."""

    changes: tuple[DocumentChanged, ...]


@dataclass(frozen=True)
class StructureChanged:
    """Keys that appeared or disappeared: elements added or removed, and elements whose
    pose became resolvable or stopped being so (a diagnostic then says why; such an
    element is not drawn).  ``renamed`` maps old keys to new ones for elements that only
    changed name (their subtree included)."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    renamed: dict[str, str] = field(default_factory=dict)


class LiveDocument:
    """Derived data of one document, kept current after every edit (module docstring)."""

    def __init__(self, document) -> None:
        self.document = document
        self.selection = Selection()
        # (phases of a background open: see snapframe.core.progress; no-ops otherwise)
        with phase(0.0, 0.25, "assembling (SNAP)"):
            self.snap = SnapService(document)
        with phase(0.25, 0.6, "resolving poses"):
            self.poses = PoseTable(document.frames)
        with phase(0.6, 0.8, "computing inertia"):
            self.inertia = InertiaService(document, self.poses)
        with phase(0.8, 1.0, "checking"):
            self.validation = DiagnosticsService(document, extra=self._snap_findings)
        self._unposed = self._unposed_keys()
        self.edited: EventEmitter[Edited] = EventEmitter()
        self.structure_changed: EventEmitter[StructureChanged] = EventEmitter()
        self.poses_changed: EventEmitter[PosesChanged] = EventEmitter()
        self.snap_changed: EventEmitter[SnapChanged] = EventEmitter()
        self.inertia_changed: EventEmitter[InertiaChanged] = EventEmitter()
        self.diagnostics_changed: EventEmitter[DiagnosticsChanged] = EventEmitter()
        self._pending: list[DocumentChanged] = []
        self._moved: set[str] = set()
        self._joints = None

    @property
    def joints(self):
        """Joint positions for joint sliders (:class:`~.kinematics.JointState`): an
        overlay on :attr:`poses` that never changes the document until it is baked."""
        if self._joints is None:
            from .kinematics import JointState
            self._joints = JointState(self)
        return self._joints

    # -- queries ------------------------------------------------------------------
    def exists(self, key: str) -> bool:
        return key in self.poses or key in self._unposed or \
            find(self.document.root, key) is not None

    def _snap_findings(self):
        return self.snap.findings if self.snap.active else ()

    def _unposed_keys(self) -> set[str]:
        """Keys of elements with no pose (mates) in the document's own models."""
        root = self.document.root
        if root is None:
            return set()
        return {key_of(n, root) for n in self.document.node_list() if isinstance(n, Mate)}

    # -- collecting ---------------------------------------------------------------
    def note(self, event: DocumentChanged, moved: set[str]) -> None:
        """A command changed the document (the frame graph already knows)."""
        self._pending.append(event)
        self._moved |= moved

    # -- bringing everything up to date --------------------------------------------
    def flush(self) -> None:
        changes, moved = self._pending, self._moved
        self._pending, self._moved = [], set()
        if not changes:
            return
        doc = self.document
        structural = any(c.kind in _STRUCTURAL for c in changes) or "*" in moved \
            or ROOT_REBUILT in moved
        snap_event = self._rerun_snap(changes, moved)
        if snap_event is not None and "*" in moved:
            structural = True

        restructured = None
        if ROOT_REBUILT in moved and "*" not in moved:
            restructured = self.poses.restructure(moved - {ROOT_REBUILT})
        doc.frames.unchanged = None
        if restructured is not None:
            added, removed, pose_event = restructured
        elif "*" in moved or ROOT_REBUILT in moved:
            added, removed, pose_event = self.poses.rebuild()
        else:
            pose_event = self.poses.update(moved)
            added, removed = set(), set()
            if pose_event is None:
                added, removed, pose_event = self.poses.rebuild()
        structure_event = None
        if structural:
            unposed = self._unposed_keys()
            added |= unposed - self._unposed
            removed |= self._unposed - unposed
            self._unposed = unposed
            # elements with no resolvable pose are not in the table: their keys come from
            # the added, removed and renamed nodes themselves
            more_added, more_removed = self._element_keys(changes)
            added |= more_added
            removed |= more_removed
        if added or removed:
            structure_event = StructureChanged(tuple(sorted(added)), tuple(sorted(removed)),
                                               self._renames(changes, removed, added))

        if self._joints is not None:
            # joint positions were reset by the edit: their keys are announced with it
            pose_event = self._joints.settle(pose_event)
        touched = [n for c in changes for n in c.nodes]
        if structural:
            inertia_event = self.inertia.refresh_all()
        else:
            inertia_event = self.inertia.refresh(
                self.inertia.links_touched_by(touched, frames_moved=bool(len(pose_event))))

        diag_event = None
        if structural or (snap_event is not None and snap_event.findings_changed) or \
                any(set(c.fields) - VALIDATION_NEUTRAL for c in changes):
            diag_event = self.validation.refresh()

        self.edited.emit(Edited(tuple(changes)))
        if structure_event is not None:
            self.structure_changed.emit(structure_event)
            self.selection.rename(structure_event.renamed)
        if structural:
            self.selection.retain(self.exists)
        if len(pose_event):
            self.poses_changed.emit(pose_event)
        if snap_event is not None:
            self.snap_changed.emit(snap_event)
        if inertia_event is not None:
            self.inertia_changed.emit(inertia_event)
        if diag_event is not None:
            self.diagnostics_changed.emit(diag_event)
        doc._index = None if structural else doc._index

    def _rerun_snap(self, changes: list[DocumentChanged], moved: set[str]) -> SnapChanged | None:
        if not self.snap.active:
            return None
        applied = any(c.detail.get("snap_result") for c in changes)
        # (a result for mates' new initial values only leaves the joints as they are)
        rederive_applied = any(c.detail.get("snap_result") and c.detail.get("rederive", True)
                               for c in changes)
        changes = [c for c in changes if not c.detail.get("snap_result")]
        structural = any(c.kind in _STRUCTURAL for c in changes)
        relevant = structural or any(SnapService.concerns(n, c.fields)
                                     for c in changes for n in c.nodes)
        derive = any(SnapService.rederives_joints(n, c.kind, c.fields)
                     for c in changes for n in c.nodes)
        # a background solve's result was applied, or SNAP runs in the background: only
        # the joints that stand for the mates are derived here
        solve = relevant and not self.snap.deferred
        if not solve and not derive and not applied:
            return None
        placed, rederived, event = self.snap.run(derive or rederive_applied, solve=solve)
        frames = self.document.frames
        if rederived:
            self.document._node_list = None   # joints were derived again
            self.document._index = None
            frames._build()
            moved.add("*")
        elif placed:
            moved |= frames.on_change(DocumentChanged(
                ChangeKind.MODIFIED, tuple(n.id for n in placed), ("pose",), nodes=tuple(placed)))
        return event

    def _element_keys(self, changes: list[DocumentChanged]) -> tuple[set[str], set[str]]:
        """(keys that appeared, keys that disappeared) from the nodes added, removed and
        renamed (whatever their poses)."""
        root = self.document.root
        added: set[str] = set()
        gone: set[str] = set()
        for c in changes:
            if not c.nodes or c.kind not in (ChangeKind.ADDED, ChangeKind.REMOVED,
                                             ChangeKind.RENAMED):
                continue
            node = c.nodes[0]
            if node is root:
                continue
            attached = _attached(node, root)
            key = key_of(node, root)
            keys = {k for k, _ in subtree_keys(node, key)}
            if c.kind == ChangeKind.ADDED:
                (added if attached else gone).update(keys)
            elif c.kind == ChangeKind.REMOVED:
                (gone if not attached else added).update(keys)
            else:
                # detail["old"] is the name before this change (also for an undo)
                old = join_key(key.rpartition(SEP)[0], c.detail.get("old", ""))
                added |= keys
                gone |= {old + k[len(key):] for k in keys}
        return added - gone, gone - added

    def _renames(self, changes: list[DocumentChanged], removed: set[str],
                 added: set[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        root = self.document.root
        for c in changes:
            if c.kind != ChangeKind.RENAMED or not c.nodes:
                continue
            node: Node = c.nodes[0]
            new_key = key_of(node, root)
            parent_key, _, _ = new_key.rpartition(SEP)
            old_key = join_key(parent_key, c.detail.get("old", ""))
            for k in removed:
                if k == old_key or k.startswith(old_key + SEP) or k.startswith(old_key + "#"):
                    moved_to = new_key + k[len(old_key):]
                    if moved_to in added:
                        out[k] = moved_to
        return out
