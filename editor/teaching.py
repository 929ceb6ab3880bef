"""Teaching mode: how a pose ``relative_to`` a frame resolves, step by step and as a graph.

:func:`explain_steps` walks the ``relative_to`` chain that places an element, from the
root frame (the world, or the top model) out to the element, and gives each step with its
numbers: the frame it places, the frame its ``<pose>`` is written in, the written value
and the pose composed so far (``X_R_frame = X_R_relative_to @ <pose>``, ``R`` the root
frame).  The frame inspector prints these steps; :class:`FrameGraphPanel` draws the
``relative_to`` (dashed) and ``attached_to`` (solid) graphs of a document as a node-link
diagram and highlights the chain of the active selection.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from snapframe.core.diagnostics import SourceLocation
from snapframe.core.frames.scope import Scope, Unresolved, Vertex
from snapframe.core.live.keys import ROOT, join_key, split_part
from snapframe.core.model import Document, Link, Model, World
from snapframe.core.model.names import MODEL_FRAME, SEP, WORLD
from snapframe.core.pose import IDENTITY, Pose

from .frame_graphs import GraphData as _GraphData, document_graph
from .icons import KIND_COLORS, kind_icon
from .session import DocumentSession
from .theme import theme_colors

__all__ = ["Step", "explain_steps", "root_label", "frame_label", "format_pose", "document_graph",
           "FrameGraphPanel", "compact_number"]


# -- the chain, with numbers ----------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One transform of a chain: ``composed = X_R_relative_to @ written [@ X_M_Pf^-1]``.

    ``frame`` and ``relative_to`` are instance keys (``""``: the root frame).  ``written``
    is the ``<pose>`` value as written; for a model with a ``placement_frame`` it places
    that frame (``placement`` is then ``X_M_Pf``, the placement frame in the model frame).
    ``composed`` is the frame's pose in the root frame after this step.  ``problem`` says
    why the chain stops here (a missing frame, a cycle), with the other numbers unset.
    """

    frame: str
    kind: str
    relative_to: str
    written: Pose
    composed: Pose
    reason: str = ""
    placement_frame: str = ""
    placement: Pose | None = None
    source: SourceLocation | None = None
    problem: str = ""

    @property
    def local(self) -> Pose:
        """``X_relative_to_frame``: the step's own transform (placement applied)."""
        if self.placement is None:
            return self.written
        return self.written @ self.placement.inverse()


def root_label(document: Document) -> str:
    """How the root frame is called: ``world``, or the top model's name."""
    root = document.root
    if isinstance(root, World) or root is None:
        return WORLD
    return root.name or MODEL_FRAME


def frame_label(document: Document, key: str) -> str:
    """A key as a reader sees it (the root frame gets its name)."""
    return key if key else root_label(document)


def _scope_frame_key(scope_key: str, name: str, scope: Scope) -> str:
    """Key of the frame ``name`` as written inside the scope whose key is ``scope_key``."""
    if name in ("", scope.frame_name):
        return scope_key
    if name.endswith(SEP + MODEL_FRAME):
        name = name[: -len(SEP + MODEL_FRAME)]
    return join_key(scope_key, name)


def _reason(v: Vertex, scope: Scope) -> str:
    if v.pose.relative_to:
        return "written relative_to"
    if v.kind == "joint":
        return "default: the joint's child frame"
    if v.kind == "frame" and getattr(v.node, "attached_to", ""):
        return "default: its attached_to frame"
    return f"default: the {'world' if scope.kind == 'world' else 'model'} frame"


def _vertex_kind(v: Vertex) -> str:
    return v.node.kind if v.kind == "frame" else v.kind


def _source(spec_source: SourceLocation, node_source: SourceLocation) -> SourceLocation:
    return spec_source if spec_source.line else node_source


def _problem(frame: str, relative_to: str, text: str) -> Step:
    return Step(frame, "", relative_to, IDENTITY, IDENTITY, problem=text)


