"""Evaluate OpenPLX models into object trees, lazily.

An :class:`Obj` is an instance of a model.  Building one only collects, per attribute,
the ordered list of *modifiers* that apply to it (the declaration's default, ``becomes``,
assignments from derived models, traits and nested override blocks, dotted paths);
values are computed on first access, so a Hinge's dozens of dissipation sub-models cost
nothing unless something reads them.  The last whole-value assignment wins; overrides of
parts written after it (``position.z: 1``) are applied on top of that value.

Expressions are evaluated in the scope of the model whose declaration they are written
in (the "outermost model": ``x: x`` inside ``position:`` reads the connector's ``x``),
then the object being modified, then namespaces.  Assigning an existing instance makes a
reference (``connectors: [a.mc, b.mc]`` points at the very objects in the tree); every
contained instance knows its dotted ``path``.

Nothing here raises for bad input: problems are collected in :attr:`Evaluator.problems`
and the offending value becomes :data:`OPAQUE`-like :class:`Opaque`.
"""

from __future__ import annotations

from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from snapframe.core.diagnostics import Code, Severity

from . import ast as A
from .errors import OpenPlxProblem
from .workspace import (ATTRIBUTE_RENAMES, PRIMITIVES, FileContext, GlobalSymbol, ModelSymbol,
                        NamespaceRef, Workspace, renamed_type, safe_resolve, snake_case)

__all__ = ["Evaluator", "Obj", "Opaque", "UNSET", "TypeValue", "ModelType", "TypeInfo", "Mod",
           "EvalError", "is_missing"]


class _Unset:
    """The value of an attribute that was declared without a value."""

    _instance = None

    def __new__(cls) -> "_Unset":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET = _Unset()

#: Attribute values one evaluation may need at the same time (a reference chain
#: ``x0: x1``, ``x1: x2``, ... or nested instances).  Bundles need fewer than 30.
MAX_VALUE_DEPTH = 100


@dataclass(frozen=True)
class Opaque:
    """A value Snapframe does not compute (unknown model, runtime-only function, error)."""

    reason: str = ""

    def __repr__(self) -> str:
        return f"Opaque({self.reason})"


