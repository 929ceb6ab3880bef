"""JSON-LD expansion of floor plan and door model documents, offline and fast.

:func:`expand` gives exactly what ``pyld.jsonld.expand`` gives (the tests compare the two
on every real document), but most of pyld's time goes into processing the type-scoped
contexts of every node again (a pose coordinate has three types, each with a scoped
context): half a second for the hospital example.  The documents FloorPlan-DSL writes are
flat (a ``@context`` and a ``@graph`` of node objects whose values are strings, numbers and
arrays of them), so for that shape the expansion algorithm is run here with every
processed context cached: the document's context once per document, each combination of
types once per document, each property-scoped context (qudt's ``unit``) once.  Context
processing and value expansion are pyld's own; only the walk over the nodes is ours, and
it follows the JSON-LD 1.1 expansion algorithm (API section 5.1.2) as pyld implements it.
Anything outside that shape (embedded nodes, value objects, ``@reverse``, maps, ``@nest``,
node-level contexts) is expanded by ``pyld.jsonld.expand`` itself.

Contexts come from :mod:`.context_loader`: a URL that is not bundled is a
:class:`FloorPlanError` before anything is processed, and nothing is ever downloaded.

**Bounded work.**  pyld processes a type- or property-scoped context again for every node
that uses it, so a small document whose nodes embed nodes of a type with a large scoped
context costs nodes x terms (700 nodes x 1000 terms: 20 s).  Both paths therefore use
:class:`_BoundedProcessor`, pyld's processor with three changes that do not change what
expansion gives: a scoped context is processed once per active context it is applied to
(and then reused, as pyld reuses processed URL contexts); a context list naming one
context several times in a row names it once (processing it again changes nothing); and
the work done (term definitions created, context entries copied) is counted against a
:class:`ContextBudget` per floor plan read, beyond which the file is refused with a
:class:`FloorPlanError`, as is a context list of more than :data:`MAX_CONTEXT_LIST`
contexts.
"""
from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .context_loader import DocumentLoader, check_context_urls, make_document_loader
from .errors import FloorPlanError

__all__ = ["Expanded", "Expander", "ContextBudget", "expand", "expand_with_pyld",
           "MAX_TERM_DEFINITIONS", "MAX_COPIED_TERMS", "MAX_CONTEXT_LIST"]

_KEEP_PROCESSED = 256
#: Most term definitions the contexts of one floor plan's files may take to process (the
#: real plans here with their doors, read with cold caches, take under a thousand; each
#: costs some 30 us).
MAX_TERM_DEFINITIONS = 50_000
#: Most term definitions copied from one active context to the next (a node-level or
#: scoped context starts from a copy of the active one, kept while the file is expanded;
#: real plans copy about 10 000).
MAX_COPIED_TERMS = 2_000_000
#: Most contexts one ``@context`` list may name (repeats in a row count once).
MAX_CONTEXT_LIST = 64
_MISSING = object()
#: A relative IRI that is one plain path segment (no scheme, slash, query, fragment, and
#: not a dot segment): resolved by appending it to the base's folder.
_PLAIN = re.compile(r"[A-Za-z0-9_~][A-Za-z0-9_~.\-]*\Z|-[A-Za-z0-9_~.\-]*\Z")
_PROBE = "snapframe-probe-segment"


class _Unsupported(Exception):
    """The document leaves the flat shape the fast walk handles: pyld expands it."""


@dataclass
class Expanded:
    """An expanded document: its node objects, and the keys expansion dropped (terms no
    context defines, as ``(node @id, key)``; that is how context drift shows)."""

    nodes: list[dict]
    dropped: list[tuple[str, str]] = field(default_factory=list)
    fast: bool = True


def _pyld():
    from pyld import jsonld   # imported on first use: 0.2 s, and only JSON-LD needs it
    from pyld.context_resolver import ContextResolver
    return jsonld, ContextResolver


