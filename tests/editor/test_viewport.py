"""The viewport mirrors the core by key: what it draws after opens, pose edits, layer
toggles and highlights, checked against the pose table and the shapes' own geometry (the
real VTK widget under Xvfb)."""

from __future__ import annotations

import numpy as np
import pytest

from snapframe.core.model.edits import SetDensity, SetPose
from snapframe.core.pose import Pose
from snapframe.editor.viewport.shapes import shape_mesh
from snapframe.editor.viewport.vtkdata import points_of


def drawn_points(layer, key: str) -> np.ndarray:
    inst = layer.instances[layer.index[key]]
    return points_of(layer.mesh)[inst.point_start:inst.point_start + len(inst.shape.points)]


def expected_points(document, key: str) -> np.ndarray:
    X = document.live.poses.pose(key)
    return shape_mesh(document.element(key).geometry).points @ X[:3, :3].T + X[:3, 3]


def test_opening_draws_one_frame_then_the_still_frame(qtbot, viewport):
    # the first paint draws the scene (thin lines, no FXAA); the still frame follows
    assert viewport.render_count == 1
    assert not viewport.canvas.renderer.GetUseFXAA()
    assert viewport.mirror.actors["link"].GetProperty().GetLineWidth() == 1.0
    qtbot.waitUntil(lambda: viewport.render_count == 2, timeout=3000)
    assert viewport.canvas.renderer.GetUseFXAA()
    assert viewport.mirror.actors["link"].GetProperty().GetLineWidth() > 2.0


def test_a_pose_edit_moves_exactly_the_moved_instances(qtbot, viewport, session):
    doc = session.document
    visuals = viewport.mirror.visuals
    before = {key: drawn_points(visuals, key).copy() for key in visuals.index}
    gripper = doc.element("gripper")
    count = viewport.render_count
    session.push(SetPose(doc, gripper, gripper.pose.value @ Pose.from_xyz_rpy(0.1, 0, 0.05, 0, 0, 0.7)))
    assert viewport.render_count == count + 1          # drawn once, inside the edit
    moved = [k for k in visuals.index if k.startswith("gripper::")]
    assert moved
    for key in visuals.index:
        now = drawn_points(visuals, key)
        assert np.allclose(now, expected_points(doc, key), atol=1e-9), key
        if key not in moved:
            assert np.array_equal(now, before[key]), key    # untouched, bit for bit
        else:
            assert not np.allclose(now, before[key]), key


def test_a_layer_shown_later_is_drawn_at_the_current_poses(qtbot, viewport, session):
    doc = session.document
    mirror = viewport.mirror
    assert mirror.collisions.mesh is None and "collisions" not in mirror.actors  # hidden: unbuilt
    gripper = doc.element("gripper")
    session.push(SetPose(doc, gripper, gripper.pose.value @ Pose.from_xyz_rpy(0, 0.2, 0, 0.3, 0, 0)))
    viewport.set_layer_visible("collisions", True)
    assert mirror.actors["collisions"].GetVisibility()
    assert mirror.collisions.index
    for key in mirror.collisions.index:
        assert np.allclose(drawn_points(mirror.collisions, key), expected_points(doc, key),
                           atol=1e-9), key


def test_the_selection_outline_follows_its_geometry(qtbot, viewport, session):
    doc = session.document
    mirror = viewport.mirror
    session.selection.select("gripper::body")
    overlay = mirror._overlays["selection"]
    outline = np.asarray(overlay.GetMapper().GetInput().GetPoints().GetData())
    # every end point is a corner of one of the link's drawn shapes, or on its triad
    corners = np.vstack([drawn_points(mirror.visuals, k) for k in mirror._members("gripper::body")])
    X = doc.live.poses.pose("gripper::body")
    triad = X[:3, 3] + np.vstack([np.zeros(3), mirror.triad_size * 1.1 * X[:3, :3].T])
    known = np.vstack([corners, triad])
    assert sum(np.min(np.linalg.norm(corners - p, axis=1)) < 1e-9 for p in outline) >= 24
    assert all(np.min(np.linalg.norm(known - p, axis=1)) < 1e-9 for p in outline)
    gripper = doc.element("gripper")
    session.push(SetPose(doc, gripper, gripper.pose.value @ Pose.translation(0, 0, 0.3)))
    moved = np.asarray(mirror._overlays["selection"].GetMapper().GetInput().GetPoints().GetData())
    assert np.allclose(moved, outline + [0, 0, 0.3], atol=1e-9) or \
        np.allclose(moved - outline, (moved - outline)[0], atol=1e-9)


