"""The assembling features in the main window, driven as a user drives them under Xvfb:
files dropped on the real viewport and scene tree (QDragEnter/Move/Drop events with file
URLs), clicks in the real VTK view, keys (F2, Delete, Esc, Ctrl+Z) and the docks.  Expected
poses come from the numbers written in the bundled files, and the saved assembly is read
back by libsdformat 12.3 (tests/oracle)."""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from lxml import etree  # noqa: E402
from PySide6 import QtCore, QtGui, QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.core.pose import Pose  # noqa: E402
from widget_actions import LEFT, NONE, type_into  # noqa: E402

Qt = QtCore.Qt
CTRL = Qt.KeyboardModifier.ControlModifier
ORACLE = Path(__file__).resolve().parents[1] / "oracle" / "build" / "sdf_oracle"

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")


# -- helpers ------------------------------------------------------------------------

@pytest.fixture
def settings(tmp_path):
    return QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)


def make_window(qtbot, settings):
    from snapframe.editor.main_window import MainWindow
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()          # keys reach the window's shortcuts only when it is active
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is win)
    return win


@pytest.fixture
def window(qtbot, settings):
    win = make_window(qtbot, settings)
    yield win
    for s in win.sessions():
        s.document.commands.set_clean()   # no "unsaved changes" prompt at teardown
    win.close()


def open_doc(qtbot, window, path: Path):
    session = window.open(path)
    view = window.current.viewport
    qtbot.waitUntil(lambda: view.render_count > 0)
    return session, view


def file_mime(*paths: Path) -> QtCore.QMimeData:
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def drop(widget: QtWidgets.QWidget, mime: QtCore.QMimeData, pos: QtCore.QPoint,
         modifiers=NONE) -> None:
    """What the drag and drop system sends a widget when a file is dragged over it and
    let go there."""
    action = Qt.DropAction.CopyAction
    enter = QtGui.QDragEnterEvent(pos, action, mime, LEFT, modifiers)
    QtWidgets.QApplication.sendEvent(widget, enter)
    assert enter.isAccepted()
    move = QtGui.QDragMoveEvent(pos, action, mime, LEFT, modifiers)
    QtWidgets.QApplication.sendEvent(widget, move)
    assert move.isAccepted()
    release = QtGui.QDropEvent(QtCore.QPointF(pos), action, mime, LEFT, modifiers)
    QtWidgets.QApplication.sendEvent(widget, release)
    assert release.isAccepted()


def tree_of(window):
    return window._trees.currentWidget()


def row_rect(window, key: str) -> QtCore.QRect:
    tree = tree_of(window)
    index = tree.proxy.mapFromSource(tree.model.index_of(key))
    assert index.isValid(), key
    tree.view.scrollTo(index)
    return tree.view.visualRect(index)


def click_row(window, key: str) -> None:
    QTest.mouseClick(tree_of(window).view.viewport(), LEFT, NONE, row_rect(window, key).center())


def key(window, key_code, modifiers=NONE) -> None:
    """A key pressed in the window (its shortcuts answer while it is the active window:
    after a dialog closes, the window manager gives the activation back first)."""
    QtWidgets.QApplication.processEvents()
    if QtWidgets.QApplication.activeWindow() is not window:
        window.activateWindow()
        deadline = QtCore.QDeadlineTimer(5000)
        while QtWidgets.QApplication.activeWindow() is not window and not deadline.hasExpired():
            QtWidgets.QApplication.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 20)
    QTest.keyClick(window.windowHandle(), key_code, modifiers)


def dock_tab(window, title: str) -> None:
    """Click the tab of a tabbed dock."""
    for bar in window.findChildren(QtWidgets.QTabBar):
        for i in range(bar.count()):
            if bar.tabText(i) == title and bar.isVisible():
                QTest.mouseClick(bar, LEFT, NONE, bar.tabRect(i).center())
                return
    raise AssertionError(f"no dock tab {title}")


def origin_pixel(view, key: str) -> QtCore.QPoint:
    return view.pixel_of(view.session.live.poses.pose(key)[:3, 3])


