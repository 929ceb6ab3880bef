"""Usability fixes found by a first-time user, each driven as the user met it (QTest keys
and clicks on the real widgets, the real VTK viewport under Xvfb).

Expected values come from the files themselves (the bundled floor plan's door limits are
0 to 1.57 rad; arm_and_gripper.sdf puts the gripper at (0, 0, 1.02) turned 45° about z),
from the folders a save writes, and from libsdformat 12.3 (tests/oracle) for what it can
load; never from what the editor printed before.
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

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.core.loading import LoadContext, load  # noqa: E402

Qt = QtCore.Qt
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier
ALT = Qt.KeyboardModifier.AltModifier
NONE = Qt.KeyboardModifier.NoModifier
LEFT = Qt.MouseButton.LeftButton
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "examples"
ORACLE = ROOT / "tests" / "oracle" / "build" / "sdf_oracle"
FRC_FIELD = ROOT / "tests" / "data" / "mirabuf" / "FRC_Field_2018_v14.mira"
HINGE = "kitchen-door::hinge"          # the bundled floor plan's door: 0 to 1.57 rad

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")


# -- the window and what a user does with it ----------------------------------------------

def make_window(qtbot, settings_path: Path, size: tuple[int, int] | None = (1400, 900)):
    from snapframe.editor.main_window import MainWindow
    settings = QtCore.QSettings(str(settings_path), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    if size is not None:
        win.resize(*size)
    win.show()
    qtbot.waitExposed(win)
    return win


@pytest.fixture
def window(qtbot, tmp_path):
    win = make_window(qtbot, tmp_path / "settings.ini")
    yield win
    for s in win.sessions():
        s.document.commands.set_clean()   # no "unsaved changes" prompt at teardown
    win.close()


@pytest.fixture
def flat(tmp_path) -> Path:
    """A copy of the bundled floor plan folder (flat.fpm, its door in flat.doors/)."""
    target = tmp_path / "floorplan"
    shutil.copytree(EXAMPLES / "floorplan", target)
    return target


def key(window, key_code, modifiers=NONE) -> None:
    """A key pressed in the window (its shortcuts answer only while it is active)."""
    QtWidgets.QApplication.processEvents()
    if QtWidgets.QApplication.activeWindow() is not window:
        window.activateWindow()
        deadline = QtCore.QDeadlineTimer(5000)
        while QtWidgets.QApplication.activeWindow() is not window and not deadline.hasExpired():
            QtWidgets.QApplication.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 20)
    QTest.keyClick(window.windowHandle(), key_code, modifiers)


def file_menu_save_as(window, label_start: str) -> None:
    """File ▸ Save As ▸ the entry whose label starts with ``label_start``."""
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    save_as = next(a.menu() for a in menu.actions() if a.menu() and "Save" in a.text())
    next(a for a in save_as.actions() if a.text().startswith(label_start)).trigger()


def tree_menu_choose(qtbot, window, key_: str, text: str) -> None:
    """Right-click ``key_``'s row in the scene tree and choose ``text`` in its menu."""
    tree = window._trees.currentWidget()
    index = tree.proxy.mapFromSource(tree.model.index_of(key_))
    assert index.isValid(), key_
    tree.view.scrollTo(index)
    pos = tree.view.visualRect(index).center()
    chosen: list[str] = []

    def choose() -> None:
        menu = QtWidgets.QApplication.activePopupWidget()
        if not isinstance(menu, QtWidgets.QMenu):
            QtCore.QTimer.singleShot(20, choose)
            return
        action = next((a for a in menu.actions() if a.text() == text), None)
        if action is None:
            menu.close()
            return
        chosen.append(text)
        menu.setActiveAction(action)
        QTest.keyClick(menu, Qt.Key.Key_Return)

    QtCore.QTimer.singleShot(0, choose)
    viewport = tree.view.viewport()
    QtWidgets.QApplication.sendEvent(viewport, QtGui.QContextMenuEvent(
        QtGui.QContextMenuEvent.Reason.Mouse, pos, viewport.mapToGlobal(pos)))
    assert chosen == [text], f"the menu of {key_} has no {text!r}"


