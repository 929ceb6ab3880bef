"""The remove and rename dialogs, driven without blocking (run under Xvfb)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore, QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.editor.assembling import confirm_remove, rename_element  # noqa: E402
from snapframe.editor.session import DocumentSession  # noqa: E402
from widget_actions import LEFT  # noqa: E402


def tree_rows(dialog) -> dict[str, list[tuple[str, str]]]:
    """Heading -> (element, reason) rows of the dialog's list."""
    out = {}
    for i in range(dialog.tree.topLevelItemCount()):
        top = dialog.tree.topLevelItem(i)
        out[top.text(0)] = [(top.child(j).text(0), top.child(j).text(1))
                            for j in range(top.childCount())]
    return out


@pytest.fixture
def parent(qtbot) -> QtWidgets.QWidget:
    window = QtWidgets.QWidget()
    qtbot.addWidget(window)
    window.show()
    return window


def test_remove_lists_dependents_and_removes_them_in_one_undo_step(qtbot, parent, session):
    document = session.document
    gripper_before = session.live.poses.pose("gripper").copy()
    dialog = confirm_remove(parent, session, "arm")      # returns at once: open(), not exec()
    qtbot.waitExposed(dialog)
    assert dialog.isVisible() and dialog.isModal()
    assert [d.key for d in dialog.dependents] == ["gripper", "weld"]
    assert tree_rows(dialog) == {
        "Removed with it (1)": [("weld", "joint parent [arm::gripper_mount]")],
        "Kept in place, re-expressed (1)": [("gripper", "pose relative_to [arm::gripper_mount]")],
    }
    assert dialog.remove_button.text() == "Remove with dependents"
    removed = []
    dialog.removed.connect(removed.append)
    QTest.mouseClick(dialog.remove_button, LEFT)
    assert removed == [["arm", "weld"]]
    assert document.element("arm") is None and document.element("weld") is None
    assert len(document.commands) == 1
    # the gripper stays where it was, its pose now written in the model frame
    np.testing.assert_allclose(session.live.poses.pose("gripper"), gripper_before, atol=1e-12)
    assert document.element("gripper").pose.relative_to == ""
    qtbot.waitUntil(lambda: not dialog.isVisible())
    session.undo()
    assert document.element("arm") is not None and document.element("weld") is not None
    assert document.element("gripper").pose.relative_to == "arm::gripper_mount"


def test_cancel_changes_nothing(qtbot, parent, session):
    dialog = confirm_remove(parent, session, "gripper")
    qtbot.waitExposed(dialog)
    assert tree_rows(dialog) == {"Removed with it (1)": [("weld",
                                                          "joint child [gripper::mount_point]")]}
    finished = []
    dialog.finished.connect(finished.append)
    QTest.mouseClick(dialog.cancel_button, LEFT)
    assert finished == [QtWidgets.QDialog.DialogCode.Rejected]
    assert session.document.element("gripper") is not None
    assert len(session.document.commands) == 0


def test_an_element_nothing_refers_to_is_simply_removed(qtbot, parent, session):
    dialog = confirm_remove(parent, session, "weld")
    qtbot.waitExposed(dialog)
    assert dialog.remove_button.text() == "Remove"
    assert not dialog.tree.isVisible()
    QTest.mouseClick(dialog.remove_button, LEFT)
    assert session.document.element("weld") is None


def test_an_element_of_an_included_file_cannot_be_removed(qtbot, parent, session):
    dialog = confirm_remove(parent, session, "arm::gripper_mount")
    qtbot.waitExposed(dialog)
    assert not dialog.remove_button.isEnabled()
    assert dialog.note.isVisible() and "included" in dialog.note.text()
    assert tree_rows(dialog) == {"Refers to it (2)": [
        ("gripper", "pose relative_to [arm::gripper_mount]"),
        ("weld", "joint parent [arm::gripper_mount]")]}
    dialog.reject()


def test_rename_validates_as_typed_and_renames_references(qtbot, parent, session):
    document = session.document
    dialog = rename_element(parent, session, "gripper")
    qtbot.waitExposed(dialog)
    assert dialog.edit.text() == "gripper" and not dialog.ok_button.isEnabled()
    dialog.edit.selectAll()
    QTest.keyClicks(dialog.edit, "arm")
    assert not dialog.ok_button.isEnabled()
    assert dialog.note.text() == "the name [arm] is already used in model 'arm_and_gripper'"
    dialog.edit.selectAll()
    QTest.keyClicks(dialog.edit, "a::b")
    assert "must not contain '::'" in dialog.note.text()
    dialog.edit.selectAll()
    QTest.keyClicks(dialog.edit, "hand")
    assert dialog.ok_button.isEnabled() and not dialog.note.isVisible()
    renamed = []
    dialog.renamed.connect(lambda old, new: renamed.append((old, new)))
    QTest.keyClick(dialog.edit, QtCore.Qt.Key.Key_Return)     # Rename is the default button
    assert renamed == [("gripper", "hand")]
    assert document.element("weld").child_name == "hand::mount_point"
    assert "hand::mount_point" in session.live.poses
    assert len(document.commands) == 1
    session.undo()
    assert document.element("weld").child_name == "gripper::mount_point"


def test_rename_of_an_included_element_is_refused(qtbot, parent, session):
    dialog = rename_element(parent, session, "arm::forearm")
    qtbot.waitExposed(dialog)
    dialog.edit.selectAll()
    QTest.keyClicks(dialog.edit, "lower_arm")
    assert not dialog.ok_button.isEnabled()
    assert "included" in dialog.note.text()
    dialog.reject()


def test_dialogs_open_on_an_openplx_mate(qtbot, parent, example_copy):
    s = DocumentSession.open(example_copy("openplx") / "clock.openplx")
    dialog = confirm_remove(parent, s, "hour_hand")
    qtbot.waitExposed(dialog)
    # the mate goes too: it names the connector removed with the hand
    assert tree_rows(dialog) == {"Removed with it (2)": [
        ("hand_hinge", "mate connector [hour_hand.pivot]"),
        ("hour_hand.pivot", "attached_to [hour_hand]")]}
    QTest.mouseClick(dialog.remove_button, LEFT)
    assert s.document.element("hour_hand") is None and s.document.element("hand_hinge") is None
    s.undo()
    assert s.document.element("hand_hinge") is not None
