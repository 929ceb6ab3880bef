"""Checks of hand-written ``<inertial>`` values, and the computed value as a proposed fix.

The physical-validity test is gz-math's ``MassMatrix3::IsValid`` (what libsdformat uses
for LINK_INERTIA_INVALID): mass >= 0, the tensor positive semi-definite within
epsilon = tolerance * machine-eps * trace / 2 (Sylvester's leading minors), and the
principal moments obeying the triangle inequality within the same epsilon.  On top of
that, the editor flags a non-positive mass as an error and a singular tensor (a point or
rod inertia) as a warning: simulators divide by both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..diagnostics import Code, Diagnostic, Diagnostics, Severity, SourceLocation
from ..model.nodes import Inertial, Link
from .link import LinkInertia, compute_link_inertia
from .mass_properties import GZ_DEFAULT_TOLERANCE, MassProperties, inertia_epsilon

__all__ = ["mass_matrix_problems", "check_inertial", "check_links", "InertialFix",
           "propose_inertial_fix", "inertial_mass_properties"]


def _tensor(inertial: Inertial) -> np.ndarray:
    i = inertial
    return np.array([[i.ixx, i.ixy, i.ixz], [i.ixy, i.iyy, i.iyz], [i.ixz, i.iyz, i.izz]], float)


def inertial_mass_properties(inertial: Inertial) -> MassProperties:
    """The user's values as :class:`MassProperties` in the link frame (the tensor is
    rotated out of the inertial frame's axes).  A missing mass is SDFormat's default 1."""
    mass = 1.0 if inertial.mass is None else float(inertial.mass)
    return MassProperties.from_inertial_frame(mass, inertial.pose.value, _tensor(inertial))


def mass_matrix_problems(mass: float, inertia: np.ndarray,
                         tolerance: float = GZ_DEFAULT_TOLERANCE, strict: bool = True
                         ) -> list[tuple[Severity, str]]:
    """What is wrong with (mass, tensor); empty when valid.

    ``strict=False`` is exactly gz-math ``IsValid`` (every finding an error).  ``strict``
    adds: mass must be > 0 (error) and the tensor should be non-singular (warning).
    """
    out: list[tuple[Severity, str]] = []
    I = np.asarray(inertia, dtype=float).reshape(3, 3)
    if not (math.isfinite(mass) and np.isfinite(I).all()):
        # gz-math's formulas in IEEE arithmetic decide (a mass of inf passes in
        # libsdformat 12; nan never does): see snapframe.core.model_checks.
        from ..model_checks import gz_mass_matrix_valid
        if gz_mass_matrix_valid(mass, I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]):
            return []
        return [(Severity.ERROR, "mass or inertia is not a finite number")]
    if mass < 0.0 or (strict and mass == 0.0):
        out.append((Severity.ERROR, f"mass must be positive (got {mass:g})"))
    # Work on the tensor scaled to its largest entry: finite values near 1e308 would
    # overflow in the products below (and eigvalsh raises on infinities).  Findings print
    # the moments in the file's units.
    scale = float(np.abs(I).max()) or 1.0
    Is = I / scale
    eps = inertia_epsilon(np.diag(Is), tolerance)
    minors_ok = (Is[0, 0] >= -eps and Is[0, 0] * Is[1, 1] - Is[0, 1] ** 2 >= -eps
                 and float(np.linalg.det(Is)) >= -eps)
    a, b, c = np.linalg.eigvalsh(0.5 * Is + 0.5 * Is.T)
    A, B, C = (v * scale for v in (a, b, c))
    if not minors_ok or a < -eps:
        out.append((Severity.ERROR, "the inertia tensor is not positive semi-definite "
                    f"(principal moments {A:.6g}, {B:.6g}, {C:.6g})"))
    elif a + b + eps < c:          # sorted ascending: the only inequality that can fail
        out.append((Severity.ERROR, f"the principal moments {A:.6g}, {B:.6g}, {C:.6g} violate "
                    f"the triangle inequality ({A:.6g} + {B:.6g} < {C:.6g})"))
    elif strict and a <= eps:
        out.append((Severity.WARNING, "the inertia tensor is singular (a principal moment is "
                    f"zero: {A:.6g}, {B:.6g}, {C:.6g}); simulators need it positive definite"))
    return out


def check_inertial(link: Link, tolerance: float = GZ_DEFAULT_TOLERANCE,
                   diagnostics: Diagnostics | None = None) -> list[Diagnostic]:
    """LINK_INERTIA_INVALID diagnostics for ``link``'s hand-written inertial.

    Links without ``<inertial>`` (SDFormat default: mass 1, unit tensor) and auto
    inertials (checked when computed) give nothing.  Diagnostics name the link and point
    at the ``<inertial>`` element's file and line.
    """
    inertial = link.inertial
    out: list[Diagnostic] = []
    if inertial is None or inertial.auto:
        return out
    src = inertial.source if (inertial.source.file or inertial.source.line) else link.source
    mass = 1.0 if inertial.mass is None else float(inertial.mass)
    for severity, reason in mass_matrix_problems(mass, _tensor(inertial), tolerance):
        out.append(Diagnostic(severity, Code.LINK_INERTIA_INVALID,
                              f"A link named {link.name} has invalid inertia: {reason}.",
                              src.file, src.line, link.element_path()))
    if diagnostics is not None:
        diagnostics.extend(out)
    return out


def check_links(root, tolerance: float = GZ_DEFAULT_TOLERANCE,
                diagnostics: Diagnostics | None = None) -> list[Diagnostic]:
    """:func:`check_inertial` for every link under ``root`` (a model, world or link)."""
    from ..model.nodes import walk
    out: list[Diagnostic] = []
    for node in walk(root):
        if isinstance(node, Link):
            out.extend(check_inertial(node, tolerance, diagnostics))
    return out


@dataclass
class InertialFix:
    """A proposed replacement for a link's inertial, computed from its collisions."""

    link: Link
    inertial: Inertial | None
    computation: LinkInertia
    problems: list[Diagnostic] = field(default_factory=list)

    @property
    def available(self) -> bool:
        return self.inertial is not None

    def describe(self) -> str:
        if self.inertial is None:
            return f"No inertia can be computed for link {self.link.name}."
        i = self.inertial
        x, y, z = i.pose.value.p
        return (f"Set link {self.link.name} inertial to mass {i.mass:.6g} kg, pose "
                f"({x:.6g} {y:.6g} {z:.6g} 0 0 0), ixx {i.ixx:.6g} iyy {i.iyy:.6g} "
                f"izz {i.izz:.6g} ixy {i.ixy:.6g} ixz {i.ixz:.6g} iyz {i.iyz:.6g} "
                "(computed from the collisions), or set <inertial auto=\"true\">.")


def propose_inertial_fix(link: Link, *, keep_mass: bool = True, **kwargs) -> InertialFix:
    """Compute the link's inertial from its collisions as a fix for a bad one.

    With ``keep_mass`` a valid written ``<mass>`` is kept and the computed tensor rescaled
    to it (the user usually knows the mass better than the density).  ``kwargs`` go to
    :func:`compute_link_inertia` (``resolve_pose``, ``registry``).
    """
    problems = check_inertial(link)
    inertial = link.inertial
    computation = _compute_forced(link, inertial, keep_mass, kwargs)
    return InertialFix(link, computation.inertial(), computation, problems)


def _compute_forced(link: Link, inertial: Inertial | None, keep_mass: bool,
                    kwargs: dict) -> LinkInertia:
    # Compute as if auto were set, with throw-away settings: the document is not touched.
    probe = Inertial(auto=True, density=inertial.density if inertial else None,
                     auto_inertia_params=inertial.auto_inertia_params if inertial else None,
                     source=inertial.source if inertial else SourceLocation())
    if keep_mass and inertial is not None and inertial.mass is not None and inertial.mass > 0:
        probe.mass = inertial.mass
    result = compute_link_inertia(link, force=True, inertial=probe, **kwargs)
    result.settings = inertial
    return result
