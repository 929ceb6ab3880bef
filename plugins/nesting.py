"""How deep a document nests models, and the recursion headroom resolving it needs.

The writers walk documents with explicit stacks, so their own depth is unbounded.  The
frame scopes of :mod:`snapframe.core.frames.scope` are still built and resolved
recursively (a few Python frames per nesting level), so a writer that resolves poses of
a deeply nested document asks for headroom first: :func:`recursion_headroom` raises the
interpreter's limit for the duration of the work, in proportion to the nesting, up to
:data:`MAX_NESTING` levels.  Python 3.11 keeps Python-to-Python calls off the C stack,
so the raised limit costs heap, not native stack.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

from snapframe.core.model import Include, Model, Node, World

__all__ = ["MAX_NESTING", "NestingTooDeep", "nesting_depth", "recursion_headroom"]

#: Deepest model nesting the writers accept (a real assembly nests a handful of levels).
MAX_NESTING = 20_000
#: Python frames core's scope code uses per nesting level (construction, pose and body
#: lookups), with a margin.
_FRAMES_PER_LEVEL = 6


class NestingTooDeep(ValueError):
    """The document nests models deeper than :data:`MAX_NESTING`."""


def nesting_depth(root: Node | None) -> int:
    """The deepest chain of models (nested and included) below ``root``, counted without
    recursion.  Included templates are entered once each."""
    if root is None:
        return 0
    deepest = 0
    seen: set[int] = set()
    stack: list[tuple[Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        children: list[Node] = []
        if isinstance(node, (Model, World)):
            children = node.entities
        for child in children:
            if isinstance(child, Model):
                stack.append((child, depth + 1))
            elif isinstance(child, Include) and child.model is not None:
                key = id(child.model)
                if key not in seen:
                    seen.add(key)
                    stack.append((child.model, depth + 1))
    return deepest


@contextmanager
def recursion_headroom(depth: int) -> Iterator[None]:
    """Let core's recursive scope code handle ``depth`` nesting levels; restores the limit
    afterwards.  Raises :class:`NestingTooDeep` past :data:`MAX_NESTING`."""
    if depth > MAX_NESTING:
        raise NestingTooDeep(f"the document nests models {depth} levels deep, more than the "
                             f"{MAX_NESTING} levels a writer handles")
    old = sys.getrecursionlimit()
    need = _current_depth() + _FRAMES_PER_LEVEL * depth + 1000
    if need > old:
        sys.setrecursionlimit(need)
    try:
        yield
    finally:
        if need > old:
            sys.setrecursionlimit(old)


def _current_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth
