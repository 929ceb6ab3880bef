"""Mesh file loaders (STL, OBJ, PLY, COLLADA, glTF) returning numpy vertex/face arrays.

``load_mesh(path)`` returns a :class:`Mesh` whose ``submeshes`` each hold ``vertices``
(n, 3) float64 in metres and ``faces`` (m, 3) int64, outward winding as stored.  Any
problem with the file raises :class:`MeshLoadError` whose message starts with the path;
loaders never hang on bad input: every count is checked against the bytes present
before anything is allocated from it, list and polygon sizes must be non-negative,
scene graphs (COLLADA, glTF) may place at most ``base.MAX_INSTANCES`` nodes and
``base.MAX_INSTANCED_TRIANGLES`` triangles, and only regular files are opened.

Pure: stdlib, numpy and lxml.  :func:`load_collision_mesh` is the core inertia engine's
mesh loader, registered through the ``snapframe.mesh_loaders`` entry point.
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path
from typing import Callable

from .base import Mesh, MeshLoadError, Submesh, unreadable_reason

__all__ = ["load_mesh", "load_collision_mesh", "Mesh", "Submesh", "MeshLoadError",
           "SUPPORTED_EXTENSIONS"]


def _stl(path, **_):
    from .stl import load_stl
    return load_stl(path)


def _obj(path, **_):
    from .obj import load_obj
    return load_obj(path)


def _ply(path, **_):
    from .ply import load_ply
    return load_ply(path)


def _dae(path, apply_up_axis: bool = True, **_):
    from .collada import load_collada
    return load_collada(path, apply_up_axis=apply_up_axis)


def _gltf(path, **_):
    from .gltf import load_gltf
    return load_gltf(path)


_LOADERS: dict[str, Callable[..., Mesh]] = {
    ".stl": _stl, ".obj": _obj, ".ply": _ply, ".dae": _dae, ".gltf": _gltf, ".glb": _gltf,
}
#: File extensions :func:`load_mesh` reads (lower case, with the dot).
SUPPORTED_EXTENSIONS = tuple(_LOADERS)


def load_mesh(path: str | os.PathLike, *, apply_up_axis: bool = True) -> Mesh:
    """Read a mesh file; the format comes from the extension (case-insensitive).

    ``apply_up_axis`` (COLLADA only): rotate X_UP / Y_UP files to Z-up (the inertia engine
    passes False: gz-common ignores ``<up_axis>``, so simulators use the raw axes).  Raises
    :class:`MeshLoadError` for a missing, unreadable, unsupported or malformed file.
    """
    p = Path(path)
    loader = _LOADERS.get(p.suffix.lower())
    if loader is None:
        raise MeshLoadError(p, f"unsupported mesh format '{p.suffix}' (supported: "
                               f"{', '.join(SUPPORTED_EXTENSIONS)})")
    try:
        # Each loader reads through base.read_mesh_file (snapframe.core.fileio's
        # read_regular_file): FIFOs, devices and oversized files are refused on the
        # opened descriptor, and so are the files a mesh refers to (glTF buffers).
        mesh = loader(p, apply_up_axis=apply_up_axis)
    except MeshLoadError:
        raise
    except OSError as exc:
        raise MeshLoadError(p, unreadable_reason(exc)) from None
    except (ValueError, IndexError, KeyError, TypeError, OverflowError, MemoryError,
            struct.error, zlib.error, UnicodeDecodeError, RecursionError) as exc:
        # Last line of defence: the loaders validate, but a malformed file must never
        # escape as a bare exception without the path.
        raise MeshLoadError(p, f"malformed {p.suffix[1:].upper()} file "
                               f"({type(exc).__name__}: {exc})") from None
    if not mesh.submeshes or mesh.triangle_count == 0:
        raise MeshLoadError(p, "mesh has no triangles")
    return mesh


def load_collision_mesh(path: str | os.PathLike) -> Mesh:
    """:func:`load_mesh` as simulators read collision meshes: COLLADA ``<up_axis>`` ignored.

    The ``snapframe.mesh_loaders`` entry point.  gz-common (what gz-sim's mesh inertia
    calculator, physics and rendering load meshes with) applies ``<unit meter>`` but not
    ``<up_axis>``, so the inertia of the same file must use its raw axes too.
    """
    return load_mesh(path, apply_up_axis=False)
