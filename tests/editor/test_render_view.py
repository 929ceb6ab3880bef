"""The viewport's widget: VTK renders offscreen and the widget paints the frame; mouse
drags and the wheel move the camera through VTK's interactor."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui
from PySide6.QtTest import QTest

from widget_actions import LEFT, NONE


def drag(widget, start: QtCore.QPoint, end: QtCore.QPoint, steps: int = 8) -> None:
    QTest.mousePress(widget, LEFT, NONE, start)
    for i in range(1, steps + 1):
        p = start + (end - start) * (i / steps)
        QTest.mouseMove(widget, p)
    QTest.mouseRelease(widget, LEFT, NONE, end)


def test_a_left_drag_turns_the_camera_and_selects_nothing(qtbot, viewport, session):
    camera = viewport.canvas.camera
    before = np.array(camera.GetDirectionOfProjection())
    distance = camera.GetDistance()
    count = viewport.render_count
    drag(viewport.widget, QtCore.QPoint(40, 400), QtCore.QPoint(200, 380))
    after = np.array(camera.GetDirectionOfProjection())
    assert np.degrees(np.arccos(np.clip(before @ after, -1, 1))) > 10
    assert camera.GetDistance() == pytest.approx(distance)    # turned, not moved away
    assert viewport.render_count > count                       # every step drew
    assert session.selection.keys == []


def test_the_wheel_zooms_towards_the_focal_point(qtbot, viewport):
    camera = viewport.canvas.camera
    distance = camera.GetDistance()
    centre = QtCore.QPointF(320, 240)
    event = QtGui.QWheelEvent(centre, viewport.widget.mapToGlobal(centre), QtCore.QPoint(0, 0),
                              QtCore.QPoint(0, 120), QtCore.Qt.MouseButton.NoButton, NONE,
                              QtCore.Qt.ScrollPhase.NoScrollPhase, False)
    QtCore.QCoreApplication.sendEvent(viewport.widget, event)
    assert camera.GetDistance() < distance


def test_the_widget_shows_exactly_the_rendered_frame(qtbot, viewport):
    viewport.render(still=True)
    qtbot.wait(10)
    grab = viewport.widget.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB888)
    w, h = grab.width(), grab.height()
    bits = np.frombuffer(grab.constBits(), dtype=np.uint8, count=grab.sizeInBytes())
    shown = bits.reshape(h, grab.bytesPerLine())[:, :3 * w].reshape(h, w, 3).copy()
    rendered = viewport.canvas.image()       # read from VTK directly
    assert rendered.shape == shown.shape
    assert np.abs(rendered.astype(int) - shown.astype(int)).max() <= 1
    assert len(np.unique(shown.reshape(-1, 3), axis=0)) > 20    # a picture, not a fill


def test_a_resize_renders_at_the_new_size(qtbot, viewport):
    count = viewport.render_count
    viewport.resize(500, 300)
    qtbot.waitUntil(lambda: viewport.render_count > count)
    ratio = viewport.widget.devicePixelRatioF()
    size = viewport.canvas.render_window.GetSize()
    assert tuple(size) == (round(viewport.widget.width() * ratio),
                           round(viewport.widget.height() * ratio))
    image = viewport.widget.image()
    assert (image.width(), image.height()) == tuple(size)


def test_a_view_that_fails_to_build_leaves_no_render_window_behind(qtbot, tmp_path,
                                                                     example_copy, monkeypatch):
    from snapframe.editor.main_window import MainWindow
    from snapframe.editor.viewport.render_view import RenderView
    from snapframe.editor.viewport.scene import SceneMirror
    settings = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.show()
    closed = []
    real_close = RenderView.close_view
    monkeypatch.setattr(RenderView, "close_view",
                        lambda self: (closed.append(self), real_close(self))[1])

    def broken(self):
        raise RuntimeError("no drawing today")
    monkeypatch.setattr(SceneMirror, "rebuild", broken)
    assert win.open(example_copy("arm_gripper") / "arm.sdf") is None
    assert "no drawing today" in win.last_error
    assert win.tabs.count() == 0
    assert closed and all(v._closed for v in closed)     # its offscreen window released
    win.close()
