"""A link's automatic inertial (``//inertial/@auto``) from its collisions.

Mirrors libsdformat's ``Link::ResolveAutoInertials`` / ``Collision::CalculateInertial``:

* density: ``//collision/density`` > ``//link/inertial/density`` > 1000 kg/m^3;
  ``auto_inertia_params``: the collision's, else the link's;
* every collision's shape inertia (from the calculator registry) is placed by its pose
  in the link frame and summed with the parallel-axis theorem;
* an explicit ``//inertial/mass`` rescales the summed tensor to that mass (libsdformat
  14.7 / 15.2), keeping the density ratios and the COM;
* the result's inertial pose is the COM with identity rotation and full products of
  inertia (what ``gz sdf --expand-auto-inertials`` writes);
* static models are skipped; ``auto`` with no collision is ELEMENT_MISSING.

Deliberate difference: a collision with an unsupported shape (plane, heightmap,
polyline, empty) gives a warning and is left out of the sum, instead of libsdformat's
default "whole link fails"; the link still fails if no collision contributes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..diagnostics import Code, Diagnostics
from ..model.nodes import Collision, Inertial, Link, Model, PoseSpec, walk
from ..pose import Pose
from .aggregate import aggregate
from .calculators import (CalculatorInput, CalculatorRegistry, default_registry,
                          mass_properties_problem)
from .mass_properties import MassProperties

__all__ = ["DEFAULT_DENSITY", "CollisionPart", "LinkInertia", "compute_link_inertia",
           "resolve_auto_inertials", "inertial_from_mass_properties", "apply_to_inertial",
           "collision_density", "is_static", "explicit_mass_problem"]

#: ``Collision::DensityDefault()``: water.
DEFAULT_DENSITY = 1000.0

#: ``resolve_pose(collision) -> X_LC``: the collision frame in the link frame.
PoseResolver = Callable[[Collision], Pose]


@dataclass
class CollisionPart:
    """One collision's contribution: properties in its own frame and its pose X_LC."""

    name: str
    density: float
    mass_properties: MassProperties
    pose: Pose

    def in_link_frame(self) -> MassProperties:
        return self.mass_properties.expressed_in(self.pose)


@dataclass
class LinkInertia:
    """Result for one link.

    ``mass_properties`` is in the link frame about the COM (already rescaled to an
    explicit ``<mass>``), or None when not computed: see ``skipped`` (a reason such as
    ``"static"`` or ``"not auto"``) and the error diagnostics.
    """

    link: Link
    mass_properties: MassProperties | None = None
    parts: list[CollisionPart] = field(default_factory=list)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    skipped: str = ""
    #: Mass from density alone, before any ``<mass>`` rescale.
    density_mass: float | None = None
    #: The inertial whose settings (density, mass, params) were used.
    settings: Inertial | None = None

    @property
    def ok(self) -> bool:
        return self.mass_properties is not None

    def inertial(self) -> Inertial | None:
        """A new :class:`Inertial` holding the computed values (``auto`` and density kept
        from the link's), or None."""
        if self.mass_properties is None:
            return None
        old = self.link.inertial if self.settings is None else self.settings
        new = Inertial(auto=bool(old and old.auto),
                       density=old.density if old else None,
                       auto_inertia_params=old.auto_inertia_params if old else None,
                       source=old.source if old else self.link.source)
        apply_to_inertial(new, self.mass_properties)
        return new

    def to_json(self) -> dict:
        mp = self.mass_properties
        out: dict = {"link": self.link.name, "element": self.link.element_path(),
                     "computed": mp is not None}
        if self.skipped:
            out["skipped"] = self.skipped
        if mp is not None:
            out.update(mp.values())
            out["pose"] = [*(float(v) for v in mp.com), 0.0, 0.0, 0.0]
            out["approximate"] = mp.approximate
            out["density_mass"] = self.density_mass
            out["collisions"] = [{"name": p.name, "density": p.density,
                                  "mass": p.mass_properties.mass,
                                  "approximate": p.mass_properties.approximate}
                                 for p in self.parts]
        out["diagnostics"] = [d.to_json() for d in self.diagnostics]
        return out


