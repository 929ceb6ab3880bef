"""Bundles, namespaces and name lookup.

A namespace is a folder: ``Physics3D/Interactions/Hinge.openplx`` declares its models in
``Physics3D.Interactions``, whatever the file is called, and one file may declare many
models.  A bundle is a folder with a ``config.openplx``.  Namespaces are parsed lazily
(all files of one folder at a time) and bundle files are cached per process, keyed by
path, modification time and size, so building many workspaces stays cheap.

Name lookup (``Workspace.resolve``) from a file in namespace ``A.B``: the file's own
models and its imports first, then ``A.B.<name>``, ``A.<name>``, ``<name>``; so inside
``Physics3D/Interactions`` ``Mate`` means ``Physics3D.Interactions.Mate`` and
``Signals.MateConnector.X`` means ``Physics3D.Signals.MateConnector.X``.

Files written for OpenPLX 0.16 are accepted through :data:`TYPE_RENAMES` and
:data:`ATTRIBUTE_RENAMES` (the 0.19 migration removed the ``Charges`` namespaces).
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from snapframe.core.diagnostics import Code
from snapframe.core.fileio import read_regular_file

from . import ast as A
from .errors import OpenPlxProblem
from .parser import parse

__all__ = ["Workspace", "FileContext", "ModelSymbol", "GlobalSymbol", "NamespaceRef",
           "TYPE_RENAMES", "ATTRIBUTE_RENAMES", "renamed_type", "snake_case", "default_bundle_roots",
           "bundle_setup", "PRIMITIVES", "safe_resolve", "RUNTIME_PATH"]

PRIMITIVES = frozenset({"Real", "Int", "Bool", "String"})

#: 0.16 qualified names that moved in 0.19 (exact entries; see :func:`renamed_type`).
TYPE_RENAMES: dict[str, str] = {
    "Physics3D.Charges.MateConnector": "Physics3D.Interactions.MateConnector",
    "Physics3D.Charges.RedirectedMateConnector": "Physics3D.Interactions.RedirectedMateConnector",
    "Physics3D.Charges.AdaptiveMateConnector": "Physics3D.Interactions.AdaptiveMateConnector",
    "Physics3D.Charges.StructuralPlanarConnector":
        "Physics3D.Interactions.StructuralPlanarConnector",
    "Physics.Charges.Material": "Physics.Geometries.Material",
    "Physics.Charges.ContactGeometry": "Physics.Geometries.ContactGeometry",
    "Physics.Charges.Charge": "Physics.Interactions.Connector",
}
#: 0.16 attribute names that were renamed in 0.19.
ATTRIBUTE_RENAMES: dict[str, str] = {"charges": "connectors"}


def renamed_type(qname: str) -> str | None:
    """The 0.19 name of a 0.16 type name, or None.  Any other ``Physics3D.Charges.X``
    (the geometries) moved to ``Physics3D.Geometries.X``."""
    if qname in TYPE_RENAMES:
        return TYPE_RENAMES[qname]
    if qname.startswith("Physics3D.Charges."):
        return "Physics3D.Geometries." + qname[len("Physics3D.Charges."):]
    return None


_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def snake_case(name: str) -> str:
    """``fromTo`` -> ``from_to`` (older dialects named functions in camelCase)."""
    return _CAMEL.sub(lambda m: "_" + m.group(1).lower(), name)


def safe_resolve(path: Path | str) -> Path:
    """``Path.resolve`` that never raises: a symlink loop (RuntimeError before Python
    3.13), an unreadable folder or a NUL character (ValueError) gives the absolute path
    instead."""
    p = Path(path)
    try:
        return p.resolve()
    except (OSError, RuntimeError, ValueError):
        return p.absolute()


def default_bundle_roots() -> list[Path]:
    """The folders holding the official bundles: ``openplxbundles.bundle_path()`` (which
    honours ``OPENPLX_BUNDLE_PATH``), when that package is installed."""
    return bundle_setup()[0]


def bundle_setup() -> tuple[list[Path], str, bool]:
    """``(bundle roots, note, note is an error)``.  A broken ``OPENPLX_BUNDLE_PATH`` (the
    package asserts on it) falls back to the installed bundles with a warning; no bundles
    at all is an error that explains every unknown type that follows."""
    env = os.environ.get("OPENPLX_BUNDLE_PATH")

    def ok(p: str | Path | None) -> bool:
        return bool(p) and Path(p, "Math", "config.openplx").is_file()  # type: ignore[arg-type]

    if "OPENPLX_BUNDLE_PATH" not in os.environ and "openplxbundles" not in sys.modules:
        # The usual set-up: the installed package, found without importing it (it imports
        # logging, a good part of a small load's start-up) at the folder its
        # bundle_path() returns then, its own (with Math/config.openplx).
        import importlib.util
        spec = importlib.util.find_spec("openplxbundles")
        if spec is not None and spec.origin:
            package = os.path.dirname(os.path.abspath(spec.origin))
            if ok(package):
                return [Path(package)], "", False
    try:
        import openplxbundles  # type: ignore[import-not-found]
    except ImportError:
        if ok(env):
            return [Path(env)], "", False  # type: ignore[arg-type]
        return [], ("the OpenPLX bundles are not available: install openplx-bundles or set "
                    "OPENPLX_BUNDLE_PATH to a folder with Math/config.openplx"), True
    if not env or ok(env):
        try:
            return [Path(openplxbundles.bundle_path())], "", False
        except Exception:  # noqa: BLE001 - the package raises AssertionError/FileNotFoundError
            pass
    package = getattr(openplxbundles, "package_dir", lambda: "")()
    if ok(package):
        return [Path(package)], (f"OPENPLX_BUNDLE_PATH '{env}' holds no OpenPLX bundles (no "
                                 "Math/config.openplx); the installed openplx-bundles are used"), False
    return [], ("the OpenPLX bundles are not available: install openplx-bundles or set "
                "OPENPLX_BUNDLE_PATH to a folder with Math/config.openplx"), True


# -- symbols ------------------------------------------------------------------------


# FileContext, ModelSymbol and GlobalSymbol are written out (they were dataclasses with
# eq=False: the same constructors, attributes, identity equality and repr): creating
# dataclasses costs more at import than a small load.

_NEW: Any = object()  # default of a dict or list attribute: a new empty one per object


class FileContext:
    """What name lookup needs to know about the file a statement is written in."""

    def __init__(self, path: str, namespace: tuple[str, ...], source: A.SourceFile,
                 local: dict[str, ModelSymbol | GlobalSymbol] = _NEW,
                 imports: list[tuple[tuple[str, ...], FileContext]] = _NEW) -> None:
        self.path = path
        self.namespace = namespace
        self.source = source
        #: Models and globals declared in this file by simple name (user files).
        self.local = {} if local is _NEW else local
        #: ``import ... as a.b``: alias parts -> the imported file's context.
        self.imports = [] if imports is _NEW else imports

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(path={self.path!r}, namespace={self.namespace!r})"

    @property
    def directory(self) -> Path:
        return Path(self.path).parent if self.path else Path.cwd()


class ModelSymbol:
    """A model or trait declaration with its fully qualified name."""

    def __init__(self, qname: str, decl: A.ModelDecl, ctx: FileContext) -> None:
        self.qname = qname
        self.decl = decl
        self.ctx = ctx

    @property
    def name(self) -> str:
        return self.decl.name

    def __repr__(self) -> str:
        return f"ModelSymbol({self.qname})"


class GlobalSymbol:
    """A top-level attribute with a value (``Math.PI``)."""

    def __init__(self, qname: str, decl: A.GlobalDecl, ctx: FileContext) -> None:
        self.qname = qname
        self.decl = decl
        self.ctx = ctx

    def __repr__(self) -> str:
        return f"GlobalSymbol({self.qname})"


@dataclass(frozen=True)
class NamespaceRef:
    """A namespace used in an expression or a qualified name (``Math`` in ``Math.PI``)."""

    parts: tuple[str, ...]

    def __str__(self) -> str:
        return ".".join(self.parts)


Symbol = ModelSymbol | GlobalSymbol

_PARSE_CACHE: dict[str, tuple[int, int, A.SourceFile]] = {}


def parse_cached(path: Path) -> A.SourceFile:
    """Parse a read-only library file, reusing the tree while the file is unchanged.
    Raises ``OSError`` for a file that cannot be read (see :func:`read_source`)."""
    key = str(path)
    st = path.stat()
    hit = _PARSE_CACHE.get(key)
    if hit is not None and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
        return hit[2]
    source = parse(read_source(path), key)
    _PARSE_CACHE[key] = (st.st_mtime_ns, st.st_size, source)
    return source


#: A name at the start of a line, after ``const`` or ``trait``: every top-level declaration
#: starts so (lines of a triple-quoted string may too: a superset is all an index needs).
_LINE_START_NAME = re.compile(r"(?:\A\ufeff?|(?<=[\r\n]))(?:(?:const|trait)[ \t]+)?([^\W\d]\w*)")
#: The same for a text with only LF line breaks and no byte order mark (the bundles'
#: files): anchored by MULTILINE's ``^``, several times faster than the look-behind.
_LF_LINE_START_NAME = re.compile(r"^(?:(?:const|trait)[ \t]+)?([^\W\d]\w*)", re.MULTILINE)

_NAMES_CACHE: dict[str, tuple[int, int, frozenset[str]]] = {}


def declared_names(text: str) -> frozenset[str]:
    """Names that top-level statements of ``text`` may declare, found without parsing:
    a superset of the models, traits and globals the file declares (never missing one,
    since a top-level statement starts at the beginning of a line)."""
    if "\r" in text or "\ufeff" in text:
        return frozenset(_LINE_START_NAME.findall(text))
    return frozenset(_LF_LINE_START_NAME.findall(text))


def declared_names_cached(path: Path) -> frozenset[str]:
    """:func:`declared_names` of a library file, kept while the file is unchanged (a parse
    of it may already know them)."""
    key = str(path)
    st = path.stat()
    hit = _NAMES_CACHE.get(key)
    if hit is not None and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
        return hit[2]
    names = declared_names(read_source(path))
    _NAMES_CACHE[key] = (st.st_mtime_ns, st.st_size, names)
    return names


def read_source(path: Path) -> str:
    """File text, decoded as UTF-8 with line endings untouched.  Read through
    :func:`snapframe.core.fileio.read_regular_file`: a FIFO, a device or a huge file
    raises ``OSError`` instead of blocking or exhausting memory; so does a path with a NUL
    character (which no file can have)."""
    if "\0" in str(path):
        raise OSError(f"the path {str(path)!r} contains a NUL character; not read")
    return read_regular_file(path).decode("utf-8", errors="surrogateescape")


def _symbols_of(source: A.SourceFile, ctx: FileContext, prefix: str) -> dict[str, Symbol]:
    out: dict[str, Symbol] = {}
    for stmt in source.statements:
        if isinstance(stmt, A.ModelDecl):
            out[stmt.name] = ModelSymbol(prefix + stmt.name, stmt, ctx)
        elif isinstance(stmt, A.GlobalDecl):
            out[stmt.name] = GlobalSymbol(prefix + stmt.name, stmt, ctx)
    return out


# -- types of the runtime itself ----------------------------------------------------

#: Types no bundle declares because the OpenPLX runtime (its ``Core``) provides them: the
#: ``config is BundleConfig:`` of every bundle's ``config.openplx`` and the ``Blob`` of
#: ``Sensors.Signals.SensorOutputSignal``.  Declared here with the attributes the bundles
#: assign, so that they are checked like any other model.
RUNTIME_SOURCE = """\
BundleConfig:
    name is String
    version is String
    dependencies is String[]: []
