"""The mass table: every link's mass, centre of mass and inertia, and the totals.

:class:`MassTablePanel` shows :func:`snapframe.core.live.masstable.mass_table` of the
current document: one row per link at every depth (key, mass, centre of mass in the root
frame, the diagonal of the inertia about that centre in the root frame's axes, and where
the values come from: *written* in the file, *computed* from collisions for
``<inertial auto="true">``, or *missing*), then a totals row (total mass, combined centre
of mass, combined inertia diagonal).  Links without usable inertia are listed as missing
and left out of the totals, as are static links; the line under the table names them.

The table follows ``inertiaChanged``, ``posesChanged`` (joint sliders move centres of mass)
``structureChanged`` and ``edited``, coalesced into one refresh (and none while hidden).
Clicking a row selects the link.  *Bake computed inertia* writes the computed values of the
document's automatic links into their ``<inertial>`` (``BakeInertia`` for each, one undo
step), for formats without automatic inertia; ``auto`` is kept, as ``snapframe inertia
--write`` does.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.commands import Macro
from snapframe.core.live.background import BakeInertia
from snapframe.core.live.keys import is_inside_include
from snapframe.core.live.masstable import COMPUTED, MISSING, MassRow, MassTable, mass_table
from snapframe.core.model import Link
from snapframe.core.model.edits import EditRefused

from ..icons import kind_icon
from ..panels._binding import SessionBinding
from ..session import DocumentSession
from ._common import (MUTED_STYLE, OK_STYLE, Coalescer, label, make, note_label, num, sci,
                      show_note)

__all__ = ["MassTableModel", "MassTablePanel", "KEY_ROLE", "bake_computed_inertia"]

KEY_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1

HEADERS = ("Link", "Mass [kg]", "COM x [m]", "COM y [m]", "COM z [m]",
           "Ixx [kg·m²]", "Iyy [kg·m²]", "Izz [kg·m²]", "Source")
_TIPS = ("Link key (scoped name from the top model or world)",
         "Mass of the link",
         "Centre of mass in the root frame (the world, or the top model)", "", "",
         "Moment of inertia about the link's centre of mass, in the root frame's axes", "", "",
         "written: the file's <inertial>; computed: from the collisions "
         "(<inertial auto=\"true\">); missing: no usable inertia")
_SOURCE, _LINK = len(HEADERS) - 1, 0
#: Minimum time between two refreshes while poses stream in (a slider drag).
REFRESH_MS = 80


def _alignment(col: int) -> QtCore.Qt.AlignmentFlag:
    """Numbers right-aligned (their digits line up), names and sources left."""
    side = QtCore.Qt.AlignmentFlag.AlignRight if _LINK < col < _SOURCE else \
        QtCore.Qt.AlignmentFlag.AlignLeft
    return side | QtCore.Qt.AlignmentFlag.AlignVCenter


def _source_text(row: MassRow) -> str:
    return row.source + (" · static" if row.static else "")


class MassTableModel(QtCore.QAbstractTableModel):
    """Rows of a :class:`MassTable` and, last, its totals (``key`` None)."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.table: MassTable | None = None
        self._rows: list[MassRow] = []

    def set_table(self, table: MassTable | None) -> None:
        """Show ``table``; rows that only changed values are updated in place (a table
        being scrubbed keeps its selection and scroll position)."""
        rows = list(table.rows) if table is not None else []
        same_keys = [r.key for r in rows] == [r.key for r in self._rows] and \
            (table is None) == (self.table is None)
        if same_keys and rows:
            self.table, self._rows = table, rows
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self.rowCount() - 1, self.columnCount() - 1))
            return
        self.beginResetModel()
        self.table, self._rows = table, rows
        self.endResetModel()

    def key(self, row: int) -> str | None:
        """The link key of a row (None: the totals row)."""
        return self._rows[row].key if 0 <= row < len(self._rows) else None

    def row_of(self, key: str) -> int:
        return next((i for i, r in enumerate(self._rows) if r.key == key), -1)

    def rowCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:
        if parent.isValid() or self.table is None:
            return 0
        return len(self._rows) + 1

    def columnCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation,
                   role: int = QtCore.Qt.ItemDataRole.DisplayRole):
        if orientation != QtCore.Qt.Orientation.Horizontal:
            return None
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return _TIPS[section] or _TIPS[section - 1] or _TIPS[section - 2]
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole:
            return int(_alignment(section))
        return None

    def _values(self, row: int) -> tuple[str, float | None, np.ndarray | None,
                                         np.ndarray | None, str]:
        if row < len(self._rows):
            r = self._rows[row]
            return r.key, r.mass, r.com, r.inertia, _source_text(r)
        t = self.table
        assert t is not None
        counted = sum(1 for r in self._rows if r.mass is not None and not r.static)
        source = f"{len(t.missing)} missing" if t.missing else ""
        return f"Total ({counted} link{'s' if counted != 1 else ''})", \
            t.total_mass if t.com is not None else None, t.com, t.inertia, source

    def data(self, index: QtCore.QModelIndex, role: int = QtCore.Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self.table is None:
            return None
        row, col = index.row(), index.column()
        totals = row == len(self._rows)
        name, mass, com, inertia, source = self._values(row)
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            if col == _LINK:
                return name
            if col == 1:
                return num(mass, 4)
            if 2 <= col <= 4:
                return num(None if com is None else float(com[col - 2]), 4)
            if 5 <= col <= 7:
                return sci(None if inertia is None else float(inertia[col - 5, col - 5]))
            return source
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole:
            return int(_alignment(col))
        if role == QtCore.Qt.ItemDataRole.FontRole and totals:
            font = QtGui.QFont()
            font.setBold(True)
            return font
        if role == QtCore.Qt.ItemDataRole.ForegroundRole:
            if totals:
                return None
            r = self._rows[row]
            if r.source == MISSING and col in (_LINK, _SOURCE):
                return QtGui.QColor("#b9770e")
            if r.static or (r.source == MISSING and col != _LINK):
                return QtGui.QColor("#8a939c")
            if col == _SOURCE and r.source == COMPUTED:
                return QtGui.QColor("#2c6fd1")
            return None
        if role == QtCore.Qt.ItemDataRole.BackgroundRole and totals:
            palette = QtGui.QGuiApplication.palette()
            return QtGui.QColor(palette.color(QtGui.QPalette.ColorRole.Midlight))
        if role == QtCore.Qt.ItemDataRole.DecorationRole and col == _LINK and not totals:
            return kind_icon("link")
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row)
        if role == KEY_ROLE:
            return None if totals else self._rows[row].key
        return None

    def _tooltip(self, row: int) -> str:
        if row == len(self._rows):
            t = self.table
            assert t is not None
            text = "Totals of the links with mass (static links excluded)"
            if t.missing:
                text += "; missing, left out: " + ", ".join(t.missing)
            return text
        r = self._rows[row]
        if r.source == MISSING:
            return (f"{r.key}: no usable inertia (no <inertial>, where SDFormat assumes 1 kg, "
                    "or an automatic one that cannot be computed: see the diagnostics); "
                    "left out of the totals")
        text = f"{r.key}: {r.source}"
        if r.static:
            text += "; static (does not move): left out of the totals"
        return text


