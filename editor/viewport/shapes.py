"""Triangle meshes of SDFormat geometries, in the geometry's own frame, for drawing.

Primitives follow SDFormat's conventions (box, sphere, ellipsoid centred; cylinder,
capsule and cone along z, centred on their length); meshes come from the project's mesh
readers (``snapframe.plugins.meshio``) with their ``<scale>``, or from the triangles a
reader keeps in memory (``params["data"]``) when there is no file; a plane is a thin square
facing its normal.  Results are cached per geometry value, so the thousand instances of
one robot share their meshes.  A shape that cannot be drawn (a missing mesh file, a
heightmap) gives None; the caller shows nothing and the diagnostics say why.
"""

from __future__ import annotations

import weakref
from functools import lru_cache

import numpy as np

from snapframe.core.model.tessellation import box_triangles, primitive_triangles

__all__ = ["shape_mesh", "Triangles"]

#: Segments around round shapes: smooth enough at editor scale, few triangles.  Scenes
#: of many round parts ask for fewer (see :func:`segments_for`).
ROUND = 24
#: Larger shapes than this (metres from their origin) are not drawn: nothing real is that
#: big, and one such shape would leave every other one a dot.
MAX_EXTENT = 1e6


class Triangles:
    """``points`` (n, 3) float64 and ``faces`` (m, 3) int64 of one shape.

    Shapes that :func:`shape_mesh` returns are wound for back-face culling: every face
    seen from outside is counter-clockwise, so the viewport skips the faces turned away
    (half of every solid's triangles, and of the software renderer's work).  A surface
    that is not a closed, consistently wound solid (many mesh files) is drawn two-sided:
    its faces are listed again, reversed (``two_sided``)."""

    __slots__ = ("points", "faces", "two_sided", "_outline")

    def __init__(self, points: np.ndarray, faces: np.ndarray) -> None:
        self.points = np.ascontiguousarray(points, dtype=float)
        self.faces = np.ascontiguousarray(faces, dtype=np.int64)
        self.two_sided = False
        self._outline: np.ndarray | None = None

    def outline(self, feature_angle: float = 35.0) -> np.ndarray:
        """Point index pairs (k, 2) of the edges that outline the shape: edges of one
        face only, and edges where the faces meet at more than ``feature_angle`` degrees.
        Computed once per shape; a highlight picks these rows of each instance's points."""
        if self._outline is None:
            faces = self.faces[:len(self.faces) // 2] if self.two_sided else self.faces
            self._outline = _outline_edges(self.points, faces, feature_angle)
        return self._outline


def _wound_outward(shape: Triangles) -> Triangles:
    """``shape`` ready for back-face culling (see :class:`Triangles`): a closed surface
    whose faces all agree (each edge crossed once each way) turned outward by the sign of
    its volume; anything else made two-sided."""
    faces = shape.faces
    n = np.int64(len(shape.points))
    directed = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    forward = directed[:, 0] * n + directed[:, 1]
    backward = directed[:, 1] * n + directed[:, 0]
    forward.sort()
    backward.sort()
    closed = bool(np.all(forward[1:] != forward[:-1])) and np.array_equal(forward, backward)
    if closed:
        # each separate solid by its own volume: one body of a file may be wound inward
        # while the others are not (their sum would turn the wrong ones inside out)
        a, b, c = (shape.points[faces[:, i]] for i in range(3))
        part = _solid_of_face(faces, len(shape.points))
        volume = np.bincount(part, weights=np.einsum("ij,ij->i", a, np.cross(b, c)))
        if np.all(volume[np.unique(part)] != 0):
            inward = volume[part] < 0
            if inward.any():
                faces = faces.copy()
                faces[inward] = faces[inward][:, ::-1]
                shape.faces = np.ascontiguousarray(faces)
            return shape
    shape.faces = np.concatenate([faces, faces[:, ::-1]])
    shape.two_sided = True
    return shape


def _solid_of_face(faces: np.ndarray, n: int) -> np.ndarray:
    """A label per face, equal for faces that share points (directly or through others):
    the connected pieces of a mesh (pointer jumping, all in numpy)."""
    parent = np.arange(n)
    a = faces.ravel()
    b = faces[:, [1, 2, 0]].ravel()
    while True:
        pa, pb = parent[a], parent[b]
        differ = pa != pb
        if not differ.any():
            break
        lo, hi = np.minimum(pa, pb)[differ], np.maximum(pa, pb)[differ]
        np.minimum.at(parent, hi, lo)       # hi is a root: hook it under lo
        while True:                         # every point straight to its root
            up = parent[parent]
            if np.array_equal(up, parent):
                break
            parent = up
    return parent[faces[:, 0]]


def _outline_edges(points: np.ndarray, faces: np.ndarray, feature_angle: float) -> np.ndarray:
    if len(faces) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    a, b, c = points[faces[:, 0]], points[faces[:, 1]], points[faces[:, 2]]
    normals = np.cross(b - a, c - a)
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.divide(normals, length, out=np.zeros_like(normals), where=length > 0)
    edges = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    owner = np.tile(np.arange(len(faces)), 3)
    edges = np.sort(edges, axis=1)
    order = np.lexsort((edges[:, 1], edges[:, 0]))
    edges, owner = edges[order], owner[order]
    same = np.all(edges[1:] == edges[:-1], axis=1)      # an edge shared with the next row
    starts = np.flatnonzero(np.r_[True, ~same])
    counts = np.diff(np.r_[starts, len(edges)])
    keep = counts != 2                                  # boundary (or non-manifold) edges
    pairs = starts[counts == 2]
    cos = np.einsum("ij,ij->i", normals[owner[pairs]], normals[owner[pairs + 1]])
    sharp = np.zeros(len(starts), dtype=bool)
    sharp[counts == 2] = cos < np.cos(np.radians(feature_angle))
    return edges[starts[keep | sharp]]


def _box(sx: float, sy: float, sz: float) -> Triangles:
    return Triangles(*box_triangles(sx, sy, sz))


def _primitive(shape: str, params: tuple, n: int = ROUND) -> Triangles | None:
    got = primitive_triangles(shape, params, n)
    return None if got is None else Triangles(*got)


@lru_cache(maxsize=512)
def _mesh(path: str, scale: tuple[float, float, float], submesh: str | None,
          center: bool) -> Triangles | None:
    from snapframe.plugins.meshio import MeshLoadError, load_collision_mesh
    try:
        mesh = load_collision_mesh(path)
    except (MeshLoadError, OSError):
        return None
    parts = mesh.submeshes
    if submesh:
        parts = [s for s in parts if s.name == submesh or submesh in getattr(s, "aliases", ())]
    if not parts:
        return None
    points, faces, offset = [], [], 0
    for s in parts:
        points.append(np.asarray(s.vertices, dtype=float))
        faces.append(np.asarray(s.faces, dtype=np.int64) + offset)
        offset += len(s.vertices)
    P = np.vstack(points)
    if submesh and center:
        P = P - (P.min(axis=0) + P.max(axis=0)) / 2
    return _drawable(Triangles(P * np.array(scale), np.vstack(faces)))


#: Drawable shapes of in-memory meshes (``params["data"]``, a core ``MeshData``), per
#: object and scale.  Weak keys: a closed document's meshes leave the cache with it.
_DATA_MESHES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _data_mesh(data, scale: tuple[float, float, float]) -> Triangles | None:
    """The triangles of an in-memory mesh (vertices times ``scale``), wound like a file's;
    computed once per (MeshData, scale)."""
    try:
        per_scale = _DATA_MESHES.setdefault(data, {})
    except TypeError:  # not weak-referenceable: not a MeshData
        return None
    if scale not in per_scale:
        try:
            V = np.asarray(data.vertices, dtype=float).reshape(-1, 3)
            F = np.asarray(data.faces, dtype=np.int64).reshape(-1, 3)
        except (AttributeError, TypeError, ValueError):
            per_scale[scale] = None
        else:
            per_scale[scale] = _drawable(Triangles(V * np.array(scale), F))
    return per_scale[scale]


#: Shapes drawn with a number of segments around (see :func:`segments_for`).
ROUND_SHAPES = frozenset({"cylinder", "sphere", "capsule", "ellipsoid", "cone"})


def segments_for(round_instances: int) -> int:
    """Segments around round shapes for a scene with this many of them: each of many
    parts is small on screen, where fewer segments look the same and draw faster (a
    tessellation budget, as CAD viewers keep one)."""
    if round_instances <= 200:
        return ROUND
    return 16 if round_instances <= 2000 else 12


def shape_mesh(geometry, segments: int = ROUND) -> Triangles | None:
    """The triangles of a :class:`snapframe.core.model.Geometry`, or None; round shapes
    with ``segments`` around."""
    shape, params = geometry.shape, geometry.params
    if shape == "mesh":
        path = params.get("resolved_path")
        try:
            scale = tuple(float(v) for v in params.get("scale") or (1.0, 1.0, 1.0))
        except (TypeError, ValueError):
            return None
        if len(scale) != 3:
            return None
        if not path:
            data = params.get("data")
            return _data_mesh(data, scale) if data is not None else None
        return _mesh(str(path), scale, params.get("submesh"), bool(params.get("center_submesh")))
    key = tuple(sorted((k, tuple(v) if isinstance(v, (list, tuple)) else v)
                       for k, v in params.items()))
    try:
        return _cached_primitive(shape, key, segments if shape in ROUND_SHAPES else ROUND)
    except (TypeError, ValueError):
        return None


@lru_cache(maxsize=4096)
def _cached_primitive(shape: str, params: tuple, segments: int) -> Triangles | None:
    shape_ = _primitive(shape, params, segments)
    return _drawable(shape_)


def _drawable(shape: Triangles | None) -> Triangles | None:
    """The shape, wound for culling, if it has something to draw: faces, finite points of
    a sane size (a zero radius, a NaN or a 1e300 size gives nothing to see and would wreck
    the view)."""
    if shape is None or shape.faces.ndim != 2 or len(shape.faces) == 0:
        return None
    if shape.faces.min() < 0 or shape.faces.max() >= len(shape.points):
        return None
    P = shape.points
    if not np.all(np.isfinite(P)) or float(np.abs(P).max(initial=0.0)) > MAX_EXTENT:
        return None
    extent = P.max(axis=0) - P.min(axis=0)
    if float(extent.max()) <= 0.0:
        return None
    return _wound_outward(shape)
