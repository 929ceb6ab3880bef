"""A :class:`Document`: one open file, its node tree, its undo stack and its events."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..commands import CommandStack
from ..diagnostics import Diagnostics
from ..events import ChangeKind, DocumentChanged, EventEmitter
from .nodes import Include, Model, Node, World, walk

__all__ = ["Document"]


@dataclass(eq=False)
class Document:
    """The root of what a reader produced.

    ``root`` is a :class:`World` or a top-level :class:`Model`.  ``diagnostics`` holds what
    the reader found; graph checks add theirs through :mod:`snapframe.core.frames`.
    ``version`` is the SDFormat version string (or the source format's version).
    """

    root: World | Model | None = None
    path: str = ""
    format: str = ""
    version: str = ""
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    #: Format-specific document-level data (the parsed XML tree, OpenPLX sources, ...).
    extras: dict[str, Any] = field(default_factory=dict)
    commands: CommandStack = field(default_factory=CommandStack)
    changed: EventEmitter[DocumentChanged] = field(default_factory=EventEmitter)
    _index: dict[int, Node] | None = field(default=None, repr=False)
    _frames: Any = field(default=None, repr=False)

    # -- queries ------------------------------------------------------------------
    @property
    def is_world(self) -> bool:
        return isinstance(self.root, World)

    @property
    def directory(self) -> Path:
        return Path(self.path).resolve().parent if self.path else Path.cwd()

    def nodes(self, *, into_includes: bool = False) -> Iterator[Node]:
        if self.root is not None:
            yield from walk(self.root, into_includes=into_includes)

    def node(self, node_id: int) -> Node | None:
        """Node of this document (not inside includes) by id."""
        if self._index is None:
            self._index = {n.id: n for n in self.nodes()}
        return self._index.get(node_id)

    def includes(self) -> list[Include]:
        return [n for n in self.nodes() if isinstance(n, Include)]

    # -- derived data -------------------------------------------------------------
    @property
    def frames(self):
        """The :class:`snapframe.core.frames.FrameGraph` of this document (built on demand,
        kept up to date incrementally by :meth:`notify`)."""
        if self._frames is None:
            from ..frames import FrameGraph  # local: frames imports the model
            self._frames = FrameGraph(self)
        return self._frames

    # -- change notification ------------------------------------------------------
    def notify(self, event: DocumentChanged) -> None:
        """Called by commands after they changed nodes: update derived data, tell views."""
        if event.kind in (ChangeKind.ADDED, ChangeKind.REMOVED, ChangeKind.RELOADED):
            self._index = None
        if self._frames is not None:
            self._frames.on_change(event)
        self.changed.emit(event)
