"""Floor plans in the main window, driven as a user drives them under Xvfb: the bundled
example (resources/examples/floorplan: ``flat.fpm`` and its door in ``flat.doors/``)
opened, its door shown at its start state and moved with the Joints panel's slider and
state list, a door added to an entryway from the scene tree's context menu, the top
view, the world saved and read back by libsdformat 12.3, and the plan placed in an
SDFormat world next to a robot; a FloorPlan JSON-LD folder (the studio of
tests/data/floorplan) opened with *File ▸ Open Folder…*.

Expected door positions are worked out by hand from the example's files: flat.fpm puts
the kitchen (4 x 3 m) at the origin, so its right wall (``kitchen.walls[1]``) has its
frame at (2, 0, 0) with x along world -y and y along world +x; flat.doors/door-instance.json
puts the door's frame at (0.15, 0.15, 0) in that wall frame; flat.doors/door.json puts the
hinge at (0.04, 0, 1.05) in the door frame and the leaf's centre at (0.4275, 0, -0.015)
in the hinge frame, turning about z; its states are closed 0, half-open 0.8 (the start
state) and open 1.5 rad, its limits 0 to 1.57 rad.  The file writes the door closed (its
own position zero); the editor shows it at its start state through the joint overlay, so
a joint position is the door's own angle.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.core.loading import LoadContext, load  # noqa: E402
from snapframe.core.pose import Pose  # noqa: E402
from widget_actions import LEFT, NONE  # noqa: E402

Qt = QtCore.Qt
CTRL = Qt.KeyboardModifier.ControlModifier
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "resources" / "examples" / "floorplan"
ORACLE = ROOT / "tests" / "oracle" / "build" / "sdf_oracle"
STUDIO = ROOT / "tests" / "data" / "floorplan" / "studio"
HINGE, LEAF = "kitchen-door::hinge", "kitchen-door::leaf"
LEAF_VISUAL = "kitchen-door::leaf#visual:visual"
START = 0.8                                           # the half-open state (rad)

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")


# -- the door's numbers ---------------------------------------------------------------

def leaf_pose(theta: float) -> np.ndarray:
    """X_W_leaf with the hinge at ``theta`` (the door's own angle), from the files."""
    o_x = 0.04 + 0.4275 * math.cos(theta)
    o_y = 0.4275 * math.sin(theta)
    X = np.eye(4)
    X[:3, 3] = (2.0 + 0.15 + o_y, 0.0 - 0.15 - o_x, 1.05 - 0.015)
    yaw = theta - math.pi / 2                       # the wall frame's x is world -y
    X[:3, :3] = [[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0],
                 [0, 0, 1]]
    return X


def drawn_centre(view, key: str) -> np.ndarray:
    """The centre of what the viewport draws for ``key`` (a box: its bounds' middle)."""
    poly = view.mirror.visuals.extract({key})
    assert poly is not None, key
    b = poly.GetBounds()
    return np.array([(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2])


# -- the window -----------------------------------------------------------------------

@pytest.fixture
def window(qtbot, tmp_path):
    from snapframe.editor.main_window import MainWindow
    settings = QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()          # keys reach the window's shortcuts only when it is active
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is win)
    yield win
    for s in win.sessions():
        s.document.commands.set_clean()   # no "unsaved changes" prompt at teardown
    win.close()


@pytest.fixture
def example(tmp_path) -> Path:
    target = tmp_path / "floorplan"
    shutil.copytree(EXAMPLE, target)
    return target


@pytest.fixture
def studio_folder(tmp_path) -> Path:
    """A FloorPlan JSON-LD folder: the studio of tests/data with its door in ``doors/``."""
    target = tmp_path / "studio"
    shutil.copytree(STUDIO / "jsonld", target)
    shutil.copytree(STUDIO / "door-jsonld", target / "doors")
    return target


def open_flat(qtbot, window, example: Path):
    """File ▸ Open… of the bundled flat.fpm (its door files are read with it)."""
    session = window.open(example / "flat.fpm")
    assert session is not None, window.last_error
    view = window.current.viewport
    qtbot.waitUntil(lambda: view.render_count > 0)
    return session, view


def key(window, key_code, modifiers=NONE) -> None:
    QtWidgets.QApplication.processEvents()
    if QtWidgets.QApplication.activeWindow() is not window:
        window.activateWindow()
        deadline = QtCore.QDeadlineTimer(5000)
        while QtWidgets.QApplication.activeWindow() is not window and not deadline.hasExpired():
            QtWidgets.QApplication.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 20)
    QTest.keyClick(window.windowHandle(), key_code, modifiers)