class ContextBudget:
    """How much context processing the files of one floor plan may still take."""

    def __init__(self, definitions: int | None = None, copies: int | None = None) -> None:
        self.definitions = MAX_TERM_DEFINITIONS if definitions is None else definitions
        self.copies = MAX_COPIED_TERMS if copies is None else copies
        #: what was spent: term definitions created, terms copied
        self.defined = 0
        self.copied = 0

    def define(self) -> None:
        self.defined += 1
        if self.defined > self.definitions:
            raise FloorPlanError(f"its JSON-LD contexts take more than {self.definitions} term "
                                 "definitions to process (scoped contexts applied over and "
                                 "over?): not read")

    def copy(self, terms: int) -> None:
        self.copied += terms
        if self.copied > self.copies:
            raise FloorPlanError(f"its JSON-LD contexts take copying more than {self.copies} "
                                 "term definitions to process (a context in every node?): "
                                 "not read")


def _listed_once(local: Any) -> Any:
    """A context list with repeats in a row named once, and not too long."""
    if not isinstance(local, list) or len(local) < 2:
        return local
    out = [item for k, item in enumerate(local)
           if k == 0 or not isinstance(item, str) or item != local[k - 1]]
    if len(out) > MAX_CONTEXT_LIST:
        raise FloorPlanError(f"a @context lists {len(out)} contexts (at most "
                             f"{MAX_CONTEXT_LIST} are read)")
    return out if len(out) < len(local) else local


_processor_class = None


def _bounded_processor(on_property_dropped=None):
    """A :class:`_BoundedProcessor` (the class is made on first use: pyld loads late)."""
    global _processor_class
    if _processor_class is None:
        jsonld, _ = _pyld()

        class _BoundedProcessor(jsonld.JsonLdProcessor):
            """pyld's processor, with scoped contexts processed once per active context
            and the work counted (see the module text)."""

            def __init__(self, on_property_dropped=None) -> None:
                if on_property_dropped is None:
                    super().__init__()
                else:
                    super().__init__(on_property_dropped=on_property_dropped)
                self.budget: ContextBudget | None = None
                self._memo: dict[tuple, tuple] = {}

            def forget(self) -> None:
                self._memo.clear()

            def _process_context(self, active_ctx, local_ctx, options, override_protected=False,
                                 propagate=True, validate_scoped=True, cycles=None):
                key = None
                # (a call with ``cycles`` validates a context still being built: not kept)
                if cycles is None and isinstance(local_ctx, (dict, list)):
                    key = (id(active_ctx), id(local_ctx), override_protected, propagate,
                           validate_scoped, options.get("base"))
                    found = self._memo.get(key)
                    if found is not None:
                        return found[0]
                result = super()._process_context(
                    active_ctx, _listed_once(local_ctx), options,
                    override_protected=override_protected, propagate=propagate,
                    validate_scoped=validate_scoped, cycles=cycles)
                if key is not None:
                    # the inputs are kept with the result, so that their ids stay theirs
                    self._memo[key] = (result, active_ctx, local_ctx)
                return result

            def _create_term_definition(self, *args, **kwargs):
                if self.budget is not None:
                    self.budget.define()
                return super()._create_term_definition(*args, **kwargs)

            def _clone_active_context(self, active_ctx):
                if self.budget is not None:
                    self.budget.copy(len(active_ctx.get("mappings", ())))
                return super()._clone_active_context(active_ctx)

        _processor_class = _BoundedProcessor
    return _processor_class(on_property_dropped)


