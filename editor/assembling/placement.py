"""Placing a part after a drop: choose how it sits on the assembly, then one undo step.

:class:`PlacementPanel` is a dock-able widget (not a modal dialog) for one part file and one
document.  It loads the part read-only to list its frames (the model frame, links, joints,
frames, mate connectors, with their kinds) and lets the user choose

* the part's **placement frame** (SDFormat's ``//include/placement_frame``),
* the **target** frame of the assembly (:meth:`PlacementPanel.set_target`, called by the
  viewport or the scene tree when the user clicks a frame, or the combo of
  :func:`drop_targets`),
* the **offset** of the placement frame in the target frame (x y z in metres, roll pitch
  yaw in degrees; *Flip* turns the part half a turn and *Rotate 90°* a quarter turn about
  the chosen axis of its placement frame, exactly: :func:`flip_offset`,
  :func:`rotate90_offset`),
* how to **connect** it (nothing, a weld, or a revolute, continuous or prismatic joint with
  its axis in the placement frame and its limits),
* the include's **name** (the part's model name, made unique).

*Place* pushes one :class:`~snapframe.core.model.placing.PlaceInclude` (its URI from
:func:`~snapframe.core.model.include_uri.include_uri_for`), selects the new part and emits
``placed(key)``; a refusal is shown in the panel and nothing changes.  Every change of the
choice emits ``previewChanged(Placement)`` with what a ghost preview needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtWidgets

from snapframe.core.live.keys import split_part
from snapframe.core.live.posetable import PoseTable
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Document, World
from snapframe.core.model.edits import scope_names
from snapframe.core.model.include_uri import include_uri_for
from snapframe.core.model.placing import JointSpec, PlaceInclude, flip_offset, rotate90_offset
from snapframe.core.pose import Pose

from ..icons import kind_icon
from ..inspector import FrameCombo, NumberField, form_group
from ..session import DocumentSession
from ._common import (MUTED_STYLE, OK_STYLE, ElidedLabel, bold, label, make, note_label,
                      show_note)

__all__ = ["PlacementPanel", "Placement", "PartFrame", "DropTarget", "drop_targets",
           "part_frames", "unique_name", "CONNECT_CHOICES", "FRAME_KINDS"]

#: Kinds of element that are frames a part can be placed on or by.
FRAME_KINDS = ("model", "link", "frame", "mate_connector", "joint")
#: The connect combo: (label, JointSpec type or None).
CONNECT_CHOICES = (("None (only placed)", None), ("Weld (fixed joint)", "fixed"),
                   ("Revolute", "revolute"), ("Continuous", "continuous"),
                   ("Prismatic", "prismatic"))


@dataclass(frozen=True)
class PartFrame:
    """A frame of the part: its name as the part names it (``""``: the model frame), its
    kind, and its pose ``X_M_F`` in the part's model frame (4x4)."""

    name: str
    kind: str
    pose: np.ndarray

    @property
    def label(self) -> str:
        return "(model frame)" if not self.name else self.name


@dataclass(frozen=True)
class Placement:
    """The choice of a :class:`PlacementPanel`, as a ghost preview needs it: the part's
    file, its ``placement_frame`` (``""``: the model frame), the ``target`` key (``""``:
    the assembly's root frame), the ``offset`` X_T_PF, the include's ``name``, the
    ``connect`` joint (None: only placed) and ``model_pose``: where the part's model frame
    would be in the root frame (4x4; None while the target cannot be resolved)."""

    part_path: Path
    placement_frame: str
    target: str
    offset: Pose
    name: str
    connect: JointSpec | None
    model_pose: np.ndarray | None


@dataclass(frozen=True)
class DropTarget:
    """A frame of the assembly a part can be placed on: key, kind and a label."""

    key: str
    kind: str
    label: str


def _root_label(document: Document) -> str:
    root = document.root
    if isinstance(root, World):
        return "world"   # the world frame, as SDFormat names it (and as it is typed)
    return f"(model frame of {root.name})" if root is not None and root.name else \
        "(model frame)"


