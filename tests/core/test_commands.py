"""The undo stack: record after success, merge drags, macros, clean state, events."""

import pytest

from snapframe.core.commands import Command, CommandStack


class Append(Command):
    def __init__(self, log, value, key=None):
        self.log, self.value, self.merge_key = log, value, key
        self.label = f"append {value}"

    def do(self):
        self.log.append(self.value)

    def undo(self):
        self.log.remove(self.value)

    def merge(self, newer):
        self.log.remove(newer.value)  # keep one entry: the newest value
        self.log.remove(self.value)
        self.value = newer.value
        self.log.append(self.value)
        return True


class Boom(Command):
    def do(self):
        raise RuntimeError("boom")


def test_undo_redo_and_labels():
    log, stack = [], CommandStack()
    stack.push(Append(log, 1))
    stack.push(Append(log, 2))
    assert log == [1, 2] and stack.undo_label == "append 2"
    stack.undo()
    assert log == [1] and stack.can_redo and stack.redo_label == "append 2"
    stack.redo()
    assert log == [1, 2]
    stack.undo()
    stack.push(Append(log, 3))  # a new command clears the redo list
    assert not stack.can_redo and log == [1, 3]


def test_failed_command_is_not_recorded():
    stack = CommandStack()
    with pytest.raises(RuntimeError):
        stack.push(Boom())
    assert not stack.can_undo


def test_drag_merges_into_one_step_until_end_merge():
    log, stack = [], CommandStack()
    for v in (1, 2, 3):
        stack.push(Append(log, v, key="drag"))
    assert len(stack) == 1 and log == [3]
    stack.end_merge()
    stack.push(Append(log, 4, key="drag"))
    assert len(stack) == 2
    stack.undo()
    stack.undo()
    assert log == []


def test_macro_is_one_step_and_rolls_back_on_error():
    log, stack = [], CommandStack()
    with stack.macro("two"):
        stack.push(Append(log, 1))
        stack.push(Append(log, 2))
    assert len(stack) == 1 and log == [1, 2]
    stack.undo()
    assert log == []
    with pytest.raises(RuntimeError):
        with stack.macro("broken"):
            stack.push(Append(log, 5))
            stack.push(Boom())
    assert log == [] and len(stack) == 0


def test_clean_state_and_events():
    log, stack, events = [], CommandStack(), []
    stack.changed.connect(events.append)
    stack.push(Append(log, 1))
    stack.set_clean()
    assert stack.is_clean
    stack.push(Append(log, 2))
    assert not stack.is_clean and events[-1].can_undo
    stack.undo()
    assert stack.is_clean
