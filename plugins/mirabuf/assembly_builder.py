"""Core model -> a new mirabuf ``Assembly`` (for documents not read from a ``.mira`` file).

How the model maps (the reader, :mod:`.reader`, undoes each step):

* **Hierarchy.** One part instance per link, model and include, in a design tree that
  mirrors the document: a model or include is a part instance without bodies whose
  children are its links, nested models and includes; each instance's ``transform`` is its
  pose relative to its tree parent (row-major 4x4, cm).  The root instance stands for the
  top model (or the world) at the design origin.  Part definitions are shared as the
  document shares its nodes: every include of one file has the same definitions (one per
  included model and one per link).
* **Axes and units.** The design frame is Y-up: world poses are turned by -90 degrees about
  x (the inverse of the reader's default), lengths go from metres to centimetres.
* **Bodies.** A link's visuals (its collisions when it has no visual) become the bodies of
  its part definition: triangles in the link frame, in cm, with per-vertex normals and
  (empty) texture coordinates, which Synthesis needs to draw a body.  Primitives are
  tessellated; mesh files are read with the installed mesh loader; in-memory meshes are used
  as they are.  A link without visuals is written without collider (``skip_collider``) only
  when it has no collision either.
* **Joints.** Revolute and continuous become ``REVOLUTE``, prismatic ``SLIDER`` (cm, with
  the x of the axis negated as the Synthesis exporter writes it), ball ``BALL``; the pivot
  is the joint frame's origin in the design frame, the axis in the design frame, position 0
  the pose the document holds.  ``parent_part`` is the moving side (the SDFormat child), as
  the exporter writes it.  Fixed joints become rigid groups.  A fixed joint to the world, or
  a static top model, makes the assembly a field (``dynamic`` false) whose grounded part is
  that link; otherwise the grounded part is the top model's canonical link.
* **Mass.** Each link's mass and centre of mass go into its definition's physical
  properties (SDFormat's defaults, 1 kg at the link origin, when the link has no inertial).
  mirabuf stores no inertia tensor (Synthesis computes it from the meshes): a warning says
  so when links carry one.
* **Materials.** One appearance per visual colour (each channel at least 1: Synthesis shows
  a colour only when all four are non-zero) and one physical material per collision
  density.

What mirabuf cannot hold (frames, plugins, joints of other types, joints to the world other
than fixed, models not connected to the grounded part) is listed in warnings.  Synthesis
groups part instances into rigid bodies from the joints and rigid groups; the builder runs
that grouping on its result (with the reader's code) and adds the rigid groups that keep a
model's instance with the link its frame is attached to, so the file reads back with the
document's bodies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from snapframe.core.diagnostics import Code, Diagnostics
from snapframe.core.limits import listed
from snapframe.core.model import (Collision, Document, Geometry, Include, Joint, Link, Model,
                                  Visual, World)
from snapframe.core.model.names import MODEL_FRAME, SEP, WORLD
from snapframe.core.model.tessellation import primitive_triangles

from .reader import CM, Y_UP_TO_Z_UP

__all__ = ["build_assembly", "VERSION", "EXPORT_SEGMENTS"]

#: ``Info.version`` Synthesis expects (below 5 it flips revolute axes).
VERSION = 5
#: Segments around round primitives when they are tessellated for the file.
EXPORT_SEGMENTS = 32
#: Bodies up to this many triangles are written with one vertex per corner (flat normals,
#: crisp edges); larger ones share vertices (smooth normals, a third of the size).
FLAT_SHADING_LIMIT = 20000

_REVOLUTE, _SLIDER, _BALL = 1, 2, 6
_GROUNDED = "grounded"
#: The root part instance's key: reserved in SDFormat (``__...__``), so no link is named so.
_ROOT = "__root__"


@dataclass
class _Body:
    """Triangles of one body in the link frame (cm) and its appearance key."""

    vertices: np.ndarray
    faces: np.ndarray
    normals: np.ndarray
    appearance: str
    name: str


@dataclass
class _Definition:
    key: str
    name: str
    bodies: list[_Body] = field(default_factory=list)
    mass: float = 0.0
    com: np.ndarray | None = None   # cm, definition frame
    volume: float = 0.0             # cm^3
    area: float = 0.0               # cm^2


def _info(message, key: str, name: str) -> None:
    message.info.GUID = key
    message.info.name = name
    message.info.version = VERSION


def _vertex_normals(V: np.ndarray, F: np.ndarray) -> np.ndarray:
    """Area-weighted vertex normals (unit; zero where no face gives a direction)."""
    tri = V[F]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    out = np.zeros_like(V)
    for k in range(3):
        np.add.at(out, F[:, k], n)
    length = np.linalg.norm(out, axis=1, keepdims=True)
    return np.divide(out, length, out=np.zeros_like(out), where=length > 0)


def _flat(V: np.ndarray, F: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One vertex per triangle corner, each with its face's unit normal."""
    tri = V[F]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.divide(n, length, out=np.zeros_like(n), where=length > 0)
    return (tri.reshape(-1, 3), np.arange(3 * len(F), dtype=np.int64).reshape(-1, 3),
            np.repeat(n, 3, axis=0))