def test_a_box_is_outlined_by_its_twelve_edges():
    from snapframe.editor.viewport.shapes import _box
    box = _box(1.0, 2.0, 3.0)
    edges = box.outline()
    assert len(edges) == 12
    lengths = sorted(np.linalg.norm(box.points[edges[:, 0]] - box.points[edges[:, 1]], axis=1))
    assert np.allclose(lengths, [1.0] * 4 + [2.0] * 4 + [3.0] * 4)


def test_inertia_boxes_shown_after_a_density_edit_show_the_new_box(qtbot, viewport, tmp_path):
    from snapframe.editor.session import DocumentSession
    from snapframe.editor.viewport.widget import Viewport
    path = tmp_path / "crate.sdf"
    path.write_text("""<?xml version="1.0"?>
<sdf version="1.11"><model name="crate"><link name="body">
  <inertial auto="true"/>
  <collision name="c"><density>500</density><geometry><box><size>1 2 4</size></box></geometry></collision>
</link></model></sdf>""")
    session = DocumentSession.open(path)
    view = Viewport(session)
    qtbot.addWidget(view)
    view.resize(320, 240)
    view.show()
    qtbot.waitExposed(view)
    try:
        collision = session.document.element("body#collision:c")
        session.push(SetDensity(session.document, collision, 1000.0))
        view.set_layer_visible("inertia boxes", True)
        pts = points_of(view.mirror.inertia.mesh)
        size = np.sort(pts.max(axis=0) - pts.min(axis=0))
        # a uniform box's equivalent inertia box is the box itself, whatever its density
        # (its 12 edges, and a small cross at the centre of mass: the origin here)
        assert np.allclose(size, [1.0, 2.0, 4.0], atol=1e-6)
        assert len(pts) == 12 * 2 + 3 * 2
        assert np.allclose(pts[-6:].mean(axis=0), 0.0, atol=1e-9)
    finally:
        view.close_view()


def test_teaching_arrows_join_each_frame_to_the_frame_its_pose_is_written_in(qtbot, viewport,
                                                                            session):
    doc = session.document
    mirror = viewport.mirror
    assert mirror.arrows.mesh is None                 # teaching mode off: not built
    viewport.set_layer_visible("frame graphs", True)
    arrows = points_of(mirror.arrows.mesh).reshape(-1, 4, 3)
    table = doc.live.poses
    origin = {k: table.pose(k)[:3, 3] for k in table}
    tails_tips = {(tuple(np.round(a[0], 9)), tuple(np.round(a[1], 9))) for a in arrows}

    def has_arrow(a: str, b: str) -> bool:
        return (tuple(np.round(origin[a], 9)), tuple(np.round(origin[b], 9))) in tails_tips
    # written in the file: the gripper include's pose is relative to arm::gripper_mount,
    # and the weld is attached to (moves with) its child gripper::mount_point
    assert has_arrow("gripper", "arm::gripper_mount")
    assert has_arrow("weld", "gripper::mount_point")
    # selecting the gripper's mount point highlights its chain out to the root
    session.selection.select("gripper::mount_point")
    assert mirror.chain[:3] == ["gripper::mount_point", "gripper", "arm::gripper_mount"]
    assert mirror.chain[-1] == ""
    # moving the arm moves the arrows that start or end on it
    arm = doc.element("arm")
    assert session.push(SetPose(doc, arm, Pose.translation(0.5, 0, 0)))
    origin = {k: table.pose(k)[:3, 3] for k in table}
    arrows = points_of(mirror.arrows.mesh).reshape(-1, 4, 3)
    tails_tips = {(tuple(np.round(a[0], 9)), tuple(np.round(a[1], 9))) for a in arrows}
    assert has_arrow("gripper", "arm::gripper_mount")


