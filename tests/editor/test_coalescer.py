"""Refreshes coalesced by the assembling panels wait longer when they cost more."""

from __future__ import annotations

import time


def test_a_costly_refresh_waits_in_proportion_and_never_too_long(qtbot):
    from snapframe.editor.assembling._common import Coalescer
    runs = []

    def slow():
        runs.append(time.perf_counter())
        time.sleep(0.05)
    c = Coalescer(slow, 10)
    c.request()
    c.request()                        # a burst: one run
    qtbot.waitUntil(lambda: len(runs) == 1, timeout=2000)
    qtbot.wait(30)
    assert len(runs) == 1
    assert c._timer.interval() >= Coalescer.DUTY * 50 * 0.9
    c.request()
    qtbot.waitUntil(lambda: len(runs) == 2, timeout=3000)
    assert runs[1] - runs[0] >= Coalescer.DUTY * 0.05 * 0.9
    slept = []
    c2 = Coalescer(lambda: slept.append(time.sleep(1.0)), 10)
    c2.request()
    c2.flush()
    assert c2._timer.interval() == Coalescer.LONGEST_MS
