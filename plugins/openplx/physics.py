"""Read the Physics3D structure of an evaluated model: systems, bodies, connectors, mates.

:func:`collect` walks an instance of a ``Physics3D.System`` and returns an
:class:`Assembly`, the format-neutral facts SNAP and the core-model mapping need:

* which bodies and systems have a declared ``local_transform`` (any assignment to it or
  to a part of it, anywhere: that frame is fixed for SNAP), and where it was written;
* every mate connector's frame in its owner (main_axis = local z, normal = local x after
  projection, default normal ``main_axis.get_orthogonal_unit_vector()``);
* mates with their type, connectors and initial values, in declaration order;
* geometries (contact and visual) and inertia of bodies.

Membership is structural: an instance contained in a system (not a reference to one
declared elsewhere) belongs to it.
"""

from __future__ import annotations

import math
from typing import Any

from snapframe.core.diagnostics import Code, Severity
from snapframe.core.limits import MAX_ELEMENT_INSTANCES, budget_message
from snapframe.core.pose import IDENTITY, Pose
from snapframe.core.snap.model import SnapMate

from . import ast as A
from . import mathlib as m
from .evaluator import EvalError, Evaluator, Mod, Obj, Opaque, expr_start

__all__ = ["Assembly", "SystemInfo", "BodyInfo", "ConnectorInfo", "MateInfo", "GeometryInfo",
           "collect", "MATE_TYPES", "T_SYSTEM", "T_BODY", "T_CONNECTOR", "T_MATE"]

T_SYSTEM = "Physics3D.System"
T_BODY = "Physics3D.Bodies.Body"
T_CONNECTOR = "Physics3D.Interactions.MateConnector"
T_REDIRECTED = "Physics3D.Interactions.RedirectedMateConnector"
T_ADAPTIVE = "Physics3D.Interactions.AdaptiveMateConnector"
T_MATE = "Physics3D.Interactions.Mate"
T_CONTACT = "Physics3D.Geometries.ContactGeometry"
T_VISUAL = "Visuals.Geometries.Geometry"

#: Physics3D mate types SNAP understands, by the name used in SnapMate.type.
MATE_TYPES = {
    "lock": "Physics3D.Interactions.Lock",
    "hinge": "Physics3D.Interactions.Hinge",
    "prismatic": "Physics3D.Interactions.Prismatic",
    "cylindrical": "Physics3D.Interactions.Cylindrical",
    "ball": "Physics3D.Interactions.Ball",
    "distance": "Physics3D.Interactions.Distance",
}
#: What system() and body() sort their members into, in the order they test.
_SYSTEM_MEMBERS = (T_SYSTEM, T_BODY, T_CONNECTOR, T_MATE)
_BODY_MEMBERS = (T_CONNECTOR, T_CONTACT, T_VISUAL)
_REDIRECTED, _ADAPTIVE = (T_REDIRECTED,), (T_ADAPTIVE,)
_GEOMETRY_SHAPES = ("Box", "Sphere", "Cylinder", "Capsule", "ConvexMesh", "TriMesh",
                    "ExternalTriMeshGeometry")


# The records below are written out (they were ``dataclass(eq=False)``: the same
# constructors, attributes, identity equality and repr), because creating dataclasses
# costs more at import than snapping a hundred bodies.

#: Default of a list attribute: each record gets a new empty list.
_NEW_LIST: Any = object()


class _Record:
    """``repr`` lists ``_fields``, as a dataclass's does."""

    _fields: tuple[str, ...] = ()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({fields})"


class GeometryInfo(_Record):
    """A contact or visual geometry of a body: ``shape`` is the OpenPLX model name."""

    _fields = ("path", "name", "obj", "contact", "shape", "params", "X_BG", "declared_sites",
               "where")

    def __init__(self, path: str, name: str, obj: Obj, contact: bool, shape: str,
                 params: dict[str, Any], X_BG: Pose, declared_sites: list[Mod] = _NEW_LIST,
                 where: tuple[str, int] | None = None) -> None:
        self.path = path
        self.name = name
        self.obj = obj
        self.contact = contact
        self.shape = shape
        self.params = params
        self.X_BG = X_BG
        self.declared_sites = [] if declared_sites is _NEW_LIST else declared_sites
        self.where = where