def written_pose(path: Path, xpath: str, relative_to: str | None = None) -> Pose:
    """The ``<pose>`` an SDFormat file writes at ``xpath`` (checking its relative_to)."""
    element = etree.parse(str(path)).xpath(xpath)[0]
    assert element.get("relative_to") == relative_to, xpath
    return Pose.from_xyz_rpy(*(float(v) for v in element.text.split()))


def arm_numbers(folder: Path) -> tuple[Pose, Pose]:
    """From arm.sdf and gripper.sdf: X_A_Ca (gripper_mount in the arm's model frame) and
    X_G_Cg (mount_point in the gripper's)."""
    arm = folder / "arm.sdf"
    X_A_upper = written_pose(arm, "//link[@name='upper_arm']/pose")
    X_upper_fore = written_pose(arm, "//link[@name='forearm']/pose", "upper_arm")
    X_fore_Ca = written_pose(arm, "//frame[@name='gripper_mount']/pose", "forearm")
    X_G_Cg = written_pose(folder / "gripper.sdf", "//frame[@name='mount_point']/pose")
    return X_A_upper @ X_upper_fore @ X_fore_Ca, X_G_Cg


def oracle_frames(path: Path) -> dict[str, np.ndarray]:
    """Every frame libsdformat 12.3 resolves in ``path`` (by scoped name, 4x4)."""
    if not (ORACLE.is_file() and os.access(ORACLE, os.X_OK)):
        pytest.skip("the libsdformat oracle is not built (tests/oracle/build.sh)")
    done = subprocess.run([str(ORACLE), "--path", str(path.parent), str(path)],
                          capture_output=True, text=True, timeout=120, cwd=path.parent)
    result = json.loads(done.stdout)
    assert result["errors"] == [], result["errors"]
    return {name: Pose.from_xyz_quat(f["pose"][:3], f["pose"][3:]).matrix()
            for name, f in result["frames"].items()}


def triad_pose(layer, key: str) -> np.ndarray:
    """The pose a triad of a viewport layer is drawn at (origin and unit axes)."""
    from snapframe.editor.viewport.vtkdata import points_of
    pts = points_of(layer.mesh).reshape(-1, 4, 3)[layer.index[key]]
    X = np.eye(4)
    X[:3, 3] = pts[0]
    X[:3, :3] = ((pts[1:] - pts[0]) / layer.size).T
    return X


# -- placing a dropped part --------------------------------------------------------------

def test_gripper_dropped_on_the_arm_is_placed_where_the_composition_proposal_puts_it(
        qtbot, window, example_copy):
    folder = example_copy("arm_gripper")
    session, view = open_doc(qtbot, window, folder / "arm.sdf")
    doc = session.document
    X_A_Ca, X_G_Cg = arm_numbers(folder)
    # the placement frame ends at the target: X_A_G = X_A_Ca * X_G_Cg^-1
    X_A_G = (X_A_Ca @ X_G_Cg.inverse()).matrix()

    drop(view.widget, file_mime(folder / "gripper.sdf"), QtCore.QPoint(20, 60))
    qtbot.waitUntil(lambda: window.placement is not None)
    panel = window.placement
    assert window.tabs.count() == 1                      # placed, not opened
    assert panel.isVisible() and view.picking and view.ghost.visible
    assert view.banner.isVisible()

    # the part's placement frame, chosen as a user does in its list
    panel.frame_combo.setFocus()
    QTest.keyClicks(panel.frame_combo, "mount")
    assert panel.placement_frame == "mount_point"
    # the target: a click on the arm's gripper_mount frame in the view (not a selection)
    QTest.mouseClick(view.widget, LEFT, NONE, origin_pixel(view, "gripper_mount"))
    assert panel.target == "gripper_mount"
    assert session.selection.keys == []
    assert view.picking                                   # another click may change it
    # the ghost shows the part there, its placement frame on the target
    np.testing.assert_allclose(triad_pose(view.ghost.placement, "mount_point"),
                               X_A_Ca.matrix(), atol=1e-9)
    np.testing.assert_allclose(triad_pose(view.ghost.frames, ""), X_A_G, atol=1e-9)

    panel.connect_combo.setFocus()
    QTest.keyClicks(panel.connect_combo, "Weld")
    QTest.mouseClick(panel.place_button, LEFT)

    # one undo step, the gesture over
    assert window.placement is None and not view.picking and not view.ghost.visible
    assert len(doc.commands) == 1 and doc.commands.undo_label == \
        "Place gripper on gripper_mount"
    assert "Placed gripper on gripper_mount" in window.statusBar().currentMessage()
    assert row_rect(window, "gripper_weld").isValid()
    np.testing.assert_allclose(session.live.poses.pose("gripper"), X_A_G, atol=1e-12)

    key(window, Qt.Key.Key_S, CTRL)
    assert doc.commands.is_clean
    saved = oracle_frames(folder / "arm.sdf")              # libsdformat reads the file
    np.testing.assert_allclose(saved["arm::gripper"], X_A_G, atol=1e-9)
    np.testing.assert_allclose(saved["arm::gripper::mount_point"], X_A_Ca.matrix(), atol=1e-9)
    # the weld's frame is its child's, mount_point: on the target too
    np.testing.assert_allclose(saved["arm::gripper_weld"], X_A_Ca.matrix(), atol=1e-9)

    key(window, Qt.Key.Key_Z, CTRL)                        # the whole drop, in one step
    assert doc.element("gripper") is None and doc.element("gripper_weld") is None
    assert len(doc.commands) == 0


