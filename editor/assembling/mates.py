"""Making mates and mate connectors: the "new mate" part of the SNAP panel.

* :class:`MateCreator` -- two connectors (chosen in lists of the document's connectors or
  picked in the 3D view: ``viewport.begin_pick({"mate_connector"}, ...)``), a mate type,
  its initial angle (degrees) and position (metres; a distance mate's distance), an
  optional name; *Create mate* pushes one
  :func:`~snapframe.core.model.connecting.AddMateBetween` (one undo step; with ``world``,
  OpenPLX's connector at the top system's origin, an ``AddMate`` in the top model), SNAP
  runs again and the bodies move.  In an SDFormat document the lists hold the connectors
  of its included OpenPLX parts, and a mate is made as SDFormat keeps it: connector 1's
  part placed on connector 0 and joined to it
  (:class:`~snapframe.core.model.connecting.MateIncludedParts`, one undo step).
* :class:`ConnectorAdder` -- *Add connector…* arms a surface pick in the 3D view
  (``viewport.begin_surface_pick``); the clicked point of a body becomes a connector
  (:func:`~snapframe.core.model.mating.AddMateConnectorAt`) whose main axis is the face
  normal there (out of the face, or into the body), one undo step.

Both take the session with ``set_session`` and the view with ``set_viewport`` (None: no
view; the lists still work).  Refusals are shown in the widget, never raised.
"""

from __future__ import annotations

import math

from PySide6 import QtCore, QtWidgets

from snapframe.core.live.keys import ROOT, is_inside_include, subtree_keys
from snapframe.core.model import Link, MateConnector, Model, World
from snapframe.core.model.connecting import (MATE_JOINTS, AddMateBetween, enclosing_model,
                                             free_name)
from snapframe.core.model.edits import EditRefused
from snapframe.core.model.mating import AddMateConnectorAt
from snapframe.core.model.names import WORLD
from snapframe.core.model.nodes import MATE_TYPES

from ..inspector import NumberField
from ..session import DocumentSession
from ._common import MUTED_STYLE, OK_STYLE, label, make, note_label, num, show_note

__all__ = ["MateCreator", "ConnectorAdder", "connector_keys", "keeps_mates", "can_mate",
           "VALUES_OF", "SDF_NOTE"]

#: What each mate type takes from the form: (uses the angle, the field the position is).
VALUES_OF: dict[str, tuple[bool, str | None]] = {
    "lock": (False, None), "hinge": (True, None), "prismatic": (False, "initial_position"),
    "cylindrical": (True, "initial_position"), "ball": (False, None),
    "distance": (False, "initial_distance")}
_ADD_TIP = ("click a point on a body in the 3D view: a mate connector goes there, its main "
            "axis along the face's normal (Esc cancels)")
_AXES_TIP = ("A connector's triad: blue (z) is its main axis, red (x) its normal.\n"
             "SNAP puts connector 1 on connector 0, turned by the angle about connector 0's "
             "main axis and moved by the position along it.")


#: What a mate becomes in an SDFormat document (shown above the form there).
SDF_NOTE = ("Placed and joined: SDFormat keeps mates as a placement and a joint (connector "
            "1's part is placed on connector 0 and a joint connects their links; "
            + ", ".join(f"{m} → {j}" for m, j in MATE_JOINTS.items() if j)
            + "; " + " and ".join(m for m, j in MATE_JOINTS.items() if not j)
            + " have no SDFormat joint)")


def keeps_mates(session: DocumentSession | None) -> bool:
    """True for documents that store mates as mates (an OpenPLX system); an SDFormat
    document mates its included OpenPLX parts as placements and joints."""
    return session is not None and isinstance(session.document.root, Model) and \
        session.document.format == "openplx"


def connector_keys(session: DocumentSession | None) -> list[str]:
    """Keys of the mate connectors that can be mated, in document order: an OpenPLX
    document's own; in an SDFormat document, those of its included (OpenPLX) parts."""
    if session is None or session.document.root is None:
        return []
    doc = session.document
    if keeps_mates(session):
        return [doc.key(n) for n in doc.node_list() if isinstance(n, MateConnector)]
    if not isinstance(doc.root, (Model, World)):
        return []
    return [key for key, node in subtree_keys(doc.root, ROOT)
            if isinstance(node, MateConnector) and is_inside_include(node, doc.root)]


def can_mate(session: DocumentSession | None) -> bool:
    """True when the panel can make mates in ``session``'s document: an OpenPLX system, or
    an SDFormat document that includes parts with mate connectors."""
    if session is None:
        return False
    if keeps_mates(session):
        return True
    return session.document.format != "openplx" and bool(connector_keys(session))