def open_folder(qtbot, window, monkeypatch, folder: Path):
    """File ▸ Open Folder…, the folder chosen in the dialog."""
    monkeypatch.setattr(QtWidgets.QFileDialog, "getExistingDirectory",
                        lambda *a, **k: str(folder))
    window.act_open_folder.trigger()
    qtbot.waitUntil(lambda: window.session is not None, timeout=20000)
    view = window.current.viewport
    qtbot.waitUntil(lambda: view.render_count > 0)
    return window.session, view


def joints_panel(qtbot, window):
    window.joints_dock.show()
    window.joints_dock.raise_()
    panel = window.joints
    qtbot.waitUntil(lambda: panel.isVisible() and HINGE in panel.rows)
    return panel


def tree_of(window):
    return window._trees.currentWidget()


def context_menu_choose(qtbot, window, key_: str, text: str) -> list[str]:
    """Right-click the row of ``key_`` in the scene tree and choose ``text`` in the menu
    that opens (the menu is closed when it has no such entry); returns the menu's
    entries.  Fails when no menu opens: a check on the entries must not pass for want of
    a menu."""
    tree = tree_of(window)
    index = tree.proxy.mapFromSource(tree.model.index_of(key_))
    assert index.isValid(), key_
    tree.view.scrollTo(index)
    pos = tree.view.visualRect(index).center()
    seen: list[str] = []
    opened: list[QtWidgets.QMenu] = []
    # the menu runs its own event loop (QMenu.exec) inside the event sent below: this
    # timer finds it there; it is stopped before returning, so nothing polls afterwards
    timer = QtCore.QTimer()
    timer.setInterval(20)

    def choose() -> None:
        menu = QtWidgets.QApplication.activePopupWidget()
        if not isinstance(menu, QtWidgets.QMenu):
            return                       # not shown yet: the timer looks again
        timer.stop()
        opened.append(menu)
        seen.extend(a.text() for a in menu.actions())
        action = next((a for a in menu.actions() if a.text() == text), None)
        if action is None:
            menu.close()
            return
        menu.setActiveAction(action)
        QTest.keyClick(menu, Qt.Key.Key_Return)

    timer.timeout.connect(choose)
    timer.start()
    viewport = tree.view.viewport()
    event = QtGui.QContextMenuEvent(QtGui.QContextMenuEvent.Reason.Mouse, pos,
                                    viewport.mapToGlobal(pos))
    try:
        QtWidgets.QApplication.sendEvent(viewport, event)
    finally:
        timer.stop()
    assert opened, f"no context menu opened on {key_}"
    return seen


# -- opening --------------------------------------------------------------------------

def studio_leaf_pose(theta: float) -> np.ndarray:
    """X_W_leaf of the studio door (tests/data/floorplan/README.md): its frame at world
    (-1.075, -2.15, 0), yaw 180 deg; the hinge at (0.025, 0, 1.05) in it, the leaf's
    centre 0.425 m along the hinge's x, turned by ``theta`` about z."""
    def rz(a):
        return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0],
                         [0, 0, 1.0]])
    X_WO, X_OL = np.eye(4), np.eye(4)
    X_WO[:3, :3], X_WO[:3, 3] = rz(math.pi), (-1.075, -2.15, 0.0)
    X_OL[:3, :3] = rz(theta)
    X_OL[:3, 3] = np.array([0.025, 0.0, 1.05]) + rz(theta) @ (0.425, 0.0, 0.0)
    return X_WO @ X_OL


