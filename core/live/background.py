"""Work that may take long (a load, a large SNAP, a big mesh's inertia) off the UI thread.

The rule: a worker never touches the live document.  What it needs is taken on the
calling thread (a snapshot: SNAP's immutable input, a copy of a link), computed in a
worker, and its result is applied on the UI thread by a command, so it is one undo step
like any edit::

    jobs = BackgroundJobs()
    future = jobs.solve_snap(doc)              # snapshot now, solve in a worker
    ...                                        # UI keeps running; later, on the UI thread:
    doc.commands.push(ApplySnapResult(doc, *future.result()))

A document whose SNAP runs in the background sets ``doc.live.snap.deferred = True`` so an
edit does not also solve it synchronously.
"""

from __future__ import annotations

import copy
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from ..commands import Command
from ..events import ChangeKind, DocumentChanged
from ..inertia.link import LinkInertia, apply_to_inertial, compute_link_inertia
from ..inertia.mass_properties import MassProperties
from ..model import Document, Link, Node, PoseSpec

__all__ = ["BackgroundJobs", "ApplySnapResult", "BakeInertia", "load_ready",
           "MATE_VALUE_FIELDS", "snap_input_with_values", "push_solved_mate_edit",
           "mesh_inertia_copies", "warm_mesh_inertia"]

#: Fields of a mate an edit may set while SNAP solves the result in the background.
MATE_VALUE_FIELDS = frozenset({"initial_angle", "initial_position", "initial_distance"})


def snap_input_with_values(document: Document, mate, values: dict):
    """SNAP's input for ``document`` as it will be once ``mate`` has the initial
    ``values`` (MATE_VALUE_FIELDS), taken now without changing anything, for a solve
    in a worker; None when that cannot be done ahead (other fields, a mate SNAP does
    not see, adaptive connectors, which SNAP's result moves in its input)."""
    from ..snap.document import snap_input
    from ..snap.model import SnapMate
    if not values or not MATE_VALUE_FIELDS.issuperset(values) or document.root is None:
        return None
    inp = snap_input(document.root)
    path = inp.path_of(mate)
    if path is None or inp.adaptive:
        return None
    mates = inp.problem.mates
    for i, old in enumerate(mates):
        if old.path == path:
            new = {f: float(values.get(f, getattr(old, f))) for f in MATE_VALUE_FIELDS}
            mates[i] = SnapMate(old.path, old.type, old.connectors, new["initial_angle"],
                                new["initial_position"], new["initial_distance"],
                                old.enable_snap, old.file, old.line)
            return inp
    return None


def push_solved_mate_edit(document: Document, mate, values: dict, inp, result) -> None:
    """Set ``mate``'s initial ``values`` and apply the SNAP ``result`` solved for them
    (from :func:`snap_input_with_values`) as one undo step; SNAP is not solved again
    on this thread.  (Undoing it solves SNAP for the values restored, as any undo.)"""
    from ..model.edits import SetMate
    snap = document.live.snap
    was, snap.deferred = snap.deferred, True
    try:
        with document.commands.macro(f"Edit mate {mate.name}"):
            document.commands.push(SetMate(document, mate, **values))
            document.commands.push(ApplySnapResult(document, inp, result, rederive=False))
    finally:
        snap.deferred = was


def load_ready(path: str | Path, context=None, joints: bool = False) -> Document:
    """Read ``path`` into a new document and build its live state (poses, SNAP,
    inertia, diagnostics; with ``joints``, the kinematics the joints panel lists): all
    an editor tab needs before it shows the document, so a background open leaves the
    UI thread only the widgets to build.  Reports progress and stops with
    :class:`~snapframe.core.progress.Cancelled` under a job's
    :class:`~snapframe.core.progress.Progress`; never raises for bad input (see the
    document's diagnostics)."""
    from ..gcpause import gc_paused
    from ..loading import LoadContext, load
    from ..progress import checkpoint, phase
    with gc_paused():     # the document and its live state: all long-lived
        # (shares measured on a world of a thousand robots; the job's title names the
        # file, so the steps do not: the status bar's line stays short)
        with phase(0.0, 0.45 if joints else 0.6, "reading"):
            document = load(path, context or LoadContext())
        with phase(0.45 if joints else 0.6, 0.75 if joints else 1.0, "preparing the view"):
            live = document.live
        if joints:
            with phase(0.75, 1.0, "listing the joints"):
                live.joints.joint_keys()
        checkpoint(1.0, force=True)
    return document


