"""Edit ▸ Preferences driven with QTest: units in the inspector, triad size in the view,
the theme, model search paths, and all of it kept for the next window.

Expected values follow from the files written here and the unit definitions (1 m =
1000 mm, a percentage of the automatic triad length), not from what the editor prints.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from widget_actions import type_into

Qt = QtCore.Qt

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")

MAIN = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="main">
    <link name="base">
      <visual name="v"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></visual>
    </link>
    <frame name="marker"><pose>0.25 0.3 0 0 0 0.5</pose></frame>
  </model>
</sdf>
"""
WIDGET = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="widget">
    <link name="body">
      <visual name="v"><geometry><sphere><radius>0.05</radius></sphere></geometry></visual>
    </link>
  </model>
</sdf>
"""
CONFIG = """<?xml version="1.0"?>
<model><name>widget</name><version>1.0</version><sdf version="1.9">model.sdf</sdf></model>
"""
USES_WIDGET = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="bench">
    <link name="top"/>
    <include><uri>model://widget</uri></include>
  </model>
</sdf>
"""


@pytest.fixture
def files(tmp_path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "main.sdf").write_text(MAIN)
    (project / "bench.sdf").write_text(USES_WIDGET)
    widget = tmp_path / "library" / "widget"
    widget.mkdir(parents=True)
    (widget / "model.sdf").write_text(WIDGET)
    (widget / "model.config").write_text(CONFIG)
    return tmp_path


@pytest.fixture
def app_theme(qapp):
    """The application's style, palette and theme properties, put back afterwards (the
    theme is the application's, shared by every test)."""
    style, palette = qapp.style().name(), QtGui.QPalette(qapp.palette())
    names = ("snapframe_dark", "snapframe_theme_fixed", "snapframe_system_dark")
    props = {n: qapp.property(n) for n in names}
    yield qapp
    qapp.setStyle(style)
    qapp.setPalette(palette)
    for name, value in props.items():
        qapp.setProperty(name, value)


@pytest.fixture
def settings_file(tmp_path) -> str:
    return str(tmp_path / "settings.ini")


