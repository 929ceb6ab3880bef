"""The selection every view of a document shares: a set of keys and an active one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..diagnostics import Diagnostic
from ..events import EventEmitter

__all__ = ["Selection", "SelectionChanged"]


@dataclass(frozen=True)
class SelectionChanged:
    keys: frozenset[str]
    active: str | None
    added: frozenset[str]
    removed: frozenset[str]


class Selection:
    """Selected element keys (ordered by when they were selected) and the active key.

    Views call :meth:`select`, :meth:`add`, :meth:`toggle`, :meth:`clear`; every change
    emits one :class:`SelectionChanged` on :attr:`changed`.  Keys that stop existing (an
    element removed or renamed) are dropped by :meth:`retain`.
    """

    def __init__(self) -> None:
        self._keys: dict[str, None] = {}
        self.active: str | None = None
        self.changed: EventEmitter[SelectionChanged] = EventEmitter()

    @property
    def keys(self) -> list[str]:
        return list(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def select(self, keys: str | Iterable[str] | None) -> None:
        """Replace the selection (the last key becomes active)."""
        if keys is None:
            keys = []
        elif isinstance(keys, str):
            keys = [keys]
        self._set(dict.fromkeys(keys))

    def add(self, key: str) -> None:
        new = dict(self._keys)
        new.pop(key, None)
        new[key] = None
        self._set(new)

    def toggle(self, key: str) -> None:
        new = dict(self._keys)
        if key in new:
            del new[key]
        else:
            new[key] = None
        self._set(new)

    def clear(self) -> None:
        self._set({})

    def select_diagnostic(self, diagnostic: Diagnostic) -> bool:
        """Select the element a finding is about; False when it names none."""
        if diagnostic.key is None:
            return False
        self.select(diagnostic.key)
        return True

    def retain(self, exists) -> None:
        """Drop keys for which ``exists(key)`` is false (after structural edits)."""
        kept = {k: None for k in self._keys if exists(k)}
        if len(kept) != len(self._keys):
            self._set(kept)

    def rename(self, mapping: dict[str, str]) -> None:
        """Follow renamed keys (``old -> new``), keeping order and the active key."""
        if not any(k in mapping for k in self._keys):
            return
        self._set({mapping.get(k, k): None for k in self._keys})

    def _set(self, new: dict[str, None]) -> None:
        active = next(reversed(new), None) if new else None
        if list(new) == list(self._keys) and active == self.active:
            return
        old = set(self._keys)
        self._keys, self.active = new, active
        self.changed.emit(SelectionChanged(frozenset(new), active, frozenset(set(new) - old),
                                           frozenset(old - set(new))))
