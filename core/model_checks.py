"""Checks of the values a document holds and an editor can change, as libsdformat makes them.

libsdformat's ``Root::Load`` refuses values that no frame-graph check sees; the ones that
live in the core model (not only in the XML) are checked here, over the document's
nodes, so the same function serves a reader at load time and a live document after an
edit:

* ``LINK_INERTIA_INVALID`` -- a hand-written ``<inertial>`` whose mass and tensor fail
  gz-math's ``MassMatrix3::IsValid`` (what libsdformat 12 calls): a negative mass, a
  tensor that is not positive semi-definite, principal moments that break the triangle
  inequality (each within gz-math's tolerance), or a value that is not a finite number.
  libsdformat accepts a zero mass and a zero tensor, and so does this check.
  ``<inertial auto="true">`` is checked where it is computed (:mod:`.inertia.link`).

Pure: the core model only.  Diagnostics carry the element path of the node
(``element``) and the file and line the node was read from.
"""

from __future__ import annotations

import math

from .diagnostics import Code, Diagnostic, Severity
from .model import Link, Node, walk

__all__ = ["check_values", "check_node_values"]


def check_values(document) -> list[Diagnostic]:
    """Value findings for a document's own nodes (not inside its includes: an included
    file is checked when it is loaded, and its findings travel with the include)."""
    if document.root is None:
        return []
    return check_node_values(document.root)


def check_node_values(root: Node) -> list[Diagnostic]:
    """Value findings for ``root`` and its descendants, in document order (an included
    model is checked with this when its file is read)."""
    out: list[Diagnostic] = []
    for node in walk(root):
        if isinstance(node, Link):  # walk() does not enter included models
            out.extend(_inertia_findings(node))
    return out


def _inertia_findings(link: Link) -> list[Diagnostic]:
    inertial = link.inertial
    if inertial is None or inertial.auto:
        return []
    i = inertial
    mass = 1.0 if i.mass is None else float(i.mass)  # SDFormat's default mass is 1
    tensor = [[i.ixx, i.ixy, i.ixz], [i.ixy, i.iyy, i.iyz], [i.ixz, i.iyz, i.izz]]
    if _clearly_valid(mass, tensor):
        return []
    from .inertia.validate import mass_matrix_problems  # numpy: only for doubtful values
    # The check is scale-free in the tensor (its tolerance scales with the trace), so
    # huge values are scaled down first rather than overflow the eigenvalue solver.
    scale = max(abs(v) for row in tensor for v in row)
    if math.isfinite(scale) and scale > 1e100:
        tensor = [[v / scale for v in row] for row in tensor]
    try:
        problems = mass_matrix_problems(mass, tensor, strict=False)
    except (ArithmeticError, ValueError, RuntimeError) as exc:  # numpy's LinAlgError too
        problems = [(Severity.ERROR, f"the values cannot be checked ({exc})")]
    if not problems:
        return []
    source = inertial.source if (inertial.source.file or inertial.source.line) else link.source
    reasons = "; ".join(reason for _, reason in problems)
    return [Diagnostic(Severity.ERROR, Code.LINK_INERTIA_INVALID,
                       f"A link named {link.name} has invalid inertia: {reasons}.",
                       source.file, source.line, link.element_path() + "/inertial")]


def _clearly_valid(mass: float, tensor: list[list[float]]) -> bool:
    """A quick test that never calls an invalid inertial valid: True when the values pass
    gz-math's check with no tolerance needed, so the exact check (numpy, slow to import)
    runs only for the rest.  The eigenvalues of the symmetric tensor lie in its Gershgorin
    discs; if the smallest possible one is >= 0 and twice it is >= the largest possible
    one, the tensor is positive semi-definite and any two principal moments add up to at
    least the third."""
    values = [mass, *(v for row in tensor for v in row)]
    if not all(math.isfinite(v) for v in values) or mass < 0.0:
        return False
    lowest, highest = math.inf, -math.inf
    for k in range(3):
        radius = sum(abs(tensor[k][j]) for j in range(3) if j != k)
        lowest = min(lowest, tensor[k][k] - radius)
        highest = max(highest, tensor[k][k] + radius)
    if lowest >= 0.0 and 2.0 * lowest >= highest:
        return True
    # A diagonal tensor: its entries are the principal moments.
    if tensor[0][1] == tensor[0][2] == tensor[1][2] == 0.0:
        a, b, c = sorted((tensor[0][0], tensor[1][1], tensor[2][2]))
        return a >= 0.0 and a + b >= c
    return False
