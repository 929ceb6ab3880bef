"""Adding a joint between two elements picked in the viewport or the scene tree.

:class:`AddJointPanel` is a dock-able widget (not a modal dialog) over one session: the
joint's **name** and **type**, its **parent** and **child** (links, or frames, joints and
models: SDFormat 1.8 joins frames; the parent may be ``world``), and for the types that
move, the **axis** (in the joint frame, which is the child's frame) and the **limits**
(degrees, or metres for a prismatic joint).

One end at a time is *being picked* (its Pick button is down: the parent first, then the
child).  The window arms the viewport for it when :attr:`pickRequested` says so and hands
over what the user clicked there or selected in the tree with :meth:`take_key`; typing a
key in the end's field works too.  *Add* pushes one
:func:`~snapframe.core.model.connecting.AddJointBetween` (one undo step: the joint goes into
the innermost model holding both ends), selects the joint and emits ``added(key)``; a
refusal is shown in the panel and nothing changes.
"""

from __future__ import annotations

import math

from PySide6 import QtCore, QtWidgets

from snapframe.core.live.keys import split_part
from snapframe.core.model.connecting import AddJointBetween, enclosing_model, free_name
from snapframe.core.model.edits import EditRefused
from snapframe.core.model.names import SEP, WORLD
from snapframe.core.model.nodes import JOINT_TYPES, World

from ..inspector import FrameCombo, NumberField, form_group
from ..panels._binding import SessionBinding
from ..session import DocumentSession
from ._common import MUTED_STYLE, OK_STYLE, bold, label, make, note_label, show_note

__all__ = ["AddJointPanel", "END_KINDS", "joint_ends"]

#: Kinds of element (as the pose table names them) a joint can join.
END_KINDS = ("link", "frame", "joint", "model")
#: The ends, in the order they are picked.
ENDS = ("parent", "child")
#: Joint types with an axis, and those whose first axis has limits.
_AXIS_TYPES = tuple(t for t in JOINT_TYPES if t not in ("fixed", "ball"))
_LIMIT_TYPES = ("revolute", "prismatic", "revolute2", "universal", "screw")


def joint_ends(session: DocumentSession) -> list[str]:
    """Keys of the elements of the open document a joint can join, in document order
    (``world`` first for a world)."""
    table = session.live.poses
    keys = [k for k in table.keys if k and not split_part(k)[1] and table.kind(k) in END_KINDS]
    return ([WORLD] if isinstance(session.document.root, World) else []) + keys


