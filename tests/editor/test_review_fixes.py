"""Regressions of the ninth review, driven as a user drives the editor: clicks on tree rows
and buttons, keys typed into fields, menus and shortcuts (real widgets and the real VTK
viewport, under Xvfb).  Expected values come from the core (a fresh load, the pose table),
never from the widget under test."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from snapframe.core.loading import LoadContext, load

Qt = QtCore.Qt
Key = Qt.Key
LEFT = Qt.MouseButton.LeftButton
NOMOD = Qt.KeyboardModifier.NoModifier
CTRL = Qt.KeyboardModifier.ControlModifier
KEY_ROLE = Qt.ItemDataRole.UserRole + 1

ROBOT = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="robot">
    <link name="base">
      <visual name="v"><geometry><box><size>0.3 0.3 0.1</size></box></geometry></visual>
      <collision name="c"><geometry><box><size>0.3 0.3 0.1</size></box></geometry></collision>
    </link>
    <link name="arm">
      <pose relative_to="hinge">0 0 0.25 0 0 0</pose>
      <visual name="v"><geometry><cylinder><radius>0.03</radius><length>0.5</length></cylinder></geometry></visual>
    </link>
    <frame name="hinge" attached_to="base"><pose>0 0 0.05 0 0 0</pose></frame>
    <joint name="j1" type="revolute">
      <pose relative_to="hinge"/>
      <parent>base</parent><child>arm</child>
      <axis><xyz>0 1 0</xyz><limit><lower>-1.57</lower><upper>1.57</upper></limit></axis>
    </joint>
    <link name="slider"><pose>0.3 0 0.05 0 0 0</pose>
      <visual name="v"><geometry><sphere><radius>0.04</radius></sphere></geometry></visual></link>
    <joint name="p1" type="prismatic"><parent>base</parent><child>slider</child>
      <axis><xyz>1 0 0</xyz><limit><lower>0</lower><upper>0.2</upper></limit></axis></joint>
    <frame name="tool" attached_to="arm"><pose relative_to="arm">0 0 0.25 0 0 0</pose></frame>
  </model>
</sdf>
"""


# -- fixtures and what a user does ------------------------------------------------------

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    from snapframe.editor.main_window import MainWindow
    settings = QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()   # keys and shortcuts go where the focus is, as for a user
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is win, timeout=3000)
    yield win
    for s in win.sessions():
        s.document.commands.set_clean()   # no "unsaved changes" prompt at teardown
    win.close()


@pytest.fixture
def robot(tmp_path) -> Path:
    path = tmp_path / "robot.sdf"
    path.write_text(ROBOT)
    return path


def tree_of(window):
    return window._trees.currentWidget()


def row_rect(window, key: str) -> QtCore.QRect:
    tree = tree_of(window)
    index = tree.proxy.mapFromSource(tree.model.index_of(key))
    assert index.isValid(), key
    tree.view.scrollTo(index)
    return tree.view.visualRect(index)


def click_row(window, key: str, modifier=NOMOD) -> None:
    tree = tree_of(window)
    QTest.mouseClick(tree.view.viewport(), LEFT, modifier, row_rect(window, key).center())


def click(widget: QtWidgets.QWidget) -> None:
    QTest.mouseClick(widget, LEFT, NOMOD, widget.rect().center())


def type_text(widget: QtWidgets.QWidget, text: str, enter: bool = True) -> None:
    """Select what a field shows and type ``text`` over it (Enter to confirm)."""
    QTest.keyClick(widget, Key.Key_A, CTRL)
    QTest.keyClicks(widget, text)
    if enter:
        QTest.keyClick(widget, Key.Key_Return)