def make_window(qtbot, settings_file: str):
    from snapframe.editor.main_window import MainWindow
    settings = QtCore.QSettings(settings_file, QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.resize(1300, 850)
    win.show()
    qtbot.waitExposed(win)
    return win


@pytest.fixture
def window(qtbot, settings_file, app_theme, monkeypatch):
    for var in ("SDF_PATH", "GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH",
                "ROS_PACKAGE_PATH"):
        monkeypatch.delenv(var, raising=False)
    win = make_window(qtbot, settings_file)
    yield win
    for s in win.sessions():
        s.document.commands.set_clean()
    win.close()


def open_preferences(qtbot, window):
    """Ctrl+, in the window."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is window, timeout=5000)
    target = QtWidgets.QApplication.focusWidget() or window
    QTest.keyClick(target, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    dialog = window.desktop.preferences_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    return dialog


def choose(qtbot, combo: QtWidgets.QComboBox, value: str) -> None:
    """Pick the item whose data is ``value`` from the combo's list, with the keyboard."""
    combo.setFocus()
    target = combo.findData(value)
    assert target >= 0, value
    while combo.currentIndex() != target:
        key = Qt.Key.Key_Down if combo.currentIndex() < target else Qt.Key.Key_Up
        QTest.keyClick(combo, key)


def set_spin(spin: QtWidgets.QSpinBox, value: int) -> None:
    spin.setFocus()
    spin.lineEdit().selectAll()
    QTest.keyClicks(spin.lineEdit(), str(value))
    QTest.keyClick(spin.lineEdit(), Qt.Key.Key_Return)


def triad_lengths(window) -> np.ndarray:
    """The drawn length of every link triad's axes in the current view."""
    from snapframe.editor.viewport.vtkdata import points_of
    layer = window.current.viewport.mirror.triads["link"]
    pts = points_of(layer.mesh).reshape(-1, 4, 3)
    return np.linalg.norm(pts[:, 1:, :] - pts[:, :1, :], axis=2)


def test_lengths_in_millimetres_show_and_take_millimetres(qtbot, window, files):
    session = window.open(files / "project" / "main.sdf")
    session.selection.select("marker")
    inspector = window.inspector
    assert inspector.pose_fields["y"].text() == "0.300000"
    dialog = open_preferences(qtbot, window)
    choose(qtbot, dialog.length_unit, "mm")
    assert inspector.pose_fields["x"].text() == "250.000"
    assert inspector.pose_fields["y"].text() == "300.000"
    assert inspector.position_label.text() == "Position (mm)"
    assert inspector.resolved_position.text().endswith("mm")
    type_into(inspector.pose_fields["x"], "100")
    X = session.document.live.poses.pose("marker")
    assert math.isclose(X[0, 3], 0.1, abs_tol=1e-12)          # SI in the core
    assert math.isclose(session.document.element("marker").pose.value.p[0], 0.1,
                        abs_tol=1e-12)
    assert inspector.pose_fields["x"].text() == "100.000"


def test_angles_in_radians(qtbot, window, files):
    session = window.open(files / "project" / "main.sdf")
    session.selection.select("marker")
    inspector = window.inspector
    assert inspector.pose_fields["r2"].text() == f"{math.degrees(0.5):.4f}"
    dialog = open_preferences(qtbot, window)
    choose(qtbot, dialog.angle_unit, "rad")
    assert inspector.pose_fields["r2"].text() == "0.500000"
    assert inspector.rotation_label.text() == "Rotation (rad)"
    type_into(inspector.pose_fields["r2"], "0.25")
    yaw = session.document.element("marker").pose.value.rpy()[2]
    assert math.isclose(yaw, 0.25, abs_tol=1e-12)


def test_the_triad_size_scales_the_drawn_triads(qtbot, window, files):
    window.open(files / "project" / "main.sdf")
    before = triad_lengths(window)
    assert before.size and np.allclose(before, before.flat[0])
    dialog = open_preferences(qtbot, window)
    set_spin(dialog.triad_percent, 200)
    assert np.allclose(triad_lengths(window), 2 * before)
    set_spin(dialog.triad_percent, 50)
    assert np.allclose(triad_lengths(window), 0.5 * before)


def test_the_theme_switches_at_once(qtbot, window, files, app_theme):
    from snapframe.editor.theme import apply_theme, palette_is_dark
    from snapframe.editor.viewport.scene import Look
    apply_theme(app_theme)          # as the application starts: following the system
    window.open(files / "project" / "main.sdf")
    dialog = open_preferences(qtbot, window)
    choose(qtbot, dialog.theme, "dark")
    assert palette_is_dark(QtWidgets.QApplication.palette())
    assert window.look.background == Look.dark().background
    assert window.current.viewport.look.background == Look.dark().background
    # the user's choice stays when the system's scheme changes
    assert app_theme.property("snapframe_follows_scheme")
    app_theme.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert palette_is_dark(QtWidgets.QApplication.palette())
    choose(qtbot, dialog.theme, "light")
    assert not palette_is_dark(QtWidgets.QApplication.palette())
    assert window.current.viewport.look.background == Look().background
    choose(qtbot, dialog.theme, "dark")
    choose(qtbot, dialog.theme, "system")      # Xvfb's platform palette is a light one
    assert not palette_is_dark(QtWidgets.QApplication.palette())


def test_a_search_path_resolves_an_include_on_reopening(qtbot, window, files):
    bench = files / "project" / "bench.sdf"
    session = window.open(bench)
    assert [d.code for d in session.document.diagnostics.errors if
            str(d.code) == "URI_LOOKUP"]
    assert session.document.element("widget::body") is None
    dialog = open_preferences(qtbot, window)
    type_into(dialog.path_edit, str(files / "library"))
    assert [dialog.search_paths.item(i).text() for i in range(dialog.search_paths.count())] \
        == [str((files / "library").resolve())]
    assert window.close_tab(0)
    session = window.open(bench)
    assert not session.document.diagnostics.errors
    assert session.document.element("widget::body") is not None
    # the library lists the search path's models too
    qtbot.waitUntil(lambda: not window.library.scanning, timeout=10000)
    assert (files / "library").resolve() in [p.resolve() for p in window.library.roots()]
    # a folder that does not exist is refused with the reason
    type_into(dialog.path_edit, str(files / "nowhere"))
    assert dialog.path_error.isVisible() and "not a folder" in dialog.path_error.text()
    assert dialog.search_paths.count() == 1
    dialog.search_paths.setCurrentRow(0)
    QTest.mouseClick(dialog.remove_path_button, Qt.MouseButton.LeftButton)
    assert window.desktop.prefs.search_paths == []


def test_preferences_are_kept_for_the_next_window(qtbot, window, files, settings_file):
    dialog = open_preferences(qtbot, window)
    choose(qtbot, dialog.length_unit, "mm")
    choose(qtbot, dialog.angle_unit, "rad")
    choose(qtbot, dialog.theme, "dark")
    set_spin(dialog.triad_percent, 300)
    set_spin(dialog.autosave_seconds, 12)
    QTest.mouseClick(dialog.reload_silently, Qt.MouseButton.LeftButton)
    type_into(dialog.path_edit, str(files / "library"))
    QTest.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    window.open(files / "project" / "main.sdf")
    reference = triad_lengths(window) / 3.0
    window.close()

    again = make_window(qtbot, settings_file)
    try:
        prefs = again.desktop.prefs
        assert (prefs.length_unit, prefs.angle_unit, prefs.theme) == ("mm", "rad", "dark")
        assert prefs.autosave_seconds == 12 and prefs.reload_silently is True
        assert prefs.search_paths == [(files / "library").resolve()]
        assert again.inspector.length_unit == "mm" and again.inspector.rotation_format == "rad"
        session = again.open(files / "project" / "bench.sdf")   # the search path applies
        assert not session.document.diagnostics.errors
        again.close_tab(0)
        again.open(files / "project" / "main.sdf")
        assert np.allclose(triad_lengths(again), 3.0 * reference)
        session = again.session
        session.selection.select("marker")
        assert again.inspector.pose_fields["x"].text() == "250.000"
        shown = open_preferences(qtbot, again)
        assert shown.length_unit.currentData() == "mm"
        assert shown.triad_percent.value() == 300 and shown.reload_silently.isChecked()
        QTest.mouseClick(shown.defaults_button, Qt.MouseButton.LeftButton)
        assert prefs.length_unit == "m" and again.inspector.pose_fields["x"].text() == \
            "0.250000"
    finally:
        for s in again.sessions():
            s.document.commands.set_clean()
        again.close()