class AddJointPanel(QtWidgets.QWidget):
    """Add one joint to the session's document (module docstring).

    Signals: ``pickRequested(str)`` the end now being picked (``"parent"``, ``"child"``, or
    ``""`` when none is); ``added(str)`` the new joint's key; ``closed()`` the user is done
    (the window hides the panel)."""

    pickRequested = QtCore.Signal(str)
    added = QtCore.Signal(str)
    closed = QtCore.Signal()

    def __init__(self, session: DocumentSession | None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._binding = SessionBinding([("structureChanged", self._on_structure)])
        self._ends = {end: "" for end in ENDS}
        self._active = ""
        self._build()
        self.set_session(session)

    # -- building -----------------------------------------------------------------
    def _build(self) -> None:
        title = bold(label("Add a joint", "", self))
        intro = label("Click the parent, then the child, in the view or the tree.", MUTED_STYLE,
                      self, wrap=True)
        joint_box, joint = form_group("Joint", self)
        self.name_edit = QtWidgets.QLineEdit(self)
        self.name_edit.setObjectName("name")
        self.name_edit.textChanged.connect(lambda _t: self._check())
        joint.addRow("Name", self.name_edit)
        self.type_combo = QtWidgets.QComboBox(self)
        self.type_combo.setObjectName("type")
        for kind in ("fixed", "revolute", "continuous", "prismatic", "ball",
                     *(t for t in JOINT_TYPES if t not in
                       ("fixed", "revolute", "continuous", "prismatic", "ball"))):
            self.type_combo.addItem(kind, kind)
        self.type_combo.setCurrentIndex(self.type_combo.findData("revolute"))
        self.type_combo.currentIndexChanged.connect(lambda _i: self._on_type())
        joint.addRow("Type", self.type_combo)

        ends_box, ends = form_group("Connects", self)
        self.end_combos: dict[str, FrameCombo] = {}
        self.pick_buttons: dict[str, QtWidgets.QToolButton] = {}
        for end in ENDS:
            combo = FrameCombo(self)
            combo.setObjectName(end)
            combo.setToolTip(f"The joint's {end}: click it in the view or the tree, or type "
                             "its name")
            combo.activated.connect(lambda i, e=end: self.set_end(e, self.end_combos[e]
                                                                  .value_at(i)))
            combo.lineEdit().editingFinished.connect(lambda e=end: self._end_typed(e))
            button = QtWidgets.QToolButton(self)
            button.setObjectName(f"pick_{end}")
            button.setText("Pick")
            button.setCheckable(True)
            button.setToolTip(f"Pick the {end} in the view or the tree")
            button.clicked.connect(lambda on, e=end: self.set_active_end(e if on else ""))
            row = QtWidgets.QHBoxLayout()
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(4)
            row.addWidget(combo, 1)
            row.addWidget(button)
            ends.addRow(end.capitalize(), row)
            self.end_combos[end], self.pick_buttons[end] = combo, button

        motion_box, motion = form_group("Motion", self)
        axis_row = QtWidgets.QHBoxLayout()
        axis_row.setContentsMargins(0, 0, 0, 0)
        axis_row.setSpacing(4)
        self.axis_fields: list[NumberField] = []
        for name, value in zip("xyz", (0.0, 0.0, 1.0)):
            field = NumberField(3, 0.1, parent=self)
            field.setObjectName(f"axis.{name}")
            field.setValue(value)
            field.committed.connect(lambda v, f=field: f.setValue(v))
            field.invalid.connect(self._invalid)
            axis_row.addWidget(label(name, MUTED_STYLE, self))
            axis_row.addWidget(field, 1)
            self.axis_fields.append(field)
        self.axis_row = QtWidgets.QWidget(self)
        self.axis_row.setLayout(axis_row)
        self.axis_row.setToolTip("The axis in the joint frame (the child's frame)")
        motion.addRow("Axis", self.axis_row)
        limits_row = QtWidgets.QHBoxLayout()
        limits_row.setContentsMargins(0, 0, 0, 0)
        limits_row.setSpacing(4)
        self.lower = NumberField(3, 1.0, optional=True, parent=self)
        self.lower.setObjectName("limit.lower")
        self.upper = NumberField(3, 1.0, optional=True, parent=self)
        self.upper.setObjectName("limit.upper")
        for tag, field in (("lower", self.lower), ("upper", self.upper)):
            field.committed.connect(lambda v, f=field: f.setValue(v))
            field.cleared.connect(lambda f=field: f.setValue(None))
            field.invalid.connect(self._invalid)
            limits_row.addWidget(label(tag, MUTED_STYLE, self))
            limits_row.addWidget(field, 1)
        self.limit_unit = label("°", MUTED_STYLE, self)
        limits_row.addWidget(self.limit_unit)
        self.limits_row = QtWidgets.QWidget(self)
        self.limits_row.setLayout(limits_row)
        self.limits_row.setToolTip("Empty: no limit")
        motion.addRow("Limits", self.limits_row)
        self._motion_form, self._motion_box = motion, motion_box

        self.note = note_label(self)
        self.add_button = QtWidgets.QPushButton("Add joint", self)
        self.add_button.setObjectName("add")
        self.add_button.setDefault(True)
        self.add_button.setToolTip("Add the joint (one undo step)")
        self.add_button.clicked.connect(self.add)
        self.close_button = QtWidgets.QPushButton("Close", self)
        self.close_button.clicked.connect(self.closed.emit)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        buttons.addWidget(self.add_button)

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(6)
        layout.addWidget(title)
        layout.addWidget(intro)
        for box in (joint_box, ends_box, motion_box):
            layout.addWidget(box)
        layout.addWidget(self.note)
        layout.addStretch(1)
        layout.addLayout(buttons)
        self._on_type()

    # -- public API ---------------------------------------------------------------
    def set_session(self, session: DocumentSession | None) -> None:
        """Work on another document (or none): the ends are cleared and the parent is
        picked first."""
        self._reset(session)
        self.set_active_end("parent" if session is not None else "")

    @property
    def session(self) -> DocumentSession | None:
        return self._binding.session

    def _reset(self, session: DocumentSession | None) -> None:
        self._binding.bind(session)
        self._ends = {end: "" for end in ENDS}
        choices = [(k, k) for k in joint_ends(session)] if session is not None else []
        for end, combo in self.end_combos.items():
            combo.set_choices(choices)
            combo.show_value("")
        self.name_edit.clear()
        show_note(self.note, "")
        self.setEnabled(session is not None)
        self._check()

    @property
    def parent_key(self) -> str:
        return self._ends["parent"]

    @property
    def child_key(self) -> str:
        return self._ends["child"]

    @property
    def joint_type(self) -> str:
        return self.type_combo.currentData()

    @property
    def active_end(self) -> str:
        """The end being picked (``"parent"``, ``"child"``), ``""`` for none."""
        return self._active

    def set_active_end(self, end: str) -> None:
        """Pick ``end`` next (``""``: stop picking); emits ``pickRequested``."""
        self._active = end if end in ENDS else ""
        for name, button in self.pick_buttons.items():
            blocked = button.blockSignals(True)
            button.setChecked(name == self._active)
            button.blockSignals(blocked)
        self.pickRequested.emit(self._active)

    def take_key(self, key: str) -> bool:
        """The user clicked or selected ``key``: it becomes the end being picked, and the
        other end is picked next if it is still empty.  False (nothing changes) when
        nothing is being picked or the element cannot be a joint end."""
        end = self._active
        if not end or not self.set_end(end, key):
            return False
        other = "child" if end == "parent" else "parent"
        self.set_active_end(other if not self._ends[other] else "")
        return True

    def set_end(self, end: str, key: str) -> bool:
        """Set the joint's ``end`` (``"parent"`` or ``"child"``) to the element ``key``;
        False, with the reason in the panel, when it cannot be one."""
        key = split_part(key or "")[0]   # a visual or a collision stands for its link
        session = self.session
        if session is None or end not in ENDS:
            return False
        if key and key != WORLD and (key not in session.live.poses
                                     or session.live.poses.kind(key) not in END_KINDS):
            show_note(self.note, f"[{key}] is not a link or a frame: a joint cannot join it")
            self.end_combos[end].show_value(self._ends[end])
            return False
        self._ends[end] = key
        self.end_combos[end].show_value(key)
        show_note(self.note, "")   # a refusal or "added" was about the previous choice
        self._check()
        return True

    def add(self) -> str | None:
        """Push the joint; its key, or None (the panel shows why)."""
        session = self.session
        if session is None:
            return None
        name = self.name_edit.text().strip() or self.name_edit.placeholderText()
        kind = self.joint_type
        lower, upper = self.lower.value(), self.upper.value()
        if kind in _LIMIT_TYPES and kind != "prismatic":
            lower = math.radians(lower) if lower is not None else None
            upper = math.radians(upper) if upper is not None else None
        elif kind not in _LIMIT_TYPES:
            lower = upper = None
        axis = tuple(f.value() if f.value() is not None else 0.0 for f in self.axis_fields) \
            if kind in _AXIS_TYPES else None
        made = []

        def build(document):
            command = AddJointBetween(document, name, kind, self.parent_key, self.child_key,
                                      axis=axis, lower=lower, upper=upper)
            made.append(command)
            return command

        if not self.parent_key or not self.child_key:
            show_note(self.note, "pick the joint's parent and child first")
            return None
        reason = make(session, build)
        if reason:
            show_note(self.note, reason)
            return None
        key = session.document.key(made[0].node)
        # ready for another joint: nothing picked (selecting the new joint below must
        # not become an end), the list of ends holds the new joint
        self.set_active_end("")
        self._reset(session)
        show_note(self.note, f"Added {key} (undo removes it)", OK_STYLE)
        session.selection.select(key)
        self.added.emit(key)
        return key

    # -- changes ------------------------------------------------------------------
    def _on_structure(self, event) -> None:
        """Elements came or went (an undo, an edit elsewhere): offer what exists now,
        follow an end that was renamed, and forget an end that is gone."""
        session = self.session
        choices = [(k, k) for k in joint_ends(session)] if session is not None else []
        keys = {k for _label, k in choices}
        renamed = getattr(event, "renamed", None) or {}
        for end, combo in self.end_combos.items():
            if renamed.get(self._ends[end]) in keys:
                self._ends[end] = renamed[self._ends[end]]
            if self._ends[end] and self._ends[end] not in keys:
                self._ends[end] = ""
            combo.set_choices(choices)
            combo.show_value(self._ends[end])
        self._check()

    def _end_typed(self, end: str) -> None:
        combo = self.end_combos[end]
        value = combo.value_of(combo.currentText())
        if value != self._ends[end]:
            self.set_end(end, value)

    def _on_type(self) -> None:
        kind = self.joint_type
        self._motion_form.setRowVisible(self.axis_row, kind in _AXIS_TYPES)
        self._motion_form.setRowVisible(self.limits_row, kind in _LIMIT_TYPES)
        self._motion_box.setVisible(kind in _AXIS_TYPES)
        self.limit_unit.setText("m" if kind == "prismatic" else "°")
        self._check()

    def _check(self) -> None:
        """The default name, and a taken name said at once (the core says it on Add)."""
        session = self.session
        self.add_button.setEnabled(bool(session and self.parent_key and self.child_key))
        if session is None or session.document.root is None:
            return
        scope = None
        if self.child_key:
            try:
                scope = enclosing_model(session.document,
                                        [k for k in (self.parent_key, self.child_key)
                                         if k and k != WORLD])[0]
            except EditRefused:
                scope = None
        base = f"{self.child_key.rpartition(SEP)[2]}_joint" if self.child_key else "joint"
        self.name_edit.setPlaceholderText(free_name(scope or session.document.root, base))

    def _invalid(self, reason: str) -> None:
        show_note(self.note, f"{reason}: nothing changed")
        field = self.sender()
        if isinstance(field, NumberField):
            field.revert()
