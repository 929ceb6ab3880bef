"""The 3D scene of a document, mirrored from the live core by element key.

:class:`SceneMirror` builds a few merged layers from the live pose table (visuals,
collisions, a triad layer per frame kind, joint axes with their limits, centres of mass
and equivalent inertia boxes) and keeps them current from the core's events: a pose
change moves only the instances whose keys moved; a structure change rebuilds; an
inertia change redraws that link's box.  It draws on a :class:`Canvas`, so the same code
draws in the editor's Qt viewport and in an offscreen render.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

import numpy as np

from snapframe.core.live.keys import ROOT, join_key
from snapframe.core.model import Collision, Joint, Link, Visual

from ..frame_graphs import document_graph
from .canvas import Canvas
from .layers import ArrowLayer, KeyQuery, LineLayer, MeshLayer, TriadLayer
from .shapes import ROUND, ROUND_SHAPES, Triangles, segments_for, shape_mesh
from .vtkdata import bounds_of, hex_rgb, points_of, polydata, touched

__all__ = ["SceneMirror", "TRIAD_KINDS", "Look", "VIEWS", "camera_position"]

#: camera direction (from the focal point towards the camera) and up vector per view
VIEWS = {
    "iso": ((1.0, -1.0, 0.8), (0.0, 0.0, 1.0)),
    "top": ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
    "front": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
    "side": ((0.0, -1.0, 0.0), (0.0, 0.0, 1.0)),
}


def camera_position(bounds, view: str) -> list:
    """(position, focal point, view up) looking at ``bounds`` from a standard view."""
    direction, up = VIEWS[view]
    b = np.array(bounds if bounds is not None else (-1, 1, -1, 1, -1, 1)).reshape(3, 2)
    centre = b.mean(axis=1)
    dist = max(float(np.linalg.norm(b[:, 1] - b[:, 0])), 0.1) * 2.0
    d = np.asarray(direction) / np.linalg.norm(direction)
    return [tuple(centre + d * dist), tuple(centre), up]

#: Joint limit arcs: at most ARC_POINTS points, ARC_STEP radians apart (a full turn in
#: 16 strokes: every segment costs a thousand-joint scene a little)
ARC_POINTS = 16
ARC_STEP = 0.4

#: Edited fields that change the drawings of joint axes / of the frame graphs.
_AXIS_FIELDS = frozenset({"type", "axis", "axes", "xyz", "lower", "upper", "expressed_in",
                          "limit", "limits"})
_GRAPH_FIELDS = frozenset({"relative_to", "attached_to", "parent_name", "child_name", "name",
                           "placement_frame", "uri", "canonical_link"})

#: Points farther than this (metres) are left out of the view's bounds.
FAR = 1e9

#: Joint limits this large mean "no limit" (SDFormat's default is 1e16).
NO_LIMIT = 1e15

#: Teaching mode's arrows: to the frame a pose is written in / to the frame attached to.
RELATIVE_RGB = (74, 111, 165)
ATTACHED_RGB = (43, 158, 122)

#: Frame kinds that get triads, each its own layer so it can be toggled.
TRIAD_KINDS = ("link", "joint", "frame", "mate_connector", "model")


@dataclass
class Look:
    """Colours and styles (light and dark themes differ only in the background).

    The background is flat unless ``background_top`` is given: a gradient is one more
    full-window pass per frame, a tenth of a frame's time with software OpenGL."""

    background: str = "#e9eef3"
    background_top: str | None = None
    visual: tuple[int, int, int] = (176, 188, 204)
    collision: tuple[int, int, int] = (230, 126, 34)
    selection: str = "#ffb400"
    hover: str = "#3d9be9"
    grid: str = "#b9c3cd"
    axis: tuple[int, int, int] = (142, 68, 173)
    com: str = "#e84393"
    chain: str = "#e67e22"
    inertia: tuple[int, int, int] = (232, 67, 147)

    @classmethod
    def dark(cls) -> "Look":
        return cls(background="#262b32", visual=(150, 162, 178),
                   grid="#4a5360")


