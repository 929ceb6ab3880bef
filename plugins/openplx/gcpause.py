"""Pause Python's cyclic garbage collector while an OpenPLX file is evaluated.

Evaluating a model allocates tens of thousands of small containers (instances, their
value caches, modifiers) that all live until the command ends.  Each allocation burst
triggers a collection that re-scans every one of them, oldest generation included, so the
collector's work grew faster than the file (55 % of ``snapframe snap`` on a 1000-body
chain).  The evaluator makes almost no cyclic garbage (instances share their type's
template and hold no reference to themselves), so nothing is lost by not collecting for
the duration of one load; the collector runs again afterwards.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable automatic garbage collection inside the ``with`` block (nestable; a collector
    that was already disabled stays so).  The switch is process-wide: with loads on two
    threads, the first to finish turns collection back on for the other (slower, never
    wrong)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
