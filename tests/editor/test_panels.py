"""The diagnostics, history and library panels, driven as a user would (run under Xvfb)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from snapframe.core.diagnostics import Severity  # noqa: E402
from snapframe.core.loading import ENV_SEARCH_VARIABLES  # noqa: E402
from snapframe.core.model.edits import SetPose  # noqa: E402
from snapframe.core.pose import Pose  # noqa: E402
from snapframe.editor.panels import DiagnosticsPanel, HistoryPanel, LibraryPanel  # noqa: E402
from snapframe.editor.panels.diagnostics import DIAGNOSTIC_ROLE  # noqa: E402
from snapframe.editor.panels.library import ENTRY_ROLE, LIBRARY_MIME  # noqa: E402
from snapframe.editor.session import DocumentSession  # noqa: E402

LEFT = QtCore.Qt.MouseButton.LeftButton


def click_row(view: QtWidgets.QAbstractItemView, index: QtCore.QModelIndex, double=False) -> None:
    view.scrollTo(index)
    centre = view.visualRect(index).center()
    QTest.mouseClick(view.viewport(), LEFT, QtCore.Qt.KeyboardModifier.NoModifier, centre)
    if double:  # QTest's double-click is only the second press: a user clicks first
        QTest.mouseDClick(view.viewport(), LEFT, QtCore.Qt.KeyboardModifier.NoModifier, centre)


def show(qtbot, widget: QtWidgets.QWidget, w: int = 700, h: int = 300) -> None:
    qtbot.addWidget(widget)
    widget.resize(w, h)
    widget.show()
    qtbot.waitExposed(widget)


def pose_of(session: DocumentSession, key: str) -> np.ndarray:
    return session.live.poses.pose(key)


# -- diagnostics ------------------------------------------------------------------------

@pytest.fixture
def broken_session(qtbot, example_copy):
    """The arm + gripper example with the gripper placed relative to a frame that does not
    exist, and an include (named ghost) of a model that cannot be found."""
    folder = example_copy("arm_gripper")
    path = folder / "arm_and_gripper.sdf"
    text = path.read_text()
    text = text.replace('relative_to="arm::gripper_mount"', 'relative_to="arm::nowhere"')
    text = text.replace('<joint name="weld"',
                        '<include><uri>model://no_such_model</uri><name>ghost</name></include>\n'
                        '    <joint name="weld"')
    path.write_text(text)
    return DocumentSession.open(path)


def rows(panel: DiagnosticsPanel) -> list:
    return [panel.proxy.index(r, 0).data(DIAGNOSTIC_ROLE) for r in range(panel.proxy.rowCount())]


def row_of(panel: DiagnosticsPanel, code: str) -> QtCore.QModelIndex:
    for r in range(panel.proxy.rowCount()):
        if str(panel.proxy.index(r, 0).data(DIAGNOSTIC_ROLE).code) == code:
            return panel.proxy.index(r, 2)
    raise AssertionError(f"no row with {code}: {[str(d.code) for d in rows(panel)]}")


def test_bad_relative_to_is_listed_and_a_click_selects_its_element(qtbot, broken_session):
    s = broken_session
    panel = DiagnosticsPanel(s)
    show(qtbot, panel)
    assert {str(d.code) for d in rows(panel)} == {"POSE_RELATIVE_TO_INVALID", "URI_LOOKUP"}
    assert panel.summary == "2 errors"
    assert panel.toggles[Severity.ERROR].text() == "2 Errors"
    index = row_of(panel, "POSE_RELATIVE_TO_INVALID")
    assert "arm::nowhere" in index.data()
    assert panel.proxy.index(index.row(), 3).data() == "arm_and_gripper.sdf:21"

    with qtbot.waitSignal(panel.activated) as activated:
        click_row(panel.view, index)
    assert activated.args[0].key == "gripper"
    assert s.selection.keys == ["gripper"] and s.selection.active == "gripper"

    with qtbot.waitSignal(panel.activated):
        click_row(panel.view, row_of(panel, "URI_LOOKUP"))
    assert s.selection.keys == ["ghost"]
    QTest.keyClick(panel.view, QtCore.Qt.Key.Key_Up if index.row() == 0 else
                   QtCore.Qt.Key.Key_Down)  # the keyboard moves to the row...
    assert s.selection.keys == ["ghost"]
    with qtbot.waitSignal(panel.activated):  # ...and Enter selects its element
        QTest.keyClick(panel.view, QtCore.Qt.Key.Key_Return)
    assert s.selection.keys == ["gripper"]

    # The edit that fixes it (a command) removes the row and updates the summary.
    gripper = s.document.element("gripper")
    with qtbot.waitSignal(panel.summaryChanged) as summary:
        assert s.push(SetPose(s.document, gripper, gripper.pose.value, "arm::gripper_mount"))
    assert summary.args == ["1 error"]
    assert [str(d.code) for d in rows(panel)] == ["URI_LOOKUP"]
    np.testing.assert_allclose(pose_of(s, "gripper")[:3, 3], [0, 0, 1.02], atol=1e-9)
    s.undo()  # and undoing the fix brings the row back
    assert {str(d.code) for d in rows(panel)} == {"POSE_RELATIVE_TO_INVALID", "URI_LOOKUP"}


def test_a_finding_about_no_element_is_listed_and_selects_nothing(qtbot, tmp_path):
    path = tmp_path / "broken.sdf"
    path.write_text('<sdf version="1.9"><model name="m"><link name="a"></model></sdf>')
    s = DocumentSession.open(path)
    panel = DiagnosticsPanel(s)
    show(qtbot, panel)
    [d] = rows(panel)
    assert d.key is None and d.is_error and panel.summary == "1 error"
    with qtbot.waitSignal(panel.activated) as activated:
        click_row(panel.view, panel.proxy.index(0, 2))
    assert activated.args == [d]
    assert s.selection.keys == [] and s.selection.active is None


def test_filters_and_copy(qtbot, broken_session):
    panel = DiagnosticsPanel(broken_session)
    show(qtbot, panel)
    QTest.mouseClick(panel.toggles[Severity.ERROR], LEFT)
    assert not panel.toggles[Severity.ERROR].isChecked() and panel.proxy.rowCount() == 0
    assert panel.summary == "2 errors"  # filters do not change what the document has
    QTest.mouseClick(panel.toggles[Severity.ERROR], LEFT)
    assert panel.proxy.rowCount() == 2

    QTest.keyClicks(panel.filter, "nowhere")
    assert [str(d.code) for d in rows(panel)] == ["POSE_RELATIVE_TO_INVALID"]

    click_row(panel.view, panel.proxy.index(0, 1))
    QtWidgets.QApplication.clipboard().clear()
    QTest.keyClick(panel.view, QtCore.Qt.Key.Key_C, QtCore.Qt.KeyboardModifier.ControlModifier)
    text = QtWidgets.QApplication.clipboard().text()
    assert text == rows(panel)[0].format()
    assert "arm_and_gripper.sdf:21: error POSE_RELATIVE_TO_INVALID:" in text


def test_sessions_switch_and_a_valid_document_says_no_problems(qtbot, session, broken_session):
    panel = DiagnosticsPanel(None)
    show(qtbot, panel)
    assert panel.proxy.rowCount() == 0 and panel.stack.currentWidget() is panel.empty
    with qtbot.waitSignal(panel.summaryChanged):
        panel.set_session(broken_session)
    assert panel.proxy.rowCount() == 2 and panel.stack.currentWidget() is panel.view
    panel.set_session(session)
    assert panel.summary == "No problems" and panel.stack.currentWidget() is panel.empty
    # the old document's events no longer reach the panel
    gripper = broken_session.document.element("gripper")
    broken_session.push(SetPose(broken_session.document, gripper, gripper.pose.value,
                                "arm::gripper_mount"))
    assert panel.summary == "No problems"


# -- history ---------------------------------------------------------------------------

def history_labels(panel: HistoryPanel) -> list[str]:
    return [panel.model.index(r, 0).data() for r in range(panel.model.rowCount())]


def test_history_lists_commands_and_clicks_undo_and_redo(qtbot, session):
    s = session
    panel = HistoryPanel(s)
    show(qtbot, panel, 300, 300)
    assert history_labels(panel) == ["Open arm_and_gripper.sdf  · saved"]
    arm = s.document.element("arm")
    original = pose_of(s, "arm::body").copy()
    for x in (0.1, 0.2, 0.3):
        assert s.push(SetPose(s.document, arm, Pose.from_xyz_rpy(x, 0, 0)))
        s.document.commands.end_merge()  # three separate steps, not one merged drag
    labels = [c.label for c in s.document.commands._done]
    assert history_labels(panel)[1:] == labels and len(labels) == 3
    assert panel.current_row == 3
    assert panel.view.currentIndex().row() == 3

    click_row(panel.view, panel.model.index(1, 0))  # back to after the first move
    assert len(s.document.commands) == 1 and panel.current_row == 1
    np.testing.assert_allclose(pose_of(s, "arm::body")[:3, 3], [0.1, 0, 0], atol=1e-12)
    grey = QtCore.Qt.ItemDataRole.ForegroundRole
    assert panel.model.index(2, 0).data(grey) is not None   # undone: greyed
    assert panel.model.index(1, 0).data(grey) is None

    click_row(panel.view, panel.model.index(3, 0))  # redo both
    np.testing.assert_allclose(pose_of(s, "arm::body")[:3, 3], [0.3, 0, 0], atol=1e-12)
    assert len(s.document.commands) == 3

    click_row(panel.view, panel.model.index(0, 0))  # as opened
    np.testing.assert_allclose(pose_of(s, "arm::body"), original, atol=1e-12)
    assert s.document.commands.is_clean

    QTest.keyClick(panel.view, QtCore.Qt.Key.Key_Down)  # arrow keys walk the history
    np.testing.assert_allclose(pose_of(s, "arm::body")[:3, 3], [0.1, 0, 0], atol=1e-12)


def test_history_marks_the_saved_state(qtbot, session):
    s = session
    panel = HistoryPanel(s)
    show(qtbot, panel, 300, 300)
    arm = s.document.element("arm")
    s.push(SetPose(s.document, arm, Pose.from_xyz_rpy(0.1, 0, 0)))
    s.document.commands.end_merge()
    s.document.commands.set_clean()
    s.push(SetPose(s.document, arm, Pose.from_xyz_rpy(0.2, 0, 0)))
    assert panel.model.clean == 1
    assert [r for r, label in enumerate(history_labels(panel)) if "saved" in label] == [1]
    assert "saved" in panel.model.index(1, 0).data(QtCore.Qt.ItemDataRole.ToolTipRole)
    panel.set_session(None)
    assert history_labels(panel) == ["No document"]


# -- library -----------------------------------------------------------------------------

MODEL_SDF = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="crate">
    <link name="body">
      <visual name="v"><geometry><box><size>0.4 0.3 0.2</size></box></geometry></visual>
    </link>
  </model>
</sdf>
"""

