"""Picking for gestures and the ghost of a part being placed, in the real viewport under
Xvfb: clicks through QTest at the pixels where the core's poses are drawn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from snapframe.core.pose import Pose
from widget_actions import LEFT, NONE


def click(view, point: QtCore.QPoint) -> None:
    QTest.mouseClick(view.widget, LEFT, NONE, point)


def origin_pixel(view, key: str) -> QtCore.QPoint:
    return view.pixel_of(view.session.live.poses.pose(key)[:3, 3])


def test_a_link_is_picked_by_its_geometry_without_selecting(qtbot, viewport, session):
    picked, cancelled = [], []
    viewport.set_view("front")
    session.selection.select("arm::shoulder")
    viewport.begin_pick({"link"}, picked.append, on_cancel=lambda: cancelled.append(1))
    assert viewport.picking and viewport.banner.isVisible()
    qtbot.waitUntil(lambda: viewport.banner.height() > 0)
    # one line of text above the view, which keeps the rest of the height
    assert viewport.banner.height() < 3 * viewport.banner.fontMetrics().height()
    assert viewport.widget.height() > viewport.height() - 3 * viewport.banner.fontMetrics().height()
    # the middle of the upper arm's box (its visual is 0.25 m above the link origin)
    X = session.live.poses.pose("arm::upper_arm")
    click(viewport, viewport.pixel_of(X[:3, 3] + X[:3, 2] * 0.25))
    assert picked == ["arm::upper_arm"] and not cancelled
    assert not viewport.picking and not viewport.banner.isVisible()
    assert session.selection.keys == ["arm::shoulder"]     # picking is not selecting


def test_a_frame_is_picked_near_its_origin_even_with_its_layer_off(qtbot, viewport, session):
    picked = []
    mirror = viewport.mirror
    assert not mirror.visible["joint"]            # joint triads are off by default
    viewport.begin_pick({"joint"}, picked.append)
    assert mirror.actors["joint"].GetVisibility()     # shown for the pick
    target = origin_pixel(viewport, "arm::elbow")
    click(viewport, target + QtCore.QPoint(5, -4))    # a few pixels off still picks it
    assert picked == ["arm::elbow"]
    assert not mirror.actors["joint"].GetVisibility()  # and hidden again


def test_a_click_on_nothing_keeps_waiting_and_esc_gives_up(qtbot, viewport, session):
    picked, cancelled = [], []
    viewport.begin_pick({"frame"}, picked.append, on_cancel=lambda: cancelled.append(1))
    click(viewport, QtCore.QPoint(3, 3))               # a corner: background only
    assert viewport.picking and not picked
    # Esc cancels wherever the keyboard focus is (here: another widget of the app)
    other = QtWidgets.QLineEdit()
    qtbot.addWidget(other)
    other.show()
    other.setFocus()
    QTest.keyClick(other, QtCore.Qt.Key.Key_Escape)
    assert cancelled == [1] and not viewport.picking and not picked


def test_a_surface_pick_gives_the_point_and_the_face_normal(qtbot, viewport, session):
    # looking down on the gripper's palm: a box 0.1 x 0.2 x 0.04 centred on its link
    viewport.set_view("top")
    got = []
    viewport.begin_surface_pick(got.append)
    X = session.live.poses.pose("gripper::body")
    centre = X[:3, 3]
    click(viewport, viewport.pixel_of(centre + X[:3, 2] * 0.02))
    assert len(got) == 1
    hit = got[0]
    assert hit.link_key == "gripper::body" and hit.key.startswith("gripper::body#")
    # on the palm's top face (0.02 above the link origin along its z), its normal that z
    local = np.linalg.solve(X, np.r_[hit.point, 1.0])[:3]
    assert local[2] == pytest.approx(0.02, abs=1e-6)
    assert abs(local[0]) <= 0.05 + 1e-6 and abs(local[1]) <= 0.1 + 1e-6
    assert np.allclose(hit.normal, X[:3, 2], atol=1e-9)


def test_the_ghost_shows_a_part_at_its_model_pose(qtbot, viewport, session):
    from snapframe.editor.assembling.placement import Placement
    from snapframe.editor.viewport.shapes import shape_mesh
    part = Path(session.document.path).parent / "gripper.sdf"
    X_W_M = Pose.from_xyz_rpy(0.5, -0.3, 0.2, 0, 0, 0.4).matrix()
    before = viewport.canvas.image().astype(int)
    placement = Placement(part, "mount_point", "arm::gripper_mount", Pose(), "g2",
                          None, X_W_M)
    viewport.show_ghost(placement)
    ghost = viewport.ghost
    assert ghost.visible and all(a.GetVisibility() for a in ghost._actors)
    assert all(not a.GetPickable() for a in ghost._actors)
    # the palm's drawn corners are the box's corners placed by X_W_M (the palm's link is
    # at the part's model frame; gripper.sdf gives it no pose)
    palm = ghost.bodies.instances[ghost.bodies.index["body#visual:palm_visual"]]
    from snapframe.core.model import Geometry
    box = shape_mesh(Geometry("box", {"size": (0.1, 0.2, 0.04)}))
    drawn = np.asarray(ghost.bodies.mesh.GetPoints().GetData())[
        palm.point_start:palm.point_start + len(box.points)]
    assert np.allclose(drawn, box.points @ X_W_M[:3, :3].T + X_W_M[:3, 3], atol=1e-9)
    # the placement frame is the big triad, at X_W_M X_M_mount (0 0 -0.02, yaw 45 deg)
    tip = np.asarray(ghost.placement.mesh.GetPoints().GetData())[0]
    X_M_P = Pose.from_xyz_rpy(0, 0, -0.02, 0, 0, np.pi / 4).matrix()
    assert np.allclose(tip, (X_W_M @ X_M_P)[:3, 3], atol=1e-9)
    after = viewport.canvas.image().astype(int)
    assert (np.abs(after - before).sum(axis=2) > 30).sum() > 200     # it is drawn
    viewport.hide_ghost()
    assert not ghost.visible and not any(a.GetVisibility() for a in ghost._actors)
    # the scene's own drawing is untouched by the ghost
    assert session.document.element("g2") is None


def test_an_excluded_key_steps_aside_for_the_one_behind_it(qtbot, viewport, session):
    # the gripper's link sits on the arm's gripper_mount frame... pick links at the
    # gripper body's origin: excluding it, the nearest other link origin is not it
    picked = []
    key = "gripper::body"
    viewport.begin_pick({"link"}, picked.append, exclude={key})
    click(viewport, origin_pixel(viewport, key))
    assert key not in picked


def test_a_layer_the_user_turns_on_during_a_pick_stays_on(qtbot, viewport):
    mirror = viewport.mirror
    assert not mirror.visible["joint"]
    viewport.begin_pick({"joint"}, lambda key: None)
    viewport.set_layer_visible("joint", True)       # the View menu, meanwhile
    viewport.end_pick()
    assert mirror.visible["joint"] and mirror.actors["joint"].GetVisibility()


def test_closing_the_view_tells_the_gesture_its_pick_is_over(qtbot, session):
    from snapframe.editor.viewport.widget import Viewport
    view = Viewport(session)
    qtbot.addWidget(view)
    view.show()
    cancelled = []
    view.begin_pick({"link"}, lambda key: None, on_cancel=lambda: cancelled.append(1))
    view.close_view()
    assert cancelled == [1] and not view.picking


def test_a_failing_gesture_is_logged_not_fatal(qtbot, viewport, monkeypatch, caplog):
    def broken(*_args, **_kwargs):
        raise RuntimeError("gizmo trouble")
    monkeypatch.setattr(viewport.gizmo, "press", broken)
    with caplog.at_level("ERROR"):
        QTest.mousePress(viewport.widget, LEFT, NONE, QtCore.QPoint(200, 200))
        QTest.mouseRelease(viewport.widget, LEFT, NONE, QtCore.QPoint(200, 200))
    assert "gizmo trouble" in caplog.text
    assert viewport.render_count > 0
