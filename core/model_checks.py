"""Checks of the values a document holds and an editor can change, as libsdformat makes them.

libsdformat's ``Root::Load`` refuses values that no frame-graph check sees; the ones that
live in the core model (not only in the XML) are checked here, over the document's
nodes, so the same function serves a reader at load time and a live document after an
edit:

* ``LINK_INERTIA_INVALID`` -- a hand-written ``<inertial>`` whose mass and tensor fail
  gz-math's ``MassMatrix3::IsValid`` (what libsdformat 12 calls): a negative mass, a
  tensor that is not positive semi-definite, principal moments that break the triangle
  inequality (each within gz-math's tolerance).  libsdformat accepts a zero mass and a
  zero tensor, and so does this check.  A value that is not finite is judged as gz-math
  judges it in IEEE arithmetic (:func:`gz_mass_matrix_valid`): ``nan`` never passes,
  ``inf`` can (a mass of ``inf`` does; libsdformat 12 accepts it).
  ``<inertial auto="true">`` is checked where it is computed (:mod:`.inertia.link`).

Pure: the core model only.  Diagnostics carry the element path of the node
(``element``) and the file and line the node was read from.
"""

from __future__ import annotations

import math

from .diagnostics import Code, Diagnostic, Severity
from .model import Link, Node, walk

__all__ = ["check_values", "check_node_values", "gz_mass_matrix_valid"]


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
    source = inertial.source if (inertial.source.file or inertial.source.line) else link.source
    values = (mass, i.ixx, i.iyy, i.izz, i.ixy, i.ixz, i.iyz)
    if not all(math.isfinite(v) for v in values):
        if gz_mass_matrix_valid(*values):
            return []
        shown = ", ".join(f"{k} {v:g}" for k, v in zip(("mass", "ixx", "iyy", "izz", "ixy",
                                                         "ixz", "iyz"), values)
                          if not math.isfinite(v))
        return [Diagnostic(Severity.ERROR, Code.LINK_INERTIA_INVALID,
                           f"A link named {link.name} has invalid inertia: {shown} (not finite).",
                           source.file, source.line, link.element_path() + "/inertial")]
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


# -- gz-math's MassMatrix3::IsValid, in IEEE arithmetic ---------------------------------
# For values that are not finite, where what libsdformat 12 accepts is whatever IEEE
# arithmetic makes of gz-math 6's formulas (ixx = inf passes, iyy = inf does not: a
# 0 * inf in the determinant is nan).  Python's float operators follow IEEE; its math
# functions raise where C returns nan, hence the wrappers.
_GZ_TOLERANCE = 10.0            # IGN_MASSMATRIX3_DEFAULT_TOLERANCE
_DBL_EPSILON = 2.220446049250313e-16


def _c_cos(x: float) -> float:
    return math.cos(x) if math.isfinite(x) else math.nan


def _c_sqrt(x: float) -> float:
    return math.sqrt(x) if x >= 0.0 else math.nan  # nan >= 0 is False: nan


def _c_acos(x: float) -> float:
    return math.acos(x) if -1.0 <= x <= 1.0 else math.nan


def _c_max(a: float, b: float) -> float:
    return b if a < b else a  # std::max


def _epsilon(moments: tuple[float, float, float], tolerance: float) -> float:
    return tolerance * _DBL_EPSILON * 0.5 * abs(moments[0] + moments[1] + moments[2])


def _principal_moments(d: tuple[float, float, float], o: tuple[float, float, float],
                       tol: float = 1e-6) -> tuple[float, float, float]:
    """MassMatrix3::PrincipalMoments (Kronenburg's closed form), operation for operation."""
    t = tol * _c_max(_c_max(d[0], d[1]), d[2])
    if all(abs(v) <= t for v in o):
        return d
    b = d[0] + d[1] + d[2]
    c = d[0] * d[1] - o[0] * o[0] + d[0] * d[2] - o[1] * o[1] + d[1] * d[2] - o[2] * o[2]
    dd = (d[0] * o[2] * o[2] + d[1] * o[1] * o[1] + d[2] * o[0] * o[0]
          - d[0] * d[1] * d[2] - 2 * o[0] * o[1] * o[2])
    p = b * b - 3 * c
    if p < tol * tol:
        return (b / 3.0, b / 3.0, b / 3.0)
    q = 2 * b * b * b - 9 * b * c - 27 * dd
    ratio = 0.5 * q / (p * _c_sqrt(p))
    clamped = ratio if ratio != ratio else min(max(ratio, -1.0), 1.0)  # std::clamp keeps nan
    delta = _c_acos(clamped)
    root = 2 * _c_sqrt(p)
    m = [(b + root * _c_cos(delta / 3.0)) / 3.0,
         (b + root * _c_cos((delta + 2 * math.pi) / 3.0)) / 3.0,
         (b + root * _c_cos((delta - 2 * math.pi) / 3.0)) / 3.0]
    for i, j in ((1, 2), (0, 1), (1, 2)):  # sort3: three sort2 steps
        if m[j] < m[i]:
            m[i], m[j] = m[j], m[i]
    return (m[0], m[1], m[2])


def gz_mass_matrix_valid(mass: float, ixx: float, iyy: float, izz: float, ixy: float,
                         ixz: float, iyz: float) -> bool:
    """gz-math 6 ``MassMatrix3::IsValid()`` (IsNearPositive and ValidMoments of the
    principal moments), evaluated with IEEE semantics as C++ evaluates it."""
    # Python floats: IEEE results without numpy's warnings (the values may be numpy's).
    mass, ixx, iyy, izz, ixy, ixz, iyz = map(float, (mass, ixx, iyy, izz, ixy, ixz, iyz))
    d, o = (ixx, iyy, izz), (ixy, ixz, iyz)
    eps = _epsilon(d, _GZ_TOLERANCE)
    det = (ixx * (iyy * izz - iyz * iyz) - ixy * (ixy * izz - iyz * ixz)
           + ixz * (ixy * iyz - iyy * ixz))
    near_positive = (mass >= 0 and ixx + eps >= 0 and ixx * iyy - ixy * ixy + eps >= 0
                     and det + eps >= 0)
    if not near_positive:
        return False
    m = _principal_moments(d, o)
    eps = _epsilon(m, _GZ_TOLERANCE)
    return (m[0] + eps >= 0 and m[1] + eps >= 0 and m[2] + eps >= 0
            and m[0] + m[1] + eps >= m[2] and m[1] + m[2] + eps >= m[0]
            and m[2] + m[0] + eps >= m[1])
