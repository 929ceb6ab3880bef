"""Review of the desktop services (issue 13, items 1, 3 and 4): each test shows one bug a
user meets and fails until it is fixed.

Editors that crashed are real processes that wrote a recovery copy the way autosave does
(``document_snapshot``, or the format's ``write`` when it has no ``to_string``) and died
without cleaning up (``os._exit``): the kernel releases their locks as after a SIGKILL.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from snapframe.core.model import Frame
from snapframe.core.model.edits import AddNode, SetJointType, SetPose
from snapframe.core.pose import Pose
from snapframe.editor.desktop.file_watch import DEBOUNCE_MS
from widget_actions import type_into

Qt = QtCore.Qt
LEFT = Qt.MouseButton.LeftButton
REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "data"
EXAMPLES = REPO / "resources" / "examples"

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")

#: An editor that set ``key``'s pose to (0, 0, z) (in the frame the file writes it in),
#: wrote its recovery copy as AutosaveManager.write_now does, and died.
DEAD_EDITOR = r"""
import os, sys
from snapframe.core.formats import registry
from snapframe.core.loading import load
from snapframe.core.model.edits import SetPose
from snapframe.core.pose import Pose
from snapframe.editor.desktop.autosave import document_snapshot
from snapframe.editor.desktop.recovery import RecoverySession
root, path, key, z = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
doc = load(path)
node = doc.element(key)
doc.commands.push(SetPose(doc, node, Pose.from_xyz_rpy(0, 0, z, 0, 0, 0),
                          node.pose.relative_to or None))
payload, fmt, suffix = document_snapshot(doc)
store = RecoverySession(root)
if payload is None:      # no to_string: the format's writer writes the copy (write_now)
    registry.implementation(fmt).write(doc, store.content_path("doc-1", suffix))
store.write("doc-1", suffix, payload, {
    "original_path": os.path.abspath(path), "format": fmt,
    "title": os.path.basename(path), "saved_at": 1700000000.0})
os._exit(0)
"""


def dead_editor(root: Path, path: Path, key: str, z: float) -> None:
    subprocess.run([sys.executable, "-c", DEAD_EDITOR, str(root), str(path), key, str(z)],
                   check=True, timeout=120)


PART = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="part">
    <link name="body">
      <pose>{x} 0 0 0 0 0</pose>
      <visual name="v"><geometry><box><size>0.1 0.1 0.1</size></box></geometry></visual>
    </link>
  </model>
</sdf>
"""
MAIN = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="main">
    <link name="base">
      <visual name="v"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></visual>
    </link>
    <frame name="marker"><pose>0 0.3 0 0 0 0.5</pose></frame>
    <include>
      <uri>part.sdf</uri>
      <name>part</name>
      <pose>0 0 1 0 0 0</pose>
    </include>
  </model>
