"""mirabuf in the editor: a ``.mira`` file opened, edited and saved with Ctrl+S keeps
everything else it held; an SDFormat assembly saved as mirabuf from File > Save As."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from snapframe.core.pose import Pose
from snapframe.plugins.mirabuf.generated import assembly_pb2
from snapframe.plugins.mirabuf.reader import read

Qt = QtCore.Qt
REPO = Path(__file__).resolve().parents[2]
HINGE = REPO / "tests" / "data" / "mirabuf" / "HingeTestFission_v1.mira"


@pytest.fixture
def window(qtbot, tmp_path, no_modal_dialogs):
    from snapframe.editor.main_window import MainWindow
    settings = QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    qtbot.waitExposed(win)
    yield win
    for s in win.sessions():
        s.document.commands.set_clean()
    win.close()


def test_a_mira_file_edited_and_saved_with_ctrl_s(qtbot, window, tmp_path, no_modal_dialogs):
    path = tmp_path / "hinge.mira"
    shutil.copyfile(HINGE, path)
    session = window.open(path)
    doc = session.document
    from snapframe.core.model.edits import SetPose
    swing = doc.element("Swing_2")
    target = Pose.from_xyz_rpy(0.3, 0.1, 0.2, 0.0, 0.0, 0.7)
    session.push(SetPose(doc, swing, target, ""))
    moved = doc.live.poses.pose("Swing_2")
    view = window._trees.currentWidget().view
    window.activateWindow()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is window, timeout=3000)
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert no_modal_dialogs == []                  # nothing lost: no warning
    assert doc.commands.is_clean
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    fresh = read(path)
    assert np.allclose(fresh.live.poses.pose("Swing_2"), moved, atol=1e-6)
    # everything the editor does not show is as it was: signals, motors, materials
    before = assembly_pb2.Assembly.FromString(gzip.decompress(HINGE.read_bytes()))
    after = assembly_pb2.Assembly.FromString(gzip.decompress(path.read_bytes()))
    assert after.data.signals == before.data.signals
    assert after.data.materials == before.data.materials
    assert after.data.joints.motor_definitions == before.data.joints.motor_definitions


def test_save_as_mirabuf_reports_what_it_cannot_hold(qtbot, window, example_copy, tmp_path,
                                                      monkeypatch, no_modal_dialogs):
    folder = example_copy("flanges")
    window.open(folder / "super_armio_bros.sdf")
    out = tmp_path / "bros.mira"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(out), "mirabuf (*.mira)"))
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    save_as = next(a.menu() for a in menu.actions() if a.menu() and "Save" in a.text())
    action = next(a for a in save_as.actions() if "mirabuf" in a.text())
    action.trigger()
    assert out.is_file()
    assert [k for k, _ in no_modal_dialogs] == ["warning"]     # "Saved, with losses"
    back = read(out)
    assert not back.diagnostics.has_errors() and back.root.links


def test_mesh_files_written_beside_a_save_are_news_not_losses(qtbot, window, tmp_path,
                                                              monkeypatch, no_modal_dialogs):
    path = tmp_path / "cube.mira"
    shutil.copyfile(REPO / "tests" / "data" / "mirabuf" / "TestCube_v1.mira", path)
    window.open(path)
    out = tmp_path / "cube.sdf"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(out), "sdformat (*.sdf)"))
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    save_as = next(a.menu() for a in menu.actions() if a.menu() and "Save" in a.text())
    next(a for a in save_as.actions() if a.text().startswith("SDFormat, includes")).trigger()
    assert out.is_file() and list(tmp_path.glob("cube_meshes/*.stl"))
    assert no_modal_dialogs == []                  # no "Saved, with losses" box
    assert "cube_meshes" in window.statusBar().currentMessage() or \
        "mesh" in window.statusBar().currentMessage()
