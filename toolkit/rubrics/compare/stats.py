"""The comparison's statistics, one function each (tests check each against its
definition): Holm and Benjamini-Hochberg corrections, McNemar's exact test, Fisher's
exact test, pass^k, the rank-biserial correlation, the percentile bootstrap interval,
Wilcoxon's signed-rank test, the paired and unpaired tests with their effect sizes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from toolkit.errors import InputError
from toolkit.rubrics.compare.rubric import CORRECTIONS
from toolkit.rubrics.compare.signed_rank import doubled_midranks, exact_p, normal_p, signed_rank

# scipy is imported in the functions that use it (the t-tests, Mann-Whitney, Fisher,
# Benjamini-Hochberg): about 1 s of imports that the default paired Wilcoxon comparison
# and a refused input (a bad option or a missing folder) never pay


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
    against 1/2: twice the smaller tail, summed exactly (the binomial at 1/2 is
    symmetric, so this is :func:`scipy.stats.binomtest`'s two-sided p); 1.0 when no
    pair flipped."""
    n = pass_to_fail + fail_to_pass
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(pass_to_fail, fail_to_pass) + 1))
    return min(1.0, 2 * tail / float(2**n))


def pass_hat_k(counts: Sequence[tuple[int, int]], k: int) -> float | None:
    """pass^k as tau-bench defines it: the mean over units of C(c, k) / C(n, k), where a
    unit passed c of its n runs; units with fewer than k runs are left out (``None``
    when none is left)."""
    terms = [math.comb(c, k) / math.comb(n, k) for n, c in counts if n >= k]
    return sum(terms) / len(terms) if terms else None


def rank_biserial_paired(d: np.ndarray[Any, np.dtype[np.float64]]) -> float | None:
    """The matched-pairs rank-biserial correlation (T+ - T-) / (T+ + T-) over the
    nonzero differences, ranked by absolute value (ties share their mean rank)."""
    nz = d[d != 0]
    if nz.size == 0:
        return None
    ranks = doubled_midranks(np.abs(nz)) / 2
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
    """A percentile bootstrap interval of the mean of one sample (paired differences)
    or of mean(B) - mean(A) (two independent samples): see :func:`bootstrap_intervals`."""
    return bootstrap_intervals(samples, rng, (level,), resamples)[0]


def bootstrap_intervals(
    samples: Sequence[np.ndarray[Any, np.dtype[np.float64]]],
    rng: np.random.Generator,
    levels: Sequence[float],
    resamples: int,
) -> list[tuple[float | None, float | None]]:
    """Percentile bootstrap intervals at each of ``levels``, all from one set of
    resamples: the same draws and the same numbers as :func:`scipy.stats.bootstrap` with
    ``method="percentile"`` (each sample's ``resamples`` x n indices drawn in turn with
    ``rng.integers``, each interval by the linear (Hyndman-Fan 7) quantile of the same
    bootstrap distribution), without SciPy's second of imports. Past 2**22 drawn indices
    a sample's draws come in batches, so memory stays bounded; the intervals are then a
    bootstrap of the same kind from the same generator, though not always SciPy's
    one-matrix draw to the last digit."""
    if resamples < 1 or any(s.size < 2 for s in samples):  # 0 resamples: no interval
        return [(None, None) for _ in levels]
    if len(samples) == 1 and np.all(samples[0] == samples[0][0]):
        return [(float(samples[0][0]), float(samples[0][0])) for _ in levels]
    # each sample's resamples drawn in turn, in batches of at most BATCH_VALUES indices
    # (32 MiB), never a resamples x n matrix at once (--resamples 10**6 stays bounded)
    batch = max(1, BATCH_VALUES // max(s.size for s in samples))
    means = []
    for s in samples:
        parts = []
        for start in range(0, resamples, batch):
            count = min(batch, resamples - start)
            parts.append(np.mean(s[rng.integers(0, s.size, (count, s.size))], axis=-1))
        means.append(np.concatenate(parts))
    theta = np.sort(means[0] if len(means) == 1 else means[1] - means[0])
    out: list[tuple[float | None, float | None]] = []
    for level in levels:
        alpha = (1 - level) / 2
        out.append((_linear_quantile(theta, alpha), _linear_quantile(theta, 1 - alpha)))
    return out


def _linear_quantile(ordered: np.ndarray[Any, np.dtype[np.float64]], q: float) -> float:
    """The q-quantile of sorted values, linear interpolation (Hyndman-Fan 7), computed
    as ``scipy.stats.quantile`` does: j = floor(q n + 1 - q) - 1, g its fraction."""
    n = ordered.size
    jg = q * n + (1 - q)
    j = jg // 1 - 1
    g = jg % 1 if j >= 0 else 0.0
    lo, hi = int(min(max(j, 0), n - 1)), int(min(max(j + 1, 0), n - 1))
    return float((1 - g) * ordered[lo] + g * ordered[hi])


@dataclass(frozen=True)
class TestResult:
    """One test's numbers (``None`` where the data cannot give them, with ``note``)."""

    name: str
    statistic: float | None
    p: float | None
    effect: float | None
    rank_biserial: float | None
    note: str = ""


#: Up to this many nonzero differences with ties, Wilcoxon's p is exact: every sign
#: assignment (2^n of them) of the mid-ranks, counted by :mod:`.signed_rank`.
EXACT_TIES_MAX = 16

#: Up to this many nonzero differences without ties, Wilcoxon's p is exact (SciPy's
#: ``method="auto"`` switches to the normal approximation past the same size).
EXACT_MAX = 50


def wilcoxon_test(
    d: np.ndarray[Any, np.dtype[np.float64]], dz: float | None, rb: float | None
) -> TestResult:
    """Wilcoxon's signed-rank test of the differences ``d``, zeros dropped (Wilcoxon's
    own convention). The exact null distribution of T+ (every sign assignment of the
    mid-ranks, :func:`.signed_rank.exact_p`) up to :data:`EXACT_MAX` differences without
    ties and :data:`EXACT_TIES_MAX` with ties (scores on a coarse scale often tie); the
    tie-corrected normal approximation beyond. The same statistic and p-value as
    ``scipy.stats.wilcoxon`` with ``method="exact"``, a ``PermutationMethod`` of
    ``2**n`` resamples, or ``"asymptotic"`` respectively (tests check each)."""
    stat = signed_rank(d)
    if not stat.ties:
        exact = stat.n <= EXACT_MAX
        note = ""
    else:
        exact = stat.n <= EXACT_TIES_MAX
        note = "ties: exact permutation p" if exact else "ties: normal approximation"
    p = exact_p(stat) if exact else normal_p(stat)
    return TestResult("wilcoxon", stat.statistic, p, dz, rb, note)


def paired_test(
    a: np.ndarray[Any, np.dtype[np.float64]], b: np.ndarray[Any, np.dtype[np.float64]], test: str
) -> TestResult:
    """Wilcoxon's signed-rank test (scipy's exact distribution where it computes one,
    zeros dropped as Wilcoxon did) or the paired t-test of B - A, with d_z (mean
    difference over its standard deviation) and the rank-biserial correlation."""
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
    from scipy import stats  # about 1 s of imports that the Wilcoxon default never pays

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
    """The standard normal quantile of a two-sided ``level`` (1.96 at 0.95), by the
    standard library's :class:`statistics.NormalDist` (Wichura's AS 241, as accurate
    as ``scipy.stats.norm.ppf`` without its second of imports)."""
    return NormalDist().inv_cdf(1 - (1 - level) / 2)
