"""One scope (a model or the world): its frames, their poses and what they are attached to.

SDFormat builds two graphs per scope (``attached_to`` and ``relative_to``).  Here a scope
holds one vertex per direct child (link, joint, frame, nested model or include) plus the
scope frame (``__model__`` or ``world``); a reference ``A::B::c`` goes through vertex ``A``
into the nested scope, so a scope never looks outside itself (no upward references, no
shadowing) and a nested scope can be shared by every include of the same file.

Poses are memoised per vertex as ``X_S_v`` (vertex v in scope frame S).  Each resolved
vertex records which vertices it depends on, so an edit invalidates only its dependents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from ..diagnostics import SourceLocation
from ..model import Frame, Include, Joint, Link, Model, Node, PoseSpec, World
from ..model.names import MODEL_FRAME, SEP, WORLD
from ..pose import IDENTITY, Pose

__all__ = ["Scope", "Vertex", "Unresolved"]


class Unresolved(Exception):
    """A pose or body cannot be resolved; ``reason`` says why (for explanations)."""

    def __init__(self, reason: str, cycle: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.cycle = cycle


@dataclass(eq=False)
class Vertex:
    """A direct child of a scope that has a frame."""

    name: str
    kind: str  # "link" | "joint" | "frame" | "model"
    node: Node
    #: For nested models and includes: the nested scope (None if the include failed).
    nested: "Scope | None" = None

    # Read through to the node so edits (which replace node.pose) are seen at once.
    @property
    def pose(self) -> PoseSpec:
        node = self.node
        if isinstance(node, Include):
            if node.pose is not None:
                return node.pose
            return node.model.pose if node.model is not None else PoseSpec()
        return node.pose  # type: ignore[attr-defined]

    @property
    def placement_frame(self) -> str:
        node = self.node
        if isinstance(node, Include):
            return node.placement_frame or (node.model.placement_frame if node.model else "")
        return getattr(node, "placement_frame", "")

    @property
    def source(self) -> SourceLocation:
        return self.node.source

    def default_relative_to(self, scope_frame: str) -> str:
        if self.kind == "joint":
            return self.node.child_name  # type: ignore[attr-defined]
        if self.kind == "frame":
            return self.node.attached_to or scope_frame  # type: ignore[attr-defined]
        return scope_frame

    def relative_to(self, scope_frame: str) -> str:
        return self.pose.relative_to or self.default_relative_to(scope_frame)


@dataclass(eq=False)
class Scope:
    """Frames of one model or world.  Build with :meth:`for_model` or :meth:`for_world`."""

    name: str
    kind: str  # "model" | "world"
    owner: Node
    static: bool = False
    canonical_link: str = ""
    vertices: dict[str, Vertex] = field(default_factory=dict)
    #: Vertices dropped because their name was already taken (reported by the checks).
    duplicates: list[Vertex] = field(default_factory=list)
    #: Include nodes whose file could not be loaded (a model that is missing, not empty).
    failed_includes: list[Include] = field(default_factory=list)
    #: Names of includes that failed to load: what they would have defined is unknown.
    failed_names: set[str] = field(default_factory=set)
    #: For the scope of an include: the <include> (diagnostics about the instance go there).
    site: Node | None = None
    #: More than one include uses this scope (it keeps its flattened table, see table()).
    shared: bool = False
    parent: "Scope | None" = None
    parent_vertex: str = ""
    _X: dict[str, Pose] = field(default_factory=dict, repr=False)
    _X_inv: dict[str, Pose] = field(default_factory=dict, repr=False)
    _tail: dict[str, Pose] = field(default_factory=dict, repr=False)
    _table: list | None = field(default=None, repr=False)
    _base: dict[str, str] = field(default_factory=dict, repr=False)
    _head: dict[str, str] = field(default_factory=dict, repr=False)
    #: vertex -> attached body; attachments change only with structural edits (which rebuild).
    _body: dict[str, str] = field(default_factory=dict, repr=False)
    #: Why a vertex cannot be resolved, memoised for the whole chain that led there, so a
    #: cycle of thousands of frames is walked once, not once per frame.
    _pose_fail: dict[str, Unresolved] = field(default_factory=dict, repr=False)
    _body_fail: dict[str, Unresolved] = field(default_factory=dict, repr=False)
    _deps: dict[str, set[str]] = field(default_factory=dict, repr=False)
    _visiting: list[str] = field(default_factory=list, repr=False)
    #: Every vertex here and below is resolved or has failed (see _settle); dropped by
    #: any invalidation here, which also reaches every owning scope above.
    _settled: bool = field(default=False, repr=False)
    #: Flattened rows for live pose tables (see snapframe.core.live.posetable), cached
    #: like ``_table`` and dropped with it.
    rows_cache: object = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.frame_name = WORLD if self.kind == "world" else MODEL_FRAME

    # -- construction -------------------------------------------------------------
    # Built with an explicit stack, not recursion: a document nests models as deep as its
    # includes go (90 files of 5 nested models each are 450 levels), far deeper than
    # Python's recursion limit.  The stack holds one entity iterator per scope being
    # filled, so scopes are created and filled in the order a recursive walk would use
    # (a scope shared by several includes belongs to the first in document order).
    @classmethod
    def for_world(cls, world: World, cache: dict) -> "Scope":
        scope = cls(world.name, "world", world)
        scope._fill(world.entities, False, cache)
        return scope

    @classmethod
    def for_model(cls, model: Model, name: str, static: bool, cache: dict,
                  extra: list[Node] | None = None) -> "Scope":
        scope = cls(name, "model", model, static=static, canonical_link=model.canonical_link)
        scope._fill([*model.entities, *extra] if extra else model.entities, static, cache)
        return scope

    def _fill(self, entities: list[Node], static: bool, cache: dict) -> None:
        stack: list[tuple[Scope, Iterator[Node], bool]] = [(self, iter(entities), static)]
        while stack:
            scope, pending, scope_static = stack[-1]
            node = next(pending, None)
            if node is None:
                stack.pop()
                continue
            scope._add_entity(node, scope_static, cache, stack)

    def _add_entity(self, node: Node, static: bool, cache: dict,
                    stack: list[tuple["Scope", Iterator[Node], bool]]) -> None:
        vertex: Vertex | None = None
        if isinstance(node, Link):
            vertex = Vertex(node.name, "link", node)
        elif isinstance(node, Joint):
            vertex = Vertex(node.name, "joint", node)
        elif isinstance(node, Frame):
            vertex = Vertex(node.name, "frame", node)
        elif isinstance(node, Model):
            nested_static = static or node.static
            nested = Scope(node.name, "model", node, static=nested_static,
                           canonical_link=node.canonical_link)
            vertex = Vertex(node.name, "model", node, nested)
            stack.append((nested, iter(node.entities), nested_static))
        elif isinstance(node, Include):
            vertex = self._include_vertex(node, static, cache, stack)
        if vertex is None:
            return
        # Scopes owned by this document (nested models, includes that add frames) report
        # edits upwards; a scope shared by every include of one file has no one parent.
        if vertex.nested is not None and \
                (not isinstance(node, Include) or node.entities):
            vertex.nested.parent, vertex.nested.parent_vertex = self, vertex.name
        if vertex.name in self.vertices or vertex.name == self.frame_name:
            self.duplicates.append(vertex)
        else:
            self.vertices[vertex.name] = vertex

    def _include_vertex(self, inc: Include, static: bool, cache: dict,
                        stack: list[tuple["Scope", Iterator[Node], bool]]) -> Vertex | None:
        model = inc.model
        if model is None:
            self.failed_includes.append(inc)
            if inc.name:
                self.failed_names.add(inc.name)
            return None
        if inc.merge:
            # A merge-include adds the included model's children to this scope through a
            # proxy frame that stands for the included model frame.
            from .merge import merged_entities
            stack.append((self, iter(merged_entities(inc, model, self.frame_name, cache)),
                          static))
            return None
        eff_static = static or inc.effective_static
        key = (model.id, eff_static, inc.id if inc.entities else None)
        nested = cache.get(key)
        if nested is not None:
            nested.shared = True
        else:
            # Cached before it is filled: only an include cycle (which the loader refuses)
            # could reach it again while it is being filled.
            nested = Scope(inc.effective_name, "model", model, static=eff_static,
                           canonical_link=model.canonical_link)
            nested.site = inc
            cache[key] = nested
            entities = [*model.entities, *inc.entities] if inc.entities else model.entities
            stack.append((nested, iter(entities), eff_static))
        return Vertex(inc.effective_name, "model", inc, nested)

    # -- name lookup --------------------------------------------------------------
    # ``A::B::c`` is walked scope by scope in a loop (a name is as deep as the nesting).
    def has(self, name: str) -> bool:
        """True if ``name`` (possibly ``A::B::c``) names a frame visible from this scope."""
        scope = self
        while True:
            if name == scope.frame_name:
                return True
            head, sep, rest = name.partition(SEP)
            v = scope.vertices.get(head)
            if v is None or (sep and not rest):  # "M::" names nothing
                return False
            if not rest:
                return True
            if v.nested is None:
                return False
            scope, name = v.nested, rest

    def lookup(self, name: str) -> tuple["Scope", Vertex] | None:
        scope = self
        while True:
            head, sep, rest = name.partition(SEP)
            v = scope.vertices.get(head)
            if v is None or (sep and not rest):
                return None
            if not rest or rest == MODEL_FRAME:
                return scope, v
            if v.nested is None:
                return None
            scope, name = v.nested, rest

    def into_failed_include(self, name: str) -> bool:
        """True if ``name`` reaches into an include that failed to load (already reported)."""
        scope = self
        while True:
            head, _, rest = name.partition(SEP)
            if head in scope.failed_names:
                return True
            v = scope.vertices.get(head)
            if not rest or v is None or v.nested is None:
                return False
            scope, name = v.nested, rest

    # -- poses --------------------------------------------------------------------
    def base_of(self, v: Vertex) -> str:
        """The frame ``v``'s pose is written in (cached until ``v`` itself is edited)."""
        base = self._base.get(v.name)
        if base is None:
            base = self._base[v.name] = v.relative_to(self.frame_name)
        return base

    def resolve_all(self) -> None:
        """Resolve every vertex of this scope (what a view does after an edit).

        Fast path: a vertex whose tail is cached and whose head is already resolved costs
        one composition; vertices come in document order, which is usually dependency order.
        """
        X, tails, heads, frame = self._X, self._tail, self._head, self.frame_name
        for name, v in self.vertices.items():
            if name in X:
                continue
            tail = tails.get(name)
            if tail is not None:
                head = heads[name]
                X_S_head = IDENTITY if head == frame else X.get(head)
                if X_S_head is not None:
                    X[name] = X_S_head @ tail
                    continue
            try:
                self._resolve_chain(v)
            except Unresolved:
                pass

    def pose_of(self, name: str) -> Pose:
        """``X_S_name``: the frame ``name`` in this scope's frame.  Raises :class:`Unresolved`.

        ``A::B::c`` is walked scope by scope in a loop (a name is as deep as the nesting)."""
        X = self._X.get(name)
        if X is not None:
            return X
        if name == self.frame_name or name == "":
            return IDENTITY
        steps: list[Pose] = []
        scope = self
        while True:
            head, sep, rest = name.partition(SEP)
            v = scope.vertices.get(head)
            if v is None or (sep and not rest):
                raise Unresolved(f"no frame [{name}] in {scope.kind} [{scope.name}]")
            X = scope._X.get(head)
            if X is None:
                X = scope._resolve_chain(v)
            steps.append(X)
            if not rest or rest == MODEL_FRAME:
                break
            nested = v.nested
            if nested is None:
                raise Unresolved(f"[{head}] is not a model")
            scope, name = nested, rest
        # Composed innermost first, as X_S_A @ (X_A_B @ X_B_c): the same rounding as ever.
        X = steps.pop()
        while steps:
            X = steps.pop() @ X
        return X

    def _resolve_chain(self, v: Vertex) -> Pose:
        """Resolve ``v`` after the vertices it depends on, without deep recursion: a chain
        of a thousand includes, each placed on the previous one, is a thousand-step loop."""
        failed = self._pose_fail.get(v.name)
        if failed is not None:
            raise failed
        chain = [v]
        on_chain = {v.name: 0}
        try:
            while True:
                head = self.base_of(chain[-1]).partition(SEP)[0]
                if head in on_chain:
                    cycle = tuple(w.name for w in chain[on_chain[head]:])
                    raise Unresolved(f"relative_to cycle through {' -> '.join(cycle)}", cycle)
                failed = self._pose_fail.get(head)
                if failed is not None:
                    raise failed
                dep = self.vertices.get(head)
                if dep is None or head in self._X:
                    break  # resolved already, or missing (reported by the checks)
                on_chain[head] = len(chain)
                chain.append(dep)
            X = IDENTITY
            for w in reversed(chain):
                X = self._X.get(w.name) or self._resolve(w)
            return X
        except Unresolved as exc:
            # Members that resolved before the failure (the tail of the chain) stay good.
            for w in chain:
                if w.name not in self._X:
                    self._pose_fail[w.name] = exc
            raise

    def _resolve(self, v: Vertex) -> Pose:
        if v.name in self._visiting:
            cycle = tuple(self._visiting[self._visiting.index(v.name):])
            raise Unresolved(f"relative_to cycle through {' -> '.join(cycle)}", cycle)
        self._visiting.append(v.name)
        try:
            base = self.base_of(v)
            head, _, rest = base.partition(SEP)
            if head == v.name:
                raise Unresolved(f"[{v.name}] is relative to itself", (v.name,))
            if v.kind == "joint" and not base:
                raise Unresolved(f"joint [{v.name}] has no child frame")
            if rest and head not in self.vertices:
                raise Unresolved(f"no frame [{base}] in {self.kind} [{self.name}]")
            X_S_head = self.pose_of(head)
            if head != self.frame_name:
                deps = self._deps.get(head)
                if deps is None:
                    self._deps[head] = {v.name}
                else:
                    deps.add(v.name)
            # X_S_v = X_S_head @ tail, where tail = X_head_rest @ <pose> [@ X_MPf^-1] does not
            # change when head moves: cache it so a cascade costs one composition per vertex.
            self._head[v.name] = head
            tail = self._tail.get(v.name)
            if tail is None:
                tail = v.pose.value
                if rest and rest != MODEL_FRAME:
                    nested = self.vertices[head].nested
                    if nested is None:
                        raise Unresolved(f"[{head}] is not a model")
                    if not nested._settled:
                        nested._settle()
                    tail = nested.pose_of(rest) @ tail
                placement = v.placement_frame if v.kind == "model" else ""
                if placement:
                    if v.nested is None or not v.nested.has(placement):
                        raise Unresolved(f"placement frame [{placement}] not found in "
                                         f"model [{v.name}]")
                    if not v.nested._settled:
                        v.nested._settle()
                    # The written pose places the placement frame Pf: X_SM = X_SPf @ X_MPf^-1.
                    tail = tail @ v.nested.inverse_pose_of(placement)
                self._tail[v.name] = tail
            X = X_S_head @ tail
        finally:
            self._visiting.pop()
        self._X[v.name] = X
        return X

    def _settle(self) -> None:
        """Resolve every frame of this scope and of the scopes below it, deepest first.

        A frame may be placed relative to a frame inside a nested model, which may be
        placed relative to one further down, and so on as deep as the models nest.
        Resolving the scopes bottom-up (an explicit post-order walk) means every lookup
        into a nested scope finds its answer cached (or its failure memoised), so
        resolution never recurses more than one level, however deep the document."""
        order: list[Scope] = []
        seen: set[int] = set()
        stack: list[tuple[Scope, bool]] = [(self, False)]
        while stack:
            scope, expanded = stack.pop()
            if expanded:
                order.append(scope)
                continue
            if id(scope) in seen or scope._settled:
                continue
            seen.add(id(scope))
            stack.append((scope, True))
            for v in scope.vertices.values():
                if v.nested is not None and not v.nested._settled:
                    stack.append((v.nested, False))
        for scope in order:
            scope.resolve_all()
            scope._settled = True

    def inverse_pose_of(self, name: str) -> Pose:
        """``X_name_S``, cached: placement frames of a shared include are inverted once."""
        X = self._X_inv.get(name)
        if X is None:
            X = self.pose_of(name).inverse()
            self._X_inv[name] = X
        return X

    def adopt(self, old: "Scope") -> set[str]:
        """Take over what ``old`` (this scope before a structural edit of its own
        vertices) resolved for the vertices that did not change.  A renamed vertex (same
        node, new name) keeps its pose and its dependents theirs; a vertex removed or
        replaced is forgotten in ``old`` first, with everything that depended on it.
        Returns the names whose resolved pose was taken over (they did not move)."""
        by_node = {id(v.node): name for name, v in self.vertices.items()}
        rename: dict[str, str] = {}
        for name, v in old.vertices.items():
            mine = by_node.get(id(v.node))
            if mine is None or self.vertices[mine].nested is not v.nested:
                old.invalidate(name)
            else:
                rename[name] = mine
        for name, X in old._X.items():
            mine = rename.get(name)
            if mine is None:
                continue
            self._X[mine] = X
            if name in old._tail:
                head = old._head[name]
                self._tail[mine], self._head[mine] = old._tail[name], rename.get(head, head)
        for name, deps in old._deps.items():
            self._deps[rename.get(name, name)] = {rename.get(d, d) for d in deps}
        return set(self._X)

    # The owning scopes above are walked in loops: a chain of parents is as long as the
    # nesting is deep.
    def invalidate_up(self, name: str, *, inside_changed: bool = False
                      ) -> tuple["Scope", set[str]]:
        """:meth:`invalidate` ``name``, and return the outermost scope the edit reached
        with the names of its vertices that were forgotten (what a view must redraw)."""
        scope, gone = self, self._invalidate_here(name, inside_changed)
        while scope.parent is not None:
            vertex, scope = scope.parent_vertex, scope.parent
            gone = scope._invalidate_here(vertex, True)
        return scope, gone

    def touch_up(self, name: str) -> tuple["Scope", set[str]]:
        """Vertex ``name`` changed without moving (a visual or collision of a link was
        edited): drop the flattened tables up to the outermost scope and return it with
        the name of its vertex that holds the change."""
        scope = self
        while True:
            scope._table = None
            scope.rows_cache = None
            if scope.parent is None:
                return scope, {name}
            name, scope = scope.parent_vertex, scope.parent

    def invalidate(self, name: str, *, inside_changed: bool = False) -> set[str]:
        """Forget ``X_S_name`` and everything that depends on it; return what was forgotten.

        Dependents keep their cached tail (their own pose relative to what they depend on),
        so a cascade is one composition per vertex.  ``inside_changed`` says a frame inside
        the nested model ``name`` changed: then tails that reach into it are stale too.
        Dependency sets are kept: they change only when a vertex's base changes, and a
        stale entry only makes invalidation more conservative.
        """
        gone = self._invalidate_here(name, inside_changed)
        scope = self
        while scope.parent is not None:
            vertex, scope = scope.parent_vertex, scope.parent
            scope._invalidate_here(vertex, True)
        return gone

    def _invalidate_here(self, name: str, inside_changed: bool) -> set[str]:
        X, deps = self._X, self._deps
        self._tail.pop(name, None)
        self._base.pop(name, None)
        self._head.pop(name, None)
        if inside_changed:
            # Tails that reach into `name` (base "name::...") are stale; only direct
            # dependents can hold such a tail.
            for d in deps.get(name, ()):
                self._tail.pop(d, None)
        gone: set[str] = set()
        stack = [name]
        while stack:
            n = stack.pop()
            if n in gone:
                continue
            gone.add(n)
            # A vertex that was not resolved has no resolved dependents either.
            if X.pop(n, None) is None and n != name:
                continue
            stack.extend(deps.get(n, ()))
        self._X_inv.clear()
        self._pose_fail.clear()
        self._settled = False
        self._table = None
        self.rows_cache = None
        return gone

    def table(self) -> list[tuple[str, str, Pose, int]]:
        """Every resolvable frame below this scope, flattened, as
        ``(scoped name relative to this scope, kind, X_S_f, node id)``.

        Cached here and on every scope shared by several includes (the 1000 includes of
        one robot share one table, so listing a world costs one composition per frame).
        The scopes in between are walked depth-first with an explicit stack, their rows
        made in passing: caching every level of a chain of models d deep would hold its
        frames d times over."""
        if self._table is None:
            self._table = self._flatten()
        return self._table

    def _flatten(self) -> list[tuple[str, str, Pose, int]]:
        rows: list[tuple[str, str, Pose, int]] = []
        # (scope, its vertices still to list, their name prefix, X_self_scope or None)
        stack: list[tuple[Scope, Iterator[Vertex], str, Pose | None]] = [
            (self, iter(self.vertices.values()), "", None)]
        while stack:
            scope, pending, prefix, X_top = stack[-1]
            v = next(pending, None)
            if v is None:
                stack.pop()
                continue
            try:
                X = scope.pose_of(v.name)
            except Unresolved:
                continue
            if X_top is not None:
                X = X_top @ X
            name = prefix + v.name
            rows.append((name, v.kind, X, v.node.id))
            nested = v.nested
            if nested is None:
                continue
            if nested.shared:
                # Its own cached table (shared scopes nest at most as deep as includes).
                sub = name + SEP
                rows.extend((sub + n, k, X @ Xn, nid) for n, k, Xn, nid in nested.table())
            else:
                stack.append((nested, iter(nested.vertices.values()), name + SEP, X))
        return rows

    def clear(self) -> None:
        self._settled = False
        self._pose_fail.clear()
        self._body_fail.clear()
        self._body.clear()
        self._table = None
        self.rows_cache = None
        self._base.clear()
        self._head.clear()
        self._tail.clear()
        self._X.clear()
        self._X_inv.clear()
        self._deps.clear()

    # -- attachment ---------------------------------------------------------------
    def body_of(self, name: str) -> str:
        """The link (scoped below this scope) that frame ``name`` is attached to.

        A static model's frame resolves to ``<scope>::__model__`` relative names
        (``__model__`` here); ``world`` for the world scope frame.  Raises :class:`Unresolved`.
        Iterative and memoised: a chain of thousands of frames attached one to the next is
        one pass, and checking every frame of it stays linear.  A frame attached to a frame
        inside a nested model continues in that scope, in the same loop (a chain of models
        without links is as deep as the nesting).
        """
        walked: list[tuple[Scope, list[str], int]] = []  # (scope, its chain, prefix length)
        scope, current, prefix = self, name, ""
        try:
            while True:
                chain: list[str] = []
                walked.append((scope, chain, len(prefix)))
                step = scope._walk_body(current, chain)
                if isinstance(step, str):
                    body = prefix + step
                    break
                head, scope, current = step
                prefix += head + SEP
        except Unresolved as exc:
            for s, chain, _ in walked:
                for n in chain:
                    s._body_fail[n] = exc
            raise
        for s, chain, start in walked:
            local = body[start:]
            for n in chain:
                s._body[n] = local
        return body

    def _walk_body(self, name: str, chain: list[str]) -> "str | tuple[str, Scope, str]":
        """Follow ``name`` in this scope: the body (relative to this scope), or
        ``(vertex, nested scope, name there)`` when the answer is in a nested scope.
        ``chain`` gets what was walked here (the model frame too), to be memoised."""
        on_chain: dict[str, int] = {}
        current = name
        while True:
            failed = self._body_fail.get(current)
            if failed is not None:
                raise failed
            known = self._body.get(current)
            if known is not None:
                return known
            if current == self.frame_name:
                chain.append(current)
                return self._model_frame_body()
            head, _, rest = current.partition(SEP)
            v = self.vertices.get(head)
            if v is None:
                raise Unresolved(f"no frame [{head}] in {self.kind} [{self.name}]")
            if rest and rest != MODEL_FRAME:
                if v.nested is None:
                    raise Unresolved(f"[{head}] is not a model")
                return head, v.nested, rest
            if head in on_chain:
                cycle = tuple(chain[on_chain[head]:])
                raise Unresolved(f"attached_to cycle through {' -> '.join(cycle)}", cycle)
            on_chain[head] = len(chain)
            chain.append(head)
            if v.kind == "link":
                return v.name
            if v.kind == "frame":
                target = v.node.attached_to or self.frame_name  # type: ignore[attr-defined]
                if target == v.name:
                    raise Unresolved(f"frame [{v.name}] is attached to itself", (v.name,))
                current = target
            elif v.kind == "joint":
                child = v.node.child_name  # type: ignore[attr-defined]
                if child == v.name:
                    raise Unresolved(f"joint [{v.name}] names itself as child", (v.name,))
                current = child
            else:
                if v.nested is None:
                    raise Unresolved(f"model [{v.name}] was not loaded")
                return head, v.nested, MODEL_FRAME

    def _model_frame_body(self) -> "str | tuple[str, Scope, str]":
        if self.kind == "world":
            return WORLD
        if self.static:
            return MODEL_FRAME
        if self.canonical_link:
            found = self.lookup(self.canonical_link)
            if found is None or found[1].kind != "link":
                raise Unresolved(f"canonical link [{self.canonical_link}] not found")
            return self.canonical_link
        for v in self.vertices.values():
            if v.kind == "link":
                return v.name
        for v in self.vertices.values():
            if v.kind == "model" and v.nested is not None:
                return v.name, v.nested, MODEL_FRAME
        raise Unresolved(f"model [{self.name}] has no link")

    # -- iteration ----------------------------------------------------------------
    def __iter__(self) -> Iterator[Vertex]:
        return iter(self.vertices.values())
