"""Autosave and recovery in one process: the copies autosave writes, who may claim them,
and the start-up dialog driven with QTest clicks (Restore, Discard, Later).

Editors that are gone are real processes that wrote a copy and exited without cleaning
up (``os._exit``), so their locks are released by the kernel as after a crash.  Expected
poses follow from the SDFormat placement rule (an include's placement frame is put at the
include's pose in its ``relative_to`` frame), not from what the editor shows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from snapframe.core.commands import Command, CommandStack
from snapframe.core.loading import LoadContext, load
from snapframe.core.model.edits import SetPose
from snapframe.core.pose import Pose

Qt = QtCore.Qt

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")

#: A process that writes an element's pose (x y z yaw, in the frame the file writes it
#: in), writes its recovery copy as autosave does, and dies without cleaning up.
DEAD_EDITOR = r"""
import os, sys
from snapframe.core.loading import load
from snapframe.core.model.edits import SetPose
from snapframe.core.pose import Pose
from snapframe.editor.desktop.autosave import document_snapshot
from snapframe.editor.desktop.recovery import RecoverySession
root, path, key = sys.argv[1:4]
x, y, z, yaw = (float(v) for v in sys.argv[4:8])
doc = load(path)
doc.commands.push(SetPose(doc, doc.element(key), Pose.from_xyz_rpy(x, y, z, 0, 0, yaw), None))
payload, fmt, suffix = document_snapshot(doc)
RecoverySession(root).write("doc-1", suffix, payload, {
    "original_path": os.path.abspath(path), "format": fmt,
    "title": os.path.basename(path), "saved_at": 1700000000.0})
