"""Merged, instanced drawing layers: thousands of elements as a handful of VTK actors.

Drawing one actor per element does not scale (a world of 1000 robots has 27,000 posed
elements).  A :class:`MeshLayer` merges every instance of its shapes into one polydata and
one actor; a :class:`TriadLayer` draws every frame of a kind as coloured line segments.
Each instance remembers its rows, so a pose change rewrites only the points of the
instances that moved (one vectorised product per shared shape), and a cell of the merged
mesh maps back to its element's key for picking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from vtkmodules.vtkCommonDataModel import vtkPolyData

from .shapes import Triangles
from .vtkdata import points_of, polydata, set_rgb, touched

__all__ = ["MeshLayer", "TriadLayer", "LineLayer", "KeyQuery", "transform_points"]


_touched = touched


def transform_points(X: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Points ``P`` (n, 3) placed by every pose of ``X`` (k, 4, 4): (k, n, 3)."""
    # (a batched matmul: several times faster than the equivalent einsum)
    return P @ X[:, :3, :3].transpose(0, 2, 1) + X[:, None, :3, 3]


class KeyQuery:
    """The keys of one pose event, asked of every layer: by the event's pose-table rows
    when a layer knows its own (:meth:`KeyIndex.bind`, same table generation), else by
    the keys themselves (made into a numpy array once, when first needed)."""

    __slots__ = ("_keys", "_array", "rows", "generation")

    def __init__(self, keys, rows: np.ndarray | None = None, generation: int = -1) -> None:
        self._keys = keys
        self._array: np.ndarray | None = None
        self.rows = rows
        self.generation = generation

    @property
    def keys(self) -> np.ndarray:
        if self._array is None:
            self._array = key_array(self._keys)
        return self._array


class KeyIndex:
    """Where keys sit in a layer, searched for a whole pose event at once: the event's
    keys (thousands when a robot carries half a world) against the layer's, sorted, in
    numpy rather than one dictionary lookup per key per layer; or, once :meth:`bind`
    told it the pose-table row of each of its keys, by row (no strings compared)."""

    def __init__(self, keys: list[str]) -> None:
        self._keys = keys
        array = np.array(keys, dtype=str) if keys else np.zeros(0, dtype=str)
        order = np.argsort(array, kind="stable")
        self._sorted = array[order]
        self._slot = order
        self._slot_of_row: np.ndarray | None = None
        self._generation = -1

    @property
    def generation(self) -> int:
        """The pose-table generation whose rows it knows (-1: none)."""
        return self._generation

    def bind(self, index: dict[str, int], generation: int) -> None:
        """Learn the row of every key in a pose table's ``index`` (of that
        ``generation``); a key the table does not have leaves the index unbound."""
        try:
            rows = np.fromiter((index[k] for k in self._keys), dtype=np.int64,
                               count=len(self._keys))
        except KeyError:
            self._slot_of_row, self._generation = None, -1
            return
        size = int(rows.max()) + 1 if len(rows) else 0
        slot_of_row = np.full(size, -1, dtype=np.int64)
        slot_of_row[rows] = np.arange(len(rows))
        self._slot_of_row, self._generation = slot_of_row, generation

    def find(self, keys) -> tuple[np.ndarray, np.ndarray]:
        """(positions in ``keys``, the layer's slots) of the keys the layer has;
        ``keys`` a numpy array of keys or a :class:`KeyQuery`."""
        if isinstance(keys, KeyQuery):
            if keys.rows is not None and self._slot_of_row is not None \
                    and keys.generation == self._generation:
                table = self._slot_of_row
                rows = keys.rows
                inside = np.flatnonzero(rows < len(table))
                slots = table[rows[inside]]
                hit = slots >= 0
                return inside[hit], slots[hit]
            keys = keys.keys
        if not len(self._sorted) or not len(keys):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        pos = np.searchsorted(self._sorted, keys)
        pos[pos >= len(self._sorted)] = 0
        hit = np.flatnonzero(self._sorted[pos] == keys)
        return hit, self._slot[pos[hit]]


