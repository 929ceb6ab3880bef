"""Joint sliders: move the joints of the open document without editing it.

:class:`JointSlidersPanel` shows one row per movable joint (revolute, continuous,
prismatic) at every depth: its key, its type, a slider between its limits and a field
for typed values, in the units of the preferences (degrees or radians for rotations,
metres or millimetres for slides: :meth:`JointSlidersPanel.set_units`); a continuous
joint, or a revolute one without limits, goes round ±180°.  Moving a slider sets the position on
``document.live.joints`` (an overlay on the pose table): the viewport and every other view
follow through ``posesChanged``, the document and its undo stack stay as they are.  A typed
value beyond a limit is clamped by the core and the row says so.  Joints that cannot move
(in a kinematic loop, or held by the world or a static model) are listed disabled with the
core's reason.  A floor plan's door hinge shows the door's own angle (its file is written
at the start state) and a list of the door's states to jump to.

Rows are widgets, a few milliseconds each, so a world of thousands of joints gets rows for
at most :data:`MAX_ROWS` of them: those of the selected element's model first, then the
others in document order, and a line says how many are left out.  The filter box (key
substrings, any case) picks which.  Nothing is built while the panel is hidden.

*Reset* puts every joint back to 0 (the written configuration); *Save as initial position*
pushes :meth:`JointState.bake` as one undo step (refused, with the reason, when the moved
poses live in included files).  Both act on every joint, shown or not.  Rows are rebuilt on
structure changes and on edits of joints (baking shifts the limits).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.live.keys import PART_MARK
from snapframe.core.live.kinematics import JointMove
from snapframe.core.model import Joint
from snapframe.core.model.edits import EditRefused
from snapframe.core.model.names import SEP

from ..desktop.units import angle_decimals, angle_scale, angle_step, length_scale, unit_symbol
from ..inspector import NumberField
from ..panels._binding import SessionBinding
from ..session import DocumentSession
from ._common import (MUTED_STYLE, OK_STYLE, WARNING_STYLE, Coalescer, ElidedLabel, bold,
                      label, make, note_label, num, show_note)

__all__ = ["JointSlidersPanel", "JointRow", "JointSpecRow", "MAX_ROWS"]

#: Range of a joint that has no limits: a continuous joint turns ±180°, a free slide ±1 m.
FREE_ANGLE = math.pi
FREE_SLIDE = 1.0
#: Most ticks a slider spans.
MAX_TICKS = 2_000_000
#: Most rows the panel builds (a row costs a few milliseconds; the filter finds the rest).
MAX_ROWS = 60
#: Rows built at once (about a dock's height); the others follow, ROWS_PER_TURN at a time,
#: in later turns of the event loop, so the panel shows at once and the editor never stalls.
FIRST_ROWS = ROWS_PER_TURN = 12
#: Built rows kept hidden for reuse while the filter or the selection changes what shows.
KEPT_ROWS = 2 * MAX_ROWS
#: Pause in typing before the filter builds rows (documents with more than MAX_ROWS joints).
FILTER_DELAY_MS = 150
#: The colour of MUTED_STYLE, as one shared palette: a style sheet on each label of a row
#: cost about a millisecond a row.
MUTED_COLOR = "#6b7580"


@dataclass(frozen=True)
class JointSpecRow:
    """What a row shows of a joint: limits in the core's units (rad or m; None: none) and
    the core's reason it cannot move ("" when it can).

    A joint whose model has coordinates of its own (a floor plan's door, when written at
    its start state: see :mod:`snapframe.plugins.floorplan.world`) shows them: ``offset`` is
    the model's position at the written configuration (added to what is shown) and
    ``states`` its named positions, as core values (position minus ``offset``)."""

    key: str
    type: str
    lower: float | None
    upper: float | None
    refusal: str = ""
    offset: float = 0.0
    states: tuple[tuple[str, float], ...] = ()
    #: The units values show in (see snapframe.editor.desktop.units).
    length_unit: str = "m"
    angle_unit: str = "deg"

    @property
    def angular(self) -> bool:
        return self.type != "prismatic"

    @property
    def unit_name(self) -> str:
        """The unit of what the row shows: ``deg``, ``rad``, ``m`` or ``mm``."""
        return self.angle_unit if self.angular else self.length_unit

    @property
    def unit(self) -> str:
        return unit_symbol(self.unit_name)

    @property
    def factor(self) -> float:
        """Shown value per core value (rad or m)."""
        return angle_scale(self.angle_unit) if self.angular else length_scale(self.length_unit)

    @property
    def decimals(self) -> int:
        """Digits after the point of the value field: 0.1°, 0.001 rad, 0.1 mm, 0.1 mm."""
        if self.angular:
            return angle_decimals(self.angle_unit)
        return 1 if self.length_unit == "mm" else 4

    @property
    def step(self) -> float:
        """What an arrow key in the value field adds: 1°, 0.01 rad, 1 mm (also in m)."""
        if self.angular:
            return angle_step(self.angle_unit)
        return 0.001 * length_scale(self.length_unit)

    @property
    def scale(self) -> float:
        """Slider ticks per core unit: 0.1° or 0.1 mm a tick, coarser for huge ranges
        (a slider counts in 32-bit integers)."""
        fine = 10.0 * 180.0 / math.pi if self.angular else 1e4
        lower, upper = self.span()
        return min(fine, MAX_TICKS / max(upper - lower, 1e-12))

    def shown(self, value: float) -> float:
        """A core value (rad or m) in the row's unit."""
        return (value + self.offset) * self.factor

    def core(self, shown: float) -> float:
        return shown / self.factor - self.offset

    def at_limit(self, value: float, tolerance: float | None = None) -> float:
        """``value`` (core units), or the limit it stands for: a value that shows as a
        limit does (within half the last digit shown, or ``tolerance`` in core units)
        is that limit exactly.  A door's 1.57 rad shows as 90.0°: the 90.0 typed back,
        or the slider's end (900 ticks, 90.0°), is 1.57 rad, not 0.0008 rad beyond it."""
        if tolerance is None:
            tolerance = 0.5 * 10.0 ** -self.decimals / self.factor
        for limit in (self.lower, self.upper):
            if limit is not None and abs(value - limit) <= tolerance * (1 + 1e-9):
                return limit
        return value

    def span(self) -> tuple[float, float]:
        """The slider's range in core units."""
        free = FREE_ANGLE if self.angular else FREE_SLIDE
        lower = -free if self.lower is None else self.lower
        upper = free if self.upper is None else self.upper
        return lower, upper


