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

__all__ = ["Expanded", "Expander", "expand", "expand_with_pyld"]

_KEEP_PROCESSED = 256
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
        self._processor = jsonld.JsonLdProcessor()
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
    def expand(self, document: Any, file: str | Path, base: str = "") -> Expanded:
        """``document`` (parsed JSON) expanded; ``base`` is the document's URL (relative
        IRIs resolve against it when its context sets no ``@base``).  Raises
        :class:`FloorPlanError` naming ``file`` for an unknown context or invalid JSON-LD."""
        # The fast walk refuses node-level contexts: the top-level one is all it reads
        # (pyld's path checks every context of the document first).
        top = document.get("@context") if isinstance(document, dict) else None
        check_context_urls({"@context": top}, file, self._contexts)
        with self._lock:
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
        return self.expand_with_pyld(document, file, base)

    def expand_with_pyld(self, document: Any, file: str | Path, base: str = "") -> Expanded:
        """``pyld.jsonld.expand`` itself, offline (the reference the fast walk matches)."""
        check_context_urls(document, file, self._contexts)
        dropped: list[tuple[str, str]] = []
        processor = self._jsonld.JsonLdProcessor(
            on_property_dropped=lambda prop: dropped.append(("", str(prop))))
        _, ContextResolver = _pyld()
        options = {"documentLoader": make_document_loader(file, self._contexts),
                   "contextResolver": ContextResolver({}, self._loader), "base": base}
        try:
            nodes = processor.expand(document, options)
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


def expand(document: Any, file: str | Path, base: str = "") -> Expanded:
    """``document`` expanded against the bundled contexts (see :class:`Expander`)."""
    return default_expander().expand(document, file, base)


def expand_with_pyld(document: Any, file: str | Path, base: str = "") -> Expanded:
    """``document`` expanded by ``pyld.jsonld.expand`` against the bundled contexts."""
    return default_expander().expand_with_pyld(document, file, base)