</sdf>
"""


def clock_with_import(folder: Path) -> Path:
    """The bundled OpenPLX clock split in two files: the parts, and the system that
    imports them (as OpenPLX projects are written)."""
    text = (EXAMPLES / "openplx" / "clock.openplx").read_text()
    cut = text.index("Clock is Physics3D.System")
    (folder / "parts.openplx").write_text(text[:cut])
    (folder / "clock.openplx").write_text('import "parts.openplx"\n\n' + text[cut:])
    return folder / "clock.openplx"


@pytest.fixture
def root(tmp_path) -> Path:
    return tmp_path / "recovery"


@pytest.fixture
def window(qtbot, tmp_path, root):
    from snapframe.editor.main_window import MainWindow
    settings = QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    qtbot.waitExposed(win)
    win.desktop.prefs.set("autosave_seconds", 1)
    win.desktop.start_autosave(root)
    yield win
    for s in win.sessions():
        s.document.commands.set_clean()
    win.close()


def copies(root: Path) -> list[Path]:
    return sorted(root.glob("*/doc-*.json")) if root.is_dir() else []


def choose(qtbot, combo: QtWidgets.QComboBox, value: str) -> None:
    """Pick the item whose data is ``value`` with the keyboard."""
    combo.setFocus()
    target = combo.findData(value)
    assert target >= 0, value
    while combo.currentIndex() != target:
        QTest.keyClick(combo, Qt.Key.Key_Down if combo.currentIndex() < target else Qt.Key.Key_Up)


# -- recovery ----------------------------------------------------------------------------------
def test_an_openplx_document_that_imports_a_file_is_restored_whole(qtbot, window, tmp_path,
                                                                    root):
    """read_recovered falls back to ``load(copy)`` for formats without ``read_string``: the
    OpenPLX copy is read in the recovery folder, where ``import "parts.openplx"`` (and every
    ``@"relative/path"``) names nothing.  The restored clock has unknown types."""
    clock = clock_with_import(tmp_path)
    dead_editor(root, clock, "face", 1.7)
    dialog = window.desktop.offer_recovery(root)
    assert dialog is not None
    QTest.mouseClick(dialog.restore_button, LEFT)
    session = window.session
    assert session is not None and Path(session.document.path) == clock.resolve()
    assert [d.message for d in session.document.diagnostics.errors] == []
    assert np.allclose(session.document.live.poses.pose("face")[:3, 3], (0, 0, 1.7))


def test_an_edited_floor_plan_gets_a_recovery_copy(qtbot, window, tmp_path, root):
    """A floor plan is edited (doors, frames, placed parts) and saved as an SDFormat world,
    but document_snapshot returns None for a format that cannot write: its edits are never
    copied, and nothing says so.  A crash loses all of them."""
    folder = tmp_path / "plan"
    shutil.copytree(EXAMPLES / "floorplan", folder)
    session = window.open(folder / "flat.fpm")
    doc = session.document
    autosave = window.desktop.autosave
    failed: list[str] = []
    autosave.failed.connect(failed.append)
    with qtbot.waitSignal(autosave.saved, timeout=8000, raising=False) as blocker:
        assert session.push(AddNode(doc, doc.root, Frame(name="survey_mark")))
    autosave.wait()
    assert blocker.signal_triggered, f"no recovery copy of the edited floor plan ({failed})"
    assert len(copies(root)) == 1


def test_the_copy_of_a_floor_plan_is_restored_with_its_walls(qtbot, window, tmp_path, root):
    """The floor plan's copy is the SDFormat world (the manifest says so) with the walls
    it holds in memory beside it: restored, it is the edited plan again, its walls the
    same triangles, bound to the plan's file (a save asks where to write the world)."""
    from snapframe.core.model import Visual
    from snapframe.editor.desktop.recovery import read_recovered
    folder = tmp_path / "plan"
    shutil.copytree(EXAMPLES / "floorplan", folder)
    session = window.open(folder / "flat.fpm")
    doc = session.document

    def walls(document) -> dict:
        return {v.name: v.geometry.params.get("data") for v in document.nodes()
                if isinstance(v, Visual) and v.geometry.shape == "mesh"}
    before = walls(doc)
    assert before and all(m is not None for m in before.values())
    autosave = window.desktop.autosave
    with qtbot.waitSignal(autosave.saved, timeout=8000) as saved:
        assert session.push(AddNode(doc, doc.root, Frame(name="survey_mark")))
    autosave.wait()
    entry = saved.args[0]
    manifest = json.loads(entry.manifest.read_text())
    assert (manifest["format"], manifest["original_format"]) == ("sdformat", "floorplan")
    assert entry.content.suffix == ".sdf" and entry.meshes is not None
    restored = read_recovered(entry)
    assert restored.format == "floorplan"
    assert Path(restored.path) == (folder / "flat.fpm").resolve()
    assert restored.element("survey_mark") is not None
    after = walls(restored)
    assert after.keys() == before.keys()
    for name, mesh in before.items():
        assert np.array_equal(after[name].vertices, mesh.vertices), name
        assert np.array_equal(after[name].faces, mesh.faces), name
    # the walls are the document's own again: a save writes them next to the world
    restored.save(tmp_path / "out" / "flat.sdf", "sdformat", flatten=False)
    written = sorted((tmp_path / "out" / "flat_meshes").glob("*.stl"))
    assert len(written) == len({id(m) for m in before.values()})
    # a restored copy taken over by the editor that restored it keeps its walls
    from snapframe.editor.desktop.recovery import RecoverySession
    other = RecoverySession(tmp_path / "other")
    try:
        adopted = other.adopt(entry, "doc-7")
        assert adopted.meshes is not None and adopted.meshes.parent == other.folder
        again = walls(read_recovered(adopted))
        assert all(np.array_equal(again[n].vertices, m.vertices) for n, m in before.items())
    finally:
        other.close()