def _place(scope: Scope, scope_key: str, name: str, X_R_S: Pose, out: list[Step]) -> bool:
    """Append the steps that place ``name`` (a frame seen from ``scope``); False when the
    chain cannot be resolved (the last step then says why)."""
    frame = scope.frame_name
    if name in ("", frame):
        return True
    head, _, rest = name.partition(SEP)
    if rest == MODEL_FRAME:
        rest = ""
    # The chain inside this scope, from `head` back to the scope frame (iterative: a chain
    # of a thousand includes placed one on the next is a loop, not a recursion).
    chain: list[Vertex] = []
    seen: set[str] = set()
    current = head
    while current not in ("", frame):
        v = scope.vertices.get(current)
        if v is None:
            out.append(_problem(join_key(scope_key, current), scope_key,
                                f"no frame [{current}] in {scope.kind} [{scope.name}]"))
            return False
        if current in seen:
            cycle = " -> ".join([w.name for w in chain] + [current])
            out.append(_problem(join_key(scope_key, current), scope_key,
                                f"relative_to cycle: {cycle}"))
            return False
        seen.add(current)
        chain.append(v)
        current = v.relative_to(frame).partition(SEP)[0]
    for v in reversed(chain):
        key = join_key(scope_key, v.name)
        base = v.relative_to(frame)
        base_head, _, base_rest = base.partition(SEP)
        if base_rest and base_rest != MODEL_FRAME:
            # Written relative to a frame inside a nested model: place that frame first.
            nested = scope.vertices[base_head].nested if base_head in scope.vertices else None
            if nested is None:
                out.append(_problem(key, join_key(scope_key, base),
                                    f"[{base_head}] is not a model"))
                return False
            try:
                X_R_nested = X_R_S @ scope.pose_of(base_head)
            except Unresolved as exc:
                out.append(_problem(key, join_key(scope_key, base), exc.reason))
                return False
            if not _place(nested, join_key(scope_key, base_head), base_rest, X_R_nested, out):
                return False
        relative_to = _scope_frame_key(scope_key, base, scope)
        try:
            X_S_v = scope.pose_of(v.name)
            placement_frame, placement = "", None
            if v.kind == "model" and v.placement_frame and v.nested is not None:
                placement_frame = v.placement_frame
                placement = v.nested.pose_of(placement_frame)
        except Unresolved as exc:
            out.append(_problem(key, relative_to, exc.reason))
            return False
        out.append(Step(key, _vertex_kind(v), relative_to, v.pose.value, X_R_S @ X_S_v,
                        _reason(v, scope), placement_frame, placement,
                        _source(v.pose.source, v.node.source)))
    if rest:
        v = scope.vertices[head]
        if v.nested is None:
            out.append(_problem(join_key(scope_key, name), join_key(scope_key, head),
                                f"[{head}] is not a model"))
            return False
        return _place(v.nested, join_key(scope_key, head), rest,
                      X_R_S @ scope.pose_of(head), out)
    return True


def _strip_top(document: Document, scope: Scope, name: str) -> str:
    """Accept ``top::x`` for model documents, as keys elsewhere do."""
    root = document.root
    if isinstance(root, Model) and name and not scope.has(name):
        first, _, rest = name.partition(SEP)
        if first == root.name:
            return rest
    return name


