"""The 3D viewport widget: a pyvistaqt interactor showing a :class:`SceneMirror`.

Clicking an element selects it (Ctrl adds to the selection), the mouse resting over an
element outlines it, and the document's selection is outlined in the selection colour.
Standard views, fit, perspective/orthographic and the layer toggles are methods the main
window's actions call.
"""

from __future__ import annotations

import time

from PySide6 import QtCore, QtWidgets
from pyvistaqt import QtInteractor

from ..session import DocumentSession
from .scene import VIEWS, Look, SceneMirror, camera_position

__all__ = ["Viewport", "VIEWS"]

#: Quiet time after the last change before the anti-aliased frame is drawn.
POLISH_DELAY_MS = 200


class _Interactor(QtInteractor):
    """pyvistaqt's widget, drawing each frame once.

    pyvistaqt renders in every paint, and schedules a paint after every render made
    outside one (ours, the camera interaction's): each frame was drawn twice, and again
    on every expose.  Here a paint shows the last picture when nothing changed since it
    was drawn (as VTK's own C++ Qt widget does) and renders otherwise; whoever changes
    the scene without rendering calls :meth:`invalidate`.
    """

    _fresh = False      # the render window holds a picture of the current scene

    def invalidate(self) -> None:
        self._fresh = False
        self.update()

    def _cb_frame(self, obj, evt) -> None:
        self._fresh = True
        super()._cb_frame(obj, evt)

    def resizeGL(self, w: int, h: int) -> None:  # noqa: N802 (Qt naming)
        self._fresh = False    # the picture has the old size: draw again
        super().resizeGL(w, h)

    def paintGL(self) -> None:  # noqa: N802 (Qt naming)
        iren = self._RenderWindow.GetInteractor() if self._RenderWindow is not None else None
        if not self._fresh or iren is None:
            super().paintGL()
            return
        iren.EnableRenderOff()          # the paint's own render becomes a no-op
        try:
            super().paintGL()
        finally:
            iren.EnableRenderOn()


