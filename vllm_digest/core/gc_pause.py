"""Pause Python's cyclic garbage collector while a batch step builds many objects that hold no cycles.

A year's range run builds ~330,000 report rows, 38,000 parsed bodies and 730 pages in one process that
also holds Dagster's run state (2 GB at peak). Every 700 net allocations the collector scans the young
objects, and every so often all of them: in the report step that was a fifth of its CPU time (measured
with the collector off: build_reports 11.4 -> 8.5 s CPU for the synthetic year), spent finding no
garbage, since rows, dicts and strings form no reference cycles. Inside ``paused()`` nothing is
collected by the cycle collector (reference counting still frees everything that is not a cycle); the
collector runs again as before once the block ends, and collects whatever cycles the block left.
"""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block; the collector's previous state is restored after it (a
    block nested in another, or in a process that turned the collector off itself, leaves it off)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
