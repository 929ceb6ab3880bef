"""Connecting a panel to whichever session is current (the main window switches documents)."""

from __future__ import annotations

from typing import Callable

from ..session import DocumentSession


class SessionBinding:
    """Slots of one panel connected to the named signals of the current session.

    ``bind(session)`` disconnects them from the previous session first, so a panel never
    hears about a document it no longer shows.
    """

    def __init__(self, connections: list[tuple[str, Callable]]) -> None:
        self._connections = connections
        self.session: DocumentSession | None = None

    def bind(self, session: DocumentSession | None) -> None:
        old, self.session = self.session, session
        if old is not None:
            for signal, slot in self._connections:
                try:
                    getattr(old, signal).disconnect(slot)
                except (RuntimeError, TypeError):  # already deleted or never connected
                    pass
        if session is not None:
            for signal, slot in self._connections:
                getattr(session, signal).connect(slot)