def _rgb(color) -> tuple[int, int, int]:
    r, g, b = color[:3]
    return (int(round(255 * r)), int(round(255 * g)), int(round(255 * b)))


def _inertia_box(mass: float, com: np.ndarray, I: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray] | None:
    """(dimensions, 4x4 pose in the link frame) of the uniform box with the same mass and
    principal moments; None when the tensor has no such box (not positive definite or
    breaking the triangle inequality)."""
    if not (mass > 0 and np.all(np.isfinite(I))):
        return None
    moments, axes = np.linalg.eigh((I + I.T) / 2)
    a, b, c = moments
    sq = np.array([b + c - a, a + c - b, a + b - c]) * 6.0 / mass
    if np.any(sq <= 0):
        return None
    if np.linalg.det(axes) < 0:
        axes[:, 2] *= -1
    X = np.eye(4)
    X[:3, :3] = axes
    X[:3, 3] = com
    return np.sqrt(sq), X


def _limit(value: float | None) -> float | None:
    """A joint limit, or None for none: SDFormat writes "no limit" as 1e16 (and files
    use the largest double)."""
    if value is None or not math.isfinite(value) or abs(value) >= NO_LIMIT:
        return None
    return float(value)


def _box_triangles(dims: np.ndarray) -> Triangles:
    from .shapes import _box
    return _box(*dims)