def test_a_drop_on_a_frame_of_the_tree_targets_it_and_esc_gives_up(qtbot, window,
                                                                    example_copy):
    folder = example_copy("arm_gripper")
    session, view = open_doc(qtbot, window, folder / "arm.sdf")
    tree = tree_of(window)
    drop(tree.view.viewport(), file_mime(folder / "gripper.sdf"),
         row_rect(window, "gripper_mount").center())
    qtbot.waitUntil(lambda: window.placement is not None)
    assert window.placement.target == "gripper_mount"
    # a row chosen in the tree is the target too
    click_row(window, "forearm")
    assert window.placement.target == "forearm"
    key(window, Qt.Key.Key_Escape)
    assert window.placement is None and not view.picking and not view.ghost.visible
    assert len(session.document.commands) == 0
    assert window.findChild(QtWidgets.QDockWidget, "place_part") is None or \
        not window.findChild(QtWidgets.QDockWidget, "place_part").isVisible()


def test_switching_documents_gives_up_the_placement(qtbot, window, example_copy):
    folder = example_copy("arm_gripper")
    arm, arm_view = open_doc(qtbot, window, folder / "arm.sdf")
    open_doc(qtbot, window, folder / "arm_and_gripper.sdf")
    bar = window.tabs.tabBar()
    QTest.mouseClick(bar, LEFT, NONE, bar.tabRect(0).center())
    window.start_placement(folder / "gripper.sdf", "gripper_mount")
    assert arm_view.picking and arm_view.ghost.visible
    QTest.mouseClick(bar, LEFT, NONE, bar.tabRect(1).center())
    assert window.placement is None
    assert not arm_view.picking and not arm_view.ghost.visible
    assert len(arm.document.commands) == 0


def test_ctrl_drop_and_a_drop_without_a_document_open_the_file(qtbot, window, example_copy):
    folder = example_copy("arm_gripper")
    # no document: a drop on the window opens the file
    drop(window, file_mime(folder / "arm.sdf"), QtCore.QPoint(700, 400))
    qtbot.waitUntil(lambda: window.tabs.count() == 1)
    view = window.current.viewport
    qtbot.waitUntil(lambda: view.render_count > 0)
    # Ctrl held: opened in its own tab, not placed
    drop(view.widget, file_mime(folder / "gripper.sdf"), QtCore.QPoint(20, 60), CTRL)
    qtbot.waitUntil(lambda: window.tabs.count() == 2)
    assert window.placement is None
    assert Path(window.session.document.path).name == "gripper.sdf"


