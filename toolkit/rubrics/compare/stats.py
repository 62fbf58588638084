"""The comparison's statistics, one function each (tests check each against its
definition): Holm and Benjamini-Hochberg corrections, McNemar's exact test, Fisher's
exact test, pass^k, the rank-biserial correlation, the percentile bootstrap interval,
Wilcoxon's signed-rank test, the paired and unpaired tests with their effect sizes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from toolkit.errors import InputError
from toolkit.rubrics.compare.rubric import CORRECTIONS

# scipy is imported in the functions that use it: about 1 s of imports that a refused
# input (`toolkit compare` with a bad option or a missing folder: 0.7 s, not 1.9 s) never pays


def holm(p: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order.

    The i-th smallest of m p-values is multiplied by (m - i + 1), the running maximum
    keeps the order, and values are capped at 1.
    """
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def adjust(p: Sequence[float], correction: str) -> list[float]:
    """``p`` adjusted across dimensions: ``holm`` or ``bh`` (Benjamini-Hochberg)."""
    if not p:
        return []
    if correction == "holm":
        return holm(p)
    if correction == "bh":
        from scipy.stats import false_discovery_control

        return [float(v) for v in false_discovery_control(np.asarray(p, float), method="bh")]
    raise InputError(
        None, f"must be one of {', '.join(CORRECTIONS)}", field="--correction", value=correction
    )


def mcnemar_exact(pass_to_fail: int, fail_to_pass: int) -> float:
    """McNemar's exact two-sided p-value: a binomial test of the discordant pairs
    against 1/2 (:func:`scipy.stats.binomtest`); 1.0 when no pair flipped."""
    from scipy.stats import binomtest

    n = pass_to_fail + fail_to_pass
    if n == 0:
        return 1.0
    return float(binomtest(fail_to_pass, n, 0.5).pvalue)


def pass_hat_k(counts: Sequence[tuple[int, int]], k: int) -> float | None:
    """pass^k as tau-bench defines it: the mean over units of C(c, k) / C(n, k), where a
    unit passed c of its n runs; units with fewer than k runs are left out (``None``
    when none is left)."""
    terms = [math.comb(c, k) / math.comb(n, k) for n, c in counts if n >= k]
    return sum(terms) / len(terms) if terms else None


def rank_biserial_paired(d: np.ndarray[Any, np.dtype[np.float64]]) -> float | None:
    """The matched-pairs rank-biserial correlation (T+ - T-) / (T+ + T-) over the
    nonzero differences, ranked by absolute value (ties share their mean rank)."""
    from scipy.stats import rankdata

    nz = d[d != 0]
    if nz.size == 0:
        return None
    ranks = rankdata(np.abs(nz))
    plus, minus = float(ranks[nz > 0].sum()), float(ranks[nz < 0].sum())
    return (plus - minus) / (plus + minus)


#: The most values one bootstrap batch draws (2**22 indices and means: 32 MiB).
BATCH_VALUES = 1 << 22


def bootstrap_interval(
    samples: Sequence[np.ndarray[Any, np.dtype[np.float64]]],
    rng: np.random.Generator,
    level: float,
    resamples: int,
) -> tuple[float | None, float | None]:
    """A percentile bootstrap interval (:func:`scipy.stats.bootstrap`) of the mean of one
    sample (paired differences) or of mean(B) - mean(A) (two independent samples)."""
    return bootstrap_intervals(samples, rng, (level,), resamples)[0]


