"""The implementation module the ``openplx`` descriptor names (loaded on first use).

``read`` assembles the file's default model (the last top-level ``Physics3D.System``)
with SNAP and maps it to the core model; a library (no System) gives a document without
a root model and only the problems of its declarations; ``write`` saves a document as
OpenPLX; ``parse_include`` makes ``//include`` of an ``.openplx`` file give a core model.
``read_string`` reads text as if it were a given file (its imports and ``@"path"``
references are found from there: the editor reads a recovery copy back as the file it
belongs to) and ``to_string`` gives the text ``write`` would save.  A document (and an
included model) lists the files its imports read in ``extras["source_files"]``, so that
the editor watches them.
"""

from __future__ import annotations

from pathlib import Path

from snapframe.core.diagnostics import Code, Diagnostics
from snapframe.core.model import Document, Model, NestedInclude

from snapframe.core.gcpause import gc_paused
from .loader import OpenPlxFile, load_file, load_text
from .mapping import assembly_to_model
from .snap_input import assemble
from .writer import OpenPlxState, document_text, write

__all__ = ["read", "write", "parse_include", "read_model", "document_text", "read_string",
           "to_string"]

VERSION = "0.19"


def read_model(file: OpenPlxFile, diagnostics: Diagnostics, model_name: str | None = None,
               instances: dict | None = None) -> tuple[Model | None, OpenPlxState | None]:
    """Assemble a model of a loaded file and map it to the core model (``instances``:
    top-level instances already evaluated, reused)."""
    from snapframe.core.snap import solve
    from snapframe.core.snap.document import apply_snap_result, snap_input
    from snapframe.core.snap.joints import derive_mate_joints

    try:
        with file.evaluator.leniency(file.in_bundle):  # a bundle's System is a template
            root, asm, problem = assemble(file, model_name, instances=instances)
    except RecursionError:
        file.too_deep()
        root, asm, problem = None, None, None
    if asm is None or problem is None or root is None:
        diagnostics.extend(p.to_diagnostic() for p in file.all_problems())
        return None, None
    # The file gives the structure; SNAP runs on the core model, as after any edit.
    model = assembly_to_model(asm, {}, diagnostics)
    inp = snap_input(model)
    result = solve(inp.problem)
    apply_snap_result(inp, result)
    if result.adapted:
        derive_mate_joints(model)   # joint frames follow the adapted connectors
    for c in asm.connectors:
        # An AdaptiveMateConnector's frame is what SNAP made of it (not written back unless
        # the user moves it: the saved state records this frame as the one read).
        if c.path in result.adapted:
            c.X_OC = result.adapted[c.path]
    for p in file.all_problems():
        diagnostics.add(p.to_diagnostic())
    from .cli import assembly_diagnostics
    diagnostics.extend(assembly_diagnostics(file, result.diagnostics, asm))
    state = OpenPlxState.of(file, asm.root.path, asm)
    state.remember(model)
    return model, state


def read(path: str | Path, context=None, model_name: str | None = None) -> Document:
    """Read an OpenPLX file as a document whose root is the assembled top model (None for
    a library: a file that declares no ``Physics3D.System``)."""
    with gc_paused():
        return _read(path, model_name)


def read_string(data: str | bytes, context=None, path: str = "") -> Document:
    """Read OpenPLX text as if it were the file ``path`` (its imports, bundles and
    ``@"relative/path"`` references are looked up from there; diagnostics name it)."""
    text = data.decode("utf-8", errors="surrogateescape") if isinstance(data, bytes) \
        else data
    with gc_paused():
        return _read(path, None, text)


def to_string(document: Document, out_dir: Path | None = None) -> str:
    """The text :func:`write` would save (what it cannot save is not reported here)."""
    return document_text(document, Diagnostics())


def imported_files(file: OpenPlxFile) -> list[str]:
    """The user files ``file`` imports, at any depth (resolved paths, in import order)."""
    out: list[str] = []
    seen = {file.path}
    todo = [file.ctx]
    while todo:
        ctx = todo.pop()
        for _alias, imported in ctx.imports:
            if imported.path and imported.path not in seen:
                seen.add(imported.path)
                out.append(imported.path)
                todo.append(imported)
    return out


def _read(path: str | Path, model_name: str | None, text: str | None = None) -> Document:
    file = load_file(path) if text is None else load_text(text, str(path))
    # Document.version stays empty: the SDFormat writer takes it as the <sdf> version.
    doc = Document(path=str(path), format="openplx")
    doc.extras["openplx_version"] = VERSION
    doc.extras["source_files"] = imported_files(file)
    # Evaluate every attribute first, so errors are reported where they are written
    # (a circular definition, an unknown name) rather than as what they break later.
    from .cli import evaluate_all
    instances = evaluate_all(file, model_name)
    syntax = [d for d in file.diagnostics() if d.code == Code.PARSING_ERROR]
    if syntax:
        # A syntax error is the root cause; what fails to evaluate after it is noise.
        doc.diagnostics.extend(syntax)
        return doc
    if model_name is None and file.default_model() is None:
        doc.diagnostics.extend(file.diagnostics())   # a library: nothing to assemble
        return doc
    # One assembly and one SNAP run: read_model reports the file's problems and SNAP's.
    model, state = read_model(file, doc.diagnostics, model_name, instances)
    doc.root = model
    if state is not None:
        doc.extras["openplx"] = state
    if model is not None and not doc.diagnostics.has_errors():
        from snapframe.core.frames import check_document
        check_document(doc)
    return doc


def parse_include(include: NestedInclude, context) -> Model | None:
    """Custom model parser for ``//include`` of an ``.openplx`` file: the default model,
    assembled by SNAP.  Declines other files; errors go to ``context.diagnostics``."""
    path = Path(include.resolved_file_name)
    if path.suffix.lower() != ".openplx":
        return None
    diags = Diagnostics()
    with gc_paused():
        file = load_file(path)
        model, _ = read_model(file, diags)
    if model is not None:
        model.extras["source_files"] = imported_files(file)
    target = getattr(context, "diagnostics", None)
    if target is not None:
        target.extend(diags)
    if model is None or diags.has_errors():
        if model is None and target is not None and not diags.has_errors():
            target.error(Code.ELEMENT_INVALID, f"'{path.name}' has no Physics3D.System to include")
        return None
    return model