def inertial_from_mass_properties(mp: MassProperties, **fields) -> Inertial:
    """An :class:`Inertial` with ``mp``'s values (pose = COM, identity rotation)."""
    inertial = Inertial(**fields)
    apply_to_inertial(inertial, mp)
    return inertial


def apply_to_inertial(inertial: Inertial, mp: MassProperties) -> None:
    """Write ``mp`` (link frame, about the COM) into ``inertial`` in place: mass, pose
    (COM, identity rotation) and the six tensor entries (SDFormat sign convention)."""
    inertial.mass = mp.mass
    spec = inertial.pose.copy() if isinstance(inertial.pose, PoseSpec) else PoseSpec()
    spec.value = Pose(p=tuple(float(v) for v in mp.com))
    spec.relative_to = ""
    spec.written = True
    inertial.pose = spec
    inertial.ixx, inertial.iyy, inertial.izz = mp.ixx, mp.iyy, mp.izz
    inertial.ixy, inertial.ixz, inertial.iyz = mp.ixy, mp.ixz, mp.iyz
    inertial.written_inertia = True
    # Changed after reading: the SDFormat writer only syncs <inertial> elements marked
    # dirty, so without this the stored values would be lost on save.
    inertial.dirty = True


def collision_density(collision: Collision, inertial: Inertial | None) -> tuple[float, bool]:
    """``(density, is_default)`` by SDFormat precedence."""
    if collision.density is not None:
        return float(collision.density), False
    if inertial is not None and inertial.density is not None:
        return float(inertial.density), False
    return DEFAULT_DENSITY, True


def is_static(link: Link) -> bool:
    """True when an enclosing model is static (a static model's nested models are too)."""
    return any(isinstance(a, Model) and a.static for a in link.ancestors())


def _default_pose(link: Link, collision: Collision, diagnostics: Diagnostics) -> Pose | None:
    spec = collision.pose
    if spec.relative_to in ("", link.name):
        return spec.value
    diagnostics.error(Code.POSE_RELATIVE_TO_INVALID,
                      f"Collision {collision.name} of link {link.name} has a pose relative_to "
                      f"'{spec.relative_to}'; its inertia needs the pose in the link frame "
                      "(pass resolve_pose).", spec.source or collision.source,
                      collision.element_path())
    return None


def _where(node, fallback):
    src = getattr(node, "source", None)
    return src if (src is not None and (src.file or src.line)) else fallback


def compute_link_inertia(link: Link, *, static: bool | None = None, force: bool = False,
                         resolve_pose: PoseResolver | None = None,
                         registry: CalculatorRegistry | None = None,
                         diagnostics: Diagnostics | None = None,
                         inertial: Inertial | None = None) -> LinkInertia:
    """Compute ``link``'s inertial from its collisions.

    Only links whose ``<inertial auto="true">`` is set are computed unless ``force``
    (used to *propose* a value for a hand-written inertial).  ``static`` defaults to
    :func:`is_static`.  ``resolve_pose(collision)`` must return X_LC; without it a
    collision pose must be relative to the link (``relative_to`` empty or the link name).
    Findings go to the result's ``diagnostics`` (and also to ``diagnostics`` if given).
    ``inertial`` overrides the link's own ``<inertial>`` settings (density, mass, params)
    without touching the document.
    """
    result = LinkInertia(link, settings=inertial if inertial is not None else link.inertial)
    diags = result.diagnostics
    try:
        _compute(link, result, static, force, resolve_pose, registry or default_registry())
    finally:
        if diagnostics is not None:
            diagnostics.extend(diags)
    return result


