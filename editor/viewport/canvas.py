"""A VTK renderer with the few drawing calls the scene needs.

:class:`Canvas` holds one renderer in a render window: the editor's Qt viewport gives it
the window of its VTK widget; :meth:`Canvas.offscreen` makes one for pictures (``snapframe
render``, thumbnails).  It speaks VTK directly: the editor opens in a fraction of the time
a plotting library's import takes, and every render is one the scene asked for.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonDataModel import vtkPolyData
from vtkmodules.vtkRenderingCore import (vtkActor, vtkPolyDataMapper, vtkRenderer,
                                         vtkRenderWindow, vtkWindowToImageFilter)

import vtkmodules.vtkRenderingOpenGL2  # noqa: F401  (registers the OpenGL back end)

from .vtkdata import hex_rgb

__all__ = ["Canvas"]


def _rgb(color) -> tuple[float, float, float]:
    return hex_rgb(color) if isinstance(color, str) else tuple(float(c) for c in color[:3])


class Canvas:
    """One renderer in a render window (see the module docstring)."""

    def __init__(self, render_window: vtkRenderWindow) -> None:
        self.render_window = render_window
        self.renderer = vtkRenderer()
        render_window.AddRenderer(self.renderer)
        render_window.SetMultiSamples(0)   # software OpenGL pays for every sample
        # the planes follow every frame, the camera interaction's too
        render_window.AddObserver("StartEvent", lambda *_: self.clip())
        self._axes = None

    @classmethod
    def offscreen(cls, size: tuple[int, int]) -> "Canvas":
        window = vtkRenderWindow()
        window.SetOffScreenRendering(1)
        window.SetSize(int(size[0]), int(size[1]))
        window.SetAlphaBitPlanes(1)
        return cls(window)

    # -- actors ---------------------------------------------------------------------
    def add_mesh(self, mesh: vtkPolyData, *, rgb: bool = False, color=None,
                 line_width: float = 1.0, opacity: float = 1.0, wireframe: bool = False,
                 pickable: bool = False, ambient: float = 0.0, diffuse: float = 1.0,
                 specular: float = 0.0, specular_power: float = 1.0,
                 lighting: bool = True, cull_back: bool = False) -> vtkActor:
        """Draw ``mesh``: with its own ``rgb`` colours (point or cell data named "rgb",
        as they are) or in one ``color``.  ``cull_back`` skips the faces turned away from
        the camera (for surfaces wound as :class:`~.shapes.Triangles` are)."""
        mapper = vtkPolyDataMapper()
        mapper.SetInputData(mesh)
        if rgb:
            mapper.SetColorModeToDirectScalars()
            on_points = mesh.GetPointData().GetScalars() is not None
            if on_points:
                mapper.SetScalarModeToUsePointData()
            else:
                mapper.SetScalarModeToUseCellData()
            mapper.ScalarVisibilityOn()
        else:
            mapper.ScalarVisibilityOff()
        actor = vtkActor()
        actor.SetMapper(mapper)
        prop = actor.GetProperty()
        if color is not None:
            prop.SetColor(*_rgb(color))
        prop.SetLineWidth(line_width)
        prop.SetOpacity(opacity)
        if wireframe:
            prop.SetRepresentationToWireframe()
        prop.SetInterpolationToFlat()     # faceted, as CAD parts look; no normals needed
        prop.SetAmbient(ambient)
        prop.SetDiffuse(diffuse)
        prop.SetSpecular(specular)
        prop.SetSpecularPower(specular_power)
        prop.SetLighting(lighting)
        prop.SetBackfaceCulling(cull_back)
        actor.SetPickable(pickable)
        self.renderer.AddActor(actor)
        return actor

    def remove_actor(self, actor) -> None:
        self.renderer.RemoveActor(actor)

    # -- look -----------------------------------------------------------------------
    def set_background(self, bottom: str, top: str | None = None) -> None:
        """A flat background, or a vertical gradient from ``bottom`` to ``top``."""
        self.renderer.SetBackground(*_rgb(bottom))
        if top is not None:
            self.renderer.SetBackground2(*_rgb(top))
        self.renderer.SetGradientBackground(top is not None)

    def add_axes(self, interactor=None) -> None:
        """The small x/y/z marker in the lower left corner (see :mod:`.axes_marker`)."""
        from .axes_marker import AxesMarker
        if self._axes is None:
            self._axes = AxesMarker(self.render_window, self.renderer)

    def set_fxaa(self, on: bool) -> None:
        self.renderer.SetUseFXAA(on)

    # -- camera ---------------------------------------------------------------------
    @property
    def camera(self):
        return self.renderer.GetActiveCamera()

    def set_camera(self, position, focal_point, up) -> None:
        camera = self.camera
        camera.SetPosition(*position)
        camera.SetFocalPoint(*focal_point)
        camera.SetViewUp(*up)
        self.renderer.ResetCameraClippingRange()

    def fit(self, bounds, margin: float = 0.9) -> None:
        """Aim at ``bounds`` and zoom until their corners fill ``margin`` of the view's
        shorter side (VTK's own reset fits a bounding sphere: a tall model then fills a
        third of a wide view)."""
        if not all(math.isfinite(b) for b in bounds):
            return
        self.renderer.ResetCamera(*bounds)
        x0, x1, y0, y1, z0, z1 = bounds
        corners = [(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
        for _ in range(2):   # perspective: zooming moves the corners a little differently
            extent = 0.0
            for corner in corners:
                self.renderer.SetWorldPoint(*corner, 1.0)
                self.renderer.WorldToView()
                vx, vy, _ = self.renderer.GetViewPoint()
                extent = max(extent, abs(vx), abs(vy))
            if extent <= 1e-9:
                break
            self.camera.Zoom(margin / extent)
        self.renderer.ResetCameraClippingRange()

    def set_focus(self, point) -> None:
        self.camera.SetFocalPoint(*point)
        self.renderer.ResetCameraClippingRange()

    # -- output ---------------------------------------------------------------------
    def render(self) -> None:
        self.render_window.Render()

    def clip(self) -> None:
        """Near and far planes around what is shown, the near plane never beyond a
        hundredth of the distance to the focal point: one element far away must not clip
        the rest away."""
        self.renderer.ResetCameraClippingRange()
        camera = self.camera
        near, far = camera.GetClippingRange()
        distance = camera.GetDistance()
        if not (math.isfinite(near) and math.isfinite(far) and far > near > 0):
            # bounds that are not numbers (a part at 1e200 m): planes around the focus
            camera.SetClippingRange(1e-3 * distance, 1e3 * distance)
            return
        limit = 0.01 * distance
        if near > limit:
            camera.SetClippingRange(limit, far)

    def image(self, alpha: bool = False) -> np.ndarray:
        """The picture as an (h, w, 3 or 4) uint8 array, top row first."""
        self.render()
        grab = vtkWindowToImageFilter()
        grab.SetInput(self.render_window)
        grab.ShouldRerenderOff()      # just rendered
        grab.SetInputBufferTypeToRGBA() if alpha else grab.SetInputBufferTypeToRGB()
        grab.ReadFrontBufferOff()
        grab.Update()
        data = grab.GetOutput()
        w, h, _ = data.GetDimensions()
        pixels = vtk_to_numpy(data.GetPointData().GetScalars())
        return pixels.reshape(h, w, -1)[::-1].copy()

    def png(self) -> bytes:
        """The picture as PNG bytes."""
        from vtkmodules.vtkIOImage import vtkPNGWriter
        self.render()
        grab = vtkWindowToImageFilter()
        grab.SetInput(self.render_window)
        grab.ShouldRerenderOff()      # just rendered
        grab.SetInputBufferTypeToRGB()
        grab.ReadFrontBufferOff()
        grab.Update()
        writer = vtkPNGWriter()
        writer.WriteToMemoryOn()
        writer.SetInputConnection(grab.GetOutputPort())
        writer.Write()
        return bytes(vtk_to_numpy(writer.GetResult()))

    def screenshot(self, path: str | Path) -> Path:
        """Save the picture as a PNG at ``path``, atomically (OSError when it cannot)."""
        from snapframe.core.fileio import atomic_write
        atomic_write(path, self.png())
        return Path(path)

    def close(self) -> None:
        if self._axes is not None:
            self._axes.close()
            self._axes = None
        self.render_window.Finalize()
