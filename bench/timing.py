"""Timing shared by the benchmarks."""

from __future__ import annotations

import gc
import os
import resource
import statistics
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


def cpu_seconds() -> float:
    """User + system CPU seconds of this process (every thread, Polars' and DuckDB's
    included) and of its reaped children (worker processes)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def load_average() -> float:
    """The machine's 1-minute load average (other people's work included)."""
    return os.getloadavg()[0]


def interleaved(
    steps: dict[str, Callable[[], Any]], rounds: int
) -> tuple[dict[str, dict[str, list[float]]], dict[str, Any], list[float]]:
    """Run every step once per round, rounds interleaved (A B C, A B C, ...), so that a
    busy spell on a shared machine falls on all steps alike rather than on one.

    Returns:
        Per step ``{"wall": [...], "cpu": [...]}`` (seconds, one value a round), each
        step's last result, and the load average at the start of each round.
    """
    times: dict[str, dict[str, list[float]]] = {k: {"wall": [], "cpu": []} for k in steps}
    results: dict[str, Any] = {}
    loads: list[float] = []
    for _ in range(rounds):
        loads.append(load_average())
        for name, fn in steps.items():
            gc.collect()
            c0, t0 = cpu_seconds(), time.perf_counter()
            results[name] = fn()
            times[name]["wall"].append(time.perf_counter() - t0)
            times[name]["cpu"].append(cpu_seconds() - c0)
    return times, results, loads


def spread(values: list[float]) -> dict[str, float]:
    """``{"min", "median", "max"}`` of ``values``."""
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}
