"""World poses of every posed element of a document, by key, in one numpy array.

The table is what a 3D view mirrors: one row per model, link, joint, frame (mate
connectors included), visual and collision, at every include depth, with its pose in the
root frame (the world, or the top model) as a 4x4 matrix.  Rows come in blocks, one per
vertex of the root scope; a nested model's rows are its scope's flattened local rows
(cached per scope, so the 1000 instances of one robot share one local table) placed by the
vertex pose with one batched matrix product per shared scope.

After an edit the frame graph says which root vertices moved; only their blocks are
recomputed and compared with what they were, so :class:`PosesChanged` lists exactly the
keys whose pose changed.  Edits that change the structure (or what a frame is relative
to) rebuild the table and compare it key by key with the previous one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..frames.scope import Scope, Unresolved, Vertex
from ..model import Node
from ..model.names import SEP
from ..pose import Pose
from ..progress import checkpoint
from .keys import ROOT, part_key

__all__ = ["PoseTable", "PosesChanged", "joined", "pose_matrix", "MOVE_TOLERANCE"]

#: Entries closer than this (in metres and in rotation-matrix entries) have not moved:
#: recomposing the same chain in another order may differ in the last bits.
MOVE_TOLERANCE = 1e-12


def joined(a: "PosesChanged", b: "PosesChanged") -> "PosesChanged":
    """Both events as one (rows kept when both have them, for the same table)."""
    rows = None
    if a.rows is not None and b.rows is not None and a.generation == b.generation:
        rows = np.concatenate([a.rows, b.rows])
    return PosesChanged(a.keys + b.keys,
                        np.concatenate([a.poses.reshape(-1, 4, 4), b.poses.reshape(-1, 4, 4)]),
                        tuple(a.kinds) + tuple(b.kinds), rows,
                        a.generation if rows is not None else -1)


def pose_matrix(X: Pose) -> np.ndarray:
    """4x4 homogeneous matrix of a pose."""
    return np.array(_row16(X), dtype=float).reshape(4, 4)


def _row16(X: Pose) -> tuple[float, ...]:
    R, p = X.R, X.p
    return (R[0], R[1], R[2], p[0], R[3], R[4], R[5], p[1], R[6], R[7], R[8], p[2],
            0.0, 0.0, 0.0, 1.0)


def _matrices(poses: list[Pose]) -> np.ndarray:
    if not poses:
        return np.zeros((0, 4, 4))
    return np.array([_row16(X) for X in poses], dtype=float).reshape(-1, 4, 4)


@dataclass(frozen=True)
class PosesChanged:
    """World poses that moved in one user action.

    ``keys[i]`` moved to ``poses[i]`` (4x4, in the root frame: world or top model);
    ``kinds[i]`` is its element kind (``link``, ``visual``, ``mate_connector``...).
    ``rows[i]``, when given, is the key's row in the pose table of ``generation``
    (:attr:`PoseTable.generation`): views that index their drawings by row find the
    moved ones without comparing strings.
    """

    keys: tuple[str, ...]
    poses: np.ndarray
    kinds: tuple[str, ...] = ()
    rows: np.ndarray | None = None
    generation: int = -1

    def as_dict(self) -> dict[str, np.ndarray]:
        return dict(zip(self.keys, self.poses))

    def __len__(self) -> int:
        return len(self.keys)


@dataclass
class _Rows:
    """Rows of one scope's content, relative to the scope frame."""

    keys: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    X: np.ndarray = field(default_factory=lambda: np.zeros((0, 4, 4)))
    nodes: list[Node] = field(default_factory=list)   # the node of each row


def _part_poses(scope: Scope, v: Vertex, X_S_v: Pose) -> list[tuple[str, str, Pose, Node]]:
    """(suffix key, kind, X_S_part, node) of a link's visuals and collisions."""
    out = []
    link = v.node
    for part in (*link.visuals, *link.collisions):  # type: ignore[attr-defined]
        rel = part.pose.relative_to
        if rel in ("", v.name):
            X = X_S_v @ part.pose.value
        else:
            try:
                X = scope.pose_of(rel) @ part.pose.value
            except Unresolved:
                continue
        out.append((part_key(v.name, part.kind, part.name), part.kind, X, part))
    return out


def _vertex_kind(v: Vertex) -> str:
    return v.node.kind if v.kind == "frame" else v.kind