def bootstrap_intervals(
    samples: Sequence[np.ndarray[Any, np.dtype[np.float64]]],
    rng: np.random.Generator,
    levels: Sequence[float],
    resamples: int,
) -> list[tuple[float | None, float | None]]:
    """:func:`bootstrap_interval` at each of ``levels``, all from one set of resamples:
    the first level is scipy's own interval, the others the same percentiles of the same
    bootstrap distribution (``numpy.percentile``, as scipy takes them)."""
    from scipy.stats import bootstrap

    if resamples < 1 or any(s.size < 2 for s in samples):  # 0 resamples: no interval
        return [(None, None) for _ in levels]
    # the resamples in batches of at most 2**22 drawn values (32 MiB), never resamples x n
    batch = max(1, BATCH_VALUES // max(s.size for s in samples))
    if len(samples) == 1:
        d = samples[0]
        if np.all(d == d[0]):
            return [(float(d[0]), float(d[0])) for _ in levels]
        res = bootstrap(
            (d,), np.mean, n_resamples=resamples, confidence_level=levels[0],
            method="percentile", rng=rng, vectorized=True, batch=batch,
        )  # fmt: skip
    else:

        def diff(x: Any, y: Any, axis: int = -1) -> Any:
            return np.mean(y, axis=axis) - np.mean(x, axis=axis)

        res = bootstrap(
            tuple(samples), diff, n_resamples=resamples, confidence_level=levels[0],
            method="percentile", rng=rng, vectorized=True, paired=False, batch=batch,
        )  # fmt: skip
    ci = res.confidence_interval
    out: list[tuple[float | None, float | None]] = [(float(ci.low), float(ci.high))]
    if len(levels) > 1:  # one call: the distribution partitioned once for every level
        tails = [(1 - level) / 2 * 100 for level in levels[1:]]
        q = np.percentile(res.bootstrap_distribution, [*tails, *(100 - t for t in tails)])
        pairs = zip(q[: len(tails)], q[len(tails) :], strict=True)
        out += [(float(lo), float(hi)) for lo, hi in pairs]
    return out


@dataclass(frozen=True)
class TestResult:
    """One test's numbers (``None`` where the data cannot give them, with ``note``)."""

    name: str
    statistic: float | None
    p: float | None
    effect: float | None
    rank_biserial: float | None
    note: str = ""


#: Up to this many nonzero differences with ties, Wilcoxon's p enumerates every sign
#: assignment (2^n of them): the exact permutation distribution of the mid-ranks.
EXACT_TIES_MAX = 16


def wilcoxon_test(
    d: np.ndarray[Any, np.dtype[np.float64]], dz: float | None, rb: float | None
) -> TestResult:
    """Wilcoxon's signed-rank test of the differences ``d``, zeros dropped (Wilcoxon's
    own convention). Without ties: scipy's exact distribution up to 50 differences, its
    normal approximation beyond. With ties (scores on a coarse scale often tie), scipy's
    "exact" distribution no longer holds, so the p-value is the exact permutation one
    (every sign assignment of the mid-ranks, :class:`scipy.stats.PermutationMethod`) up
    to :data:`EXACT_TIES_MAX` differences, and the tie-corrected normal approximation
    beyond."""
    from scipy import stats

    nz = d[d != 0]
    ties = np.unique(np.abs(nz)).size < nz.size
    method: Any
    if not ties:
        method = "exact" if nz.size <= 50 else "asymptotic"
        note = ""
    elif nz.size <= EXACT_TIES_MAX:
        method = stats.PermutationMethod(n_resamples=2**nz.size)
        note = "ties: exact permutation p"
    else:
        method = "asymptotic"
        note = "ties: normal approximation"
    res = stats.wilcoxon(nz, method=method)
    return TestResult("wilcoxon", float(res.statistic), float(res.pvalue), dz, rb, note)


def paired_test(
    a: np.ndarray[Any, np.dtype[np.float64]], b: np.ndarray[Any, np.dtype[np.float64]], test: str
) -> TestResult:
    """Wilcoxon's signed-rank test (scipy's exact distribution where it computes one,
    zeros dropped as Wilcoxon did) or the paired t-test of B - A, with d_z (mean
    difference over its standard deviation) and the rank-biserial correlation."""
    from scipy import stats

    d = np.round(b - a, 12).astype(np.float64)  # 0.94 - 0.92 and 0.96 - 0.94: one tie
    n = d.size
    sd = float(np.std(d, ddof=1)) if n >= 2 else 0.0
    dz = float(np.mean(d)) / sd if sd > 0 else None
    rb = rank_biserial_paired(d)
    if n < 2:
        return TestResult(test, None, None, dz, rb, "fewer than 2 pairs")
    if test == "wilcoxon":
        if not np.any(d != 0):
            return TestResult("wilcoxon", 0.0, 1.0, dz, rb, "every pair equal")
        return wilcoxon_test(d, dz, rb)
    if sd == 0:
        note = "every pair equal" if np.all(d == 0) else "the differences do not vary"
        return TestResult("t", None, 1.0 if np.all(d == 0) else None, dz, rb, note)
    res = stats.ttest_rel(b, a)
    return TestResult("t", float(res.statistic), float(res.pvalue), dz, rb)


def unpaired_test(
    a: np.ndarray[Any, np.dtype[np.float64]], b: np.ndarray[Any, np.dtype[np.float64]], test: str
) -> TestResult:
    """Mann-Whitney U (for ``wilcoxon``) or Welch's t (for ``t``) of B against A, with
    Cohen's d (pooled standard deviation) and the rank-biserial correlation 2U/(n_a n_b) - 1."""
    from scipy import stats

    if a.size < 2 or b.size < 2:
        return TestResult(test, None, None, None, None, "fewer than 2 units in an arm")
    pooled = math.sqrt(
        ((a.size - 1) * np.var(a, ddof=1) + (b.size - 1) * np.var(b, ddof=1))
        / (a.size + b.size - 2)
    )
    d = (float(np.mean(b)) - float(np.mean(a))) / pooled if pooled > 0 else None
    if test == "wilcoxon":
        if np.all(np.concatenate([a, b]) == a[0]):
            return TestResult("mann-whitney", None, 1.0, d, 0.0, "every value equal")
        res = stats.mannwhitneyu(b, a, alternative="two-sided", method="auto")
        rb = 2 * float(res.statistic) / (a.size * b.size) - 1
        return TestResult("mann-whitney", float(res.statistic), float(res.pvalue), d, rb)
    if pooled == 0:
        return TestResult("welch", None, None, d, None, "the values do not vary")
    res = stats.ttest_ind(b, a, equal_var=False)
    return TestResult("welch", float(res.statistic), float(res.pvalue), d, None)


def fisher_p(table: Sequence[Sequence[int]]) -> float:
    """Fisher's exact two-sided p-value of a 2 x 2 table (:func:`scipy.stats.fisher_exact`)."""
    from scipy.stats import fisher_exact

    return float(fisher_exact(table).pvalue)


def two_sided_z(level: float) -> float:
    """The standard normal quantile of a two-sided ``level`` (1.96 at 0.95)."""
    from scipy.stats import norm

    return float(norm.ppf(1 - (1 - level) / 2))
