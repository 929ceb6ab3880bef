"""The SNAP panel's New mate section in an SDFormat world that includes two OpenPLX
parts: the lists hold the parts' connectors, the panel says a mate is placed and joined,
and *Create mate* places the hand's part on the face's connector and joins them (one undo
step).  Run under Xvfb.

Expected poses are worked out by hand (see tests/core/test_mating_includes.py for the part
files' numbers): the face's centre connector is at (1, 2.01, 0.5) with axes x = (0, 0, 1),
y = (-1, 0, 0), z = (0, -1, 0); a hinge at 90 degrees puts the hand's pivot there turned a
quarter about z (x = (-1, 0, 0), y = (0, 0, -1), z = (0, -1, 0)), and the hand's body
0.01 along its own x from the pivot: at (0.99, 2.01, 0.5).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.core.model import Joint  # noqa: E402
from snapframe.editor.assembling import SnapPanel  # noqa: E402
from snapframe.editor.session import DocumentSession  # noqa: E402
from widget_actions import LEFT, NONE, show, type_into  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from test_mating_includes import (FACE_CENTER, PIVOT, X_W_CENTER, X_W_HAND_90,  # noqa: E402
                                  X_W_PIVOT_90, matrix, write_room)


def click(widget: QtWidgets.QWidget) -> None:
    QTest.mouseClick(widget, LEFT, NONE, widget.rect().center())


def test_the_panel_mates_two_included_parts_as_placement_and_joint(qtbot, tmp_path,
                                                                   no_modal_dialogs):
    session = DocumentSession.open(write_room(tmp_path))
    panel = SnapPanel(session)
    show(qtbot, panel, 700, 860)
    creator = panel.creator
    # the included parts' connectors are offered (and the world frame), and the panel
    # says what a mate becomes here
    assert panel.make_box.isVisible()
    items = [creator.ends[0].itemText(i) for i in range(creator.ends[0].count())]
    assert items == [FACE_CENTER, PIVOT, "world"]
    assert creator.mode.isVisible()
    assert "placed and joined: sdformat keeps mates as a placement and a joint" in \
        creator.mode.text().lower()
    assert creator.create_button.isEnabled()

    # cylindrical: refused with the reason, nothing changed
    for combo, key in zip(creator.ends, (FACE_CENTER, PIVOT)):
        combo.setFocus()
        QTest.keyClicks(combo, key)
    assert creator.chosen() == (FACE_CENTER, PIVOT)
    creator.type.setFocus()
    QTest.keyClicks(creator.type, "cylindrical")
    click(creator.create_button)
    assert "no SDFormat joint" in creator.status.text()
    assert len(session.document.commands) == 0

    # a hinge at 90 degrees (typed after the combo's keyboard search has ended)
    qtbot.wait(QtWidgets.QApplication.keyboardInputInterval() + 100)
    creator.type.setFocus()
    QTest.keyClicks(creator.type, "hinge")
    assert creator.type.currentText() == "hinge"
    type_into(creator.angle, "90")
    type_into(creator.name, "clock_hinge")
    before = {k: np.array(session.live.poses.pose(k)) for k in session.live.poses}
    click(creator.create_button)
    assert "placed and joined" in creator.status.text()
    assert len(session.document.commands) == 1
    poses = session.live.poses
    np.testing.assert_allclose(poses.pose(FACE_CENTER), X_W_CENTER, atol=1e-12)
    np.testing.assert_allclose(poses.pose(PIVOT), X_W_PIVOT_90, atol=1e-12)
    np.testing.assert_allclose(poses.pose("hand::hour_hand"), X_W_HAND_90, atol=1e-12)
    joint = session.document.element("clock_hinge")
    assert isinstance(joint, Joint)
    assert (joint.type, joint.parent_name, joint.child_name) == \
        ("revolute", "clock_face::face", "hand::hour_hand")
    assert joint.axes[0].xyz == (0.0, 0.0, 1.0) and joint.axes[0].expressed_in == PIVOT
    assert session.selection.active == "clock_hinge"

    # one undo step takes back both the placement and the joint
    session.undo()
    assert session.document.element("clock_hinge") is None
    np.testing.assert_allclose(session.live.poses.pose("hand::hour_hand"),
                               matrix((1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 3)), atol=1e-12)
    for key, X in before.items():
        np.testing.assert_array_equal(np.array(session.live.poses.pose(key)), X, err_msg=key)
    panel.close()
