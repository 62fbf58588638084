"""calibrate at scale computes the same numbers (issue 38): Spearman's rho without
scipy.stats equals scipy's; the bootstrap drawn in chunks equals the one-matrix draw of
the same seed (numpy's generator gives one stream either way); the vectorised weighted
kappa equals the textbook double loop; duplicate (item, rater) rows are still found
behind the hash screen."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats import spearmanr

from toolkit.ratings.agreement import last_per_pair
from toolkit.rubrics import calibrate as cal


@pytest.mark.parametrize("seed", range(8))
def test_spearman_equals_scipy_with_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 400))
    judge = rng.integers(0, 10, n).astype(float)
    humans = np.round(judge + rng.normal(0, 2, n), 1)
    expected = spearmanr(judge, humans).statistic
    assert cal._spearman(judge, humans) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("items", "resamples"), [(7, 2000), (40, 999), (3001, 1500)])
def test_the_chunked_bootstrap_draws_what_one_matrix_draws(
    items: int, resamples: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    diffs = np.random.default_rng(items).normal(0.5, 1.0, items)
    rubric = cal.DEFAULT_CALIBRATE_RUBRIC.model_copy(update={"resamples": resamples})
    rng = np.random.default_rng(11)  # the reference: every resample in one matrix
    means = diffs[rng.integers(0, items, size=(resamples, items))].mean(axis=1)
    expected = np.percentile(means, [2.5, 97.5])
    monkeypatch.setattr(cal, "_CHUNK_VALUES", 5 * items + 3)  # chunks of 5 resamples
    # the same draws; a mean of a differently shaped array may differ in its last bit
    assert cal._bias_interval(diffs, rubric, 11) == pytest.approx(tuple(expected), rel=1e-13)


def _kappa_by_loops(a: list[float], b: list[float]) -> float:
    cats = sorted(set(a) | set(b))
    k, n = len(cats), len(a)
    observed = [[0.0] * k for _ in range(k)]
    for x, y in zip(a, b, strict=True):
        observed[cats.index(x)][cats.index(y)] += 1 / n
    rows = [sum(r) for r in observed]
    cols = [sum(observed[i][j] for i in range(k)) for j in range(k)]
    w = [[(cats[i] - cats[j]) ** 2 for j in range(k)] for i in range(k)]
    num = sum(w[i][j] * observed[i][j] for i in range(k) for j in range(k))
    den = sum(w[i][j] * rows[i] * cols[j] for i in range(k) for j in range(k))
    return 1 - num / den


@pytest.mark.parametrize("seed", range(6))
def test_weighted_kappa_equals_the_double_loop(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 10, 200).astype(float).tolist()
    b = np.clip(np.array(a) + rng.integers(-2, 3, 200), 0, 9).astype(float).tolist()
    assert cal.weighted_kappa(a, b) == pytest.approx(_kappa_by_loops(a, b), rel=1e-12)


def test_last_per_pair_keeps_the_last_of_a_repeated_pair() -> None:
    frame = pl.DataFrame(
        {"item": ["a", "a", "b", "a"], "rater": ["x", "y", "x", "x"], "score": [1.0, 2.0, 3.0, 4.0]}
    )
    kept = last_per_pair(frame, ("item", "rater"))
    assert kept.rows() == [("a", "y", 2.0), ("b", "x", 3.0), ("a", "x", 4.0)]
    clean = frame.head(3)
    assert last_per_pair(clean, ("item", "rater")) is clean
