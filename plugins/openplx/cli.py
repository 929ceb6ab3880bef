"""Command-line functions for OpenPLX files: ``snapframe snap`` and checking.

:func:`add_arguments` and :func:`run` implement the ``snap`` command that
:mod:`.command` registers.

:func:`snap_command` is the JSON contract of ``snapframe snap --json``::

    {"errors": [{"code", "message", "file", "line"}, ...],
     "warnings": [...same keys...],
     "frames": {"<dotted path>": {"kind": "system" | "body" | "connector",
                                  "local": [x, y, z, qw, qx, qy, qz],
                                  "pose":  [x, y, z, qw, qx, qy, qz]}},
     "trace": [...]}                       # only with trace=True

``local`` is relative to the owning system (connectors: expressed in the system that owns
their body), ``pose`` is in the world (the assembled root system's frame).  A problem's
column, when known, ends its message as ``(column N)``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterable

from snapframe.core.diagnostics import Code, Diagnostic, Diagnostics, Severity
from snapframe.core.json_output import json_numbers as _round

from .errors import OpenPlxProblem
from .evaluator import UNSET, Obj
from .loader import OpenPlxFile, load_file
from .snap_input import assemble

__all__ = ["snap_command", "check", "check_file", "add_arguments", "run", "locate"]


def _record(code: str, message: str, file: str, line: int) -> dict:
    return {"code": code, "message": message, "file": file, "line": line}


def _problem_record(p: OpenPlxProblem) -> dict:
    message = f"{p.message} (column {p.col})" if p.col else p.message
    return _record(str(p.code), message, p.file, p.line)


def snap_command(path: str | Path, model_name: str | None = None, trace: bool = False) -> dict:
    """Load ``path``, assemble ``model_name`` (default: the last top-level
    ``Physics3D.System``) with SNAP and report every system, body and connector."""
    from snapframe.core.snap import solve

    file = load_file(path)
    frames: dict[str, dict[str, Any]] = {}
    snap_diags: list[Diagnostic] = []
    trace_lines: list[str] = []
    unreadable = any(p.code == Code.FILE_READ for p in file.problems)
    try:
        _, assembly, problem = ((None, None, None) if unreadable
                                else assemble(file, model_name, details=False))
    except RecursionError:
        file.too_deep()
        assembly, problem = None, None
    if problem is not None and assembly is not None:
        result = solve(problem)
        snap_diags = locate(result.diagnostics, assembly)
        trace_lines = list(result.trace)
        kinds = [("system", (s.path for s in assembly.systems)),
                 ("body", (b.path for b in assembly.bodies)),
                 ("connector", (c.path for c in assembly.connectors))]
        for kind, paths in kinds:
            for p in paths:
                local, world = result.local.get(p), result.world.get(p)
                if local is None or world is None:
                    continue
                frames[p] = {"kind": kind, "local": _round(local.xyz_quat()),
                             "pose": _round(world.xyz_quat())}
    errors, warnings = [], []
    for p in file.all_problems():
        if p.severity >= Severity.ERROR:
            errors.append(_problem_record(p))
        elif p.severity == Severity.WARNING:
            warnings.append(_problem_record(p))
    for d in snap_diags:
        rec = _record(str(d.code), d.message, d.file, d.line)
        if d.is_error:
            errors.append(rec)
        elif d.severity == Severity.WARNING:
            warnings.append(rec)
    out: dict[str, Any] = {"errors": errors, "warnings": warnings, "frames": frames}
    if trace:
        out["trace"] = trace_lines
    return out


def locate(diagnostics: Iterable[Diagnostic], assembly: Any) -> list[Diagnostic]:
    """SNAP diagnostics name a path (``element``); give those without a file the place
    where that system, body, connector or mate is declared."""
    where = assembly.locations()
    out = []
    for d in diagnostics:
        if not d.file and d.element in where:
            file, line = where[d.element]
            d = Diagnostic(d.severity, d.code, d.message, file, line, d.element)
        out.append(d)
    return out


def evaluate_all(file: OpenPlxFile) -> dict[str, Obj]:
    """Evaluate every attribute of every top-level model, so that each mistake is recorded
    in ``file``'s problems where it is written (not only where an assembly trips on it).
    Returns the instances by model name, for :func:`assemble` to reuse."""
    instances: dict[str, Obj] = {}
    try:
        ev = file.evaluator
        for sym in file.symbols():
            instances[sym.name] = obj = ev.instantiate(sym)
            _force(obj, file, depth=0)
    except RecursionError:
        file.too_deep()
    return instances


def check_file(file: OpenPlxFile) -> Diagnostics:
    """Problems of a loaded file: syntax, imports, names and types in every top-level
    model, attributes left without a value, and the SNAP assembly of the default System."""
    instances = evaluate_all(file)
    try:
        return _assembly_problems(file, instances)
    except RecursionError:
        file.too_deep()
        return file.diagnostics()


def _assembly_problems(file: OpenPlxFile, instances: dict[str, Obj]) -> Diagnostics:
    if file.default_model() is not None:
        from snapframe.core.snap import solve
        _, asm, problem = assemble(file, instances=instances)
        diags = Diagnostics()
        for p in file.all_problems():
            diags.add(p.to_diagnostic())
        if problem is not None:
            for d in locate(solve(problem).diagnostics, asm):
                if d.severity >= Severity.WARNING:
                    diags.add(d)
        return diags
    return file.diagnostics()


def check(path: str | Path) -> Diagnostics:
    """:func:`check_file` for a path."""
    return check_file(load_file(path))


def _force(obj: Obj, file: OpenPlxFile, depth: int) -> None:
    """Evaluate every attribute of a user model (bundle internals only as far as a user
    statement reaches), reporting attributes of user-declared type left unassigned."""
    if depth > 16:
        return
    user_files = {file.path} | {ctx.path for _, ctx in file.ctx.imports}
    for name in obj.names():
        value = obj.try_get(name)
        spec = obj.specs[name]
        decl = spec.decl
        if value is UNSET and decl is not None and decl.file in user_files:
            obj.ev.report(f"'{obj.child_path(name)}' is declared without a value", decl,
                          severity=Severity.WARNING)
        if isinstance(value, Obj) and value.path == obj.child_path(name):
            touched = any(m.stmt is not None and m.stmt.file in user_files for m in spec.mods)
            if touched or (decl is not None and decl.file in user_files):
                _force(value, file, depth + 1)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``snapframe snap`` (the :mod:`snapframe.core.commandline` contract)."""
    parser.add_argument("file")
    parser.add_argument("--model", help="model to assemble (default: the last top-level "
                                        "Physics3D.System)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--trace", action="store_true", help="explain each SNAP step")


def run(args: argparse.Namespace) -> int:
    """``snapframe snap FILE [--model M] [--json] [--trace]``; exit 1 on errors."""
    out = snap_command(args.file, getattr(args, "model", None), getattr(args, "trace", False))
    if getattr(args, "json", False):
        print(json.dumps(out, indent=None))
    else:
        for kind in ("errors", "warnings"):
            for r in out[kind]:
                where = r["file"] or "<string>"
                if r["line"]:
                    where += f":{r['line']}"
                print(f"{where}: {kind[:-1]} {r['code']}: {r['message']}", file=sys.stderr)
        for name, f in out["frames"].items():
            x, y, z, qw, qx, qy, qz = f["pose"]
            print(f"{f['kind']:9} {name}: xyz=({x:.6g}, {y:.6g}, {z:.6g}) "
                  f"wxyz=({qw:.6g}, {qx:.6g}, {qy:.6g}, {qz:.6g})")
        for line in out.get("trace", []):
            print(f"trace: {line}")
    return 1 if out["errors"] else 0
