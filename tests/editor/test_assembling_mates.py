"""Making mates and connectors in the SNAP panel with the real 3D view (run under Xvfb):
connectors picked by clicking their triads, a point on a body clicked for a new
connector, and what SNAP then does with the bodies.

Expected poses come from the clock example's geometry (its comments, and the OpenPLX rule
for a connector's frame: z = main_axis, x = the normal, y = z x x): the face is declared
at z = 1.5, unturned; its connector ``center`` sits at (0, 0.01, 0) with main axis
(0, -1, 0) (into the clock) and normal (0, 0, 1) (twelve o'clock); the hand's ``pivot`` is
at its origin with main axis (0, 0, -1) and normal (1, 0, 0) (along the hand).  A hinge
[face.center, hour_hand.pivot] at angle a puts the hand at X_face C_center Rz(a)
C_pivot^-1: a = 0 shows twelve (the hand's x is the world's +z), pi/2 three o'clock.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.core.model import Mate, MateConnector  # noqa: E402
from snapframe.core.model.edits import RemoveNode  # noqa: E402
from snapframe.editor.assembling import SnapPanel  # noqa: E402
from snapframe.editor.session import DocumentSession  # noqa: E402
from widget_actions import LEFT, NONE, show, type_into  # noqa: E402

FACE_Z = 1.5


def frame(position, main_axis, normal) -> np.ndarray:
    """A connector's frame in its owner (4x4) by the OpenPLX rule."""
    z = np.asarray(main_axis, float) / np.linalg.norm(main_axis)
    x = np.asarray(normal, float) - np.dot(normal, z) * z
    x /= np.linalg.norm(x)
    X = np.eye(4)
    X[:3, :3] = np.column_stack([x, np.cross(z, x), z])
    X[:3, 3] = position
    return X


