"""Every file the mesh loaders read (the mesh and the files it refers to, such as glTF
buffers) is opened through ``snapframe.core.fileio.read_regular_file``: FIFOs (which
block for ever), devices (``/dev/zero`` never ends) and oversized files are refused at
once with a MeshLoadError, which the inertia engine reports as FILE_READ."""

from __future__ import annotations

import json
import os
import signal
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from hang_guard import deadline
from snapframe.core.diagnostics import Code, Diagnostics
from snapframe.core.inertia.document_report import link_inertials
from snapframe.core.loading import LoadContext, load
from snapframe.plugins.meshio import MeshLoadError, load_mesh

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32" or not hasattr(os, "mkfifo"), reason="POSIX"),
    pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM"),
]

TET_V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], "<f4")
TET_F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], "<u2")
BLOB = TET_V.tobytes() + TET_F.tobytes()




def refused(path: Path, *fragments: str) -> str:
    with deadline(), pytest.raises(MeshLoadError) as info:
        load_mesh(path)
    message = str(info.value)
    assert message.startswith(str(path)), message
    for fragment in fragments:
        assert fragment in message, message
    return message


def gltf_with_buffer(uri: str) -> dict:
    return {"asset": {"version": "2.0"},
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
            "buffers": [{"uri": uri, "byteLength": len(BLOB)}],
            "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48},
                            {"buffer": 0, "byteOffset": 48, "byteLength": 24}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"},
                          {"bufferView": 1, "componentType": 5123, "count": 12,
                           "type": "SCALAR"}]}


@pytest.mark.parametrize("suffix", [".stl", ".obj", ".ply", ".dae", ".gltf", ".glb"])
def test_a_fifo_named_like_a_mesh_is_refused_by_every_loader(tmp_path, suffix):
    fifo = tmp_path / f"pipe{suffix}"
    os.mkfifo(fifo)
    refused(fifo, "not a regular file (a FIFO)")


@pytest.mark.parametrize("suffix", [".stl", ".dae", ".gltf"])
def test_a_link_to_dev_zero_named_like_a_mesh_is_refused(tmp_path, suffix):
    link = tmp_path / f"zero{suffix}"
    link.symlink_to("/dev/zero")
    refused(link, "not a regular file (a device or special file)")


def test_a_gltf_buffer_that_is_a_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe.bin")
    mesh = tmp_path / "m.gltf"
    mesh.write_text(json.dumps(gltf_with_buffer("pipe.bin")))
    refused(mesh, "buffers[0]", "pipe.bin", "not a regular file (a FIFO)")


@pytest.mark.parametrize("uri", ["/dev/zero", "../../../../../../../../dev/zero", "%2Fdev%2Fzero"])
def test_a_gltf_buffer_naming_dev_zero_is_refused(tmp_path, uri):
    mesh = tmp_path / "m.gltf"
    mesh.write_text(json.dumps(gltf_with_buffer(uri)))
    refused(mesh, "buffers[0]", "not a regular file (a device or special file)")


def test_a_gltf_buffer_in_a_regular_file_still_loads(tmp_path):
    (tmp_path / "tet.bin").write_bytes(BLOB)
    mesh = tmp_path / "m.gltf"
    mesh.write_text(json.dumps(gltf_with_buffer("tet.bin")))
    with deadline():
        assert load_mesh(mesh).triangle_count == 4


def test_a_file_larger_than_the_limit_is_refused_without_reading_it(tmp_path):
    big = tmp_path / "big.stl"
    with open(big, "wb") as fh:                 # sparse: no gigabyte is written
        fh.truncate((1 << 30) + 1)
    refused(big, "larger than the 1073741824 bytes a mesh file may have")


def test_a_missing_file_is_still_reported_as_such(tmp_path):
    refused(tmp_path / "nope.stl", "cannot read file", "No such file")


def _binary_stl() -> bytes:
    tris = TET_V[TET_F.astype(int)]
    body = b"".join(struct.pack("<3f", 0, 0, 0) + t.astype("<f4").tobytes() + b"\0\0"
                    for t in tris)
    return b"\0" * 80 + struct.pack("<I", len(tris)) + body


def test_inertia_reports_refused_meshes_as_file_read(tmp_path):
    os.mkfifo(tmp_path / "pipe.stl")
    os.mkfifo(tmp_path / "pipe.bin")
    (tmp_path / "zero.gltf").write_text(json.dumps(gltf_with_buffer("/dev/zero")))
    (tmp_path / "pipe.gltf").write_text(json.dumps(gltf_with_buffer("pipe.bin")))
    (tmp_path / "tet.stl").write_bytes(_binary_stl())
    uris = ["pipe.stl", "zero.gltf", "pipe.gltf", "tet.stl"]
    links = "".join(
        f'<link name="l{i}"><inertial auto="true"/><collision name="c"><density>1000</density>'
        f"<geometry><mesh><uri>{uri}</uri></mesh></geometry></collision></link>"
        for i, uri in enumerate(uris))
    sdf = tmp_path / "robot.sdf"
    sdf.write_text(f'<sdf version="1.11"><model name="m">{links}</model></sdf>')
    doc = load(sdf, LoadContext(use_environment=False))
    diagnostics = Diagnostics()
    with deadline(10.0):
        links_out = link_inertials(doc, diagnostics)
    errors = [d for d in diagnostics.errors if d.code == Code.FILE_READ]
    assert len(errors) == 3
    assert all(e.file == str(sdf) for e in errors)
    text = "\n".join(e.message for e in errors)
    assert "pipe.stl: not a regular file (a FIFO)" in text
    assert "zero.gltf: buffers[0]: '/dev/zero': not a regular file" in text
    assert "pipe.bin': not a regular file (a FIFO)" in text
    # The good mesh next to them is still computed: a unit right tetrahedron, 1000 kg/m^3,
    # has volume 1/6 m^3.
    assert links_out["m::l3"]["mass"] == pytest.approx(1000 / 6)