class SceneMirror:
    """Layers of one document on one canvas (see the module docstring)."""

    def __init__(self, canvas: Canvas, document, look: Look | None = None) -> None:
        self.canvas = canvas
        self.document = document
        self.live = document.live
        self.look = look or Look()
        self.visuals = MeshLayer("visuals")
        self.collisions = MeshLayer("collisions")
        self.triads = {kind: TriadLayer(kind) for kind in TRIAD_KINDS}
        self.axes = LineLayer("joint axes")
        self.inertia = LineLayer("inertia boxes")
        self.arrows = ArrowLayer("frame graphs")
        self.chain: list[str] = []          # keys of the highlighted relative_to chain
        # link key -> (box edges in the link frame (12, 2, 3), centre of mass (3,))
        self._inertia_entries: dict[str, tuple] = {}
        self._entries: dict[str, list] = {}      # layer name -> its collected instances
        self._stale: set[str] = set()           # layers collected but not built yet
        self.actors: dict[str, object] = {}
        self.visible = {"visuals": True, "collisions": False, "link": True, "joint": False,
                        "frame": True, "mate_connector": True, "model": False,
                        "joint axes": True, "inertia boxes": False, "frame graphs": False,
                        "grid": True}
        self.scale = 1.0
        self.triad_size = 0.08
        #: The user's factor on the automatic triad size (the triad size preference).
        self.triad_scale = 1.0
        self.segments = ROUND         # around round shapes (fewer in crowded scenes)
        self.still = True             # wide lines (see set_still)
        self._overlays: dict[str, object] = {}
        # highlight name -> (keys, their drawn members, colour, line width)
        self._overlay_spec: dict[str, tuple[list[str], set[str], str, float]] = {}
        self._sorted_keys: list[str] | None = None
        self.rebuild()

    # -- building -----------------------------------------------------------------
    def rebuild(self) -> None:
        """Collect every layer's instances from the document and the pose table (open,
        structure changes) and build the layers that are shown; a hidden layer is built
        from the current poses when it is first shown (see :meth:`set_visible`)."""
        table = self.live.poses
        visual_entries, collision_entries = [], []
        triads: dict[str, list[str]] = {k: [] for k in TRIAD_KINDS}
        joints: list[tuple[str, Joint]] = []
        self._inertia_entries = {}
        # the instances of one included element share one node: their drawings are
        # worked out once (shapes, axis drawings, inertia boxes)
        box_cache: dict[int, tuple | None] = {}
        keys, kinds, nodes = table.rows()

        def of_kind(kind: str):
            return ((keys[i], nodes[i]) for i in np.flatnonzero(kinds == kind))

        for key, node in of_kind("visual"):
            if isinstance(node, Visual):
                color = _rgb(node.color) if node.color else self.look.visual
                visual_entries.append((key, node.geometry, color))
        for key, node in of_kind("collision"):
            if isinstance(node, Collision):
                collision_entries.append((key, node.geometry, self.look.collision))
                link = node.parent
                if isinstance(link, Link) and not link.visuals:
                    # a body with contact geometry only (OpenPLX, many URDFs): its
                    # collisions are what it looks like
                    visual_entries.append((key, node.geometry, self.look.visual))
        for kind in TRIAD_KINDS:
            triads[kind] = [key for key, _node in of_kind(kind) if key != ROOT]
        for key, node in of_kind("joint"):
            if key != ROOT and isinstance(node, Joint):
                joints.append((key, node))   # drawn once the scene's scale is known
        for key, node in of_kind("link"):
            if key != ROOT and isinstance(node, Link):
                if id(node) not in box_cache:
                    box_cache[id(node)] = self._inertia_entry(node)
                if box_cache[id(node)] is not None:
                    self._inertia_entries[key] = box_cache[id(node)]
        self.segments = segments_for(sum(g.shape in ROUND_SHAPES for _k, g, _c in visual_entries))
        self._entries = {"visuals": self._with_shapes(visual_entries),
                         "collisions": self._with_shapes(collision_entries), **triads}
        self._sorted_keys = None
        self._stale = set(self._layers())
        self._build_layer("visuals")          # always: the scene's scale comes from it
        self.scale = self._scene_scale()
        self.triad_size = self._triad_size()
        self._joints = joints
        self._axes_in_other_frames: set[str] = set()
        self._collect_axes()
        for name, layer in self._layers().items():
            if name not in self._stale:
                continue
            if self.visible.get(name, True):
                self._build_layer(name)
            else:
                layer.build([])          # nothing stale left to move
        self._show_all()
        for name, (keys, _members, color, width) in list(self._overlay_spec.items()):
            # members may have changed
            if name == "chain":
                self.highlight_chain(keys[0] if keys else None, color, width)
            else:
                self.highlight(name, keys, color, width)

    def _with_shapes(self, entries: list[tuple[str, object, tuple]]) -> list[tuple]:
        """(key, shape, colour) of the entries (key, geometry, colour) that can be drawn;
        the instances of one included element share one geometry, meshed once."""
        shapes: dict[int, Triangles | None] = {}
        out = []
        for key, geometry, color in entries:
            if id(geometry) not in shapes:
                shapes[id(geometry)] = shape_mesh(geometry, self.segments)
            shape = shapes[id(geometry)]
            if shape is not None:
                out.append((key, shape, color))
        return out

    def _collect_axes(self) -> None:
        """Each joint's axis drawing (and its limits), in the joint's frame."""
        table = self.live.poses
        cache: dict[int, list | None] = {}
        entries = []
        self._axes_in_other_frames = set()
        for key, joint in self._joints:
            # an axis expressed in another frame may differ per scope, and turns when
            # that frame moves relative to the joint: drawn afresh
            other = any(a.expressed_in and a.expressed_in != joint.name for a in joint.axes)
            if other:
                self._axes_in_other_frames.add(key)
            if key not in table:
                continue
            if not other and id(joint) in cache:
                axis = cache[id(joint)]
            else:
                axis = self._joint_axis(key, joint, table.pose(key))
                if not other:
                    cache[id(joint)] = axis
            if axis is not None:
                entries.append((key, axis, self.look.axis))
        self._entries["joint axes"] = entries

    def _build_axes(self) -> None:
        self._collect_axes()
        if "joint axes" in self._stale:
            return                    # built when first shown
        self._build_layer("joint axes")

    def _build_layer(self, name: str) -> None:
        """Build one layer from its collected instances at their current poses."""
        self._stale.discard(name)
        if name in ("visuals", "collisions"):
            self._sorted_keys = None      # the outline's members come from these
        table = self.live.poses
        if name == "inertia boxes":
            self._build_inertia()
            return
        if name == "frame graphs":
            self._build_arrows()
            return
        entries = self._entries[name]
        layer = self._layers()[name]
        if name in TRIAD_KINDS:
            layer.size = self.triad_size * (1.0 if name != "model" else 1.5)
            layer.build(list(zip(entries, table.poses(entries))))
            return
        poses = table.poses([e[0] for e in entries])
        layer.build([(e[0], e[1], X, e[2]) if name == "joint axes" else (*e, X)
                     for e, X in zip(entries, poses)])

    def _triad_size(self) -> float:
        """Frames drawn at a size that suits the parts, not the whole scene: 8 % of the
        scene's diagonal, but at most half the median part's (a world of 300 robots
        would otherwise bury every robot under metre-long triads)."""
        size = 0.08 * self.scale
        sizes = [(float(np.linalg.norm(g.shape.points.max(axis=0) - g.shape.points.min(axis=0))),
                  len(g.members)) for g in self.visuals._groups]
        if sizes:
            diags = np.repeat([d for d, _ in sizes], [n for _, n in sizes])
            size = min(size, 0.5 * float(np.median(diags)))
        return max(size, 1e-3) * self.triad_scale

    def set_triad_scale(self, scale: float) -> None:
        """Draw triads (and what is sized after them: joint axes, arrows, centre-of-mass
        crosses) at ``scale`` times their automatic size."""
        if scale != self.triad_scale:
            self.triad_scale = float(scale)
            self.rebuild()

    def _scene_scale(self) -> float:
        if self.visuals.mesh is not None:
            b = np.array(bounds_of(self.visuals.mesh)).reshape(3, 2)
        elif len(self.live.poses):
            P = self.live.poses.poses(self.live.poses.keys)[:, :3, 3]
            b = np.stack([P.min(axis=0), P.max(axis=0)], axis=1)
        else:
            return 1.0
        diag = float(np.linalg.norm(b[:, 1] - b[:, 0]))
        return max(diag, 0.05) if math.isfinite(diag) else 1.0

    def _joint_axis(self, key: str, joint: Joint, X_WJ: np.ndarray) -> list[np.ndarray] | None:
        if not joint.axes or joint.type in ("fixed", "ball"):
            return None
        axis = joint.axes[0]
        v = np.asarray(axis.xyz, dtype=float)
        if axis.expressed_in and axis.expressed_in != joint.name:
            scope = key.rpartition("::")[0]
            table = self.live.poses
            other = scope if axis.expressed_in == "__model__" else join_key(scope,
                                                                            axis.expressed_in)
            if other in table:
                v = X_WJ[:3, :3].T @ table.pose(other)[:3, :3] @ v
        n = np.linalg.norm(v)
        if n < 1e-12:
            return None
        v = v / n
        L = self.triad_size
        lines = [np.array([-v * L * 0.3, v * L])]
        lo, hi = _limit(axis.lower), _limit(axis.upper)
        if joint.type in ("revolute", "revolute2", "universal") and lo is not None \
                and hi is not None and hi > lo:
            # the allowed range as an arc around the axis, from the joint's x direction
            # (a range of a turn or more is a full circle)
            hi = min(hi, lo + 2 * math.pi)
            u = np.cross(v, [0.0, 0.0, 1.0]) if abs(v[2]) < 0.9 else np.cross(v, [1.0, 0, 0])
            u /= np.linalg.norm(u)
            w = np.cross(v, u)
            most = max(4, ARC_POINTS * self.segments // ROUND)   # fewer in crowded scenes
            t = np.linspace(lo, hi, int(np.clip((hi - lo) / ARC_STEP, 4, most)))
            r = L * 0.6
            arc = (np.cos(t)[:, None] * u + np.sin(t)[:, None] * w) * r
            lines.append(np.vstack([[0, 0, 0], arc, [0, 0, 0]]))
        elif joint.type == "prismatic" and lo is not None and hi is not None and hi > lo:
            # the travel as a bar along the axis (clipped to the scene: a 100 km travel
            # would leave the robots invisible)
            reach = 2.0 * self.scale
            lines.append(np.array([v * max(lo, -reach), v * min(hi, reach)]))
        return lines

    def _inertia_entry(self, link: Link):
        """(box edges (12, 2, 3) and centre of mass, in the link frame) of a link's
        equivalent inertia box, or None."""
        inertial = link.inertial
        if inertial is None:
            return None
        computed = getattr(inertial, "computed", None)
        if inertial.auto:
            if computed is None:
                return None
            mass, com, I = computed.mass, computed.com, computed.inertia
        else:
            mass = inertial.mass if inertial.mass is not None else 1.0
            X_LC = inertial.pose.value
            I_C = np.array([[inertial.ixx, inertial.ixy, inertial.ixz],
                            [inertial.ixy, inertial.iyy, inertial.iyz],
                            [inertial.ixz, inertial.iyz, inertial.izz]])
            R = X_LC.rotation_matrix()
            I, com = R @ I_C @ R.T, np.asarray(X_LC.p)
        com = np.asarray(com, dtype=float)
        box = _inertia_box(mass, com, np.asarray(I, dtype=float))
        if box is None:
            return None
        dims, X_LB = box
        shape = _box_triangles(dims)
        corners = shape.points @ X_LB[:3, :3].T + X_LB[:3, 3]
        return corners[shape.outline()], com

    # -- showing ------------------------------------------------------------------
    def _layers(self) -> dict[str, object]:
        return {"visuals": self.visuals, "collisions": self.collisions, **self.triads,
                "joint axes": self.axes, "inertia boxes": self.inertia,
                "frame graphs": self.arrows}

    def _show_all(self) -> None:
        for name in list(self.actors):
            self.canvas.remove_actor(self.actors.pop(name))
        for name in self._layers():
            self._add_actor(name)
        self._ghost()
        self._grid()

    def _add_actor(self, name: str) -> None:
        """(Re)create the actor of one built layer."""
        old = self.actors.pop(name, None)
        if old is not None:
            self.canvas.remove_actor(old)
        mesh = self._layers()[name].mesh
        if mesh is None or name in self._stale:
            return
        if name in ("visuals", "collisions"):
            actor = self.canvas.add_mesh(
                mesh, rgb=True, opacity=0.45 if name == "collisions" else 1.0, pickable=True,
                ambient=0.25, diffuse=0.7, specular=0.12, specular_power=20, cull_back=True)
        else:
            # lines in their own colours (no shading)
            actor = self.canvas.add_mesh(mesh, rgb=True, line_width=self._line_width(name),
                                         lighting=False, pickable=name in TRIAD_KINDS)
        actor.SetVisibility(self.visible.get(name, True))
        self.actors[name] = actor

    def _build_arrows(self) -> None:
        """The relative_to graph (blue: to the frame a pose is written in) and the
        attached_to graph (green: to the frame a frame moves with) as arrows."""
        graph = document_graph(self.document)
        self._graph = graph
        table = self.live.poses
        keys = [k for k in graph.nodes if k in table]
        origins = dict(zip(keys, table.poses(keys)[:, :3, 3])) if keys else {}
        arrows = [(a, b, RELATIVE_RGB) for a, b in graph.relative_to.items()]
        arrows += [(a, b, ATTACHED_RGB) for a, b in graph.attached_to]
        self.arrows.build(arrows, origins, head=self.triad_size * 0.3)

    def chain_of(self, key: str | None) -> list[str]:
        """``key`` and the frames its pose is written relative to, out to the root."""
        graph = getattr(self, "_graph", None)
        chain: list[str] = []
        while graph is not None and key is not None and key not in chain:
            chain.append(key)
            key = graph.relative_to.get(key)
        return chain

    def _line_width(self, name: str) -> float:
        if not self.still:
            return 1.0
        return 1.5 if name == "inertia boxes" else 2.5

    def set_still(self, still: bool) -> None:
        """Draw the still frame's wide lines, or 1-pixel lines while things move.  Wider
        lines take a geometry shader that software OpenGL runs slowly (a third of a frame
        of the 100-robot world): frames drawn during a drag or an orbit go without them,
        and the still frame that follows has them (see the viewport's polish)."""
        if still == self.still:
            return
        self.still = still
        for name, actor in self.actors.items():
            if name != "grid" and name not in ("visuals", "collisions"):
                actor.GetProperty().SetLineWidth(self._line_width(name))

    def _grid(self) -> None:
        if "grid" in self.actors:
            self.canvas.remove_actor(self.actors.pop("grid"))
        step = 10 ** math.floor(math.log10(max(self.scale, 1e-3) / 4))
        half = step * max(5, math.ceil(self.scale / step))
        ticks = np.arange(-half, half + step / 2, step)
        pts = []
        for t in ticks:
            pts += [(t, -half, 0), (t, half, 0), (-half, t, 0), (half, t, 0)]
        grid = polydata(np.array(pts, dtype=float), segments=np.arange(len(pts)).reshape(-1, 2))
        # opaque, in the colour a translucent grid would show over the background: a
        # translucent actor costs a second pass of the whole scene
        colour = 0.6 * np.array(hex_rgb(self.look.grid)) + 0.4 * np.array(hex_rgb(self.look.background))
        actor = self.canvas.add_mesh(grid, color=tuple(colour), lighting=False)
        actor.SetVisibility(self.visible["grid"])
        self.actors["grid"] = actor

    def set_visible(self, name: str, on: bool) -> None:
        self.visible[name] = on
        if on and name in self._stale:
            # first shown: built now, from the current poses
            self._build_layer(name)
            self._add_actor(name)
        actor = self.actors.get(name)
        if actor is not None:
            actor.SetVisibility(on)
        self._ghost()

    def _ghost(self) -> None:
        """With the frame graphs shown, the bodies turn translucent: the triads and
        arrows inside them are what teaching mode is about."""
        actor = self.actors.get("visuals")
        if actor is not None:
            actor.GetProperty().SetOpacity(0.3 if self.visible.get("frame graphs") else 1.0)

    # -- following the core ---------------------------------------------------------
    def on_poses(self, event) -> bool:
        """Move what moved; True when anything drawn changed."""
        keys, X = list(event.keys), event.poses
        changed = False
        table = self.live.poses
        found = KeyQuery(keys, event.rows, event.generation)   # searched by every layer
        by_row = event.rows is not None and event.generation == table.generation
        for layer in self._layers().values():
            if by_row:
                layer.bind_rows(table.index, table.generation)   # (once per generation)
            changed |= bool(layer.move(found, X))
        moved = set(keys)
        if not moved.isdisjoint(self._axes_in_other_frames):
            self._build_axes()        # drawn from the frame they are expressed in
            self._add_actor("joint axes")
            changed = True
        # (an overlay may show what no built layer holds: a hidden frame kind's triad)
        changed |= self._refresh_overlays(moved)
        return changed

    def on_edited(self, event) -> bool:
        """Redraw what an edit changes without moving anything: a joint's axis, limits or
        type; the frame graphs (relative_to, attached_to...).  True when anything did."""
        fields = {f for c in event.changes for f in c.fields}
        changed = False
        if fields & _AXIS_FIELDS:
            self._build_axes()
            self._add_actor("joint axes")
            changed = True
        if fields & _GRAPH_FIELDS and self.visible.get("frame graphs"):
            self._build_arrows()
            self._add_actor("frame graphs")
            chain = self._overlay_spec.get("chain")
            if chain is not None:
                self.highlight_chain(chain[0][0] if chain[0] else None, chain[2], chain[3])
            changed = True
        return changed

    def refresh_inertia(self, keys: list[str]) -> None:
        """Redraw the inertia boxes of links whose mass properties changed."""
        table = self.live.poses
        for key in keys:
            node = table.node(key) if key in table else None
            entry = self._inertia_entry(node) if isinstance(node, Link) else None
            if entry is None:
                self._inertia_entries.pop(key, None)
            else:
                self._inertia_entries[key] = entry
        if "inertia boxes" not in self._stale:
            self._build_inertia()
            self._add_actor("inertia boxes")

    def _build_inertia(self) -> None:
        """Each link's box edges and a small cross at its centre of mass, drawn in the
        link's frame (so they move with it; instances of one included link share them)."""
        table = self.live.poses
        keys = [k for k in self._inertia_entries if k in table]
        X = table.poses(keys) if keys else np.zeros((0, 4, 4))
        drawings: dict[int, list[np.ndarray]] = {}
        entries = []
        c = self.triad_size * 0.3
        for key, X_WL in zip(keys, X):
            entry = self._inertia_entries[key]
            if id(entry) not in drawings:
                edges, com = entry
                cross = [np.array([com - d, com + d]) for d in np.eye(3) * c]
                drawings[id(entry)] = [*edges, *cross]
            entries.append((key, drawings[id(entry)], X_WL, self.look.inertia))
        self.inertia.build(entries)

    # -- picking and highlighting ----------------------------------------------------
    def key_at_cell(self, actor, cell: int) -> str | None:
        for name, layer in self._layers().items():
            if self.actors.get(name) is actor:
                return layer.key_of_cell(cell)
        return None

    def _members(self, key: str) -> set[str]:
        """Keys of the drawn instances that belong to element ``key`` (itself, its parts
        ``key#...`` and everything nested ``key::...``), by binary search over the
        sorted keys: this runs for the selection after every pose change."""
        if key == ROOT:
            return set()
        if self._sorted_keys is None:
            self._sorted_keys = sorted({*self.visuals.index, *self.collisions.index})
        keys = self._sorted_keys
        out = set()
        for prefix in (key + "#", key + "::"):
            i = bisect.bisect_left(keys, prefix)
            while i < len(keys) and keys[i].startswith(prefix):
                out.add(keys[i])
                i += 1
        i = bisect.bisect_left(keys, key)
        if i < len(keys) and keys[i] == key:
            out.add(key)
        return out

    def highlight(self, name: str, keys: list[str], color: str, width: float = 3.0) -> None:
        """Outline ``keys``'s geometry (or draw their frames) on top in ``color``."""
        members: set[str] = set()
        for key in keys:
            members |= self._members(key)
        self._overlay_spec[name] = (list(keys), members, color, width)
        self._draw_overlay(name)

    def highlight_chain(self, key: str | None, color: str, width: float = 4.0) -> None:
        """Draw the relative_to chain of ``key`` as arrows on top (teaching mode)."""
        self.chain = self.chain_of(key) if self.visible.get("frame graphs") else []
        self._overlay_spec["chain"] = (list(self.chain), set(), color, width)
        self._draw_overlay("chain")

    def _refresh_overlays(self, moved: set[str]) -> bool:
        hit = False
        for name, (keys, members, _c, _w) in self._overlay_spec.items():
            if not moved.isdisjoint(members) or not moved.isdisjoint(keys):
                self._draw_overlay(name)
                hit = True
        return hit

    def _draw_overlay(self, name: str) -> None:
        keys, members, color, width = self._overlay_spec[name]
        ends = [layer.outline(members) for lname, layer in (("visuals", self.visuals),
                                                             ("collisions", self.collisions))
                if self.visible.get(lname)]
        table = self.live.poses
        frames = [table.pose(key) for key in keys if key in table and key != ROOT]
        if name == "chain":
            # arrows from each frame to the one its pose is written in
            pairs = [(a, b) for a, b in zip(keys, keys[1:]) if a in table and b in table]
            if pairs:
                chain = ArrowLayer("chain")
                origins = {k: table.pose(k)[:3, 3] for pair in pairs for k in pair}
                chain.build([(a, b, (0, 0, 0)) for a, b in pairs], origins, self.triad_size * 0.35)
                pts = points_of(chain.mesh).reshape(-1, 4, 3)
                ends.append(pts[:, [0, 1, 1, 2, 1, 3]].reshape(-1, 3))
            frames = []
        if frames:
            # a small triad: origin to the tip of each axis
            X = np.stack(frames)
            o = X[:, None, :3, 3]
            tips = o + self.triad_size * 1.1 * np.transpose(X[:, :3, :3], (0, 2, 1))
            ends.append(np.stack([np.broadcast_to(o, tips.shape), tips], axis=2).reshape(-1, 3))
        # (nothing at all to draw from when the bodies are hidden and no frame is named)
        points = np.concatenate(ends) if ends else np.zeros((0, 3))
        actor = self._overlays.get(name)
        if not len(points):
            if actor is not None:
                actor.SetVisibility(False)
            return
        rgb = hex_rgb(color)
        if actor is not None and np.allclose(actor.GetProperty().GetColor(), rgb) \
                and actor.GetProperty().GetLineWidth() == width:
            # same look: only the lines change; moved lines (a drag) are moved in place
            current = actor.GetMapper().GetInput()
            if current is not None and current.GetNumberOfPoints() == len(points):
                points_of(current)[:] = points
                touched(current)
            else:
                actor.GetMapper().SetInputData(
                    polydata(points, segments=np.arange(len(points)).reshape(-1, 2)))
            actor.SetVisibility(True)
            return
        outline = polydata(points, segments=np.arange(len(points)).reshape(-1, 2))
        if actor is not None:
            self.canvas.remove_actor(actor)
        actor = self.canvas.add_mesh(outline, color=color, line_width=width, lighting=False)
        mapper = actor.GetMapper()
        # drawn over the geometry it outlines, so it shows from every side
        mapper.SetResolveCoincidentTopologyToPolygonOffset()
        mapper.SetRelativeCoincidentTopologyLineOffsetParameters(0, -66000)
        self._overlays[name] = actor

    def bounds(self) -> tuple[float, ...] | None:
        """The box around what is drawn (visuals and collisions, else the frames),
        leaving out points that are not finite or absurdly far (a part at 1e200 m must
        not leave the camera nowhere)."""
        meshes = [m for m in (self.visuals.mesh, self.collisions.mesh) if m is not None]
        if meshes:
            b = np.array([bounds_of(m) for m in meshes]).reshape(len(meshes), 3, 2)
            lo, hi = b[:, :, 0].min(axis=0), b[:, :, 1].max(axis=0)
            if np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and \
                    max(np.abs(lo).max(), np.abs(hi).max()) < FAR:
                return (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])   # VTK's, cached
            P = np.concatenate([points_of(m) for m in meshes])
        else:
            table = self.live.poses
            P = table.poses(table.keys)[:, :3, 3] if len(table) else np.zeros((0, 3))
        P = P[np.all(np.isfinite(P), axis=1) & (np.abs(P).max(axis=1, initial=0.0) < FAR)]
        if not len(P):
            return None
        lo, hi = P.min(axis=0), P.max(axis=0)
        return (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])