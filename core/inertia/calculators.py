"""Inertia calculators keyed by geometry shape: the SDFormat 1.11 callback API.

libsdformat computes primitives itself and hands meshes to one registered
``CustomInertiaCalculator(errors, CustomInertiaCalcProperties)``.  Here every shape goes
through one registry, so a plugin can replace any of them (or add a shape)::

    from snapframe.core.inertia.calculators import default_registry

    def my_mesh_calc(props, diagnostics):
        ...                      # props.density, props.geometry, props.auto_inertia_params
        return MassProperties(...)   # in the geometry's frame, or None after a diagnostic

    default_registry().register("mesh", my_mesh_calc)

A calculator returns :class:`MassProperties` in the geometry's own frame, or ``None``
after adding at least one diagnostic that says why.  It must not raise for bad input.
The built-in closed forms and the mesh calculator (:mod:`.mesh_calculator`) are
registered exactly like that.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

import numpy as np

from ..diagnostics import Code, Diagnostics, SourceLocation
from ..model.nodes import Geometry
from .mass_properties import MassProperties
from .primitives import PRIMITIVE_SHAPES

__all__ = ["CalculatorInput", "InertiaCalculator", "CalculatorRegistry", "default_registry",
           "register_calculator", "UNSUPPORTED_SHAPES", "auto_inertia_param",
           "mass_properties_problem"]

#: Shapes SDFormat cannot compute an inertia for.
UNSUPPORTED_SHAPES = ("plane", "heightmap", "polyline", "empty")


@dataclass(frozen=True)
class CalculatorInput:
    """What a calculator gets (``sdf::CustomInertiaCalcProperties``).

    ``auto_inertia_params`` is the ``<auto_inertia_params>`` element (an lxml element,
    collision-level if given, else link-level), a plain mapping, or None; read it with
    :func:`auto_inertia_param`.
    """

    density: float
    geometry: Geometry
    auto_inertia_params: Any = None
    collision_name: str = ""
    link_name: str = ""
    source: SourceLocation = field(default_factory=SourceLocation)
    element: str = ""


#: ``calculator(props, diagnostics) -> MassProperties | None``.
InertiaCalculator = Callable[[CalculatorInput, Diagnostics], "MassProperties | None"]


def auto_inertia_param(params: Any, name: str, default: Any = None) -> Any:
    """Value of child ``name`` of ``<auto_inertia_params>``, ignoring any namespace prefix
    (``<gz:voxel_size>`` matches ``voxel_size``).  Text that parses as a number is returned
    as a float.  ``params`` may be an lxml element, a mapping or None."""
    if params is None:
        return default
    if isinstance(params, Mapping):
        for key, value in params.items():
            if str(key).rsplit("}", 1)[-1].rsplit(":", 1)[-1] == name:
                return value
        return default
    try:
        children = list(params)
    except TypeError:
        return default
    for child in children:
        tag = getattr(child, "tag", None)
        if not isinstance(tag, str):       # comments, processing instructions
            continue
        if tag.rsplit("}", 1)[-1].rsplit(":", 1)[-1] != name:
            continue
        text = (child.text or "").strip()
        try:
            return float(text)
        except ValueError:
            return text
    return default


def _primitive_calculator(shape: str) -> InertiaCalculator:
    fn = PRIMITIVE_SHAPES[shape]

    def calculate(props: CalculatorInput, diagnostics: Diagnostics) -> MassProperties | None:
        try:
            return fn(props.geometry.params, props.density)
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            reason = f"missing parameter {exc}" if isinstance(exc, KeyError) else str(exc)
            diagnostics.error(
                Code.LINK_INERTIA_INVALID,
                f"Inertia Calculated for collision: {props.collision_name} is invalid "
                f"({shape}: {reason}).", props.source, props.element)
            return None

    calculate.__name__ = f"{shape}_inertia"
    calculate.__doc__ = f"Closed-form {shape} inertia (gz-math convention)."
    return calculate


class CalculatorRegistry:
    """Shape name -> calculator.  Later registrations replace earlier ones."""

    def __init__(self) -> None:
        self._calculators: dict[str, InertiaCalculator] = {}

    def register(self, shape: str, calculator: InertiaCalculator) -> None:
        if not callable(calculator):
            raise TypeError("calculator must be callable")
        self._calculators[shape] = calculator

    def unregister(self, shape: str) -> None:
        self._calculators.pop(shape, None)

    def get(self, shape: str) -> InertiaCalculator | None:
        return self._calculators.get(shape)

    def shapes(self) -> Iterator[str]:
        return iter(list(self._calculators))

    def copy(self) -> "CalculatorRegistry":
        new = CalculatorRegistry()
        new._calculators = dict(self._calculators)
        return new

    def calculate(self, props: CalculatorInput, diagnostics: Diagnostics) -> MassProperties | None:
        """Run the calculator for ``props.geometry.shape``.

        An unsupported or unregistered shape gives a warning and None.  A calculator that
        raises, or returns None without saying why, gives a LINK_INERTIA_INVALID error.
        """
        shape = props.geometry.shape
        calc = self._calculators.get(shape)
        if calc is None:
            diagnostics.warning(
                Code.WARNING,
                "Automatic inertia calculations are not supported for the given Geometry "
                f"type ({shape}, collision {props.collision_name}).", props.source, props.element)
            return None
        if not (isinstance(props.density, (int, float)) and math.isfinite(props.density)
                and props.density > 0.0):
            diagnostics.error(
                Code.LINK_INERTIA_INVALID,
                f"Inertia Calculated for collision: {props.collision_name} is invalid "
                f"(density must be positive, got {props.density!r}).", props.source, props.element)
            return None
        before = len(diagnostics)
        try:
            result = calc(props, diagnostics)
        except Exception as exc:  # a plugin's bug must not take the editor down
            diagnostics.error(
                Code.PLUGIN_ERROR,
                f"Inertia calculator for {shape} failed on collision "
                f"{props.collision_name}: {type(exc).__name__}: {exc}", props.source, props.element)
            return None
        if result is None:
            if len(diagnostics) == before:
                diagnostics.error(
                    Code.LINK_INERTIA_INVALID,
                    f"Inertia Calculated for collision: {props.collision_name} is invalid.",
                    props.source, props.element)
            return None
        if not isinstance(result, MassProperties):
            diagnostics.error(
                Code.PLUGIN_ERROR,
                f"Inertia calculator for {shape} returned {type(result).__name__} for "
                f"collision {props.collision_name}, not MassProperties.", props.source,
                props.element)
            return None
        problem = mass_properties_problem(result, full=calc not in _BUILTIN)
        if problem:
            # gz-math's Inertial::SetMassMatrix check: an invalid shape inertia (overflow,
            # a plugin's bad tensor) must not reach the sum, the CLI's JSON or the file.
            diagnostics.error(
                Code.LINK_INERTIA_INVALID,
                f"Inertia Calculated for collision: {props.collision_name} is invalid "
                f"({shape}: {problem}).", props.source, props.element)
            return None
        return result


def mass_properties_problem(mp: MassProperties, full: bool = True) -> str:
    """Why ``mp`` is not a usable inertial ('' when it is): finite values, positive mass
    and, with ``full``, gz-math ``MassMatrix3::IsValid`` (positive semi-definite, triangle
    inequality).  ``full=False`` is for values valid by construction (closed forms, sums
    and rescales of valid parts), where only overflow can go wrong."""
    if not (math.isfinite(mp.mass) and np.isfinite(mp.com).all()
            and np.isfinite(mp.inertia).all()):
        return "mass, centre of mass or inertia is not a finite number"
    if not mp.mass > 0.0:
        return f"mass must be positive, got {mp.mass:g}"
    if full:
        from .validate import mass_matrix_problems
        found = mass_matrix_problems(mp.mass, mp.inertia, strict=False)
        if found:
            return found[0][1]
    return ""


_DEFAULT: CalculatorRegistry | None = None
#: The built-in calculators: their results are valid whenever finite (the closed forms by
#: construction; the mesh calculator checks validity itself), so the registry only
#: guards them against overflow.  Any other calculator's result gets gz-math's full check.
_BUILTIN: set = set()


def default_registry() -> CalculatorRegistry:
    """The process-wide registry: closed forms for the six primitives plus the mesh
    calculator (exact integration, voxel fallback)."""
    global _DEFAULT
    if _DEFAULT is None:
        reg = CalculatorRegistry()
        for shape in PRIMITIVE_SHAPES:
            calc = _primitive_calculator(shape)
            _BUILTIN.add(calc)
            reg.register(shape, calc)
        from .mesh_calculator import mesh_calculator
        _BUILTIN.add(mesh_calculator)
        reg.register("mesh", mesh_calculator)
        _DEFAULT = reg
    return _DEFAULT


def register_calculator(shape: str, calculator: InertiaCalculator) -> None:
    """Register ``calculator`` for ``shape`` in the default registry (replacing any)."""
    default_registry().register(shape, calculator)
