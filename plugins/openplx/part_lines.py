"""OpenPLX text of the parts of a converted body: inertia, geometries, connectors.

Part of :mod:`.conversion` (core document -> OpenPLX); each function appends the lines of
one member to a :class:`Lines` block, four spaces per level.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from snapframe.core.diagnostics import Code, Diagnostics
from snapframe.core.model import Collision, Inertial, Joint, Visual
from snapframe.core.pose import Pose

from .mapping import R_SDF_FROM_OPENPLX_CYLINDER, fmt, transform_lines, vec_text

__all__ = ["Lines", "frame_axes", "connector_lines", "inertial_lines", "geometry_lines",
           "collision_density", "has_dynamics"]

CONNECTOR_TYPE = "Physics3D.Interactions.MateConnector"


@dataclass
class Lines:
    """A block of OpenPLX source lines."""

    lines: list[str] = field(default_factory=list)

    def add(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)


def frame_axes(X: Pose) -> tuple:
    """Connector axes of a frame: main_axis = its z axis, normal = its x axis."""
    R = X.R
    return (X.p, (R[2], R[5], R[8]), (R[0], R[3], R[6]))


def connector_lines(out: Lines, depth: int, name: str, position, main, normal) -> None:
    out.add(depth, f"{name} is {CONNECTOR_TYPE}:")
    out.add(depth + 1, f"position: {vec_text(position)}")
    out.add(depth + 1, f"main_axis: {vec_text(main)}")
    out.add(depth + 1, f"normal: {vec_text(normal)}")


def inertial_lines(out: Lines, depth: int, inertial: Inertial | None) -> None:
    """A body's mass properties.  What SDFormat leaves unwritten has its SDFormat default
    written explicitly (a link without ``<inertial>``, or without ``<mass>``, has mass 1
    and a unit inertia there), because OpenPLX's defaults differ (mass 0)."""
    if inertial is None:
        inertial = Inertial(mass=1.0)   # SDFormat's default inertial: mass 1, unit tensor
    if inertial.mass is not None or not inertial.auto:   # (auto: from the geometry)
        out.add(depth, f"inertia.mass: {fmt(inertial.mass if inertial.mass is not None else 1.0)}")
    if inertial.written_inertia or not inertial.auto:
        i = inertial
        out.add(depth, "inertia.tensor: Physics3D.Bodies.Inertia.symmetric_tensor("
                       f"{vec_text((i.ixx, i.iyy, i.izz))}, {fmt(i.ixy)}, {fmt(i.ixz)}, "
                       f"{fmt(i.iyz)})")
    if not inertial.pose.value.is_identity():
        out.add(depth, "kinematics.local_cm_transform:")
        for line in transform_lines(inertial.pose.value):
            out.add(depth + 1, line)


def has_dynamics(joint: Joint) -> bool:
    """Does the joint's element give a non-zero damping or friction?"""
    el = joint.xml
    if el is None:
        return False
    for value in el.findall("axis/dynamics/damping") + el.findall("axis/dynamics/friction"):
        try:
            if float((value.text or "0").strip()) != 0.0:
                return True
        except ValueError:
            continue
    return False


def collision_density(part: Collision | Visual, inertial: Inertial | None) -> float | None:
    """A collision's density by SDFormat's precedence (None: the default, as OpenPLX's)."""
    if not isinstance(part, Collision):
        return None
    if part.density is not None:
        return part.density
    return inertial.density if inertial is not None else None


def geometry_lines(out: Lines, depth: int, node: Collision | Visual, X: Pose,
                    diags: Diagnostics, name: str, density: float | None = None) -> None:
    g = node.geometry
    contact = isinstance(node, Collision)
    ns = "Physics3D.Geometries" if contact else "Visuals.Geometries"
    if g.shape == "box":
        lines, kind = [f"size: {vec_text(g.params.get('size', (1, 1, 1)))}"], "Box"
    elif g.shape == "sphere":
        lines, kind = [f"radius: {fmt(g.params.get('radius', 1.0))}"], "Sphere"
    elif g.shape in ("cylinder", "capsule"):
        kind = "Cylinder" if g.shape == "cylinder" else "Capsule"
        if not contact and kind == "Capsule":
            diags.warning(Code.CONVERSION_ERROR, f"visual capsule '{node.name}' has no OpenPLX "
                          "visual counterpart; left out", node.source)
            return
        lines = [f"radius: {fmt(g.params.get('radius', 1.0))}",
                 f"height: {fmt(g.params.get('length', 1.0))}"]
        X = X @ R_SDF_FROM_OPENPLX_CYLINDER.inverse()
    elif g.shape == "mesh":
        kind = "ExternalTriMeshGeometry"
        uri = g.params.get("resolved_path") or g.params.get("uri", "")
        lines = [f'path: "{uri}"', f"scale: {vec_text(g.params.get('scale', (1, 1, 1)))}"]
        if g.params.get("submesh"):
            diags.warning(Code.CONVERSION_ERROR, f"{node.kind} '{node.name}' uses submesh "
                          f"'{g.params['submesh']}'; OpenPLX meshes have no submeshes, the "
                          "whole mesh is written", node.source)
    elif g.shape == "empty":
        return   # nothing to write, nothing lost
    else:
        diags.warning(Code.CONVERSION_ERROR, f"geometry '{node.name}' ({g.shape}) has no OpenPLX "
                      "counterpart; left out", node.source)
        return
    out.add(depth, f"{name} is {ns}.{kind}:")
    if not X.is_identity():
        out.add(depth + 1, "local_transform:")
        for line in transform_lines(X):
            out.add(depth + 2, line)
    for line in lines:
        out.add(depth + 1, line)
    if density is not None:
        out.add(depth + 1, f"material.density: {fmt(density)}")
