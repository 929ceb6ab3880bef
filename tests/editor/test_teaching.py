"""Teaching mode: the chain of transforms step by step, and the frame graph panel.

Expected values come from the example files' stated derivations (arm_and_gripper.sdf:
gripper = (0, 0, 1.02, 0, 0, pi/4), mount_point = (0, 0, 1.0, 0, 0, pi/2)) and from the
core's frame graph and pose table.
"""

from __future__ import annotations

import math
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.core.loading import load  # noqa: E402
from snapframe.core.model.edits import SetRelativeTo  # noqa: E402
from snapframe.core.pose import Pose  # noqa: E402
from snapframe.editor.session import DocumentSession  # noqa: E402
from snapframe.editor import teaching  # noqa: E402
from snapframe.editor.teaching import FrameGraphPanel, explain_steps, format_pose  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"
ARM = EXAMPLES / "arm_gripper" / "arm_and_gripper.sdf"
MOUNT_CHAIN = ["arm", "arm::upper_arm", "arm::forearm", "arm::gripper_mount", "gripper",
               "gripper::mount_point"]


def near(a: Pose, b, tol: float = 1e-9) -> bool:
    b = b.matrix() if isinstance(b, Pose) else b
    return np.allclose(a.matrix(), b, atol=tol)




# -- explain_steps --------------------------------------------------------------------

def test_the_steps_of_mount_point_from_the_root_out():
    doc = load(ARM)
    steps = explain_steps(doc, "gripper::mount_point")
    assert [s.frame for s in steps] == MOUNT_CHAIN
    # Each step is written in the frame the previous step placed (root first).
    assert [s.relative_to for s in steps] == ["", *MOUNT_CHAIN[:-1]]
    assert [s.reason for s in steps] == [
        "default: the model frame", "default: the model frame", "written relative_to",
        "written relative_to", "written relative_to", "default: the model frame"]
    gripper = steps[4]
    assert gripper.placement_frame == "mount_point"
    assert near(gripper.placement, Pose.from_xyz_rpy(0, 0, -0.02, 0, 0, math.pi / 4))
    assert near(gripper.composed, Pose.from_xyz_rpy(0, 0, 1.02, 0, 0, math.pi / 4))
    assert near(steps[-1].composed, Pose.from_xyz_rpy(0, 0, 1.0, 0, 0, math.pi / 2))
    assert near(steps[2].written, Pose.from_xyz_rpy(0, 0, 0.5))
    assert steps[2].source.line == 51 and steps[2].source.file.endswith("arm.sdf")
    for s in steps:   # every composed pose is the core's
        assert near(s.composed, doc.frames.pose(s.frame))
        # composed = composed(relative_to) @ local
        base = doc.frames.pose(s.relative_to) if s.relative_to else Pose()
        assert near(s.composed, base @ s.local)


def test_scoped_names_with_the_top_model_and_parts():
    doc = load(ARM)
    assert [s.frame for s in explain_steps(doc, "arm_and_gripper::gripper::mount_point")] == \
        MOUNT_CHAIN
    steps = explain_steps(doc, "arm::forearm#visual:forearm_visual")
    assert [s.frame for s in steps] == ["arm", "arm::upper_arm", "arm::forearm",
                                        "arm::forearm#visual:forearm_visual"]
    assert steps[-1].reason == "default: its link"
    assert near(steps[-1].composed, Pose.from_xyz_rpy(0, 0, 0.8))
    assert explain_steps(doc, "") == []


@pytest.mark.parametrize("path", [ARM, EXAMPLES / "flanges" / "super_armio_bros.sdf",
                                  EXAMPLES / "openplx" / "clock.openplx"],
                         ids=lambda p: p.name)
def test_the_last_step_is_the_pose_table_for_every_key(path):
    doc = load(path)
    poses = doc.live.poses
    keys = [k for k in poses.keys if k]
    assert keys
    for key in keys:
        steps = explain_steps(doc, key)
        assert steps and not steps[-1].problem, key
        assert near(steps[-1].composed, poses.pose(key)), key


def test_a_chain_that_cannot_resolve_says_why(tmp_path):
    path = tmp_path / "cycle.sdf"
    path.write_text(textwrap.dedent("""\
        <?xml version="1.0"?>
        <sdf version="1.9">
          <model name="m">
            <link name="l"/>
            <frame name="a"><pose relative_to="b"/></frame>
            <frame name="b"><pose relative_to="a"/></frame>
            <frame name="c"><pose relative_to="a"/></frame>
          </model>
        </sdf>
        """))
    steps = explain_steps(load(path), "c")
    assert steps[-1].problem.startswith("relative_to cycle")


def test_format_pose():
    X = Pose.from_xyz_rpy(0, 0, 1.02, 0, 0, math.pi / 4)
    assert format_pose(X) == "0.0000 0.0000 1.0200 | 0.0000° 0.0000° 45.0000°"
    assert format_pose(X, compact=True) == "0 0 1.02 | 0° 0° 45°"
    assert format_pose(X, "rad", 3) == "0.000 0.000 1.020 | 0.000 0.000 0.785 rad"
    assert format_pose(X, "quat", 3, True) == "0 0 1.02 | q 0.924 0 0 0.383"


# -- the panel ------------------------------------------------------------------------

