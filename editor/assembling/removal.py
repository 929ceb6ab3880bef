"""Removing and renaming an element, with what depends on it shown first.

:func:`confirm_remove` opens a :class:`RemoveDialog` listing what refers to the element
(:func:`~snapframe.core.model.references.dependents`) and what removing it does
(:class:`~snapframe.core.model.references.RemoveWithDependents`: the elements removed with
it, and those re-expressed to stay where they are); *Remove with dependents* pushes that as
one undo step, *Cancel* does nothing.  :func:`rename_element` opens a :class:`RenameDialog`
whose name is checked as it is typed (``Rename``'s refusal shown under the field; every
reference to the element follows the new name in the same undo step).

Both dialogs are window-modal but opened with ``QDialog.open()``, so they never block a
caller (or a test): results come as signals (``removed(list)``, ``renamed(str, str)``) and
``finished(int)``.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from snapframe.core.model import Include, Mate
from snapframe.core.model.edits import EditRefused, Rename
from snapframe.core.model.references import RemoveWithDependents, dependents

from ..icons import kind_icon
from ..session import DocumentSession
from ._common import ERROR_STYLE, MUTED_STYLE, bold, label, make, note_label, show_note

__all__ = ["RemoveDialog", "RenameDialog", "confirm_remove", "rename_element"]

_REMOVE_WIDTH, _RENAME_WIDTH = 560, 440


def _kind_of(session: DocumentSession, key: str) -> str:
    node = session.document.element(key)
    if node is None:
        return ""
    if isinstance(node, Mate):   # the joint derived from a mate shares its key
        return "mate"
    if key in session.live.poses:
        return session.live.poses.kind(key)
    return node.kind


def _name_of(node) -> str:
    return node.effective_name if isinstance(node, Include) else node.name


def _fit(dialog: QtWidgets.QDialog, width: int) -> None:
    """Size a dialog for its wrapped labels: a top-level window sizes by its layout's
    minimum, which ignores how tall wrapped text gets at the window's width."""
    layout = dialog.layout()
    layout.activate()
    height = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else \
        layout.totalSizeHint().height()
    dialog.setMinimumSize(width, height)
    dialog.resize(width, max(height, dialog.height() if dialog.isVisible() else 0))


