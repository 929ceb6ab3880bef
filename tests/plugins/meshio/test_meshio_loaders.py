"""Every loader reads the same solid from differently encoded files (tests/data/meshes,
written by make_meshes.py) and gives the same mass properties; malformed files give a
MeshLoadError naming the file."""

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.inertia.mesh import analyze_mesh
from snapframe.plugins.meshio import SUPPORTED_EXTENSIONS, Mesh, MeshLoadError, load_mesh
from snapframe.plugins.meshio.base import fan_triangulate

DATA = Path(__file__).resolve().parents[2] / "data" / "meshes"

# The wedge, from make_meshes.py's docstring: volume 0.003, centroid below.
WEDGE_VOLUME = 0.003
WEDGE_CENTROID = [0.125, 0.2 / 3 + 0.01, 0.05]

DOUBLE = ["wedge.obj", "wedge_ascii.ply", "wedge_le.ply", "wedge_ascii.stl", "wedge.dae"]
SINGLE = ["wedge.stl", "wedge_be.ply", "wedge.gltf", "wedge_ext.gltf", "wedge.glb"]   # float32


def integrals(path):
    mesh = load_mesh(path)
    merged = mesh.merged()
    a = analyze_mesh(merged.vertices, merged.faces)
    assert a.closure.closed and not a.inverted and a.integrals.method == "exact"
    return a.integrals


@pytest.fixture(scope="module")
def reference():
    return integrals(DATA / "wedge_ascii.ply")


def test_reference_is_the_documented_wedge(reference):
    assert reference.volume == pytest.approx(WEDGE_VOLUME, rel=1e-14)
    assert reference.centroid == pytest.approx(WEDGE_CENTROID, abs=1e-15)
    assert abs(reference.covariance[0, 1]) > 1e-6          # products of inertia present


@pytest.mark.parametrize("name", DOUBLE + SINGLE)
def test_same_mass_properties_in_every_format(name, reference):
    I = integrals(DATA / name)
    # float64 files reproduce the reference to rounding; float32 files to ~1e-7.
    tol = 1e-12 if name in DOUBLE else 3e-7
    assert I.volume == pytest.approx(reference.volume, rel=tol)
    assert I.centroid == pytest.approx(reference.centroid, abs=tol * 0.3)
    scale = np.abs(reference.covariance).max()
    assert I.covariance == pytest.approx(reference.covariance, abs=tol * scale)


def test_every_extension_is_covered():
    covered = {Path(n).suffix for n in DOUBLE + SINGLE}
    assert covered == set(SUPPORTED_EXTENSIONS)


def test_uppercase_extension(tmp_path):
    f = tmp_path / "WEDGE.STL"
    f.write_bytes((DATA / "wedge.stl").read_bytes())
    assert load_mesh(f).triangle_count == 8


def test_binary_stl_with_solid_header_and_welding():
    m = load_mesh(DATA / "wedge.stl")
    (s,) = m.submeshes
    assert s.vertices.shape == (6, 3) and s.faces.shape == (8, 3)     # welded soup


def test_obj_groups_negative_indices_and_polygons():
    m = load_mesh(DATA / "wedge.obj")
    assert m.names == ["caps", "sides"]
    caps, sides = m.submeshes
    assert caps.faces.shape == (2, 3) and sides.faces.shape == (6, 3)   # 3 quads -> 6
    assert m.submesh("sides") is sides and m.submesh("nope") is None
    assert set(map(tuple, np.round(caps.vertices[caps.faces[1]], 12))) == \
        {(0.05, 0.02, 0.1), (0.35, 0.02, 0.1), (0.05, 0.22, 0.1)}   # "f -3 -2 -1" = top


def test_collada_units_up_axis_and_node_transform():
    m = load_mesh(DATA / "wedge.dae")
    (s,) = m.submeshes
    assert s.name == "wedge" and "wedge-mesh" in s.aliases and "wedge_node" in s.aliases
    assert s.vertices.max(axis=0) == pytest.approx([0.35, 0.22, 0.1], abs=1e-12)
    raw = load_mesh(DATA / "wedge.dae", apply_up_axis=False).submeshes[0]
    assert not np.allclose(raw.vertices, s.vertices)                  # Y_UP was applied


