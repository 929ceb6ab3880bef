"""Load a user's ``.openplx`` file: parse it, follow its imports, make an evaluator.

:class:`OpenPlxFile` is what the format plugin, the CLI and the writer share: the source
tree (concrete syntax, for the writer), the name-lookup context, an evaluator and the
problems found so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from snapframe.core.diagnostics import Code, Diagnostics, Severity

from . import ast as A
from .errors import OpenPlxProblem
from .evaluator import Evaluator, Obj
from .parser import parse
from .workspace import FileContext, ModelSymbol, Workspace, read_source

__all__ = ["OpenPlxFile", "load_file", "load_text", "SYSTEM_TYPE"]

SYSTEM_TYPE = "Physics3D.System"


@dataclass(eq=False)
class OpenPlxFile:
    """A loaded user file."""

    path: str
    text: str
    source: A.SourceFile
    workspace: Workspace
    ctx: FileContext
    evaluator: Evaluator
    problems: list[OpenPlxProblem] = field(default_factory=list)

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

    def instantiate(self, name: str) -> Obj:
        sym = self.symbol(name)
        if sym is None:
            raise KeyError(name)
        return self.evaluator.instantiate(sym)

    # -- problems -----------------------------------------------------------------
    def all_problems(self) -> list[OpenPlxProblem]:
        """Parse, import and evaluation problems, in the order found (no duplicates)."""
        seen, out = set(), []
        for p in [*self.problems, *self.evaluator.problems]:
            key = (p.message, p.file, p.line, p.col)
            if key not in seen:
                seen.add(key)
                out.append(p)
        return out

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
        ws.add_bundle_root(Path(path).resolve().parent)
    source = parse(text, path)
    ctx = ws.context_for(path, source)
    problems = list(source.problems)
    _follow_imports(ctx, ws, problems, {str(Path(path).resolve())} if path else set())
    return OpenPlxFile(path, text, source, ws, ctx, Evaluator(ws), problems)


def _follow_imports(ctx: FileContext, ws: Workspace, problems: list[OpenPlxProblem],
                    active: set[str]) -> None:
    for stmt in ctx.source.statements:
        if not isinstance(stmt, A.Import) or stmt.path is None:
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
        key = str(target.resolve())
        if key in active:
            problems.append(OpenPlxProblem(f"import cycle through '{target.name}'", stmt.file,
                                           stmt.line, stmt.path.col, Code.INCLUDE_CYCLE))
            continue
        imported = ws.user_context(key)
        if imported is None:
            try:
                text = read_source(target)
            except OSError:
                problems.append(OpenPlxProblem(f"imported file not found: '{stmt.path.value}'",
                                               stmt.file, stmt.line, stmt.path.col,
                                               Code.FILE_READ))
                continue
            source = parse(text, key)
            problems.extend(source.problems)
            imported = ws.context_for(key, source)
            _follow_imports(imported, ws, problems, active | {key})
        ctx.imports.append((alias, imported))