def turn(angle: float, shift: float = 0.0) -> np.ndarray:
    """Rz(angle) Tz(shift): the mate's offset in connector 0's frame."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, shift], [0, 0, 0, 1.0]])


X_W_FACE = np.eye(4)
X_W_FACE[2, 3] = FACE_Z
CENTER = frame((0, 0.01, 0), (0, -1, 0), (0, 0, 1))
PIVOT = frame((0, 0, 0), (0, 0, -1), (1, 0, 0))


def hand_pose(angle: float, shift: float = 0.0, X_W_face: np.ndarray = X_W_FACE) -> np.ndarray:
    return X_W_face @ CENTER @ turn(angle, shift) @ np.linalg.inv(PIVOT)


class Bench:
    """The SNAP panel beside a 3D view of the same clock, as the window docks them."""

    def __init__(self, qtbot, session: DocumentSession) -> None:
        from snapframe.editor.viewport.widget import Viewport
        self.session = session
        self.host = QtWidgets.QWidget()
        row = QtWidgets.QHBoxLayout(self.host)
        self.view = Viewport(session, parent=self.host)
        self.panel = SnapPanel(session, self.host)
        self.panel.set_viewport(self.view)
        row.addWidget(self.view, 3)
        row.addWidget(self.panel, 2)
        show(qtbot, self.host, 1400, 860)
        qtbot.waitUntil(lambda: self.view.render_count > 0)

    def look_at_the_front(self) -> None:
        """From in front of the clock (+y), a little to the side and above."""
        self.view.canvas.set_camera((0.7, 3.0, 1.2), (0.0, 0.0, 0.75), (0.0, 0.0, 1.0))
        self.view.fit()

    def click_view(self, world_point) -> None:
        QTest.mouseClick(self.view.widget, LEFT, NONE, self.view.pixel_of(world_point))

    def origin(self, key: str) -> np.ndarray:
        return self.session.live.poses.pose(key)[:3, 3]

    def pose(self, key: str) -> np.ndarray:
        return self.session.live.poses.pose(key)


@pytest.fixture
def clock(qtbot, example_copy):
    return DocumentSession.open(example_copy("openplx") / "clock.openplx")


@pytest.fixture
def bench(qtbot, clock, no_modal_dialogs):
    b = Bench(qtbot, clock)
    yield b
    b.view.close_view()


def click(widget: QtWidgets.QWidget) -> None:
    QTest.mouseClick(widget, LEFT, NONE, widget.rect().center())


def remove_the_hinge(session: DocumentSession) -> None:
    assert session.make(RemoveNode, session.document.element("hand_hinge"))
    session.document.commands.end_merge()


def test_a_hinge_made_by_picking_both_triads_snaps_the_hand(qtbot, bench, clock):
    panel, creator = bench.panel, bench.panel.creator
    remove_the_hinge(clock)
    # without its hinge the hand is unmated: left at the system's origin, and said so
    np.testing.assert_allclose(bench.pose("hour_hand"), np.eye(4), atol=1e-12)
    qtbot.waitUntil(lambda: panel.tabs.tabText(0) == "Findings (1)")
    finding = panel.findings.item(0)
    assert "hour_hand" in finding.text() and "not connected by any mate" in finding.text()
    QTest.mouseClick(panel.findings.viewport(), LEFT, NONE,
                     panel.findings.visualItemRect(finding).center())
    assert clock.selection.active == "hour_hand"

    bench.look_at_the_front()
    steps = len(clock.document.commands)
    click(creator.pick_buttons[0])
    assert bench.view.picking and creator.pick_buttons[0].isChecked()
    bench.click_view(bench.origin("face.center"))
    assert creator.chosen()[0] == "face.center"
    assert bench.view.picking and creator.pick_buttons[1].isChecked()   # on to connector 1
    bench.click_view(bench.origin("hour_hand.pivot"))
    assert creator.chosen() == ("face.center", "hour_hand.pivot")
    assert not bench.view.picking
    assert clock.selection.active == "hour_hand"          # picking did not select
    assert creator.type.currentText() == "hinge"
    type_into(creator.angle, "45")
    click(creator.create_button)

    assert len(clock.document.commands) == steps + 1      # one undo step
    mate = clock.document.element("hinge")
    assert isinstance(mate, Mate) and mate.type == "hinge"
    assert mate.connectors == ("face.center", "hour_hand.pivot")
    assert mate.initial_angle == pytest.approx(math.pi / 4)
    X = bench.pose("hour_hand")
    np.testing.assert_allclose(X, hand_pose(math.pi / 4), atol=1e-12)
    # halfway between twelve (+z) and three o'clock (-x), pivoting at the face's centre
    s = math.sqrt(0.5)
    np.testing.assert_allclose(X[:3, 0], [-s, 0, s], atol=1e-12)
    np.testing.assert_allclose(X[:3, 3], [0, 0.01, FACE_Z], atol=1e-12)
    assert clock.selection.active == "hinge"
    qtbot.waitUntil(lambda: panel.mate_keys == ["hinge"])
    assert panel.mates.item(0, 5).text() == "satisfied"
    assert panel.tabs.tabText(0) == "Findings (0)"

    # the new mate's angle edited in the table: three o'clock
    type_into(panel.mates.cellWidget(0, 3), "90")
    np.testing.assert_allclose(bench.pose("hour_hand"), hand_pose(math.pi / 2), atol=1e-12)
    np.testing.assert_allclose(bench.pose("hour_hand")[:3, 0], [-1, 0, 0], atol=1e-12)
    clock.undo()
    np.testing.assert_allclose(bench.pose("hour_hand"), hand_pose(math.pi / 4), atol=1e-12)

    # undoing the creation is one step: the hand is unmated again
    clock.undo()
    assert clock.document.element("hinge") is None
    np.testing.assert_allclose(bench.pose("hour_hand"), np.eye(4), atol=1e-12)
    qtbot.waitUntil(lambda: panel.tabs.tabText(0) == "Findings (1)")


def test_connectors_chosen_in_the_lists_make_a_cylindrical_mate(qtbot, bench, clock):
    panel, creator = bench.panel, bench.panel.creator
    panel.set_viewport(None)                    # no view: the lists still work
    assert not creator.pick_buttons[0].isEnabled()
    remove_the_hinge(clock)
    for combo, key in zip(creator.ends, ("face.center", "hour_hand.pivot")):
        combo.setFocus()
        QTest.keyClicks(combo, key)
    assert creator.chosen() == ("face.center", "hour_hand.pivot")
    creator.type.setFocus()
    QTest.keyClicks(creator.type, "cylindrical")
    assert creator.type.currentText() == "cylindrical" and creator.position.isEnabled()
    type_into(creator.angle, "90")
    type_into(creator.position, "-0.02")
    type_into(creator.name, "axle")
    click(creator.create_button)
    mate = clock.document.element("axle")
    assert mate.type == "cylindrical" and mate.initial_position == pytest.approx(-0.02)
    # three o'clock, 2 cm along the face connector's main axis (into the clock: -y)
    X = bench.pose("hour_hand")
    np.testing.assert_allclose(X, hand_pose(math.pi / 2, -0.02), atol=1e-12)
    np.testing.assert_allclose(X[:3, 3], [0, 0.03, FACE_Z], atol=1e-12)


def test_the_same_connector_twice_or_none_is_refused_with_the_reason(qtbot, bench, clock):
    creator = bench.panel.creator
    steps = len(clock.document.commands)
    click(creator.create_button)
    assert "choose two connectors" in creator.status.text()
    for combo in creator.ends:
        combo.setFocus()
        QTest.keyClicks(combo, "face.center")
    click(creator.create_button)
    assert "two different connectors" in creator.status.text()
    assert creator.status.isVisible()
    assert len(clock.document.commands) == steps


def test_a_connector_added_by_clicking_the_dial(qtbot, bench, clock):
    adder, creator = bench.panel.adder, bench.panel.creator
    bench.look_at_the_front()
    steps = len(clock.document.commands)
    click(adder.button)
    assert bench.view.picking
    # the dial's front (its local +y face, 5 mm in front of its centre), right of and
    # below the centre, away from the hand (which points to three o'clock: -x)
    target = np.array([0.08, 0.005, FACE_Z - 0.05])
    bench.click_view(target)
    assert not bench.view.picking
    assert len(clock.document.commands) == steps + 1
    node = clock.document.element("face.mc")
    assert isinstance(node, MateConnector) and node.attached_to == "face"
    X_FC = np.array(node.pose.value.matrix())
    # on that face: 5 mm in front of the dial's centre plane, inside its radius, near
    # the clicked pixel
    assert X_FC[1, 3] == pytest.approx(0.005, abs=1e-6)
    assert math.hypot(X_FC[0, 3], X_FC[2, 3] - 0.0) <= 0.15
    np.testing.assert_allclose(X_FC[:3, 3], target - [0, 0, FACE_Z], atol=0.01)
    # main axis = the face normal (+y); normal = the face's +z turned perpendicular: +z
    np.testing.assert_allclose(X_FC[:3, 2], [0, 1, 0], atol=1e-9)
    np.testing.assert_allclose(X_FC[:3, 0], [0, 0, 1], atol=1e-9)
    assert clock.selection.active == "face.mc"
    assert creator.chosen()[0] == "face.mc"                # offered for the next mate
    clock.undo()
    assert clock.document.element("face.mc") is None


def test_freeing_the_declared_face_lets_snap_move_it(qtbot, bench, clock):
    panel = bench.panel
    row = panel.body_keys.index("face")
    check = panel.bodies.cellWidget(row, 1).findChild(QtWidgets.QCheckBox)
    assert check.isChecked()
    QTest.mouseClick(check, LEFT)
    assert not clock.document.element("face").pose.written
    # no body is declared: SNAP forces the face (its reference body: the smallest name)
    # to the system's origin, and hangs the hand on it as before
    np.testing.assert_allclose(bench.pose("face"), np.eye(4), atol=1e-12)
    np.testing.assert_allclose(bench.pose("hour_hand"),
                               hand_pose(math.pi / 2, X_W_face=np.eye(4)), atol=1e-12)
    qtbot.waitUntil(lambda: panel.bodies.item(row, 2).text() == "forced")
    clock.undo()
    np.testing.assert_allclose(bench.pose("face"), X_W_FACE, atol=1e-12)


def test_clicking_a_trace_line_selects_what_it_is_about(qtbot, bench, clock):
    panel = bench.panel
    bar = panel.tabs.tabBar()
    QTest.mouseClick(bar, LEFT, NONE, bar.tabRect(1).center())
    lines = panel.trace.toPlainText().splitlines()
    n = next(i for i, line in enumerate(lines) if line.startswith("Constraining"))
    assert "'Clock.hour_hand'" in lines[n]
    block = panel.trace.document().findBlockByNumber(n)
    panel.trace.setTextCursor(QtGui.QTextCursor(block))
    panel.trace.ensureCursorVisible()
    rect = panel.trace.cursorRect(QtGui.QTextCursor(block))
    QTest.mouseClick(panel.trace.viewport(), LEFT, NONE, rect.center() + QtCore.QPoint(30, 0))
    assert clock.selection.active == "hour_hand"
    m = next(i for i, line in enumerate(lines) if line.startswith("Mate 'Clock.hand_hinge'"))
    assert panel.select_trace_line(m) == "hand_hinge"


BLOCKS = """\
Block is Physics3D.Bodies.RigidBody:
    inertia.mass: 1
    shape is Physics3D.Geometries.Box:
        size: {0.2, 0.2, 0.2}

