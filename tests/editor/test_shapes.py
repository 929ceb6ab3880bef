"""Shapes are wound for back-face culling: closed solids face outward, open surfaces are
drawn from both sides, and a culled view still shows every side a camera can see.

Expected volumes come from the geometry (a box's product of sides, the inscribed prism of
a cylinder), not from the code under test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from snapframe.core.model import Geometry
from snapframe.editor.viewport.shapes import ROUND, Triangles, segments_for, shape_mesh


def signed_volume(shape: Triangles) -> float:
    a, b, c = (shape.points[shape.faces[:, i]] for i in range(3))
    return float(np.einsum("ij,ij->", a, np.cross(b, c))) / 6.0


def directed_edges(faces: np.ndarray) -> list[tuple[int, int]]:
    return [(int(f[i]), int(f[(i + 1) % 3])) for f in faces for i in range(3)]


PRIMITIVES = [
    ("box", {"size": (0.2, 0.3, 0.5)}),
    ("cylinder", {"radius": 0.1, "length": 0.4}),
    ("sphere", {"radius": 0.25}),
    ("capsule", {"radius": 0.05, "length": 0.3}),
    ("ellipsoid", {"radii": (0.1, 0.2, 0.3)}),
    ("cone", {"radius": 0.2, "length": 0.5}),
    ("plane", {"normal": (0.0, 0.0, -1.0), "size": (2.0, 1.0)}),
    ("plane", {"normal": (1.0, 1.0, 0.0), "size": (2.0, 1.0)}),
]


@pytest.mark.parametrize("shape,params", PRIMITIVES, ids=[p[0] for p in PRIMITIVES])
def test_every_primitive_is_a_closed_solid_wound_outward(shape, params):
    tri = shape_mesh(Geometry(shape, params))
    assert tri is not None and not tri.two_sided
    edges = directed_edges(tri.faces)
    # closed and consistent: every edge crossed exactly once in each direction
    assert len(set(edges)) == len(edges)
    assert set(edges) == {(b, a) for a, b in edges}
    assert signed_volume(tri) > 0


def test_volumes_match_the_geometry():
    box = shape_mesh(Geometry("box", {"size": (0.2, 0.3, 0.5)}))
    assert signed_volume(box) == pytest.approx(0.2 * 0.3 * 0.5)
    n = 16
    cyl = shape_mesh(Geometry("cylinder", {"radius": 0.1, "length": 0.4}), segments=n)
    prism = 0.5 * n * 0.1 ** 2 * math.sin(2 * math.pi / n) * 0.4   # inscribed n-gon prism
    assert signed_volume(cyl) == pytest.approx(prism)


def test_a_negative_size_still_faces_outward():
    # mirrored points reverse every face: the winding is turned back
    box = shape_mesh(Geometry("box", {"size": (-0.2, 0.3, 0.5)}))
    assert not box.two_sided and signed_volume(box) == pytest.approx(0.2 * 0.3 * 0.5)


def write_obj(path, points, faces) -> str:
    lines = [f"v {x} {y} {z}" for x, y, z in points]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in faces]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def mesh_geometry(path: str) -> Geometry:
    return Geometry("mesh", {"uri": path, "resolved_path": path, "scale": (1.0, 1.0, 1.0)})


TETRA = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
TETRA_OUT = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]


def test_a_closed_mesh_wound_inward_is_turned_outward(tmp_path):
    inward = [(a, c, b) for a, b, c in TETRA_OUT]
    tri = shape_mesh(mesh_geometry(write_obj(tmp_path / "in.obj", TETRA, inward)))
    assert tri is not None and not tri.two_sided
    assert signed_volume(tri) == pytest.approx(1 / 6)


def test_an_open_surface_is_drawn_from_both_sides(tmp_path):
    # two triangles of a square: no inside, no outside
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=float)
    tri = shape_mesh(mesh_geometry(write_obj(tmp_path / "sq.obj", points, [(0, 1, 2), (0, 2, 3)])))
    assert tri is not None and tri.two_sided
    assert len(tri.faces) == 4
    assert {tuple(f) for f in tri.faces[2:]} == {(2, 1, 0), (3, 2, 0)}
    # the outline is the square's border, as without the reversed copies
    border = {tuple(sorted(e)) for e in tri.outline()}
    assert border == {(0, 1), (1, 2), (2, 3), (0, 3)}


def test_faces_pointing_past_the_points_are_not_drawn(tmp_path):
    path = tmp_path / "bad.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n")
    tri = shape_mesh(mesh_geometry(str(path)))
    assert tri is None or int(tri.faces.max()) < len(tri.points)


def test_the_real_wedge_meshes_face_outward():
    from pathlib import Path
    data = Path(__file__).resolve().parents[1] / "data" / "meshes"
    for name in ("wedge.stl", "wedge.obj", "wedge.dae", "wedge.glb"):
        path = str(data / name)
        tri = shape_mesh(mesh_geometry(path))
        assert tri is not None, name
        if not tri.two_sided:
            assert signed_volume(tri) > 0, name


def test_crowded_scenes_get_fewer_segments():
    counts = [1, 200, 201, 2000, 2001, 100000]
    segments = [segments_for(n) for n in counts]
    assert segments[0] == ROUND
    assert segments == sorted(segments, reverse=True)
    assert segments[-1] >= 12          # still round enough to read as a cylinder


def coverage(canvas, mesh, position) -> int:
    """Pixels that differ from the background with the camera at ``position``."""
    canvas.renderer.RemoveAllViewProps()
    canvas.add_mesh(mesh, color=(0.2, 0.3, 0.8), cull_back=True)
    canvas.set_camera(position, (0.5, 0.5, 0.0), (0.0, 1.0, 0.0) if position[2] else
                      (0.0, 0.0, 1.0))
    canvas.renderer.ResetCamera()
    img = canvas.image().astype(int)
    return int((np.abs(img - img[0, 0]).sum(axis=2) > 60).sum())


def test_culled_drawing_shows_open_surfaces_from_both_sides(tmp_path):
    from snapframe.editor.viewport.canvas import Canvas
    from snapframe.editor.viewport.vtkdata import polydata
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=float)
    tri = shape_mesh(mesh_geometry(write_obj(tmp_path / "sq.obj", points, [(0, 1, 2), (0, 2, 3)])))
    canvas = Canvas.offscreen((160, 120))
    canvas.set_background("#ffffff")
    mesh = polydata(tri.points, triangles=tri.faces)
    above = coverage(canvas, mesh, (0.5, 0.5, 3.0))
    below = coverage(canvas, mesh, (0.5, 0.5, -3.0))
    assert above > 2000 and below > 2000
    # one-sided, the same square vanishes from below: culling is really on
    one_sided = polydata(tri.points, triangles=tri.faces[:2])
    assert coverage(canvas, one_sided, (0.5, 0.5, 3.0)) + \
        coverage(canvas, one_sided, (0.5, 0.5, -3.0)) < above + 100
    canvas.close()