def _text(spec: JointSpecRow, value: float, decimals: int | None = None) -> str:
    d = spec.decimals if decimals is None else decimals
    unit = spec.unit
    return num(spec.shown(value), d) + (unit if unit == "°" else f" {unit}")


def _end_decimals(spec: JointSpecRow) -> int:
    """Digits of a slider end: as the value field, metres to the millimetre."""
    return 3 if spec.unit_name == "m" else spec.decimals


_muted_palette: QtGui.QPalette | None = None


def _muted(text: str, parent: QtWidgets.QWidget) -> QtWidgets.QLabel:
    """A label in the muted colour (one palette shared by every row)."""
    global _muted_palette
    if _muted_palette is None:
        _muted_palette = QtGui.QPalette(QtWidgets.QApplication.palette())
        # Text too: a label on a row shaded with Base draws with Text (foregroundRole)
        for role in (QtGui.QPalette.ColorRole.WindowText, QtGui.QPalette.ColorRole.Text):
            _muted_palette.setColor(role, QtGui.QColor(MUTED_COLOR))
    widget = QtWidgets.QLabel(text, parent)
    widget.setPalette(_muted_palette)
    return widget


def _end_text(spec: JointSpecRow, limit: float | None, end: float) -> str:
    """A slider end: the limit, or in brackets the span shown for a joint without one."""
    text = _text(spec, end, _end_decimals(spec))
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
        self.kind = _muted(spec.type, self)
        self.field = NumberField(spec.decimals, spec.step, parent=self)
        self.field.setObjectName("value")
        self.field.setFixedWidth(self.field.fontMetrics().horizontalAdvance("−0000.0000") + 16)
        self.unit = _muted(spec.unit, self)
        self.unit.setFixedWidth(self.unit.fontMetrics().horizontalAdvance("rad") + 2)
        lower, upper = spec.span()
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal, self)
        self.slider.setRange(round(lower * spec.scale), round(upper * spec.scale))
        # a key press is 1° or 1 mm, a page 15° or 1 cm
        self.slider.setSingleStep(10)
        self.slider.setPageStep(150 if spec.angular else 100)
        self.slider.setValue(0)
        self.low = _muted(_end_text(spec, spec.lower, lower), self)
        self.high = _muted(_end_text(spec, spec.upper, upper), self)
        widest = "−3.142 rad" if spec.unit_name == "rad" else "−180.0°"
        for end in (self.low, self.high):
            end.setMinimumWidth(end.fontMetrics().horizontalAdvance(widest) + 2)
        self.low.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight
                              | QtCore.Qt.AlignmentFlag.AlignVCenter)
        # style set when a note shows (show_note): most rows never show one
        self.note = QtWidgets.QLabel(self)
        self.note.setWordWrap(True)
        self.note.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note.hide()
        #: The joint's named positions (a door's states), when it has any.
        self.state: QtWidgets.QComboBox | None = None
        if spec.states:
            self.state = QtWidgets.QComboBox(self)
            self.state.setObjectName("state")
            self.state.setToolTip("Move the joint to one of its named states")
            self.state.addItem("state…", None)
            for state, value in spec.states:
                self.state.addItem(state, value)
            self.state.activated.connect(self._on_state)

        top = QtWidgets.QHBoxLayout()
        top.setSpacing(6)
        top.addWidget(self.name, 1)
        top.addWidget(self.kind)
        top.addWidget(self.field)
        top.addWidget(self.unit)
        bottom = QtWidgets.QHBoxLayout()
        bottom.setSpacing(6)
        if self.state is not None:          # (the key keeps the top line's width)
            bottom.addWidget(self.state)
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
        # a value typed as a limit shows (90.0 for 1.57 rad) is that limit
        self.field.committed.connect(
            lambda v: self.typed.emit(spec.key, spec.at_limit(spec.core(v))))
        self.field.stepped.connect(
            lambda v: self.typed.emit(spec.key, spec.at_limit(spec.core(v))))
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
        self._show_state(value)

    def _show_state(self, value: float) -> None:
        """The state combo names the state at ``value`` (core units), if any."""
        if self.state is None:
            return
        index = next((i for i in range(1, self.state.count())
                      if abs(self.state.itemData(i) - value) <= 1e-9), 0)
        if self.state.currentIndex() != index:
            self.state.setCurrentIndex(index)

    def value(self) -> float:
        """The position the slider shows, in core units."""
        return self._ticks_value(self.slider.value())

    def _ticks_value(self, ticks: int) -> float:
        """The core value of a slider position: its ends are the limits exactly (the
        ticks are rounded, a limit need not fall on one), the rest ``ticks / scale``."""
        spec = self.spec
        if ticks >= self.slider.maximum() and spec.upper is not None:
            return spec.upper
        if ticks <= self.slider.minimum() and spec.lower is not None:
            return spec.lower
        # within a tick's rounding of a limit: the limit
        return spec.at_limit(ticks / spec.scale, 0.5 / spec.scale)

    def set_refused(self, reason: str) -> None:
        """Disable the row and say why the joint cannot move."""
        for w in (self.slider, self.field):
            w.setEnabled(False)
        show_note(self.note, reason, WARNING_STYLE)

    def clear_note(self) -> None:
        """Drop a clamping or typing note (a refusal stays)."""
        if self.note.text() and not self.spec.refusal:
            show_note(self.note, "", self.note.styleSheet())

    def show_move(self, move: JointMove) -> None:
        """Say when the core clamped a value, with the limit that did it."""
        if not move.clamped:
            self.clear_note()
            return
        which = "upper" if move.value == move.upper else "lower"
        show_note(self.note, f"{_text(self.spec, move.requested)} is beyond the {which} limit: "
                  f"set to {_text(self.spec, move.value)}", WARNING_STYLE)

    # -- input --------------------------------------------------------------------
    def _on_slider(self, ticks: int) -> None:
        value = self._ticks_value(ticks)
        self.field.setValue(self.spec.shown(value))
        self._show_state(value)
        self.moved.emit(self.spec.key, value)

    def _on_state(self, index: int) -> None:
        value = self.state.itemData(index)
        if value is not None:
            self.typed.emit(self.spec.key, float(value))

    def _on_invalid(self, reason: str) -> None:
        show_note(self.note, f"{reason}: nothing changed")
        self.field.revert()