class ConnectorInfo(_Record):
    _fields = ("path", "name", "obj", "owner", "X_OC", "main_axis", "normal",
               "redirected_parent", "where", "adaptive")

    def __init__(self, path: str, name: str, obj: Obj | None, owner: str, X_OC: Pose,
                 main_axis: tuple[float, float, float] = (0.0, 0.0, 1.0),
                 normal: tuple[float, float, float] = (1.0, 0.0, 0.0),
                 redirected_parent: str | None = None, where: tuple[str, int] | None = None,
                 adaptive: bool = False) -> None:
        self.path = path
        self.name = name
        self.obj = obj
        self.owner = owner
        self.X_OC = X_OC
        self.main_axis = main_axis
        self.normal = normal
        self.redirected_parent = redirected_parent
        self.where = where
        self.adaptive = adaptive


class BodyInfo(_Record):
    _fields = ("path", "name", "obj", "system", "declared", "declared_sites", "mass", "tensor",
               "X_BCm", "is_dynamic", "connectors", "geometries", "where")

    def __init__(self, path: str, name: str, obj: Obj, system: str, declared: Pose | None,
                 declared_sites: list[Mod], mass: float | None = None,
                 tensor: tuple | None = None, X_BCm: Pose = IDENTITY, is_dynamic: bool = True,
                 connectors: list[ConnectorInfo] = _NEW_LIST,
                 geometries: list[GeometryInfo] = _NEW_LIST,
                 where: tuple[str, int] | None = None) -> None:
        self.path = path
        self.name = name
        self.obj = obj
        self.system = system
        self.declared = declared
        self.declared_sites = declared_sites
        self.mass = mass
        self.tensor = tensor
        self.X_BCm = X_BCm
        self.is_dynamic = is_dynamic
        self.connectors = [] if connectors is _NEW_LIST else connectors
        self.geometries = [] if geometries is _NEW_LIST else geometries
        self.where = where


class SystemInfo(_Record):
    _fields = ("path", "name", "obj", "parent", "declared", "declared_sites", "reference_body",
               "systems", "bodies", "connectors", "mates", "where")

    def __init__(self, path: str, name: str, obj: Obj, parent: str | None,
                 declared: Pose | None, declared_sites: list[Mod],
                 reference_body: str | None = None, systems: list[SystemInfo] = _NEW_LIST,
                 bodies: list[BodyInfo] = _NEW_LIST,
                 connectors: list[ConnectorInfo] = _NEW_LIST,
                 mates: list[MateInfo] = _NEW_LIST,
                 where: tuple[str, int] | None = None) -> None:
        self.path = path
        self.name = name
        self.obj = obj
        self.parent = parent
        self.declared = declared
        self.declared_sites = declared_sites
        self.reference_body = reference_body
        self.systems = [] if systems is _NEW_LIST else systems
        self.bodies = [] if bodies is _NEW_LIST else bodies
        self.connectors = [] if connectors is _NEW_LIST else connectors
        self.mates = [] if mates is _NEW_LIST else mates
        self.where = where


class MateInfo(SnapMate):
    """A mate as SNAP needs it, plus where the evaluator found it (frozen, equal and hashed
    as the SnapMate it is)."""

    _fields = SnapMate._fields + ("name", "obj", "system")
    name: str
    obj: Obj | None
    system: str

    def __init__(self, path: str, type: str, connectors: tuple[str, str],
                 initial_angle: float = 0.0, initial_position: float = 0.0,
                 initial_distance: float = 0.0, enable_snap: bool = True, file: str = "",
                 line: int = 0, *, name: str = "", obj: Obj | None = None,
                 system: str = "") -> None:
        super().__init__(path, type, connectors, initial_angle, initial_position,
                         initial_distance, enable_snap, file, line)
        set_field = object.__setattr__
        set_field(self, "name", name)
        set_field(self, "obj", obj)
        set_field(self, "system", system)


