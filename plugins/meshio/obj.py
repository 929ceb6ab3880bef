"""Wavefront OBJ: ``v`` and ``f`` statements, ``o``/``g`` groups as submeshes.

Face corners may be ``v``, ``v/vt``, ``v//vn`` or ``v/vt/vn``; negative indices count
back from the last vertex defined so far.  Polygons are fan-triangulated.  Statements
that do not describe geometry (vt, vn, usemtl, mtllib, s, l, p, ...) are ignored.  Each
group keeps only the vertices it uses (OBJ vertices are global to the file).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .base import Mesh, MeshLoadError, compact, fan_triangulate, make_submesh, read_mesh_file

__all__ = ["load_obj"]


def load_obj(path: str | Path) -> Mesh:
    text = read_mesh_file(path).decode("utf-8", "replace")
    verts: list[tuple[float, float, float]] = []
    # group name -> (flat corner indices, polygon sizes); dicts keep first-seen order.
    groups: dict[str, tuple[list[int], list[int]]] = {}
    current = ""
    pending = ""
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line.endswith("\\"):                      # line continuation
            pending += line[:-1] + " "
            continue
        if pending:
            line, pending = pending + line, ""
        if not line:
            continue
        tok = line.split()
        key = tok[0]
        if key == "v":
            if len(tok) < 4:
                raise MeshLoadError(path, f"line {lineno}: a vertex needs 3 coordinates")
            try:
                verts.append((float(tok[1]), float(tok[2]), float(tok[3])))
            except ValueError:
                raise MeshLoadError(
                    path, f"line {lineno}: bad vertex coordinate in '{raw.strip()}'") from None
        elif key == "f":
            if len(tok) < 4:
                raise MeshLoadError(path, f"line {lineno}: a face needs at least 3 corners")
            idx, sizes = groups.setdefault(current, ([], []))
            n = len(verts)
            for corner in tok[1:]:
                try:
                    i = int(corner.split("/", 1)[0])
                except ValueError:
                    raise MeshLoadError(
                        path, f"line {lineno}: bad face corner '{corner}'") from None
                if i > 0:
                    i -= 1
                elif i < 0:
                    i += n
                else:
                    raise MeshLoadError(path, f"line {lineno}: vertex index 0 (OBJ counts from 1)")
                if not 0 <= i < n:
                    raise MeshLoadError(path, f"line {lineno}: face refers to vertex {corner}, "
                                              f"but only {n} vertices are defined so far")
                idx.append(i)
            sizes.append(len(tok) - 1)
        elif key in ("o", "g"):
            current = " ".join(tok[1:])
    if not groups:
        raise MeshLoadError(path, "OBJ file has no faces")
    V = np.asarray(verts, dtype=np.float64).reshape(-1, 3)
    subs = []
    stem = Path(path).stem
    for name, (idx, sizes) in groups.items():
        F = fan_triangulate(np.asarray(idx), np.asarray(sizes))
        if len(F) == 0:
            continue
        Vs, Fs = compact(V, F)
        subs.append(make_submesh(path, name or stem, Vs, Fs))
    return Mesh(str(path), subs)
