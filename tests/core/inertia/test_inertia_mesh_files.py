"""End to end: mesh files -> meshio loader -> mesh calculator -> link inertial.

The COLLADA cylinder reproduces gz-sim's ``test/integration/mesh_inertia_calculation.cc``
(r = 1 m, L = 2 m, rho = 1240: m 7791.1498, Ixx = Iyy 4544.837, Izz 3895.575 ideal;
compared with an absolute tolerance of 0.005 like gz's ``Matrix3::Equal``).  The file is
written here, with 4096 segments like gz's own ``cylinder.dae`` (16 380 triangles) and
with caps and side stored as separate vertex sets (unwelded, as exporters with hard
normals do).
"""

import struct

import numpy as np
import pytest

from inertia_meshgen import sphere_mesh
from snapframe.core.diagnostics import Code, Severity
from snapframe.core.inertia.link import compute_link_inertia
from snapframe.core.model.nodes import Collision, Geometry, Inertial, Link, PoseSpec
from snapframe.core.pose import Pose


@pytest.fixture(autouse=True)
def _default_loader(default_mesh_loader):
    yield


def write_cylinder_dae(path, n=4096, r=1.0, length=2.0, z0=-1.0):
    phi = 2 * np.pi * np.arange(n) / n
    ring = np.stack([r * np.cos(phi), r * np.sin(phi)], 1)
    bot = np.column_stack([ring, np.full(n, z0)])
    top = np.column_stack([ring, np.full(n, z0 + length)])
    # side: vertices 0..2n-1; bottom cap: 2n..3n-1; top cap: 3n..4n-1 (duplicates)
    V = np.vstack([bot, top, bot, top])
    i = np.arange(n)
    j = (i + 1) % n
    side = np.concatenate([np.stack([i, j, n + j], 1), np.stack([i, n + j, n + i], 1)])
    k = np.arange(1, n - 1)
    cap_b = np.stack([np.full(n - 2, 2 * n), 2 * n + k + 1, 2 * n + k], 1)
    cap_t = np.stack([np.full(n - 2, 3 * n), 3 * n + k, 3 * n + k + 1], 1)
    F = np.concatenate([side, cap_b, cap_t])
    pos = " ".join(f"{v:.17g}" for v in V.ravel())
    p = " ".join(str(v) for v in F.ravel())
    path.write_text(f"""<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
 <asset><unit meter="1"/><up_axis>Z_UP</up_axis></asset>
 <library_geometries><geometry id="cyl" name="Cylinder"><mesh>
  <source id="pos"><float_array id="pa" count="{V.size}">{pos}</float_array>
   <technique_common><accessor source="#pa" count="{len(V)}" stride="3">
    <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
   </accessor></technique_common></source>
  <vertices id="vtx"><input semantic="POSITION" source="#pos"/></vertices>
  <triangles count="{len(F)}"><input semantic="VERTEX" source="#vtx" offset="0"/><p>{p}</p></triangles>
 </mesh></geometry></library_geometries>
 <library_visual_scenes><visual_scene id="s"><node name="Cylinder">
  <instance_geometry url="#cyl"/></node></visual_scene></library_visual_scenes>
 <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
""")
    return len(F)


def mesh_link(path, density=1240.0, **geom):
    link = Link(name="cylinder_link", inertial=Inertial(auto=True))
    c = Collision(name="collision", density=density, pose=PoseSpec(Pose()),
                  geometry=Geometry("mesh", {"uri": path.name, "resolved_path": str(path),
                                             "scale": (1, 1, 1), **geom}))
    c.parent = link
    link.collisions.append(c)
    return link


def test_gz_sim_collada_cylinder(tmp_path):
    f = tmp_path / "cylinder.dae"
    assert write_cylinder_dae(f) == 16380
    r = compute_link_inertia(mesh_link(f))
    assert [d for d in r.diagnostics if d.severity >= Severity.WARNING] == []
    mp = r.mass_properties
    assert mp.mass == pytest.approx(7791.1498, abs=0.005)
    assert mp.ixx == pytest.approx(4544.837, abs=0.005)
    assert mp.iyy == pytest.approx(4544.837, abs=0.005)
    assert mp.izz == pytest.approx(3895.575, abs=0.005)
    assert np.abs([mp.ixy, mp.ixz, mp.iyz]).max() < 1e-6
    assert mp.com == pytest.approx([0, 0, 0], abs=1e-9)


