"""Writes the small mesh files in this folder (run: python tests/data/meshes/make_meshes.py).

Every ``wedge*`` file holds the same solid, an oblique triangular prism in metres:

    bottom  A (0, 0, 0), B (0.3, 0, 0), C (0, 0.2, 0)
    top     bottom + (0.05, 0.02, 0.1)

volume 0.003 m^3, centroid (0.125, 0.2/3 + 0.01, 0.05), non-zero products of inertia.
Each file stores it differently (units, up axis, node transforms, quads, groups,
index widths, endianness) so that a correct loader must undo every encoding to get the
same mass properties.  The files are committed; this script documents how they were made.
"""

from __future__ import annotations

import base64
import json
import math
import struct
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

BOTTOM = np.array([[0.0, 0.0, 0.0], [0.3, 0.0, 0.0], [0.0, 0.2, 0.0]])
OFFSET = np.array([0.05, 0.02, 0.1])
WEDGE_V = np.vstack([BOTTOM, BOTTOM + OFFSET])           # A B C A' B' C'
# Outward polygons: bottom, top, three side quads.
WEDGE_POLYS = [(0, 2, 1), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)]


def wedge_triangles() -> tuple[np.ndarray, np.ndarray]:
    F = []
    for p in WEDGE_POLYS:
        F += [(p[0], p[k], p[k + 1]) for k in range(1, len(p) - 1)]
    return WEDGE_V.copy(), np.array(F)


def _fmt(v: float) -> str:
    return repr(float(v))


def write_stl() -> None:
    V, F = wedge_triangles()
    tris = V[F].astype("<f4")
    with open(HERE / "wedge.stl", "wb") as f:
        f.write(b"solid binary-with-solid-in-header".ljust(80, b" "))
        f.write(struct.pack("<I", len(F)))
        for t in tris:
            n = np.cross(t[1] - t[0], t[2] - t[0])
            n = n / np.linalg.norm(n)
            f.write(n.astype("<f4").tobytes() + t.tobytes() + b"\0\0")
    lines = ["solid wedge"]
    for t in V[F]:
        n = np.cross(t[1] - t[0], t[2] - t[0])
        n = n / np.linalg.norm(n)
        lines += [f"  facet normal {n[0]:.6e} {n[1]:.6e} {n[2]:.6e}", "    outer loop"]
        lines += [f"      vertex {_fmt(p[0])} {_fmt(p[1])} {_fmt(p[2])}" for p in t]
        lines += ["    endloop", "  endfacet"]
    lines.append("endsolid wedge")
    (HERE / "wedge_ascii.stl").write_text("\n".join(lines) + "\n")


def write_obj() -> None:
    lines = ["# wedge: two groups, quads, negative and slashed indices", "mtllib none.mtl"]
    lines += [f"v {_fmt(x)} {_fmt(y)} {_fmt(z)}" for x, y, z in WEDGE_V]
    lines += ["vt 0 0", "vn 0 0 1", "o caps", "usemtl grey",
              "f 1/1/1 3/1/1 2/1/1",                       # bottom
              "f -3//1 -2//1 -1//1",                        # top, relative indices
              "g sides", "s off",
              "f 1 2 5 4", "f 2/1 3/1 6/1 5/1", "f 3 1 4 6"]
    (HERE / "wedge.obj").write_text("\n".join(lines) + "\n")


def write_ply() -> None:
    head = ["ply", "format ascii 1.0", "comment wedge with quads", f"element vertex {len(WEDGE_V)}",
            "property float x", "property float y", "property float z",
            f"element face {len(WEDGE_POLYS)}", "property list uchar int vertex_indices",
            "end_header"]
    body = [f"{_fmt(x)} {_fmt(y)} {_fmt(z)}" for x, y, z in WEDGE_V]
    body += [" ".join(str(v) for v in (len(p), *p)) for p in WEDGE_POLYS]
    (HERE / "wedge_ascii.ply").write_text("\n".join(head + body) + "\n")

    # Little endian, double coordinates, mixed triangles and quads (per-record path).
    head = ["ply", "format binary_little_endian 1.0", f"element vertex {len(WEDGE_V)}",
            "property double x", "property double y", "property double z",
            f"element face {len(WEDGE_POLYS)}", "property list uchar uint vertex_indices",
            "end_header"]
    data = b"".join(struct.pack("<3d", *v) for v in WEDGE_V)
    data += b"".join(struct.pack(f"<B{len(p)}I", len(p), *p) for p in WEDGE_POLYS)
    (HERE / "wedge_le.ply").write_bytes(("\n".join(head) + "\n").encode() + data)

    # Big endian, float coordinates plus normals, triangles only (vectorised path),
    # and an extra element after the faces.
    V, F = wedge_triangles()
    head = ["ply", "format binary_big_endian 1.0", f"element vertex {len(V)}",
            "property float x", "property float y", "property float z",
            "property float nx", "property float ny", "property float nz",
            f"element face {len(F)}", "property uchar flags",
            "property list uchar int vertex_index", "element edge 1",
            "property int vertex1", "property int vertex2", "end_header"]
    data = b"".join(struct.pack(">6f", *v, 0.0, 0.0, 1.0) for v in V)
    data += b"".join(struct.pack(">BB3i", 7, 3, *f) for f in F)
    data += struct.pack(">2i", 0, 1)
    (HERE / "wedge_be.ply").write_bytes(("\n".join(head) + "\n").encode() + data)


