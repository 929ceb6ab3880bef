"""A Qt widget showing what an offscreen VTK render window draws.

VTK's own Qt widget makes VTK draw into a native window: every frame is then copied twice
more inside VTK and once more to the window system, which with software OpenGL costs as
much as a small scene, and a native window cannot sit under other widgets, be grabbed by
``QWidget.grab`` or live on Wayland without XWayland.  Here VTK renders offscreen, each
finished frame is read back once into an image, and the widget paints that image like
any other.  Mouse events reach VTK's interactor (camera rotation, pan, zoom) unless an
event filter on the widget takes them first (the viewport's gizmo and picking do).
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonCore import vtkUnsignedCharArray
from vtkmodules.vtkRenderingCore import vtkRenderWindow
from vtkmodules.vtkRenderingUI import vtkGenericRenderWindowInteractor

__all__ = ["RenderView"]

_BUTTON_EVENTS = {
    QtCore.Qt.MouseButton.LeftButton: ("LeftButtonPressEvent", "LeftButtonReleaseEvent"),
    QtCore.Qt.MouseButton.MiddleButton: ("MiddleButtonPressEvent", "MiddleButtonReleaseEvent"),
    QtCore.Qt.MouseButton.RightButton: ("RightButtonPressEvent", "RightButtonReleaseEvent"),
}


class RenderView(QtWidgets.QWidget):
    """The picture of :attr:`render_window` (offscreen), with :attr:`interactor` fed by
    this widget's mouse events (see the module docstring).

    Paint requests are coalesced: showing a window sends several, and each would render
    the whole scene again."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.WheelFocus)
        self.setMinimumSize(40, 40)
        self.render_window = vtkRenderWindow()
        self.render_window.SetOffScreenRendering(1)
        self.render_window.SetSize(*self._pixel_size())
        self.interactor = vtkGenericRenderWindowInteractor()
        self.interactor.SetRenderWindow(self.render_window)
        self._pixels = vtkUnsignedCharArray()
        self._image: QtGui.QImage | None = None
        self._stale = True            # the image is older than the widget's size
        self._closed = False
        self._wheel = 0               # wheel angle not yet turned into a zoom step
        self.render_window.AddObserver("EndEvent", self._on_rendered)
        self._paint = QtCore.QTimer(self)
        self._paint.setSingleShot(True)
        self._paint.setInterval(0)
        self._paint.timeout.connect(self._render_now)

    # -- VTK side ---------------------------------------------------------------------
    def GetRenderWindow(self) -> vtkRenderWindow:  # noqa: N802 (VTK's name, as QVTK's)
        return self.render_window

    def Initialize(self) -> None:  # noqa: N802
        # (not the interactor's Initialize: it renders at once, before there is a scene)
        self.interactor.Enable()

    def _pixel_size(self) -> tuple[int, int]:
        ratio = self.devicePixelRatioF()
        return max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio))

    def sync_size(self) -> None:
        """Give the render window the widget's size now (a resize of a widget not shown
        yet reaches it only later): the camera's aspect ratio is then the one drawn."""
        self._sync_size()

    def _sync_size(self) -> None:
        """The render window at the widget's size in device pixels (a resize, or a move
        to a screen of another pixel ratio: that changes no widget size)."""
        w, h = self._pixel_size()
        if tuple(self.render_window.GetSize()) != (w, h):
            self.render_window.SetSize(w, h)
        self.interactor.UpdateSize(w, h)

    def _render_now(self) -> None:
        if not self._closed:
            self._sync_size()          # (else a stale frame would be redrawn stale, forever)
            self.interactor.Render()   # (nothing while rendering is disabled)

    def _on_rendered(self, *_args) -> None:
        """Read the finished frame back once and show it."""
        window = self.render_window
        w, h = window.GetSize()
        window.GetRGBACharPixelData(0, 0, w - 1, h - 1, 0, self._pixels, 0)
        rows = vtk_to_numpy(self._pixels).reshape(h, w, 4)
        self._array = np.ascontiguousarray(rows[::-1])      # OpenGL's rows run bottom-up
        # (RGBX: the alpha VTK leaves in an offscreen frame is not transparency)
        image = QtGui.QImage(self._array.data, w, h, 4 * w, QtGui.QImage.Format.Format_RGBX8888)
        image.setDevicePixelRatio(self.devicePixelRatioF())
        self._image = image
        self._stale = (w, h) != self._pixel_size()
        self.update()

    def image(self) -> QtGui.QImage | None:
        """The last frame (a view of the pixels: copy it to keep it)."""
        return self._image

    def close_view(self) -> None:
        """Stop rendering and release the offscreen window."""
        self._closed = True
        self._paint.stop()
        self.interactor.EnableRenderOff()
        self.render_window.Finalize()

    # -- Qt side ----------------------------------------------------------------------
    def paintEvent(self, event: QtGui.QPaintEvent) -> None:  # noqa: N802 (Qt naming)
        painter = QtGui.QPainter(self)
        try:
            if self._image is not None:
                painter.drawImage(QtCore.QPointF(0, 0), self._image)
            else:
                painter.fillRect(self.rect(), self.palette().window())
        finally:
            painter.end()
        if self._stale and not self._closed:
            self._paint.start()      # a first or a resized frame: drawn once, then shown

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._sync_size()
        self._stale = True
        self.update()

    def event(self, event: QtCore.QEvent) -> bool:  # noqa: N802
        if event.type() in (QtCore.QEvent.Type.DevicePixelRatioChange,
                            QtCore.QEvent.Type.ScreenChangeInternal) \
                and not getattr(self, "_closed", True):   # (none before __init__ is done)
            self._sync_size()          # another screen: same widget size, other pixels
            self._stale = True
            self.update()
        return super().event(event)

    def _forward(self, event, name: str) -> None:
        ratio = self.devicePixelRatioF()
        pos = event.position() if hasattr(event, "position") else QtCore.QPointF(0, 0)
        modifiers = event.modifiers()
        ctrl = bool(modifiers & QtCore.Qt.KeyboardModifier.ControlModifier)
        shift = bool(modifiers & QtCore.Qt.KeyboardModifier.ShiftModifier)
        repeat = int(event.type() == QtCore.QEvent.Type.MouseButtonDblClick)
        self.interactor.SetEventInformationFlipY(int(round(pos.x() * ratio)),
                                                 int(round(pos.y() * ratio)),
                                                 ctrl, shift, chr(0), repeat)
        self.interactor.InvokeEvent(name)

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        names = _BUTTON_EVENTS.get(event.button())
        if names is not None:
            self._forward(event, names[0])

    def mouseDoubleClickEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        self.mousePressEvent(event)

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        names = _BUTTON_EVENTS.get(event.button())
        if names is not None:
            self._forward(event, names[1])

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        self._forward(event, "MouseMoveEvent")

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:  # noqa: N802
        # one zoom step per notch (120, Qt's unit): high-resolution wheels and touchpads
        # send the notch in parts, each of which would otherwise be a whole step
        delta = event.angleDelta().y()
        if delta == 0:
            return
        if (delta > 0) != (self._wheel > 0):
            self._wheel = 0            # turned the other way: start over
        self._wheel += delta
        while abs(self._wheel) >= 120:
            step = 120 if self._wheel > 0 else -120
            self._wheel -= step
            self._forward(event, "MouseWheelForwardEvent" if step > 0
                          else "MouseWheelBackwardEvent")

    def enterEvent(self, event) -> None:  # noqa: N802
        self.interactor.InvokeEvent("EnterEvent")

    def leaveEvent(self, event) -> None:  # noqa: N802
        self.interactor.InvokeEvent("LeaveEvent")