Blob
"""
RUNTIME_PATH = "<openplx runtime>"


def runtime_symbols() -> dict[str, Symbol]:
    """The runtime's own types by name (a fresh table per workspace, one parse per process)."""
    global _RUNTIME_TREE
    if _RUNTIME_TREE is None:
        _RUNTIME_TREE = parse(RUNTIME_SOURCE, RUNTIME_PATH)
    ctx = FileContext(RUNTIME_PATH, (), _RUNTIME_TREE)
    ctx.local = _symbols_of(_RUNTIME_TREE, ctx, "")
    return dict(ctx.local)


_RUNTIME_TREE: A.SourceFile | None = None


# -- the workspace ------------------------------------------------------------------


class Workspace:
    """All bundles visible to a load, plus the user files loaded so far."""

    def __init__(self, bundle_roots: Iterable[Path] | None = None) -> None:
        #: A problem with finding the official bundles: (message, is an error) or None.
        self.setup_note: tuple[str, bool] | None = None
        if bundle_roots is None:
            roots, note, is_error = bundle_setup()
            if note:
                self.setup_note = (note, is_error)
        else:
            roots = [Path(p) for p in bundle_roots]
        #: bundle name -> its folder
        self.bundles: dict[str, Path] = {}
        for root in roots:
            self.add_bundle_root(root)
        self._namespaces: dict[tuple[str, ...], dict[str, Symbol]] = {}
        self._folder_files: dict[tuple[str, ...], list[Path]] = {}
        self._indexes: dict[tuple[str, ...], dict[str, list[Path]]] = {}
        self._by_file: dict[str, dict[str, Symbol]] = {}
        self._dirs: dict[tuple[str, ...], Path | None] = {}
        self._resolved: dict[tuple, tuple] = {}
        self._user: dict[str, FileContext] = {}
        #: Files that failed to parse while loading namespaces: path -> problems.
        self.library_problems: dict[str, list] = {}
        #: Types the OpenPLX runtime itself defines (last in name lookup).
        self.runtime: dict[str, Symbol] = runtime_symbols()

    # -- bundles ------------------------------------------------------------------
    def add_bundle_root(self, root: Path) -> None:
        """Register every sub-folder of ``root`` that has a ``config.openplx``."""
        if not root.is_dir():
            return
        for sub in sorted(root.iterdir()):
            if (sub / "config.openplx").is_file():
                self.bundles.setdefault(sub.name, sub)

    def add_bundle(self, folder: Path) -> str:
        """Register one bundle folder (a user bundle); returns its name."""
        name = folder.name
        self.bundles.setdefault(name, folder)
        return name

    def namespace_dir(self, parts: tuple[str, ...]) -> Path | None:
        if not parts or parts[0] not in self.bundles:
            return None
        if parts in self._dirs:
            return self._dirs[parts]
        d = self.bundles[parts[0]].joinpath(*parts[1:])
        found = d if d.is_dir() else None
        self._dirs[parts] = found
        return found

    def is_namespace(self, parts: tuple[str, ...]) -> bool:
        return self.namespace_dir(parts) is not None

    def namespace(self, parts: tuple[str, ...]) -> dict[str, Symbol]:
        """Symbols declared directly in a namespace folder (every file parsed)."""
        found = self._namespaces.get(parts)
        if found is not None:
            return found
        out: dict[str, Symbol] = {}
        for f in self._files(parts):
            for name, sym in self._file_symbols(f, parts).items():
                out.setdefault(name, sym)
        self._namespaces[parts] = out
        return out

    def symbol_in(self, parts: tuple[str, ...], name: str) -> Symbol | None:
        """The symbol ``name`` declared directly in namespace ``parts``, parsing only the
        files that may declare it (a load needs a fraction of a bundle's files)."""
        full = self._namespaces.get(parts)
        if full is not None:
            return full.get(name)
        for f in self._index(parts).get(name, ()):
            sym = self._file_symbols(f, parts).get(name)
            if sym is not None:  # files in name order: the first declaration wins
                return sym
        return None

    def _files(self, parts: tuple[str, ...]) -> list[Path]:
        """The ``.openplx`` files of a namespace folder, in name order."""
        found = self._folder_files.get(parts)
        if found is None:
            folder = self.namespace_dir(parts)
            found = [] if folder is None else [
                f for f in sorted(folder.glob("*.openplx"))
                if not (f.name == "config.openplx" and len(parts) == 1)]
            self._folder_files[parts] = found
        return found

    def _index(self, parts: tuple[str, ...]) -> dict[str, list[Path]]:
        """Which files of a namespace folder may declare each name (a superset: see
        :func:`declared_names`); an unreadable file is reported here."""
        index = self._indexes.get(parts)
        if index is None:
            index = {}
            for f in self._files(parts):
                try:
                    names = declared_names_cached(f)
                except OSError as exc:  # a FIFO or device named *.openplx in a bundle
                    self._unreadable(f, exc)
                    continue
                for name in names:
                    index.setdefault(name, []).append(f)
            self._indexes[parts] = index
        return index

    def _file_symbols(self, f: Path, parts: tuple[str, ...]) -> dict[str, Symbol]:
        """The symbols one bundle file declares (parsed once per workspace)."""
        key = str(f)
        found = self._by_file.get(key)
        if found is None:
            found = {}
            try:
                source = parse_cached(f)
            except OSError as exc:
                self._unreadable(f, exc)
            else:
                if source.problems:
                    self.library_problems[key] = list(source.problems)
                ctx = FileContext(key, parts, source)
                found = _symbols_of(source, ctx, ".".join(parts) + ".")
            self._by_file[key] = found
        return found

    def _unreadable(self, f: Path, exc: OSError) -> None:
        self.library_problems[str(f)] = [OpenPlxProblem(
            f"cannot read bundle file: {exc.strerror or exc}", str(f), 0, 0, Code.FILE_READ)]

    def lookup(self, qname: str | tuple[str, ...]) -> Symbol | None:
        """A symbol by fully qualified name (no renames, no relative lookup)."""
        parts = tuple(qname.split(".")) if isinstance(qname, str) else qname
        if len(parts) < 2:
            return None
        return self.symbol_in(parts[:-1], parts[-1])

    # -- user files ---------------------------------------------------------------
    def context_for(self, path: str, source: A.SourceFile) -> FileContext:
        """Context of a user file: its namespace if it lies inside a bundle folder
        (registered here if it is a user bundle), else the root namespace."""
        namespace: tuple[str, ...] = ()
        if path:
            p = safe_resolve(path)
            for parent in p.parents:
                if (parent / "config.openplx").is_file():
                    name = parent.name
                    if name not in self.bundles:
                        self.add_bundle(parent)
                    if self.bundles.get(name) == parent or safe_resolve(self.bundles.get(name, Path())) == parent:
                        rel = p.parent.relative_to(parent).parts
                        namespace = (name, *rel)
                    break
        ctx = FileContext(path, namespace, source)
        prefix = ".".join(namespace) + "." if namespace else ""
        ctx.local = _symbols_of(source, ctx, prefix)
        if path:
            self._user[str(safe_resolve(path))] = ctx
        return ctx

    def user_context(self, path: str) -> FileContext | None:
        return self._user.get(str(safe_resolve(path)))

    # -- lookup -------------------------------------------------------------------
    def resolve(self, parts: tuple[str, ...], ctx: FileContext | None
                ) -> tuple[Symbol | NamespaceRef | None, tuple[str, ...], str]:
        """Resolve the longest symbol prefix of ``parts`` as seen from ``ctx``.

        Returns ``(found, rest, renamed_from)``: ``found`` is a symbol or a namespace,
        ``rest`` the parts after it (attribute or function names), ``renamed_from`` the
        0.16 name that was translated (empty if none).
        """
        key = (parts, id(ctx))
        hit = self._resolved.get(key)
        if hit is not None and hit[0] is ctx:
            return hit[1]
        result = self._resolve_renamed(parts, ctx)
        self._resolved[key] = (ctx, result)
        return result

    def _resolve_renamed(self, parts: tuple[str, ...], ctx: FileContext | None
                         ) -> tuple[Symbol | NamespaceRef | None, tuple[str, ...], str]:
        found, rest = self._resolve(parts, ctx)
        if found is not None and not (isinstance(found, NamespaceRef) and rest):
            return found, rest, ""
        # 0.16 compatibility: try renamed qualified names.
        for k in range(len(parts), 1, -1):
            new = renamed_type(".".join(parts[:k]))
            if new is not None:
                sym = self.lookup(new)
                if sym is not None:
                    return sym, parts[k:], ".".join(parts[:k])
        return found, rest, ""

    def _resolve(self, parts: tuple[str, ...], ctx: FileContext | None
                 ) -> tuple[Symbol | NamespaceRef | None, tuple[str, ...]]:
        head = parts[0]
        if ctx is not None:
            if head in ctx.local:
                return ctx.local[head], parts[1:]
            for alias, imported in ctx.imports:
                if parts[:len(alias)] == alias:
                    rest = parts[len(alias):]
                    if not rest:
                        return NamespaceRef(alias), ()
                    if rest[0] in imported.local:
                        return imported.local[rest[0]], rest[1:]
                elif not alias and head in imported.local:
                    return imported.local[head], parts[1:]
        namespace = ctx.namespace if ctx is not None else ()
        partial: tuple[Symbol | NamespaceRef | None, tuple[str, ...]] = (None, parts)
        for i in range(len(namespace), -1, -1):
            base = namespace[:i]
            found, rest = self._resolve_absolute(base + parts, len(base))
            if found is None:
                continue
            if not isinstance(found, NamespaceRef) or not rest:
                return found, rest
            if partial[0] is None:  # a namespace whose next part is unknown: keep looking
                partial = (found, rest)
        if partial[0] is None and head in self.runtime:
            return self.runtime[head], parts[1:]
        return partial

    def _resolve_absolute(self, full: tuple[str, ...], min_len: int
                          ) -> tuple[Symbol | NamespaceRef | None, tuple[str, ...]]:
        """Longest resolvable prefix of ``full`` that is longer than ``min_len``."""
        if not full or full[0] not in self.bundles:
            return None, full
        # Walk namespaces from the bundle root down while they exist.
        best: tuple[Symbol | NamespaceRef | None, tuple[str, ...]] = (None, full)
        k = 1
        while k <= len(full) and self.is_namespace(full[:k]):
            if k > min_len:
                best = (NamespaceRef(full[:k]), full[k:])
            if k < len(full):
                sym = self.symbol_in(full[:k], full[k])
                if sym is not None and k + 1 > min_len:
                    best = (sym, full[k + 1:])
                    if not self.is_namespace(full[:k + 1]):
                        return best
            k += 1
        return best