class JointSlidersPanel(QtWidgets.QWidget):
    """Sliders for the movable joints of the current document (module docstring).

    ``rows`` maps the key of each joint shown to its :class:`JointRow`, in the order shown:
    at most :data:`MAX_ROWS`, those of the selected element's model first when not all fit.

    Signals: ``positionsChanged(dict)`` joint key -> position (core units) after the user
    moved, reset or saved joints."""

    positionsChanged = QtCore.Signal(dict)

    def __init__(self, session: DocumentSession | None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._binding = SessionBinding([
            ("structureChanged", self._on_structure), ("edited", self._on_edited),
            ("posesChanged", self._on_poses), ("selectionChanged", self._on_selection)])
        self.rows: dict[str, JointRow] = {}
        #: The units rows show values in (the preferences': see set_units).
        self.length_unit, self.angle_unit = "m", "deg"
        self._built: dict[str, JointRow] = {}     # shown rows and hidden ones kept for reuse
        self._keys: list[str] | None = None       # every movable joint (None: not read yet)
        self._folded: list[str] = []              # the keys casefolded, for the filter
        self._scopes: set[str] = set()            # keys of the models that hold joints
        self._specs: dict[str, JointSpecRow] = {}
        self._matching = 0                        # how many joints the filter lets through
        self._rebuild_later = Coalescer(self.rebuild, 0, self)
        self._follow_later = Coalescer(self._follow_selection, 0, self)
        self._filter_timer = QtCore.QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(FILTER_DELAY_MS)
        self._filter_timer.timeout.connect(self._refresh)
        self._pending: list[str] = []             # keys picked whose rows are not built yet
        self._build_timer = QtCore.QTimer(self)
        self._build_timer.setSingleShot(True)
        self._build_timer.setInterval(0)
        self._build_timer.timeout.connect(self._build_more)

        self.filter = QtWidgets.QLineEdit(self)
        self.filter.setPlaceholderText("Filter joints")
        self.filter.setToolTip("Show the joints whose key contains this text (any case)")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._on_filter_text)
        self.filter.returnPressed.connect(self._refresh)
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
        self.summary = _muted("", self)
        self.summary.setWordWrap(True)
        self.summary.hide()

        self.placeholder = label("", MUTED_STYLE, self, wrap=True)
        self.placeholder.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self._list = QtWidgets.QWidget()
        self._list_layout = QtWidgets.QVBoxLayout(self._list)
        self._list_layout.setContentsMargins(0, 0, 0, 0)
        self._list_layout.setSpacing(0)
        self._list_layout.addStretch(1)
        # never shorter than its rows want: the scroll area scrolls them, not squeezes them
        self._list.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred,
                                 QtWidgets.QSizePolicy.Policy.Minimum)
        self.scroll = QtWidgets.QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(self._list)

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(bar)
        layout.addWidget(self.status)
        layout.addWidget(self.summary)
        layout.addWidget(self.placeholder)
        layout.addWidget(self.scroll, 1)
        self.set_session(session)

    # -- public API ---------------------------------------------------------------
    @property
    def session(self) -> DocumentSession | None:
        return self._binding.session

    def set_session(self, session: DocumentSession | None) -> None:
        """Show the joints of ``session`` (None: no document).  Cheap while the panel is
        hidden: the rows are built when it shows."""
        self._binding.bind(session)
        show_note(self.status, "")
        self.rebuild()

    def set_units(self, length: str, angle: str) -> None:
        """Show slides in ``length`` (``"m"``, ``"mm"``) and rotations in ``angle``
        (``"deg"``, ``"rad"``); the joints keep their positions.  ValueError for an
        unknown unit."""
        length_scale(length)
        angle_scale(angle)
        if (length, angle) == (self.length_unit, self.angle_unit):
            return
        self.length_unit, self.angle_unit = length, angle
        self.rebuild()

    def set_position(self, key: str, value: float) -> JointMove | None:
        """Move joint ``key`` to ``value`` (rad or m) as the slider would; the row shows a
        clamped value with its reason, a refusal with its.  None when refused."""
        session, row = self.session, self._built.get(key)
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
        """Every joint back to its written position (0), shown or not."""
        session = self.session
        if session is None:
            return
        session.live.joints.reset()
        for row in self._built.values():
            row.show_value(0.0)
            row.clear_note()
        show_note(self.status, "")
        self._update_buttons()
        self.positionsChanged.emit({})

    def save_as_initial(self) -> bool:
        """Push the moved poses of every joint as one undo step (``joints.bake()``); the
        panel says why when the core refuses."""
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
        """Read the document's joints again and rebuild the rows (keeps the filter); done
        when the panel next shows if it is hidden."""
        for row in self._built.values():
            row.hide()
            row.deleteLater()
        self._built, self.rows, self._specs = {}, {}, {}
        self._keys, self._pending = None, []
        self._build_timer.stop()
        self._refresh()

    # -- what shows ---------------------------------------------------------------
    def _refresh(self) -> None:
        """Show rows for the joints the filter and the selection pick (at most MAX_ROWS),
        building the missing ones; nothing while hidden (showEvent comes back here)."""
        self._filter_timer.stop()
        if not self.isVisible():
            return
        keys = self._joint_keys()
        text = self.filter.text().strip().casefold()
        matching = [k for k, f in zip(keys, self._folded) if text in f] if text else keys
        self._matching = len(matching)
        scopes = self._selected_scopes() if len(matching) > MAX_ROWS else []
        picked = _first(matching, scopes, MAX_ROWS)
        self._show_rows(picked, FIRST_ROWS)
        self._sync_values()
        # the selected model the rows begin with (none when the filter left it no joint)
        lead = next((s for s in scopes if picked[0].startswith(s + SEP)), "") if picked else ""
        self._describe(len(keys), matching, text, lead)

    def _build_more(self) -> None:
        """Build the next few rows of those picked (a later turn of the event loop)."""
        if self._pending and self.isVisible():
            self._show_rows([*self.rows, *self._pending], ROWS_PER_TURN)

    def _joint_keys(self) -> list[str]:
        if self._keys is None:
            session = self.session
            self._keys = session.live.joints.joint_keys() if session is not None else []
            self._folded = [k.casefold() for k in self._keys]
            self._scopes = set()
            for key in self._keys:
                head = key.rpartition(SEP)[0]
                while head and head not in self._scopes:
                    self._scopes.add(head)
                    head = head.rpartition(SEP)[0]
        return self._keys

    def _selected_scopes(self) -> list[str]:
        """For each selected key, latest first, the nearest model at or above it that holds
        joints (not the root: that holds them all)."""
        session = self.session
        out: list[str] = []
        for key in reversed(session.selection.keys if session is not None else []):
            head = key.partition(PART_MARK)[0]
            while head and head not in self._scopes:
                head = head.rpartition(SEP)[0]
            if head and head not in out:
                out.append(head)
        return out

    def _show_rows(self, keys: list[str], budget: int) -> None:
        """Make ``keys`` the rows shown, in that order, building at most ``budget`` rows
        now (the rest later: ``_pending``); hide the others (kept for reuse up to
        KEPT_ROWS)."""
        shown: dict[str, JointRow] = {}
        for key in keys:
            row = self._built.get(key)
            if row is None:
                if not budget:
                    break
                row, budget = self._make_row(key), budget - 1
            shown[key] = row
        self._pending = keys[len(shown):]
        if self._pending:
            self._build_timer.start()
        # Showing a row lays out its parent at once, squeezing every row into the list's
        # old height: the layout is off until all are shown, then laid out once.
        self._list_layout.setEnabled(False)
        try:
            self._place(shown)
        finally:
            self._list_layout.setEnabled(True)
            self._fit_list()
        self.rows = shown
        spare = [k for k in self._built if k not in shown]
        for key in spare[:max(0, len(self._built) - KEPT_ROWS)]:   # the oldest go first
            self._built.pop(key).deleteLater()

    def _place(self, shown: dict[str, JointRow]) -> None:
        """Hide the rows not in ``shown``; show those in it, in its order."""
        for key, row in self._built.items():
            if key not in shown and not row.isHidden():
                row.hide()
        for i, row in enumerate(shown.values()):
            if self._list_layout.indexOf(row) != i:
                self._list_layout.removeWidget(row)
                self._list_layout.insertWidget(i, row)
            # alternate shades tell the rows apart
            row.setBackgroundRole(QtGui.QPalette.ColorRole.AlternateBase if i % 2 else
                                  QtGui.QPalette.ColorRole.Base)
            if row.isHidden():
                row.show()

    def _fit_list(self) -> None:
        """Lay the rows out at the height they want: the list grows first (the scroll area
        would grow it only one event later, after a pass squeezing them)."""
        self._list_layout.invalidate()
        wanted = self._list.sizeHint().height()
        if wanted > self._list.height():
            self._list.resize(self._list.width(), wanted)
        self._list_layout.activate()

    def _make_row(self, key: str) -> JointRow:
        spec = self._specs.get(key)
        if spec is None:
            spec = self._specs[key] = _joint_spec(self.session, key, self.length_unit,
                                                  self.angle_unit)
        row = JointRow(spec, self._list)
        row.setAutoFillBackground(True)
        row.moved.connect(self.set_position)
        row.typed.connect(self.set_position)
        row.show_value(self.session.live.joints.position(key))
        self._list_layout.insertWidget(self._list_layout.count() - 1, row)
        self._built[key] = row
        return row

    def _describe(self, total: int, matching: list[str], text: str, lead: str) -> None:
        """The summary line (how many joints show of how many, and ``lead``, the selected
        model shown first) and the placeholder."""
        quoted = f"“{self.filter.text().strip()}”"
        if len(matching) > MAX_ROWS:
            line = f"Showing {MAX_ROWS} of {len(matching)} joints"
            line += f" matching {quoted}" if text else ""
            line += f", {lead}'s first" if lead else ""
            line += " — type more to narrow" if text else " — type to filter"
        elif text and matching:
            line = f"{len(matching)} of {total} joints match {quoted}"
        else:
            line = ""
        self.summary.setText(line)
        self.summary.setVisible(bool(line))
        if self.session is None:
            self.placeholder.setText("No document")
        elif not total:
            self.placeholder.setText("No movable joints: revolute, continuous and prismatic "
                                     "joints get a slider here")
        elif not matching:
            self.placeholder.setText(f"No joint matches {quoted}")
        self.placeholder.setVisible(not self.rows)
        self.scroll.setVisible(bool(self.rows))

    # -- updates ------------------------------------------------------------------
    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        self._refresh()   # builds what was left for later while hidden; cheap otherwise

    def _on_structure(self, _event) -> None:
        self._rebuild_later.request()

    def _on_edited(self, event) -> None:
        # joint edits change types and limits (a save as initial position shifts them)
        if any(isinstance(n, Joint) for change in event.changes for n in change.nodes):
            self._rebuild_later.request()

    def _on_poses(self, _event) -> None:
        if self.isVisible():
            self._sync_values()

    def _on_selection(self, _event) -> None:
        if self.isVisible():
            self._follow_later.request()   # a click in the tree may change it twice

    def _follow_selection(self) -> None:
        """Bring the selected model's joints into view: rows for them first when not all
        fit, else a scroll to the first of them."""
        if self._matching > MAX_ROWS:
            before = list(self.rows)
            self._refresh()
            if list(self.rows) != before:
                self.scroll.verticalScrollBar().setValue(0)
            return
        scopes = self._selected_scopes()
        if scopes:
            prefix = scopes[0] + SEP
            row = next((r for k, r in self.rows.items() if k.startswith(prefix)), None)
            if row is not None:
                self.scroll.ensureWidgetVisible(row, 0, 0)

    def _on_filter_text(self, _text: str) -> None:
        # a few joints filter at once; thousands wait for a pause in typing (rows to build)
        if len(self._keys or ()) <= MAX_ROWS:
            self._refresh()
        else:
            self._filter_timer.start()

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
                if not value:
                    row.clear_note()
        self._update_buttons()

    def _update_buttons(self) -> None:
        session = self.session
        moved = bool(session is not None and session.live.joints.positions)
        self.reset_button.setEnabled(moved)
        self.save_button.setEnabled(moved)