def scope_rows(scope: Scope) -> _Rows:
    """Every element below ``scope`` (its vertices, their parts, nested scopes), relative to
    the scope frame; cached on the scope until an edit invalidates it."""
    cached = scope.rows_cache
    if isinstance(cached, _Rows):
        return cached
    keys: list[str] = []
    kinds: list[str] = []
    nodes: list[Node] = []
    blocks: list[np.ndarray] = []
    poses: list[Pose] = []
    for v in scope.vertices.values():
        try:
            X = scope.pose_of(v.name)
        except Unresolved:
            continue
        keys.append(v.name)
        kinds.append(_vertex_kind(v))
        nodes.append(v.node)
        poses.append(X)
        if v.kind == "link":
            for k, kind, Xp, part in _part_poses(scope, v, X):
                keys.append(k)
                kinds.append(kind)
                nodes.append(part)
                poses.append(Xp)
        if v.nested is not None:
            # flush what we have, then the nested block placed by X
            if poses:
                blocks.append(_matrices(poses))
                poses = []
            sub = scope_rows(v.nested)
            prefix = v.name + SEP
            keys.extend(prefix + k for k in sub.keys)
            kinds.extend(sub.kinds)
            nodes.extend(sub.nodes)
            if len(sub.keys):
                blocks.append(np.matmul(pose_matrix(X), sub.X))
    if poses:
        blocks.append(_matrices(poses))
    rows = _Rows(keys, kinds, np.concatenate(blocks) if blocks else np.zeros((0, 4, 4)), nodes)
    scope.rows_cache = rows
    return rows


@dataclass
class _Block:
    """The rows of one root vertex: [start, stop) in the table."""

    start: int
    stop: int
    #: rows of the vertex itself and its parts (placed one by one)
    own: int
    nested: Scope | None
    #: the nested scope's rows these were placed from (a new object: something inside
    #: the nested model changed)
    rows: _Rows | None = None
    node: object = None
    keys: list[str] = field(default_factory=list)