def click_in_next_message_box(qtbot, object_name: str, button_text: str, seen: list) -> None:
    """When the modal box ``object_name`` opens, note its text and click ``button_text``."""
    def click() -> None:
        box = QtWidgets.QApplication.activeModalWidget()
        if not isinstance(box, QtWidgets.QMessageBox) or box.objectName() != object_name:
            QtCore.QTimer.singleShot(20, click)
            return
        seen.append(box.text())
        button = next(b for b in box.buttons() if b.text().replace("&", "") == button_text)
        QTest.mouseClick(button, LEFT)
    QtCore.QTimer.singleShot(0, click)


def open_and_draw(qtbot, window, path: Path):
    session = window.open(path)
    assert session is not None, window.last_error
    view = window.current.viewport
    qtbot.waitUntil(lambda: view.render_count > 0)
    return session, view


# -- 1. a floor plan saved as SDFormat becomes that file ------------------------------------

def test_a_floor_plan_saved_as_sdformat_is_bound_to_the_new_file(
        qtbot, window, flat, tmp_path, monkeypatch, no_modal_dialogs):
    session, _view = open_and_draw(qtbot, window, flat / "flat.fpm")
    doc = session.document
    tree_menu_choose(qtbot, window, "building", "Add door to kitchen_hall")
    assert window.tabs.tabText(0) == "flat.fpm *"
    target = tmp_path / "out" / "flat_world.sdf"
    target.parent.mkdir()
    asked: list = []

    def save_dialog(*_a, **_k):
        asked.append(True)
        return str(target), ""
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", save_dialog)
    file_menu_save_as(window, "SDFormat, includes kept")
    assert asked == [True] and target.is_file()
    # nothing lost (the mesh files written beside it are news): no box, and the tab is
    # the new file, saved
    assert no_modal_dialogs == []
    assert doc.path == str(target) and doc.format == "sdformat"
    assert window.tabs.tabText(0) == "flat_world.sdf"
    assert not session.modified
    saved = load(target, LoadContext(use_environment=False))
    assert not saved.diagnostics.errors
    assert "kitchen_hall_door" in {m.name for m in saved.root.models}
    # the next change (the door taken back) goes to that file with Ctrl+S, unasked
    key(window, Qt.Key.Key_Z, CTRL)
    assert window.tabs.tabText(0) == "flat_world.sdf *"
    key(window, Qt.Key.Key_S, CTRL)
    assert asked == [True] and no_modal_dialogs == []
    assert not session.modified and window.tabs.tabText(0) == "flat_world.sdf"
    again = load(target, LoadContext(use_environment=False))
    assert not again.diagnostics.errors
    assert "kitchen_hall_door" not in {m.name for m in again.root.models}
    assert "kitchen-door" in {m.name for m in again.root.models}
    # and quitting has nothing to ask about
    window.close()
    assert [kind for kind, _ in no_modal_dialogs] == []


# -- 2. a floor plan inserted in a world: the include libsdformat cannot load ------------------

WORLD = """<?xml version="1.0" ?>
<sdf version="1.9">
  <world name="lab">
    <light name="sun" type="directional">
      <pose>0 0 10 0 0 0</pose>
    </light>
    <model name="table">
      <static>true</static>
      <link name="top">
        <visual name="v"><geometry><box><size>1 1 0.05</size></box></geometry></visual>
      </link>
    </model>
  </world>
</sdf>
"""


def insert_flat_in_world(qtbot, window, flat: Path, monkeypatch):
    """Insert ▸ Part from file… (Ctrl+Shift+I) of flat.fpm into lab.sdf, on the target
    the panel offers first, placed; returns the session and the panel."""
    world = flat / "lab.sdf"
    world.write_text(WORLD)
    session, _view = open_and_draw(qtbot, window, world)
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName",
                        lambda *a, **k: (str(flat / "flat.fpm"), ""))
    key(window, Qt.Key.Key_I, CTRL | SHIFT)
    panel = window.placement
    assert panel is not None and panel.part_name == "flat"
    return session, panel