def test_gz_sim_collada_cylinder_origin_at_bottom(tmp_path):
    f = tmp_path / "cylinder_bottom.dae"
    write_cylinder_dae(f, z0=0.0)
    mp = compute_link_inertia(mesh_link(f)).mass_properties
    assert mp.com == pytest.approx([0, 0, 1], abs=1e-9)           # inertial pose (0,0,1)
    assert mp.ixx == pytest.approx(4544.837, abs=0.005)
    assert mp.izz == pytest.approx(3895.575, abs=0.005)


def test_mesh_scale_and_mirror_in_sdf_geometry(tmp_path):
    f = tmp_path / "cylinder.dae"
    write_cylinder_dae(f, n=64)
    base = compute_link_inertia(mesh_link(f)).mass_properties
    mirrored = compute_link_inertia(mesh_link(f, scale=(-2.0, 1.0, 0.5))).mass_properties
    assert mirrored.mass == pytest.approx(base.mass, rel=1e-12)    # |det| = 1
    assert mirrored.izz == pytest.approx(base.mass * (4 + 1) / 4 * 1, rel=1e-2)  # a 2:1 ellipse


def write_binary_stl(path, V, F):
    tris = V[F].astype("<f4")
    with open(path, "wb") as fh:
        fh.write(b"\0" * 80 + struct.pack("<I", len(F)))
        for t in tris:
            fh.write(b"\0" * 12 + t.tobytes() + b"\0\0")


def test_open_stl_falls_back_to_voxels_with_warning(tmp_path):
    V, F = sphere_mesh(0.5, 24, 48)
    f = tmp_path / "open_ball.stl"
    write_binary_stl(f, V, np.delete(F, [10, 11, 400], axis=0))
    link = mesh_link(f, density=1000.0)
    link.inertial.auto_inertia_params = {"gz:voxel_size": "0.02"}
    r = compute_link_inertia(link)
    warn = [d for d in r.diagnostics if d.code == Code.MESH_NOT_CLOSED]
    assert len(warn) == 1 and not warn[0].is_error
    assert "APPROXIMATE" in warn[0].message and "voxel_size 0.02" in warn[0].message
    assert str(f) in warn[0].message and "open (boundary) edges" in warn[0].message
    ideal = 1000 * 4 / 3 * np.pi * 0.5 ** 3
    assert r.mass_properties.mass == pytest.approx(ideal, rel=0.02)


def test_forced_voxel_method_on_closed_mesh(tmp_path):
    V, F = sphere_mesh(0.5, 24, 48)
    f = tmp_path / "ball.stl"
    write_binary_stl(f, V, F)
    link = mesh_link(f, density=1000.0)
    exact = compute_link_inertia(link).mass_properties
    link.collisions[0].auto_inertia_params = {"method": "voxel", "voxel_size": 0.025}
    r = compute_link_inertia(link)
    assert r.mass_properties.mass == pytest.approx(exact.mass, rel=0.02)
    assert any("APPROXIMATE" in d.message for d in r.diagnostics)


def test_obj_submesh_by_group_name():
    from pathlib import Path
    f = Path(__file__).resolve().parents[2] / "data" / "meshes" / "wedge.obj"
    whole = compute_link_inertia(mesh_link(f, density=1000.0))
    assert whole.mass_properties.mass == pytest.approx(3.0, rel=1e-12)
    # The "caps" group alone (two triangles) encloses nothing: a clear error, no crash.
    caps = compute_link_inertia(mesh_link(f, density=1000.0, submesh="caps"))
    assert caps.mass_properties is None and any(d.is_error for d in caps.diagnostics)