def pick(qtbot, combo: QtWidgets.QComboBox, text: str) -> None:
    """Open a combo's list and click the item ``text``."""
    index = combo.findText(text, Qt.MatchFlag.MatchExactly)
    assert index >= 0, text
    option = QtWidgets.QStyleOptionComboBox()
    combo.initStyleOption(option)
    arrow = combo.style().subControlRect(QtWidgets.QStyle.ComplexControl.CC_ComboBox, option,
                                         QtWidgets.QStyle.SubControl.SC_ComboBoxArrow, combo)
    qtbot.mouseClick(combo, LEFT, pos=arrow.center())
    view = combo.view()
    qtbot.waitUntil(view.isVisible)
    qtbot.wait(QtWidgets.QApplication.doubleClickInterval() + 50)
    model_index = view.model().index(index, combo.modelColumn(), view.rootIndex())
    view.scrollTo(model_index)
    QTest.mouseClick(view.viewport(), LEFT, NOMOD, view.visualRect(model_index).center())
    qtbot.waitUntil(lambda: not view.isVisible())


def selected_rows(window) -> list[str]:
    tree = tree_of(window)
    return [i.data(KEY_ROLE) for i in tree.view.selectionModel().selectedIndexes()]


def world_z(session, key: str) -> float:
    return float(session.live.poses.pose(key)[2, 3])


# == 1. the scene tree's updates ========================================================

def test_label_edits_and_new_findings_update_rows_in_place(qtbot, window, robot, qtmodeltester):
    """A joint retyped, a frame re-attached, an edit that creates an error: the rows say
    so at once, as data changes (no half-announced layout change: that left the filter
    proxy's persistent indexes dangling, and the next click crashed the editor)."""
    session = window.open(robot)
    tree = tree_of(window)
    tree.view.expandAll()
    # Qt's own model tester watches every signal the model sends from here on
    qtmodeltester.check(tree.model, force_py=False)
    layout_changes: list[int] = []
    tree.proxy.layoutChanged.connect(lambda *_: layout_changes.append(1))
    tree.model.layoutChanged.connect(lambda *_: layout_changes.append(1))
    changed_rows: list[str] = []
    tree.model.dataChanged.connect(
        lambda a, b, *_: changed_rows.extend(tree.model.index(r, 0, a.parent()).data(KEY_ROLE)
                                             for r in range(a.row(), b.row() + 1)))
    inspector = window.inspector
    for n, kind in enumerate(("fixed", "prismatic", "universal", "revolute", "ball")):
        click_row(window, "j1")
        pick(qtbot, inspector.joint_type, kind)
        assert session.document.element("j1").type == kind
        index = tree.proxy.mapFromSource(tree.model.index_of("j1"))
        assert index.data() == f"j1  [{kind}]"
        # selection changes and repaints after the edit (where the crash was)
        click_row(window, "arm")
        click_row(window, "base")
        click_row(window, "slider", CTRL)
        tree.view.viewport().repaint()
        assert session.selection.keys == ["base", "slider"]
    assert "j1" in changed_rows
    # attached_to picked in the inspector
    click_row(window, "tool")
    pick(qtbot, inspector.attached_to, "base")
    assert session.document.element("tool").attached_to == "base"
    assert "attached_to: base" in tree.proxy.mapFromSource(
        tree.model.index_of("tool")).data(Qt.ItemDataRole.ToolTipRole)
    # a dangling relative_to typed: an error appears on the row
    click_row(window, "slider")
    click(inspector.keep_in_place)            # off: the values are kept, it may dangle
    type_text(inspector.relative_to.lineEdit(), "nothing_here")
    assert any(d.key == "slider" for d in session.document.diagnostics.errors)
    slider = tree.proxy.mapFromSource(tree.model.index_of("slider"))
    assert slider.data(Qt.ItemDataRole.ForegroundRole).color() == QtGui.QColor("#e0474c")
    click_row(window, "arm")
    click_row(window, "base")
    assert session.selection.keys == ["base"]
    assert layout_changes == []


# == 8. the filter keeps the selection ==================================================

