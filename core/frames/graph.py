"""The frame graph of a document: scopes, validation and world (or top-model) poses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ..diagnostics import Code, Diagnostics, SourceLocation
from ..events import ChangeKind, DocumentChanged
from ..live.keys import join_key, part_key
from ..model import Collision, Document, Include, Joint, Model, Node, Visual, World
from ..model.names import MODEL_FRAME, SEP, WORLD, is_reserved, split_first
from ..pose import IDENTITY, Pose
from .scope import Scope, Unresolved, Vertex

__all__ = ["FrameGraph", "FrameInfo", "check_document", "run_checks"]


@dataclass(frozen=True, slots=True)
class FrameInfo:
    """A frame of the document as the CLI and views see it."""

    name: str          # scoped name, e.g. "robot::arm::link"
    kind: str          # "model" | "link" | "joint" | "frame"
    pose: Pose         # in the world frame (world files) or the top model's frame
    node_id: int


class FrameGraph:
    """All scopes of a document, built once and updated incrementally on edits."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self._build()

    def _build(self) -> None:
        self._cache: dict = {}
        root = self.document.root
        if isinstance(root, World):
            self.root = Scope.for_world(root, self._cache)
        elif isinstance(root, Model):
            self.root = Scope.for_model(root, root.name, root.static, self._cache)
        else:
            self.root = None
        self._where: dict[int, tuple[Scope, str]] | None = None
        #: See _rebuild_root; None: nothing to report (read and reset by the live document).
        self.unchanged: set[str] | None = set()

    # -- queries ------------------------------------------------------------------
    @property
    def is_world(self) -> bool:
        return self.root is not None and self.root.kind == "world"

    def pose(self, name: str, relative_to: str = "") -> Pose:
        """Pose of frame ``name`` (scoped from the root) in ``relative_to`` (default: the
        root frame: world, or the top model).  Raises :class:`Unresolved`."""
        if self.root is None:
            raise Unresolved("empty document")
        X_R_a = self.root.pose_of(self._strip_top(name))
        if not relative_to:
            return X_R_a
        return self.root.pose_of(self._strip_top(relative_to)).inverse() @ X_R_a

    def resolve(self) -> None:
        """Re-resolve every frame of the root scope after edits (nested scopes resolve
        lazily and are cached)."""
        if self.root is not None:
            self.root.resolve_all()

    def _strip_top(self, name: str) -> str:
        """Accept ``top::x`` for model documents (names are listed with the top prefix)."""
        if self.root is not None and self.root.kind == "model":
            head, rest = split_first(name)
            if head == self.root.name:
                return rest or MODEL_FRAME
        return name

    def frames(self) -> list[FrameInfo]:
        """Every model, link, joint and frame at every depth, with its resolved pose.

        Frames whose pose cannot be resolved (the checks report why) are left out.
        """
        out: list[FrameInfo] = []
        root = self.root
        if root is None:
            return out
        prefix = ""
        if root.kind == "model":
            out.append(FrameInfo(root.name, "model", IDENTITY, root.owner.id))
            prefix = root.name + SEP
        self._collect(root, IDENTITY, prefix, out)
        return out

    def _collect(self, scope: Scope, X_R_S: Pose, prefix: str, out: list[FrameInfo]) -> None:
        # The root scope is walked (its vertices are what edits move); nested scopes come
        # from their cached tables.
        for v in scope.vertices.values():
            try:
                X_S_v = scope.pose_of(v.name)
            except Unresolved:
                continue
            X_R_v = X_R_S @ X_S_v
            name = prefix + v.name
            out.append(FrameInfo(name, v.kind, X_R_v, v.node.id))
            if v.nested is not None:
                sub = name + SEP
                out.extend(FrameInfo(sub + n, k, X_R_v @ X, nid) for n, k, X, nid in v.nested.table())

    def explain(self, name: str) -> list[str]:
        """The chain of transforms that places frame ``name`` (for teaching)."""
        if self.root is None:
            return ["empty document"]
        lines: list[str] = []
        # A work stack, not recursion: a name may reach as deep as the models nest.  A
        # task is a frame to explain or a line to print after the tasks above it.
        tasks: list[tuple[Scope, str, str, int] | str] = [(self.root, self._strip_top(name), "", 0)]
        while tasks:
            task = tasks.pop()
            if isinstance(task, str):
                lines.append(task)
            else:
                tasks.extend(reversed(self._explain(*task, lines)))
        return lines

    def _explain(self, scope: Scope, name: str, prefix: str, depth: int, lines: list[str]
                 ) -> list[tuple[Scope, str, str, int] | str]:
        """Explain one step; returns what to explain (or print) next, in order."""
        pad = "  " * depth
        frame = scope.frame_name
        if name in (frame, ""):
            lines.append(f"{pad}{frame} is the frame of {scope.kind} [{scope.name}] itself "
                         "(identity)")
            return []
        head, rest = split_first(name)
        v = scope.vertices.get(head)
        if v is None:
            lines.append(f"{pad}[{prefix}{head}] does not exist in {scope.kind} [{scope.name}]")
            return []
        base = v.relative_to(frame)
        if v.pose.relative_to:
            why = "written relative_to"
        elif v.kind == "joint":
            why = "default: the joint's child frame"
        elif v.kind == "frame" and v.node.attached_to:  # type: ignore[attr-defined]
            why = "default: its attached_to frame"
        else:
            why = f"default: the scope frame {frame}"
        try:
            X = scope.pose_of(head)
            placed = (f" * inverse([{v.placement_frame}] in {head})  (placement_frame)"
                      if v.kind == "model" and v.placement_frame else "")
            lines.append(f"{pad}{v.kind} [{prefix}{head}] in {frame} = [{base}] in {frame} * "
                         f"<pose>{_fmt(v.pose.value)}  ({why}){placed}  = {_fmt(X)}")
        except Unresolved as exc:
            lines.append(f"{pad}[{prefix}{head}] cannot be resolved: {exc.reason}")
            return []
        after: list[tuple[Scope, str, str, int] | str] = []
        if base not in (frame, "") and depth < 32:
            after.append((scope, base, prefix, depth + 1))
        if rest and rest != MODEL_FRAME and v.nested is not None:
            after.append(f"{pad}then inside model [{prefix}{head}]:")
            after.append((v.nested, rest, prefix + head + SEP, depth + 1))
        return after

    # -- incremental updates ------------------------------------------------------
    def _in_root_scope(self, event: DocumentChanged) -> bool:
        """The edit added, removed or renamed direct children of the root only (not
        merged ones): nested scopes stay valid and only the root scope is built again."""
        owner = self.document.root
        return self.root is not None and bool(event.nodes) and all(
            n.parent is owner and not (isinstance(n, Include) and n.merge)
            for n in event.nodes)

    def _rebuild_root(self, event: DocumentChanged) -> None:
        if event.kind == ChangeKind.RENAMED:
            # A scope shared by several includes is named after its first include.
            for key, scope in list(self._cache.items()):
                if any(scope.site is n for n in event.nodes):
                    del self._cache[key]
        root = self.document.root
        old = self.root
        if isinstance(root, World):
            self.root = Scope.for_world(root, self._cache)
        else:
            self.root = Scope.for_model(root, root.name, root.static, self._cache)
        self._where = None
        # Root vertices whose pose the rebuilds since the last read carried over (they did
        # not move); several rebuilds in one user action keep only what all carried over.
        adopted = self.root.adopt(old) if old is not None else set()
        self.unchanged = adopted if self.unchanged is None else self.unchanged & adopted

    def _locate(self, node_id: int) -> tuple[Scope, str] | None:
        """(scope, vertex name) of a frame node, or of the link holding a visual or
        collision, owned by this document's scopes."""
        if self._where is None:
            where: dict[int, tuple[Scope, str]] = {}
            seen: set[int] = set()
            # Depth-first in document order (the first scope to hold a node wins), with an
            # explicit stack: models nest deeper than Python's recursion limit.
            stack: list[Iterator[Vertex]] = [] if self.root is None else \
                [iter(self.root.vertices.values())]
            scopes: list[Scope] = [] if self.root is None else [self.root]
            if self.root is not None:
                seen.add(id(self.root))
            while stack:
                v = next(stack[-1], None)
                if v is None:
                    stack.pop()
                    scopes.pop()
                    continue
                scope = scopes[-1]
                where.setdefault(v.node.id, (scope, v.name))
                if v.kind == "link":
                    for part in (*v.node.collisions, *v.node.visuals):  # type: ignore
                        where.setdefault(part.id, (scope, v.name))
                if v.nested is not None and id(v.nested) not in seen:
                    seen.add(id(v.nested))
                    stack.append(iter(v.nested.vertices.values()))
                    scopes.append(v.nested)
            self._where = where
        return self._where.get(node_id)

    def on_change(self, event: DocumentChanged) -> set[str]:
        """Update after an edit; return the root-scope vertex names whose frames (or parts)
        moved, their descendants with them; ``{"*"}`` after a rebuild."""
        fields = set(event.fields)
        if event.kind in (ChangeKind.ADDED, ChangeKind.REMOVED, ChangeKind.RENAMED) and \
                self._in_root_scope(event):
            self._rebuild_root(event)
            return {ROOT_REBUILT}
        if event.kind != ChangeKind.MODIFIED or not fields:
            self._build()
            return {"*"}
        if fields <= NO_FRAME_EFFECT:
            return set()
        if not fields <= POSE_FIELDS:
            self._build()
            return {"*"}
        changed: set[str] = set()
        for node_id in event.node_ids:
            found = self._locate(node_id)
            if found is None:
                self._build()
                return {"*"}
            scope, name = found
            if scope.vertices.get(name) is not None and scope.vertices[name].node.id != node_id:
                top, names = scope.touch_up(name)   # a visual or collision moved
            else:
                top, names = scope.invalidate_up(name)
            if top is self.root:
                changed |= names
        return changed


