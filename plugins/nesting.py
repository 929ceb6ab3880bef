"""How deep a document nests models, and the limit the writers share with the readers.

Core's frame scopes and the writers walk documents with explicit stacks, so no walk is
limited by Python's recursion limit; the limit on nesting is
:data:`snapframe.core.limits.MAX_MODEL_NESTING`, which the loader applies to what it reads
and :func:`recursion_headroom` applies to a document a writer is given (one built in
memory may nest deeper than any file the readers accept).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from snapframe.core import limits
from snapframe.core.model import Include, Model, Node, World

__all__ = ["MAX_NESTING", "NestingTooDeep", "nesting_depth", "recursion_headroom"]

#: Deepest model nesting the writers accept: what the loader reads.
MAX_NESTING = limits.MAX_MODEL_NESTING


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
    """Guard a writer's walk of a document nesting ``depth`` levels: raises
    :class:`NestingTooDeep` past :data:`MAX_NESTING`.  (It once raised the interpreter's
    recursion limit for core's recursive scope code; that code is iterative now, and the
    limit is left alone: changing it is global to every thread.)"""
    if depth > MAX_NESTING:
        raise NestingTooDeep(f"the document nests models {depth} levels deep, more than the "
                             f"{MAX_NESTING} levels Snapframe reads "
                             "(snapframe.core.limits.MAX_MODEL_NESTING)")
    yield