MODEL_CONFIG = """<?xml version="1.0"?>
<model>
  <name>Wooden crate</name>
  <version>1.0</version>
  <sdf version="1.9">model.sdf</sdf>
  <description>A box to put things in.</description>
</model>
"""

LOOSE_URDF = """<?xml version="1.0"?>
<robot name="post">
  <link name="base">
    <visual><geometry><cylinder radius="0.05" length="0.5"/></geometry></visual>
  </link>
</robot>
"""


@pytest.fixture
def library(tmp_path, monkeypatch):
    """A library folder (a model directory, a loose URDF, things to ignore) and a search
    path holding one more SDFormat file; the environment's own search paths removed."""
    for var in ENV_SEARCH_VARIABLES:
        monkeypatch.delenv(var, raising=False)
    lib = tmp_path / "library"
    (lib / "crate").mkdir(parents=True)
    (lib / "crate" / "model.sdf").write_text(MODEL_SDF)
    (lib / "crate" / "model.config").write_text(MODEL_CONFIG)
    (lib / "post.urdf").write_text(LOOSE_URDF)
    (lib / "notes.txt").write_text("not a model")
    (lib / "broken.sdf").write_text("<sdf version='1.9'><model name='m'>")  # no thumbnail
    (lib / ".hidden").mkdir()
    (lib / ".hidden" / "secret.sdf").write_text(MODEL_SDF)
    env = tmp_path / "sdf_path"
    env.mkdir()
    (env / "shelf.sdf").write_text(MODEL_SDF.replace("crate", "shelf"))
    monkeypatch.setenv("SDF_PATH", str(env))
    return lib


