"""STL, binary and ASCII.

Binary is recognised by its size (84 + 50 n bytes for the n triangles the header
declares), which also catches binary files whose 80-byte header starts with ``solid``.
STL stores a triangle soup; vertices at bit-identical positions are welded so the mesh
has connectivity.  Each ASCII ``solid`` becomes a submesh named after it.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from .base import Mesh, MeshLoadError, Submesh, make_submesh, read_mesh_file, unique_names

__all__ = ["load_stl", "weld_soup"]

_BINARY_DTYPE = np.dtype([("normal", "<f4", (3,)), ("v", "<f4", (3, 3)), ("attr", "<u2")])
_SOLID = re.compile(rb"^[ \t]*solid(?:[ \t]+([^\r\n]*))?[ \t]*\r?$", re.M)
_VERTEX = re.compile(rb"vertex\s+(\S+)\s+(\S+)\s+(\S+)")


def weld_soup(tris: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(m, 3, 3) triangle soup -> (vertices, faces) with identical positions merged
    (exact comparison after a lexicographic sort; -0.0 equals 0.0)."""
    pts = tris.reshape(-1, 3)
    order = np.lexsort((pts[:, 2], pts[:, 1], pts[:, 0]))
    S = pts[order]
    new = np.empty(len(S), dtype=bool)
    new[:1] = True
    np.any(S[1:] != S[:-1], axis=1, out=new[1:])
    labels = np.empty(len(S), dtype=np.int64)
    labels[order] = np.cumsum(new) - 1
    return S[new].astype(np.float64), labels.reshape(-1, 3)


def load_stl(path: str | Path) -> Mesh:
    data = read_mesh_file(path)
    if len(data) >= 84:
        n = int(np.frombuffer(data, "<u4", 1, 80)[0])
        if 84 + 50 * n == len(data):
            return _binary(path, data, n)
    if data.lstrip()[:5].lower() == b"solid":
        return _ascii(path, data)
    if len(data) < 84:
        raise MeshLoadError(path, f"not an STL file ({len(data)} bytes, no 'solid' header)")
    raise MeshLoadError(path, f"truncated or corrupt binary STL: the header declares {n} "
                              f"triangles ({84 + 50 * n} bytes) but the file has {len(data)} bytes")


def _binary(path, data: bytes, n: int) -> Mesh:
    if n == 0:
        raise MeshLoadError(path, "binary STL with no triangles")
    rec = np.frombuffer(data, _BINARY_DTYPE, n, 84)
    V, F = weld_soup(rec["v"])
    return Mesh(str(path), [make_submesh(path, Path(path).stem, V, F)])


def _ascii(path, data: bytes) -> Mesh:
    starts = list(_SOLID.finditer(data))
    if not starts:
        raise MeshLoadError(path, "ASCII STL without a 'solid' line")
    blocks = []
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(data)
        name = (m.group(1) or b"").strip().decode("utf-8", "replace")
        blocks.append((name, data[m.end():end]))
    names = unique_names([b[0] or Path(path).stem for b in blocks])
    subs: list[Submesh] = []
    for name, (_, body) in zip(names, blocks):
        coords = _VERTEX.findall(body)
        if not coords:
            continue
        if len(coords) % 3:
            raise MeshLoadError(path, f"solid '{name}': {len(coords)} vertices is not a "
                                      "multiple of 3 (facets must be triangles)")
        try:
            tris = np.array(coords, dtype=np.float64).reshape(-1, 3, 3)
        except ValueError as exc:
            raise MeshLoadError(
                path, f"solid '{name}': bad number in a vertex line ({exc})") from None
        V, F = weld_soup(tris)
        subs.append(make_submesh(path, name, V, F))
    if not subs:
        raise MeshLoadError(path, "ASCII STL with no facets")
    return Mesh(str(path), subs)
