"""glTF 2.0: ``.gltf`` (JSON + base64 data URIs or external ``.bin`` files) and ``.glb``.

Triangles (mode 4), strips (5) and fans (6) are read; points and lines are skipped.
Nodes are placed by ``matrix`` or translation/rotation/scale down the default scene's
tree.  Coordinates are kept as stored (glTF is Y-up; gz-common does not rotate glTF
either).  Each glTF mesh is a submesh named after it (else ``mesh_<index>``); the name of
the node that instances it is an alias.  Accessors are bounds-checked against their
buffer views before any read, and external buffers must be local files.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import struct
from pathlib import Path
from urllib.parse import unquote

import numpy as np

from snapframe.core.fileio import read_regular_file

from .base import (InstanceBudget, Mesh, MeshLoadError, make_submesh, read_mesh_file,
                   unique_names, unreadable_reason)

__all__ = ["load_gltf"]

_COMPONENT = {5120: "i1", 5121: "u1", 5122: "i2", 5123: "u2", 5125: "u4", 5126: "f4"}
_NCOMP = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_GLB_MAGIC = b"glTF"
_CHUNK_JSON = 0x4E4F534A
_CHUNK_BIN = 0x004E4942
_MAX_DEPTH = 64
#: An accessor without a bufferView is all zeros (plus its sparse values): its count is not
#: backed by any bytes of the file, so it is capped instead of trusted.
_MAX_ZERO_ELEMENTS = 1 << 22


def _read_glb(path, data: bytes) -> tuple[dict, bytes | None]:
    if len(data) < 20:
        raise MeshLoadError(path, "GLB file too short")
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    if magic != _GLB_MAGIC:
        raise MeshLoadError(path, "not a GLB file (bad magic)")
    if version != 2:
        raise MeshLoadError(path, f"unsupported GLB version {version}")
    if length > len(data):
        raise MeshLoadError(path, f"GLB header declares {length} bytes, file has {len(data)}")
    pos, doc, binary = 12, None, None
    while pos + 8 <= length:
        clen, ctype = struct.unpack_from("<II", data, pos)
        pos += 8
        if pos + clen > length:
            raise MeshLoadError(path, "GLB chunk runs past the end of the file")
        chunk = data[pos:pos + clen]
        pos += clen
        if ctype == _CHUNK_JSON and doc is None:
            doc = _json(path, chunk)
        elif ctype == _CHUNK_BIN and binary is None:
            binary = chunk
    if doc is None:
        raise MeshLoadError(path, "GLB file has no JSON chunk")
    return doc, binary


def _json(path, raw: bytes) -> dict:
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MeshLoadError(path, f"invalid glTF JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise MeshLoadError(path, "glTF JSON is not an object")
    return doc


class _Gltf:
    def __init__(self, path: Path, doc: dict, glb_bin: bytes | None) -> None:
        self.path = path
        self.doc = doc
        self.glb_bin = glb_bin
        self._buffers: dict[int, bytes] = {}
        self._meshes: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.budget = InstanceBudget(path)

    def _item(self, kind: str, i) -> dict:
        items = self.doc.get(kind) or []
        if not isinstance(i, int) or not 0 <= i < len(items) or not isinstance(items[i], dict):
            raise MeshLoadError(self.path, f"{kind}[{i}] does not exist")
        return items[i]

    def buffer(self, i: int) -> bytes:
        if i in self._buffers:
            return self._buffers[i]
        b = self._item("buffers", i)
        uri = b.get("uri")
        if uri is None:
            if self.glb_bin is None:
                raise MeshLoadError(self.path, f"buffers[{i}] has no uri and there is no GLB "
                                               "binary chunk")
            data = self.glb_bin
        elif uri.startswith("data:"):
            head, _, payload = uri.partition(",")
            if not head.endswith(";base64"):
                raise MeshLoadError(self.path, f"buffers[{i}]: only base64 data URIs are supported")
            try:
                data = base64.b64decode(payload, validate=True)
            except (binascii.Error, ValueError):
                raise MeshLoadError(self.path, f"buffers[{i}]: bad base64 data") from None
        else:
            if "://" in uri:
                raise MeshLoadError(self.path, f"buffers[{i}]: remote uri '{uri}' is not fetched")
            target = (self.path.parent / unquote(uri))
            try:
                # A buffer URI may name a FIFO or /dev/zero: refused, never read.
                data = read_regular_file(target)
            except OSError as exc:
                raise MeshLoadError(self.path, f"buffers[{i}]: '{target}': "
                                               f"{unreadable_reason(exc)}") from None
        length = b.get("byteLength")
        if isinstance(length, int) and length > len(data):
            raise MeshLoadError(self.path, f"buffers[{i}] declares {length} bytes, has {len(data)}")
        self._buffers[i] = data
        return data

    def accessor(self, i: int) -> np.ndarray:
        a = self._item("accessors", i)
        comp = _COMPONENT.get(a.get("componentType"))
        ncomp = _NCOMP.get(a.get("type"))
        count = a.get("count")
        if comp is None or ncomp is None or not isinstance(count, int) or count < 0:
            raise MeshLoadError(self.path, f"accessors[{i}]: bad componentType/type/count")
        dt = np.dtype("<" + comp)
        elem = dt.itemsize * ncomp
        if "bufferView" in a:
            out = self._view(a["bufferView"], a.get("byteOffset", 0), count, dt, ncomp, elem,
                             f"accessors[{i}]").copy()
        else:
            if count > _MAX_ZERO_ELEMENTS:
                raise MeshLoadError(self.path, f"accessors[{i}] has no bufferView but a count "
                                               f"of {count} (at most {_MAX_ZERO_ELEMENTS})")
            out = np.zeros((count, ncomp), dt)
        if "sparse" in a:
            out = self._sparse(i, a["sparse"], out, dt, ncomp)
        if a.get("normalized") and dt.kind in "iu":
            info = np.iinfo(dt)
            out = np.maximum(out.astype(np.float64) / info.max, -1.0)
        return out

    def _view(self, vi, offset, count, dt, ncomp, elem, what) -> np.ndarray:
        bv = self._item("bufferViews", vi)
        data = self.buffer(bv.get("buffer"))
        bv_off = bv.get("byteOffset", 0)
        bv_len = bv.get("byteLength")
        stride = bv.get("byteStride") or elem
        if not all(isinstance(v, int) and v >= 0 for v in (bv_off, offset, stride)) or \
                not isinstance(bv_len, int) or stride < elem:
            raise MeshLoadError(self.path, f"{what}: bad bufferView {vi} layout")
        if bv_off + bv_len > len(data):
            raise MeshLoadError(self.path, f"bufferViews[{vi}] runs past the end of its buffer")
        if count and offset + stride * (count - 1) + elem > bv_len:
            raise MeshLoadError(self.path, f"{what} reads past the end of bufferViews[{vi}]")
        if count == 0:
            return np.zeros((0, ncomp), dt)
        return np.ndarray((count, ncomp), dt, buffer=data, offset=bv_off + offset,
                          strides=(stride, dt.itemsize))

    def _sparse(self, i, sp, out, dt, ncomp) -> np.ndarray:
        try:
            n = sp["count"]
            idx_info, val_info = sp["indices"], sp["values"]
            idt = np.dtype("<" + _COMPONENT[idx_info["componentType"]])
            idx = self._view(idx_info["bufferView"], idx_info.get("byteOffset", 0), n, idt, 1,
                             idt.itemsize, f"accessors[{i}].sparse.indices").reshape(-1)
            vals = self._view(val_info["bufferView"], val_info.get("byteOffset", 0), n, dt, ncomp,
                              dt.itemsize * ncomp, f"accessors[{i}].sparse.values")
        except (KeyError, TypeError):
            raise MeshLoadError(self.path, f"accessors[{i}]: malformed sparse block") from None
        if len(idx) and int(idx.max()) >= len(out):
            raise MeshLoadError(self.path, f"accessors[{i}]: sparse index out of range")
        out[idx.astype(np.int64)] = vals
        return out

    def primitive(self, mi: int, pi: int, prim: dict) -> tuple[np.ndarray, np.ndarray] | None:
        mode = prim.get("mode", 4)
        if mode not in (4, 5, 6):
            return None
        attrs = prim.get("attributes") or {}
        if "POSITION" not in attrs:
            raise MeshLoadError(self.path, f"meshes[{mi}].primitives[{pi}] has no POSITION")
        V = self.accessor(attrs["POSITION"]).astype(np.float64)
        if V.shape[1] != 3:
            raise MeshLoadError(self.path, f"meshes[{mi}].primitives[{pi}] POSITION is not VEC3")
        if "indices" in prim:
            idx = self.accessor(prim["indices"])
            if idx.shape[1] != 1 or idx.dtype.kind != "u":
                raise MeshLoadError(self.path, f"meshes[{mi}].primitives[{pi}] indices must be "
                                               "unsigned scalars")
            idx = idx.reshape(-1).astype(np.int64)
        else:
            idx = np.arange(len(V), dtype=np.int64)
        if mode == 4:
            if len(idx) % 3:
                raise MeshLoadError(self.path, f"meshes[{mi}].primitives[{pi}]: {len(idx)} indices "
                                               "is not a multiple of 3")
            F = idx.reshape(-1, 3)
        elif len(idx) < 3:
            F = np.zeros((0, 3), np.int64)
        else:
            k = np.arange(len(idx) - 2)
            if mode == 5:
                F = np.stack([idx[k], idx[k + 1], idx[k + 2]], axis=1)
                F[1::2] = F[1::2][:, [1, 0, 2]]
            else:
                F = np.stack([np.full(len(k), idx[0]), idx[k + 1], idx[k + 2]], axis=1)
        if len(F) and (F.max() >= len(V)):
            raise MeshLoadError(self.path, f"meshes[{mi}].primitives[{pi}]: index out of range")
        return V, F

    def mesh(self, mi: int) -> tuple[np.ndarray, np.ndarray]:
        """Vertices and faces of meshes[mi] (read once, however often it is instanced)."""
        if mi not in self._meshes:
            self._meshes[mi] = self._read_mesh(mi)
        return self._meshes[mi]

    def _read_mesh(self, mi: int) -> tuple[np.ndarray, np.ndarray]:
        m = self._item("meshes", mi)
        Vs, Fs, n = [], [], 0
        for pi, prim in enumerate(m.get("primitives") or []):
            got = self.primitive(mi, pi, prim)
            if got is None:
                continue
            V, F = got
            Vs.append(V)
            Fs.append(F + n)
            n += len(V)
        if not Vs:
            return np.zeros((0, 3)), np.zeros((0, 3), np.int64)
        return np.concatenate(Vs), np.concatenate(Fs)

    def node_matrix(self, node: dict, ni: int) -> np.ndarray:
        if "matrix" in node:
            m = node["matrix"]
            if not isinstance(m, list) or len(m) != 16:
                raise MeshLoadError(self.path, f"nodes[{ni}].matrix needs 16 numbers")
            return np.asarray(m, dtype=float).reshape(4, 4).T     # column-major
        T = np.eye(4)
        t = node.get("translation", [0, 0, 0])
        q = node.get("rotation", [0, 0, 0, 1])
        s = node.get("scale", [1, 1, 1])
        try:
            x, y, z, w = (float(v) for v in q)
            n = math.sqrt(x * x + y * y + z * z + w * w) or 1.0
            x, y, z, w = x / n, y / n, z / n, w / n
            R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                          [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                          [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
            T[:3, :3] = R @ np.diag([float(v) for v in s])
            T[:3, 3] = [float(v) for v in t]
        except (TypeError, ValueError):
            raise MeshLoadError(self.path, f"nodes[{ni}]: bad translation/rotation/scale") from None
        return T

    def walk(self, ni: int, T: np.ndarray, depth: int, out: list) -> None:
        if depth > _MAX_DEPTH:
            raise MeshLoadError(self.path, "node hierarchy too deep (cycle?)")
        self.budget.visit()
        node = self._item("nodes", ni)
        T = T @ self.node_matrix(node, ni)
        if "mesh" in node:
            out.append((node["mesh"], T, str(node.get("name", ""))))
        for child in node.get("children") or []:
            self.walk(child, T, depth + 1, out)


def load_gltf(path: str | Path) -> Mesh:
    path = Path(path)
    data = read_mesh_file(path)
    if data[:4] == _GLB_MAGIC:
        doc, binary = _read_glb(path, data)
    else:
        doc, binary = _json(path, data), None
    version = str((doc.get("asset") or {}).get("version", ""))
    if not version.startswith("2"):
        raise MeshLoadError(path, f"unsupported glTF version {version!r} (need 2.x)")
    g = _Gltf(path, doc, binary)
    instances: list = []
    scenes = doc.get("scenes") or []
    if scenes:
        si = doc.get("scene", 0)
        scene = g._item("scenes", si)
        for ni in scene.get("nodes") or []:
            g.walk(ni, np.eye(4), 0, instances)
    if not instances:
        instances = [(mi, np.eye(4), "") for mi in range(len(doc.get("meshes") or []))]
    parts = []
    for mi, T, node_name in instances:
        V, F = g.mesh(mi)
        if len(F) == 0:
            continue
        g.budget.place(len(F))
        name = str(g._item("meshes", mi).get("name") or f"mesh_{mi}")
        parts.append((name, node_name, V, F, T))
    if not parts:
        raise MeshLoadError(path, "glTF file has no triangle meshes")
    names = unique_names([p[0] for p in parts])
    return Mesh(str(path), [make_submesh(path, n, V, F, (node,), T)
                            for n, (_, node, V, F, T) in zip(names, parts)])
