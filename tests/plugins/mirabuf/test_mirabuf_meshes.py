"""Meshes a reader holds in memory (``params["data"]``, a core ``MeshData``): the editor
draws them, and SDFormat saves write them as STL files next to the output.

Expected triangles come straight from the decoded protobuf (``assembly_pb2``), not from
the reader's objects; the STL layout is checked against the format's definition
(80-byte header, uint32 count, 50 bytes per triangle).
"""

from __future__ import annotations

import copy
import gzip
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Collision, Geometry, Visual
from snapframe.core.model.nodes import MeshData
from snapframe.plugins.mirabuf.generated import assembly_pb2
from snapframe.plugins.sdformat.writer import stl_bytes

DATA = Path(__file__).resolve().parents[2] / "data" / "mirabuf"


def _assembly(name: str):
    raw = (DATA / name).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return assembly_pb2.Assembly.FromString(raw)


def _proto_mesh(assembly, def_key: str, body: int) -> tuple[np.ndarray, np.ndarray]:
    """(vertices cm, faces) of a part definition's body as the file stores them."""
    m = assembly.data.parts.part_definitions[def_key].bodies[body].triangle_mesh.mesh
    return (np.asarray(m.verts, dtype=float).reshape(-1, 3),
            np.asarray(m.indices, dtype=np.int64).reshape(-1, 3))


def _parts(doc):
    return [n for n in doc.nodes() if isinstance(n, (Visual, Collision))]


# -- MeshData in the core ------------------------------------------------------------------
def test_mesh_data_is_immutable_shared_and_compares_by_identity():
    data = MeshData([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], "tri")
    assert data.vertices.dtype == np.float64 and data.vertices.shape == (3, 3)
    assert data.faces.shape == (1, 3)
    with pytest.raises(ValueError):
        data.vertices[0, 0] = 5.0
    with pytest.raises(AttributeError):
        data.name = "other"
    params = {"uri": "x", "scale": (1.0, 1.0, 1.0), "data": data}
    # copies of params keep the one object (instanced, not copied)
    assert copy.deepcopy(params)["data"] is data and dict(params)["data"] is data
    assert copy.copy(data) is data
    # params compare without touching the arrays
    assert params == dict(params)
    other = MeshData(data.vertices, data.faces, "tri")
    assert {**params, "data": other} != params
    assert len({data, other, data}) == 2
    assert data.to_json() == {"mesh_data": "tri", "vertices": 3, "faces": 1}


def test_the_reader_shares_one_mesh_data_per_part_body():
    doc = load(DATA / "HingeTestFission_v1.mira", LoadContext(use_environment=False))
    assembly = _assembly("HingeTestFission_v1.mira")
    by_body: dict[tuple, set[int]] = {}
    for part in _parts(doc):
        info = part.extras["mirabuf"]
        data = part.geometry.params["data"]
        assert isinstance(data, MeshData)
        by_body.setdefault((info["part_definition"], info["body"]), set()).add(id(data))
        V, F = _proto_mesh(assembly, info["part_definition"], info["body"])
        assert np.array_equal(data.vertices, V.astype(np.float32).astype(float))
        assert np.array_equal(data.faces, F)
    assert by_body and all(len(ids) == 1 for ids in by_body.values())
    # the three swings are instances of one definition: one object for six parts
    assert max(sum(1 for p in _parts(doc) if id(p.geometry.params["data"]) in ids)
               for ids in by_body.values()) == 6