def _failure(exc: Exception, file: str | Path) -> FloorPlanError:
    """A :class:`FloorPlanError` for a pyld error (its own message, its code, and the
    first cause that is ours, such as an unknown context)."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, FloorPlanError):
            return FloorPlanError(cause.message, file=file, element=cause.element)
        details = getattr(cause, "details", None)
        nested = details.get("cause") if isinstance(details, dict) else None
        cause = nested if isinstance(nested, BaseException) else cause.__cause__
    code = getattr(exc, "code", None)
    first = exc.args[0] if exc.args else ""
    text = (first if isinstance(first, str) else str(exc)).splitlines()[0]
    return FloorPlanError(f"invalid JSON-LD: {text}" + (f" ({code})" if code else ""),
                          file=file)


class Expander:
    """Expands documents against one set of contexts, keeping what it processed."""

    def __init__(self, contexts: dict[str, dict] | None = None) -> None:
        jsonld, ContextResolver = _pyld()
        self._jsonld = jsonld
        self._contexts = contexts
        self._loader: DocumentLoader = make_document_loader("", contexts)
        # A private cache: pyld's default one is shared by URL, so two context versions
        # (the bundled ones, the pinned originals in a test) would be confused.
        self._resolver = ContextResolver({}, self._loader)
        self._processor = _bounded_processor()
        self._absolute = jsonld._is_absolute_iri
        self._keyword = jsonld._is_keyword
        self._lock = threading.Lock()
        self._documents: dict[tuple[str, str], dict] = {}
        self._scoped: dict[tuple, dict] = {}
        # per processed context (by id; kept alive by the two caches above)
        self._keys: dict[int, dict[str, Any]] = {}
        self._folders: dict[int, str | None] = {}
        self._typed_memo: dict[int, dict] = {}
        self._plans: dict[int, dict[str, tuple]] = {}

    # -- public -------------------------------------------------------------------------
    def expand(self, document: Any, file: str | Path, base: str = "",
               budget: ContextBudget | None = None) -> Expanded:
        """``document`` (parsed JSON) expanded; ``base`` is the document's URL (relative
        IRIs resolve against it when its context sets no ``@base``).  Raises
        :class:`FloorPlanError` naming ``file`` for an unknown context, invalid JSON-LD or
        context processing beyond ``budget`` (a fresh :class:`ContextBudget` when None;
        pass one budget for all the files of one floor plan)."""
        budget = budget if budget is not None else ContextBudget()
        # The fast walk refuses node-level contexts: the top-level one is all it reads
        # (pyld's path checks every context of the document first).
        top = document.get("@context") if isinstance(document, dict) else None
        check_context_urls({"@context": top}, file, self._contexts)
        with self._lock:
            self._processor.budget = budget
            try:
                return self._fast(document, base)
            except _Unsupported:
                pass
            except FloorPlanError as exc:
                raise FloorPlanError(exc.message, file=file, element=exc.element) from None
            except self._jsonld.JsonLdError as exc:
                raise _failure(exc, file) from None
            except RecursionError:
                raise FloorPlanError("JSON-LD nested too deeply to expand", file=file) from None
            finally:
                self._processor.budget = None
        return self.expand_with_pyld(document, file, base, budget)

    def expand_with_pyld(self, document: Any, file: str | Path, base: str = "",
                         budget: ContextBudget | None = None) -> Expanded:
        """``pyld.jsonld.expand`` itself, offline (the reference the fast walk matches),
        its context work bounded (see the module text)."""
        check_context_urls(document, file, self._contexts)
        dropped: list[tuple[str, str]] = []
        processor = _bounded_processor(lambda prop: dropped.append(("", str(prop))))
        processor.budget = budget if budget is not None else ContextBudget()
        _, ContextResolver = _pyld()
        options = {"documentLoader": make_document_loader(file, self._contexts),
                   "contextResolver": ContextResolver({}, self._loader), "base": base}
        try:
            nodes = processor.expand(document, options)
        except FloorPlanError as exc:
            raise FloorPlanError(exc.message, file=file, element=exc.element) from None
        except self._jsonld.JsonLdError as exc:
            raise _failure(exc, file) from None
        except RecursionError:
            raise FloorPlanError("JSON-LD nested too deeply to expand", file=file) from None
        return Expanded(nodes, dropped, fast=False)

    # -- the fast walk --------------------------------------------------------------------
    def _options(self, base: str) -> dict:
        return {"documentLoader": self._loader, "contextResolver": self._resolver,
                "base": base, "processingMode": "json-ld-1.1", "isFrame": False,
                "keepFreeFloatingNodes": False, "extractAllScripts": False}

    def _document_context(self, context: Any, options: dict) -> dict:
        key = (json.dumps(context, sort_keys=True), options["base"])
        active = self._documents.get(key)
        if active is None:
            p = self._processor
            active = p._process_context(p._get_initial_context(options), context, options)
            if len(self._documents) >= _KEEP_PROCESSED:
                self._documents.clear()
                self._scoped.clear()
                self._keys.clear()
                self._folders.clear()
                self._typed_memo.clear()
                self._plans.clear()
                self._processor.forget()
            self._documents[key] = active
        return active

    def _apply(self, active: dict, local: Any, options: dict, kind: str) -> dict:
        """``local`` processed on top of ``active``: a type-scoped context (not
        propagated) or a property-scoped one (overriding protected terms), cached."""
        # the scoped context is the object the term definition holds: its id is stable
        # while the definition (in a cached context) lives
        key = (id(active), kind, id(local))
        found = self._scoped.get(key)
        if found is None:
            p = self._processor
            if kind == "type":
                found = p._process_context(active, local, options, propagate=False)
            else:
                found = p._process_context(active, local, options, propagate=True,
                                           override_protected=True)
            self._scoped[key] = found
            self._scoped[(id(found), "keep", id(local))] = (active, local)   # ids stay unique
        return found

    def _fast(self, document: Any, base: str) -> Expanded:
        if not isinstance(document, dict) or set(document) - {"@context", "@graph"} \
                or not isinstance(document.get("@graph"), list):
            raise _Unsupported
        options = self._options(base)
        active = self._document_context(document.get("@context"), options)
        result = Expanded([])
        for node in document["@graph"]:
            if not isinstance(node, dict):
                raise _Unsupported
            expanded = self._node(active, node, options, result.dropped)
            if expanded is not None:
                result.nodes.append(expanded)
        return result

    def _key(self, active: dict, key: str) -> Any:
        """``key`` expanded as a property or keyword (vocabulary-relative), memoised."""
        memo = self._keys.setdefault(id(active), {})
        found = memo.get(key, _MISSING)
        if found is _MISSING:
            found = memo[key] = self._processor._expand_iri(active, key, vocab=True)
        return found

    def _type(self, active: dict, value: str, base: str) -> Any:
        """A ``@type`` value expanded (vocabulary-relative, then document-relative)."""
        memo = self._keys.setdefault(id(active), {})
        found = memo.get(("@type", value), _MISSING)
        if found is _MISSING:
            found = memo[("@type", value)] = self._processor._expand_iri(
                active, value, vocab=True, base=base)
        return found

    def _iri(self, active: dict, value: str, base: str) -> Any:
        """``value`` expanded as a document-relative IRI.  A plain name (letters, digits,
        ``_``, ``-``, ``.``; no colon, slash or dot segment) resolves to the base's folder
        followed by the name, and that folder is what pyld resolves a probe name to, so
        only the first name per context goes through RFC 3986 resolution."""
        if _PLAIN.match(value):
            folder = self._folders.get(id(active), _MISSING)
            if folder is _MISSING:
                probe = self._processor._expand_iri(active, _PROBE, base=base)
                folder = self._folders[id(active)] = (
                    probe[:-len(_PROBE)] if isinstance(probe, str)
                    and probe.endswith(_PROBE) and _PROBE not in probe[:-len(_PROBE)]
                    else None)
            if folder is not None:
                return folder + value
        return self._processor._expand_iri(active, value, base=base)

    def _scalar(self, term: dict, key: str, value: Any, options: dict) -> Any:
        """A scalar property value by the value expansion rules (API 5.3.2)."""
        definition = term["mappings"].get(key)
        kind = definition.get("@type") if definition else None
        if kind == "@id" and isinstance(value, str):
            return {"@id": self._iri(term, value, options["base"])}
        if kind is not None and kind not in ("@id", "@vocab", "@none") \
                and isinstance(value, (bool, int, float, str)):
            return {"@type": kind, "@value": value}
        return self._processor._expand_value(term, key, value, options)

    def _typed(self, context: dict, node: dict, options: dict) -> tuple[dict, dict]:
        """``(active, type-scoped)`` contexts of a node: its types' scoped contexts applied
        in lexicographical order, looked up in the context active before any of them
        (expansion step 11); memoised per combination of types."""
        keys = tuple(k for k in sorted(node) if self._key(context, k) == "@type")
        signature = tuple((k, tuple(node[k]) if isinstance(node[k], list) else node[k])
                          for k in keys)
        memo = self._typed_memo.setdefault(id(context), {})
        try:
            found = memo.get(signature, _MISSING)
        except TypeError:     # an unhashable @type value: pyld reports it
            raise _Unsupported from None
        if found is not _MISSING:
            return found
        active = context
        for key, value in sorted(node.items()):
            if self._key(active, key) != "@type":
                continue
            types = value if isinstance(value, list) else [value]
            for name in sorted(t for t in types if isinstance(t, str)):
                scoped = _definition(context, name, "@context")
                if scoped is not None and scoped is not False:
                    active = self._apply(active, scoped, options, "type")
        memo[signature] = (active, context)
        return active, context

    def _property(self, active: dict, key: str, options: dict) -> tuple:
        """How a key of a node expands in ``active``: ``(iri, keyword?, term context,
        list container?)``, or ``(None, ...)`` when dropped; memoised."""
        memo = self._plans.setdefault(id(active), {})
        found = memo.get(key)
        if found is not None:
            return found
        prop = self._key(active, key)
        if prop is None or not (self._absolute(prop) or self._keyword(prop)):
            found = (None, False, None, False)
        elif self._keyword(prop):
            found = (prop, True, None, False)
        else:
            definition = active["mappings"].get(key)
            if definition is not None and (definition.get("reverse")
                                           or definition.get("@type") == "@json"):
                raise _Unsupported
            term = active
            scoped = _definition(active, key, "@context")
            if scoped is not None:
                term = self._apply(active, scoped, options, "property")
            container = _listed(_definition(active, key, "@container"))
            if any(c not in ("@list", "@set") for c in container):
                raise _Unsupported
            found = (prop, False, term, "@list" in container)
        memo[key] = found
        return found

    def _node(self, context: dict, node: dict, options: dict,
              dropped: list[tuple[str, str]]) -> dict | None:
        """One top-level node object (expansion algorithm steps 8-20 for a node)."""
        if "@context" in node:
            raise _Unsupported
        active, type_scoped = self._typed(context, node, options)
        out: dict = {}
        base = options["base"]
        for key, value in sorted(node.items()):
            prop, keyword, term, is_list = self._property(active, key, options)
            if prop is None:
                dropped.append((str(node.get("@id", "")), key))
                continue
            if keyword:
                if prop in out:
                    raise _Unsupported            # colliding keywords: pyld reports it
                if prop == "@id" and isinstance(value, str):
                    out["@id"] = self._iri(active, value, base)
                elif prop == "@type" and all(isinstance(v, str) for v in _listed(value)):
                    out["@type"] = [self._type(type_scoped, v, base) for v in _listed(value)]
                else:
                    raise _Unsupported
                continue
            expanded = self._value(term, key, value, options, is_list)
            if expanded is None:
                continue
            if is_list and not (isinstance(expanded, dict) and "@list" in expanded):
                expanded = {"@list": expanded if isinstance(expanded, list) else [expanded]}
            _add(out, prop, expanded)
        if not out or (len(out) == 1 and "@id" in out):
            return None   # dropped like any top-level node with nothing but an @id
        return out

    def _value(self, term: dict, key: str, value: Any, options: dict,
               in_list: bool) -> Any:
        """A property value: scalars by the value expansion rules, arrays element-wise
        (an array inside a list becomes a nested list)."""
        if value is None:
            return None
        if isinstance(value, list):
            out: list = []
            # the container of the term as the property-scoped context defines it
            inside = in_list or "@list" in _listed(_definition(term, key, "@container"))
            for item in value:
                if isinstance(item, list):
                    if not inside:
                        raise _Unsupported
                    nested = self._value(term, key, item, options, True)
                    out.append({"@list": nested})
                    continue
                expanded = self._value(term, key, item, options, inside)
                if expanded is not None:
                    out.append(expanded)
            return out
        if isinstance(value, dict):
            raise _Unsupported
        return self._scalar(term, key, value, options)


def _definition(active: dict, key: str, what: str) -> Any:
    entry = active["mappings"].get(key)
    return entry.get(what) if entry else None


def _listed(value: Any) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _add(node: dict, prop: str, value: Any) -> None:
    """Add to a property's array of values (an array value adds each of its items)."""
    values = node.setdefault(prop, [])
    if isinstance(value, list):
        values.extend(value)
    else:
        values.append(value)


_default: Expander | None = None
_default_lock = threading.Lock()


def default_expander() -> Expander:
    """The process-wide expander over the bundled contexts (its caches are shared)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Expander()
        return _default


def expand(document: Any, file: str | Path, base: str = "",
           budget: ContextBudget | None = None) -> Expanded:
    """``document`` expanded against the bundled contexts (see :class:`Expander`)."""
    return default_expander().expand(document, file, base, budget)


def expand_with_pyld(document: Any, file: str | Path, base: str = "",
                     budget: ContextBudget | None = None) -> Expanded:
    """``document`` expanded by ``pyld.jsonld.expand`` against the bundled contexts."""
    return default_expander().expand_with_pyld(document, file, base, budget)
