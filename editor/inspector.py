"""The frame inspector: what the active selection is, where it is, and its values to edit.

:class:`FrameInspector` shows the active key of a session's selection: name, kind, file
and line, ``attached_to``; the written pose with its ``relative_to`` frame (only frames in
the element's scope are offered) in metres and RPY degrees, radians or a quaternion; the
resolved pose in any frame of the document (read-only, from the live pose table); the
chain of transforms that produced it (:func:`snapframe.editor.teaching.explain_steps`);
and, by kind, the joint's type, axis and limits, the link's mass, inertia and density, a
visual's or collision's geometry.

Every value typed and confirmed (Enter, or leaving the field) is one command on the
document's stack; stepping a field with the arrow keys or the wheel merges into one undo
step per field, as the core merges a drag.  A refused edit shows the core's reason next
to the field and changes nothing.  Elements inside an included file are read-only here
(the core refuses them): a note offers to open that file instead.
"""

from __future__ import annotations

import ast
import html
import logging
import math
import operator
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.frames.scope import Scope
from snapframe.core.live.keys import ROOT, is_inside_include, join_key, split_part
from snapframe.core.model import (Collision, Frame, Include, Joint, Link, Model, Node, Visual,
                                  World)
from snapframe.core.model.edits import (SetAttachedTo, SetDensity, SetJointAxis, SetJointType,
                                        SetMass, SetPose, SetRelativeTo)
from snapframe.core.model.names import MODEL_FRAME, SEP
from snapframe.core.model.nodes import JOINT_TYPES, JointAxis
from snapframe.core.pose import IDENTITY, Pose

from .desktop.units import angle_scale, angle_step, length_decimals, length_scale, length_step
from .icons import kind_icon
from .session import DocumentSession
from .teaching import Step, compact_number, explain_steps, format_pose, frame_label, root_label
from .theme import theme_colors

__all__ = ["FrameInspector", "NumberField", "FrameCombo", "parse_number", "frames_in_scope",
           "pose_snippet", "ROTATION_FORMATS"]

_log = logging.getLogger(__name__)

#: The chain of transforms follows moving poses at once, then (while they keep moving)
#: once they have been still this long.
CHAIN_INTERVAL_MS = 250
#: The chain box lists at most this many steps, those nearest the element: a robot at
#: the end of a thousand chained includes has thousands, too many to lay out at a click.
CHAIN_STEPS_SHOWN = 12
#: Documents with more elements than this explain the chain of a new selection a turn
#: of the event loop after showing it (see _on_selection).
CHAIN_LATER_KEYS = 5000


#: Rotation formats of the pose editor: (id, label).
ROTATION_FORMATS = (("deg", "RPY, degrees"), ("rad", "RPY, radians"),
                    ("quat", "Quaternion (w x y z)"))
_POSED = (Link, Joint, Frame, Model, Include, Visual, Collision)
_ANGULAR = {"revolute", "continuous", "revolute2", "universal", "screw", "gearbox"}
_TWO_AXES = {"revolute2", "universal"}
_AXIS_COLORS = ("#c0392b", "#27ae60", "#2c6fd1", "#6b7580")
#: Edits of these fields can change any element's chain or scope: refresh on them.
_TOPOLOGY = frozenset({"relative_to", "attached_to", "placement_frame", "name", "uri",
                       "template", "parent_name", "child_name"})
_ERROR_STYLE = "color: #d9433a;"   # readable on the light and the dark palette


def _mono(label: QtWidgets.QLabel) -> None:
    """Numbers in a fixed-pitch font: a font, not a style sheet (a style-sheeted label
    keeps the text colour of the palette it was polished with when the theme changes)."""
    font = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
    font.setPointSizeF(label.font().pointSizeF())
    label.setFont(font)


def _muted_style() -> str:
    """Secondary text in rich text (the chain): the theme's muted colour."""
    return f"color: {theme_colors()['muted']};"


# -- numbers --------------------------------------------------------------------------

_OPS: dict[type, Callable] = {ast.Add: operator.add, ast.Sub: operator.sub,
                              ast.Mult: operator.mul, ast.Div: operator.truediv,
                              ast.Pow: operator.pow, ast.USub: operator.neg,
                              ast.UAdd: operator.pos}
_NAMES = {"pi": math.pi, "tau": math.tau}


def parse_number(text: str) -> float:
    """A number as typed: ``0.5``, ``0,5``, ``-1e-3`` or simple arithmetic with ``pi``
    (``pi/2``, ``90*pi/180``).  Raises ``ValueError`` with a message for anything else.
    Infinite and NaN values are returned: the core refuses them with its own reason."""
    text = text.strip()
    if "," in text and "." not in text:
        text = text.replace(",", ".")
    try:
        return float(text)
    except ValueError:
        pass
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise ValueError(f"'{text}' is not a number") from None

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.Name) and node.id in _NAMES:
            return _NAMES[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.operand))
        raise ValueError(f"'{text}' is not a number")

    try:
        return float(ev(tree))
    except (ZeroDivisionError, OverflowError):
        raise ValueError(f"'{text}' cannot be computed") from None


def _fmt(value: float, decimals: int, style: str) -> str:
    """A value as a field or label shows it: fixed ``decimals`` (``style`` "f") or
    significant digits ("g"); huge and tiny values in a compact scientific form
    (``1e300``, ``2.5e-5``), never a 300-digit string that no field can hold."""
    compact = compact_number(value, decimals)
    if compact is not None:
        return compact
    if style == "g":
        text = f"{value:.{decimals}g}"
    else:
        text = f"{value:.{decimals}f}"
    try:
        if float(text) == 0.0:
            text = text.lstrip("-")  # no "-0.000000"
    except ValueError:
        pass
    return text


class NumberField(QtWidgets.QAbstractSpinBox):
    """A number typed as text and confirmed with Enter or by leaving the field.

    Unlike ``QDoubleSpinBox`` any text can be typed: what is not a number is reported
    through :attr:`invalid` (so the panel can say why) instead of being silently blocked.
    Arrow keys, the arrow buttons and the wheel (when focused) step the value.

    Signals: ``committed(float)`` a typed value; ``stepped(float)`` a step;
    ``invalid(str)`` the reason a text is not a number; ``cleared()`` an empty optional field;
    ``readOnlyTyped()`` a key that would edit a read-only field (nothing changes: the
    owner says why, so typing is never silently dropped).
    """

    committed = QtCore.Signal(float)
    stepped = QtCore.Signal(float)
    invalid = QtCore.Signal(str)
    cleared = QtCore.Signal()
    readOnlyTyped = QtCore.Signal()

    def __init__(self, decimals: int = 6, step: float = 0.01, style: str = "f",
                 optional: bool = False, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.decimals, self.step, self.style, self.optional = decimals, step, style, optional
        self._value: float | None = None
        self._shown = ""          # the text of the value shown
        self._confirmed = ""      # a text already committed (leaving the field repeats none)
        self.setButtonSymbols(QtWidgets.QAbstractSpinBox.ButtonSymbols.NoButtons)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        self.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight)
        self.setMinimumWidth(50)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding,
                           QtWidgets.QSizePolicy.Policy.Fixed)
        self.editingFinished.connect(self._finish)

    # -- value --------------------------------------------------------------------
    def value(self) -> float | None:
        return self._value

    def setValue(self, value: float | None) -> None:
        """Show ``value`` (None: empty) without emitting anything.  A field the user is
        typing in keeps their text."""
        if self.hasFocus() and self.lineEdit().isModified():
            self._value = value
            return
        self._value = value
        self._shown = "" if value is None else _fmt(value, self.decimals, self.style)
        self._confirmed = ""
        self.lineEdit().setText(self._shown)
        self.lineEdit().setModified(False)

    def setReadOnly(self, on: bool) -> None:  # type: ignore[override]
        """Read-only fields look it (the window's colour, muted text), and their text
        stays selectable."""
        super().setReadOnly(on)
        # From the application's palette (not this field's own, which a theme change
        # would leave behind): called again when the theme changes.
        palette = QtGui.QPalette(QtWidgets.QApplication.palette())
        Role = QtGui.QPalette.ColorRole
        palette.setColor(Role.Base, palette.color(Role.Window if on else Role.Base))
        if on:
            palette.setColor(Role.Text, palette.color(QtGui.QPalette.ColorGroup.Disabled,
                                                      Role.Text))
        self.setPalette(palette)

    def revert(self) -> None:
        """Show the last value again (after a refused edit, or Esc)."""
        self._confirmed = ""
        self.lineEdit().setText(self._shown)
        self.lineEdit().setModified(False)

    def is_edited(self) -> bool:
        """Whether the field shows text the user typed instead of its value."""
        return not self.isReadOnly() and self.lineEdit().text().strip() != self._shown

    def cancel_edit(self) -> None:
        """Give up the typed text (Esc): the value shows again."""
        self.revert()
        self.lineEdit().selectAll()

    # -- keys ---------------------------------------------------------------------
    def event(self, event: QtCore.QEvent) -> bool:
        # Esc with typed text reverts the field: claimed before the window's Esc
        # shortcut (Select None) can take it.  Esc on a field showing its value is the
        # window's.
        if event.type() == QtCore.QEvent.Type.ShortcutOverride and \
                event.key() == QtCore.Qt.Key.Key_Escape and self.is_edited():
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:
        if event.key() == QtCore.Qt.Key.Key_Escape and self.is_edited():
            self.cancel_edit()
            event.accept()
            return
        if self.isReadOnly() and _edits_text(event):
            self.readOnlyTyped.emit()
        super().keyPressEvent(event)

    def sizeHint(self) -> QtCore.QSize:
        # Wide enough for "-1234.567890", never as wide as a long text: the rows of
        # three fields must fit a narrow dock whatever is typed.
        hint = super().sizeHint()
        bound = self.fontMetrics().horizontalAdvance("-0000.0000000") + 16
        return QtCore.QSize(min(hint.width(), bound), hint.height())

    def text(self) -> str:  # type: ignore[override]
        return self.lineEdit().text()

    # -- QAbstractSpinBox ---------------------------------------------------------
    def validate(self, text: str, pos: int):  # type: ignore[override]
        return QtGui.QValidator.State.Acceptable, text, pos  # checked on commit, with a reason

    def fixup(self, text: str) -> str:  # type: ignore[override]
        return text

    def stepEnabled(self) -> QtWidgets.QAbstractSpinBox.StepEnabledFlag:
        if self.isReadOnly() or self._value is None:
            return QtWidgets.QAbstractSpinBox.StepEnabledFlag.StepNone
        return (QtWidgets.QAbstractSpinBox.StepEnabledFlag.StepUpEnabled
                | QtWidgets.QAbstractSpinBox.StepEnabledFlag.StepDownEnabled)

    def stepBy(self, steps: int) -> None:
        if self.isReadOnly() or self._value is None:
            return
        value = self._value + steps * self.step
        self.setValue(value)
        self.stepped.emit(value)

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()  # scroll the panel, do not change a value by accident

    def _finish(self) -> None:
        text = self.lineEdit().text().strip()
        if self.isReadOnly() or text == self._shown or (text and text == self._confirmed):
            return
        self.lineEdit().setModified(False)
        if not text and self.optional:
            self.cleared.emit()
            return
        try:
            value = parse_number(text)
        except ValueError as exc:
            self.invalid.emit(str(exc))
            return
        self._confirmed = text
        self.committed.emit(value)