@pytest.mark.parametrize("source, key", [
    ("openplx", "face"),
    ("mirabuf", "Swing_1"),
])
def test_copies_of_openplx_and_mirabuf_are_written_off_the_ui_thread(
        qtbot, window, tmp_path, root, monkeypatch, source, key):
    """The OpenPLX and mirabuf copies were written by the format's writer on the UI
    thread, fsync included: now they are serialised there and written by the autosave
    worker, as SDFormat's are, and read back as the edited document."""
    import threading
    from snapframe.core.formats import registry
    from snapframe.editor.desktop import recovery
    if source == "openplx":
        path = clock_with_import(tmp_path)
    else:
        path = tmp_path / "hinge.mira"
        shutil.copyfile(DATA / "mirabuf" / "HingeTestFission_v1.mira", path)
    session = window.open(path)
    doc = session.document
    module = registry.implementation(doc.format)

    def no_write(*_args, **_kwargs):
        raise AssertionError("the format's writer wrote the copy")
    monkeypatch.setattr(module, "write", no_write)
    writers: list[str] = []
    real_write = recovery.atomic_write

    def recorded(target, data, *args, **kwargs):
        writers.append(threading.current_thread().name)
        return real_write(target, data, *args, **kwargs)
    monkeypatch.setattr(recovery, "atomic_write", recorded)
    failed: list[str] = []
    window.desktop.autosave.failed.connect(failed.append)
    node = doc.element(key)
    target = Pose.from_xyz_rpy(0.01, -0.02, 0.3, 0, 0, 0.25)
    with qtbot.waitSignal(window.desktop.autosave.saved, timeout=8000, raising=False) as saved:
        assert session.push(SetPose(doc, node, target, node.pose.relative_to or None))
    window.desktop.autosave.wait()
    assert failed == [] and saved.signal_triggered
    assert writers and all(name.startswith("autosave") for name in writers)
    restored = recovery.read_recovered(saved.args[0])
    assert restored.format == source and Path(restored.path) == path.resolve()
    assert np.allclose(restored.live.poses.pose(key), doc.live.poses.pose(key), atol=1e-6)


def test_a_urdf_document_is_restored_with_its_material_colours(qtbot, window, tmp_path, root):
    """The copy of a URDF loses its robot-level ``<material name="orange">`` definition
    (the URDF writer drops it; a Ctrl+S does the same, without a "saved with losses"
    warning): the restored robot has lost its colours."""
    folder = tmp_path / "urdf"
    shutil.copytree(DATA / "urdf", folder)
    path = folder / "arm.urdf"
    from snapframe.core.loading import load
    before = {d.message for d in load(path).diagnostics.warnings}
    dead_editor(root, path, "tool_link", 0.3)
    dialog = window.desktop.offer_recovery(root)
    QTest.mouseClick(dialog.restore_button, LEFT)
    session = window.session
    assert session is not None and Path(session.document.path) == path.resolve()
    new = [d.message for d in session.document.diagnostics.warnings if d.message not in before]
    assert new == []


def test_without_file_locks_the_copies_of_a_dead_editor_are_still_offered(tmp_path, root,
                                                                         example_copy,
                                                                         monkeypatch):
    """Where flock is not supported (sshfs and other FUSE homes, some NFS mounts)
    claim_orphans falls back to the owner's process id, but then ``fd is None and fcntl
    is not None`` skips every folder: a crashed editor's work is never offered."""
    from snapframe.editor.desktop import recovery
    path = example_copy("arm_gripper") / "arm_and_gripper.sdf"
    dead_editor(root, path, "gripper", 0.04)

    def no_locks(_path):
        raise recovery._NoLocks()
    monkeypatch.setattr(recovery, "_take_lock", no_locks)
    orphans = recovery.claim_orphans(root)
    assert [len(o.entries) for o in orphans] == [1]