class Assembly(_Record):
    """Everything below one root system, flattened in declaration order."""

    _fields = ("root", "systems", "bodies", "connectors", "mates")

    def __init__(self, root: SystemInfo, systems: list[SystemInfo] = _NEW_LIST,
                 bodies: list[BodyInfo] = _NEW_LIST, connectors: list[ConnectorInfo] = _NEW_LIST,
                 mates: list[MateInfo] = _NEW_LIST) -> None:
        self.root = root
        self.systems = [] if systems is _NEW_LIST else systems
        self.bodies = [] if bodies is _NEW_LIST else bodies
        self.connectors = [] if connectors is _NEW_LIST else connectors
        self.mates = [] if mates is _NEW_LIST else mates

    def system(self, path: str) -> SystemInfo | None:
        return next((s for s in self.systems if s.path == path), None)

    def body(self, path: str) -> BodyInfo | None:
        return next((b for b in self.bodies if b.path == path), None)

    def connector(self, path: str) -> ConnectorInfo | None:
        return next((c for c in self.connectors if c.path == path), None)

    def locations(self) -> dict[str, tuple[str, int]]:
        """Where each system, body, connector and mate is declared: path -> (file, line)."""
        out: dict[str, tuple[str, int]] = {}
        for item in [*self.systems, *self.bodies, *self.connectors]:
            if item.where is not None:
                out[item.path] = item.where
        for mt in self.mates:
            out[mt.path] = (mt.file, mt.line)
        return out


# -- collection ---------------------------------------------------------------------


#: Systems nested deeper than this are not expanded (a guard against runaway nesting).
MAX_SYSTEM_DEPTH = 64