os._exit(0)
"""


def dead_editor(root: Path, path: Path, z: float, key: str = "gripper",
                yaw: float = 0.0) -> None:
    """An editor that moved ``key`` to (0, 0, z, yaw) in ``path`` and died."""
    subprocess.run([sys.executable, "-c", DEAD_EDITOR, str(root), str(path), key,
                    "0", "0", str(z), str(yaw)], check=True, timeout=120)


def offset_z(document) -> np.ndarray:
    """gripper::mount_point in arm::gripper_mount (the include's pose as the file says)."""
    poses = document.live.poses
    X = np.linalg.solve(poses.pose("arm::gripper_mount"), poses.pose("gripper::mount_point"))
    return X[:3, 3]


@pytest.fixture
def root(tmp_path) -> Path:
    return tmp_path / "recovery"


@pytest.fixture
def window(qtbot, tmp_path, root):
    from snapframe.editor.main_window import MainWindow
    settings = QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    qtbot.waitExposed(win)
    win.desktop.prefs.set("autosave_seconds", 1)
    win.desktop.start_autosave(root)
    yield win
    for s in win.sessions():
        s.document.commands.set_clean()
    win.close()


def push_offset(session, z: float) -> None:
    doc = session.document
    assert session.push(SetPose(doc, doc.element("gripper"), Pose.from_xyz_rpy(0, 0, z), None))
    doc.commands.end_merge()


def ctrl_s(qtbot, window) -> None:
    """Ctrl+S as the user presses it (shortcuts answer in the active window)."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is window, timeout=5000)
    target = QtWidgets.QApplication.focusWidget() or window
    QTest.keyClick(target, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)


def copies(root: Path) -> list[Path]:
    return sorted(root.glob("*/doc-*.json")) if root.is_dir() else []


# -- autosave -----------------------------------------------------------------------------
def test_a_change_is_copied_and_the_copy_reads_back_as_the_edited_document(
        qtbot, window, example_copy, root):
    from snapframe.editor.desktop.recovery import read_recovered
    path = example_copy("arm_gripper") / "arm_and_gripper.sdf"
    session = window.open(path)
    with qtbot.waitSignal(window.desktop.autosave.saved, timeout=20000) as saved:
        push_offset(session, 0.05)
    entry = saved.args[0]
    window.desktop.autosave.wait()
    # per user, below the recovery folder, in this editor's own (locked) folder
    assert entry.manifest.parent.parent == root
    manifest = json.loads(entry.manifest.read_text())
    assert manifest["original_path"] == str(path.resolve())
    assert manifest["format"] == "sdformat"
    assert manifest["pid"] == os.getpid()
    assert manifest["title"] == "arm_and_gripper.sdf"
    assert manifest["saved_at"] > 0
    # in its own format, the includes kept as includes (not flattened)
    text = entry.content.read_text()
    assert "<uri>file://arm.sdf</uri>" in text and "<uri>file://gripper.sdf</uri>" in text
    assert "<link" not in text
    recovered = read_recovered(entry)
    assert recovered.path == str(path.resolve()) or Path(recovered.path) == path.resolve()
    assert not recovered.diagnostics.errors
    assert np.allclose(offset_z(recovered), (0, 0, 0.05), atol=1e-9)
    # the file itself is untouched
    assert np.allclose(offset_z(load(path)), (0, 0, 0), atol=1e-9)


def test_saving_or_undoing_to_the_saved_state_removes_the_copy_and_a_clean_exit_all(
        qtbot, window, example_copy, root):
    path = example_copy("arm_gripper") / "arm_and_gripper.sdf"
    session = window.open(path)
    autosave = window.desktop.autosave
    with qtbot.waitSignal(autosave.saved, timeout=20000):
        push_offset(session, 0.05)
    autosave.wait()
    assert len(copies(root)) == 1
    session.undo()                       # back to what is on disk: nothing to recover
    autosave.wait()
    assert copies(root) == []
    with qtbot.waitSignal(autosave.saved, timeout=20000):
        session.redo()
    autosave.wait()
    assert len(copies(root)) == 1
    ctrl_s(qtbot, window)
    autosave.wait()
    assert session.document.commands.is_clean
    assert copies(root) == []
    assert np.allclose(offset_z(load(path)), (0, 0, 0.05), atol=1e-9)
    with qtbot.waitSignal(autosave.saved, timeout=20000):
        push_offset(session, 0.07)
    autosave.wait()
    folders = [p for p in root.iterdir() if p.is_dir()]
    assert len(folders) == 1
    session.document.commands.set_clean()
    window.close()
    assert not folders[0].exists()


def test_a_copy_waits_for_a_pause_in_the_editing(qtbot, window, example_copy):
    from snapframe.editor.desktop.autosave import IDLE_SECONDS
    session = window.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    autosave = window.desktop.autosave
    now = [100.0]
    autosave.clock = lambda: now[0]
    written: list = []
    autosave.saved.connect(written.append)
    push_offset(session, 0.01)             # the first change: due one interval later
    tracked = autosave._tracked[id(session)]
    assert autosave.pending(session)
    now[0] = 100.9
    push_offset(session, 0.02)             # still editing when the interval is over
    now[0] = 101.0
    tracked.timer.timeout.emit()
    assert autosave.pending(session)       # put off: the user is at it
    autosave.wait()
    qtbot.wait(20)
    assert written == []
    now[0] = 100.9 + IDLE_SECONDS + 0.01   # a pause
    with qtbot.waitSignal(autosave.saved, timeout=20000):
        tracked.timer.timeout.emit()
    # never more than one interval late, even without a pause
    now[0] = 200.0
    push_offset(session, 0.03)
    for t in (201.0, 201.5):
        now[0] = t
        push_offset(session, 0.04)
        tracked.timer.timeout.emit()
        assert autosave.pending(session)
    now[0] = 202.0
    push_offset(session, 0.05)
    with qtbot.waitSignal(autosave.saved, timeout=20000):
        tracked.timer.timeout.emit()


def test_autosave_is_off_until_started_and_at_an_interval_of_zero(qtbot, tmp_path,
                                                                     example_copy):
    from snapframe.editor.main_window import MainWindow
    settings = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    session = win.open(example_copy("arm_gripper") / "arm_and_gripper.sdf")
    push_offset(session, 0.05)
    assert not win.desktop.autosave.enabled and not win.desktop.autosave.pending(session)
    win.desktop.prefs.set("autosave_seconds", 0)
    win.desktop.start_autosave(tmp_path / "rec")
    push_offset(session, 0.06)
    assert not win.desktop.autosave.pending(session)
    win.desktop.prefs.set("autosave_seconds", 2)   # on again: the unsaved change is due
    assert win.desktop.autosave.pending(session)
    session.document.commands.set_clean()     # (qtbot closes the window)


def test_a_restored_stack_is_unsaved_until_saved():
    class Nothing(Command):
        def do(self) -> None:
            pass

        def undo(self) -> None:
            pass
    stack = CommandStack()
    events = []
    stack.changed.connect(events.append)
    stack.set_modified()
    assert not stack.is_clean and events[-1].clean is False
    stack.push(Nothing())
    stack.undo()
    assert not stack.is_clean          # no step of the history leads back to the file
    stack.set_clean()
    assert stack.is_clean


# -- who may claim copies ---------------------------------------------------------------------
def test_a_running_editors_copies_are_never_claimed_and_a_dead_ones_only_once(
        tmp_path, example_copy, root):
    from snapframe.editor.desktop.recovery import RecoverySession, claim_orphans
    path = example_copy("arm_gripper") / "arm_and_gripper.sdf"
    live = RecoverySession(root)
    live.write("doc-1", ".sdf", path.read_bytes(), {"original_path": str(path),
                                                    "format": "sdformat"})
    assert claim_orphans(root) == []                   # its editor runs: not offered
    dead_editor(root, path, 0.03)
    first = claim_orphans(root)
    assert [len(s.entries) for s in first] == [1]
    assert first[0].folder != live.folder
    assert first[0].entries[0].original_path == str(path.resolve())
    assert claim_orphans(root) == []                   # claimed: a second editor keeps off
    first[0].release()                                 # "Later"
    again = claim_orphans(root)
    assert [s.folder for s in again] == [first[0].folder]
    again[0].release()
    folder = live.folder
    live.close()                                       # a clean exit: its copies go
    assert not folder.exists()


def test_leftovers_of_a_crash_before_any_copy_are_removed_and_junk_is_not_offered(root):
    from snapframe.editor.desktop.recovery import claim_orphans
    empty = root / "123-deadbeef"
    empty.mkdir(parents=True)
    (empty / "owner.json").write_text('{"pid": 123}')
    junk = root / "456-cafecafe"
    junk.mkdir()
    (junk / "doc-1.json").write_text("not json")
    (junk / "doc-2.json").write_text(json.dumps({"version": 1, "content": "../../etc/passwd"}))
    assert claim_orphans(root) == []
    assert not empty.exists() and not junk.exists()


# -- the start-up dialog ------------------------------------------------------------------------
@pytest.fixture
def crashed(example_copy, root):
    """A copy of the arm and gripper example, and a dead editor's copy of it with the
    gripper 4 cm above the arm's mount."""
    path = example_copy("arm_gripper") / "arm_and_gripper.sdf"
    dead_editor(root, path, 0.04)
    return path


def test_restore_opens_the_edit_modified_and_bound_to_its_file(qtbot, window, crashed, root):
    dialog = window.desktop.offer_recovery(root)
    assert dialog is not None and dialog.isVisible()
    assert dialog.list.topLevelItem(0).text(0) == "arm_and_gripper.sdf"
    orphan_folder = window.desktop._orphans[0].folder
    QTest.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    session = window.session
    assert session is not None
    assert Path(session.document.path).resolve() == crashed.resolve()
    assert session.modified and window.tabs.tabText(0).endswith("*")
    assert np.allclose(offset_z(session.document), (0, 0, 0.04), atol=1e-9)
    # the copy is this editor's now; the dead one's folder is gone
    assert not orphan_folder.exists()
    assert len(copies(root)) == 1
    ctrl_s(qtbot, window)
    window.desktop.autosave.wait()
    assert not session.modified and copies(root) == []
    assert np.allclose(offset_z(load(crashed, LoadContext(use_environment=False))),
                       (0, 0, 0.04), atol=1e-9)


def test_discard_deletes_the_copies_and_opens_nothing(qtbot, window, crashed, root):
    dialog = window.desktop.offer_recovery(root)
    folder = window.desktop._orphans[0].folder
    QTest.mouseClick(dialog.discard_button, Qt.MouseButton.LeftButton)
    assert window.tabs.count() == 0 and not folder.exists()
    assert window.desktop.offer_recovery(root) is None


def test_later_keeps_the_copies_for_the_next_start(qtbot, window, crashed, root):
    dialog = window.desktop.offer_recovery(root)
    QTest.mouseClick(dialog.later_button, Qt.MouseButton.LeftButton)
    assert window.tabs.count() == 0 and len(copies(root)) == 1
    again = window.desktop.offer_recovery(root)
    assert again is not None and len(again.entries) == 1
    QTest.keyClick(again, Qt.Key.Key_Escape)          # closing it is Later too
    assert window.tabs.count() == 0 and len(copies(root)) == 1


def test_unticked_documents_are_kept_for_later(qtbot, window, example_copy, root):
    first = example_copy("arm_gripper") / "arm_and_gripper.sdf"
    second = example_copy("arm_gripper") / "arm_and_gripper.sdf"
    dead_editor(root, first, 0.01)
    dead_editor(root, second, 0.02)
    dialog = window.desktop.offer_recovery(root)
    assert dialog.list.topLevelItemCount() == 2
    item = dialog.list.topLevelItem(1)
    rect = dialog.list.visualItemRect(item)
    box = QtCore.QPoint(rect.left() + 10, rect.center().y())   # the tick box
    QTest.mouseClick(dialog.list.viewport(), Qt.MouseButton.LeftButton, pos=box)
    assert item.checkState(0) == Qt.CheckState.Unchecked
    kept = dialog.entries[1]
    QTest.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    assert window.tabs.count() == 1
    assert [e.original_path for e in window.desktop.offer_recovery(root).entries] == \
        [kept.original_path]


def test_a_clean_tab_of_the_same_file_gives_way_to_its_restored_copy(qtbot, window, crashed,
                                                                     root):
    window.open(crashed)                       # (opened from the command line, say)
    dialog = window.desktop.offer_recovery(root)
    QTest.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    assert window.tabs.count() == 1
    assert window.session.modified
    assert np.allclose(offset_z(window.session.document), (0, 0, 0.04), atol=1e-9)


def test_a_restored_included_file_shows_in_the_open_model_including_it(qtbot, window,
                                                                      example_copy, root):
    import math
    folder = example_copy("arm_gripper")
    dead_editor(root, folder / "arm.sdf", 0.45, key="gripper_mount", yaw=math.pi / 2)
    assembly = window.open(folder / "arm_and_gripper.sdf")   # (from the command line)
    dialog = window.desktop.offer_recovery(root)
    QTest.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    assert window.tabs.count() == 2
    arm = window.session
    assert Path(arm.document.path).name == "arm.sdf" and arm.modified
    poses = assembly.document.live.poses
    X = np.linalg.solve(poses.pose("arm::forearm"), poses.pose("arm::gripper_mount"))
    assert np.allclose(X[:3, 3], (0, 0, 0.45), atol=1e-9)
    # welded on it, the gripper's mount point follows
    assert np.allclose(offset_z(assembly.document), (0, 0, 0), atol=1e-9)
    assert not assembly.modified
