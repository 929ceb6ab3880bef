"""Mass properties: closed-form primitives, exact mesh integrals, link aggregation.

The automatic-inertia engine behind SDFormat 1.11's ``<inertial auto="true">``:

* :mod:`.mass_properties` - :class:`MassProperties` (mass, COM, central tensor; SDFormat's
  ``ixy = -integral(xy dm)`` convention) and its algebra;
* :mod:`.primitives` - box, cylinder, sphere, capsule, ellipsoid, cone in closed form
  (gz-math conventions);
* :mod:`.mesh` - exact divergence-theorem integrals of closed triangle meshes, a closure
  check, and a voxel approximation for open meshes; results transform in O(1) under
  scale, mirror and pose;
* :mod:`.aggregate` - collisions -> one link inertial (parallel axis + rotation), with an
  incremental aggregator for live editing;
* :mod:`.calculators` / :mod:`.mesh_calculator` - the per-shape calculator registry
  (the SDFormat custom-calculator callback API) and the built-in mesh calculator;
  :mod:`.mesh_loader` - how mesh files are read (the ``snapframe.mesh_loaders`` entry point);
* :mod:`.link` - a :class:`~snapframe.core.model.nodes.Link`'s auto inertial with
  libsdformat's density, mass-rescale and diagnostic rules; :mod:`.live` - the same,
  incrementally, for live editing;
* :mod:`.validate` - checks of hand-written inertials and the computed value as a fix;
* :mod:`.report` - all of the above for every link of a model; :mod:`.document_report` -
  every link of a loaded document by scoped name (what ``snapframe inertia`` prints).

Pure: stdlib and numpy only.  Mesh files are read through a loader that a plugin
registers in the ``snapframe.mesh_loaders`` entry-point group, found on first use.
"""

from .aggregate import PartsAggregator, aggregate
from .calculators import (CalculatorInput, CalculatorRegistry, auto_inertia_param,
                          default_registry, register_calculator)
from .link import (DEFAULT_DENSITY, CollisionPart, LinkInertia, apply_to_inertial,
                   compute_link_inertia, inertial_from_mass_properties, resolve_auto_inertials)
from .live import LinkInertiaTracker
from .mass_properties import MassProperties, combine, principal_axes
from .mesh import (ClosureReport, MeshAnalysis, MeshIntegrals, analyze_mesh, check_closed,
                   integrate_closed, voxel_integrals)
from .mesh_calculator import mesh_cache, set_mesh_loader
from .report import InertiaReport, inertia_report
from .primitives import box, capsule, cone, cylinder, ellipsoid, primitive_mass_properties, sphere
from .validate import InertialFix, check_inertial, check_links, propose_inertial_fix

__all__ = [
    "MassProperties", "combine", "principal_axes",
    "box", "cylinder", "sphere", "capsule", "ellipsoid", "cone", "primitive_mass_properties",
    "MeshIntegrals", "ClosureReport", "MeshAnalysis", "integrate_closed", "check_closed",
    "voxel_integrals", "analyze_mesh",
    "aggregate", "PartsAggregator",
    "CalculatorInput", "CalculatorRegistry", "default_registry", "register_calculator",
    "auto_inertia_param", "set_mesh_loader", "mesh_cache",
    "DEFAULT_DENSITY", "CollisionPart", "LinkInertia", "compute_link_inertia",
    "resolve_auto_inertials", "apply_to_inertial", "inertial_from_mass_properties",
    "LinkInertiaTracker",
    "check_inertial", "check_links", "InertialFix", "propose_inertial_fix",
    "InertiaReport", "inertia_report",
]