def test_open_folder_shows_the_building_and_its_door_at_its_start_state(
        qtbot, window, monkeypatch, studio_folder):
    session, view = open_folder(qtbot, window, monkeypatch, studio_folder)
    doc = session.document
    assert doc.format == "floorplan" and not doc.diagnostics.errors
    assert Path(doc.path) == studio_folder
    assert window.tabs.tabText(window.tabs.currentIndex()) == "studio"
    tree = tree_of(window)
    top = tree.model.index(0, 0)
    rows = [tree.model.index(i, 0, top).data() for i in range(tree.model.rowCount(top))]
    assert rows == ["building", "door-instance-1"]
    drawn = set(view.mirror.visuals.index)
    building = {k for k in drawn if k.startswith("building::")}
    assert len(building) == len(doc.root.models[0].links[0].visuals) == 18
    # the door at its start state (ajar, 0.5 rad) in the overlay; the document holds it
    # closed, and nothing was edited
    hinge, leaf = "door-instance-1::joint-hinge", "door-instance-1::leaf"
    assert session.live.joints.position(hinge) == 0.5
    np.testing.assert_allclose(session.live.poses.pose(leaf), studio_leaf_pose(0.5), atol=1e-9)
    np.testing.assert_allclose(drawn_centre(view, leaf + "#visual:visual"),
                               studio_leaf_pose(0.5)[:3, 3], atol=1e-6)
    assert doc.element(leaf).pose.value.matrix()[:3, 3] == pytest.approx((0.45, 0, 1.05))
    assert len(doc.commands) == 0 and doc.commands.is_clean


def test_open_dialog_offers_and_opens_floorplan_json(qtbot, window, monkeypatch,
                                                     studio_folder):
    asked: list[str] = []

    def dialog(*args, **kwargs):
        asked.append(args[3] if len(args) > 3 else kwargs.get("filter", ""))
        return str(studio_folder / "floorplan.json"), ""
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", dialog)
    key(window, Qt.Key.Key_O, CTRL)                          # File ▸ Open…
    qtbot.waitUntil(lambda: window.session is not None, timeout=20000)
    assert "floorplan.json" in asked[0] and "*.fpm" in asked[0]
    doc = window.session.document
    assert doc.format == "floorplan" and not doc.diagnostics.errors
    assert doc.element("door-instance-1") is not None       # the folder's door files too


def test_a_folder_that_is_no_floor_plan_is_refused_with_the_reason(
        qtbot, window, monkeypatch, tmp_path):
    empty = tmp_path / "nothing_here"
    empty.mkdir()
    monkeypatch.setattr(QtWidgets.QFileDialog, "getExistingDirectory",
                        lambda *a, **k: str(empty))
    window.act_open_folder.trigger()
    assert window.tabs.count() == 0
    assert "nothing_here is not a folder Snapframe opens: it has no floorplan.json" in \
        window.statusBar().currentMessage()


def test_the_dsl_model_opens_with_the_door_beside_it_at_its_start_state(
        qtbot, window, example):
    session, view = open_flat(qtbot, window, example)
    doc = session.document
    assert doc.format == "floorplan" and not doc.diagnostics.errors
    assert [m.name for m in doc.root.models] == ["building", "kitchen-door"]
    # 12 walls (5 of them cut: 2 entryways through two walls each, the window through
    # one), 3 floor slabs and the pillar, each drawn; and the door's two links
    drawn = set(view.mirror.visuals.index)
    building = {k for k in drawn if k.startswith("building::")}
    assert len(building) == len(doc.root.models[0].links[0].visuals) >= 16
    assert {"kitchen-door::jamb#visual:visual", LEAF_VISUAL} <= drawn
    assert session.live.joints.position(HINGE) == START
    np.testing.assert_allclose(session.live.poses.pose(LEAF), leaf_pose(START), atol=1e-9)
    np.testing.assert_allclose(drawn_centre(view, LEAF_VISUAL), leaf_pose(START)[:3, 3],
                               atol=1e-6)
    # the file's door is closed (the leaf's link pose is in the door model's frame)
    X_WM = doc.element("kitchen-door").pose.value.matrix()
    np.testing.assert_allclose(X_WM @ doc.element(LEAF).pose.value.matrix(), leaf_pose(0.0),
                               atol=1e-9)
    assert len(doc.commands) == 0