def test_filtering_the_tree_keeps_the_selection(qtbot, window, example_copy):
    session = window.open(example_copy("flanges") / "super_armio_bros.sdf")
    tree = tree_of(window)
    click_row(window, "robot_1")
    tree.view.expand(tree.proxy.mapFromSource(tree.model.index_of("robot_1")))
    click_row(window, "robot_1::weld1")
    assert session.selection.keys == ["robot_1::weld1"]
    click(tree.filter)
    QTest.keyClicks(tree.filter, "gripper")       # hides the selected row
    assert session.selection.keys == ["robot_1::weld1"]
    assert window.inspector.key == "robot_1::weld1"
    QTest.keyClick(tree.filter, Key.Key_A, CTRL)
    QTest.keyClick(tree.filter, Key.Key_Backspace)
    assert session.selection.keys == ["robot_1::weld1"]
    assert selected_rows(window) == ["robot_1::weld1"]   # shown again, selected
    # a click on a row the filter shows selects it, as always
    QTest.keyClicks(tree.filter, "grip")
    click_row(window, "robot_2::gripper")
    assert session.selection.keys == ["robot_2::gripper"]


# == 9. Esc in a field reverts it; elsewhere it clears the selection ====================

def test_esc_reverts_a_typed_value_and_elsewhere_clears_the_selection(qtbot, window,
                                                                      example_copy):
    session = window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    keyboard = window.windowHandle()   # keys as the window system delivers them

    def press(key, modifier=NOMOD):
        QTest.keyClick(keyboard, key, modifier)

    click_row(window, "gripper")
    x = window.inspector.pose_fields["x"]
    shown = x.text()
    click(x)
    press(Key.Key_A, CTRL)
    QTest.keyClicks(QtWidgets.QApplication.focusWidget(), "0.5")
    assert x.text() == "0.5"
    press(Key.Key_Escape)
    assert x.text() == shown
    assert session.selection.keys == ["gripper"] and len(session.document.commands) == 0
    # in the relative_to box: Esc closes the completions, then gives the typing up
    combo = window.inspector.relative_to
    click(combo)
    press(Key.Key_A, CTRL)
    QTest.keyClicks(QtWidgets.QApplication.focusWidget(), "arm::for")
    assert combo.currentText() == "arm::for"
    if combo.completer().popup().isVisible():
        press(Key.Key_Escape)
        assert not combo.completer().popup().isVisible()
        assert combo.currentText() == "arm::for"
    press(Key.Key_Escape)
    assert combo.currentText() == "arm::gripper_mount"
    assert session.selection.keys == ["gripper"] and len(session.document.commands) == 0
    # Esc again (nothing typed), or Esc in the tree: nothing selected any more
    press(Key.Key_Escape)
    assert session.selection.keys == []
    click_row(window, "gripper")
    tree_of(window).view.setFocus()
    press(Key.Key_Escape)
    assert session.selection.keys == []


# == 10. nothing selected: the placeholder only =========================================

def test_nothing_selected_shows_the_placeholder_only(qtbot, window, example_copy):
    inspector = window.inspector
    groups = (inspector.element_group, inspector.pose_group, inspector.resolved_group,
              inspector.chain_group, inspector.joint_group, inspector.inertia_group,
              inspector.geometry_group)
    assert inspector.placeholder.isVisible() and "No document" in inspector.placeholder.text()
    assert not any(g.isVisible() for g in groups)
    window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    assert inspector.placeholder.isVisible() and "Nothing selected" in inspector.placeholder.text()
    assert not any(g.isVisible() for g in groups)
    # RPY: three rotation fields, no stray fourth one
    click_row(window, "gripper")
    assert [inspector.pose_fields[f"r{i}"].isVisible() for i in range(4)] == \
        [True, True, True, False]
    assert not inspector.rotation_row.letters[3].isVisible()
    pick_format = inspector.format_combo
    pick_format.setCurrentIndex(pick_format.findData("quat"))
    assert all(inspector.pose_fields[f"r{i}"].isVisible() for i in range(4))
    pick_format.setCurrentIndex(pick_format.findData("deg"))
    assert not inspector.pose_fields["r3"].isVisible()


# == 12. quaternions typed component by component =======================================

