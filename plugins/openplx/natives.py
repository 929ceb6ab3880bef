"""Python implementations of the functions and operators the bundles only declare.

``NATIVES[(type, name)](evaluator, self_or_None, args)`` implements ``fn``/``static fn``
declarations of ``Math`` and ``Physics3D``; ``OPERATORS[(op, left_kind, right_kind)]``
the top-level ``operator`` declarations (``neg`` is unary minus).  The maths lives in
:mod:`.mathlib`; this module only converts between instances and tuples.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from . import mathlib as m
from .evaluator import EvalError

__all__ = ["NATIVES", "OPERATORS"]

NATIVES: dict[tuple[str, str], Callable] = {}
OPERATORS: dict[tuple[str, str, str | None], Callable] = {}


def _arity(args: list, n: int, name: str) -> None:
    if len(args) != n:
        raise EvalError(f"{name} takes {n} argument{'s' if n != 1 else ''}, got {len(args)}")


def _static(qname: str, name: str, n: int):
    def deco(f):
        def wrapper(ev, self_obj, args):
            _arity(args, n, name)
            return f(ev, *args)
        NATIVES[(qname, name)] = wrapper
        return f
    return deco


def _method(qname: str, name: str, n: int):
    def deco(f):
        def wrapper(ev, self_obj, args):
            if self_obj is None:
                raise EvalError(f"{name}() is a method: call it on a {qname} value")
            _arity(args, n, name)
            return f(ev, self_obj, *args)
        NATIVES[(qname, name)] = wrapper
        return f
    return deco


# -- Math.Vec3 ----------------------------------------------------------------------
V3 = "Math.Vec3"
for _name, _axis in (("X_AXIS", m.X_AXIS), ("Y_AXIS", m.Y_AXIS), ("Z_AXIS", m.Z_AXIS)):
    _static(V3, _name, 0)(lambda ev, _a=_axis: ev.new_vec3(_a))

_static(V3, "from_xyz", 3)(lambda ev, x, y, z: ev.new_vec3(
    (ev.number(x, "x"), ev.number(y, "y"), ev.number(z, "z"))))
_method(V3, "length", 0)(lambda ev, s: m.length(ev.vec3(s)))
_method(V3, "normal", 0)(lambda ev, s: ev.new_vec3(m.normal(ev.vec3(s))))
_method(V3, "dot", 1)(lambda ev, s, o: m.dot(ev.vec3(s), ev.vec3(o)))
_method(V3, "cross", 1)(lambda ev, s, o: ev.new_vec3(m.cross(ev.vec3(s), ev.vec3(o))))
_method(V3, "get_orthogonal_unit_vector", 0)(
    lambda ev, s: ev.new_vec3(m.orthogonal_unit_vector(ev.vec3(s))))
_static(V3, "angle_between_vectors", 3)(
    lambda ev, a, b, r: m.angle_between_vectors(ev.vec3(a), ev.vec3(b), ev.vec3(r)))

# -- Math.Vec2 ----------------------------------------------------------------------
V2 = "Math.Vec2"
_static(V2, "X_AXIS", 0)(lambda ev: ev.new_vec2((1.0, 0.0)))
_static(V2, "Y_AXIS", 0)(lambda ev: ev.new_vec2((0.0, 1.0)))
_static(V2, "from_xy", 2)(lambda ev, x, y: ev.new_vec2((ev.number(x), ev.number(y))))
_method(V2, "length", 0)(lambda ev, s: m.length(ev.vec2(s)))
_method(V2, "normal", 0)(lambda ev, s: ev.new_vec2(m.normal(ev.vec2(s))))
_method(V2, "dot", 1)(lambda ev, s, o: m.dot(ev.vec2(s), ev.vec2(o)))

# -- Math.Quat ----------------------------------------------------------------------
Q = "Math.Quat"
_method(Q, "rotate", 1)(lambda ev, s, v: ev.new_vec3(m.q_rotate(ev.quat(s), ev.vec3(v))))
_method(Q, "conj", 0)(lambda ev, s: ev.new_quat(m.q_conj(ev.quat(s))))
_method(Q, "inverse", 0)(lambda ev, s: ev.new_quat(m.q_inverse(ev.quat(s))))
_static(Q, "angle_axis", 2)(
    lambda ev, a, axis: ev.new_quat(m.q_angle_axis(ev.number(a, "angle"), ev.vec3(axis))))
_static(Q, "from_to", 2)(lambda ev, a, b: ev.new_quat(m.q_from_to(ev.vec3(a), ev.vec3(b))))
_static(Q, "normal", 1)(lambda ev, q: ev.new_quat(m.q_normal(ev.quat(q))))
_static(Q, "from_xyzw", 4)(lambda ev, x, y, z, w: ev.new_quat(
    tuple(ev.number(c) for c in (x, y, z, w))))
for _conv in m.EULER_CONVENTIONS:
    _static(Q, f"from_euler_angles_{_conv}", 3)(
        lambda ev, a, b, c, _c=_conv: ev.new_quat(
            m.q_from_euler(_c, ev.number(a), ev.number(b), ev.number(c))))
    _method(Q, f"to_euler_angles_{_conv}", 0)(
        lambda ev, s, _c=_conv: ev.new_vec3(m.q_to_euler(ev.quat(s), _c)))
_static(Q, "from_euler_angles", 3)(lambda ev, a, b, c: ev.new_quat(
    m.q_from_euler("xyzs", ev.number(a), ev.number(b), ev.number(c))))
_method(Q, "to_euler_angles", 0)(lambda ev, s: ev.new_vec3(m.q_to_euler(ev.quat(s), "xyzs")))

# -- Math.AffineTransform -----------------------------------------------------------
AT = "Math.AffineTransform"
_static(AT, "create", 0)(lambda ev: ev.new_affine(((0.0, 0.0, 0.0), m.IDENTITY_Q)))
_static(AT, "from", 2)(lambda ev, p, r: ev.new_affine((ev.vec3(p), ev.quat(r))))
_static(AT, "from_axes", 3)(lambda ev, z, x, p: ev.new_affine(
    m.a_from_axes(ev.vec3(z), ev.vec3(x), ev.vec3(p))))
_static(AT, "inverse_of", 2)(lambda ev, p, r: ev.new_affine(
    m.a_inverse((ev.vec3(p), ev.quat(r)))))
_method(AT, "inverse", 0)(lambda ev, s: ev.new_affine(m.a_inverse(ev.affine(s))))
_method(AT, "transform_vec3_point", 1)(
    lambda ev, s, v: ev.new_vec3(m.a_transform_point(ev.affine(s), ev.vec3(v))))
_method(AT, "transform_vec3_vector", 1)(
    lambda ev, s, v: ev.new_vec3(m.a_transform_vector(ev.affine(s), ev.vec3(v))))

# -- Math.Matrix3x3 -----------------------------------------------------------------
M3 = "Math.Matrix3x3"
_static(M3, "from_row_major", 9)(lambda ev, *e: ev.new_matrix3([ev.number(x) for x in e]))


def _rows(ev: Any, *rows: Any) -> list[float]:
    out = []
    for r in rows:
        vals = ev.real_list(r)
        if len(vals) != 3:
            raise EvalError("each row/column needs 3 values")
        out.extend(vals)
    return out


_static(M3, "from_rows", 3)(lambda ev, a, b, c: ev.new_matrix3(_rows(ev, a, b, c)))


def _columns(ev: Any, a: Any, b: Any, c: Any) -> Any:
    cols = _rows(ev, a, b, c)
    return ev.new_matrix3([cols[3 * col + row] for row in range(3) for col in range(3)])


_static(M3, "from_columns", 3)(_columns)
_static(M3, "diag", 3)(lambda ev, x, y, z: ev.new_matrix3(
    m.m_diag(ev.number(x), ev.number(y), ev.number(z))))

# -- Math.Line ----------------------------------------------------------------------
_static("Math.Line", "from_points", 2)(
    lambda ev, a, b: ev.make("Math.Line", start=ev.new_vec3(ev.vec3(a)),
                             end=ev.new_vec3(ev.vec3(b))))
_method("Math.Line", "length", 0)(
    lambda ev, s: m.length(m.sub(ev.vec3(s.get("end")), ev.vec3(s.get("start")))))

# -- Math.Functions -----------------------------------------------------------------


def _function(name: str, f: Callable) -> None:
    list_args = name in ("mean", "median", "harmonic_mean", "min", "max", "sum")

    def wrapper(ev, self_obj, args):
        if list_args:
            _arity(args, 1, name)
            vals = ev.real_list(args[0])
            if not vals and name != "sum":
                raise EvalError(f"{name}() of an empty array")
            return f(vals)
        return f(*[ev.number(a) for a in args])
    NATIVES[("Math.Functions", name)] = wrapper


for _name, _f in m.FUNCTIONS.items():
    _function(_name, _f)

# -- Physics3D ----------------------------------------------------------------------


def _symmetric_tensor(ev: Any, diag: Any, e01: Any, e02: Any, e12: Any) -> Any:
    d = ev.vec3(diag)
    a, b, c = ev.number(e01), ev.number(e02), ev.number(e12)
    return ev.new_matrix3((d[0], a, b, a, d[1], c, b, c, d[2]))


_static("Physics3D.Bodies.Inertia", "symmetric_tensor", 4)(_symmetric_tensor)

# -- operators ----------------------------------------------------------------------


def _op(op: str, a: str, b: str | None, f: Callable) -> None:
    OPERATORS[(op, a, b)] = f


def _div(x: float, y: float) -> float:
    if y == 0:
        raise ZeroDivisionError
    return x / y


def _bounded(v: float | int) -> float | int:
    """An integer result past 64 bits becomes a Real (infinite past the float range): OpenPLX
    integers are 64-bit, and an unbounded Python int grows with every product of a
    hostile chain until printing or converting it fails."""
    if type(v) is int and v.bit_length() > 64:
        try:
            return float(v)
        except OverflowError:
            return math.inf if v > 0 else -math.inf
    return v


_op("+", "num", "num", lambda ev, a, b: _bounded(a + b))
_op("-", "num", "num", lambda ev, a, b: _bounded(a - b))
_op("*", "num", "num", lambda ev, a, b: _bounded(a * b))
_op("/", "num", "num", lambda ev, a, b: _div(a, b))
_op("neg", "num", None, lambda ev, a, b: _bounded(-a))

for _kind, _get, _new in (("Math.Vec3", "vec3", "new_vec3"), ("Math.Vec2", "vec2", "new_vec2")):
    def _bind(get: str, new: str, kind: str) -> None:
        g = lambda ev, x: getattr(ev, get)(x)          # noqa: E731
        n = lambda ev, x: getattr(ev, new)(x)          # noqa: E731
        _op("+", kind, kind, lambda ev, a, b: n(ev, m.add(g(ev, a), g(ev, b))))
        _op("-", kind, kind, lambda ev, a, b: n(ev, m.sub(g(ev, a), g(ev, b))))
        _op("*", kind, "num", lambda ev, a, b: n(ev, m.scale(g(ev, a), b)))
        _op("*", "num", kind, lambda ev, a, b: n(ev, m.scale(g(ev, b), a)))
        _op("*", kind, kind, lambda ev, a, b: m.dot(g(ev, a), g(ev, b)))
        _op("/", kind, "num", lambda ev, a, b: n(ev, m.scale(g(ev, a), _div(1.0, b))))
        _op("neg", kind, None, lambda ev, a, b: n(ev, m.scale(g(ev, a), -1.0)))
    _bind(_get, _new, _kind)

_op("*", Q, Q, lambda ev, a, b: ev.new_quat(m.q_mul(ev.quat(a), ev.quat(b))))
_op("*", Q, "num", lambda ev, a, b: ev.new_quat(m.scale(ev.quat(a), b)))
_op("*", "num", Q, lambda ev, a, b: ev.new_quat(m.scale(ev.quat(b), a)))
_op("/", Q, "num", lambda ev, a, b: ev.new_quat(m.scale(ev.quat(a), _div(1.0, b))))
_op("/", Q, Q, lambda ev, a, b: ev.new_quat(m.q_mul(ev.quat(a), m.q_inverse(ev.quat(b)))))
_op("+", Q, Q, lambda ev, a, b: ev.new_quat(m.add(ev.quat(a), ev.quat(b))))
_op("-", Q, Q, lambda ev, a, b: ev.new_quat(m.sub(ev.quat(a), ev.quat(b))))
_op("neg", Q, None, lambda ev, a, b: ev.new_quat(m.scale(ev.quat(a), -1.0)))
_op("*", AT, AT, lambda ev, a, b: ev.new_affine(m.a_mul(ev.affine(a), ev.affine(b))))
_op("+", M3, M3, lambda ev, a, b: ev.new_matrix3(m.m_add(ev.matrix3(a), ev.matrix3(b))))
_op("-", M3, M3, lambda ev, a, b: ev.new_matrix3(m.m_sub(ev.matrix3(a), ev.matrix3(b))))
_op("*", M3, M3, lambda ev, a, b: ev.new_matrix3(m.m_mul(ev.matrix3(a), ev.matrix3(b))))
_op("*", M3, "Math.Vec3", lambda ev, a, b: ev.new_vec3(m.m_mul_vec(ev.matrix3(a), ev.vec3(b))))
