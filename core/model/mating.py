"""Mate connectors where an editor's user clicked a body (OpenPLX): the command returns an
:class:`~snapframe.core.model.edits.AddNode` (one undo step) and raises
:class:`~snapframe.core.model.edits.EditRefused` with the reason for bad input, like every
command.  (Mates between connectors named by their keys:
:func:`snapframe.core.model.connecting.AddMateBetween`.)

* :func:`AddMateConnectorAt` -- a connector on a link at a world point with its main axis
  along a world direction (a clicked face's outward normal, or into the body); its normal
  (x axis) is chosen by :func:`normal_for`, so the same click always gives the same frame.
* :func:`connector_pose` -- a connector's frame from a position, main axis and normal by
  the OpenPLX rule.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..pose import Pose
from .document import Document
from .edits import AddMateConnector, AddNode, EditRefused
from .nodes import Link, Model

__all__ = ["AddMateConnectorAt", "normal_for", "connector_pose"]
#: The body's +z serves as the normal unless the main axis is within 30 degrees of it.
_MIN_PERPENDICULAR = 0.5


def _unit(v: Sequence[float], what: str) -> np.ndarray:
    try:
        a = np.asarray(v, dtype=float).reshape(3)
    except (TypeError, ValueError):
        raise EditRefused(f"{what} needs three numbers, not {v!r}") from None
    n = float(np.linalg.norm(a))
    if not math.isfinite(n) or n < 1e-12:
        raise EditRefused(f"{what} must be a finite, non-zero direction, not {tuple(a)}")
    return a / n


def normal_for(main_axis: Sequence[float]) -> np.ndarray:
    """The normal (x axis) of a connector whose main axis is ``main_axis`` (both in the
    owner's frame): the owner's +z turned into the plane perpendicular to the main axis,
    or its +x when the main axis is within 30 degrees of ±z.  A face on a side of a body
    gets a normal pointing up, a top or bottom face one along +x."""
    m = _unit(main_axis, "the main axis")
    for hint in (np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])):
        n = hint - float(hint @ m) * m
        length = float(np.linalg.norm(n))
        if length >= _MIN_PERPENDICULAR:
            return n / length
    raise AssertionError("unreachable: +x and +z cannot both lie near one axis")


def connector_pose(position: Sequence[float], main_axis: Sequence[float],
                   normal: Sequence[float] | None = None) -> Pose:
    """X_OC of a connector at ``position`` with the OpenPLX frame rule: z = main axis,
    x = the part of ``normal`` perpendicular to it (:func:`normal_for` when None),
    y = z x x."""
    z = _unit(main_axis, "the main axis")
    x = normal_for(z) if normal is None else _unit(normal, "the normal")
    x = x - float(x @ z) * z
    if float(np.linalg.norm(x)) < 1e-9:
        raise EditRefused("the normal must not be parallel to the main axis")
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    R = np.column_stack([x, y, z])
    p = [float(c) for c in np.asarray(position, dtype=float).reshape(3)]
    if not all(math.isfinite(c) for c in p):
        raise EditRefused(f"the position must be finite, not {tuple(p)}")
    return Pose(tuple(float(c) for c in R.ravel()), tuple(p))


def AddMateConnectorAt(document: Document, link: Link, point: Sequence[float],
                       direction: Sequence[float], name: str = "", *,
                       into: bool = False) -> AddNode:
    """A mate connector on ``link`` at the world ``point`` whose main axis is the world
    ``direction`` (a clicked face's outward normal; reversed, into the body, with
    ``into``) and whose normal :func:`normal_for` chooses in the link's frame.  ``name``
    is the connector's name on the link (empty: ``mc``, ``mc_2``...); the node is named
    ``<link>.<name>`` as OpenPLX connectors are."""
    if not isinstance(link, Link):
        raise EditRefused(f"a mate connector goes on a body (link), not on a "
                          f"{getattr(link, 'kind', type(link).__name__)}")
    model = link.parent
    if not isinstance(model, Model):
        raise EditRefused(f"link '{link.name}' is not in a model")
    key = document.key(link)
    table = document.live.poses
    if key not in table:
        raise EditRefused(f"the pose of link '{link.name}' cannot be resolved (see its "
                          "diagnostics)")
    X_WL = np.asarray(table.pose(key), dtype=float)
    d = _unit(direction, "the direction")
    if into:
        d = -d
    try:
        w = np.asarray(point, dtype=float).reshape(3)
    except (TypeError, ValueError):
        raise EditRefused(f"the point needs three numbers, not {point!r}") from None
    if not np.all(np.isfinite(w)):
        raise EditRefused(f"the point must be finite, not {tuple(w)}")
    R_WL = X_WL[:3, :3]
    position = R_WL.T @ (w - X_WL[:3, 3])
    X_LC = connector_pose(position, R_WL.T @ d)
    short = name.strip() if name else ""
    if not short:   # mc, mc_2, mc_3... on this link
        from .connecting import free_name
        short = free_name(model, f"{link.name}.mc")[len(link.name) + 1:]
    return AddMateConnector(document, model, short, attached_to=link.name, pose=X_LC)
