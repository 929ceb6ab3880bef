"""mirabuf (``.mira``) -> :mod:`snapframe.core.model`: one top :class:`Model`.

What the file holds and how Synthesis reads it is in /work/shared/reference/mirabuf.md; the
choices made here:

* **Rigid bodies.** Part instances are grouped into rigid nodes exactly as Synthesis's
  reader does (``MirabufParser.ts``, notes section 4.2): each joint instance splits the
  design tree at the "ancestral break" of its two parts, a field's dynamic part definitions
  (game pieces) are bodies of their own, the ``grounded`` joint's part is the root body,
  unassigned instances inherit their nearest assigned ancestor (top level: the grounded
  body) and every ``RigidGroup`` merges the bodies of its occurrences.  Each rigid node
  becomes one :class:`Link` with a visual (and a collision, unless ``skip_collider``) per
  body of each of its part instances.  Joints between the bodies are directed by a search
  from the grounded body (the ``parent_part``/``child_part`` names do not mean kinematic
  parent/child).  In a field (``dynamic == false``) the grounded body is welded to the
  world with a fixed joint ``grounded``; a robot's is free.
* **Frames and units.** ``PartInstance.transform`` (row-major 4x4, cm) is relative to the
  parent node of ``design_hierarchy``; world poses are the products along the tree.  Lengths
  are converted from cm to m.  The design frame is Y-up; by default it is turned to
  SDFormat's Z-up by a rotation of +90 degrees about x (``(x, y, z) -> (x, -z, y)``); the
  option ``keep_y_up=True`` keeps the file's axes.  Each link sits at the world pose of the
  first of its part instances in the design tree.
* **Meshes.** Mesh vertices are in cm in the part definition's frame.  A body's geometry is
  a ``mesh`` whose ``uri`` is ``mirabuf://<part definition>/<body>`` (no file: the
  triangles live in memory) with ``scale`` 0.01 (cm -> m) and ``resolved_path`` None.  The
  triangles are the geometry's ``params["data"]``: a core ``MeshData`` (vertices in cm)
  shared by every instance of the part definition, which the viewport draws and writers
  save as mesh files.  The visual's and collision's ``extras["mirabuf_mesh"]`` keep the
  file's :class:`MiraMesh` (float32 vertices, int32 triangles, normals when given).
* **Mass.** ``PhysicalProperties`` has mass (kg) and centre of mass (cm, definition frame)
  but no inertia tensor: the tensor comes from the definition's closed meshes at the density
  that gives the file's mass (a solid sphere of the file's volume when the meshes enclose no
  volume; ``extras["mirabuf_inertia"]`` says which).  A part definition with no bodies (an
  assembly component such as the root) carries the totals of its children and adds nothing.
* **Joints.** ``REVOLUTE`` -> ``revolute`` (limits when ``|upper - lower| > 0.001``, taken
  relative to the joint's current ``value`` because SDFormat's zero is the pose the file
  holds), ``SLIDER`` -> ``prismatic`` (limits in cm -> m, relative to ``value``; the
  exporter writes the axis with x negated, which is undone), ``BALL`` -> ``ball``.  The
  pivot is ``origin + offset`` (world, cm).  Cylindrical, pin-slot, planar and custom joints
  have no counterpart here: they are left out with one warning listing them, and kept in
  ``model.extras["mirabuf_unconverted_joints"]``.
* What the core model cannot express (GUIDs, keys, signals, motors, wheel flags, materials,
  the thumbnail) stays in ``extras["mirabuf"]`` of the nodes and the decoded
  ``Assembly`` in ``document.extras["mirabuf_assembly"]`` for a later writer.

Bad input never raises: the worst outcome is a document without a root and an error that
names the file.
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from snapframe.core import limits
from snapframe.core.diagnostics import Code, Diagnostics, SourceLocation
from snapframe.core.fileio import read_regular_file
from snapframe.core.limits import listed
from snapframe.core.loading import LoadContext
from snapframe.core.model import (Collision, Document, Geometry, Joint, JointAxis, Link,
                                  Model, PoseSpec, Visual)
from snapframe.core.model.names import is_reserved
from snapframe.core.model.nodes import MeshData
from snapframe.core.pose import Pose

__all__ = ["read", "read_bytes", "MiraMesh", "MAX_FILE_BYTES", "MAX_INFLATED_BYTES", "Y_UP_TO_Z_UP"]

#: Largest ``.mira`` file read (the real 2018 field is 1 MB gzipped, 3 MB inflated).
MAX_FILE_BYTES = 256 << 20
#: Largest inflated assembly (a gzip bomb stops here).
MAX_INFLATED_BYTES = 512 << 20
#: cm -> m.
CM = 0.01
#: Rotation of +90 degrees about x: the design frame's +Y becomes +Z.
Y_UP_TO_Z_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])

_REVOLUTE, _SLIDER, _BALL = 1, 2, 6
_MOTION_NAMES = {0: "RIGID", 1: "REVOLUTE", 2: "SLIDER", 3: "CYLINDRICAL", 4: "PINSLOT",
                 5: "PLANAR", 6: "BALL", 7: "CUSTOM"}
_GROUNDED = "grounded"


@dataclass(eq=False)
class MiraMesh:
    """A body's triangles as the file holds them (cm, part definition frame)."""

    vertices: np.ndarray  # (n, 3) float32, cm
    triangles: np.ndarray  # (m, 3) int32
    normals: np.ndarray | None = None