def explain_steps(document: Document, key: str) -> list[Step]:
    """The chain of transforms that places the element ``key`` (an instance key or a scoped
    name), from the root frame out: one :class:`Step` per ``<pose>`` composed.

    The last step's ``composed`` is the element's pose in the root frame, what
    ``document.live.poses`` holds.  Visuals and collisions end with a step of their own.
    An empty list: the key is the root (identity) or the document is empty.
    """
    graph = document.frames
    scope = graph.root
    if scope is None:
        return []
    head, part_kind, part_name = split_part(key)
    head = _strip_top(document, scope, head)
    steps: list[Step] = []
    if not part_kind:
        _place(scope, ROOT, head, IDENTITY, steps)
        return steps
    link = document.element(head)
    part = next((p for p in getattr(link, part_kind + "s", []) if p.name == part_name), None) \
        if isinstance(link, Link) else None
    part_key = f"{head}#{part_kind}:{part_name}"
    if part is None:
        return [_problem(part_key, head, f"no {part_kind} [{part_name}] in [{head}]")]
    scope_key = head.rpartition(SEP)[0] if SEP in head else ROOT
    rel = part.pose.relative_to
    # A part is written relative to its link unless it names another frame of the model.
    rel_key = head if rel in ("", head.rpartition(SEP)[2]) else \
        (scope_key if rel == MODEL_FRAME else join_key(scope_key, rel))
    if not _place(scope, ROOT, rel_key, IDENTITY, steps):
        return steps
    X_R_rel = steps[-1].composed if steps and rel_key else IDENTITY
    reason = "written relative_to" if rel else "default: its link"
    steps.append(Step(part_key, part_kind, rel_key, part.pose.value, X_R_rel @ part.pose.value,
                      reason, source=_source(part.pose.source, part.source)))
    return steps


#: Below this a value is rounding noise (a rotation's 1e-17), shown as 0.
NOISE = 1e-12


