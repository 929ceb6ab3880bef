"""Joint sliders: move the joints of the open document without editing it.

:class:`JointSlidersPanel` shows one row per movable joint (revolute, continuous,
prismatic) at every depth: its key, its type, a slider between its limits and a field
for typed values, in degrees (rotations) or metres (slides); a continuous joint, or a
revolute one without limits, goes round ±180°.  Moving a slider sets the position on
``document.live.joints`` (an overlay on the pose table): the viewport and every other view
follow through ``posesChanged``, the document and its undo stack stay as they are.  A typed
value beyond a limit is clamped by the core and the row says so.  Joints that cannot move
(in a kinematic loop, or held by the world or a static model) are listed disabled with the
core's reason.

*Reset* puts every joint back to 0 (the written configuration); *Save as initial position*
pushes :meth:`JointState.bake` as one undo step (refused, with the reason, when the moved
poses live in included files).  Rows are rebuilt on structure changes and on edits of joints
(baking shifts the limits).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.live.kinematics import JointMove
from snapframe.core.model import Joint
from snapframe.core.model.edits import EditRefused

from ..inspector import NumberField
from ..panels._binding import SessionBinding
from ..session import DocumentSession
from ._common import (MUTED_STYLE, OK_STYLE, WARNING_STYLE, Coalescer, ElidedLabel, bold,
                      label, make, note_label, num, show_note)

__all__ = ["JointSlidersPanel", "JointRow", "JointSpecRow"]

#: Range of a joint that has no limits: a continuous joint turns ±180°, a free slide ±1 m.
FREE_ANGLE = math.pi
FREE_SLIDE = 1.0
#: Most ticks a slider spans.
MAX_TICKS = 2_000_000


@dataclass(frozen=True)
class JointSpecRow:
    """What a row shows of a joint: limits in the core's units (rad or m; None: none) and
    the core's reason it cannot move ("" when it can)."""

    key: str
    type: str
    lower: float | None
    upper: float | None
    refusal: str = ""

    @property
    def angular(self) -> bool:
        return self.type != "prismatic"

    @property
    def unit(self) -> str:
        return "°" if self.angular else "m"

    @property
    def scale(self) -> float:
        """Slider ticks per core unit: 0.1° or 0.1 mm a tick, coarser for huge ranges
        (a slider counts in 32-bit integers)."""
        fine = 10.0 * 180.0 / math.pi if self.angular else 1e4
        lower, upper = self.span()
        return min(fine, MAX_TICKS / max(upper - lower, 1e-12))

    def shown(self, value: float) -> float:
        """A core value (rad or m) in the row's unit (degrees or metres)."""
        return math.degrees(value) if self.angular else value

    def core(self, shown: float) -> float:
        return math.radians(shown) if self.angular else shown

    def span(self) -> tuple[float, float]:
        """The slider's range in core units."""
        free = FREE_ANGLE if self.angular else FREE_SLIDE
        lower = -free if self.lower is None else self.lower
        upper = free if self.upper is None else self.upper
        return lower, upper


def _text(spec: JointSpecRow, value: float, decimals: int | None = None) -> str:
    d = (1 if spec.angular else 4) if decimals is None else decimals
    return num(spec.shown(value), d) + ("°" if spec.angular else " m")


def _end_text(spec: JointSpecRow, limit: float | None, end: float) -> str:
    """A slider end: the limit, or in brackets the span shown for a joint without one."""
    text = _text(spec, end, 1 if spec.angular else 3)
    return text if limit is not None else f"({text})"