def test_vtk_one_letter_keys_do_nothing(qtbot, viewport):
    from PySide6.QtTest import QTest
    camera = viewport.canvas.camera
    before = (camera.GetPosition(), camera.GetFocalPoint())
    for key in "3wsrfpjtueq":
        QTest.keyClick(viewport.widget, key)
    assert not viewport.canvas.render_window.GetStereoRender()
    visuals = viewport.mirror.actors["visuals"].GetProperty()
    assert visuals.GetRepresentationAsString() == "Surface"
    assert (camera.GetPosition(), camera.GetFocalPoint()) == before
    assert viewport.isVisible()


def test_unlimited_and_huge_joint_limits_keep_the_view(qtbot, tmp_path):
    """SDFormat writes "no limit" as 1e16; files also use the largest double.  The axes
    are drawn without a range and the scene keeps its size."""
    from snapframe.editor.session import DocumentSession
    from snapframe.editor.viewport.widget import Viewport
    path = tmp_path / "limits.sdf"
    path.write_text("""<?xml version="1.0"?>
<sdf version="1.11"><model name="m">
  <link name="a"><visual name="v"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></visual></link>
  <link name="b"><pose>0 0 0.3 0 0 0</pose>
    <visual name="v"><geometry><sphere><radius>0</radius></sphere></geometry></visual>
    <visual name="w"><geometry><box><size>0.1 0.1 0.1</size></box></geometry></visual></link>
  <link name="c"><pose>0 0 0.6 0 0 0</pose>
    <visual name="v"><geometry><box><size>0.1 0.1 0.1</size></box></geometry></visual></link>
  <joint name="slide" type="prismatic"><parent>a</parent><child>b</child>
    <axis><xyz>1 0 0</xyz><limit><lower>-1e16</lower><upper>1e16</upper></limit></axis></joint>
  <joint name="turn" type="revolute"><parent>b</parent><child>c</child>
    <axis><xyz>0 0 1</xyz><limit><lower>-1.79769e308</lower><upper>1.79769e308</upper></limit></axis></joint>
</model></sdf>""")
    session = DocumentSession.open(path)
    view = Viewport(session)
    qtbot.addWidget(view)
    view.resize(320, 240)
    view.show()
    qtbot.waitExposed(view)
    try:
        mirror = view.mirror
        # the zero-radius sphere draws nothing; the boxes are drawn
        assert "b#visual:v" not in mirror.visuals.index and "b#visual:w" in mirror.visuals.index
        axes = points_of(mirror.axes.mesh)
        assert np.all(np.isfinite(axes))
        assert np.abs(axes).max() < 1.0          # no 1e16 bar, no garbage arc
        bounds = np.array(mirror.bounds()).reshape(3, 2)
        assert np.all(bounds[:, 1] - bounds[:, 0] < 1.0)
    finally:
        view.close_view()


def _drag(qtbot, widget, points, modifier=None):
    from PySide6 import QtCore
    from PySide6.QtTest import QTest
    Qt = QtCore.Qt
    mod = modifier or Qt.KeyboardModifier.NoModifier
    QTest.mousePress(widget, Qt.MouseButton.LeftButton, mod, points[0])
    for p in points[1:]:
        QTest.mouseMove(widget, p)
        qtbot.wait(5)
    QTest.mouseRelease(widget, Qt.MouseButton.LeftButton, mod, points[-1])


def _arrow_pixel(viewport, X, axis):
    """A pixel of the gizmo's arrow along ``axis`` (where no ring crosses it)."""
    cam = np.array(viewport.canvas.camera.GetPosition())
    L = 0.1 * np.linalg.norm(cam - X[:3, 3])
    for f in np.linspace(0.95, 0.2, 31):
        p = viewport.pixel_of(X[:3, 3] + f * L * X[:3, axis])
        if viewport.gizmo.handle_at(p.x(), p.y()) == ("move", axis):
            return p, f * L
    raise AssertionError("no pixel of the arrow is free of the rings")


def _along(viewport, X, axis, fractions):
    cam = np.array(viewport.canvas.camera.GetPosition())
    L = 0.1 * np.linalg.norm(cam - X[:3, 3])
    return [viewport.pixel_of(X[:3, 3] + f * L * X[:3, axis]) for f in fractions]