def test_without_file_locks_a_dead_editors_copies_are_claimed_once(tmp_path, root,
                                                                    example_copy, monkeypatch):
    """Without locks a starting editor claims a dead editor's folder by renaming it to
    one of its own: a second editor starting meanwhile finds a running owner and keeps
    off, and the claimed copy still reads back."""
    from snapframe.editor.desktop import recovery
    path = example_copy("arm_gripper") / "arm_and_gripper.sdf"
    dead_editor(root, path, "gripper", 0.04)

    def no_locks(_path):
        raise recovery._NoLocks()
    monkeypatch.setattr(recovery, "_take_lock", no_locks)
    first = recovery.claim_orphans(root)
    assert [len(o.entries) for o in first] == [1]
    assert first[0].folder.name.startswith(f"{os.getpid()}-")
    assert recovery.claim_orphans(root) == []
    document = recovery.read_recovered(first[0].entries[0])
    assert Path(document.path) == path.resolve() and document.root is not None
    first[0].discard()
    assert list(root.iterdir()) == []


def test_a_session_folder_whose_lock_is_taken_by_another_editor_is_not_used(root, monkeypatch):
    """RecoverySession._ensure ignores a None from _take_lock (another starting editor
    claimed the brand-new folder between mkdir and flock) and writes into the folder
    unlocked: from then on any editor that starts claims, offers and deletes the copies
    of this running editor.

    (As first written, every _take_lock answered None: no folder could ever be locked,
    so a correct editor could only refuse to write.  The race takes one folder: the
    other editor claims the first one made, the next one is ours.)"""
    from snapframe.editor.desktop import recovery
    real = recovery._take_lock
    claimed: list[Path] = []

    def first_one_taken(path):
        if not claimed:
            claimed.append(path.parent)
            return None                          # held by the other editor
        return real(path)
    monkeypatch.setattr(recovery, "_take_lock", first_one_taken)
    live = recovery.RecoverySession(root)
    live.write("doc-1", ".sdf", b"<sdf version='1.9'><model name='m'><link name='l'/>"
                                b"</model></sdf>", {"original_path": "/x/m.sdf",
                                                    "format": "sdformat"})
    monkeypatch.setattr(recovery, "_take_lock", real)
    try:
        assert claimed and live.folder != claimed[0]
        assert not list(claimed[0].glob("doc-*"))      # nothing of ours in the other's
        assert recovery.claim_orphans(root) == []      # this editor is running
        assert [e.entry_id for e in live.entries()] == ["doc-1"]
    finally:
        live.close()


def test_no_copy_is_written_where_no_folder_can_be_locked(root, monkeypatch):
    """Every folder made is claimed by another editor (a pathological race): the write
    fails (autosave reports it) rather than leaving copies any editor may take."""
    from snapframe.editor.desktop import recovery
    monkeypatch.setattr(recovery, "_take_lock", lambda _path: None)
    live = recovery.RecoverySession(root)
    with pytest.raises(OSError, match="no recovery folder"):
        live.write("doc-1", ".sdf", b"<sdf version='1.9'/>", {"original_path": "/x/m.sdf",
                                                               "format": "sdformat"})
    assert list(root.glob("*/doc-*")) == []


def test_a_folder_being_made_is_left_alone_and_one_a_crash_left_is_removed(root):
    """Session folders are made hidden and renamed into place once locked and owned: a
    starting editor never claims one being made, and removes one a crash left (old, its
    lock free)."""
    from snapframe.editor.desktop import recovery
    making = root / ".new-4242-0badcafe"
    making.mkdir(parents=True)
    left = root / ".new-4343-deadbeef"
    left.mkdir()
    hour_ago = time.time() - 2 * 3600
    os.utime(left, (hour_ago, hour_ago))
    assert recovery.claim_orphans(root) == []
    assert making.is_dir() and not left.exists()
    live = recovery.RecoverySession(root)
    try:
        live.content_path("doc-1", ".sdf")
        assert live.folder.parent == root and not live.folder.name.startswith(".")
        assert json.loads((live.folder / "owner.json").read_text())["pid"] == os.getpid()
        assert recovery.claim_orphans(root) == []        # locked: this editor runs
    finally:
        live.close()