Stack is Physics3D.System:
    base is Block:
        kinematics.local_transform.position: {0, 0, 0.1}
    top is Block:
        kinematics.local_transform.position: {0.6, 0, 0.1}
"""


def test_two_blocks_without_connectors_are_stacked_from_scratch(qtbot, tmp_path,
                                                                no_modal_dialogs):
    """Connectors clicked on two top faces (the second pointing into its block), a lock
    between them: declared where it is, the top block violates it; freed, SNAP turns it
    upside down onto the base, its clicked face on the base's."""
    path = tmp_path / "blocks.openplx"
    path.write_text(BLOCKS, encoding="utf-8")
    session = DocumentSession.open(path)
    bench = Bench(qtbot, session)
    panel, adder, creator = bench.panel, bench.panel.adder, bench.panel.creator
    try:
        assert not session.live.snap.active
        assert panel.make_box.isVisible() and "no mates yet" in panel.placeholder.text()
        bench.view.canvas.set_camera((0.3, -1.2, 1.5), (0.3, 0.0, 0.1), (0.0, 0.0, 1.0))
        bench.view.fit()
        # the base's top face (z = 0.2), its main axis out of it (+z)
        click(adder.button)
        bench.click_view((0.05, 0.02, 0.2))
        # the top block's top face, its main axis into the block (-z)
        adder.direction.setFocus()
        QTest.keyClick(adder.direction, QtCore.Qt.Key.Key_Down)
        assert adder.direction.currentIndex() == 1
        click(adder.button)
        bench.click_view((0.62, -0.03, 0.2))
        assert creator.chosen() == ("base.mc", "top.mc")       # offered as they came
        on_base = np.array(session.document.element("base.mc").pose.value.matrix())
        on_top = np.array(session.document.element("top.mc").pose.value.matrix())
        for X in (on_base, on_top):
            assert X[2, 3] == pytest.approx(0.1, abs=1e-6)      # the box's +z face
            assert max(abs(X[0, 3]), abs(X[1, 3])) <= 0.1 + 1e-9
            np.testing.assert_allclose(X[:3, 0], [1, 0, 0], atol=1e-9)   # normal: +x
        np.testing.assert_allclose(on_base[:3, 2], [0, 0, 1], atol=1e-9)
        np.testing.assert_allclose(on_top[:3, 2], [0, 0, -1], atol=1e-9)
        np.testing.assert_allclose(on_base[:3, 3], [0.05, 0.02, 0.1], atol=0.01)
        np.testing.assert_allclose(on_top[:3, 3], [0.02, -0.03, 0.1], atol=0.01)

        creator.type.setFocus()
        QTest.keyClicks(creator.type, "lock")
        click(creator.create_button)
        assert session.document.element("lock").connectors == ("base.mc", "top.mc")
        # both blocks declared: the lock cannot be met, and the panel says so
        qtbot.waitUntil(lambda: panel.mate_keys == ["lock"])
        assert panel.mates.item(0, 5).text() == "violated"
        assert any("'Stack.lock'" in panel.findings.item(i).text()
                   for i in range(panel.findings.count()))
        np.testing.assert_allclose(bench.origin("top"), [0.6, 0, 0.1], atol=1e-12)

        row = panel.body_keys.index("top")
        check = panel.bodies.cellWidget(row, 1).findChild(QtWidgets.QCheckBox)
        QTest.mouseClick(check, LEFT)
        # Lock: X_W,top = X_W,base X_base,c0 (X_top,c1)^-1
        X_W_base = np.eye(4)
        X_W_base[2, 3] = 0.1
        expected = X_W_base @ on_base @ np.linalg.inv(on_top)
        np.testing.assert_allclose(bench.pose("top"), expected, atol=1e-12)
        # upside down (x kept, y and z reversed), resting on the base: centre at z = 0.3
        np.testing.assert_allclose(expected[:3, :3], np.diag([1, -1, -1]), atol=1e-9)
        assert expected[2, 3] == pytest.approx(0.3, abs=1e-9)
        qtbot.waitUntil(lambda: panel.mates.item(0, 5).text() == "satisfied")
        assert panel.bodies.item(row, 2).text() == "snapped"
        # saved as OpenPLX, the file assembles the same way
        assert session.document.save() == []
        from snapframe.core.loading import load
        again = load(path)
        np.testing.assert_allclose(again.live.poses.pose("top"), expected, atol=1e-9)
        session.undo()       # the top block declared again: where it was
        np.testing.assert_allclose(bench.origin("top"), [0.6, 0, 0.1], atol=1e-12)
    finally:
        bench.view.close_view()


def test_the_second_of_a_mated_pair_is_picked_where_both_are_drawn(qtbot, bench, clock):
    # hinged, face.center and hour_hand.pivot are one point on screen
    creator = bench.panel.creator
    bench.look_at_the_front()
    centre, pivot = bench.origin("face.center"), bench.origin("hour_hand.pivot")
    np.testing.assert_allclose(centre, pivot, atol=1e-9)
    assert creator.choose(0, "face.center")
    click(creator.pick_buttons[1])
    bench.click_view(pivot)
    assert creator.chosen()[1] == "hour_hand.pivot"     # the other one, not face.center again