def test_gltf_node_names_are_aliases():
    (s,) = load_mesh(DATA / "wedge.glb").submeshes
    assert s.name == "wedge" and s.aliases == ("wedge_node",)


def test_fan_triangulate():
    tris = fan_triangulate(np.array([0, 1, 2, 3, 4, 5, 6, 7, 8]), np.array([4, 3, 2]))
    assert tris.tolist() == [[0, 1, 2], [0, 2, 3], [4, 5, 6]]
    with pytest.raises(ValueError):
        fan_triangulate(np.arange(4), np.array([3]))


def test_mirroring_node_transform_keeps_outward_winding(tmp_path):
    doc = json.loads((DATA / "wedge.gltf").read_text())
    doc["nodes"][1]["scale"] = [-1.0, 1.0, 1.0]
    f = tmp_path / "mirrored.gltf"
    f.write_text(json.dumps(doc))
    merged = load_mesh(f).merged()
    a = analyze_mesh(merged.vertices, merged.faces)
    assert not a.inverted and a.integrals.volume == pytest.approx(WEDGE_VOLUME, rel=1e-6)


# -- malformed files ------------------------------------------------------------------
def expect_error(path, *fragments):
    with pytest.raises(MeshLoadError) as info:
        load_mesh(path)
    msg = str(info.value)
    assert msg.startswith(str(path)), msg
    for frag in fragments:
        assert frag in msg, msg
    return msg


def test_missing_file_and_unknown_format(tmp_path):
    expect_error(tmp_path / "nope.stl", "cannot read file")
    f = tmp_path / "model.fbx"
    f.write_text("x")
    expect_error(f, "unsupported mesh format")


def test_truncated_binary_stl(tmp_path):
    f = tmp_path / "cut.stl"
    f.write_bytes((DATA / "wedge.stl").read_bytes()[:-30])
    expect_error(f, "truncated")


def test_bad_ascii_stl(tmp_path):
    f = tmp_path / "bad.stl"
    f.write_text("solid x\n facet normal 0 0 1\n outer loop\n vertex 0 0 0\n vertex 1 0 0\n"
                 " endloop\n endfacet\nendsolid x\n")
    expect_error(f, "multiple of 3")
    f.write_text("solid x\n vertex 0 0 zero\n vertex 1 0 0\n vertex 0 1 0\nendsolid\n")
    expect_error(f, "bad number")


def test_bad_obj(tmp_path):
    f = tmp_path / "bad.obj"
    f.write_text("v 0 0 0\nv 1 0 0\nf 1 2 3\n")
    expect_error(f, "line 3", "only 2 vertices")
    f.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n")
    expect_error(f, "index 0")
    f.write_text("v 0 0 x\n")
    expect_error(f, "line 1")
    f.write_text("v 0 0 0\n")
    expect_error(f, "no faces")


def test_bad_ply(tmp_path):
    f = tmp_path / "bad.ply"
    f.write_bytes(b"ply\nformat binary_little_endian 1.0\nelement vertex 1000000\n"
                  b"property float x\nproperty float y\nproperty float z\nelement face 1\n"
                  b"property list uchar int vertex_indices\nend_header\n" + b"\0" * 24)
    expect_error(f, "truncated")                      # huge count, tiny file: no allocation
    f.write_bytes(b"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                  b"property float y\nproperty float z\nelement face 1\n"
                  b"property list uchar int vertex_indices\nend_header\n"
                  b"0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n")
    expect_error(f, "out of range")
    f.write_bytes(b"ply\nformat ascii 2.0\nbogus line\nend_header\n")
    expect_error(f, "unexpected")
    f.write_bytes(b"solid not a ply")
    expect_error(f, "not a PLY file")


