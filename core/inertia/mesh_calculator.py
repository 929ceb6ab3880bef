"""The built-in inertia calculator for ``<mesh>`` geometries, plus its per-file cache.

Per mesh file (keyed by path, device, inode, size, modification and status-change time)
the loaded triangles and each analysis (closure check + unit-density integrals in the
mesh frame) are cached, so that changing ``//mesh/scale``, the collision pose or the
density never re-reads or re-integrates: scale is an O(1) affine map of the cached
integrals, density a factor.  The status-change time catches tools that restore the old
modification time (``cp -p``, ``tar``, ``rsync -t``); a file changed within the file
system's timestamp granularity of being read is "racy" (like git's racily-clean index
entries) and is also compared by content until that window has passed.  A mesh a reader
holds in memory (``params["data"]``, a core MeshData, with no file) is analysed from its
triangles, once per object.

Files are read by a *mesh loader* (the contract is in :mod:`.mesh_loader`): the one a
plugin registers in the ``snapframe.mesh_loaders`` entry-point group, found on the first
mesh read (core names no plugin), unless :func:`set_mesh_loader` replaced it.  With no
loader installed, a mesh's inertia fails with a FILE_READ diagnostic saying so.

``<auto_inertia_params>`` children understood (any namespace prefix):
``method`` = ``auto`` (default: exact when closed, voxels otherwise) | ``exact`` | ``voxel``,
and ``voxel_size`` [m, in the scaled geometry] for the voxel method.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from ..diagnostics import Code, Diagnostics
from .calculators import CalculatorInput, auto_inertia_param
from .mass_properties import MassProperties
from .mesh import MeshAnalysis, analyze_mesh
from .mesh_loader import MeshLoader, discover_mesh_loader

__all__ = ["mesh_calculator", "set_mesh_loader", "get_mesh_loader", "MeshCache", "mesh_cache",
           "mesh_integrals_for_geometry"]

_loader: MeshLoader | None = None


def set_mesh_loader(loader: MeshLoader | None) -> None:
    """Use ``loader`` to read mesh files (None: the installed plugin's, found on next use)."""
    global _loader
    _loader = loader
    mesh_cache().clear()


def get_mesh_loader() -> MeshLoader:
    """The mesh loader in use; raises :class:`.mesh_loader.NoMeshLoader` when none is
    installed (not remembered, so a later :func:`set_mesh_loader` or install works)."""
    global _loader
    if _loader is None:
        _loader = discover_mesh_loader()
    return _loader


@dataclass
class _Part:
    name: str
    aliases: tuple[str, ...]
    vertices: np.ndarray
    faces: np.ndarray


@dataclass
class _Entry:
    parts: list[_Part]
    analyses: dict = field(default_factory=dict)
    #: Content digest while the entry is racy (changed too recently to trust the stat).
    digest: bytes | None = None
    #: The file's newest stat time (mtime or ctime, ns) when it was read.
    changed_ns: int = 0


#: Window within which a file whose stat is unchanged may still have been rewritten: the
#: coarsest common timestamp granularity (FAT: 2 s; ext4 without fine-grained
#: timestamps: one kernel tick; network file systems: up to 1 s).
_RACY_NS = 2_000_000_000


def _stat_key(path: str) -> tuple:
    st = os.stat(path)
    return (os.path.abspath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
            st.st_ctime_ns, stat.S_ISREG(st.st_mode))


def _digest(path: str) -> bytes:
    h = hashlib.blake2b(digest_size=20)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.digest()


class MeshCache:
    """LRU cache of loaded mesh files and their analyses (thread-safe)."""

    def __init__(self, max_files: int = 16) -> None:
        self.max_files = max_files
        self._files: OrderedDict[tuple, _Entry] = OrderedDict()
        self._lock = threading.RLock()

    def clear(self) -> None:
        with self._lock:
            self._files.clear()

    def __len__(self) -> int:
        return len(self._files)

    def _entry(self, path: str) -> _Entry:
        key = _stat_key(path)
        with self._lock:
            entry = self._files.get(key)
            if entry is not None:
                self._files.move_to_end(key)
        if entry is not None:
            if entry.digest is None:
                return entry
            # Racy: the file changed within the timestamp granularity of being read, so
            # a rewrite in that window would leave the stat as it was.  Compare content.
            if _digest(path) == entry.digest:
                if time.time_ns() - entry.changed_ns > _RACY_NS:
                    entry.digest = None            # any later write changes the stat
                return entry
            with self._lock:
                self._files.pop(key, None)
        changed = max(key[4], key[5])
        # Digest *before* reading: if the file changes in between, the digest is the older
        # content and the next lookup reloads (never the other way round).
        racy = key[6] and time.time_ns() - changed <= _RACY_NS    # never read a FIFO here
        digest = _digest(path) if racy else None
        mesh = get_mesh_loader()(path)
        parts = [_Part(str(getattr(s, "name", "")), tuple(getattr(s, "aliases", ()) or ()),
                       np.asarray(s.vertices, dtype=float), np.asarray(s.faces))
                 for s in mesh.submeshes]
        entry = _Entry(parts, digest=digest, changed_ns=changed)
        try:
            unchanged = _stat_key(path) == key
        except OSError:
            unchanged = False
        if not unchanged:
            return entry          # changed while being read: use it, but do not cache it
        with self._lock:
            self._files[key] = entry
            while len(self._files) > self.max_files:
                self._files.popitem(last=False)
        return entry

    def analysis(self, path: str, submesh: str | None = None, center: bool = False,
                 method: str = "auto", voxel_size: float | None = None
                 ) -> tuple[MeshAnalysis, list[str]]:
        """Unit-density analysis of ``path`` (or one submesh of it), in mesh units and frame.

        Returns the analysis and the submesh names.  Raises ``OSError``/loader errors for
        unreadable files, ``KeyError`` for an unknown submesh and ``ValueError`` for
        meshes without volume.
        """
        entry = self._entry(path)
        names = [p.name for p in entry.parts]
        key = (submesh, bool(center and submesh), method,
               None if voxel_size is None else float(voxel_size))
        with self._lock:
            found = entry.analyses.get(key)
        if found is not None:
            return found, names
        if submesh is not None:
            chosen = [p for p in entry.parts if p.name == submesh or submesh in p.aliases]
            if not chosen:
                raise KeyError(submesh)
            chosen = chosen[:1]
        else:
            chosen = entry.parts
        if len(chosen) == 1:
            V, F = chosen[0].vertices, chosen[0].faces
        else:
            offsets = np.cumsum([0] + [len(p.vertices) for p in chosen[:-1]])
            V = np.concatenate([p.vertices for p in chosen])
            F = np.concatenate([p.faces + o for p, o in zip(chosen, offsets)])
        if len(F) == 0:
            raise ValueError("mesh has no triangles")
        result = analyze_mesh(V, F, method=method, voxel_size=voxel_size)
        if submesh is not None and center:
            # //submesh/center: move the submesh's bounding-box centre to the origin.
            bbox_centre = 0.5 * (V.min(axis=0) + V.max(axis=0))
            result = MeshAnalysis(result.integrals.translated(-bbox_centre), result.closure,
                                  result.inverted, result.notes)
        with self._lock:
            entry.analyses[key] = result
        return result, names


_CACHE = MeshCache()
#: Analyses of in-memory meshes (core MeshData), per object; weak: they leave with it.
_DATA_ANALYSES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_DATA_LOCK = threading.Lock()


def _data_analysis(data, method: str, voxel_size: float | None) -> MeshAnalysis:
    """Unit-density analysis of an in-memory mesh (its own units and frame), cached."""
    key = (method, None if voxel_size is None else float(voxel_size))
    with _DATA_LOCK:
        found = _DATA_ANALYSES.get(data, {}).get(key)
    if found is not None:
        return found
    V = np.asarray(data.vertices, dtype=float).reshape(-1, 3)
    F = np.asarray(data.faces, dtype=np.int64).reshape(-1, 3)
    if len(F) == 0:
        raise ValueError("mesh has no triangles")
    result = analyze_mesh(V, F, method=method, voxel_size=voxel_size)
    with _DATA_LOCK:
        _DATA_ANALYSES.setdefault(data, {})[key] = result
    return result


def mesh_cache() -> MeshCache:
    """The process-wide mesh cache used by :func:`mesh_calculator`."""
    return _CACHE


def _scale(params: dict) -> np.ndarray:
    s = params.get("scale") or (1.0, 1.0, 1.0)
    s = np.asarray([float(v) for v in s], dtype=float)
    if s.shape != (3,):
        raise ValueError(f"mesh scale needs 3 values, got {len(s)}")
    return s


def mesh_integrals_for_geometry(props: CalculatorInput, diagnostics: Diagnostics):
    """The mesh's unit-density integrals in the geometry frame (scale applied), or None
    after a diagnostic.  Exposed for tools that want volume/COM without a density."""
    g = props.geometry
    params = g.params
    where, element = props.source, props.element
    cname = props.collision_name
    uri = params.get("uri", "")
    path = params.get("resolved_path")
    data = params.get("data") if not path else None   # triangles a reader holds in memory
    if not path and data is None:
        diagnostics.error(Code.URI_INVALID,
                          f"Cannot compute the inertia of mesh '{uri}' (collision {cname}): "
                          "the file was not found.", where, element)
        return None
    if data is not None:
        path = uri or "in-memory mesh"
    try:
        scale = _scale(params)
    except (TypeError, ValueError) as exc:
        diagnostics.error(Code.ELEMENT_INVALID, f"Mesh {path}: {exc}", where, element)
        return None
    if not np.all(np.isfinite(scale)) or np.any(scale == 0.0):
        diagnostics.error(Code.LINK_INERTIA_INVALID,
                          f"Inertia Calculated for collision: {cname} is invalid (mesh scale "
                          f"{scale.tolist()} has a zero or non-finite component).", where, element)
        return None
    method = str(auto_inertia_param(props.auto_inertia_params, "method", "auto") or "auto")
    method = method.strip().lower()
    if method not in ("auto", "exact", "voxel"):
        diagnostics.warning(Code.ELEMENT_INVALID,
                            f"Unknown auto_inertia_params method '{method}'; using 'auto'.",
                            where, element)
        method = "auto"
    voxel_size = auto_inertia_param(props.auto_inertia_params, "voxel_size", None)
    h_mesh = None
    if voxel_size is not None:
        try:
            h = float(voxel_size)
            if not h > 0.0:
                raise ValueError
            # Voxels are cut in mesh units: the finest scaled axis meets the request.
            h_mesh = h / float(np.abs(scale).max())
        except (TypeError, ValueError):
            diagnostics.warning(Code.ELEMENT_INVALID,
                                f"auto_inertia_params voxel_size '{voxel_size}' is not a "
                                "positive number; using the default.", where, element)
    submesh = params.get("submesh") or None
    center = bool(params.get("center_submesh", False))
    try:
        if data is not None:
            analysis = _data_analysis(data, method, h_mesh)
        else:
            analysis, names = mesh_cache().analysis(path, submesh, center, method, h_mesh)
    except KeyError:
        try:
            names = [p.name for p in mesh_cache()._entry(path).parts]
        except Exception:  # the file itself failed; the message below still holds
            names = []
        diagnostics.error(Code.ELEMENT_INVALID,
                          f"Submesh '{submesh}' not found in mesh {path} "
                          f"(submeshes: {', '.join(repr(n) for n in names) or 'none'}).",
                          where, element)
        return None
    except ValueError as exc:
        diagnostics.error(Code.LINK_INERTIA_INVALID,
                          f"Inertia Calculated for collision: {cname} is invalid (mesh {path}: "
                          f"{exc}).", where, element)
        return None
    except Exception as exc:  # unreadable / malformed file: the loader's message names it
        text = str(exc)          # MeshLoadError messages already start with the path
        detail = text if text.startswith(str(path)) else f"{path}: {text}"
        diagnostics.error(Code.FILE_READ, f"Cannot read mesh {detail}", where, element)
        return None

    closure = analysis.closure
    label = f"mesh {path}" + (f" (submesh '{submesh}')" if submesh else "")
    if analysis.integrals.approximate:
        why = ("is not closed: " + closure.describe()) if not closure.closed else \
            "was voxelised as requested"
        h_used = (analysis.integrals.voxel_size or 0.0) * float(np.abs(scale).max())
        diagnostics.warning(Code.MESH_NOT_CLOSED if not closure.closed else Code.WARNING,
                            f"The {label} {why}; its inertia is APPROXIMATE (voxel method, "
                            f"voxel_size {h_used:.4g} m).", where, element)
    elif not closure.closed:
        diagnostics.warning(Code.MESH_NOT_CLOSED,
                            f"The {label} is not closed ({closure.describe()}); the exact "
                            "method was forced and its result depends on the holes.",
                            where, element)
    if analysis.inverted:
        diagnostics.warning(Code.WARNING,
                            f"The faces of {label} point inwards (negative volume); the sign "
                            "was corrected.", where, element)
    for note in analysis.notes:
        diagnostics.warning(Code.WARNING, f"{label}: {note}", where, element)
    return analysis.integrals.scaled(scale)


def mesh_calculator(props: CalculatorInput, diagnostics: Diagnostics) -> MassProperties | None:
    """Built-in calculator for ``mesh``: exact divergence-theorem integration of closed
    meshes, voxel approximation (with a MESH_NOT_CLOSED warning) otherwise."""
    integrals = mesh_integrals_for_geometry(props, diagnostics)
    if integrals is None:
        return None
    mp = integrals.mass_properties(props.density)
    if not mp.is_valid():
        diagnostics.error(Code.LINK_INERTIA_INVALID,
                          f"Inertia Calculated for collision: {props.collision_name} is invalid "
                          f"(mesh {props.geometry.params.get('resolved_path')} gives mass "
                          f"{mp.mass:g} and an invalid tensor).", props.source, props.element)
        return None
    return mp
