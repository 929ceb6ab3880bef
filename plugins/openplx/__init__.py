"""OpenPLX language support: parser, evaluator, writer and the Physics3D mapping.

Layers, bottom up: :mod:`.lexer` and :mod:`.parser` (lossless concrete syntax tree,
:mod:`.ast`), :mod:`.workspace` (bundles, namespaces, name lookup, 0.16 renames),
:mod:`.evaluator` with :mod:`.natives`/:mod:`.mathlib` (lazy model instances, the Math
functions), :mod:`.physics` (systems, bodies, connectors, mates of an instance),
:mod:`.snap_input` (the SNAP solver's input), :mod:`.mapping` (core model <-> OpenPLX),
:mod:`.edit`/:mod:`.writer` (text-preserving saves), :mod:`.format` (the registry's
implementation module) and :mod:`.cli` (``snapframe snap``).

Only the descriptor below is imported when formats are discovered.
"""

from snapframe.core.formats import FormatDescriptor

FORMAT = FormatDescriptor(
    name="openplx",
    label="OpenPLX",
    extensions=(".openplx",),
    implementation="snapframe.plugins.openplx.format",
    can_read=True,
    can_write=True,
    can_include=True,
)
