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

__all__ = ["BackgroundJobs", "ApplySnapResult", "BakeInertia"]


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

    def __init__(self, document: Document, inp, result) -> None:
        self.document, self.inp, self.result = document, inp, result
        self.before: list[tuple[Node, PoseSpec]] = []

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
                {"snap_result": True}, tuple(moved)))


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