class RemoveDialog(QtWidgets.QDialog):
    """Confirm removing ``key`` and what depends on it (module docstring).

    Attributes for callers and tests: ``dependents`` (what refers to the element),
    ``removed_keys`` and ``adjusted`` (what the command will remove and re-express),
    ``remove_button``, ``cancel_button``.  Signal ``removed(list)``: the keys removed."""

    removed = QtCore.Signal(list)

    def __init__(self, session: DocumentSession, key: str,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session, self.key = session, key
        self.setWindowTitle("Remove")
        node = session.document.element(key)
        kind = _kind_of(session, key) or "element"
        self.command: RemoveWithDependents | None = None
        self.dependents = []
        refusal = ""
        if node is None:
            refusal = f"there is no element [{key}]"
        else:
            try:
                self.dependents = dependents(session.document, key)
                self.command = RemoveWithDependents(session.document, node)
            except (EditRefused, KeyError) as exc:
                refusal = str(exc).strip("'\"")
        self.removed_keys = list(self.command.removed) if self.command else []
        self.adjusted = list(self.command.adjusted) if self.command else []

        title = bold(label(f"Remove the {kind.replace('_', ' ')} {key}?", "", self, wrap=True))
        intro = label(self._intro(), MUTED_STYLE, self, wrap=True)
        self.tree = QtWidgets.QTreeWidget(self)
        self.tree.setHeaderLabels(["Element", "Refers to it by"])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self._fill_tree()
        self.tree.header().setSectionResizeMode(
            0, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(True)
        self.note = note_label(self)
        if refusal:
            show_note(self.note, refusal, ERROR_STYLE)

        buttons = QtWidgets.QDialogButtonBox(self)
        label_text = "Remove with dependents" if len(self.removed_keys) > 1 or self.adjusted \
            else "Remove"
        self.remove_button = buttons.addButton(
            label_text, QtWidgets.QDialogButtonBox.ButtonRole.DestructiveRole)
        self.cancel_button = buttons.addButton(QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        self.remove_button.setEnabled(self.command is not None)
        self.remove_button.clicked.connect(self._remove)
        self.cancel_button.clicked.connect(self.reject)
        self.cancel_button.setDefault(True)   # Enter does not destroy by accident

        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addWidget(self.note)    # why it cannot be removed, right under the question
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)
        self.tree.setVisible(self.tree.topLevelItemCount() > 0)
        self.tree.setMinimumHeight(self.tree.sizeHintForRow(0) * 6 if self.tree.isVisible() else 0)
        self.cancel_button.setFocus()
        _fit(self, _REMOVE_WIDTH)

    def _intro(self) -> str:
        if self.command is None:
            return "It cannot be removed:"
        if not self.dependents:
            return "Nothing else refers to it."
        n_removed = len(self.removed_keys) - 1
        parts = [f"{len(self.dependents)} reference{'s' if len(self.dependents) != 1 else ''} "
                 "to it."]
        if n_removed:
            parts.append(f"{n_removed} element{'s' if n_removed != 1 else ''} cannot exist "
                         "without it and will be removed too.")
        if self.adjusted:
            parts.append(f"{len(self.adjusted)} will be re-expressed in another frame and "
                         "stay where they are.")
        parts.append("One undo step restores everything.")
        return " ".join(parts)

    def _fill_tree(self) -> None:
        if self.command is None:   # refused: say what refers to it, nothing more
            self._group("Refers to it", [(d.key, d.why) for d in self.dependents])
            return
        # each removed element says which reference to a removed one takes it away (a mate
        # goes because it names a connector removed with the body)
        removed = set(self.removed_keys)
        why: dict[str, list[str]] = {}
        for key in self.removed_keys:
            for d in dependents(self.session.document, key):
                if d.key in removed and d.why not in why.get(d.key, []):
                    why.setdefault(d.key, []).append(d.why)
        groups = (("Removed with it", [k for k in self.removed_keys if k != self.key],
                   "cannot exist without it"),
                  ("Kept in place, re-expressed", [d.key for d in self.adjusted],
                   "only placed by it"))
        for title, keys, default in groups:
            self._group(title, [(key, ", ".join(why.get(key) or
                                                [a.why for a in self.adjusted if a.key == key])
                                 or default) for key in dict.fromkeys(keys)])

    def _group(self, title: str, rows: list[tuple[str, str]]) -> None:
        """A bold heading with one row per (key, reason)."""
        if not rows:
            return
        top = QtWidgets.QTreeWidgetItem([f"{title} ({len(rows)})", ""])
        font = top.font(0)
        font.setBold(True)
        top.setFont(0, font)
        top.setFirstColumnSpanned(True)
        self.tree.addTopLevelItem(top)
        for key, reason in rows:
            item = QtWidgets.QTreeWidgetItem([key or "(top)", reason])
            item.setToolTip(1, reason)
            kind = _kind_of(self.session, key)
            if kind:
                item.setIcon(0, kind_icon(kind))
            top.addChild(item)
        top.setExpanded(True)

    def _remove(self) -> None:
        node = self.session.document.element(self.key)
        reason = make(self.session, RemoveWithDependents, node) if node is not None else \
            f"there is no element [{self.key}]"
        if reason:
            show_note(self.note, reason)
            _fit(self, self.width())
            return
        self.removed.emit(list(self.removed_keys))
        self.accept()


class RenameDialog(QtWidgets.QDialog):
    """Rename ``key``: the name is checked as typed (``Rename`` refuses a taken, reserved
    or malformed name, or an element of an included file) and *Rename* pushes it.

    Attributes: ``edit`` (the name field), ``ok_button``, ``cancel_button``, ``note``.
    Signal ``renamed(str, str)``: the old and the new key."""

    renamed = QtCore.Signal(str, str)

    def __init__(self, session: DocumentSession, key: str,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session, self.key = session, key
        self.node = session.document.element(key)
        self.setWindowTitle("Rename")
        kind = (_kind_of(session, key) or "element").replace("_", " ")
        title = bold(label(f"Rename the {kind} {key}", "", self, wrap=True))
        intro = label("References to it (joints, poses, frames, mates) follow the new name.",
                      MUTED_STYLE, self, wrap=True)
        self.edit = QtWidgets.QLineEdit(_name_of(self.node) if self.node is not None else "",
                                        self)
        self.edit.selectAll()
        self.edit.textChanged.connect(self._check)
        self.note = note_label(self)
        buttons = QtWidgets.QDialogButtonBox(self)
        self.ok_button = buttons.addButton("Rename",
                                           QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = buttons.addButton(QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        self.ok_button.setDefault(True)
        self.ok_button.clicked.connect(self._rename)
        self.cancel_button.clicked.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addWidget(self.edit)
        layout.addWidget(self.note)
        layout.addWidget(buttons)
        self._check(self.edit.text())
        _fit(self, _RENAME_WIDTH)

    def _refusal(self, name: str) -> str:
        """Why ``name`` cannot be given ("" when it can); the unchanged name is no rename."""
        if self.node is None:
            return f"there is no element [{self.key}]"
        if name == _name_of(self.node):
            return ""
        try:
            Rename(self.session.document, self.node, name)   # checks only: nothing done
        except EditRefused as exc:
            return str(exc)
        return ""

    def _check(self, text: str) -> None:
        name = text.strip()
        reason = self._refusal(name)
        if reason != self.note.text():
            show_note(self.note, reason)
            _fit(self, max(self.width(), _RENAME_WIDTH))
        unchanged = self.node is not None and name == _name_of(self.node)
        self.ok_button.setEnabled(not reason and bool(name) and not unchanged)

    def _rename(self) -> None:
        name = self.edit.text().strip()
        if self.node is None or not self.ok_button.isEnabled():
            return
        reason = make(self.session, Rename, self.node, name)
        if reason:
            show_note(self.note, reason)
            _fit(self, self.width())
            return
        self.renamed.emit(self.key, self.session.document.key(self.node))
        self.accept()


def confirm_remove(parent: QtWidgets.QWidget | None, session: DocumentSession,
                   key: str) -> RemoveDialog:
    """Open (without blocking) the dialog confirming the removal of ``key`` with what
    depends on it; it removes them in one undo step when confirmed."""
    dialog = RemoveDialog(session, key, parent)
    dialog.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def rename_element(parent: QtWidgets.QWidget | None, session: DocumentSession,
                   key: str) -> RenameDialog:
    """Open (without blocking) the dialog renaming ``key``; the new name is validated as
    typed and pushed as one undo step when confirmed."""
    dialog = RenameDialog(session, key, parent)
    dialog.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