def _first(keys: list[str], scopes: list[str], count: int) -> list[str]:
    """The first ``count`` of ``keys``: those inside ``scopes`` first (in that order),
    then the others, each in document order."""
    picked: dict[str, None] = {}
    for scope in scopes:
        prefix = scope + SEP
        picked.update(dict.fromkeys(k for k in keys if k.startswith(prefix)))
        if len(picked) >= count:
            return list(picked)[:count]
    for key in keys:
        if len(picked) >= count:
            break
        picked.setdefault(key)
    return list(picked)


def _joint_spec(session: DocumentSession, key: str, length_unit: str = "m",
                angle_unit: str = "deg") -> JointSpecRow:
    """A movable joint with its limits and, when it cannot move, why (values shown in
    ``length_unit`` and ``angle_unit``)."""
    joints = session.live.joints
    node = session.document.element(key)
    kind = getattr(node, "type", "revolute")
    refusal = ""
    try:
        lower, upper = joints.limits(key)
        joints.moving_keys(key)      # refuses joints in loops or held by the world
    except EditRefused as exc:
        lower = upper = None
        refusal = str(exc)
    # coordinates of the joint's own model (a floor plan's door: its angle and states)
    own = getattr(node, "extras", {}).get("floorplan_joint")
    offset, states = 0.0, ()
    if isinstance(own, dict):
        offset = float(own.get("zero") or 0.0)
        states = tuple(sorted(((str(name), float(value) - offset)
                               for name, value in (own.get("states") or {}).items()),
                              key=lambda item: item[1]))
    return JointSpecRow(key, kind, lower, upper, refusal, offset, states, length_unit,
                        angle_unit)
