"""Regressions found in review of the automatic-inertia engine (each failed before its fix)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from inertia_meshgen import auto_link, box_mesh
from snapframe.core.diagnostics import Code, Severity
from snapframe.core.inertia import mesh_calculator as mesh_calc
from snapframe.core.inertia.calculators import default_registry
from snapframe.core.inertia.link import compute_link_inertia, resolve_auto_inertials
from snapframe.core.inertia.live import LinkInertiaTracker
from snapframe.core.inertia.mass_properties import MassProperties
from snapframe.core.inertia.mesh import check_closed
from snapframe.core.pose import Pose


@pytest.fixture(autouse=True)
def _default_loader(default_mesh_loader):
    yield


link_with = auto_link


def errors(result):
    return [d for d in result.diagnostics if d.severity == Severity.ERROR]


def run_cli(*args):
    p = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", *map(str, args)],
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def strict_json(text):
    def refuse(token):
        raise ValueError(f"non-standard JSON number {token}")
    return json.loads(text, parse_constant=refuse)


# -- invalid / non-finite results -------------------------------------------------------
def test_overflowing_inertia_is_an_error_not_inf_or_nan():
    """A huge <mass> rescale or a huge primitive overflowed to inf/NaN, which was returned
    as the link's inertia (and printed as `Infinity`/`NaN`, which is not JSON)."""
    r = compute_link_inertia(link_with([("box", {"size": (1e10, 1e10, 1e10)}, 1000.0, Pose())],
                                       mass=1e308))
    assert r.mass_properties is None
    assert [d.code for d in errors(r)] == [Code.LINK_INERTIA_INVALID]
    r = compute_link_inertia(link_with([("box", {"size": (1e200, 1, 1)}, 1000.0, Pose())]))
    assert r.mass_properties is None and "not a finite number" in errors(r)[0].message
    r = compute_link_inertia(link_with([("sphere", {"radius": 1e200}, 1000.0, Pose())]))
    assert r.mass_properties is None
    assert [d.code for d in errors(r)] == [Code.LINK_INERTIA_INVALID]     # not PLUGIN_ERROR


def test_cli_json_stays_json_on_overflow(write_files):
    root = write_files({"big.sdf": """<sdf version="1.11"><model name="m">
      <link name="k"><inertial auto="true"><mass>1e308</mass></inertial>
        <collision name="b"><geometry><box><size>1e10 1e10 1e10</size></box></geometry>
        </collision></link></model></sdf>"""})
    code, out, err = run_cli("inertia", root / "big.sdf", "--json")
    data = strict_json(out)
    assert code == 1 and "m::k" not in data["links"]
    assert data["errors"][0]["code"] == "LINK_INERTIA_INVALID"


def test_plugin_results_are_checked_like_gz_math():
    """A registered calculator's tensor reached the sum unchecked (gz-sim rejects invalid
    mass matrices), and a non-MassProperties return value crashed the aggregation."""
    reg = default_registry().copy()
    reg.register("box", lambda props, d: MassProperties.from_values(1.0, 1.0, 1.0, 5.0))
    r = compute_link_inertia(link_with([("box", {"size": (1, 1, 1)}, 1.0, Pose())]), registry=reg)
    assert r.mass_properties is None
    assert "triangle inequality" in errors(r)[0].message
    reg.register("box", lambda props, d: (1.0, [0, 0, 0]))
    r = compute_link_inertia(link_with([("box", {"size": (1, 1, 1)}, 1.0, Pose())]), registry=reg)
    assert r.mass_properties is None and errors(r)[0].code == Code.PLUGIN_ERROR
    reg.register("box", lambda props, d: MassProperties(-2.0, np.zeros(3), np.eye(3)))
    r = compute_link_inertia(link_with([("box", {"size": (1, 1, 1)}, 1.0, Pose())]), registry=reg)
    assert r.mass_properties is None and "mass must be positive" in errors(r)[0].message