def compact_number(value: float, digits: int) -> str | None:
    """``value`` in a short scientific form (``1e300``, ``1.5e-5``) when fixed-point
    would be huge (|v| >= 1e6) or show nothing but zeros (|v| < 1e-4, not noise);
    ``inf``/``nan`` as such; None when fixed-point suits it."""
    if not math.isfinite(value):
        return str(value)
    magnitude = abs(value)
    if magnitude >= 1e6 or NOISE <= magnitude < 1e-4:
        mantissa, _, exponent = f"{value:.{max(digits, 1)}e}".partition("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{int(exponent)}"
    return None


def _num(v: float, digits: int, compact: bool = False) -> str:
    short = compact_number(v, digits)
    if short is not None:
        return short
    text = f"{v:.{digits}f}"
    if compact and "." in text:
        text = text.rstrip("0").rstrip(".")
    if float(text) == 0.0:
        text = text.lstrip("-")  # no "-0"
    return text


def format_pose(X: Pose, rotation: str = "deg", digits: int = 4, compact: bool = False,
                length: str = "m") -> str:
    """``"x y z | r p y"`` in metres (or ``length="mm"``: millimetres, marked ``mm``) and
    ``rotation`` (``"deg"``, ``"rad"``) or ``"quat"`` (``w x y z``): the form the chain
    and tooltips show.  ``compact`` drops trailing zeros (``0 0 1.02 | 0° 0° 45°``)."""
    if length == "mm":
        xyz = " ".join(_num(v * 1000.0, max(digits - 3, 1), compact) for v in X.p) + " mm"
    else:
        xyz = " ".join(_num(v, digits, compact) for v in X.p)
    if rotation == "quat":
        rot = "q " + " ".join(_num(v, digits, compact) for v in X.quat())
    elif rotation == "rad":
        rot = " ".join(_num(v, digits, compact) for v in X.rpy()) + " rad"
    else:
        rot = " ".join(_num(math.degrees(v), digits, compact) + "°" for v in X.rpy())
    return f"{xyz} | {rot}"


# -- the graph panel ------------------------------------------------------------------

#: Above this many frames the panel draws the selection's model and chain only.
MAX_NODES = 400

_RELATIVE_COLOR = "#4a6fa5"
_ATTACHED_COLOR = "#2b9e7a"
_CHAIN_COLOR = "#e67e22"
_COLUMN_GAP = 56.0
_ROW_GAP = 12.0
_NODE_HEIGHT = 26.0
#: Structure-changing fields: an edit of these redraws the graph.
_GRAPH_FIELDS = frozenset({"relative_to", "attached_to", "parent_name", "child_name", "name",
                           "placement_frame", "uri", "template", "canonical_link"})


def _layout(nodes: list[str], relative: dict[str, str]) -> dict[str, tuple[int, float]]:
    """(depth, row) of each node: a tidy tree along ``relative_to`` (it is a tree, each
    frame written relative to one other); leaves take consecutive rows and a parent sits
    midway between its first and last child.  Frames off the tree (cycles) come last."""
    children: dict[str, list[str]] = {n: [] for n in nodes}
    for n in nodes:
        parent = relative.get(n)
        if parent is not None and parent in children and n != ROOT:
            children[parent].append(n)
    place: dict[str, tuple[int, float]] = {}
    next_row = 0.0

    entered: set[str] = set()

    def walk(start: str, depth0: int) -> None:
        nonlocal next_row
        # Iterative post-order: deep chains must not hit the recursion limit.
        stack: list[tuple[str, int, bool]] = [(start, depth0, False)]
        while stack:
            node, depth, done = stack.pop()
            if node in place:
                continue
            if not done:
                if node in entered:
                    continue  # a relative_to cycle: met again
                entered.add(node)
                kids = [k for k in children[node] if k not in place and k not in entered]
                if kids:
                    stack.append((node, depth, True))
                    stack.extend((k, depth + 1, False) for k in reversed(kids))
                    continue
            rows = [place[k][1] for k in children[node] if k in place]
            if rows:
                row = (min(rows) + max(rows)) / 2
            else:
                row = next_row
                next_row += 1
            place[node] = (depth, row)

    if ROOT in children:
        walk(ROOT, 0)
    for n in nodes:
        if n not in place:
            walk(n, 0)
    return place


class _NodeItem(QtWidgets.QGraphicsObject):
    """A frame as a labelled box: kind icon, scope in grey, name in bold."""

    def __init__(self, key: str, label_html: str, kind: str, tooltip: str) -> None:
        super().__init__()
        self.key = key
        self.kind = kind
        self._text = QtGui.QStaticText(label_html)
        self._text.setTextFormat(QtCore.Qt.TextFormat.RichText)
        font = QtGui.QFont()
        self._text.prepare(QtGui.QTransform(), font)
        size = self._text.size()
        self._icon = kind_icon(kind, 16).pixmap(16, 16)
        self.width = size.width() + 16 + 22
        self.height = max(_NODE_HEIGHT, size.height() + 8)
        self.state = "normal"  # "normal" | "chain" | "active" | "dim"
        self.setToolTip(tooltip)
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)
        self.setAcceptHoverEvents(True)
        self._hover = False

    def boundingRect(self) -> QtCore.QRectF:
        return QtCore.QRectF(-2, -2, self.width + 4, self.height + 4)

    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        rect = QtCore.QRectF(0, 0, self.width, self.height)
        color = QtGui.QColor(KIND_COLORS.get(self.kind, "#888888"))
        theme = theme_colors()   # light or dark, as the window is now
        fill = QtGui.QColor(theme["box_active"] if self.state == "active" else theme["box"])
        border = QtGui.QColor(_CHAIN_COLOR) if self.state in ("chain", "active") else \
            QtGui.QColor(theme["box_border"])
        pen = QtGui.QPen(border, 2.4 if self.state in ("chain", "active") else
                         (1.6 if self._hover else 1.0))
        painter.setOpacity(0.5 if self.state == "dim" else 1.0)
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, 5, 5)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawRoundedRect(QtCore.QRectF(0, 0, 5, self.height), 2, 2)
        painter.drawPixmap(QtCore.QPointF(10, (self.height - 16) / 2), self._icon)
        painter.setPen(QtGui.QColor(theme["text"]))
        painter.drawStaticText(QtCore.QPointF(30, (self.height - self._text.size().height()) / 2),
                               self._text)

    def set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.setZValue(2 if state in ("chain", "active") else 1)
            self.update()

    def hoverEnterEvent(self, event) -> None:
        self._hover = True
        self.update()

    def hoverLeaveEvent(self, event) -> None:
        self._hover = False
        self.update()

    # anchors for edges
    def left(self) -> QtCore.QPointF:
        return self.pos() + QtCore.QPointF(0, self.height / 2)

    def right(self) -> QtCore.QPointF:
        return self.pos() + QtCore.QPointF(self.width, self.height / 2)


