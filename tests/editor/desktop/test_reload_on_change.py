"""Reload on change: files changed on disk by another program, as the user meets them.

A model includes ``part.sdf`` at (0, 0, 1) whose link ``body`` sits at (x, 0, 0): by
SDFormat's pose composition the link is at (x, 0, 1) in the model, so rewriting ``x`` in
the included file must move it there in the editor (pose table and drawn triad alike).
Files are rewritten as editors and generators do: replaced atomically (a new inode) or
written in place.  The *Reload*/*Ignore* offer is clicked with QTest.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from lxml import etree
from PySide6 import QtCore
from PySide6.QtTest import QTest

from snapframe.core.model.edits import SetJointType, SetPose
from snapframe.core.pose import Pose
from snapframe.editor.desktop.file_watch import DEBOUNCE_MS

Qt = QtCore.Qt
LEFT = Qt.MouseButton.LeftButton

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")

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
MAIN = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="main">
    <link name="base">
      <visual name="v"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></visual>
    </link>
    <frame name="marker"><pose>0 0.3 0 0 0 0</pose></frame>
    <include>
      <uri>part.sdf</uri>
      <name>part</name>
      <pose>0 0 1 0 0 0</pose>
    </include>
  </model>
</sdf>
"""


def replace_atomically(path: Path, text: str) -> None:
    """As editors and git save: a new file renamed over the old one."""
    tmp = path.with_name(f".{path.name}.new")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_in_place(path: Path, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


@pytest.fixture
def files(tmp_path) -> Path:
    (tmp_path / "part.sdf").write_text(PART.format(x=0.1))
    (tmp_path / "main.sdf").write_text(MAIN)
    return tmp_path


@pytest.fixture
def window(qtbot, tmp_path):
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


def body_at(session) -> np.ndarray:
    return session.document.live.poses.pose("part::body")[:3, 3]


def drawn_triad_origin(window, key: str) -> np.ndarray:
    """Where the viewport draws ``key``'s link triad."""
    from snapframe.editor.viewport.vtkdata import points_of
    layer = window.current.viewport.mirror.triads["link"]
    return points_of(layer.mesh).reshape(-1, 4, 3)[layer.index[key], 0]


def camera_of(window) -> tuple:
    camera = window.current.viewport.canvas.camera
    return camera.GetPosition() + camera.GetFocalPoint() + camera.GetViewUp()


def test_a_changed_include_is_reloaded_silently_keeping_selection_and_camera(
        qtbot, window, files):
    window.desktop.prefs.set("reload_silently", True)
    session = window.open(files / "main.sdf")
    assert np.allclose(body_at(session), (0.1, 0, 1))
    assert str((files / "part.sdf").resolve()) in window.desktop.watcher.watched()
    session.selection.select(["marker", "part::body"])
    window.set_view("top")
    window.current.viewport.canvas.camera.Zoom(1.7)
    camera = camera_of(window)
    reloads: list = []
    window.desktop.watcher.reloaded.connect(reloads.append)
    for x in (0.2, 0.3, 0.4):                 # a burst: one reload
        replace_atomically(files / "part.sdf", PART.format(x=x))
    qtbot.waitUntil(lambda: np.allclose(body_at(session), (0.4, 0, 1)), timeout=10000)
    assert len(reloads) == 1
    assert np.allclose(drawn_triad_origin(window, "part::body"), (0.4, 0, 1))
    assert session.selection.keys == ["marker", "part::body"]
    assert np.allclose(camera_of(window), camera)
    assert not session.modified
    bar = window.desktop.watcher.bar(session)
    assert bar is None or not bar.isVisible()
    # the watch follows the replaced file: a later change in place is seen too
    write_in_place(files / "part.sdf", PART.format(x=0.5))
    qtbot.waitUntil(lambda: np.allclose(body_at(session), (0.5, 0, 1)), timeout=10000)


def test_without_the_preference_a_bar_offers_the_reload(qtbot, window, files):
    session = window.open(files / "main.sdf")
    watcher = window.desktop.watcher
    with qtbot.waitSignal(watcher.offered, timeout=10000):
        replace_atomically(files / "part.sdf", PART.format(x=0.25))
    bar = watcher.bar(session)
    assert bar.isVisible() and "part.sdf changed on disk" in bar.label.text()
    assert "unsaved" not in bar.label.text()
    assert np.allclose(body_at(session), (0.1, 0, 1))      # nothing done yet
    QTest.mouseClick(bar.reload_button, LEFT)
    assert np.allclose(body_at(session), (0.25, 0, 1))
    assert not bar.isVisible()


def test_with_unsaved_edits_ignore_keeps_them_and_reload_discards_them(qtbot, window, files):
    window.desktop.prefs.set("reload_silently", True)     # never without asking, here
    session = window.open(files / "main.sdf")
    doc = session.document
    assert session.push(SetPose(doc, doc.element("marker"), Pose.from_xyz_rpy(0, 0.5, 0), None))
    watcher = window.desktop.watcher
    with qtbot.waitSignal(watcher.offered, timeout=10000):
        replace_atomically(files / "part.sdf", PART.format(x=0.3))
    bar = watcher.bar(session)
    assert bar.isVisible() and "discards your unsaved changes" in bar.label.text()
    QTest.mouseClick(bar.ignore_button, LEFT)
    assert not bar.isVisible()
    assert session.modified
    assert np.allclose(doc.live.poses.pose("marker")[:3, 3], (0, 0.5, 0))
    assert np.allclose(body_at(session), (0.1, 0, 1))
    with qtbot.waitSignal(watcher.offered, timeout=10000):
        write_in_place(files / "part.sdf", PART.format(x=0.35))
    assert bar.isVisible()
    QTest.mouseClick(bar.reload_button, LEFT)
    assert not session.modified and not bar.isVisible()
    assert np.allclose(doc.live.poses.pose("marker")[:3, 3], (0, 0.3, 0))   # as on disk
    assert np.allclose(body_at(session), (0.35, 0, 1))


def own_change_seen(qtbot, watcher, path: Path) -> None:
    """The change notice of our own save of ``path``, as the watcher takes it whenever it
    arrives (the watch set again after the save may have dropped it): nothing to offer."""
    qtbot.wait(3 * DEBOUNCE_MS)              # whatever the system sends, it has come
    watcher._on_change(str(path.resolve()))
    assert watcher.check() == []


def save_and_take_its_notice(qtbot, window, path: Path) -> None:
    """Save the current document (as Ctrl+S does) and let the system's notice of the
    write come through the watcher as any change does (watch, quiet time, check)."""
    watcher = window.desktop.watcher
    with qtbot.waitSignal(watcher.watcher.fileChanged, timeout=10000) as notice:
        assert window.save()
    assert Path(notice.args[0]) == path.resolve()
    qtbot.waitUntil(lambda: not watcher._timer.isActive() and not watcher._pending,
                    timeout=10000)
    # the watch is set again on the new file
    qtbot.waitUntil(lambda: str(path.resolve()) in watcher.watcher.files(), timeout=10000)


def test_our_own_saves_offer_nothing(qtbot, window, files):
    session = window.open(files / "main.sdf")
    watcher = window.desktop.watcher
    offers: list = []
    watcher.offered.connect(offers.append)
    doc = session.document
    assert session.push(SetPose(doc, doc.element("marker"), Pose.from_xyz_rpy(0, 0.6, 0), None))
    save_and_take_its_notice(qtbot, window, files / "main.sdf")
    own_change_seen(qtbot, watcher, files / "main.sdf")
    # the included file saved from its own tab: the model including it is not offered a
    # reload either (it shows the edit already)
    window.open_include("part")
    part = window.session
    assert Path(part.document.path).name == "part.sdf"
    assert part.push(SetPose(part.document, part.document.element("body"),
                             Pose.from_xyz_rpy(0.45, 0, 0), None))
    assert np.allclose(body_at(session), (0.45, 0, 1))
    save_and_take_its_notice(qtbot, window, files / "part.sdf")
    own_change_seen(qtbot, watcher, files / "part.sdf")
    assert offers == []
    assert not part.modified and not session.modified
    # and the watches still work: another program's change is offered
    with qtbot.waitSignal(watcher.offered, timeout=10000):
        replace_atomically(files / "part.sdf", PART.format(x=0.15))


def test_our_own_save_with_losses_offers_nothing(qtbot, window, tmp_path, no_modal_dialogs):
    """A save in the document's own format that reports losses (URDF has no ball joint:
    written as fixed) leaves the document modified, its edit unsaved: the file it wrote
    is still ours, not a change to offer (Reload would put the fixed joint back)."""
    path = tmp_path / "arm.urdf"
    path.write_bytes((Path(__file__).resolve().parents[2] / "data" / "urdf" /
                      "arm.urdf").read_bytes())
    session = window.open(path)
    doc = session.document
    watcher = window.desktop.watcher
    offers: list = []
    watcher.offered.connect(offers.append)
    assert session.push(SetJointType(doc, doc.element("elbow"), "ball"))
    save_and_take_its_notice(qtbot, window, path)
    assert [kind for kind, _text in no_modal_dialogs] == ["warning"]   # saved, with losses
    assert offers == []
    assert session.modified and doc.element("elbow").type == "ball"
    assert etree.parse(str(path)).find("joint[@name='elbow']").get("type") == "fixed"
    # another program's change is still offered (with the unsaved edit at stake)
    with qtbot.waitSignal(watcher.offered, timeout=10000) as offered:
        replace_atomically(path, path.read_text() + "\n")
    assert "discards your unsaved changes" in offered.args[0].label.text()


def test_a_file_deleted_and_written_again_is_reloaded(qtbot, window, files):
    window.desktop.prefs.set("reload_silently", True)
    session = window.open(files / "main.sdf")
    (files / "part.sdf").unlink()
    qtbot.waitUntil(lambda: str(files) in window.desktop.watcher.watcher.directories(),
                    timeout=10000)
    assert np.allclose(body_at(session), (0.1, 0, 1))     # nothing to read: kept
    (files / "part.sdf").write_text(PART.format(x=0.6))
    qtbot.waitUntil(lambda: np.allclose(body_at(session), (0.6, 0, 1)), timeout=10000)