#: ``on_change`` result: the root scope was built again, nested scopes were kept.
ROOT_REBUILT = "**"
#: Fields whose edits never change a frame (joint and mate settings, inertia, geometry).
NO_FRAME_EFFECT = frozenset({"type", "axes", "inertial", "density", "mass", "geometry",
                             "color", "enable_snap", "initial_angle", "initial_position",
                             "initial_distance", "connectors", "limits", "dynamics"})
#: Fields whose edits only move frames (handled incrementally).
POSE_FIELDS = frozenset({"pose", "relative_to", "placement_frame", "written"})


def _from(cycle: tuple[str, ...], start: str) -> tuple[str, ...]:
    """The cycle told from ``start`` (the member that reports it), whichever member the
    resolution that found it started from."""
    if start in cycle:
        i = cycle.index(start)
        return cycle[i:] + cycle[:i]
    return cycle


def _cycle_text(cycle: tuple[str, ...], most: int = 8) -> str:
    if len(cycle) <= most:
        return " -> ".join((*cycle, cycle[0]))
    return " -> ".join(cycle[:most]) + f" -> ... ({len(cycle)} frames in all) -> {cycle[0]}"


def _fmt(X: Pose) -> str:
    x, y, z, r, p, w = (v + 0.0 if abs(v) > 1e-12 else 0.0 for v in X.xyz_rpy())
    return f"({x:.6g} {y:.6g} {z:.6g} | rpy {r:.6g} {p:.6g} {w:.6g})"


