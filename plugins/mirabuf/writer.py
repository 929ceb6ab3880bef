"""Save documents as mirabuf (``.mira``): gzip by default, as the Synthesis exporter does.

* A document read from a ``.mira`` file is saved by **editing the assembly it was read
  from** (``document.extras["mirabuf_assembly"]``): everything the core model does not hold
  (keys, GUIDs, signals, motors, materials, user data, the thumbnail, cylindrical, planar and
  custom joints) is written back as read.  Saved from the document: link poses (the local
  transforms of each link's part instances, and of design-tree children that did not move,
  with their global transforms), link and model names, joint pivots, axes, limits and types
  (revolute, slider), joints and links removed, and anything added in the editor (links,
  models, includes, joints), written as :mod:`.assembly_builder` writes a new file.  A
  document saved without edits decodes to the message read.
* Any other document becomes a new assembly (:func:`.assembly_builder.build_assembly`).

What cannot be saved is reported in ``document.diagnostics``.
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np

from snapframe.core.diagnostics import Code, Diagnostics
from snapframe.core.fileio import atomic_write
from snapframe.core.limits import listed
from snapframe.core.model import Document, Joint, Link, Model
from snapframe.core.model.names import WORLD

from .assembly_builder import AssemblyBuilder, VERSION, build_assembly
from .reader import CM, Y_UP_TO_Z_UP, _Converter

__all__ = ["write", "assembly_of", "encode", "GZIP_LEVEL"]

#: gzip level of saved files: the exporter's 9 takes more than twice as long for 0.3 %
#: smaller files (the 3 MB field: 0.20 s against 0.09 s); Synthesis reads any level.
GZIP_LEVEL = 6
#: Poses, pivots and axes closer than this to what the file holds are not rewritten (the
#: file's floats stay as they are).
_TOL = 1e-6
_REVOLUTE, _SLIDER = 1, 2


def write(document: Document, path: str | Path, *, compress: bool = True, **_options) -> None:
    """Save ``document`` as a ``.mira`` file (atomically; gzip unless ``compress`` is
    False); what mirabuf cannot hold is reported in ``document.diagnostics``."""
    atomic_write(path, encode(assembly_of(document, document.diagnostics), compress))


def encode(assembly, compress: bool = True) -> bytes:
    """The bytes of a ``.mira`` file holding ``assembly`` (map entries in key order)."""
    data = assembly.SerializeToString(deterministic=True)
    return gzip.compress(data, GZIP_LEVEL, mtime=0) if compress else data


def assembly_of(document: Document, diagnostics: Diagnostics | None = None):
    """The ``Assembly`` to save for ``document``."""
    diags = diagnostics if diagnostics is not None else Diagnostics()
    original = document.extras.get("mirabuf_assembly")
    root = document.root
    if original is not None and isinstance(root, Model) and "mirabuf" in root.extras:
        return _Patcher(document, original, diags).patch()
    return build_assembly(document, diags)


def _matrix16(M: np.ndarray) -> list[float]:
    return [float(v) for v in M.reshape(-1)]


class _Patcher:
    """Writes the edits of a document read from mirabuf into a copy of its assembly."""

    def __init__(self, document: Document, original, diagnostics: Diagnostics) -> None:
        from snapframe.core.frames import FrameGraph
        self.doc = document
        self.model: Model = document.root
        self.diag = diagnostics
        self.a = type(original)()
        self.a.CopyFrom(original)
        info = self.model.extras["mirabuf"]
        self.C = np.eye(3) if info.get("keep_y_up") else Y_UP_TO_Z_UP
        self.graph = FrameGraph(document)
        # the file as read: design tree, world matrices, rigid bodies
        self.conv = _Converter(original, "", Diagnostics(), bool(info.get("keep_y_up")))
        self.conv.build_tree()
        self.conv.group()
        self.insts = self.a.data.parts.part_instances

    # -- helpers -----------------------------------------------------------------------------
    def to_file(self, X: np.ndarray) -> np.ndarray:
        """World matrix (m, output axes) -> design matrix (cm, file axes)."""
        out = np.eye(4)
        out[:3, :3] = self.C.T @ X[:3, :3]
        out[:3, 3] = self.C.T @ X[:3, 3] / CM
        return out

    def pose(self, name: str) -> np.ndarray | None:
        try:
            return self.graph.pose(name).matrix()
        except Exception:   # unresolvable: the checks report it; the file keeps its pose
            return None

    # -- the edit ----------------------------------------------------------------------------
    def patch(self):
        model = self.model
        if model.name and model.name != self.conv.a.info.name and \
                model.name != _clean_name(self.conv.a.info.name):
            self.a.info.name = model.name
        links = [n for n in model.entities if isinstance(n, Link) and "mirabuf" in n.extras]
        kept_keys = set()
        world = dict(self.conv.world)        # instance key -> design matrix (cm)
        moved: set[str] = set()
        renamed = 0
        for link in links:
            keys = [k for k in link.extras["mirabuf"].get("part_instances", ())
                    if k in self.conv.world]
            kept_keys.update(keys)
            if not keys:
                continue
            first = link.extras["mirabuf"].get("placed_by") or keys[0]
            if first not in self.conv.world:
                first = keys[0]
            X_now = self.pose(link.name)
            if X_now is None:
                continue
            X_read = self.conv.pose_of(first)
            if np.abs(X_now - X_read).max() > _TOL:
                D = self.to_file(X_now) @ np.linalg.inv(self.to_file(X_read))
                for k in keys:
                    world[k] = D @ world[k]
                    moved.add(k)
            inst = self.insts.get(first)
            if inst is not None and link.name != _clean_name(inst.info.name or "") \
                    and not _is_uniquified(link.name, inst.info.name):
                inst.info.name = link.name
                renamed += 1
        removed = [k for k in self.conv.order if k not in kept_keys
                   and self.conv.has_bodies(k) and self._link_of_read(k)]
        self.remove_instances(removed)
        self.rewrite_transforms(world, moved, set(removed))
        self.patch_joints(links)
        self.add_new_content(links)
        self.a.info.version = max(self.a.info.version, VERSION)
        return self.a

    def _link_of_read(self, key: str) -> bool:
        """Whether the reader made ``key`` part of a link (every tree instance is)."""
        return key in self.conv.rigid

    # -- transforms --------------------------------------------------------------------------
    def rewrite_transforms(self, world: dict, moved: set[str], removed: set[str]) -> None:
        """New local and global transforms for moved instances and the children of moved
        ones (which keep their world pose)."""
        if not moved:
            return
        for key in self.conv.order:
            if key in removed or key not in self.insts:
                continue
            parent = self.conv.tree_parent[key]
            while parent is not None and parent in removed:
                parent = self.conv.tree_parent[parent]
            if key not in moved and (parent is None or parent not in moved):
                continue
            W = world[key]
            local = W if parent is None else np.linalg.inv(world[parent]) @ W
            inst = self.insts[key]
            del inst.transform.spatial_matrix[:]
            inst.transform.spatial_matrix.extend(_matrix16(local))
            if inst.HasField("global_transform") or parent is not None:
                del inst.global_transform.spatial_matrix[:]
                inst.global_transform.spatial_matrix.extend(_matrix16(W))

    def remove_instances(self, keys: list[str]) -> None:
        """Remove part instances whose links were deleted: their design-tree nodes give
        their children to their parents; joints and rigid groups naming them go too."""
        if not keys:
            return
        gone = set(keys)
        for k in keys:
            self.insts.pop(k, None)

        def pruned(nodes) -> list:
            """Copies of ``nodes`` without the removed ones (their children in their
            place).  Recursive: protobuf refuses messages deeper than 100 levels anyway."""
            out = []
            for node in nodes:
                kids = pruned(node.children)
                if node.value in gone:
                    out.extend(kids)
                    continue
                copy = type(node)()
                copy.CopyFrom(node)
                del copy.children[:]
                copy.children.extend(kids)
                out.append(copy)
            return out
        tree = self.a.design_hierarchy.nodes
        kept = pruned(tree)
        del tree[:]
        tree.extend(kept)
        joints = self.a.data.joints
        for key in [k for k, ji in joints.joint_instances.items()
                    if ji.parent_part in gone or ji.child_part in gone]:
            del joints.joint_instances[key]
        for g in joints.rigid_groups:
            keep = [o for o in g.occurrences if o not in gone]
            del g.occurrences[:]
            g.occurrences.extend(keep)

    # -- joints ------------------------------------------------------------------------------
    def patch_joints(self, links: list[Link]) -> None:
        jd = self.a.data.joints
        info = self.model.extras["mirabuf"]
        converted = set(info.get("joints", ()))
        present: set[str] = set()
        unsaved: list[str] = []
        for j in self.model.joints:
            extra = j.extras.get("mirabuf")
            if not extra or extra.get("key") in (None, "grounded"):
                continue
            key = extra["key"]
            present.add(key)
            inst = jd.joint_instances.get(key)
            d = jd.joint_definitions.get(inst.joint_reference) if inst is not None else None
            if d is None:
                continue
            if j.name != _clean_name(inst.info.name or d.info.name or "") and \
                    not _is_uniquified(j.name, inst.info.name or d.info.name):
                inst.info.name = j.name
            why = self.patch_joint(j, d, float(extra.get("sign", 1.0)))
            if why:
                unsaved.append(f"{j.name} ({why})")
        for key in converted - present:
            jd.joint_instances.pop(key, None)   # removed in the editor
        if unsaved:
            self.diag.warning(Code.CONVERSION_ERROR, "joint edits mirabuf cannot hold were not "
                              f"saved: {listed(unsaved)}")

    def patch_joint(self, j: Joint, d, sign: float) -> str:
        """Write ``j``'s pivot, axis, limits and type into definition ``d`` where they
        differ from it; returns why something could not be saved, or ''."""
        kind = {"revolute": _REVOLUTE, "continuous": _REVOLUTE, "prismatic": _SLIDER}.get(j.type)
        if kind is None:
            return f"type {j.type}" if j.type != "ball" or d.joint_motion_type != 6 else ""
        X = self.pose(j.name)
        if X is None:
            return ""
        pivot = self.C.T @ X[:3, 3] / CM
        inst_offset = np.zeros(3)
        for ji in self.a.data.joints.joint_instances.values():
            if ji.joint_reference == d.info.GUID or ji.joint_reference in (d.info.GUID,):
                inst_offset = np.array([ji.offset.x, ji.offset.y, ji.offset.z], float)
                break
        origin = np.array([d.origin.x, d.origin.y, d.origin.z], float)
        want = pivot - inst_offset
        if np.abs(want - origin).max() > _TOL / CM * 10:
            d.origin.x, d.origin.y, d.origin.z = (float(v) for v in want)
        if d.joint_motion_type != kind:
            d.joint_motion_type = kind
            (d.rotational if kind == _REVOLUTE else d.prismatic).SetInParent()
        dof = d.rotational.rotational_freedom if kind == _REVOLUTE else \
            d.prismatic.prismatic_freedom
        axis_spec = j.axes[0] if j.axes else None
        xyz = np.asarray(axis_spec.xyz if axis_spec else (0.0, 0.0, 1.0), float)
        R = X[:3, :3]
        if axis_spec is not None and axis_spec.expressed_in and axis_spec.expressed_in != j.name:
            F = self.pose(axis_spec.expressed_in) if axis_spec.expressed_in != "__model__" \
                else np.eye(4)
            if F is not None:
                R = F[:3, :3]
        axis = R @ xyz
        n = float(np.linalg.norm(axis))
        if not n > 0:
            return "axis without direction"
        axis = sign * (self.C.T @ (axis / n))
        if kind == _SLIDER:
            axis[0] = -axis[0]
        have = np.array([dof.axis.x, dof.axis.y, dof.axis.z], float)
        hn = float(np.linalg.norm(have))
        if not (hn > 0 and np.abs(have / hn - axis).max() <= _TOL):
            dof.axis.x, dof.axis.y, dof.axis.z = (float(v) for v in axis)
        scale = 1.0 if kind == _REVOLUTE else 1.0 / CM
        value = float(dof.value)
        lo_f, hi_f = float(dof.limits.lower), float(dof.limits.upper)
        limited = abs(hi_f - lo_f) > 0.001
        lo = axis_spec.lower if axis_spec is not None and j.type != "continuous" else None
        hi = axis_spec.upper if axis_spec is not None and j.type != "continuous" else None
        if lo is not None and hi is not None and abs(lo) < 1e15 and abs(hi) < 1e15 \
                and math.isfinite(lo) and math.isfinite(hi):
            new_lo, new_hi = lo * scale + value, hi * scale + value
            if not limited or abs(new_lo - lo_f) > _TOL * scale or \
                    abs(new_hi - hi_f) > _TOL * scale:
                dof.limits.lower, dof.limits.upper = new_lo, new_hi
        elif limited:
            dof.limits.lower = dof.limits.upper = 0.0   # limits removed in the editor
        return ""

    # -- added in the editor -----------------------------------------------------------------
    def add_new_content(self, links: list[Link]) -> None:
        model = self.model
        new = [e for e in model.entities if "mirabuf" not in e.extras
               and not (isinstance(e, Joint) and e.extras.get("mirabuf"))]
        if not new:
            return
        builder = AssemblyBuilder(self.doc, self.diag, assembly=self.a,
                                  y_up=not np.array_equal(self.C, np.eye(3)))
        for link in links:
            first = link.extras["mirabuf"].get("placed_by")
            if first in self.insts:
                builder.known[link.name] = first
        root_key = self.conv.order[0]
        root_node = self.a.design_hierarchy.nodes[0]
        builder.walk([e for e in new if not isinstance(e, Joint)], "", root_key, root_node,
                     self.conv.world[root_key])
        joints = [(prefix, j) for prefix, j in builder.joints] + \
            [("", j) for j in new if isinstance(j, Joint)]
        builder.joints = joints
        builder.add_materials(existing=True)
        builder.add_joints(model, existing=True)
        builder.report()


def _clean_name(text: str) -> str:
    from .reader import _clean
    return _clean(text, "")


def _is_uniquified(name: str, original: str | None) -> bool:
    """``name`` is the reader's unique form of ``original`` (``<clean>_<n>``)."""
    base = _clean_name(original or "")
    head, _, tail = name.rpartition("_")
    return bool(base) and head == base and tail.isdigit()
