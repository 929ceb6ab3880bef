"""The main window driven as a user drives it (QTest clicks and keys on the real widgets,
with the real VTK viewport under Xvfb), checked against the core and fresh loads."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from snapframe.core.loading import LoadContext, load
from snapframe.core.pose import Pose

Qt = QtCore.Qt


pytestmark = pytest.mark.usefixtures("no_modal_dialogs")


def tree_of(window):
    return window._trees.currentWidget()


def click_row(qtbot, window, key: str) -> None:
    tree = tree_of(window)
    index = tree.proxy.mapFromSource(tree.model.index_of(key))
    assert index.isValid(), key
    tree.view.scrollTo(index)
    rect = tree.view.visualRect(index)
    QTest.mouseClick(tree.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     rect.center())


@pytest.mark.parametrize("example, main", [("arm_gripper", "arm_and_gripper.sdf"),
                                           ("flanges", "super_armio_bros.sdf"),
                                           ("openplx", "clock.openplx")])
def test_each_bundled_example_opens_with_every_element_shown(window, example_copy, example, main):
    doc = window.open(example_copy(example) / main).document
    assert not doc.diagnostics.errors
    mirror = window.current.viewport.mirror
    # every visual of the pose table is drawn, one instance each; a link with no visual
    # shows its collisions instead
    keys = doc.live.poses.keys
    visuals = {k for k in keys if "#visual:" in k}
    stand_ins = {k for k in keys if "#collision:" in k and not any(
        v.startswith(k.partition("#")[0] + "#visual:") for v in visuals)}
    assert set(mirror.visuals.index) == visuals | stand_ins and mirror.visuals.index
    tree = tree_of(window)
    assert tree.model.rowCount() == 1
    top = tree.model.index(0, 0)
    assert tree.model.rowCount(top) > 0


def test_tree_click_selects_highlights_and_fills_the_inspector(qtbot, window, example_copy):
    session = window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    click_row(qtbot, window, "gripper")
    assert session.selection.keys == ["gripper"]
    mirror = window.current.viewport.mirror
    overlay = mirror._overlays.get("selection")
    assert overlay is not None
    # the outline covers the gripper's geometry, not the arm's
    bounds = np.array(overlay.GetBounds())
    gripper_z = session.live.poses.pose("gripper::body")[2, 3]
    assert bounds[4] > 0.9 and abs((bounds[4] + bounds[5]) / 2 - gripper_z) < 0.1
    assert "gripper" in window.inspector.findChild(QtWidgets.QLabel, None).text() or \
        any("gripper" in w.text() for w in window.inspector.findChildren(QtWidgets.QLabel))


def test_viewport_click_selects_the_link_and_the_tree_follows(qtbot, window, example_copy):
    session = window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    viewport = window.current.viewport
    viewport.fit()
    # the middle of the forearm's box, projected to the screen
    X = session.live.poses.pose("arm::forearm#visual:forearm_visual")
    pixel = viewport.pixel_of(X[:3, 3])
    QTest.mouseClick(viewport.widget, Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.NoModifier, pixel)
    assert session.selection.keys == ["arm::forearm"]
    tree = tree_of(window)
    selected = [i.data(Qt.ItemDataRole.UserRole + 1) for i in tree.view.selectionModel().selectedIndexes()]
    assert selected == ["arm::forearm"]
    # a click on empty sky clears the selection
    QTest.mouseClick(viewport.widget, Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.NoModifier, QtCore.QPoint(5, 5))
    assert session.selection.keys == []


def test_pose_edit_undo_redo_save_and_reopen(qtbot, window, example_copy, no_modal_dialogs):
    folder = example_copy("arm_gripper")
    session = window.open(folder / "arm_and_gripper.sdf")
    doc = session.document
    from snapframe.core.model.edits import SetPose
    gripper = doc.element("gripper")
    before = doc.live.poses.pose("gripper::body")
    # the gripper 5 cm above the forearm's mount frame, turned 30 degrees
    session.push(SetPose(doc, gripper, Pose.from_xyz_rpy(0, 0, 0.05, 0, 0, math.radians(30)),
                         "arm::gripper_mount"))
    moved = doc.live.poses.pose("gripper::body")
    assert not np.allclose(moved, before)
    assert window.act_undo.isEnabled() and "Move" in window.act_undo.text()
    # keys go to the widget with the focus, as when the user works in the tree
    view = tree_of(window).view
    window.activateWindow()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is window, timeout=3000)
    click_row(qtbot, window, "weld")
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert np.allclose(doc.live.poses.pose("gripper::body"), before)
    QTest.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
                   | Qt.KeyboardModifier.ShiftModifier)
    assert np.allclose(doc.live.poses.pose("gripper::body"), moved)
    assert window.tabs.tabText(0).endswith("*")
    QTest.keyClick(view, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert no_modal_dialogs == []
    assert doc.commands.is_clean and not window.tabs.tabText(0).endswith("*")
    # the saved file, loaded afresh, puts the gripper where the viewport showed it
    fresh = load(folder / "arm_and_gripper.sdf", LoadContext(use_environment=False))
    assert np.allclose(fresh.live.poses.pose("gripper::body"), moved, atol=1e-9)
    assert len(fresh.includes()) == 2   # a modular save keeps the includes
    # the viewport drew the gripper where the core says
    mirror = window.current.viewport.mirror
    part = mirror.visuals.extract({"gripper::body#visual:palm_visual"})
    centre = np.array(part.center)
    assert np.allclose(centre, moved[:3, 3], atol=1e-6)


def test_a_broken_file_shows_its_diagnostics_and_the_rest(qtbot, window, example_copy):
    folder = example_copy("arm_gripper")
    text = (folder / "arm_and_gripper.sdf").read_text()
    text = text.replace('<pose relative_to="arm::gripper_mount"/>',
                        '<pose relative_to="arm::nowhere"/>')
    text = text.replace("</model>", "<include><uri>missing.sdf</uri><name>ghost</name>"
                                    "</include></model>")
    (folder / "broken.sdf").write_text(text)
    session = window.open(folder / "broken.sdf")
    codes = sorted(str(d.code) for d in session.document.diagnostics.errors)
    assert "URI_LOOKUP" in codes and "POSE_RELATIVE_TO_INVALID" in codes
    assert window.status_diag.text().startswith(f"{len(codes)} error")
    # what could be loaded is drawn
    assert "arm::forearm#visual:forearm_visual" in window.current.viewport.mirror.visuals.index
    # the diagnostics panel lists them; its rows select their elements
    table = window.diagnostics.findChild(QtWidgets.QAbstractItemView)
    assert table is not None and table.model().rowCount() >= 2


def test_drop_a_file_on_the_window_opens_it(qtbot, window, example_copy):
    path = example_copy("arm_gripper") / "gripper.sdf"
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(path))])
    pos = QtCore.QPointF(window.width() / 2, window.height() / 2)
    event = QtGui_drop(mime, pos)
    window.dropEvent(event)
    # read on a worker (never on the UI thread): it lands as a tab a moment later
    qtbot.waitUntil(lambda: window.session is not None, timeout=30000)
    assert window.session.document.path == str(path.resolve())


def QtGui_drop(mime, pos):
    from PySide6 import QtGui
    return QtGui.QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)


def test_closing_with_unsaved_changes_asks(qtbot, window, example_copy, monkeypatch):
    session = window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    from snapframe.core.model.edits import SetPose
    session.push(SetPose(session.document, session.document.element("arm"),
                         Pose.from_xyz_rpy(0.2, 0, 0)))
    asked = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "question",
                        lambda *a, **k: asked.append(a) or QtWidgets.QMessageBox.StandardButton.Cancel)
    assert not window.close_tab(0)
    assert asked and window.tabs.count() == 1
    monkeypatch.setattr(QtWidgets.QMessageBox, "question",
                        lambda *a, **k: QtWidgets.QMessageBox.StandardButton.Discard)
    assert window.close_tab(0) and window.tabs.count() == 0


def test_scripting_object_accepts_scoped_names(qtbot, example_copy, tmp_path):
    from snapframe.editor import Editor
    settings = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    ed = Editor(show=True, settings=settings)
    try:
        folder = example_copy("arm_gripper")
        doc = ed.open(folder / "arm_and_gripper.sdf")
        assert ed.select("arm_and_gripper::gripper::body") == ["gripper::body"]
        ed.set_pose("gripper", (0, 0, 0.1), (0, 0, 90), relative_to="arm::gripper_mount",
                    degrees=True)
        X = ed.pose("gripper::mount_point", relative_to="arm::gripper_mount")
        # the gripper's placement frame (mount_point) sits at the written pose
        assert np.allclose(X.p, (0, 0, 0.1), atol=1e-9)
        assert np.allclose(X.rpy(), (0, 0, math.pi / 2), atol=1e-9)
        ed.undo()
        assert np.allclose(ed.pose("gripper::mount_point", "arm::gripper_mount").p, 0, atol=1e-9)
        ed.redo()
        out = ed.save(tmp_path / "out.sdf")
        assert out == [] or all(w.severity for w in out)
        shot = ed.screenshot(tmp_path / "shot.png")
        assert shot.stat().st_size > 1000
        with pytest.raises(KeyError):
            ed.select("no::such::thing")
    finally:
        ed.close()


def test_the_console_scripts_the_same_editor_object(qtbot, example_copy, tmp_path):
    from snapframe.editor import Editor
    settings = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    ed = Editor(show=True, settings=settings)
    try:
        ed.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
        console = ed.window.console
        qtbot.keyClicks(console.line, 'ed.select("gripper")')
        QTest.keyClick(console.line, Qt.Key.Key_Return)
        assert ed.selection == ["gripper"]
        qtbot.keyClicks(console.line, "len(doc.includes())")
        QTest.keyClick(console.line, Qt.Key.Key_Return)
        assert console.output.toPlainText().rstrip().endswith("2")
        qtbot.keyClicks(console.line, "1/0")
        QTest.keyClick(console.line, Qt.Key.Key_Return)
        assert "ZeroDivisionError" in console.output.toPlainText()
    finally:
        ed.close()
