"""The DSL reader against the numbers in the FloorPlan tools' own JSON-LD output.

The JSON-LD is read here by a deliberately small, independent reading of its coordinates
(plain ``json``, no JSON-LD processing): pose coordinates give ``T_wrt<-of = [Rz(alpha)
Ry(beta) | x y z]``, frames are composed by a breadth-first walk from ``world-frame``, and
every corner's position is mapped into the world.  Expected values therefore come from the
reference tool's output, not from our reader.
"""
from __future__ import annotations

import json
import math
from collections import deque
from pathlib import Path

import numpy as np
import pytest

from snapframe.plugins.floorplan.dsl import load_fpm

DATA = Path(__file__).resolve().parents[2] / "data" / "floorplan"
MODELS = {   # JSON-LD folder -> .fpm it was generated from
    "square": DATA / "fpm" / "square.fpm",
    "hospital": DATA / "fpm" / "hospital.fpm",
    "kitchen": DATA / "fpm" / "kitchen.fpm",
    "office": DATA / "fpm" / "office.fpm",
    "hbrs": DATA / "fpm" / "hbrs.fpm",
    "studio": DATA / "studio" / "fpm" / "studio.fpm",
}
TOL = 1e-6


def _jsonld_dir(name: str) -> Path:
    return DATA / "studio" / "jsonld" if name == "studio" else DATA / "jsonld" / name


def _graph(folder: Path, stem: str) -> list[dict]:
    return json.loads((folder / f"{stem}.json").read_text())["@graph"]


def _transform(c: dict) -> np.ndarray:
    a, b = float(c.get("alpha", 0.0)), float(c.get("beta", 0.0))
    rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    X = np.eye(4)
    X[:3, :3] = rz @ ry
    X[:3, 3] = [float(c.get(k, 0.0)) for k in "xyz"]
    return X


def read_reference(folder: Path) -> dict:
    """World frames and points of a FloorPlan JSON-LD folder, by plain reading."""
    relations = {n["@id"]: n for n in _graph(folder, "spatial_relations")}
    edges: dict[str, list[tuple[str, np.ndarray]]] = {}
    positions: dict[str, tuple[str, np.ndarray]] = {}
    for c in _graph(folder, "coordinate"):
        if "of-pose" in c:
            rel = relations[c["of-pose"]]
            X = _transform(c)          # wrt <- of
            edges.setdefault(rel["with-respect-to"], []).append((rel["of"], X))
            edges.setdefault(rel["of"], []).append((rel["with-respect-to"], np.linalg.inv(X)))
        elif "of-position" in c:
            rel = relations[c["of-position"]]
            p = np.array([float(c.get(k, 0.0)) for k in "xyz"])
            positions[rel["of"]] = (c["as-seen-by"], p)
    frames = {"world-frame": np.eye(4)}
    todo = deque(["world-frame"])
    while todo:
        f = todo.popleft()
        for g, X in edges.get(f, []):
            if g not in frames:
                frames[g] = frames[f] @ X
                todo.append(g)
    points = {pid: frames[fr][:3, :3] @ p + frames[fr][:3, 3] for pid, (fr, p) in positions.items()}
    shapes = {n["@id"]: n for n in _graph(folder, "shape") + _graph(folder, "polyhedron")}
    elements = {n["@id"]: n for n in _graph(folder, "floorplan")}
    return {"frames": frames, "points": points, "shapes": shapes, "elements": elements,
            "frame_of_point": {pid: fr for pid, (fr, _) in positions.items()}}


def _by_type(ref: dict, *types: str) -> list[dict]:
    return [n for n in ref["elements"].values() if n["@type"] in types]


@pytest.fixture(scope="module", params=sorted(MODELS))
def pair(request):
    name = request.param
    return name, load_fpm(MODELS[name]), read_reference(_jsonld_dir(name))


def test_same_elements_in_the_same_order(pair):
    _, plan, ref = pair
    fp = _by_type(ref, "FloorPlan")[0]
    assert list(plan.spaces) == fp["spaces"]
    assert list(plan.openings) == fp.get("openings", [])
    assert list(plan.walls) == [w for s in fp["spaces"] for w in ref["elements"][s]["walls"]]
    assert sorted(plan.features) == sorted(n["@id"] for n in _by_type(ref, "Column", "Divider"))
    for s in fp["spaces"]:
        assert plan.spaces[s].walls == ref["elements"][s]["walls"]
        assert plan.spaces[s].features == ref["elements"][s].get("feature", [])


def test_polygons_and_polyhedra_agree(pair):
    _, plan, ref = pair
    checked = 0
    for solid in plan.solids():
        node = ref["elements"][solid.name]
        poly = ref["shapes"][node["shape"]]["points"]
        hedron = ref["shapes"][node["3d-shape"]]
        want_polygon = np.array([ref["points"][p] for p in poly])
        want_points = np.array([ref["points"][p] for p in hedron["points"]])
        np.testing.assert_allclose(solid.polygon, want_polygon, atol=TOL, rtol=0, err_msg=solid.name)
        np.testing.assert_allclose(solid.points, want_points, atol=TOL, rtol=0, err_msg=solid.name)
        index = {pid: i for i, pid in enumerate(hedron["points"])}
        assert solid.faces == [[index[p] for p in face] for face in hedron["faces"]], solid.name
        # the element frame is the frame its corners are given in
        frame = ref["frame_of_point"][poly[0]]
        np.testing.assert_allclose(solid.X_WF, ref["frames"][frame], atol=TOL, rtol=0,
                                   err_msg=solid.name)
        checked += 1
    assert checked == len(_by_type(ref, "Wall", "Column", "Divider", "Entryway", "Window"))


def test_space_polygons_and_frames_agree(pair):
    _, plan, ref = pair
    for name, space in plan.spaces.items():
        poly = ref["shapes"][ref["elements"][name]["shape"]]["points"]
        want = np.array([ref["points"][p] for p in poly])
        np.testing.assert_allclose(space.polygon, want, atol=TOL, rtol=0, err_msg=name)
        np.testing.assert_allclose(space.X_WF, ref["frames"][f"{name}-frame"], atol=TOL, rtol=0)


def test_thickness_height_and_voids_agree(pair):
    _, plan, ref = pair
    for solid in plan.solids():
        node = ref["elements"][solid.name]
        if "thickness" in node:
            assert solid.thickness == pytest.approx(node["thickness"], abs=1e-12)
        if node["@type"] in ("Wall", "Column", "Divider"):
            assert solid.height == pytest.approx(node["height"], abs=1e-12)
        if "voids" in node:
            assert solid.voids == node["voids"]
