"""Loading documents and resolving ``//include``: URIs, search paths, caching, cycles.

The format plugins parse text; this module decides *which* file an include names, asks
the registry which plugin reads it (SDFormat itself, or a custom model parser such as
URDF or OpenPLX), caches the result per resolved file, and stops include cycles.

URI rules (after libsdformat's ``findFile``):

* ``file://path`` and plain paths: an absolute path as is; a relative path next to the
  including file, then below each search path.
* ``model://name/rest`` and ``package://name/rest``: ``name`` is looked up as a folder
  below each search path (and the including file's folder and its parent, so sibling
  model folders work without configuration).
* Search paths: explicit ``search_paths`` first, then ``SDF_PATH``,
  ``GZ_SIM_RESOURCE_PATH``, ``IGN_GAZEBO_RESOURCE_PATH`` and ``ROS_PACKAGE_PATH``.
* A folder is a model directory: its ``model.config`` (or ``manifest.xml``) names the
  SDFormat file; the newest ``<sdf version>`` we support wins.
* Network URIs are never fetched (``URI_LOOKUP``).

Loading stays linear in the number of files: each file is parsed once and shared by all
its includes.  Included files are loaded bottom-up with an explicit stack: before a file is
parsed, the files it includes (a format lists them, ``include_references``) are parsed, so
its own includes find their models cached and a chain of a hundred files, each nesting
models as deep as its XML allows, never recurses through the chain.

What the document *describes* can still be exponential (eight files that include each
other eight times describe two million instances), so every include's expansion is
counted (:mod:`snapframe.core.frames.budget`) and an include that would take its file past
:data:`snapframe.core.limits.MAX_ELEMENT_INSTANCES` (or the characters of the instances'
names past :data:`~snapframe.core.limits.MAX_NAME_CHARACTERS`, or nest models deeper than
:data:`~snapframe.core.limits.MAX_MODEL_NESTING`) is refused with one ``RESOURCE_LIMIT``
error naming the file and the include; files that include a refused file leave it out
silently (the root cause is reported once).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from .diagnostics import Code, Diagnostic, Diagnostics, Severity, SourceLocation
from .fileio import read_xml_file, unreadable_reason
from .formats import FormatRegistry, registry as default_registry
from .frames.budget import InstanceCounter, check_document_budget
from . import limits
from .model import Document, Include, Model, NestedInclude
from .progress import checkpoint
from .xmlsafe import XmlError, parse_xml_bytes

__all__ = ["LoadContext", "load", "ENV_SEARCH_VARIABLES", "SUPPORTED_SDF_VERSIONS"]

ENV_SEARCH_VARIABLES = ("SDF_PATH", "GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH",
                        "ROS_PACKAGE_PATH")
SUPPORTED_SDF_VERSIONS = ("1.0", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10",
                          "1.11", "1.12")
_SDF_SUFFIXES = (".sdf", ".world")
#: Includes nested deeper than this are refused (a real assembly is a handful deep; this
#: bounds a pathological chain of files; libsdformat 12 reads a chain of 90).
MAX_INCLUDE_DEPTH = 100


def _version_key(v: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in v.split("."))
    except ValueError:
        return (0,)


def _exists(path: Path) -> bool:
    """``path.exists()`` that is False, not an exception, for names no file can have
    (too long, a NUL byte): a URI is input, and any text may be written there."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


@dataclass
class _CachedInclude:
    model: Model | None
    format: str
    diagnostics: list
    #: Element instances the model expands to, and the characters of their scoped names
    #: (see snapframe.core.frames.budget).
    instances: int = 0
    chars: int = 0
    #: Levels of models the model nests, itself included (see InstanceCounter.levels).
    levels: int = 0
    #: The file went over the expansion budget itself: its includers leave it out.
    over_budget: bool = False
    #: The file holds no model but another element an include may name (SDFormat: a
    #: "light" or an "actor"), kept as written: no model, and not a failure.
    element: str = ""


