"""Floor plans in the window: opening a JSON-LD folder, doors at their start states, and
adding doors to entryways.

A floor plan (``.fpm`` with the door files of its ``<stem>.doors/`` folder, or a FloorPlan
JSON-LD folder) opens as a world like any other document: the building and its doors in
the viewport, each door's hinge in the Joints panel (in the door's own angle, with its
states), the top view on Ctrl+2.  What this module adds is the window's part: *File ▸
Open Folder…* (a folder is a document for a format that names a marker file,
``floorplan.json``), the marker file in the Open dialog's filter, each door shown at its
start state when the plan opens (the joint overlay: :func:`show_door_start_states`; the
file keeps the doors closed, with the start state for Gazebo) and again after an edit or
a reload from disk resets the overlay (the doors the user did not move), and *Add door*
in the context menu of the building, its link, its wall pieces and its entryway frames,
for each entryway without a door (one undo step:
:func:`snapframe.plugins.floorplan.editing.AddDoor`).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import QtGui, QtWidgets

from snapframe.core.formats import registry

if TYPE_CHECKING:
    from .main_window import MainWindow
    from .session import DocumentSession

__all__ = ["folder_markers", "is_document_folder", "open_folder_dialog", "door_actions",
           "add_door", "show_door_start_states", "DoorStartStates"]


def folder_markers() -> list[str]:
    """File names that make a folder a document (``floorplan.json``), one per format."""
    out: list[str] = []
    for descriptor in registry.formats():
        marker = getattr(descriptor, "folder_marker", "")
        if descriptor.can_read and marker and marker not in out:
            out.append(marker)
    return out


def is_document_folder(path: str | Path) -> bool:
    """Whether ``path`` is a folder some format reads as one document."""
    folder = Path(path)
    try:
        return folder.is_dir() and any((folder / m).is_file() for m in folder_markers())
    except OSError:
        return False


def open_folder_dialog(window: "MainWindow") -> str | None:
    """Ask for a folder (a FloorPlan JSON-LD folder) and open it; the folder, or None
    (cancelled, or not a folder any format reads: the status bar says so)."""
    start = window.settings.value("last_dir", str(Path.cwd()))
    folder = QtWidgets.QFileDialog.getExistingDirectory(window, "Open folder", start)
    if not folder:
        return None
    window.settings.setValue("last_dir", str(Path(folder).parent))
    if not is_document_folder(folder):
        markers = " or ".join(folder_markers()) or "a marker file"
        window.show_message(f"{Path(folder).name} is not a folder Snapframe opens: it has no "
                            f"{markers}")
        return None
    window.open_in_background(folder) if hasattr(window, "open_in_background") \
        else window.open(folder)
    return folder


def show_door_start_states(session: "DocumentSession") -> dict[str, float]:
    """Show each door of a floor plan document at its start state (the joint overlay:
    the Joints panel's sliders start there, nothing is edited); the positions set.  From
    then on the doors go back to their start states after every edit or reload that
    resets the overlay (:class:`DoorStartStates`)."""
    from snapframe.plugins.floorplan.editing import plan_of, show_start_states
    document = session.document
    shown = show_start_states(document)
    # (also for a plan that could not be read: fixed on disk and reloaded, it has doors)
    if (plan_of(document) is not None or document.format == "floorplan") and \
            getattr(session, "door_start_states", None) is None:
        session.door_start_states = DoorStartStates(session)
    return shown


class DoorStartStates:
    """Keeps a floor plan's doors at their start states across edits.

    Any edit (Add door, its undo, a reload from disk) resets the joint overlay, which
    would show every door closed, as the file writes it.  When the edit is done (the
    command stack says so), each door joint the overlay showed at its start state before
    the edit, or that was not in the document before (a door put back by an undo, a new
    one in the reloaded file), is shown at its start state again; a door the user moved
    elsewhere stays as the edit left it.
    """

    #: How close (rad or m) a shown position must be to count as the start state.
    TOLERANCE = 1e-9

    def __init__(self, session: "DocumentSession") -> None:
        from snapframe.plugins.floorplan.editing import start_positions
        self.session = session
        document = session.document
        #: the overlay's positions when the current edit began (None: no edit under way)
        self._before: dict[str, float] | None = None
        #: the door joints with a start state, as of the last edit
        self._known: set[str] = set(start_positions(document))
        document.changed.connect(self._edit_begins)
        document.commands.changed.connect(self._edit_done)

    def _edit_begins(self, _event) -> None:
        if self._before is None:
            self._before = dict(self.session.live.joints.positions)

    def _edit_done(self, _event) -> None:
        from snapframe.plugins.floorplan.editing import show_start_states, start_positions
        before, self._before = self._before, None
        if before is None:
            return              # no edit: a save marked the document clean
        starts = start_positions(self.session.document)
        again = [key for key, start in starts.items()
                 if key not in self._known or
                 abs(before.get(key, 0.0) - start) <= self.TOLERANCE]
        self._known = set(starts)
        if again:
            show_start_states(self.session.document, again)


def _restore_positions(session: "DocumentSession", positions: dict[str, float]) -> None:
    """Put the doors back where the overlay showed them before an edit (an edit resets
    the overlay), for the joints that are still there."""
    from snapframe.core.model.edits import EditRefused
    joints = session.live.joints
    movable = set(joints.joint_keys())
    kept = {k: v for k, v in positions.items() if k in movable}
    if kept:
        try:
            joints.set_positions(kept)
        except EditRefused:
            pass            # a joint the overlay cannot move any more stays as written


def add_door(session: "DocumentSession", opening: str) -> str | None:
    """Put a default door into the entryway ``opening`` (one undo step) and select it;
    its model's key, or None with the reason in ``session.refused``.  The other doors
    stay where the overlay showed them."""
    from snapframe.core.model.edits import EditRefused
    from snapframe.plugins.floorplan.editing import AddDoor
    document = session.document
    try:
        command = AddDoor(document, opening)
    except EditRefused as exc:
        session.refused.emit(str(exc))
        return None
    shown = dict(session.live.joints.positions)
    if not session.push(command):
        return None
    _restore_positions(session, shown)
    key = document.key(command.node)
    session.selection.select(key)
    return key


def door_actions(window: "MainWindow", session: "DocumentSession | None",
                 key: str) -> list[QtGui.QAction]:
    """*Add door to <entryway>* for the entryways without a door that the element
    ``key`` is about (none when the document is not a floor plan)."""
    if session is None:
        return []
    from snapframe.plugins.floorplan.editing import entryways_at
    actions = []
    for opening in entryways_at(session.document, key):
        action = QtGui.QAction(f"Add door to {opening}", window)
        action.setStatusTip(f"A hinged door in the entryway {opening}, closed, turning "
                            "0 to 90° (one undo step)")
        action.triggered.connect(lambda _=False, o=opening: _add_and_say(window, session, o))
        actions.append(action)
    return actions


def _add_and_say(window: "MainWindow", session: "DocumentSession", opening: str) -> None:
    added = add_door(session, opening)
    if added is not None:
        window.show_message(f"Added the door {added} to {opening}")
