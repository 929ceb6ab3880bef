"""Load a user's ``.openplx`` file: parse it, follow its imports, make an evaluator.

:class:`OpenPlxFile` is what the format plugin, the CLI and the writer share: the source
tree (concrete syntax, for the writer), the name-lookup context, an evaluator and the
problems found so far.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from snapframe.core.diagnostics import Code, Diagnostics, Severity

from . import ast as A
from .errors import OpenPlxProblem
from .evaluator import Evaluator, Obj
from .parser import parse
from .workspace import FileContext, ModelSymbol, Workspace, read_source, safe_resolve

__all__ = ["OpenPlxFile", "load_file", "load_text", "SYSTEM_TYPE"]

SYSTEM_TYPE = "Physics3D.System"


class OpenPlxFile:
    """A loaded user file.  (Written out, not a dataclass(eq=False): the same constructor,
    identity equality and repr, without the code a dataclass generates at import.)"""

    _NEW: Any = object()  # default of problems: a new list per file

    def __init__(self, path: str, text: str, source: A.SourceFile, workspace: Workspace,
                 ctx: FileContext, evaluator: Evaluator,
                 problems: list[OpenPlxProblem] = _NEW) -> None:
        self.path = path
        self.text = text
        self.source = source
        self.workspace = workspace
        self.ctx = ctx
        self.evaluator = evaluator
        self.problems = [] if problems is OpenPlxFile._NEW else problems

    def __repr__(self) -> str:
        return (f"{type(self).__qualname__}(path={self.path!r}, text={self.text!r}, "
                f"source={self.source!r}, workspace={self.workspace!r}, ctx={self.ctx!r}, "
                f"evaluator={self.evaluator!r}, problems={self.problems!r})")

    # -- models -------------------------------------------------------------------
    def symbols(self) -> list[ModelSymbol]:
        """Top-level models of this file (traits excluded), in file order."""
        return [s for s in self.ctx.local.values()
                if isinstance(s, ModelSymbol) and not s.decl.is_trait]

    def symbol(self, name: str) -> ModelSymbol | None:
        s = self.ctx.local.get(name)
        return s if isinstance(s, ModelSymbol) else None

    def system_symbols(self) -> list[ModelSymbol]:
        """Top-level models that are a ``Physics3D.System``."""
        ev = self.evaluator
        return [s for s in self.symbols() if ev.model_type(s).is_a(SYSTEM_TYPE)]

    def default_model(self) -> ModelSymbol | None:
        """The model a tool assembles when none is named: the last top-level System."""
        systems = self.system_symbols()
        return systems[-1] if systems else None

    @property
    def in_bundle(self) -> bool:
        """Does the file belong to a bundle (a folder with a ``config.openplx``)?  Its
        models, Systems included, are then templates for the bundle's users."""
        return bool(self.ctx.namespace)

    def is_library(self) -> bool:
        """A library declares types for other files: it is in a bundle, or it declares no
        ``Physics3D.System`` to assemble.  Its models need not be complete: an attribute
        left without a value is a parameter for whoever uses the model."""
        return self.in_bundle or self.default_model() is None

    def instantiate(self, name: str) -> Obj:
        sym = self.symbol(name)
        if sym is None:
            raise KeyError(name)
        return self.evaluator.instantiate(sym)

    # -- problems -----------------------------------------------------------------
    def all_problems(self) -> list[OpenPlxProblem]:
        """Parse, import and evaluation problems, in the order found (no duplicates).
        Syntax errors in the bundle files read so far (a user bundle with a typo) come
        after the file's own parse and import problems: they are the root cause of what
        fails to evaluate."""
        library = [p for probs in self.workspace.library_problems.values() for p in probs]
        setup = []
        if self.workspace.setup_note is not None:
            note, is_error = self.workspace.setup_note
            setup.append(OpenPlxProblem(note, self.path, 0, 0, Code.FILE_READ,
                                        Severity.ERROR if is_error else Severity.WARNING))
        seen, out = set(), []
        for p in [*setup, *self.problems, *library, *self.evaluator.problems]:
            key = (p.message, p.file, p.line, p.col)
            if key not in seen:
                seen.add(key)
                out.append(p)
        return out

    def too_deep(self) -> None:
        """Record that evaluating the file ran out of Python recursion (a backstop: the
        parser and the evaluator bound the nesting they know about)."""
        self.problems.append(OpenPlxProblem(
            "the file nests models, traits or values too deeply to be evaluated", self.path,
            1, 1, Code.ELEMENT_INVALID))

    def diagnostics(self) -> Diagnostics:
        d = Diagnostics()
        for p in self.all_problems():
            d.add(p.to_diagnostic())
        return d