def drop_targets(session: DocumentSession, kinds: tuple[str, ...] = FRAME_KINDS
                 ) -> list[DropTarget]:
    """The frames of the open document a part can be placed on, root frame first then
    in document order: every resolved element of one of ``kinds`` (visuals and
    collisions are not frames).  Empty for an OpenPLX document, which composes with mates
    (PlaceInclude refuses it).  A world's root frame is offered as ``world``: left
    empty, the target would be that frame without saying so."""
    document = session.document
    if document.root is None or document.format == "openplx":
        return []
    table = session.live.poses
    out = []
    for key in table.keys:
        if split_part(key)[1]:
            continue
        kind = table.kind(key)
        if kind not in kinds and not (key == "" and kind == "world" and "model" in kinds):
            continue
        out.append(DropTarget(key, kind, _root_label(document) if not key else key))
    return out


def part_frames(path: str | Path, search_paths: list[Path] | None = None
                ) -> tuple[Document, list[PartFrame]]:
    """Load the part at ``path`` read-only (never saved) and list its frames, the model
    frame first.  The document's diagnostics say what went wrong when it has no root."""
    document = load(path, LoadContext(search_paths=list(search_paths or []),
                                      use_environment=search_paths is None))
    if isinstance(document.root, World):
        document = _as_included(Path(path), document, search_paths)
    if document.root is None:
        return document, []
    table = PoseTable(document.frames)   # poses only: no inertia, no SNAP for a preview
    frames = []
    for key in table.keys:
        if split_part(key)[1]:
            continue
        kind = table.kind(key)
        if kind in FRAME_KINDS:
            frames.append(PartFrame(key, kind, table.pose(key)))
    return document, frames


def _as_included(path: Path, document: Document, search_paths: list[Path] | None) -> Document:
    """A part file that opens as a world (a floor plan) is placed as an ``//include`` sees
    it: the model its format's custom model parser makes of it.  Unchanged when the
    format has none (an SDFormat world cannot be included)."""
    from snapframe.core.formats import registry
    from snapframe.core.model import NestedInclude
    descriptor = registry.for_path(path, capability="read")
    if descriptor is None or not descriptor.can_include:
        return document
    parse = getattr(registry.implementation(descriptor), "parse_include", None)
    if parse is None:
        return document
    name = document.root.name or path.stem
    context = LoadContext(search_paths=list(search_paths or []),
                          use_environment=search_paths is None)
    include = NestedInclude(uri=str(path), resolved_file_name=str(path),
                            absolute_model_name=name, local_model_name=name, is_static=False)
    model = parse(include, context)
    part = Document(path=str(path), format=descriptor.name)
    part.diagnostics.extend(context.diagnostics)
    part.root = model
    return part


def unique_name(parent, base: str) -> str:
    """``base``, or ``base_2``, ``base_3``... whichever is free in ``parent``'s scope."""
    taken = scope_names(parent)
    base = base or "part"
    if base not in taken:
        return base
    n = 2
    while f"{base}_{n}" in taken:
        n += 1
    return f"{base}_{n}"


def _search_paths(document: Document) -> list[Path] | None:
    context = document.extras.get("load_context")
    return context.all_search_paths() if context is not None else None


