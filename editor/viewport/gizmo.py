"""The transform gizmo: arrows to move and rings to rotate the selected element.

The handles sit at the element's frame, oriented like the frame its pose is written in
(``relative_to``), so dragging the x arrow changes only the pose's x and dragging a ring
turns the element about that frame's axis through its own origin.  Every mouse move is a
:class:`SetPose` of the same element (the command stack merges them: a whole drag is one
undo step); the viewport, the inspector and everything else follow through the core's
events.  Moves snap to a grid step and rotations to an angle step unless Shift is held.
The handles keep their size on screen whatever the zoom.
"""

from __future__ import annotations

import math

import numpy as np
from vtkmodules.vtkCommonMath import vtkMatrix4x4
from vtkmodules.vtkRenderingCore import vtkCellPicker

from snapframe.core.model import Include
from snapframe.core.model.edits import EditRefused, SetPose
from snapframe.core.pose import IDENTITY, Pose

from .vtkdata import polydata, set_rgb

__all__ = ["Gizmo", "GRID_STEP", "ANGLE_STEP"]

#: Default snapping: metres per move step and radians per rotation step.
GRID_STEP = 0.005
ANGLE_STEP = math.radians(5.0)
#: Handle length as a fraction of the distance from the camera (constant size on screen).
SCREEN_SIZE = 0.1

_AXIS_RGB = np.array([[214, 48, 49], [39, 174, 96], [45, 123, 224]], dtype=np.uint8)
_HOT_RGB = np.array([255, 180, 0], dtype=np.uint8)


def _handles() -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[str, int]]]:
    """Unit handle geometry: points, segments, colours per segment and, per segment, the
    handle it belongs to (("move", axis) or ("turn", axis))."""
    points: list[np.ndarray] = []
    segments: list[tuple[int, int]] = []
    owner: list[tuple[str, int]] = []
    for axis in range(3):
        e = np.eye(3)[axis]
        u, w = np.eye(3)[(axis + 1) % 3], np.eye(3)[(axis + 2) % 3]
        # the arrow: a shaft from 0.15 to 1 and a four-stroke head
        start = len(points)
        points += [0.15 * e, e]
        segments.append((start, start + 1))
        owner.append(("move", axis))
        for side in (u, -u, w, -w):
            points.append(0.85 * e + 0.06 * side)
            segments.append((start + 1, len(points) - 1))
            owner.append(("move", axis))
        # the ring: a circle of radius 0.7 in the plane normal to the axis
        t = np.linspace(0.0, 2 * math.pi, 49)
        ring = [0.7 * (math.cos(a) * u + math.sin(a) * w) for a in t]
        first = len(points)
        points += ring
        for i in range(len(ring) - 1):
            segments.append((first + i, first + i + 1))
            owner.append(("turn", axis))
    colours = np.array([_AXIS_RGB[a] for _, a in owner], dtype=np.uint8)
    return np.array(points), np.array(segments), colours, owner


def _closest_on_line(origin: np.ndarray, d: np.ndarray, ray_o: np.ndarray,
                     ray_d: np.ndarray) -> float | None:
    """Parameter t of the point ``origin + t d`` closest to the ray; None when the ray
    runs along the line (nothing to read from the mouse)."""
    w = origin - ray_o
    a, b, c = d @ d, d @ ray_d, ray_d @ ray_d
    denom = a * c - b * b
    if abs(denom) < 1e-12 * a * c:
        return None
    return float((b * (ray_d @ w) - c * (d @ w)) / denom)


def _angle_in_plane(origin: np.ndarray, normal: np.ndarray, ray_o: np.ndarray,
                    ray_d: np.ndarray, u: np.ndarray, w: np.ndarray) -> float | None:
    """Angle (about ``normal``, from ``u`` towards ``w``) where the ray meets the plane."""
    den = normal @ ray_d
    if abs(den) < 1e-9:
        return None
    s = (normal @ (origin - ray_o)) / den
    v = ray_o + s * ray_d - origin
    return math.atan2(float(v @ w), float(v @ u))


def _snap(value: float, step: float) -> float:
    return round(value / step) * step if step > 0 else value


