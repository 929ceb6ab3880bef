"""Snapframe's application layer, above :mod:`snapframe.core` and :mod:`snapframe.plugins`.

:mod:`.cli` is the ``snapframe`` command line (its built-in commands are in
:mod:`.subcommands`); :class:`Editor` (in :mod:`.api`) is the desktop editor as one
scriptable object.  Importing this package imports nothing else: the headless command
line starts without Qt, and ``from snapframe.editor import Editor`` loads Qt on first use.
"""

__all__ = ["Editor"]


def __getattr__(name: str):
    if name == "Editor":
        from .api import Editor
        return Editor
    raise AttributeError(name)
