"""The signed-rank test computed without SciPy (toolkit.rubrics.compare.signed_rank)
equals SciPy's own on every case SciPy computes: ``method="exact"`` without ties, an
exhaustive ``PermutationMethod`` (2^n sign assignments) with ties, ``"asymptotic"``
beyond the exact sizes; and the edge cases are counted by hand."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT, SAMPLE_RUNS
from scipy import stats

from toolkit.rubrics.compare.signed_rank import (
    doubled_midranks,
    exact_p,
    normal_p,
    null_counts,
    signed_rank,
)
from toolkit.rubrics.compare.stats import (
    EXACT_MAX,
    EXACT_TIES_MAX,
    bootstrap_interval,
    mcnemar_exact,
    paired_test,
    two_sided_z,
    wilcoxon_test,
)

TOL = 1e-12


def _tied_sample(rng: np.random.Generator, n: int) -> np.ndarray:
    """Differences on a coarse grid (ties and zeros likely), both signs."""
    return rng.integers(-4, 5, size=n).astype(np.float64) / 4


def test_doubled_midranks_are_twice_the_mean_rank_of_each_tie_group() -> None:
    # |values| 1, 2, 2, 3, 3, 3 -> ranks 1, 2.5, 2.5, 5, 5, 5 (by hand)
    values = np.array([3.0, 2.0, 1.0, 3.0, 2.0, 3.0])
    assert doubled_midranks(values).tolist() == [10, 5, 2, 10, 5, 10]


def test_null_counts_match_a_hand_enumeration() -> None:
    # ranks 1, 2.5, 2.5 doubled 2, 5, 5: the 8 sign assignments give 2T+ =
    # 0, 2, 5, 5, 7, 7, 10, 12
    counts = null_counts(np.array([2, 5, 5], dtype=np.int64))
    expected = np.zeros(13, dtype=np.int64)
    for v in (0, 2, 5, 5, 7, 7, 10, 12):
        expected[v] += 1
    assert counts.tolist() == expected.tolist()


@pytest.mark.parametrize("n", range(1, 21))
def test_untied_p_equals_scipy_exact(n: int) -> None:
    rng = np.random.default_rng(1000 + n)
    for _ in range(20):
        d = rng.permutation(np.arange(1, n + 1)) * rng.choice([-1.0, 1.0], size=n)
        ours = wilcoxon_test(d, None, None)
        ref = stats.wilcoxon(d, method="exact")
        assert ours.statistic == float(ref.statistic)
        assert ours.p == pytest.approx(float(ref.pvalue), abs=TOL, rel=TOL)
        assert ours.note == ""


@pytest.mark.parametrize("n", [*range(1, 13), EXACT_TIES_MAX])
def test_tied_p_with_zeros_equals_scipy_exhaustive_permutation(n: int) -> None:
    rng = np.random.default_rng(2000 + n)
    for _ in range(1 if n > 12 else 6 if n > 9 else 12):  # SciPy takes seconds a call at 2^16
        d = _tied_sample(rng, n)
        nz = d[d != 0]
        stat = signed_rank(d)
        if nz.size < 2:  # SciPy's permutation test needs two; by hand both tails hold it all
            assert exact_p(stat) == 1.0
            continue
        ref = stats.wilcoxon(
            nz, method=stats.PermutationMethod(n_resamples=2**nz.size), zero_method="wilcox"
        )
        assert stat.statistic == float(ref.statistic)
        assert exact_p(stat) == pytest.approx(float(ref.pvalue), abs=TOL, rel=TOL)


def _enumerated_p(nz: np.ndarray) -> float:
    """The two-sided p by brute force: T+ of all 2^n sign vectors at once (SciPy's
    rankdata for the mid-ranks), twice the smaller tail count over 2^n."""
    ranks = stats.rankdata(np.abs(nz))
    n = nz.size
    signs = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    null = signs @ ranks
    t = ranks[nz > 0].sum()
    return min(1.0, 2 * min(np.sum(null <= t), np.sum(null >= t)) / 2**n)


@pytest.mark.parametrize("n", range(13, 21))
def test_tied_p_equals_brute_force_enumeration_up_to_20(n: int) -> None:
    rng = np.random.default_rng(4000 + n)
    for _ in range(5):
        nz = rng.integers(1, 4, size=n) * rng.choice([-1.0, 1.0], size=n)
        assert exact_p(signed_rank(nz)) == pytest.approx(_enumerated_p(nz), abs=TOL, rel=TOL)


def test_tied_p_is_what_the_comparison_reported_before() -> None:
    """The path `paired_test` takes with ties (the differences rounded, zeros dropped)."""
    rng = np.random.default_rng(7)
    for n in (5, 9, 12):
        for _ in range(4):
            a = rng.integers(0, 4, size=n) / 4
            b = rng.integers(0, 4, size=n) / 4
            res = paired_test(a, b, "wilcoxon")
            nz = np.round(b - a, 12)
            nz = nz[nz != 0]
            if nz.size == 0:
                assert res.p == 1.0
                continue
            ties = np.unique(np.abs(nz)).size < nz.size
            method = stats.PermutationMethod(n_resamples=2**nz.size) if ties else "exact"
            ref = stats.wilcoxon(nz, method=method)
            assert res.statistic == float(ref.statistic)
            assert res.p == pytest.approx(float(ref.pvalue), abs=TOL, rel=TOL)


@pytest.mark.parametrize("n", [EXACT_TIES_MAX + 1, 30, 80])
def test_beyond_the_exact_sizes_the_normal_approximation_is_scipys(n: int) -> None:
    rng = np.random.default_rng(3000 + n)
    for _ in range(5):
        d = rng.integers(1, 5, size=n) * rng.choice([-1.0, 1.0], size=n)  # tied, no zero
        nz = d
        ours = wilcoxon_test(d, None, None)
        ref = stats.wilcoxon(nz, method="asymptotic", correction=False)
        assert ours.note == "ties: normal approximation"
        assert ours.statistic == float(ref.statistic)
        assert ours.p == pytest.approx(float(ref.pvalue), abs=TOL, rel=1e-9)


def test_untied_beyond_exact_max_is_the_normal_approximation() -> None:
    n = EXACT_MAX + 10
    rng = np.random.default_rng(5)
    d = rng.permutation(np.arange(1, n + 1)) * rng.choice([-1.0, 1.0], size=n)
    ref = stats.wilcoxon(d, method="asymptotic", correction=False)
    assert wilcoxon_test(d, None, None).p == pytest.approx(float(ref.pvalue), rel=1e-9)


def test_exact_untied_at_exact_max_matches_scipy() -> None:
    rng = np.random.default_rng(11)
    d = rng.permutation(np.arange(1, EXACT_MAX + 1)) * rng.choice([-1.0, 1.0], size=EXACT_MAX)
    ref = stats.wilcoxon(d, method="exact")
    assert wilcoxon_test(d, None, None).p == pytest.approx(float(ref.pvalue), abs=TOL, rel=1e-9)


def test_one_difference_has_p_one() -> None:
    # two sign assignments, T+ = 0 or 1: each tail holds one of two, 2 * 1/2 = 1
    stat = signed_rank(np.array([0.3]))
    assert (stat.r_plus, stat.r_minus, stat.n) == (1.0, 0.0, 1)
    assert exact_p(stat) == 1.0


def test_all_equal_positive_differences_by_hand() -> None:
    # five ties share rank 3 (doubled 6): T+ = 15 only when every sign is +, 1 of 32
    stat = signed_rank(np.full(5, 0.25))
    assert stat.ties and stat.r_plus == 15.0 and stat.statistic == 0.0
    assert exact_p(stat) == 2 / 32


def test_all_zeros_is_p_one_and_no_rank() -> None:
    stat = signed_rank(np.zeros(6))
    assert stat.n == 0 and stat.statistic == 0.0
    assert exact_p(stat) == 1.0 and normal_p(stat) == 1.0
    res = paired_test(np.ones(6), np.ones(6), "wilcoxon")
    assert (res.statistic, res.p, res.note) == (0.0, 1.0, "every pair equal")


def test_zeros_are_dropped_before_ranking() -> None:
    # zeros do not take ranks: [0, 0, 1, -2, 3] ranks 1, 2, 3 among three values
    stat = signed_rank(np.array([0.0, 0.0, 1.0, -2.0, 3.0]))
    assert (stat.r_plus, stat.r_minus, stat.n) == (4.0, 2.0, 3)
    # the 8 assignments give T+ = 0, 1, 2, 3, 3, 4, 5, 6: T+ >= 4 in 3 of 8,
    # T+ <= 4 in 6 of 8; p = 2 * 3/8
    assert exact_p(stat) == 0.75
    assert math.isclose(
        exact_p(stat), float(stats.wilcoxon([1.0, -2.0, 3.0], method="exact").pvalue)
    )


# The other statistics of the default comparison, computed without SciPy's imports:
# each equal to the SciPy function it replaces.


@pytest.mark.parametrize("seed", range(40))
def test_bootstrap_interval_is_scipys_percentile_bootstrap_draw_for_draw(seed: int) -> None:
    rng = np.random.default_rng(seed)
    level = (0.9, 0.95, 0.99)[seed % 3]
    resamples = int(rng.integers(1, 1500))
    x = np.round(rng.normal(size=int(rng.integers(2, 25))), 2)
    y = rng.integers(0, 4, size=int(rng.integers(2, 25))) / 4

    def diff(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.mean(b, axis=axis) - np.mean(a, axis=axis)

    for samples, statistic in (((x,), np.mean), ((x, y), diff)):
        ref = stats.bootstrap(
            samples, statistic, n_resamples=resamples, confidence_level=level,
            method="percentile", rng=np.random.default_rng(seed), vectorized=True, paired=False,
        )  # fmt: skip
        ours = bootstrap_interval(samples, np.random.default_rng(seed), level, resamples)
        ci = ref.confidence_interval
        assert ours == (float(ci.low), float(ci.high))


def test_mcnemar_exact_is_scipys_binomial_test() -> None:
    for flips in [(a, b) for a in range(25) for b in range(25) if a + b]:
        ref = stats.binomtest(flips[1], sum(flips), 0.5).pvalue
        assert mcnemar_exact(*flips) == pytest.approx(float(ref), abs=TOL, rel=TOL)


@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_two_sided_z_is_scipys_normal_quantile(level: float) -> None:
    ref = stats.norm.ppf(1 - (1 - level) / 2)
    assert two_sided_z(level) == pytest.approx(float(ref), rel=1e-14)


COMPARE_IMPORTS = """
import json, sys
from toolkit.cli import main
code = main(["compare", sys.argv[1], sys.argv[2], "--format", "json"])
print(json.dumps({"code": code, "scipy": sorted(m for m in sys.modules if m.startswith("scipy"))}))
"""


def test_the_default_paired_comparison_imports_no_scipy() -> None:
    """The sample comparison (Wilcoxon, bootstrap, McNemar) runs without SciPy's imports."""
    a, b = SAMPLE_RUNS / "compare" / "a", SAMPLE_RUNS / "compare" / "b"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", COMPARE_IMPORTS, str(a), str(b)],
        capture_output=True, text=True, env=env, check=True, cwd=ROOT,
    )  # fmt: skip
    last = json.loads(out.stdout.strip().splitlines()[-1])
    assert last == {"code": 0, "scipy": []}