class ResourceLimit(Exception):
    """An assembly grew past :data:`snapframe.core.limits.MAX_ELEMENT_INSTANCES` elements
    (a backstop: :mod:`.expansion` refuses such models before they are built)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def collect(ev: Evaluator, root: Obj, details: bool = True) -> Assembly:
    """The Physics3D structure below ``root`` (a ``Physics3D.System`` instance).

    ``details=False`` skips what SNAP does not need (inertia and geometries)."""
    c = _Collector(ev, details)
    info = c.system(root, None)
    asm = Assembly(info, c.systems, c.bodies, c.connectors, [])
    known = {ci.path for ci in c.connectors}
    for sys_info, mate_obj, name in c.pending_mates:
        mate = c.mate(mate_obj, name, sys_info, asm, known)
        if mate is not None:
            sys_info.mates.append(mate)
            asm.mates.append(mate)
    return asm


class _Collector:
    def __init__(self, ev: Evaluator, details: bool = True) -> None:
        self.ev = ev
        self.details = details
        self.systems: list[SystemInfo] = []
        self.bodies: list[BodyInfo] = []
        self.connectors: list[ConnectorInfo] = []
        self.pending_mates: list[tuple[SystemInfo, Obj, str]] = []
        self.owner_objs: dict[str, Obj] = {}
        self.elements = 0
        #: (id(spec), wanted types) -> (spec, may the attribute hold one of them).
        self.may_be: dict[tuple, tuple] = {}
        #: Model types of the systems being expanded, outermost first.
        self.expanding: list = []

    def problem(self, message: str, node: A.Node | None, severity: Severity = Severity.ERROR,
                code: Code = Code.ELEMENT_INVALID, incomplete: bool = False) -> None:
        self.ev.report(message, node, code, severity, incomplete)

    def count(self, n: int) -> None:
        """Count ``n`` more elements against the budget."""
        self.elements += n
        if self.elements > MAX_ELEMENT_INSTANCES:
            root = self.systems[0].obj.type.qname if self.systems else "?"
            raise ResourceLimit(budget_message(f"OpenPLX model '{root}'",
                                               f"more than {MAX_ELEMENT_INSTANCES:,}"))

    def members(self, owner: Obj, wanted: tuple[str, ...]) -> list[tuple[str, Obj]]:
        """Contained instances of owner whose declared type may be one of ``wanted``."""
        out = []
        for name in self._candidates(owner, wanted):
            value = owner.try_get(name)
            if isinstance(value, Obj) and value.path == owner.child_path(name):
                out.append((name, value))
        self.count(len(out))
        return out

    def _first_of(self, value: Obj, qnames: tuple[str, ...]) -> int:
        """The index of the first of ``qnames`` that ``value`` is (-1: none), decided once
        per model and extra traits."""
        key = (qnames, value.type, *value.extra_traits)
        found = self.may_be.get(key)
        if found is None:
            found = self.may_be[key] = next(
                (i for i, q in enumerate(qnames) if value.is_a(q)), -1)
        return found

    def _candidates(self, owner: Obj, wanted: tuple[str, ...]) -> list[str]:
        """Attributes of ``owner`` whose declared type may be one of ``wanted``, in order.

        Decided once per declaration (template specs are shared), and for an unmodified
        instance once per spec table: every instance of a model shares its table."""
        specs = owner.specs
        shared = not owner.is_modified()
        if shared:
            known_table = self.may_be.get((id(specs), wanted))
            if known_table is not None and known_table[0] is specs:
                return known_table[1]
        names = []
        may_be = self.may_be
        for name, spec in specs.items():
            key = (id(spec), wanted)
            known = may_be.get(key)
            if known is not None and known[0] is spec:
                hit = known[1]
            else:
                ti = self.ev.spec_type(spec)
                if ti.kind == "model" and ti.model is not None:
                    hit = any(ti.model.is_a(w) for w in wanted)
                else:
                    hit = ti.kind in ("union", "unknown")
                may_be[key] = (spec, hit)
            if hit:
                names.append(name)
        if shared:
            self.may_be[(id(specs), wanted)] = (specs, names)
        return names

    def system(self, obj: Obj, parent: SystemInfo | None, name: str = "") -> SystemInfo:
        declared, sites = self.declared(obj, "local_transform", obj)
        info = SystemInfo(obj.path or name, name or (obj.path or ""), obj,
                          parent.path if parent else None, declared, sites,
                          where=_where(parent.obj if parent else None, name, obj))
        self.systems.append(info)
        self.owner_objs[info.path] = obj
        self.expanding.append(obj.type)
        for attr, value in self.members(obj, _SYSTEM_MEMBERS):
            kind = self._first_of(value, _SYSTEM_MEMBERS)
            if kind == 0:  # a system
                if value.type in self.expanding:
                    # A system whose member is (a subtype chain back to) itself would nest
                    # forever; report it where the member is declared.
                    self.problem(recursion_message(value), decl_of(obj, attr))
                    continue
                if len(self.expanding) > MAX_SYSTEM_DEPTH:
                    self.problem(f"system '{value.path}' is nested more than "
                                 f"{MAX_SYSTEM_DEPTH} systems deep; not expanded",
                                 _decl_of(obj, attr))
                    continue
                info.systems.append(self.system(value, info, attr))
            elif kind == 1:
                info.bodies.append(self.body(value, info, attr))
            elif kind == 2:
                info.connectors.append(self.connector(value, attr, info.path))
            elif kind == 3:
                self.pending_mates.append((info, value, attr))
        self.expanding.pop()
        ref = obj.try_get("reference_body") if obj.has("reference_body") else None
        if isinstance(ref, Obj):
            info.reference_body = ref.path
        return info

    def body(self, obj: Obj, system: SystemInfo, name: str) -> BodyInfo:
        # The bodies with one template key (see Obj.template_key) all declare a
        # local_transform or none do: when the first did not, the others are not asked.
        key = ("no local_transform", obj.template_key())
        if key[1] is not None and key in self.may_be:
            declared, sites = None, []
        else:
            kin = obj.try_get("kinematics")
            declared, sites = (self.declared(kin, "local_transform", obj)
                               if isinstance(kin, Obj) else (None, []))
            if key[1] is not None and declared is None and not sites:
                self.may_be[key] = True
        info = BodyInfo(obj.path or name, name, obj, system.path, declared, sites,
                        where=_where(system.obj, name, obj))
        self.bodies.append(info)
        self.owner_objs[info.path] = obj
        if self.details:
            self.inertia(info)
        wanted = (T_CONNECTOR, T_CONTACT, T_VISUAL) if self.details else (T_CONNECTOR,)
        for attr, value in self.members(obj, wanted):
            kind = self._first_of(value, _BODY_MEMBERS)
            if kind == 0:  # a connector
                info.connectors.append(self.connector(value, attr, info.path))
            elif kind > 0:  # a contact or visual geometry
                g = self.geometry(value, attr)
                if g is not None:
                    g.where = _where(obj, attr, value)
                    info.geometries.append(g)
        return info

    def declared(self, holder: Obj, attr: str, owner: Obj) -> tuple[Pose | None, list[Mod]]:
        """The declared local transform (None if never assigned) and where it is set."""
        sites = holder.assignments(attr)
        if not sites:
            return None, []
        return self.pose(holder, attr, owner), sites

    def pose(self, holder: Obj, attr: str, owner: Obj) -> Pose:
        """The transform ``holder.attr`` of ``owner``; a value that does not make a pose (a
        zero quaternion, an infinity) is reported where it is assigned and gives identity."""
        value = holder.try_get(attr)
        try:
            X = m.pose_of(self.ev.affine(value))
        except (EvalError, ZeroDivisionError) as exc:
            if not isinstance(value, Opaque):
                self.problem(f"cannot evaluate the {attr} of '{owner.path}': "
                             f"{getattr(exc, 'message', exc)}", _assignment_node(holder, attr),
                             incomplete=getattr(exc, "incomplete", False))
            return IDENTITY
        if not all(math.isfinite(v) for v in (*X.p, *X.R)):
            self.problem(f"the {attr} of '{owner.path}' is not finite",
                         _assignment_node(holder, attr))
            return IDENTITY
        return X

    def inertia(self, info: BodyInfo) -> None:
        ev, obj = self.ev, info.obj
        inertia = obj.try_get("inertia")
        if isinstance(inertia, Obj):
            mass = inertia.try_get("mass")
            if isinstance(mass, (int, float)) and not isinstance(mass, bool):
                info.mass = float(mass)
            tensor = inertia.try_get("tensor")
            try:
                info.tensor = ev.matrix3(tensor) if isinstance(tensor, Obj) else None
            except EvalError:
                info.tensor = None
        kin = obj.try_get("kinematics")
        if isinstance(kin, Obj) and kin.has("local_cm_transform"):
            info.X_BCm = self.pose(kin, "local_cm_transform", obj)
        dyn = obj.try_get("is_dynamic", True)
        info.is_dynamic = dyn if isinstance(dyn, bool) else True

    def connector(self, obj: Obj, name: str, owner: str) -> ConnectorInfo:
        ev = self.ev
        X_OC, main, normal = connector_frame(ev, obj)
        info = ConnectorInfo(obj.path or name, name, obj, owner, X_OC, main, normal,
                             where=_where(self.owner_objs.get(owner), name, obj))
        if self._first_of(obj, _REDIRECTED) == 0:
            parent = obj.try_get("redirected_parent")
            if isinstance(parent, Obj):
                info.redirected_parent = parent.path
        info.adaptive = self._first_of(obj, _ADAPTIVE) == 0
        self.connectors.append(info)
        return info

    def geometry(self, obj: Obj, name: str) -> GeometryInfo | None:
        ev = self.ev
        shape = next((s for s in _GEOMETRY_SHAPES
                      if obj.is_a(f"Physics3D.Geometries.{s}") or obj.is_a(f"Visuals.Geometries.{s}")),
                     "")
        params: dict[str, Any] = {}
        try:
            if shape == "Box":
                params["size"] = ev.vec3(obj.get("size"))
            elif shape == "Sphere":
                params["radius"] = ev.number(obj.get("radius"), "radius")
            elif shape in ("Cylinder", "Capsule"):
                params["radius"] = ev.number(obj.get("radius"), "radius")
                params["height"] = ev.number(obj.get("height"), "height")
            elif shape == "ExternalTriMeshGeometry":
                params["path"] = obj.get("path")
                params["scale"] = ev.vec3(obj.get("scale"))
            elif shape in ("ConvexMesh", "TriMesh"):
                params["vertices"] = [ev.vec3(v) for v in obj.get("vertices") or []]
                if shape == "TriMesh":
                    params["indices"] = [int(i) for i in obj.get("indices") or []]
        except (EvalError, TypeError) as exc:
            spec = obj.specs.get("size") or obj.specs.get("radius")
            self.problem(f"incomplete geometry '{obj.path}': {getattr(exc, 'message', exc)}",
                         spec.decl if spec else None, Severity.WARNING,
                         incomplete=getattr(exc, "incomplete", False))
        X = self.pose(obj, "local_transform", obj) if obj.has("local_transform") \
            else IDENTITY
        return GeometryInfo(obj.path or name, name, obj, obj.is_a(T_CONTACT), shape, params, X,
                            obj.assignments("local_transform"))

    def mate(self, obj: Obj, name: str, system: SystemInfo, asm: Assembly, known: set[str]
             ) -> MateInfo | None:
        kind_key = ("mate kind", obj.type, *obj.extra_traits)
        kind = self.may_be.get(kind_key, False)
        if kind is False:  # a model's mate kind, looked up once
            kind = self.may_be[kind_key] = next(
                (k for k, q in MATE_TYPES.items() if obj.is_a(q)), None)
        decl = _decl_of(system.obj, name)
        if kind is None:
            self.problem(f"SNAP does not handle the mate type '{obj.type.qname}' of "
                         f"'{obj.path}'; it is ignored", decl, Severity.WARNING)
            return None
        conns = obj.try_get("connectors")

        def node() -> A.Node | None:  # where a problem with the connectors is reported
            return _assignment_node(obj, "connectors") or decl

        if isinstance(conns, Opaque) or (isinstance(conns, list)
                                          and any(isinstance(c, Opaque) for c in conns)):
            return None  # the reason (an unknown name or type) is reported where it is written
        if not isinstance(conns, list) or len(conns) != 2:
            n = len(conns) if isinstance(conns, list) else 0
            self.problem(f"mate '{obj.path}' needs exactly two connectors, it has {n}", node())
            return None
        paths = []
        for c in conns:
            if not isinstance(c, Obj) or not c.is_a(T_CONNECTOR):
                self.problem(f"a connector of mate '{obj.path}' is not a MateConnector",
                             node())
                return None
            if c.path not in known:
                if c.type.is_const:
                    # A const connector (Physics3D.Interactions.World) is fixed at the origin.
                    info = self.connector(c, c.path or c.type.qname, asm.root.path)
                    known.add(info.path)
                elif not self.under_unknown_type(asm.root.obj, c.path):
                    self.problem(f"connector '{c.path}' of mate '{obj.path}' is not part of "
                                 f"'{asm.root.path}'", node())
                    return None
                else:
                    return None  # its owner's model has an unknown base: reported there
            paths.append(c.path)

        real = self._real
        snap = obj.try_get("enable_snap", True)
        return MateInfo(obj.path or name, kind, (paths[0], paths[1]),
                        real(obj, "initial_angle"), real(obj, "initial_position"),
                        real(obj, "initial_distance"), snap if isinstance(snap, bool) else True,
                        decl.file if decl else "", decl.line if decl else 0,
                        name=name, obj=obj, system=system.path)

    def _real(self, obj: Obj, attr: str) -> float:
        """A mate's initial value ``attr`` (0 when it has none, or none that is a number)."""
        v = obj.try_get(attr, 0.0) if attr in obj.specs else 0.0
        v = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0
        if not math.isfinite(v):
            self.problem(f"{attr} of mate '{obj.path}' is not finite; 0 is used",
                         _assignment_node(obj, attr))
            return 0.0
        return v


    def under_unknown_type(self, root: Obj, path: str | None) -> bool:
        """Is the instance at ``path`` inside an instance of ``root`` whose model extends a
        type that does not resolve (so it is neither a body nor a system, and that is
        already reported at the unknown name)?"""
        if not path or not root.path or not path.startswith(root.path + "."):
            return False
        obj: Any = root
        for part in path[len(root.path) + 1:].split(".")[:-1]:
            obj = obj.try_get(part) if isinstance(obj, Obj) and obj.has(part) else None
            if not isinstance(obj, Obj):
                return False
            if any(t.decl.base is not None and t.base is None and self._unresolved(t)
                   for t in obj.type.chain()):
                return True
        return False

    def _unresolved(self, t) -> bool:
        b = t.decl.base
        if len(b.options) != 1 or b.options[0].array:
            return False
        return self.ev.resolve_type_name(b.options[0].name, t.ctx, report=False) is None