class _Indexed:
    """A layer whose instances are found through a :class:`KeyIndex` (``_find``)."""

    def bind_rows(self, index: dict[str, int], generation: int) -> None:
        """Let pose events of table ``generation`` find this layer's instances by row."""
        find = getattr(self, "_find", None)
        if find is not None and find.generation != generation:
            find.bind(index, generation)


def key_array(keys) -> np.ndarray | KeyQuery:
    """An event's keys as a numpy string array (once per event, for every layer); a
    :class:`KeyQuery` passes through."""
    if isinstance(keys, (np.ndarray, KeyQuery)):
        return keys
    return np.array(list(keys), dtype=str)


@dataclass
class _Instance:
    key: str
    shape: Triangles
    point_start: int
    cell_start: int
    group: int      # index of its shape group
    slot: int       # its place among the group's instances


class _Group:
    """The instances of one shape: consecutive in the merged arrays, so a move of any of
    them is one product over a (k, n, 3) view."""

    __slots__ = ("shape", "point_start", "members")

    def __init__(self, shape: Triangles) -> None:
        self.shape = shape
        self.point_start = 0
        self.members: list[int] = []   # instance indices, in slot order


class MeshLayer(_Indexed):
    """Instances of triangle meshes, merged (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.instances: list[_Instance] = []
        self.index: dict[str, int] = {}
        self.mesh: vtkPolyData | None = None
        self._groups: list[_Group] = []
        self._cell_owner = np.zeros(0, dtype=np.int64)

    def build(self, entries: list[tuple[str, Triangles, tuple[int, int, int], np.ndarray]]) -> None:
        """``entries``: (key, shape, rgb colour, 4x4 world pose) per instance."""
        self.instances, self.index, self._groups = [], {}, []
        if not entries:
            self.mesh = None
            self._cell_owner = np.zeros(0, dtype=np.int64)
            return
        group_of: dict[int, int] = {}
        for i, (key, shape, _rgb, _X) in enumerate(entries):
            g = group_of.get(id(shape))
            if g is None:
                g = group_of[id(shape)] = len(self._groups)
                self._groups.append(_Group(shape))
            self._groups[g].members.append(i)
            self.index[key] = i
        colours = np.array([e[2] for e in entries], dtype=np.uint8).reshape(-1, 3)
        poses = np.array([e[3] for e in entries], dtype=float).reshape(-1, 4, 4)
        n_points = sum(len(g.shape.points) * len(g.members) for g in self._groups)
        self._points = np.empty((n_points, 3))
        faces, rgb, owners = [], [], []
        slots: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)] * len(entries)
        point = cell = 0
        for gi, g in enumerate(self._groups):
            shape, members = g.shape, np.array(g.members)
            n, m, k = len(shape.points), len(shape.faces), len(members)
            g.point_start = point
            starts = point + n * np.arange(k)
            faces.append((shape.faces[None, :, :] + starts[:, None, None]).reshape(-1, 3))
            rgb.append(np.repeat(colours[members], n, axis=0))
            owners.append(np.repeat(members, m))
            self._points[point:point + n * k] = transform_points(
                poses[members], shape.points).reshape(-1, 3)
            for j, i in enumerate(g.members):
                slots[i] = (point + n * j, cell + m * j, gi, j)
            point += n * k
            cell += m * k
        self.instances = [_Instance(e[0], e[1], *slots[i]) for i, e in enumerate(entries)]
        self._find = KeyIndex([e[0] for e in entries])
        self._inst_group = np.array([sl[2] for sl in slots], dtype=np.int64)
        self._inst_slot = np.array([sl[3] for sl in slots], dtype=np.int64)
        mesh = polydata(self._points, triangles=np.concatenate(faces))
        # colours per point, not per cell: one colour per instance either way, and software
        # OpenGL draws point colours faster than cell colours (a texture fetch per pixel)
        set_rgb(mesh, np.concatenate(rgb), on_points=True)
        self._cell_owner = np.concatenate(owners)
        self.mesh = mesh
        # the polydata shares our array: later moves write straight into VTK's points
        self._points = points_of(mesh)

    def move(self, keys, X: np.ndarray) -> bool:
        """Place the instances named by ``keys`` at ``X`` (k, 4, 4); True if any was ours."""
        if self.mesh is None:
            return False
        which, inst = self._find.find(key_array(keys))
        if not len(inst):
            return False
        groups = self._inst_group[inst]
        for gi in np.unique(groups):
            sel = groups == gi
            g = self._groups[gi]
            n, k = len(g.shape.points), len(g.members)
            view = self._points[g.point_start:g.point_start + n * k].reshape(k, n, 3)
            view[self._inst_slot[inst[sel]]] = transform_points(X[which[sel]], g.shape.points)
        _touched(self.mesh)
        return True

    def key_of_cell(self, cell: int) -> str | None:
        if 0 <= cell < len(self._cell_owner):
            return self.instances[int(self._cell_owner[cell])].key
        return None

    def outline(self, keys) -> np.ndarray:
        """Segment end points (2k, 3) outlining the current geometry of some instances."""
        ends = [self._points[self.instances[i].point_start + self.instances[i].shape.outline()]
                for key in keys if (i := self.index.get(key)) is not None]
        return np.concatenate(ends).reshape(-1, 3) if ends else np.zeros((0, 3))

    def extract(self, keys: set[str]) -> vtkPolyData | None:
        """The current geometry of some instances (for highlighting)."""
        if self.mesh is None:
            return None
        points, faces = [], []
        count = 0
        for key in keys:
            i = self.index.get(key)
            if i is None:
                continue
            inst = self.instances[i]
            n = len(inst.shape.points)
            points.append(self._points[inst.point_start:inst.point_start + n])
            faces.append(inst.shape.faces + count)
            count += n
        if not points:
            return None
        return polydata(np.concatenate(points), triangles=np.concatenate(faces))


_AXIS_COLORS = np.array([[214, 48, 49], [39, 174, 96], [45, 123, 224]], dtype=np.uint8)


class TriadLayer(_Indexed):
    """Frames drawn as three coloured segments (x red, y green, z blue) of length ``size``."""

    def __init__(self, name: str, size: float = 0.1) -> None:
        self.name = name
        self.size = size
        self.keys: list[str] = []
        self.index: dict[str, int] = {}
        self.mesh: vtkPolyData | None = None

    def build(self, entries: list[tuple[str, np.ndarray]]) -> None:
        self.keys = [k for k, _ in entries]
        self.index = {k: i for i, k in enumerate(self.keys)}
        self._find = KeyIndex(self.keys)
        if not entries:
            self.mesh = None
            return
        X = np.stack([x for _, x in entries])
        n = len(entries)
        base = np.arange(n) * 4
        segments = np.column_stack([np.repeat(base, 3),
                                    (base[:, None] + np.arange(1, 4)[None, :]).ravel()])
        mesh = polydata(self._points(X), segments=segments)
        set_rgb(mesh, np.tile(_AXIS_COLORS, (n, 1)), on_points=False)
        self.mesh = mesh

    def _points(self, X: np.ndarray) -> np.ndarray:
        origin = X[:, :3, 3]
        tips = origin[:, None, :] + self.size * np.transpose(X[:, :3, :3], (0, 2, 1))
        return np.concatenate([origin[:, None, :], tips], axis=1).reshape(-1, 3)

    def move(self, keys: list[str], X: np.ndarray) -> bool:
        if self.mesh is None:
            return False
        which, idx = self._find.find(key_array(keys))
        if not len(idx):
            return False
        pts = points_of(self.mesh)
        new = self._points(X[which]).reshape(-1, 4, 3)
        pts.reshape(-1, 4, 3)[idx] = new
        _touched(self.mesh)
        return True

    def resize(self, size: float) -> None:
        if self.mesh is None or size == self.size:
            self.size = size
            return
        pts = points_of(self.mesh).reshape(-1, 4, 3)
        origin = pts[:, :1, :]
        pts[:, 1:, :] = origin + (pts[:, 1:, :] - origin) * (size / self.size)
        self.size = size
        _touched(self.mesh)

    def key_of_cell(self, cell: int) -> str | None:
        i = cell // 3
        return self.keys[i] if 0 <= i < len(self.keys) else None


class LineLayer(_Indexed):
    """Polylines attached to elements (joint axes and limit arcs), in each element's
    frame: ``build`` takes (key, local polylines, world pose, rgb).  Entries that share
    one polylines list (the instances of one included joint) are stored together, so
    moving them is one product, as in :class:`MeshLayer`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.index: dict[str, tuple[int, int]] = {}     # key -> (group, slot)
        self._groups: list[tuple[int, np.ndarray, int]] = []  # (first row, local points, count)
        self.mesh: vtkPolyData | None = None

    def build(self, entries: list[tuple[str, list[np.ndarray], np.ndarray, tuple]]) -> None:
        self.index, self._groups = {}, []
        if not entries:
            self.mesh = None
            return
        grouped: dict[int, list[tuple[str, list[np.ndarray], np.ndarray, tuple]]] = {}
        for entry in entries:
            grouped.setdefault(id(entry[1]), []).append(entry)
        points, lines, colours = [], [], []
        row = 0
        for members in grouped.values():
            polylines = members[0][1]
            local = np.vstack(polylines)
            n, k = len(local), len(members)
            X = np.array([e[2] for e in members], dtype=float).reshape(-1, 4, 4)
            points.append(transform_points(X, local).reshape(-1, 3))
            # one cell per polyline per instance: [count, ids...], ids offset per slot
            template, is_id = [], []
            first = 0
            for pl in polylines:
                template += [len(pl), *range(first, first + len(pl))]
                is_id += [False] + [True] * len(pl)
                first += len(pl)
            cells = np.tile(np.array(template, dtype=np.int64), (k, 1))
            cells[:, np.array(is_id)] += row + n * np.arange(k)[:, None]
            lines.append(cells.ravel())
            colours.append(np.array([e[3] for e in members for _ in polylines], dtype=np.uint8))
            g = len(self._groups)
            self._groups.append((row, local, k))
            for slot, e in enumerate(members):
                self.index[e[0]] = (g, slot)
            row += n * k
        located = list(self.index.items())
        self._find = KeyIndex([k for k, _ in located])
        self._index_instances([gs for _, gs in located])
        mesh = polydata(np.concatenate(points), polylines=np.concatenate(lines))
        set_rgb(mesh, np.concatenate(colours).reshape(-1, 3), on_points=False)
        self.mesh = mesh

    def _index_instances(self, located: list[tuple[int, int]]) -> None:
        """Per instance (in KeyIndex order): its first point row and its local points,
        stacked by point count.  A thousand joints each with its own drawing then move
        in one product per point count, not one per joint."""
        starts, counts, at = [], [], []
        stacks: dict[int, list[np.ndarray]] = {}
        place: dict[int, int] = {}       # group -> its index in the stack of its length
        for g, slot in located:
            row, local, _k = self._groups[g]
            n = len(local)
            if g not in place:
                place[g] = len(stacks.setdefault(n, []))
                stacks[n].append(local)
            starts.append(row + slot * n)
            counts.append(n)
            at.append(place[g])
        self._starts = np.array(starts, dtype=np.int64)
        self._counts = np.array(counts, dtype=np.int64)
        self._at = np.array(at, dtype=np.int64)
        self._stacks = {n: np.stack(locals_) for n, locals_ in stacks.items()}

    def move(self, keys: list[str], X: np.ndarray) -> bool:
        if self.mesh is None:
            return False
        which, inst = self._find.find(key_array(keys))
        if not len(inst):
            return False
        pts = points_of(self.mesh)
        counts = self._counts[inst]
        for n in np.unique(counts):
            sel = counts == n
            local = self._stacks[int(n)][self._at[inst[sel]]]          # (m, n, 3)
            Xs = X[which[sel]]
            world = local @ Xs[:, :3, :3].transpose(0, 2, 1) + Xs[:, None, :3, 3]
            rows = self._starts[inst[sel]][:, None] + np.arange(n)
            pts[rows] = world
        _touched(self.mesh)
        return True