# -- live tracker = full computation -----------------------------------------------------
@pytest.mark.parametrize("mass", [0.0, -3.0, 1e308])
def test_tracker_rejects_a_bad_explicit_mass_like_the_full_computation(mass):
    """The tracker silently fell back to the density mass for <mass> <= 0 (and returned
    inf for an overflowing one) where compute_link_inertia reports LINK_INERTIA_INVALID."""
    link = link_with([("box", {"size": (1e10, 1e10, 1e10)}, 2.0, Pose())], mass=mass)
    full = compute_link_inertia(link)
    tracker = LinkInertiaTracker(link)
    assert full.mass_properties is None and tracker.mass_properties is None
    assert tracker.has_errors()
    assert [d.code for d in tracker.diagnostics() if d.is_error] == [Code.LINK_INERTIA_INVALID]
    link.inertial.mass = 4.0                       # fixed: both agree again
    assert tracker.mass_properties.almost_equal(compute_link_inertia(link).mass_properties)
    assert not tracker.has_errors() and not tracker.diagnostics().has_errors()


# -- COLLADA up axis: what gz-common loads ----------------------------------------------
def write_box_dae(path, up_axis="Y_UP"):
    V, F = box_mesh((1, 2, 3), center=(0, 0, 1))
    pos = " ".join(repr(float(v)) for v in V.ravel())
    p = " ".join(str(int(v)) for v in F.ravel())
    path.write_text(f"""<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
 <asset><unit meter="0.5"/><up_axis>{up_axis}</up_axis></asset>
 <library_geometries><geometry id="b" name="Box"><mesh>
  <source id="pos"><float_array id="pa" count="{V.size}">{pos}</float_array>
   <technique_common><accessor source="#pa" count="{len(V)}" stride="3">
    <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
   </accessor></technique_common></source>
  <vertices id="vtx"><input semantic="POSITION" source="#pos"/></vertices>
  <triangles count="{len(F)}"><input semantic="VERTEX" source="#vtx" offset="0"/><p>{p}</p>
  </triangles></mesh></geometry></library_geometries>
 <library_visual_scenes><visual_scene id="s"><node name="Box"><instance_geometry url="#b"/>
 </node></visual_scene></library_visual_scenes><scene><instance_visual_scene url="#s"/></scene>
</COLLADA>""")


def mesh_link(path, **geom):
    return link_with([("mesh", {"uri": path.name, "resolved_path": str(path), "scale": (1, 1, 1),
                                **geom}, 1000.0, Pose())])


@pytest.mark.parametrize("up_axis", ["Y_UP", "X_UP", "Z_UP"])
def test_collada_up_axis_is_ignored_like_gz_common(tmp_path, up_axis):
    """gz-common's ColladaLoader (gz-sim's mesh inertia, physics and rendering) applies
    <unit meter> but not <up_axis>; the inertia was computed for a rotated mesh (and
    Y_UP is COLLADA's default when the tag is missing)."""
    f = tmp_path / "box.dae"
    write_box_dae(f, up_axis)
    mp = compute_link_inertia(mesh_link(f)).mass_properties
    ref = 1000.0 * 0.125 * 6        # the 1x2x3 box at half scale: 0.5 x 1 x 1.5 m
    assert mp.mass == pytest.approx(ref, rel=1e-12)
    assert mp.com == pytest.approx([0, 0, 0.5], abs=1e-12)           # file axes, scaled
    assert [mp.ixx, mp.iyy, mp.izz] == pytest.approx(
        [ref / 12 * (1 + 2.25), ref / 12 * (0.25 + 2.25), ref / 12 * (0.25 + 1)], rel=1e-12)


# -- mesh cache ---------------------------------------------------------------------------
TET = "v 0 0 0\nv {s} 0 0\nv 0 {s} 0\nv 0 0 {s}\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


def tet_mass(path):
    return compute_link_inertia(mesh_link(path)).mass_properties.mass


def test_mesh_cache_sees_a_rewrite_that_restores_size_and_mtime(tmp_path):
    """The cache was keyed by (path, size, mtime): `cp -p`, `tar -x` or `rsync -t` of a
    same-sized mesh (or two writes within a coarse timestamp tick) left it stale."""
    f = tmp_path / "tet.obj"
    f.write_text(TET.format(s=1))
    os.utime(f, ns=(10 ** 18, 10 ** 18))
    assert tet_mass(f) == pytest.approx(1000 / 6)
    f.write_text(TET.format(s=2))                 # same size
    os.utime(f, ns=(10 ** 18, 10 ** 18))          # same mtime
    assert tet_mass(f) == pytest.approx(8000 / 6)