# -- the viewport --------------------------------------------------------------------------
def test_the_editor_draws_the_parts_triangles_where_the_pose_table_puts_them():
    from snapframe.editor.viewport.canvas import Canvas
    from snapframe.editor.viewport.scene import SceneMirror
    from snapframe.editor.viewport.vtkdata import points_of
    doc = load(DATA / "HingeTestFission_v1.mira", LoadContext(use_environment=False))
    assert not doc.diagnostics.has_errors()
    assembly = _assembly("HingeTestFission_v1.mira")
    visuals = [n for n in doc.nodes() if isinstance(n, Visual)]
    canvas = Canvas.offscreen((64, 64))
    try:
        mirror = SceneMirror(canvas, doc)
        assert len(mirror.visuals.index) == len(visuals) == 4
        drawn_points = points_of(mirror.visuals.mesh)
        for key, i in mirror.visuals.index.items():
            node = doc.element(key)
            info = node.extras["mirabuf"]
            V, _ = _proto_mesh(assembly, info["part_definition"], info["body"])
            local = V.astype(np.float32).astype(float) * 0.01      # cm -> m
            inst = mirror.visuals.instances[i]
            drawn = drawn_points[inst.point_start: inst.point_start + len(local)]
            X = doc.live.poses.pose(key)
            expected = local @ X[:3, :3].T + X[:3, 3]
            assert np.allclose(drawn, expected, atol=1e-9), key
    finally:
        canvas.close()