@dataclass(eq=False)
class _Pending:
    """A file to parse once the files it includes are loaded (see _load_files)."""

    target: Path
    nested: NestedInclude
    where: SourceLocation
    element: str
    key: tuple[str, str]
    #: The includes of the file not looked at yet (None: not listed yet).
    references: "Iterator[tuple[Include, str]] | None" = None


@dataclass
class _Expansion:
    """What the includes of the file being parsed have added so far."""

    used: int = 0
    #: Characters of the scoped names of what the includes added (see budget.py).
    chars: int = 0
    #: This file went over the budget: an include of it was refused (reported once).
    refused: bool = False
    #: An include of this file was refused for nesting too deep (reported once).
    too_deep: bool = False


@dataclass
class LoadContext:
    """Settings and caches for one load (a document and everything it includes)."""

    search_paths: list[Path] = field(default_factory=list)
    registry: FormatRegistry = field(default_factory=lambda: default_registry)
    #: Extra ``scheme -> folders`` for URIs (``ParserConfig::AddURIPath``).
    uri_paths: dict[str, list[Path]] = field(default_factory=dict)
    #: Called with the URI when nothing else finds it (``ParserConfig::SetFindCallback``).
    find_callback: Callable[[str], str | None] | None = None
    use_environment: bool = True
    #: Where a plugin's ``parse_include`` reports problems (the file being parsed now).
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    _cache: dict[tuple[str, str], _CachedInclude] = field(default_factory=dict)
    _stack: list[str] = field(default_factory=list)
    #: (uri, base folder) -> resolved model file, so N includes of one model cost one lookup.
    _resolved: dict[tuple[str, str], tuple[Path | None, list]] = field(default_factory=dict)
    #: Instance counts of loaded models, shared by the whole load (budget checks).
    _instances: InstanceCounter = field(default_factory=InstanceCounter)
    #: One entry per file on ``_stack`` that is being parsed: its includes' expansion.
    _expansion: list[_Expansion] = field(default_factory=list)
    #: resolved file name -> what a format plugin read of it while listing its includes
    #: (``include_references``), for its ``parse_include`` to take instead of reading the
    #: file again.  Emptied as each file is parsed.
    prefetched: dict[str, object] = field(default_factory=dict)
    #: Set by a plugin's ``parse_include`` that declines a file because it holds another
    #: element than a model (SDFormat: "light", "actor"): see _CachedInclude.element.
    held_element: str = ""

    # -- search paths -------------------------------------------------------------
    def all_search_paths(self) -> list[Path]:
        paths = list(self.search_paths)
        if self.use_environment:
            for var in ENV_SEARCH_VARIABLES:
                for part in os.environ.get(var, "").split(os.pathsep):
                    if part:
                        paths.append(Path(part))
        return paths

    def resolve_uri(self, uri: str, base_dir: Path) -> Path | None:
        """The file or model folder ``uri`` names, or None."""
        uri = uri.strip()
        scheme, sep, rest = uri.partition("://")
        if not sep:
            scheme, rest = "", uri
        if scheme in ("http", "https", "ftp"):
            return None  # never fetched: no network access by design
        candidates: list[Path] = []
        for folder in self.uri_paths.get(scheme, []):
            candidates.append(folder / rest)
        if scheme in ("", "file"):
            p = Path(rest)
            if p.is_absolute():
                candidates.append(p)
            else:
                candidates.append(base_dir / p)
                candidates.extend(sp / p for sp in self.all_search_paths())
        else:  # model://, package:// and unknown schemes search by folder name
            roots = [*self.all_search_paths(), base_dir, base_dir.parent]
            candidates.extend(root / rest for root in roots)
        for c in candidates:
            if _exists(c):
                return c.resolve()
        if self.find_callback is not None:
            found = self.find_callback(uri)
            if found:
                return Path(found).resolve()
        return None

    def model_file_of_directory(self, folder: Path, diagnostics: Diagnostics,
                                where: SourceLocation) -> Path | None:
        """The SDFormat file a model directory's ``model.config``/``manifest.xml`` names."""
        for manifest_name in ("model.config", "manifest.xml"):
            manifest = folder / manifest_name
            if _exists(manifest):  # not is_file(): a FIFO here is refused, not ignored
                break
        else:
            diagnostics.error(Code.FILE_READ,
                              f"Could not find model.config or manifest.xml in [{folder}]", where)
            return None
        try:
            # Through read_xml_file: a model.config that is a FIFO or /dev/zero is
            # refused instead of blocking or filling memory.
            root = parse_xml_bytes(read_xml_file(manifest), str(manifest)).getroot()
        except (XmlError, OSError) as exc:
            diagnostics.error(Code.FILE_READ, f"Unable to read model.config [{manifest}]: {exc}",
                              where)
            return None
        best: tuple[tuple[int, ...], str] | None = None
        for sdf in root.iter("sdf"):
            version = (sdf.get("version") or "").strip()
            text = (sdf.text or "").strip()
            if not text:
                continue
            key = _version_key(version) if version else (0,)
            if version and version not in SUPPORTED_SDF_VERSIONS:
                continue
            if best is None or key > best[0]:
                best = (key, text)
        if best is None:
            diagnostics.error(Code.FILE_READ,
                              f"No <sdf> element with a supported version in [{manifest}]", where)
            return None
        return (folder / best[1]).resolve()

    # -- includes -----------------------------------------------------------------
    def load_include(self, include: Include, base_dir: Path, scope_name: str,
                     diagnostics: Diagnostics, depth: int = 0) -> None:
        """Resolve ``include.uri`` and set ``include.model`` / ``resolved_path`` / ``format``.

        ``depth`` is how many models of its file enclose the include (0 in a world): with
        the levels the included model nests, it must stay within
        :data:`snapframe.core.limits.MAX_MODEL_NESTING`.
        Problems go to ``diagnostics`` (the including document's) and are kept on the
        include (``load_diagnostics``), so they leave with it when it is removed and come
        back with its undo; a failed include leaves ``include.model`` None.
        """
        found = Diagnostics()
        try:
            self._load_include(include, base_dir, scope_name, found, depth)
        finally:
            include.load_diagnostics = list(found)
            diagnostics.extend(found)

    def _load_include(self, include: Include, base_dir: Path, scope_name: str,
                      diagnostics: Diagnostics, depth: int = 0) -> None:
        checkpoint()   # a job loading a world of many includes may be cancelled here
        where = include.source
        element = include.element_path() + "/uri"
        if not include.uri:
            diagnostics.error(Code.ATTRIBUTE_MISSING, "<include> is missing its <uri>", where, element)
            return
        key = (include.uri, str(base_dir))
        if key not in self._resolved:
            self._resolved[key] = self._resolve_model_file(include.uri, base_dir)
        target, problems = self._resolved[key]
        for code, message in problems:
            diagnostics.error(code, message, where, element)
        if target is None:
            return
        if not target.is_file():
            diagnostics.error(Code.FILE_READ, f"Unable to read file: {unreadable_reason(target)}",
                              where, element)
            return
        include.resolved_path = str(target)
        path_key = str(target)
        if path_key in self._stack:
            chain = limits.listed([*self._stack[self._stack.index(path_key):], path_key],
                                  most=12, separator=" -> ")
            diagnostics.error(Code.INCLUDE_CYCLE, f"Include cycle detected: {chain}", where, element)
            return
        if len(self._stack) >= MAX_INCLUDE_DEPTH:
            diagnostics.error(Code.FILE_READ, f"Includes are nested more than {MAX_INCLUDE_DEPTH} "
                              f"levels deep at [{include.uri}]; not following further", where,
                              element)
            return

        cache_key = (path_key, "merge" if include.merge else "")
        cached = self._cache.get(cache_key)
        if cached is None:
            cached = self._load_files(_Pending(target, _nested_include(include, path_key,
                                                                       scope_name),
                                               where, element, cache_key))
        diagnostics.extend(cached.diagnostics)
        include.format = cached.format
        if cached.element:
            include.extras["included_element"] = cached.element
        else:
            include.extras.pop("included_element", None)  # re-pointed from a light, say
        if cached.model is not None and not self._admit(include, cached, diagnostics, depth):
            return  # refused: include.model stays None, like an include that failed
        include.model = cached.model

    def _load_files(self, first: _Pending) -> _CachedInclude:
        """Parse ``first`` and, before it, every file it includes that is not loaded yet,
        depth-first in the order its includes are read, with an explicit stack: when a file
        is parsed, its includes find their models cached.  ``_stack`` holds the files of
        the stack while they wait, so cycles and the depth limit are seen as a recursive
        load would see them; what is skipped here (a cycle, a file that cannot be found)
        is left for the include itself to report when its file is parsed."""
        pending = [first]
        self._stack.append(str(first.target))
        try:
            while pending:
                checkpoint()
                item = pending[-1]
                if item.references is None:
                    item.references = iter(self._include_references(item))
                reference = next(item.references, None)
                if reference is not None:
                    child = self._pending_include(item, *reference)
                    if child is not None:
                        pending.append(child)
                        self._stack.append(str(child.target))
                    continue
                self._cache[item.key] = self._parse_counted(item)
                pending.pop()
                self._stack.pop()
        finally:
            for _ in pending:  # an exception: leave the stack as it was
                self._stack.pop()
            for item in pending:
                self.prefetched.pop(str(item.target), None)
        return self._cache[first.key]

    def _include_references(self, item: _Pending) -> list[tuple[Include, str]]:
        """The includes of ``item``'s file, as its format lists them (none if it cannot)."""
        if item.target.suffix.lower() not in _SDF_SUFFIXES:
            return []  # only SDFormat files include other files
        descriptor = self.registry.get("sdformat")
        if descriptor is None:
            return []
        try:
            lister = getattr(self.registry.implementation(descriptor), "include_references",
                             None)
            return list(lister(item.nested, self)) if lister is not None else []
        except Exception:  # a plugin's bug: the parse reports it (PLUGIN_ERROR)
            return []

    def _pending_include(self, parent: _Pending, include: Include, scope_name: str
                         ) -> _Pending | None:
        """The file ``include`` (held by ``parent``'s file) names, if it must be parsed
        now: found, not loaded yet, no cycle, not too deep."""
        if not include.uri:
            return None
        base_dir = parent.target.parent
        key = (include.uri, str(base_dir))
        if key not in self._resolved:
            self._resolved[key] = self._resolve_model_file(include.uri, base_dir)
        target, _ = self._resolved[key]
        if target is None or not target.is_file():
            return None
        path_key = str(target)
        cache_key = (path_key, "merge" if include.merge else "")
        if cache_key in self._cache or path_key in self._stack \
                or len(self._stack) >= MAX_INCLUDE_DEPTH:
            return None
        include.resolved_path = path_key
        where = SourceLocation(str(parent.target), include.source.line)
        return _Pending(target, _nested_include(include, path_key, scope_name), where,
                        include.element_path() + "/uri", cache_key)

    def _parse_counted(self, item: _Pending) -> _CachedInclude:
        """Parse ``item``'s file (on top of ``_stack``) and count what it expands to."""
        self._expansion.append(_Expansion())
        try:
            cached = self._parse_included(item.target, item.nested, item.where, item.element)
        finally:
            expansion = self._expansion.pop()
            self.prefetched.pop(str(item.target), None)
        if cached.model is not None:
            cached.instances, cached.chars = self._instances.figures(cached.model)
            cached.levels = self._instances.levels(cached.model)
        cached.over_budget = (expansion.refused
                              or cached.instances > limits.MAX_ELEMENT_INSTANCES
                              or cached.chars > limits.MAX_NAME_CHARACTERS)
        if cached.over_budget and not expansion.refused:
            # Over by its own elements (or by the names its nesting gives what it
            # includes): nothing reported that yet, and its includers leave it out.
            name = str(item.target)
            message = (limits.budget_message(f"[{name}]", f"{cached.instances:,}")
                       if cached.instances > limits.MAX_ELEMENT_INSTANCES else
                       limits.names_message(f"[{name}]", f"{cached.chars:,}"))
            cached.diagnostics.append(Diagnostic(Severity.ERROR, Code.RESOURCE_LIMIT, message,
                                                 name, 0))
        return cached

    def _admit(self, include: Include, cached: _CachedInclude, diagnostics: Diagnostics,
               depth: int = 0) -> bool:
        """Count ``include`` against the budgets of the file being parsed; False (and one
        ``RESOURCE_LIMIT`` error per file) if it would take that file past the element
        budget or nest its models deeper than the nesting limit."""
        expansion = self._expansion[-1] if self._expansion else _Expansion()
        if cached.over_budget:
            # The included file is over the budget by itself; its own RESOURCE_LIMIT error
            # (in cached.diagnostics) is the root cause.  This file is not: the rest of
            # it is kept, like the rest of a file whose include failed.
            return False
        name = include.name or (cached.model.name if cached.model is not None else "")
        where = include.source
        what = f"[{where.file or '<string>'}] (at its <include> [{name}] of [{include.uri}])"
        levels = depth + cached.levels
        if levels > limits.MAX_MODEL_NESTING:
            if not expansion.too_deep:
                diagnostics.error(Code.RESOURCE_LIMIT, limits.nesting_message(what, levels),
                                  where, include.element_path())
            expansion.too_deep = True
            return False
        total = expansion.used + 1 + cached.instances
        # The include and everything below it are named "<name>::..." (a lower bound: the
        # models around the include in this file prefix them too).
        chars = (expansion.chars + len(name) + cached.instances * (len(name) + 2)
                 + cached.chars)
        if total <= limits.MAX_ELEMENT_INSTANCES and chars <= limits.MAX_NAME_CHARACTERS:
            expansion.used, expansion.chars = total, chars
            return True
        if not expansion.refused:
            message = (limits.budget_message(what, f"at least {total:,}")
                       if total > limits.MAX_ELEMENT_INSTANCES else
                       limits.names_message(what, f"at least {chars:,}"))
            diagnostics.error(Code.RESOURCE_LIMIT, message, where, include.element_path())
        expansion.refused = True
        return False

    def _resolve_model_file(self, uri: str, base_dir: Path) -> tuple[Path | None, list]:
        """The file an include URI names (through model.config for folders), or the
        problems that prevent finding it as ``(code, message)`` pairs."""
        target = self.resolve_uri(uri, base_dir)
        if target is None:
            return None, [(Code.URI_LOOKUP, f"Unable to find uri[{uri}]")]
        if not target.is_dir():
            return target, []
        if not any(_exists(target / m) for m in ("model.config", "manifest.xml")):
            # A folder a custom model parser reads as a whole (a FloorPlan JSON-LD folder):
            # the include names the file that marks it, which that parser claims.
            for d in self.registry.include_parsers():
                if d.folder_marker and (target / d.folder_marker).is_file():
                    return (target / d.folder_marker).resolve(), []
        found = Diagnostics()
        model_file = self.model_file_of_directory(target, found, SourceLocation())
        if model_file is None:
            problems = [(d.code, d.message) for d in found]
            problems.append((Code.URI_LOOKUP, f"Unable to resolve uri[{uri}] to model path "
                             f"[{target}] since it does not contain a model.config file."))
            return None, problems
        return model_file, []

    def _parse_included(self, target: Path, nested: NestedInclude, where: SourceLocation,
                        element: str) -> _CachedInclude:
        local = Diagnostics()
        suffix = target.suffix.lower()
        if suffix in _SDF_SUFFIXES:
            descriptors = [self.registry.get("sdformat")]
        else:
            # Custom model parsers: most recently registered first; the first that returns
            # a model wins; a parser that reports an error stops the search (spec 1.5).
            descriptors = [d for d in self.registry.include_parsers() if d.matches(target)]
        for descriptor in descriptors:
            if descriptor is None:
                continue
            outer, self.diagnostics = self.diagnostics, local
            self.held_element = ""
            try:
                impl = self.registry.implementation(descriptor)
                model = impl.parse_include(nested, self)
            except Exception as exc:  # a plugin's bug becomes a diagnostic, not a crash
                local.error(Code.PLUGIN_ERROR, f"format plugin '{descriptor.name}' failed on "
                            f"[{target}]: {type(exc).__name__}: {exc}", where, element)
                return _CachedInclude(None, descriptor.name, list(local))
            finally:
                self.diagnostics = outer
                held, self.held_element = self.held_element, ""
            if model is None and held:
                # Not a model, and not a failure: the includer keeps the element as written.
                return _CachedInclude(None, descriptor.name, list(local), element=held)
            if model is not None:
                # A model with element errors is kept (as libsdformat does): the errors are
                # reported, and what is right in the file still resolves.
                return _CachedInclude(model, descriptor.name, list(local))
            if local.has_errors():
                return _CachedInclude(None, descriptor.name, list(local))
        local.error(Code.URI_LOOKUP, f"No format can include [{target}] (uri [{nested.uri}])",
                    where, element)
        return _CachedInclude(None, "", list(local))


