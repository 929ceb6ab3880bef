"""Opening files in the background (File ▸ Open, Open Recent, the library, drops): a
completed background open shows the same document a synchronous open gives, in every
format, and follows the window's one-document-per-file rule."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtWidgets

from snapframe.editor.desktop.jobs import DONE

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "data"

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")


def generate_world(n: int, folder: Path) -> Path:
    spec = importlib.util.spec_from_file_location(
        "gen_include_world", REPO / "benchmarks" / "gen_include_world.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate(n, folder)


def snapshot(window) -> dict:
    """What the current tab shows of its document: every key with its world pose, the
    diagnostics, the format, the tab's title and the scene tree's top rows."""
    session = window.session
    doc = session.document
    table = doc.live.poses
    tree = window._trees.currentWidget()
    return {
        "poses": {k: table.pose(k).copy() for k in table.keys},
        "diagnostics": [str(d) for d in doc.diagnostics],
        "format": doc.format,
        "title": window.tabs.tabText(window.tabs.currentIndex()),
        "tree": tree.model.rowCount(),
        "drawn": sorted(window.current.viewport.mirror.visuals.index),
    }


def same(a: dict, b: dict) -> None:
    assert a["poses"].keys() == b["poses"].keys() and a["poses"]
    for key in a["poses"]:
        np.testing.assert_array_equal(a["poses"][key], b["poses"][key], err_msg=key)
    for field in ("diagnostics", "format", "title", "tree", "drawn"):
        assert a[field] == b[field], field


@pytest.mark.parametrize("name", ["world", "arm_gripper", "clock", "urdf", "mira", "field"])
def test_a_background_open_shows_what_a_synchronous_open_shows(qtbot, window, example_copy,
                                                                tmp_path, name):
    path = {
        "world": lambda: generate_world(30, tmp_path / "world"),
        "arm_gripper": lambda: example_copy("arm_gripper") / "arm_and_gripper.sdf",
        "clock": lambda: example_copy("openplx") / "clock.openplx",       # SNAP
        "urdf": lambda: DATA / "urdf" / "arm.urdf",
        "mira": lambda: DATA / "mirabuf" / "TestCube_v1.mira",
        "field": lambda: DATA / "mirabuf" / "FRC_Field_2018_v14.mira",    # 1 MB
    }[name]()
    job = window.open_in_background(path)
    assert job is not None and window.tabs.count() == 0     # nothing shown until it ends
    assert job.wait(120) and job.state == DONE
    assert window.tabs.count() == 1
    assert window.session.document.path == str(Path(path).resolve())
    assert window.settings.value("recent", [], list)[0] == str(Path(path).resolve())
    background = snapshot(window)
    assert window.close_tab(0) and window.tabs.count() == 0
    window.open(path)                                    # the synchronous path (scripts)
    same(background, snapshot(window))


def test_an_open_file_or_one_an_open_document_includes_is_shown_at_once(qtbot, window,
                                                                        example_copy):
    folder = example_copy("arm_gripper")
    job = window.open_in_background(folder / "arm_and_gripper.sdf")
    assert job.wait(60) and job.state == DONE
    assembly = window.session
    # the same file again: its tab, nothing read
    assert window.open_in_background(folder / "arm_and_gripper.sdf") is None
    assert window.session is assembly and window.tabs.count() == 1
    # a file the assembly includes: the included file's document, as a synchronous open
    # gives it (one document per file: its edits show in the assembly)
    assert window.open_in_background(folder / "arm.sdf") is None
    assert window.tabs.count() == 2
    assert window.session.document is assembly.document.open_include("arm")


def test_opening_the_same_file_twice_while_it_loads_is_one_job(qtbot, window, tmp_path):
    world = generate_world(50, tmp_path)
    first = window.open_in_background(world)
    assert window.open_in_background(world) is first
    assert first.wait(60)
    assert window.tabs.count() == 1


def test_file_open_recent_and_a_drop_on_the_view_open_in_the_background(
        qtbot, window, example_copy, monkeypatch):
    folder = example_copy("arm_gripper")
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName",
                        lambda *a, **k: (str(folder / "gripper.sdf"), ""))
    window.act_open.trigger()                         # File ▸ Open
    [job] = window.jobs.jobs
    assert window.tabs.count() == 0
    assert job.wait(60) and window.tabs.count() == 1
    assert window.close_tab(0)
    recent = window.recent_menu.actions()[0]          # File ▸ Open Recent ▸ gripper.sdf
    assert recent.toolTip() == str((folder / "gripper.sdf").resolve())
    recent.trigger()
    [job] = window.jobs.jobs
    assert job.wait(60) and window.tabs.count() == 1
    # Ctrl-drop on the view: opened, not placed
    window.drop_files([str(folder / "arm.sdf")], None, open_only=True)
    [job] = window.jobs.jobs
    assert job.wait(60) and window.tabs.count() == 2
    assert Path(window.session.document.path).name == "arm.sdf"


def test_an_open_whose_tab_cannot_be_made_says_so_in_the_status_bar(
        qtbot, window, example_copy, monkeypatch):
    """A failure in the handler of a job's result (not only the worker's) reaches the
    user, not just the log."""
    def broken(*_args, **_kwargs):
        raise RuntimeError("no room for another tab")
    monkeypatch.setattr(window, "_show_opened", broken)
    job = window.open_in_background(example_copy("arm_gripper") / "arm.sdf")
    assert job.wait(60)
    assert window.tabs.count() == 0
    message = window.statusBar().currentMessage()
    assert "Opening arm.sdf" in message and "no room for another tab" in message