def test_a_floor_plan_placed_in_a_world_is_on_the_world_frame_and_its_include_is_reported(
        qtbot, window, flat, monkeypatch, no_modal_dialogs):
    session, panel = insert_flat_in_world(qtbot, window, flat, monkeypatch)
    doc = session.document
    # the world frame is offered, and chosen, by name
    assert panel.target_combo.labels()[0] == "world"
    assert panel.target_combo.currentText() == "world" and panel.target == ""
    QTest.mouseClick(panel.place_button, LEFT)
    include = doc.element("flat")
    assert include is not None and include.resolved_path == str(flat / "flat.fpm")
    uri = include.uri                                     # (relative to lab.sdf)
    key(window, Qt.Key.Key_S, CTRL)
    # saved as it is (Snapframe reads it back), the include reported: a warning box
    [(kind, text)] = no_modal_dialogs
    assert kind == "warning"
    assert f"include flat: libsdformat and Gazebo cannot load {uri}; Save As SDFormat " \
           "flattened writes it in place" in text
    assert not session.modified and window.tabs.tabText(0) == "lab.sdf"
    # the new element indented like its siblings, the rest of the file as it was
    lines = (flat / "lab.sdf").read_text().splitlines()
    start = lines.index("    <include>")
    end = lines.index("    </include>")
    block = lines[start + 1:end]
    assert block and all(line.startswith("      <") for line in block), block
    assert f"      <uri>{uri}</uri>" in block
    assert lines[:start] + lines[end + 1:] == WORLD.splitlines()
    again = load(flat / "lab.sdf", LoadContext(use_environment=False))
    assert not again.diagnostics.errors
    np.testing.assert_allclose(again.live.poses.pose("flat"), np.eye(4), atol=1e-12)


def oracle_load(path: Path) -> dict:
    if not (ORACLE.is_file() and os.access(ORACLE, os.X_OK)):
        pytest.skip("the libsdformat oracle is not built (tests/oracle/build.sh)")
    done = subprocess.run([str(ORACLE), str(path)], capture_output=True, text=True,
                          timeout=120, cwd=path.parent)
    return json.loads(done.stdout)


@pytest.mark.oracle
def test_what_the_include_warning_says_is_what_libsdformat_does(
        qtbot, window, flat, monkeypatch, no_modal_dialogs):
    session, panel = insert_flat_in_world(qtbot, window, flat, monkeypatch)
    QTest.mouseClick(panel.place_button, LEFT)
    key(window, Qt.Key.Key_S, CTRL)
    assert f"cannot load {session.document.element('flat').uri}" in no_modal_dialogs[0][1]
    assert oracle_load(flat / "lab.sdf")["errors"]              # libsdformat: cannot
    flattened = flat / "lab_flat.sdf"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(flattened), ""))
    file_menu_save_as(window, "SDFormat, flattened")
    result = oracle_load(flattened)
    assert result["errors"] == [] and "flat::building" in result["frames"]


# -- 3. a large scene is shown whole when it opens -------------------------------------------

def corners_on_screen(view) -> list[bool]:
    x0, x1, y0, y1, z0, z1 = view.mirror.bounds()
    w, h = view.widget.width(), view.widget.height()
    out = []
    for x in (x0, x1):
        for y in (y0, y1):
            for z in (z0, z1):
                p = view.pixel_of((x, y, z))
                out.append(0 <= p.x() <= w and 0 <= p.y() <= h)
    return out


def camera_state(view) -> np.ndarray:
    camera = view.canvas.camera
    return np.array([*camera.GetPosition(), *camera.GetFocalPoint(), *camera.GetViewUp(),
                     camera.GetViewAngle()])


@pytest.mark.parametrize("background", [False, True])
def test_a_scene_opened_beside_another_tab_is_fitted_as_f_fits_it(
        qtbot, window, example_copy, flat, background):
    open_and_draw(qtbot, window, example_copy("arm_gripper") / "arm_and_gripper.sdf")
    if background:
        job = window.open_in_background(flat / "flat.fpm")
        assert job.wait(120)
    else:
        window.open(flat / "flat.fpm")
    view = window.current.viewport
    qtbot.waitUntil(lambda: view.render_count > 0)
    assert all(corners_on_screen(view))
    shown = camera_state(view)
    key(window, Qt.Key.Key_F)                                  # what F makes of it
    np.testing.assert_allclose(camera_state(view), shown, rtol=1e-9, atol=1e-9)


def test_the_frc_field_opens_whole(qtbot, window, example_copy):
    open_and_draw(qtbot, window, example_copy("arm_gripper") / "arm_and_gripper.sdf")
    job = window.open_in_background(FRC_FIELD)
    assert job.wait(300)
    view = window.current.viewport
    qtbot.waitUntil(lambda: view.render_count > 0)
    assert Path(window.session.document.path).name == FRC_FIELD.name
    assert all(corners_on_screen(view))


# -- 4. the door slider's ends and values shown rounded are the limits ---------------------------