@pytest.fixture
def panel(qtbot, session):
    widget = FrameGraphPanel(session)
    qtbot.addWidget(widget)
    widget.resize(1100, 420)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_the_panel_draws_both_graphs_of_the_example(panel, session):
    assert set(panel.nodes) == {"", "arm", "arm::body", "arm::upper_arm", "arm::forearm",
                                "arm::shoulder", "arm::elbow", "arm::gripper_mount", "gripper",
                                "gripper::body", "gripper::left_finger",
                                "gripper::right_finger", "gripper::left_slide",
                                "gripper::right_slide", "gripper::mount_point", "weld"}
    relative = {(a, b) for g, a, b in panel.edges if g == "relative_to"}
    attached = {(a, b) for g, a, b in panel.edges if g == "attached_to"}
    assert len(relative) == 15                 # every frame but the root has one
    assert ("gripper", "arm::gripper_mount") in relative
    assert ("arm::forearm", "arm::upper_arm") in relative
    assert ("arm::gripper_mount", "arm::forearm") in attached
    assert ("weld", "gripper::mount_point") in attached
    assert ("gripper::mount_point", "gripper") in attached
    # Layered along relative_to: each frame sits right of the frame it is written in.
    for a, b in relative:
        assert panel.nodes[a].pos().x() > panel.nodes[b].pos().x()
    # Solid and dashed arrows.
    assert panel.edges[("relative_to", "gripper", "arm::gripper_mount")].pen().style() == \
        QtCore.Qt.PenStyle.DashLine
    assert panel.edges[("attached_to", "weld", "gripper::mount_point")].pen().style() == \
        QtCore.Qt.PenStyle.SolidLine


def test_the_chain_of_the_selection_is_highlighted(panel, session):
    session.selection.select("gripper::mount_point")
    assert panel.chain == ["", *MOUNT_CHAIN]
    assert panel.nodes["gripper::mount_point"].state == "active"
    assert {k for k, n in panel.nodes.items() if n.state == "chain"} == {"", *MOUNT_CHAIN[:-1]}
    assert panel.nodes["arm::body"].state == "dim"
    lit = {(a, b) for (g, a, b), e in panel.edges.items() if e.highlighted}
    assert lit == {(a, b) for a, b in zip(MOUNT_CHAIN, ["", *MOUNT_CHAIN[:-1]])}
    session.selection.clear()
    assert panel.chain == [] and all(n.state == "normal" for n in panel.nodes.values())


def test_clicking_a_box_selects_the_element(qtbot, panel, session):
    panel.fit()
    item = panel.nodes["arm::elbow"]
    point = panel.view.mapFromScene(item.sceneBoundingRect().center())
    QTest.mouseClick(panel.view.viewport(), QtCore.Qt.MouseButton.LeftButton,
                     QtCore.Qt.KeyboardModifier.NoModifier, point)
    assert session.selection.active == "arm::elbow"
    assert panel.nodes["arm::elbow"].state == "active"


def test_the_graph_follows_a_relative_to_edit_and_undo(panel, session):
    gripper = session.document.element("gripper")
    session.push(SetRelativeTo(session.document, gripper, "arm::forearm"))
    assert ("relative_to", "gripper", "arm::forearm") in panel.edges
    assert ("relative_to", "gripper", "arm::gripper_mount") not in panel.edges
    session.undo()
    assert ("relative_to", "gripper", "arm::gripper_mount") in panel.edges


def test_toggles_hide_a_graph(qtbot, panel):
    qtbot.mouseClick(panel.show_attached, QtCore.Qt.MouseButton.LeftButton)
    assert not any(e.isVisible() for (g, _a, _b), e in panel.edges.items() if g == "attached_to")
    assert all(e.isVisible() for (g, _a, _b), e in panel.edges.items() if g == "relative_to")


def test_a_large_world_shows_the_selections_model(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(teaching, "MAX_NODES", 30)
    (tmp_path / "bot.sdf").write_text(textwrap.dedent("""\
        <?xml version="1.0"?>
        <sdf version="1.9">
          <model name="bot">
            <link name="a"/>
            <link name="b"><pose relative_to="a">0 0 1 0 0 0</pose></link>
            <joint name="j" type="revolute"><parent>a</parent><child>b</child>
              <axis><xyz>0 0 1</xyz></axis></joint>
          </model>
        </sdf>
        """))
    includes = "\n".join(f"<include><uri>file://bot.sdf</uri><name>bot_{i}</name>"
                         f"<pose>{i} 0 0 0 0 0</pose></include>" for i in range(20))
    (tmp_path / "world.sdf").write_text(f'<?xml version="1.0"?><sdf version="1.9">'
                                        f'<world name="w">{includes}</world></sdf>')
    session = DocumentSession.open(tmp_path / "world.sdf")
    panel = FrameGraphPanel(session)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    assert len(panel.nodes) < 30 and "frames: showing" in panel.note.text()
    session.selection.select("bot_7::b")
    assert {"", "bot_7", "bot_7::a", "bot_7::b", "bot_7::j"} <= set(panel.nodes)
    assert "bot_3::a" not in panel.nodes
    assert panel.chain == ["", "bot_7", "bot_7::a", "bot_7::b"]


def test_no_session_draws_nothing(qtbot):
    panel = FrameGraphPanel(None)
    qtbot.addWidget(panel)
    panel.show()
    assert panel.nodes == {} and panel.note.text() == "No document"