class _EdgeItem(QtWidgets.QGraphicsPathItem):
    """An arrow from a frame to the frame it refers to (its relative_to or attached_to)."""

    def __init__(self, graph: str, source: _NodeItem, target: _NodeItem) -> None:
        super().__init__()
        self.graph, self.source, self.target = graph, source, target
        self.highlighted = False
        self._head = QtGui.QPolygonF()
        self._route()
        self.set_highlight(False)

    def _route(self) -> None:
        a, b = self.source, self.target
        if b.pos().x() + b.width <= a.pos().x():   # target to the left: the usual case
            start, end = a.left(), b.right()
        elif a.pos().x() + a.width <= b.pos().x():
            start, end = a.right(), b.left()
        else:                                       # same column: loop out to the right
            start, end = a.right(), b.right()
        path = QtGui.QPainterPath(start)
        dx = end.x() - start.x()
        bend = max(abs(dx) * 0.45, 40.0)
        sign = -1.0 if dx < 0 else 1.0
        if abs(dx) < 1:
            c1, c2 = start + QtCore.QPointF(bend, 0), end + QtCore.QPointF(bend, 0)
        else:
            c1, c2 = start + QtCore.QPointF(sign * bend, 0), end - QtCore.QPointF(sign * bend, 0)
        if self.graph == "attached_to":
            # Bow attached_to arcs away from the relative_to arrow between the same frames.
            lift = QtCore.QPointF(0, 16.0 + 0.08 * abs(end.y() - start.y()))
            c1, c2 = c1 + lift, c2 + lift
        path.cubicTo(c1, c2, end)
        self.setPath(path)
        # Arrow head along the last tangent.
        t = path.pointAtPercent(0.97)
        angle = math.atan2(end.y() - t.y(), end.x() - t.x())
        size = 7.0
        left = end - QtCore.QPointF(math.cos(angle - 0.45) * size, math.sin(angle - 0.45) * size)
        right = end - QtCore.QPointF(math.cos(angle + 0.45) * size, math.sin(angle + 0.45) * size)
        self._head = QtGui.QPolygonF([end, left, right])

    def set_highlight(self, on: bool, dim: bool = False) -> None:
        self.highlighted = on
        color = QtGui.QColor(_CHAIN_COLOR if on else
                             (_RELATIVE_COLOR if self.graph == "relative_to" else _ATTACHED_COLOR))
        if dim and not on:
            color.setAlphaF(0.35)
        pen = QtGui.QPen(color, 2.6 if on else 1.3)
        if self.graph == "relative_to":
            pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        self.setPen(pen)
        self.setZValue(1.5 if on else 0)
        self.update()

    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        super().paint(painter, option, widget)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(self.pen().color())
        painter.drawPolygon(self._head)

    def boundingRect(self) -> QtCore.QRectF:
        return super().boundingRect().united(self._head.boundingRect()).adjusted(-2, -2, 2, 2)


