"""The scene tree: every model, link, joint, frame, include, mate and part of a document.

:class:`SceneTreeModel` is a Qt item model over the core document, keyed by instance key
(the same keys the viewport and the core use).  Children are built when a row is first
expanded, so a world of 1000 included robots opens at once.  Includes show their file
and, below them, the included model's elements with their own instance keys.

:class:`SceneTree` is the panel: a filter box over the tree; the tree's selection and
the document's shared selection follow each other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.diagnostics import Severity
from snapframe.core.live.keys import ROOT, join_key, part_key
from snapframe.core.model import (Collision, Frame, Include, Joint, Link, Mate, MateConnector,
                                  Model, Node, Plugin, Visual, World)

from .icons import kind_icon, status_icon
from .panels._qt import palette_color
from .session import DocumentSession

__all__ = ["SceneTreeModel", "SceneTree", "KEY_ROLE"]

KEY_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
KIND_ROLE = QtCore.Qt.ItemDataRole.UserRole + 2
_ERROR_COLOR = "#e0474c"   # readable on light and dark backgrounds
#: Edited fields that change what a row shows (its label, tooltip).
_LABEL_FIELDS = frozenset({"type", "connectors", "uri", "name", "attached_to", "parent_name",
                           "child_name"})


class _Item:
    __slots__ = ("key", "node", "kind", "parent", "row", "_children")

    def __init__(self, key: str, node: Node, kind: str, parent: "_Item | None", row: int) -> None:
        self.key, self.node, self.kind, self.parent, self.row = key, node, kind, parent, row
        self._children: list[_Item] | None = None

    def children(self) -> list["_Item"]:
        if self._children is None:
            self._children = [_Item(k, n, kind, self, i)
                              for i, (k, n, kind) in enumerate(_child_entries(self))]
        return self._children


def _entity_name(node: Node) -> str:
    return node.effective_name if isinstance(node, Include) else node.name


def _kind(node: Node) -> str:
    return "include" if isinstance(node, Include) else node.kind


def _child_entries(item: _Item) -> list[tuple[str, Node, str]]:
    """(key, node, kind) of what a tree item shows below it."""
    node, key = item.node, item.key
    out: list[tuple[str, Node, str]] = []
    if isinstance(node, Link):
        for part in (*node.visuals, *node.collisions):
            out.append((part_key(key, part.kind, part.name), part, part.kind))
        return out
    entities: list[Node] = []
    scope_key = key
    if isinstance(node, Include):
        if node.merge:
            scope_key = item.parent.key if item.parent is not None else ROOT
        entities = [*(node.model.entities if node.model is not None else []), *node.entities]
    elif isinstance(node, (Model, World)):
        entities = list(node.entities)
    for e in entities:
        if isinstance(e, Plugin) or e.extras.get("derived_from_mate"):
            continue  # joints and links derived from a mate are shown as the mate
        out.append((join_key(scope_key, _entity_name(e)), e, _kind(e)))
    return out


def _label(item: _Item) -> str:
    node = item.node
    name = _entity_name(node) or node.kind
    if isinstance(node, Include):
        target = Path(node.resolved_path).name if node.resolved_path else node.uri
        return f"{name}  ⟵ {target}" + ("  (merged)" if node.merge else "")
    if isinstance(node, Joint):
        return f"{name}  [{node.type}]"
    if isinstance(node, Mate):
        return f"{name}  [{node.type}: {node.connectors[0]} ↔ {node.connectors[1]}]"
    return name


def _tooltip(item: _Item) -> str:
    node = item.node
    lines = [f"<b>{_entity_name(node) or node.kind}</b> — {item.kind.replace('_', ' ')}",
             f"key: <code>{item.key or '(root)'}</code>"]
    if node.source.file:
        lines.append(f"{Path(node.source.file).name}:{node.source.line}")
    if isinstance(node, Include):
        lines.append(f"uri: {node.uri}")
    if isinstance(node, Frame) and not isinstance(node, MateConnector) and node.attached_to:
        lines.append(f"attached_to: {node.attached_to}")
    if isinstance(node, Joint):
        lines.append(f"{node.parent_name} → {node.child_name}")
    return "<br>".join(lines)


class SceneTreeModel(QtCore.QAbstractItemModel):
    """Item model of a document's elements (see the module docstring)."""

    def __init__(self, session: DocumentSession, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._problems: dict[str, Severity] = {}
        self._reset_items()
        session.structureChanged.connect(self._on_structure)
        session.diagnosticsChanged.connect(self._on_diagnostics)
        session.edited.connect(self._on_edited)
        self._note_problems()

    def _reset_items(self) -> None:
        root = self.session.document.root
        self._top = _Item("<top>", World(), "world", None, 0)
        self._top._children = ([_Item(ROOT, root, _kind(root), self._top, 0)]
                               if root is not None else [])

    # -- Qt model API -----------------------------------------------------------------
    def _item(self, index: QtCore.QModelIndex) -> _Item:
        return index.internalPointer() if index.isValid() else self._top

    def index(self, row: int, column: int, parent: QtCore.QModelIndex = QtCore.QModelIndex()
              ) -> QtCore.QModelIndex:
        kids = self._item(parent).children()
        if 0 <= row < len(kids) and column == 0:
            return self.createIndex(row, 0, kids[row])
        return QtCore.QModelIndex()

    def parent(self, index: QtCore.QModelIndex) -> QtCore.QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QtCore.QModelIndex()
        up = index.internalPointer().parent
        if up is None or up is self._top:
            return QtCore.QModelIndex()
        return self.createIndex(up.row, 0, up)

    def rowCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:
        return len(self._item(parent).children())

    def hasChildren(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> bool:
        item = self._item(parent)
        node = item.node
        if item is self._top:
            return bool(item.children())
        if isinstance(node, Link):
            return bool(node.visuals or node.collisions)
        if isinstance(node, Include):
            return node.model is not None or bool(node.entities)
        return isinstance(node, (Model, World)) and bool(node.entities)

    def columnCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:
        return 1

    def data(self, index: QtCore.QModelIndex, role: int = QtCore.Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        item: _Item = index.internalPointer()
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            return _label(item)
        if role == QtCore.Qt.ItemDataRole.DecorationRole:
            problem = self._problems.get(item.key)
            if problem is not None and problem >= Severity.WARNING:
                return status_icon(str(problem))
            return kind_icon(item.kind)
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return _tooltip(item)
        if role == QtCore.Qt.ItemDataRole.ForegroundRole:
            if self._problems.get(item.key) == Severity.ERROR:
                return QtGui.QBrush(QtGui.QColor(_ERROR_COLOR))
            if item.key and item.key not in self.session.live.poses and \
                    not isinstance(item.node, (Mate, Plugin)):
                # no resolvable pose: quiet, in the theme's own muted colour
                return QtGui.QBrush(palette_color(QtGui.QPalette.ColorGroup.Active,
                                                  QtGui.QPalette.ColorRole.PlaceholderText))
        if role == KEY_ROLE:
            return item.key
        if role == KIND_ROLE:
            return item.kind
        return None

    def flags(self, index: QtCore.QModelIndex) -> QtCore.Qt.ItemFlag:
        if not index.isValid():
            return QtCore.Qt.ItemFlag.NoItemFlags
        return QtCore.Qt.ItemFlag.ItemIsEnabled | QtCore.Qt.ItemFlag.ItemIsSelectable

    # -- keys ---------------------------------------------------------------------
    def index_of(self, key: str) -> QtCore.QModelIndex:
        """The index of ``key`` (builds the rows on the way), invalid if not shown."""
        top = self._top.children()
        if not top:
            return QtCore.QModelIndex()
        item = top[0]
        if key == ROOT:
            return self.createIndex(0, 0, item)
        link_key, mark, _ = key.partition("#")
        target_parts = link_key.split("::")
        depth = 0
        while True:
            found = None
            for child in item.children():
                if child.key == key:
                    return self.createIndex(child.row, 0, child)
                ckey = child.key.partition("#")[0]
                parts = ckey.split("::") if ckey else []
                if parts and parts == target_parts[:len(parts)] and len(parts) > depth:
                    found = child
            if found is None:
                # merged children live one level down but share the parent's scope
                merged = [c for c in item.children() if isinstance(c.node, Include) and c.node.merge]
                for m in merged:
                    for child in m.children():
                        if child.key == key or key.startswith(child.key + "#") or \
                                key.startswith(child.key + "::"):
                            found = child
                            break
                    if found is not None:
                        break
            if found is None:
                return QtCore.QModelIndex()
            if found.key == key:
                return self.createIndex(found.row, 0, found)
            item = found
            depth = len(found.key.partition("#")[0].split("::"))

    # -- updates ------------------------------------------------------------------
    def _on_structure(self, _event) -> None:
        self.beginResetModel()
        self._reset_items()
        self.endResetModel()

    def _built_items(self):
        """Every row built so far (rows are built when first shown or looked up): what
        a view can be showing, so what an update of labels or icons needs to touch."""
        todo = list(self._top._children or [])
        while todo:
            item = todo.pop()
            yield item
            if item._children:
                todo.extend(item._children)

    def _rows_changed(self, items: list[_Item], roles: list[int]) -> None:
        """``dataChanged`` for ``items``, one signal per run of adjacent rows.

        Labels, icons and colours change in place: rows neither move nor appear, so this
        is a data change, not a layout change (a ``layoutChanged`` without its
        ``layoutAboutToBeChanged`` leaves the filter proxy's persistent indexes dangling,
        and the next selection change or repaint reads freed memory)."""
        by_parent: dict[int, tuple[_Item, list[int]]] = {}
        for item in items:
            by_parent.setdefault(id(item.parent), (item.parent, []))[1].append(item.row)
        for parent, rows in by_parent.values():
            kids = parent.children()
            rows.sort()
            start = prev = rows[0]
            for row in rows[1:] + [None]:
                if row is not None and row == prev + 1:
                    prev = row
                    continue
                self.dataChanged.emit(self.createIndex(start, 0, kids[start]),
                                      self.createIndex(prev, 0, kids[prev]), roles)
                if row is not None:
                    start = prev = row

    def _on_edited(self, event) -> None:
        # Retyped joints, re-pointed includes, edited attached_to or parent/child change
        # labels and tooltips in place (renames and removals come as structure changes).
        ids = {id(n) for c in event.changes
               if set(c.fields) & _LABEL_FIELDS for n in c.nodes}
        if not ids:
            return
        items = [i for i in self._built_items() if id(i.node) in ids]
        if items:
            self._rows_changed(items, [QtCore.Qt.ItemDataRole.DisplayRole,
                                       QtCore.Qt.ItemDataRole.ToolTipRole,
                                       QtCore.Qt.ItemDataRole.DecorationRole,
                                       QtCore.Qt.ItemDataRole.ForegroundRole])

    def _note_problems(self) -> None:
        problems: dict[str, Severity] = {}
        for d in self.session.document.diagnostics:
            if d.key is not None and problems.get(d.key, Severity.INFO) <= d.severity:
                problems[d.key] = d.severity
        self._problems = problems

    def _on_diagnostics(self, _event) -> None:
        old = self._problems
        self._note_problems()
        new = self._problems
        changed = {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)}
        if not changed:
            return
        items = [i for i in self._built_items() if i.key in changed]
        if items:
            self._rows_changed(items, [QtCore.Qt.ItemDataRole.DecorationRole,
                                       QtCore.Qt.ItemDataRole.ForegroundRole])


class _Filter(QtCore.QSortFilterProxyModel):
    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.setRecursiveFilteringEnabled(True)
        self.setFilterCaseSensitivity(QtCore.Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterRole(KEY_ROLE)

    def hasChildren(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> bool:  # noqa: N802
        # Unfiltered, the source's cheap answer will do; the proxy's own would list the
        # children of every row the view shows (a thousand includes at a world's top).
        if not self.filterRegularExpression().pattern():
            return self.sourceModel().hasChildren(self.mapToSource(parent))
        return super().hasChildren(parent)


class SceneTree(QtWidgets.QWidget):
    """The scene tree panel: filter box, tree, context menu (``actions`` supplies them)."""

    def __init__(self, session: DocumentSession,
                 context_actions: Callable[[str], list[QtGui.QAction]] | None = None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.context_actions = context_actions
        self.model = SceneTreeModel(session, self)
        self.proxy = _Filter(self)
        self.proxy.setSourceModel(self.model)
        self.filter = QtWidgets.QLineEdit(self)
        self.filter.setPlaceholderText("Filter by name (e.g. gripper::body)")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._on_filter)
        self.view = QtWidgets.QTreeView(self)
        self.view.setModel(self.proxy)
        self.view.setHeaderHidden(True)
        self.view.setUniformRowHeights(True)
        self.view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.selectionModel().selectionChanged.connect(self._on_view_selection)
        self.view.expand(self.proxy.index(0, 0))
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.filter)
        layout.addWidget(self.view)
        self._syncing = False
        session.selectionChanged.connect(self._on_core_selection)
        self.model.modelReset.connect(self._after_reset)
        self._expanded: set[str] = set()
        self.view.expanded.connect(lambda i: self._note_expanded(i, True))
        self.view.collapsed.connect(lambda i: self._note_expanded(i, False))

    def _note_expanded(self, index: QtCore.QModelIndex, on: bool) -> None:
        """Remember what the user expanded (not what a filter opened to show matches)."""
        if self.proxy.filterRegularExpression().pattern():
            return
        key = index.data(KEY_ROLE)
        (self._expanded.add if on else self._expanded.discard)(key)

    # -- selection both ways --------------------------------------------------------
    def _on_view_selection(self, *_args) -> None:
        if self._syncing:
            return
        keys = [i.data(KEY_ROLE) for i in self.view.selectionModel().selectedIndexes()]
        current = self.view.currentIndex().data(KEY_ROLE)
        if current in keys:  # the clicked row is the active one
            keys.remove(current)
            keys.append(current)
        modifiers = QtWidgets.QApplication.keyboardModifiers()
        if modifiers & (QtCore.Qt.KeyboardModifier.ControlModifier
                        | QtCore.Qt.KeyboardModifier.ShiftModifier):
            # Adding to the selection keeps what the filter hides (the view cannot show it).
            hidden = [k for k in self.session.selection.keys if not self._shown(k)]
            keys = hidden + [k for k in keys if k not in hidden]
        self._syncing = True
        try:
            self.session.selection.select(keys)
        finally:
            self._syncing = False

    def _shown(self, key: str) -> bool:
        """Whether the filtered view has a row for ``key``."""
        return self.proxy.mapFromSource(self.model.index_of(key)).isValid()

    def _on_core_selection(self, event) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            sel = QtCore.QItemSelection()
            active = None
            for key in self.session.selection.keys:
                index = self.proxy.mapFromSource(self.model.index_of(key))
                if index.isValid():
                    sel.select(index, index)
                    active = index
            flags = QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect
            self.view.selectionModel().select(sel, flags)
            if active is not None:
                self.view.scrollTo(active)
                self.view.selectionModel().setCurrentIndex(
                    active, QtCore.QItemSelectionModel.SelectionFlag.NoUpdate)
        finally:
            self._syncing = False

    def _after_reset(self) -> None:
        self._after_reset_expansion()
        self._on_core_selection(None)

    def _after_reset_expansion(self) -> None:
        for key in sorted(self._expanded | {ROOT}, key=len):
            index = self.proxy.mapFromSource(self.model.index_of(key))
            if index.isValid():
                self.view.expand(index)

    # -- filter and menu ----------------------------------------------------------
    def _on_filter(self, text: str) -> None:
        # Rows the filter hides leave the view's selection; that is the view's business,
        # not the user's: the document's selection stays, and shows again with its rows.
        self._syncing = True
        try:
            self.proxy.setFilterFixedString(text.strip())
            if text.strip():
                self.view.expandAll()
            else:
                self._after_reset_expansion()
        finally:
            self._syncing = False
        self._on_core_selection(None)

    def _context_menu(self, pos: QtCore.QPoint) -> None:
        index = self.view.indexAt(pos)
        if not index.isValid() or self.context_actions is None:
            return
        key = index.data(KEY_ROLE)
        if key not in self.session.selection:
            self.session.selection.select(key)
        menu = QtWidgets.QMenu(self)
        for action in self.context_actions(key):
            if action is None:
                menu.addSeparator()
            else:
                menu.addAction(action)
        menu.exec(self.view.viewport().mapToGlobal(pos))
