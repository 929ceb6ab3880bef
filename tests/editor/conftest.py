"""Shared fixtures of the editor tests: a main window, and a session on a private copy of a
bundled example."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


@pytest.fixture
def example_copy(tmp_path: Path):
    """``example_copy("arm_gripper")`` -> a fresh copy of that example folder under
    tmp_path (each call its own copy)."""
    def copy(name: str = "arm_gripper") -> Path:
        n = len(list(tmp_path.glob(f"copy*_{name}")))
        target = tmp_path / f"copy{n}_{name}"
        shutil.copytree(EXAMPLES / name, target)
        return target
    return copy


@pytest.fixture
def session(qtbot, example_copy):
    """A DocumentSession on a copy of arm_gripper/arm_and_gripper.sdf (edits stay in tmp)."""
    from snapframe.editor.session import DocumentSession
    folder = example_copy("arm_gripper")
    return DocumentSession.open(folder / "arm_and_gripper.sdf")


@pytest.fixture
def viewport(qtbot, session):
    """The 3D view of ``session`` at 640 x 480, on screen, its first frame drawn."""
    from snapframe.editor.viewport.widget import Viewport
    view = Viewport(session)
    qtbot.addWidget(view)
    view.resize(640, 480)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: view.render_count > 0)
    yield view
    view.close_view()


@pytest.fixture
def no_modal_dialogs(monkeypatch):
    """A modal dialog would wait for a user that is not there: record it instead."""
    from PySide6 import QtWidgets
    shown: list[tuple] = []

    def record(kind, answer):
        def show(*args, **kwargs):
            shown.append((kind, args[2] if len(args) > 2 else ""))
            return answer
        return show
    B = QtWidgets.QMessageBox.StandardButton
    monkeypatch.setattr(QtWidgets.QMessageBox, "critical", record("critical", B.Ok))
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", record("warning", B.Ok))
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", record("question", B.Discard))
    return shown


@pytest.fixture
def window(qtbot, tmp_path):
    """A main window (its own settings file), shown at 1400x900; at teardown its documents
    are marked clean so closing asks nothing."""
    from PySide6 import QtCore
    from snapframe.editor.main_window import MainWindow
    settings = QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    yield win
    for s in win.sessions():
        s.document.commands.set_clean()   # no "unsaved changes" prompt at teardown
    win.close()
