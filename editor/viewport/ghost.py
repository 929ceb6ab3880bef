"""The ghost of a part being placed: its bodies translucent, its frames as triads, drawn
where the part would go if the user committed now.

A :class:`Ghost` loads the part file read-only (once per file: moving the preview only
moves points), draws its visuals (or, for a body with contact geometry only, its
collisions) in one translucent actor that cannot be picked, the triads of its frames, and
the placement frame as a larger triad: the frame that is about to land on the target.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from snapframe.core.live.keys import ROOT, split_part
from snapframe.core.live.posetable import PoseTable
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Collision, Link, Visual

from .canvas import Canvas
from .layers import MeshLayer, TriadLayer
from .shapes import shape_mesh
from .vtkdata import hex_rgb

__all__ = ["Ghost", "GHOST_OPACITY"]

#: How much of the ghost shows: enough to judge where it goes, see-through to the target.
GHOST_OPACITY = 0.35
#: Frame kinds whose triads the ghost shows.
_FRAME_KINDS = ("model", "link", "frame", "mate_connector", "joint")


class _Part:
    """A part file's drawable content, posed in its own model frame."""

    def __init__(self, path: Path, search_paths: list[Path] | None) -> None:
        self.path = path
        self.mtime = _mtime(path)
        document = load(path, LoadContext(search_paths=list(search_paths or []),
                                          use_environment=search_paths is None))
        self.bodies: list[tuple[str, object, np.ndarray]] = []   # key, shape, X_M_part
        self.frames: dict[str, np.ndarray] = {}                   # name -> X_M_F
        if document.root is None:
            return
        table = PoseTable(document.frames)   # poses only: no inertia, no SNAP for a preview
        for key in table.keys:
            node = table.node(key)
            if split_part(key)[1]:
                drawn = isinstance(node, Visual) or (
                    isinstance(node, Collision) and isinstance(node.parent, Link)
                    and not node.parent.visuals)
                shape = shape_mesh(node.geometry) if drawn else None
                if shape is not None:
                    self.bodies.append((key, shape, table.pose(key)))
            elif table.kind(key) in _FRAME_KINDS:
                self.frames[key] = table.pose(key)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class Ghost:
    """The preview of one part at a time on a :class:`Canvas` (see the module docstring)."""

    def __init__(self, canvas: Canvas, color: str = "#3d9be9") -> None:
        self.canvas = canvas
        self.color = color
        self.part: _Part | None = None
        self.placement_frame = ""
        self.bodies = MeshLayer("ghost")
        self.frames = TriadLayer("ghost frames")
        self.placement = TriadLayer("ghost placement frame")
        self._actors: list = []
        self.visible = False

    def show(self, path: str | Path, X_W_M: np.ndarray, placement_frame: str = "",
             triad_size: float = 0.1, search_paths: list[Path] | None = None) -> bool:
        """Draw the part of ``path`` with its model frame at ``X_W_M`` (4x4), the frame
        ``placement_frame`` (``""``: the model frame) emphasised; False when the file
        has nothing to draw (then nothing is shown)."""
        path = Path(path)
        part = self.part
        fresh = part is None or part.path != path or part.mtime != _mtime(path)
        if fresh:
            part = self.part = _Part(path, search_paths)
        if fresh or triad_size != self.frames.size or placement_frame != self.placement_frame:
            self.placement_frame = placement_frame
            self._build(triad_size)
        if not part.bodies and not part.frames:
            self.hide()
            return False
        X = np.asarray(X_W_M, dtype=float)
        if part.bodies:
            keys = [k for k, _s, _X in part.bodies]
            self.bodies.move(keys, X @ np.stack([x for _k, _s, x in part.bodies]))
        if part.frames:
            keys = list(part.frames)
            self.frames.move(keys, X @ np.stack(list(part.frames.values())))
        chosen = placement_frame if placement_frame in part.frames else ROOT
        if chosen in part.frames:
            self.placement.move([chosen], (X @ part.frames[chosen])[None])
        for actor in self._actors:
            actor.SetVisibility(True)
        self.visible = True
        return True

    def hide(self) -> None:
        for actor in self._actors:
            actor.SetVisibility(False)
        self.visible = False

    def close(self) -> None:
        for actor in self._actors:
            self.canvas.remove_actor(actor)
        self._actors = []
        self.part = None
        self.visible = False

    def _build(self, triad_size: float) -> None:
        """(Re)create the actors for the current part, posed in its model frame (the
        caller moves them into place)."""
        for actor in self._actors:
            self.canvas.remove_actor(actor)
        self._actors = []
        part = self.part
        if part is None:
            return
        rgb = tuple(int(round(255 * c)) for c in hex_rgb(self.color))
        self.bodies.build([(k, shape, rgb, X) for k, shape, X in part.bodies])
        self.frames.size = triad_size
        self.frames.build(list(part.frames.items()))
        chosen = self.placement_frame if self.placement_frame in part.frames else ROOT
        self.placement.size = 2.2 * triad_size
        self.placement.build([(chosen, part.frames[chosen])] if chosen in part.frames else [])
        if self.bodies.mesh is not None:
            self._actors.append(self.canvas.add_mesh(
                self.bodies.mesh, rgb=True, opacity=GHOST_OPACITY, ambient=0.4, diffuse=0.6,
                cull_back=True))
        if self.frames.mesh is not None:
            self._actors.append(self.canvas.add_mesh(self.frames.mesh, rgb=True,
                                                     line_width=1.5, lighting=False))
        if self.placement.mesh is not None:
            self._actors.append(self.canvas.add_mesh(self.placement.mesh, rgb=True,
                                                     line_width=4.0, lighting=False))
        for actor in self._actors:
            actor.SetPickable(False)
            actor.SetVisibility(self.visible)