class _GraphView(QtWidgets.QGraphicsView):
    """Pan with the mouse, zoom with the wheel (under the cursor); click a box to select."""

    clicked = QtCore.Signal(str)

    def __init__(self, scene: QtWidgets.QGraphicsScene, parent=None) -> None:
        super().__init__(scene, parent)
        self.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        self.setDragMode(QtWidgets.QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QtWidgets.QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.follow_palette()

    def follow_palette(self) -> None:
        self.setBackgroundBrush(QtGui.QColor(theme_colors()["canvas"]))

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:
        factor = 1.15 if event.angleDelta().y() > 0 else 1 / 1.15
        scale = self.transform().m11() * factor
        if 0.1 <= scale <= 4.0:
            self.scale(factor, factor)

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            moved = (event.position().toPoint() - self._press).manhattanLength() \
                if hasattr(self, "_press") else 0
            if moved < 4:
                item = self.itemAt(event.position().toPoint())
                while item is not None and not isinstance(item, _NodeItem):
                    item = item.parentItem()
                if isinstance(item, _NodeItem):
                    self.clicked.emit(item.key)

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        self._press = event.position().toPoint()
        super().mousePressEvent(event)


def _label_html(key: str, root: str) -> str:
    colors = theme_colors()
    if not key:
        return f"<span style='color:{colors['text']}'><b>{root}</b></span>"
    scope, sep, name = key.rpartition(SEP)
    scope_html = f"<span style='color:{colors['muted']}'>{scope}{sep}</span>" if sep else ""
    return f"<span style='color:{colors['text']}'>{scope_html}<b>{name}</b></span>"


class FrameGraphPanel(QtWidgets.QWidget):
    """The ``relative_to`` and ``attached_to`` graphs of a document as a diagram.

    Frames are boxes laid out as a tree along ``relative_to``, the root frame on the left
    and each frame one column right of the frame its pose is written in; dashed arrows
    point to that frame, solid arrows to the frame a frame is attached to.  The chain of
    the active selection is highlighted; clicking a box selects that element.

    Public: :meth:`set_session`, :meth:`fit`; :attr:`nodes` (key -> box), :attr:`edges`
    (``(graph, from, to)`` -> arrow) and :attr:`chain` (the highlighted keys, root first)
    describe what is drawn.
    """

    def __init__(self, session: DocumentSession | None = None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: DocumentSession | None = None
        self.nodes: dict[str, _NodeItem] = {}
        self.edges: dict[tuple[str, str, str], _EdgeItem] = {}
        self.chain: list[str] = []
        self._data: _GraphData | None = None
        self._dirty = True
        self._shown_scope: str | None = None

        self.scene = QtWidgets.QGraphicsScene(self)
        self.view = _GraphView(self.scene, self)
        self.view.clicked.connect(self._on_clicked)
        self.show_relative = QtWidgets.QCheckBox("relative_to", self)
        self.show_relative.setToolTip("Dashed arrows: a frame's pose is written relative to "
                                      "the frame the arrow points to")
        self.show_attached = QtWidgets.QCheckBox("attached_to", self)
        self.show_attached.setToolTip("Solid arrows: a frame moves with the frame the arrow "
                                      "points to (joints: their child)")
        for box in (self.show_relative, self.show_attached):
            box.setChecked(True)
            box.toggled.connect(self._apply_visibility)
        fit = QtWidgets.QToolButton(self)
        fit.setText("Fit")
        fit.setToolTip("Show the whole graph")
        fit.clicked.connect(self.fit)
        self.note = QtWidgets.QLabel(self)
        self.note.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
        legend = QtWidgets.QLabel(
            f"<span style='color:{_RELATIVE_COLOR}'>- - ➜</span> pose relative_to &nbsp; "
            f"<span style='color:{_ATTACHED_COLOR}'>——➜</span> attached_to &nbsp; "
            f"<span style='color:{_CHAIN_COLOR}'>▬</span> chain of the selection", self)
        bar = QtWidgets.QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        bar.addWidget(QtWidgets.QLabel("Show:", self))
        bar.addWidget(self.show_relative)
        bar.addWidget(self.show_attached)
        bar.addStretch(1)
        bar.addWidget(fit)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(legend)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.note)
        legend.setContentsMargins(6, 0, 6, 0)
        self.note.setContentsMargins(6, 0, 6, 2)
        self.set_session(session)

    # -- session ------------------------------------------------------------------
    def set_session(self, session: DocumentSession | None) -> None:
        """Show ``session``'s document (None: nothing)."""
        if self.session is not None:
            for signal, slot in self._connections():
                try:
                    signal.disconnect(slot)
                except (RuntimeError, TypeError):
                    pass
        self.session = session
        if session is not None:
            for signal, slot in self._connections():
                signal.connect(slot)
        self._data = None
        self._rebuild()

    def _connections(self):
        s = self.session
        assert s is not None
        return [(s.structureChanged, self._on_structure), (s.edited, self._on_edited),
                (s.selectionChanged, self._on_selection)]

    def _on_structure(self, _event) -> None:
        self._data = None
        self._rebuild()

    def _on_edited(self, event) -> None:
        if any(set(c.fields) & _GRAPH_FIELDS or not c.fields for c in event.changes):
            self._data = None
            self._rebuild()

    def _on_selection(self, _event) -> None:
        if not self.isVisible():
            self._dirty = True   # drawn and highlighted when shown
            return
        if self._data is not None and len(self._data.nodes) > MAX_NODES and \
                self._focus_scope() != self._shown_scope:
            self._rebuild()  # a large graph shows the selection's model: another one now
        else:
            self._highlight()

    def _on_clicked(self, key: str) -> None:
        if self.session is not None and (key == ROOT or self.session.document.element(key)):
            self.session.selection.select(key)

    # -- drawing ------------------------------------------------------------------
    def changeEvent(self, event: QtCore.QEvent) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() in (QtCore.QEvent.Type.PaletteChange,
                            QtCore.QEvent.Type.ApplicationPaletteChange) and \
                hasattr(self, "note"):
            # The theme changed: the canvas and the boxes' text (drawn once) follow.
            self.view.follow_palette()
            self._rebuild()

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self._rebuild()

    def _active(self) -> str | None:
        return self.session.selection.active if self.session is not None else None

    def _focus_scope(self) -> str:
        active = self._active() or ""
        return split_part(active)[0].partition(SEP)[0]

    def _rebuild(self) -> None:
        if not self.isVisible():
            self._dirty = True   # drawn when shown: a hidden panel costs nothing per edit
            return
        self._dirty = False
        self.scene.clear()
        self.nodes, self.edges = {}, {}
        self.note.clear()
        session = self.session
        if session is None or session.document.root is None:
            self.note.setText("No document")
            return
        document = session.document
        if self._data is None:
            self._data = document_graph(document)
        data = self._data
        keep = self._visible(data)
        nodes = [n for n in data.nodes if n in keep]
        if len(nodes) < len(data.nodes):
            scope = self._shown_scope or root_label(document)
            self.note.setText(f"{len(data.nodes)} frames: showing the {len(nodes)} of "
                              f"[{scope}] and the selection's chain. Select an element of "
                              "another model to see it.")
        relative = {a: b for a, b in data.relative_to.items() if a in keep and b in keep}
        place = _layout(nodes, relative)
        poses = session.live.poses
        root = root_label(document)
        items: dict[str, _NodeItem] = {}
        for key in nodes:
            if key == ROOT:
                kind = "world" if isinstance(document.root, World) else "model"
            elif key in poses:
                kind = poses.kind(key)
            else:
                node = document.element(key)
                kind = node.kind if node is not None else "frame"
            items[key] = _NodeItem(key, _label_html(key, root), kind, self._tooltip(key, kind))
        # Columns as wide as their widest box.
        widths: dict[int, float] = {}
        for key, (depth, _row) in place.items():
            widths[depth] = max(widths.get(depth, 0.0), items[key].width)
        x_of: dict[int, float] = {}
        x = 0.0
        for depth in sorted(widths):
            x_of[depth] = x
            x += widths[depth] + _COLUMN_GAP
        for key, item in items.items():
            depth, row = place[key]
            item.setPos(x_of[depth], row * (_NODE_HEIGHT + _ROW_GAP))
            self.scene.addItem(item)
        self.nodes = items
        for a, b in relative.items():
            self._add_edge("relative_to", a, b)
        for a, b in data.attached_to:
            if a in items and b in items:
                self._add_edge("attached_to", a, b)
        self.scene.setSceneRect(self.scene.itemsBoundingRect().adjusted(-20, -20, 20, 20))
        self._apply_visibility()
        self._highlight()

    def _visible(self, data: _GraphData) -> set[str]:
        if len(data.nodes) <= MAX_NODES:
            self._shown_scope = None
            return set(data.nodes)
        scope = self._focus_scope()
        self._shown_scope = scope
        keep = {ROOT}
        keep.update(s.frame for s in self._chain_steps())
        if scope:
            more = [n for n in data.nodes if n == scope or n.startswith(scope + SEP)]
        else:
            more = [n for n in data.nodes if SEP not in n]
        keep.update(more[:max(MAX_NODES - len(keep), 0)])   # a model can be huge too
        # Everything kept needs its relative_to parent to sit in the tree.
        for n in list(keep):
            while n in data.relative_to and data.relative_to[n] not in keep:
                n = data.relative_to[n]
                keep.add(n)
        return keep

    def _add_edge(self, graph: str, a: str, b: str) -> None:
        edge = _EdgeItem(graph, self.nodes[a], self.nodes[b])
        self.scene.addItem(edge)
        self.edges[(graph, a, b)] = edge

    def _tooltip(self, key: str, kind: str) -> str:
        assert self.session is not None
        document = self.session.document
        name = frame_label(document, key)
        lines = [f"<b>{name}</b> — {kind.replace('_', ' ')}"]
        if key and self._data is not None and key in self._data.relative_to:
            lines.append(f"pose relative_to: {frame_label(document, self._data.relative_to[key])}")
        poses = self.session.live.poses
        if key in poses:
            X = Pose.from_matrix(poses.pose(key))
            lines.append(f"in {root_label(document)}: {format_pose(X, compact=True)}")
        return "<br>".join(lines)

    def _chain_steps(self) -> list[Step]:
        active = self._active()
        if self.session is None or active is None:
            return []
        try:
            return explain_steps(self.session.document, active)
        except Exception:   # a view must never break on a document it cannot explain
            return []

    def _highlight(self) -> None:
        """Highlight the active selection's chain (boxes and the arrows between them)."""
        steps = [s for s in self._chain_steps() if not s.problem]
        active = self._active()
        chain = [ROOT] + [s.frame for s in steps if s.frame in self.nodes]
        pairs = {(s.frame, s.relative_to) for s in steps}
        has_chain = active is not None
        self.chain = chain if has_chain else []
        target = split_part(active)[0] if active is not None else None
        for key, item in self.nodes.items():
            if not has_chain:
                item.set_state("normal")
            elif key == target:
                item.set_state("active")
            elif key in chain:
                item.set_state("chain")
            else:
                item.set_state("dim")
        for (graph, a, b), edge in self.edges.items():
            edge.set_highlight(graph == "relative_to" and (a, b) in pairs, dim=has_chain)
        if target is not None and target in self.nodes:
            self.view.ensureVisible(self.nodes[target], 40, 40)

    def _apply_visibility(self) -> None:
        for (graph, _a, _b), edge in self.edges.items():
            box = self.show_relative if graph == "relative_to" else self.show_attached
            edge.setVisible(box.isChecked())

    def fit(self) -> None:
        """Zoom to show the whole graph (never above 100 %)."""
        rect = self.scene.sceneRect()
        if rect.isEmpty():
            return
        self.view.resetTransform()
        self.view.fitInView(rect, QtCore.Qt.AspectRatioMode.KeepAspectRatio)
        if self.view.transform().m11() > 1.0:
            self.view.resetTransform()
