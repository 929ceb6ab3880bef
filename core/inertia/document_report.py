"""Every link's inertial in a loaded document, by scoped name: what ``snapframe inertia`` prints.

Walks the document's frame-graph scopes, so links inside includes get their scoped names
(``robot::arm::link``), ``//include/static`` overrides are honoured, and a collision pose
written relative to another frame of the model is resolved in the model's own scope.
"""

from __future__ import annotations

from typing import Iterator

from ..diagnostics import Diagnostics
from ..frames.scope import Scope, Unresolved, Vertex
from ..json_output import json_numbers
from ..model import Collision, Link
from ..model.names import SEP
from ..pose import IDENTITY, Pose
from .link import apply_to_inertial, compute_link_inertia
from .validate import check_inertial

__all__ = ["link_inertials"]


def _entry(mass: float, X_LC: Pose, tensor: tuple[float, ...], approximate: bool = False) -> dict:
    ixx, iyy, izz, ixy, ixz, iyz = tensor
    out = {"mass": mass, "pose": json_numbers(X_LC.xyz_quat()), "ixx": ixx, "iyy": iyy,
           "izz": izz, "ixy": ixy, "ixz": ixz, "iyz": iyz}
    if approximate:
        # Voxel fallback (an open mesh, or method=voxel): the values are estimates.  The
        # key is only present then, so exact entries keep the documented shape.
        out["approximate"] = True
    return out


def _collision_resolver(scope: Scope, link: Link):
    def resolve(collision: Collision) -> Pose | None:
        spec = collision.pose
        if spec.relative_to in ("", link.name):
            return spec.value
        try:
            return scope.pose_of(link.name).inverse() @ scope.pose_of(spec.relative_to) @ spec.value
        except Unresolved:
            return None
    return resolve


def link_inertials(document, diagnostics: Diagnostics, *, write: bool = False) -> dict[str, dict]:
    """``{scoped link name: {"mass", "pose", "ixx", ...}}`` for every link at every depth.

    Links with ``//inertial/@auto`` are computed; others are reported as written (the
    SDFormat default, mass 1 and a unit tensor, when there is no ``<inertial>``) and
    checked.  With ``write``, computed values are stored into the document's own links
    (links of included files are left alone: they belong to other files).
    """
    out: dict[str, dict] = {}
    graph = document.frames
    if graph.root is None:
        return out
    own = {n.id for n in document.nodes()}
    cache: dict[tuple[int, bool], dict | None] = {}

    # Depth-first in document order with an explicit stack (models nest deeper than
    # Python's recursion limit).
    root = graph.root
    stack: list[tuple[Scope, str, Iterator[Vertex]]] = [
        (root, root.name + SEP if root.kind == "model" else "", iter(root.vertices.values()))]
    while stack:
        scope, prefix, pending = stack[-1]
        v = next(pending, None)
        if v is None:
            stack.pop()
        elif v.kind == "link":
            link: Link = v.node  # type: ignore[assignment]
            key = (link.id, scope.static)
            if key not in cache:
                cache[key] = _one_link(scope, link, diagnostics, write=write and link.id in own)
            if cache[key] is not None:
                out[prefix + v.name] = cache[key]
        elif v.nested is not None:
            stack.append((v.nested, prefix + v.name + SEP, iter(v.nested.vertices.values())))
    return out


def _one_link(scope: Scope, link: Link, diagnostics: Diagnostics, *, write: bool) -> dict | None:
    inertial = link.inertial
    if inertial is None:
        return _entry(1.0, IDENTITY, (1.0, 1.0, 1.0, 0.0, 0.0, 0.0))
    if inertial.auto and scope.static:
        # A static model does not move: its inertia is never used, so it is not computed.
        # The link is still listed (every link at every depth), with what the file says.
        entry = _entry(1.0 if inertial.mass is None else inertial.mass, inertial.pose.value,
                       (inertial.ixx, inertial.iyy, inertial.izz,
                        inertial.ixy, inertial.ixz, inertial.iyz))
        entry["static"] = True
        return entry
    if inertial.auto:
        result = compute_link_inertia(link, static=scope.static,
                                      resolve_pose=_collision_resolver(scope, link),
                                      diagnostics=diagnostics)
        mp = result.mass_properties
        if mp is None:
            return None  # failed (the diagnostics say why)
        if write:
            apply_to_inertial(inertial, mp)
            inertial.dirty = True
        com = tuple(float(c) for c in mp.com)
        return _entry(float(mp.mass), Pose(p=com),
                      tuple(float(x) for x in (mp.ixx, mp.iyy, mp.izz, mp.ixy, mp.ixz, mp.iyz)),
                      mp.approximate)
    check_inertial(link, diagnostics=diagnostics)
    mass = 1.0 if inertial.mass is None else inertial.mass
    return _entry(mass, inertial.pose.value, (inertial.ixx, inertial.iyy, inertial.izz,
                                              inertial.ixy, inertial.ixz, inertial.iyz))
