#!/usr/bin/env python3
"""Regenerate the README's screenshots of the editor (run under Xvfb or on a desktop).

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python packaging/screenshots/make_screenshots.py

Writes next to this script ``main_window.png`` (the flanges assembly: scene tree, viewport
with frames and joint axes, the inspector on a placed flange), ``teaching.png`` (teaching
mode: every frame's triad, the frame graph and the chain of the selected frame), and the
drop-and-place sequence on the bundled arm: ``place_1_drop.png`` (the gripper dropped from
the library: its ghost on the frame under the drop), ``place_2_frame.png`` (placement frame
``mount_point`` on ``gripper_mount``, welded) and ``place_3_placed.png`` (placed: one undo
step), and ``floorplan.png`` (the bundled floor plan with its door half open and a door
added to the other doorway, the Joints panel showing both).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parents[1] / "resources" / "examples"


def main() -> int:
    from PySide6 import QtCore
    from snapframe.editor import Editor
    with tempfile.TemporaryDirectory() as tmp:
        settings = QtCore.QSettings(str(Path(tmp) / "s.ini"), QtCore.QSettings.Format.IniFormat)
        shutil.copytree(EXAMPLES / "flanges", Path(tmp) / "flanges")
        shutil.copytree(EXAMPLES / "arm_gripper", Path(tmp) / "arm_gripper")
        shutil.copytree(EXAMPLES / "floorplan", Path(tmp) / "floorplan")
        ed = Editor(show=True, settings=settings)
        ed.window.resize(1500, 940)
        ed.open(Path(tmp) / "flanges" / "super_armio_bros.sdf")
        ed.app.processEvents()
        ed.window.current.viewport.fit()
        ed.select("robot_1::flange")
        tree = ed.window._trees.currentWidget()
        tree.view.expandToDepth(1)
        ed.app.processEvents()
        ed.screenshot(HERE / "main_window.png", window=True)
        ed.open(Path(tmp) / "arm_gripper" / "arm_and_gripper.sdf")
        ed.window.act_teaching.setChecked(True)
        ed.window.set_teaching(True)
        ed.select("gripper::mount_point")
        ed.app.processEvents()
        ed.window.current.viewport.fit()
        ed.app.processEvents()
        ed.screenshot(HERE / "teaching.png", window=True)
        ed.window.set_teaching(False)
        ed.window.act_teaching.setChecked(False)
        place_sequence(ed, Path(tmp) / "arm_gripper")
        floorplan_shot(ed, Path(tmp) / "floorplan")
        ed.close()
    for name in ("main_window", "teaching", "place_1_drop", "place_2_frame", "place_3_placed",
                 "floorplan"):
        print(HERE / f"{name}.png")
    return 0


def place_sequence(ed, folder: Path) -> None:
    """Drop gripper.sdf from the library onto the arm's gripper_mount, choose the
    gripper's mount_point and a weld, place it."""
    from PySide6 import QtCore, QtGui, QtWidgets
    from PySide6.QtTest import QTest
    window = ed.window
    ed.open(folder / "arm.sdf")
    view = window.current.viewport

    def settle(rounds: int = 25) -> None:
        for _ in range(rounds):
            ed.app.processEvents()
            time.sleep(0.02)
    library = window.library
    library.add_folder(folder)
    for _ in range(400):           # the folder is scanned in the background
        settle(1)
        if not library.scanning and library.model.entries():
            break
    row = next(i for i, e in enumerate(library.model.entries()) if e.file.name == "gripper.sdf")
    mime = library.model.mimeData([library.model.index(row, 0)])
    target = view.pixel_of(ed.document.live.poses.pose("gripper_mount")[:3, 3])
    flags = (QtCore.Qt.DropAction.CopyAction, mime, QtCore.Qt.MouseButton.LeftButton,
             QtCore.Qt.KeyboardModifier.NoModifier)
    QtWidgets.QApplication.sendEvent(view.widget, QtGui.QDragEnterEvent(target, *flags))
    QtWidgets.QApplication.sendEvent(view.widget, QtGui.QDropEvent(QtCore.QPointF(target), *flags))
    for _ in range(100):
        settle(1)
        if window.placement is not None:
            break
    panel = window.placement
    window.scene_dock.raise_()
    view.canvas.fit((-0.25, 0.25, -0.25, 0.25, 0.7, 1.2))    # zoomed on the arm's tip
    settle()
    ed.screenshot(HERE / "place_1_drop.png", window=True)
    panel.set_placement_frame("mount_point")
    panel.set_connect("weld")
    settle()
    ed.screenshot(HERE / "place_2_frame.png", window=True)
    QTest.mouseClick(panel.place_button, QtCore.Qt.MouseButton.LeftButton)
    settle()
    ed.screenshot(HERE / "place_3_placed.png", window=True)


def floorplan_shot(ed, folder: Path) -> None:
    """The bundled floor plan from above the hall's corner: its door half open (the start
    state), a default door added to the kitchen-hall doorway and turned, the Joints panel."""
    import numpy as np
    from snapframe.editor.floorplan import add_door
    window = ed.window
    ed.open(folder / "flat.fpm")   # its door is read from flat.doors/ beside it
    for _ in range(20):        # the view's first frame (fitted at its size) comes first
        ed.app.processEvents()
        time.sleep(0.02)
    add_door(window.session, "kitchen_hall")
    window.session.selection.clear()
    window.joints_dock.show()
    window.joints_dock.raise_()
    ed.app.processEvents()
    window.joints.set_position("kitchen_hall_door::hinge", 1.1)
    view = window.current.viewport
    bounds = np.array(view.mirror.bounds()).reshape(3, 2)
    centre = bounds.mean(axis=1)
    direction = np.array([-0.3, -0.8, 1.3]) / np.linalg.norm([-0.3, -0.8, 1.3])
    distance = float(np.linalg.norm(bounds[:, 1] - bounds[:, 0]))
    view.canvas.set_camera(tuple(centre + direction * distance), tuple(centre), (0, 0, 1))
    view.fit()                 # (from that side, the whole plan in the picture)
    for _ in range(20):
        ed.app.processEvents()
        time.sleep(0.02)
    ed.screenshot(HERE / "floorplan.png", window=True)


if __name__ == "__main__":
    sys.exit(main())