def test_a_quaternion_is_typed_component_by_component(qtbot, window, example_copy):
    """w = 0.7071 then z = 0.7071 is a quarter turn about z, however the user moves
    between the fields (Enter after each, or clicks): a component is not normalised on
    its own, the typed values stay until the user is done with the quaternion."""
    session = window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    inspector = window.inspector
    click_row(window, "gripper")
    pick(qtbot, inspector.format_combo, "Quaternion (w x y z)")
    w, z = inspector.pose_fields["r0"], inspector.pose_fields["r3"]
    gripper = session.document.element("gripper")
    stack = session.document.commands
    assert gripper.pose.value.quat() == (1, 0, 0, 0)
    # z first, Enter after each (the review's sequence)
    click(z)
    type_text(z, "0.7071")
    assert len(stack) == 1
    assert [inspector.pose_fields[f"r{i}"].text() for i in range(4)] == \
        ["1.000000", "0.000000", "0.000000", "0.707100"]   # as typed, not renormalised
    click(w)
    type_text(w, "0.7071")
    assert gripper.pose.value.rpy()[2] == pytest.approx(math.pi / 2)
    assert w.text() == "0.707100" and z.text() == "0.707100"
    # done with it: shown normalised, as the document holds it
    click(inspector.pose_fields["x"])
    assert w.text() == "0.707107" and z.text() == "0.707107"
    while stack.can_undo:
        stack.undo()
    assert gripper.pose.value.quat() == (1, 0, 0, 0)
    # w then z, moving with clicks (a click out of a field confirms it)
    click(w)
    type_text(w, "0.7071", enter=False)
    click(z)
    assert float(w.text()) == pytest.approx(0.7071)      # identity still: nothing written
    type_text(z, "0.7071")
    assert gripper.pose.value.rpy()[2] == pytest.approx(math.pi / 2)
    assert len(stack) == 1
    # an undo forgets what was typed: the fields show the document again
    stack.undo()
    assert w.text() == "1.000000" and z.text() == "0.000000"


# == 13a. huge values stay compact ======================================================

def test_huge_and_tiny_values_are_shown_compactly(qtbot, window, example_copy):
    from snapframe.editor.inspector import _fmt
    assert _fmt(1e300, 6, "f") == "1e300"
    assert _fmt(-1234567.891, 6, "f") == "-1.234568e6"
    assert _fmt(2.5e-5, 6, "f") == "2.5e-5"
    assert _fmt(1e-17, 6, "f") == "0.000000"        # rounding noise is zero
    assert _fmt(0.25, 6, "f") == "0.250000"
    session = window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    inspector = window.inspector
    click_row(window, "gripper")
    x = inspector.pose_fields["x"]
    click(x)
    type_text(x, "1e300")
    assert session.document.element("gripper").pose.value.p[0] == 1e300
    assert x.text() == "1e300"
    assert len(inspector.resolved_position.text()) < 60
    qtbot.waitUntil(lambda: "e300" in inspector.chain_view.toPlainText())   # (throttled)
    # the pose rows still fit the dock: no horizontal scrolling, all three fields shown
    qtbot.wait(50)
    assert not inspector.scroll.horizontalScrollBar().isVisible()
    assert all(inspector.pose_fields[n].isVisible() for n in ("x", "y", "z", "r0", "r1", "r2"))
    assert x.sizeHint().width() < 200


# == 2. a viewport that fails to build leaves nothing behind =============================

def test_a_file_whose_3d_view_fails_is_reported_and_cleaned_up(qtbot, window, robot,
                                                              monkeypatch):
    from snapframe.editor.viewport import widget as viewport_module
    from snapframe.editor.viewport.widget import Viewport

    class Broken:
        def __init__(self, *args, **kwargs):
            raise RuntimeError("cannot draw this shape")
    # fails after VTK's widget and render window were made: a half-built viewport
    monkeypatch.setattr(viewport_module, "SceneMirror", Broken)
    assert window.open(robot) is None
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    assert window.tabs.count() == 0 and window._trees.count() == 0
    assert window.tabs.findChildren(Viewport) == [] and window.findChildren(Viewport) == []
    assert "3D view failed" in window.statusBar().currentMessage()
    assert "cannot draw this shape" in window.last_error
    assert window._center.currentWidget() is window._empty
    assert window.included_files.documents() == []
    monkeypatch.undo()
    session = window.open(robot)      # the same file opens once the view can be built
    assert session is not None and window.tabs.count() == 1


