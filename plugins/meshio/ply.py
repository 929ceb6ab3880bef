"""Stanford PLY: ascii, binary_little_endian and binary_big_endian.

Reads the ``vertex`` element's x, y, z and the ``face`` element's index list
(``vertex_indices`` or ``vertex_index``); other elements and properties are skipped.
Faces that all have the same corner count are read in one vectorised step; mixed
polygons fall back to a per-record loop.  Polygons are fan-triangulated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .base import Mesh, MeshLoadError, fan_triangulate, make_submesh, read_mesh_file

__all__ = ["load_ply"]

_TYPES = {"char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1", "short": "i2", "int16": "i2",
          "ushort": "u2", "uint16": "u2", "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
          "float": "f4", "float32": "f4", "double": "f8", "float64": "f8"}
_MAX_HEADER = 1 << 16


@dataclass
class _Prop:
    name: str
    dtype: str                       # scalar type, or the item type of a list
    count_dtype: str | None = None   # set for list properties


@dataclass
class _Element:
    name: str
    count: int
    props: list[_Prop] = field(default_factory=list)


def _header(path, data: bytes) -> tuple[str, list[_Element], int]:
    end = data.find(b"end_header", 0, _MAX_HEADER)
    if not data.startswith(b"ply") or end < 0:
        raise MeshLoadError(path, "not a PLY file (no 'ply' magic or no end_header)")
    body = data.index(b"\n", end) + 1 if b"\n" in data[end:end + 16] else len(data)
    fmt = None
    elements: list[_Element] = []
    for lineno, raw in enumerate(data[:end].decode("ascii", "replace").splitlines(), 1):
        tok = raw.split()
        if not tok or tok[0] in ("ply", "comment", "obj_info"):
            continue
        if tok[0] == "format" and len(tok) >= 2:
            fmt = tok[1]
        elif tok[0] == "element" and len(tok) == 3:
            try:
                elements.append(_Element(tok[1], int(tok[2])))
            except ValueError:
                raise MeshLoadError(path, f"header line {lineno}: bad element count") from None
            if elements[-1].count < 0:
                raise MeshLoadError(path, f"header line {lineno}: negative element count")
        elif tok[0] == "property" and elements:
            if len(tok) == 5 and tok[1] == "list" and tok[2] in _TYPES and tok[3] in _TYPES:
                elements[-1].props.append(_Prop(tok[4], _TYPES[tok[3]], _TYPES[tok[2]]))
            elif len(tok) == 3 and tok[1] in _TYPES:
                elements[-1].props.append(_Prop(tok[2], _TYPES[tok[1]]))
            else:
                raise MeshLoadError(path, f"header line {lineno}: bad property '{raw.strip()}'")
        else:
            raise MeshLoadError(path, f"header line {lineno}: unexpected '{raw.strip()}'")
    if fmt not in ("ascii", "binary_little_endian", "binary_big_endian"):
        raise MeshLoadError(path, f"unsupported PLY format {fmt!r}")
    return fmt, elements, body


def load_ply(path: str | Path) -> Mesh:
    data = read_mesh_file(path)
    fmt, elements, body = _header(path, data)
    names = [e.name for e in elements]
    if "vertex" not in names or "face" not in names:
        raise MeshLoadError(path, "PLY file needs 'vertex' and 'face' elements")
    if fmt == "ascii":
        values = _read_ascii(path, data[body:], elements)
    else:
        order = "<" if fmt.endswith("little_endian") else ">"
        values = _read_binary(path, data, body, elements, order)
    V = values["vertex"]
    indices, counts = values["face"]
    F = fan_triangulate(indices, counts)
    if len(F) == 0:
        raise MeshLoadError(path, "PLY file has no polygons")
    return Mesh(str(path), [make_submesh(path, Path(path).stem, V, F)])


def _xyz_columns(path, el: _Element) -> list[int]:
    names = [p.name for p in el.props]
    try:
        cols = [names.index(a) for a in ("x", "y", "z")]
    except ValueError:
        raise MeshLoadError(path, "vertex element lacks x, y or z") from None
    if any(el.props[c].count_dtype for c in cols):
        raise MeshLoadError(path, "vertex x, y, z must be scalar properties")
    return cols


def _face_list(path, el: _Element) -> int:
    for want in ("vertex_indices", "vertex_index"):
        for i, p in enumerate(el.props):
            if p.name == want and p.count_dtype:
                return i
    for i, p in enumerate(el.props):
        if p.count_dtype:
            return i
    raise MeshLoadError(path, "face element has no index list")


# -- ascii ----------------------------------------------------------------------------
def _read_ascii(path, text: bytes, elements: list[_Element]) -> dict:
    lines = text.decode("ascii", "replace").splitlines()
    pos = 0
    out: dict = {}
    for el in elements:
        rows = lines[pos:pos + el.count]
        if len(rows) < el.count:
            raise MeshLoadError(path, f"element '{el.name}': {el.count} records declared, "
                                      f"{len(rows)} present")
        pos += el.count
        if el.name == "vertex":
            cols = _xyz_columns(path, el)
            if any(p.count_dtype for p in el.props):
                table = [r.split() for r in rows]     # rare: lists inside vertices
                try:
                    out["vertex"] = np.array([[float(t[c]) for c in cols] for t in table])
                except (ValueError, IndexError):
                    raise MeshLoadError(path, "bad vertex record") from None
                continue
            try:
                arr = np.array(" ".join(rows).split(), dtype=np.float64)
                arr = arr.reshape(el.count, len(el.props))
            except ValueError:
                raise MeshLoadError(path, "vertex records do not match the header") from None
            out["vertex"] = arr[:, cols]
        elif el.name == "face":
            out["face"] = _ascii_faces(path, el, rows)
    return out


def _ascii_faces(path, el: _Element, rows: list[str]) -> tuple[np.ndarray, np.ndarray]:
    li = _face_list(path, el)
    simple = li == 0 and len(el.props) == 1
    toks = [r.split() for r in rows]
    if simple and toks:
        widths = {len(t) for t in toks}
        if len(widths) == 1:                         # all polygons of one size: vectorised
            try:
                arr = np.array(toks, dtype=np.int64)
            except ValueError:
                raise MeshLoadError(path, "bad face record") from None
            n = int(arr[0, 0])
            if (arr[:, 0] != n).any() or arr.shape[1] != n + 1:
                raise MeshLoadError(path, "face records do not match their counts")
            return arr[:, 1:].reshape(-1), np.full(len(arr), n)
    idx: list[int] = []
    counts: list[int] = []
    for r, t in enumerate(toks):
        try:
            k = 0
            for j, p in enumerate(el.props):
                if p.count_dtype:
                    n = int(t[k])
                    if j == li:
                        idx.extend(int(v) for v in t[k + 1:k + 1 + n])
                        counts.append(n)
                        if len(t) < k + 1 + n:
                            raise IndexError
                    k += 1 + n
                else:
                    k += 1
        except (ValueError, IndexError):
            raise MeshLoadError(path, f"bad face record {r}") from None
    return np.asarray(idx, dtype=np.int64), np.asarray(counts, dtype=np.int64)


# -- binary ---------------------------------------------------------------------------
def _read_binary(path, data: bytes, pos: int, elements: list[_Element], order: str) -> dict:
    out: dict = {}
    for el in elements:
        if not any(p.count_dtype for p in el.props):
            dt = np.dtype([(f"p{i}", order + p.dtype) for i, p in enumerate(el.props)])
            need = dt.itemsize * el.count
            if pos + need > len(data):
                raise MeshLoadError(path, f"element '{el.name}': needs {need} bytes, file is "
                                          "truncated")
            rec = np.frombuffer(data, dt, el.count, pos)
            pos += need
            if el.name == "vertex":
                cols = _xyz_columns(path, el)
                out["vertex"] = np.stack([rec[f"p{c}"].astype(np.float64) for c in cols], axis=1)
            continue
        if el.name == "vertex":
            _xyz_columns(path, el)                     # raises: lists inside vertex records
        pos, parsed = _binary_lists(path, data, pos, el, order)
        if el.name == "face":
            out["face"] = parsed
    return out


def _binary_lists(path, data: bytes, pos: int, el: _Element, order: str):
    """Records with list properties.  Fast path: assume every list has the counts of the
    first record, read everything with one fixed dtype, then verify the counts."""
    li = _face_list(path, el) if el.name == "face" else -1
    if el.count == 0:
        return pos, (np.zeros(0, np.int64), np.zeros(0, np.int64))
    counts0 = []
    p = pos
    for prop in el.props:
        if prop.count_dtype:
            ct = np.dtype(order + prop.count_dtype)
            if p + ct.itemsize > len(data):
                raise MeshLoadError(path, f"element '{el.name}': file is truncated")
            n = int(np.frombuffer(data, ct, 1, p)[0])
            if n < 0:
                raise MeshLoadError(path, f"element '{el.name}' record 0: negative list size {n}")
            counts0.append(n)
            p += ct.itemsize + n * np.dtype(prop.dtype).itemsize
        else:
            p += np.dtype(prop.dtype).itemsize
    fields, ci = [], 0
    for i, prop in enumerate(el.props):
        if prop.count_dtype:
            fields.append((f"c{i}", order + prop.count_dtype))
            fields.append((f"l{i}", order + prop.dtype, (counts0[ci],)))
            ci += 1
        else:
            fields.append((f"p{i}", order + prop.dtype))
    dt = np.dtype(fields)
    need = dt.itemsize * el.count
    if pos + need <= len(data):
        rec = np.frombuffer(data, dt, el.count, pos)
        ok, ci = True, 0
        for i, prop in enumerate(el.props):
            if prop.count_dtype:
                ok &= bool((rec[f"c{i}"] == counts0[ci]).all())
                ci += 1
        if ok:
            parsed = None
            if li >= 0:
                lst = rec[f"l{li}"].astype(np.int64)
                parsed = (lst.reshape(-1), np.full(el.count, lst.shape[1] if lst.ndim > 1 else 1))
            return pos + need, parsed
    # Mixed list lengths: walk record by record (the record layout varies).
    idx: list[np.ndarray] = []
    counts: list[int] = []
    p = pos
    for r in range(el.count):
        for i, prop in enumerate(el.props):
            if prop.count_dtype:
                ct = np.dtype(order + prop.count_dtype)
                it = np.dtype(order + prop.dtype)
                if p + ct.itemsize > len(data):
                    raise MeshLoadError(path, f"element '{el.name}' record {r}: file is truncated")
                n = int(np.frombuffer(data, ct, 1, p)[0])
                if n < 0:
                    # A negative size would move the read position backwards: the walk
                    # would never reach the end of the data.
                    raise MeshLoadError(path, f"element '{el.name}' record {r}: negative list "
                                              f"size {n}")
                p += ct.itemsize
                if p + n * it.itemsize > len(data):
                    raise MeshLoadError(path, f"element '{el.name}' record {r}: file is truncated")
                if i == li:
                    idx.append(np.frombuffer(data, it, n, p).astype(np.int64))
                    counts.append(n)
                p += n * it.itemsize
            else:
                p += np.dtype(prop.dtype).itemsize
    if p > len(data):
        raise MeshLoadError(path, f"element '{el.name}': file is truncated")
    parsed = None
    if li >= 0:
        parsed = (np.concatenate(idx) if idx else np.zeros(0, np.int64),
                  np.asarray(counts, dtype=np.int64))
    return p, parsed