class ArrowLayer(_Indexed):
    """Arrows between the origins of two elements' frames (the frame graphs of teaching
    mode): a shaft and a two-stroke head per arrow.  Each arrow remembers its two ends,
    so a move redraws exactly the arrows that start or end at a moved key."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.mesh: vtkPolyData | None = None
        self.head = 0.02
        self._ends: dict[str, int] = {}            # key -> row of self._origin
        self._origin = np.zeros((0, 3))
        self._a = self._b = np.zeros(0, dtype=np.int64)

    def build(self, arrows: list[tuple[str, str, tuple[int, int, int]]],
              origin_of: dict[str, np.ndarray] | None = None, head: float = 0.02) -> None:
        """``arrows``: (from key, to key, rgb); ``origin_of``: each key's origin."""
        origin_of = origin_of or {}
        arrows = [a for a in arrows if a[0] in origin_of and a[1] in origin_of]
        self.head = head
        if not arrows:
            self.mesh, self._ends = None, {}
            return
        keys = list(dict.fromkeys(k for a in arrows for k in a[:2]))
        self._ends = {k: i for i, k in enumerate(keys)}
        self._find = KeyIndex(keys)
        self._origin = np.array([origin_of[k] for k in keys], dtype=float).reshape(-1, 3)
        self._a = np.array([self._ends[a[0]] for a in arrows])
        self._b = np.array([self._ends[a[1]] for a in arrows])
        n = len(arrows)
        base = 4 * np.arange(n)
        # per arrow: the shaft (tail, tip) and the two strokes of the head
        segments = np.stack([np.column_stack([base, base + 1]),
                             np.column_stack([base + 1, base + 2]),
                             np.column_stack([base + 1, base + 3])], axis=1).reshape(-1, 2)
        mesh = polydata(self._points(np.arange(n)).reshape(-1, 3), segments=segments)
        set_rgb(mesh, np.repeat(np.array([a[2] for a in arrows], dtype=np.uint8), 3, axis=0),
                on_points=False)
        self.mesh = mesh

    def _points(self, which: np.ndarray) -> np.ndarray:
        """(k, 4, 3): tail, tip and the two ends of the head of arrows ``which``."""
        tail, tip = self._origin[self._a[which]], self._origin[self._b[which]]
        d = tip - tail
        length = np.linalg.norm(d, axis=1, keepdims=True)
        u = np.divide(d, length, out=np.zeros_like(d), where=length > 1e-12)
        # the head opens in the plane of the shaft and the world's z (or x for a
        # vertical shaft)
        side = np.cross(u, [0.0, 0.0, 1.0])
        flat = np.linalg.norm(side, axis=1) < 0.1
        side[flat] = np.cross(u[flat], [1.0, 0.0, 0.0])
        side /= np.maximum(np.linalg.norm(side, axis=1, keepdims=True), 1e-12)
        h = np.minimum(self.head, 0.4 * length)
        back = tip - u * h
        return np.stack([tail, tip, back + side * h * 0.5, back - side * h * 0.5], axis=1)

    def move(self, keys: list[str], X: np.ndarray) -> bool:
        if self.mesh is None:
            return False
        which, ends = self._find.find(key_array(keys))
        if not len(ends):
            return False
        self._origin[ends] = X[which, :3, 3]
        which = np.flatnonzero(np.isin(self._a, ends) | np.isin(self._b, ends))
        pts = points_of(self.mesh).reshape(-1, 4, 3)
        pts[which] = self._points(which)
        _touched(self.mesh)
        return True

    def key_of_cell(self, cell: int) -> str | None:
        return None