class PoseTable:
    """The world pose of every key of a document (see the module docstring).

    Rows are allocated per block at the end of one growing array; a block whose vertex
    disappears leaves dead rows behind (compacted by the next full rebuild), so adding,
    removing or renaming an element of the root scope costs only its own rows.
    """

    def __init__(self, graph) -> None:
        self.graph = graph
        self.rebuild()

    # -- queries ------------------------------------------------------------------
    def __contains__(self, key: str) -> bool:
        return key in self.index

    def __len__(self) -> int:
        return len(self.index)

    def __iter__(self):
        return iter(self.index)

    @property
    def keys(self) -> list[str]:
        return list(self.index)

    def pose(self, key: str) -> np.ndarray:
        """4x4 world pose of ``key`` (a copy; KeyError if it has none: unknown or
        unresolved)."""
        return self.X[self.index[key]].copy()

    def poses(self, keys) -> np.ndarray:
        """World poses (n, 4, 4) of ``keys``, in their order (a copy)."""
        index = self.index
        return self.X[np.fromiter((index[k] for k in keys), dtype=np.int64)]

    def kind(self, key: str) -> str:
        return self._kind_array[self.index[key]]

    def rows(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Every key with its kind and node, in table order: ``(keys, kinds, nodes)``, the
        last two as object arrays (a view that sorts thousands of keys by kind does it
        with one comparison per kind)."""
        rows = np.fromiter(self.index.values(), dtype=np.int64, count=len(self.index))
        return list(self.index), self._kind_array[rows], self._node_array[rows]

    def node(self, key: str) -> Node | None:
        """The model node a key is an instance of (an included file's node serves every
        include of it); None for the root of an empty document."""
        return self._node_array[self.index[key]]

    def keys_of(self, node_id: int) -> list[str]:
        """Every instance key of a node (a link of an included file has one per include)."""
        if self._by_node is None:
            by: dict[int, list[str]] = {}
            nodes = self._node_array
            for key, i in self.index.items():
                if nodes[i] is not None:
                    by.setdefault(nodes[i].id, []).append(key)
            self._by_node = by
        return self._by_node.get(node_id, [])

    def as_dict(self) -> dict[str, np.ndarray]:
        """Every key's world pose (copies: the table changes in place)."""
        X = self.X[: self._size].copy()
        return {k: X[i] for k, i in self.index.items()}

    # -- storage ------------------------------------------------------------------
    def _reset(self) -> None:
        self.generation = getattr(self, "generation", 0) + 1
        self.X = np.zeros((64, 4, 4))
        self._key_array = np.empty(64, dtype=object)
        self._kind_array = np.empty(64, dtype=object)
        self._node_array = np.empty(64, dtype=object)
        self._by_node: dict[int, list[str]] | None = None
        self._size = 0
        self._dead = 0
        self.index: dict[str, int] = {}
        self._blocks: dict[str, _Block] = {}

    def _allocate(self, keys: list[str], kinds: list[str], nodes: list[Node]) -> int:
        """Room for ``len(keys)`` rows at the end; returns the first row."""
        self.generation += 1       # rows of keys change meaning: see PosesChanged.rows
        start, n = self._size, len(keys)
        if start + n > len(self.X):
            cap = max(2 * len(self.X), start + n)
            X = np.zeros((cap, 4, 4))
            X[:start] = self.X[:start]
            ka, kk = np.empty(cap, dtype=object), np.empty(cap, dtype=object)
            ka[:start], kk[:start] = self._key_array[:start], self._kind_array[:start]
            nd = np.empty(cap, dtype=object)
            nd[:start] = self._node_array[:start]
            self.X, self._key_array, self._kind_array, self._node_array = X, ka, kk, nd
        self._key_array[start:start + n] = keys
        self._kind_array[start:start + n] = kinds
        self._node_array[start:start + n] = nodes
        self._by_node = None
        self.index.update(zip(keys, range(start, start + n)))
        self._size = start + n
        return start

    def _block_of(self, v: Vertex, X: Pose) -> tuple[list[str], list[str], list[Pose], list[int]]:
        """Keys, kinds, poses and node ids of the vertex itself and its parts."""
        keys, kinds, poses, nodes = [v.name], [_vertex_kind(v)], [X], [v.node]
        if v.kind == "link":
            for k, kind, Xp, part in _part_poses(self.graph.root, v, X):
                keys.append(k)
                kinds.append(kind)
                poses.append(Xp)
                nodes.append(part)
        return keys, kinds, poses, nodes

    def _add_block(self, v: Vertex, X: Pose, pending: list[tuple[_Block, Pose]],
                   own_rows: list[int], own_poses: list[Pose]) -> _Block:
        keys, kinds, poses, nodes = self._block_of(v, X)
        own = len(keys)
        sub = scope_rows(v.nested) if v.nested is not None else None
        if sub is not None:
            prefix = v.name + SEP
            keys.extend(prefix + k for k in sub.keys)
            kinds.extend(sub.kinds)
            nodes.extend(sub.nodes)
        start = self._allocate(keys, kinds, nodes)
        block = _Block(start, start + len(keys), own, v.nested, sub, v.node, keys)
        self._blocks[v.name] = block
        own_rows.extend(range(start, start + own))
        own_poses.extend(poses)
        if sub is not None:
            pending.append((block, X))
        return block

    @staticmethod
    def _part_dependents(root: Scope, moved: set[str]) -> set[str]:
        """Root links with a visual or collision placed relative to a moved frame."""
        out: set[str] = set()
        for v in root.vertices.values():
            if v.kind != "link" or v.name in moved:
                continue
            for part in (*v.node.visuals, *v.node.collisions):  # type: ignore[attr-defined]
                rel = part.pose.relative_to
                if rel not in ("", v.name) and rel.partition(SEP)[0] in moved:
                    out.add(v.name)
                    break
        return out

    def _drop_block(self, name: str) -> list[str]:
        self._by_node = None
        self.generation += 1
        block = self._blocks.pop(name)
        for k in block.keys:
            self.index.pop(k, None)
        self._dead += block.stop - block.start
        return block.keys

    # -- building -----------------------------------------------------------------
    def rebuild(self, before: tuple[dict[str, int], np.ndarray] | None = None
                ) -> tuple[set[str], set[str], PosesChanged]:
        """Recompute every row; return (added keys, removed keys, moved entries) relative
        to the table as it was (or to ``before``: a key -> row map into an array)."""
        if before is None:
            before = (getattr(self, "index", {}), getattr(self, "X", np.zeros((0, 4, 4))))
        old_index, old_X = before
        self._reset()
        root = self.graph.root
        root_kind = root.kind if root is not None else "world"
        self._allocate([ROOT], [root_kind], [root.owner if root is not None else None])
        self.X[0] = np.eye(4)
        if root is not None:
            root.resolve_all()
            pending: list[tuple[_Block, Pose]] = []
            own_rows: list[int] = []
            own_poses: list[Pose] = []
            count = len(root.vertices)
            for i, v in enumerate(root.vertices.values()):
                checkpoint(i / count)     # (a background open: per block)
                try:
                    X = root.pose_of(v.name)
                except Unresolved:
                    continue
                self._add_block(v, X, pending, own_rows, own_poses)
            if own_rows:
                self.X[own_rows] = _matrices(own_poses)
            self._place_nested(self.X, pending)
        return self._diff(old_index, old_X)

    def restructure(self, moved: set[str] = frozenset()) -> tuple[set[str], set[str], PosesChanged] | None:
        """After the root scope was rebuilt with its nested scopes kept (an element of the
        root scope added, removed or renamed): drop the blocks whose vertex is gone or
        changed, add blocks for new vertices, and recompute the poses of the others.
        None when a full :meth:`rebuild` is needed."""
        root = self.graph.root
        if root is None or self._dead > self._size // 2 + 64:
            return None  # nothing to keep, or mostly dead rows: compact with a rebuild
        root.resolve_all()
        removed: set[str] = set()
        old_rows: dict[str, int] = {}
        for name, block in list(self._blocks.items()):
            v = root.vertices.get(name)
            if v is None or v.node is not block.node or v.nested is not block.nested:
                old_rows.update((k, self.index[k]) for k in block.keys)
                removed.update(self._drop_block(name))
        pending: list[tuple[_Block, Pose]] = []
        own_rows: list[int] = []
        own_poses: list[Pose] = []
        added: set[str] = set()
        for name, v in root.vertices.items():
            if name in self._blocks:
                continue
            try:
                X = root.pose_of(name)
            except Unresolved:
                continue
            added.update(self._add_block(v, X, pending, own_rows, own_poses).keys)
        if own_rows:
            self.X[own_rows] = _matrices(own_poses)
        self._place_nested(self.X, pending)
        new_blocks = {n for n in root.vertices if n in added}
        # parts placed relative to a frame that appeared, disappeared or was renamed
        changed_names = {k for k in removed | added if SEP not in k and "#" not in k}
        moved = set(moved) | self._part_dependents(root, changed_names)
        unchanged = (self.graph.unchanged or set()) - moved
        changed = self.update(set(self._blocks) - new_blocks - unchanged)
        if changed is None:
            # A vertex became resolvable or not: rebuild, compared with the table as it
            # was before this call (removed blocks' rows are dead but intact).
            before = {k: i for k, i in self.index.items() if k not in added}
            before.update(old_rows)
            return self.rebuild((before, self.X))
        moved = changed
        # A key both removed and added is a block made again (its nested scope changed):
        # not a structural change, but it moved if its new row differs from its old one
        # (dead rows keep their data until the next full rebuild).
        again = [k for k in added & removed]
        if again:
            new_rows = np.array([self.index[k] for k in again])
            old = self.X[np.array([old_rows[k] for k in again])]
            extra = self._moved(new_rows, old)
            if len(extra):
                moved = joined(moved, extra)
        return added - removed, removed - added, moved

    def _place_nested(self, X_all: np.ndarray, placements: list[tuple[_Block, Pose]]
                      ) -> list[np.ndarray]:
        """Nested rows = vertex pose @ local rows, batched per shared scope; returns the
        rows written."""
        by_scope: dict[int, list[tuple[_Block, Pose]]] = {}
        for block, X in placements:
            by_scope.setdefault(id(block.rows), []).append((block, X))
        written = []
        for group in by_scope.values():
            sub = group[0][0].rows
            n = len(sub.keys)  # type: ignore[union-attr]
            if n == 0:
                continue
            M = _matrices([X for _, X in group])                          # (m, 4, 4)
            # One BLAS product for every (instance, row) pair: (m, 4, n, 4) -> (m, n, 4, 4)
            placed = np.tensordot(M, sub.X, axes=([2], [1])).transpose(0, 2, 1, 3)
            starts = np.array([b.start + b.own for b, _ in group])
            stride = int(starts[1] - starts[0]) if len(starts) > 1 else n
            if stride >= n and np.all(np.diff(starts) == stride) \
                    and starts[0] + stride * len(starts) <= len(X_all):
                # instances laid out one after the other (the usual case): one strided write
                span = X_all[starts[0]:starts[0] + stride * len(starts)]
                span.reshape(len(starts), stride, 4, 4)[:, :n] = placed
                rows = (starts[:, None] + np.arange(n)[None, :]).ravel()
            else:
                rows = (starts[:, None] + np.arange(n)[None, :]).ravel()
                X_all[rows] = placed.reshape(-1, 4, 4)
            written.append(rows)
        return written

    def _diff(self, old_index: dict[str, int], old_X: np.ndarray
              ) -> tuple[set[str], set[str], PosesChanged]:
        new_keys, old_keys = self.index.keys(), old_index.keys()
        common = [k for k in self.index if k in old_index]
        rows = np.array([self.index[k] for k in common], dtype=int)
        before = old_X[np.array([old_index[k] for k in common], dtype=int)] if common \
            else np.zeros((0, 4, 4))
        return set(new_keys - old_keys), set(old_keys - new_keys), self._moved(rows, before)

    def _moved(self, rows: np.ndarray, before: np.ndarray) -> PosesChanged:
        if len(rows) == 0:
            return PosesChanged((), np.zeros((0, 4, 4)), ())
        after = self.X[rows]
        differs = np.abs(after[:, :3, :] - before[:, :3, :]).max(axis=(1, 2)) > MOVE_TOLERANCE
        hit = rows[differs]
        return PosesChanged(tuple(self._key_array[hit].tolist()), after[differs],
                            tuple(self._kind_array[hit].tolist()), hit, self.generation)

    # -- incremental update -------------------------------------------------------
    def update(self, moved_vertices: set[str]) -> PosesChanged | None:
        """Recompute the blocks of root vertices that moved; None when the table's shape
        would change (a vertex became resolvable or not): then call :meth:`rebuild`.

        Nested rows are rigidly attached to their vertex: when the vertex moved, all of
        them moved, so only the vertices and parts are compared; a nested block is
        compared row by row only when something inside it changed."""
        root = self.graph.root
        if root is None:
            return PosesChanged((), np.zeros((0, 4, 4)), ())
        root.resolve_all()
        moved_vertices = moved_vertices | self._part_dependents(root, moved_vertices)
        own_rows: list[int] = []
        own_poses: list[Pose] = []
        candidates: list[tuple[_Block, Pose]] = []
        for name in moved_vertices:
            block = self._blocks.get(name)
            v = root.vertices.get(name)
            if block is None or v is None:
                if v is not None and name not in self.index:
                    try:
                        root.pose_of(name)
                    except Unresolved:
                        continue  # still unresolved: nothing to show
                    return None
                continue
            try:
                X = root.pose_of(name)
            except Unresolved:
                return None
            own_poses.append(X)
            if v.kind == "link":
                own_poses.extend(Xp for _, _, Xp, _ in _part_poses(root, v, X))
            own_rows.extend(range(block.start, block.start + block.own))
            if len(own_rows) != len(own_poses):
                return None
            if block.nested is not None:
                candidates.append((block, X))
        if not own_rows:
            return PosesChanged((), np.zeros((0, 4, 4)), ())
        own = np.array(own_rows)
        before = self.X[own]
        self.X[own] = _matrices(own_poses)
        own_moved = own[np.abs(self.X[own, :3, :] - before[:, :3, :]).max(axis=(1, 2))
                        > MOVE_TOLERANCE]
        moved_rows = [own_moved]
        moved_starts = set(own_moved.tolist())
        placements: list[tuple[_Block, Pose]] = []
        for block, X in candidates:
            sub = scope_rows(block.nested)  # type: ignore[arg-type]
            if sub is block.rows:
                if block.start in moved_starts:
                    placements.append((block, X))
                continue
            if len(sub.keys) != block.stop - block.start - block.own:
                return None
            # something inside changed: compare that block row by row
            rows = np.arange(block.start + block.own, block.stop)
            old = self.X[rows]
            block.rows = sub
            self._place_nested(self.X, [(block, X)])
            hit = np.abs(self.X[rows, :3, :] - old[:, :3, :]).max(axis=(1, 2)) > MOVE_TOLERANCE
            moved_rows.append(rows[hit])
        if placements:
            moved_rows.extend(self._place_nested(self.X, placements))
        # sorted and unique, always: rows in vertex order (or listed twice) can look like a
        # contiguous run while skipping a row and holding a dead one
        rows = np.unique(np.concatenate(moved_rows))
        if len(rows) and rows[-1] - rows[0] + 1 == len(rows):
            span = slice(int(rows[0]), int(rows[-1]) + 1)   # contiguous: copy, no gather
            return PosesChanged(tuple(self._key_array[span].tolist()), self.X[span].copy(),
                                tuple(self._kind_array[span].tolist()), rows,
                                self.generation)
        return PosesChanged(tuple(self._key_array[rows].tolist()), self.X[rows],
                            tuple(self._kind_array[rows].tolist()), rows, self.generation)
