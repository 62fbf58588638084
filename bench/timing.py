"""Timing shared by the benchmarks."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any


def timings(repeat: int, fn: Callable[[], Any]) -> tuple[list[float], Any]:
    """The wall time of each of ``repeat`` calls of ``fn`` (seconds), and the last result."""
    times: list[float] = []
    result = None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return times, result


def best_of(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest of ``repeat`` timed calls of ``fn`` (seconds), and the last result."""
    times, result = timings(repeat, fn)
    return min(times), result