def _bake_commands(document, table: MassTable | None = None
                   ) -> tuple[list[BakeInertia], list[str]]:
    """``BakeInertia`` of every computed link of the document whose written values differ,
    and the keys of computed links that belong to included files (not writable here)."""
    table = table if table is not None else mass_table(document)
    commands: list[BakeInertia] = []
    foreign: list[str] = []
    seen: set[int] = set()
    for row in table.rows:
        if row.source != COMPUTED:
            continue
        link = document.element(row.key)
        if not isinstance(link, Link) or link.id in seen:
            continue
        seen.add(link.id)
        if is_inside_include(link, document.root):
            foreign.append(row.key)
            continue
        result = document.live.inertia.of(link)
        mp = result.mass_properties if result is not None else None
        if mp is None or _baked(link, mp):
            continue
        commands.append(BakeInertia(document, link, mp))
    return commands, foreign


def _baked(link: Link, mp) -> bool:
    """Whether the link's written values already are ``mp``'s."""
    i = link.inertial
    if i is None or i.mass is None or not i.written_inertia:
        return False
    written = np.array([i.mass, *i.pose.value.p, i.ixx, i.iyy, i.izz, i.ixy, i.ixz, i.iyz])
    computed = np.array([mp.mass, *mp.com, mp.ixx, mp.iyy, mp.izz, mp.ixy, mp.ixz, mp.iyz])
    return bool(np.allclose(written, computed, rtol=1e-9, atol=1e-12))


def bake_computed_inertia(document) -> Macro:
    """The command (one undo step) writing the computed inertia of the document's
    automatic links into their ``<inertial>``.  Refused when there is nothing to write."""
    commands, foreign = _bake_commands(document)
    if not commands:
        if foreign:
            raise EditRefused("the computed links belong to included files ("
                              + ", ".join(foreign[:4]) + (" ..." if len(foreign) > 4 else "")
                              + "): open them to bake their inertia")
        raise EditRefused("no computed inertia to write: no link has <inertial auto=\"true\"> "
                          "with new values")
    n = len(commands)
    return Macro(f"Bake computed inertia of {n} link{'s' if n != 1 else ''}", list(commands))