def _edits_text(event: QtGui.QKeyEvent) -> bool:
    """Whether a key press would change a line edit's text (typing, deleting, pasting)."""
    Key, Mod = QtCore.Qt.Key, QtCore.Qt.KeyboardModifier
    if event.matches(QtGui.QKeySequence.StandardKey.Paste) or \
            event.matches(QtGui.QKeySequence.StandardKey.Cut):
        return True
    if event.key() in (Key.Key_Backspace, Key.Key_Delete, Key.Key_Return, Key.Key_Enter):
        return True
    if event.modifiers() & (Mod.ControlModifier | Mod.AltModifier | Mod.MetaModifier):
        return False
    text = event.text()
    return bool(text) and text.isprintable()


def _muted(text: str = "", parent: QtWidgets.QWidget | None = None) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(text, parent)
    # the palette's muted text colour: follows the theme, light or dark
    label.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
    return label


def _value_label(parent: QtWidgets.QWidget | None = None) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(parent)
    label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setWordWrap(True)
    return label


def _error_label(parent: QtWidgets.QWidget | None = None) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(parent)
    label.setStyleSheet(_ERROR_STYLE)
    label.setWordWrap(True)
    label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
    label.hide()
    return label


def _restyle(widget: QtWidgets.QWidget, style: str) -> None:
    if widget.styleSheet() != style:   # (setting a style sheet re-polishes the widget)
        widget.setStyleSheet(style)


def _show_error(label: QtWidgets.QLabel, text: str) -> None:
    label.setText(text)
    label.setVisible(bool(text))


