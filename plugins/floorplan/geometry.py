"""The building as closed triangle meshes: walls with their openings cut out, floor
slabs, columns and dividers.

Every :class:`Piece` is a closed, outward-wound triangle mesh in world coordinates:
each edge is shared by exactly two triangles that run along it in opposite directions,
and the signed volume is positive.

Walls are convex prisms (a mitred trapezoid extruded by the wall height) and openings
are convex boxes, so a wall minus its openings is split exactly into convex pieces:
for each face plane of an opening, the part of the wall beyond that plane and inside the
planes taken before it.  The planes are taken in the order "along the wall" (the jambs),
"up" (sill and lintel), "through the wall", so a door leaves two full-height pieces and a
lintel, and a window also a sill.  Clipping a convex polyhedron by a plane needs only
interpolation along the edges that cross it, so the cuts are exact to rounding (points
within :data:`PLANE_TOLERANCE` of a plane count as on it: flush faces and an opening
touching a wall's mitred end leave no slivers).  No boolean library, no Blender.

A short wall between two reflex corners has mitres that meet before its outer line: its
listed outer corners coincide or cross, and the wall is built as what the mitres leave of
it, a triangular prism.  An element no solid can be made of (numbers too large to
compute with, faces that do not close) is reported naming it, and the rest is built.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import FloorPlanError
from .model import WALL, FloorPlan, Solid, Space
from .triangulation import triangulate_polygon

__all__ = ["Piece", "building_pieces", "wall_pieces", "floor_piece", "solid_piece",
           "closed_mesh_triangles", "triangulate_polygon", "signed_volume",
           "FLOOR", "FLOOR_THICKNESS", "PLANE_TOLERANCE"]

#: Distance (m) within which a point counts as lying on a cutting plane.
PLANE_TOLERANCE = 1e-9
#: Thickness (m) of the floor slab under each space; its top is the floor (z of the space).
FLOOR_THICKNESS = 0.05
#: Piece kinds besides the solids' own ``wall``, ``column`` and ``divider``.
FLOOR = "floor"


@dataclass
class Piece:
    """One closed mesh of the building.

    ``name`` is unique in the building: the element's name when the element is one piece
    (``lab-wall-0``, ``pillar``), ``<wall>-piece-<k>`` for the pieces a wall is cut into,
    ``<space>-floor`` for a floor slab.  ``element`` is the plan element it comes from.
    """

    name: str
    kind: str
    vertices: np.ndarray   # (N, 3) float64, world coordinates (m)
    triangles: np.ndarray  # (M, 3) int64, counter-clockwise seen from outside
    element: str = ""


def building_pieces(plan: FloorPlan, floor_thickness: float = FLOOR_THICKNESS,
                    problems: list[FloorPlanError] | None = None) -> list[Piece]:
    """Every wall (openings cut out), floor slab, column and divider of ``plan``.

    Walls come first in plan order, then one floor slab per space, then the features.
    An element whose shape cannot be made into a closed solid raises
    :class:`FloorPlanError`; when ``problems`` is a list, the error is appended to it
    instead and the element is left out, so one bad wall does not hide the building.
    """
    pieces: list[Piece] = []

    def attempt(build, element: Solid | Space, what: str) -> None:
        try:
            # numbers no solid can be made of (a corner at 1e300 m, say) overflow on the
            # way: the element is reported, never the reader's caller crashed
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                built = build()
            if all(np.isfinite(p.vertices).all() for p in built):
                pieces.extend(built)
                return
            problem = FloorPlanError(f"{what} {element.name} cannot be built: its corners "
                                     "are too far out", element=element.name)
        except FloorPlanError as error:
            problem = error
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as error:
            problem = FloorPlanError(f"{what} {element.name} cannot be built: {error}",
                                     element=element.name)
        problem = _located(problem, element)
        if problems is None:
            raise problem
        problems.append(problem)

    cutters: dict[str, list[Solid]] = {}
    for opening in plan.openings.values():
        for wall_name in opening.voids:
            cutters.setdefault(wall_name, []).append(opening)
    bodies: dict[int, _Convex] = {}          # each opening made convex once, for its walls
    for wall in plan.walls.values():
        attempt(lambda w=wall: wall_pieces(w, cutters.get(w.name, []), bodies), wall, "wall")
    if floor_thickness > 0:
        for space in plan.spaces.values():
            attempt(lambda s=space: [floor_piece(s, floor_thickness)], space, "the floor of")
    for feature in plan.features.values():
        attempt(lambda f=feature: [solid_piece(f)], feature, feature.kind)
    return pieces


def _located(error: FloorPlanError, element: Solid | Space) -> FloorPlanError:
    """``error`` with the file and line of ``element`` where it has none of its own."""
    if error.file is not None or element.file is None:
        return error
    return FloorPlanError(error.message, file=element.file,
                          line=error.line if error.line is not None else element.line,
                          column=error.column, element=error.element or element.name)


def wall_pieces(wall: Solid, openings: list[Solid],
                _bodies: dict[int, "_Convex"] | None = None) -> list[Piece]:
    """``wall`` with every opening in ``openings`` cut out, as convex pieces.

    An opening that does not reach into the wall (or only touches it) changes nothing;
    an uncut wall is one piece named like the wall.
    """
    body = _wall_body(wall)
    if body is None:
        if openings:
            raise FloorPlanError("wall is not a convex prism, its openings cannot be cut",
                                 element=wall.name)
        return [solid_piece(wall)]
    parts = [body]
    R_WF = np.asarray(wall.X_WF, dtype=np.float64)[:3, :3]
    for opening in openings:
        planes = _cutting_planes(opening, R_WF, _bodies)
        parts = [rest for part in parts for rest in part.subtract(planes)]
    kind = wall.kind or WALL
    if len(parts) == 1 and parts[0] is body:
        return [_piece(wall.name, kind, body, wall.name)]
    return [_piece(f"{wall.name}-piece-{k}", kind, part, wall.name)
            for k, part in enumerate(parts)]


def floor_piece(space: Space, thickness: float = FLOOR_THICKNESS) -> Piece:
    """The floor slab of ``space``: its polygon, top at the floor, ``thickness`` deep."""
    polygon = np.asarray(space.polygon, dtype=np.float64)
    if polygon.ndim != 2 or polygon.shape[0] < 3 or polygon.shape[1] < 2:
        raise FloorPlanError("space polygon needs at least 3 points", element=space.name)
    top = float(np.mean(polygon[:, 2])) if polygon.shape[1] > 2 else 0.0
    ring = _drop_repeats(polygon[:, :2])
    if len(ring) < 3 or abs(_signed_area(ring)) <= PLANE_TOLERANCE:
        raise FloorPlanError("space polygon has no area", element=space.name)
    if _signed_area(ring) < 0:               # clockwise: walk it the other way
        ring = ring[::-1]
    try:
        caps = triangulate_polygon(ring)
    except ValueError as error:
        raise FloorPlanError(f"space polygon: {error}", element=space.name) from None
    return _prism(f"{space.name}-floor", FLOOR, ring, top - thickness, top, caps, space.name)


def solid_piece(solid: Solid) -> Piece:
    """A closed polyhedron (``solid.points``/``faces``) as an outward-wound mesh.

    Faces may be listed in any winding; they are made consistent through shared edges
    and turned outward by the sign of the volume.
    """
    points = np.asarray(solid.points, dtype=np.float64).reshape(-1, 3)
    faces = [list(face) for face in solid.faces]
    try:
        triangles = closed_mesh_triangles(points, faces)
    except ValueError as error:
        raise FloorPlanError(f"shape of {solid.kind} {solid.name}: {error}",
                             element=solid.name) from None
    return Piece(solid.name, solid.kind, points.copy(), triangles, solid.name)


# --- meshes from faces -------------------------------------------------------------

def closed_mesh_triangles(points: np.ndarray, faces: list[list[int]]) -> np.ndarray:
    """Triangles of the closed polyhedron ``faces`` (planar polygons indexing ``points``),
    wound counter-clockwise seen from outside.  Raises ValueError when the faces do not
    close up into a solid."""
    faces = [_drop_repeated_indices(face) for face in faces]
    faces = [face for face in faces if len(face) >= 3]
    if not faces:
        raise ValueError("no faces")
    n = len(points)
    for face in faces:
        if min(face) < 0 or max(face) >= n:
            raise ValueError("a face names a point that does not exist")
    faces = _consistent_winding(faces)
    triangles: list[tuple[int, int, int]] = []
    corners = points.tolist()
    for face in faces:
        triangles += _face_triangles(points, corners, face)
    tris = np.array(triangles, dtype=np.int64)
    if signed_volume(points, tris) < 0:
        tris = tris[:, ::-1].copy()
    return tris


def _face_triangles(points: np.ndarray, corners: list[list[float]], face: list[int]
                    ) -> list[tuple[int, int, int]]:
    """Triangles of one planar face (indices into ``points``; ``corners`` is the same as
    lists), wound like the face: a fan when it turns strictly at every corner, else ear
    clipping, which keeps collinear corners out of zero-area triangles."""
    ring = points[face]
    normal = _newell_normal(ring)
    length = float(np.linalg.norm(normal))
    if length <= PLANE_TOLERANCE ** 2:
        raise ValueError("a face has no area")
    if len(face) == 3 or _strictly_convex([corners[i] for i in face], normal):
        return [(face[0], face[k], face[k + 1]) for k in range(1, len(face) - 1)]
    u, v = _plane_basis(normal / length)
    flat = np.column_stack([ring @ u, ring @ v])   # counter-clockwise in (u, v)
    return [(face[a], face[b], face[c]) for a, b, c in triangulate_polygon(flat)]


def _consistent_winding(faces: list[list[int]]) -> list[list[int]]:
    """Flip faces so that every shared edge is walked once each way (a closed,
    orientable surface); raises ValueError for open or non-manifold surfaces."""
    owners: dict[tuple[int, int], list[int]] = {}
    for index, face in enumerate(faces):
        for a, b in zip(face, face[1:] + face[:1]):
            owners.setdefault((min(a, b), max(a, b)), []).append(index)
    for edge, users in owners.items():
        if len(users) != 2:
            raise ValueError("the faces do not close up (an edge is on "
                             f"{len(users)} face{'s' if len(users) != 1 else ''})")
    flipped: list[bool | None] = [None] * len(faces)
    as_given = [set(zip(face, face[1:] + face[:1])) for face in faces]

    def walks(index: int, a: int, b: int) -> bool:
        """Whether face ``index``, as oriented now, walks the edge from a to b."""
        return ((a, b) if not flipped[index] else (b, a)) in as_given[index]

    for seed in range(len(faces)):
        if flipped[seed] is not None:
            continue
        flipped[seed] = False
        stack = [seed]
        while stack:
            index = stack.pop()
            face = faces[index][::-1] if flipped[index] else faces[index]
            for a, b in zip(face, face[1:] + face[:1]):
                for other in owners[(min(a, b), max(a, b))]:
                    if other == index:
                        continue
                    if flipped[other] is None:
                        flipped[other] = False
                        flipped[other] = walks(other, a, b)
                        stack.append(other)
                    elif walks(other, a, b):
                        raise ValueError("the surface is not orientable")
    return [face[::-1] if flip else face for face, flip in zip(faces, flipped)]


def signed_volume(vertices: np.ndarray, triangles: np.ndarray) -> float:
    """Volume enclosed by a closed mesh (divergence theorem); positive when outward."""
    V = np.asarray(vertices, dtype=np.float64)
    T = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    if len(T) == 0:
        return 0.0
    a, b, c = V[T[:, 0]], V[T[:, 1]], V[T[:, 2]]
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)


# --- convex clipping ---------------------------------------------------------------

class _Convex:
    """A convex polyhedron: points and faces wound counter-clockwise from outside."""

    __slots__ = ("points", "faces", "_planes")

    def __init__(self, points: np.ndarray, faces: list[list[int]]) -> None:
        self.points = points
        self.faces = faces
        self._planes: list[tuple[np.ndarray, float]] | None = None

    @classmethod
    def from_solid(cls, solid: Solid) -> _Convex | None:
        """The solid as a convex polyhedron, or None when it is not convex."""
        points = np.asarray(solid.points, dtype=np.float64).reshape(-1, 3)
        faces = [_drop_repeated_indices(list(f)) for f in solid.faces]
        faces = [f for f in faces if len(f) >= 3]
        if not faces or min(min(f) for f in faces) < 0 or max(max(f) for f in faces) >= len(points):
            raise FloorPlanError(f"shape of {solid.kind} {solid.name}: faces name missing points",
                                 element=solid.name)
        try:
            faces = _consistent_winding(faces)
        except ValueError as error:
            raise FloorPlanError(f"shape of {solid.kind} {solid.name}: {error}",
                                 element=solid.name) from None
        try:
            volume = signed_volume(points, cls(points, faces).triangles())
        except ValueError as error:     # a face of no area, or one that crosses itself
            raise FloorPlanError(f"shape of {solid.kind} {solid.name}: {error}",
                                 element=solid.name) from None
        if volume < 0:
            faces = [f[::-1] for f in faces]
        body = cls(points, faces)
        return body if body._is_convex() else None

    def _is_convex(self) -> bool:
        size = float(np.ptp(self.points, axis=0).max()) if len(self.points) else 0.0
        tolerance = max(PLANE_TOLERANCE, 1e-12 * size)
        for normal, offset in self.planes():
            if (self.points @ normal - offset).max() > tolerance:
                return False
        return True

    def planes(self) -> list[tuple[np.ndarray, float]]:
        """Each face's plane as (unit outward normal, offset): inside is n·x <= d."""
        if self._planes is None:
            result = []
            for face in self.faces:
                ring = self.points[face]
                normal = _newell_normal(ring)
                normal = normal / np.linalg.norm(normal)
                result.append((normal, float(np.mean(ring @ normal))))
            self._planes = result
        return self._planes

    def clip(self, normal: np.ndarray, offset: float) -> _Convex | None:
        """The part with ``normal·x <= offset``; self when nothing is cut off, None when
        nothing is left (points within PLANE_TOLERANCE count as on the plane)."""
        distance = (self.points @ normal - offset).tolist()
        side = [1 if d > PLANE_TOLERANCE else -1 if d < -PLANE_TOLERANCE else 0
                for d in distance]
        if 1 not in side:
            return self
        if -1 not in side:
            return None
        points = self.points.tolist()
        crossing: dict[tuple[int, int], int] = {}

        def cut(i: int, j: int) -> int:
            key = (i, j) if i < j else (j, i)   # one point per edge, whichever face asks
            if key not in crossing:
                a, b = key
                t = distance[a] / (distance[a] - distance[b])
                (ax, ay, az), (bx, by, bz) = points[a], points[b]
                crossing[key] = len(points)
                points.append([ax + t * (bx - ax), ay + t * (by - ay), az + t * (bz - az)])
            return crossing[key]

        faces: list[list[int]] = []
        for face in self.faces:
            kept: list[int] = []
            inside = False
            for i, j in zip(face, face[1:] + face[:1]):
                if side[i] <= 0:
                    kept.append(i)
                    inside = inside or side[i] < 0
                if side[i] * side[j] < 0:
                    kept.append(cut(i, j))
            if inside and len(kept) >= 3:
                faces.append(kept)
        faces.append(_cap(faces))
        return _Convex(np.array(points), faces)._compacted()

    def subtract(self, planes: list[tuple[np.ndarray, float]]) -> list[_Convex]:
        """self minus the convex region ``n·x <= d`` of every plane, as convex pieces:
        the part beyond plane k and inside planes 0..k-1, for each k."""
        inner: _Convex | None = self
        for normal, offset in planes:
            inner = inner.clip(normal, offset)
            if inner is None:
                return [self]          # disjoint, or only touching
        pieces: list[_Convex] = []
        rest: _Convex | None = self
        for normal, offset in planes:
            beyond = rest.clip(-normal, -offset)
            if beyond is not None:
                pieces.append(beyond)
            rest = rest.clip(normal, offset)
            if rest is None:
                break
        return pieces

    def _compacted(self) -> _Convex:
        used = sorted({i for face in self.faces for i in face})
        remap = {old: new for new, old in enumerate(used)}
        return _Convex(self.points[used], [[remap[i] for i in face] for face in self.faces])

    def triangles(self) -> np.ndarray:
        """Triangles of the (convex) faces, wound outward."""
        corners = self.points.tolist()
        tris = [t for face in self.faces for t in _face_triangles(self.points, corners, face)]
        return np.array(tris, dtype=np.int64).reshape(-1, 3)


