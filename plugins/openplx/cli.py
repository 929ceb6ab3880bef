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

A *library* (a file that declares models but no ``Physics3D.System``, such as most files of
the official bundles) has nothing to assemble: ``snap`` reports the problems of its
declarations (as ``snapframe check`` does), no frames and one warning (code
``MODEL_WITHOUT_LINK``) saying so, and exits with :data:`EXIT_NOTHING_TO_ASSEMBLE` (1 if
the file has errors).

Exit codes of ``snapframe snap``: 0 assembled without errors; 1 the file has errors; 2 usage
error, which includes a file with nothing to assemble (``snapframe check`` validates a
library).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterable

from snapframe.core.commandline import EXIT_INPUT_ERROR, EXIT_OK, EXIT_USAGE
from snapframe.core.diagnostics import Code, Diagnostic, Diagnostics, Severity
from snapframe.core.json_output import json_numbers as _round

from .errors import OpenPlxProblem
from .evaluator import Obj
from .expansion import budget_problem
from .forcing import Forcer
from snapframe.core.gcpause import gc_paused
from .loader import OpenPlxFile, load_file
from .snap_input import assemble

__all__ = ["snap_command", "check", "check_file", "add_arguments", "run", "locate",
           "evaluate_all", "assembly_diagnostics", "EXIT_NOTHING_TO_ASSEMBLE"]

#: Exit code of ``snapframe snap`` on a library: a usage error (the file is fine, the
#: command does not apply to it).
EXIT_NOTHING_TO_ASSEMBLE = EXIT_USAGE


def _record(code: str, message: str, file: str, line: int) -> dict:
    return {"code": code, "message": message, "file": file, "line": line}


def _problem_record(p: OpenPlxProblem) -> dict:
    message = f"{p.message} (column {p.col})" if p.col else p.message
    return _record(str(p.code), message, p.file, p.line)


def snap_command(path: str | Path, model_name: str | None = None, trace: bool = False) -> dict:
    """Load ``path``, assemble ``model_name`` (default: the last top-level
    ``Physics3D.System``) with SNAP and report every system, body and connector."""
    with gc_paused():
        return _snap_command(path, model_name, trace)


def _snap_command(path: str | Path, model_name: str | None, trace: bool) -> dict:
    from snapframe.core.snap import solve

    file = load_file(path)
    frames: dict[str, dict[str, Any]] = {}
    snap_diags: list[Diagnostic] = []
    trace_lines: list[str] = []
    unreadable = any(p.code == Code.FILE_READ for p in file.problems)
    library = model_name is None and not unreadable and file.default_model() is None
    if library:
        # Nothing to assemble, but the file's own problems are still worth knowing (and
        # make the exit code 1): check it as `snapframe check` does.
        evaluate_all(file)
    try:
        _, assembly, problem = ((None, None, None) if unreadable or library
                                else assemble(file, model_name, details=False))
    except RecursionError:
        file.too_deep()
        assembly, problem = None, None
    if problem is not None and assembly is not None:
        result = solve(problem, trace=trace)
        snap_diags = locate(result.diagnostics, assembly)
        trace_lines = list(result.trace)
        kinds = [("system", (s.path for s in assembly.systems)),
                 ("body", (b.path for b in assembly.bodies)),
                 ("connector", (c.path for c in assembly.connectors))]
        # Equal poses print alike (a connector at its body's origin, what the root system
        # owns: local and world): each is rounded once (a -0.0 that makes two poses
        # compare equal is rounded to 0.0 anyway).
        rounded_of: dict[tuple, list[float]] = {}

        def rounded(pose: Any) -> list[float]:
            key = (pose.R, pose.p)
            numbers = rounded_of.get(key)
            if numbers is None:
                numbers = rounded_of[key] = _round(pose.xyz_quat())
            return list(numbers)

        for kind, paths in kinds:
            for p in paths:
                local, world = result.local.get(p), result.world.get(p)
                if local is None or world is None:
                    continue
                local_numbers = rounded(local)
                frames[p] = {"kind": kind, "local": local_numbers,
                             "pose": list(local_numbers) if world is local else rounded(world)}
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
    if library:
        warnings.append(_record(str(Code.MODEL_WITHOUT_LINK), _nothing_to_assemble(file),
                                file.path, 0))
    out: dict[str, Any] = {"errors": errors, "warnings": warnings, "frames": frames}
    if trace:
        out["trace"] = trace_lines
    return out