def joints_row(qtbot, window, key_: str):
    window.joints_dock.show()
    window.joints_dock.raise_()
    panel = window.joints
    qtbot.waitUntil(lambda: panel.isVisible() and key_ in panel.rows)
    return panel.rows[key_]


def type_value(field, text: str) -> None:
    field.setFocus()
    field.lineEdit().selectAll()
    QTest.keyClicks(field.lineEdit(), text)
    QTest.keyClick(field.lineEdit(), Qt.Key.Key_Return)


def test_the_door_slider_reaches_its_limits_without_a_warning(qtbot, window, flat):
    session, _view = open_and_draw(qtbot, window, flat / "flat.fpm")
    row = joints_row(qtbot, window, HINGE)
    joints = session.live.joints
    assert row.high.text() == "90.0°"                      # 1.57 rad, shown to 0.1°
    row.slider.setFocus()
    QTest.keyClick(row.slider, Qt.Key.Key_End)             # the slider's end...
    assert joints.position(HINGE) == 1.57                  # ...is the limit, exactly
    assert not row.note.isVisible() or not row.note.text()
    QTest.keyClick(row.slider, Qt.Key.Key_Home)
    assert joints.position(HINGE) == 0.0
    # the value the field shows at the limit, typed back: the limit, no warning
    type_value(row.field, "90.0")
    assert joints.position(HINGE) == 1.57
    assert "beyond" not in row.note.text()
    type_value(row.field, "89.95")                         # shown as 90.0 too
    assert joints.position(HINGE) == 1.57 and "beyond" not in row.note.text()
    # beyond the limit by more than the display's rounding: held there, and said so
    type_value(row.field, "90.1")
    assert joints.position(HINGE) == 1.57
    assert "90.1° is beyond the upper limit: set to 90.0°" in row.note.text()
    type_value(row.field, "45")
    assert joints.position(HINGE) == pytest.approx(math.radians(45))


# -- 5. an element inside an include: read-only, and it says so -------------------------------

def test_pose_fields_inside_an_include_are_read_only_and_say_why(qtbot, window, example_copy):
    session, _view = open_and_draw(qtbot, window,
                                   example_copy("flanges") / "super_armio_bros.sdf")
    window.inspector_dock.raise_()
    session.selection.select("robot_1::arm::link")
    inspector = window.inspector
    qtbot.waitUntil(lambda: inspector.pose_group.isVisible())
    field = inspector.pose_fields["x"]
    assert field.isReadOnly()
    note = "Read-only, inside include robot_1::arm: move the include, or open the file " \
           "to edit it."
    assert inspector.pose_note.isVisible() and inspector.pose_note.text() == note
    before = session.live.poses.pose("robot_1::arm::link").copy()
    field.setFocus()
    QTest.keyClick(field, Qt.Key.Key_A, CTRL)
    QTest.keyClicks(field, "1")
    QTest.keyClick(field, Qt.Key.Key_Return)
    assert len(session.document.commands) == 0               # nothing changed...
    np.testing.assert_array_equal(session.live.poses.pose("robot_1::arm::link"), before)
    assert inspector.pose_error.isVisible() and inspector.pose_error.text() == note   # ...why
    # the include itself is the document's: editable, no note
    session.selection.select("robot_1::arm")
    qtbot.waitUntil(lambda: not inspector.pose_note.isVisible())
    assert not inspector.pose_fields["x"].isReadOnly()


# -- 6. the chain of transforms in the preferred units ----------------------------------------

def test_the_chain_of_transforms_follows_the_units_preference(qtbot, window, example_copy):
    session, _view = open_and_draw(qtbot, window,
                                   example_copy("arm_gripper") / "arm_and_gripper.sdf")
    window.desktop.prefs.set("length_unit", "mm")
    window.desktop.prefs.set("angle_unit", "deg")
    window.inspector_dock.raise_()
    session.selection.select("gripper")
    inspector = window.inspector
    qtbot.waitUntil(lambda: "⇒ in arm_and_gripper:" in inspector.chain_view.toPlainText())
    text = inspector.chain_view.toPlainText()
    # arm_and_gripper.sdf: the gripper at (0, 0, 1.02 m) turned 45° about z
    assert text.rstrip().endswith("⇒ in arm_and_gripper: 0 0 1020 mm | 0° 0° 45°"), text
    window.desktop.prefs.set("angle_unit", "rad")
    qtbot.waitUntil(lambda: "0.785398 rad" in inspector.chain_view.toPlainText())
    assert "0 0 1020 mm | 0 0 0.785398 rad" in inspector.chain_view.toPlainText()