class BackgroundJobs:
    """A small thread pool for one application (numpy and file reading release the GIL)."""

    def __init__(self, workers: int = 2) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="snapframe")

    def load(self, path: str | Path, context=None) -> "Future[Document]":
        """Read a file into a new document (nothing shared with open documents)."""
        from ..loading import LoadContext, load
        return self._pool.submit(load, path, context or LoadContext())

    def solve_snap(self, document: Document) -> Future:
        """Snapshot SNAP's input now; solve it in a worker.  The future's result is
        ``(snap_input, snap_result)`` for :class:`ApplySnapResult`."""
        from ..snap import solve
        from ..snap.document import snap_input
        inp = snap_input(document.root)
        return self._pool.submit(lambda: (inp, solve(inp.problem)))

    def link_inertia(self, link: Link) -> "Future[LinkInertia]":
        """Compute a link's automatic inertia on a copy of it (mesh integrals are cached
        per file and thread-safe to fill)."""
        twin = copy.deepcopy(_detached(link))
        return self._pool.submit(compute_link_inertia, twin, static=False)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def mesh_inertia_copies(document: Document) -> list[Link]:
    """Copies, taken now on the calling thread, of the automatic-inertia links of
    ``document`` (and of the files it includes) that have a mesh file among their
    collisions: what :func:`warm_mesh_inertia` integrates on a worker."""
    from ..model import Include, walk
    out: list[Link] = []
    seen: set[int] = set()
    todo = [document.root]
    while todo:
        top = todo.pop()
        if top is None or id(top) in seen:
            continue
        seen.add(id(top))
        for node in walk(top):
            if isinstance(node, Link) and node.inertial is not None and node.inertial.auto \
                    and any(c.geometry is not None and c.geometry.shape == "mesh"
                            and c.geometry.params.get("resolved_path")
                            for c in node.collisions):
                out.append(copy.deepcopy(_detached(node)))
            elif isinstance(node, Include) and node.model is not None:
                todo.append(node.model)
    return out


def warm_mesh_inertia(links: list[Link]) -> int:
    """Integrate the meshes of ``links`` (copies from :func:`mesh_inertia_copies`), so
    the process-wide mesh cache holds them when the document computes those links'
    inertia on the UI thread; returns how many links were computed.  Checks for a
    cancel per link and per chunk of faces."""
    from ..progress import checkpoint
    for i, link in enumerate(links):
        checkpoint(i / len(links))
        compute_link_inertia(link, static=False)
    return len(links)


def _detached(link: Link) -> Link:
    """A shallow stand-in of ``link`` without its parent (so deepcopy stays small)."""
    twin = copy.copy(link)
    twin.parent = None
    twin.xml = None
    twin.collisions = [copy.copy(c) for c in link.collisions]
    for c in twin.collisions:
        c.xml, c.parent = None, twin
    twin.visuals = []
    return twin


class ApplySnapResult(Command):
    """Apply a SNAP result computed in the background (one undo step)."""

    label = "Assemble (SNAP)"

    def __init__(self, document: Document, inp, result, rederive: bool = True) -> None:
        self.document, self.inp, self.result = document, inp, result
        self.before: list[tuple[Node, PoseSpec]] = []
        #: whether the joints standing for the mates are derived again after it (not
        #: needed when only mates' initial values changed, as SNAP's own re-runs know)
        self.rederive = rederive

    def do(self) -> None:
        from ..snap.document import apply_snap_result
        nodes = [n for n in self.inp.nodes.values() if hasattr(n, "pose")]
        self.before = [(n, n.pose.copy()) for n in nodes if n.pose is not None]
        moved = apply_snap_result(self.inp, self.result)
        self.document.live.snap.adopt(self.inp, self.result)
        self._notify(moved, always=True)

    def undo(self) -> None:
        moved = []
        for node, spec in self.before:
            if not node.pose.value.almost_equal(spec.value, 0.0):
                moved.append(node)
            node.pose = spec.copy()
        self._notify(moved, always=True)

    def _notify(self, moved: list[Node], always: bool = False) -> None:
        if moved or always:
            self.document.notify(DocumentChanged(
                ChangeKind.MODIFIED, tuple(n.id for n in moved), ("pose",),
                {"snap_result": True, "rederive": self.rederive}, tuple(moved)))


class BakeInertia(Command):
    """Write computed mass properties into a link's ``<inertial>`` (for formats without
    automatic inertia, or a result computed in the background)."""

    def __init__(self, document: Document, link: Link, mass_properties: MassProperties) -> None:
        from .keys import is_inside_include
        from ..model.edits import EditRefused
        if link.inertial is None:
            raise EditRefused(f"link '{link.name}' has no <inertial>")
        if mass_properties is None:
            raise EditRefused(f"no mass properties to write into link '{link.name}' (the "
                              "computation failed: see its diagnostics)")
        if is_inside_include(link, document.root):
            raise EditRefused(f"link '{link.name}' belongs to an included file")
        self.document, self.link, self.mp = document, link, mass_properties
        self.before = None
        self.label = f"Bake inertia of {link.name}"

    def do(self) -> None:
        # fields are restored in place: other commands hold this Inertial object
        self.before = dict(vars(self.link.inertial))
        apply_to_inertial(self.link.inertial, self.mp)  # type: ignore[arg-type]
        self.link.inertial.dirty = True  # type: ignore[union-attr]
        self._notify()

    def undo(self) -> None:
        vars(self.link.inertial).update(self.before)  # type: ignore[arg-type]
        self._notify()

    def _notify(self) -> None:
        self.document.notify(DocumentChanged(ChangeKind.MODIFIED, (self.link.id,),
                                             ("inertial",), nodes=(self.link,)))