def test_mesh_cache_compares_content_of_racy_entries(tmp_path, monkeypatch):
    """Within the timestamp granularity even ctime can repeat: a file read right after it
    was written is checked by content until that window has passed."""
    f = tmp_path / "tet.obj"
    f.write_text(TET.format(s=1))
    frozen = mesh_calc._stat_key(str(f))
    monkeypatch.setattr(mesh_calc, "_stat_key", lambda path: frozen)   # a coarse clock
    assert tet_mass(f) == pytest.approx(1000 / 6)
    assert tet_mass(f) == pytest.approx(1000 / 6)          # unchanged: served from cache
    f.write_text(TET.format(s=2))
    assert tet_mass(f) == pytest.approx(8000 / 6)


# -- CLI ----------------------------------------------------------------------------------
OPEN_BOX_SDF = """<sdf version="1.11"><model name="m">
  <link name="open"><inertial auto="true"/>
    <collision name="c"><geometry><mesh><uri>open.obj</uri></mesh></geometry></collision></link>
  <link name="missing"><inertial auto="true"/>
    <collision name="c"><geometry><mesh><uri>nothere.stl</uri></mesh></geometry></collision></link>
  <link name="exact"><inertial auto="true"/>
    <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision></link>
</model></sdf>"""


def write_open_box(root: Path):
    V, F = box_mesh((1, 1, 1))
    lines = [f"v {x!r} {y!r} {z!r}" for x, y, z in V.tolist()]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in F[1:].tolist()]   # one face gone
    (root / "open.obj").write_text("\n".join(lines) + "\n")


def test_cli_labels_voxel_results_and_explains_write(write_files, tmp_path):
    """--json printed voxel (open-mesh) values exactly like exact ones, and --write said
    nothing at all, not even why it exited with 1."""
    root = write_files({"m.sdf": OPEN_BOX_SDF})
    write_open_box(root)
    code, out, err = run_cli("inertia", root / "m.sdf", "--json")
    links = strict_json(out)["links"]
    assert links["m::open"]["approximate"] is True
    assert links["m::open"]["mass"] == pytest.approx(1000.0, rel=0.05)
    assert "approximate" not in links["m::exact"]          # exact entries keep their shape
    code, out, err = run_cli("inertia", root / "m.sdf", "--write", tmp_path / "out.sdf")
    assert code == 1 and out == ""
    assert "URI_INVALID" in err and "nothere.stl" in err
    assert "MESH_NOT_CLOSED" in err and "APPROXIMATE" in err


def test_resolve_auto_inertials_write_survives_saving(load_text, tmp_path):
    """write=True stored the values without marking the inertial changed, so the SDFormat
    writer (which syncs only changed inertials) dropped them on save."""
    from snapframe.core.formats import registry
    doc = load_text("""<sdf version="1.11"><model name="m"><link name="l">
      <inertial auto="true"><density>6</density></inertial>
      <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
      </link></model></sdf>""")
    (res,) = resolve_auto_inertials(doc.root, write=True)
    assert res.mass_properties.mass == pytest.approx(6.0)
    out = tmp_path / "saved.sdf"
    registry.implementation(registry.for_path(out, capability="write")).write(doc, out)
    text = out.read_text()
    assert '<inertial auto="true">' in text and "<mass>6" in text and "<ixx>1" in text


# -- closure report -------------------------------------------------------------------------
def test_closure_counts_ignore_degenerate_faces():
    """Zero-area faces with a repeated corner (common in welded STL soups) were counted as
    mis-wound and non-manifold edges, so an open mesh's warning named problems it lacks."""
    V, F = box_mesh((1, 1, 1))
    degenerate = np.array([[0, 0, 1], [1, 0, 1], [2, 3, 3]])
    rep = check_closed(V, np.concatenate([F[1:], degenerate]), exact=True)
    assert not rep.closed
    assert (rep.boundary_edges, rep.nonmanifold_edges, rep.inconsistent_edges) == (3, 0, 0)
    assert rep.describe() == "3 open (boundary) edges"
    assert check_closed(V, np.concatenate([F, degenerate]), exact=True).manifold


def test_unreadable_mesh_message_names_the_file_once(tmp_path):
    f = tmp_path / "bad.obj"
    f.write_text("v 0 0 x\n")
    (err,) = errors(compute_link_inertia(mesh_link(f)))
    assert err.code == Code.FILE_READ and err.message.count(str(f)) == 1
    assert "line 1" in err.message
