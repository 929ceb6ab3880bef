"""The small x/y/z marker in a corner of the view, turning with the camera.

One actor in a renderer of its own (layer 1, a corner viewport, drawn over the scene):
three coloured shafts with flat arrow heads and the letters X, Y, Z drawn as strokes that
face the viewer.  Strokes instead of text: no font rendering, crisp at any size, and one
draw call, which a software renderer pays for in every frame.  The marker's camera copies
the scene camera's direction before each frame (the window's ``StartEvent``).
"""

from __future__ import annotations

import numpy as np
from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper, vtkRenderer

from .vtkdata import points_of, polydata, set_rgb, touched

__all__ = ["AxesMarker"]

_RGB = np.array([[214, 48, 49], [39, 174, 96], [45, 123, 224]], dtype=np.uint8)
#: Arrow heads: this many sides, this long and this wide (shaft length 1).
_HEAD_SIDES, _HEAD_LENGTH, _HEAD_RADIUS = 8, 0.25, 0.08
#: Letters: centred this far along their axis, this tall (in marker units).
_LETTER_AT, _LETTER_SIZE = 1.32, 0.22
#: Strokes of the letters in a unit box centred on the letter ((x, y) pairs).
_LETTERS = {
    "X": [((-0.5, -0.5), (0.5, 0.5)), ((-0.5, 0.5), (0.5, -0.5))],
    "Y": [((-0.5, 0.5), (0.0, 0.0)), ((0.5, 0.5), (0.0, 0.0)), ((0.0, 0.0), (0.0, -0.5))],
    "Z": [((-0.5, 0.5), (0.5, 0.5)), ((0.5, 0.5), (-0.5, -0.5)), ((-0.5, -0.5), (0.5, -0.5))],
}


def _marker_geometry() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Points, segments, triangles and per-point colours of the marker in its own frame;
    and where the letter points start (they are rewritten for every view)."""
    points, segments, triangles, colours = [], [], [], []
    angles = np.linspace(0.0, 2.0 * np.pi, _HEAD_SIDES, endpoint=False)
    for axis in range(3):
        u, v = np.eye(3)[(axis + 1) % 3], np.eye(3)[(axis + 2) % 3]
        tip, base = np.eye(3)[axis], np.eye(3)[axis] * (1.0 - _HEAD_LENGTH)
        start = len(points)
        points += [np.zeros(3), base]
        segments.append((start, start + 1))
        ring = [base + _HEAD_RADIUS * (np.cos(a) * u + np.sin(a) * v) for a in angles]
        first = len(points)
        points += ring + [tip, base]
        apex, centre = first + _HEAD_SIDES, first + _HEAD_SIDES + 1
        for i in range(_HEAD_SIDES):
            j = (i + 1) % _HEAD_SIDES
            triangles += [(first + i, first + j, apex), (first + j, first + i, centre)]
        colours += [_RGB[axis]] * (len(points) - start)
    letters = len(points)
    for axis, name in enumerate("XYZ"):
        for _stroke in _LETTERS[name]:
            segments.append((len(points), len(points) + 1))
            points += [np.zeros(3), np.zeros(3)]
            colours += [_RGB[axis]] * 2
    return (np.array(points), np.array(segments), np.array(triangles),
            np.array(colours, dtype=np.uint8), letters)


class AxesMarker:
    """The orientation marker of one render window (see the module docstring)."""

    def __init__(self, render_window, scene: vtkRenderer,
                 viewport: tuple[float, float, float, float] = (0.0, 0.0, 0.16, 0.2)) -> None:
        self.scene = scene
        self.renderer = vtkRenderer()
        self.renderer.SetViewport(*viewport)
        self.renderer.SetLayer(1)
        self.renderer.InteractiveOff()
        self.renderer.SetPreserveColorBuffer(True)
        if render_window.GetNumberOfLayers() < 2:
            render_window.SetNumberOfLayers(2)
        render_window.AddRenderer(self.renderer)
        points, segments, triangles, colours, self._letters = _marker_geometry()
        self.mesh = polydata(points, triangles=triangles, segments=segments)
        set_rgb(self.mesh, colours, on_points=True)
        mapper = vtkPolyDataMapper()
        mapper.SetInputData(self.mesh)
        mapper.SetColorModeToDirectScalars()
        mapper.SetScalarModeToUsePointData()
        self.actor = vtkActor()
        self.actor.SetMapper(mapper)
        prop = self.actor.GetProperty()
        prop.SetLighting(False)
        prop.SetLineWidth(2.0)
        self.renderer.AddActor(self.actor)
        camera = self.renderer.GetActiveCamera()
        camera.ParallelProjectionOn()
        camera.SetParallelScale(1.5)       # the arrows and their letters, with a margin
        self._view: tuple[float, ...] = ()
        self._observer = render_window.AddObserver("StartEvent", lambda *_: self.follow())
        self._window = render_window

    def follow(self) -> None:
        """Turn the marker as the scene's camera looks, letters facing the viewer."""
        source = self.scene.GetActiveCamera()
        view = source.GetDirectionOfProjection() + source.GetViewUp()
        if view == self._view:
            return                       # (an edit or a drag: the camera stayed)
        self._view = view
        d, up = np.array(view[:3]), np.array(view[3:])
        camera = self.renderer.GetActiveCamera()
        camera.SetFocalPoint(0.0, 0.0, 0.0)
        camera.SetPosition(*(-5.0 * d))
        camera.SetViewUp(*up)
        camera.SetClippingRange(0.1, 10.0)
        right = np.cross(d, up)
        norm = np.linalg.norm(right)
        right = right / norm if norm > 0 else np.array([1.0, 0.0, 0.0])
        up = np.cross(right, d)
        P = points_of(self.mesh)
        i = self._letters
        for axis, name in enumerate("XYZ"):
            centre = np.eye(3)[axis] * _LETTER_AT
            for a, b in _LETTERS[name]:
                for x, y in (a, b):
                    P[i] = centre + _LETTER_SIZE * (x * right + y * up)
                    i += 1
        touched(self.mesh)

    def set_visible(self, on: bool) -> None:
        self.actor.SetVisibility(on)

    def close(self) -> None:
        self._window.RemoveObserver(self._observer)
        self._window.RemoveRenderer(self.renderer)