def _compute(link: Link, result: LinkInertia, static: bool | None, force: bool,
             resolve_pose: PoseResolver | None, registry: CalculatorRegistry) -> None:
    diags = result.diagnostics
    inertial = result.settings
    if static is None:
        static = is_static(link)
    if static and not force:
        result.skipped = "static"
        return
    if not force and (inertial is None or not inertial.auto):
        result.skipped = "not auto"
        return
    where = _where(inertial, link.source) if inertial is not None else link.source
    element = link.element_path()
    if not link.collisions:
        diags.error(Code.ELEMENT_MISSING,
                    "Inertial is set to auto but there are no <collision> elements for the "
                    f"link named {link.name}.", where, element)
        return
    user_values = inertial is not None and (inertial.pose.written or inertial.written_inertia)
    if user_values and inertial.auto:
        diags.warning(Code.WARNING,
                      f"Inertial was used with auto=true for the link named {link.name}, but "
                      "user-defined inertial values were found, which will be overwritten.",
                      where, element)
    explicit_mass = inertial.mass if inertial is not None else None
    defaulted: list[str] = []
    parts: list[CollisionPart] = []
    failed = False
    for collision in link.collisions:
        c_where = _where(collision, where)
        c_element = collision.element_path()
        density, is_default = collision_density(collision, inertial)
        params = collision.auto_inertia_params
        if params is None and inertial is not None:
            params = inertial.auto_inertia_params
        props = CalculatorInput(density, collision.geometry, params, collision.name, link.name,
                                c_where, c_element)
        before_errors = len(diags.errors)
        mp = registry.calculate(props, diags)
        if mp is None:
            if len(diags.errors) > before_errors:
                failed = True
            continue
        X_LC = resolve_pose(collision) if resolve_pose is not None else \
            _default_pose(link, collision, diags)
        if X_LC is None:
            failed = True
            continue
        parts.append(CollisionPart(collision.name, density, mp, X_LC))
        if is_default:
            defaulted.append(collision.name)
    if defaulted and explicit_mass is None:
        names = ", ".join(defaulted)
        diags.warning(Code.ELEMENT_MISSING,
                      f"Collision(s) {names} of link {link.name} are missing a <density> child "
                      "element. Using a default density value of 1000.000000 kg/m^3.",
                      where, element)
    result.parts = parts
    if failed:
        return
    if not parts:
        diags.error(Code.LINK_INERTIA_INVALID,
                    f"No collision of the link named {link.name} has a shape whose inertia can "
                    "be computed.", where, element)
        return
    with np.errstate(over="ignore", invalid="ignore"):
        total = aggregate((p.mass_properties, p.pose) for p in parts)
        result.density_mass = total.mass
        if explicit_mass is not None:
            reason = explicit_mass_problem(explicit_mass)
            if reason:
                diags.error(Code.LINK_INERTIA_INVALID,
                            f"A link named {link.name} has invalid inertia: {reason}.",
                            where, element)
                return
            total = total.with_mass(explicit_mass)
    problem = mass_properties_problem(total, full=False)
    if problem:
        # Each part was valid, so only overflow gets here (e.g. a huge <mass> times the
        # unit-mass tensor): never hand out inf/NaN values.
        diags.error(Code.LINK_INERTIA_INVALID,
                    f"A link named {link.name} has invalid inertia: {problem}.", where, element)
        return
    result.mass_properties = total


def explicit_mass_problem(mass) -> str:
    """Why an explicit ``//inertial/mass`` cannot rescale the automatic inertia ('' if
    it can): it must be a positive, finite number."""
    if not (mass > 0.0 and math.isfinite(mass)):
        return f"<mass> {mass} must be positive and finite to rescale the automatic inertia"
    return ""


def resolve_auto_inertials(root, *, resolve_pose: Callable[[Link, Collision], Pose] | None = None,
                           registry: CalculatorRegistry | None = None,
                           diagnostics: Diagnostics | None = None,
                           write: bool = False) -> list[LinkInertia]:
    """Compute every auto inertial under ``root`` (a model, world or link; includes are
    not entered: their models are shared templates).

    ``resolve_pose(link, collision)`` gives X_LC when poses use other frames.  With
    ``write=True`` the computed values are stored into each link's :class:`Inertial`
    (``auto`` stays set), like libsdformat's ``SAVE_CALCULATION_IN_ELEMENT`` but with the
    mass-rescaled values.  Returns one :class:`LinkInertia` per auto link (static ones
    included, marked ``skipped="static"``).
    """
    results = []
    for node in walk(root):
        if not isinstance(node, Link) or node.inertial is None or not node.inertial.auto:
            continue
        resolver = None
        if resolve_pose is not None:
            resolver = (lambda c, _l=node: resolve_pose(_l, c))
        res = compute_link_inertia(node, resolve_pose=resolver, registry=registry,
                                   diagnostics=diagnostics)
        if write and res.mass_properties is not None:
            apply_to_inertial(node.inertial, res.mass_properties)
        results.append(res)
    return results
