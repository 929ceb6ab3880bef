"""The SNAP panel: a document's mates, how SNAP assembled them, and what it found.

:class:`SnapPanel` lists, for a document with mate connectors and mates (OpenPLX):

* **Mates**: name, type (editable), the two connectors, the initial angle (degrees) and
  position (metres; a distance mate's ``initial_distance``), editable where the type has
  them, and SNAP's result (satisfied, violated, not snapped).  Every typed value is one
  ``SetMate`` on the undo stack (stepping with the arrow keys merges into one step);
  SNAP runs again and the bodies move (``posesChanged``).
* **Bodies and systems**: every transform SNAP may place, with a *Declared* check box
  (``SetDeclared``: checked, the file fixes it; unchecked, SNAP places it) and SNAP's
  status for it (root, declared, snapped, forced, unconstrained).
* **Findings** (violated mates, forced and unmated transforms) and the **Trace** of the
  last run.
* **New mate** (:mod:`.mates`): two connectors chosen in lists or picked in the 3D view, a
  type and initial values, *Create mate*; *Add connector…* makes a connector where a body
  is clicked.  These need the view: the window hands it over with
  :meth:`SnapPanel.set_viewport`.

Clicking a mate, a body, a finding or a trace line selects its element.  The panel follows
``snapChanged`` (SNAP ran), ``structureChanged`` and ``edited`` (values undone or redone);
while hidden it only notes that it is out of date.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.diagnostics import Code, Diagnostic
from snapframe.core.model import Link, Mate, MateConnector, Model
from snapframe.core.model.edits import EditRefused, SetDeclared, SetMate
from snapframe.core.model.nodes import MATE_TYPES

from ..icons import kind_icon, status_icon
from ..inspector import NumberField
from ..panels._binding import SessionBinding
from ..session import DocumentSession
from ._common import (MONO_STYLE, MUTED_STYLE, Coalescer, hline, label, make, note_label,
                      show_note)
from .mate_solves import MateSolves
from .mates import ConnectorAdder, MateCreator, keeps_mates, muted_hint
from .mates import can_mate as can_mate_parts

__all__ = ["SnapPanel", "MateRow", "mate_rows", "snap_keys", "ANGLE_TYPES", "POSITION_FIELD"]

#: Mate types with an initial angle about the main axis.
ANGLE_TYPES = ("hinge", "cylindrical")
#: The initial value each type moves along its main axis (None: none).
POSITION_FIELD = {"prismatic": "initial_position", "cylindrical": "initial_position",
                  "distance": "initial_distance"}
_MATE_COLUMNS = ("Mate", "Type", "Connectors", "Angle [°]", "Position [m]", "SNAP")
_BODY_COLUMNS = ("Body or system", "Declared", "SNAP")
_NAME, _TYPE, _CONNECTORS, _ANGLE, _POSITION, _RESULT = range(6)
_STATUS_TIPS = {
    "root": "the top system: the frame everything is placed in",
    "declared": "the file declares this transform: SNAP leaves it where it is",
    "snapped": "SNAP placed it from a mate",
    "forced": "no mate determines it: SNAP forced it to identity",
    "unconstrained": "no snapped mate reaches it: left at identity",
}
_STATUS_COLORS = {"forced": "#b9770e", "unconstrained": "#b9770e", "snapped": "#1e8449"}
KEY_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
#: Assemblies SNAP places at least this many bodies and systems of solve a typed initial
#: value on a worker thread (a full run of a thousand bodies takes a fifth of a second).
BACKGROUND_SNAP_FRAMES = 500


def snap_keys(document) -> dict[str, str]:
    """SNAP path (``Clock.hour_hand``) -> document key (``hour_hand``) of every system,
    body, connector and mate SNAP sees."""
    if not isinstance(document.root, Model):
        return {}
    return document.live.snap.path_keys()


#: A name SNAP's trace quotes (a path, in single quotes).
_QUOTED = re.compile(r"'([^']+)'")


def trace_key(line: str, keys: dict[str, str], document) -> str | None:
    """The element a trace line is about: the first body, system or mate it quotes, else
    the first connector."""
    found = [keys[name] for name in _QUOTED.findall(line) if name in keys]
    for key in found:
        if not isinstance(document.element(key), MateConnector):
            return key
    return found[0] if found else None


@dataclass(frozen=True)
class MateRow:
    """One mate of the table: its key and node, SNAP's ``result`` for it (satisfied,
    violated, not snapped) and ``why``."""

    key: str
    mate: Mate
    result: str
    why: str = ""


def mate_rows(document, findings: tuple[Diagnostic, ...]) -> list[MateRow]:
    """The document's own mates in document order, with SNAP's result for each."""
    violated = {d.key: d.message for d in findings if d.code == Code.SNAP_VIOLATED}
    rows = []
    for node in document.node_list():
        if not isinstance(node, Mate):
            continue
        key = document.key(node)
        if key in violated:
            rows.append(MateRow(key, node, "violated", violated[key]))
        elif not node.enable_snap:
            rows.append(MateRow(key, node, "not snapped", "enable_snap is false: SNAP "
                                "does not use this mate to place bodies"))
        else:
            rows.append(MateRow(key, node, "satisfied", "SNAP placed its connectors together"))
    return rows


def _show_result(item: QtWidgets.QTableWidgetItem, row: MateRow) -> None:
    if item.text() == row.result and item.toolTip() == row.why:
        # unchanged: setting an icon again is a change to Qt, and each change lays a
        # table of sized-to-contents columns out again (600 mates: 20 s per SNAP run)
        return
    item.setText(row.result)
    item.setToolTip(row.why)
    item.setIcon(status_icon("warning") if row.result == "violated" else QtGui.QIcon())
    item.setForeground(QtGui.QColor({"violated": "#b9770e", "satisfied": "#1e8449"}.get(
        row.result, "#8a939c")))


def _show_state(item: QtWidgets.QTableWidgetItem, state: str) -> None:
    item.setText(state)
    item.setToolTip(_STATUS_TIPS.get(state, ""))
    color = _STATUS_COLORS.get(state)
    item.setForeground(QtGui.QColor(color) if color else
                       QtGui.QGuiApplication.palette().color(QtGui.QPalette.ColorRole.Text))


class SnapPanel(QtWidgets.QWidget):
    """Mates, declared transforms and SNAP's result for the current document (module
    docstring).  Signals: ``activated(str)`` a row was clicked (the key it selected)."""

    activated = QtCore.Signal(str)

    def __init__(self, session: DocumentSession | None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._binding = SessionBinding([
            ("snapChanged", self._request), ("structureChanged", self._on_structure),
            ("edited", self._on_edited)])
        self._refresh_later = Coalescer(self.refresh, 0, self)
        self._step_field: tuple | None = None
        self._stale = False                # hidden while SNAP ran: refresh when shown
        self._trace_stale = False          # the trace is filled when its tab is shown
        self._viewport = None
        self.mate_keys: list[str] = []
        self._mate_shape: list[tuple[str, str]] = []
        self.body_keys: list[str] = []
        self._keys: dict[str, str] = {}    # SNAP path -> key, of the last refresh
        #: The background mate edits of each document, by id of its session.
        self._solves: dict[int, MateSolves] = {}

        self.summary = label("", MUTED_STYLE, self, wrap=True)
        self.status = note_label(self)
        self.placeholder = label("", MUTED_STYLE, self, wrap=True)
        self.placeholder.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)

        self.mates = self._table(_MATE_COLUMNS, _CONNECTORS)
        self.bodies = self._table(_BODY_COLUMNS)
        self.findings = QtWidgets.QListWidget(self)
        self.findings.setWordWrap(True)
        self.findings.itemClicked.connect(self._on_finding)
        self.trace = QtWidgets.QPlainTextEdit(self)
        self.trace.setReadOnly(True)
        self.trace.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
        self.trace.setStyleSheet(MONO_STYLE)
        self.trace.setToolTip("Click a line to select the body, system or mate it is about")
        self.trace.viewport().installEventFilter(self)
        self.tabs = QtWidgets.QTabWidget(self)
        self.tabs.addTab(self.findings, "Findings")
        self.tabs.addTab(self.trace, "Trace")
        self.tabs.currentChanged.connect(lambda _i: self._fill_trace())

        self.creator = MateCreator(self)
        self.adder = ConnectorAdder(self)
        self.adder.added.connect(self.creator.offer)
        self.adder.added.connect(lambda _key: show_note(self.creator.status, ""))
        self.creator.created.connect(self._on_created)
        self.creator.created.connect(lambda _key: show_note(self.adder.status, ""))
        self.make_box = QtWidgets.QWidget(self)
        make_column = QtWidgets.QVBoxLayout(self.make_box)
        make_column.setContentsMargins(0, 0, 0, 0)
        make_column.setSpacing(3)
        make_column.addWidget(label("New mate", "font-weight: bold;", self.make_box))
        make_column.addWidget(self.creator)
        make_column.addWidget(self.adder)
        make_column.addWidget(muted_hint(self.make_box))
        make_column.addWidget(hline(self.make_box))

        self.content = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical, self)
        self.content.setChildrenCollapsible(False)
        for title, widget in (("Mates", self.mates), ("Bodies and systems", self.bodies),
                              ("", self.tabs)):
            box = QtWidgets.QWidget(self.content)
            column = QtWidgets.QVBoxLayout(box)
            column.setContentsMargins(0, 0, 0, 0)
            column.setSpacing(2)
            if title:
                heading = label(title, "font-weight: bold;", box)
                column.addWidget(heading)
            column.addWidget(widget, 1)
            self.content.addWidget(box)
        self.content.setStretchFactor(0, 3)
        self.content.setStretchFactor(1, 2)
        self.content.setStretchFactor(2, 2)

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.summary)
        layout.addWidget(self.status)
        layout.addWidget(self.make_box)
        layout.addWidget(self.placeholder)
        layout.addWidget(self.content, 1)
        self.mates.cellClicked.connect(lambda r, _c: self._select(self.mate_keys, r))
        self.bodies.cellClicked.connect(lambda r, _c: self._select(self.body_keys, r))
        self.set_session(session)

    def _table(self, columns: tuple[str, ...], stretch: int = 0) -> QtWidgets.QTableWidget:
        """A read-only table whose column ``stretch`` takes the room left (and elides)."""
        table = QtWidgets.QTableWidget(0, len(columns), self)
        table.setHorizontalHeaderLabels(list(columns))
        table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().hide()
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 14)
        table.setShowGrid(False)
        table.setAlternatingRowColors(True)
        table.setWordWrap(False)
        table.setTextElideMode(QtCore.Qt.TextElideMode.ElideMiddle)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(stretch, QtWidgets.QHeaderView.ResizeMode.Stretch)
        header.setDefaultAlignment(QtCore.Qt.AlignmentFlag.AlignLeft
                                   | QtCore.Qt.AlignmentFlag.AlignVCenter)
        return table

    # -- public API ---------------------------------------------------------------
    @property
    def session(self) -> DocumentSession | None:
        return self._binding.session

    def set_session(self, session: DocumentSession | None) -> None:
        """Show the mates of ``session`` (None: no document)."""
        self._binding.bind(session)
        show_note(self.status, "")
        self.creator.set_session(session)
        self.adder.set_session(session)
        self.refresh()

    def set_viewport(self, viewport) -> None:
        """The 3D view of the current document, for picking connectors and clicking
        bodies (None: no view; connectors are then chosen in the lists)."""
        self._viewport = viewport
        self.creator.set_viewport(viewport)
        self.adder.set_viewport(viewport)

    @property
    def viewport(self):
        return self._viewport

    def refresh(self) -> None:
        """Rebuild everything from the document and SNAP's last run."""
        self._stale = False
        session = self.session
        snap = session.live.snap if session is not None else None
        active = bool(snap is not None and snap.active)
        # mates and connectors are OpenPLX's: other formats keep a mate of their included
        # OpenPLX parts as a placement and a joint
        can_mate = session is not None and isinstance(session.document.root, Model) and \
            (session.document.format == "openplx" or active) or can_mate_parts(session)
        self.make_box.setVisible(can_mate)
        self.placeholder.setVisible(not active)
        self.content.setVisible(active)
        if session is None:
            self.placeholder.setText("No document")
        elif not active and can_mate and not keeps_mates(session):
            self.placeholder.setText("This SDFormat document has no mates: mating the "
                                     "connectors of two included OpenPLX parts places one part "
                                     "on the other and joins them (placed and joined)")
        elif not active and can_mate:
            self.placeholder.setText("This document has no mates yet: add mate connectors to "
                                     "bodies above, then mate them; SNAP assembles the bodies")
        elif not active:
            self.placeholder.setText("This document has no mates: SNAP assembles bodies from "
                                     "OpenPLX mate connectors and mates.  An included OpenPLX "
                                     "part is mated in its own file (open the included file)")
        if not active:
            self.summary.setText("")
            self._keys = {}
            self._fill_mates([])
            self._fill_bodies({}, {})
            self._fill_findings(())
            self.trace.clear()
            self._trace_stale = False
            return
        self.creator.show_axes()     # SNAP may have turned the chosen connectors
        keys = self._keys = snap_keys(session.document)
        self._fill_mates(mate_rows(session.document, snap.findings))
        self._fill_bodies(keys, snap.status)
        self._fill_findings(snap.findings)
        self._trace_stale = True
        self._fill_trace()
        self._show_summary(snap)

    def select_trace_line(self, line: int) -> str | None:
        """Select the element trace line ``line`` (0-based) is about; its key or None."""
        self._fill_trace(force=True)
        block = self.trace.document().findBlockByNumber(line)
        session = self.session
        if not block.isValid() or session is None:
            return None
        key = trace_key(block.text(), self._keys, session.document)
        if key is not None:
            session.selection.select(key)
            self.activated.emit(key)
        return key

    def set_mate_type(self, key: str, mate_type: str) -> str:
        """Retype the mate ``key`` (one undo step); "" or the reason it was refused."""
        return self._edit(key, None, type=mate_type)

    def set_mate_value(self, key: str, field: str, value: float, step: bool = False) -> str:
        """Set ``initial_angle`` (rad), ``initial_position`` or ``initial_distance`` (m)
        of the mate ``key``; steps of one field merge into one undo step."""
        return self._edit(key, (key, field) if step else None, **{field: value})

    def set_declared(self, key: str, declared: bool) -> str:
        """Fix (True) or free (False) the transform of the body or system ``key``."""
        session = self.session
        node = session.document.element(key) if session is not None else None
        if session is None or node is None:
            return "no such element"
        return self._push(SetDeclared, node, declared)

    # -- filling ------------------------------------------------------------------
    def _fill_mates(self, rows: list[MateRow]) -> None:
        shape = [(r.key, r.mate.type) for r in rows]
        if rows and shape == self._mate_shape:
            self._update_mates(rows)   # a field being stepped keeps its focus
            return
        self._mate_shape = shape
        table = self.mates
        table.setRowCount(0)
        table.setRowCount(len(rows))
        self.mate_keys = [r.key for r in rows]
        for i, row in enumerate(rows):
            m = row.mate
            name = QtWidgets.QTableWidgetItem(kind_icon("mate"), row.key)
            name.setToolTip(row.key)
            table.setItem(i, _NAME, name)
            combo = QtWidgets.QComboBox(table)
            combo.setObjectName(f"type:{row.key}")
            combo.addItems(list(MATE_TYPES))
            combo.setCurrentText(m.type)
            combo.activated.connect(lambda index, k=row.key, c=combo:
                                    self.set_mate_type(k, c.itemText(index)))
            table.setCellWidget(i, _TYPE, combo)
            connectors = QtWidgets.QTableWidgetItem("  ↔  ".join(m.connectors))
            connectors.setToolTip(f"{m.connectors[0]} ↔ {m.connectors[1]}\nSNAP puts "
                                  "connectors[1] on connectors[0], turned by the initial angle "
                                  "and moved by the initial position")
            table.setItem(i, _CONNECTORS, connectors)
            table.setCellWidget(i, _ANGLE, self._value_field(
                row.key, "initial_angle", math.degrees(m.initial_angle), m.type in ANGLE_TYPES,
                "initial_angle: the turn about connector 0's main axis"))
            position = POSITION_FIELD.get(m.type)
            table.setCellWidget(i, _POSITION, self._value_field(
                row.key, position or "initial_position",
                getattr(m, position) if position else None, position is not None,
                f"{position}: along connector 0's main axis" if position else ""))
            result = QtWidgets.QTableWidgetItem()
            _show_result(result, row)
            table.setItem(i, _RESULT, result)

    def _update_mates(self, rows: list[MateRow]) -> None:
        table = self.mates
        for i, row in enumerate(rows):
            m = row.mate
            table.item(i, _CONNECTORS).setText("  ↔  ".join(m.connectors))
            angle = table.cellWidget(i, _ANGLE)
            if m.type in ANGLE_TYPES:
                angle.setValue(math.degrees(m.initial_angle))
            position = POSITION_FIELD.get(m.type)
            if position:
                table.cellWidget(i, _POSITION).setValue(getattr(m, position))
            _show_result(table.item(i, _RESULT), row)

    def _value_field(self, key: str, field: str, shown: float | None, enabled: bool,
                     tip: str) -> QtWidgets.QWidget:
        angle = field == "initial_angle"
        box = NumberField(2 if angle else 4, 1.0 if angle else 0.001, parent=self.mates)
        box.setObjectName(f"{field}:{key}")
        box.setFrame(False)
        box.setMinimumWidth(box.fontMetrics().horizontalAdvance("−000.0000") + 12)
        if enabled:
            box.setValue(shown)
            box.setToolTip(tip)
        else:
            box.setReadOnly(True)
            box.setEnabled(False)
            box.lineEdit().setText("—")
            box.setToolTip("this mate type has no such initial value")

        def commit(value: float, step: bool) -> None:
            core = math.radians(value) if angle else value
            if self.set_mate_value(key, field, core, step):
                box.revert()

        box.committed.connect(lambda v: commit(v, False))
        box.stepped.connect(lambda v: commit(v, True))
        box.invalid.connect(lambda reason: (show_note(self.status, f"{reason}: nothing changed"),
                                            box.revert()))
        return box

    def _fill_bodies(self, keys: dict[str, str], status: dict) -> None:
        session = self.session
        table = self.bodies
        rows = []
        if session is not None:
            # SNAP's own path -> node map: a lookup by key walks the document each time
            nodes = session.live.snap.snap_input().nodes if keys else {}
            for path, key in keys.items():
                node = nodes.get(path) if key else None
                if isinstance(node, (Link, Model)) and node is not session.document.root:
                    rows.append((key, node, str(status.get(path, ""))))
        if rows and [key for key, _n, _s in rows] == self.body_keys:
            for i, (key, node, state) in enumerate(rows):   # keep focus and scrolling
                check = table.cellWidget(i, 1).findChild(QtWidgets.QCheckBox)
                check.setChecked(bool(node.pose is not None and node.pose.written))
                _show_state(table.item(i, 2), state)
            return
        table.setRowCount(0)
        table.setRowCount(len(rows))
        self.body_keys = [key for key, _node, _state in rows]
        for i, (key, node, state) in enumerate(rows):
            name = QtWidgets.QTableWidgetItem(kind_icon("link" if isinstance(node, Link)
                                                        else "model"), key)
            name.setToolTip(f"{'body' if isinstance(node, Link) else 'system'} {key}")
            table.setItem(i, 0, name)
            holder = QtWidgets.QWidget(table)
            check = QtWidgets.QCheckBox(holder)
            check.setObjectName(f"declared:{key}")
            check.setChecked(bool(node.pose is not None and node.pose.written))
            check.setToolTip("checked: the file declares this transform (SNAP leaves it); "
                             "unchecked: SNAP places it")
            check.clicked.connect(lambda on, k=key: self.set_declared(k, on))
            row = QtWidgets.QHBoxLayout(holder)
            row.setContentsMargins(6, 0, 6, 0)
            row.addWidget(check, 0, QtCore.Qt.AlignmentFlag.AlignCenter)
            table.setCellWidget(i, 1, holder)
            item = QtWidgets.QTableWidgetItem()
            _show_state(item, state)
            table.setItem(i, 2, item)

    def _fill_findings(self, findings: tuple[Diagnostic, ...]) -> None:
        self.findings.clear()
        for d in findings:
            item = QtWidgets.QListWidgetItem(status_icon(str(d.severity)), d.message)
            item.setData(KEY_ROLE, d.key)
            item.setToolTip(f"{d.code}" + (f" — click to select {d.key}" if d.key else ""))
            self.findings.addItem(item)
        if not findings:
            item = QtWidgets.QListWidgetItem("SNAP found nothing to report: every mate is "
                                             "satisfied and every transform determined")
            item.setFlags(QtCore.Qt.ItemFlag.NoItemFlags)
            self.findings.addItem(item)
        worst = max((d.severity for d in findings), default=None)
        self.tabs.setTabText(0, f"Findings ({len(findings)})")
        self.tabs.setTabIcon(0, status_icon(str(worst)) if worst is not None else QtGui.QIcon())

    def _show_summary(self, snap) -> None:
        counts: dict[str, int] = {}
        for state in snap.status.values():
            counts[state] = counts.get(state, 0) + 1
        violated = sum(1 for d in snap.findings if d.code == Code.SNAP_VIOLATED)
        parts = [snap.trace[0] if snap.trace else "SNAP"]
        parts.append(", ".join(f"{n} {state}" for state, n in counts.items() if state != "root"))
        if violated:
            parts.append(f"{violated} mate{'s' if violated != 1 else ''} violated")
        self.summary.setText(" · ".join(p for p in parts if p))

    # -- edits --------------------------------------------------------------------
    def _edit(self, key: str, merge_field: tuple | None, **values) -> str:
        session = self.session
        mate = session.document.element(key) if session is not None else None
        if session is None or not isinstance(mate, Mate):
            return f"there is no mate [{key}]"
        stack = session.document.commands
        if merge_field is None or merge_field != self._step_field:
            stack.end_merge()
        if merge_field is None and self._solve_in_background(mate, values):
            return ""
        self._step_field = merge_field
        reason = self._push(SetMate, mate, **values)
        if merge_field is None or reason:
            stack.end_merge()
            self._step_field = None
        return reason

    def _solve_in_background(self, mate: Mate, values: dict) -> bool:
        """A typed initial value of a mate in a large assembly: SNAP solves it on a
        worker (the status bar's progress, Cancel) and the edit and its result are
        applied together, in one undo step, to the document it was typed for, whichever
        the panel shows then (see :mod:`.mate_solves`: a newer value of the same mate
        replaces it, values of other mates follow it in order).  False when it runs
        here as usual (a small assembly, no window's job runner, a value the edit
        refuses, an edit SNAP cannot solve ahead)."""
        from snapframe.core.live.background import MATE_VALUE_FIELDS, snap_input_with_values
        session = self.session
        window = self.window()
        runner = getattr(window, "jobs", None)
        if runner is None or session is None or not MATE_VALUE_FIELDS.issuperset(values) or \
                len(session.live.snap.status) < BACKGROUND_SNAP_FRAMES:
            return False
        document = session.document
        try:
            SetMate(document, mate, **values)   # refused now, as the usual path refuses it
        except EditRefused:
            return False                        # (which says why)
        solves = self._solves.get(id(session))
        inp = None
        if solves is None or not solves.busy:
            try:
                inp = snap_input_with_values(document, mate, values)
            except Exception:   # the usual path reports what is wrong
                return False
            if inp is None:
                return False
        if solves is None:
            sessions = getattr(window, "sessions", None)

            def is_open() -> bool:      # (its tab was not closed)
                return not callable(sessions) or session in sessions()
            solves = MateSolves(session, runner, is_open, self)
            solves.landed.connect(lambda reason, s=session: self._on_landed(s, reason))
            solves.idle.connect(lambda s=session: self._forget_solves(s))
            self._solves[id(session)] = solves
        show_note(self.status, "")
        solves.submit(mate, values, inp)
        return True

    def _on_landed(self, session: DocumentSession, reason: str) -> None:
        """A background mate edit of ``session`` was made, refused or given up."""
        if self.session is session:
            show_note(self.status, reason)
            self._request()          # the fields show the document's values again

    def _forget_solves(self, session: DocumentSession) -> None:
        solves = self._solves.get(id(session))
        if solves is not None and not solves.busy:
            del self._solves[id(session)]
            solves.close()
            solves.deleteLater()

    def _push(self, factory, *args, **kwargs) -> str:
        session = self.session
        assert session is not None
        reason = make(session, factory, *args, **kwargs)
        show_note(self.status, reason)
        if reason:
            self._refresh_later.request()   # put the widgets back to the document's values
        return reason

    def _request(self, _event=None) -> None:
        if not self.isVisible():
            self._stale = True      # a hidden panel does no work for each edit
            return
        self._refresh_later.request()

    def _on_structure(self, event=None) -> None:
        # connectors appeared, went or were renamed
        self.creator.refresh(getattr(event, "renamed", None))
        self._request()

    def _on_created(self, key: str) -> None:
        session = self.session
        if session is not None:
            session.selection.select(key)
            self.activated.emit(key)

    def showEvent(self, event: QtGui.QShowEvent) -> None:  # noqa: N802 (Qt naming)
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def _fill_trace(self, force: bool = False) -> None:
        """Show the trace of the last run (only when its tab is shown: a thousand mates
        make thousands of lines)."""
        if not self._trace_stale or (not force and self.tabs.currentWidget() is not self.trace):
            return
        self._trace_stale = False
        session = self.session
        snap = session.live.snap if session is not None else None
        self.trace.setPlainText("\n".join(snap.trace) if snap is not None else "")

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt naming)
        if obj is self.trace.viewport() and \
                event.type() == QtCore.QEvent.Type.MouseButtonRelease and \
                event.button() == QtCore.Qt.MouseButton.LeftButton and \
                not self.trace.textCursor().hasSelection():   # (not while copying text)
            cursor = self.trace.cursorForPosition(event.position().toPoint())
            self.select_trace_line(cursor.blockNumber())
        return super().eventFilter(obj, event)

    def _on_edited(self, event) -> None:
        # values of mates and transforms come back on undo and redo
        if any(isinstance(n, (Mate, Link, Model)) for c in event.changes for n in c.nodes):
            self._request()

    # -- selection ----------------------------------------------------------------
    def _select(self, keys: list[str], row: int) -> None:
        session = self.session
        if session is not None and 0 <= row < len(keys):
            session.selection.select(keys[row])
            self.activated.emit(keys[row])

    def _on_finding(self, item: QtWidgets.QListWidgetItem) -> None:
        key = item.data(KEY_ROLE)
        session = self.session
        if session is not None and key is not None:
            session.selection.select(key)
            self.activated.emit(key)