def test_shape_mesh_caches_per_mesh_data_object():
    from snapframe.editor.viewport.shapes import shape_mesh
    data = MeshData([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
                    [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], "tet")
    params = {"uri": "mem://tet", "scale": (2.0, 2.0, 2.0), "resolved_path": None,
              "data": data}
    a = shape_mesh(Geometry("mesh", params))
    b = shape_mesh(Geometry("mesh", dict(params)))
    assert a is not None and a is b
    assert np.allclose(a.points, data.vertices * 2.0)
    assert not a.two_sided            # a closed solid: wound for culling like a file's
    assert shape_mesh(Geometry("mesh", {**params, "data": None})) is None


# -- STL bytes -----------------------------------------------------------------------------
def test_stl_bytes_follow_the_binary_stl_layout():
    V = np.array([[0, 0, 0], [2, 0, 0], [0, 3, 0], [0, 0, 4]], dtype=float)
    F = np.array([[0, 1, 2], [0, 3, 1], [1, 1, 2]])          # the last is degenerate
    raw = stl_bytes(V, F, b"hello")
    assert len(raw) == 84 + 50 * 3
    assert raw[:5] == b"hello" and len(raw[:80]) == 80
    assert struct.unpack("<I", raw[80:84]) == (3,)
    for k, (i, j, m) in enumerate(F):
        rec = raw[84 + 50 * k: 84 + 50 * (k + 1)]
        values = struct.unpack("<12fH", rec)
        normal, verts, attribute = values[:3], values[3:12], values[12]
        assert attribute == 0
        assert np.allclose(np.reshape(verts, (3, 3)), V[[i, j, m]])
        e = np.cross(V[j] - V[i], V[m] - V[i])
        expected = e / np.linalg.norm(e) if np.linalg.norm(e) else np.zeros(3)
        assert np.allclose(normal, expected)
    assert np.allclose(struct.unpack("<3f", raw[84:96]), (0, 0, 1))
    assert np.allclose(struct.unpack("<3f", raw[134:146]), (0, 1, 0))   # z × x = +y


# -- snapframe convert ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def converted(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("dozer") / "dozer.sdf"
    done = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "convert",
                           str(DATA / "Dozer_v2.mira"), str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out, done


def test_convert_writes_each_mesh_once_as_stl_and_says_so(converted):
    from snapframe.plugins.meshio import load_collision_mesh
    out, done = converted
    folder = out.parent / "dozer_meshes"
    files = sorted(folder.glob("*.stl"))
    assembly = _assembly("Dozer_v2.mira")
    bodies = {(k, i) for k, d in assembly.data.parts.part_definitions.items()
              for i, b in enumerate(d.bodies)
              if b.triangle_mesh.WhichOneof("mesh_type") == "mesh"
              and len(b.triangle_mesh.mesh.indices)}
    used = {(i.part_definition_reference, b)
            for i in assembly.data.parts.part_instances.values()
            for b in range(len(assembly.data.parts.part_definitions[
                i.part_definition_reference].bodies))} & bodies
    assert len(files) == len(used) > 1
    for f in files:
        assert f.name in done.stderr                 # the output names every file
    # every file holds one body's triangles (float32), in cm (the <scale> makes metres)
    originals = [_proto_mesh(assembly, *key) for key in used]
    for f in files:
        raw = f.read_bytes()
        count = struct.unpack("<I", raw[80:84])[0]
        assert len(raw) == 84 + 50 * count
        mesh = load_collision_mesh(f)
        soup = np.vstack([np.asarray(s.vertices, float)[np.asarray(s.faces)]
                          for s in mesh.submeshes])
        assert len(soup) == count
        matches = [V[F] for V, F in originals if len(F) == count
                   and np.allclose(V[F], soup, atol=1e-5 * max(1.0, np.abs(V).max()))]
        assert matches, f.name


def test_the_converted_file_refers_to_the_stl_files_relatively_and_loads(converted):
    from lxml import etree
    out, _ = converted
    tree = etree.parse(str(out))
    uris = [u.text for u in tree.iter("uri") if u.getparent().tag == "mesh"]
    assert uris and all(u.startswith("dozer_meshes/") and u.endswith(".stl") for u in uris)
    assert all((out.parent / u).is_file() for u in uris)
    for mesh in tree.iter("mesh"):
        assert [float(v) for v in mesh.findtext("scale").split()] == [0.01] * 3
    assert "mirabuf" not in out.read_text()
    doc = load(out, LoadContext(use_environment=False))
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    assert not [d for d in doc.diagnostics if d.code.name.startswith("URI")]
    meshes = [p.geometry for p in _parts(doc) if p.geometry.shape == "mesh"]
    assert meshes and all(g.params.get("resolved_path") and
                          Path(g.params["resolved_path"]).is_file() for g in meshes)
    # same triangle count per part as the .mira read
    mira = load(DATA / "Dozer_v2.mira", LoadContext(use_environment=False))
    assert sorted(len(p.geometry.params["data"].faces) for p in _parts(mira)) == \
        sorted(_stl_count(Path(g.params["resolved_path"])) for g in meshes)


def _stl_count(path: Path) -> int:
    return struct.unpack("<I", path.read_bytes()[80:84])[0]


def test_an_unwritable_mesh_folder_is_a_warning_not_silence(tmp_path):
    out = tmp_path / "cube.sdf"
    (tmp_path / "cube_meshes").write_text("a file where the folder would go")
    doc = load(DATA / "TestCube_v1.mira", LoadContext(use_environment=False))
    warnings = doc.save(out, "sdformat", flatten=False)
    assert out.is_file()
    assert any("could not be written" in d.message for d in warnings), \
        [d.format() for d in warnings]


@pytest.mark.oracle
def test_libsdformat_loads_the_converted_file(converted):
    from tests.plugins.composite_assemblies import oracle_binary, run_oracle
    binary, why = oracle_binary()
    if binary is None:
        pytest.skip(why)
    out, _ = converted
    result = run_oracle(binary, out)
    assert result["errors"] == [], result["errors"]
    assert result["frames"]


def test_urdf_saves_write_the_meshes_too(tmp_path):
    from lxml import etree
    out = tmp_path / "dozer.urdf"
    doc = load(DATA / "Dozer_v2.mira", LoadContext(use_environment=False))
    warnings = doc.save(out, "urdf")
    assert any("STL file" in d.message for d in warnings)
    names = [m.get("filename") for m in etree.parse(str(out)).iter("mesh")]
    assert names and all(n.startswith("dozer_meshes/") and (tmp_path / n).is_file()
                         for n in names)
    back = load(out, LoadContext(use_environment=False))
    assert not back.diagnostics.has_errors(), [d.format() for d in back.diagnostics]
    assert all(p.geometry.params.get("resolved_path") for p in _parts(back)
               if p.geometry.shape == "mesh")