def test_library_tiles_drag_as_file_urls_and_place_the_part(qtbot, window, example_copy):
    folder = example_copy("arm_gripper")
    session, view = open_doc(qtbot, window, folder / "arm.sdf")
    library = window.library
    with qtbot.waitSignal(library.scanned, timeout=20000):
        library.add_folder(folder)
    model = library.model
    row = next(i for i, e in enumerate(model.entries()) if e.file.name == "gripper.sdf")
    index = model.index(row, 0)
    assert model.flags(index) & Qt.ItemFlag.ItemIsDragEnabled
    assert library.view.dragEnabled()
    mime = model.mimeData([index])                  # what a drag out of the library carries
    assert [u.toLocalFile() for u in mime.urls()] == [str(folder / "gripper.sdf")]
    drop(view.widget, mime, origin_pixel(view, "gripper_mount"))
    qtbot.waitUntil(lambda: window.placement is not None)
    assert window.placement.target == "gripper_mount"    # the frame under the drop
    window.placement.set_placement_frame("mount_point")
    QTest.mouseClick(window.placement.place_button, LEFT)
    assert session.document.element("gripper") is not None
    assert session.document.commands.undo_label == "Place gripper on gripper_mount"
    # the tile's menu places it too (a second gripper: its name made unique)
    library.view.setCurrentIndex(library.proxy.mapFromSource(index))
    assert library.place_action.isEnabled()
    library.place_action.trigger()
    assert window.placement is not None and window.placement.name_edit.text() == "gripper_2"


def test_insert_part_from_file_then_cancel_changes_nothing(qtbot, window, example_copy,
                                                          monkeypatch):
    folder = example_copy("arm_gripper")
    session, view = open_doc(qtbot, window, folder / "arm.sdf")
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName",
                        lambda *a, **k: (str(folder / "gripper.sdf"), ""))
    window.act_place_part.trigger()                  # Insert ▸ Part from file…
    panel = window.placement
    assert panel is not None and view.picking
    cancel = next(b for b in panel.findChildren(QtWidgets.QPushButton) if b.text() == "Cancel")
    QTest.mouseClick(cancel, LEFT)
    assert window.placement is None and not view.picking and not view.ghost.visible
    assert len(session.document.commands) == 0
    # the dock's own close button gives up too
    window.act_place_part.trigger()
    close = window._gesture_dock.findChild(QtWidgets.QAbstractButton,
                                           "qt_dockwidget_closebutton")
    QTest.mouseClick(close, LEFT)
    assert window.placement is None and not view.picking and not view.ghost.visible
    # an OpenPLX assembly composes with mates: a drop opens the file instead
    clock = example_copy("openplx") / "clock.openplx"
    open_doc(qtbot, window, clock)
    drop(window.current.viewport.widget, file_mime(folder / "gripper.sdf"),
         QtCore.QPoint(20, 60))
    qtbot.waitUntil(lambda: window.tabs.count() == 3)
    assert window.placement is None


# -- rename and delete -----------------------------------------------------------------

def test_f2_renames_in_the_dialog_and_references_follow(qtbot, window, example_copy):
    from snapframe.editor.assembling import RenameDialog
    session, _view = open_doc(qtbot, window, example_copy("arm_gripper") /
                              "arm_and_gripper.sdf")
    click_row(window, "gripper")
    key(window, Qt.Key.Key_F2)
    dialog = window.findChild(RenameDialog)
    assert dialog is not None and dialog.isVisible() and dialog.edit.text() == "gripper"
    QTest.keyClicks(dialog.edit, "arm")            # the text is selected: replaced
    assert "already used" in dialog.note.text() and not dialog.ok_button.isEnabled()
    dialog.edit.selectAll()
    QTest.keyClicks(dialog.edit, "hand")
    QTest.mouseClick(dialog.ok_button, LEFT)
    doc = session.document
    assert doc.element("hand") is not None and doc.element("weld").child_name == \
        "hand::mount_point"
    assert len(doc.commands) == 1 and session.selection.active == "hand"
    # inside an included file: said where to do it, no dialog
    click_row(window, "arm::forearm")
    key(window, Qt.Key.Key_F2)
    assert "arm.sdf" in window.statusBar().currentMessage()