def _closed_volume_area(V: np.ndarray, F: np.ndarray) -> tuple[float, float]:
    tri = V[F]
    cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    area = 0.5 * float(np.linalg.norm(cross, axis=1).sum())
    volume = float(np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum()) / 6
    return abs(volume), area


class AssemblyBuilder:
    """Builds the ``Assembly`` of one document; problems go to ``diagnostics``."""

    def __init__(self, document: Document, diagnostics: Diagnostics, *,
                 y_up: bool = True, assembly=None) -> None:
        from snapframe.core.frames import FrameGraph
        from .generated import assembly_pb2
        self.doc = document
        self.diag = diagnostics
        self.pb = assembly_pb2
        # a new assembly, or one read from a file that new content is added to
        self.a = assembly_pb2.Assembly() if assembly is None else assembly
        # world (Z-up, m) -> design (Y-up when y_up, cm)
        self.Ct = Y_UP_TO_Z_UP.T if y_up else np.eye(3)
        self.graph = FrameGraph(document)
        self.scope = self.graph.root
        self.definitions: dict[int, _Definition] = {}
        parts = self.a.data.parts
        joints = self.a.data.joints
        # keys the assembly holds already (content added to a file read) are never reused
        self.def_keys: set[str] = set(parts.part_definitions)
        self.taken: set[str] = set(parts.part_instances)
        self.joint_keys: set[str] = set(joints.joint_definitions) | \
            set(joints.joint_instances) | {_GROUNDED}
        self.created_defs: list[str] = []
        self.instances: dict[str, str] = {}          # instance key -> definition key
        self.link_instance: dict[str, Link] = {}     # link instance key -> link
        self.key_of: dict[str, str] = {}             # scoped name -> instance key
        self.world_of: dict[str, np.ndarray] = {}    # instance key -> design matrix
        self.known: dict[str, str] = {}              # link of the file read -> instance key
        self.key_of_joint: dict[str, str] = {}       # scoped joint name -> joint key
        self.unplaced: list[str] = []
        self.containers: dict[str, str] = {}         # container key -> its model frame
        self.joints: list[tuple[str, Joint]] = []    # (scope prefix, joint)
        self.appearances: dict[tuple, str] = {}
        self.materials: dict[float, str] = {}
        self.meshes_cache: dict = {}
        # what cannot be written, for the warnings
        self.frames: list[str] = []
        self.others: list[str] = []
        self.unreadable: list[str] = []
        self.tensors = 0
        self.loader = None

    # -- poses -----------------------------------------------------------------------------
    def world(self, name: str) -> np.ndarray | None:
        """Design-frame matrix (cm) of a frame named from the root scope; None when its
        pose cannot be resolved (the document's checks say why)."""
        from snapframe.core.frames import Unresolved
        try:
            X = self.scope.pose_of(name).matrix() if name else np.eye(4)
        except (Unresolved, KeyError, ValueError):
            return None
        out = np.eye(4)
        out[:3, :3] = self.Ct @ X[:3, :3]
        out[:3, 3] = self.Ct @ X[:3, 3] / CM
        return out

    # -- walking the document --------------------------------------------------------------
    def build(self):
        root = self.doc.root
        a = self.a
        top_name = root.name if root is not None and root.name else "assembly"
        _info(a, top_name, top_name)
        a.data.parts.info.name = top_name
        root_def = self.container_definition(root, top_name)
        self.taken.add(_ROOT)
        self.add_instance(_ROOT, root_def, top_name, None, np.eye(4))
        tree = a.design_hierarchy.nodes.add()
        tree.value = _ROOT
        self.containers[_ROOT] = MODEL_FRAME if isinstance(root, Model) else WORLD
        if isinstance(root, (Model, World)):
            self.walk(root.entities, "", _ROOT, tree, np.eye(4))
        self.add_materials()
        self.add_joints(root)
        self.set_dynamic(a.dynamic)
        self.group_check()
        self.report()
        return a

    def set_dynamic(self, dynamic: bool) -> None:
        """The definitions written are dynamic in a robot; in a field they are not (a
        field's dynamic definitions are its free game pieces)."""
        for key in self.created_defs:
            self.a.data.parts.part_definitions[key].dynamic = dynamic

    def instance_key(self, scoped: str) -> str:
        """A part-instance key for the element ``scoped`` (its name, unless taken)."""
        key, i = scoped, 1
        while key in self.taken:
            i += 1
            key = f"{scoped}#{i}"
        self.taken.add(key)
        self.key_of[scoped] = key
        return key

    def walk(self, entities, prefix: str, parent_key: str, parent_node, parent_world) -> None:
        """Part instances for ``entities`` and everything below them, in document order
        (pre-order, as the design tree lists them); joints are collected for later."""
        stack = [(iter(entities), prefix, parent_key, parent_node, parent_world)]
        while stack:
            it, prefix, parent_key, parent_node, parent_world = stack[-1]
            e = next(it, None)
            if e is None:
                stack.pop()
                continue
            if isinstance(e, Link):
                scoped = prefix + e.name
                W = self.world(scoped)
                if W is None:
                    self.unplaced.append(scoped)
                    continue
                d = self.link_definition(e, prefix)
                key = self.instance_key(scoped)
                self.add_instance(key, d, scoped, np.linalg.inv(parent_world) @ W, W)
                self.link_instance[key] = e
                parent_node.children.add().value = key
            elif isinstance(e, (Model, Include)):
                model = e if isinstance(e, Model) else e.model
                if model is None:
                    self.others.append(f"{prefix}{e.name or e.uri} (include not loaded)")
                    continue
                if isinstance(e, Include) and e.merge:
                    # merged into this scope: no model frame of its own
                    stack.append((iter([*model.entities, *e.entities]), prefix, parent_key,
                                  parent_node, parent_world))
                    continue
                name = e.name if isinstance(e, Model) else e.effective_name
                scoped = prefix + name
                W = self.world(scoped)
                if W is None:
                    self.unplaced.append(scoped)
                    continue
                d = self.container_definition(model, name)
                key = self.instance_key(scoped)
                self.add_instance(key, d, scoped, np.linalg.inv(parent_world) @ W, W)
                self.containers[key] = scoped
                node = parent_node.children.add()
                node.value = key
                if isinstance(e, Include) and e.entities:
                    # the include's own frames and joints live in the including scope
                    stack.append((iter(e.entities), prefix, parent_key, parent_node,
                                  parent_world))
                stack.append((iter(model.entities), scoped + SEP, key, node, W))
            elif isinstance(e, Joint):
                self.joints.append((prefix, e))
            elif e.kind in ("frame", "mate_connector"):
                self.frames.append(prefix + e.name)
            elif e.kind == "mate":
                pass   # its derived joints are written (see add_joints)
            else:
                self.others.append(f"{prefix}{e.name} ({e.kind})")

    def add_instance(self, key: str, definition: str, name: str, local, world) -> None:
        inst = self.a.data.parts.part_instances[key]
        _info(inst, key, name)
        inst.part_definition_reference = definition
        if local is not None:
            inst.transform.spatial_matrix.extend(float(v) for v in local.reshape(-1))
            inst.global_transform.spatial_matrix.extend(float(v) for v in world.reshape(-1))
        self.instances[key] = definition
        self.world_of[key] = world

    # -- part definitions --------------------------------------------------------------------
    def unique_def_key(self, name: str) -> str:
        key, i = name, 1
        while key in self.def_keys:
            i += 1
            key = f"{name}#{i}"
        self.def_keys.add(key)
        return key

    def container_definition(self, node, name: str) -> str:
        d = self.definitions.get(id(node))
        if d is None:
            d = _Definition(self.unique_def_key(name or "model"), name or "model")
            self.definitions[id(node)] = d
            pd = self.a.data.parts.part_definitions[d.key]
            _info(pd, d.key, d.name)
            pd.dynamic = True
            self.created_defs.append(d.key)
        return d.key

    def link_definition(self, link: Link, prefix: str) -> str:
        """The part definition of ``link`` (one per link node: every include of a file
        shares its definitions); ``prefix`` scopes the frames its parts are posed in."""
        d = self.definitions.get(id(link))
        if d is not None:
            return d.key
        d = _Definition(self.unique_def_key(link.name), link.name)
        self.definitions[id(link)] = d
        self.created_defs.append(d.key)
        parts = link.visuals or link.collisions
        for i, part in enumerate(parts):
            tris = self.triangles(part, link, prefix)
            if tris is None:
                continue
            V, F, N = tris
            colour = part.color if isinstance(part, Visual) else None
            d.bodies.append(_Body(V, F, N, self.appearance(colour), f"{part.name or i}"))
            vol, area = _closed_volume_area(V, F)
            d.volume += vol
            d.area += area
        inertial = link.inertial
        if inertial is None:
            d.mass, d.com = 1.0, np.zeros(3)   # SDFormat's default inertial
        else:
            mp = inertial.computed if inertial.auto and inertial.computed is not None else None
            if mp is not None:
                d.mass, d.com = float(mp.mass), np.asarray(mp.com, dtype=float) / CM
            else:
                d.mass = 1.0 if inertial.mass is None else float(inertial.mass)
                d.com = inertial.pose.value.matrix()[:3, 3] / CM
                self.tensors += 1
        pd = self.a.data.parts.part_definitions[d.key]
        _info(pd, d.key, d.name)
        pd.dynamic = True
        phys = pd.physical_data
        if math.isfinite(d.mass) and d.mass > 0:
            phys.mass = d.mass
            phys.volume = d.volume
            phys.area = d.area
            if d.volume > 0:
                phys.density = d.mass / d.volume
            if d.com is not None and np.all(np.isfinite(d.com)):
                phys.com.x, phys.com.y, phys.com.z = (float(v) for v in d.com)
        for i, body in enumerate(d.bodies):
            b = pd.bodies.add()
            _info(b, f"{d.key}/{i}", body.name)
            b.part = d.key
            b.appearance_override = body.appearance
            tm = b.triangle_mesh
            _info(tm, f"{d.key}/{i}/mesh", body.name)
            tm.has_volume = True
            m = tm.mesh
            m.verts.extend(body.vertices.astype(np.float32).reshape(-1).tolist())
            m.normals.extend(body.normals.astype(np.float32).reshape(-1).tolist())
            m.uv.extend([0.0] * (2 * len(body.vertices)))
            m.indices.extend(body.faces.astype(np.int32).reshape(-1).tolist())
        return d.key

    def part_pose(self, part: Visual | Collision, link: Link, prefix: str) -> np.ndarray | None:
        """X_LP: the visual or collision in its link frame (None: its frame cannot be
        resolved)."""
        from snapframe.core.frames import Unresolved
        spec = part.pose
        X = spec.value.matrix() if spec is not None else np.eye(4)
        frame = spec.relative_to if spec is not None else ""
        if frame and frame != link.name:
            # resolved in the link's scope: X_LF @ X_FP
            try:
                X = (self.scope.pose_of(prefix + link.name).inverse()
                     @ self.scope.pose_of(prefix + frame)).matrix() @ X
            except (Unresolved, KeyError, ValueError):
                return None
        return X

    def triangles(self, part: Visual | Collision, link: Link, prefix: str):
        """(vertices cm in the link frame, faces, normals) of a visual or collision."""
        geo: Geometry = part.geometry
        got = self.geometry_triangles(geo)
        if got is None:
            return None
        P, F, N0 = got
        X = self.part_pose(part, link, prefix)
        if X is None:
            self.unplaced.append(f"{prefix}{link.name}/{part.name}")
            return None
        R, t = X[:3, :3], X[:3, 3]
        V = (P @ R.T + t) / CM
        if N0 is not None:
            return V, F, N0 @ R.T
        if len(F) <= FLAT_SHADING_LIMIT:
            return _flat(V, F)
        return V, F, _vertex_normals(V, F)

    def geometry_triangles(self, geo: Geometry):
        """(points m in the geometry frame, faces, normals or None) or None."""
        shape, p = geo.shape, geo.params
        if shape != "mesh":
            got = primitive_triangles(shape, p, EXPORT_SEGMENTS)
            if got is None:
                if shape not in ("empty",):
                    self.others.append(f"{shape} geometry")
                return None
            return np.asarray(got[0], float), np.asarray(got[1], np.int64), None
        try:
            scale = np.asarray(p.get("scale") or (1.0, 1.0, 1.0), dtype=float).reshape(3)
        except (TypeError, ValueError):
            scale = np.ones(3)
        data = p.get("data")
        if data is not None and not p.get("resolved_path"):
            V = np.asarray(data.vertices, dtype=float).reshape(-1, 3) * scale
            F = np.asarray(data.faces, dtype=np.int64).reshape(-1, 3)
            return V, F, None
        path = p.get("resolved_path")
        if not path:
            self.unreadable.append(str(p.get("uri", "?")))
            return None
        cache_key = (path, p.get("submesh"), bool(p.get("center_submesh")))
        if cache_key not in self.meshes_cache:
            self.meshes_cache[cache_key] = self.load_mesh(path, p.get("submesh"),
                                                          bool(p.get("center_submesh")))
        got = self.meshes_cache[cache_key]
        if got is None:
            self.unreadable.append(str(p.get("uri", path)))
            return None
        return got[0] * scale, got[1], None

    def load_mesh(self, path: str, submesh: str | None, center: bool):
        from snapframe.core.inertia.mesh_loader import NoMeshLoader, discover_mesh_loader
        try:
            if self.loader is None:
                self.loader = discover_mesh_loader()
            mesh = self.loader(path)
        except (NoMeshLoader, OSError, ValueError, Exception):   # a bad file: reported
            return None
        parts = list(getattr(mesh, "submeshes", ()))
        if submesh:
            parts = [s for s in parts if s.name == submesh or submesh in getattr(s, "aliases", ())]
        if not parts:
            return None
        Vs, Fs, off = [], [], 0
        for s in parts:
            Vs.append(np.asarray(s.vertices, dtype=float).reshape(-1, 3))
            Fs.append(np.asarray(s.faces, dtype=np.int64).reshape(-1, 3) + off)
            off += len(Vs[-1])
        V = np.vstack(Vs)
        if submesh and center:
            V = V - (V.min(axis=0) + V.max(axis=0)) / 2
        return V, np.vstack(Fs)

    # -- materials ---------------------------------------------------------------------------
    def appearance(self, colour) -> str:
        if colour is None:
            self.appearances.setdefault(("default",), "default")
            return "default"
        rgba = tuple(min(max(int(round(float(c) * 255)), 1), 255) for c in colour)
        key = self.appearances.get(rgba)
        if key is None:
            key = "rgba_{}_{}_{}_{}".format(*rgba)
            self.appearances[rgba] = key
        return key

    def add_materials(self, existing: bool = False) -> None:
        """Appearances and physical materials of the links written (``existing``: the
        assembly has its own; keys it holds are kept as they are)."""
        mats = self.a.data.materials
        if not existing:
            _info(mats, "materials", "materials")
        self.appearances.setdefault(("default",), "default")
        for rgba, key in self.appearances.items():
            if key in mats.appearances:
                continue
            app = mats.appearances[key]
            _info(app, key, key)
            c = (127, 127, 127, 255) if rgba == ("default",) else rgba
            app.albedo.R, app.albedo.G, app.albedo.B, app.albedo.A = c
            app.roughness, app.metallic, app.specular = 0.9, 0.3, 0.5
        if "default" not in mats.physicalMaterials:
            pm = mats.physicalMaterials["default"]
            _info(pm, "default", "default")
            pm.dynamic_friction = pm.static_friction = 0.5
            pm.restitution = 0.5
        for key, link in self.link_instance.items():
            densities = [c.density for c in link.collisions if c.density]
            if not densities:
                continue
            rho = float(densities[0])
            mkey = self.materials.get(rho)
            if mkey is None:
                mkey = f"density_{rho:g}"
                self.materials[rho] = mkey
            if mkey not in mats.physicalMaterials:
                m = mats.physicalMaterials[mkey]
                _info(m, mkey, mkey)
                m.mechanical.density = rho     # kg/m^3, as Fusion writes it
                m.dynamic_friction = m.static_friction = 0.5
                m.restitution = 0.5
            self.a.data.parts.part_instances[key].physical_material = mkey
            if not link.collisions:
                self.a.data.parts.part_instances[key].skip_collider = True
        for key, link in self.link_instance.items():
            if not link.collisions and link.visuals:
                self.a.data.parts.part_instances[key].skip_collider = True

    # -- joints ------------------------------------------------------------------------------
    def body(self, name: str) -> str | None:
        """The link instance a frame (named from the root scope) is attached to; ``world``
        for the world; None when it cannot be resolved."""
        try:
            b = self.scope.body_of(name)
        except Exception:   # Unresolved and the like: the checks report it
            return None
        if b in self.known:
            return self.known[b]
        if b == WORLD:
            return WORLD
        key = self.key_of.get(b)
        if key in self.link_instance:
            return key
        if b == MODEL_FRAME or b.endswith(SEP + MODEL_FRAME):
            # a static model is attached to the world: its first link stands for it
            head = b[:-len(MODEL_FRAME)]
            return next((k for scoped, k in self.key_of.items()
                         if scoped.startswith(head) and k in self.link_instance), None)
        return None

    def joint_key(self, scoped: str) -> str:
        key, i = scoped, 1
        while key in self.joint_keys:
            i += 1
            key = f"{scoped}#{i}"
        self.joint_keys.add(key)
        return key

    def add_joints(self, root, existing: bool = False) -> None:
        """Joints and rigid groups; unless ``existing`` (content added to an assembly read
        from a file, which keeps its grounded part), the grounded part too."""
        jd = self.a.data.joints
        if not existing:
            _info(jd, "joints", "joints")
        fixed: list[tuple[str, str]] = []
        grounded: str | None = None
        left_out: list[str] = []
        written: list[str] = []
        movable: list[tuple] = []
        for prefix, j in self.joints:
            scoped = prefix + j.name
            parent = WORLD if j.parent_name == WORLD else self.body(prefix + j.parent_name)
            child = self.body(prefix + j.child_name)
            if parent is None or child is None:
                left_out.append(f"{scoped} (its links cannot be resolved)")
                continue
            if j.type == "fixed":
                if parent == WORLD and existing:
                    left_out.append(f"{scoped} (fixed to the world: only the grounded part is)")
                elif parent == WORLD:
                    grounded = grounded or child
                elif parent != child:
                    fixed.append((parent, child))
                continue
            if parent == WORLD:
                left_out.append(f"{scoped} ({j.type} to the world)")
                continue
            kind = {"revolute": _REVOLUTE, "continuous": _REVOLUTE, "prismatic": _SLIDER,
                    "ball": _BALL}.get(j.type)
            if kind is None:
                left_out.append(f"{scoped} ({j.type})")
                continue
            movable.append((scoped, j, prefix, kind, parent, child))
        # A joint's parts are its moving body: the child and everything welded to it (as the
        # exporter collects them), so Synthesis puts all of them in one rigid body.
        bodies = _welded(fixed)
        for scoped, j, prefix, kind, parent, child in movable:
            why = self.add_joint(scoped, j, prefix, kind, parent, child,
                                 bodies.get(child, [child]))
            if why:
                left_out.append(f"{scoped} ({why})")
            else:
                written.append(self.key_of_joint[scoped])
        self.fixed = fixed
        for a_key, b_key in fixed:
            g = jd.rigid_groups.add()
            g.name = f"group_{a_key}_{b_key}"
            g.occurrences.extend([a_key, b_key])
        if left_out:
            self.diag.warning(Code.CONVERSION_ERROR, "mirabuf has no counterpart for these "
                              f"joints; not saved: {listed(left_out)}")
        if existing:
            self.grounded = None
            return
        top_static = isinstance(root, Model) and root.static
        if isinstance(root, World):
            tops = [e for e in root.entities if isinstance(e, (Model, Include))]
            top_static = any((e.static if isinstance(e, Model) else e.effective_static)
                             for e in tops)
        self.a.dynamic = grounded is None and not top_static
        if grounded is None and isinstance(root, World):
            statics = [e for e in root.entities if isinstance(e, (Model, Include))
                       and (e.static if isinstance(e, Model) else e.effective_static)]
            if statics:
                grounded = self.body(statics[0].name if isinstance(statics[0], Model)
                                     else statics[0].effective_name)
        if grounded is None:
            grounded = self.body(MODEL_FRAME if isinstance(root, Model) else self.first_top(root))
        if grounded is None or grounded == WORLD:
            grounded = next(iter(self.link_instance), _ROOT)
        gd = jd.joint_definitions[_GROUNDED]
        _info(gd, _GROUNDED, "grounded")
        gi = jd.joint_instances[_GROUNDED]
        _info(gi, _GROUNDED, "grounded")
        gi.joint_reference = _GROUNDED
        gi.parts.nodes.add().value = grounded
        h = self.a.joint_hierarchy
        ground = h.nodes.add()
        ground.value = "ground"
        for key in written:
            ground.children.add().value = key
        for key in written:
            h.nodes.add().value = key
        self.grounded = grounded

    def first_top(self, root) -> str:
        for e in root.entities:
            if isinstance(e, Model):
                return e.name
            if isinstance(e, Include) and e.model is not None and not e.merge:
                return e.effective_name
        return ""

    def add_joint(self, scoped: str, j: Joint, prefix: str, kind: int, parent: str,
                  child: str, parts: list[str]) -> str:
        """Write joint ``scoped``; returns why it cannot be written, or ''."""
        W = self.world(scoped)
        if W is None:
            return "its pose cannot be resolved"
        axis_spec = j.axes[0] if j.axes else None
        R = W[:3, :3]
        if kind != _BALL:
            frame = axis_spec.expressed_in if axis_spec else ""
            if frame and frame != j.name:
                scope_frame = prefix[:-len(SEP)] if prefix else ""
                F = self.world(scope_frame if frame == MODEL_FRAME else prefix + frame)
                if F is None:
                    return f"its axis frame {frame} cannot be resolved"
                R = F[:3, :3]
        jd = self.a.data.joints
        key = self.joint_key(scoped)
        self.key_of_joint[scoped] = key
        d = jd.joint_definitions[key]
        _info(d, key, scoped)
        d.origin.x, d.origin.y, d.origin.z = (float(v) for v in W[:3, 3])
        d.joint_motion_type = kind
        inst = jd.joint_instances[key]
        _info(inst, key, scoped)
        inst.parent_part = child      # the moving side, as the exporter writes it
        inst.child_part = parent
        inst.joint_reference = key
        for k in [child] + [p for p in parts if p != child]:
            inst.parts.nodes.add().value = k
        if kind == _BALL:
            for name, axis in (("pitch", (1.0, 0.0, 0.0)), ("yaw", (0.0, 1.0, 0.0)),
                               ("roll", (0.0, 0.0, 1.0))):
                dof = d.custom.dofs.add()
                dof.name = name
                dof.axis.x, dof.axis.y, dof.axis.z = axis
            return ""
        xyz = np.asarray(axis_spec.xyz if axis_spec else (0.0, 0.0, 1.0), dtype=float)
        axis = R @ xyz
        n = float(np.linalg.norm(axis))
        axis = axis / n if n > 0 else np.array([0.0, 0.0, 1.0])
        if kind == _SLIDER:
            dof = d.prismatic.prismatic_freedom
            axis = np.array([-axis[0], axis[1], axis[2]])
            scale = 1.0 / CM
        else:
            dof = d.rotational.rotational_freedom
            scale = 1.0
        dof.name = "Slider" if kind == _SLIDER else "Rotational Joint"
        dof.axis.x, dof.axis.y, dof.axis.z = (float(v) for v in axis)
        dof.value = 0.0
        if axis_spec is not None and j.type != "continuous":
            lo, hi = axis_spec.lower, axis_spec.upper
            if lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi) \
                    and abs(lo) < 1e15 and abs(hi) < 1e15:
                dof.limits.lower = lo * scale
                dof.limits.upper = hi * scale
            if axis_spec.effort is not None and math.isfinite(axis_spec.effort) \
                    and axis_spec.effort > 0:
                dof.limits.effort = axis_spec.effort
            if axis_spec.velocity is not None and math.isfinite(axis_spec.velocity) \
                    and axis_spec.velocity > 0:
                dof.limits.velocity = axis_spec.velocity
        return ""

    # -- rigid bodies as Synthesis groups them ------------------------------------------------
    def _grouping(self, rigid_groups: bool = True):
        """Synthesis's grouping of the assembly so far (the reader's port of it);
        without ``rigid_groups``, before the rigid groups merge anything."""
        from types import SimpleNamespace
        from .reader import _Converter
        conv = _Converter(self.a, "", Diagnostics(), False)
        if not rigid_groups:
            j = self.a.data.joints
            conv.joints = SimpleNamespace(joint_instances=j.joint_instances,
                                          joint_definitions=j.joint_definitions,
                                          rigid_groups=[])
        conv.build_tree()
        conv.group()
        return conv

    def _bodies(self) -> dict[str, str]:
        """Link instance -> its intended rigid body (links welded together share one)."""
        parent = {k: k for k in self.link_instance}

        def find(k: str) -> str:
            while parent[k] != k:
                parent[k] = parent[parent[k]]
                k = parent[k]
            return k
        for a_key, b_key in getattr(self, "fixed", ()):
            if a_key in parent and b_key in parent:
                parent[find(a_key)] = find(b_key)
        return {k: find(k) for k in parent}

    def _explicit(self, conv) -> set[str]:
        """Instances Synthesis's grouping assigns directly (joint break nodes and parts,
        the grounded part), not by inheriting from a design-tree ancestor."""
        out: set[str] = set()
        for key, ji in self.a.data.joints.joint_instances.items():
            if key == _GROUNDED:
                if ji.parts.nodes:
                    out.add(ji.parts.nodes[0].value)
                continue
            if ji.parent_part in conv.tree_parent and ji.child_part in conv.tree_parent:
                brk = conv.ancestral_break(ji.parent_part, ji.child_part)
                if brk is not None:
                    out.update(brk)
                    stack = list(ji.parts.nodes)
                    while stack:
                        n = stack.pop()
                        out.add(n.value)
                        stack.extend(n.children)
        return out

    def _tree_index(self) -> dict[str, tuple]:
        """Instance key -> (the repeated field holding its node, the node)."""
        out = {}
        stack = [self.a.design_hierarchy.nodes]
        while stack:
            container = stack.pop()
            for node in container:
                out[node.value] = (container, node)
                stack.append(node.children)
        return out

    def _reparent(self, key: str, home: str) -> bool:
        """Move ``key``'s design-tree node (with its subtree) under ``home``, keeping its
        world pose; False when ``home`` lies inside that subtree."""
        index = self._tree_index()
        if key not in index or home not in index:
            return False
        container, node = index[key]
        below, stack = set(), [node]
        while stack:
            n = stack.pop()
            below.add(n.value)
            stack.extend(n.children)
        if home in below:
            return False
        copy = type(node)()
        copy.CopyFrom(node)
        for i, n in enumerate(container):
            if n.value == key:
                del container[i]
                break
        index[home][1].children.add().CopyFrom(copy)
        local = np.linalg.inv(self.world_of[home]) @ self.world_of[key]
        inst = self.a.data.parts.part_instances[key]
        del inst.transform.spatial_matrix[:]
        inst.transform.spatial_matrix.extend(float(v) for v in local.reshape(-1))
        return True

    def group_check(self) -> None:
        """Run Synthesis's grouping on the result and make it give the document's bodies:

        * a link that would inherit another body's rigid node from a design-tree ancestor
          (a model instance on the moving side of a joint) is moved, in the design tree,
          under a part of its own body (its world pose kept);
        * a model instance left as a body of its own, without parts, joins the link its
          frame is attached to (a rigid group).
        """
        bodies = self._bodies()
        for _ in range(16):
            conv = self._grouping(rigid_groups=False)
            explicit = self._explicit(conv)
            nodes: dict[int, list[str]] = {}
            for k in self.link_instance:
                if k in conv.rigid:
                    nodes.setdefault(conv.rigid[k], []).append(k)
            moved = False
            for r, keys in nodes.items():
                if len({bodies[k] for k in keys}) < 2:
                    continue
                owners = {bodies[k] for k in keys if k in explicit} or {bodies[keys[0]]}
                for k in keys:
                    if bodies[k] in owners or k in explicit:
                        continue
                    home = next((h for h in self.link_instance if bodies[h] == bodies[k]
                                 and conv.rigid.get(h) != r and h in explicit), None)
                    if home is not None and self._reparent(k, home):
                        moved = True
            if not moved:
                break
        conv = self._grouping()
        bodied = set(self.link_instance) | set(self.known.values())
        members: dict[int, list[str]] = {}
        for k, r in conv.rigid.items():
            members.setdefault(r, []).append(k)
        for r, keys in members.items():
            if any(k in bodied for k in keys):
                continue
            for k in keys:
                frame = self.containers.get(k)
                target = None
                if frame == MODEL_FRAME or k == _ROOT:
                    target = getattr(self, "grounded", None)
                elif frame:
                    target = self.body(frame)
                if target and target != WORLD and target in bodied:
                    g = self.a.data.joints.rigid_groups.add()
                    g.name = f"group_{k}_{target}"
                    g.occurrences.extend([k, target])
                    break
        self.report_merged()

    def report_merged(self) -> None:
        """Warn about links Synthesis will weld together that the document keeps apart
        (bodies not connected to the grounded part by any joint, mostly)."""
        conv = self._grouping()
        bodies = self._bodies()
        in_order = [k for k in conv.order if k in self.link_instance]   # design-tree order
        first: dict[str, str] = {}          # body -> its first link
        for k in in_order:
            first.setdefault(bodies[k], k)
        together: dict[int, list[str]] = {}
        for k in in_order:
            r = conv.rigid.get(k)
            if r is not None and first[bodies[k]] == k:
                together.setdefault(r, []).append(k)
        merged = [" + ".join(group) for group in together.values() if len(group) > 1]
        if merged:
            self.diag.warning(Code.CONVERSION_ERROR, "Synthesis makes one rigid body of parts "
                              "no joint connects to the grounded part: these bodies (named by "
                              f"their first links) are welded together: {listed(merged)}")

    # -- warnings ------------------------------------------------------------------------------
    def report(self) -> None:
        if self.unplaced:
            self.diag.warning(Code.CONVERSION_ERROR, "elements whose pose cannot be resolved "
                              f"were left out: {listed(self.unplaced)}")
        if self.frames:
            self.diag.warning(Code.CONVERSION_ERROR, "mirabuf has no frames; not saved: "
                              f"{listed(self.frames)}")
        if self.others:
            self.diag.warning(Code.CONVERSION_ERROR, "mirabuf cannot hold these; not saved: "
                              f"{listed(sorted(set(self.others)))}")
        if self.unreadable:
            self.diag.warning(Code.CONVERSION_ERROR, "meshes that could not be read were left "
                              f"out: {listed(sorted(set(self.unreadable)))}")
        if self.tensors:
            self.diag.warning(Code.CONVERSION_ERROR, "mirabuf stores no inertia tensor "
                              "(Synthesis computes it from the meshes); the tensors of "
                              f"{self.tensors} link(s) are not saved; their masses and centres "
                              "of mass are saved")


def _welded(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Instance key -> every instance welded to it (itself included), for keys in
    ``pairs``."""
    parent: dict[str, str] = {}

    def find(k: str) -> str:
        parent.setdefault(k, k)
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k
    for a, b in pairs:
        parent[find(a)] = find(b)
    groups: dict[str, list[str]] = {}
    for k in list(parent):
        groups.setdefault(find(k), []).append(k)
    return {k: groups[find(k)] for k in parent}


def build_assembly(document: Document, diagnostics: Diagnostics, *, y_up: bool = True):
    """A new ``Assembly`` holding ``document``; warnings go to ``diagnostics``."""
    return AssemblyBuilder(document, diagnostics, y_up=y_up).build()
