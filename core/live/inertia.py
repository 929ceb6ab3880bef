"""Automatic inertia that follows edits.

Every link with ``<inertial auto="true">`` has its mass properties computed from its
collisions (``snapframe.core.inertia.compute_link_inertia``, the reference rules) and
stored: in :attr:`InertiaService.results` and on the link's ``Inertial.computed``.  After
an edit of a collision's geometry, pose, scale or density, or of the link's mass or
density, only that link is computed again; mesh integrals are cached per file, so this
costs tens of microseconds for primitives.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import Diagnostics
from ..frames.scope import Unresolved
from ..inertia.link import LinkInertia, compute_link_inertia
from ..model import Collision, Include, Link, Node, walk
from ..pose import Pose
from ..progress import checkpoint
from .keys import key_of

__all__ = ["InertiaChanged", "InertiaService"]


@dataclass(frozen=True)
class InertiaChanged:
    """Links whose computed inertia changed: ``keys[i]`` now has ``results[i]`` (its
    ``mass_properties`` None when it cannot be computed; the diagnostics say why)."""

    keys: tuple[str, ...]
    results: tuple[LinkInertia, ...]


def _auto(link: Link) -> bool:
    return link.inertial is not None and link.inertial.auto


class InertiaService:
    """Keeps every auto link's inertia computed (see the module docstring)."""

    def __init__(self, document, poses=None) -> None:
        self.document = document
        #: the live pose table, to name every instance of an included link
        self.poses = poses
        self.results: dict[int, LinkInertia] = {}
        self.refresh_all()

    # -- queries ------------------------------------------------------------------
    def of(self, link: Link) -> LinkInertia | None:
        return self.results.get(link.id)

    def diagnostics(self) -> Diagnostics:
        out = Diagnostics()
        for res in self.results.values():
            out.extend(res.diagnostics)
        return out

    # -- updates ------------------------------------------------------------------
    def _links(self) -> list[Link]:
        """Auto links of the document and of every included file (each file once: its
        model is shared by all its includes)."""
        doc = self.document
        if doc.root is None:
            return []
        out: list[Link] = []
        todo, seen = [None], set()
        while todo:
            top = todo.pop()
            for n in (doc.node_list() if top is None else walk(top)):
                if isinstance(n, Link) and _auto(n):
                    out.append(n)
                elif isinstance(n, Include) and n.model is not None and id(n.model) not in seen:
                    seen.add(id(n.model))
                    todo.append(n.model)
        return out

    def refresh_all(self) -> InertiaChanged | None:
        """Recompute every auto link (after a structural edit)."""
        links = self._links()
        alive = {link.id for link in links}
        for gone in [i for i in self.results if i not in alive]:
            del self.results[gone]
        return self._compute(links)

    def refresh(self, links: list[Link]) -> InertiaChanged | None:
        return self._compute([link for link in links if _auto(link)])

    def links_touched_by(self, nodes: list[Node], frames_moved: bool = False) -> list[Link]:
        """The links an edit of ``nodes`` can change the inertia of; when frames moved,
        also the links with a collision placed relative to another frame."""
        out: dict[int, Link] = {}
        for node in nodes:
            if isinstance(node, Collision) and isinstance(node.parent, Link):
                out[node.parent.id] = node.parent
            elif isinstance(node, Link):
                out[node.id] = node
        if frames_moved:
            for res in self.results.values():
                link = res.link
                if any(c.pose.relative_to not in ("", link.name) for c in link.collisions):
                    out[link.id] = link
        return list(out.values())

    def _compute(self, links: list[Link]) -> InertiaChanged | None:
        keys, results = [], []
        root = self.document.root
        count = len(links)
        for i, link in enumerate(links):
            checkpoint(i / count)     # (a background open: a big mesh may come next)
            res = compute_link_inertia(link, resolve_pose=self._resolver(link))
            before = self.results.get(link.id)
            self.results[link.id] = res
            link.inertial.computed = res.mass_properties  # type: ignore[union-attr]
            if before is not None and _same(before, res):
                continue
            instances = self.poses.keys_of(link.id) if self.poses is not None else []
            if not instances and (link is root or any(a is root for a in link.ancestors())):
                instances = [key_of(link, root)]
            keys.extend(instances)
            results.extend([res] * len(instances))
        if not keys:
            return None
        return InertiaChanged(tuple(keys), tuple(results))

    def _resolver(self, link: Link):
        """X_LC for collisions whose pose names another frame of the link's model."""
        if not any(c.pose.relative_to not in ("", link.name) for c in link.collisions):
            return None
        located = self.document.frames._locate(link.id)

        def resolve(c: Collision) -> Pose | None:
            if c.pose.relative_to in ("", link.name):
                return c.pose.value
            if located is None:
                return None
            scope, name = located
            try:
                X_SL, X_SR = scope.pose_of(name), scope.pose_of(c.pose.relative_to)
            except Unresolved:
                return None  # the graph checks say why
            return X_SL.inverse() @ X_SR @ c.pose.value
        return resolve


def _same(a: LinkInertia, b: LinkInertia) -> bool:
    ma, mb = a.mass_properties, b.mass_properties
    if (ma is None) != (mb is None):
        return False
    if ma is not None and mb is not None:
        import numpy as np
        if not (ma.mass == mb.mass and np.array_equal(ma.com, mb.com)
                and np.array_equal(ma.inertia, mb.inertia)):
            return False
    return [str(d) for d in a.diagnostics] == [str(d) for d in b.diagnostics]
