"""The implementation module the ``mirabuf`` descriptor names (loaded on first use).

``read`` opens a ``.mira`` file as a document, ``write`` saves one; ``parse_include`` is the custom model parser
that lets an SDFormat ``//include`` name a ``.mira`` file: the included model is the one
``read`` gives (its links, joints and in-memory meshes), placed by the include.  The core
loader parses each file once per load and shares the model among its includes.
``read_string`` reads bytes as if they were a given file and ``to_string`` gives the
bytes ``write`` would save (the editor's recovery copies; see the SDFormat plugin's).
"""

from __future__ import annotations

from pathlib import Path

from snapframe.core.diagnostics import Diagnostic, Diagnostics, SourceLocation
from snapframe.core.model import Document, Model, NestedInclude

from .reader import read, read_bytes
from .writer import assembly_of, encode, write

__all__ = ["read", "write", "parse_include", "read_string", "to_string"]


def read_string(data: bytes, context=None, path: str = "") -> Document:
    """Read ``.mira`` bytes (raw or gzip) as if they were the file ``path``."""
    if isinstance(data, str):
        raise TypeError("a mirabuf assembly is bytes, not text")
    return read_bytes(data, path)


def to_string(document: Document, out_dir: Path | None = None, *,
              compress: bool = True) -> bytes:
    """The bytes :func:`write` would save (gzip unless ``compress`` is False: a copy
    taken on the editor's UI thread leaves the compression out).  What mirabuf cannot
    hold is not reported here."""
    return encode(assembly_of(document, Diagnostics()), compress)


def _include_location(include: NestedInclude) -> SourceLocation | None:
    """The file and line of the ``<include>`` element (None when not known)."""
    el = include.include_element
    line = getattr(el, "sourceline", None) or 0
    try:
        file = el.getroottree().docinfo.URL or ""
    except AttributeError:   # not an lxml element (an include made in memory)
        return None
    if not file and not line:
        return None
    return SourceLocation(str(file), line)


def parse_include(include: NestedInclude, context) -> Model | None:
    """Custom model parser for ``//include`` of a ``.mira`` file.

    Returns the file's model (named after the assembly; the core applies the include's
    name, pose and static flag), or None with the problems in ``context.diagnostics``.
    An error that stops the file from being read (unreadable, corrupt, not an assembly) is
    reported at the ``<include>`` that names it (the file has no lines to point at), its
    message naming the ``.mira`` file.  Declines (None, no diagnostics) other files.
    """
    path = Path(include.resolved_file_name)
    if path.suffix.lower() != ".mira":
        return None
    # The includer's frame graph checks the model once it is placed: not checked here.
    doc = read(path, check=False)
    target = getattr(context, "diagnostics", None)
    if target is not None:
        at = _include_location(include) if doc.root is None else None
        for d in doc.diagnostics:
            if at is not None and d.is_error and d.file == str(path) and not d.line:
                d = Diagnostic(d.severity, d.code, d.message, at.file, at.line,
                               d.element, d.key)
            target.add(d)
    if doc.root is None or doc.diagnostics.has_errors():
        return None   # spec 1.5: a parser that reported an error returns no model
    return doc.root
