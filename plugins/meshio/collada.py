"""COLLADA (.dae) via lxml with a hardened parser (no entities, no network, no DTD).

* Geometry: ``<mesh>`` with ``<triangles>``, ``<polylist>``, ``<polygons>`` (outer
  rings of ``<ph>``), ``<trifans>`` and ``<tristrips>``; lines are ignored.
* Placement: the visual scene's node tree (``matrix``, ``translate``, ``rotate``,
  ``scale``, ``lookat``), ``instance_node`` and ``instance_controller`` (skin source
  with its bind-shape matrix).  Without a scene, every geometry is taken as is.
* Units: ``<unit meter>`` scales to metres; ``<up_axis>`` X_UP / Y_UP is rotated to
  Z-up (``apply_up_axis=False`` keeps the file's axes, which is what gz-common does).
* Submeshes are named after the geometry's ``name`` (else ``id``); the geometry id and
  the instancing node's name are aliases for ``//mesh/submesh/name``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from lxml import etree

from .base import (InstanceBudget, Mesh, MeshLoadError, Submesh, fan_triangulate, make_submesh,
                   read_mesh_file, unique_names)

__all__ = ["load_collada", "UP_AXIS_ROTATION"]

#: Rotation taking the file's up axis to +Z (COLLADA: X_UP right=-Y, Y_UP right=+X).
UP_AXIS_ROTATION = {
    "Z_UP": np.eye(3),
    "Y_UP": np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]),
    "X_UP": np.array([[0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]]),
}
_MAX_DEPTH = 64
_TRANSFORM_SIZES = {"matrix": 16, "translate": 3, "rotate": 4, "scale": 3, "lookat": 9,
                    "skew": 7}


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           huge_tree=False, remove_comments=True, remove_pis=True)


def _strip_namespaces(root) -> None:
    for el in root.iter():
        if isinstance(el.tag, str) and "}" in el.tag:
            el.tag = el.tag.rsplit("}", 1)[1]


def _floats(path, el, what: str) -> np.ndarray:
    text = (el.text or "") if el is not None else ""
    try:
        return np.array(text.split(), dtype=np.float64)
    except ValueError:
        raise MeshLoadError(path, f"bad number in {what}") from None


def _ints(path, el, what: str) -> np.ndarray:
    text = (el.text or "") if el is not None else ""
    try:
        arr = np.array(text.split(), dtype=np.int64)
    except (ValueError, OverflowError):
        raise MeshLoadError(path, f"bad integer in {what}") from None
    return arr


class _Doc:
    def __init__(self, path, root) -> None:
        self.path = path
        self.root = root
        self.ids = {el.get("id"): el for el in root.iter()
                    if isinstance(el.tag, str) and el.get("id")}
        self._geometry_cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.budget = InstanceBudget(path)

    def ref(self, url: str | None, tag: str):
        if not url or not url.startswith("#"):
            return None
        el = self.ids.get(url[1:])
        return el if el is not None and el.tag == tag else None

    # -- geometry -----------------------------------------------------------------------
    def positions(self, source) -> np.ndarray:
        arr_el = source.find("float_array")
        acc = source.find("technique_common/accessor")
        if arr_el is None or acc is None:
            raise MeshLoadError(self.path,
                                f"source '{source.get('id')}' lacks float_array or accessor")
        values = _floats(self.path, arr_el, f"float_array '{arr_el.get('id')}'")
        try:
            count = int(acc.get("count", "0"))
            stride = int(acc.get("stride", "1"))
            offset = int(acc.get("offset", "0"))
        except ValueError:
            raise MeshLoadError(self.path, f"bad accessor in source '{source.get('id')}'") from None
        # Unnamed <param>s are skipped by definition; the first three named ones are x, y, z.
        params = acc.findall("param")
        cols = [i for i, p in enumerate(params) if p.get("name")][:3] if params else [0, 1, 2]
        if len(cols) < 3 or stride < max(cols) + 1 or count < 0 or offset < 0:
            raise MeshLoadError(self.path,
                                f"source '{source.get('id')}' is not a 3-D position array")
        if offset + (count - 1) * stride + max(cols) >= len(values) and count > 0:
            raise MeshLoadError(self.path, f"source '{source.get('id')}': accessor reads past the "
                                           f"{len(values)} values of its float_array")
        base = offset + np.arange(count) * stride
        return np.stack([values[base + c] for c in cols], axis=1) if count else np.zeros((0, 3))

    def geometry(self, geom) -> tuple[np.ndarray, np.ndarray]:
        gid = geom.get("id") or str(id(geom))
        if gid in self._geometry_cache:
            return self._geometry_cache[gid]
        mesh = geom.find("mesh")
        if mesh is None:                       # convex_mesh, spline, brep: not triangles
            self._geometry_cache[gid] = (np.zeros((0, 3)), np.zeros((0, 3), np.int64))
            return self._geometry_cache[gid]
        vertices = mesh.find("vertices")
        pos_src = None
        if vertices is not None:
            for inp in vertices.findall("input"):
                if inp.get("semantic") == "POSITION":
                    pos_src = self.ref(inp.get("source"), "source")
        if pos_src is None:
            raise MeshLoadError(self.path, f"geometry '{gid}' has no POSITION source")
        V = self.positions(pos_src)
        tris = [self._primitive(prim, gid) for prim in mesh
                if isinstance(prim.tag, str) and prim.tag in
                ("triangles", "polylist", "polygons", "trifans", "tristrips")]
        F = np.concatenate(tris) if tris else np.zeros((0, 3), np.int64)
        if len(F) and (F.min() < 0 or F.max() >= len(V)):
            raise MeshLoadError(self.path, f"geometry '{gid}': vertex index out of range "
                                           f"(0..{len(V) - 1})")
        self._geometry_cache[gid] = (V, F)
        return V, F

    def _primitive(self, prim, gid: str) -> np.ndarray:
        inputs = prim.findall("input")
        try:
            offsets = [int(i.get("offset", "0")) for i in inputs]
        except ValueError:
            raise MeshLoadError(self.path, f"geometry '{gid}': bad input offset") from None
        vin = [int(i.get("offset", "0")) for i in inputs if i.get("semantic") == "VERTEX"]
        if not vin:
            raise MeshLoadError(self.path, f"geometry '{gid}': <{prim.tag}> has no VERTEX input")
        stride = max(offsets) + 1 if offsets else 1
        voff = vin[0]
        what = f"geometry '{gid}' <{prim.tag}>"

        def corners(p_el) -> np.ndarray:
            p = _ints(self.path, p_el, what)
            if len(p) % stride:
                raise MeshLoadError(self.path, f"{what}: <p> length {len(p)} is not a multiple "
                                               f"of its {stride} inputs")
            return p.reshape(-1, stride)[:, voff]

        if prim.tag == "triangles":
            ps = prim.findall("p")
            c = np.concatenate([corners(p) for p in ps]) if ps else np.zeros(0, np.int64)
            if len(c) % 3:
                raise MeshLoadError(self.path, f"{what}: {len(c)} corners is not a multiple of 3")
            return c.reshape(-1, 3)
        if prim.tag == "polylist":
            c = corners(prim.find("p"))
            vcount = _ints(self.path, prim.find("vcount"), f"{what} <vcount>")
            try:
                return fan_triangulate(c, vcount)
            except ValueError as exc:
                raise MeshLoadError(self.path, f"{what}: {exc}") from None
        if prim.tag == "polygons":
            rings = [p for p in prim.findall("p")] + [ph.find("p") for ph in prim.findall("ph")]
            rings = [corners(p) for p in rings if p is not None]
            if not rings:
                return np.zeros((0, 3), np.int64)
            return fan_triangulate(np.concatenate(rings), [len(r) for r in rings])
        out = []
        for p in prim.findall("p"):
            c = corners(p)
            if len(c) < 3:
                continue
            k = np.arange(len(c) - 2)
            if prim.tag == "trifans":
                out.append(np.stack([np.full(len(k), c[0]), c[k + 1], c[k + 2]], axis=1))
            else:  # tristrips: every other triangle is wound the other way round
                t = np.stack([c[k], c[k + 1], c[k + 2]], axis=1)
                t[1::2] = t[1::2][:, [1, 0, 2]]
                out.append(t)
        return np.concatenate(out) if out else np.zeros((0, 3), np.int64)

    # -- scene --------------------------------------------------------------------------
    def node_transform(self, node) -> np.ndarray:
        T = np.eye(4)
        for el in node:
            if not isinstance(el.tag, str):
                continue
            tag = el.tag
            if tag not in _TRANSFORM_SIZES:
                continue
            v = _floats(self.path, el, f"<{tag}> of node '{node.get('id') or node.get('name')}'")
            M = np.eye(4)
            need = _TRANSFORM_SIZES[tag]
            if len(v) != need:
                raise MeshLoadError(self.path, f"<{tag}> needs {need} numbers, got {len(v)}")
            if tag == "matrix":
                M = v.reshape(4, 4)
            elif tag == "translate":
                M[:3, 3] = v
            elif tag == "scale":
                M[:3, :3] = np.diag(v)
            elif tag == "rotate":
                M[:3, :3] = _axis_angle(v[:3], math.radians(v[3]))
            elif tag == "lookat":
                M = _lookat(v[:3], v[3:6], v[6:9])
            else:  # skew: angle, rotation axis, translation axis (COLLADA 1.4 spec 5-118)
                M[:3, :3] = _skew(math.radians(v[0]), v[1:4], v[4:7])
            T = T @ M
        return T

    def instances(self, node, T: np.ndarray, depth: int, out: list) -> None:
        if depth > _MAX_DEPTH:
            raise MeshLoadError(self.path, "node hierarchy too deep (instance_node cycle?)")
        self.budget.visit()
        T = T @ self.node_transform(node)
        node_name = node.get("name") or node.get("id") or ""
        for el in node:
            if not isinstance(el.tag, str):
                continue
            if el.tag == "instance_geometry":
                geom = self.ref(el.get("url"), "geometry")
                if geom is None:
                    raise MeshLoadError(self.path,
                                        f"instance_geometry url '{el.get('url')}' not found")
                out.append((geom, T, node_name))
            elif el.tag == "instance_controller":
                ctrl = self.ref(el.get("url"), "controller")
                skin = ctrl.find("skin") if ctrl is not None else None
                geom = self.ref(skin.get("source"), "geometry") if skin is not None else None
                if geom is None:
                    raise MeshLoadError(self.path, f"instance_controller url '{el.get('url')}' has "
                                                   "no skin source geometry")
                bsm = skin.find("bind_shape_matrix")
                B = np.eye(4)
                if bsm is not None:
                    B = _floats(self.path, bsm, "bind_shape_matrix")
                    if B.size != 16:
                        raise MeshLoadError(self.path, "bind_shape_matrix needs 16 numbers")
                    B = B.reshape(4, 4)
                out.append((geom, T @ B, node_name))
            elif el.tag == "instance_node":
                target = self.ref(el.get("url"), "node")
                if target is None:
                    raise MeshLoadError(self.path, f"instance_node url '{el.get('url')}' not found")
                self.instances(target, T, depth + 1, out)
            elif el.tag == "node":
                self.instances(el, T, depth + 1, out)


def _axis_angle(axis, angle: float) -> np.ndarray:
    a = np.asarray(axis, dtype=float)
    n = np.linalg.norm(a)
    if n == 0.0:
        return np.eye(3)
    x, y, z = a / n
    c, s, C = math.cos(angle), math.sin(angle), 1.0 - math.cos(angle)
    return np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])


def _lookat(eye, target, up) -> np.ndarray:
    f = np.asarray(target, float) - np.asarray(eye, float)
    f /= np.linalg.norm(f) or 1.0
    s = np.cross(f, up)
    s /= np.linalg.norm(s) or 1.0
    u = np.cross(s, f)
    M = np.eye(4)
    M[:3, 0], M[:3, 1], M[:3, 2], M[:3, 3] = s, u, -f, eye
    return M


def _skew(angle: float, rot_axis, trans_axis) -> np.ndarray:
    a = np.asarray(rot_axis, float)
    t = np.asarray(trans_axis, float)
    a /= np.linalg.norm(a) or 1.0
    t /= np.linalg.norm(t) or 1.0
    return np.eye(3) + math.tan(angle) * np.outer(t, a)


def load_collada(path: str | Path, *, apply_up_axis: bool = True) -> Mesh:
    data = read_mesh_file(path)  # not etree.parse(path): that would open a FIFO too
    try:
        root = etree.fromstring(data, _parser(), base_url=str(path))
    except etree.XMLSyntaxError as exc:
        raise MeshLoadError(path, f"invalid XML: {exc}") from None
    if root is None:
        raise MeshLoadError(path, "empty XML document")
    _strip_namespaces(root)
    if root.tag != "COLLADA":
        raise MeshLoadError(path, f"root element is <{root.tag}>, not <COLLADA>")
    doc = _Doc(path, root)
    meter = 1.0
    unit = root.find("asset/unit")
    if unit is not None and unit.get("meter"):
        try:
            meter = float(unit.get("meter"))
        except ValueError:
            raise MeshLoadError(path, f"bad <unit meter='{unit.get('meter')}'>") from None
        if not (math.isfinite(meter) and meter > 0.0):
            raise MeshLoadError(path, f"<unit meter> must be positive, got {meter}")
    up = (root.findtext("asset/up_axis") or "Y_UP").strip().upper()
    if up not in UP_AXIS_ROTATION:
        raise MeshLoadError(path, f"unknown <up_axis> {up!r}")
    G = np.eye(4)
    G[:3, :3] = meter * (UP_AXIS_ROTATION[up] if apply_up_axis else np.eye(3))

    instances: list = []
    ivs = root.find("scene/instance_visual_scene")
    scene = doc.ref(ivs.get("url"), "visual_scene") if ivs is not None else None
    if scene is None:
        scenes = root.findall("library_visual_scenes/visual_scene")
        scene = scenes[0] if scenes else None
    if scene is not None:
        for node in scene.findall("node"):
            doc.instances(node, np.eye(4), 0, instances)
    if not instances:
        instances = [(g, np.eye(4), "") for g in root.findall("library_geometries/geometry")]

    parts = []
    for geom, T, node_name in instances:
        V, F = doc.geometry(geom)
        if len(F) == 0:
            continue
        doc.budget.place(len(F))
        name = geom.get("name") or geom.get("id") or node_name or "geometry"
        parts.append((name, (geom.get("id") or "", node_name), V, F, G @ T))
    if not parts:
        raise MeshLoadError(path, "COLLADA file has no triangle geometry")
    names = unique_names([p[0] for p in parts])
    subs: list[Submesh] = [make_submesh(path, n, V, F, aliases, T)
                           for n, (_, aliases, V, F, T) in zip(names, parts)]
    return Mesh(str(path), subs)
