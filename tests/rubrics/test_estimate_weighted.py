"""The estimate with inverse-probability weights (the informative order of a rating
session): unbiased, covering, and exactly today's numbers when every weight is equal."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from toolkit.errors import InputError
from toolkit.ratings.informative import informative_probabilities
from toolkit.rubrics.estimate import estimate, power_lambda, ppi_mean

#: The planted world: items whose people's mean is TRUTH, a judge +0.8 too high, exact
#: to 0.2 on most items and off by 3 (sd) on the HARD share, which it flags as uncertain.
TRUTH, BIAS, HARD = 5.0, 0.8, 0.1


def _world(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    u = np.where(rng.random(n) < HARD, 3.0, 0.2)
    y = rng.normal(TRUTH, 2.5, n)
    return y, y + BIAS + rng.normal(0, u), u


def _frame(y: np.ndarray, f: np.ndarray, rated: np.ndarray) -> pl.DataFrame:
    items = [f"i{k:04d}" for k in range(y.size)]
    judge = pl.DataFrame({"item": items, "rater": "judge", "score": f})
    people = pl.DataFrame(
        {"item": [i for i, r in zip(items, rated, strict=True) if r], "rater": "ana",
         "score": y[rated]}
    )  # fmt: skip
    return pl.concat([judge, people])


def test_equal_probabilities_give_todays_estimate_exactly() -> None:
    """The random order records the same probability for every item: the estimate's
    frame is identical, bit for bit, to the one computed without probabilities."""
    rng = np.random.default_rng(3)
    y, f, _ = _world(rng, 300)
    rated = rng.random(300) < 0.2
    frame = _frame(y, f, rated)
    today = estimate(frame)
    same = estimate(frame, probabilities={f"i{k:04d}": 0.37 for k in range(300)})
    assert same.frame.equals(today.frame)


def test_weighted_estimate_is_the_hajek_formula_computed_by_hand() -> None:
    """Four rated and three unrated items with unequal probabilities: the point and the
    half-width equal the inverse-probability-weighted formulas worked out by hand."""
    y = np.array([4.0, 6.0, 5.0, 3.0])
    f = np.array([5.0, 6.0, 6.0, 4.0])
    fu = np.array([5.0, 7.0, 3.0])
    p = np.array([0.5, 0.25, 0.5, 0.25])
    pu = np.array([0.5, 0.2, 0.75])
    lam = 0.5
    point, low, high = ppi_mean(y, f, fu, lam, w=1 / p, v=1 / (1 - pu))
    # unrated side: weights 2, 1.25, 4 -> mean (10 + 8.75 + 12) / 7.25 of lam * f
    judged = 0.5 * (2 * 5 + 1.25 * 7 + 4 * 3) / 7.25
    # rated side: r = y - f/2 = 1.5, 3, 2, 1; weights 2, 4, 2, 4 -> (3+12+4+4) / 12
    m = 23 / 12
    assert float(point) == pytest.approx(judged + m, abs=1e-12)
    jdev = 0.5 * np.array([5.0, 7.0, 3.0]) - judged
    jvar = (4 * jdev[0] ** 2 + 1.5625 * jdev[1] ** 2 + 16 * jdev[2] ** 2) / 7.25**2
    rvar = (4 * (1.5 - m) ** 2 + 16 * (3 - m) ** 2 + 4 * (2 - m) ** 2 + 16 * (1 - m) ** 2) / 144
    half = 1.959963984540054 * np.sqrt(jvar + rvar)
    assert float(high - low) / 2 == pytest.approx(half, abs=1e-12)


def test_weighted_interval_covers_the_truth_95_percent_over_1000_draws() -> None:
    """1,000 planted worlds (seed 11), each with 100 of 2,000 items drawn for people in
    the informative order: the 95 % interval covers the planted mean in 93.5-96.5 % of
    draws, and the weighted point is unbiased (mean error within 3 standard errors)."""
    rng = np.random.default_rng(11)
    hits, errors = 0, []
    for _ in range(1000):
        y, f, u = _world(rng, 2000)
        probs = informative_probabilities({str(k): float(x) for k, x in enumerate(u)}, 100)
        p = np.array([probs[str(k)] for k in range(2000)])
        r = rng.random(2000) < p
        w, v = 1 / p[r], 1 / (1 - p[~r])
        lam = float(power_lambda(y[r], f[r], f[~r], w))
        point, low, high = ppi_mean(y[r], f[r], f[~r], lam, w=w, v=v)
        hits += bool(low <= TRUTH <= high)
        errors.append(float(point) - TRUTH)
    assert 935 <= hits <= 965
    spread = np.std(errors) / np.sqrt(len(errors))
    assert abs(np.mean(errors)) < 3 * spread


def test_estimate_weighs_by_the_probabilities_it_is_given() -> None:
    """estimate() with unequal probabilities gives the overall mean row of ppi_mean
    with w = 1/p and v = 1/(1-p) at the weighted lam; people-only is the weighted mean."""
    rng = np.random.default_rng(5)
    y, f, u = _world(rng, 400)
    probs = informative_probabilities({f"i{k:04d}": float(x) for k, x in enumerate(u)}, 80)
    p = np.array([probs[f"i{k:04d}"] for k in range(400)])
    r = rng.random(400) < p
    row = estimate(_frame(y, f, r), probabilities=probs).frame.row(0, named=True)
    w, v = 1 / p[r], 1 / (1 - p[~r])
    lam = float(power_lambda(y[r], f[r], f[~r], w))
    point, low, high = ppi_mean(y[r], f[r], f[~r], lam, w=w, v=v)
    assert row["lam"] == pytest.approx(lam, abs=1e-12)
    assert (row["estimate"], row["low"], row["high"]) == pytest.approx(
        (float(point), float(low), float(high)), abs=1e-12
    )
    assert row["people_mean"] == pytest.approx(float((w * y[r]).sum() / w.sum()), abs=1e-12)


def test_a_judged_item_without_a_probability_is_refused() -> None:
    rng = np.random.default_rng(2)
    y, f, _ = _world(rng, 20)
    rated = np.arange(20) < 10
    with pytest.raises(InputError, match="i0019"):
        estimate(_frame(y, f, rated), probabilities={f"i{k:04d}": 0.5 for k in range(19)})


def test_the_input_digest_covers_unequal_draw_probabilities() -> None:
    """Two draws of the same ratings with other (unequal) probabilities give other
    numbers: the input digest says the inputs differ (the epoch cannot: it holds only
    that the estimate is weighted). Equal probabilities decide nothing: today's digest."""
    rng = np.random.default_rng(7)
    y, f, _ = _world(rng, 40)
    rated = np.arange(40) % 3 == 0
    frame = _frame(y, f, rated)
    one = {f"i{k:04d}": 0.3 if k % 2 else 0.6 for k in range(40)}
    two = {f"i{k:04d}": 0.6 if k % 2 else 0.3 for k in range(40)}
    a, b = estimate(frame, probabilities=one), estimate(frame, probabilities=two)
    assert a.frame["estimate"][0] != b.frame["estimate"][0]
    assert a.epoch == b.epoch
    assert a.to_dict()["input_digest"] != b.to_dict()["input_digest"]
    same = estimate(frame, probabilities=dict.fromkeys(one, 0.5))
    assert same.to_dict()["input_digest"] == estimate(frame).to_dict()["input_digest"]


def test_a_tiny_probability_weighs_its_item_without_overflowing_to_nan() -> None:
    """An item drawn with probability 1e-320 (1/p is infinite as a float) next to items
    of probability 0.5: its weight dwarfs theirs, so the weighted people's mean is its
    own rating, 3 (was NaN: inf * x summed over inf)."""
    judge = [2.0, 3.0, 4.0, 5.0, 2.0, 3.0]
    people = [3.0, 4.0, 5.0, 3.0]
    frame = pl.concat([
        pl.DataFrame({"item": [f"i{k}" for k in range(6)], "rater": "judge", "score": judge}),
        pl.DataFrame({"item": [f"i{k}" for k in range(4)], "rater": "ana", "score": people}),
    ])  # fmt: skip
    probabilities = {f"i{k}": 0.5 for k in range(6)} | {"i0": 1e-320}
    row = estimate(frame, probabilities=probabilities).frame.row(0, named=True)
    assert row["people_mean"] == 3.0
    assert all(np.isfinite(row[k]) for k in ("estimate", "low", "high", "people_low"))
