"""Hostile mesh files: each must fail fast with a MeshLoadError naming the file, never hang
or ask for memory the file does not back.  Every case here hung or allocated gigabytes
before the loaders checked it."""

import base64
import json
import os
import signal
import struct
import sys

import numpy as np
import pytest

from hang_guard import deadline as _deadline
from snapframe.plugins.meshio import MeshLoadError, load_mesh
from snapframe.plugins.meshio import base as meshio_base
from snapframe.plugins.meshio.base import fan_triangulate

needs_alarm = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")


class Hung(Exception):
    pass



def deadline(seconds: float):
    return _deadline(seconds, Hung)


def expect_error(path, *fragments, seconds=5.0):
    with deadline(seconds), pytest.raises(MeshLoadError) as info:
        load_mesh(path)
    msg = str(info.value)
    assert msg.startswith(str(path)), msg
    for frag in fragments:
        assert frag in msg, msg
    return msg


TET_V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], "<f4")
TET_F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def test_fan_triangulate_rejects_negative_sizes():
    # [big, -(big - 3)] sums to the 3 indices present: the sum check alone passed and
    # the fan then allocated `big` triangles.
    with pytest.raises(ValueError, match="negative polygon size"):
        fan_triangulate(np.arange(3), np.array([4_000_000, -3_999_997]))


@needs_alarm
def test_collada_negative_vcount(tmp_path):
    f = tmp_path / "negvcount.dae"
    f.write_text("""<?xml version="1.0"?><COLLADA version="1.4.1">
<asset><up_axis>Z_UP</up_axis></asset>
<library_geometries><geometry id="g"><mesh>
<source id="p"><float_array id="pa" count="9">0 0 0 1 0 0 0 1 0</float_array>
<technique_common><accessor source="#pa" count="3" stride="3"><param name="X" type="float"/>
<param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
<vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
<polylist count="2"><input semantic="VERTEX" source="#v" offset="0"/>
<vcount>4000000 -3999997</vcount><p>0 1 2</p></polylist>
</mesh></geometry></library_geometries></COLLADA>""")
    expect_error(f, "negative polygon size")


@needs_alarm
def test_binary_ply_negative_list_size(tmp_path):
    """A signed list count of -1 with 4-byte items moved the read position back by as much
    as the count moved it forward: the record walk never advanced (10^12 records)."""
    f = tmp_path / "negcount.ply"
    header = (b"ply\nformat binary_little_endian 1.0\nelement vertex 4\nproperty float x\n"
              b"property float y\nproperty float z\nelement face 1000000000000\n"
              b"property list int int vertex_indices\nend_header\n")
    records = struct.pack("<iiii", 3, 0, 1, 2) + struct.pack("<iiii", -1, 0, 1, 2)
    f.write_bytes(header + TET_V.tobytes() + records)
    expect_error(f, "negative list size")
    # Negative in the very first record (the fast path) too.
    f.write_bytes(header + TET_V.tobytes() + struct.pack("<iiii", -1, 0, 1, 2))
    expect_error(f, "negative list size")


def _gltf(nodes, accessor0=None, indexed=True):
    blob = TET_V.tobytes() + TET_F.astype("<u2").tobytes()
    prim = {"attributes": {"POSITION": 0}}
    if indexed:
        prim["indices"] = 1
    return {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes,
            "meshes": [{"primitives": [prim]}],
            "buffers": [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64,"
                         + base64.b64encode(blob).decode()}],
            "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48},
                            {"buffer": 0, "byteOffset": 48, "byteLength": 24}],
            "accessors": [accessor0 or {"bufferView": 0, "componentType": 5126, "count": 4,
                                        "type": "VEC3"},
                          {"bufferView": 1, "componentType": 5123, "count": 12,
                           "type": "SCALAR"}]}