def read(path: str | Path, context: LoadContext | None = None, *, keep_y_up: bool = False,
         check: bool = True) -> Document:
    """Read a ``.mira`` file (raw or gzip) as a document whose root is one model
    (``check``: run the frame graph checks on it, as for a file opened on its own)."""
    file = str(path)
    doc = Document(path=file, format="mirabuf")
    try:
        data = read_regular_file(path, MAX_FILE_BYTES)
    except OSError as exc:
        doc.diagnostics.error(Code.FILE_READ, f"Unable to read file:{file}: {exc.strerror or exc}",
                              SourceLocation(file))
        return doc
    return _read(data, file, doc, keep_y_up, check)


def read_bytes(data: bytes, file: str = "", *, keep_y_up: bool = False) -> Document:
    """Read ``.mira`` bytes; ``file`` names them in diagnostics."""
    return _read(data, file, Document(path=file, format="mirabuf"), keep_y_up)


def _inflate(data: bytes) -> bytes:
    """Gunzip ``data`` (possibly several members), refusing more than the inflated limit."""
    out: list[bytes] = []
    total = 0
    while data:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        chunk = d.decompress(data, MAX_INFLATED_BYTES - total + 1)
        total += len(chunk)
        out.append(chunk)
        if total > MAX_INFLATED_BYTES or d.unconsumed_tail:
            raise ValueError(f"inflates to more than {MAX_INFLATED_BYTES} bytes")
        if not d.eof:
            raise ValueError("the gzip data is truncated")
        data = d.unused_data
        if data and data[:2] != b"\x1f\x8b":
            break  # trailing garbage after the last member: gzip ignores it too
    return b"".join(out)


def _read(data: bytes, file: str, doc: Document, keep_y_up: bool, check: bool = True
          ) -> Document:
    where = SourceLocation(file)
    name = file or "<bytes>"
    from google.protobuf.message import DecodeError
    from .generated import assembly_pb2
    try:
        if data[:2] == b"\x1f\x8b":
            data = _inflate(data)
        assembly = assembly_pb2.Assembly.FromString(data)
    except (zlib.error, ValueError, DecodeError, RecursionError, EOFError) as exc:
        doc.diagnostics.error(Code.FILE_READ, f"Unable to read file:{name}: not a mirabuf "
                              f"assembly (truncated or corrupt data: {exc})", where)
        return doc
    if not assembly.design_hierarchy.nodes or not assembly.data.parts.part_instances:
        doc.diagnostics.error(Code.FILE_READ, f"Unable to read file:{name}: not a mirabuf "
                              "assembly (no design hierarchy or no part instances)", where)
        return doc
    doc.version = str(assembly.info.version)
    doc.extras["mirabuf_assembly"] = assembly
    try:
        model = _Converter(assembly, file, doc.diagnostics, keep_y_up).convert()
    except _Refused:
        return doc
    doc.root = model
    if model is not None and check:
        from snapframe.core.frames import check_document  # local: frames imports the model
        check_document(doc)
    return doc


class _Refused(Exception):
    """Reported already; the file gives no model."""


_EYE3 = np.eye(3)
_NAME_BAD = re.compile(r"[^A-Za-z0-9_.\-]+")


def _clean(text: str, fallback: str) -> str:
    out = _NAME_BAD.sub("_", text).strip("_") or fallback
    return out if not is_reserved(out) else out + "_"


