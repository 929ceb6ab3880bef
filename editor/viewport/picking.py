"""Picking in the viewport for a gesture (a placement target, a joint's parent, a mate
connector, a point on a body), as opposed to selecting.

A :class:`PickRequest` says what a click may pick: elements of some kinds (frames are
picked by their origin: the nearest one within :data:`PICK_RADIUS` pixels of the click,
which is easier to hit than a one-pixel triad line; a link also by its geometry), or a
point on the drawn geometry (:class:`SurfacePoint`, with the clicked face's normal).
:func:`project` maps world points to widget pixels for a whole scene at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["PickRequest", "SurfacePoint", "PICK_RADIUS", "project", "nearest_on_screen",
           "face_normal"]

#: How far from a frame's origin (widget pixels) a click still picks the frame.
PICK_RADIUS = 12.0


@dataclass(frozen=True)
class SurfacePoint:
    """A clicked point of the drawn geometry: the ``key`` of the visual or collision, the
    key of its link (``link_key``), the ``point`` in the world frame and the clicked face's
    outward unit ``normal`` (toward the camera for a surface with no outside)."""

    key: str
    link_key: str
    point: np.ndarray
    normal: np.ndarray


@dataclass
class PickRequest:
    """What the next click picks: ``kinds`` of element (None: a :class:`SurfacePoint`),
    and what to call with the result or when the user gives up."""

    kinds: frozenset[str] | None
    on_pick: Callable[..., None]
    hint: str = ""
    on_cancel: Callable[[], None] | None = None
    #: keys that may not be picked (the other end of a mate already chosen...)
    exclude: frozenset[str] = frozenset()


def project(renderer, points: np.ndarray, height: int, ratio: float
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Widget pixels (n, 2), depths (n,) and an in-front mask (n,) of world ``points``
    (n, 3) as the renderer's camera sees them (``height`` of the widget in its pixels,
    ``ratio`` device pixels per widget pixel)."""
    camera = renderer.GetActiveCamera()
    aspect = renderer.GetTiledAspectRatio()
    M = camera.GetCompositeProjectionTransformMatrix(aspect, -1.0, 1.0)
    A = np.array([[M.GetElement(i, j) for j in range(4)] for i in range(4)])
    h = np.c_[points, np.ones(len(points))] @ A.T
    w = h[:, 3]
    front = w > 1e-12
    safe = np.where(front, w, 1.0)
    ndc = h[:, :3] / safe[:, None]
    width_px, height_px = renderer.GetSize()
    x0, y0 = renderer.GetOrigin()
    dx = x0 + (ndc[:, 0] + 1.0) * 0.5 * width_px
    dy = y0 + (ndc[:, 1] + 1.0) * 0.5 * height_px
    pixels = np.column_stack([dx / ratio, height - dy / ratio])
    return pixels, ndc[:, 2], front & (np.abs(ndc[:, 2]) <= 1.0)


def nearest_on_screen(pixels: np.ndarray, depth: np.ndarray, visible: np.ndarray,
                      x: float, y: float, radius: float = PICK_RADIUS) -> int | None:
    """Index of the point drawn nearest to (x, y) within ``radius`` (the one nearer the
    camera among equally near ones), or None."""
    if not len(pixels):
        return None
    d = np.hypot(pixels[:, 0] - x, pixels[:, 1] - y)
    d = np.where(visible, d, np.inf)
    best = float(d.min())
    if not best <= radius:
        return None
    ties = np.flatnonzero(d <= best + 0.5)
    return int(ties[np.argmin(depth[ties])])


def face_normal(a: np.ndarray, b: np.ndarray, c: np.ndarray,
                towards: np.ndarray | None = None) -> np.ndarray:
    """Unit normal of the triangle (a, b, c) by its winding; turned to face ``towards``
    (a point, e.g. the camera) when given."""
    n = np.cross(b - a, c - a)
    length = float(np.linalg.norm(n))
    if length == 0.0:
        return np.array([0.0, 0.0, 1.0])
    n = n / length
    if towards is not None and float(np.dot(n, towards - a)) < 0.0:
        n = -n
    return n
