"""The editor killed with SIGKILL after an edit, started again: the edit is restored.

Both runs are real ``snapframe`` processes under the test's X display, with their own
HOME, XDG_DATA_HOME and XDG_CONFIG_HOME.  The first is driven by a ``--script`` (the
scripting API: one edit) and killed once its autosave copy is on disk; the second clicks
*Restore* in the recovery dialog with QTest from its ``--script``, reports what it shows
and saves with the window's Save.  What was restored is checked against a fresh load of
the saved file.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.loading import LoadContext, load

#: Waiting for a process (a hang would otherwise stall the suite): generous, not a
#: measure of speed.
PATIENCE = 120.0

EDIT = """
from pathlib import Path
ed.window.desktop.prefs.set("autosave_seconds", 1)
ed.set_pose("gripper", (0.0, 0.0, 0.06))      # in arm::gripper_mount, as the file writes it
Path({marker!r}).write_text("edited")
"""

RESTORE = """
import json
from pathlib import Path
from PySide6 import QtCore
from PySide6.QtTest import QTest
dialog = ed.window.desktop.recovery_dialog
out = {{"offered": [e.original_path for e in dialog.entries] if dialog is not None else None}}
if dialog is not None:
    QTest.mouseClick(dialog.restore_button, QtCore.Qt.MouseButton.LeftButton)
doc = ed.document
out["path"] = doc.path if doc is not None else None
if doc is not None:
    out["modified"] = ed.session.modified
    out["offset"] = list(ed.pose("gripper::mount_point", relative_to="arm::gripper_mount").p)
    out["saved"] = ed.window.save()
    out["modified_after_save"] = ed.session.modified
Path({result!r}).write_text(json.dumps(out))
ed.window.close()
"""


def offset(document) -> np.ndarray:
    poses = document.live.poses
    return np.linalg.solve(poses.pose("arm::gripper_mount"),
                           poses.pose("gripper::mount_point"))[:3, 3]


def wait_for(condition, process: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if process.poll() is not None:
            pytest.fail(f"the editor exited (code {process.returncode}) before {what}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"no {what} after {PATIENCE} s")
        time.sleep(0.1)


def test_an_edit_autosaved_before_a_sigkill_is_restored_at_the_next_start(tmp_path,
                                                                          example_copy):
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        pytest.skip("needs a display (run under xvfb-run)")
    path = example_copy("arm_gripper") / "arm_and_gripper.sdf"
    original = path.read_bytes()
    data, config, home = tmp_path / "data", tmp_path / "config", tmp_path / "home"
    for folder in (data, config, home):
        folder.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_DATA_HOME=str(data),
               XDG_CONFIG_HOME=str(config), XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("SNAPFRAME_DEBUG", None)
    marker, result = tmp_path / "edited", tmp_path / "result.json"
    edit = tmp_path / "edit.py"
    edit.write_text(EDIT.format(marker=str(marker)))
    command = [sys.executable, "-m", "snapframe.editor.cli"]

    first = subprocess.Popen([*command, str(path), "--script", str(edit)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for(marker.exists, first, "edit")
        wait_for(lambda: any(data.rglob("doc-*.json")), first, "autosave copy")
    finally:
        first.send_signal(signal.SIGKILL)
        _, errors = first.communicate(timeout=PATIENCE)
    assert first.returncode == -signal.SIGKILL, errors.decode(errors="replace")
    # per user, in the platform's data folder; the file itself untouched
    manifests = list(data.rglob("doc-*.json"))
    assert len(manifests) == 1 and manifests[0].parent.parent.name == "recovery"
    assert path.read_bytes() == original

    restore = tmp_path / "restore.py"
    restore.write_text(RESTORE.format(result=str(result)))
    second = subprocess.run([*command, "--script", str(restore)], env=env,
                            capture_output=True, timeout=PATIENCE)
    assert second.returncode == 0, second.stderr.decode(errors="replace")
    assert result.exists(), second.stderr.decode(errors="replace")
    shown = json.loads(result.read_text())
    assert shown["offered"] == [str(path.resolve())]
    assert Path(shown["path"]).resolve() == path.resolve()
    assert shown["modified"] is True
    assert np.allclose(shown["offset"], (0, 0, 0.06), atol=1e-9)
    assert shown["saved"] is True and shown["modified_after_save"] is False
    # saved to the original file: a fresh load has the edit
    assert np.allclose(offset(load(path, LoadContext(use_environment=False))), (0, 0, 0.06),
                       atol=1e-9)
    # saved and closed cleanly: no copy is left to offer
    assert list(data.rglob("doc-*")) == []