def _matrix(t) -> np.ndarray | None:
    """A ``Transform`` as a 4x4 row-major matrix, or None when not written."""
    m = t.spatial_matrix
    if len(m) < 12:
        return None
    a = np.asarray(list(m[:12]), dtype=float).reshape(3, 4)
    out = np.eye(4)
    out[:3] = a
    return out


def _orthonormal(R: np.ndarray) -> tuple[np.ndarray, bool]:
    """``R`` if it is a rotation, else the nearest rotation (and False)."""
    # (plain arithmetic: np.allclose and np.linalg.det cost more than the rest of a
    # thousand-instance tree)
    E = R.T @ R - _EYE3
    if abs(E).max() <= 1e-6:     # false for NaN
        (a, b, c), (d, e, f), (g, h, i) = R.tolist()
        if a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) > 0:
            return R, True
    if not np.all(np.isfinite(R)):
        return np.eye(3), False
    U, _, Vt = np.linalg.svd(R)
    Q = U @ Vt
    if np.linalg.det(Q) < 0:
        U[:, -1] *= -1
        Q = U @ Vt
    return Q, False


class _Converter:
    def __init__(self, assembly, file: str, diagnostics: Diagnostics, keep_y_up: bool) -> None:
        self.a = assembly
        self.file = file
        self.where = SourceLocation(file)
        self.diag = diagnostics
        self.C = np.eye(3) if keep_y_up else Y_UP_TO_Z_UP
        self.parts = assembly.data.parts
        self.joints = assembly.data.joints
        self.materials = assembly.data.materials
        self.bad_rotations: list[str] = []

    # -- reporting ----------------------------------------------------------------------
    def warn(self, message: str, element: str = "") -> None:
        self.diag.warning(Code.CONVERSION_ERROR, message, self.where, element)

    def error(self, code: Code, message: str, element: str = "") -> None:
        self.diag.error(code, message, self.where, element)

    def iname(self, key: str) -> str:
        inst = self.parts.part_instances.get(key)
        return inst.info.name if inst is not None and inst.info.name else key[:40]

    # -- the design tree ----------------------------------------------------------------
    def build_tree(self) -> None:
        """Pre-order list of instance keys, their tree parents and world matrices (cm, the
        file's axes).  An instance met again is ignored (as Synthesis does)."""
        insts = self.parts.part_instances
        defs = self.parts.part_definitions
        self.order: list[str] = []
        self.tree_parent: dict[str, str | None] = {}
        self.children: dict[str, list[str]] = {}
        self.world: dict[str, np.ndarray] = {}
        missing: list[str] = []
        stack = [(n, None) for n in reversed(self.a.design_hierarchy.nodes)]
        while stack:
            node, parent = stack.pop()
            key = node.value
            if not key:
                continue
            if key in self.tree_parent:
                continue
            inst = insts.get(key)
            if inst is None:
                missing.append(key)
                continue
            local = _matrix(inst.transform)
            if local is None and parent is None and inst.part_definition_reference in defs:
                local = _matrix(defs[inst.part_definition_reference].base_transform)
            if local is None:
                local = np.eye(4)
            R, ok = _orthonormal(local[:3, :3])
            if not ok:
                self.bad_rotations.append(inst.info.name or key)
                local[:3, :3] = R
            self.world[key] = local if parent is None else self.world[parent] @ local
            self.order.append(key)
            self.tree_parent[key] = parent
            self.children.setdefault(key, [])
            if parent is not None:
                self.children[parent].append(key)
            stack.extend((c, key) for c in reversed(node.children))
        if missing:
            self.warn(f"{len(missing)} design-tree node(s) name no part instance; left out: "
                      f"{listed(missing, 3)}")
        if self.bad_rotations:
            self.warn("transforms that are not rotations (scale, shear or not finite) were "
                      f"replaced by the nearest rotation for: {listed(self.bad_rotations)}")
        self.depth = {}
        for key in self.order:
            p = self.tree_parent[key]
            self.depth[key] = 0 if p is None else self.depth[p] + 1

    def path_to_root(self, key: str) -> list[str]:
        out = []
        k: str | None = key
        while k is not None:
            out.append(k)
            k = self.tree_parent[k]
        return out[::-1]

    def ancestral_break(self, a: str, b: str) -> tuple[str, str] | None:
        pa, pb = self.path_to_root(a), self.path_to_root(b)
        i = 0
        while i < len(pa) and i < len(pb) and pa[i] == pb[i]:
            i += 1
        if i >= len(pa) or i >= len(pb):
            return None  # one is an ancestor of the other (or the same)
        return pa[i], pb[i]

    def subtree(self, key: str) -> list[str]:
        out, stack = [], [key]
        while stack:
            k = stack.pop()
            out.append(k)
            stack.extend(self.children.get(k, ()))
        return out

    # -- rigid nodes (MirabufParser.ts) ---------------------------------------------------
    def group(self) -> None:
        assigned: dict[str, int] = {}
        counter = iter(range(1 << 30))
        ji = self.joints.joint_instances
        not_in_tree: list[str] = []
        # in key order: the order files are written in (deterministic serialisation) and
        # read back by Synthesis; a joint later in the order can reassign a part
        for jkey, inst in sorted(ji.items()):
            if jkey == _GROUNDED:
                continue
            a, b = inst.parent_part, inst.child_part
            if a not in self.tree_parent or b not in self.tree_parent:
                not_in_tree.append(inst.info.name or jkey)
                continue
            brk = self.ancestral_break(a, b)
            if brk is None:
                continue
            pa = next(counter)
            assigned[brk[0]] = pa
            stack = list(inst.parts.nodes)
            while stack:
                n = stack.pop()
                if n.value and n.value in self.tree_parent:
                    assigned[n.value] = pa
                stack.extend(n.children)
            assigned[brk[1]] = next(counter)
        if not_in_tree:
            self.warn(f"joints whose parts are not in the design tree: {listed(not_in_tree)}; "
                      "left out")
        if not self.a.dynamic:  # a field: game pieces move on their own
            defs = self.parts.part_definitions
            for key in self.order:
                d = defs.get(self.parts.part_instances[key].part_definition_reference)
                if d is not None and d.dynamic and self.tree_parent[key] is not None:
                    gp = next(counter)
                    for k in self.subtree(key):
                        assigned[k] = gp
        g = ji.get(_GROUNDED)
        grounded_key = ""
        if g is not None and g.parts.nodes and g.parts.nodes[0].value in self.tree_parent:
            grounded_key = g.parts.nodes[0].value
        else:
            grounded_key = self.order[0]
            self.warn("the assembly has no grounded part (joint instance 'grounded'); the "
                      f"design root '{self.iname(grounded_key)}' is taken as grounded")
        ground = next(counter)
        assigned[grounded_key] = ground
        for key in self.order:  # round-up, top-down
            if key not in assigned:
                p = self.tree_parent[key]
                assigned[key] = assigned[p] if p is not None else ground
        # Rigid groups: union of the nodes of their occurrences.
        parent = {}

        def find(x: int) -> int:
            while parent.get(x, x) != x:
                parent[x] = parent.get(parent[x], parent[x])
                x = parent[x]
            return x
        stray: list[str] = []
        for rg in self.joints.rigid_groups:
            ids = []
            for occ in rg.occurrences:
                if occ in assigned:
                    ids.append(find(assigned[occ]))
                elif occ:
                    stray.append(occ)
            for other in ids[1:]:
                ra, rb = find(ids[0]), find(other)
                if ra != rb:
                    parent[rb] = ra
        if stray:
            self.warn(f"{len(stray)} rigid-group occurrence(s) are not in the design tree; "
                      f"ignored: {listed(stray, 3)}")
        self.rigid: dict[str, int] = {k: find(v) for k, v in assigned.items()}
        self.ground = find(ground)
        self.grounded_key = grounded_key
        # Members in design-tree order; the first one places the link.
        self.members: dict[int, list[str]] = {}
        for key in self.order:
            self.members.setdefault(self.rigid[key], []).append(key)

    # -- geometry -------------------------------------------------------------------------
    def mesh_of(self, def_key: str, index: int, body) -> MiraMesh | None:
        cached = self.meshes.get((def_key, index), False)
        if cached is not False:
            return cached
        out = None
        tm = body.triangle_mesh
        if tm.WhichOneof("mesh_type") == "mesh":
            m = tm.mesh
            V = np.asarray(m.verts, dtype=np.float32)
            F = np.asarray(m.indices, dtype=np.int64)
            if len(V) % 3 or len(F) % 3 or len(F) == 0:
                self.bad_meshes.append(body.info.name or def_key)
            elif len(F) and (F.min() < 0 or F.max() >= len(V) // 3):
                self.bad_meshes.append(body.info.name or def_key)
            elif not np.all(np.isfinite(V)):
                self.bad_meshes.append(body.info.name or def_key)
            else:
                N = np.asarray(m.normals, dtype=np.float32)
                out = MiraMesh(V.reshape(-1, 3), F.astype(np.int32).reshape(-1, 3),
                               N.reshape(-1, 3) if len(N) == len(V) else None)
        elif tm.WhichOneof("mesh_type") == "bmesh":
            self.bmeshes.append(body.info.name or def_key)
        self.meshes[(def_key, index)] = out
        return out

    def mesh_data_of(self, def_key: str, index: int, mesh: MiraMesh, name: str) -> MeshData:
        """The body's triangles as the core's :class:`MeshData` (cm), one object per
        part definition body, shared by all its instances."""
        data = self.mesh_data.get((def_key, index))
        if data is None:
            data = MeshData(mesh.vertices, mesh.triangles, name)
            self.mesh_data[(def_key, index)] = data
        return data

    def color(self, key: str):
        app = self.materials.appearances.get(key) if key else None
        if app is None or not app.HasField("albedo"):
            return None
        c = app.albedo
        return tuple(min(max(v, 0), 255) / 255.0 for v in (c.R, c.G, c.B, c.A))

    # -- mass -----------------------------------------------------------------------------
    def def_mass(self, def_key: str):
        """(mass kg, com m in the definition frame, inertia about com kg m^2, how) of a
        definition's own bodies, or None."""
        if def_key in self.mass_cache:
            return self.mass_cache[def_key]
        out = None
        d = self.parts.part_definitions.get(def_key)
        meshes = [] if d is None else [self.mesh_of(def_key, i, b) for i, b in enumerate(d.bodies)]
        pd = d.physical_data if d is not None else None
        mass = float(d.mass_override) if d is not None and d.mass_override > 0 else (
            float(pd.mass) if pd is not None else 0.0)
        if d is not None and d.bodies and math.isfinite(mass) and mass > 0:
            from snapframe.core.inertia.mesh import MeshIntegrals, integrate_closed
            integ = None
            try:
                parts = [integrate_closed(m.vertices.astype(float) * CM, m.triangles)[0]
                         for m in meshes if m is not None]
                if parts:
                    integ = MeshIntegrals.combine(parts)
            except (ValueError, IndexError, FloatingPointError):
                integ = None
            com_file = np.array([pd.com.x, pd.com.y, pd.com.z], dtype=float) * CM \
                if pd.HasField("com") else None
            if integ is not None and integ.volume > 0:
                mp = integ.mass_properties(mass / integ.volume)
                com = com_file if com_file is not None and np.all(np.isfinite(com_file)) \
                    else mp.com
                out = (mass, com, mp.inertia, "meshes")
            else:
                vol = float(pd.volume) * CM ** 3 if pd.volume > 0 else mass / 1000.0
                r = (3.0 * vol / (4.0 * math.pi)) ** (1.0 / 3.0)
                com = com_file if com_file is not None else np.zeros(3)
                out = (mass, com, np.eye(3) * (0.4 * mass * r * r), "sphere")
        self.mass_cache[def_key] = out
        return out

    # -- the model ------------------------------------------------------------------------
    def pose_of(self, key: str) -> np.ndarray:
        """World pose of an instance, in metres, in the output axes (4x4)."""
        W = self.world[key]
        out = np.eye(4)
        out[:3, :3] = self.C @ W[:3, :3]
        out[:3, 3] = self.C @ (W[:3, 3] * CM)
        return out

    def convert(self) -> Model:
        self.build_tree()
        if not self.order:
            self.error(Code.FILE_READ, f"Unable to read file:{self.file or '<bytes>'}: the "
                       "design tree names no part instance")
            raise _Refused
        self.group()
        insts = self.parts.part_instances
        defs = self.parts.part_definitions
        n_elements = 0
        for key in self.order:
            d = defs.get(insts[key].part_definition_reference)
            if d is not None:
                n_elements += 2 * len(d.bodies)
        n_elements += len(self.members) + len(self.joints.joint_instances)
        if n_elements > limits.MAX_ELEMENT_INSTANCES:
            self.error(Code.RESOURCE_LIMIT, limits.budget_message(
                f"mirabuf assembly {self.file or '<bytes>'}", f"{n_elements:,}"))
            raise _Refused
        info = self.a.info
        model = Model(name=_clean(info.name, "mirabuf"), source=self.where)
        model.extras["mirabuf"] = {
            "guid": info.GUID, "version": info.version, "dynamic": self.a.dynamic,
            "keep_y_up": bool(np.array_equal(self.C, np.eye(3))),
            "user_data": dict(self.parts.user_data.data), "name": model.name,
        }
        self.meshes: dict = {}
        self.mesh_data: dict = {}
        self.mass_cache: dict = {}
        self.bad_meshes: list[str] = []
        self.bmeshes: list[str] = []
        undefined: list[str] = []
        used: set[str] = set()

        def unique(text: str, fallback: str, taken: set[str]) -> str:
            base = _clean(text, fallback)
            name, i = base, 1
            while name in taken:
                i += 1
                name = f"{base}_{i}"
            taken.add(name)
            return name

        # Root body first, then the others in design-tree order.
        node_ids = [self.ground] + [r for r in self.members if r != self.ground]
        self.link_of: dict[int, Link] = {}
        self.link_pose: dict[int, np.ndarray] = {}
        for rid in node_ids:
            keys = self.members[rid]
            # named and placed after its first part with geometry (a model or include
            # written as a part instance of its own has none)
            first = next((k for k in keys if self.has_bodies(k)), keys[0])
            X_WL = self.pose_of(first)
            link = Link(name=unique(self.iname(first), "link", used), source=self.where)
            link.pose = PoseSpec(Pose.from_matrix(X_WL), "", True, self.where)
            link.extras["mirabuf"] = {"part_instances": list(keys), "placed_by": first,
                                      "name": link.name,
                                      "grounded": rid == self.ground}
            X_LW = np.linalg.inv(X_WL)
            names: set[str] = set()
            masses = []
            for key in keys:
                inst = insts[key]
                d = defs.get(inst.part_definition_reference)
                if d is None:
                    undefined.append(inst.info.name or key)
                    continue
                X_LI = X_LW @ self.pose_of(key)
                pose = Pose.from_matrix(X_LI)
                density = self.density(inst, d)
                for i, body in enumerate(d.bodies):
                    mesh = self.mesh_of(inst.part_definition_reference, i, body)
                    if mesh is None:
                        continue
                    part_name = _clean(d.info.name, 'part')
                    body_name = f"{_clean(body.info.name, 'body')}_{i}"
                    geo = Geometry("mesh", {
                        "uri": f"mirabuf://{part_name}/{body_name}",
                        "scale": (CM, CM, CM), "submesh": None, "center_submesh": False,
                        "resolved_path": None,
                        "data": self.mesh_data_of(inst.part_definition_reference, i, mesh,
                                                  f"{part_name}_{body_name}")})
                    label = f"{inst.info.name or 'part'}_{body.info.name or i}"
                    extras = {"mirabuf_mesh": mesh, "mirabuf": {
                        "part_instance": key, "part_definition": inst.part_definition_reference,
                        "body": i, "appearance": body.appearance_override}}
                    vis = Visual(name=unique(label, "visual", names), source=self.where,
                                 pose=PoseSpec(pose, "", True, self.where), geometry=geo,
                                 color=self.color(body.appearance_override), extras=extras)
                    vis.parent = link
                    link.visuals.append(vis)
                    if not inst.skip_collider:
                        col = Collision(name=unique(label + "_collision", "collision", names),
                                        source=self.where,
                                        pose=PoseSpec(pose, "", True, self.where),
                                        geometry=Geometry("mesh", dict(geo.params)),
                                        density=density, extras=dict(extras))
                        col.parent = link
                        link.collisions.append(col)
                mp = self.own_mass(key)
                if mp is not None:
                    masses.append((mp, X_LI))
            if masses:
                self.set_inertial(link, masses)
            link.extras["mirabuf"]["visuals"] = len(link.visuals)
            link.extras["mirabuf"]["mass"] = link.inertial.mass if link.inertial else None
            model.add(link)
            self.link_of[rid] = link
            self.link_pose[rid] = X_WL
        if undefined:
            self.warn(f"part instances whose part definition is missing: {listed(undefined)}; "
                      "they have no geometry")
        if self.bad_meshes:
            self.warn(f"meshes with inconsistent arrays (vertex or index counts, indices out "
                      f"of range, non-finite vertices) were left out: {listed(self.bad_meshes)}")
        if self.bmeshes:
            self.warn(f"binary meshes (BinaryMesh, no defined layout) were left out: "
                      f"{listed(self.bmeshes)}")
        model.canonical_link = self.link_of[self.ground].name
        self.add_joints(model)
        return model

    def has_bodies(self, key: str) -> bool:
        d = self.parts.part_definitions.get(self.parts.part_instances[key].part_definition_reference)
        return d is not None and len(d.bodies) > 0

    def density(self, inst, d) -> float | None:
        pm = self.materials.physicalMaterials.get(inst.physical_material) \
            if inst.physical_material else None
        if pm is not None and pm.mechanical.density > 0:
            return float(pm.mechanical.density)  # kg/m^3 (Fusion's structural density)
        if d.physical_data.density > 0:
            return float(d.physical_data.density) * 1e6  # kg/cm^3 -> kg/m^3
        return None

    def own_mass(self, key: str):
        """Mass properties of one instance's own bodies in the instance frame, or None."""
        from snapframe.core.inertia.mass_properties import MassProperties
        inst = self.parts.part_instances[key]
        got = self.def_mass(inst.part_definition_reference)
        if got is None:
            return None
        mass, com, I, how = got
        if not (np.all(np.isfinite(com)) and np.all(np.isfinite(I))):
            return None
        # The instance frame is the definition frame in the file's axes; the output axes
        # differ only by C, applied through the instance pose (pose_of), so nothing here.
        return MassProperties(mass, com, I)

    def set_inertial(self, link: Link, masses) -> None:
        from snapframe.core.inertia.aggregate import aggregate
        from snapframe.core.inertia.link import inertial_from_mass_properties
        try:
            mp = aggregate([(m, Pose.from_matrix(X)) for m, X in masses])
        except (ValueError, np.linalg.LinAlgError):
            return
        if not (mp.mass > 0 and np.all(np.isfinite(mp.inertia))):
            return
        link.inertial = inertial_from_mass_properties(mp, source=self.where)
        link.inertial.written_inertia = True

    # -- joints ---------------------------------------------------------------------------
    def add_joints(self, model: Model) -> None:
        ji = self.joints.joint_instances
        jd = self.joints.joint_definitions
        edges: list[tuple[str, int, int]] = []
        unconverted: list[str] = []
        same: list[str] = []
        for key, inst in ji.items():
            if key == _GROUNDED:
                continue
            d = jd.get(inst.joint_reference)
            label = inst.info.name or key[:40]
            if d is None:
                unconverted.append(f"{label} (no joint definition)")
                continue
            if d.joint_motion_type not in (_REVOLUTE, _SLIDER, _BALL):
                unconverted.append(f"{label} ({_MOTION_NAMES.get(d.joint_motion_type, d.joint_motion_type)})")
                continue
            if inst.parent_part not in self.rigid or inst.child_part not in self.rigid:
                continue  # reported by group()
            ra, rb = self.rigid[inst.parent_part], self.rigid[inst.child_part]
            if ra == rb:
                same.append(label)
                continue
            edges.append((key, ra, rb))
        if same:
            self.warn(f"joints whose two parts are in one rigid body were left out: {listed(same)}")
        # Direct the joints by a search from the grounded body.
        adjacency: dict[int, list[tuple[str, int]]] = {}
        for key, ra, rb in edges:
            adjacency.setdefault(ra, []).append((key, rb))
            adjacency.setdefault(rb, []).append((key, ra))
        seen = {self.ground}
        directed: list[tuple[str, int, int]] = []
        loops: list[str] = []
        done_edges: set[str] = set()
        roots = [self.ground] + [r for r in self.link_of if r != self.ground]
        for root in roots:
            if root not in seen and root != self.ground:
                seen.add(root)
            stack = [root]
            while stack:
                r = stack.pop()
                for key, other in adjacency.get(r, ()):
                    if key in done_edges:
                        continue
                    done_edges.add(key)
                    if other in seen:
                        loops.append(ji[key].info.name or key[:40])
                        continue
                    seen.add(other)
                    directed.append((key, r, other))
                    stack.append(other)
        if loops:
            self.warn(f"joints that close a kinematic loop were left out: {listed(loops)}")
            unconverted.extend(f"{n} (closes a loop)" for n in loops)
        used = {link.name for link in model.links}
        if not self.a.dynamic:
            ground_link = self.link_of[self.ground]
            j = Joint(name=self.unique_joint("grounded", used), type="fixed", parent_name="world",
                      child_name=ground_link.name, source=self.where)
            j.extras["mirabuf"] = {"key": _GROUNDED}
            model.add(j)
        for key, rp, rc in directed:
            model.add(self.joint(key, ji[key], jd[ji[key].joint_reference], rp, rc, used))
        model.extras["mirabuf"]["joints"] = [key for key, _, _ in directed]
        if unconverted:
            self.warn("joints SDFormat cannot express here were left out (their parts move "
                      f"freely): {listed(unconverted)}")
            model.extras["mirabuf_unconverted_joints"] = unconverted

    def unique_joint(self, text: str, used: set[str]) -> str:
        base = _clean(text, "joint")
        name, i = base, 1
        while name in used:
            i += 1
            name = f"{base}_{i}"
        used.add(name)
        return name

    def joint(self, key: str, inst, d, rp: int, rc: int, used: set[str]) -> Joint:
        parent, child = self.link_of[rp], self.link_of[rc]
        j = Joint(name=self.unique_joint(inst.info.name or d.info.name or "joint", used),
                  parent_name=parent.name, child_name=child.name, source=self.where)
        o = np.array([d.origin.x + inst.offset.x, d.origin.y + inst.offset.y,
                      d.origin.z + inst.offset.z], dtype=float)
        X_WC = self.link_pose[rc]
        pivot = self.C @ (o * CM)
        X_CJ = np.eye(4)
        X_CJ[:3, 3] = np.linalg.inv(X_WC)[:3, :3] @ (pivot - X_WC[:3, 3])
        if not np.all(np.isfinite(X_CJ)):
            X_CJ = np.eye(4)
        j.pose = PoseSpec(Pose.from_matrix(X_CJ), "", True, self.where)
        # SDFormat's child moves; the file's parent_part is the moving side.  When the
        # search made the file's child_part side move, the angle's sign flips: so does
        # the axis.
        moving_is_parent_part = self.rigid.get(inst.parent_part) == rc
        sign = 1.0 if moving_is_parent_part else -1.0
        kind = d.joint_motion_type
        user = dict(d.user_data.data)
        j.extras["mirabuf"] = {"key": key, "motion_type": _MOTION_NAMES.get(kind, kind),
                               "user_data": user, "signal_reference": inst.signal_reference,
                               "motor_reference": d.motor_reference,
                               "parent_part": inst.parent_part, "child_part": inst.child_part,
                               "sign": sign, "name": j.name,
                               "parent": parent.name, "child": child.name}
        if kind == _BALL:
            j.type = "ball"
            return j
        dof = d.rotational.rotational_freedom if kind == _REVOLUTE else \
            d.prismatic.prismatic_freedom
        axis = np.array([dof.axis.x, dof.axis.y, dof.axis.z], dtype=float)
        if kind == _SLIDER:
            axis[0] = -axis[0]  # the exporter writes (-dx, dy, dz)
        elif self.a.info.version < 5:
            axis[0] = -axis[0]  # files before version 5 hold revolute axes with x negated
        n = float(np.linalg.norm(axis))
        if not (n > 0 and math.isfinite(n)):
            self.warn(f"joint '{j.name}' has no axis; z is taken")
            axis, n = np.array([0.0, 1.0, 0.0]), 1.0
        axis = sign * (self.C @ (axis / n))
        axis_child = np.linalg.inv(X_WC)[:3, :3] @ axis
        ja = JointAxis(xyz=tuple(float(v) for v in axis_child), source=self.where)
        lo, hi, value = float(dof.limits.lower), float(dof.limits.upper), float(dof.value)
        j.extras["mirabuf"]["value"] = value
        if kind == _REVOLUTE:
            j.type = "revolute"
            if abs(hi - lo) > 0.001 and all(map(math.isfinite, (lo, hi, value))):
                ja.lower, ja.upper = lo - value, hi - value
        else:
            j.type = "prismatic"
            if abs(hi - lo) > 0.001 and all(map(math.isfinite, (lo, hi, value))):
                ja.lower, ja.upper = (lo - value) * CM, (hi - value) * CM
        if ja.lower is not None and ja.lower > ja.upper:
            ja.lower, ja.upper = ja.upper, ja.lower
        if dof.limits.effort > 0:
            ja.effort = float(dof.limits.effort)
        if dof.limits.velocity > 0:
            ja.velocity = float(dof.limits.velocity)
        j.axes = [ja]
        return j