def _nothing_to_assemble(file: OpenPlxFile) -> str:
    names = [s.name for s in file.symbols()]
    what = (f"declares {len(names)} model{'s' if len(names) != 1 else ''} "
            f"({', '.join(names[:3])}{', ...' if len(names) > 3 else ''}) but no "
            if names else "declares no model, and no ")
    return (f"nothing to assemble: the file {what}Physics3D.System; it is a library "
            "(snapframe check validates it)")


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


def evaluate_all(file: OpenPlxFile, model_name: str | None = None) -> dict[str, Obj]:
    """Evaluate every attribute of every top-level model, so that each mistake is recorded
    in ``file``'s problems where it is written (not only where an assembly trips on it).
    Returns the instance of the model to assemble by its name, for :func:`assemble` to
    reuse.

    Only the model to assemble (``model_name``, default the last System) must be complete;
    the others are templates, evaluated leniently: a value that cannot be computed because
    an attribute has no value is not a problem of theirs.  In a library every model is a
    template, and attributes left without a value are parameters, not worth a warning."""
    instances: dict[str, Obj] = {}
    ev = file.evaluator
    root = file.symbol(model_name) if model_name is not None else file.default_model()
    user_files = {file.path} | {ctx.path for _, ctx in file.ctx.imports}
    forcer = Forcer(user_files, warn_unset=not file.is_library(),
                    checked=[ev.model_type(s) for s in file.symbols()])
    try:
        for sym in file.symbols():
            over = budget_problem(ev, ev.model_type(sym), sym.decl)
            if over is not None:  # an expansion bomb: not built at all
                file.problems.append(over)
                continue
            with ev.leniency(file.in_bundle or sym is not root):
                obj = ev.instantiate(sym)
                forcer.force(obj, own_only=sym is not root)
            if sym is root:  # the others are done with (a long file holds no tables of them)
                instances[sym.name] = obj
    except RecursionError:
        file.too_deep()
    return instances


def assembly_diagnostics(file: OpenPlxFile, diagnostics: Iterable[Diagnostic], assembly: Any
                         ) -> list[Diagnostic]:
    """SNAP's findings worth reporting (warnings and errors), placed in the file.  For a
    bundle's System (a template for the bundle's users) they are warnings: it is not
    expected to assemble on its own."""
    out = []
    for d in locate(diagnostics, assembly):
        if d.severity < Severity.WARNING:
            continue
        if file.in_bundle and d.is_error:
            d = Diagnostic(Severity.WARNING, d.code, d.message, d.file, d.line, d.element,
                           d.key)
        out.append(d)
    return out


def check_file(file: OpenPlxFile) -> Diagnostics:
    """Problems of a loaded file: syntax, imports, names and types in every top-level
    model, attributes left without a value, and the SNAP assembly of the default System.
    A library (see :meth:`OpenPlxFile.is_library`) is valid when its declarations are."""
    with gc_paused():
        instances = evaluate_all(file)
        try:
            return _assembly_problems(file, instances)
        except RecursionError:
            file.too_deep()
            return file.diagnostics()


def _assembly_problems(file: OpenPlxFile, instances: dict[str, Obj]) -> Diagnostics:
    if file.default_model() is not None:
        from snapframe.core.snap import solve
        with file.evaluator.leniency(file.in_bundle):
            _, asm, problem = assemble(file, instances=instances)
        diags = Diagnostics()
        for p in file.all_problems():
            diags.add(p.to_diagnostic())
        if problem is not None:
            diags.extend(assembly_diagnostics(file, solve(problem).diagnostics, asm))
        return diags
    return file.diagnostics()