class Viewport(QtWidgets.QWidget):
    """3D view of one document session."""

    picked = QtCore.Signal(str)        # the key under a click ("" for empty space)
    rendered = QtCore.Signal(float)    # seconds the last render took

    def __init__(self, session: DocumentSession, look: Look | None = None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.look = look or Look()
        # no multisampling: software OpenGL pays for every sample (FXAA polishes instead)
        self.plotter = _Interactor(self, auto_update=False, multi_samples=0)
        self.plotter.set_background(self.look.background, top=self.look.background_top)
        self.plotter.add_axes(line_width=3, labels_off=False)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plotter.interactor)
        self.mirror = SceneMirror(self.plotter, session.document, self.look)
        self.last_render = 0.0
        self.render_count = 0
        self._render_started = 0.0
        self._fit_pending = True     # fit the view at every resize until the first frame
        self._smooth = False         # FXAA on and wide lines (see _polish)
        self.mirror.set_still(False)
        self._polish_timer = QtCore.QTimer(self)
        self._polish_timer.setSingleShot(True)
        self._polish_timer.setInterval(POLISH_DELAY_MS)
        self._polish_timer.timeout.connect(self._polish)
        window = self.plotter.render_window
        window.AddObserver("StartEvent", self._on_render_start)
        window.AddObserver("EndEvent", self._on_render_end)
        interactor = self.plotter.iren.interactor
        interactor.AddObserver("StartInteractionEvent", lambda *_: self._set_smooth(False))
        interactor.AddObserver("EndInteractionEvent", lambda *_: self._polish_timer.start())
        self._press: QtCore.QPoint | None = None
        self._hover_key: str | None = None
        self._hover_timer = QtCore.QTimer(self)
        self._hover_timer.setSingleShot(True)
        self._hover_timer.setInterval(90)
        self._hover_timer.timeout.connect(self._hover_pick)
        self.plotter.interactor.installEventFilter(self)
        self.plotter.interactor.setMouseTracking(True)
        session.posesChanged.connect(self._on_poses)
        session.structureChanged.connect(self._on_structure)
        session.inertiaChanged.connect(self._on_inertia)
        session.selectionChanged.connect(self._on_selection)
        self.set_view("iso", render=False)

    # -- following the session ----------------------------------------------------
    def render(self, still: bool = False) -> None:  # type: ignore[override]
        """Draw now: the quick frame (the still frame follows once things settle, see
        :meth:`_polish`), or with ``still`` the still frame itself (screenshots)."""
        self._set_smooth(still)
        if still:
            self._polish_timer.stop()
        self.plotter.render()

    def _set_smooth(self, on: bool) -> None:
        if on != self._smooth:
            self._smooth = on
            self.plotter.renderer.SetUseFXAA(on)
            self.mirror.set_still(on)

    def _polish(self) -> None:
        """The still frame: FXAA smooths edges, and lines are drawn wide.  With software
        OpenGL both cost as much as the scene itself, so frames drawn while the user
        drags, orbits or edits go without them and this one follows when they stop."""
        if self.plotter.iren is None:   # closed meanwhile
            return
        style = self.plotter.iren.interactor.GetInteractorStyle()
        if style is not None and style.GetState() != 0:   # VTKIS_NONE: not mid-drag
            self._polish_timer.start()
            return
        self._set_smooth(True)
        self.plotter.render()

    def _on_render_start(self, *_args) -> None:
        self._render_started = time.perf_counter()

    def _on_render_end(self, *_args) -> None:
        # every render counts: ours, Qt's paints and the camera interaction's
        self.last_render = time.perf_counter() - self._render_started
        self.render_count += 1
        self._fit_pending = False
        if not self._smooth:
            self._polish_timer.start()
        self.rendered.emit(self.last_render)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        super().resizeEvent(event)
        if self._fit_pending:
            # the fit depends on the aspect ratio: redo it until the first frame is drawn
            self.fit(render=False)

    def _on_poses(self, event) -> None:
        if self.mirror.on_poses(event):
            self.render()

    def _on_structure(self, _event) -> None:
        self.mirror.rebuild()
        self._on_selection(None, render=False)
        self.render()

    def _on_inertia(self, event) -> None:
        self.mirror.refresh_inertia(list(event.keys))
        self.render()

    def _on_selection(self, _event, render: bool = True) -> None:
        self.mirror.highlight("selection", self.session.selection.keys, self.look.selection, 3.5)
        self.mirror.highlight_chain(self.session.selection.active, self.look.chain)
        if render:
            self.render()

    # -- camera -------------------------------------------------------------------
    def fit(self, render: bool = True) -> None:
        bounds = self.mirror.bounds()
        if bounds is not None:
            # (the renderer's reset_camera: the plotter's renders whatever it is told)
            self.plotter.renderer.reset_camera(render=False, bounds=bounds)
            self.plotter.camera.zoom(1.0)
        if render:
            self.render()

    def set_view(self, name: str, render: bool = True) -> None:
        self.plotter.camera_position = camera_position(self.mirror.bounds(), name)
        self.fit(render)

    def set_orthographic(self, on: bool) -> None:
        self.plotter.camera.parallel_projection = on
        self.render()

    def set_layer_visible(self, name: str, on: bool) -> None:
        self.mirror.set_visible(name, on)
        if name == "frame graphs":
            self.mirror.highlight_chain(self.session.selection.active, self.look.chain)
        self.render()

    def focus(self, key: str) -> None:
        """Centre the camera on an element (its geometry, or its frame)."""
        table = self.session.live.poses
        members = self.mirror._members(key)
        if members:
            part = self.mirror.visuals.extract(members) or self.mirror.collisions.extract(members)
            if part is not None:
                self.plotter.renderer.reset_camera(render=False, bounds=part.bounds)
                self.render()
                return
        if key in table:
            self.plotter.set_focus(tuple(table.pose(key)[:3, 3]))
            self.render()

    # -- picking ------------------------------------------------------------------
    def pixel_of(self, point) -> QtCore.QPoint:
        """The widget pixel where a world point is drawn (for tests and tooltips)."""
        renderer = self.plotter.renderer
        renderer.SetWorldPoint(*point, 1.0)
        renderer.WorldToDisplay()
        x, y, _ = renderer.GetDisplayPoint()
        ratio = self.plotter.interactor.devicePixelRatioF()
        height = self.plotter.interactor.height()
        return QtCore.QPoint(int(round(x / ratio)), int(round(height - y / ratio)))

    def key_at(self, x: int, y: int) -> str | None:
        """The key of what is drawn at widget pixel (x, y), or None."""
        import vtk
        picker = vtk.vtkCellPicker()
        picker.SetTolerance(0.004)
        height = self.plotter.interactor.height()
        ratio = self.plotter.interactor.devicePixelRatioF()
        picker.Pick(x * ratio, (height - y) * ratio, 0, self.plotter.renderer)
        actor = picker.GetActor()
        if actor is None:
            return None
        return self.mirror.key_at_cell(actor, picker.GetCellId())

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt naming)
        t = event.type()
        if t == QtCore.QEvent.Type.MouseButtonPress and event.button() == QtCore.Qt.MouseButton.LeftButton:
            self._press = event.position().toPoint()
        elif t == QtCore.QEvent.Type.MouseButtonRelease and event.button() == QtCore.Qt.MouseButton.LeftButton:
            pos = event.position().toPoint()
            if self._press is not None and (pos - self._press).manhattanLength() < 4:
                self._click(pos, bool(event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier))
            self._press = None
        elif t == QtCore.QEvent.Type.MouseMove and not event.buttons():
            self._hover_pos = event.position().toPoint()
            self._hover_timer.start()
        elif t == QtCore.QEvent.Type.Leave:
            self._set_hover(None)
        return False

    def _click(self, pos: QtCore.QPoint, add: bool) -> None:
        key = self.key_at(pos.x(), pos.y())
        if key is not None:
            key = key.partition("#")[0]  # a visual or collision selects its link
        self.picked.emit(key or "")
        selection = self.session.selection
        if key is None:
            if not add:
                selection.clear()
            return
        selection.toggle(key) if add else selection.select(key)

    def _hover_pick(self) -> None:
        pos = getattr(self, "_hover_pos", None)
        if pos is not None:
            key = self.key_at(pos.x(), pos.y())
            self._set_hover(key.partition("#")[0] if key else None)

    def _set_hover(self, key: str | None) -> None:
        if key == self._hover_key:
            return
        self._hover_key = key
        self.mirror.highlight("hover", [key] if key else [], self.look.hover, 2.0)
        self.render()

    def close_plotter(self) -> None:
        self._polish_timer.stop()
        self._hover_timer.stop()
        self.plotter.close()
