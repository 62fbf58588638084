"""Wilcoxon's signed-rank test without SciPy: the exact null distribution of the
statistic, ties included, by a dynamic programme over the doubled mid-ranks.

Doubled, every mid-rank is an integer (a tie group starting at 1-based rank s with c
members has mid-rank s + (c - 1) / 2, doubled 2s + c - 1), so the doubled sum of the
positive ranks, 2T+, is an integer between 0 and n(n + 1). Under the null each of the
2^n sign assignments is equally likely; the number of assignments giving each value of
2T+ is built one tie group at a time: a group of c differences sharing the doubled rank
r adds j r to 2T+ in C(c, j) of its 2^c sign patterns. The counts are exact integers
(int64 up to :data:`EXACT_MAX` differences), so the p-value is a ratio of integers.

This is the distribution SciPy enumerates, one Python-level statistic call per sign
assignment, in ``scipy.stats.wilcoxon(..., method=PermutationMethod(n_resamples=2**n))``,
and the one its ``method="exact"`` tabulates when there are no ties; the two-sided p is
the same: twice the smaller tail, T+ <= t and T+ >= t, capped at 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

Floats = np.ndarray[Any, np.dtype[np.float64]]
Ints = np.ndarray[Any, np.dtype[np.int64]]

#: The largest number of nonzero differences whose null counts (at most 2^n) are kept
#: exactly in int64.
EXACT_MAX = 62


@dataclass(frozen=True)
class SignedRank:
    """The signed-rank statistic of nonzero differences: the positive and negative rank
    sums (mid-ranks of ``|d|``), and whether any absolute values tie."""

    r_plus: float
    r_minus: float
    n: int
    ties: bool
    doubled_ranks: Ints

    @property
    def statistic(self) -> float:
        """min(T+, T-): the two-sided statistic SciPy reports."""
        return min(self.r_plus, self.r_minus)


def doubled_midranks(values: Floats) -> Ints:
    """Twice the mid-ranks of ``values`` (ties share the mean of their ranks), as
    integers: the group occupying 1-based ranks s .. s + c - 1 gets 2s + c - 1."""
    n = values.size
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if n else np.zeros(0, int)
    sizes = np.diff(np.r_[starts, n])
    out = np.empty(n, dtype=np.int64)
    out[order] = np.repeat(2 * (starts + 1) + sizes - 1, sizes)
    return out


def signed_rank(d: Floats) -> SignedRank:
    """T+ and T- of the differences ``d``, zeros dropped (Wilcoxon's own convention,
    SciPy's ``zero_method="wilcox"``)."""
    nz = np.asarray(d, dtype=np.float64)
    nz = nz[nz != 0]
    doubled = doubled_midranks(np.abs(nz))
    plus = int(doubled[nz > 0].sum())
    minus = int(doubled.sum()) - plus
    ties = np.unique(doubled).size < doubled.size
    return SignedRank(plus / 2, minus / 2, int(nz.size), bool(ties), doubled)


def null_counts(doubled_ranks: Ints) -> Ints:
    """How many of the 2^n sign assignments give each value 0 .. n(n + 1) of 2T+,
    the doubled sum of the ranks signed positive (exact integers)."""
    n = doubled_ranks.size
    if n > EXACT_MAX:
        raise ValueError(f"exact signed-rank counts overflow int64 past {EXACT_MAX} values")
    counts = np.zeros(int(doubled_ranks.sum()) + 1, dtype=np.int64)
    counts[0] = 1
    top = 0
    groups, sizes = np.unique(doubled_ranks, return_counts=True)
    for rank, size in zip(groups.tolist(), sizes.tolist(), strict=True):
        # the group adds j * rank in C(size, j) ways: one shifted, weighted copy each
        before = counts[: top + 1].copy()
        counts[: top + 1] = 0
        for j in range(size + 1):
            counts[j * rank : j * rank + top + 1] += math.comb(size, j) * before
        top += size * rank
    return counts


def exact_p(stat: SignedRank) -> float:
    """The exact two-sided p-value of T+: 2 min(P(T+ <= t), P(T+ >= t)), capped at 1,
    under the null that every sign assignment of the mid-ranks is equally likely
    (1.0 when no difference is nonzero)."""
    if stat.n == 0:
        return 1.0
    counts = null_counts(stat.doubled_ranks)
    t = round(2 * stat.r_plus)
    below = int(counts[: t + 1].sum())
    above = int(counts[t:].sum())
    return min(1.0, 2 * min(below, above) / float(2**stat.n))


def normal_p(stat: SignedRank) -> float:
    """The two-sided p-value of the normal approximation, tie-corrected and without a
    continuity correction (SciPy's ``method="asymptotic"``, ``correction=False``):
    z = (T+ - n(n + 1)/4) / sqrt((n(n + 1)(2n + 1) - sum(t^3 - t)/2) / 24), p = 2 Phi(-|z|)."""
    n = stat.n
    if n == 0:
        return 1.0
    _, sizes = np.unique(stat.doubled_ranks, return_counts=True)
    tie_term = float(np.sum(sizes.astype(np.float64) ** 3 - sizes))
    se = math.sqrt((n * (n + 1) * (2 * n + 1) - tie_term / 2) / 24)
    z = (stat.r_plus - n * (n + 1) / 4) / se
    return min(1.0, math.erfc(abs(z) / math.sqrt(2)))