def test_delete_asks_when_others_depend_on_it_and_is_one_undo_step(qtbot, window,
                                                                   example_copy):
    from snapframe.editor.assembling import RemoveDialog
    session, _view = open_doc(qtbot, window, example_copy("arm_gripper") /
                              "arm_and_gripper.sdf")
    doc = session.document
    gripper = session.live.poses.pose("gripper").copy()
    click_row(window, "arm")
    tree_of(window).view.setFocus()
    key(window, Qt.Key.Key_Delete)
    dialog = window.findChild(RemoveDialog)
    assert dialog is not None and dialog.isVisible()
    # what refers to the arm: the weld's parent and the gripper's pose (arm_and_gripper.sdf)
    assert [(d.key, d.why) for d in dialog.dependents] == [
        ("gripper", "pose relative_to [arm::gripper_mount]"),
        ("weld", "joint parent [arm::gripper_mount]")]
    assert doc.element("arm") is not None             # nothing before the answer
    QTest.mouseClick(dialog.remove_button, LEFT)
    assert doc.element("arm") is None and doc.element("weld") is None
    np.testing.assert_allclose(session.live.poses.pose("gripper"), gripper, atol=1e-12)
    assert len(doc.commands) == 1
    key(window, Qt.Key.Key_Z, CTRL)
    assert doc.element("arm") is not None and doc.element("weld") is not None
    # nothing refers to the weld: deleted at once
    click_row(window, "weld")
    tree_of(window).view.setFocus()
    key(window, Qt.Key.Key_Delete)
    assert doc.element("weld") is None and doc.commands.undo_label == "Delete weld"
    key(window, Qt.Key.Key_Z, CTRL)
    # what refers only to the selection itself needs no question (the weld names the
    # gripper): both go at once
    click_row(window, "weld")
    QTest.mouseClick(tree_of(window).view.viewport(), LEFT, CTRL,
                     row_rect(window, "gripper").center())
    assert session.selection.keys == ["weld", "gripper"]
    key(window, Qt.Key.Key_Delete)
    assert window.findChild(QtWidgets.QMessageBox) is None
    assert doc.element("gripper") is None and doc.element("weld") is None
    assert doc.commands.undo_label == "Delete weld, gripper"
    key(window, Qt.Key.Key_Z, CTRL)
    # several elements, one referred to from outside them (the gripper is placed on the
    # arm's gripper_mount): asked, then one undo step
    click_row(window, "weld")
    QTest.mouseClick(tree_of(window).view.viewport(), LEFT, CTRL,
                     row_rect(window, "arm").center())
    key(window, Qt.Key.Key_Delete)
    box = window.findChild(QtWidgets.QMessageBox)
    assert box is not None and box.isVisible()
    assert "gripper: pose relative_to [arm::gripper_mount]" in box.detailedText()
    assert doc.element("arm") is not None
    remove = next(b for b in box.buttons() if b.text() == "Delete with dependents")
    QTest.mouseClick(remove, LEFT)
    assert doc.element("arm") is None and doc.element("weld") is None
    np.testing.assert_allclose(session.live.poses.pose("gripper"), gripper, atol=1e-12)
    assert doc.commands.undo_label == "Delete weld, arm"
    key(window, Qt.Key.Key_Z, CTRL)
    assert doc.element("arm") is not None and doc.element("weld") is not None


# -- docks ---------------------------------------------------------------------------

def test_docks_follow_tab_switches(qtbot, window, example_copy):
    arm, _ = open_doc(qtbot, window, example_copy("arm_gripper") / "arm_and_gripper.sdf")
    clock, _ = open_doc(qtbot, window, example_copy("openplx") / "clock.openplx")
    for title, panel in (("Joints", window.joints), ("Mass", window.mass),
                         ("SNAP", window.snap)):
        dock_tab(window, title)
        assert panel.session is clock
    assert window.snap.mate_keys == ["hand_hinge"]
    # behind another tab a panel lets go of the document (nothing is computed for it)
    dock_tab(window, "Inspector")
    assert window.joints.session is None and window.snap.session is None

    dock_tab(window, "SNAP")
    bar = window.tabs.tabBar()
    QTest.mouseClick(bar, LEFT, NONE, bar.tabRect(0).center())
    assert window.snap.session is arm and window.snap.mate_keys == []
    dock_tab(window, "Joints")
    assert window.joints.session is arm
    # the arm's two revolute joints and the gripper's two slides
    assert sorted(window.joints.rows) == ["arm::elbow", "arm::shoulder", "gripper::left_slide",
                                          "gripper::right_slide"]
    dock_tab(window, "Mass")
    # the masses written in arm.sdf (2, 1.5, 1) and gripper.sdf (0.4, 0.05, 0.05)
    assert window.mass.session is arm and \
        window.mass.table.total_mass == pytest.approx(2.0 + 1.5 + 1.0 + 0.4 + 0.05 + 0.05)
    QTest.mouseClick(bar, LEFT, NONE, bar.tabRect(1).center())
    assert window.mass.session is clock
    assert window.mass.table.total_mass == pytest.approx(0.5 + 0.01)   # clock.openplx
    window.close_tab(1)
    assert window.mass.session is arm
    window.close_tab(0)
    assert window.mass.session is None


