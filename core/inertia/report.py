"""One call for ``snapframe inertia FILE [--json] [--write]``: every link's inertial.

For each link under a model or world:

* ``auto``: computed from its collisions (:func:`.link.compute_link_inertia`);
  with ``write=True`` the values are stored into its :class:`Inertial` (auto stays set);
* hand-written: checked (:func:`.validate.check_inertial`); when invalid, the value
  computed from its collisions is attached as ``proposed`` (a fix to offer);
* no ``<inertial>``: reported as SDFormat's default (mass 1, unit tensor).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..diagnostics import Diagnostics
from ..model.nodes import Collision, Link, walk
from ..pose import Pose
from .calculators import CalculatorRegistry
from .link import LinkInertia, apply_to_inertial, compute_link_inertia
from .validate import check_inertial, propose_inertial_fix

__all__ = ["InertiaReport", "inertia_report"]


@dataclass
class InertiaReport:
    """Per-link entries (JSON-ready dicts, document order) and all diagnostics."""

    entries: list[dict] = field(default_factory=list)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    computed: list[LinkInertia] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.diagnostics.has_errors()

    def to_json(self) -> dict:
        return {"links": self.entries,
                "diagnostics": [d.to_json() for d in self.diagnostics]}


def _values(mp) -> dict:
    return {**mp.values(), "pose": [*(float(v) for v in mp.com), 0.0, 0.0, 0.0],
            "approximate": mp.approximate}


def inertia_report(root, *, resolve_pose: Callable[[Link, Collision], Pose] | None = None,
                   registry: CalculatorRegistry | None = None,
                   write: bool = False) -> InertiaReport:
    """Compute, check and (with ``write``) store the inertials of every link under
    ``root``.  ``resolve_pose(link, collision)`` returns X_LC for collisions whose pose is
    relative to another frame.  Poses in the entries are ``[x, y, z, roll, pitch, yaw]``
    of the inertial frame in the link frame."""
    report = InertiaReport()
    for link in walk(root):
        if not isinstance(link, Link):
            continue
        resolver = (lambda c, _l=link: resolve_pose(_l, c)) if resolve_pose else None
        entry: dict = {"link": link.name, "element": link.element_path()}
        inertial = link.inertial
        if inertial is not None and inertial.auto:
            res = compute_link_inertia(link, resolve_pose=resolver, registry=registry,
                                       diagnostics=report.diagnostics)
            report.computed.append(res)
            entry["mode"] = "auto"
            if res.skipped:
                entry["skipped"] = res.skipped
            if res.mass_properties is not None:
                entry.update(_values(res.mass_properties))
                entry["density_mass"] = res.density_mass
                if write:
                    apply_to_inertial(inertial, res.mass_properties)
            entry["computed"] = res.mass_properties is not None
        elif inertial is not None:
            problems = check_inertial(link, diagnostics=report.diagnostics)
            entry["mode"] = "given"
            entry.update({"mass": 1.0 if inertial.mass is None else inertial.mass,
                          "ixx": inertial.ixx, "iyy": inertial.iyy, "izz": inertial.izz,
                          "ixy": inertial.ixy, "ixz": inertial.ixz, "iyz": inertial.iyz,
                          "pose": list(inertial.pose.value.xyz_rpy())})
            entry["valid"] = not any(d.is_error for d in problems)
            if problems:
                fix = propose_inertial_fix(link, resolve_pose=resolver, registry=registry)
                if fix.inertial is not None:
                    entry["proposed"] = _values(fix.computation.mass_properties)
        else:
            entry["mode"] = "default"
        report.entries.append(entry)
    return report