def opaque_pixels(image: QtGui.QImage) -> int:
    image = image.convertToFormat(QtGui.QImage.Format.Format_RGBA8888)
    data = np.frombuffer(image.constBits(), np.uint8)
    data = data.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 4]
    return int((data.reshape(image.height(), image.width(), 4)[..., 3] > 0).sum())


def make_library_panel(qtbot, tmp_path, folders) -> LibraryPanel:
    panel = LibraryPanel(None, cache_dir=tmp_path / "cache")
    show(qtbot, panel, 500, 500)
    if panel.scanning:
        qtbot.waitSignal(panel.scanned, timeout=10000).wait()
    with qtbot.waitSignal(panel.scanned, timeout=10000):
        with qtbot.waitSignal(panel.foldersChanged) as changed:
            panel.set_folders(folders)
    assert changed.args == [[str(f) for f in folders]]
    return panel


def test_library_lists_models_thumbnails_drags_and_opens(qtbot, tmp_path, library):
    panel = make_library_panel(qtbot, tmp_path, [library])
    try:
        by_name = {e.name: e for e in panel.entries()}
        assert set(by_name) == {"Wooden crate", "post.urdf", "shelf.sdf", "broken.sdf"}
        crate = by_name["Wooden crate"]
        assert crate.kind == "model" and crate.description == "A box to put things in."
        assert crate.file == library / "crate" / "model.sdf"
        assert by_name["shelf.sdf"].location == tmp_path / "sdf_path"  # from SDF_PATH
        assert panel.folders() == [str(library)]

        # Thumbnails are rendered (by a child process) and are not blank.
        panel.model.request_all()
        drawable = [e for e in panel.entries() if e.name != "broken.sdf"]
        qtbot.waitUntil(lambda: all(panel.model.thumbnail(e) is not None for e in drawable)
                        and panel.model.pending() == 0, timeout=120000)
        for e in drawable:
            image = panel.model.thumbnail(e).pixmap(128, 128).toImage()
            assert image.size() == QtCore.QSize(128, 128)
            assert opaque_pixels(image) > 300, e.name
            assert opaque_pixels(image) < 128 * 128 * 0.9, e.name  # the background is clear
        # a file that cannot be drawn keeps a placeholder and says why
        broken = panel.model.index([e.name for e in panel.entries()].index("broken.sdf"), 0)
        assert panel.model.thumbnail(broken.data(ENTRY_ROLE)) is None
        assert "no thumbnail" in broken.data(QtCore.Qt.ItemDataRole.ToolTipRole)
        cached = panel.thumbnailer.cache.file_for(crate.file, crate.mtime_ns)
        assert cached.is_file()
        assert panel.thumbnailer.request(crate.file, crate.mtime_ns) is not None  # from disk

        # Dragging a tile carries the file's URL.
        row = [panel.proxy.index(r, 0) for r in range(panel.proxy.rowCount())
               if panel.proxy.index(r, 0).data() == "Wooden crate"][0]
        mime = panel.model.mimeData([panel.proxy.mapToSource(row)])
        assert mime.hasFormat("text/uri-list") and mime.hasFormat(LIBRARY_MIME)
        assert [u.toLocalFile() for u in mime.urls()] == [str(crate.file)]
        assert panel.model.flags(panel.proxy.mapToSource(row)) & \
            QtCore.Qt.ItemFlag.ItemIsDragEnabled

        # Double-click asks to open the file.
        with qtbot.waitSignal(panel.openRequested) as opened:
            click_row(panel.view, row, double=True)
        assert opened.args == [str(crate.file)]
        with qtbot.waitSignal(panel.openRequested) as opened:  # Enter on the chosen tile
            QTest.keyClick(panel.view, QtCore.Qt.Key.Key_Return)
        assert opened.args == [str(crate.file)]
        QTest.keyClick(panel.view, QtCore.Qt.Key.Key_C, QtCore.Qt.KeyboardModifier.ControlModifier)
        assert QtWidgets.QApplication.clipboard().text() == str(crate.file)

        # The search box filters by name.
        QTest.keyClicks(panel.search, "post")
        assert [panel.proxy.index(r, 0).data(ENTRY_ROLE).name
                for r in range(panel.proxy.rowCount())] == ["post.urdf"]
    finally:
        panel.shutdown()


