"""Plain-Python change notification (no Qt): views subscribe, core emits.

An :class:`EventEmitter` is a list of callbacks.  Callbacks run synchronously, in
connection order; one that raises is reported to ``on_error`` and does not stop the
others, because a broken view must never corrupt the model's state.
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, TypeVar

__all__ = ["EventEmitter", "DocumentChanged", "ChangeKind"]

E = TypeVar("E")
_log = logging.getLogger(__name__)


class EventEmitter(Generic[E]):
    """A signal carrying one event object.

    Bound methods are held weakly so a closed view does not keep itself alive through
    the model; plain functions and lambdas are held strongly.
    """

    def __init__(self) -> None:
        self._callbacks: list[Any] = []
        self._blocked = 0

    def connect(self, callback: Callable[[E], Any]) -> Callable[[E], Any]:
        if hasattr(callback, "__self__") and hasattr(callback, "__func__"):
            self._callbacks.append(weakref.WeakMethod(callback))
        else:
            self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callable[[E], Any]) -> None:
        for entry in list(self._callbacks):
            target = entry() if isinstance(entry, weakref.WeakMethod) else entry
            if target == callback:
                self._callbacks.remove(entry)

    def emit(self, event: E) -> None:
        if self._blocked:
            return
        for entry in list(self._callbacks):
            if isinstance(entry, weakref.WeakMethod):
                target = entry()
                if target is None:
                    self._callbacks.remove(entry)
                    continue
            else:
                target = entry
            try:
                target(event)
            except Exception:  # a view's bug must not break the edit that triggered it
                _log.exception("event callback %r failed", target)

    def blocked(self) -> "_Blocker":
        """Context manager that suppresses emission (for bulk loads)."""
        return _Blocker(self)

    def __len__(self) -> int:
        return len(self._callbacks)


class _Blocker:
    def __init__(self, emitter: EventEmitter) -> None:
        self.emitter = emitter

    def __enter__(self) -> None:
        self.emitter._blocked += 1

    def __exit__(self, *exc: object) -> None:
        self.emitter._blocked -= 1


class ChangeKind:
    """What happened to the nodes of a :class:`DocumentChanged` event."""

    ADDED = "added"
    REMOVED = "removed"
    MODIFIED = "modified"
    RENAMED = "renamed"
    RELOADED = "reloaded"


@dataclass(frozen=True, slots=True)
class DocumentChanged:
    """Nodes of a document changed.

    ``node_ids`` are the affected nodes; ``fields`` names the attributes that changed
    (``"pose"``, ``"relative_to"``, ``"name"``...) so a view can skip irrelevant work.
    """

    kind: str
    node_ids: tuple[int, ...]
    fields: tuple[str, ...] = ()
    detail: dict = field(default_factory=dict)
    #: The nodes themselves (same order as ``node_ids``), for services that need them.
    nodes: tuple[Any, ...] = ()