def _nested_include(include: Include, path_key: str, scope_name: str) -> NestedInclude:
    """What a format's ``parse_include`` is told about ``include`` (file ``path_key``)."""
    return NestedInclude(
        uri=include.uri, resolved_file_name=path_key,
        absolute_model_name="::".join(p for p in (scope_name, include.name) if p),
        local_model_name=include.name, is_static=bool(include.static),
        include_raw_pose=include.pose.value if include.pose else None,
        include_pose_relative_to=include.pose.relative_to if include.pose else "",
        include_element=include.xml, merge=include.merge)


def load(path: str | os.PathLike, context: LoadContext | None = None) -> Document:
    """Read any supported file into a :class:`Document` and check it.

    Never raises for bad input: problems are in ``document.diagnostics``.
    """
    context = context or LoadContext()
    path = Path(path)
    descriptor = context.registry.for_path(path, capability="read")
    if descriptor is None:
        doc = Document(path=str(path))
        known = ", ".join(context.registry.extensions("read")) or "none"
        doc.diagnostics.error(Code.FILE_READ, f"Unknown file type [{path.name}]; "
                              f"readable extensions: {known}", SourceLocation(str(path)))
        return doc
    # A format that reads folders (descriptor.folder_marker) is given the folder itself.
    if not path.is_file() and not (descriptor.folder_marker and path.is_dir()):
        doc = Document(path=str(path), format=descriptor.name)
        doc.diagnostics.error(Code.FILE_READ, f"Unable to read file: {unreadable_reason(path)}",
                              SourceLocation(str(path)))
        return doc
    impl = context.registry.implementation(descriptor)
    context._stack.append(str(path.resolve()))
    context._expansion.append(_Expansion())
    try:
        doc = impl.read(path, context)
    finally:
        context._stack.pop()
        context._expansion.pop()
    doc.format = doc.format or descriptor.name
    # The includes were counted as they loaded; this adds the file's own elements (and
    # reports nothing more if one of its includes was refused already).
    check_document_budget(doc, context._instances)
    # Values of the document's own elements that libsdformat's Root::Load also checks
    # (invalid inertia...), for every format; the live document redoes them after edits.
    if doc.root is not None:
        from .model_checks import check_values
        doc.diagnostics.extend(check_values(doc))
    # Edits that load files later (an include added or re-pointed) use the same settings.
    doc.extras["load_context"] = context
    return doc