def test_the_entryways_are_frames_in_the_scene_tree_that_take_a_door(qtbot, window, example):
    session, view = open_flat(qtbot, window, example)
    doc = session.document
    tree = tree_of(window)
    tree.view.expandAll()
    for name in ("kitchen_living", "kitchen_hall", "living_window"):
        assert tree.model.index_of(f"building::{name}").isValid(), name
    # the frame of the doorway: the centre of its rectangle (flat.fpm: x -1.0 along the
    # kitchen's bottom wall, whose frame runs along world -x from y = -1.5; 1.05 m up)
    np.testing.assert_allclose(session.live.poses.pose("building::kitchen_hall")[:3, 3],
                               (1.0, -1.5, 1.05), atol=1e-9)
    # the doorway with a door and the window offer none; the free doorway offers its own
    assert not any(t.startswith("Add door") for t in context_menu_choose(
        qtbot, window, "building::kitchen_living", "no such entry"))
    assert not any(t.startswith("Add door") for t in context_menu_choose(
        qtbot, window, "building::living_window", "no such entry"))
    shown = context_menu_choose(qtbot, window, "building::kitchen_hall",
                                "Add door to kitchen_hall")
    assert [t for t in shown if t.startswith("Add door")] == ["Add door to kitchen_hall"]
    assert doc.element("kitchen_hall_door") is not None
    assert doc.commands.undo_label == "Add door to kitchen_hall"
    # the kitchen door stays where it was shown (an edit resets the overlay)
    assert session.live.joints.position(HINGE) == START
    np.testing.assert_allclose(session.live.poses.pose(LEAF), leaf_pose(START), atol=1e-9)


def test_a_fpm_without_doors_offers_both_entryways(qtbot, window, example):
    shutil.rmtree(example / "flat.doors")
    session, view = open_flat(qtbot, window, example)
    doc = session.document
    assert [m.name for m in doc.root.models] == ["building"]
    shown = context_menu_choose(qtbot, window, "building", "Add door to kitchen_living")
    assert [t for t in shown if t.startswith("Add door")] == \
        ["Add door to kitchen_living", "Add door to kitchen_hall"]
    assert doc.element("kitchen_living_door") is not None
    assert doc.commands.undo_label == "Add door to kitchen_living"


# -- the door's slider ----------------------------------------------------------------