def test_copies_another_version_wrote_are_not_deleted(root):
    """A manifest of another MANIFEST_VERSION (the packaged app and a newer pip install
    side by side) is 'not one of ours', so the folder counts as empty and is removed,
    content included: the other version's crash copies are destroyed unseen."""
    from snapframe.editor.desktop.recovery import claim_orphans
    folder = root / "999999-0badf00d"
    folder.mkdir(parents=True)
    (folder / "doc-1.sdf").write_text("<sdf version='1.9'/>")
    (folder / "doc-1.json").write_text(json.dumps(
        {"version": 2, "content": "doc-1.sdf", "original_path": "/work/m.sdf",
         "format": "sdformat", "pid": 999999}))
    assert claim_orphans(root) == []
    assert (folder / "doc-1.sdf").exists()


# -- reload on change ----------------------------------------------------------------------------
def test_a_save_with_losses_is_not_offered_back_as_a_change_on_disk(qtbot, window, tmp_path,
                                                                   no_modal_dialogs):
    """A save in the document's own format that reports losses writes the file but leaves
    the stack modified; the watcher only learns of our saves from a clean stack event, so
    our own file comes back as "changed on disk. Reloading discards your unsaved
    changes" - and Reload replaces the ball joint by the fixed one just written."""
    path = tmp_path / "arm.urdf"
    shutil.copyfile(DATA / "urdf" / "arm.urdf", path)
    session = window.open(path)
    doc = session.document
    watcher = window.desktop.watcher
    offers: list = []
    watcher.offered.connect(offers.append)
    assert session.push(SetJointType(doc, doc.element("elbow"), "ball"))
    assert window.save()
    assert [k for k, _t in no_modal_dialogs] == ["warning"]      # saved, with losses
    qtbot.wait(4 * DEBOUNCE_MS)              # whatever the system sends has come
    watcher._on_change(str(path.resolve()))  # (and if it was dropped: as it would come)
    watcher.check()
    assert offers == []
    assert doc.element("elbow").type == "ball"


def grab_marker_arrow(window, session):
    """Select ``marker`` and press the mouse on its gizmo's x arrow (nothing moved yet);
    returns the view's widget, where the press was and where a drag of 0.2 m along the
    arrow ends."""
    session.selection.select("marker")
    viewport = window.current.viewport
    viewport.render()
    gizmo = viewport.gizmo
    assert gizmo.key == "marker"
    X = gizmo._X_WG.copy()
    L = 0.1 * np.linalg.norm(np.array(viewport.canvas.camera.GetPosition()) - X[:3, 3])
    start = at = None
    for f in np.linspace(0.95, 0.2, 31):
        p = viewport.pixel_of(X[:3, 3] + f * L * X[:3, 0])
        if gizmo.handle_at(p.x(), p.y()) == ("move", 0):
            start, at = p, f * L
            break
    assert start is not None
    end = viewport.pixel_of(X[:3, 3] + (at + 0.2) * X[:3, 0])
    widget = viewport.widget
    QTest.mousePress(widget, LEFT, Qt.KeyboardModifier.NoModifier, start)
    assert gizmo.dragging
    return widget, start, end


def test_a_silent_reload_does_not_swallow_a_gizmo_drag_under_way(qtbot, window, tmp_path):
    """The user has grabbed the gizmo's arrow (nothing moved yet: the document is clean)
    when a generator rewrites an included file: the silent reload replaces the model
    under the drag, whose SetPose then edits the dropped node - the whole drag does
    nothing.  A reload should wait for the drag (or a gesture) to end."""
    (tmp_path / "part.sdf").write_text(PART.format(x=0.1))
    (tmp_path / "main.sdf").write_text(MAIN)
    window.desktop.prefs.set("reload_silently", True)
    session = window.open(tmp_path / "main.sdf")
    doc = session.document
    widget, start, end = grab_marker_arrow(window, session)
    watcher = window.desktop.watcher
    (tmp_path / "part.sdf").write_text(PART.format(x=0.4))
    # the change is seen and put off (a reload now would drop the drag's node)
    qtbot.waitUntil(lambda: bool(watcher._deferred), timeout=10000)
    for i in range(1, 7):
        QTest.mouseMove(widget, start + (end - start) * (i / 6))
        qtbot.wait(5)
    QTest.mouseRelease(widget, LEFT, Qt.KeyboardModifier.NoModifier, end)
    qtbot.wait(3 * DEBOUNCE_MS)
    # the drag moved the marker 0.2 m along x of the frame its pose is written in (the
    # model frame), snapped to the grid
    assert doc.element("marker").pose.value.p[0] == pytest.approx(0.2, abs=0.006)
    assert session.modified
    # the drag made the document unsaved: the change on disk is offered, not forced
    bar = window.desktop.watcher.bar(session)
    assert bar is not None and bar.isVisible() and "part.sdf" in bar.label.text()


