"""The 3D viewport widget: VTK's Qt widget showing a :class:`SceneMirror` on a canvas.

Clicking an element selects it (Ctrl adds to the selection), the mouse resting over an
element outlines it, and the document's selection is outlined in the selection colour.
A gesture can ask for the next click instead (:meth:`Viewport.begin_pick`: a frame, a
link, a connector; :meth:`Viewport.begin_surface_pick`: a point on a body), and show
the ghost of a part being placed (:meth:`Viewport.show_ghost`).
Standard views, fit, perspective/orthographic and the layer toggles are methods the main
window's actions call.  Every render is one this class asks for: edits draw a quick frame,
and the still frame (anti-aliased, wide lines) follows when things settle.
"""

from __future__ import annotations

import logging
import time
from typing import Callable

import numpy as np
from PySide6 import QtCore, QtWidgets
from vtkmodules.vtkCommonDataModel import vtkStaticCellLocator
from vtkmodules.vtkInteractionStyle import vtkInteractorStyleTrackballCamera
from vtkmodules.vtkRenderingCore import vtkCellPicker

from snapframe.core.live.keys import ROOT

from ..session import DocumentSession
from .canvas import Canvas
from .ghost import Ghost
from .gizmo import Gizmo
from .picking import PickRequest, SurfacePoint, face_normal, nearest_on_screen, project
from .render_view import _BUTTON_EVENTS, RenderView
from .scene import TRIAD_KINDS, VIEWS, Look, SceneMirror, camera_position

__all__ = ["Viewport", "VIEWS", "SurfacePoint"]

_log = logging.getLogger(__name__)

#: What a pick asks the user to click, when the gesture gives no hint of its own.
_KIND_WORDS = {"link": "a link", "frame": "a frame", "joint": "a joint",
               "mate_connector": "a mate connector", "model": "a model"}

#: Quiet time after the last change before the anti-aliased frame is drawn.
POLISH_DELAY_MS = 200
#: Triangle meshes with more faces than this are picked through a cell locator (kept
#: until the mesh changes): a plain pick tests every face, 45 ms in a 1000-robot world.
LOCATOR_MIN_CELLS = 20_000


class _EscapeFilter(QtCore.QObject):
    """Esc anywhere in the application gives up a pick (the keyboard focus may be in the
    panel that started it); installed only while a pick is under way."""

    def __init__(self, cancel: Callable[[], None], parent: QtCore.QObject) -> None:
        super().__init__(parent)
        self._cancel = cancel

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt naming)
        if event.type() == QtCore.QEvent.Type.KeyPress and \
                event.key() == QtCore.Qt.Key.Key_Escape and not self._claimed():
            self._cancel()
            return True
        return False

    @staticmethod
    def _claimed() -> bool:
        """Whether Esc has a nearer meaning than giving up the pick (the window's order):
        an open list or menu closes, a field with typed text gives the typing up."""
        if QtWidgets.QApplication.activePopupWidget() is not None:
            return True
        widget = QtWidgets.QApplication.focusWidget()
        while widget is not None and not hasattr(widget, "cancel_edit"):
            widget = widget.parentWidget()
        return widget is not None and bool(widget.is_edited())


