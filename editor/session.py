"""One open document as the Qt views see it: the core's plain-Python events as Qt signals.

Views never listen to the core directly: a :class:`DocumentSession` connects once to the
live document's emitters and re-emits each event as a Qt signal, so widgets connect
slots in the usual way and are disconnected when they are destroyed.  Edits go through
:meth:`push`, which turns a refused edit into a message for the status bar instead of an
exception.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore

from snapframe.core.commands import Command
from snapframe.core.gcpause import gc_paused
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Document
from snapframe.core.model.edits import EditRefused

__all__ = ["DocumentSession"]


class DocumentSession(QtCore.QObject):
    """Qt face of a :class:`~snapframe.core.model.Document` and its live services."""

    posesChanged = QtCore.Signal(object)        # core.live.PosesChanged
    structureChanged = QtCore.Signal(object)    # core.live.services.StructureChanged
    diagnosticsChanged = QtCore.Signal(object)  # core.live.validation.DiagnosticsChanged
    inertiaChanged = QtCore.Signal(object)      # core.live.inertia.InertiaChanged
    snapChanged = QtCore.Signal(object)         # core.live.snapping.SnapChanged
    selectionChanged = QtCore.Signal(object)    # core.live.selection.SelectionChanged
    stackChanged = QtCore.Signal(object)        # core.commands.StackChanged
    edited = QtCore.Signal(object)              # core.live.services.Edited
    refused = QtCore.Signal(str)                # an edit that was not made, and why

    def __init__(self, document: Document, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.document = document
        live = document.live
        self.live = live
        self.selection = live.selection
        live.poses_changed.connect(self.posesChanged.emit)
        live.structure_changed.connect(self.structureChanged.emit)
        live.diagnostics_changed.connect(self.diagnosticsChanged.emit)
        live.inertia_changed.connect(self.inertiaChanged.emit)
        live.snap_changed.connect(self.snapChanged.emit)
        live.edited.connect(self.edited.emit)
        live.selection.changed.connect(self.selectionChanged.emit)
        document.commands.changed.connect(self.stackChanged.emit)

    @classmethod
    def open(cls, path: str | Path, search_paths: list[Path] | None = None,
             parent: QtCore.QObject | None = None) -> "DocumentSession":
        """Load ``path`` (never raises for bad input: see the document's diagnostics)."""
        with gc_paused():     # the document and its live state: all long-lived
            document = load(path, LoadContext(search_paths=list(search_paths or [])))
            return cls(document, parent)

    # -- editing ------------------------------------------------------------------
    def push(self, command: Command | None) -> bool:
        """Do an edit; False (and :attr:`refused`) when it cannot be made."""
        if command is None:
            return False
        try:
            self.document.commands.push(command)
        except EditRefused as exc:
            self.refused.emit(str(exc))
            return False
        return True

    def make(self, factory, *args, **kwargs) -> bool:
        """Build a command with ``factory(document, *args, **kwargs)`` and push it; a
        refusal while building it is reported like one while doing it."""
        try:
            command = factory(self.document, *args, **kwargs)
        except EditRefused as exc:
            self.refused.emit(str(exc))
            return False
        return self.push(command)

    def undo(self) -> None:
        self.document.commands.undo()

    def redo(self) -> None:
        self.document.commands.redo()

    # -- state ----------------------------------------------------------------------
    @property
    def title(self) -> str:
        name = Path(self.document.path).name if self.document.path else "Untitled"
        return name + ("" if self.document.commands.is_clean else " *")

    @property
    def modified(self) -> bool:
        return not self.document.commands.is_clean