def test_the_door_slider_turns_the_leaf_in_core_and_in_the_viewport(
        qtbot, window, example):
    session, view = open_flat(qtbot, window, example)
    panel = joints_panel(qtbot, window)
    row = panel.rows[HINGE]
    # the door's own angle and range, its states, at the start state
    assert (row.low.text(), row.high.text()) == ("0.0°", "90.0°")
    assert row.field.text() == f"{math.degrees(START):.1f}"
    assert row.state is not None and row.state.currentText() == "half-open"
    assert [row.state.itemText(i) for i in range(1, row.state.count())] == \
        ["closed", "half-open", "open"]

    row.slider.setFocus()
    QTest.keyClick(row.slider, Qt.Key.Key_PageUp)          # a page is 15°
    # the slider counts 0.1° ticks: from 45.8° (0.8 rad, rounded to a tick) to 60.8°
    moved = math.radians(round(math.degrees(START), 1) + 15)
    assert session.live.joints.position(HINGE) == pytest.approx(moved)   # the door's angle
    assert row.field.text() == f"{math.degrees(moved):.1f}"
    assert row.state.currentText() == "state…"             # between states
    np.testing.assert_allclose(session.live.poses.pose(LEAF), leaf_pose(moved), atol=1e-9)
    qtbot.waitUntil(lambda: np.allclose(drawn_centre(view, LEAF_VISUAL),
                                        leaf_pose(moved)[:3, 3], atol=1e-6))
    assert len(session.document.commands) == 0              # posing is not an edit

    # a state picked in the row's list: "open" is 1.5 rad of the door
    row.state.setFocus()
    QTest.keyClick(row.state, Qt.Key.Key_End)
    assert row.state.currentText() == "open"
    assert session.live.joints.position(HINGE) == pytest.approx(1.5)
    np.testing.assert_allclose(session.live.poses.pose(LEAF), leaf_pose(1.5), atol=1e-9)
    qtbot.waitUntil(lambda: np.allclose(drawn_centre(view, LEAF_VISUAL),
                                        leaf_pose(1.5)[:3, 3], atol=1e-6))
    # typed beyond the door's range: held at 90° (1.57 rad)
    row.field.setFocus()
    row.field.selectAll()
    QTest.keyClicks(row.field, "120")
    QTest.keyClick(row.field, Qt.Key.Key_Return)
    assert session.live.joints.position(HINGE) == pytest.approx(1.57)
    assert "beyond the upper limit: set to 90.0°" in row.note.text()
    # Reset puts the door back as the file writes it: closed
    QTest.mouseClick(panel.reset_button, LEFT)
    assert session.live.joints.position(HINGE) == 0.0
    assert row.state.currentText() == "closed"
    np.testing.assert_allclose(session.live.poses.pose(LEAF), leaf_pose(0.0), atol=1e-9)


def test_ctrl_2_looks_down_on_the_plan(qtbot, window, example):
    session, view = open_flat(qtbot, window, example)
    key(window, Qt.Key.Key_2, CTRL)                         # View ▸ Top view
    direction = np.array(view.canvas.camera.GetDirectionOfProjection())
    np.testing.assert_allclose(direction, (0, 0, -1), atol=1e-9)
    # the whole plan is in the picture: every wall corner projects inside the view
    plan = session.document.extras["floorplan"]
    for wall in plan.walls.values():
        for p in wall.points[:4]:
            pixel = view.pixel_of(p)
            assert 0 <= pixel.x() < view.widget.width() and 0 <= pixel.y() < view.widget.height()


# -- adding a door --------------------------------------------------------------------