class Gizmo:
    """Handles on one element of a viewport (see the module docstring)."""

    def __init__(self, viewport) -> None:
        self.viewport = viewport
        self.canvas = viewport.canvas
        self.session = viewport.session
        self.key: str | None = None
        self.enabled = True
        self.grid_step = GRID_STEP
        self.angle_step = ANGLE_STEP
        points, segments, colours, owner = _handles()
        self._owner = owner
        self._colours = colours
        self._mesh = polydata(points, segments=segments)
        set_rgb(self._mesh, colours, on_points=False)
        self.actor = self.canvas.add_mesh(self._mesh, rgb=True, line_width=3.0, lighting=False,
                                          pickable=True)
        mapper = self.actor.GetMapper()
        # drawn over the scene: a handle inside a part can still be grabbed
        mapper.SetResolveCoincidentTopologyToPolygonOffset()
        mapper.SetRelativeCoincidentTopologyLineOffsetParameters(0, -66000)
        self.actor.SetVisibility(False)
        self._picker = vtkCellPicker()
        self._picker.SetTolerance(0.006)
        self._picker.PickFromListOn()
        self._picker.AddPickList(self.actor)
        self._X_WG = np.eye(4)       # the handles' frame: element origin, written frame axes
        self._drag: dict | None = None
        self._hot: tuple[str, int] | None = None

    # -- which element ------------------------------------------------------------------
    def attach(self, key: str | None) -> None:
        """Put the handles on ``key`` (None, or an element that cannot move: none)."""
        self.key = key if key is not None and self._movable(key) else None
        self.update()

    def _movable(self, key: str) -> bool:
        doc = self.session.document
        node = doc.element(key)
        try:
            SetPose(doc, node, IDENTITY)   # built, not pushed: can it be edited?
        except (EditRefused, AttributeError, TypeError):
            return False
        return key in self.session.live.poses

    def _frames(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(X_WR, X_RE): the world pose of the frame the element's pose is written in,
        and the written pose.  For an include with a placement frame the written pose
        places that frame (SDFormat's rule), so the handles sit there."""
        doc, table = self.session.document, self.session.live.poses
        node = doc.element(self.key)
        anchor = self.key
        if isinstance(node, Include) and node.placement_frame:
            anchor = f"{self.key}::{node.placement_frame}"
        if node is None or anchor not in table:
            return None
        X_RE = node.pose.value.matrix() if getattr(node, "pose", None) is not None else np.eye(4)
        X_WE = table.pose(anchor)
        return X_WE @ np.linalg.inv(X_RE), X_RE

    # -- drawing ------------------------------------------------------------------------
    def update(self) -> None:
        """Follow the element and the camera (called before each frame and after moves)."""
        frames = self._frames() if (self.enabled and self.key is not None) else None
        if frames is None:
            self.actor.SetVisibility(False)
            return
        X_WR, X_RE = frames
        X_WG = np.eye(4)
        X_WG[:3, :3] = X_WR[:3, :3]
        X_WG[:3, 3] = (X_WR @ X_RE)[:3, 3]
        self._X_WG = X_WG
        camera = self.canvas.camera
        if camera.GetParallelProjection():
            size = SCREEN_SIZE * 2.0 * camera.GetParallelScale()
        else:
            size = SCREEN_SIZE * float(np.linalg.norm(np.array(camera.GetPosition()) - X_WG[:3, 3]))
        if not (math.isfinite(size) and np.all(np.isfinite(X_WG))):
            self.actor.SetVisibility(False)     # a camera or pose that is not a number
            return
        M = X_WG.copy()
        M[:3, :3] *= max(size, 1e-9)
        matrix = vtkMatrix4x4()
        for i in range(4):
            for j in range(4):
                matrix.SetElement(i, j, float(M[i, j]))
        self.actor.SetUserMatrix(matrix)
        self.actor.SetVisibility(True)

    def _highlight(self, handle: tuple[str, int] | None) -> None:
        if handle == self._hot:
            return
        self._hot = handle
        colours = self._colours.copy()
        if handle is not None:
            colours[[o == handle for o in self._owner]] = _HOT_RGB
        set_rgb(self._mesh, colours, on_points=False)

    # -- the mouse ----------------------------------------------------------------------
    def handle_at(self, x: int, y: int) -> tuple[str, int] | None:
        """The handle drawn at widget pixel (x, y), if any."""
        if not self.actor.GetVisibility():
            return None
        widget = self.viewport.widget
        ratio = widget.devicePixelRatioF()
        if not self._picker.Pick(x * ratio, (widget.height() - y) * ratio, 0,
                                 self.canvas.renderer):
            return None
        cell = self._picker.GetCellId()
        return self._owner[cell] if 0 <= cell < len(self._owner) else None

    def _ray(self, x: int, y: int) -> tuple[np.ndarray, np.ndarray]:
        renderer = self.canvas.renderer
        widget = self.viewport.widget
        ratio = widget.devicePixelRatioF()
        dx, dy = x * ratio, (widget.height() - y) * ratio
        ends = []
        for z in (0.0, 1.0):
            renderer.SetDisplayPoint(dx, dy, z)
            renderer.DisplayToWorld()
            w = renderer.GetWorldPoint()
            ends.append(np.array(w[:3]) / (w[3] or 1.0))
        return ends[0], ends[1] - ends[0]

    def press(self, x: int, y: int) -> bool:
        """Start a drag if (x, y) is on a handle; True when the gizmo takes the mouse."""
        handle = self.handle_at(x, y)
        frames = self._frames() if handle is not None else None
        if handle is None or frames is None:
            return False
        X_WR, X_RE = frames
        kind, axis = handle
        origin = self._X_WG[:3, 3]
        d = X_WR[:3, axis]
        ray_o, ray_d = self._ray(x, y)
        if kind == "move":
            start = _closest_on_line(origin, d, ray_o, ray_d)
        else:
            u, w = X_WR[:3, (axis + 1) % 3], X_WR[:3, (axis + 2) % 3]
            start = _angle_in_plane(origin, d, ray_o, ray_d, u, w)
        if start is None:
            return False
        self._drag = {"handle": handle, "start": start, "X_WR": X_WR, "X_RE": X_RE,
                      "node": self.session.document.element(self.key)}
        self._highlight(handle)
        return True

    def hover(self, x: int, y: int) -> bool:
        """Light the handle under the mouse; True when that changed what is drawn."""
        before = self._hot
        self._highlight(self.handle_at(x, y))
        return self._hot != before

    def move(self, x: int, y: int, free: bool = False) -> bool:
        """Drag to (x, y); ``free`` (Shift) turns snapping off.  True while dragging."""
        drag = self._drag
        if drag is None:
            return False
        kind, axis = drag["handle"]
        X_WR, X_RE = drag["X_WR"], drag["X_RE"]
        origin = (X_WR @ X_RE)[:3, 3]
        d = X_WR[:3, axis]
        ray_o, ray_d = self._ray(x, y)
        X_new = X_RE.copy()
        if kind == "move":
            t = _closest_on_line(origin, d, ray_o, ray_d)
            if t is None:
                return True
            delta = t - drag["start"]
            delta = delta if free else _snap(delta, self.grid_step)
            X_new[axis, 3] += delta
        else:
            u, w = X_WR[:3, (axis + 1) % 3], X_WR[:3, (axis + 2) % 3]
            angle = _angle_in_plane(origin, d, ray_o, ray_d, u, w)
            if angle is None:
                return True
            delta = (angle - drag["start"] + math.pi) % (2 * math.pi) - math.pi
            delta = delta if free else _snap(delta, self.angle_step)
            # about the written frame's axis, through the element's own origin
            c, s = math.cos(delta), math.sin(delta)
            R = np.eye(3)
            i, j = (axis + 1) % 3, (axis + 2) % 3
            R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
            X_new[:3, :3] = R @ X_RE[:3, :3]
        self.session.push(SetPose(self.session.document, drag["node"], Pose.from_matrix(X_new)))
        return True

    def release(self) -> bool:
        """End the drag (one undo step); True if there was one."""
        if self._drag is None:
            return False
        self._drag = None
        self.session.document.commands.end_merge()
        self._highlight(None)
        return True

    @property
    def dragging(self) -> bool:
        return self._drag is not None

    def close(self) -> None:
        self.canvas.remove_actor(self.actor)
