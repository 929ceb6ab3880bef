#!/usr/bin/env python3
"""Regenerate the README's screenshots of the editor (run under Xvfb or on a desktop).

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python packaging/screenshots/make_screenshots.py

Writes ``main_window.png`` (the flanges assembly: scene tree, viewport with frames and
joint axes, the inspector on a placed flange) and ``teaching.png`` (teaching mode: every
frame's triad, the frame graph and the chain of the selected frame) next to this script.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
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
        ed.close()
    print(HERE / "main_window.png")
    print(HERE / "teaching.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