class Viewport(QtWidgets.QWidget):
    """3D view of one document session."""

    picked = QtCore.Signal(str)        # the key under a click ("" for empty space)
    rendered = QtCore.Signal(float)    # seconds the last render took

    def __init__(self, session: DocumentSession, look: Look | None = None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.look = look or Look()
        self.widget = RenderView(self)
        self.interactor = self.widget.interactor
        self.interactor.SetInteractorStyle(vtkInteractorStyleTrackballCamera())
        # VTK's one-letter keys (w: wireframe, 3: stereo, e/q: exit...) are not ours
        self.interactor.RemoveObservers("CharEvent")
        self.canvas = Canvas(self.widget.GetRenderWindow())
        self.canvas.set_background(self.look.background, self.look.background_top)
        self.widget.Initialize()
        self.canvas.add_axes(self.interactor)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        # what a pick is waiting for (a bar above the view: nothing can sit on top of the
        # native window VTK draws into)
        self.banner = QtWidgets.QLabel(self)
        self.banner.setObjectName("pickBanner")
        self.banner.setWordWrap(True)
        self.banner.setContentsMargins(8, 4, 8, 4)
        self.banner.setStyleSheet("#pickBanner { background: #3d9be9; color: white; }")
        self.banner.hide()
        layout.addWidget(self.banner)
        layout.addWidget(self.widget, 1)   # the banner its line of text, the view the rest
        self.mirror = SceneMirror(self.canvas, session.document, self.look)
        self.gizmo = Gizmo(self)
        self.ghost = Ghost(self.canvas, self.look.hover)
        self._pick: PickRequest | None = None
        self._shown_for_pick: list[str] = []   # triad layers a pick turned on
        self._pick_keys: list[str] | None = None
        self._pick_keys_kinds: frozenset[str] = frozenset()
        self._escape = _EscapeFilter(self.end_pick, self)
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
        window = self.canvas.render_window
        # before the canvas's own StartEvent observer (higher priority): the gizmo's size
        # is part of the bounds the clipping planes follow
        window.AddObserver("StartEvent", self._on_render_start, 1.0)
        window.AddObserver("EndEvent", self._on_render_end)
        self.interactor.AddObserver("StartInteractionEvent", lambda *_: self._set_smooth(False))
        self.interactor.AddObserver("EndInteractionEvent", lambda *_: self._polish_timer.start())
        self._press: QtCore.QPoint | None = None
        #: mouse buttons VTK saw pressed and not yet released (see _end_drags)
        self._vtk_held: set = set()
        #: id of a mesh -> (its modification time, its cell locator); see _picker
        self._locators: dict[int, tuple[int, vtkStaticCellLocator]] = {}
        self._hover_key: str | None = None
        self._hover_timer = QtCore.QTimer(self)
        self._hover_timer.setSingleShot(True)
        self._hover_timer.setInterval(90)
        self._hover_timer.timeout.connect(self._hover_pick)
        self.widget.installEventFilter(self)
        self.widget.setMouseTracking(True)
        self._connections = [(session.posesChanged, self._on_poses),
                             (session.structureChanged, self._on_structure),
                             (session.inertiaChanged, self._on_inertia),
                             (session.selectionChanged, self._on_selection),
                             (session.edited, self._on_edited)]
        for signal, slot in self._connections:
            signal.connect(slot)
        self.set_view("iso", render=False)

    # -- following the session ----------------------------------------------------
    def render(self, still: bool = False) -> None:  # type: ignore[override]
        """Draw now: the quick frame (the still frame follows once things settle, see
        :meth:`_polish`), or with ``still`` the still frame itself (screenshots)."""
        if self.interactor is None:       # closed: nothing to draw into
            return
        self._set_smooth(still)
        if still:
            self._polish_timer.stop()
        self.canvas.render()

    def _set_smooth(self, on: bool) -> None:
        if on != self._smooth:
            self._smooth = on
            self.canvas.set_fxaa(on)
            self.mirror.set_still(on)

    def _polish(self) -> None:
        """The still frame: FXAA smooths edges, and lines are drawn wide.  With software
        OpenGL both cost as much as the scene itself, so frames drawn while the user
        drags, orbits or edits go without them and this one follows when they stop."""
        if self.interactor is None:   # closed meanwhile
            return
        style = self.interactor.GetInteractorStyle()
        if style is not None and style.GetState() != 0:   # VTKIS_NONE: not mid-drag
            self._polish_timer.start()
            return
        self._set_smooth(True)
        self.canvas.render()

    def _on_render_start(self, *_args) -> None:
        self._render_started = time.perf_counter()
        self.gizmo.update()     # constant size on screen: follows the camera

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

    def _on_edited(self, event) -> None:
        # edits that change drawings without moving anything: joint axes and types,
        # the frame graphs of teaching mode
        if self.mirror.on_edited(event):
            self._on_selection(None, render=False)
            self.render()

    def _on_structure(self, _event) -> None:
        self._pick_keys = None
        self.mirror.rebuild()
        self._on_selection(None, render=False)
        self.render()

    def _on_inertia(self, event) -> None:
        self.mirror.refresh_inertia(list(event.keys))
        self.render()

    def _on_selection(self, _event, render: bool = True) -> None:
        self.gizmo.attach(self.session.selection.active)
        self.mirror.highlight("selection", self.session.selection.keys, self.look.selection, 3.5)
        self.mirror.highlight_chain(self.session.selection.active, self.look.chain)
        if render:
            self.render()

    def set_look(self, look: Look) -> None:
        """Colours for another theme (the system switched between light and dark)."""
        self.look = look
        self.mirror.look = look
        self.canvas.set_background(look.background, look.background_top)
        self.mirror.rebuild()
        self._on_selection(None, render=False)
        self.render()

    def grab_into(self, picture, top: QtWidgets.QWidget) -> None:
        """Kept for callers that composite window grabs: the view is a plain widget
        painting its last frame, so ``top.grab()`` holds it already."""

    # -- camera -------------------------------------------------------------------
    def fit(self, render: bool = True) -> None:
        """Aim the camera at everything drawn, filling the view (F)."""
        bounds = self.mirror.bounds()
        if bounds is not None:
            # (the fit depends on the aspect ratio: the render window's, which a resize of
            # a tab not yet shown has not reached; fitted with a stale one, a wide scene
            # is cut off)
            self.widget.sync_size()
            self.canvas.fit(bounds)
        if render:
            self.render()

    def set_view(self, name: str, render: bool = True) -> None:
        self.canvas.set_camera(*camera_position(self.mirror.bounds(), name))
        self.fit(render)

    def set_orthographic(self, on: bool) -> None:
        self.canvas.camera.SetParallelProjection(on)
        self.render()

    def set_layer_visible(self, name: str, on: bool) -> None:
        if name in self._shown_for_pick:
            self._shown_for_pick.remove(name)    # the user's choice now: kept after the pick
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
                self.canvas.fit(part.GetBounds())
                self.render()
                return
        if key in table:
            self.canvas.set_focus(tuple(table.pose(key)[:3, 3]))
            self.render()

    # -- picking ------------------------------------------------------------------
    def pixel_of(self, point) -> QtCore.QPoint:
        """The widget pixel where a world point is drawn (for tests and tooltips)."""
        renderer = self.canvas.renderer
        renderer.SetWorldPoint(*point, 1.0)
        renderer.WorldToDisplay()
        x, y, _ = renderer.GetDisplayPoint()
        ratio = self.widget.devicePixelRatioF()
        height = self.widget.height()
        return QtCore.QPoint(int(round(x / ratio)), int(round(height - y / ratio)))

    def key_at(self, x: int, y: int) -> str | None:
        """The key of what is drawn at widget pixel (x, y), or None."""
        picker = self._picker(0.004, [a for a in self.mirror.actors.values()
                                      if a.GetPickable()])  # the scene's layers, not the gizmo
        height = self.widget.height()
        ratio = self.widget.devicePixelRatioF()
        picker.Pick(x * ratio, (height - y) * ratio, 0, self.canvas.renderer)
        actor = picker.GetActor()
        if actor is None:
            return None
        return self.mirror.key_at_cell(actor, picker.GetCellId())

    def _picker(self, tolerance: float, actors: list) -> vtkCellPicker:
        """A cell picker for ``actors``, with a cell locator for each large triangle
        mesh (built on the first pick after the mesh changed; lines keep the plain test,
        which honours the tolerance around them)."""
        picker = vtkCellPicker()
        picker.SetTolerance(tolerance)
        picker.PickFromListOn()
        kept: dict[int, tuple[int, vtkStaticCellLocator]] = {}
        for actor in actors:
            picker.AddPickList(actor)
            mapper = actor.GetMapper()
            data = mapper.GetInput() if mapper is not None else None
            if data is None or data.GetNumberOfLines() or \
                    data.GetNumberOfPolys() < LOCATOR_MIN_CELLS:
                continue
            mtime = data.GetMTime()
            found = self._locators.get(id(data))
            if found is None or found[0] != mtime or found[1].GetDataSet() is not data:
                locator = vtkStaticCellLocator()
                locator.SetDataSet(data)
                locator.BuildLocator()
                found = (mtime, locator)
            kept[id(data)] = found
            picker.AddLocator(found[1])
        # (only the meshes drawn now: a locator holds its mesh, a rebuilt layer a new one)
        drawn = {id(a.GetMapper().GetInput()) for a in self.mirror.actors.values()
                 if a.GetMapper() is not None}
        self._locators = {k: v for k, v in {**self._locators, **kept}.items() if k in drawn}
        return picker

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt naming)
        # An exception escaping an event filter takes the whole process down under
        # PySide6: a failed gesture is logged and the event left to Qt instead.
        try:
            return self._filter(event)
        except Exception:
            _log.exception("viewport event %s failed", event.type())
            return False

    def _filter(self, event) -> bool:
        t = event.type()
        Type, left = QtCore.QEvent.Type, QtCore.Qt.MouseButton.LeftButton
        self._end_quiet_release()
        if t == Type.Hide:
            self._end_drags()
            return False
        if t == Type.MouseButtonRelease:
            self._vtk_held.discard(event.button())
        if t == Type.MouseButtonPress and event.button() == left:
            pos = event.position().toPoint()
            if self._pick is None and self.gizmo.press(pos.x(), pos.y()):
                self._set_smooth(False)
                return True             # the gizmo's drag: the camera stays put
            self._press = pos
        elif t == Type.MouseMove and self.gizmo.dragging:
            pos = event.position().toPoint()
            free = bool(event.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier)
            self.gizmo.move(pos.x(), pos.y(), free=free)
            return True
        elif t == Type.MouseButtonRelease and event.button() == left:
            if self.gizmo.release():
                self._polish_timer.start()
                return True
            pos = event.position().toPoint()
            if self._press is not None and (pos - self._press).manhattanLength() < 4:
                if self._pick is not None:
                    self._pick_click(pos)
                else:
                    drawn = self.render_count
                    self._click(pos, bool(event.modifiers()
                                          & QtCore.Qt.KeyboardModifier.ControlModifier))
                    if self.render_count != drawn and self.interactor is not None:
                        # The click drew its selection: the camera style's release (next,
                        # in VTK) would draw the same frame again, a third of a click's
                        # time in a large scene.
                        self.interactor.EnableRenderOff()
                        self._quiet_release = True
                        QtCore.QTimer.singleShot(0, self, self._end_quiet_release)
            self._press = None
        elif t == Type.MouseMove and not event.buttons():
            self._hover_pos = event.position().toPoint()
            self._hover_timer.start()
        elif t == Type.Leave:
            self._set_hover(None)
        if t in (Type.MouseButtonPress, Type.MouseButtonDblClick):
            self._vtk_held.add(event.button())     # (passed on to VTK's camera)
        return False

    def _end_drags(self) -> None:
        """The view is hidden (another tab made current) with a mouse button still down:
        its release will not come here.  The gizmo's drag ends now (what it moved is one
        undo step) and VTK is told the buttons it saw pressed are up, so coming back, a
        mere mouse move neither drags the part nor turns the camera."""
        if self.gizmo.release():
            self._polish_timer.start()
        self._press = None
        held, self._vtk_held = self._vtk_held, set()
        for button in held:
            names = _BUTTON_EVENTS.get(button)
            if names is not None and self.interactor is not None:
                self.interactor.InvokeEvent(names[1])

    def _end_quiet_release(self) -> None:
        """VTK renders again (after the release of a click, see _filter)."""
        if getattr(self, "_quiet_release", False):
            self._quiet_release = False
            if self.interactor is not None:
                self.interactor.EnableRenderOn()

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
        if pos is not None and self._pick is not None:
            # what a click would pick now
            found = self._pick_at(pos)
            self._set_hover(found.link_key if isinstance(found, SurfacePoint) else found)
            return
        if pos is not None and self.gizmo.hover(pos.x(), pos.y()):
            self.render()                         # a handle lit (or no longer)
        if pos is not None and self.gizmo.handle_at(pos.x(), pos.y()) is not None:
            return
        if pos is not None:
            key = self.key_at(pos.x(), pos.y())
            self._set_hover(key.partition("#")[0] if key else None)

    def _set_hover(self, key: str | None) -> None:
        if key == self._hover_key:
            return
        self._hover_key = key
        self.mirror.highlight("hover", [key] if key else [], self.look.hover, 2.0)
        self.render()

    # -- picking for gestures -------------------------------------------------------
    @property
    def picking(self) -> bool:
        """Whether the next click is a gesture's pick rather than a selection."""
        return self._pick is not None

    def begin_pick(self, kinds, on_pick: Callable[[str], None], hint: str = "",
                   on_cancel: Callable[[], None] | None = None, exclude=()) -> None:
        """Let the next click pick an element of one of ``kinds`` ("link", "frame",
        "joint", "mate_connector", "model"): ``on_pick(key)`` is called and picking ends.
        A frame is picked by its origin (the nearest within a few pixels of the click), a
        link also by its geometry; a click on nothing pickable keeps waiting.  The
        candidates' triads are drawn meanwhile, the one under the mouse is outlined, and
        the selection does not change.  Esc or :meth:`end_pick` gives up (``on_cancel``).
        Keys in ``exclude`` are never picked (two mated connectors share a pixel: the one
        already chosen steps aside for the other)."""
        self.end_pick()
        kinds = frozenset(kinds)
        words = [_KIND_WORDS.get(k, k) for k in sorted(kinds)]
        self._pick = PickRequest(kinds, on_pick, hint or f"Click {' or '.join(words)}",
                                 on_cancel, frozenset(exclude))
        for kind in sorted(kinds):
            if kind in TRIAD_KINDS and not self.mirror.visible.get(kind, True):
                self.mirror.set_visible(kind, True)
                self._shown_for_pick.append(kind)
        self._start_pick()

    def begin_surface_pick(self, on_pick: Callable[[SurfacePoint], None], hint: str = "",
                           on_cancel: Callable[[], None] | None = None) -> None:
        """Let the next click on drawn geometry call ``on_pick`` with the
        :class:`SurfacePoint` clicked (see :meth:`begin_pick` for the rest)."""
        self.end_pick()
        self._pick = PickRequest(None, on_pick, hint or "Click a point on a body", on_cancel)
        self._start_pick()

    def end_pick(self) -> None:
        """Give up the pick under way, if any (its ``on_cancel`` is called)."""
        request = self._stop_pick()
        if request is not None and request.on_cancel is not None:
            request.on_cancel()

    def _start_pick(self) -> None:
        self._pick_keys = None
        self.banner.setText(f"{self._pick.hint} — Esc cancels")
        self.banner.show()
        self.widget.setCursor(QtCore.Qt.CursorShape.CrossCursor)
        QtWidgets.QApplication.instance().installEventFilter(self._escape)
        self.render()

    def _stop_pick(self) -> PickRequest | None:
        request, self._pick = self._pick, None
        if request is None:
            return None
        for kind in self._shown_for_pick:
            self.mirror.set_visible(kind, False)
        self._shown_for_pick = []
        self.banner.hide()
        self.widget.unsetCursor()
        QtWidgets.QApplication.instance().removeEventFilter(self._escape)
        if self.interactor is not None:
            self._hover_key = "\0"       # (re)draw without the pick's outline
            self._set_hover(None)
        return request

    def _pick_click(self, pos: QtCore.QPoint) -> None:
        request = self._pick
        found = self._pick_at(pos)
        if request is None or found is None:
            return                        # a miss: still waiting
        self._stop_pick()
        request.on_pick(found)

    def _pick_at(self, pos: QtCore.QPoint):
        request = self._pick
        if request is None:
            return None
        if request.kinds is None:
            return self.surface_at(pos.x(), pos.y())
        return self.element_at(pos.x(), pos.y(), request.kinds, request.exclude)

    def element_at(self, x: int, y: int, kinds, exclude=()) -> str | None:
        """The element of one of ``kinds`` a click at widget pixel (x, y) picks (see
        :meth:`begin_pick`), none of ``exclude``; or None."""
        table = self.session.live.poses
        kinds = frozenset(kinds)
        keys = self._pick_keys if self._pick is not None else None
        if keys is None or self._pick_keys_kinds != kinds:
            keys = [k for k in table.keys if k != ROOT and "#" not in k
                    and table.kind(k) in kinds]
            self._pick_keys, self._pick_keys_kinds = keys, kinds
        keys = [k for k in keys if k in table and k not in exclude]
        if keys:
            origins = table.poses(keys)[:, :3, 3]
            pixels, depth, front = project(self.canvas.renderer, origins, self.widget.height(),
                                           self.widget.devicePixelRatioF())
            i = nearest_on_screen(pixels, depth, front, x, y)
            if i is not None:
                return keys[i]
        if "link" in kinds:
            part = self.key_at(x, y)
            link = part.partition("#")[0] if part and "#" in part else None
            if link is not None and link in table and table.kind(link) == "link" \
                    and link not in exclude:
                return link
        return None

    def surface_at(self, x: int, y: int) -> SurfacePoint | None:
        """The point of the drawn bodies at widget pixel (x, y), with the normal of the
        face there (toward the camera), or None."""
        layers = {}
        for name, layer in (("visuals", self.mirror.visuals),
                            ("collisions", self.mirror.collisions)):
            actor = self.mirror.actors.get(name)
            if actor is not None and actor.GetVisibility() and layer.mesh is not None:
                layers[id(actor)] = (actor, layer)
        picker = self._picker(0.0005, [a for a, _l in layers.values()])
        layers = {k: layer for k, (_a, layer) in layers.items()}
        ratio = self.widget.devicePixelRatioF()
        picker.Pick(x * ratio, (self.widget.height() - y) * ratio, 0, self.canvas.renderer)
        actor = picker.GetActor()
        layer = layers.get(id(actor)) if actor is not None else None
        cell = picker.GetCellId()
        key = layer.key_of_cell(cell) if layer is not None else None
        if key is None:
            return None
        mesh = layer.mesh
        ids = mesh.GetCell(cell).GetPointIds()
        a, b, c = (np.array(mesh.GetPoint(ids.GetId(i))) for i in range(3))
        camera = np.array(self.canvas.camera.GetPosition())
        return SurfacePoint(key, key.partition("#")[0], np.array(picker.GetPickPosition()),
                            face_normal(a, b, c, towards=camera))

    # -- the ghost of a part being placed ---------------------------------------------
    def show_ghost(self, placement) -> None:
        """Draw the part of ``placement`` (an
        :class:`~snapframe.editor.assembling.placement.Placement`) where it would go:
        translucent, with its frames, the placement frame larger; hidden while its
        ``model_pose`` is None (no target yet)."""
        X = getattr(placement, "model_pose", None) if placement is not None else None
        if X is None or self.interactor is None:
            self.hide_ghost()
            return
        context = self.session.document.extras.get("load_context")
        search = context.all_search_paths() if context is not None else None
        self.ghost.show(placement.part_path, X, placement.placement_frame,
                        self.mirror.triad_size, search)
        self.render()

    def hide_ghost(self) -> None:
        if self.ghost.visible:
            self.ghost.hide()
            self.render()

    def close_view(self) -> None:
        """Release the render window (before the widget goes away)."""
        self._polish_timer.stop()
        self._hover_timer.stop()
        self.end_pick()                # the gesture that asked hears that it is over
        if self.interactor is not None:
            self.ghost.close()
            for signal, slot in self._connections:
                signal.disconnect(slot)
            # paints may still arrive: they must not draw into a finalized window
            self.widget.close_view()
            self.canvas.close()
            self.interactor = None