def test_bad_collada(tmp_path):
    f = tmp_path / "bad.dae"
    f.write_text("<COLLADA><library_geometries>")
    expect_error(f, "invalid XML")
    f.write_text("<notcollada/>")
    expect_error(f, "not <COLLADA>")
    text = (DATA / "wedge.dae").read_text().replace("<vcount>3 3 4 4 4</vcount>",
                                                    "<vcount>3 3 4 4 9</vcount>")
    f.write_text(text)
    expect_error(f, "polygon sizes")
    text = (DATA / "wedge.dae").read_text().replace('count="6" stride="3"', 'count="60" stride="3"')
    f.write_text(text)
    expect_error(f, "past the")


def test_collada_entities_are_not_expanded(tmp_path):
    """A billion-laughs style document: entities stay unresolved, no blow-up, no hang."""
    lol = "".join(f'<!ENTITY l{i} "&l{i - 1};&l{i - 1};&l{i - 1};&l{i - 1};&l{i - 1};">'
                  for i in range(1, 12))
    f = tmp_path / "lol.dae"
    f.write_text(f'<?xml version="1.0"?><!DOCTYPE COLLADA [<!ENTITY l0 "ha">{lol}]>'
                 '<COLLADA><asset><up_axis>&l11;</up_axis></asset></COLLADA>')
    with pytest.raises(MeshLoadError):
        load_mesh(f)
    g = tmp_path / "ext.dae"
    g.write_text('<?xml version="1.0"?><!DOCTYPE COLLADA [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                 '<COLLADA><asset><up_axis>&x;</up_axis></asset></COLLADA>')
    msg = expect_error(g)
    assert "root:" not in msg


def test_bad_gltf(tmp_path):
    doc = json.loads((DATA / "wedge.gltf").read_text())
    f = tmp_path / "bad.gltf"
    bad = json.loads(json.dumps(doc))
    bad["accessors"][0]["count"] = 1000
    f.write_text(json.dumps(bad))
    expect_error(f, "reads past the end")
    bad = json.loads(json.dumps(doc))
    bad["buffers"][0]["uri"] = "missing.bin"
    f.write_text(json.dumps(bad))
    expect_error(f, "cannot read", "missing.bin")
    bad["buffers"][0]["uri"] = "http://example.com/x.bin"
    f.write_text(json.dumps(bad))
    expect_error(f, "remote uri")
    bad = json.loads(json.dumps(doc))
    bad["nodes"][1]["children"] = [0]                  # a cycle
    f.write_text(json.dumps(bad))
    expect_error(f, "too deep")
    f.write_text("{not json")
    expect_error(f, "invalid glTF JSON")
    g = tmp_path / "bad.glb"
    g.write_bytes((DATA / "wedge.glb").read_bytes()[:40])
    expect_error(g)


def test_gltf_without_indices_and_with_strips(tmp_path):
    """Non-indexed triangle list and a triangle strip of the same quad pair."""
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], "<f4")
    blob = pts.tobytes()
    doc = {"asset": {"version": "2.0"},
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "mode": 5}]}],
           "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"}],
           "bufferViews": [{"buffer": 0, "byteLength": len(blob)}],
           "buffers": [{"byteLength": len(blob),
                        "uri": "data:application/octet-stream;base64,"
                               + base64.b64encode(blob).decode()}]}
    f = tmp_path / "strip.gltf"
    f.write_text(json.dumps(doc))
    (s,) = load_mesh(f).submeshes
    assert s.name == "mesh_0" and s.faces.tolist() == [[0, 1, 2], [2, 1, 3]]
    n0 = np.cross(*(s.vertices[s.faces[0, 1:]] - s.vertices[s.faces[0, 0]]))
    n1 = np.cross(*(s.vertices[s.faces[1, 1:]] - s.vertices[s.faces[1, 0]]))
    assert n0 @ n1 > 0                                  # consistent winding


def test_mesh_merged_offsets_indices():
    m = load_mesh(DATA / "wedge.obj")
    merged = m.merged()
    assert len(merged.vertices) == sum(len(s.vertices) for s in m.submeshes)
    assert merged.faces.max() == len(merged.vertices) - 1
    assert isinstance(m, Mesh)