# == 4. Discard on an included file's tab ===============================================

def test_discarding_an_included_files_changes_reverts_every_includer(qtbot, window,
                                                                      example_copy,
                                                                      no_modal_dialogs):
    folder = example_copy("arm_gripper")
    parent = window.open(folder / "arm_and_gripper.sdf")
    before = world_z(parent, "gripper::body")
    click_row(window, "gripper::body")
    click(window.inspector.open_include_button)
    assert window.tabs.count() == 2 and window.tabs.currentIndex() == 1
    included = window.session
    assert included.selection.keys == ["body"]          # the element asked about
    z = window.inspector.pose_fields["z"]
    click(z)
    type_text(z, "0.3")
    assert world_z(parent, "gripper::body") == pytest.approx(before + 0.3)
    assert window.tabs.tabText(1) == "gripper.sdf *"
    bar = window.tabs.tabBar()
    close = bar.tabButton(1, QtWidgets.QTabBar.ButtonPosition.RightSide)
    click(close)                                         # asked: Discard
    assert [kind for kind, _ in no_modal_dialogs] == ["question"]
    assert window.tabs.count() == 1
    assert world_z(parent, "gripper::body") == pytest.approx(before)
    out = folder / "flat.sdf"
    parent.document.save(out, flatten=True)
    fresh = load(out, LoadContext(use_environment=False))
    assert fresh.live.poses.pose("gripper::body")[2, 3] == pytest.approx(before)
    # opened again: the file as on disk, no unsaved changes, no history to undo
    click_row(window, "gripper::body")
    click(window.inspector.open_include_button)
    assert window.session.document is included.document
    assert not window.session.modified and not window.act_undo.isEnabled()
    assert window.session.document.element("body").pose.value.p[2] == 0.0


# == 5. one document per file ===========================================================

def test_a_file_opened_twice_is_one_document(qtbot, window, example_copy):
    folder = example_copy("arm_gripper")
    direct = window.open(folder / "gripper.sdf")
    parent = window.open(folder / "arm_and_gripper.sdf")
    before = world_z(parent, "gripper::body")
    click_row(window, "gripper::left_finger")
    click(window.inspector.open_include_button)
    # the tab of the file opened before, not a second document of it
    assert window.tabs.count() == 2 and window.session is direct
    assert direct.selection.keys == ["left_finger"]
    click_row(window, "body")
    z = window.inspector.pose_fields["z"]
    click(z)
    type_text(z, "0.2")
    assert world_z(parent, "gripper::body") == pytest.approx(before + 0.2)
    # and the other way round: a file included by an open document opens as its document
    window.tabs.setCurrentIndex(1)
    assert window.open(folder / "arm.sdf").document is parent.document.open_include("arm")
    assert window.tabs.count() == 3


# == 14. Save As without an extension ===================================================

def test_save_as_adds_the_formats_extension(qtbot, window, example_copy, monkeypatch,
                                            no_modal_dialogs):
    folder = example_copy("arm_gripper")
    session = window.open(folder / "arm_and_gripper.sdf")
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(folder / "mycopy"), ""))
    file_menu = window.menuBar().actions()[0].menu()
    save_as = next(a.menu() for a in file_menu.actions() if a.text() == "Save &As")
    save_as.actions()[0].trigger()              # SDFormat, includes kept…
    assert (folder / "mycopy.sdf").is_file() and not (folder / "mycopy").exists()
    assert session.document.path == str(folder / "mycopy.sdf")
    assert window.tabs.tabToolTip(0) == str(folder / "mycopy.sdf")   # the new path
    assert not load(folder / "mycopy.sdf", LoadContext(use_environment=False)).diagnostics.errors
    # a name whose completed form exists: asked first (answered "no" here: not written)
    (folder / "taken.sdf").write_text("keep me")
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(folder / "taken"), ""))
    save_as.actions()[0].trigger()
    assert no_modal_dialogs[-1][0] == "question"
    assert (folder / "taken.sdf").read_text() == "keep me"


