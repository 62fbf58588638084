"""The one-run benchmark's interval for a median ratio (bench/bench_one_run.py), held to
planted truths: over many draws of 40 rounds with a known median, the 95 % interval holds
that median at least 95 % of the time (a little more: the exact intervals are
conservative), for a symmetric and a skewed distribution of ratios alike."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable
from types import ModuleType

import pytest
from conftest import ROOT, script_module


def _bench() -> ModuleType:
    return script_module(ROOT / "bench" / "bench_one_run.py")


#: (name, a draw of one round's ratio, the distribution's true median)
PLANTED: list[tuple[str, Callable[[random.Random], float], float]] = [
    ("normal around 1.30", lambda r: r.gauss(1.30, 0.05), 1.30),
    # a slow spell of the host lengthens some rounds: a right-skewed ratio, median 1.25
    ("lognormal, skewed", lambda r: 1.25 * r.lognormvariate(0.0, 0.08), 1.25),
]


@pytest.mark.parametrize(("name", "draw", "median"), PLANTED, ids=[p[0] for p in PLANTED])
def test_the_interval_holds_the_planted_median_at_least_95_percent_of_the_time(
    name: str, draw: Callable[[random.Random], float], median: float
) -> None:
    interval = _bench().median_interval
    rng = random.Random(38)
    draws = 600
    held = 0
    for _ in range(draws):
        rounds = [draw(rng) for _ in range(40)]
        low, high = interval(rounds)
        assert low <= statistics.median(rounds) <= high
        held += low <= median <= high
    # 95 % nominal; the binomial intervals of 40 rounds cover ~96.2 %. A margin of three
    # standard errors below 95 % (0.9 pp at 600 draws) tells a broken interval from luck.
    assert held / draws >= 0.95 - 3 * (0.95 * 0.05 / draws) ** 0.5, (name, held / draws)
    # and it is not the whole range: an interval that always spans min..max would pass
    # the coverage check above without saying anything
    assert held / draws <= 0.995, (name, held / draws)


def test_the_interval_is_two_of_the_rounds_around_the_median() -> None:
    low, high = _bench().median_interval([1.0] * 10 + [1.1] * 10 + [1.2] * 20)
    assert (low, high) == (1.1, 1.2)


def test_too_few_rounds_give_no_interval_and_the_table_says_so() -> None:
    bench = _bench()
    # five rounds: even the smallest and largest hold the median only 1 - 2/32 = 93.75 %
    # of the time, short of 95 %
    low, high = bench.median_interval([1.0, 1.1, 1.2, 1.3, 1.4])
    assert math.isnan(low) and math.isnan(high)
    assert bench.median_interval([1.0, 1.1, 1.2, 1.3, 1.4, 1.5]) == (1.0, 1.5)
    times = {"floor": [1.0] * 5, "command": [1.3, 1.2, 1.3, 1.4, 1.3]}
    table = bench.report(times, (0.0, 0.0, 0.0))
    assert "| too few rounds |" in table
    assert "nan" not in table