def _vec(v) -> str:
    """A direction as a user reads it: (0, −1, 0), (0.71, 0, 0.71)."""
    parts = []
    for c in v:
        text = num(float(c), 2)
        parts.append(text.rstrip("0").rstrip(".") if "." in text else text)
    return "(" + ", ".join(parts) + ")"


def _viewport_of(panel) -> object | None:
    """The panel's view if it shows the panel's document and is still open."""
    view = panel._viewport
    if view is None or getattr(view, "interactor", None) is None or \
            getattr(view, "session", None) is not panel.session:
        return None
    return view


class MateCreator(QtWidgets.QWidget):
    """Two connectors, a type and initial values; *Create mate* (module docstring).
    Signals: ``created(str)`` the new mate's key."""

    created = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: DocumentSession | None = None
        self._viewport = None
        self._picking: int | None = None      # which end a view pick is for
        self._chain = False                    # picking connector 0 goes on to connector 1
        self.ends = [self._combo(i) for i in (0, 1)]
        self.pick_buttons = [self._pick_button(i) for i in (0, 1)]
        self.swap = QtWidgets.QToolButton(self)
        self.swap.setObjectName("swap_connectors")
        self.swap.setText("⇅")
        self.swap.setToolTip("Swap the connectors (the initial values are measured in "
                             "connector 0's frame: swapping turns the other way)")
        self.swap.clicked.connect(self.swap_ends)
        self.type = QtWidgets.QComboBox(self)
        self.type.setObjectName("new_mate_type")
        self.type.addItems(list(MATE_TYPES))
        self.type.setCurrentText("hinge")
        self.type.currentTextChanged.connect(self._type_changed)
        self.angle = self._number("new_mate_angle", 2, 1.0, "initial_angle in degrees: the turn "
                                  "of connector 1 about connector 0's main axis")
        self.position = self._number("new_mate_position", 4, 0.001, "initial_position in "
                                     "metres along connector 0's main axis (a distance mate's "
                                     "initial_distance)")
        self.name = QtWidgets.QLineEdit(self)
        self.name.setObjectName("new_mate_name")
        self.name.setToolTip("The mate's name (empty: after its type, hinge, hinge_2...)")
        self.create_button = QtWidgets.QPushButton("Create mate", self)
        self.create_button.setObjectName("create_mate")
        self.create_button.clicked.connect(self.create)
        self.status = note_label(self)
        self.mode = label(SDF_NOTE, MUTED_STYLE, self, wrap=True)
        self.mode.setObjectName("sdformat_mates")
        self.mode.hide()
        self.axes = label("", MUTED_STYLE, self, wrap=True)
        self.axes.setObjectName("chosen_axes")
        self.axes.setToolTip(_AXES_TIP)
        self.axes.hide()

        grid = QtWidgets.QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(4)
        grid.setVerticalSpacing(3)
        for row, (text, combo, button) in enumerate(zip(("Connector 0", "Connector 1"),
                                                        self.ends, self.pick_buttons)):
            caption = label(text, "", self)
            caption.setToolTip(_AXES_TIP)
            grid.addWidget(caption, row, 0)
            grid.addWidget(combo, row, 1, 1, 4)
            grid.addWidget(button, row, 5)
        grid.addWidget(self.swap, 0, 6, 2, 1)
        grid.addWidget(self.axes, 2, 1, 1, 6)
        grid.addWidget(label("Type", "", self), 3, 0)
        grid.addWidget(self.type, 3, 1)
        grid.addWidget(label("Angle [°]", "", self), 3, 2)
        grid.addWidget(self.angle, 3, 3)
        grid.addWidget(label("Position [m]", "", self), 3, 4)
        grid.addWidget(self.position, 3, 5, 1, 2)
        grid.addWidget(label("Name", "", self), 4, 0)
        grid.addWidget(self.name, 4, 1, 1, 3)
        grid.addWidget(self.create_button, 4, 4, 1, 3)
        grid.addWidget(self.status, 5, 0, 1, 7)
        grid.addWidget(self.mode, 6, 0, 1, 7)
        grid.setColumnStretch(1, 2)
        grid.setColumnStretch(3, 1)
        grid.setColumnStretch(5, 1)
        self._type_changed(self.type.currentText())
        self.refresh()

    def _combo(self, end: int) -> QtWidgets.QComboBox:
        combo = QtWidgets.QComboBox(self)
        combo.setObjectName(f"connector{end}")
        combo.setPlaceholderText("choose or pick a connector")
        combo.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(12)
        combo.setToolTip(_AXES_TIP)
        combo.currentIndexChanged.connect(lambda _i: self._ends_changed())
        return combo

    def _pick_button(self, end: int) -> QtWidgets.QToolButton:
        button = QtWidgets.QToolButton(self)
        button.setObjectName(f"pick_connector{end}")
        button.setText("Pick")
        button.setCheckable(True)
        button.setToolTip(f"Click connector {end} in the 3D view (Esc cancels)")
        button.clicked.connect(lambda on, e=end: self.pick(e) if on else self.cancel_pick())
        return button

    def _number(self, name: str, decimals: int, step: float, tip: str) -> NumberField:
        box = NumberField(decimals, step, parent=self)
        box.setObjectName(name)
        box.setToolTip(tip)
        box.setValue(0.0)
        box.committed.connect(box.setValue)
        box.stepped.connect(box.setValue)
        box.invalid.connect(lambda reason, b=box: (show_note(self.status, f"{reason}: not a "
                                                              "number"), b.revert()))
        return box

    # -- public API ---------------------------------------------------------------
    def set_session(self, session: DocumentSession | None) -> None:
        if session is not self.session:
            self.cancel_pick()
        self.session = session
        show_note(self.status, "")
        self.refresh()

    def set_viewport(self, viewport) -> None:
        """The 3D view to pick connectors in (None: lists only)."""
        if viewport is not self._viewport:
            self.cancel_pick()
        self._viewport = viewport
        self._update_buttons()

    def refresh(self, renamed: dict[str, str] | None = None) -> None:
        """List the document's connectors again (keeping the chosen ones that remain, by
        their new keys when ``renamed`` says so)."""
        keys = connector_keys(self.session)
        root = self.session.document.root if self.session is not None else None
        sdformat = self.session is not None and not keeps_mates(self.session)
        if isinstance(root, Model) and not sdformat or isinstance(root, World) and keys:
            keys.append(WORLD)      # an SDFormat model cannot refer to the world frame
        self.mode.setVisible(sdformat and bool(keys))
        for combo in self.ends:
            current = combo.currentText()
            current = (renamed or {}).get(current, current)
            combo.blockSignals(True)
            combo.clear()
            for key in keys:
                combo.addItem(key)
                if key == WORLD:
                    combo.setItemData(combo.count() - 1, "the world: the top system's origin "
                                      "(main axis z, normal x)" if not sdformat else
                                      "the world frame (main axis z, normal x)",
                                      QtCore.Qt.ItemDataRole.ToolTipRole)
            combo.setCurrentIndex(combo.findText(current) if current else -1)
            combo.blockSignals(False)
        self._suggest_name()
        self.show_axes()      # a chosen connector may be gone (an undo)
        self._update_buttons()

    def chosen(self) -> tuple[str, str]:
        """The two connectors' keys ("" for none yet)."""
        return self.ends[0].currentText(), self.ends[1].currentText()

    def choose(self, end: int, key: str) -> bool:
        """Make ``key`` connector ``end``; False (and a note) if it is not in the list."""
        combo = self.ends[end]
        index = combo.findText(key)
        if index < 0:
            if self.session is not None and not keeps_mates(self.session):
                show_note(self.status, f"[{key}] cannot be mated here: only the connectors "
                          "of included OpenPLX parts can")
            else:
                show_note(self.status, f"[{key}] cannot be mated here: only the connectors "
                          "of this document's own systems can (an included file's are "
                          "mated in it)")
            return False
        combo.setCurrentIndex(index)
        return True

    def offer(self, key: str) -> None:
        """A connector was just made: put it in the first empty end."""
        for end in (0, 1):
            if not self.ends[end].currentText():
                self.choose(end, key)
                return

    def swap_ends(self) -> None:
        first, second = self.chosen()
        for end, key in ((0, second), (1, first)):
            combo = self.ends[end]
            combo.blockSignals(True)
            combo.setCurrentIndex(combo.findText(key) if key else -1)
            combo.blockSignals(False)
        self._ends_changed()

    def values(self) -> dict[str, float]:
        """The initial values the chosen type takes, in core units (rad, m)."""
        uses_angle, position = VALUES_OF.get(self.type.currentText(), (False, None))
        out: dict[str, float] = {}
        if uses_angle:
            out["initial_angle"] = math.radians(self.angle.value() or 0.0)
        if position:
            out[position] = float(self.position.value() or 0.0)
        return out

    def create(self) -> str:
        """Push the mate (one undo step); "" or the reason it was refused."""
        session = self.session
        if session is None:
            return "no document"
        first, second = self.chosen()
        if not first or not second:
            reason = "choose two connectors (or pick them in the 3D view)"
            show_note(self.status, reason)
            return reason
        try:
            command = self._command(session.document, first, second)
        except EditRefused as exc:
            show_note(self.status, str(exc))
            return str(exc)
        kind = self.type.currentText()
        reason = make(session, lambda _doc: command)
        if reason:
            show_note(self.status, reason)
            return reason
        key = session.document.key(command.node)
        if getattr(command, "include", None) is not None:
            show_note(self.status, f"{kind}: [{second}] placed on [{first}] and joined by "
                      f"the {command.node.type} joint '{key}' (placed and joined: SDFormat "
                      "keeps mates as a placement and a joint; undo removes both)", OK_STYLE)
        else:
            show_note(self.status, f"Created {kind} '{key}': SNAP placed the bodies again "
                      "(undo removes it)", OK_STYLE)
        self.name.clear()
        self.created.emit(key)
        return ""

    def _command(self, document, first: str, second: str):
        kind, values = self.type.currentText(), self.values()
        if first == second:
            raise EditRefused("a mate joins two different connectors")
        ends = [k for k in (first, second) if k != WORLD]
        for key in ends:
            if not isinstance(document.element(key), MateConnector):
                raise EditRefused(f"[{key}] is not a mate connector")
        holder = document.root if len(ends) < 2 else enclosing_model(document, ends)[0]
        name = self.name.text().strip() or free_name(holder, kind)
        return AddMateBetween(document, name, kind, first, second, **values)

    # -- picking in the view ----------------------------------------------------------
    def pick(self, end: int, then_next: bool | None = None) -> bool:
        """Let the next click in the 3D view choose connector ``end``; False without a
        view.  Picking connector 0 goes on to connector 1 while that one is empty."""
        view = _viewport_of(self)
        if view is None:
            show_note(self.status, "open the 3D view to pick connectors, or choose them in "
                      "the lists")
            self._update_buttons()
            return False
        self.cancel_pick()
        self._picking = end
        self._chain = (end == 0 and not self.ends[1].currentText()) if then_next is None \
            else then_next
        for i, button in enumerate(self.pick_buttons):
            button.setChecked(i == end)
        hint = (f"Click connector {end}" + (" (the one the other is put on)" if end == 0
                                            else " (it is put on connector 0)"))
        other = self.ends[1 - end].currentText()
        # a mated pair is drawn in one place: the end already chosen steps aside
        view.begin_pick({"mate_connector"}, self._picked, hint, self._pick_cancelled,
                        exclude={other} if other else ())
        return True

    def cancel_pick(self) -> None:
        view = _viewport_of(self)
        if self._picking is not None and view is not None and view.picking:
            view.end_pick()     # calls _pick_cancelled
        self._pick_cancelled()

    def _picked(self, key: str) -> None:
        end, chain = self._picking, self._chain
        self._pick_cancelled()
        if end is None:
            return
        if key == self.ends[1 - end].currentText():
            # connectors in one place (a mated pair) are drawn on top of each other
            show_note(self.status, f"[{key}] is already connector {1 - end}: click the other "
                      "connector, or choose it in the list when both are in one place")
            return
        if self.choose(end, key) and chain and end == 0 and not self.ends[1].currentText():
            self.pick(1, then_next=False)

    def _pick_cancelled(self) -> None:
        self._picking = None
        self._chain = False
        for button in self.pick_buttons:
            button.setChecked(False)

    # -- reacting -----------------------------------------------------------------------
    def _ends_changed(self) -> None:
        show_note(self.status, "")
        self._suggest_name()
        self.show_axes()

    def show_axes(self) -> None:
        """Say where the chosen connectors' axes point in the world."""
        session = self.session
        parts = []
        for end, key in enumerate(self.chosen()):
            if not key or session is None:
                continue
            if key == WORLD:
                parts.append(f"{end}: main (0, 0, 1) · normal (1, 0, 0)")
            elif key in session.live.poses:
                X = session.live.poses.pose(key)
                parts.append(f"{end}: main {_vec(X[:3, 2])} · normal {_vec(X[:3, 0])}")
        self.axes.setText("\n".join(parts) + "   (in the world)" if parts else "")
        self.axes.setVisible(bool(parts))

    def _type_changed(self, kind: str) -> None:
        uses_angle, position = VALUES_OF.get(kind, (False, None))
        self.angle.setEnabled(uses_angle)
        self.position.setEnabled(position is not None)
        self._suggest_name()

    def _suggest_name(self) -> None:
        kind = self.type.currentText()
        session = self.session
        holder = session.document.root if session is not None else None
        ends = [k for k in self.chosen() if k and k != WORLD]
        if len(ends) == 2 and session is not None:
            try:
                holder = enclosing_model(session.document, ends)[0]
            except EditRefused:
                pass
        self.name.setPlaceholderText(free_name(holder, kind) if isinstance(holder, Model)
                                     else kind)

    def _update_buttons(self) -> None:
        has_view = _viewport_of(self) is not None
        for button in self.pick_buttons:
            button.setEnabled(has_view)
        self.create_button.setEnabled(can_mate(self.session))