def _rot_z(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])


def write_dae() -> None:
    """Centimetres, Y_UP, and a node that translates and rotates the stored geometry."""
    meter = 0.01
    R_up = np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])      # Y_UP -> Z_UP
    G = meter * R_up
    node_t = np.array([10.0, -4.0, 3.0])                             # in file units
    node_R = _rot_z(90.0)
    # final = G (node_R v + node_t)  =>  v = node_R^T (G^-1 final - node_t)
    stored = (node_R.T @ (np.linalg.inv(G) @ WEDGE_V.T - node_t[:, None])).T
    pos = " ".join(_fmt(c) for c in stored.ravel())
    counts = " ".join(str(len(p)) for p in WEDGE_POLYS)
    # Two inputs (VERTEX offset 0, NORMAL offset 1): p interleaves vertex and normal indices.
    p = " ".join(f"{v} 0" for poly in WEDGE_POLYS for v in poly)
    text = f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="centimeter" meter="{meter}"/><up_axis>Y_UP</up_axis></asset>
  <library_geometries>
    <geometry id="wedge-mesh" name="wedge">
      <mesh>
        <source id="wedge-pos">
          <float_array id="wedge-pos-array" count="{stored.size}">{pos}</float_array>
          <technique_common>
            <accessor source="#wedge-pos-array" count="{len(stored)}" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <source id="wedge-nrm">
          <float_array id="wedge-nrm-array" count="3">0 0 1</float_array>
          <technique_common>
            <accessor source="#wedge-nrm-array" count="1" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="wedge-vtx"><input semantic="POSITION" source="#wedge-pos"/></vertices>
        <polylist count="{len(WEDGE_POLYS)}">
          <input semantic="VERTEX" source="#wedge-vtx" offset="0"/>
          <input semantic="NORMAL" source="#wedge-nrm" offset="1"/>
          <vcount>{counts}</vcount>
          <p>{p}</p>
        </polylist>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="Scene" name="Scene">
      <node id="wedge-node" name="wedge_node">
        <translate>{' '.join(_fmt(v) for v in node_t)}</translate>
        <rotate>0 0 1 90</rotate>
        <instance_geometry url="#wedge-mesh"/>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>
"""
    (HERE / "wedge.dae").write_text(text)


def _gltf_doc(index_type: int, buffer_uri: str | None, blob_len: int, n_idx: int,
              stored: np.ndarray) -> dict:
    return {
        "asset": {"version": "2.0", "generator": "snapframe tests"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        # Parent translates, child rotates 90 deg about x: quaternion (x, y, z, w).
        "nodes": [{"name": "root", "translation": [0.1, -0.2, 0.3], "children": [1]},
                  {"name": "wedge_node", "mesh": 0,
                   "rotation": [math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4)]}],
        "meshes": [{"name": "wedge", "primitives": [{"attributes": {"POSITION": 0},
                                                      "indices": 1, "mode": 4}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": len(stored), "type": "VEC3",
             "min": stored.min(0).tolist(), "max": stored.max(0).tolist()},
            {"bufferView": 1, "componentType": index_type, "count": n_idx, "type": "SCALAR"},
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": stored.size * 4},
            {"buffer": 0, "byteOffset": stored.size * 4,
             "byteLength": n_idx * (2 if index_type == 5123 else 4)},
        ],
        "buffers": [({"uri": buffer_uri} if buffer_uri else {}) | {"byteLength": blob_len}],
    }


def write_gltf() -> None:
    V, F = wedge_triangles()
    # final = T_root R_x(90) v  =>  v = R_x(90)^T (final - t)
    R = np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])
    stored = ((R.T @ (V - np.array([0.1, -0.2, 0.3])).T).T).astype("<f4")
    for index_type, fmt in ((5123, "<u2"), (5125, "<u4")):
        idx = F.astype(fmt).ravel()
        blob = stored.tobytes() + idx.tobytes()
        blob += b"\0" * (-len(blob) % 4)
        if index_type == 5123:
            uri = "data:application/octet-stream;base64," + base64.b64encode(blob).decode()
            doc = _gltf_doc(index_type, uri, len(blob), len(idx), stored)
            (HERE / "wedge.gltf").write_text(json.dumps(doc, indent=1))
            doc = _gltf_doc(index_type, "wedge_ext.bin", len(blob), len(idx), stored)
            (HERE / "wedge_ext.gltf").write_text(json.dumps(doc, indent=1))
            (HERE / "wedge_ext.bin").write_bytes(blob)
        else:
            doc = _gltf_doc(index_type, None, len(blob), len(idx), stored)
            js = json.dumps(doc).encode()
            js += b" " * (-len(js) % 4)
            body = struct.pack("<II", len(js), 0x4E4F534A) + js + \
                struct.pack("<II", len(blob), 0x004E4942) + blob
            (HERE / "wedge.glb").write_bytes(struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body)


if __name__ == "__main__":
    write_stl()
    write_obj()
    write_ply()
    write_dae()
    write_gltf()
    for p in sorted(HERE.glob("wedge*")):
        print(f"{p.name:20s} {p.stat().st_size:6d} bytes")
