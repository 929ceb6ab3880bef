"""Translate an evaluated OpenPLX System into the SNAP solver's input.

``snap_problem(assembly)`` turns the :class:`~.physics.Assembly` of a root system into a
:class:`snapframe.core.snap.SnapProblem`: systems (with their declared
``local_transform`` or None), bodies (declared ``kinematics.local_transform`` or None),
connectors (frame in their owner) and mates, all in declaration order and named by dotted
OpenPLX paths from the assembled top model (``Clock.hour_hand``).
"""

from __future__ import annotations

from snapframe.core.snap.model import (SnapBody, SnapConnector, SnapProblem,
                                       SnapSystem)

from .evaluator import Obj
from .expansion import budget_problem
from .loader import OpenPlxFile
from .physics import Assembly, ResourceLimit, collect

__all__ = ["snap_problem", "assemble"]


def snap_problem(assembly: Assembly) -> SnapProblem:
    """The SNAP input of an assembly (pure translation, nothing is solved here)."""
    root = assembly.root
    problem = SnapProblem(root.path)
    for s in assembly.systems:
        problem.systems.append(SnapSystem(s.path, s.parent, s.declared, s.reference_body))
    for b in assembly.bodies:
        problem.bodies.append(SnapBody(b.path, b.system, b.declared))
    for c in assembly.connectors:
        problem.connectors.append(SnapConnector(c.path, c.owner, c.X_OC, c.redirected_parent,
                                                c.adaptive))
    problem.mates.extend(assembly.mates)  # a MateInfo is a SnapMate
    return problem


def assemble(file: OpenPlxFile, model_name: str | None = None, details: bool = True,
             instances: dict[str, Obj] | None = None
             ) -> tuple[Obj | None, Assembly | None, SnapProblem | None]:
    """Instantiate ``model_name`` (default: the last top-level System) and build its
    SNAP problem.  Returns Nones when there is no such model (a problem is recorded).
    ``details=False`` leaves out inertia and geometries (SNAP does not need them).
    ``instances`` are top-level instances already evaluated (by :func:`cli.evaluate_all`):
    their computed values are reused instead of evaluated again."""
    from .errors import OpenPlxProblem
    from snapframe.core.diagnostics import Code

    if model_name is None:
        sym = file.default_model()
        if sym is None:
            file.problems.append(OpenPlxProblem(
                "the file declares no Physics3D.System model to assemble", file.path, 1, 1,
                Code.MODEL_WITHOUT_LINK))
            return None, None, None
    else:
        sym = file.symbol(model_name)
        if sym is None:
            names = ", ".join(s.name for s in file.system_symbols()) or "none"
            file.problems.append(OpenPlxProblem(
                f"no model named '{model_name}' in the file (systems: {names})", file.path, 1, 1,
                Code.ELEMENT_MISSING))
            return None, None, None
        if not file.evaluator.model_type(sym).is_a("Physics3D.System"):
            file.problems.append(OpenPlxProblem(
                f"'{model_name}' is not a Physics3D.System", sym.decl.file, sym.decl.line,
                sym.decl.col, Code.ELEMENT_INVALID))
            return None, None, None
    over = budget_problem(file.evaluator, file.evaluator.model_type(sym), sym.decl)
    if over is not None:  # an expansion bomb: refused before anything is built
        if over not in file.problems:
            file.problems.append(over)
        return None, None, None
    root = (instances or {}).get(sym.name) or file.evaluator.instantiate(sym)
    try:
        assembly = collect(file.evaluator, root, details)
    except ResourceLimit as exc:
        file.problems.append(OpenPlxProblem(exc.message, sym.decl.file, sym.decl.line,
                                            sym.decl.col, Code.RESOURCE_LIMIT))
        return None, None, None
    return root, assembly, snap_problem(assembly)