@needs_alarm
def test_gltf_shared_node_dag_is_bounded(tmp_path, monkeypatch):
    """60 levels of a node whose two children are the same node: 2^60 placements from a
    2 kB file.  The depth limit alone does not stop it (it is not a cycle)."""
    monkeypatch.setattr(meshio_base, "MAX_INSTANCES", 2000, raising=False)
    nodes = [{"children": [i + 1, i + 1]} for i in range(60)] + [{"mesh": 0}]
    f = tmp_path / "dag.gltf"
    f.write_text(json.dumps(_gltf(nodes)))
    expect_error(f, "more than 2000 times")
    # A small shared subtree is still fine: 2^4 placements of the tetrahedron.
    nodes = [{"children": [i + 1, i + 1]} for i in range(4)] + [{"mesh": 0}]
    f.write_text(json.dumps(_gltf(nodes)))
    with deadline(5):
        assert len(load_mesh(f).submeshes) == 16


@needs_alarm
def test_collada_shared_instance_node_dag_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(meshio_base, "MAX_INSTANCES", 2000, raising=False)
    lib = "".join(f'<node id="n{i}"><instance_node url="#n{i + 1}"/>'
                  f'<instance_node url="#n{i + 1}"/></node>' for i in range(60))
    f = tmp_path / "dag.dae"
    f.write_text(f"""<?xml version="1.0"?><COLLADA version="1.4.1">
<asset><up_axis>Z_UP</up_axis></asset>
<library_geometries><geometry id="g"><mesh>
<source id="p"><float_array id="pa" count="12">0 0 0 1 0 0 0 1 0 0 0 1</float_array>
<technique_common><accessor source="#pa" count="4" stride="3"><param name="X" type="float"/>
<param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
<vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
<triangles count="4"><input semantic="VERTEX" source="#v" offset="0"/>
<p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles></mesh></geometry></library_geometries>
<library_nodes>{lib}<node id="n60"><instance_geometry url="#g"/></node></library_nodes>
<library_visual_scenes><visual_scene id="s"><node id="root"><instance_node url="#n0"/></node>
</visual_scene></library_visual_scenes><scene><instance_visual_scene url="#s"/></scene>
</COLLADA>""")
    expect_error(f, "more than 2000 times")


@needs_alarm
def test_instanced_triangle_budget(tmp_path, monkeypatch):
    """Few node visits can still place one big geometry very many times."""
    monkeypatch.setattr(meshio_base, "MAX_INSTANCED_TRIANGLES", 40, raising=False)
    nodes = [{"children": list(range(1, 12))}] + [{"mesh": 0} for _ in range(11)]
    f = tmp_path / "many.gltf"
    f.write_text(json.dumps(_gltf(nodes)))
    expect_error(f, "more than 40 triangles")


@needs_alarm
def test_gltf_accessor_without_buffer_view_has_a_capped_count(tmp_path):
    """Without a bufferView an accessor is zeros: its count is backed by no bytes, so a
    600-byte file could ask for tens of gigabytes (MemoryError, or the OOM killer)."""
    acc = {"componentType": 5126, "count": 3_000_000_000, "type": "VEC3"}
    f = tmp_path / "zeros.gltf"
    f.write_text(json.dumps(_gltf([{"mesh": 0}], acc, indexed=False)))
    expect_error(f, "no bufferView", "3000000000")


@needs_alarm
@pytest.mark.skipif(sys.platform == "win32" or not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_not_read(tmp_path):
    """A FIFO (or a device such as /dev/zero) named like a mesh: opening it blocked forever."""
    f = tmp_path / "pipe.stl"
    os.mkfifo(f)
    expect_error(f, "not a regular file", seconds=3.0)


def test_node_transform_overflowing_the_vertices(tmp_path):
    """Vertices were checked for NaN/inf before the node transform only: a finite but huge
    transform made them infinite and the loader returned them."""
    doc = _gltf([{"mesh": 0, "scale": [1e308, 1e308, 1e308], "translation": [1e308, 0, 0]}])
    f = tmp_path / "huge.gltf"
    f.write_text(json.dumps(doc))
    expect_error(f, "overflows")