def test_add_door_from_the_context_menu_is_one_undo_step(qtbot, window, example):
    session, view = open_flat(qtbot, window, example)
    doc = session.document
    panel = joints_panel(qtbot, window)
    # kitchen_hall has no door: offered on the building and on the wall it is cut into;
    # kitchen_living has one already, the window is no entryway
    wall_piece = next(k for k in view.mirror.visuals.index
                      if k.startswith("building::building#visual:kitchen-wall-0"))
    shown = context_menu_choose(qtbot, window, "building", "no such entry")
    assert "Add door to kitchen_hall" in shown
    assert not any("kitchen_living" in t or "living_window" in t for t in shown)
    tree = tree_of(window)
    tree.view.expandAll()
    assert not any(t.startswith("Add door") for t in
                   context_menu_choose(qtbot, window, wall_piece, "no such entry"))
    hall_piece = next(k for k in view.mirror.visuals.index
                      if k.startswith("building::building#visual:hall-wall-0"))
    context_menu_choose(qtbot, window, hall_piece, "Add door to kitchen_hall")

    door = doc.element("kitchen_hall_door")
    assert door is not None
    assert len(doc.commands) == 1 and doc.commands.undo_label == "Add door to kitchen_hall"
    assert session.selection.keys == ["kitchen_hall_door"]
    # a closed door in the doorway (flat.fpm: kitchen_hall is 0.9 x 2.1 m at x = 1 in the
    # kitchen's bottom wall, y = -1.5, through it and the hall's wall: 0.15 + 0.1 m deep)
    qtbot.waitUntil(lambda: "kitchen_hall_door::hinge" in panel.rows)
    row = panel.rows["kitchen_hall_door::hinge"]
    assert (row.low.text(), row.high.text(), row.field.text()) == ("0.0°", "90.0°", "0.0")
    leaf_key = next(k for k in view.mirror.visuals.index if k.startswith("kitchen_hall_door::"))
    poly = view.mirror.visuals.extract({leaf_key})
    x0, x1, y0, y1, z0, z1 = poly.GetBounds()
    assert 0.55 <= x0 < x1 <= 1.45 and -1.75 <= y0 < y1 <= -1.5 and 0 <= z0 < z1 <= 2.1
    assert x1 - x0 > 0.85 and z1 - z0 > 2.0                  # it fills the doorway
    # nothing more to add there
    assert not any(t.startswith("Add door") for t in
                   context_menu_choose(qtbot, window, "building", "no such entry"))

    key(window, Qt.Key.Key_Z, CTRL)
    assert doc.element("kitchen_hall_door") is None and len(doc.commands) == 0
    qtbot.waitUntil(lambda: "kitchen_hall_door::hinge" not in panel.rows)
    assert "Add door to kitchen_hall" in context_menu_choose(qtbot, window, "building",
                                                             "no such entry")
    key(window, Qt.Key.Key_Z, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert doc.element("kitchen_hall_door") is not None


# -- saving -----------------------------------------------------------------------------

def oracle_frames(path: Path) -> dict[str, np.ndarray]:
    if not (ORACLE.is_file() and os.access(ORACLE, os.X_OK)):
        pytest.skip("the libsdformat oracle is not built (tests/oracle/build.sh)")
    done = subprocess.run([str(ORACLE), str(path)], capture_output=True, text=True,
                          timeout=120, cwd=path.parent)
    result = json.loads(done.stdout)
    assert result["errors"] == [], result["errors"]
    return {name: Pose.from_xyz_quat(f["pose"][:3], f["pose"][3:]).matrix()
            for name, f in result["frames"].items()}


def oracle_joints(path: Path) -> dict:
    from tests.plugins.floorplan.jsonld_cases import joints_binary, read_joints
    binary, why = joints_binary()
    if binary is None:
        pytest.skip(why)
    result = read_joints(binary, path)
    assert result["errors"] == [], result["errors"]
    return result["joints"]


@pytest.mark.oracle
def test_ctrl_s_saves_a_world_libsdformat_reads_with_both_doors(
        qtbot, window, monkeypatch, example, tmp_path):
    session, view = open_flat(qtbot, window, example)
    doc = session.document
    panel = joints_panel(qtbot, window)
    context_menu_choose(qtbot, window, "building", "Add door to kitchen_hall")
    # the slider poses the view only: the file keeps the door closed, its start state
    # for Gazebo
    QTest.keyClick(panel.rows[HINGE].slider, Qt.Key.Key_PageUp)
    target = tmp_path / "out" / "flat_world.sdf"
    target.parent.mkdir()
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(target), ""))
    key(window, Qt.Key.Key_S, CTRL)                          # a floor plan saves as SDFormat
    assert target.is_file()
    assert (target.parent / "flat_world_meshes").is_dir()

    joints = oracle_joints(target)
    hinge = joints[HINGE]
    assert hinge["type"] == 6                                 # sdf::JointType::REVOLUTE
    assert (hinge["parent"], hinge["child"]) == ("jamb", "leaf")
    assert (hinge["lower"], hinge["upper"]) == (0.0, 1.57)   # the door's own limits
    added = joints["kitchen_hall_door::hinge"]
    assert added["type"] == 6 and (added["lower"], added["upper"]) == (0.0, 1.57)
    frames = oracle_frames(target)
    np.testing.assert_allclose(frames[LEAF], leaf_pose(0.0), atol=1e-6)     # closed
    assert {"building", "building::building", "building::kitchen_hall", "kitchen-door",
            "kitchen_hall_door"} <= set(frames)
    # each door's start state: the initial position of a gz-sim position controller
    tree = etree.parse(str(target))
    starts = {}
    for plugin in tree.xpath("/sdf/world/model/plugin"):
        assert plugin.get("filename") == "gz-sim-joint-position-controller-system"
        assert plugin.get("name") == "gz::sim::systems::JointPositionController"
        model = plugin.getparent().get("name")
        starts[f"{model}::{plugin.findtext('joint_name')}"] = \
            float(plugin.findtext("initial_position"))
    assert starts == {HINGE: START, "kitchen_hall_door::hinge": 0.0}
    # and Snapframe reads it back the same
    again = load(target, LoadContext(use_environment=False))
    assert not again.diagnostics.errors
    np.testing.assert_allclose(again.live.poses.pose(LEAF), leaf_pose(0.0), atol=1e-9)
    assert len(again.root.models[0].links[0].visuals) == \
        len(doc.root.models[0].links[0].visuals)


