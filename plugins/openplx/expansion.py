"""How many elements an OpenPLX model expands to, counted without building it.

A few lines can describe an enormous assembly: a system with 8 subsystems of a type that
has 8 subsystems of a type that has 8 ... is 8^n systems.  Building such a model would
exhaust memory long before anything could be reported, so each model is first *counted*
from the types' templates: an instance of a model is 1 element if it is one (system,
body, mate connector, mate, geometry: what :mod:`snapframe.core.limits` calls elements)
plus what every attribute it contains expands to.  The count is memoized per type (and
per block written on a declaration), so it costs one visit per type, however large the
expansion; a model past :data:`snapframe.core.limits.MAX_ELEMENT_INSTANCES` is refused
with ``RESOURCE_LIMIT`` before a single instance is built.

The count follows what the evaluator would build: an attribute of a model type holds a
contained instance unless it is assigned a whole value (a reference, or a function
result) or is an unset ``optional``/``reference``; a block written on a declaration adds
the attributes it declares.  A type that contains itself is counted once (the
recursion is reported where the model is expanded).
"""

from __future__ import annotations

from typing import Any, Iterator

from snapframe.core.diagnostics import Code
from snapframe.core.limits import MAX_ELEMENT_INSTANCES, budget_message

from . import ast as A
from .errors import OpenPlxProblem
from .evaluator import Evaluator, ModelType, TypeInfo

__all__ = ["ELEMENT_TYPES", "element_count", "budget_problem", "describe_count"]

#: The Physics3D types whose instances count against the element budget.
ELEMENT_TYPES = ("Physics3D.System", "Physics3D.Bodies.Body",
                 "Physics3D.Interactions.MateConnector", "Physics3D.Interactions.Mate",
                 "Physics3D.Geometries.ContactGeometry", "Visuals.Geometries.Geometry")

#: Counts are exact up to here; beyond it they are only "more than".
_SATURATION = 10 ** 15

#: A node of the expansion: a type, its extra traits and the blocks written on its
#: declaration (statements that may declare more attributes in this one instance), each
#: with the file context its names resolve in.
_Node = tuple[ModelType, tuple[ModelType, ...], tuple[tuple[A.Stmt, Any], ...]]


def is_element(t: ModelType, traits: tuple[ModelType, ...] = ()) -> bool:
    """Is an instance of ``t`` (with ``traits``) one of the budget's elements?"""
    return any(t.is_a(q) or any(tr.is_a(q) for tr in traits) for q in ELEMENT_TYPES)


def element_count(ev: Evaluator, t: ModelType) -> int:
    """Elements an instance of ``t`` expands to (saturating at 10^15)."""
    return _count(ev, (t, (), ()), ev.expansion_counts)


def describe_count(count: int) -> str:
    """A count as ``budget_message`` prints it."""
    return f"{count:,}" if count < _SATURATION else f"more than {_SATURATION:,}"


def budget_problem(ev: Evaluator, t: ModelType, node: A.Node) -> OpenPlxProblem | None:
    """The ``RESOURCE_LIMIT`` problem for a model past the element budget, or None."""
    count = element_count(ev, t)
    if count <= MAX_ELEMENT_INSTANCES:
        return None
    message = budget_message(f"OpenPLX model '{t.qname}'", describe_count(count))
    return OpenPlxProblem(message, node.file, node.line, node.col, Code.RESOURCE_LIMIT)


def _count(ev: Evaluator, root: _Node, memo: dict[Any, int]) -> int:
    """Post-order walk of the expansion without recursion (chains may be thousands deep).

    Each node's count is a formula over other nodes (:func:`_formula`); a node met again
    while its formula is being worked out is a type inside itself and counts 0 there."""
    key = _key(root)
    if key in memo:
        return memo[key]
    on_stack: set[Any] = set()
    stack: list[tuple[_Node, tuple | None]] = [(root, None)]
    while stack:
        node, formula = stack.pop()
        k = _key(node)
        if formula is None:
            if k in memo or k in on_stack:
                continue
            on_stack.add(k)
            formula = _formula(ev, node)
            stack.append((node, formula))
            # Declaration order (names are resolved, and reported, as they are reached).
            stack.extend((dep, None) for _, dep in reversed(formula[1])
                         if _key(dep) not in memo)
            continue
        memo[k] = _evaluate(formula, memo)
        on_stack.discard(k)
    return memo[key]