# --- mitred walls whose outer corners meet or cross --------------------------------

def _wall_body(wall: Solid) -> _Convex | None:
    """The wall as a convex polyhedron, or None when it is not convex.

    A FloorPlan wall is a trapezoid in its frame: the inner edge on y = 0, the outer edge
    on y = t, each end cut by the mitre through a corner of the space.  A short wall
    between two reflex corners has its mitres meet before the outer line: its outer
    corners coincide (a side face of no area) or cross (the listed outline crosses
    itself).  What the wall then holds is the part of the strip between its inner and
    outer lines on the inner side of both mitres: a triangle, built here.
    """
    outline = _mitred_outline(wall)
    if outline is not None and not _strictly_convex_2d(outline[0]):
        return _clipped_wall(wall, *outline)
    try:
        return _Convex.from_solid(wall)
    except FloorPlanError:
        if outline is None:
            raise
        return _clipped_wall(wall, *outline)


def _mitred_outline(wall: Solid) -> tuple[np.ndarray, float, float] | None:
    """``(outline, bottom, top)`` in the wall frame when the wall is laid out as
    FloorPlan writes walls (8 points: outer -x end, outer +x end, inner +x end, inner -x
    end at the bottom, the same lifted along z), else None."""
    points = np.asarray(wall.points, dtype=np.float64).reshape(-1, 3)
    X = np.asarray(wall.X_WF, dtype=np.float64)
    if len(points) != 8 or X.shape != (4, 4) or not np.isfinite(points).all() \
            or not np.isfinite(X).all():
        return None
    local = (points - X[:3, 3]) @ X[:3, :3]
    tol = 1e-9 * max(1.0, float(np.abs(local).max()))
    bottom, top = local[:4], local[4:]
    if np.ptp(bottom[:, 2]) > tol or np.ptp(top[:, 2]) > tol \
            or abs(top[0, 2] - bottom[0, 2]) <= tol \
            or np.abs(bottom[:, :2] - top[:, :2]).max() > tol:
        return None
    ring = bottom[:, :2]
    if abs(ring[2, 1]) > tol or abs(ring[3, 1]) > tol or ring[2, 0] <= ring[3, 0] + tol \
            or abs(ring[0, 1] - ring[1, 1]) > tol or abs(ring[0, 1]) <= tol:
        return None
    low, high = sorted((float(bottom[0, 2]), float(top[0, 2])))
    return ring, low, high