def test_the_snap_dock_picks_in_the_current_tabs_view(qtbot, window, example_copy):
    arm, _ = open_doc(qtbot, window, example_copy("arm_gripper") / "arm_and_gripper.sdf")
    clock, _ = open_doc(qtbot, window, example_copy("openplx") / "clock.openplx")
    dock_tab(window, "SNAP")
    assert window.snap.viewport is window.current.viewport
    assert window.current.viewport.session is clock
    # its Pick buttons start a pick in that view
    QTest.mouseClick(window.snap.creator.pick_buttons[0], LEFT)
    assert window.current.viewport.picking
    window.current.viewport.end_pick()
    bar = window.tabs.tabBar()
    QTest.mouseClick(bar, LEFT, NONE, bar.tabRect(0).center())
    assert window.snap.viewport is window.current.viewport
    assert window.snap.viewport.session is arm
    dock_tab(window, "Inspector")          # hidden: no view either
    assert window.snap.viewport is None


def test_dock_toggles_in_the_view_menu_are_kept_between_runs(qtbot, settings):
    window = make_window(qtbot, settings)
    panels_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    panels_menu = next(a.menu() for a in panels_menu.actions() if a.text() == "&Panels")
    toggles = {a.text(): a for a in panels_menu.actions()}
    assert {"Joints", "Mass", "SNAP"} <= set(toggles)
    toggles["SNAP"].trigger()
    assert window.snap_dock.isHidden()
    window.close()
    again = make_window(qtbot, settings)
    assert again.snap_dock.isHidden() and not again.joints_dock.isHidden()
    assert again.tabifiedDockWidgets(again.joints_dock)     # still beside the inspector
    again.close()


def test_a_density_typed_in_the_inspector_changes_the_mass_dock_and_the_inertia_box(
        qtbot, window, tmp_path):
    # two 1 m cubes side by side along x, 1000 kg/m^3 each; then the right one 3000 kg/m^3
    path = tmp_path / "bar.sdf"
    path.write_text("""<?xml version="1.0"?>
<sdf version="1.11"><model name="bar"><link name="body">
  <inertial auto="true"/>
  <collision name="a"><pose>-0.5 0 0 0 0 0</pose><density>1000</density>
    <geometry><box><size>1 1 1</size></box></geometry></collision>
  <collision name="b"><pose>0.5 0 0 0 0 0</pose><density>1000</density>
    <geometry><box><size>1 1 1</size></box></geometry></collision>
</link></model></sdf>""")
    session, view = open_doc(qtbot, window, path)
    from snapframe.editor.assembling.mass_table import HEADERS
    from snapframe.editor.viewport.vtkdata import points_of
    window.act_layers["inertia boxes"].trigger()         # the toolbar's Inertia
    assert window.act_layers["inertia boxes"].isChecked()

    def mass_shown() -> float:
        text = window.mass.model.index(0, HEADERS.index("Mass [kg]")).data()
        return float(text.replace("\u2212", "-"))

    def box() -> tuple[np.ndarray, np.ndarray]:
        pts = points_of(view.mirror.inertia.mesh)
        edges, cross = pts[:24], pts[24:]
        return edges.max(axis=0) - edges.min(axis=0), cross.mean(axis=0)

    dock_tab(window, "Mass")
    assert mass_shown() == pytest.approx(2000.0)
    size, com = box()
    # a 2 x 1 x 1 box of uniform density is its own equivalent inertia box
    np.testing.assert_allclose(size, (2, 1, 1), atol=1e-6)
    np.testing.assert_allclose(com, (0, 0, 0), atol=1e-9)

    dock_tab(window, "Inspector")
    click_row(window, "body#collision:b")
    with qtbot.waitSignal(session.inertiaChanged):
        type_into(window.inspector.part_density, "3000")
    dock_tab(window, "Mass")
    qtbot.waitUntil(lambda: mass_shown() == pytest.approx(4000.0))
    size, com = box()
    # centre of mass (1000 * -0.5 + 3000 * 0.5) / 4000 = 0.25; about it
    # Ixx = 4000 / 6, Iyy = Izz = 4000 / 6 + 1000 * 0.75^2 + 3000 * 0.25^2 = 4250 / 3;
    # the equivalent box has b^2 + c^2 = 12 Ixx / m = 2 and a^2 + c^2 = 12 Iyy / m = 4.25
    np.testing.assert_allclose(com, (0.25, 0, 0), atol=1e-9)
    np.testing.assert_allclose(size, (math.sqrt(3.25), 1, 1), atol=1e-6)