class ConnectorAdder(QtWidgets.QWidget):
    """*Add connector…*: the next click on a body in the 3D view makes a connector there
    (module docstring).  Signals: ``added(str)`` the new connector's key."""

    added = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: DocumentSession | None = None
        self._viewport = None
        self.button = QtWidgets.QPushButton("Add connector…", self)
        self.button.setObjectName("add_connector")
        self.button.setCheckable(True)
        self.button.clicked.connect(lambda on: self.begin() if on else self.cancel())
        self.direction = QtWidgets.QComboBox(self)
        self.direction.setObjectName("connector_direction")
        self.direction.addItems(["main axis out of the face", "main axis into the body"])
        self.direction.setToolTip("Two parts meet face to face when one connector points "
                                  "out of its face and the other into its body")
        self.name = QtWidgets.QLineEdit(self)
        self.name.setObjectName("new_connector_name")
        self.name.setPlaceholderText("mc")
        self.name.setToolTip("The connector's name on its body (empty: mc, mc_2...)")
        self.status = note_label(self)
        grid = QtWidgets.QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(4)
        grid.addWidget(self.button, 0, 0)
        grid.addWidget(self.direction, 0, 1)
        grid.addWidget(self.name, 0, 2)
        grid.addWidget(self.status, 1, 0, 1, 3)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(2, 1)
        self._update()

    def set_session(self, session: DocumentSession | None) -> None:
        if session is not self.session:
            self.cancel()
        self.session = session
        show_note(self.status, "")
        self._update()

    def set_viewport(self, viewport) -> None:
        """The 3D view to click bodies in (None: adding is off)."""
        if viewport is not self._viewport:
            self.cancel()
        self._viewport = viewport
        self._update()

    def begin(self) -> bool:
        """Arm the surface pick; False without a view."""
        view = _viewport_of(self)
        if view is None:
            show_note(self.status, "open the 3D view to click a point on a body")
            self.button.setChecked(False)
            return False
        self.button.setChecked(True)
        view.begin_surface_pick(self._picked, "Click a point on a body: the connector's main "
                                "axis follows the face there", self._cancelled)
        return True

    def cancel(self) -> None:
        view = _viewport_of(self)
        if self.button.isChecked() and view is not None and view.picking:
            view.end_pick()
        self._cancelled()

    def add_at(self, link_key: str, point, normal) -> str:
        """Make the connector at world ``point`` on the link ``link_key`` with the face
        ``normal``; "" or the reason it was refused."""
        session = self.session
        if session is None:
            return "no document"
        link = session.document.element(link_key)
        into = self.direction.currentIndex() == 1
        try:
            command = AddMateConnectorAt(session.document, link, point, normal,
                                         self.name.text().strip(), into=into)
        except EditRefused as exc:
            show_note(self.status, str(exc))
            return str(exc)
        reason = make(session, lambda _doc: command)
        if reason:
            show_note(self.status, reason)
            return reason
        key = session.document.key(command.node)
        show_note(self.status, f"Added connector '{key}'", OK_STYLE)
        self.name.clear()
        session.selection.select(key)
        self.added.emit(key)
        return ""

    def _picked(self, found) -> None:
        self._cancelled()
        link = self.session.document.element(found.link_key) if self.session is not None \
            else None
        if not isinstance(link, Link):
            show_note(self.status, "that is not a body's surface")
            return
        self.add_at(found.link_key, found.point, found.normal)

    def _cancelled(self) -> None:
        self.button.setChecked(False)

    def _update(self) -> None:
        ok = self.session is not None and isinstance(self.session.document.root, Model)
        has_view = _viewport_of(self) is not None
        self.button.setEnabled(ok and has_view)
        self.button.setToolTip(_ADD_TIP[0].upper() + _ADD_TIP[1:] if has_view
                               else "Needs the 3D view: " + _ADD_TIP)


def muted_hint(parent: QtWidgets.QWidget) -> QtWidgets.QLabel:
    """The line under the form explaining the triads' colours."""
    hint = label("Blue (z) is a connector's main axis, red (x) its normal", MUTED_STYLE,
                 parent, wrap=True)
    hint.setToolTip(_AXES_TIP)
    return hint

