"""Live auto-inertia of one link for the editor: an edit recomputes only what it touched.

:class:`LinkInertiaTracker` keeps each collision's shape inertia and pose in a
:class:`~.aggregate.PartsAggregator`.  After an edit the view calls
``tracker.collision_changed(collision)`` (shape, size, density or pose changed),
``collision_removed`` or ``collision_added``; ``mass_properties`` then re-sums the
cached parts (tens of microseconds for 1000 collisions).  Mesh collisions are cheap
too: their integrals are cached per file by the mesh calculator.

The rules are those of :func:`.link.compute_link_inertia` (density precedence, explicit
``<mass>`` rescale, unsupported shapes left out), which remains the reference: the
tracker is an optimisation, and ``refresh()`` rebuilds it from scratch.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..diagnostics import Code, Diagnostics
from ..model.nodes import Collision, Link
from ..pose import Pose
from .aggregate import PartsAggregator
from .calculators import (CalculatorInput, CalculatorRegistry, default_registry,
                          mass_properties_problem)
from .link import collision_density, explicit_mass_problem
from .mass_properties import MassProperties

__all__ = ["LinkInertiaTracker"]


class LinkInertiaTracker:
    """Incremental auto inertial of ``link`` (see the module docstring)."""

    def __init__(self, link: Link, *, resolve_pose: Callable[[Collision], Pose] | None = None,
                 registry: CalculatorRegistry | None = None) -> None:
        self.link = link
        self.resolve_pose = resolve_pose
        self.registry = registry or default_registry()
        self._parts = PartsAggregator(max(len(link.collisions), 4))
        self._diags: dict[int, Diagnostics] = {}
        self._failed: set[int] = set()       # collisions with an error (kept for O(1) checks)
        self._shapes: dict[int, MassProperties] = {}     # shape-frame inertia per collision
        self.refresh()

    # -- edits ----------------------------------------------------------------------
    def refresh(self) -> None:
        """Recompute every collision (after structural edits the tracker did not see)."""
        self._parts.clear()
        self._diags.clear()
        self._failed.clear()
        self._shapes.clear()
        for c in self.link.collisions:
            self.collision_changed(c)

    def collision_changed(self, collision: Collision) -> None:
        """``collision``'s geometry, density, params or pose changed (or it is new)."""
        diags = Diagnostics()
        self._diags[collision.id] = diags
        inertial = self.link.inertial
        density, _ = collision_density(collision, inertial)
        params = collision.auto_inertia_params
        if params is None and inertial is not None:
            params = inertial.auto_inertia_params
        props = CalculatorInput(density, collision.geometry, params, collision.name,
                                self.link.name, collision.source, collision.element_path())
        mp = self.registry.calculate(props, diags)
        self._note(collision, diags)
        if mp is None:
            self._shapes.pop(collision.id, None)
            self._drop(collision)
            return
        self._shapes[collision.id] = mp
        self._place(collision, mp, diags)

    collision_added = collision_changed

    def _place(self, collision: Collision, mp, diags: Diagnostics) -> None:
        """Put the collision's (cached) shape inertia at its current pose in the link."""
        X = self._pose(collision, diags)
        self._note(collision, diags)
        if X is None:
            self._drop(collision)
            return
        self._parts.set(collision.id, mp, X)

    def collision_moved(self, collision: Collision) -> None:
        """Only the pose changed: reuse the cached shape inertia."""
        mp = self._shapes.get(collision.id)
        if mp is None:
            self.collision_changed(collision)
            return
        diags = Diagnostics()
        self._diags[collision.id] = diags
        self._place(collision, mp, diags)

    def collision_removed(self, collision: Collision) -> None:
        self._diags.pop(collision.id, None)
        self._failed.discard(collision.id)
        self._shapes.pop(collision.id, None)
        self._drop(collision)

    # -- results --------------------------------------------------------------------
    @property
    def mass_properties(self) -> MassProperties | None:
        """The link's inertial (link frame, about the COM; rescaled to an explicit
        ``<mass>``), or None when any collision failed, none contributes, or the explicit
        ``<mass>`` cannot be used (see :meth:`diagnostics`)."""
        return self._total()[0]

    def _total(self) -> tuple[MassProperties | None, str]:
        """(result, link-level problem): the same rules as ``compute_link_inertia``."""
        if self._failed or len(self._parts) == 0:
            return None, ""
        mass = self.link.inertial.mass if self.link.inertial is not None else None
        with np.errstate(over="ignore", invalid="ignore"):
            total = self._parts.total()
            if mass is not None:
                reason = explicit_mass_problem(mass)
                if reason:
                    return None, reason
                total = total.with_mass(mass)
        problem = mass_properties_problem(total, full=False)
        if problem:
            return None, problem
        return total, ""

    def has_errors(self) -> bool:
        return bool(self._failed) or bool(self._total()[1])

    def diagnostics(self) -> Diagnostics:
        out = Diagnostics()
        for d in self._diags.values():
            out.extend(d)
        problem = self._total()[1] if not self._failed else ""
        if problem:
            inertial = self.link.inertial
            where = inertial.source if inertial is not None and (
                inertial.source.file or inertial.source.line) else self.link.source
            out.error(Code.LINK_INERTIA_INVALID,
                      f"A link named {self.link.name} has invalid inertia: {problem}.",
                      where, self.link.element_path())
        return out

    # -- internals ------------------------------------------------------------------
    def _pose(self, collision: Collision, diags: Diagnostics) -> Pose | None:
        if self.resolve_pose is not None:
            return self.resolve_pose(collision)
        spec = collision.pose
        if spec.relative_to in ("", self.link.name):
            return spec.value
        diags.error(Code.POSE_RELATIVE_TO_INVALID,
                    f"Collision {collision.name} of link {self.link.name} has a pose relative_to "
                    f"'{spec.relative_to}'; pass resolve_pose.", collision.source,
                    collision.element_path())
        return None

    def _note(self, collision: Collision, diags: Diagnostics) -> None:
        if diags.has_errors():
            self._failed.add(collision.id)
        else:
            self._failed.discard(collision.id)

    def _drop(self, collision: Collision) -> None:
        if collision.id in self._parts:
            self._parts.remove(collision.id)
