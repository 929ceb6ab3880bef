"""The start-up offer of documents a crashed or killed editor left unsaved.

Window-modal but opened with ``QDialog.open()`` (it never blocks the caller): every
document is listed with its file, folder and the time of its copy, all ticked.
*Restore* opens the ticked ones as modified documents bound to their files, *Discard*
deletes their copies, and *Later* keeps every copy for the next start (so do the unticked
ones after Restore or Discard).  The choice comes as ``answered(str, list)``: ``"restore"``,
``"discard"`` or ``"later"`` with the ticked entries.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from .recovery import RecoveryEntry

__all__ = ["RecoveryDialog"]


class RecoveryDialog(QtWidgets.QDialog):
    """The offer of ``entries`` (see the module docstring)."""

    answered = QtCore.Signal(str, list)

    def __init__(self, entries: list[RecoveryEntry],
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.entries = list(entries)
        self.setWindowTitle("Recover unsaved documents")
        self.setObjectName("recoveryDialog")
        self.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
        count = len(self.entries)
        intro = QtWidgets.QLabel(
            f"Snapframe was not closed properly. {count} document"
            f"{'s' if count != 1 else ''} had unsaved changes; their last automatic copies "
            "can be restored.", self)
        intro.setWordWrap(True)
        self.list = QtWidgets.QTreeWidget(self)
        self.list.setHeaderLabels(["Document", "Folder", "Copy made"])
        self.list.setRootIsDecorated(False)
        for entry in self.entries:
            folder = str(Path(entry.original_path).parent) if entry.original_path else \
                "(never saved)"
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.saved_at)) \
                if entry.saved_at else ""
            if entry.original_format and entry.original_format != entry.format:
                # (a floor plan: its copy is the SDFormat world a save writes for it)
                from snapframe.core.formats import registry
                descriptor = registry.get(entry.format)
                when = f"{when} (as {descriptor.label if descriptor else entry.format})".strip()
            item = QtWidgets.QTreeWidgetItem([entry.label, folder, when])
            item.setCheckState(0, QtCore.Qt.CheckState.Checked)
            item.setToolTip(0, entry.original_path or entry.title)
            item.setToolTip(1, folder)
            self.list.addTopLevelItem(item)
        for column in range(3):
            self.list.resizeColumnToContents(column)
        hint = QtWidgets.QLabel("Restored documents open with their changes unsaved: save "
                                "them to keep them.  Unticked documents are kept for the "
                                "next start.", self)
        hint.setWordWrap(True)
        buttons = QtWidgets.QDialogButtonBox(self)
        self.restore_button = buttons.addButton(
            "&Restore", QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole)
        self.discard_button = buttons.addButton(
            "&Discard", QtWidgets.QDialogButtonBox.ButtonRole.DestructiveRole)
        self.later_button = buttons.addButton(
            "&Later", QtWidgets.QDialogButtonBox.ButtonRole.RejectRole)
        self.restore_button.setDefault(True)
        self.restore_button.clicked.connect(lambda: self._answer("restore"))
        self.discard_button.clicked.connect(lambda: self._answer("discard"))
        self.later_button.clicked.connect(lambda: self._answer("later"))
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addWidget(hint)
        layout.addWidget(buttons)
        self.resize(640, 320)
        self._done = False

    def ticked(self) -> list[RecoveryEntry]:
        """The entries whose box is ticked."""
        return [e for i, e in enumerate(self.entries)
                if self.list.topLevelItem(i).checkState(0) == QtCore.Qt.CheckState.Checked]

    def _answer(self, choice: str) -> None:
        if self._done:
            return
        self._done = True
        chosen = self.ticked() if choice != "later" else []
        self.answered.emit(choice, chosen)
        if choice == "later":
            self.reject()
        else:
            self.accept()

    def reject(self) -> None:  # Esc, the title bar's close button: Later
        if not self._done:
            self._done = True
            self.answered.emit("later", [])
        super().reject()
