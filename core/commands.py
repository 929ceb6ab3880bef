"""The undo stack.  Every mutation of a document is a :class:`Command`.

Rules (after glue's command stack, with its one flaw fixed): a command is recorded
only after ``do`` succeeded; a new command clears the redo list; consecutive commands
that agree to :meth:`Command.merge` (a drag of one pose, a scrubbed slider) become one
undo step.  Macros group several commands into one step (drop an include, then mate it).
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Callable, ContextManager, Iterator

from .events import EventEmitter

__all__ = ["Command", "CommandStack", "Macro", "StackChanged"]


class Command:
    """Base class.  Subclasses implement ``do`` and ``undo``; ``merge`` is optional."""

    label: str = "Edit"
    #: Commands with equal, non-None merge keys may merge into one undo step.
    merge_key: object = None

    def do(self) -> None:
        raise NotImplementedError

    def undo(self) -> None:
        raise NotImplementedError

    def redo(self) -> None:
        self.do()

    def merge(self, newer: "Command") -> bool:
        """Absorb ``newer`` (already done) into this command; return True on success.

        The default merges commands with the same ``merge_key`` by keeping this command's
        undo state; subclasses that store the "after" value must take it from ``newer``.
        """
        return False


class Macro(Command):
    """Several commands done as one undo step."""

    def __init__(self, label: str, commands: list[Command] | None = None) -> None:
        self.label = label
        self.commands: list[Command] = list(commands or [])

    def do(self) -> None:
        done: list[Command] = []
        try:
            for c in self.commands:
                c.do()
                done.append(c)
        except Exception:
            for c in reversed(done):
                c.undo()
            raise

    def redo(self) -> None:
        for c in self.commands:
            c.redo()

    def undo(self) -> None:
        for c in reversed(self.commands):
            c.undo()


@dataclass(frozen=True, slots=True)
class StackChanged:
    can_undo: bool
    can_redo: bool
    undo_label: str
    redo_label: str
    clean: bool


class CommandStack:
    """Done/undone lists with merging, macros, a clean mark and change events."""

    def __init__(self, limit: int = 500) -> None:
        self.limit = limit
        self._done: list[Command] = []
        self._undone: list[Command] = []
        self._macro_stack: list[Macro] = []
        self._clean_index: int | None = 0
        self._merge_open = True
        self.changed: EventEmitter[StackChanged] = EventEmitter()
        #: Wraps every push, undo and redo (a document sets it so that derived data and
        #: events are brought up to date once per user action, not once per sub-command).
        self.batch: Callable[[], ContextManager] = nullcontext

    # -- doing --------------------------------------------------------------------
    def push(self, command: Command) -> Command:
        """Do ``command`` and record it (or merge it into the previous step)."""
        with self.batch():
            command.do()
        if self._macro_stack:
            self._macro_stack[-1].commands.append(command)
            return command
        self._record(command)
        return command

    def _record(self, command: Command) -> None:
        if self._clean_index is not None and self._clean_index > len(self._done):
            self._clean_index = None  # the clean state was in the redo list: gone for good
        self._undone.clear()
        last = self._done[-1] if self._done else None
        if (self._merge_open and last is not None and command.merge_key is not None
                and last.merge_key == command.merge_key
                and len(self._done) != self._clean_index and last.merge(command)):
            self._emit()
            return
        self._done.append(command)
        self._merge_open = True
        if len(self._done) > self.limit:
            self._done.pop(0)
            if self._clean_index is not None:
                self._clean_index -= 1
                if self._clean_index < 0:
                    self._clean_index = None
        self._emit()

    def end_merge(self) -> None:
        """Close the current merge run (e.g. on mouse release): the next edit is a new step."""
        self._merge_open = False

    @contextmanager
    def macro(self, label: str) -> Iterator[Macro]:
        """Group the commands pushed inside the ``with`` block into one undo step.

        If the block raises, what it did is undone and nothing is recorded.
        """
        macro = Macro(label)
        self._macro_stack.append(macro)
        with self.batch():
            try:
                yield macro
            except BaseException:
                self._macro_stack.pop()
                for c in reversed(macro.commands):
                    c.undo()
                raise
            self._macro_stack.pop()
        if not macro.commands:
            return
        if self._macro_stack:
            self._macro_stack[-1].commands.append(macro)
        else:
            self._merge_open = False
            self._record(macro)
            self._merge_open = False

    # -- undo/redo ----------------------------------------------------------------
    def undo(self) -> Command | None:
        if not self._done:
            return None
        command = self._done.pop()
        with self.batch():
            command.undo()
        self._undone.append(command)
        self._merge_open = False
        self._emit()
        return command

    def redo(self) -> Command | None:
        if not self._undone:
            return None
        command = self._undone.pop()
        with self.batch():
            command.redo()
        self._done.append(command)
        self._merge_open = False
        self._emit()
        return command

    @property
    def can_undo(self) -> bool:
        return bool(self._done)

    @property
    def can_redo(self) -> bool:
        return bool(self._undone)

    @property
    def undo_label(self) -> str:
        return self._done[-1].label if self._done else ""

    @property
    def redo_label(self) -> str:
        return self._undone[-1].label if self._undone else ""

    def __len__(self) -> int:
        return len(self._done)

    # -- clean state (for "unsaved changes") -------------------------------------
    # As QUndoStack's clean index: the clean state is a position in the history; undoing
    # below it and then pushing a new command makes it unreachable until set_clean again.
    def set_clean(self) -> None:
        self._clean_index = len(self._done)
        self._merge_open = False
        self._emit()

    def set_modified(self) -> None:
        """The document differs from its file though no step of this history made it so
        (it was restored from a recovery copy): unsaved until the next :meth:`set_clean`."""
        self._clean_index = None
        self._emit()

    @property
    def is_clean(self) -> bool:
        return self._clean_index == len(self._done)

    def clear(self) -> None:
        self._done.clear()
        self._undone.clear()
        self._clean_index = 0
        self._emit()

    def _emit(self) -> None:
        self.changed.emit(StackChanged(self.can_undo, self.can_redo, self.undo_label,
                                       self.redo_label, self.is_clean))