def test_a_reload_put_off_by_a_drag_is_made_when_the_drag_ends(qtbot, window, tmp_path):
    """A drag let go where it began changes nothing: the reload it held back is made
    then, silently as the preference says."""
    (tmp_path / "part.sdf").write_text(PART.format(x=0.1))
    (tmp_path / "main.sdf").write_text(MAIN)
    window.desktop.prefs.set("reload_silently", True)
    session = window.open(tmp_path / "main.sdf")
    watcher = window.desktop.watcher
    widget, start, _end = grab_marker_arrow(window, session)
    (tmp_path / "part.sdf").write_text(PART.format(x=0.4))
    qtbot.waitUntil(lambda: bool(watcher._deferred), timeout=10000)   # seen, put off
    body = session.document.live.poses.pose("part::body")[:3, 3]
    assert np.allclose(body, (0.1, 0, 1))
    with qtbot.waitSignal(watcher.reloaded, timeout=10000):
        QTest.mouseRelease(widget, LEFT, Qt.KeyboardModifier.NoModifier, start)
    # part.sdf puts body at x = 0.4 in the part, included at z = 1
    assert np.allclose(session.document.live.poses.pose("part::body")[:3, 3], (0.4, 0, 1))
    assert not session.modified


def test_the_files_an_openplx_document_imports_are_watched(qtbot, window, tmp_path):
    """files_of follows SDFormat includes only: the OpenPLX file the open clock imports is
    not watched, so a change to it (a generator, git) is never offered."""
    clock = clock_with_import(tmp_path)
    window.open(clock)
    assert str((tmp_path / "parts.openplx").resolve()) in window.desktop.watcher.watched()


def test_the_files_of_a_floor_plan_folder_are_watched(qtbot, window, tmp_path):
    """A floor plan opened as a JSON-LD folder: files_of drops the folder (it is no file)
    and the JSON files it was read from are no includes, so nothing at all is watched.

    (Written against the bundled example's JSON-LD folder ``flat/``, which the example
    no longer has: the studio plan of the test data, with its door files in a
    subfolder, is such a folder.)"""
    studio = DATA / "floorplan" / "studio"
    folder = tmp_path / "studio"
    shutil.copytree(studio / "jsonld", folder)
    shutil.copytree(studio / "door-jsonld", folder / "doors")
    session = window.open(folder)
    assert session is not None, window.last_error
    assert session.document.format == "floorplan" and session.document.root is not None
    watched = window.desktop.watcher.watched()
    assert str((folder / "floorplan.json").resolve()) in watched
    assert str((folder / "doors" / "object-door.json").resolve()) in watched


def test_the_door_files_of_a_floor_plan_are_watched(qtbot, window, tmp_path):
    """A ``.fpm`` reads the door files of its ``<stem>.doors/`` folder: a change to them
    is a change to the plan."""
    folder = tmp_path / "plan"
    shutil.copytree(EXAMPLES / "floorplan", folder)
    window.open(folder / "flat.fpm")
    watched = window.desktop.watcher.watched()
    assert str((folder / "flat.fpm").resolve()) in watched
    assert str((folder / "flat.doors" / "door-instance.json").resolve()) in watched


# -- units and preferences ---------------------------------------------------------------------
@pytest.fixture
def main_file(tmp_path) -> Path:
    (tmp_path / "part.sdf").write_text(PART.format(x=0.1))
    (tmp_path / "main.sdf").write_text(MAIN)
    return tmp_path / "main.sdf"