# -- adding a joint ---------------------------------------------------------------------

CELL = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="cell">
    <include><uri>file://arm.sdf</uri></include>
    <include><uri>file://gripper.sdf</uri><pose>0.5 0 0 0 0 0</pose></include>
  </model>
</sdf>
"""


def test_insert_joint_takes_the_parent_from_the_view_and_the_child_from_the_tree(
        qtbot, window, example_copy):
    folder = example_copy("arm_gripper")
    (folder / "cell.sdf").write_text(CELL)
    session, view = open_doc(qtbot, window, folder / "cell.sdf")
    view.set_view("front")
    key(window, Qt.Key.Key_J, CTRL | Qt.KeyboardModifier.ShiftModifier)   # Insert ▸ Joint…
    panel = window.joint_adder
    assert panel is not None and panel.active_end == "parent" and view.picking
    # the middle of the forearm's box (0.2 m along its z from its origin, arm.sdf)
    X = session.live.poses.pose("arm::forearm")
    QTest.mouseClick(view.widget, LEFT, NONE, view.pixel_of(X[:3, 3] + 0.2 * X[:3, 2]))
    assert panel.parent_key == "arm::forearm" and panel.active_end == "child"
    assert session.selection.keys == []
    click_row(window, "gripper::body")
    assert panel.child_key == "gripper::body" and panel.active_end == ""
    assert not view.picking
    assert panel.name_edit.placeholderText() == "body_joint"
    type_into(panel.lower, "-30")
    type_into(panel.upper, "30")
    QTest.mouseClick(panel.add_button, LEFT)
    joint = session.document.element("body_joint")
    assert (joint.type, joint.parent_name, joint.child_name) == \
        ("revolute", "arm::forearm", "gripper::body")
    assert (joint.axes[0].lower, joint.axes[0].upper) == \
        pytest.approx((-math.pi / 6, math.pi / 6))
    assert len(session.document.commands) == 1
    assert window.joint_adder is None and session.selection.active == "body_joint"
    key(window, Qt.Key.Key_Z, CTRL)
    assert session.document.element("body_joint") is None


def test_esc_stops_picking_then_closes_the_joint_panel(qtbot, window, example_copy):
    session, view = open_doc(qtbot, window, example_copy("arm_gripper") /
                             "arm_and_gripper.sdf")
    panel = window.start_add_joint()
    assert view.picking
    key(window, Qt.Key.Key_Escape)
    assert not view.picking and window.joint_adder is panel and panel.active_end == ""
    QTest.mouseClick(panel.pick_buttons["child"], LEFT)    # pick again, the child this time
    assert view.picking and panel.active_end == "child"
    key(window, Qt.Key.Key_Escape)
    key(window, Qt.Key.Key_Escape)
    assert window.joint_adder is None and not view.picking
    assert len(session.document.commands) == 0
