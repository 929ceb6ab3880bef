"""Shared types and helpers of the mesh loaders."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from snapframe.core.fileio import FileTooLarge, NotARegularFile, read_regular_file

__all__ = ["MeshLoadError", "Submesh", "Mesh", "fan_triangulate", "compact", "transform_points",
           "make_submesh", "InstanceBudget", "MAX_INSTANCES", "MAX_INSTANCED_TRIANGLES",
           "read_mesh_file", "unreadable_reason"]

#: Scene-graph formats (COLLADA, glTF) may instance one node or geometry many times, so a
#: small file can describe an exponential number of placements (a node with two children
#: that are the same node, repeated 60 levels deep).  These caps bound the work and the
#: memory a file can ask for; real collision meshes are far below them.
MAX_INSTANCES = 100_000
MAX_INSTANCED_TRIANGLES = 20_000_000


class MeshLoadError(Exception):
    """A mesh file could not be read; the message starts with the file path."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


def unreadable_reason(exc: OSError) -> str:
    """Why a file could not be read, without its path (the caller names it)."""
    if isinstance(exc, NotARegularFile):
        return f"not a regular file ({exc.kind}); not read"
    if isinstance(exc, FileTooLarge):
        return f"larger than the {exc.limit} bytes a mesh file may have; not read"
    return f"cannot read file: {exc.strerror or exc}"


def read_mesh_file(path: str | os.PathLike, *, reading_for: str | os.PathLike | None = None
                   ) -> bytes:
    """The bytes of ``path`` through :func:`snapframe.core.fileio.read_regular_file`:
    a FIFO would block for ever and ``/dev/zero`` never ends, so neither is read.

    Raises :class:`MeshLoadError` naming ``reading_for`` (the mesh file, when ``path`` is
    a file it refers to such as a glTF buffer) or else ``path``."""
    try:
        return read_regular_file(path)
    except OSError as exc:
        reason = unreadable_reason(exc)
        if reading_for is None:
            raise MeshLoadError(path, reason) from None
        raise MeshLoadError(reading_for, f"'{path}': {reason}") from None


@dataclass
class Submesh:
    """One named part: ``vertices`` (n, 3) float64 [m], ``faces`` (m, 3) int64 indices.

    ``aliases`` are other names the part answers to in ``//mesh/submesh/name`` (e.g. a
    COLLADA geometry id or the name of the node that instances it).
    """

    name: str
    vertices: np.ndarray
    faces: np.ndarray
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.vertices = np.ascontiguousarray(self.vertices, dtype=np.float64).reshape(-1, 3)
        self.faces = np.ascontiguousarray(self.faces, dtype=np.int64).reshape(-1, 3)

    def matches(self, name: str) -> bool:
        return name == self.name or name in self.aliases


@dataclass
class Mesh:
    """A loaded mesh file: its submeshes in file order."""

    path: str
    submeshes: list[Submesh] = field(default_factory=list)

    def submesh(self, name: str) -> Submesh | None:
        for s in self.submeshes:
            if s.matches(name):
                return s
        return None

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.submeshes]

    def merged(self) -> Submesh:
        """All submeshes as one vertex/face set (vertices are not welded)."""
        if len(self.submeshes) == 1:
            return self.submeshes[0]
        offsets = np.cumsum([0] + [len(s.vertices) for s in self.submeshes[:-1]])
        if not self.submeshes:
            return Submesh(Path(self.path).stem, np.zeros((0, 3)), np.zeros((0, 3), np.int64))
        V = np.concatenate([s.vertices for s in self.submeshes])
        F = np.concatenate([s.faces + o for s, o in zip(self.submeshes, offsets)])
        return Submesh(Path(self.path).stem, V, F)

    @property
    def triangle_count(self) -> int:
        return sum(len(s.faces) for s in self.submeshes)