def test_dragging_the_gizmo_arrow_moves_along_the_written_frame_in_one_undo_step(
        qtbot, viewport, session):
    doc = session.document
    session.selection.select("gripper")
    viewport.render()
    gizmo = viewport.gizmo
    assert gizmo.key == "gripper"
    X = gizmo._X_WG.copy()     # at gripper::mount_point, axes of arm::gripper_mount
    camera = viewport.canvas.camera
    view_before = (camera.GetPosition(), camera.GetFocalPoint())
    start, at = _arrow_pixel(viewport, X, 0)
    end = viewport.pixel_of(X[:3, 3] + (at + 0.1) * X[:3, 0])
    path = [start] + [start + (end - start) * (i / 6) for i in range(1, 7)]
    n = len(doc.commands)
    _drag(qtbot, viewport.widget, path)
    pose = doc.element("gripper").pose
    # 0.1 m along the written frame's x (snapped to the grid), nothing else changed
    assert pose.relative_to == "arm::gripper_mount"
    assert pose.value.p[0] == pytest.approx(0.1, abs=0.006)
    assert pose.value.p[0] / gizmo.grid_step == pytest.approx(round(pose.value.p[0] / gizmo.grid_step))
    assert pose.value.p[1:] == pytest.approx((0.0, 0.0), abs=1e-12)
    assert pose.value.rpy() == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)
    assert len(doc.commands) == n + 1                       # the whole drag: one step
    assert (camera.GetPosition(), camera.GetFocalPoint()) == view_before   # camera still
    # the world pose follows: mount point moved 0.1 along arm::gripper_mount's x
    X_W = doc.live.poses.pose("gripper::mount_point")
    assert np.allclose(X_W[:3, 3], X[:3, 3] + pose.value.p[0] * X[:3, 0], atol=1e-9)
    doc.commands.undo()
    assert doc.element("gripper").pose.value.p == pytest.approx((0.0, 0.0, 0.0))


def test_dragging_a_gizmo_ring_turns_in_angle_steps(qtbot, viewport, session):
    import math
    doc = session.document
    session.selection.select("gripper")
    viewport.render()
    gizmo = viewport.gizmo
    X = gizmo._X_WG.copy()
    cam = np.array(viewport.canvas.camera.GetPosition())
    L = 0.1 * np.linalg.norm(cam - X[:3, 3])
    # along the z ring, from 20 degrees to 80 degrees (away from where other rings cross)
    angles = np.linspace(math.radians(20.0), math.radians(80.0), 8)
    ring = [viewport.pixel_of(X[:3, 3] + 0.7 * L * (math.cos(a) * X[:3, 0] + math.sin(a) * X[:3, 1]))
            for a in angles]
    assert gizmo.handle_at(ring[0].x(), ring[0].y()) == ("turn", 2)
    _drag(qtbot, viewport.widget, ring)
    yaw = doc.element("gripper").pose.value.rpy()[2]
    assert yaw == pytest.approx(math.radians(60.0), abs=math.radians(5.1))
    assert yaw / gizmo.angle_step == pytest.approx(round(yaw / gizmo.angle_step), abs=1e-9)
    assert doc.element("gripper").pose.value.p == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)


def _hover(widget, point):
    """A mouse move with no button held (the user comes back and moves the mouse)."""
    from PySide6 import QtCore, QtGui, QtWidgets
    Qt = QtCore.Qt
    move = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, QtCore.QPointF(point),
                             QtCore.QPointF(widget.mapToGlobal(point)), Qt.MouseButton.NoButton,
                             Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QtWidgets.QApplication.sendEvent(widget, move)