def _strictly_convex_2d(ring: np.ndarray) -> bool:
    d = np.roll(ring, -1, axis=0) - ring
    turns = d[:, 0] * np.roll(d, -1, axis=0)[:, 1] - d[:, 1] * np.roll(d, -1, axis=0)[:, 0]
    tiny = 1e-12 * float(np.abs(ring).max()) ** 2
    return bool((turns > tiny).all() or (turns < -tiny).all())


def _clip_2d(ring: list[tuple[float, float]], normal: tuple[float, float], offset: float
             ) -> list[tuple[float, float]]:
    """The part of a convex polygon with ``normal . p <= offset``."""
    out: list[tuple[float, float]] = []
    nx, ny = normal
    for k, p in enumerate(ring):
        q = ring[(k + 1) % len(ring)]
        dp, dq = nx * p[0] + ny * p[1] - offset, nx * q[0] + ny * q[1] - offset
        if dp <= 0:
            out.append(p)
        if (dp < 0 < dq) or (dq < 0 < dp):
            t = dp / (dp - dq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def _clipped_wall(wall: Solid, ring: np.ndarray, low: float, high: float) -> _Convex:
    """The mitred wall ``ring`` (outer -x, outer +x, inner +x, inner -x) as the strip
    between its inner and outer lines cut by both mitres, extruded from low to high."""
    outer_left, outer_right, inner_right, inner_left = (tuple(map(float, p)) for p in ring)
    depth = (outer_left[1] + outer_right[1]) / 2
    reach = float(np.abs(ring[:, 0]).max()) + abs(depth) + 1.0
    y0, y1 = sorted((0.0, depth))
    shape = [(-reach, y0), (reach, y0), (reach, y1), (-reach, y1)]
    for through, corner, keep in ((inner_left, outer_left, inner_right),
                                  (inner_right, outer_right, inner_left)):
        # the mitre line through the wall's end, the other end on its inner side
        normal = (-(corner[1] - through[1]), corner[0] - through[0])
        offset = normal[0] * through[0] + normal[1] * through[1]
        side = normal[0] * keep[0] + normal[1] * keep[1] - offset
        if side == 0.0:
            shape = []
            break
        if side > 0:
            normal, offset = (-normal[0], -normal[1]), -offset
        shape = _clip_2d(shape, normal, offset)
    flat = np.array(shape, dtype=np.float64).reshape(-1, 2)
    if len(flat) >= 3 and _signed_area(flat) < 0:
        flat = flat[::-1]
    if len(flat) < 3 or _signed_area(flat) <= PLANE_TOLERANCE ** 2:
        raise FloorPlanError(f"wall {wall.name} holds nothing: its mitres meet on its "
                             "inner edge", element=wall.name)
    m = len(flat)
    local = np.vstack([np.column_stack([flat, np.full(m, low)]),
                       np.column_stack([flat, np.full(m, high)])])
    X = np.asarray(wall.X_WF, dtype=np.float64)
    points = local @ X[:3, :3].T + X[:3, 3]
    faces = [list(range(m - 1, -1, -1)), list(range(m, 2 * m))]
    faces += [[i, (i + 1) % m, (i + 1) % m + m, i + m] for i in range(m)]
    return _Convex(points, faces)


def _cap(faces: list[list[int]]) -> list[int]:
    """The face closing ``faces`` after a cut: their unmatched edges, walked backwards."""
    directed = {(a, b) for face in faces for a, b in zip(face, face[1:] + face[:1])}
    following: dict[int, int] = {}
    for a, b in directed:
        if (b, a) not in directed:
            following[b] = a                 # the cap walks the open edge backwards
    start = next(iter(following))
    ring = [start]
    while True:
        nxt = following[ring[-1]]
        if nxt == start:
            break
        ring.append(nxt)
        if len(ring) > len(following):
            raise AssertionError("cut surface is not a single loop")
    return ring


def _cutting_planes(opening: Solid, R_WF: np.ndarray, bodies: dict[int, _Convex] | None = None
                    ) -> list[tuple[np.ndarray, float]]:
    """The opening's face planes, outward, in the order along-wall, up, through-wall
    (axes of the wall frame ``R_WF``), which gives jambs, then sill and lintel.
    ``bodies`` keeps each opening's convex form for the next wall it cuts."""
    body = bodies.get(id(opening)) if bodies is not None else None
    if body is None:
        body = _Convex.from_solid(opening)
        if body is not None and bodies is not None:
            bodies[id(opening)] = body
    if body is None:
        raise FloorPlanError("opening is not a convex box, it cannot be cut",
                             element=opening.name)
    along, through, up = R_WF[:, 0], R_WF[:, 1], R_WF[:, 2]

    def order(plane: tuple[np.ndarray, float]) -> tuple[int, float]:
        normal = plane[0]
        weights = [abs(normal @ along), abs(normal @ up), abs(normal @ through)]
        rank = int(np.argmax(weights))
        return rank, float(normal @ (along, up, through)[rank])

    return sorted(body.planes(), key=order)


def _piece(name: str, kind: str, body: _Convex, element: str) -> Piece:
    return Piece(name, kind, np.array(body.points, dtype=np.float64), body.triangles(), element)


# --- small helpers -----------------------------------------------------------------

def _prism(name: str, kind: str, ring: np.ndarray, bottom: float, top: float,
           caps: list[tuple[int, int, int]], element: str) -> Piece:
    """A counter-clockwise 2D ring extruded from ``bottom`` to ``top``."""
    n = len(ring)
    vertices = np.vstack([np.column_stack([ring, np.full(n, bottom)]),
                          np.column_stack([ring, np.full(n, top)])])
    tris = [(a + n, b + n, c + n) for a, b, c in caps]          # top, facing up
    tris += [(c, b, a) for a, b, c in caps]                     # bottom, facing down
    for i in range(n):
        j = (i + 1) % n
        tris += [(i, j, j + n), (i, j + n, i + n)]              # sides, facing out
    return Piece(name, kind, vertices, np.array(tris, dtype=np.int64), element)


def _signed_area(ring: np.ndarray) -> float:
    x, y = ring[:, 0], ring[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def _newell_normal(ring: np.ndarray) -> np.ndarray:
    """Area-weighted normal of a planar polygon (right-hand rule on its order)."""
    # (the sum of p_k x p_k+1 in plain floats: numpy's per-call cost is more than the
    # work for the few corners of a face)
    pts = ring.tolist()
    nx = ny = nz = 0.0
    for (x0, y0, z0), (x1, y1, z1) in zip(pts, pts[1:] + pts[:1]):
        nx += y0 * z1 - z0 * y1
        ny += z0 * x1 - x0 * z1
        nz += x0 * y1 - y0 * x1
    return np.array([0.5 * nx, 0.5 * ny, 0.5 * nz])


def _strictly_convex(ring: list[list[float]], normal: np.ndarray) -> bool:
    """Whether a planar polygon turns the same way (about ``normal``) at every corner, by
    more than rounding: then a fan from any corner triangulates it."""
    nx, ny, nz = (float(c) for c in normal)
    scale = max(abs(c) for corner in ring for c in corner) or 1.0
    tiny = 1e-12 * scale * abs(nx * nx + ny * ny + nz * nz) ** 0.5 * scale
    n = len(ring)
    for k in range(n):
        (ax, ay, az), (bx, by, bz), (cx, cy, cz) = ring[k - 1], ring[k], ring[(k + 1) % n]
        ux, uy, uz = bx - ax, by - ay, bz - az
        vx, vy, vz = cx - bx, cy - by, cz - bz
        turn = (uy * vz - uz * vy) * nx + (uz * vx - ux * vz) * ny + (ux * vy - uy * vx) * nz
        if turn <= tiny:
            return False
    return True


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def _plane_basis(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors u, v with u × v = normal."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = _cross(helper, normal)
    u /= np.linalg.norm(u)
    return u, _cross(normal, u)


def _drop_repeats(ring: np.ndarray) -> np.ndarray:
    """The ring without points equal to the one before (and a repeated first point)."""
    keep = [0]
    for k in range(1, len(ring)):
        if np.linalg.norm(ring[k] - ring[keep[-1]]) > PLANE_TOLERANCE:
            keep.append(k)
    if len(keep) > 1 and np.linalg.norm(ring[keep[-1]] - ring[keep[0]]) <= PLANE_TOLERANCE:
        keep.pop()
    return ring[keep]


def _drop_repeated_indices(face: list[int]) -> list[int]:
    out = [i for k, i in enumerate(face) if i != face[k - 1]] if len(face) > 1 else list(face)
    return out