class JointRow(QtWidgets.QFrame):
    """One joint: key and type, a value field with its unit, the slider with its range
    at both ends, and a note (a clamped value, a refusal).

    Signals: ``moved(str, float)`` the slider moved (key, core value); ``typed(str,
    float)`` a value was typed and confirmed."""

    moved = QtCore.Signal(str, float)
    typed = QtCore.Signal(str, float)

    def __init__(self, spec: JointSpecRow, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.setObjectName(f"joint:{spec.key}")
        self.name = bold(ElidedLabel(spec.key, self))
        self.kind = label(spec.type, MUTED_STYLE, self)
        self.field = NumberField(1 if spec.angular else 4, 1.0 if spec.angular else 0.001,
                                 parent=self)
        self.field.setObjectName("value")
        self.field.setFixedWidth(self.field.fontMetrics().horizontalAdvance("−0000.0000") + 16)
        self.unit = label(spec.unit, MUTED_STYLE, self)
        self.unit.setFixedWidth(self.unit.fontMetrics().horizontalAdvance("m°") + 2)
        lower, upper = spec.span()
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal, self)
        self.slider.setRange(round(lower * spec.scale), round(upper * spec.scale))
        # a key press is 1° or 1 mm, a page 15° or 1 cm
        self.slider.setSingleStep(10)
        self.slider.setPageStep(150 if spec.angular else 100)
        self.slider.setValue(0)
        self.low = label(_end_text(spec, spec.lower, lower), MUTED_STYLE, self)
        self.high = label(_end_text(spec, spec.upper, upper), MUTED_STYLE, self)
        for end in (self.low, self.high):
            end.setMinimumWidth(end.fontMetrics().horizontalAdvance("−180.0°") + 2)
        self.low.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight
                              | QtCore.Qt.AlignmentFlag.AlignVCenter)
        self.note = note_label(self)

        top = QtWidgets.QHBoxLayout()
        top.setSpacing(6)
        top.addWidget(self.name, 1)
        top.addWidget(self.kind)
        top.addWidget(self.field)
        top.addWidget(self.unit)
        bottom = QtWidgets.QHBoxLayout()
        bottom.setSpacing(6)
        bottom.addWidget(self.low)
        bottom.addWidget(self.slider, 1)
        bottom.addWidget(self.high)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addLayout(bottom)
        layout.addWidget(self.note)

        self.slider.setToolTip(self._range_tip())
        self.slider.valueChanged.connect(self._on_slider)
        self.field.committed.connect(lambda v: self.typed.emit(spec.key, spec.core(v)))
        self.field.stepped.connect(lambda v: self.typed.emit(spec.key, spec.core(v)))
        self.field.invalid.connect(self._on_invalid)
        self.show_value(0.0)
        if spec.refusal:
            self.set_refused(spec.refusal)

    def _range_tip(self) -> str:
        s = self.spec
        if s.lower is None and s.upper is None:
            free = "a continuous joint" if s.type == "continuous" else "no limits"
            return f"{free}: the slider spans {_text(s, s.span()[0])} to {_text(s, s.span()[1])}"
        return f"limits {_text(s, s.span()[0])} to {_text(s, s.span()[1])}"

    # -- showing ------------------------------------------------------------------
    def show_value(self, value: float) -> None:
        """Show the core value ``value`` (rad or m) without emitting anything."""
        blocked = self.slider.blockSignals(True)
        self.slider.setValue(round(value * self.spec.scale))
        self.slider.blockSignals(blocked)
        self.field.setValue(self.spec.shown(value))

    def value(self) -> float:
        """The position the slider shows, in core units."""
        return self.slider.value() / self.spec.scale

    def set_refused(self, reason: str) -> None:
        """Disable the row and say why the joint cannot move."""
        for w in (self.slider, self.field):
            w.setEnabled(False)
        show_note(self.note, reason, WARNING_STYLE)

    def show_move(self, move: JointMove) -> None:
        """Say when the core clamped a value, with the limit that did it."""
        if not move.clamped:
            show_note(self.note, "")
            return
        which = "upper" if move.value == move.upper else "lower"
        show_note(self.note, f"{_text(self.spec, move.requested)} is beyond the {which} limit: "
                  f"set to {_text(self.spec, move.value)}", WARNING_STYLE)

    # -- input --------------------------------------------------------------------
    def _on_slider(self, ticks: int) -> None:
        value = ticks / self.spec.scale
        self.field.setValue(self.spec.shown(value))
        self.moved.emit(self.spec.key, value)

    def _on_invalid(self, reason: str) -> None:
        show_note(self.note, f"{reason}: nothing changed")
        self.field.revert()