class MassTablePanel(QtWidgets.QWidget):
    """The mass table of the current document (module docstring)."""

    def __init__(self, session: DocumentSession | None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._binding = SessionBinding([
            ("inertiaChanged", self._request), ("posesChanged", self._request),
            ("structureChanged", self._request), ("edited", self._request),
            ("selectionChanged", self._on_selection)])
        self._refresh_later = Coalescer(self.refresh, REFRESH_MS, self)
        self._stale = False
        self._syncing = False
        self.model = MassTableModel(self)
        self.view = QtWidgets.QTableView(self)
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setAlternatingRowColors(True)
        self.view.setShowGrid(False)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        # widths from the first rows: reading all of 6000 rows on every refresh took seconds
        header.setResizeContentsPrecision(64)
        header.setSectionResizeMode(_LINK, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.view.selectionModel().currentRowChanged.connect(self._on_current_row)
        self.view.clicked.connect(lambda index: self._select_row(index.row()))

        self.summary = label("", MUTED_STYLE, self, wrap=True)
        self.bake_button = QtWidgets.QPushButton("Bake computed inertia", self)
        self.bake_button.clicked.connect(self.bake)
        self.status = note_label(self)
        bar = QtWidgets.QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.summary, 1)
        bar.addWidget(self.bake_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.view, 1)
        layout.addLayout(bar)
        layout.addWidget(self.status)
        self.set_session(session)

    # -- public API ---------------------------------------------------------------
    @property
    def session(self) -> DocumentSession | None:
        return self._binding.session

    @property
    def table(self) -> MassTable | None:
        """The table shown (None: no document)."""
        return self.model.table

    def set_session(self, session: DocumentSession | None) -> None:
        """Show the mass table of ``session`` (None: no document)."""
        self._binding.bind(session)
        show_note(self.status, "")
        self.refresh()

    def refresh(self) -> None:
        """Recompute the table now."""
        self._stale = False
        session = self.session
        table = mass_table(session.document) if session is not None else None
        self.model.set_table(table)
        self._show_summary(table)
        self._update_bake()
        self._on_selection(None)

    def bake(self) -> bool:
        """Write the computed inertia of the document's automatic links (one undo step);
        the panel says why when there is nothing to write or it is refused."""
        session = self.session
        if session is None:
            return False
        reason = make(session, bake_computed_inertia)
        if reason:
            show_note(self.status, reason)
            return False
        show_note(self.status, "Computed inertia written into the file's <inertial> elements "
                  "(undo restores them)", OK_STYLE)
        return True

    # -- updates ------------------------------------------------------------------
    def _request(self, _event=None) -> None:
        if self.isVisible():
            self._refresh_later.request()
        else:
            self._stale = True   # nobody looks: refresh when shown

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def _show_summary(self, table: MassTable | None) -> None:
        if table is None:
            self.summary.setText("No document")
            return
        parts = []
        if table.com is not None:
            c = table.com
            parts.append(f"Total {num(table.total_mass, 4)} kg, centre of mass "
                         f"({num(c[0], 4)}, {num(c[1], 4)}, {num(c[2], 4)}) m in the root "
                         "frame")
        else:
            parts.append("No link has a mass")
        if table.missing:
            more = " …" if len(table.missing) > 5 else ""
            parts.append(f"{len(table.missing)} without inertia, not counted: "
                         + ", ".join(table.missing[:5]) + more)
        static = sum(1 for r in table.rows if r.static)
        if static:
            parts.append(f"{static} static link{'s' if static != 1 else ''} not counted")
        self.summary.setText(". ".join(parts) + ".")

    def _update_bake(self) -> None:
        session = self.session
        if session is None:
            self.bake_button.setEnabled(False)
            return
        commands, foreign = _bake_commands(session.document, self.model.table)
        n = len(commands)
        self.bake_button.setEnabled(bool(n))
        self.bake_button.setText(f"Bake computed inertia ({n})" if n else
                                 "Bake computed inertia")
        if n:
            tip = f"Write the computed inertia of {n} automatic link{'s' if n != 1 else ''} " \
                  "into the file (one undo step)"
        elif foreign:
            tip = "The automatic links belong to included files: open them to bake"
        else:
            tip = "No automatic link (<inertial auto=\"true\">) has new values to write"
        self.bake_button.setToolTip(tip)

    # -- selection ----------------------------------------------------------------
    def _select_row(self, row: int) -> None:
        key = self.model.key(row)
        session = self.session
        if key is not None and session is not None and not self._syncing:
            session.selection.select(key)

    def _on_current_row(self, current: QtCore.QModelIndex, _previous) -> None:
        if current.isValid():
            self._select_row(current.row())

    def _on_selection(self, _event) -> None:
        """Show the active link as the current row (no new selection from that)."""
        session = self.session
        active = session.selection.active if session is not None else None
        row = self.model.row_of(active) if active is not None else -1
        self._syncing = True
        try:
            sm = self.view.selectionModel()
            if row < 0:
                sm.clearSelection()
            elif sm.currentIndex().row() != row or not sm.isRowSelected(row):
                sm.setCurrentIndex(self.model.index(row, 0),
                                   QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect
                                   | QtCore.QItemSelectionModel.SelectionFlag.Rows)
                self.view.scrollTo(self.model.index(row, 0))
        finally:
            self._syncing = False