class PlacementPanel(QtWidgets.QWidget):
    """Place one part file in the session's document (module docstring).

    Signals: ``previewChanged(Placement)`` whenever the choice changes; ``placed(str)``
    the key of the placed part; ``cancelled()`` the user gave up (the panel stays: the
    window decides to close it)."""

    previewChanged = QtCore.Signal(object)
    placed = QtCore.Signal(str)
    cancelled = QtCore.Signal()

    def __init__(self, session: DocumentSession, part_path: str | Path,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.part_path = Path(part_path).resolve()
        self.part, self.frames = part_frames(self.part_path,
                                             _search_paths(session.document))
        self.part_name = self.part.root.name if self.part.root is not None else \
            self.part_path.stem
        self._offset = Pose()
        self._target = ""
        self._emitting = True
        self._build()
        self._fill()
        self._on_connect_changed()
        self._emitting = False

    # -- building -----------------------------------------------------------------
    def _build(self) -> None:
        title = bold(label(f"Place {self.part_path.name}", "", self))
        path = ElidedLabel(str(self.part_path), self)
        path.setStyleSheet(MUTED_STYLE)

        part_box, part = form_group("Part", self)
        self.name_edit = QtWidgets.QLineEdit(self)
        self.name_edit.setObjectName("name")
        self.name_edit.setToolTip("The include's name in the assembly (must be free there)")
        self.name_edit.textChanged.connect(lambda _t: self._changed())
        part.addRow("Name", self.name_edit)
        self.frame_combo = QtWidgets.QComboBox(self)
        self.frame_combo.setObjectName("placement_frame")
        self.frame_combo.setToolTip("The part's frame that is put on the target "
                                    "(//include/placement_frame)")
        self.frame_combo.currentIndexChanged.connect(lambda _i: self._changed())
        part.addRow("Placement frame", self.frame_combo)

        target_box, target = form_group("Target", self)
        self.target_combo = FrameCombo(self)
        self.target_combo.setObjectName("target")
        self.target_combo.setToolTip("The assembly's frame the placement frame goes on; "
                                     "or click a frame in the view or the tree")
        self.target_combo.activated.connect(
            lambda i: self.set_target(self.target_combo.value_at(i)))
        self.target_combo.lineEdit().editingFinished.connect(self._target_typed)
        target.addRow("Frame", self.target_combo)

        offset_box, offset = form_group("Offset of the placement frame in the target", self)
        self.offset_fields: dict[str, NumberField] = {}
        grid = QtWidgets.QGridLayout()
        grid.setHorizontalSpacing(4)
        for row, (names, unit) in enumerate(((("x", "y", "z"), "m"),
                                             (("roll", "pitch", "yaw"), "°"))):
            for col, name in enumerate(names):
                field = NumberField(4 if unit == "m" else 2, 0.01 if unit == "m" else 15.0,
                                    parent=self)
                field.setObjectName(f"offset.{name}")
                field.committed.connect(lambda v, f=field: self._typed(f, v, self._offset_typed))
                field.stepped.connect(lambda _v: self._offset_typed())
                field.invalid.connect(self._invalid)
                tag = label(name, MUTED_STYLE, self)
                tag.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight
                                 | QtCore.Qt.AlignmentFlag.AlignVCenter)
                grid.addWidget(tag, row, 2 * col)
                grid.addWidget(field, row, 2 * col + 1)
                self.offset_fields[name] = field
            grid.addWidget(label(unit, MUTED_STYLE, self), row, 6)
        for col in (1, 3, 5):
            grid.setColumnStretch(col, 1)
        offset.addRow(grid)
        turns = QtWidgets.QHBoxLayout()
        turns.setSpacing(4)
        turns.addWidget(label("About", MUTED_STYLE, self))
        self.axis_buttons: dict[str, QtWidgets.QToolButton] = {}
        group = QtWidgets.QButtonGroup(self)
        for axis in "xyz":
            button = QtWidgets.QToolButton(self)
            button.setText(axis)
            button.setCheckable(True)
            button.setToolTip(f"Turn about the placement frame's {axis} axis")
            group.addButton(button)
            turns.addWidget(button)
            self.axis_buttons[axis] = button
        self.axis_buttons["x"].setChecked(True)   # a flip about x turns the part over
        self.flip_button = QtWidgets.QPushButton("Flip", self)
        self.flip_button.setToolTip("Half a turn about the chosen axis (about x or y the part's"
                                    " z points against the target's: faces that mate)")
        self.flip_button.clicked.connect(lambda: self.flip())
        self.rotate_button = QtWidgets.QPushButton("Rotate 90°", self)
        self.rotate_button.setToolTip("A quarter turn about the chosen axis")
        self.rotate_button.clicked.connect(lambda: self.rotate90())
        self.zero_button = QtWidgets.QPushButton("Zero", self)
        self.zero_button.setToolTip("No offset: the placement frame on the target")
        self.zero_button.clicked.connect(lambda: self.set_offset(Pose()))
        turns.addStretch(1)
        for button in (self.flip_button, self.rotate_button, self.zero_button):
            turns.addWidget(button)
        offset.addRow(turns)

        connect_box, connect = form_group("Connect", self)
        self.connect_combo = QtWidgets.QComboBox(self)
        self.connect_combo.setObjectName("connect")
        for text, kind in CONNECT_CHOICES:
            self.connect_combo.addItem(text, kind)
        self.connect_combo.setToolTip("A joint from the target frame (parent) to the "
                                      "placement frame (child)")
        self.connect_combo.currentIndexChanged.connect(lambda _i: self._on_connect_changed())
        connect.addRow("Joint", self.connect_combo)
        self.joint_name = QtWidgets.QLineEdit(self)
        self.joint_name.setObjectName("joint_name")
        self.joint_name.textEdited.connect(lambda _t: self._changed())
        connect.addRow("Joint name", self.joint_name)
        axis_row = QtWidgets.QHBoxLayout()
        axis_row.setContentsMargins(0, 0, 0, 0)
        axis_row.setSpacing(4)
        self.axis_fields: list[NumberField] = []
        for name, value in zip("xyz", (0.0, 0.0, 1.0)):
            field = NumberField(3, 0.1, parent=self)
            field.setObjectName(f"axis.{name}")
            field.setValue(value)
            field.committed.connect(lambda v, f=field: self._typed(f, v, self._changed))
            field.invalid.connect(self._invalid)
            axis_row.addWidget(label(name, MUTED_STYLE, self))
            axis_row.addWidget(field, 1)
            self.axis_fields.append(field)
        self.axis_row = QtWidgets.QWidget(self)
        self.axis_row.setLayout(axis_row)
        self.axis_row.setToolTip("The joint axis in the placement frame")
        connect.addRow("Axis", self.axis_row)
        limits_row = QtWidgets.QHBoxLayout()
        limits_row.setContentsMargins(0, 0, 0, 0)
        limits_row.setSpacing(4)
        self.lower = NumberField(3, 1.0, optional=True, parent=self)
        self.lower.setObjectName("limit.lower")
        self.upper = NumberField(3, 1.0, optional=True, parent=self)
        self.upper.setObjectName("limit.upper")
        for tag, field in (("lower", self.lower), ("upper", self.upper)):
            field.committed.connect(lambda v, f=field: self._typed(f, v, self._changed))
            field.cleared.connect(lambda f=field: self._typed(f, None, self._changed))
            field.invalid.connect(self._invalid)
            limits_row.addWidget(label(tag, MUTED_STYLE, self))
            limits_row.addWidget(field, 1)
        self.limit_unit = label("°", MUTED_STYLE, self)
        limits_row.addWidget(self.limit_unit)
        self.limits_row = QtWidgets.QWidget(self)
        self.limits_row.setLayout(limits_row)
        self.limits_row.setToolTip("Empty: no limit")
        connect.addRow("Limits", self.limits_row)
        self._connect_form = connect

        self.note = note_label(self)
        self.place_button = QtWidgets.QPushButton("Place", self)
        self.place_button.setDefault(True)
        self.place_button.setToolTip("Add the part to the assembly (one undo step)")
        self.place_button.clicked.connect(self.place)
        cancel = QtWidgets.QPushButton("Cancel", self)
        cancel.clicked.connect(self.cancelled.emit)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(cancel)
        buttons.addWidget(self.place_button)

        self._forms = [part, target, offset, connect]
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(6)
        layout.addWidget(title)
        layout.addWidget(path)
        for box in (part_box, target_box, offset_box, connect_box):
            layout.addWidget(box)
        # one label column for every group, so the fields line up down the panel
        labels = [form.itemAt(r, QtWidgets.QFormLayout.ItemRole.LabelRole)
                  for form in self._forms for r in range(form.rowCount())]
        widgets = [item.widget() for item in labels if item is not None and item.widget()]
        width = max((w.sizeHint().width() for w in widgets), default=0)
        for w in widgets:
            w.setMinimumWidth(width)
            if isinstance(w, QtWidgets.QLabel):
                w.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight
                               | QtCore.Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.note)
        layout.addStretch(1)
        layout.addLayout(buttons)

    def _fill(self) -> None:
        document = self.session.document
        self.name_edit.setText(unique_name(document.root, self.part_name)
                               if document.root is not None else self.part_name)
        default = self.part.root.placement_frame if self.part.root is not None else ""
        for frame in self.frames:
            self.frame_combo.addItem(kind_icon(frame.kind), f"{frame.label}  ({frame.kind})"
                                     if frame.name else frame.label, frame.name)
        index = self.frame_combo.findData(default)
        self.frame_combo.setCurrentIndex(max(index, 0))
        self.refresh_targets()
        active = self.session.selection.active
        keys = {t.key for t in self._targets}
        self.set_target(active if active in keys else "")
        self._show_offset()
        if self.part.root is None:
            errors = [d.message for d in self.part.diagnostics if d.is_error]
            show_note(self.note, f"cannot read {self.part_path.name}: "
                      + ("; ".join(errors[:3]) or "the file could not be loaded"))
            self.place_button.setEnabled(False)

    # -- public API ---------------------------------------------------------------
    def placement(self) -> Placement:
        """The choice shown, for a preview (see :class:`Placement`)."""
        return Placement(self.part_path, self.placement_frame, self._target, self._offset,
                         self.name_edit.text().strip(), self.connect_spec(),
                         self._model_pose())

    @property
    def placement_frame(self) -> str:
        return self.frame_combo.currentData() or ""

    @property
    def target(self) -> str:
        return self._target

    @property
    def offset(self) -> Pose:
        return self._offset

    def refresh_targets(self) -> None:
        """Offer the assembly's frames again (after the document changed)."""
        self._targets = drop_targets(self.session)
        self.target_combo.set_choices([(t.label, t.key) for t in self._targets])
        self.target_combo.show_value(self._target)

    def set_target(self, key: str) -> None:
        """Put the placement frame on the assembly's frame ``key`` (``""``: the root
        frame); the viewport or the tree calls this when the user clicks a frame."""
        self._target = key or ""
        self.target_combo.show_value(self._target)
        self._changed()

    def set_placement_frame(self, name: str) -> None:
        """Choose the part's frame ``name`` (``""``: its model frame)."""
        index = self.frame_combo.findData(name)
        if index < 0:
            show_note(self.note, f"the part has no frame [{name}]")
            return
        self.frame_combo.setCurrentIndex(index)

    def set_offset(self, offset: Pose) -> None:
        """The pose of the placement frame in the target frame."""
        self._offset = offset
        self._show_offset()
        self._changed()

    def flip(self, axis: str | None = None) -> None:
        """Half a turn about ``axis`` (default: the chosen one) of the placement frame."""
        self.set_offset(self._offset @ flip_offset(axis or self.turn_axis))

    def rotate90(self, axis: str | None = None) -> None:
        """A quarter turn about ``axis`` (default: the chosen one) of the placement frame."""
        self.set_offset(self._offset @ rotate90_offset(axis or self.turn_axis))

    @property
    def turn_axis(self) -> str:
        return next((a for a, b in self.axis_buttons.items() if b.isChecked()), "x")

    def set_connect(self, connect: str | None) -> None:
        """``None``, ``"weld"``/``"fixed"``, ``"revolute"``, ``"continuous"`` or
        ``"prismatic"``."""
        kind = "fixed" if connect == "weld" else connect
        self.connect_combo.setCurrentIndex(max(self.connect_combo.findData(kind), 0))

    def connect_spec(self) -> JointSpec | None:
        """The joint chosen (None: only placed); limits in radians or metres."""
        kind = self.connect_combo.currentData()
        if kind is None:
            return None
        axis = tuple(f.value() if f.value() is not None else 0.0 for f in self.axis_fields)
        lower, upper = self.lower.value(), self.upper.value()
        if kind == "revolute":
            lower = math.radians(lower) if lower is not None else None
            upper = math.radians(upper) if upper is not None else None
        elif kind != "prismatic":
            lower = upper = None
        return JointSpec(type=kind, axis=axis, lower=lower, upper=upper,  # type: ignore[arg-type]
                         name=self.joint_name.text().strip())

    def place(self) -> str | None:
        """Push one ``PlaceInclude``; the key of the placed part, or None (the panel shows
        why)."""
        document = self.session.document
        choice = self.placement()
        uri = include_uri_for(document, self.part_path)
        made: list[PlaceInclude] = []

        def build(doc: Document) -> PlaceInclude:
            command = PlaceInclude(
                doc, doc.root, uri,  # type: ignore[arg-type]
                # the part's own name needs no //include/name
                name="" if choice.name == self.part_name else choice.name,
                placement_frame=choice.placement_frame, target=choice.target,
                offset=choice.offset, connect=choice.connect)
            made.append(command)
            return command

        if document.root is None:
            show_note(self.note, "the document has no model to place the part in")
            return None
        reason = make(self.session, build)
        if reason:
            show_note(self.note, reason)
            return None
        key = document.key(made[0].include)
        where = f" on {choice.target}" if choice.target else ""
        show_note(self.note, f"Placed {key}{where} (undo removes it)", OK_STYLE)
        self.refresh_targets()
        self.name_edit.setText(unique_name(document.root, self.part_name))
        self.session.selection.select(key)
        self.placed.emit(key)
        return key

    # -- changes ------------------------------------------------------------------
    def _changed(self) -> None:
        self._update_joint_placeholder()
        if self._emitting:
            return
        show_note(self.note, "")   # a refusal or "placed" was about the previous choice
        self._check_name()
        self.previewChanged.emit(self.placement())

    def _check_name(self) -> None:
        """Say at once when the name is taken (the core says it again on Place)."""
        name = self.name_edit.text().strip()
        root = self.session.document.root
        taken = root is not None and name in scope_names(root)
        self.place_button.setEnabled(self.part.root is not None and bool(name) and not taken)
        if taken:
            show_note(self.note, f"the name [{name}] is already used in the assembly: "
                      "choose another")

    @staticmethod
    def _typed(field: NumberField, value: float | None, then) -> None:
        """A NumberField reports a typed value and leaves showing it to its owner."""
        field.setValue(value)
        then()

    def _invalid(self, reason: str) -> None:
        show_note(self.note, f"{reason}: nothing changed")
        field = self.sender()
        if isinstance(field, NumberField):
            field.revert()

    def _target_typed(self) -> None:
        value = self.target_combo.value_of(self.target_combo.currentText())
        if value != self._target:
            self.set_target(value)

    def _show_offset(self) -> None:
        x, y, z, roll, pitch, yaw = self._offset.xyz_rpy()
        for name, value in zip(("x", "y", "z"), (x, y, z)):
            self.offset_fields[name].setValue(value)
        for name, value in zip(("roll", "pitch", "yaw"), (roll, pitch, yaw)):
            self.offset_fields[name].setValue(math.degrees(value))

    def _offset_typed(self) -> None:
        v = {name: (field.value() or 0.0) for name, field in self.offset_fields.items()}
        self._offset = Pose.from_xyz_rpy(v["x"], v["y"], v["z"], math.radians(v["roll"]),
                                         math.radians(v["pitch"]), math.radians(v["yaw"]))
        self._changed()

    def _on_connect_changed(self) -> None:
        kind = self.connect_combo.currentData()
        moving = kind in ("revolute", "continuous", "prismatic")
        limited = kind in ("revolute", "prismatic")
        form = self._connect_form
        form.setRowVisible(self.joint_name, kind is not None)
        form.setRowVisible(self.axis_row, moving)
        form.setRowVisible(self.limits_row, limited)
        self.limit_unit.setText("m" if kind == "prismatic" else "°")
        self._changed()

    def _update_joint_placeholder(self) -> None:
        """The joint name PlaceInclude gives when none is typed."""
        kind = self.connect_combo.currentData()
        name = self.name_edit.text().strip() or self.part_name
        self.joint_name.setPlaceholderText(f"{name}_{'weld' if kind == 'fixed' else 'joint'}")

    def _model_pose(self) -> np.ndarray | None:
        """X_R_M = X_R_T @ offset @ X_M_PF^-1: where the part's model frame would be."""
        table = self.session.live.poses
        if self._target not in table:
            return None
        frame = next((f for f in self.frames if f.name == self.placement_frame), None)
        X_M_PF = frame.pose if frame is not None else np.eye(4)
        return table.pose(self._target) @ self._offset.matrix() @ np.linalg.inv(X_M_PF)