class EvalError(Exception):
    """Raised inside the evaluator and turned into a problem at the nearest node.

    ``incomplete``: the value that could not be used is missing (an attribute nobody
    assigned) or unknown (an earlier problem): the model is incomplete here rather than
    wrong, as the models of a library are until someone uses them.
    """

    def __init__(self, message: str, node: A.Node | None = None,
                 code: Code = Code.ELEMENT_INVALID, incomplete: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.node = node
        self.code = code
        self.incomplete = incomplete


def is_missing(value: Any) -> bool:
    """A value that is not there: unassigned, an unset optional, or unknown (Opaque)."""
    return value is UNSET or value is None or isinstance(value, Opaque)


# -- types --------------------------------------------------------------------------


class ModelType:
    """A resolved model or trait declaration."""

    def __init__(self, ev: "Evaluator", sym: ModelSymbol) -> None:
        self.ev = ev
        self.sym = sym
        self.qname = sym.qname
        self.decl = sym.decl
        self.ctx = sym.ctx
        self._base: "ModelType | None | bool" = False   # False: not resolved yet
        self._ancestry: list[str] | None = None
        self._parent_list: list[ModelType] | None = None
        self._is_a: dict[str, bool] = {}
        self._methods: frozenset[str] | None = None

    @property
    def is_trait(self) -> bool:
        return self.decl.is_trait

    @property
    def is_const(self) -> bool:
        return self.decl.is_const

    @property
    def base(self) -> "ModelType | None":
        """The model this one extends (``is``), or None (also for primitive bases)."""
        if self._base is False:
            self._base = None
            b = self.decl.base
            if b is not None and len(b.options) == 1 and not b.options[0].array:
                t = self.ev.resolve_type_name(b.options[0].name, self.ctx)
                self._base = t if isinstance(t, ModelType) else None
        return self._base  # type: ignore[return-value]

    def inline_traits(self) -> list["ModelType"]:
        """Traits written on the declaration line (``X is Y with T``)."""
        out = []
        if self.decl.base is not None:
            for q in self.decl.base.traits:
                t = self.ev.resolve_type_name(q, self.ctx)
                if isinstance(t, ModelType):
                    out.append(t)
        return out

    def _parents(self) -> list["ModelType"]:
        """Traits used in the body, traits on the declaration line, then the base."""
        if self._parent_list is not None:
            return self._parent_list
        out = []
        for stmt in self.decl.children:
            if isinstance(stmt, A.TraitUse):
                for q in stmt.traits:
                    t = self.ev.resolve_type_name(q, self.ctx)
                    if isinstance(t, ModelType):
                        out.append(t)
        out.extend(self.inline_traits())
        if self.base is not None:
            out.append(self.base)
        self._parent_list = out
        return out

    def ancestry(self) -> list[str]:
        """Qualified names of this type, its bases and all traits mixed in, nearest first
        (a depth-first walk without recursion: a hostile chain of bases may be thousands
        of models long; a cycle of 'is' is cut here and reported by chain()).  Each type
        keeps its own list: use :meth:`is_a` to test membership."""
        if self._ancestry is None:
            names: list[str] = []
            seen: set[str] = set()
            stack: list[ModelType] = [self]
            while stack:
                t = stack.pop()
                if t.qname in seen:
                    continue
                if t is not self and t._ancestry is not None:
                    for n in t._ancestry:  # already walked: its walk, minus what is listed
                        if n not in seen:
                            seen.add(n)
                            names.append(n)
                    continue
                seen.add(t.qname)
                names.append(t.qname)
                stack.extend(reversed(t._parents()))
            self._ancestry = names
        return self._ancestry

    def is_a(self, qname: str) -> bool:
        """Is ``qname`` this type, one of its bases or a trait mixed into one of them?

        Answers are kept per type and name, and computed bottom-up without recursion, so a
        chain of n models answers a question in n steps once (not n per model)."""
        hit = self._is_a.get(qname)
        if hit is not None:
            return hit
        stack: list[tuple[ModelType, bool]] = [(self, False)]
        entered: set[int] = set()
        while stack:
            t, ready = stack.pop()
            if ready:
                t._is_a[qname] = t.qname == qname or any(
                    p._is_a.get(qname, False) for p in t._parents())
                continue
            if qname in t._is_a or id(t) in entered:
                continue  # known, or a cycle of 'is' (reported by chain()): not via here
            entered.add(id(t))
            if t.qname == qname:
                t._is_a[qname] = True
                continue
            stack.append((t, True))
            stack.extend((p, False) for p in t._parents() if qname not in p._is_a)
        return self._is_a[qname]

    def chain(self) -> list["ModelType"]:
        """Base first, this type last (a cycle of ``is`` is cut and reported)."""
        out: list[ModelType] = []
        t: ModelType | None = self
        seen: set[str] = set()
        while t is not None:
            if t.qname in seen:
                self.ev.report(f"'{self.qname}' inherits from itself", self.decl)
                break
            seen.add(t.qname)
            out.append(t)
            t = t.base
        return out[::-1]

    def methods(self) -> frozenset[str]:
        """Names of the ``fn`` declarations of this type and its bases."""
        if self._methods is None:
            pending: list[ModelType] = []
            seen: set[str] = set()
            t: ModelType | None = self
            while t is not None and t._methods is None and t.qname not in seen:
                seen.add(t.qname)
                pending.append(t)
                t = t.base
            names = t._methods if t is not None and t._methods is not None else frozenset()
            for t in reversed(pending):
                own = {s.name for s in t.decl.children if isinstance(s, A.MethodDecl)}
                names = names | own if own else names
                t._methods = names
        return self._methods  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"ModelType({self.qname})"


@dataclass
class TypeInfo:
    """A resolved attribute type."""

    kind: str                              # prim | model | array | union | unknown
    name: str = ""                         # primitive name or printed type
    model: ModelType | None = None
    elem: "TypeInfo | None" = None
    options: list["TypeInfo"] = field(default_factory=list)
    traits: list[ModelType] = field(default_factory=list)

    def __str__(self) -> str:
        if self.kind == "model" and self.model is not None:
            return self.model.qname
        if self.kind == "array" and self.elem is not None:
            return f"{self.elem}[]"
        if self.kind == "union":
            return " or ".join(str(o) for o in self.options)
        return self.name


_UNKNOWN = TypeInfo("unknown", "?")


@dataclass(frozen=True)
class TypeValue:
    """A model type used as a value (``Math.Vec3`` in ``Math.Vec3.from_xyz(...)``)."""

    type: ModelType


@dataclass(frozen=True)
class FuncRef:
    """``Type.fn`` (static) or ``obj.fn`` (method), waiting for its call."""

    type: ModelType
    name: str
    self_obj: "Obj | None" = None


# -- modifiers and specs --------------------------------------------------------------


@dataclass(slots=True)
class Mod:
    """One thing that sets or changes an attribute.

    ``path`` is relative to where the mod is stored: in an attribute's spec, ``()`` means
    the attribute itself.  Kinds: ``value`` (expression), ``const`` (a Python value made
    by a function), ``block`` (the statements of ``stmt.children`` apply to the value),
    ``declare`` / ``becomes`` (a dotted ``a.b is T`` / ``a.b becomes T``).  ``scope`` is the
    instance whose declaration the mod is written in; in a type's template it is the
    placeholder ``_SELF`` ("the instance that owns the spec"), bound when the mod leaves it.
    """

    kind: str
    path: tuple[str, ...]
    stmt: A.Stmt | None = field(default=None, repr=False)
    scope: "Obj | None" = field(default=None, repr=False)
    ctx: FileContext | None = field(default=None, repr=False)
    expr: A.Expr | None = field(default=None, repr=False)
    value: Any = None
    is_default: bool = False

    def shifted(self) -> "Mod":
        return Mod(self.kind, self.path[1:], self.stmt, self.scope, self.ctx, self.expr,
                   self.value, self.is_default)

    def bound(self, obj: "Obj") -> "Mod":
        """This mod with the placeholder scope replaced by ``obj``."""
        if self.scope is not _SELF:
            return self
        return Mod(self.kind, self.path, self.stmt, obj, self.ctx, self.expr, self.value,
                   self.is_default)

    @property
    def is_assignment(self) -> bool:
        """Sets a value (not a declaration default, not a type change)."""
        return self.kind in ("value", "const", "block") and not self.is_default


@dataclass(slots=True)
class Spec:
    """An attribute of an instance: where it was declared, its type and its modifiers.

    Instances share their type's template specs until one is changed (``owner`` is the
    object a spec belongs to; :meth:`Obj._own` copies a spec before changing it)."""

    name: str
    decl: A.Stmt | None
    texpr: A.TypeExpr | None
    tctx: FileContext | None
    optional: bool = False
    reference: bool = False
    mods: list[Mod] = field(default_factory=list)
    _type: TypeInfo | None = None
    owner: Any = field(default=None, repr=False)
    #: The value of a template spec whose value is a literal (``x is Real: 0``): the same
    #: for every instance that shares the spec, so it is computed once.
    literal: Any = field(default=None, repr=False)

    def copy(self, owner: Any = None) -> "Spec":
        return Spec(self.name, self.decl, self.texpr, self.tctx, self.optional, self.reference,
                    list(self.mods), self._type, owner)

    def bound(self, obj: "Obj", owner: Any = None) -> "Spec":
        """A copy whose template modifiers evaluate in ``obj``."""
        return Spec(self.name, self.decl, self.texpr, self.tctx, self.optional, self.reference,
                    [m.bound(obj) for m in self.mods], self._type, owner)


class _SelfScope:
    """Placeholder scope in a type's template: "the instance being built"."""

    def __repr__(self) -> str:
        return "SELF"


_SELF: Any = _SelfScope()
#: The owner of the specs of a finished template: shared, copied by whoever changes one.
_TEMPLATE: Any = object()


# -- instances ----------------------------------------------------------------------


class Obj:
    """An instance of a model.  ``path`` is its dotted place in the tree (None for an
    anonymous value such as a function result).

    Building one is cheap: it shares its type's template specs (copied on write, see
    :meth:`_own`) and holds no reference to itself, so the evaluated tree is not a web of
    cycles for Python's garbage collector to scan."""

    __slots__ = ("ev", "type", "path", "specs", "extra_traits", "_cache", "_traits",
                 "_shared", "_delta", "made", "origin")

    def __init__(self, ev: "Evaluator", mtype: ModelType, path: str | None,
                 mods: list[Mod] | tuple = (), extra_traits: list[ModelType] | tuple = (),
                 *, _blank: bool = False) -> None:
        self.ev = ev
        self.type = mtype
        self.path = path
        self.extra_traits = list(extra_traits)
        self._cache: dict[str, Any] = {}
        self._delta: dict[str, None] | None = None  # a template being built: names it set
        #: For a value a function made (Evaluator.make): the attributes it was given.
        self.made: tuple[tuple[str, Any], ...] | None = None
        #: What this instance's values are a function of, or None (see :meth:`template_key`).
        self.origin: tuple | None = None
        if _blank:
            self.specs: dict[str, Spec] = {}
            self._traits: set[str] | frozenset[str] = set()
            self._shared = False
            return
        # The type's own statements give the same specs for every instance: the template
        # is built once per (type, traits) and shared until this instance changes a spec.
        traits = tuple(self.extra_traits)
        self.specs, self._traits = ev.template(mtype, traits)
        self._shared = True
        for m in mods:
            self.apply(m)
        if self._shared:
            self.origin = (mtype, traits)

    # -- queries --------------------------------------------------------------------
    def is_a(self, qname: str) -> bool:
        known = self.type._is_a.get(qname)  # the type's answers, kept (ModelType.is_a)
        if known is True or (known is False and not self.extra_traits):
            return known
        if self.type.is_a(qname):
            return True
        return any(t.is_a(qname) for t in self.extra_traits)

    def has(self, name: str) -> bool:
        return name in self.specs

    def is_modified(self) -> bool:
        """Has this instance specs of its own (modifiers from where it is declared, or a
        copy with more)?  An unmodified instance has exactly its model's values: every one
        of them depends only on the model's own statements."""
        return not self._shared

    def template_key(self) -> tuple | None:
        """A key shared by the instances whose values are all the same (numbers, strings,
        the structure of contained instances; not their paths), or None.

        An unmodified instance's values depend only on its model (and extra traits): its
        key is ``(model, traits)``.  An instance contained in one that has a key, through
        the attribute ``name``, was built from that one's specs alone: its key is
        ``(container's key, name)``.  So the ``end`` connector of every unmodified ``Link``
        has the key ``((Link, ()), "end")``, wherever the link is."""
        return self.origin

    def names(self) -> list[str]:
        return list(self.specs)

    def get(self, name: str, node: A.Node | None = None) -> Any:
        """The value of an attribute (computed on first access)."""
        cache = self._cache
        if name in cache:
            return cache[name]
        spec = self.specs.get(name)
        if spec is None:
            raise EvalError(f"'{self.type.qname}' has no attribute '{name}'", node)
        if spec.literal is not None and spec.owner is not self:
            cache[name] = value = spec.literal[0]
            return value
        ev = self.ev
        key = (id(self), name)
        if key in ev._busy:
            ev.report(f"circular reference while evaluating '{self.child_path(name)}'",
                      node or spec.decl)
            return Opaque("circular")
        if ev._depth >= MAX_VALUE_DEPTH:
            # x0: x1, x1: x2, ... thousands deep would exhaust Python's recursion.  One
            # report: the rest of such a chain fails for the same reason.
            if ev._too_deep:
                return Opaque("too deep")
            ev._too_deep = True
            raise EvalError(f"'{self.child_path(name)}' is nested too deeply: evaluating it "
                            f"needs more than {MAX_VALUE_DEPTH} attribute values at once",
                            node or spec.decl)
        ev._busy.add(key)
        ev._depth += 1
        try:
            value = self._compute(spec)
        finally:
            ev._depth -= 1
            ev._busy.discard(key)
        cache[name] = value
        return value

    def try_get(self, name: str, default: Any = None) -> Any:
        """Like :meth:`get` but returns ``default`` for a missing attribute or error."""
        if name not in self.specs:
            return default
        try:
            return self.get(name)
        except EvalError as exc:
            self.ev.report_error(exc)
            return default

    def type_of(self, name: str) -> TypeInfo:
        return self.ev.spec_type(self.specs[name])

    def assignments(self, name: str) -> list[Mod]:
        """The modifiers that assign attribute ``name`` or a part of it."""
        spec = self.specs.get(name)
        return [m for m in spec.mods if m.is_assignment] if spec else []

    def child_path(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def __repr__(self) -> str:
        return f"Obj({self.type.qname} at {self.path})"

    # -- copy on write --------------------------------------------------------------
    def _own_specs(self) -> dict[str, Spec]:
        """This instance's own spec table (a copy of the shared template on first write)."""
        if self._shared:
            self.specs = dict(self.specs)
            self._shared = False
            self.origin = None  # its values are no longer its model's alone
        return self.specs

    def _own(self, name: str) -> Spec:
        """The spec ``name``, made this instance's own before it is changed."""
        specs = self._own_specs()
        spec = specs[name]
        if spec.owner is not self:
            spec = specs[name] = spec.copy(self)
            if self._delta is not None:
                self._delta[name] = None
        return spec

    def _own_traits(self) -> set[str]:
        if not isinstance(self._traits, set):
            self._traits = set(self._traits)
        return self._traits

    # -- building -------------------------------------------------------------------
    def _apply_type(self, t: ModelType) -> None:
        for stmt in t.decl.children:
            self._apply_stmt(stmt, _SELF, t.ctx, default=True)
        for trait in t.inline_traits():
            self._apply_trait(trait)

    def _apply_trait(self, trait: ModelType) -> None:
        if trait.qname in self._traits:
            return
        traits = self._own_traits()
        traits.add(trait.qname)
        for t in trait.chain():
            if t is not trait and t.qname in traits:
                continue
            traits.add(t.qname)
            self._apply_type(t)

    def _apply_stmt(self, stmt: A.Stmt, scope: "Obj | None", ctx: FileContext,
                    default: bool = False) -> None:
        if type(stmt) is _Assign:  # (the statements of a block: most are assignments)
            kind = "block" if stmt.value is None else "value"  # type: ignore[attr-defined]
            self.apply(Mod(kind, stmt.path.parts, stmt, scope, ctx,  # type: ignore[attr-defined]
                           stmt.value))  # type: ignore[attr-defined]
            return
        if isinstance(stmt, A.AttrDecl):
            parts = stmt.path.parts
            if len(parts) == 1:
                self._declare(parts[0], stmt, scope, ctx, default)
            else:
                self.apply(Mod("declare", parts, stmt, scope, ctx))
        elif isinstance(stmt, A.Becomes):
            self.apply(Mod("becomes", stmt.path.parts, stmt, scope, ctx))
        elif isinstance(stmt, A.Assign):
            kind = "block" if stmt.value is None else "value"
            self.apply(Mod(kind, stmt.path.parts, stmt, scope, ctx, stmt.value))
        elif isinstance(stmt, A.TraitUse):
            for q in stmt.traits:
                t = self.ev.resolve_type_name(q, ctx, report=True)
                if isinstance(t, ModelType):
                    if not t.is_trait:
                        self.ev.report(f"'{t.qname}' is not a trait", q, severity=Severity.WARNING)
                    self._apply_trait(t)

    def _declare(self, name: str, stmt: A.AttrDecl, scope: "Obj | None", ctx: FileContext,
                 default: bool) -> None:
        spec = Spec(name, stmt, stmt.type, ctx, stmt.optional, stmt.type.reference, owner=self)
        old = self.specs.get(name)
        if old is not None and (not default or old.decl is not stmt):
            # Also in a model's own body: 'local_transform is X' in a System replaces the
            # inherited attribute (and everything that assigned it) without a word otherwise.
            self.ev.report(f"attribute '{name}' is already declared in '{self.type.qname}'; "
                           "use 'becomes' to change its type", stmt, severity=Severity.WARNING)
        if stmt.value is not None:
            spec.mods.append(Mod("value", (), stmt, scope, ctx, stmt.value, is_default=True))
        if stmt.has_block:
            spec.mods.append(Mod("block", (), stmt, scope, ctx, is_default=True))
        self._own_specs()[name] = spec
        if self._delta is not None:
            self._delta[name] = None
        self._cache.pop(name, None)

    def _becomes(self, name: str, mod: Mod) -> None:
        stmt = mod.stmt
        assert isinstance(stmt, A.Becomes)
        spec = self._spec_for(name, mod)
        if spec is None:
            return
        spec = self._own(spec.name)
        before, after = self.ev.spec_type(spec), self.ev.type_info(stmt.type, mod.ctx)
        if _narrows(after, before):
            spec.texpr, spec.tctx, spec._type = stmt.type, mod.ctx, None
        else:
            self.ev.report(f"'{name}' is a {before}; 'becomes' can only narrow it to a subtype, "
                           f"not to {after}", stmt.type, Code.ATTRIBUTE_INCORRECT_TYPE)
        if stmt.value is not None:
            spec.mods.append(Mod("value", (), stmt, mod.scope, mod.ctx, stmt.value))
        if stmt.has_block:
            spec.mods.append(Mod("block", (), stmt, mod.scope, mod.ctx))
        self._cache.pop(name, None)

    def _spec_for(self, name: str, mod: Mod) -> Spec | None:
        spec = self.specs.get(name)
        if spec is None and name in ATTRIBUTE_RENAMES and ATTRIBUTE_RENAMES[name] in self.specs:
            new = ATTRIBUTE_RENAMES[name]
            self.ev.report(f"'{name}' was renamed '{new}' in OpenPLX 0.19",
                           _path_node(mod), code=Code.ATTRIBUTE_DEPRECATED,
                           severity=Severity.WARNING)
            spec = self.specs[new]
        if spec is None:
            self.ev.report(f"'{self.type.qname}' has no attribute '{name}'", _path_node(mod),
                           code=Code.ATTRIBUTE_INVALID)
        return spec

    def apply(self, mod: Mod) -> None:
        """Apply a modifier whose path is relative to this object."""
        path = mod.path
        if not path:
            if mod.kind == "block" and mod.stmt is not None:
                for child in mod.stmt.children:
                    self._apply_stmt(child, mod.scope, mod.ctx)  # type: ignore[arg-type]
            return
        if len(path) == 1 and mod.kind == "declare":
            self._declare(path[0], mod.stmt, mod.scope, mod.ctx, False)  # type: ignore[arg-type]
            return
        if len(path) == 1 and mod.kind == "becomes":
            self._becomes(path[0], mod)
            return
        spec = self._spec_for(path[0], mod)
        if spec is None:
            return
        self._own(spec.name).mods.append(mod.shifted())
        self._cache.pop(spec.name, None)

    def derive(self, mods: list[Mod], path: str | None) -> "Obj":
        """A copy of this instance with more modifiers applied (its own statements still
        read this instance, as they did before the copy)."""
        new = Obj(self.ev, self.type, path, extra_traits=self.extra_traits, _blank=True)
        new.specs = {k: s.bound(self, new) for k, s in self.specs.items()}
        new._traits = set(self._traits)
        for m in mods:
            new.apply(m)
        return new

    # -- values ---------------------------------------------------------------------
    def _compute(self, spec: Spec) -> Any:
        ev = self.ev
        ti = spec._type if spec._type is not None else ev.spec_type(spec)
        mods = spec.mods
        last = None
        for i in range(len(mods) - 1, -1, -1):  # the last whole-value modifier
            m = mods[i]
            if not m.path and (m.kind == "value" or m.kind == "const"):
                last = i
                break
        if last is not None:
            m = mods[last]
            e = m.expr
            if m.kind == "const":
                base = m.value
            elif type(e) in _LITERALS and not (type(e) is A.StringLit and e.kind == "at"):
                base = e.value  # x is Real: 0 - most defaults: no scope, nothing to evaluate
                ev._check_type(base, ti, e)
                if last == len(mods) - 1 and spec.owner is not self:
                    spec.literal = (base,)  # shared: every instance holding it gets this value
            else:
                base = ev.mod_value(m.bound(self), ti, self)
            if last + 1 < len(mods):
                rest = mods[last + 1:]
                if isinstance(base, Obj):
                    return base.derive([m.bound(self) for m in rest],
                                       self.child_path(spec.name))
                if not isinstance(base, Opaque):
                    ev.report(f"cannot assign parts of '{spec.name}' (a {ev.describe(base)})",
                              _path_node(rest[0]))
                return base
            if isinstance(base, (Obj, list)):  # (only these take a place in the tree)
                return _adopt(base, self.child_path(spec.name))
            return base
        child = self.child_path(spec.name)
        if ti.kind == "model" and ti.model is not None:
            if (spec.optional or spec.reference) and not mods:
                return None
            obj = Obj(ev, ti.model, child, [m.bound(self) for m in mods], ti.traits)
            if obj.origin is None and self.origin is not None:
                # Its modifiers come from this instance's specs: same values as the
                # attribute of any instance with this one's key.
                obj.origin = (self.origin, spec.name)
            return obj
        if ti.kind == "unknown":
            return Opaque(f"unknown type of '{child}'")
        if mods:
            where = _path_node(mods[0])
            if ti.kind == "union":
                ev.report(f"'{spec.name}' may be {ti}; narrow it with 'becomes' before "
                          "assigning its parts", where)
            else:
                ev.report(f"cannot assign parts of '{spec.name}' (type {ti})", where)
            return Opaque("bad assignment")
        return None if spec.optional else UNSET


_LITERALS = (A.NumberLit, A.BoolLit, A.StringLit)
_NameRef, _Member, _NumberLit, _ArrayLit, _Call = (A.NameRef, A.Member, A.NumberLit, A.ArrayLit,
                                                    A.Call)
_Assign = A.Assign


def _narrows(new: TypeInfo, old: TypeInfo) -> bool:
    """May ``becomes`` change an attribute of type ``old`` to ``new``?  A subtype of the
    model (or of one option of a union), an array of such, the same primitive (``Int`` for
    ``Real``); unknown types pass (they are reported where they are named)."""
    if new.kind == "unknown" or old.kind == "unknown":
        return True
    if new.kind == "union":
        return all(_narrows(o, old) for o in new.options)
    if old.kind == "union":
        return any(_narrows(new, o) for o in old.options)
    if new.kind == "model" and old.kind == "model" and new.model and old.model:
        return new.model.is_a(old.model.qname)
    if new.kind == "array" and old.kind == "array" and new.elem and old.elem:
        return _narrows(new.elem, old.elem)
    if new.kind == "prim" and old.kind == "prim":
        return new.name == old.name or (new.name, old.name) == ("Int", "Real")
    return False


def _adopt(value: Any, path: str) -> Any:
    """An anonymous instance (function result, initializer) becomes part of the tree."""
    if isinstance(value, Obj) and value.path is None:
        value.path = path
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _adopt(v, f"{path}[{i}]")
    return value


def _path_node(mod: Mod) -> A.Node | None:
    """Position of the path component a modifier is about (for 'no attribute x')."""
    stmt = mod.stmt
    qn = getattr(stmt, "path", None)
    if not isinstance(qn, A.QName):
        return stmt
    k = len(qn.parts) - len(mod.path)
    k = max(0, min(k, len(qn.parts) - 1))
    col = qn.col + sum(len(p) + 1 for p in qn.parts[:k])
    return A.Node(qn.file, qn.line, col)


# -- the evaluator ------------------------------------------------------------------


class _Env:
    """Where an expression is evaluated: the scope, its file's context, the target."""

    __slots__ = ("scope", "ctx", "target")

    def __init__(self, scope: Obj | None, ctx: FileContext | None,
                 target: Obj | None = None) -> None:
        self.scope = scope
        self.ctx = ctx
        self.target = target


class Evaluator:
    """Evaluates models of one workspace; collects problems."""

    def __init__(self, workspace: Workspace) -> None:
        self.ws = workspace
        self.problems: list[OpenPlxProblem] = []
        self._seen: set = set()
        self._depth = 0  # attribute values being computed right now (Obj.get nesting)
        self._too_deep = False  # the nesting limit was reported
        #: Evaluating models as templates (a library, or models of a file other than the
        #: one assembled): problems that only say a value is missing are not reported.
        self.lenient = False
        self._quiet = False  # see peek_type()
        self._types: dict[str, ModelType] = {}
        self._consts: dict[str, Obj] = {}
        self._globals: dict[str, Any] = {}
        self._globals_busy: set[str] = set()
        self._type_infos: dict[tuple[int, int], tuple[A.TypeExpr | None, TypeInfo]] = {}
        self._type_refs: dict[tuple, tuple[FileContext | None, TypeInfo, Any]] = {}
        # Templates (see template()): each kept as its parent's key plus the specs its own
        # statements changed (linear in the source); full tables only for the most recently
        # used, since a chain of n models would otherwise hold n tables of up to n specs.
        self._deltas: dict[tuple, tuple[tuple | None, tuple[str, ...]]] = {}
        self._changed: dict[tuple, tuple[dict[str, Spec], frozenset[str]]] = {}
        self._replaced: dict[tuple, dict[str, Spec]] = {}
        self._tables: OrderedDict[tuple, tuple[dict[str, Spec], frozenset]] = OrderedDict()
        #: (id(object), attribute) being computed right now (a circular definition check).
        self._busy: set[tuple[int, str]] = set()
        # Per type: natives found by name, declared parameter types, operator dispatch kind.
        self._native_of: dict[tuple[ModelType, str], Callable | None] = {}
        self._params_of: dict[tuple[ModelType, str], list[TypeInfo | None]] = {}
        self._kinds: dict[tuple, str] = {}
        self._named: dict[str, ModelType] = {}
        #: Elements each model expands to (see :mod:`.expansion`), by expansion node.
        self.expansion_counts: dict[Any, int] = {}
        #: Results other modules work out once per model (keys start with their name).
        self.memo: dict[tuple, Any] = {}
        #: Values of expressions that read no instance (see mod_value), and the count of
        #: attribute reads that tells them apart.
        self._pure: dict[tuple[int, int], tuple] = {}
        self._reads = 0
        from .natives import NATIVES, OPERATORS  # local: natives imports this module
        self.natives: dict[tuple[str, str], Callable] = NATIVES
        self.operators = OPERATORS

    # -- problems -------------------------------------------------------------------
    @contextmanager
    def leniency(self, lenient: bool) -> Iterator[None]:
        """Set :attr:`lenient` for the duration of a ``with`` block."""
        before, self.lenient = self.lenient, lenient
        try:
            yield
        finally:
            self.lenient = before

    def report(self, message: str, node: A.Node | None, code: Code = Code.ELEMENT_INVALID,
               severity: Severity = Severity.ERROR, incomplete: bool = False) -> None:
        """Record a problem once per place.  ``incomplete`` problems (see
        :class:`EvalError`) are not recorded while :attr:`lenient` is set."""
        if (incomplete and self.lenient) or self._quiet:
            return
        file, line, col = (node.file, node.line, node.col) if node is not None else ("", 0, 0)
        # One report per place: the same statement evaluated for several instances (a model
        # and the models extending it) gives messages that differ only in the instance path.
        key = (file, line, col, severity) if line else (message, file, line, col)
        if key in self._seen:
            return
        self._seen.add(key)
        self.problems.append(OpenPlxProblem(message, file, line, col, code, severity))

    def report_error(self, exc: EvalError) -> None:
        self.report(exc.message, exc.node, exc.code, incomplete=exc.incomplete)

    # -- types ----------------------------------------------------------------------
    def model_type(self, sym: ModelSymbol) -> ModelType:
        t = self._types.get(sym.qname)
        if t is None or t.sym is not sym:
            t = ModelType(self, sym)
            self._types[sym.qname] = t
        return t

    def type_named(self, qname: str) -> ModelType:
        """A bundle type by qualified name (``Math.Vec3``); raises if it is missing."""
        t = self._named.get(qname)
        if t is None:
            sym = self.ws.lookup(qname)
            if not isinstance(sym, ModelSymbol):
                raise EvalError(f"the bundle type '{qname}' is not available (is "
                                "openplx-bundles installed?)")
            t = self._named[qname] = self.model_type(sym)
        return t

    def resolve_type_name(self, q: A.QName, ctx: FileContext | None, report: bool = True
                          ) -> ModelType | str | None:
        """A model type, a primitive name, or None (reported) for a type name."""
        parts = q.parts
        if len(parts) == 1 and parts[0] in PRIMITIVES:
            return parts[0]
        found, rest, renamed = self.ws.resolve(parts, ctx)
        if isinstance(found, ModelSymbol) and not rest:
            if renamed:
                self.report(f"'{renamed}' is an OpenPLX 0.16 name; 0.19 calls it "
                            f"'{found.qname}'", q, Code.ELEMENT_DEPRECATED, Severity.WARNING)
            return self.model_type(found)
        if report:
            self.report(f"unknown type '{q}'", q, Code.ELEMENT_INVALID)
        return None

    def type_info(self, texpr: A.TypeExpr | None, ctx: FileContext | None) -> TypeInfo:
        if texpr is None:
            return _UNKNOWN
        options = [self._type_ref(o, ctx) for o in texpr.options]
        traits = []
        for q in texpr.traits:
            t = self.resolve_type_name(q, ctx)
            if isinstance(t, ModelType):
                traits.append(t)
        if len(options) == 1:
            info = options[0]
            if traits:
                info = TypeInfo(info.kind, info.name, info.model, info.elem, info.options, traits)
            return info
        return TypeInfo("union", str(texpr), options=options, traits=traits)

    def peek_type(self, texpr: A.TypeExpr | None, ctx: FileContext | None) -> TypeInfo:
        """:meth:`type_info` without reporting anything: a look ahead (the problems of the
        type are reported when the evaluation reaches it, in the order it does)."""
        before, self._quiet = self._quiet, True
        try:
            return self.type_info(texpr, ctx)
        finally:
            self._quiet = before

    def _type_ref(self, ref: A.TypeRef, ctx: FileContext | None) -> TypeInfo:
        # Every 'link7 is Link' names the same type: one TypeInfo per name and file
        # context, once it resolved without a word to report (no unknown or 0.16 name,
        # whose reports belong to each place that writes them).
        key = (ref.name.parts, ref.array, id(ctx))
        hit = self._type_refs.get(key)
        # (valid while model_type() would still give the same ModelType for the name)
        if hit is not None and hit[0] is ctx and (
                hit[2] is None or self._types.get(hit[2].qname) is hit[2]):
            return hit[1]
        t = self.resolve_type_name(ref.name, ctx)
        if isinstance(t, ModelType):
            base = TypeInfo("model", t.qname, model=t)
        elif isinstance(t, str):
            base = TypeInfo("prim", t)
        else:
            base = TypeInfo("unknown", str(ref.name))
        info = TypeInfo("array", str(ref), elem=base) if ref.array else base
        if isinstance(t, str) or (isinstance(t, ModelType)
                                  and not self.ws.resolve(ref.name.parts, ctx)[2]):
            self._type_refs[key] = (ctx, info, t if isinstance(t, ModelType) else None)
        return info

    def spec_type(self, spec: Spec) -> TypeInfo:
        if spec._type is None:
            key = (id(spec.texpr), id(spec.tctx))
            hit = self._type_infos.get(key)
            if hit is None or hit[0] is not spec.texpr:
                hit = (spec.texpr, self.type_info(spec.texpr, spec.tctx))
                self._type_infos[key] = hit
            spec._type = hit[1]
        return spec._type

    # -- instances ------------------------------------------------------------------
    def instantiate(self, sym: ModelSymbol | ModelType, path: str | None = None) -> Obj:
        """A fresh instance of a top-level model (its path defaults to the model name)."""
        t = sym if isinstance(sym, ModelType) else self.model_type(sym)
        return Obj(self, t, t.decl.name if path is None else path)

    def const_instance(self, sym: ModelSymbol) -> Obj:
        obj = self._consts.get(sym.qname)
        if obj is None:
            obj = Obj(self, self.model_type(sym), sym.qname)
            self._consts[sym.qname] = obj
        return obj

    def attribute_names(self, t: ModelType) -> list[str]:
        """Attributes of a type in declaration order (what ``{...}`` fills)."""
        return list(self.template(t)[0])

    def template(self, t: ModelType, traits: tuple[ModelType, ...] = ()
                 ) -> tuple[dict[str, Spec], frozenset[str]]:
        """The specs every instance of ``t`` (with extra ``traits``) starts from, and the
        traits applied.  Shared: instances copy what they change.  Built once per type,
        each from its base's template plus its own statements, so a chain of n models costs
        n steps rather than n^2 (see :meth:`template_delta`)."""
        key = (t, traits)
        hit = self._tables.get(key)
        if hit is not None:
            self._tables.move_to_end(key)
            return hit
        if key in self._deltas:
            return self._rebuild(key)
        if traits:
            specs, applied = self.template(t)
            proto = self._proto(t, specs, applied)
            for trait in traits:
                proto._apply_trait(trait)
            return self._keep(key, proto, (t, ()), specs)
        pending: list[ModelType] = []
        seen: set[str] = set()
        cur: ModelType | None = t
        while cur is not None and (cur, ()) not in self._deltas:
            if cur.qname in seen:
                # 'is' loops back: chain() reports it and cuts it where it closes; this
                # type's specs are built from that chain and kept for it alone.
                proto = self._proto(t, {}, frozenset())
                for x in t.chain():
                    proto._apply_type(x)
                return self._keep(key, proto, None, {})
            seen.add(cur.qname)
            pending.append(cur)
            cur = cur.base
        parent = (cur, ()) if cur is not None else None
        hit = None
        for x in reversed(pending):
            specs, applied = self.template(*parent) if parent else ({}, frozenset())
            proto = self._proto(x, specs, applied)
            proto._apply_type(x)
            hit = self._keep((x, ()), proto, parent, specs)
            parent = (x, ())
        return hit if hit is not None else self.template(t)

    def template_delta(self, t: ModelType, traits: tuple[ModelType, ...] = ()
                       ) -> tuple[tuple | None, tuple[str, ...]]:
        """``(parent template key, names)``: the template ``t`` is built from (its base's,
        or for extra traits its own plain one; None when built from nothing) and the
        attributes its own statements declare or change, in the order they did."""
        key = (t, traits)
        if key not in self._deltas:
            self.template(t, traits)
        return self._deltas[key]

    #: Full spec tables kept at once (the rest are rebuilt from their parents on demand).
    TABLES_KEPT = 256

    def template_changes(self, t: ModelType, traits: tuple[ModelType, ...] = ()
                         ) -> tuple[tuple | None, dict[str, Spec], dict[str, Spec]]:
        """``(parent key, changed, replaced)``: the specs the template's own statements
        made, and the parent's specs they replaced (without building full tables)."""
        key = (t, traits)
        parent, _ = self.template_delta(t, traits)
        return parent, self._changed[key][0], self._replaced[key]

    def _keep(self, key: tuple, proto: Obj, parent: tuple | None, parent_specs: dict
              ) -> tuple[dict[str, Spec], frozenset[str]]:
        changed = tuple(proto._delta or ()) if parent is not None else tuple(proto.specs)
        traits = frozenset(proto._traits)
        for name in changed:
            # Finished: nobody owns a template's specs (and a spec that pointed back at the
            # prototype would keep every replaced table alive in a reference cycle).
            proto.specs[name].owner = _TEMPLATE
        self._deltas[key] = (parent, changed)
        self._changed[key] = ({n: proto.specs[n] for n in changed}, traits)
        self._replaced[key] = {n: parent_specs[n] for n in changed if n in parent_specs}
        return self._remember(key, (proto.specs, traits))

    def _remember(self, key: tuple, table: tuple[dict[str, Spec], frozenset[str]]
                  ) -> tuple[dict[str, Spec], frozenset[str]]:
        self._tables[key] = table
        if len(self._tables) > self.TABLES_KEPT:
            self._tables.popitem(last=False)
        return table

    def _rebuild(self, key: tuple) -> tuple[dict[str, Spec], frozenset[str]]:
        """The full table of a template whose table was let go: its nearest kept
        ancestor's, with the changes of each template down to it applied again (the very
        same spec objects, in the same order)."""
        path: list[tuple] = []
        k: tuple | None = key
        while k is not None and k not in self._tables:
            path.append(k)
            k = self._deltas[k][0]
        specs = dict(self._tables[k][0]) if k is not None else {}
        if k is not None:
            self._tables.move_to_end(k)
        for k in reversed(path):
            specs.update(self._changed[k][0])
        table = (specs, self._changed[key][1])
        return self._remember(key, table)

    def _proto(self, t: ModelType, specs: dict[str, Spec], traits: frozenset[str]) -> Obj:
        """A blank instance that a template is built in (its specs start as ``specs``)."""
        proto = Obj(self, t, None, _blank=True)
        proto.specs, proto._traits = dict(specs), set(traits)
        proto._delta = {}
        return proto

    def make(self, qname: str, **values: Any) -> Obj:
        """An anonymous instance of a bundle type with some attributes set (as ``const``
        modifiers, whose values are known at once: no evaluation needed to read them)."""
        obj = Obj(self, self.type_named(qname), None)
        specs = obj._own_specs()
        for k, v in values.items():
            spec = specs.get(k)
            if spec is None:  # not an attribute of the type: the general path reports it
                obj.apply(Mod("const", (k,), value=v))
                continue
            spec = specs[k] = spec.copy(obj)
            spec.mods.append(Mod("const", (), value=v))
            obj._cache[k] = _adopt(v, k)
        obj.made = tuple(values.items())
        return obj

    def global_value(self, sym: GlobalSymbol) -> Any:
        if sym.qname in self._globals:
            return self._globals[sym.qname]
        if sym.qname in self._globals_busy:
            self.report(f"circular definition of '{sym.qname}'", sym.decl)
            return Opaque("circular")
        self._globals_busy.add(sym.qname)
        try:
            ti = self.type_info(sym.decl.type, sym.ctx)
            value = self.eval(sym.decl.value, _Env(None, sym.ctx), ti)
        finally:
            self._globals_busy.discard(sym.qname)
        value = _adopt(value, sym.qname)   # a global instance is a reference everywhere
        self._globals[sym.qname] = value
        return value

    def symbol_value(self, sym: ModelSymbol | GlobalSymbol) -> Any:
        if isinstance(sym, GlobalSymbol):
            return self.global_value(sym)
        if sym.decl.is_const:
            return self.const_instance(sym)
        return TypeValue(self.model_type(sym))

    # -- expressions ----------------------------------------------------------------
    def mod_value(self, mod: Mod, ti: TypeInfo, target: Obj | None) -> Any:
        """The value a modifier gives (type-checked).

        An expression that reads no attribute of any instance (``Math.Vec3.from_xyz(1, 0,
        0)``, ``Math.PI / 2``) has the same value wherever it is evaluated: the first
        evaluation is kept per expression and declared type, and later ones rebuild that
        value without evaluating (a model used a thousand times evaluates it once)."""
        if mod.kind == "const":
            return mod.value
        e = mod.expr
        key = (id(e), id(ti))
        hit = self._pure.get(key)
        if hit is not None and hit[0] is e and hit[1] is ti:
            return self._rebuild_value(hit[2])
        reads, problems = self._reads, len(self.problems)
        value = self.eval(e, _Env(mod.scope, mod.ctx, target), ti)
        self._check_type(value, ti, e)
        if self._reads == reads and len(self.problems) == problems:
            recipe = self._recipe(value)
            if recipe is not None:
                self._pure[key] = (e, ti, recipe)
        return value

    def _recipe(self, value: Any) -> tuple | None:
        """How to build ``value`` again: a plain value, or a Math value made by a function
        (only ``const`` attributes, themselves rebuildable); None for anything else (an
        instance of the tree, a reference, a list, something unknown)."""
        if isinstance(value, (bool, int, float, str)):
            return ("value", value)
        if isinstance(value, Obj) and value.made is not None:
            parts = []
            for name, part in value.made:
                recipe = self._recipe(part)
                if recipe is None:
                    return None
                parts.append((name, recipe))
            return ("made", value.type.qname, tuple(parts))
        return None

    def _rebuild_value(self, recipe: tuple) -> Any:
        if recipe[0] == "value":
            return recipe[1]
        return self.make(recipe[1], **{name: self._rebuild_value(r) for name, r in recipe[2]})

    def eval(self, e: A.Expr | None, env: _Env, expected: TypeInfo | None = None) -> Any:
        """Evaluate an expression; errors are reported and give an :class:`Opaque`."""
        if e is None:
            return UNSET
        try:
            value = self._eval(e, env, expected)
        except EvalError as exc:
            self.report(exc.message, exc.node or e, exc.code, incomplete=exc.incomplete)
            return Opaque(exc.message)
        except RecursionError:
            # Backstop for nesting the explicit limits do not bound (deep expressions in a
            # deep chain of values): reported once, at the innermost expression that can
            # (if reporting itself runs out of stack, an enclosing evaluation does it).
            if not self._too_deep:
                self.report("expression nested too deeply to evaluate", e)
                self._too_deep = True
            return Opaque("too deep")
        if isinstance(value, (FuncRef, TypeValue, NamespaceRef)):
            what = {FuncRef: "a function (call it with '()')", TypeValue: "a type",
                    NamespaceRef: "a namespace"}[type(value)]
            self.report(f"'{A.unparse_expr(e)}' is {what}, not a value", expr_start(e))
            return Opaque("not a value")
        return value

    def _eval(self, e: A.Expr, env: _Env, expected: TypeInfo | None) -> Any:
        # The frequent node types by identity first (cheaper than a chain of isinstance
        # calls); any other, or a subclass, by the general chain below.
        t = type(e)
        if t is _NameRef:
            return self._name(e, env)  # type: ignore[arg-type]
        if t is _Member:
            return self._member(self._eval(e.target, env, None), e)  # type: ignore[attr-defined]
        if t is _NumberLit:
            return e.value  # type: ignore[attr-defined]
        if t is _ArrayLit:
            elem = expected.elem if expected is not None and expected.kind == "array" else None
            return [self._eval(i, env, elem) for i in e.items]  # type: ignore[attr-defined]
        if t is _Call:
            return self._call(e, env)  # type: ignore[arg-type]
        if isinstance(e, A.NumberLit):
            return e.value
        if isinstance(e, A.BoolLit):
            return e.value
        if isinstance(e, A.StringLit):
            if e.kind == "at":
                base = env.ctx.directory if env.ctx is not None else Path.cwd()
                return str(safe_resolve(base / e.value))
            return e.value
        if isinstance(e, A.ThisRef):
            if env.scope is None:
                raise EvalError("'this' is only meaningful inside a model", e)
            self._reads += 1
            return env.scope
        if isinstance(e, A.Paren):
            return self._eval(e.inner, env, expected)
        if isinstance(e, A.NameRef):
            return self._name(e, env)
        if isinstance(e, A.Member):
            return self._member(self._eval(e.target, env, None), e)
        if isinstance(e, A.Call):
            return self._call(e, env)
        if isinstance(e, A.Index):
            return self._index(e, env)
        if isinstance(e, A.Unary):
            operand = self._eval(e.operand, env, expected)
            if e.op == "+":
                return operand
            return self._operate("neg", operand, None, e)
        if isinstance(e, A.Binary):
            return self._binary(e, env, expected)
        if isinstance(e, A.ArrayLit):
            elem = expected.elem if expected is not None and expected.kind == "array" else None
            return [self._eval(i, env, elem) for i in e.items]
        if isinstance(e, A.InitLit):
            self._reads += 1  # its values are evaluated later, in this scope
            return self._initializer(e, env, expected)
        raise EvalError(f"cannot evaluate {type(e).__name__}", e)

    def _binary(self, e: A.Binary, env: _Env, expected: TypeInfo | None) -> Any:
        """``a op b``, evaluated along the left spine without recursion (``1 + 1 + ...``
        parses as a left-deep tree as deep as the chain is long).  The expected type goes
        to the left operand of ``+``/``-``; an initializer operand gets its type from the
        operator overloads that take the other operand (``v + {1, 0, 0}``)."""
        spine: list[tuple[A.Binary, TypeInfo | None]] = []
        node: A.Expr = e
        while isinstance(node, A.Binary):
            spine.append((node, expected))
            expected = expected if node.op in "+-" else None
            node = node.left
        value: Any = None
        for k in range(len(spine) - 1, -1, -1):
            b, exp = spine[k]
            additive = b.op in "+-"
            if k == len(spine) - 1:  # the innermost: its left operand is no Binary
                if isinstance(b.left, A.InitLit) and not isinstance(b.right, A.InitLit):
                    right = self._eval(b.right, env, None)
                    if isinstance(right, Opaque):  # already reported: no second error
                        value = right
                        continue
                    hint = self._init_hint(b.op, right, b.left, left_side=True)
                    left = self._eval(b.left, env, hint or (exp if additive else None))
                    value = self._operate(b.op, left, right, b)
                    continue
                left = self._eval(b.left, env, exp if additive else None)
            else:
                left = value
            if isinstance(left, Opaque) and isinstance(b.right, A.InitLit):
                value = left  # the initializer's type depends on the unknown operand
                continue
            hint = self._init_hint(b.op, left, b.right, left_side=False) \
                if isinstance(b.right, A.InitLit) else None
            right = self._eval(b.right, env, hint)
            value = self._operate(b.op, left, right, b)
        return value

    def _init_hint(self, op: str, other: Any, init: A.InitLit, left_side: bool
                   ) -> TypeInfo | None:
        """The type of a ``{...}`` operand: the overloads of ``op`` with the other operand's
        kind, narrowed by the number of values when several remain."""
        kind = self.kind_of(other)
        names = [a if left_side else b for (o, a, b) in self.operators
                 if o == op and (b if left_side else a) == kind]
        names = [n for n in dict.fromkeys(names) if n and "." in n]
        types = []
        for n in names:
            try:
                types.append(self.type_named(n))
            except EvalError:
                continue
        if len(types) > 1:
            types = [t for t in types if len(self.attribute_names(t)) == len(init.items)]
        if len(types) == 1:
            return TypeInfo("model", types[0].qname, model=types[0])
        return None

    def _name(self, e: A.NameRef, env: _Env) -> Any:
        n = e.name
        for obj in (env.scope, env.target):
            if obj is not None and n in obj.specs:
                self._reads += 1
                return obj.get(n, e)
        found, rest, renamed = self.ws.resolve((n,), env.ctx)
        if found is None:
            raise EvalError(f"unknown name '{n}'", e)
        if isinstance(found, NamespaceRef):
            return found
        return self.symbol_value(found)

    def _member(self, target: Any, e: A.Member) -> Any:
        name = e.name
        if isinstance(target, Opaque):
            return target
        if isinstance(target, NamespaceRef):
            parts = target.parts + (name,)
            sym = self.ws.symbol_in(target.parts, name)
            if sym is not None:
                return self.symbol_value(sym)
            if self.ws.is_namespace(parts):
                return NamespaceRef(parts)
            new = renamed_type(".".join(parts))
            if new is not None and self.ws.lookup(new) is not None:
                self.report(f"'{'.'.join(parts)}' is an OpenPLX 0.16 name; 0.19 calls it "
                            f"'{new}'", e, Code.ELEMENT_DEPRECATED, Severity.WARNING)
                return self.symbol_value(self.ws.lookup(new))
            raise EvalError(f"'{name}' is not declared in namespace '{target}'", e)
        if isinstance(target, TypeValue):
            return FuncRef(target.type, name)
        if isinstance(target, Obj):
            if target.has(name):
                return target.get(name, e)
            new = ATTRIBUTE_RENAMES.get(name)
            if new is not None and target.has(new):
                self.report(f"'{name}' was renamed '{new}' in OpenPLX 0.19", e,
                            Code.ATTRIBUTE_DEPRECATED, Severity.WARNING)
                return target.get(new, e)
            if self._find_native(target.type, name, target) is not None or \
                    name in target.type.methods():
                return FuncRef(target.type, name, target)
            raise EvalError(f"'{target.type.qname}' has no attribute '{name}'", e)
        if target is UNSET or target is None:
            raise EvalError(f"cannot read '{name}' of an attribute that has no value", e,
                            incomplete=True)
        raise EvalError(f"a {self.describe(target)} has no attribute '{name}'", e)

    def _find_native(self, t: ModelType, name: str, obj: Obj | None) -> Callable | None:
        key = (t, name)
        if key in self._native_of:
            return self._native_of[key]
        found = None
        snake = snake_case(name)
        for q in t.ancestry():
            found = self.natives.get((q, name)) or self.natives.get((q, snake))
            if found is not None:
                break
        self._native_of[key] = found
        return found

    def _call(self, e: A.Call, env: _Env) -> Any:
        func = self._eval(e.func, env, None)
        if isinstance(func, Opaque):
            return func
        hints = self._param_types(func) if isinstance(func, FuncRef) else []
        args = [self._eval(a, env, hints[i] if i < len(hints) else None)
                for i, a in enumerate(e.args)]
        if not isinstance(func, FuncRef):
            raise EvalError(f"'{A.unparse_expr(e.func)}' is not a function", e)
        if any(isinstance(a, Opaque) for a in args):
            return next(a for a in args if isinstance(a, Opaque))
        native = self._find_native(func.type, func.name, func.self_obj)
        where = e.func if isinstance(e.func, A.Member) else e
        if native is None:
            if func.name in func.type.methods():
                self.report(f"'{func.type.qname}.{func.name}' is computed by the OpenPLX runtime "
                            "only; its value is unknown here", where, severity=Severity.WARNING)
                return Opaque(f"{func.type.qname}.{func.name}")
            raise EvalError(f"'{func.type.qname}' has no function '{func.name}'", where)
        if func.name != snake_case(func.name) and (func.type.qname, func.name) not in self.natives:
            self.report(f"'{func.name}' is an old name; OpenPLX 0.19 calls it "
                        f"'{snake_case(func.name)}'", where, Code.ELEMENT_DEPRECATED,
                        Severity.WARNING)
        try:
            return native(self, func.self_obj, args)
        except EvalError as exc:
            raise EvalError(exc.message, exc.node or e, exc.code, exc.incomplete) from None
        except (ArithmeticError, ValueError, TypeError) as exc:
            raise EvalError(f"{func.type.qname}.{func.name}: {exc}", e) from None

    def _param_types(self, func: FuncRef) -> list[TypeInfo | None]:
        """Declared parameter types of a method (they type ``{...}`` arguments)."""
        key = (func.type, func.name)
        hit = self._params_of.get(key)
        if hit is None:
            hit = self._params_of[key] = self._find_param_types(func)
        return hit

    def _find_param_types(self, func: FuncRef) -> list[TypeInfo | None]:
        names = (func.name, snake_case(func.name))
        for t in reversed(func.type.chain()):
            for stmt in t.decl.children:
                if isinstance(stmt, A.MethodDecl) and stmt.name in names:
                    return [self._type_ref(p.type, t.ctx) for p in stmt.params]
        return []

    def _index(self, e: A.Index, env: _Env) -> Any:
        target = self._eval(e.target, env, None)
        index = self._eval(e.index, env, None)
        if isinstance(target, Opaque):
            return target
        if not isinstance(target, list):
            raise EvalError(f"only arrays can be indexed, not a {self.describe(target)}", e,
                            incomplete=is_missing(target))
        if isinstance(index, float) and index.is_integer():
            index = int(index)
        if not isinstance(index, int) or isinstance(index, bool):
            raise EvalError("an array index must be an integer", e.index)
        if not 0 <= index < len(target):
            raise EvalError(f"index {index} is out of range (the array has {len(target)} "
                            "elements)", e.index)
        return target[index]

    def _initializer(self, e: A.InitLit, env: _Env, expected: TypeInfo | None) -> Any:
        if expected is None or expected.kind != "model" or expected.model is None:
            raise EvalError("cannot tell which model this '{...}' initializer builds; "
                            "assign it to an attribute of a model type", e)
        names = self.attribute_names(expected.model)
        if len(e.items) > len(names):
            raise EvalError(f"too many values for {expected.model.qname} (it has "
                            f"{len(names)} attributes)", e.items[len(names)])
        mods = [Mod("value", (n,), None, env.scope, env.ctx, item)
                for n, item in zip(names, e.items)]
        for m, item in zip(mods, e.items):
            m.stmt = _ExprStmt(item)
        return Obj(self, expected.model, None, mods, expected.traits)

    def _operate(self, op: str, a: Any, b: Any, e: A.Node) -> Any:
        if isinstance(a, Opaque):
            return a
        if isinstance(b, Opaque):
            return b
        ka, kb = self.kind_of(a), self.kind_of(b) if op != "neg" else None
        f = self.operators.get((op, ka, kb))
        if f is None:
            sym = "-" if op == "neg" else op
            missing = is_missing(a) or (op != "neg" and is_missing(b))
            if op == "neg":
                raise EvalError(f"unary '-' is not defined for a {self.describe(a)}", e,
                                incomplete=missing)
            raise EvalError(f"operator '{sym}' is not defined for {self.describe(a)} and "
                            f"{self.describe(b)}", e, incomplete=missing)
        try:
            return f(self, a, b)
        except ZeroDivisionError:
            raise EvalError("division by zero", e) from None

    # -- helpers --------------------------------------------------------------------
    _MATH_KINDS = ("Math.Vec3", "Math.Vec2", "Math.Quat", "Math.AffineTransform",
                   "Math.Matrix3x3")

    def kind_of(self, v: Any) -> str:
        """Operator dispatch key: num, bool, str, list or a Math type name."""
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, (int, float)):
            return "num"
        if isinstance(v, str):
            return "str"
        if isinstance(v, list):
            return "list"
        if isinstance(v, Obj):
            key = (v.type, *v.extra_traits)
            kind = self._kinds.get(key)
            if kind is None:
                kind = next((k for k in self._MATH_KINDS if v.is_a(k)), v.type.qname)
                self._kinds[key] = kind
            return kind
        return type(v).__name__

    def describe(self, v: Any) -> str:
        if isinstance(v, bool):
            return "Bool"
        if isinstance(v, int):
            return "Int"
        if isinstance(v, float):
            return "Real"
        if isinstance(v, str):
            return "String"
        if isinstance(v, list):
            return "array"
        if isinstance(v, Obj):
            return v.type.qname
        if v is UNSET or v is None:
            return "missing value"
        return type(v).__name__

    def _check_type(self, value: Any, ti: TypeInfo, expr: A.Expr | None) -> None:
        """Report a value that does not fit its declared type, at the start of ``expr``."""
        if isinstance(value, Opaque) or value is None or value is UNSET:
            return
        ok = True
        if ti.kind == "prim":
            if ti.name == "Real" or ti.name == "Int":
                ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            elif ti.name == "Bool":
                ok = isinstance(value, bool)
            elif ti.name == "String":
                ok = isinstance(value, str)
        elif ti.kind == "model" and ti.model is not None and not ti.model.is_trait:
            ok = isinstance(value, Obj) and (value.is_a(ti.model.qname)
                                             or ti.model.is_a(value.type.qname))
        elif ti.kind == "array":
            ok = isinstance(value, list)
        if not ok:
            self.report(f"expected a value of type {ti}, got a {self.describe(value)}",
                        expr_start(expr) if expr is not None else None,
                        Code.ATTRIBUTE_INCORRECT_TYPE)

    # Conversions used by natives and by the Physics3D extraction.
    def number(self, v: Any, what: str = "value") -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise EvalError(f"expected a number for {what}, got a {self.describe(v)}",
                            incomplete=is_missing(v))
        return float(v)

    def vec3(self, v: Any) -> tuple[float, float, float]:
        if not isinstance(v, Obj) or not v.is_a("Math.Vec3"):
            raise EvalError(f"expected a Math.Vec3, got a {self.describe(v)}",
                            incomplete=is_missing(v))
        return (self.number(v.get("x"), "x"), self.number(v.get("y"), "y"),
                self.number(v.get("z"), "z"))

    def vec2(self, v: Any) -> tuple[float, float]:
        if not isinstance(v, Obj) or not v.is_a("Math.Vec2"):
            raise EvalError(f"expected a Math.Vec2, got a {self.describe(v)}",
                            incomplete=is_missing(v))
        return (self.number(v.get("x"), "x"), self.number(v.get("y"), "y"))

    def quat(self, v: Any) -> tuple[float, float, float, float]:
        if not isinstance(v, Obj) or not v.is_a("Math.Quat"):
            raise EvalError(f"expected a Math.Quat, got a {self.describe(v)}",
                            incomplete=is_missing(v))
        return tuple(self.number(v.get(k), k) for k in "xyzw")  # type: ignore[return-value]

    def affine(self, v: Any) -> tuple:
        if not isinstance(v, Obj) or not v.is_a("Math.AffineTransform"):
            raise EvalError(f"expected a Math.AffineTransform, got a {self.describe(v)}",
                            incomplete=is_missing(v))
        return (self.vec3(v.get("position")), self.quat(v.get("rotation")))

    def matrix3(self, v: Any) -> tuple:
        if not isinstance(v, Obj) or not v.is_a("Math.Matrix3x3"):
            raise EvalError(f"expected a Math.Matrix3x3, got a {self.describe(v)}",
                            incomplete=is_missing(v))
        return tuple(self.number(v.get(f"e{r}{c}")) for r in range(3) for c in range(3))

    def real_list(self, v: Any) -> list[float]:
        if not isinstance(v, list):
            raise EvalError(f"expected an array, got a {self.describe(v)}",
                            incomplete=is_missing(v))
        return [self.number(x) for x in v]

    def new_vec3(self, v: Any) -> Obj:
        return self.make("Math.Vec3", x=v[0], y=v[1], z=v[2])

    def new_vec2(self, v: Any) -> Obj:
        return self.make("Math.Vec2", x=v[0], y=v[1])

    def new_quat(self, q: Any) -> Obj:
        return self.make("Math.Quat", x=q[0], y=q[1], z=q[2], w=q[3])

    def new_affine(self, a: tuple) -> Obj:
        return self.make("Math.AffineTransform", position=self.new_vec3(a[0]),
                         rotation=self.new_quat(a[1]))

    def new_matrix3(self, m: Any) -> Obj:
        return self.make("Math.Matrix3x3",
                         **{f"e{r}{c}": m[3 * r + c] for r in range(3) for c in range(3)})

    def walk(self, root: Obj) -> Iterator[tuple[Obj, str, Any]]:
        """(owner, attribute, value) for every contained instance below ``root``,
        depth-first in declaration order (references are not followed)."""
        for name in root.names():
            value = root.try_get(name)
            yield root, name, value
            if isinstance(value, Obj) and value.path == root.child_path(name):
                yield from self.walk(value)


class _ExprStmt(A.Stmt):
    """Stands in for a statement when an initializer item is reported."""

    def __init__(self, e: A.Expr) -> None:
        super().__init__(e.file, e.line, e.col)


def expr_start(e: A.Expr) -> A.Expr:
    """The leftmost node of an expression (where a message about all of it points)."""
    while True:
        if isinstance(e, A.Member):
            e = e.target
        elif isinstance(e, (A.Call,)):
            e = e.func
        elif isinstance(e, A.Index):
            e = e.target
        elif isinstance(e, A.Binary):
            e = e.left
        else:
            return e
