"""Offscreen pictures of a document (``snapframe render``, thumbnails, documentation)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["render_document"]


def render_document(document, out: str | Path, size: tuple[int, int] = (1024, 768),
                    view: str = "iso", frames: bool = False, collisions: bool = False,
                    dark: bool = False) -> Path:
    """Draw ``document`` as the editor's viewport would and save a PNG."""
    from .viewport.canvas import Canvas
    from .viewport.scene import Look, SceneMirror, camera_position, TRIAD_KINDS
    look = Look.dark() if dark else Look()
    canvas = Canvas.offscreen(size)
    try:
        canvas.set_background(look.background, look.background_top)
        canvas.set_fxaa(True)
        mirror = SceneMirror(canvas, document, look)
        mirror.set_visible("collisions", collisions)
        for kind in TRIAD_KINDS:
            mirror.set_visible(kind, frames and kind != "model")
        mirror.set_visible("joint axes", frames)
        bounds = mirror.bounds()
        canvas.set_camera(*camera_position(bounds, view))
        if bounds is not None:
            canvas.fit(bounds)
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        canvas.screenshot(out)
    finally:
        canvas.close()
    return out