def load_file(path: str | Path, workspace: Workspace | None = None) -> OpenPlxFile:
    """Read and parse ``path`` (a missing file is a problem, not an exception)."""
    p = Path(path)
    try:
        text = read_source(p)
    except OSError as exc:
        ws = workspace or Workspace()
        source = A.SourceFile(str(p), [], [])
        ctx = FileContext(str(p), (), source)
        f = OpenPlxFile(str(p), "", source, ws, ctx, Evaluator(ws))
        f.problems.append(OpenPlxProblem(f"cannot read file: {exc.strerror or exc}", str(p), 0,
                                         0, Code.FILE_READ))
        return f
    return load_text(text, str(p), workspace)


def load_text(text: str, path: str = "", workspace: Workspace | None = None) -> OpenPlxFile:
    """Parse source text as if it were the file ``path`` (used for relative imports and
    for finding user bundles: sub-folders of the file's folder with a ``config.openplx``,
    and the bundle folder the file itself lies in)."""
    ws = workspace or Workspace()
    if path:
        # Bundle folders (with a config.openplx) next to the file are visible by name.
        ws.add_bundle_root(safe_resolve(path).parent)
    source = parse(text, path)
    ctx = ws.context_for(path, source)
    problems = list(source.problems)
    _follow_imports(ctx, ws, problems, {str(safe_resolve(path))} if path else set())
    return OpenPlxFile(path, text, source, ws, ctx, Evaluator(ws), problems)


def _follow_imports(ctx: FileContext, ws: Workspace, problems: list[OpenPlxProblem],
                    active: set[str]) -> None:
    for stmt in ctx.source.statements:
        if not isinstance(stmt, A.Import) or stmt.path is None:
            continue
        if "\0" in stmt.path.value:
            problems.append(OpenPlxProblem("an import path cannot contain a NUL character",
                                           stmt.file, stmt.line, stmt.path.col, Code.FILE_READ))
            continue
        target = Path(stmt.path.value)
        if not target.is_absolute():
            target = ctx.directory / target
        alias = stmt.alias.parts if stmt.alias is not None else ()
        if target.suffix.lower() != ".openplx":
            problems.append(OpenPlxProblem(
                f"importing '{target.suffix or target.name}' files is not supported; "
                "models from it are unknown here", stmt.file, stmt.line, stmt.path.col,
                Code.WARNING, Severity.WARNING))
            continue
        key = str(safe_resolve(target))
        if key in active:
            problems.append(OpenPlxProblem(f"import cycle through '{target.name}'", stmt.file,
                                           stmt.line, stmt.path.col, Code.INCLUDE_CYCLE))
            continue
        imported = ws.user_context(key)
        if imported is None:
            try:
                text = read_source(target)
            except OSError as exc:
                reason = ("not found" if isinstance(exc, FileNotFoundError)
                          else f"unreadable ({exc.strerror or exc})")
                problems.append(OpenPlxProblem(f"imported file {reason}: '{stmt.path.value}'",
                                               stmt.file, stmt.line, stmt.path.col,
                                               Code.FILE_READ))
                continue
            source = parse(text, key)
            problems.extend(source.problems)
            imported = ws.context_for(key, source)
            _follow_imports(imported, ws, problems, active | {key})
        ctx.imports.append((alias, imported))