def connector_frame(ev: Evaluator, obj: Obj) -> tuple[Pose, tuple, tuple]:
    """X_OC of a MateConnector: position, z = main_axis, x = normal projected.

    A connector nobody modified (``start is MateConnector``) has its model's frame, and
    one built from the statements of an unmodified model (the ``end`` connector declared
    with a block in ``Link``) has the same frame in every instance of that model: such a
    frame is worked out once (see :meth:`Obj.template_key`)."""
    origin = obj.template_key()
    if origin is not None:
        key = ("connector frame", ev.lenient, origin)
        hit = ev.memo.get(key)
        if hit is None:
            hit = ev.memo[key] = _connector_frame(ev, obj)
        return hit
    return _connector_frame(ev, obj)


def _connector_frame(ev: Evaluator, obj: Obj) -> tuple[Pose, tuple, tuple]:
    try:
        position = ev.vec3(obj.get("position"))
        main = ev.vec3(obj.get("main_axis"))
        normal = ev.vec3(obj.get("normal"))
    except EvalError as exc:
        ev.report(f"cannot evaluate mate connector '{obj.path}': {exc.message}",
                  _decl_node(obj), Code.ELEMENT_INVALID, incomplete=exc.incomplete)
        return IDENTITY, (0.0, 0.0, 1.0), (1.0, 0.0, 0.0)
    for attr, v in (("position", position), ("main_axis", main), ("normal", normal)):
        if not all(math.isfinite(c) for c in v):
            ev.report(f"{attr} of mate connector '{obj.path}' is not finite",
                      _assignment_node(obj, attr) or _decl_node(obj))
            return IDENTITY, (0.0, 0.0, 1.0), (1.0, 0.0, 0.0)
    if m.length(main) < 1e-12:
        ev.report(f"main_axis of mate connector '{obj.path}' is zero",
                  _assignment_node(obj, "main_axis") or _decl_node(obj))
        return Pose(p=position), main, normal
    (x, y, z), ok = m.frame_from_axes(main, normal)
    if not ok:
        ev.report(f"normal of mate connector '{obj.path}' is parallel to its main_axis; "
                  "using main_axis.get_orthogonal_unit_vector() instead",
                  _assignment_node(obj, "normal") or _decl_node(obj), Code.ELEMENT_INVALID,
                  Severity.WARNING)
    R = (x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2])
    return Pose(R, position), main, normal


def _where(owner: Obj | None, name: str, obj: Obj) -> tuple[str, int] | None:
    """Where an instance is declared: its attribute in ``owner``, else its model."""
    node = _decl_of(owner, name) if owner is not None else None
    if node is None:
        node = obj.type.decl
    return (node.file, node.line) if node is not None else None


def decl_of(owner: Obj, name: str) -> A.Stmt | None:
    """The statement that declares attribute ``name`` of ``owner``."""
    spec = owner.specs.get(name)
    return spec.decl if spec is not None else None


_decl_of = decl_of


def recursion_message(value: Obj) -> str:
    """The problem of an instance whose model contains itself."""
    kind = "system" if value.is_a(T_SYSTEM) else "model"
    return (f"{kind} '{value.path}' contains itself (recursive model '{value.type.qname}'); "
            "not expanded")


def _decl_node(obj: Obj) -> A.Node | None:
    return obj.type.decl


def _assignment_node(obj: Obj, attr: str) -> A.Node | None:
    spec = obj.specs.get(attr)
    if spec is None:
        return None
    for mod in reversed(spec.mods):
        if mod.stmt is not None and mod.kind in ("value", "block"):
            return expr_start(mod.expr) if mod.expr is not None else mod.stmt
    return spec.decl