def _evaluate(formula: tuple, memo: dict[Any, int]) -> int:
    """The sum a formula stands for; saturated operands make it saturated (an overridden
    part of an astronomically large parent is not subtracted exactly)."""
    total, terms = formula
    for coef, dep in terms:
        value = memo.get(_key(dep), 0)
        if value >= _SATURATION:
            return _SATURATION
        total += coef * value
    return max(0, min(total, _SATURATION))


def _key(node: _Node) -> Any:
    t, traits, blocks = node
    if not blocks:
        return node  # (t, traits, ()): already its own key
    return (t, traits, tuple(id(stmt) for stmt, _ in blocks))


def _formula(ev: Evaluator, node: _Node) -> tuple[int, list[tuple[int, _Node]]]:
    """``(constant, [(coefficient, node)])`` whose sum is what ``node`` expands to.

    A node with blocks is the plain node plus what the blocks declare.  A plain node is
    its parent template's count, minus what the attributes its own statements change
    contributed there, plus what they contribute now: linear in the statements, however
    long the chain of bases."""
    t, traits, blocks = node
    if blocks:
        terms = [(1, (t, traits, ()))]
        for stmt, ctx in blocks:
            terms.extend((1, child) for child in _declared_in(ev, stmt, ctx))
        return 0, terms
    own = 1 if is_element(t, traits) else 0
    parent, changed, replaced = ev.template_changes(t, traits)
    if parent is None:  # built from nothing: every spec is its own
        children = (_spec_child(ev, spec) for spec in changed.values())
        return own, [(1, c) for c in children if c is not None]
    terms: list[tuple[int, _Node]] = [(1, (parent[0], parent[1], ()))]
    for name, spec in changed.items():
        before = replaced.get(name)
        old = _spec_child(ev, before) if before is not None else None
        new = _spec_child(ev, spec)
        if old is not None:
            terms.append((-1, old))
        if new is not None:
            terms.append((1, new))
    return own - (1 if is_element(*parent) else 0), terms


def _spec_child(ev: Evaluator, spec: Any) -> _Node | None:
    return _contained(ev, ev.spec_type(spec), spec.mods, spec.optional or spec.reference)


def _contained(ev: Evaluator, ti: TypeInfo, mods: list, optional: bool) -> _Node | None:
    if ti.kind != "model" or ti.model is None or ti.model.is_trait:
        return None
    whole = [m for m in mods if not m.path and m.kind in ("value", "const")]
    if whole or (optional and not mods):
        return None  # a reference or a computed value, not a contained instance
    # A block that declares no attribute (``connectors: [...]`` under a mate) adds nothing
    # to the count: the node is the plain type's, counted once for all such instances.
    blocks = tuple((m.stmt, m.ctx) for m in mods if not m.path and m.kind == "block"
                   and m.stmt is not None and _may_declare(m.stmt))
    return (ti.model, tuple(ti.traits), blocks)


def _may_declare(stmt: A.Stmt) -> bool:
    """Does the block of ``stmt`` hold a statement :func:`_declared_in` looks at?"""
    todo = list(stmt.children)
    while todo:
        s = todo.pop()
        if isinstance(s, A.AttrDecl) and s.value is None:
            return True
        if isinstance(s, A.Assign) and s.value is None:
            todo.extend(s.children)
    return False


def _declared_in(ev: Evaluator, stmt: A.Stmt, ctx: Any) -> Iterator[_Node]:
    """Instances that the statements of a block declare (in nested blocks too)."""
    todo = list(reversed(stmt.children))  # popped in declaration order
    while todo:
        s = todo.pop()
        if isinstance(s, A.AttrDecl) and s.value is None:
            ti = ev.peek_type(s.type, ctx)
            if ti.kind == "model" and ti.model is not None and not ti.model.is_trait:
                yield (ti.model, tuple(ti.traits), ((s, ctx),) if s.has_block else ())
        elif isinstance(s, A.Assign) and s.value is None:
            todo.extend(reversed(s.children))
