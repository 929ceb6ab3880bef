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
import pyvista as pv

from .shapes import Triangles

__all__ = ["MeshLayer", "TriadLayer", "LineLayer", "transform_points"]


def _touched(mesh: pv.PolyData) -> None:
    """The points were written in place (through a numpy view of VTK's array)."""
    mesh.GetPoints().Modified()
    mesh.Modified()


def transform_points(X: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Points ``P`` (n, 3) placed by every pose of ``X`` (k, 4, 4): (k, n, 3)."""
    return np.einsum("kij,nj->kni", X[:, :3, :3], P) + X[:, None, :3, 3]


@dataclass
class _Instance:
    key: str
    shape: Triangles
    point_start: int
    cell_start: int


class MeshLayer:
    """Instances of triangle meshes, merged (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.instances: list[_Instance] = []
        self.index: dict[str, int] = {}
        self.mesh: pv.PolyData | None = None
        self._cell_owner = np.zeros(0, dtype=np.int64)

    def build(self, entries: list[tuple[str, Triangles, tuple[int, int, int], np.ndarray]]) -> None:
        """``entries``: (key, shape, rgb colour, 4x4 world pose) per instance."""
        self.instances, self.index = [], {}
        points, faces, colors, owners = [], [], [], []
        n_points = n_cells = 0
        by_shape: dict[int, list[tuple[int, np.ndarray]]] = {}
        for i, (key, shape, rgb, X) in enumerate(entries):
            self.instances.append(_Instance(key, shape, n_points, n_cells))
            self.index[key] = i
            faces.append(shape.faces + n_points)
            colors.append(np.broadcast_to(np.asarray(rgb, dtype=np.uint8), (len(shape.faces), 3)))
            owners.append(np.full(len(shape.faces), i, dtype=np.int64))
            by_shape.setdefault(id(shape), []).append((i, X))
            n_points += len(shape.points)
            n_cells += len(shape.faces)
        if not entries:
            self.mesh = None
            self._cell_owner = np.zeros(0, dtype=np.int64)
            return
        all_points = np.zeros((n_points, 3))
        self._points = all_points
        for group in by_shape.values():
            self._place(group)
        tri = np.vstack(faces)
        vtk_faces = np.empty((len(tri), 4), dtype=np.int64)
        vtk_faces[:, 0] = 3
        vtk_faces[:, 1:] = tri
        mesh = pv.PolyData(all_points, vtk_faces.ravel())
        mesh.cell_data["rgb"] = np.vstack(colors)
        self._cell_owner = np.concatenate(owners)
        self.mesh = mesh
        # the polydata shares our array: later moves write straight into VTK's points
        self._points = np.asarray(mesh.points)

    def _place(self, group: list[tuple[int, np.ndarray]]) -> None:
        shape = self.instances[group[0][0]].shape
        n = len(shape.points)
        X = np.stack([x for _, x in group])
        starts = np.array([self.instances[i].point_start for i, _ in group])
        rows = (starts[:, None] + np.arange(n)[None, :]).ravel()
        self._points[rows] = transform_points(X, shape.points).reshape(-1, 3)

    def move(self, keys: list[str], X: np.ndarray) -> bool:
        """Place the instances named by ``keys`` at ``X`` (k, 4, 4); True if any was ours."""
        if self.mesh is None:
            return False
        by_shape: dict[int, list[tuple[int, np.ndarray]]] = {}
        for key, x in zip(keys, X):
            i = self.index.get(key)
            if i is not None:
                by_shape.setdefault(id(self.instances[i].shape), []).append((i, x))
        if not by_shape:
            return False
        for group in by_shape.values():
            self._place(group)
        _touched(self.mesh)
        return True

    def key_of_cell(self, cell: int) -> str | None:
        if 0 <= cell < len(self._cell_owner):
            return self.instances[int(self._cell_owner[cell])].key
        return None

    def extract(self, keys: set[str]) -> pv.PolyData | None:
        """The current geometry of some instances (for highlighting)."""
        if self.mesh is None:
            return None
        cells = [np.arange(inst.cell_start, inst.cell_start + len(inst.shape.faces))
                 for inst in self.instances if inst.key in keys]
        if not cells:
            return None
        return self.mesh.extract_cells(np.concatenate(cells)).extract_surface()


_AXIS_COLORS = np.array([[214, 48, 49], [39, 174, 96], [45, 123, 224]], dtype=np.uint8)


class TriadLayer:
    """Frames drawn as three coloured segments (x red, y green, z blue) of length ``size``."""

    def __init__(self, name: str, size: float = 0.1) -> None:
        self.name = name
        self.size = size
        self.keys: list[str] = []
        self.index: dict[str, int] = {}
        self.mesh: pv.PolyData | None = None

    def build(self, entries: list[tuple[str, np.ndarray]]) -> None:
        self.keys = [k for k, _ in entries]
        self.index = {k: i for i, k in enumerate(self.keys)}
        if not entries:
            self.mesh = None
            return
        X = np.stack([x for _, x in entries])
        n = len(entries)
        lines = np.empty((n * 3, 3), dtype=np.int64)
        base = np.arange(n) * 4
        lines[:, 0] = 2
        lines[:, 1] = np.repeat(base, 3)
        lines[:, 2] = (base[:, None] + np.arange(1, 4)[None, :]).ravel()
        mesh = pv.PolyData(self._points(X), lines=lines.ravel())
        mesh.cell_data["rgb"] = np.tile(_AXIS_COLORS, (n, 1))
        self.mesh = mesh

    def _points(self, X: np.ndarray) -> np.ndarray:
        origin = X[:, :3, 3]
        tips = origin[:, None, :] + self.size * np.transpose(X[:, :3, :3], (0, 2, 1))
        return np.concatenate([origin[:, None, :], tips], axis=1).reshape(-1, 3)

    def move(self, keys: list[str], X: np.ndarray) -> bool:
        if self.mesh is None:
            return False
        rows = [(self.index[k], x) for k, x in zip(keys, X) if k in self.index]
        if not rows:
            return False
        idx = np.array([r for r, _ in rows])
        pts = np.asarray(self.mesh.points)
        new = self._points(np.stack([x for _, x in rows])).reshape(-1, 4, 3)
        pts.reshape(-1, 4, 3)[idx] = new
        _touched(self.mesh)
        return True

    def resize(self, size: float) -> None:
        if self.mesh is None or size == self.size:
            self.size = size
            return
        pts = np.asarray(self.mesh.points).reshape(-1, 4, 3)
        origin = pts[:, :1, :]
        pts[:, 1:, :] = origin + (pts[:, 1:, :] - origin) * (size / self.size)
        self.size = size
        _touched(self.mesh)

    def key_of_cell(self, cell: int) -> str | None:
        i = cell // 3
        return self.keys[i] if 0 <= i < len(self.keys) else None


class LineLayer:
    """Polylines attached to elements (joint axes and limit arcs), in each element's
    frame: ``build`` takes (key, local points (n, 3), world pose, rgb)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.index: dict[str, tuple[int, np.ndarray]] = {}
        self.mesh: pv.PolyData | None = None

    def build(self, entries: list[tuple[str, list[np.ndarray], np.ndarray, tuple]]) -> None:
        self.index = {}
        points, lines, colors = [], [], []
        n = 0
        for key, polylines, X, rgb in entries:
            local = np.vstack(polylines)
            self.index[key] = (n, local)
            world = transform_points(X[None], local)[0]
            points.append(world)
            start = n
            for pl in polylines:
                lines.append(np.concatenate([[len(pl)], np.arange(start, start + len(pl))]))
                colors.append(rgb)
                start += len(pl)
            n += len(local)
        if not points:
            self.mesh = None
            return
        mesh = pv.PolyData(np.vstack(points), lines=np.concatenate(lines))
        mesh.cell_data["rgb"] = np.asarray(colors, dtype=np.uint8)
        self.mesh = mesh

    def move(self, keys: list[str], X: np.ndarray) -> bool:
        if self.mesh is None:
            return False
        pts = np.asarray(self.mesh.points)
        hit = False
        for key, x in zip(keys, X):
            found = self.index.get(key)
            if found is None:
                continue
            start, local = found
            pts[start:start + len(local)] = transform_points(x[None], local)[0]
            hit = True
        if hit:
            _touched(self.mesh)
        return hit
