"""Render the application icon's PNG sizes from its SVG.

    .venv/bin/python packaging/icons/make_icons.py

Reads ``hicolor/scalable/apps/snapframe.svg`` and writes ``hicolor/NxN/apps/snapframe.png``
for every size of :data:`SIZES` (the folder is laid out as the freedesktop icon theme
``hicolor``, so it can be copied into ``~/.local/share/icons/`` as it is), and the sizes
the editor's window uses into ``resources/icons/`` (package data: the window icon must be
there when Snapframe is installed from its wheel, where ``packaging/`` is not).
Qt's SVG renderer draws them; no display is needed.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

__all__ = ["SIZES", "WINDOW_SIZES", "SVG", "png_path", "render", "main"]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SVG = HERE / "hicolor" / "scalable" / "apps" / "snapframe.svg"
#: The sizes of the icon set.
SIZES = (16, 32, 48, 64, 128, 256, 512)
#: The sizes copied for the window icon (``snapframe.resources.ICONS``).
WINDOW_SIZES = (16, 32, 48, 64, 128, 256)
WINDOW_ICONS = ROOT / "resources" / "icons"


def png_path(size: int) -> Path:
    """Where the icon set keeps the ``size`` pixels square PNG."""
    return HERE / "hicolor" / f"{size}x{size}" / "apps" / "snapframe.png"


def render(size: int, svg: Path = SVG):
    """The SVG drawn into a ``size`` x ``size`` QImage (ARGB32, transparent around)."""
    from PySide6 import QtGui, QtSvg
    renderer = QtSvg.QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg}: not an SVG Qt can draw")
    image = QtGui.QImage(size, size, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QtGui.QPainter(image)
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QtGui.QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image.convertToFormat(QtGui.QImage.Format.Format_ARGB32)


def main() -> int:
    from PySide6 import QtGui
    # A QGuiApplication gives QPainter its fonts; no window is opened, so no display.
    app = QtGui.QGuiApplication.instance() or QtGui.QGuiApplication([sys.argv[0], "-platform", "offscreen"])
    WINDOW_ICONS.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        out = png_path(size)
        out.parent.mkdir(parents=True, exist_ok=True)
        if not render(size).save(str(out), "PNG"):
            print(f"cannot write {out}", file=sys.stderr)
            return 1
        if size in WINDOW_SIZES:
            shutil.copyfile(out, WINDOW_ICONS / f"snapframe-{size}.png")
        print(out.relative_to(ROOT))
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