class _Row(QtWidgets.QWidget):
    """Fields on a grid, each after a small coloured axis letter: three to a line (x y z,
    roll pitch yaw), or two (a quaternion's w x / y z: six decimals need the room)."""

    def __init__(self, letters: list[str], fields: list[QtWidgets.QWidget],
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.fields = fields
        self.grid = QtWidgets.QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setHorizontalSpacing(4)
        self.grid.setVerticalSpacing(4)
        self.letters: list[QtWidgets.QLabel] = []
        for field in fields:
            field.setParent(self)   # the row's, laid out or not (hidden ones too)
        for i in range(len(fields)):
            tag = QtWidgets.QLabel(self)
            tag.setStyleSheet(f"color: {_AXIS_COLORS[i % 4]}; font-weight: bold;")
            tag.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
            tag.setFixedWidth(tag.fontMetrics().horizontalAdvance("w") + 2)
            self.letters.append(tag)
        self._shape: tuple | None = None
        self.set_letters(letters)

    def set_letters(self, letters: list[str], columns: int | None = None) -> None:
        """Show the first ``len(letters)`` fields (non-empty letters), ``columns`` a line."""
        count = len([letter for letter in letters if letter])
        columns = columns or min(count, 3)
        for tag, letter in zip(self.letters, letters):
            tag.setText(letter)
        if self._shape == (count, columns):
            return
        self._shape = (count, columns)
        for i, (tag, field) in enumerate(zip(self.letters, self.fields)):
            self.grid.removeWidget(tag)
            self.grid.removeWidget(field)
            visible = i < count
            if visible:
                row, col = divmod(i, columns)
                self.grid.addWidget(tag, row, 2 * col)
                self.grid.addWidget(field, row, 2 * col + 1)
            tag.setVisible(visible)
            field.setVisible(visible)
        for col in range(2 * len(self.fields)):
            self.grid.setColumnStretch(col, 1 if col % 2 and col < 2 * columns else 0)


class FrameCombo(QtWidgets.QComboBox):
    """An editable list of frame names: pick one, or type one (completed as you type)
    and press Enter.  Each choice is a label and a value (``"(default: link)"`` stands
    for ``""``).  The labels live in one string-list model, set in one call, so a world
    of a thousand robots fills it at once."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(8)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding,
                           QtWidgets.QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        self.setEditable(True)
        self.setInsertPolicy(QtWidgets.QComboBox.InsertPolicy.NoInsert)
        self._model = QtCore.QStringListModel(self)
        self.setModel(self._model)
        completer = QtWidgets.QCompleter(self._model, self)
        completer.setFilterMode(QtCore.Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(QtCore.Qt.CaseSensitivity.CaseInsensitive)
        completer.setCompletionMode(QtWidgets.QCompleter.CompletionMode.PopupCompletion)
        self.setCompleter(completer)
        self._values: list[Any] = []
        self._by_label: dict[str, Any] = {}

    def set_choices(self, items: list[tuple[str, Any]]) -> None:
        """Replace the choices, ``(label, value)`` each, without emitting anything."""
        blocked = self.blockSignals(True)
        self._values = [value for _label, value in items]
        self._by_label = {label: value for label, value in items}
        self._model.setStringList([label for label, _value in items])
        self.blockSignals(blocked)

    def value_at(self, index: int) -> Any:
        return self._values[index] if 0 <= index < len(self._values) else None

    def value_of(self, text: str) -> Any:
        """The value a label stands for; typed text that is no label is itself."""
        text = text.strip()
        return self._by_label.get(text, text)

    def show_value(self, value: Any) -> None:
        """Show the choice of ``value`` (or ``value`` as text when it is none of them)."""
        blocked = self.blockSignals(True)
        try:
            index = self._values.index(value)
        except ValueError:
            index = -1
        self.setCurrentIndex(index)
        self._shown_text = self.itemText(index) if index >= 0 else str(value)
        self.setEditText(self._shown_text)
        self.blockSignals(blocked)

    def is_edited(self) -> bool:
        return self.lineEdit() is not None and \
            self.lineEdit().text() != getattr(self, "_shown_text", self.currentText())

    def _reverts_on_esc(self) -> bool:
        # An open list (the combo's, or the completions) closes on Esc first.
        return self.is_edited() and not self.view().isVisible() and \
            not self.completer().popup().isVisible()

    def event(self, event: QtCore.QEvent) -> bool:
        # Esc while typing a frame name gives the typing up (before the window's Esc
        # shortcut, Select None, can take it); with nothing typed it is the window's.
        if event.type() == QtCore.QEvent.Type.ShortcutOverride and \
                event.key() == QtCore.Qt.Key.Key_Escape and self._reverts_on_esc():
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:
        if event.key() == QtCore.Qt.Key.Key_Escape and self._reverts_on_esc():
            self.cancel_edit()
            event.accept()
            return
        super().keyPressEvent(event)

    def cancel_edit(self) -> None:
        """Give up the typed text: show the current choice again."""
        blocked = self.blockSignals(True)
        self.setEditText(getattr(self, "_shown_text", self.currentText()))
        self.blockSignals(blocked)
        self.lineEdit().selectAll()

    def labels(self) -> list[str]:
        return self._model.stringList()


def _select_data(combo: QtWidgets.QComboBox, data: Any) -> None:
    blocked = combo.blockSignals(True)
    index = combo.findData(data)
    if index >= 0:
        combo.setCurrentIndex(index)
    combo.blockSignals(blocked)


def form_group(title: str, parent: QtWidgets.QWidget
               ) -> tuple[QtWidgets.QGroupBox, QtWidgets.QFormLayout]:
    """A titled group holding a form, laid out as the inspector's (the panels share it)."""
    box = QtWidgets.QGroupBox(title, parent)
    form = QtWidgets.QFormLayout(box)
    form.setContentsMargins(8, 6, 8, 8)
    form.setHorizontalSpacing(8)
    form.setVerticalSpacing(5)
    form.setLabelAlignment(QtCore.Qt.AlignmentFlag.AlignRight
                           | QtCore.Qt.AlignmentFlag.AlignVCenter)
    form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    form.setRowWrapPolicy(QtWidgets.QFormLayout.RowWrapPolicy.DontWrapRows)
    return box, form


# -- scopes ---------------------------------------------------------------------------

def _scope_at(document, scope_key: str) -> Scope | None:
    """The scope whose key is ``scope_key`` (``""``: the root scope)."""
    scope = document.frames.root
    if scope is None or not scope_key:
        return scope
    for part in scope_key.split(SEP):
        v = scope.vertices.get(part)
        if v is None or v.nested is None:
            return None
        scope = v.nested
    return scope


def frames_in_scope(scope: Scope) -> list[str]:
    """Every frame name visible from ``scope``: its frame, its vertices and, through nested
    models, ``model::frame`` names at any depth (no upward references: SDFormat has none)."""
    out = [scope.frame_name]

    def add(s: Scope, prefix: str) -> None:
        for v in s.vertices.values():
            out.append(prefix + v.name)
            if v.nested is not None:
                add(v.nested, prefix + v.name + SEP)
    add(scope, "")
    return out


def _reaching(scope: Scope, target: str, next_of: Callable[[Any], str]) -> set[str]:
    """Vertices of ``scope`` whose chain (``next_of(vertex)``, a frame name) reaches
    ``target``: what cannot be chosen as ``target``'s frame without a cycle."""
    memo: dict[str, bool] = {target: True}
    for name in scope.vertices:
        path: list[str] = []
        current = name
        result = False
        while True:
            if current in memo:
                result = memo[current]
                break
            v = scope.vertices.get(current)
            if v is None or current in path:
                break
            path.append(current)
            current = next_of(v).partition(SEP)[0]
        for p in path:
            memo[p] = result
    return {name for name, hit in memo.items() if hit}


def _without(names: list[str], excluded: set[str]) -> list[str]:
    return [n for n in names if n.partition(SEP)[0] not in excluded]


def pose_snippet(X: Pose, relative_to: str = "") -> str:
    """An SDFormat ``<pose>`` element for ``X`` (radians, full precision)."""
    def num(v: float) -> str:
        if abs(v) < 1e-15:
            return "0"
        text = repr(float(v))
        return text[:-2] if text.endswith(".0") else text
    values = " ".join(num(v) for v in X.xyz_rpy())
    attr = f' relative_to="{html.escape(relative_to, quote=True)}"' if relative_to else ""
    return f"<pose{attr}>{values}</pose>"


def _geometry_text(geometry) -> str:
    p = geometry.params
    shape = geometry.shape

    def n(v: float) -> str:
        return f"{v:.4g}"
    if shape == "box" and "size" in p:
        return "box " + " × ".join(n(v) for v in p["size"]) + " m"
    if shape in ("cylinder", "capsule", "cone"):
        return f"{shape}  r {n(p.get('radius', 0))} m, length {n(p.get('length', 0))} m"
    if shape == "sphere":
        return f"sphere  r {n(p.get('radius', 0))} m"
    if shape == "ellipsoid" and "radii" in p:
        return "ellipsoid  radii " + " × ".join(n(v) for v in p["radii"]) + " m"
    if shape == "mesh":
        scale = p.get("scale") or (1, 1, 1)
        name = Path(str(p.get("uri", ""))).name or "?"
        extra = "" if tuple(scale) == (1, 1, 1) else "  scale " + " ".join(n(v) for v in scale)
        return f"mesh {name}{extra}"
    if shape == "plane":
        return "plane  normal " + " ".join(n(v) for v in p.get("normal", (0, 0, 1)))
    return shape


# -- the panel ------------------------------------------------------------------------

class FrameInspector(QtWidgets.QWidget):
    """Inspector of the active selection of a :class:`DocumentSession` (module docstring).

    Signals: ``openIncludeRequested(str)`` with the key of an element that belongs to an
    included file (the user asked to open that file to edit it).

    Methods: :meth:`set_session`, :meth:`set_rotation_format` (``"deg"``, ``"rad"``,
    ``"quat"``), :meth:`set_resolved_frame` (key of the frame the resolved pose is shown
    in), :meth:`refresh`.  The widgets are attributes (``pose_fields``, ``relative_to``,
    ``resolved_in``, ``joint_type``, ``axis_fields``, ``limit_fields``, ``mass``,
    ``density``...) so that scripts and tests can drive them as a user does.
    """

    openIncludeRequested = QtCore.Signal(str)

    def __init__(self, session: DocumentSession | None = None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: DocumentSession | None = None
        self.key: str | None = None
        self.node: Node | None = None
        self.rotation_format = "deg"
        #: Units the fields show and take (the core keeps metres and radians): the pose's
        #: position and linear limits in ``length_unit``, angular limits in
        #: ``angle_unit`` (the pose's rotation follows ``rotation_format``).
        self.length_unit = "m"
        self.angle_unit = "rad"
        self._units_given = False               # set_units called (the preferences')
        self._scope_key: str | None = None      # scope the element's names live in
        self._scope: Scope | None = None
        self._readonly = False
        self._resolved_key = ROOT
        self._pushing = False
        self._refusal = ""
        self._step_field: str | None = None    # the field whose steps merge into one undo step
        self._dirty = False
        self._refreshed_by_edit = False
        # Poses change many times a second while something is dragged: the refresh they
        # cause waits for the viewport's frame (a zero timer coalesces them), and the
        # chain of transforms (long for deep include chains) follows at most every
        # CHAIN_INTERVAL_MS, its last values always shown.
        self._pose_refresh = QtCore.QTimer(self)
        self._pose_refresh.setSingleShot(True)
        self._pose_refresh.setInterval(0)
        self._pose_refresh.timeout.connect(self._refresh_after_poses)
        self._chain_timer = QtCore.QTimer(self)
        self._chain_timer.setSingleShot(True)
        self._chain_timer.setInterval(CHAIN_INTERVAL_MS)
        self._chain_timer.timeout.connect(self._refresh_chain)
        self._chain_shown_at = -1e9
        self._throttle_chain = False
        # The quaternion as typed (w x y z, not normalised) while the user types it: the
        # document holds its normalisation, the fields keep what was typed, and the next
        # component typed goes with them (normalising each alone would undo the others).
        self._quat_typed: list[float] | None = None
        self._quat_node: Node | None = None
        self._build()
        app = QtWidgets.QApplication.instance()
        if app is not None:
            app.focusChanged.connect(self._on_focus_changed)
        self.set_session(session)

    # == construction ================================================================
    def _build(self) -> None:
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.scroll = QtWidgets.QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        outer.addWidget(self.scroll)
        body = QtWidgets.QWidget(self.scroll)
        self.scroll.setWidget(body)
        self._body = QtWidgets.QVBoxLayout(body)
        self._body.setContentsMargins(6, 6, 6, 6)
        self._body.setSpacing(8)
        self.placeholder = _muted("Nothing selected.\nSelect an element in the scene tree "
                                  "or the 3D view.", body)
        self.placeholder.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self._body.addWidget(self.placeholder)
        self._build_element(body)
        self._build_pose(body)
        self._build_resolved(body)
        self._build_chain(body)
        self._build_joint(body)
        self._build_inertia(body)
        self._build_geometry(body)
        self._body.addStretch(1)

    def _build_element(self, body: QtWidgets.QWidget) -> None:
        self.element_group, form = form_group("Element", body)
        head = QtWidgets.QHBoxLayout()
        head.setSpacing(6)
        self.icon_label = QtWidgets.QLabel(self.element_group)
        self.name_label = QtWidgets.QLabel(self.element_group)
        self.name_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.name_label.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.name_label.setFont(font)
        self.kind_label = _muted("", self.element_group)
        head.addWidget(self.icon_label)
        head.addWidget(self.name_label)
        head.addWidget(self.kind_label)
        head.addStretch(1)
        form.addRow(head)
        self.key_label = _value_label(self.element_group)
        _mono(self.key_label)
        form.addRow("Key", self.key_label)
        self.file_label = _value_label(self.element_group)
        form.addRow("File", self.file_label)
        self.include_label = _value_label(self.element_group)
        form.addRow("Includes", self.include_label)
        self.attached_to = FrameCombo(self.element_group)
        self.attached_to.setToolTip("The frame this frame moves with (empty: the model frame)")
        self.attached_to.activated.connect(
            lambda i: self._commit_attached(self.attached_to.itemText(i)))
        self.attached_to.lineEdit().returnPressed.connect(
            lambda: self._commit_attached(self.attached_to.currentText()))
        form.addRow("Attached to", self.attached_to)
        self.element_error = _error_label(self.element_group)
        form.addRow(self.element_error)
        # Elements of an included file: edited in that file.
        self.readonly_note = QtWidgets.QFrame(self.element_group)
        self._style_note()
        note = QtWidgets.QHBoxLayout(self.readonly_note)
        note.setContentsMargins(8, 5, 5, 5)
        self.readonly_label = QtWidgets.QLabel(self.readonly_note)
        self.readonly_label.setWordWrap(True)
        self.open_include_button = QtWidgets.QPushButton("Open included file", self.readonly_note)
        self.open_include_button.clicked.connect(self._open_include)
        note.addWidget(self.readonly_label, 1)
        note.addWidget(self.open_include_button)
        form.addRow(self.readonly_note)
        self._element_form = form
        self._body.addWidget(self.element_group)

    def _style_note(self) -> None:
        """The read-only note's colours, from the current palette (light or dark)."""
        c = theme_colors(self.palette())
        _restyle(self.readonly_note,
                 f"QFrame {{ background: {c['note']}; border: 1px solid {c['note_border']}; "
                 "border-radius: 4px; } QLabel { border: none; background: transparent; }")

    def changeEvent(self, event: QtCore.QEvent) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() in (QtCore.QEvent.Type.PaletteChange,
                            QtCore.QEvent.Type.ApplicationPaletteChange) and \
                hasattr(self, "part_density"):
            # The theme changed: colours written into styles and rich text follow it.
            self._style_note()
            for field in (*self.pose_fields.values(), *self.axis_fields.values(),
                          *self.limit_fields.values(), self.mass, self.density,
                          self.part_density):
                field.setReadOnly(field.isReadOnly())
            if self.node is not None:
                self._refresh_chain()

    def _build_pose(self, body: QtWidgets.QWidget) -> None:
        self.pose_group, form = form_group("Pose", body)
        self.relative_to = FrameCombo(self.pose_group)
        self.relative_to.setToolTip("The frame the pose is written in (only frames in the "
                                    "element's scope)")
        self.relative_to.activated.connect(
            lambda i: self._commit_relative_to(self.relative_to.value_at(i)))
        self.relative_to.lineEdit().returnPressed.connect(self._relative_to_typed)
        form.addRow("Relative to", self.relative_to)
        self.keep_in_place = QtWidgets.QCheckBox("keep in place on a frame change",
                                                 self.pose_group)
        self.keep_in_place.setChecked(True)
        self.keep_in_place.setToolTip("On: the values are recomputed so the element stays "
                                      "where it is.  Off: the values are kept and it moves.")
        form.addRow(self.keep_in_place)
        self.format_combo = QtWidgets.QComboBox(self.pose_group)
        for fid, label in ROTATION_FORMATS:
            self.format_combo.addItem(label, fid)
        self.format_combo.currentIndexChanged.connect(
            lambda i: self.set_rotation_format(self.format_combo.itemData(i)))
        form.addRow("Rotation as", self.format_combo)
        self.pose_fields: dict[str, NumberField] = {}
        for name in ("x", "y", "z"):
            self.pose_fields[name] = self._number(name, 6, 0.01, self._on_pose_value)
        for name in ("r0", "r1", "r2", "r3"):
            self.pose_fields[name] = self._number(name, 4, 1.0, self._on_pose_value)
        self.position_row = _Row(["x", "y", "z"], [self.pose_fields[n] for n in "xyz"],
                                 self.pose_group)
        self.rotation_row = _Row(["r", "p", "y", ""],
                                 [self.pose_fields[n] for n in ("r0", "r1", "r2", "r3")],
                                 self.pose_group)
        # Each label above its fields: three values with six decimals need the whole
        # width of a narrow dock.
        self.position_label = QtWidgets.QLabel("Position (m)", self.pose_group)
        self.rotation_label = QtWidgets.QLabel("Rotation (°)", self.pose_group)
        for label, row in ((self.position_label, self.position_row),
                           (self.rotation_label, self.rotation_row)):
            form.addRow(label)
            form.addRow(row)
        self.pose_error = _error_label(self.pose_group)
        form.addRow(self.pose_error)
        # An element of an included file: where to move it instead (shown with the
        # read-only fields, and again as an error when something is typed into them).
        self.pose_note = _muted("", self.pose_group)
        self.pose_note.setObjectName("readonlyPoseNote")
        self.pose_note.setWordWrap(True)
        form.addRow(self.pose_note)
        buttons = QtWidgets.QHBoxLayout()
        self.copy_pose_button = QtWidgets.QPushButton("Copy <pose>", self.pose_group)
        self.copy_pose_button.setToolTip("Copy the written pose as an SDFormat <pose> element "
                                          "(radians)")
        self.copy_pose_button.clicked.connect(self.copy_pose)
        buttons.addStretch(1)
        buttons.addWidget(self.copy_pose_button)
        form.addRow(buttons)
        self._body.addWidget(self.pose_group)

    def _build_resolved(self, body: QtWidgets.QWidget) -> None:
        self.resolved_group, form = form_group("Resolved", body)
        self.resolved_in = FrameCombo(self.resolved_group)
        self.resolved_in.setToolTip("Show the resolved pose in this frame (any frame of the "
                                    "document)")
        self.resolved_in.activated.connect(
            lambda i: self.set_resolved_frame(self.resolved_in.value_at(i)))
        self.resolved_in.lineEdit().returnPressed.connect(self._resolved_typed)
        form.addRow("In frame", self.resolved_in)
        self.resolved_position = _value_label(self.resolved_group)
        self.resolved_rotation = _value_label(self.resolved_group)
        for label in (self.resolved_position, self.resolved_rotation):
            _mono(label)
        form.addRow("Position", self.resolved_position)
        form.addRow("Rotation", self.resolved_rotation)
        self._body.addWidget(self.resolved_group)

    def _build_chain(self, body: QtWidgets.QWidget) -> None:
        self.chain_group = QtWidgets.QGroupBox("Chain of transforms", body)
        layout = QtWidgets.QVBoxLayout(self.chain_group)
        layout.setContentsMargins(8, 6, 8, 8)
        self.chain_view = QtWidgets.QTextBrowser(self.chain_group)
        self.chain_view.setOpenLinks(False)
        self.chain_view.anchorClicked.connect(self._chain_link)
        self.chain_view.setLineWrapMode(QtWidgets.QTextEdit.LineWrapMode.WidgetWidth)
        self.chain_as_text = QtWidgets.QCheckBox("as the core explains it (text)", self.chain_group)
        self.chain_as_text.toggled.connect(lambda _on: self._refresh_chain())
        layout.addWidget(self.chain_view)
        layout.addWidget(self.chain_as_text)
        self._body.addWidget(self.chain_group)

    def _build_joint(self, body: QtWidgets.QWidget) -> None:
        self.joint_group, form = form_group("Joint", body)
        self.joint_type = QtWidgets.QComboBox(self.joint_group)
        for t in JOINT_TYPES:
            self.joint_type.addItem(t, t)
        self.joint_type.activated.connect(lambda i: self._edit(
            SetJointType, self.node, self.joint_type.itemData(i), error=self.joint_error))
        form.addRow("Type", self.joint_type)
        self.parent_label = _value_label(self.joint_group)
        self.child_label = _value_label(self.joint_group)
        for label in (self.parent_label, self.child_label):
            label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextBrowserInteraction)
            label.linkActivated.connect(self._select_key)
        form.addRow("Parent", self.parent_label)
        form.addRow("Child", self.child_label)
        self.axis_index = QtWidgets.QComboBox(self.joint_group)
        self.axis_index.addItem("axis", 0)
        self.axis_index.addItem("axis2", 1)
        self.axis_index.currentIndexChanged.connect(lambda _i: self._refresh_joint())
        form.addRow("Which axis", self.axis_index)
        self.axis_fields = {n: self._number("axis." + n, 4, 0.1, self._on_axis_value)
                            for n in "xyz"}
        self.axis_row = _Row(["x", "y", "z"], [self.axis_fields[n] for n in "xyz"],
                             self.joint_group)
        form.addRow("Axis", self.axis_row)
        self.expressed_in_label = _muted("", self.joint_group)
        form.addRow("", self.expressed_in_label)
        self.limit_fields: dict[str, NumberField] = {}
        self.limit_units: dict[str, QtWidgets.QLabel] = {}
        self.limit_rows: dict[str, QtWidgets.QWidget] = {}
        for name in ("lower", "upper", "effort", "velocity"):
            field = self._number("limit." + name, 6, 0.01, self._on_limit_value, style="g",
                                 optional=True)
            field.setToolTip("Empty: no limit")
            field.cleared.connect(lambda n=name: self._on_limit_value("limit." + n, None, False))
            self.limit_fields[name] = field
            row = self._with_unit(field, "")
            self.limit_units[name] = row.unit
            self.limit_rows[name] = row
            form.addRow(name.capitalize(), row)
        self.no_axis_label = _muted("", self.joint_group)
        form.addRow(self.no_axis_label)
        self.joint_error = _error_label(self.joint_group)
        form.addRow(self.joint_error)
        self._joint_form = form
        self._body.addWidget(self.joint_group)

    def _build_inertia(self, body: QtWidgets.QWidget) -> None:
        self.inertia_group, form = form_group("Inertia", body)
        self.inertia_source = _value_label(self.inertia_group)
        form.addRow("Source", self.inertia_source)
        self.mass = self._number("mass", 6, 0.1, self._on_mass, style="g", optional=True)
        self.density = self._number("density", 6, 10.0, self._on_density, style="g",
                                    optional=True)
        self.mass.cleared.connect(lambda: self._on_mass("mass", None, False))
        self.density.cleared.connect(lambda: self._on_density("density", None, False))
        self.mass_row = self._with_unit(self.mass, "kg")
        self.density_row = self._with_unit(self.density, "kg/m³")
        form.addRow("Mass", self.mass_row)
        form.addRow("Density", self.density_row)
        self.computed_mass = _value_label(self.inertia_group)
        self.com_label = _value_label(self.inertia_group)
        self.moments_label = _value_label(self.inertia_group)
        self.tensor_label = _value_label(self.inertia_group)
        for label in (self.com_label, self.moments_label, self.tensor_label):
            _mono(label)
        form.addRow("Computed", self.computed_mass)
        form.addRow("COM", self.com_label)
        form.addRow("Principal", self.moments_label)
        form.addRow("Tensor\n(kg·m²)", self.tensor_label)
        self.inertia_error = _error_label(self.inertia_group)
        form.addRow(self.inertia_error)
        self._inertia_form = form
        self._body.addWidget(self.inertia_group)

    def _build_geometry(self, body: QtWidgets.QWidget) -> None:
        self.geometry_group, form = form_group("Geometry", body)
        self.geometry_label = _value_label(self.geometry_group)
        form.addRow("Shape", self.geometry_label)
        self.part_density = self._number("part.density", 6, 10.0, self._on_part_density,
                                         style="g", optional=True)
        self.part_density.cleared.connect(lambda: self._on_part_density("part.density", None,
                                                                        False))
        self.part_density.setToolTip("//collision/density (empty: the link's, else 1000)")
        self.part_density_row = self._with_unit(self.part_density, "kg/m³")
        form.addRow("Density", self.part_density_row)
        self.geometry_error = _error_label(self.geometry_group)
        form.addRow(self.geometry_error)
        self._geometry_form = form
        self._body.addWidget(self.geometry_group)

    def _number(self, name: str, decimals: int, step: float,
                handler: Callable[[str, float | None, bool], None], style: str = "f",
                optional: bool = False) -> NumberField:
        field = NumberField(decimals, step, style, optional, self)
        field.setObjectName(name)
        field.committed.connect(lambda v, n=name: handler(n, v, False))
        field.stepped.connect(lambda v, n=name: handler(n, v, True))
        field.invalid.connect(lambda reason, f=field: self._invalid(f, reason))
        field.readOnlyTyped.connect(lambda f=field: self._readonly_typed(f))
        return field

    def _with_unit(self, field: QtWidgets.QWidget, unit: str) -> QtWidgets.QWidget:
        box = QtWidgets.QWidget(self)
        row = QtWidgets.QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(field, 1)
        label = _muted(unit, box)
        label.setMinimumWidth(40)
        row.addWidget(label)
        box.unit = label  # type: ignore[attr-defined]
        return box

    # == session =====================================================================
    def set_session(self, session: DocumentSession | None) -> None:
        """Inspect ``session``'s selection (None: nothing)."""
        if self.session is not None:
            for signal, slot in self._connections():
                try:
                    signal.disconnect(slot)
                except (RuntimeError, TypeError):
                    pass
        self.session = session
        self._resolved_key = ROOT
        if session is not None:
            for signal, slot in self._connections():
                signal.connect(slot)
        self._fill_resolved_frames()
        # forced: "nothing selected" must be laid out even when nothing was before
        self._show(session.selection.active if session is not None else None, force=True)

    def _connections(self):
        s = self.session
        assert s is not None
        return [(s.selectionChanged, self._on_selection), (s.posesChanged, self._on_poses),
                (s.edited, self._on_edited), (s.inertiaChanged, self._on_inertia),
                (s.structureChanged, self._on_structure), (s.refused, self._on_refused)]

    def _on_selection(self, _event) -> None:
        # In a large document the chain box is filled on the next turn of the event loop
        # (a robot deep in a chained world has thousands of steps to explain): the
        # view's outline and these fields answer the click first.
        self._chain_later = self.session is not None and \
            len(self.session.live.poses) > CHAIN_LATER_KEYS
        try:
            self._show(self.session.selection.active if self.session is not None else None)
        finally:
            self._chain_later = False

    def _on_poses(self, event) -> None:
        if self._refreshed_by_edit:
            # The core announces an action's edits first, then its poses: the refresh on
            # the edit already showed them.
            self._refreshed_by_edit = False
            return
        keys = set(event.keys)
        if self.key is not None and (self.key in keys or self._resolved_key in keys):
            self._pose_refresh.start()

    def _refresh_after_poses(self) -> None:
        self._throttle_chain = True
        try:
            self.refresh()
        finally:
            self._throttle_chain = False

    def _on_edited(self, event) -> None:
        self._refreshed_by_edit = False
        if self.node is None:
            return
        node = self.node
        related = (lambda n: n is node or n is node.parent or n.parent is node)
        if any(set(c.fields) & _TOPOLOGY for c in event.changes):
            # What a frame is written in or attached to changed: the scope's graph was
            # built again, and the frames offered (no cycles) may differ.
            self._show(self.key, force=True)
        elif any(related(n) for c in event.changes for n in c.nodes):
            self._refresh_after_poses()   # (a drag edits many times a second)
        else:
            return
        self._refreshed_by_edit = True

    def _on_inertia(self, event) -> None:
        if self.key is not None and split_part(self.key)[0] in event.keys:
            self._refresh_inertia()

    def _on_structure(self, _event) -> None:
        self._fill_resolved_frames()
        self._show(self.session.selection.active if self.session is not None else None,
                   force=True)

    def _on_refused(self, reason: str) -> None:
        if self._pushing:
            self._refusal = reason

    # == what is shown ===============================================================
    def _show(self, key: str | None, force: bool = False) -> None:
        session = self.session
        node = session.document.element(key) if session is not None and key is not None else None
        if key == self.key and node is self.node and not force:
            return
        self.key, self.node = (key, node) if node is not None else (None, None)
        self._step_field = None
        self._quat_typed, self._quat_node = None, None
        for label in (self.pose_error, self.element_error, self.joint_error, self.inertia_error,
                      self.geometry_error):
            _show_error(label, "")
        if self.node is None:
            self._scope_key, self._scope = None, None
            self._set_visible(placeholder=True)
            self.placeholder.setText("No document open." if session is None else
                                     "Nothing selected.\nSelect an element in the scene tree "
                                     "or the 3D view.")
            return
        document = session.document
        # Names in the element's pose live in its scope: the key minus its last name (a
        # visual's or collision's: its link's scope).  The root has no scope around it.
        head = split_part(self.key)[0]
        if self.key == ROOT:
            self._scope_key = None
        else:
            self._scope_key = head.rpartition(SEP)[0] if SEP in head else ROOT
        self._scope = _scope_at(document, self._scope_key) if self._scope_key is not None else None
        self._readonly = is_inside_include(node, document.root)
        self._set_visible(placeholder=False)
        self._fill_scope_frames()
        self.refresh()

    def _set_visible(self, placeholder: bool) -> None:
        node = self.node
        self.placeholder.setVisible(placeholder)
        self.element_group.setVisible(not placeholder)
        posed = not placeholder and isinstance(node, _POSED)
        self.pose_group.setVisible(posed)
        self.resolved_group.setVisible(not placeholder and not isinstance(node, World))
        self.chain_group.setVisible(not placeholder and not isinstance(node, World))
        self.joint_group.setVisible(isinstance(node, Joint))
        self.inertia_group.setVisible(isinstance(node, Link))
        self.geometry_group.setVisible(isinstance(node, (Visual, Collision)))

    def refresh(self) -> None:
        """Show the current values of the inspected element again."""
        if self.node is None or self.session is None:
            return
        if not self.isVisible():
            self._dirty = True   # refreshed when shown: a hidden inspector costs nothing
            return
        self._dirty = False
        # The node may have been replaced (undo of a removal, a reload): look it up again.
        node = self.session.document.element(self.key) if self.key is not None else None
        if node is None:
            self._show(None)
            return
        self.node = node
        self._refresh_element()
        self._refresh_pose()
        self._refresh_resolved()
        self._refresh_chain()
        if isinstance(node, Joint):
            self._refresh_joint()
        if isinstance(node, Link):
            self._refresh_inertia()
        if isinstance(node, (Visual, Collision)):
            self._refresh_geometry()

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    # -- element ----------------------------------------------------------------------
    def _kind_of(self) -> str:
        node = self.node
        if isinstance(node, Include):
            return "include"
        return node.kind if node is not None else ""

    def _refresh_element(self) -> None:
        node, document = self.node, self.session.document
        kind = self._kind_of()
        self.icon_label.setPixmap(kind_icon(kind, 18).pixmap(18, 18))
        name = node.effective_name if isinstance(node, Include) else node.name
        self.name_label.setText(name or frame_label(document, ROOT))
        kind_text = kind.replace("_", " ")
        if isinstance(node, Joint):
            kind_text = f"{node.type} joint"
        elif isinstance(node, Include) and node.model is not None:
            kind_text = "include (model)"
        elif self.key == ROOT:
            kind_text = f"{kind_text} (root)"
        self.kind_label.setText(kind_text)
        self.key_label.setText(self.key or "(root)")
        source = node.source
        if source.file:
            self.file_label.setText(f"{Path(source.file).name}, line {source.line}"
                                    if source.line else Path(source.file).name)
            self.file_label.setToolTip(str(source))
        else:
            self.file_label.setText("—")
            self.file_label.setToolTip("")
        form = self._element_form
        is_include = isinstance(node, Include)
        form.setRowVisible(self.include_label, is_include)
        if is_include:
            target = Path(node.resolved_path).name if node.resolved_path else "(not loaded)"
            placement = node.placement_frame or (node.model.placement_frame if node.model else "")
            text = f"{html.escape(node.uri)} → {html.escape(target)}"
            if placement:
                text += f"<br>placement_frame: <b>{html.escape(placement)}</b>"
            self.include_label.setText(text)
        is_frame = isinstance(node, Frame)
        form.setRowVisible(self.attached_to, is_frame)
        if is_frame:
            self.attached_to.setEnabled(not self._readonly)
            current = node.attached_to
            self.attached_to.show_value(current)
        self.readonly_note.setVisible(self._readonly)
        if self._readonly:
            where = Path(node.source.file).name if node.source.file else "an included file"
            self.readonly_label.setText(
                f"Belongs to <b>{html.escape(where)}</b>, included here and shared by every "
                "instance of it: edit it in that file.")
        self.pose_note.setText(self._readonly_reason() if self._readonly else "")
        self.pose_note.setVisible(self._readonly)

    def _fill_scope_frames(self) -> None:
        """Offer the frames of the element's scope for relative_to and attached_to."""
        node, scope = self.node, self._scope
        names = frames_in_scope(scope) if scope is not None else []
        own = split_part(self.key or "")[0].rpartition(SEP)[2]
        rel_names = names
        if scope is not None and not isinstance(node, (Visual, Collision)) and own:
            # Not itself, nothing inside it, nothing whose pose depends on it (a cycle).
            blocked = _reaching(scope, own, lambda v: v.relative_to(scope.frame_name))
            rel_names = _without(names, blocked)
        default = self._default_frame()
        items = [(f"(default: {default})", "")] + [(n, n) for n in rel_names]
        self.relative_to.set_choices(items)
        if isinstance(node, Frame) and scope is not None:
            blocked = _reaching(scope, own, lambda v: (
                v.node.attached_to or scope.frame_name if v.kind == "frame" else
                v.node.child_name if v.kind == "joint" else scope.frame_name))
            att = [n for n in _without(names, blocked) if n != scope.frame_name]
            self.attached_to.set_choices([(f"(default: {scope.frame_name})", "")]
                       + [(n, n) for n in att])

    def _default_frame(self) -> str:
        node = self.node
        frame = self._scope.frame_name if self._scope is not None else MODEL_FRAME
        if isinstance(node, (Visual, Collision)):
            return node.parent.name if node.parent is not None else "the link"
        if isinstance(node, Joint):
            return node.child_name or "the child"
        if isinstance(node, Frame) and node.attached_to:
            return node.attached_to
        return frame

    def _commit_attached(self, text: str) -> None:
        node = self.node
        if not isinstance(node, Frame) or self._readonly:
            return
        value = self.attached_to.value_of(text)
        if value == node.attached_to:
            return
        self._edit(SetAttachedTo, node, value, error=self.element_error)

    def _readonly_reason(self) -> str:
        """Why an element of an included file is not edited here, and what to do."""
        outer = self._outer_include_key()
        where = f"include {outer}" if outer else "an included file"
        return f"Read-only, inside {where}: move the include, or open the file to edit it."

    def _outer_include_key(self) -> str:
        """The key of the document's own include that holds the inspected element."""
        if self.session is None or not self.key:
            return ""
        document = self.session.document
        parts = split_part(self.key)[0].split(SEP)
        for i in range(1, len(parts)):
            prefix = SEP.join(parts[:i])
            node = document.element(prefix)
            if isinstance(node, Include) and not is_inside_include(node, document.root):
                return prefix
        return ""

    def _readonly_typed(self, field: NumberField) -> None:
        """Something was typed into a read-only field: nothing changes, and it says why."""
        if not self._readonly:
            return
        error = next((label for group, label in (
            (self.pose_group, self.pose_error), (self.joint_group, self.joint_error),
            (self.inertia_group, self.inertia_error),
            (self.geometry_group, self.geometry_error)) if group.isAncestorOf(field)),
            self.pose_error)
        _show_error(error, self._readonly_reason())

    def _open_include(self) -> None:
        if self.key is not None:
            self.openIncludeRequested.emit(self.key)

    def _select_key(self, key: str) -> None:
        if self.session is not None:
            self.session.selection.select(key)

    # -- pose -------------------------------------------------------------------------
    def _spec(self):
        spec = getattr(self.node, "pose", None)
        if spec is None and isinstance(self.node, Include) and self.node.model is not None:
            return self.node.model.pose   # what the include uses when it writes no pose
        return spec

    def _written(self) -> tuple[Pose, str]:
        spec = self._spec()
        if spec is None:
            return IDENTITY, ""
        return spec.value, spec.relative_to

    def _refresh_pose(self) -> None:
        if not isinstance(self.node, _POSED):
            return
        X, rel = self._written()
        self.relative_to.show_value(rel)
        editable = not self._readonly
        self.relative_to.setEnabled(editable and self._scope is not None)
        self.keep_in_place.setEnabled(editable)
        for field in self.pose_fields.values():
            field.setReadOnly(not editable)
        values = list(X.p)
        scale = length_scale(self.length_unit)
        for name, v in zip("xyz", values):
            field = self.pose_fields[name]
            field.decimals = length_decimals(self.length_unit)
            field.step = length_step(self.length_unit)
            field.setValue(v * scale)
        self.position_label.setText(f"Position ({self.length_unit})")
        fmt = self.rotation_format
        quat = fmt == "quat"
        if quat:
            rot = list(X.quat())
            self.rotation_row.set_letters(["w", "x", "y", "z"], columns=2)
        else:
            rot = [math.degrees(a) if fmt == "deg" else a for a in X.rpy()]
            self.rotation_row.set_letters(["r", "p", "y", ""])
        self.rotation_label.setText("Rotation (quaternion w x y z)" if quat else
                                    ("Rotation (°)" if fmt == "deg" else "Rotation (rad)"))
        if quat:
            typed = self._typed_quaternion(X)
            if typed is not None:
                rot = typed   # what the user typed, while it is what the document holds
        for name, value in zip(("r0", "r1", "r2", "r3"), rot):
            field = self.pose_fields[name]
            field.decimals = 4 if fmt == "deg" else 6
            field.step = angle_step(fmt) if fmt != "quat" else 0.01
            field.setValue(value)
        placement = ""
        if isinstance(self.node, Include):
            placement = self.node.placement_frame or \
                (self.node.model.placement_frame if self.node.model is not None else "")
        self.pose_group.setTitle(f"Pose (places {placement})" if placement else "Pose")

    def _pose_with(self, field: str, value: float) -> Pose:
        """The written pose with one component replaced (the others keep their exact
        value, not the rounded one on screen)."""
        X, _rel = self._written()
        if field in ("x", "y", "z"):
            p = list(X.p)
            p["xyz".index(field)] = value / length_scale(self.length_unit)
            return Pose(X.R, p)
        i = int(field[1])
        if not math.isfinite(value):
            raise ValueError("a rotation must be finite")  # (a position: the core says so)
        if self.rotation_format == "quat":
            q = list(X.quat())
            q[i] = value
            return Pose.from_xyz_quat(X.p, q)   # normalised; ValueError for a zero one
        rpy = list(X.rpy())
        rpy[i] = math.radians(value) if self.rotation_format == "deg" else value
        return Pose.from_xyz_rpy(*X.p, *rpy)

    def _on_pose_value(self, field: str, value: float | None, step: bool) -> None:
        if value is None or self.node is None:
            return
        if self.rotation_format == "quat" and field.startswith("r"):
            self._quat_value(int(field[1]), value, step)
            return
        try:
            pose = self._pose_with(field, value)
        except ValueError as exc:
            _show_error(self.pose_error, f"{exc}: nothing changed")
            self.pose_fields[field].revert()
            return
        ok = self._edit(SetPose, self.node, pose, None, error=self.pose_error,
                        merge_field=("pose", field) if step else None)
        if not ok:
            self.pose_fields[field].revert()

    # -- quaternions: typed one component at a time --------------------------------------
    def _quat_fields(self) -> list[NumberField]:
        return [self.pose_fields[f"r{i}"] for i in range(4)]

    def _typed_quaternion(self, X: Pose) -> list[float] | None:
        """The quaternion as the user typed it, if it is still what the document holds
        (an undo, a drag or another element forget it)."""
        typed = self._quat_typed
        if typed is None or self._quat_node is not self.node:
            return None
        try:
            if np.allclose(Pose.from_xyz_quat(X.p, typed).matrix(), X.matrix(), atol=1e-9):
                return list(typed)
        except ValueError:
            pass
        self._quat_typed, self._quat_node = None, None
        return None

    def _quat_value(self, index: int, value: float, step: bool) -> None:
        """One component typed (or stepped): with the others as typed before, normalised
        into the document at once; the fields keep the typed values until the focus
        leaves them.  A zero quaternion is refused."""
        field = self.pose_fields[f"r{index}"]
        if not math.isfinite(value):
            _show_error(self.pose_error, "a rotation must be finite: nothing changed")
            field.revert()
            return
        node = self.node
        X, _rel = self._written()
        typed = self._typed_quaternion(X)
        q = list(typed) if typed is not None else list(X.quat())
        q[index] = value
        try:
            pose = Pose.from_xyz_quat(X.p, q)
        except ValueError as exc:
            _show_error(self.pose_error, f"{exc}: nothing changed")
            field.revert()
            return
        self._quat_typed, self._quat_node = q, node
        if np.allclose(pose.matrix(), X.matrix(), atol=1e-15):
            _show_error(self.pose_error, "")   # the same rotation: nothing to write
            self._refresh_pose()
            return
        if not self._edit(SetPose, node, pose, None, error=self.pose_error,
                          merge_field=("pose", f"r{index}") if step else None):
            self._quat_typed = typed
            field.revert()

    def _on_focus_changed(self, _old: QtWidgets.QWidget | None,
                          new: QtWidgets.QWidget | None) -> None:
        # Done with the quaternion (the focus went elsewhere in the window): show it
        # normalised, as the document holds it.
        if self._quat_typed is None or new is None:
            return
        if any(new is f or f.isAncestorOf(new) for f in self._quat_fields()):
            return
        self._quat_typed, self._quat_node = None, None
        if self.node is not None and self.rotation_format == "quat":
            self._refresh_pose()

    def _relative_to_typed(self) -> None:
        self._commit_relative_to(self.relative_to.value_of(self.relative_to.currentText()))

    def _commit_relative_to(self, value: str | None) -> None:
        node = self.node
        if node is None or value is None or self._readonly:
            return
        _X, current = self._written()
        if value == current:
            return
        keep = self.keep_in_place.isChecked()
        if isinstance(node, (Visual, Collision)) and keep:
            pose = self._part_value_in(value)
            if pose is None:
                self._refresh_pose()
                return
            self._edit(SetPose, node, pose, value, error=self.pose_error)
        else:
            self._edit(SetRelativeTo, node, value, keep_world_pose=keep, error=self.pose_error)
        self._refresh_pose()

    def _frame_key(self, name: str) -> str:
        """Key of a frame named ``name`` in the element's scope."""
        scope_key = self._scope_key or ROOT
        frame = self._scope.frame_name if self._scope is not None else MODEL_FRAME
        if name in ("", frame):
            return scope_key
        if name.endswith(SEP + MODEL_FRAME):
            name = name[: -len(SEP + MODEL_FRAME)]
        return join_key(scope_key, name)

    def _part_value_in(self, relative_to: str) -> Pose | None:
        """A visual's or collision's pose written in another frame, keeping it in place
        (X_rel_part = X_W_rel^-1 X_W_part, from the pose table)."""
        poses = self.session.live.poses
        node = self.node
        link_key = split_part(self.key)[0]
        rel_key = link_key if relative_to in ("", node.parent.name) else \
            self._frame_key(relative_to)
        if self.key not in poses or rel_key not in poses:
            _show_error(self.pose_error, f"cannot keep the {node.kind} in place: "
                        f"[{relative_to}] has no resolved pose")
            return None
        X_W_part = Pose.from_matrix(poses.pose(self.key))
        X_W_rel = Pose.from_matrix(poses.pose(rel_key))
        return X_W_rel.inverse() @ X_W_part

    def set_rotation_format(self, fmt: str) -> None:
        """Show rotations as ``"deg"`` or ``"rad"`` (roll, pitch, yaw) or ``"quat"``."""
        if fmt not in {f for f, _ in ROTATION_FORMATS}:
            raise ValueError(f"unknown rotation format {fmt!r}")
        if fmt != self.rotation_format:
            self._quat_typed, self._quat_node = None, None
        self.rotation_format = fmt
        index = self.format_combo.findData(fmt)
        if self.format_combo.currentIndex() != index:
            self.format_combo.setCurrentIndex(index)
        self._step_field = None
        if self.node is not None:
            self._refresh_pose()
            self._refresh_resolved()
            self._refresh_chain()

    def set_units(self, length: str, angle: str) -> None:
        """Show and take lengths in ``length`` (``"m"``, ``"mm"``) and angles in ``angle``
        (``"deg"``, ``"rad"``: the pose's rotation and angular joint limits); values in
        the document stay in metres and radians.  ValueError for an unknown unit."""
        length_scale(length)
        angle_scale(angle)
        angle_changed = angle != self.angle_unit or not self._units_given
        self._units_given = True
        self.length_unit, self.angle_unit = length, angle
        self.position_label.setText(f"Position ({length})")
        # The rotation follows the preferences' angle unit when that is given or changes;
        # a quaternion view, or another length unit, leaves the format chosen alone.
        if angle_changed and self.rotation_format not in ("quat", angle):
            self.set_rotation_format(angle)
        self.refresh()

    def _limit_scale(self) -> float:
        """Shown value per document value of the selected joint's lower/upper limits."""
        joint = self.node
        if isinstance(joint, Joint) and joint.type in _ANGULAR:
            return angle_scale(self.angle_unit)
        return length_scale(self.length_unit)

    def copy_pose(self) -> str:
        """Copy the written pose as an SDFormat ``<pose>`` element; returns the text."""
        X, rel = self._written()
        text = pose_snippet(X, rel)
        QtWidgets.QApplication.clipboard().setText(text)
        return text

    # -- resolved ---------------------------------------------------------------------
    def _fill_resolved_frames(self) -> None:
        session = self.session
        if session is None:
            self.resolved_in.set_choices([])
            return
        document = session.document
        root = root_label(document)
        label = root if isinstance(document.root, World) else f"{root} (top model)"
        keys = [k for k in session.live.poses.keys if k and "#" not in k]
        self.resolved_in.set_choices([(label, ROOT)] + [(k, k) for k in keys])
        if self._resolved_key not in session.live.poses:
            self._resolved_key = ROOT
        self.resolved_in.show_value(self._resolved_key)

    def _resolved_typed(self) -> None:
        self.set_resolved_frame(self.resolved_in.value_of(self.resolved_in.currentText()))

    def set_resolved_frame(self, key: str) -> None:
        """Show the resolved pose in the frame ``key`` (``""``: the root frame)."""
        self._resolved_key = key or ROOT
        self.resolved_in.show_value(self._resolved_key)
        self._refresh_resolved()

    def resolved_pose(self) -> Pose | None:
        """X_AF: the inspected element F in the chosen frame A, from the live pose table
        (``X_AF = X_WA^-1 X_WF``); None when either has no resolved pose."""
        if self.session is None or self.key is None:
            return None
        poses = self.session.live.poses
        if self.key not in poses or self._resolved_key not in poses:
            return None
        X_WF = poses.pose(self.key)
        X_WA = poses.pose(self._resolved_key)
        return Pose.from_matrix(np.linalg.solve(X_WA, X_WF))

    def _refresh_resolved(self) -> None:
        if self.node is None or isinstance(self.node, World):
            return
        X = self.resolved_pose()
        if X is None:
            missing = self.key if self.key not in self.session.live.poses else self._resolved_key
            self.resolved_position.setText(f"[{frame_label(self.session.document, missing)}] "
                                           "has no resolved pose (see the diagnostics)")
            _restyle(self.resolved_position, _ERROR_STYLE)
            self.resolved_rotation.setText("")
            return
        _restyle(self.resolved_position, "")
        scale, unit = length_scale(self.length_unit), self.length_unit
        self.resolved_position.setText("  ".join(
            _fmt(v * scale, length_decimals(unit), "f") for v in X.p) + f"  {unit}")
        fmt = self.rotation_format
        if fmt == "quat":
            w, x, y, z = (_fmt(v, 6, "f") for v in X.quat())
            text = f"w {w}  x {x}\ny {y}  z {z}"
        elif fmt == "deg":
            text = "  ".join(_fmt(math.degrees(v), 4, "f") for v in X.rpy()) + "  °"
        else:
            text = "  ".join(_fmt(v, 6, "f") for v in X.rpy()) + "  rad"
        self.resolved_rotation.setText(text)

    # -- chain ------------------------------------------------------------------------
    def _refresh_chain(self) -> None:
        if self.node is None or self.session is None or isinstance(self.node, World):
            return
        if getattr(self, "_chain_later", False):
            QtCore.QTimer.singleShot(0, self, self._refresh_chain)
            return
        now = time.monotonic()
        if self._throttle_chain and now - self._chain_shown_at < CHAIN_INTERVAL_MS / 1000:
            # a debounce: the chain follows once the poses stop changing (after a drag)
            self._chain_shown_at = now
            self._chain_timer.start()
            return
        self._chain_timer.stop()
        self._chain_shown_at = now
        document = self.session.document
        if self.chain_as_text.isChecked():
            name = split_part(self.key)[0]
            lines = document.frames.explain(name) if name else ["the root frame (identity)"]
            self.chain_view.setPlainText("\n".join(lines))
            self._fit_chain()
            return
        try:
            steps = explain_steps(document, self.key)
        except Exception:   # an explanation must never take the panel down
            _log.exception("explain_steps failed for %r", self.key)
            steps = []
        self.chain_view.setHtml(self.chain_html(steps))
        self._fit_chain()

    def _fit_chain(self) -> None:
        """As tall as the chain (the panel scrolls), within reason."""
        view = self.chain_view
        document = view.document()
        document.setTextWidth(view.viewport().width())
        height = int(document.size().height()) + 2 * view.frameWidth() + 4
        view.setFixedHeight(max(120, min(height, 560)))

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.node is not None:
            QtCore.QTimer.singleShot(0, self._fit_chain)   # after the layout took the width

    def chain_html(self, steps: list[Step]) -> str:
        """The steps as the chain box shows them: each transform with its numbers."""
        document = self.session.document
        fmt = self.rotation_format
        root = html.escape(root_label(document))

        length = self.length_unit      # the units preference, as the pose fields show

        def pose(X: Pose) -> str:
            text = format_pose(X, fmt, 4 if fmt == "deg" else 6, compact=True, length=length)
            return f"<code>{html.escape(text)}</code>"
        muted = _muted_style()
        if not steps:
            return f"<p>The root frame: <b>{root}</b> (identity).</p>"
        out = [f"<p style='{muted}'>From <b>{root}</b> outwards: each step composes a "
               "written &lt;pose&gt; with the frame it is written in.</p>"]
        first = max(0, len(steps) - CHAIN_STEPS_SHOWN)
        if first:
            # (each step's result is in the root frame: the steps shown need no others)
            start = steps[first].relative_to
            out.append(f"<p style='{muted}'>{first} earlier steps place "
                       f"<a href='{html.escape(start, quote=True)}'>"
                       f"{html.escape(frame_label(document, start))}</a> "
                       f"(select it for them).</p>")
        for i, s in enumerate(steps[first:], first + 1):
            frame = html.escape(frame_label(document, s.frame))
            if s.problem:
                out.append(f"<p><b>{i}. {frame}</b><br><span style='{_ERROR_STYLE}'>"
                           f"{html.escape(s.problem)}</span></p>")
                continue
            rel = html.escape(frame_label(document, s.relative_to))
            link = f"<a href='{html.escape(s.frame, quote=True)}'>{frame}</a>"
            where = f"{Path(s.source.file).name}:{s.source.line}" \
                if s.source is not None and s.source.file and s.source.line else ""
            lines = [f"<b>{i}. {link}</b> <span style='{muted}'>{s.kind.replace('_', ' ')}"
                     f"{' · ' + where if where else ''}</span>",
                     f"&nbsp;&nbsp;&lt;pose&gt; in <b>{rel}</b> "
                     f"<span style='{muted}'>({html.escape(s.reason)})</span>",
                     f"&nbsp;&nbsp;&nbsp;&nbsp;{pose(s.written)}"]
            if s.placement is not None:
                lines.append(f"&nbsp;&nbsp;places <b>{html.escape(s.placement_frame)}</b>, so "
                             f"· inverse({pose(s.placement)})")
            lines.append(f"&nbsp;&nbsp;⇒ in {root}: <b>{pose(s.composed)}</b>")
            out.append("<p style='margin-bottom:6px'>" + "<br>".join(lines) + "</p>")
        return "".join(out)

    def _chain_link(self, url: QtCore.QUrl) -> None:
        self._select_key(url.toString())

    # -- joint ------------------------------------------------------------------------
    def _refresh_joint(self) -> None:
        joint = self.node
        if not isinstance(joint, Joint):
            return
        editable = not self._readonly
        _select_data(self.joint_type, joint.type)
        self.joint_type.setEnabled(editable)
        scope_key = self._scope_key or ROOT
        poses = self.session.live.poses

        def link(name: str) -> str:
            key = ROOT if name == "world" else join_key(scope_key, name)
            text = html.escape(name or "—")
            return f"<a href='{html.escape(key, quote=True)}'>{text}</a>" if key in poses else text
        self.parent_label.setText(link(joint.parent_name))
        self.child_label.setText(link(joint.child_name))
        form = self._joint_form
        has_axis = joint.type not in ("fixed", "ball")
        two = joint.type in _TWO_AXES
        form.setRowVisible(self.axis_index, has_axis and two)
        index = self.axis_index.currentData() if two else 0
        axis = joint.axes[index] if index < len(joint.axes) else JointAxis()
        for widget in (self.axis_row, self.expressed_in_label, *self.limit_rows.values()):
            form.setRowVisible(widget, has_axis)
        form.setRowVisible(self.no_axis_label, not has_axis)
        self.no_axis_label.setText(f"A {joint.type} joint has no axis." if not has_axis else "")
        if not has_axis:
            return
        for name, v in zip("xyz", axis.xyz):
            self.axis_fields[name].setValue(v)
            self.axis_fields[name].setReadOnly(not editable)
        self.expressed_in_label.setText(f"expressed in {axis.expressed_in}"
                                        if axis.expressed_in else "expressed in the joint frame")
        angular = joint.type in _ANGULAR
        position = "°" if angular and self.angle_unit == "deg" else \
            self.angle_unit if angular else self.length_unit
        units = {"lower": position, "upper": position,
                 "effort": "N·m" if angular else "N", "velocity": "rad/s" if angular else "m/s"}
        for name, field in self.limit_fields.items():
            value = getattr(axis, name)
            if name in ("lower", "upper"):
                # an arrow key adds a step of the unit shown (1° or 1 mm), as in the pose
                field.step = angle_step(self.angle_unit) if angular else \
                    length_step(self.length_unit)
                if value is not None:
                    value *= self._limit_scale()
            field.setValue(value)
            field.setReadOnly(not editable)
            field.lineEdit().setPlaceholderText("none")
            self.limit_units[name].setText(units[name])

    def _axis_index(self) -> int:
        joint = self.node
        return self.axis_index.currentData() if isinstance(joint, Joint) and \
            joint.type in _TWO_AXES else 0

    def _current_axis(self) -> JointAxis:
        joint = self.node
        index = self._axis_index()
        return joint.axes[index] if index < len(joint.axes) else JointAxis()

    def _on_axis_value(self, field: str, value: float | None, step: bool) -> None:
        if value is None or not isinstance(self.node, Joint):
            return
        xyz = list(self._current_axis().xyz)
        xyz["xyz".index(field[-1])] = value
        if not self._edit(SetJointAxis, self.node, self._axis_index(), xyz=xyz,
                          error=self.joint_error, merge_field=("axis", field) if step else None):
            self.axis_fields[field[-1]].revert()

    def _on_limit_value(self, field: str, value: float | None, step: bool) -> None:
        if not isinstance(self.node, Joint):
            return
        name = field.partition(".")[2]
        if value is not None and name in ("lower", "upper"):
            value /= self._limit_scale()
        if not self._edit(SetJointAxis, self.node, self._axis_index(), **{name: value},
                          error=self.joint_error, merge_field=("limit", name) if step else None):
            self.limit_fields[name].revert()

    # -- inertia ----------------------------------------------------------------------
    def _refresh_inertia(self) -> None:
        link = self.node
        if not isinstance(link, Link) or self.session is None:
            return
        inertial = link.inertial
        form = self._inertia_form
        editable = not self._readonly and inertial is not None
        self.mass.setReadOnly(not editable)
        self.density.setReadOnly(not editable)
        auto = inertial is not None and inertial.auto
        form.setRowVisible(self.density_row, auto)
        form.setRowVisible(self.computed_mass, auto)
        mp = None
        if inertial is None:
            self.inertia_source.setText("no &lt;inertial&gt; written: SDFormat's defaults "
                                        "(1 kg, unit inertia)")
            self.mass.setValue(None)
        elif auto:
            result = self.session.live.inertia.of(link)
            mp = result.mass_properties if result is not None else inertial.computed
            count = len(link.collisions)
            self.inertia_source.setText(f"computed from {count} collision{'s' * (count != 1)} "
                                        "(auto)")
            self.mass.setValue(inertial.mass)
            self.mass.lineEdit().setPlaceholderText("from density")
            self.mass.setToolTip("//inertial/mass: rescales the computed inertia "
                                 "(empty: the mass comes from the density)")
            self.density.setValue(inertial.density)
            self.density.lineEdit().setPlaceholderText("1000 (default)")
            if mp is None:
                problems = [d.message for d in (result.diagnostics if result else [])]
                self.computed_mass.setText("cannot be computed" +
                                           (": " + "; ".join(problems) if problems else ""))
                _restyle(self.computed_mass, _ERROR_STYLE)
            else:
                _restyle(self.computed_mass, "")
                self.computed_mass.setText(f"{mp.mass:.6g} kg" + (" (approximate)"
                                                                  if mp.approximate else ""))
        else:
            self.inertia_source.setText("as written in the file")
            self.mass.setValue(inertial.mass if inertial.mass is not None else 1.0)
            self.mass.setToolTip("//inertial/mass")
            from snapframe.core.inertia.mass_properties import MassProperties
            I_C = np.array([[inertial.ixx, inertial.ixy, inertial.ixz],
                            [inertial.ixy, inertial.iyy, inertial.iyz],
                            [inertial.ixz, inertial.iyz, inertial.izz]])
            mp = MassProperties.from_inertial_frame(
                inertial.mass if inertial.mass is not None else 1.0, inertial.pose.value, I_C)
        if mp is None:
            for label in (self.com_label, self.moments_label, self.tensor_label):
                label.setText("—")
            return
        self.com_label.setText("  ".join(_fmt(v, 6, "f") for v in mp.com) + "  m")
        moments, _R = mp.principal()
        self.moments_label.setText("  ".join(f"{v:.5g}" for v in moments) + "  kg·m²")
        I = mp.inertia
        self.tensor_label.setText("\n".join("  ".join(f"{v:<9.5g}" for v in row).rstrip()
                                            for row in I))
        self.tensor_label.setToolTip("ixx ixy ixz / ixy iyy iyz / ixz iyz izz: about the "
                                     "centre of mass, in the link frame's axes (kg·m²)")

    def _on_mass(self, _field: str, value: float | None, step: bool) -> None:
        if isinstance(self.node, Link) and not self._edit(
                SetMass, self.node, value, error=self.inertia_error,
                merge_field=("mass",) if step else None):
            self.mass.revert()

    def _on_density(self, _field: str, value: float | None, step: bool) -> None:
        if isinstance(self.node, Link) and not self._edit(
                SetDensity, self.node, value, error=self.inertia_error,
                merge_field=("density",) if step else None):
            self.density.revert()

    # -- geometry ---------------------------------------------------------------------
    def _refresh_geometry(self) -> None:
        part = self.node
        if not isinstance(part, (Visual, Collision)):
            return
        self.geometry_label.setText(_geometry_text(part.geometry))
        is_collision = isinstance(part, Collision)
        self._geometry_form.setRowVisible(self.part_density_row, is_collision)
        if is_collision:
            self.part_density.setValue(part.density)
            self.part_density.setReadOnly(self._readonly)
            link = part.parent
            inherited = link.inertial.density if isinstance(link, Link) and link.inertial \
                and link.inertial.density is not None else None
            self.part_density.lineEdit().setPlaceholderText(
                f"{inherited:g} (the link's)" if inherited is not None else "1000 (default)")

    def _on_part_density(self, _field: str, value: float | None, step: bool) -> None:
        if isinstance(self.node, Collision) and not self._edit(
                SetDensity, self.node, value, error=self.geometry_error,
                merge_field=("density",) if step else None):
            self.part_density.revert()

    # == edits =======================================================================
    def _invalid(self, field: NumberField, reason: str) -> None:
        label = {self.mass: self.inertia_error, self.density: self.inertia_error,
                 self.part_density: self.geometry_error}.get(field)
        if label is None:
            name = field.objectName()
            label = self.joint_error if name.startswith(("axis.", "limit.")) else self.pose_error
        _show_error(label, f"{reason}: nothing changed")
        field.revert()

    def _edit(self, factory, *args, error: QtWidgets.QLabel,
              merge_field: tuple | None = None, **kwargs) -> bool:
        """Make one command through the session; show the reason when it is refused.

        A typed value is its own undo step; steps of one field (``merge_field``) merge
        into one, as the core merges a drag, until another field or a typed value."""
        session = self.session
        if session is None or self.node is None:
            return False
        stack = session.document.commands
        if merge_field is None or merge_field != self._step_field:
            stack.end_merge()
        self._step_field = merge_field
        self._pushing, self._refusal = True, ""
        try:
            ok = session.make(factory, *args, **kwargs)
        except Exception as exc:   # a bug must not take the editor down; say what happened
            _log.exception("edit %s failed", getattr(factory, "__name__", factory))
            ok, self._refusal = False, f"internal error: {exc}"
        finally:
            self._pushing = False
        if merge_field is None:
            stack.end_merge()
        _show_error(error, "" if ok else (self._refusal or "the edit was refused"))
        if not ok:
            self._step_field = None
        return ok
