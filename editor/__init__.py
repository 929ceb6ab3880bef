"""Snapframe's application layer, above :mod:`snapframe.core` and :mod:`snapframe.plugins`.

:mod:`.cli` is the ``snapframe`` command line (its built-in commands are in
:mod:`.subcommands`); the Qt editor arrives with its own issue.  This package imports
nothing at import time, so the headless command line starts without Qt.
"""