def test_a_view_hidden_in_the_middle_of_a_gizmo_drag_ends_the_drag(qtbot, viewport, session):
    """Hidden with the mouse still down (another tab made current), the view never gets
    the release: the drag ends at once, what it moved is one undo step, and a mouse move
    with no button held afterwards moves nothing."""
    from PySide6 import QtCore
    from PySide6.QtTest import QTest
    left, none = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier
    doc = session.document
    session.selection.select("gripper")
    viewport.render()
    X = viewport.gizmo._X_WG.copy()
    start, at = _arrow_pixel(viewport, X, 0)
    n = len(doc.commands)
    QTest.mousePress(viewport.widget, left, none, start)
    QTest.mouseMove(viewport.widget, viewport.pixel_of(X[:3, 3] + (at + 0.1) * X[:3, 0]))
    moved = doc.element("gripper").pose.value.p[0]
    assert moved == pytest.approx(0.1, abs=0.006)
    viewport.hide()                                  # the mouse is still down
    assert not viewport.gizmo.dragging
    viewport.show()
    qtbot.waitExposed(viewport)
    _hover(viewport.widget, viewport.pixel_of(X[:3, 3] + (at + 0.3) * X[:3, 0]))
    assert doc.element("gripper").pose.value.p[0] == moved
    assert len(doc.commands) == n + 1                # the drag so far: one step
    doc.commands.undo()
    assert doc.element("gripper").pose.value.p == pytest.approx((0.0, 0.0, 0.0))


def test_a_view_hidden_while_the_camera_is_dragged_lets_go_of_the_camera(qtbot, viewport):
    """The camera's drag (VTK's) ends too: back on the view, hovering does not turn it."""
    from PySide6 import QtCore
    from PySide6.QtTest import QTest
    left, none = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier
    camera = viewport.canvas.camera
    widget = viewport.widget
    QTest.mousePress(widget, left, none, QtCore.QPoint(40, 40))
    QTest.mouseMove(widget, QtCore.QPoint(60, 50))
    viewport.hide()                                  # the mouse is still down
    viewport.show()
    qtbot.waitExposed(viewport)
    held = (camera.GetPosition(), camera.GetFocalPoint(), camera.GetViewUp())
    _hover(widget, QtCore.QPoint(300, 200))
    assert (camera.GetPosition(), camera.GetFocalPoint(), camera.GetViewUp()) == held


def test_a_closed_viewport_ignores_later_edits(qtbot, session):
    from snapframe.editor.viewport.widget import Viewport
    view = Viewport(session)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    view.close_view()
    doc = session.document
    # no crash, nothing drawn: the view let go of the session
    assert session.push(SetPose(doc, doc.element("gripper"), Pose.translation(0, 0, 0.2)))
    view.render()
    view.fit()
    qtbot.wait(50)


def test_the_selection_follows_a_frame_no_layer_draws(qtbot, viewport, session):
    doc = session.document
    assert not viewport.mirror.visible["joint"]        # joint triads hidden: no layer holds it
    session.selection.select("weld")
    before = points_of(viewport.mirror._overlays["selection"].GetMapper().GetInput()).copy()
    count = viewport.render_count
    weld = doc.element("weld")
    session.push(SetPose(doc, weld, Pose.translation(0, 0, 0.15)))
    after = points_of(viewport.mirror._overlays["selection"].GetMapper().GetInput())
    origin = doc.live.poses.pose("weld")[:3, 3]
    assert np.allclose(after[0], origin) and not np.allclose(after, before)
    assert viewport.render_count > count


def test_teaching_arrows_follow_a_relative_to_change(qtbot, viewport, session):
    doc = session.document
    viewport.set_layer_visible("frame graphs", True)
    gripper = doc.element("gripper")
    assert session.push(SetPose(doc, gripper, gripper.pose.value, relative_to="arm::upper_arm")
                        ) or True
    session.selection.select("gripper")
    assert viewport.mirror.chain[:2] == ["gripper", doc.element("gripper").pose.relative_to]
    graph = viewport.mirror._graph
    assert graph.relative_to["gripper"] == doc.element("gripper").pose.relative_to