# -- 7. the status bar: mesh files summed up, the progress line, Cancel -------------------------

def test_a_save_that_writes_mesh_files_says_how_many_and_where(
        qtbot, window, flat, tmp_path, monkeypatch):
    open_and_draw(qtbot, window, flat / "flat.fpm")
    target = tmp_path / "out" / "flat_world.sdf"
    target.parent.mkdir()
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(target), ""))
    key(window, Qt.Key.Key_S, CTRL)
    stls = sorted((target.parent / "flat_world_meshes").glob("*.stl"))
    assert len(stls) > 2
    message = window.statusBar().currentMessage()
    assert message.startswith("Saved flat_world.sdf · "
                              f"{len(stls)} mesh files written to flat_world_meshes/"), message
    assert ".stl" not in message                       # no file names listed


def generate_world(n: int, folder: Path) -> Path:
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "gen_include_world", ROOT / "benchmarks" / "gen_include_world.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate(n, folder)


def test_the_progress_line_of_an_open_is_not_cut_in_the_middle(qtbot, window, tmp_path):
    world = generate_world(300, tmp_path / "big")
    window.joints_dock.show()
    window.joints_dock.raise_()                           # (its joints are listed too)
    shown: list[str] = []
    job = window.open_in_background(world)
    job.progressed.connect(lambda *_: shown.append(window.progress.label.text()))
    assert job.wait(300)
    assert shown
    for text in shown:
        assert text.startswith(f"Opening {world.name}") and "…" not in text, text
    assert not any(text.count(world.name) > 1 for text in shown)


def test_cancel_of_a_background_open_says_it_was_cancelled(qtbot, window, tmp_path):
    from snapframe.editor.desktop.jobs import CANCELLED
    world = generate_world(50, tmp_path / "big")
    job = window.open_in_background(world)
    qtbot.waitUntil(lambda: window.progress.isVisible())
    QTest.mouseClick(window.progress.cancel_button, LEFT)
    assert job.wait(120) and job.state == CANCELLED
    assert window.statusBar().currentMessage() == \
        f"Cancelled: {world.name} was not opened"
    assert window.tabs.count() == 0


# -- 8. the preferences' search paths label -----------------------------------------------------

def test_the_search_paths_label_shows_no_ampersand_and_its_key_works(qtbot, window):
    window.desktop.act_preferences.trigger()
    dialog = window.desktop.preferences_dialog
    qtbot.waitExposed(dialog)
    labels = [w for w in dialog.findChildren(QtWidgets.QLabel)
              if w.text().replace("&", "") == "Model search paths"]
    assert len(labels) == 1
    label = labels[0]
    assert label.buddy() is dialog.search_paths          # "&" is a mnemonic: not drawn
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is dialog)
    dialog.length_unit.setFocus()
    mnemonic = label.text()[label.text().index("&") + 1].upper()
    QTest.keyClick(dialog, getattr(Qt.Key, f"Key_{mnemonic}"), ALT)
    assert dialog.focusWidget() is dialog.search_paths
    dialog.close()


# -- 9. the mirabuf inertia warning reads as a whole sentence ----------------------------------

def test_save_as_mirabuf_says_what_of_the_inertia_is_saved(
        qtbot, window, example_copy, tmp_path, monkeypatch, no_modal_dialogs):
    window.open(example_copy("flanges") / "super_armio_bros.sdf")
    out = tmp_path / "bros.mira"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(out), ""))
    file_menu_save_as(window, "mirabuf")
    assert out.is_file()
    [(kind, text)] = no_modal_dialogs
    line = next(line for line in text.splitlines() if "inertia tensor" in line)
    assert line.endswith("link(s) are not saved; their masses and centres of mass are "
                         "saved"), line


# -- 10. changes on disk: asked before overwriting them, quiet when nothing changed -------------

PART = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="part">
    <link name="body">
      <pose>{x} 0 0 0 0 0</pose>
      <visual name="v"><geometry><box><size>0.1 0.1 0.1</size></box></geometry></visual>
    </link>
  </model>
