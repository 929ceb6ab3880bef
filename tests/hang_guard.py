"""``deadline``: turn a hang into a test failure, for the tests of hostile input.

The readers are Python loops and blocking ``open()`` calls, both of which an alarm
interrupts; the test then fails with ``error`` instead of waiting for ever.
"""

from __future__ import annotations

import contextlib
import signal


@contextlib.contextmanager
def deadline(seconds: float = 3.0, error: type[Exception] = TimeoutError):
    def fire(*_):
        raise error(f"still running after {seconds} s")
    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