def check(path: str | Path) -> Diagnostics:
    """:func:`check_file` for a path."""
    return check_file(load_file(path))


def _json_text(out: dict) -> str:
    """``json.dumps(out)`` for what :func:`snap_command` returns, written faster: each
    list of numbers is printed by ``float.__repr__`` in one go, as the encoder prints a
    finite number, and equal lists are printed once (a frame's ``pose`` and ``local`` when
    the root system owns it, a connector at its body's origin).  Equal lists print alike
    because a frame's lists are what :func:`_round` makes: floats, no negative zero."""
    from json.encoder import encode_basestring_ascii as string_text  # what dumps uses

    words: dict[str, str] = {}  # the keys and kinds, repeated in every frame
    numbers: dict[tuple, str] = {}  # equal lists print alike (no -0.0 among them)
    parts = []
    for key, value in out.items():
        if key == "frames" and isinstance(value, dict):
            frames = []
            for name, frame in value.items():
                if tuple(frame) == _FRAME_KEYS and type(frame["kind"]) is str \
                        and type(frame["local"]) is list and type(frame["pose"]) is list:
                    # the frames snap_command makes
                    kind, local, pose = frame["kind"], frame["local"], frame["pose"]
                    values = tuple(local)
                    local_text = (numbers.get(values)
                                  or numbers.setdefault(values, _floats_text(local)))
                    if pose == local:
                        pose_text = local_text
                    else:
                        values = tuple(pose)
                        pose_text = (numbers.get(values)
                                     or numbers.setdefault(values, _floats_text(pose)))
                    kind_text = words.get(kind) or words.setdefault(kind, string_text(kind))
                    frames.append(f'{string_text(name)}: {{"kind": {kind_text}, '
                                  f'"local": {local_text}, "pose": {pose_text}}}')
                    continue
                fields = []
                for k, v in frame.items():
                    if k in ("local", "pose") and type(v) is list:
                        text = _floats_text(v)
                    elif type(v) is str:
                        text = words.get(v) or words.setdefault(v, string_text(v))
                    else:
                        text = json.dumps(v)
                    k_text = words.get(k) or words.setdefault(k, string_text(k))
                    fields.append(f"{k_text}: {text}")
                frames.append(f"{string_text(name)}: {{{', '.join(fields)}}}")
            text = "{" + ", ".join(frames) + "}"
        else:
            text = json.dumps(value)
        parts.append(f"{string_text(key)}: {text}")
    return "{" + ", ".join(parts) + "}"


_FRAME_KEYS = ("kind", "local", "pose")


def _floats_text(values: list) -> str:
    """``json.dumps(values)`` for a list of the floats :func:`_round` makes."""
    try:
        text = "[" + ", ".join(map(float.__repr__, values)) + "]"
    except TypeError:  # not all floats
        return json.dumps(values)
    # repr writes nan, inf: json has NaN, Infinity (no finite repr has an n)
    return json.dumps(values) if "n" in text else text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``snapframe snap`` (the :mod:`snapframe.core.commandline` contract)."""
    parser.epilog = ("Exit codes: 0 assembled without errors, 1 the file has errors, 2 usage "
                     "error, including a file with nothing to assemble (a library: no "
                     "Physics3D.System; 'snapframe check' validates it).")
    parser.add_argument("file")
    parser.add_argument("--model", help="model to assemble (default: the last top-level "
                                        "Physics3D.System)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--trace", action="store_true", help="explain each SNAP step")


def run(args: argparse.Namespace) -> int:
    """``snapframe snap FILE [--model M] [--json] [--trace]``; exit 1 on errors, 2 when the
    file has nothing to assemble."""
    out = snap_command(args.file, getattr(args, "model", None), getattr(args, "trace", False))
    if getattr(args, "json", False):
        print(_json_text(out))
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
    if out["errors"]:
        return EXIT_INPUT_ERROR
    # Every assembly has at least its root frame: none (and no error) means a library.
    return EXIT_OK if out["frames"] else EXIT_NOTHING_TO_ASSEMBLE