def test_a_joint_axis_edit_redraws_the_axis(qtbot, tmp_path):
    from snapframe.core.model.edits import SetJointAxis
    from snapframe.editor.session import DocumentSession
    from snapframe.editor.viewport.widget import Viewport
    path = tmp_path / "hinge.sdf"
    path.write_text("""<?xml version="1.0"?>
<sdf version="1.11"><model name="m">
  <link name="a"><visual name="v"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></visual></link>
  <link name="b"><pose>0 0 0.3 0 0 0</pose>
    <visual name="v"><geometry><box><size>0.1 0.1 0.1</size></box></geometry></visual></link>
  <joint name="hinge" type="revolute"><parent>a</parent><child>b</child>
    <axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis></joint>
</model></sdf>""")
    session = DocumentSession.open(path)
    view = Viewport(session)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    try:
        doc = session.document
        axes = view.mirror.axes
        assert session.push(SetJointAxis(doc, doc.element("hinge"), xyz=(1.0, 0.0, 0.0)))
        group, slot = axes.index["hinge"]
        row, local, k = axes._groups[group]
        shaft = local[1] - local[0]
        assert np.allclose(np.cross(shaft / np.linalg.norm(shaft), (1.0, 0.0, 0.0)), 0.0,
                           atol=1e-9)
        # and what is drawn is that, placed at the joint
        X = doc.live.poses.pose("hinge")
        drawn = points_of(axes.mesh)[row + slot * len(local):row + (slot + 1) * len(local)]
        assert np.allclose(drawn, local @ X[:3, :3].T + X[:3, 3], atol=1e-9)
    finally:
        view.close_view()


def test_layers_find_moved_keys_by_row_as_they_do_by_name():
    from snapframe.editor.viewport.layers import KeyIndex, KeyQuery
    rng = np.random.default_rng(7)
    table_keys = [f"robot_{i}::link_{j}" for i in range(40) for j in range(6)]
    index = {k: int(r) for k, r in zip(table_keys, rng.permutation(len(table_keys)) * 2)}
    mine = list(rng.choice(table_keys, 100, replace=False))
    layer = KeyIndex(mine)
    event = list(rng.choice(table_keys, 60, replace=False))
    rows = np.array([index[k] for k in event])
    by_name = layer.find(np.array(event))
    layer.bind(index, generation=3)
    by_row = layer.find(KeyQuery(event, rows, 3))
    pairs = lambda found: sorted(zip(found[0].tolist(), found[1].tolist()))  # noqa: E731
    assert pairs(by_row) == pairs(by_name)
    assert {event[i] for i in by_row[0]} == set(event) & set(mine)
    assert all(mine[s] == event[i] for i, s in zip(*by_row))
    # rows of another table generation are not trusted: the names decide
    stale = KeyQuery(event, rows[::-1].copy(), 4)
    assert pairs(layer.find(stale)) == pairs(by_name)
    # a key the table lacks leaves the layer unbound (found by name only)
    partial = KeyIndex(mine + ["elsewhere"])
    partial.bind(index, generation=3)
    assert partial.generation == -1


def test_line_layers_move_each_drawing_by_its_own_pose():
    from snapframe.editor.viewport.layers import LineLayer
    from snapframe.editor.viewport.vtkdata import points_of as pts_of
    rng = np.random.default_rng(3)

    def pose():
        q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        X = np.eye(4)
        X[:3, :3] = q * np.sign(np.linalg.det(q))
        X[:3, 3] = rng.normal(size=3)
        return X
    shared = [rng.normal(size=(5, 3)), rng.normal(size=(3, 3))]     # one drawing, 3 users
    entries = [(f"s{i}", shared, pose(), (1, 2, 3)) for i in range(3)]
    entries += [(f"u{i}", [rng.normal(size=(4 + i % 3, 3))], pose(), (4, 5, 6)) for i in range(9)]
    layer = LineLayer("axes")
    layer.build(entries)
    moved = {"s1": pose(), "u2": pose(), "u7": pose(), "u8": pose()}
    assert layer.move(list(moved), np.stack(list(moved.values())))
    drawn = pts_of(layer.mesh)
    # every instance's points are its local polylines placed by its (new or old) pose
    start = 0
    groups: dict[int, list] = {}
    for key, polylines, X, _c in entries:
        groups.setdefault(id(polylines), []).append((key, polylines, X))
    for members in groups.values():
        local = np.vstack(members[0][1])
        for key, _pl, X in members:
            X = moved.get(key, X)
            expect = local @ X[:3, :3].T + X[:3, 3]
            assert np.allclose(drawn[start:start + len(local)], expect, atol=1e-12), key
            start += len(local)
    assert start == len(drawn)