# == 11. themes =========================================================================

@pytest.fixture
def theme_restored():
    app = QtWidgets.QApplication.instance()
    palette, style = QtGui.QPalette(app.palette()), app.style().name()
    dark = app.property("snapframe_dark")
    yield app
    app.setPalette(palette)
    app.setStyle(style)
    app.setProperty("snapframe_dark", dark)


def test_the_theme_fades_disabled_widgets_and_follows_the_system(qtbot, window, example_copy,
                                                                 theme_restored):
    from snapframe.editor.theme import apply_theme, theme_colors
    from snapframe.editor.viewport.scene import Look
    app = theme_restored
    G, R = QtGui.QPalette.ColorGroup, QtGui.QPalette.ColorRole
    apply_theme(app, dark=False)
    p = app.palette()
    for role in (R.WindowText, R.Text, R.ButtonText):
        assert p.color(G.Disabled, role) != p.color(G.Active, role)
    window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    looks: list = []
    window.current.viewport.set_look = looks.append     # (the viewport owner's method)
    click_row(window, "arm::forearm")
    inspector = window.inspector
    assert inspector.readonly_note.isVisible()
    light = theme_colors()
    assert light["note"] in inspector.readonly_note.styleSheet()
    window.act_teaching.trigger()
    graph = window.frame_graph.view
    # the system turns dark while the editor runs (palette events come through the loop)
    apply_theme(app)                                     # follow the system from now on
    app.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert app.property("snapframe_dark") is True
    assert looks and looks[-1].background == Look.dark().background
    p = app.palette()
    assert p.color(G.Disabled, R.Text) != p.color(G.Active, R.Text)
    dark = theme_colors()
    # the read-only note of an included element: the dark note colour, not light yellow
    qtbot.waitUntil(lambda: dark["note"] in inspector.readonly_note.styleSheet())
    # links (chain, parent/child) in the light link colour of the dark palette
    assert inspector.chain_view.palette().color(R.Link).lightness() > 150
    click_row(window, "arm::shoulder")
    assert inspector.parent_label.palette().color(R.Link).lightness() > 150
    # the frame graph's canvas
    qtbot.waitUntil(lambda: graph.backgroundBrush().color().lightness() < 60)
    app.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert app.property("snapframe_dark") is False
    assert looks[-1].background == Look().background
    qtbot.waitUntil(lambda: graph.backgroundBrush().color().lightness() > 200)
    window.act_teaching.trigger()


# == 18. smaller things =================================================================

def test_orthographic_is_per_tab(qtbot, window, example_copy, robot):
    window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    window.open(robot)
    bar = window.tabs.tabBar()
    QTest.mouseClick(bar, LEFT, NOMOD, bar.tabRect(0).center())
    toolbar = window.findChild(QtWidgets.QToolBar, "main_toolbar")
    click(toolbar.widgetForAction(window.act_ortho))
    first, second = window.tabs.widget(0), window.tabs.widget(1)
    assert window.act_ortho.isChecked()
    assert first.viewport.canvas.camera.GetParallelProjection()
    QTest.mouseClick(bar, LEFT, NOMOD, bar.tabRect(1).center())
    assert window.tabs.currentIndex() == 1
    assert not window.act_ortho.isChecked()
    assert not second.viewport.canvas.camera.GetParallelProjection()
    QTest.mouseClick(bar, LEFT, NOMOD, bar.tabRect(0).center())
    assert window.act_ortho.isChecked()


