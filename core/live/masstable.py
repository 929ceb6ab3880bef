"""The mass table of a document: every link's mass and centre of mass, and the totals.

Each link at every depth (through includes, by key) gets a row from what the live
document knows: the inertial the file writes (``written``), the one the live inertia
service computed for ``<inertial auto="true">`` (``computed``), or nothing usable
(``missing``: no ``<inertial>``, or an automatic one that cannot be computed; the
diagnostics say why).  SDFormat gives a link without ``<inertial>`` a mass of 1 kg and a
unit tensor; the table does not invent that mass: a missing row has no mass and is left
out of the totals, which name it in ``missing``.

Positions are in the root frame (the world, or the top model) and follow the live pose
table, so joint positions set on ``live.joints`` move the centres of mass too.  Links of
static models are listed (``static``) but left out of the totals: they do not move.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..frames.scope import Scope
from ..inertia.mass_properties import MassProperties
from ..model import Link
from ..model.names import SEP

__all__ = ["MassRow", "MassTable", "mass_table", "WRITTEN", "COMPUTED", "MISSING"]

WRITTEN, COMPUTED, MISSING = "written", "computed", "missing"


@dataclass(frozen=True)
class MassRow:
    """One link: ``mass`` [kg], ``com`` (3,) and ``inertia`` (3, 3, about the COM) in the
    root frame's axes; all three None when the source is ``missing`` (or the link cannot
    be placed)."""

    key: str
    mass: float | None
    com: np.ndarray | None
    inertia: np.ndarray | None
    source: str
    static: bool = False


@dataclass(frozen=True)
class MassTable:
    """Rows in document order and the totals of the rows that have a mass (not static):
    total mass, combined centre of mass and combined inertia about it (root-frame axes;
    None when nothing has mass).  ``missing`` lists the keys left out for lack of data."""

    rows: tuple[MassRow, ...]
    total_mass: float
    com: np.ndarray | None
    inertia: np.ndarray | None
    missing: tuple[str, ...]

    def row(self, key: str) -> MassRow:
        return next(r for r in self.rows if r.key == key)


def _link_properties(link: Link, live) -> tuple[MassProperties | None, str]:
    """The link's mass properties in its own frame, and where they come from."""
    inertial = link.inertial
    if inertial is None:
        return None, MISSING
    if inertial.auto:
        result = live.inertia.of(link)
        mp = result.mass_properties if result is not None else None
        return (mp, COMPUTED) if mp is not None else (None, MISSING)
    mass = 1.0 if inertial.mass is None else float(inertial.mass)   # SDFormat's default
    I = np.array([[inertial.ixx, inertial.ixy, inertial.ixz],
                  [inertial.ixy, inertial.iyy, inertial.iyz],
                  [inertial.ixz, inertial.iyz, inertial.izz]], dtype=float)
    return MassProperties.from_inertial_frame(mass, inertial.pose.value, I), WRITTEN


def mass_table(document) -> MassTable:
    """Every link's mass and centre of mass, and the totals (module docstring)."""
    live = document.live
    table = live.poses
    graph = document.frames
    found: list[tuple[str, MassProperties | None, str, bool]] = []
    # the instances of one included link share its node: its properties once
    by_node: dict[int, tuple[MassProperties | None, str]] = {}

    def visit(scope: Scope, prefix: str) -> None:
        for v in scope.vertices.values():
            key = prefix + v.name
            if v.kind == "link":
                if id(v.node) not in by_node:
                    by_node[id(v.node)] = _link_properties(v.node, live)  # type: ignore[arg-type]
                mp, source = by_node[id(v.node)]
                if mp is None or key not in table:
                    found.append((key, None, MISSING, scope.static))
                else:
                    found.append((key, mp, source, scope.static))
            elif v.nested is not None:
                visit(v.nested, key + SEP)

    if graph.root is not None:
        visit(graph.root, "")
    placed = [i for i, f in enumerate(found) if f[1] is not None]
    # every placed link expressed in the root frame at once: com' = R com + p, I' = R I R^T
    X = table.poses([found[i][0] for i in placed]) if placed else np.zeros((0, 4, 4))
    R = X[:, :3, :3]
    mass = np.array([found[i][1].mass for i in placed], dtype=float)
    com = np.einsum("nij,nj->ni", R, np.array([found[i][1].com for i in placed]).reshape(-1, 3)) \
        + X[:, :3, 3]
    inertia = R @ np.array([found[i][1].inertia for i in placed]).reshape(-1, 3, 3) \
        @ R.transpose(0, 2, 1)
    where = {i: n for n, i in enumerate(placed)}
    rows = []
    for i, (key, _mp, source, static) in enumerate(found):
        n = where.get(i)
        if n is None:
            rows.append(MassRow(key, None, None, None, MISSING, static))
        else:
            rows.append(MassRow(key, float(mass[n]), com[n], inertia[n], source, static))
    counted = np.array([where[i] for i in placed if not found[i][3]], dtype=np.int64)
    missing = tuple(r.key for r in rows if r.mass is None and not r.static)
    total = float(mass[counted].sum()) if len(counted) else 0.0
    if total > 0.0:
        m, c = mass[counted], com[counted]
        centre = (m @ c) / total
        d = c - centre
        md = m[:, None] * d
        # the parallel-axis theorem, summed (as inertia.combine does)
        whole = inertia[counted].sum(axis=0) + float((md * d).sum()) * np.eye(3) - md.T @ d
        return MassTable(tuple(rows), total, centre, 0.5 * (whole + whole.T), missing)
    return MassTable(tuple(rows), total, None, None, missing)