class JointSlidersPanel(QtWidgets.QWidget):
    """One slider per movable joint of the current document (module docstring).

    Signals: ``positionsChanged(dict)`` joint key -> position (core units) after the user
    moved, reset or saved joints."""

    positionsChanged = QtCore.Signal(dict)

    def __init__(self, session: DocumentSession | None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._binding = SessionBinding([
            ("structureChanged", self._on_structure), ("edited", self._on_edited),
            ("posesChanged", self._on_poses)])
        self.rows: dict[str, JointRow] = {}
        self._rebuild_later = Coalescer(self.rebuild, 0, self)

        self.filter = QtWidgets.QLineEdit(self)
        self.filter.setPlaceholderText("Filter joints")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._apply_filter)
        self.reset_button = QtWidgets.QPushButton("Reset", self)
        self.reset_button.setToolTip("Every joint back to 0: the positions the file writes")
        self.reset_button.clicked.connect(self.reset)
        self.save_button = QtWidgets.QPushButton("Save as initial position", self)
        self.save_button.setToolTip("Write the moved poses into the document (one undo step);"
                                    " limits shift so each joint keeps its range")
        self.save_button.clicked.connect(self.save_as_initial)
        bar = QtWidgets.QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.filter, 1)
        bar.addWidget(self.reset_button)
        bar.addWidget(self.save_button)
        self.status = note_label(self)

        self.placeholder = label("", MUTED_STYLE, self, wrap=True)
        self.placeholder.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self._list = QtWidgets.QWidget()
        self._list_layout = QtWidgets.QVBoxLayout(self._list)
        self._list_layout.setContentsMargins(0, 0, 0, 0)
        self._list_layout.setSpacing(0)
        self._list_layout.addStretch(1)
        self.scroll = QtWidgets.QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(self._list)

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(bar)
        layout.addWidget(self.status)
        layout.addWidget(self.placeholder)
        layout.addWidget(self.scroll, 1)
        self.set_session(session)

    # -- public API ---------------------------------------------------------------
    @property
    def session(self) -> DocumentSession | None:
        return self._binding.session

    def set_session(self, session: DocumentSession | None) -> None:
        """Show the joints of ``session`` (None: no document)."""
        self._binding.bind(session)
        show_note(self.status, "")
        self.rebuild()

    def set_position(self, key: str, value: float) -> JointMove | None:
        """Move joint ``key`` to ``value`` (rad or m) as the slider would; the row shows a
        clamped value with its reason, a refusal with its.  None when refused."""
        session, row = self.session, self.rows.get(key)
        if session is None:
            return None
        try:
            move = session.live.joints.set_position(key, value)
        except EditRefused as exc:
            if row is not None:
                row.set_refused(str(exc))
            return None
        if row is not None:
            row.show_value(move.value)
            row.show_move(move)
        self._update_buttons()
        self.positionsChanged.emit(dict(session.live.joints.positions))
        return move

    def reset(self) -> None:
        """Every joint back to its written position (0)."""
        session = self.session
        if session is None:
            return
        session.live.joints.reset()
        for row in self.rows.values():
            row.show_value(0.0)
            if not row.spec.refusal:
                show_note(row.note, "")
        show_note(self.status, "")
        self._update_buttons()
        self.positionsChanged.emit({})

    def save_as_initial(self) -> bool:
        """Push the moved poses as one undo step (``joints.bake()``); the panel says why
        when the core refuses."""
        session = self.session
        if session is None:
            return False
        moved = len(session.live.joints.positions)
        reason = make(session, lambda document: document.live.joints.bake())
        if reason:
            show_note(self.status, reason)
            return False
        show_note(self.status, f"Saved {moved} joint position{'s' if moved != 1 else ''} as the "
                  "initial pose (undo restores them)", OK_STYLE)
        self.positionsChanged.emit({})
        return True

    def rebuild(self) -> None:
        """Rebuild the rows from the document's joints (keeps nothing but the filter)."""
        for row in self.rows.values():
            row.setParent(None)
            row.deleteLater()
        self.rows = {}
        session = self.session
        specs = _joint_specs(session) if session is not None else []
        for i, spec in enumerate(specs):
            row = JointRow(spec, self._list)
            row.setAutoFillBackground(True)   # alternate shades tell the rows apart
            row.setBackgroundRole(QtGui.QPalette.ColorRole.AlternateBase if i % 2 else
                                  QtGui.QPalette.ColorRole.Base)
            row.moved.connect(self.set_position)
            row.typed.connect(self.set_position)
            self._list_layout.insertWidget(self._list_layout.count() - 1, row)
            self.rows[spec.key] = row
        if session is not None:
            self._sync_values()
        if session is None:
            self.placeholder.setText("No document")
        elif not specs:
            self.placeholder.setText("No movable joints: revolute, continuous and prismatic "
                                     "joints get a slider here")
        self.placeholder.setVisible(not specs)
        self.scroll.setVisible(bool(specs))
        self._apply_filter(self.filter.text())
        self._update_buttons()

    # -- updates ------------------------------------------------------------------
    def _on_structure(self, _event) -> None:
        self._rebuild_later.request()

    def _on_edited(self, event) -> None:
        # joint edits change types and limits (a save as initial position shifts them)
        if any(isinstance(n, Joint) for change in event.changes for n in change.nodes):
            self._rebuild_later.request()

    def _on_poses(self, _event) -> None:
        self._sync_values()

    def _sync_values(self) -> None:
        """Show the positions the core holds (an edit or an undo puts them back to 0)."""
        session = self.session
        if session is None:
            return
        joints = session.live.joints
        for key, row in self.rows.items():
            value = joints.position(key)
            if round(value * row.spec.scale) != row.slider.value():
                row.show_value(value)
                if not value and not row.spec.refusal:
                    show_note(row.note, "")
        self._update_buttons()

    def _update_buttons(self) -> None:
        session = self.session
        moved = bool(session is not None and session.live.joints.positions)
        self.reset_button.setEnabled(moved)
        self.save_button.setEnabled(moved)

    def _apply_filter(self, text: str) -> None:
        text = text.strip().casefold()
        for key, row in self.rows.items():
            row.setVisible(not text or text in key.casefold() or text in row.spec.type)


def _joint_specs(session: DocumentSession) -> list[JointSpecRow]:
    """Every movable joint with its limits and, for those that cannot move, why."""
    joints = session.live.joints
    out = []
    for key in joints.joint_keys():
        node = session.document.element(key)
        kind = getattr(node, "type", "revolute")
        refusal = ""
        try:
            lower, upper = joints.limits(key)
            joints.moving_keys(key)      # refuses joints in loops or held by the world
        except EditRefused as exc:
            lower = upper = None
            refusal = str(exc)
        out.append(JointSpecRow(key, kind, lower, upper, refusal))
    return out
