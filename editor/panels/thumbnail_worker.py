"""Rendering library thumbnails, run in a separate process (no Qt here).

VTK offscreen rendering in a thread of the editor, while the editor's own viewport also
renders with VTK, shares OpenGL and X state between threads and is not safe; a child
process is.  :mod:`.thumbnails` starts ``python -m snapframe.editor.panels.thumbnail_worker``,
writes one JSON job per line on its stdin (``{"path", "out", "search_paths"}``) and reads
one JSON reply per finished job on its stdout (``{"path", "out", "ok", "error"}``).  The
process ends when its stdin is closed.

:func:`render_thumbnail` is also usable directly (tests, scripts).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

__all__ = ["render_thumbnail", "main"]

#: Colour of visuals without a material (as the viewport's light look).
DEFAULT_RGB = (178, 190, 205)
COLLISION_RGB = (214, 160, 60)
#: Rendered at this multiple of the size and scaled down: anti-aliasing that keeps the
#: transparent background clean (FXAA/MSAA blend edges with the clear colour).
SUPERSAMPLE = 2


def _triangles(doc) -> list[tuple[np.ndarray, np.ndarray, tuple[int, int, int]]]:
    """(world points, faces, rgb) of the visuals, else of the collisions, of ``doc``."""
    from snapframe.core.live.keys import ROOT, subtree_keys
    from snapframe.core.model import Collision, Visual
    from snapframe.editor.viewport.shapes import shape_mesh

    if doc.root is None:
        return []
    poses = doc.live.poses
    nodes = list(subtree_keys(doc.root, ROOT))
    for kind, rgb_of in ((Visual, lambda n: _rgb(n.color) if n.color else DEFAULT_RGB),
                         (Collision, lambda n: COLLISION_RGB)):
        out = []
        for key, node in nodes:
            if not isinstance(node, kind) or key not in poses:
                continue
            shape = shape_mesh(node.geometry)
            if shape is None or not len(shape.faces):
                continue
            X = poses.pose(key)
            points = shape.points @ X[:3, :3].T + X[:3, 3]
            out.append((points, shape.faces, rgb_of(node)))
        if out:
            return out
    return []


def _triads(doc) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(points, line cells, rgb per line) of a red-green-blue triad at every link and
    frame: what a model without any geometry is drawn as."""
    poses = doc.live.poses
    frames = [X for key, X in poses.as_dict().items()
              if key and poses.kind(key) in ("link", "frame", "model")]
    if not frames:
        return None
    origins = np.array([X[:3, 3] for X in frames])
    extent = float(np.ptp(origins, axis=0).max()) if len(origins) > 1 else 0.0
    length = max(0.25 * extent, 0.05)
    points, lines, colors = [], [], []
    for X in frames:
        for axis, rgb in enumerate(((220, 50, 47), (38, 166, 91), (44, 111, 209))):
            n = len(points)
            points += [X[:3, 3], X[:3, 3] + length * X[:3, axis]]
            lines.append((2, n, n + 1))
            colors.append(rgb)
    return np.array(points), np.array(lines).ravel(), np.array(colors, dtype=np.uint8)


def _rgb(color) -> tuple[int, int, int]:
    return tuple(int(round(255 * max(0.0, min(1.0, c)))) for c in color[:3])  # type: ignore


def render_thumbnail(path: str | Path, out: str | Path, size: int = 128,
                     search_paths: list[str] | None = None) -> None:
    """Render the model file ``path`` to the PNG ``out`` (``size`` pixels square, RGBA with a
    transparent background), seen from the viewport's iso direction.  Raises ValueError
    when the file has nothing to draw."""
    from PySide6 import QtCore, QtGui

    from snapframe.core.loading import LoadContext, load
    from snapframe.editor.viewport.canvas import Canvas
    from snapframe.editor.viewport.vtkdata import polydata, set_rgb

    doc = load(path, LoadContext(search_paths=[Path(p) for p in (search_paths or [])]))
    parts = _triangles(doc)
    canvas = Canvas.offscreen((size * SUPERSAMPLE, size * SUPERSAMPLE))
    try:
        canvas.renderer.SetBackgroundAlpha(0.0)   # transparent around the model
        if parts:
            points, faces, colors, offset = [], [], [], 0
            for p, f, rgb in parts:
                points.append(p)
                faces.append(f + offset)
                colors.append(np.tile(np.array(rgb, dtype=np.uint8), (len(p), 1)))
                offset += len(p)
            mesh = polydata(np.vstack(points), triangles=np.vstack(faces))
            set_rgb(mesh, np.vstack(colors), on_points=True)
            canvas.add_mesh(mesh, rgb=True, ambient=0.25, diffuse=0.8, specular=0.15,
                           cull_back=True)
        else:
            triads = _triads(doc)
            if triads is None:
                raise ValueError(f"nothing to draw in {path}")
            points, lines, colors = triads
            mesh = polydata(points, polylines=lines)
            set_rgb(mesh, colors, on_points=False)
            canvas.add_mesh(mesh, rgb=True, line_width=3 * SUPERSAMPLE, lighting=False)
        bounds = mesh.GetBounds()
        centre = np.array(bounds).reshape(3, 2).mean(axis=1)
        canvas.set_camera(centre + np.array([1.0, -1.0, 0.8]), centre, (0.0, 0.0, 1.0))
        canvas.fit(bounds, margin=0.92)
        image = np.ascontiguousarray(canvas.image(alpha=True))
    finally:
        canvas.close()
    # written aside and renamed: a cache never holds half a file
    out = Path(out)
    part = out.with_name(out.name + ".part")
    h, w = image.shape[:2]
    picture = QtGui.QImage(image.data, w, h, 4 * w, QtGui.QImage.Format.Format_RGBA8888)
    picture = picture.scaled(size, size, QtCore.Qt.AspectRatioMode.IgnoreAspectRatio,
                             QtCore.Qt.TransformationMode.SmoothTransformation)
    if not picture.save(str(part), "PNG"):
        raise OSError(f"could not write {part}")
    os.replace(part, out)


def main() -> int:
    """Serve jobs from stdin until it closes (see the module docstring)."""
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 128
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        reply = {"path": job["path"], "out": job["out"], "ok": True, "error": ""}
        try:
            render_thumbnail(job["path"], job["out"], size, job.get("search_paths"))
        except Exception as exc:  # one bad model must not stop the others
            reply.update(ok=False, error=f"{type(exc).__name__}: {exc}")
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