# ----------------------------------------------------------------------------------
# Validation: the model stages 2-8 and world stages 2-7 of the composition proposal.
# ----------------------------------------------------------------------------------

_KIND_TITLE = {"link": "Link", "joint": "Joint", "frame": "Frame", "model": "Model"}


class _Checker:
    def __init__(self, diagnostics: Diagnostics, version: str) -> None:
        self.diag = diagnostics
        self.seen: set[int] = set()
        self.cycles: set[tuple[int, str, frozenset]] = set()
        self.reported: dict[int, Unresolved] = {}
        self.current: Scope | None = None
        self.scope_key = ""
        try:
            major, minor = (int(p) for p in version.split(".")[:2])
            self.vt = (major, minor)
        except ValueError:
            self.vt = (1, 11)

    def err(self, code: Code, message: str, node: Node, where: SourceLocation | None = None) -> None:
        self.diag.error(code, message, where or node.source, node.element_path(),
                        self.key_for(node))

    def shown(self, scope: Scope) -> str:
        """The name a finding gives a scope: the element it is checked through (a scope
        shared by several includes is named after the first in document order, as a fresh
        load names it, whatever the cache kept)."""
        if scope is self.current and self.scope_key:
            return self.scope_key.rpartition(SEP)[2]
        return scope.name

    def key_for(self, node: Node) -> str:
        """The instance key of ``node`` in the scope being checked (the first instance of
        a shared include: its findings are reported once)."""
        if isinstance(node, (Visual, Collision)):
            link = node.parent
            return part_key(join_key(self.scope_key, link.name if link else ""), node.kind,
                            node.name)
        if self.current is not None and node in (self.current.owner, self.current.site):
            return self.scope_key
        name = node.effective_name if isinstance(node, Include) else node.name
        return join_key(self.scope_key, name)

    def scope(self, scope: Scope, key: str = "") -> None:
        """Check ``scope`` and every scope below it, depth-first in document order, with an
        explicit stack (models nest deeper than Python's recursion limit)."""
        outer = (self.current, self.scope_key)
        stack: list[tuple[Scope, str]] = [(scope, key)]
        try:
            while stack:
                scope, key = stack.pop()
                if id(scope) in self.seen:
                    continue  # an included file checked once, however often it is included
                self.seen.add(id(scope))
                self.current, self.scope_key = scope, key
                self._scope(scope)
                stack.extend((v.nested, join_key(key, v.name))
                             for v in reversed(scope.vertices.values()) if v.nested is not None)
        finally:
            self.current, self.scope_key = outer

    def _scope(self, scope: Scope) -> None:
        """The checks of one scope (the scopes below it are checked after it)."""
        self.merges(scope)
        self.names(scope)
        if scope.kind == "model":
            self.model_links(scope)
        for v in list(scope.vertices.values()):
            if v.kind == "frame":
                self.frame(scope, v)
            elif v.kind == "joint":
                self.joint(scope, v)
        for v in list(scope.vertices.values()):
            self.relative_to(scope, v)
            if v.kind == "model":
                self.placement(scope, v)
            elif v.kind == "link":
                self.part_poses(scope, v)

    def merges(self, scope: Scope) -> None:
        for inc in getattr(scope.owner, "entities", []):
            if not isinstance(inc, Include) or not inc.merge or inc.model is None:
                continue
            if inc.format and inc.format != "sdformat":
                self.err(Code.MERGE_INCLUDE_UNSUPPORTED, "Custom parser does not support "
                         f"merge-include (format [{inc.format}], uri [{inc.uri}])", inc)
                continue
            placement = inc.placement_frame or inc.model.placement_frame
            if placement and not Scope.for_model(inc.model, inc.effective_name, False, {}).has(
                    placement):
                self.err(Code.POSE_RELATIVE_TO_INVALID, "PoseRelativeToGraph unable to find "
                         f"unique frame with name [{placement}] in graph.", inc)
            elif scope.kind == "world" and inc.model.links:
                self.err(Code.MERGE_INCLUDE_UNSUPPORTED, "Merge-include for <world> does not "
                         "support element of type link in included model", inc)

    def where_text(self, scope: Scope) -> str:
        return f"{scope.kind} with name[{self.shown(scope)}]"

    def names(self, scope: Scope) -> None:
        for dup in scope.duplicates:
            if is_reserved(dup.name):
                continue  # the reader reported the reserved name: that is the root cause
            first = scope.vertices.get(dup.name)
            if first is not None and first.kind == dup.kind:
                self.err(Code.DUPLICATE_NAME, f"{dup.kind} with name[{dup.name}] already exists.",
                         dup.node)
            elif scope.kind == "world":
                self.err(Code.DUPLICATE_NAME, f"{_KIND_TITLE[dup.kind]} with name [{dup.name}] in "
                         f"world with name [{self.shown(scope)}] has a name collision. Please rename "
                         f"this {dup.kind}.", dup.node)
            elif self.vt >= (1, 7):
                self.err(Code.DUPLICATE_NAME, f"{_KIND_TITLE[dup.kind]} with name [{dup.name}] in "
                         f"model with name [{self.shown(scope)}] has a name collision. Please rename this "
                         f"{dup.kind}.", dup.node)
            else:
                self.diag.warning(Code.DUPLICATE_NAME, f"{_KIND_TITLE[dup.kind]} with name "
                                  f"[{dup.name}] in model [{self.shown(scope)}] collides with another "
                                  f"element (allowed before SDFormat 1.7)", dup.node.source,
                                  dup.node.element_path(), self.key_for(dup.node))

    def model_links(self, scope: Scope) -> None:
        model = scope.site or scope.owner
        if scope.static:
            return
        has_body = any(v.kind in ("link", "model") for v in scope.vertices.values())
        if not has_body and not scope.failed_includes:
            self.err(Code.MODEL_WITHOUT_LINK, "A model must have at least one link.", model)
            return
        if scope.canonical_link:
            found = scope.lookup(scope.canonical_link)
            if found is None or found[1].kind != "link":
                self.err(Code.MODEL_CANONICAL_LINK_INVALID, f"canonical_link with name"
                         f"[{scope.canonical_link}] not found in model with name[{self.shown(scope)}].", model)

    def reference_error(self, scope: Scope, what: str, ref: str, v_kind: str, v_name: str) -> str:
        if scope.kind == "world":
            return (f"{what} name[{ref}] specified by {v_kind} with name[{v_name}] does not match "
                    f"a model or frame name in world with name[{self.shown(scope)}].")
        return (f"{what} name[{ref}] specified by {v_kind} with name[{v_name}] does not match a "
                f"nested model, link, joint, or frame name in model with name[{self.shown(scope)}].")

    def frame(self, scope: Scope, v: Vertex) -> None:
        target = v.node.attached_to  # type: ignore[attr-defined]
        if not target:
            return
        if target == v.name:
            self.err(Code.FRAME_ATTACHED_TO_CYCLE, f"attached_to name[{target}] is identical to frame "
                     f"name[{v.name}], causing a graph cycle in {self.where_text(scope)}.", v.node)
            return
        if not scope.has(target):
            if not scope.into_failed_include(target):
                self.err(Code.FRAME_ATTACHED_TO_INVALID,
                         self.reference_error(scope, "attached_to", target, "frame", v.name), v.node)
            return
        try:
            scope.body_of(v.name)
        except Unresolved as exc:
            if exc.cycle and self.first_report(scope, "attached_to", exc):
                self.err(Code.FRAME_ATTACHED_TO_CYCLE, "FrameAttachedToGraph cycle detected, "
                         f"already visited vertex [{self.shown(scope)}::{v.name}] (cycle: "
                         f"{_cycle_text(_from(exc.cycle, v.name))}).", v.node)

    def first_report(self, scope: Scope, graph: str, exc: Unresolved) -> bool:
        """A cycle is one root cause: report it at the first member checked, once.  Every
        member of a chain shares one memoised failure, so the failure object is the key."""
        if id(exc) in self.reported:
            return False
        self.reported[id(exc)] = exc  # keep it alive so its id is not reused
        key = (id(scope), graph, frozenset(exc.cycle))
        if key in self.cycles:
            return False
        self.cycles.add(key)
        return True

    def joint(self, scope: Scope, v: Vertex) -> None:
        joint: Joint = v.node  # type: ignore[assignment]
        where = f"in {self.where_text(scope)}"
        parent, child = joint.parent_name, joint.child_name
        ok = True
        if child == WORLD:
            self.err(Code.JOINT_CHILD_LINK_INVALID, f"Joint with name[{v.name}] specified invalid "
                     "child link [world].", joint, joint.child_source)
            ok = False
        elif child == v.name:
            self.err(Code.JOINT_CHILD_LINK_INVALID, f"joint with name[{v.name}] {where} must not "
                     "specify its own name as the child frame.", joint, joint.child_source)
            ok = False
        elif child and not scope.has(child) and scope.into_failed_include(child):
            ok = False
        elif child and not scope.has(child):
            self.err(Code.JOINT_CHILD_LINK_INVALID, f"Child frame with name[{child}] specified by "
                     f"joint with name[{v.name}] not found {where}.", joint, joint.child_source)
            ok = False
        if parent == v.name:
            self.err(Code.JOINT_PARENT_LINK_INVALID, f"joint with name[{v.name}] {where} must not "
                     "specify its own name as the parent frame.", joint, joint.parent_source)
            ok = False
        elif parent and parent != WORLD and not scope.has(parent) \
                and scope.into_failed_include(parent):
            ok = False
        elif parent and parent != WORLD and not scope.has(parent):
            self.err(Code.JOINT_PARENT_LINK_INVALID, f"parent frame with name[{parent}] specified by "
                     f"joint with name[{v.name}] not found {where}.", joint, joint.parent_source)
            ok = False
        if not ok or not parent or not child:
            return
        if parent == child:
            self.err(Code.JOINT_PARENT_SAME_AS_CHILD, f"Joint with name[{v.name}] must specify "
                     f"different frame names for parent and child, while [{child}] was specified "
                     "for both.", joint)
            return
        for axis in joint.axes:
            if axis.expressed_in and axis.expressed_in != scope.frame_name \
                    and not scope.has(axis.expressed_in):
                self.err(Code.JOINT_AXIS_EXPRESSED_IN_INVALID, f"axis xyz expressed-in frame with "
                         f"name[{axis.expressed_in}] specified by joint with name[{v.name}] not "
                         f"found {where}.", joint, axis.source)
        try:
            child_body = scope.body_of(child)
            parent_body = WORLD if parent == WORLD else scope.body_of(parent)
        except Unresolved:
            return  # the frame or canonical-link checks report the root cause
        # A static model's frames are fixed to the world: a child attached there is invalid.
        if child_body == WORLD or child_body.split(SEP)[-1] == MODEL_FRAME:
            self.err(Code.JOINT_CHILD_LINK_INVALID, f"joint with name[{v.name}] {where} has a child "
                     f"with name[{child}] that resolves to world which is invalid.", joint,
                     joint.child_source)
        elif child_body == parent_body:
            self.err(Code.JOINT_PARENT_SAME_AS_CHILD, f"joint with name[{v.name}] {where} specified "
                     f"parent frame [{parent}] and child frame [{child}] that both resolve to "
                     f"[{child_body}], but they should resolve to different values.", joint)

    def relative_to(self, scope: Scope, v: Vertex) -> None:
        rel = v.pose.relative_to
        where = v.pose.source if v.pose.source.line else v.node.source
        if rel:
            if rel == v.name:
                self.err(Code.POSE_RELATIVE_TO_CYCLE, f"relative_to name[{rel}] is identical to "
                         f"{v.kind} name[{v.name}], causing a graph cycle in "
                         f"{self.where_text(scope)}.", v.node, where)
                return
            if not scope.has(rel):
                if not scope.into_failed_include(rel):
                    self.err(Code.POSE_RELATIVE_TO_INVALID,
                             self.reference_error(scope, "relative_to", rel, v.kind, v.name),
                             v.node, where)
                return
        try:
            scope.pose_of(v.name)
        except Unresolved as exc:
            if not exc.cycle or not self.first_report(scope, "relative_to", exc):
                return
            # A relative_to cycle made only of frames that default to their attached_to is
            # the attached_to cycle seen again: already reported, so not a root cause.
            derived = all(
                (w := scope.vertices.get(n)) is not None and w.kind == "frame"
                and not w.pose.relative_to and w.node.attached_to  # type: ignore[attr-defined]
                for n in exc.cycle)
            if not derived:
                self.err(Code.POSE_RELATIVE_TO_CYCLE, "PoseRelativeToGraph cycle detected, already "
                         f"visited vertex [{self.shown(scope)}::{v.name}] (cycle: "
                         f"{_cycle_text(_from(exc.cycle, v.name))}).", v.node, where)

    def part_poses(self, scope: Scope, v: Vertex) -> None:
        """``//collision/pose`` and ``//visual/pose``: their relative_to must name a frame of
        the model (model stage 7), even though they create no frame themselves."""
        link = v.node
        for part in (*link.collisions, *link.visuals):  # type: ignore[attr-defined]
            rel = part.pose.relative_to
            if rel and not scope.has(rel) and not scope.into_failed_include(rel):
                where = part.pose.source if part.pose.source.line else part.source
                self.err(Code.POSE_RELATIVE_TO_INVALID, self.reference_error(
                    scope, "relative_to", rel, part.kind, part.name), part, where)

    def placement(self, scope: Scope, v: Vertex) -> None:
        if not v.placement_frame or v.nested is None:
            return
        if not v.nested.has(v.placement_frame):
            node = v.node
            self.err(Code.POSE_RELATIVE_TO_INVALID, "PoseRelativeToGraph unable to find unique frame "
                     f"with name [{v.placement_frame}] in graph.", node)

    def top_model(self, scope: Scope) -> None:
        model = scope.owner
        pf = getattr(model, "placement_frame", "")
        if pf and not scope.has(pf):
            self.err(Code.POSE_RELATIVE_TO_INVALID, "PoseRelativeToGraph unable to find unique frame "
                     f"with name [{pf}] in graph.", model)


def run_checks(graph: FrameGraph, diagnostics: Diagnostics, version: str = "1.11") -> None:
    """Add the graph checks' findings about ``graph`` to ``diagnostics``."""
    if graph.root is None:
        return
    checker = _Checker(diagnostics, version)
    if graph.root.kind == "model":
        checker.current = graph.root
        checker.top_model(graph.root)
        checker.current = None
    checker.scope(graph.root)


def check_document(document: Document) -> FrameGraph:
    """Build the document's frame graph and add the graph checks' findings to its diagnostics."""
    graph = document.frames
    run_checks(graph, document.diagnostics, document.version or "1.11")
    return graph
