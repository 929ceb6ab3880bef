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
        self.unsaved: list[str] = []

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
        info = model.extras["mirabuf"]
        if model.name != info.get("name", model.name):
            self.a.info.name = model.name
        if self.a.info.version < VERSION:
            self.upgrade_axes()
        links = [n for n in model.entities if isinstance(n, Link) and "mirabuf" in n.extras]
        kept_keys = set()
        world = dict(self.conv.world)        # instance key -> design matrix (cm)
        moved: set[str] = set()
        self.link_key: dict[str, str] = {}   # document link -> the instance that places it
        for link in links:
            extra = link.extras["mirabuf"]
            keys = [k for k in extra.get("part_instances", ()) if k in self.conv.world]
            kept_keys.update(keys)
            if not keys:
                continue
            first = extra.get("placed_by") or keys[0]
            if first not in self.conv.world:
                first = keys[0]
            self.link_key[link.name] = first
            X_now = self.pose(link.name)
            if X_now is not None:
                X_read = self.conv.pose_of(first)
                if np.abs(X_now - X_read).max() > _TOL:
                    D = self.to_file(X_now) @ np.linalg.inv(self.to_file(X_read))
                    for k in keys:
                        world[k] = D @ world[k]
                        moved.add(k)
            inst = self.insts.get(first)
            if inst is not None and link.name != extra.get("name", link.name):
                inst.info.name = link.name
            self.patch_parts(link, keys)
        removed = [k for k in self.conv.order if k not in kept_keys
                   and self.conv.has_bodies(k) and k in self.conv.rigid]
        self.remove_instances(removed)
        self.rewrite_transforms(world, moved, set(removed))
        self.keep_grounded(links)
        self.patch_joints()
        self.add_new_content(links)
        self.check_bodies(links)
        if self.unsaved:
            self.diag.warning(Code.CONVERSION_ERROR, "edits mirabuf cannot hold here were not "
                              f"saved: {listed(self.unsaved)}")
        return self.a

    def upgrade_axes(self) -> None:
        """Files before version 5 hold revolute axes with x negated (Synthesis undoes it
        by the version): saved as version 5, the axes are written as they are meant."""
        jd = self.a.data.joints.joint_definitions
        for d in jd.values():
            if d.joint_motion_type == _REVOLUTE and d.HasField("rotational"):
                ax = d.rotational.rotational_freedom.axis
                ax.x = -ax.x
        self.a.info.version = VERSION

    # -- parts: colours, masses, visuals ------------------------------------------------------
    def patch_parts(self, link: Link, keys: list[str]) -> None:
        extra = link.extras["mirabuf"]
        if len(link.visuals) != extra.get("visuals", len(link.visuals)):
            self.unsaved.append(f"{link.name} (visuals added or removed: a body belongs to "
                                "its part definition, shared by every instance)")
        for vis in link.visuals:
            self.patch_colour(link, vis)
        mass = extra.get("mass")
        now = link.inertial.mass if link.inertial is not None else None
        if mass is not None and now is not None and abs(now - mass) > 1e-9 * max(1.0, mass):
            self.patch_mass(link, keys, mass, now)

    def patch_colour(self, link: Link, vis) -> None:
        extra = vis.extras.get("mirabuf")
        if not extra or vis.color is None:
            return
        defs = self.a.data.parts.part_definitions
        d = defs.get(extra.get("part_definition", ""))
        i = extra.get("body")
        if d is None or i is None or i >= len(d.bodies):
            return
        mats = self.a.data.materials
        app = mats.appearances.get(d.bodies[i].appearance_override)
        rgba = tuple(min(max(int(round(float(c) * 255)), 1), 255) for c in vis.color)
        if app is not None and app.HasField("albedo"):
            c = app.albedo
            have = tuple(min(max(v, 0), 255) for v in (c.R, c.G, c.B, c.A))
            if all(abs(a - b) <= 1 for a, b in zip(have, rgba)):
                return
        # the colour is the body's, shared by every instance of its part definition
        sharing = [k for k, inst in self.insts.items()
                   if inst.part_definition_reference == extra.get("part_definition")]
        if len(sharing) > 1 and any(k not in link.extras["mirabuf"]["part_instances"]
                                    for k in sharing):
            self.unsaved.append(f"{link.name}/{vis.name} (colour: its part definition is "
                                "shared with other links)")
            return
        key = "rgba_{}_{}_{}_{}".format(*rgba)
        if key not in mats.appearances:
            new = mats.appearances[key]
            new.info.GUID = new.info.name = key
            new.albedo.R, new.albedo.G, new.albedo.B, new.albedo.A = rgba
            new.roughness, new.metallic, new.specular = 0.9, 0.3, 0.5
        d.bodies[i].appearance_override = key

    def patch_mass(self, link: Link, keys: list[str], mass: float, now: float) -> None:
        """A link's new mass, spread over its part definitions in proportion (possible when
        no other link uses those definitions)."""
        defs = self.a.data.parts.part_definitions
        used = {self.insts[k].part_definition_reference for k in keys if k in self.insts}
        others = [k for k, inst in self.insts.items()
                  if inst.part_definition_reference in used and k not in keys]
        if others or mass <= 0:
            self.unsaved.append(f"{link.name} (mass: its part definitions are shared with "
                                "other links)")
            return
        factor = now / mass
        for key in used:
            d = defs.get(key)
            if d is None:
                continue
            own = d.mass_override if d.mass_override > 0 else d.physical_data.mass
            if own > 0:
                d.mass_override = float(own * factor)

    # -- transforms --------------------------------------------------------------------------
    def rewrite_transforms(self, world: dict, moved: set[str], removed: set[str]) -> None:
        """New local and global transforms for moved instances, for the children of moved
        ones (which keep their world pose) and for instances whose tree parent was
        removed (now under its parent)."""
        for key in self.conv.order:
            if key in removed or key not in self.insts:
                continue
            written_parent = self.conv.tree_parent[key]
            parent = written_parent
            while parent is not None and parent in removed:
                parent = self.conv.tree_parent[parent]
            if key not in moved and (parent is None or parent not in moved) \
                    and parent == written_parent:
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
                    if k != "grounded" and (ji.parent_part in gone or ji.child_part in gone)]:
            del joints.joint_instances[key]
        for g in joints.rigid_groups:
            keep = [o for o in g.occurrences if o not in gone]
            del g.occurrences[:]
            g.occurrences.extend(keep)

    def keep_grounded(self, links: list[Link]) -> None:
        """The grounded part must name a part instance (Synthesis refuses the file
        otherwise): when its link was removed, the first remaining link is grounded."""
        g = self.a.data.joints.joint_instances.get("grounded")
        if g is None or not g.parts.nodes or g.parts.nodes[0].value in self.insts:
            return
        new = next((self.link_key[link.name] for link in links if link.name in self.link_key),
                   None)
        if new is None:
            return
        old = g.parts.nodes[0].value
        del g.parts.nodes[:]
        g.parts.nodes.add().value = new
        self.diag.warning(Code.CONVERSION_ERROR, f"the grounded part ({old[:40]}) was "
                          f"removed; {self.insts[new].info.name or new[:40]} is grounded now")

    # -- joints ------------------------------------------------------------------------------
    def patch_joints(self) -> None:
        jd = self.a.data.joints
        info = self.model.extras["mirabuf"]
        converted = set(info.get("joints", ()))
        present: set[str] = set()
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
            if j.name != extra.get("name", j.name):
                inst.info.name = j.name
            sign = float(extra.get("sign", 1.0))
            if (j.parent_name, j.child_name) != (extra.get("parent"), extra.get("child")):
                moving = self.link_key.get(j.child_name)
                base = self.link_key.get(j.parent_name)
                if moving is None or base is None:
                    self.unsaved.append(f"{j.name} (its links are not parts of the file)")
                    continue
                inst.parent_part, inst.child_part = moving, base   # moving side first
                del inst.parts.nodes[:]
                inst.parts.nodes.add().value = moving
                sign = 1.0
                self.force_axis = True
            else:
                self.force_axis = False
            why = self.patch_joint(j, d, inst, sign)
            if why:
                self.unsaved.append(f"{j.name} ({why})")
        for key in converted - present:
            jd.joint_instances.pop(key, None)   # removed in the editor

    def patch_joint(self, j: Joint, d, inst, sign: float) -> str:
        """Write ``j``'s pivot, axis, limits and type into definition ``d`` where they
        differ from it; returns why something could not be saved, or ''."""
        X = self.pose(j.name)
        if X is None:
            return ""
        pivot = self.C.T @ X[:3, 3] / CM
        offset = np.array([inst.offset.x, inst.offset.y, inst.offset.z], float)
        origin = np.array([d.origin.x, d.origin.y, d.origin.z], float)
        want = pivot - offset
        if np.abs(want - origin).max() > _TOL / CM * 10:
            d.origin.x, d.origin.y, d.origin.z = (float(v) for v in want)
        if j.type == "ball" and d.joint_motion_type == 6:
            return ""
        kind = {"revolute": _REVOLUTE, "continuous": _REVOLUTE, "prismatic": _SLIDER}.get(j.type)
        if kind is None:
            return f"type {j.type}"
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
        if self.force_axis or not (hn > 0 and np.abs(have / hn - axis).max() <= _TOL):
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
        for field in ("effort", "velocity"):
            want = getattr(axis_spec, field, None) if axis_spec is not None else None
            have_v = float(getattr(dof.limits, field))
            if want is not None and math.isfinite(want) and want > 0:
                if abs(want - have_v) > 1e-6 * max(1.0, want):
                    setattr(dof.limits, field, float(want))
            elif have_v > 0:
                setattr(dof.limits, field, 0.0)
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
        builder.known.update(self.link_key)
        root_key = self.conv.order[0]
        root_node = self.a.design_hierarchy.nodes[0]
        builder.world_of[root_key] = self.conv.world[root_key]
        builder.walk([e for e in new if not isinstance(e, Joint)], "", root_key, root_node,
                     self.conv.world[root_key])
        builder.joints = builder.joints + [("", j) for j in new if isinstance(j, Joint)]
        builder.add_materials(existing=True)
        builder.add_joints(model, existing=True)
        builder.set_dynamic(self.a.dynamic)
        builder.grounded = self.a.data.joints.joint_instances["grounded"].parts.nodes[0].value \
            if self.a.data.joints.joint_instances.get("grounded") is not None and \
            self.a.data.joints.joint_instances["grounded"].parts.nodes else None
        builder.group_check()
        builder.report()

    # -- rigid bodies --------------------------------------------------------------------------
    def check_bodies(self, links: list[Link]) -> None:
        """Warn when Synthesis will weld links of the document together (a joint removed,
        a link left without one)."""
        conv = _Converter(self.a, "", Diagnostics(), False)
        conv.build_tree()
        conv.group()
        by_node: dict[int, list[str]] = {}
        for link in links:
            key = self.link_key.get(link.name)
            if key is not None and key in conv.rigid:
                by_node.setdefault(conv.rigid[key], []).append(link.name)
        welded = [" + ".join(names) for names in by_node.values() if len(names) > 1]
        if welded:
            self.diag.warning(Code.CONVERSION_ERROR, "Synthesis makes one rigid body of links "
                              "no joint separates (a joint removed, or a link without one): "
                              f"{listed(welded)}")


