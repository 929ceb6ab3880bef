"""Offscreen pictures of a document (``snapframe render``, thumbnails, documentation)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["render_document"]


def render_document(document, out: str | Path, size: tuple[int, int] = (1024, 768),
                    view: str = "iso", frames: bool = False, collisions: bool = False,
                    dark: bool = False) -> Path:
    """Draw ``document`` as the editor's viewport would and save a PNG."""
    import pyvista as pv
    from .viewport.scene import Look, SceneMirror, camera_position, TRIAD_KINDS
    look = Look.dark() if dark else Look()
    plotter = pv.Plotter(off_screen=True, window_size=list(size))
    try:
        plotter.set_background(look.background, top=look.background_top)
        plotter.enable_anti_aliasing("fxaa")
        mirror = SceneMirror(plotter, document, look)
        mirror.set_visible("collisions", collisions)
        for kind in TRIAD_KINDS:
            mirror.set_visible(kind, frames and kind != "model")
        mirror.set_visible("joint axes", frames)
        plotter.camera_position = camera_position(mirror.bounds(), view)
        bounds = mirror.bounds()
        if bounds is not None:
            plotter.reset_camera(render=False, bounds=bounds)
            plotter.camera.zoom(1.3)
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        plotter.screenshot(str(out))
    finally:
        plotter.close()
    return out