def test_context_menu_offers_what_applies(qtbot, window, example_copy):
    window.open(example_copy("flanges") / "super_armio_bros.sdf")

    def texts(key):
        return [a.text() for a in window._context_actions(key) if a is not None]
    # a nested model is no include: nothing to open
    assert "Open included file" not in texts("robot_1")
    assert {"Re&name…", "&Delete"} <= set(texts("robot_1"))
    # an include, and an element inside one
    assert "Open included file" in texts("robot_1::arm")
    inside = window._context_actions("robot_1::arm::link")
    names = [a.text() for a in inside if a is not None]
    assert "Open included file" in names
    assert "Re&name…" not in names and "&Delete" not in names
    note = next(a for a in inside if a is not None and "arm.sdf" in a.text())
    assert not note.isEnabled() and "rename or delete" in note.text()


def test_deleting_a_mixed_selection_names_what_was_deleted(qtbot, window, example_copy):
    session = window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    click_row(window, "weld")
    click_row(window, "arm::forearm", CTRL)
    assert session.selection.keys == ["weld", "arm::forearm"]
    tree_of(window).view.setFocus()
    QTest.keyClick(window.windowHandle(), Key.Key_Delete)
    doc = session.document
    assert doc.element("weld") is None and doc.element("arm::forearm") is not None
    assert doc.commands.undo_label == "Delete weld"
    message = window.statusBar().currentMessage()
    assert "Not deleted: arm::forearm" in message and "Document." not in message
    # renaming inside an include says where to do it (no API names)
    click_row(window, "arm::forearm")
    QTest.keyClick(window.windowHandle(), Key.Key_F2)
    message = window.statusBar().currentMessage()
    assert "arm.sdf" in message and "Document." not in message


def test_set_pose_relative_to_a_key_writes_the_scoped_name(qtbot, example_copy, tmp_path):
    from snapframe.editor import Editor
    settings = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    ed = Editor(show=True, settings=settings)
    try:
        doc = ed.open(example_copy("flanges") / "super_armio_bros.sdf")
        for frame in ("arm::flange_mount", "robot_1::arm::flange_mount",
                      "super_armio_bros::robot_1::arm::flange_mount"):
            ed.set_pose("robot_1::flange", (0, 0, 0.01), relative_to=frame)
            assert doc.element("robot_1::flange").pose.relative_to == "arm::flange_mount"
            assert not doc.diagnostics.errors
            assert np.allclose(doc.element("robot_1::flange").pose.value.p, (0, 0, 0.01))
            ed.undo()
        with pytest.raises(ed.EditRefused, match="not in the model"):
            ed.set_pose("robot_1::flange", relative_to="robot_2::arm::flange_mount")
    finally:
        ed.close()


def test_same_named_files_show_their_folder(qtbot, window, example_copy):
    a = example_copy("arm_gripper") / "arm_and_gripper.sdf"
    b = example_copy("arm_gripper") / "arm_and_gripper.sdf"
    window.open(a)
    window.open(b)
    assert window.tabs.tabText(0) == f"arm_and_gripper.sdf — {a.parent.name}"
    assert window.tabs.tabText(1) == f"arm_and_gripper.sdf — {b.parent.name}"
    assert window.recent_menu.toolTipsVisible()
    recent = {act.text(): act.toolTip() for act in window.recent_menu.actions()}
    assert recent == {f"arm_and_gripper.sdf — {b.parent.name}": str(b.resolve()),
                      f"arm_and_gripper.sdf — {a.parent.name}": str(a.resolve())}


def test_the_command_line_says_when_a_file_is_missing(tmp_path):
    p = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "missing.sdf"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 2
    assert "no such file: missing.sdf" in p.stderr