</sdf>
"""


def replace_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.new")
    tmp.write_text(text)
    os.replace(tmp, path)


def test_ctrl_s_after_ignore_asks_before_overwriting_the_change_on_disk(qtbot, window, tmp_path):
    from snapframe.core.model.edits import SetPose
    from snapframe.core.pose import Pose
    path = tmp_path / "part.sdf"
    path.write_text(PART.format(x=0.1))
    session, _view = open_and_draw(qtbot, window, path)
    doc = session.document
    assert session.push(SetPose(doc, doc.element("body"), Pose.from_xyz_rpy(0.2, 0, 0), None))
    watcher = window.desktop.watcher
    theirs = PART.format(x=0.7)
    with qtbot.waitSignal(watcher.offered, timeout=10000):
        replace_atomically(path, theirs)                 # another program's change
    QTest.mouseClick(watcher.bar(session).ignore_button, LEFT)
    seen: list[str] = []
    click_in_next_message_box(qtbot, "overwriteChangedFile", "Cancel", seen)
    key(window, Qt.Key.Key_S, CTRL)
    assert seen and "part.sdf was changed on disk" in seen[0]
    assert path.read_text() == theirs and session.modified       # their change kept
    click_in_next_message_box(qtbot, "overwriteChangedFile", "Overwrite", seen)
    key(window, Qt.Key.Key_S, CTRL)
    assert len(seen) == 2 and not session.modified
    again = load(path, LoadContext(use_environment=False))
    assert again.live.poses.pose("body")[0, 3] == pytest.approx(0.2)
    # saved: the next Ctrl+S asks nothing
    assert session.push(SetPose(doc, doc.element("body"), Pose.from_xyz_rpy(0.3, 0, 0), None))
    key(window, Qt.Key.Key_S, CTRL)
    assert len(seen) == 2 and not session.modified


def test_a_file_rewritten_with_the_same_content_offers_no_reload(qtbot, window, tmp_path):
    path = tmp_path / "part.sdf"
    path.write_text(PART.format(x=0.1))
    session, _view = open_and_draw(qtbot, window, path)
    watcher = window.desktop.watcher
    offers: list = []
    watcher.offered.connect(offers.append)
    with qtbot.waitSignal(watcher.watcher.fileChanged, timeout=10000):
        replace_atomically(path, PART.format(x=0.1))     # a generator run again
    qtbot.waitUntil(lambda: not watcher._timer.isActive() and not watcher._pending,
                    timeout=10000)
    assert offers == []
    bar = watcher.bar(session)
    assert bar is None or not bar.isVisible()
    # a real change is still offered
    with qtbot.waitSignal(watcher.offered, timeout=10000):
        replace_atomically(path, PART.format(x=0.2))


# -- 11. the right docks are wide enough to read ----------------------------------------------

def right_tab_bar(window) -> QtWidgets.QTabBar:
    """The tab bar under the inspector's dock group (Inspector, History, Joints...)."""
    dock = window.inspector_dock.geometry()
    bars = [b for b in window.findChildren(QtWidgets.QTabBar)
            if b.isVisible() and b.parent() is window and b.count() > 2
            and b.tabText(0) == "Inspector" and abs(b.geometry().top() - dock.bottom()) <= 4
            and abs(b.geometry().left() - dock.left()) <= 4]
    assert len(bars) == 1, [(b.geometry(), b.count()) for b in bars]
    return bars[0]


def titles_in_full(bar: QtWidgets.QTabBar) -> bool:
    return all(bar.tabRect(i).width() >= bar.tabSizeHint(i).width() for i in range(bar.count()))


def test_the_right_docks_start_readable_and_a_saved_narrow_layout_cannot_cramp_them(
        qtbot, tmp_path):
    settings = tmp_path / "settings.ini"
    first = make_window(qtbot, settings, size=None)          # no saved layout: defaults
    qtbot.wait(50)
    assert first.inspector_dock.width() >= 340
    assert titles_in_full(right_tab_bar(first))
    readable = first.inspector_dock.minimumWidth()
    # a layout saved when the right docks were narrower than that (an older version's
    # minimum, or a dragged splitter)
    first.inspector_dock.setMinimumWidth(100)
    first.resizeDocks([first.inspector_dock], [260], Qt.Orientation.Horizontal)
    qtbot.waitUntil(lambda: first.inspector_dock.width() < 280)
    first.close()
    second = make_window(qtbot, settings, size=None)
    qtbot.wait(50)
    try:
        assert second.inspector_dock.width() >= readable
        assert titles_in_full(right_tab_bar(second))
    finally:
        second.close()