def test_library_folders_can_be_removed_and_thumbnails_come_from_the_cache(
        qtbot, tmp_path, library):
    first = make_library_panel(qtbot, tmp_path, [library])
    try:
        first.model.request_all()
        qtbot.waitUntil(lambda: first.model.pending() == 0, timeout=120000)
    finally:
        first.shutdown()
    # A second panel (next start of the editor) shows the cached images without rendering.
    second = make_library_panel(qtbot, tmp_path, [library])
    try:
        second.model.request_all()
        assert not second.thumbnailer.busy  # nothing sent to a renderer
        qtbot.waitUntil(lambda: second.model.pending() == 0)  # the failure, remembered
        assert sum(second.model.thumbnail(e) is not None for e in second.entries()) == 3
        with qtbot.waitSignal(second.scanned, timeout=10000):
            second.remove_folder(library)
        assert [e.name for e in second.entries()] == ["shelf.sdf"]  # the search path stays
        assert second.folders() == []
    finally:
        second.shutdown()


def test_a_renderer_that_dies_fails_its_job_and_the_others_go_on(qtbot, tmp_path):
    from snapframe.editor.panels.thumbnails import Thumbnailer
    thumbnailer = Thumbnailer(tmp_path / "cache")
    # a worker that reads one job and dies without answering
    thumbnailer.worker_args = ("-c", "import sys, os; sys.stdin.readline(); os._exit(3)")
    failed: list[str] = []
    thumbnailer.failed.connect(lambda path, reason: failed.append((path, reason)))
    for name in ("a.sdf", "b.sdf"):
        assert thumbnailer.request(tmp_path / name, 1) is None
    qtbot.waitUntil(lambda: len(failed) == 2, timeout=20000)
    assert [p for p, _ in failed] == [str(tmp_path / "a.sdf"), str(tmp_path / "b.sdf")]
    assert all(reason == "the thumbnail renderer stopped" for _, reason in failed)
    assert not thumbnailer.busy
    thumbnailer.shutdown()