def test_teaching_mode_off_gives_back_the_users_triads(qtbot, window, robot):
    window.open(robot)
    layers = window.act_layers
    layers["link"].trigger()                         # the user hides link frames
    mine = {n: layers[n].isChecked() for n in ("link", "joint", "frame", "mate_connector",
                                                "model")}
    assert mine["link"] is False and mine["joint"] is False
    height = window.diagnostics_dock.height()
    tree_of(window).view.setFocus()
    QTest.keyClick(window.windowHandle(), Key.Key_T)
    assert window.act_teaching.isChecked() and all(layers[n].isChecked() for n in mine)
    qtbot.waitUntil(lambda: window.diagnostics_dock.height() > height + 50)   # the graph
    QTest.keyClick(window.windowHandle(), Key.Key_T)
    assert not window.act_teaching.isChecked()
    assert {n: layers[n].isChecked() for n in mine} == mine
    qtbot.waitUntil(lambda: abs(window.diagnostics_dock.height() - height) < 8)


def test_window_look_and_lifecycle(qtbot, tmp_path, example_copy, monkeypatch):
    from snapframe.editor.main_window import MainWindow
    monkeypatch.delenv("SNAPFRAME_DEBUG", raising=False)
    settings = QtCore.QSettings(str(tmp_path / "fresh.ini"), QtCore.QSettings.Format.IniFormat)
    window = MainWindow(settings)
    qtbot.addWidget(window)
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    assert window.inspector_dock.minimumWidth() >= 300
    assert window.diagnostics_dock.height() <= 160          # compact at first
    toolbar = window.findChild(QtWidgets.QToolBar, "main_toolbar")
    assert "Joint frames" in [a.text() for a in toolbar.actions()]
    arrow = window.style().standardIcon(QtWidgets.QStyle.StandardPixmap.SP_ArrowBack)
    for action in (window.act_undo, window.act_redo):
        assert not action.icon().isNull()
        assert action.icon().cacheKey() != arrow.cacheKey()
    window.library_dock.raise_()
    def on_top(widget) -> bool:   # (a tabified dock behind another keeps isVisible())
        return not widget.visibleRegion().isEmpty()
    qtbot.waitUntil(lambda: on_top(window.library))
    window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    # the Scene, not the Library
    qtbot.waitUntil(lambda: on_top(window._trees) and not on_top(window.library))
    # render times: not in the status bar (no debug mode), in the tooltip
    assert not window.status_render.isVisible()
    window.current.viewport.render()
    assert "ms" in window.status_diag.toolTip()
    closed = []
    monkeypatch.setattr(window.library, "shutdown", lambda: closed.append(True))
    window.close()
    assert closed == [True]


# == the core side of 4 and 5 (no Qt) ===================================================

def test_included_files_one_document_per_file_and_reload(example_copy):
    from snapframe.core.model.document import IncludedFiles
    from snapframe.core.model.edits import SetPose
    from snapframe.core.pose import Pose
    folder = example_copy("arm_gripper")
    files = IncludedFiles()
    direct = load(folder / "gripper.sdf", LoadContext(use_environment=False))
    files.add(direct)
    parent = load(folder / "arm_and_gripper.sdf", LoadContext(use_environment=False))
    files.add(parent)
    # the file opened first is the model the later document includes
    assert parent.element("gripper").model is direct.root
    assert parent.open_include("gripper") is direct
    assert parent.open_included_file(folder / "gripper.sdf") is direct
    before = parent.live.poses.pose("gripper::body")[2, 3]
    direct.commands.push(SetPose(direct, direct.element("body"), Pose.from_xyz_rpy(0, 0, 0.3)))
    assert parent.live.poses.pose("gripper::body")[2, 3] == pytest.approx(before + 0.3)
    # read again: as on disk, everywhere, no history
    direct.reload()
    assert parent.live.poses.pose("gripper::body")[2, 3] == pytest.approx(before)
    assert parent.element("gripper").model is direct.root
    assert len(direct.commands) == 0 and direct.commands.is_clean
    # a file that can no longer be read: the document stays as it was
    root = direct.root
    (folder / "gripper.sdf").write_text("<sdf version='1.9'><model name='x'>")
    with pytest.raises(ValueError, match="cannot be read again"):
        direct.reload()
    assert direct.root is root and parent.element("gripper").model is root
