"""Small icons for element kinds, drawn with QPainter (no image files to ship or theme).

Each kind has a colour and a glyph that says what it is: a model is a cube outline, a link
a solid block, a joint a hinge circle, a frame a pair of axes, an include a linked sheet,
a mate connector a plug, a mate a chain link, a visual an eye-like lens, a collision a
hatched block.  Colours follow the triads: x red, y green, z blue.
"""

from __future__ import annotations

from functools import lru_cache

from PySide6 import QtCore, QtGui

__all__ = ["kind_icon", "KIND_COLORS", "status_icon"]

KIND_COLORS = {
    "world": "#5c6b7a", "model": "#3d7bd9", "include": "#7b5cd6", "link": "#d98b2b",
    "joint": "#2ba58a", "frame": "#c0392b", "mate_connector": "#c0392b", "mate": "#8e44ad",
    "visual": "#7f8c8d", "collision": "#b7950b", "plugin": "#95a5a6",
}


def _pen(color: str, width: float = 1.6) -> QtGui.QPen:
    pen = QtGui.QPen(QtGui.QColor(color))
    pen.setWidthF(width)
    pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(QtCore.Qt.PenJoinStyle.RoundJoin)
    return pen


def _draw(kind: str, p: QtGui.QPainter, s: float) -> None:
    c = KIND_COLORS.get(kind, "#888888")
    color = QtGui.QColor(c)
    m = s * 0.18
    box = QtCore.QRectF(m, m, s - 2 * m, s - 2 * m)
    p.setPen(_pen(c))
    if kind in ("model", "world"):
        d = s * 0.18
        front = QtCore.QRectF(m, m + d, s - 2 * m - d, s - 2 * m - d)
        p.drawRect(front)
        p.drawLine(front.topLeft(), front.topLeft() + QtCore.QPointF(d, -d))
        p.drawLine(front.topRight(), front.topRight() + QtCore.QPointF(d, -d))
        p.drawLine(front.bottomRight(), front.bottomRight() + QtCore.QPointF(d, -d))
        p.drawLine(QtCore.QPointF(m + d, m), QtCore.QPointF(s - m, m))
        p.drawLine(QtCore.QPointF(s - m, m), QtCore.QPointF(s - m, s - m - d))
    elif kind == "link":
        p.setBrush(color)
        p.drawRoundedRect(box, s * 0.1, s * 0.1)
    elif kind == "collision":
        p.drawRect(box)
        for i in range(1, 4):
            t = box.left() + box.width() * i / 4
            p.drawLine(QtCore.QPointF(t, box.bottom()), QtCore.QPointF(box.left(), box.bottom()
                                                                      - (t - box.left())))
    elif kind == "visual":
        p.drawEllipse(box.adjusted(0, s * 0.15, 0, -s * 0.15))
        p.setBrush(color)
        p.drawEllipse(box.center(), s * 0.12, s * 0.12)
    elif kind == "joint":
        p.drawEllipse(box.center(), s * 0.3, s * 0.3)
        p.setBrush(color)
        p.drawEllipse(box.center(), s * 0.1, s * 0.1)
    elif kind in ("frame", "mate_connector"):
        o = QtCore.QPointF(m, s - m)
        p.setPen(_pen("#c0392b", 1.8))
        p.drawLine(o, QtCore.QPointF(s - m, s - m))
        p.setPen(_pen("#27ae60", 1.8))
        p.drawLine(o, QtCore.QPointF(m, m))
        if kind == "mate_connector":
            p.setPen(_pen("#2c6fd1", 1.8))
            p.drawLine(o, QtCore.QPointF(s * 0.62, s * 0.38))
            p.setBrush(QtGui.QColor("#2c6fd1"))
            p.drawEllipse(QtCore.QPointF(s * 0.62, s * 0.38), s * 0.09, s * 0.09)
    elif kind == "include":
        sheet = QtCore.QRectF(m, m, s * 0.5, s * 0.62)
        p.drawRect(sheet)
        p.drawLine(QtCore.QPointF(s * 0.45, s * 0.62), QtCore.QPointF(s - m, s * 0.62))
        p.drawLine(QtCore.QPointF(s - m, s * 0.62), QtCore.QPointF(s - m, s - m))
        p.drawLine(QtCore.QPointF(s * 0.62, s - m), QtCore.QPointF(s - m, s - m))
    elif kind == "mate":
        p.drawRoundedRect(QtCore.QRectF(m, s * 0.3, s * 0.45, s * 0.4), s * 0.2, s * 0.2)
        p.drawRoundedRect(QtCore.QRectF(s * 0.4, s * 0.3, s * 0.45, s * 0.4), s * 0.2, s * 0.2)
    else:
        p.drawEllipse(box)


@lru_cache(maxsize=None)
def kind_icon(kind: str, size: int = 16) -> QtGui.QIcon:
    """The icon of an element kind (cached)."""
    icon = QtGui.QIcon()
    for scale in (1, 2):
        pix = QtGui.QPixmap(size * scale, size * scale)
        pix.fill(QtCore.Qt.GlobalColor.transparent)
        painter = QtGui.QPainter(pix)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        _draw(kind, painter, float(size * scale))
        painter.end()
        pix.setDevicePixelRatio(scale)
        icon.addPixmap(pix)
    return icon


@lru_cache(maxsize=None)
def status_icon(severity: str, size: int = 16) -> QtGui.QIcon:
    """A round badge for diagnostics: error (red cross), warning (amber !), info (blue i)."""
    color, glyph = {"error": ("#d63031", "×"), "warning": ("#e1a200", "!"),
                    "info": ("#2d7be0", "i")}.get(severity, ("#888888", "?"))
    pix = QtGui.QPixmap(size * 2, size * 2)
    pix.fill(QtCore.Qt.GlobalColor.transparent)
    p = QtGui.QPainter(pix)
    p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    p.setBrush(QtGui.QColor(color))
    p.setPen(QtCore.Qt.PenStyle.NoPen)
    p.drawEllipse(QtCore.QRectF(2, 2, size * 2 - 4, size * 2 - 4))
    font = p.font()
    font.setBold(True)
    font.setPixelSize(int(size * 1.4))
    p.setFont(font)
    p.setPen(QtGui.QColor("white"))
    p.drawText(QtCore.QRectF(0, 0, size * 2, size * 2), QtCore.Qt.AlignmentFlag.AlignCenter, glyph)
    p.end()
    pix.setDevicePixelRatio(2)
    return QtGui.QIcon(pix)
