"""OpenPLX language support: parser, evaluator, writer and the Physics3D mapping.

Layers, bottom up: :mod:`.lexer` and :mod:`.parser` (lossless concrete syntax tree,
:mod:`.ast`), :mod:`.workspace` (bundles, namespaces, name lookup, 0.16 renames),
:mod:`.evaluator` with :mod:`.natives`/:mod:`.mathlib` (lazy model instances, the Math
functions), :mod:`.expansion` (how many elements a model expands to, before building it),
:mod:`.physics` (systems, bodies, connectors, mates of an instance), :mod:`.forcing`
(evaluating everything a file writes, for ``check``), :mod:`.snap_input` (the SNAP
solver's input), :mod:`.mapping` (core model <-> OpenPLX), :mod:`.edit`/:mod:`.writer`
(text-preserving saves), :mod:`.format` (the registry's implementation module) and
:mod:`.cli` (``snapframe snap``).

A file that declares no ``Physics3D.System`` (or any file of a bundle) is a *library*: its
models are templates, checked for real problems only (see :mod:`.cli`).

Only the descriptor below is imported when formats are discovered.  It is made on first
access: importing a module of this package (``snapframe snap`` imports :mod:`.cli`) does
not import the format registry and the entry-point machinery behind it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FORMAT"]


def __getattr__(name: str) -> Any:
    if name == "FORMAT":
        from snapframe.core.formats import FormatDescriptor
        descriptor = FormatDescriptor(
            name="openplx",
            label="OpenPLX",
            extensions=(".openplx",),
            implementation="snapframe.plugins.openplx.format",
            can_read=True,
            can_write=True,
            can_include=True,
        )
        globals()["FORMAT"] = descriptor  # one descriptor, made once
        return descriptor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