# -- a floor plan next to a robot -------------------------------------------------------

WORLD = """<?xml version="1.0"?>
<sdf version="1.9">
  <world name="lab">
    <frame name="corner"><pose>1 -1 0 0 0 0.5</pose></frame>
    <include>
      <uri>arm_gripper/arm.sdf</uri>
      <name>robot</name>
      <pose>0.5 0.5 0 0 0 0</pose>
    </include>
  </world>
</sdf>
"""


@pytest.mark.oracle
def test_insert_part_from_file_places_the_plan_in_a_world_next_to_a_robot(
        qtbot, window, monkeypatch, example, tmp_path):
    shutil.copytree(ROOT / "resources" / "examples" / "arm_gripper", tmp_path / "arm_gripper")
    world = tmp_path / "lab.sdf"
    world.write_text(WORLD)
    session = window.open(world)
    doc = session.document
    assert not doc.diagnostics.errors
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName",
                        lambda *a, **k: (str(example / "flat.fpm"), ""))
    key(window, Qt.Key.Key_I, CTRL | Qt.KeyboardModifier.ShiftModifier)   # Part from file…
    panel = window.placement
    assert panel is not None and panel.part_name == "flat"
    tree = tree_of(window)
    index = tree.proxy.mapFromSource(tree.model.index_of("corner"))
    QTest.mouseClick(tree.view.viewport(), LEFT, NONE, tree.view.visualRect(index).center())
    assert panel.target == "corner"
    QTest.mouseClick(panel.place_button, LEFT)
    assert doc.commands.undo_label == "Place flat on corner"
    # the building sits on the corner frame: a wall's corner moved by X_W_corner
    X_WC = Pose.from_xyz_rpy(1, -1, 0, 0, 0, 0.5).matrix()
    np.testing.assert_allclose(session.live.poses.pose("flat"), X_WC, atol=1e-12)
    assert session.live.poses.pose("robot") is not None
    assert any(k.startswith("flat::building::building#visual:") for k in
               window.current.viewport.mirror.visuals.index)
    # written with the include kept (Snapframe reads it back) and flattened (libsdformat)
    key(window, Qt.Key.Key_S, CTRL)
    assert "flat.fpm" in world.read_text()
    again = load(world, LoadContext(use_environment=False))
    assert not again.diagnostics.errors
    np.testing.assert_allclose(again.live.poses.pose("flat::building"), X_WC, atol=1e-9)
    flat = tmp_path / "flat_lab.sdf"
    doc.save(flat, "sdformat", flatten=True)
    frames = oracle_frames(flat)
    np.testing.assert_allclose(frames["flat::building"], X_WC, atol=1e-9)
    np.testing.assert_allclose(frames["robot"], Pose.from_xyz_rpy(0.5, 0.5, 0, 0, 0, 0).matrix(),
                               atol=1e-9)