def fan_triangulate(indices: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Triangles (k, 3) from polygons given as flat ``indices`` and per-polygon ``counts``.

    Polygon (a, b, c, d, ...) becomes (a, b, c), (a, c, d), ...; polygons with fewer than
    three corners are dropped.  Fully vectorised.
    """
    indices = np.asarray(indices, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    if len(counts) and int(counts.min()) < 0:
        # A negative size could balance a huge one in the sum below and make the
        # triangle count (and the allocation) unbounded by the data present.
        raise ValueError(f"negative polygon size {int(counts.min())}")
    if counts.sum() != len(indices):
        raise ValueError(f"polygon sizes add up to {int(counts.sum())} but there are "
                         f"{len(indices)} indices")
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    ntri = np.maximum(counts - 2, 0)
    if ntri.sum() == 0:
        return np.zeros((0, 3), np.int64)
    poly = np.repeat(np.arange(len(counts)), ntri)
    first = starts[poly]
    # Position of each triangle within its polygon: 0, 1, ..., count-3.
    k = np.arange(int(ntri.sum())) - np.repeat(np.cumsum(ntri) - ntri, ntri)
    return np.stack([indices[first], indices[first + k + 1], indices[first + k + 2]], axis=1)


def compact(vertices: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep only the vertices ``faces`` use, re-indexed in order of first index value."""
    if len(faces) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64)
    used, inverse = np.unique(faces, return_inverse=True)
    return vertices[used], inverse.reshape(faces.shape)


def transform_points(T: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a 4x4 affine transform to (n, 3) points."""
    return points @ T[:3, :3].T + T[:3, 3]


def make_submesh(path: str | Path, name: str, vertices: np.ndarray, faces: np.ndarray,
                 aliases: Sequence[str] = (), transform: np.ndarray | None = None) -> Submesh:
    """Validate and build a submesh; a mirroring ``transform`` also flips the winding so
    the faces keep pointing outwards."""
    vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    faces = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    if len(faces):
        lo, hi = int(faces.min()), int(faces.max())
        if lo < 0 or hi >= len(vertices):
            raise MeshLoadError(path, f"submesh '{name}': vertex index {lo if lo < 0 else hi} "
                                      f"out of range (0..{len(vertices) - 1})")
    if not np.isfinite(vertices).all():
        raise MeshLoadError(path, f"submesh '{name}': non-finite vertex coordinates")
    if transform is not None:
        if not np.isfinite(transform).all():
            raise MeshLoadError(path, f"submesh '{name}': non-finite node transform")
        with np.errstate(over="ignore", invalid="ignore"):
            vertices = transform_points(transform, vertices)
        if not np.isfinite(vertices).all():
            raise MeshLoadError(path, f"submesh '{name}': node transform overflows the "
                                      "vertex coordinates")
        if np.linalg.det(transform[:3, :3]) < 0.0:
            faces = faces[:, ::-1]
    aliases = tuple(a for a in dict.fromkeys(aliases) if a and a != name)
    return Submesh(name, vertices, faces, aliases)


class InstanceBudget:
    """Counts scene-graph placements while a COLLADA or glTF scene is walked and raises
    :class:`MeshLoadError` once a file asks for more than :data:`MAX_INSTANCES` node
    visits or :data:`MAX_INSTANCED_TRIANGLES` placed triangles."""

    def __init__(self, path: str | Path, max_instances: int | None = None,
                 max_triangles: int | None = None) -> None:
        self.path = path
        self.max_instances = MAX_INSTANCES if max_instances is None else max_instances
        self.max_triangles = MAX_INSTANCED_TRIANGLES if max_triangles is None else max_triangles
        self.instances = 0
        self.triangles = 0

    def visit(self) -> None:
        """One more node visited."""
        self.instances += 1
        if self.instances > self.max_instances:
            raise MeshLoadError(self.path, f"the scene places nodes more than "
                                           f"{self.max_instances} times (shared nodes "
                                           "instanced recursively?)")

    def place(self, triangles: int) -> None:
        """One more placed copy of a geometry with ``triangles`` triangles."""
        self.triangles += int(triangles)
        if self.triangles > self.max_triangles:
            raise MeshLoadError(self.path, f"the scene places more than {self.max_triangles} "
                                           "triangles (geometry instanced too many times)")


def unique_names(names: Iterable[str]) -> list[str]:
    """Make names unique by suffixing repeats with ``_1``, ``_2``, ..."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        if n in seen:
            seen[n] += 1
            candidate = f"{n}_{seen[n]}"
            while candidate in seen:
                seen[n] += 1
                candidate = f"{n}_{seen[n]}"
            seen[candidate] = 0
            out.append(candidate)
        else:
            seen[n] = 0
            out.append(n)
    return out