def test_changing_the_length_unit_keeps_the_rotation_shown_as_a_quaternion(qtbot, window,
                                                                          main_file):
    """set_units switches rotation_format to the angle unit whenever any unit preference
    changes: a user reading quaternions who picks millimetres gets degrees back."""
    session = window.open(main_file)
    session.selection.select("marker")
    inspector = window.inspector
    choose(qtbot, inspector.format_combo, "quat")
    assert inspector.rotation_format == "quat"
    dialog = window.desktop.show_preferences()
    qtbot.waitExposed(dialog)
    choose(qtbot, dialog.length_unit, "mm")
    assert inspector.pose_fields["y"].text() == "300.000"
    assert inspector.rotation_format == "quat"


def test_typing_a_triad_size_rebuilds_the_scene_once(qtbot, window, main_file, monkeypatch):
    """The spin boxes store every keystroke (keyboard tracking): typing 300 applies 30 %
    first, each a full scene rebuild (seconds in the 1000-robot world)."""
    window.open(main_file)
    mirror = window.current.viewport.mirror
    applied: list[float] = []
    real = mirror.set_triad_scale
    monkeypatch.setattr(mirror, "set_triad_scale", lambda s: (applied.append(s), real(s)))
    dialog = window.desktop.show_preferences()
    qtbot.waitExposed(dialog)
    spin = dialog.triad_percent
    spin.setFocus()
    spin.lineEdit().selectAll()
    QTest.keyClicks(spin.lineEdit(), "300")
    QTest.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    assert applied == [3.0]


def test_an_arrow_key_in_a_limit_field_steps_in_the_unit_shown(qtbot, window, example_copy):
    """The pose fields step 1 mm in millimetres (length_step), the limit fields still add
    0.01 of whatever they show: 0.01 mm (and 0.01 degree), a step nobody can see."""
    window.desktop.prefs.set("length_unit", "mm")
    session = window.open(example_copy("arm_gripper") / "gripper.sdf")
    session.selection.select("left_slide")
    field = window.inspector.limit_fields["upper"]
    assert field.text() == "40" and window.inspector.limit_units["upper"].text() == "mm"
    field.setFocus()
    QTest.keyClick(field, Qt.Key.Key_Up)
    upper = session.document.element("left_slide").axes[0].upper
    assert upper == pytest.approx(0.041, abs=1e-12)


def test_the_joints_panel_follows_the_angle_unit_preference(qtbot, window, example_copy):
    """Angles in radians: the inspector shows radians, the Joints panel still degrees
    (JointSpecRow.shown always converts to degrees)."""
    window.desktop.prefs.set("angle_unit", "rad")
    session = window.open(example_copy("arm_gripper") / "arm.sdf")
    session.selection.select("elbow")
    assert window.inspector.limit_units["lower"].text() == "rad"
    window.joints_dock.show()
    window.joints_dock.raise_()
    panel = window.joints
    qtbot.waitUntil(lambda: panel.isVisible() and "elbow" in panel.rows, timeout=10000)
    row = panel.rows["elbow"]
    assert "°" not in row.low.text() + row.high.text() + row.unit.text()


def test_the_joints_panel_shows_slides_in_millimetres(qtbot, window, example_copy):
    """Lengths in millimetres: a slide's limits and value are in mm, and a value typed
    there is taken in mm."""
    window.desktop.prefs.set("length_unit", "mm")
    session = window.open(example_copy("arm_gripper") / "gripper.sdf")
    window.joints_dock.show()
    window.joints_dock.raise_()
    panel = window.joints
    qtbot.waitUntil(lambda: panel.isVisible() and "left_slide" in panel.rows, timeout=10000)
    row = panel.rows["left_slide"]
    # gripper.sdf: <limit><lower>0</lower><upper>0.04</upper></limit>
    assert (row.unit.text(), row.low.text(), row.high.text()) == ("mm", "0.0 mm", "40.0 mm")
    type_into(row.field, "25")
    assert session.live.joints.position("left_slide") == pytest.approx(0.025, abs=1e-12)
    # back to metres: the rows follow, the joint stays where it is
    window.desktop.prefs.set("length_unit", "m")
    qtbot.waitUntil(lambda: "left_slide" in panel.rows and
                    panel.rows["left_slide"].unit.text() == "m", timeout=10000)
    assert panel.rows["left_slide"].field.text() == "0.0250"
