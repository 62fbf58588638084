"""The PPI++ estimate (toolkit/rubrics/estimate.py): equal to ppi-python, covering planted
truths at its stated rate, narrower than people alone, and bad input refused in one line."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.rubrics.estimate import (
    estimate,
    gate_failures,
    power_lambda,
    ppi_mean,
    ratings_to_decide,
)


@pytest.fixture
def ppi_py():
    """The reference implementation (a [dev] dependency): its tests skip without it."""
    return pytest.importorskip("ppi_py")


SCORES = SAMPLE_RUNS / "calibration" / "scores.csv"


def _frame(human: dict[str, list[float]], judge: dict[str, float], **groups: dict[str, str]):
    """A calibration frame: per item the people's scores (a list; empty: unrated) and the
    judge's score; ``groups`` maps a column to each item's value."""
    rows = []
    for item, score in judge.items():
        extra = {g: v[item] for g, v in groups.items()}
        rows.append({"item": item, "rater": "judge", "score": score, **extra})
        for i, s in enumerate(human.get(item, [])):
            rows.append({"item": item, "rater": f"p{i}", "score": s, **extra})
    return pl.DataFrame(rows)


def _random_frame(seed: int, n: int, big_n: int) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.normal(5, 2, n + big_n)
    judge = truth + 0.8 + rng.normal(0, 1, n + big_n)
    names = [f"i{k:04d}" for k in range(n + big_n)]
    human = {names[k]: [float(truth[k] + rng.normal(0, 0.5))] for k in range(n)}
    frame = _frame(human, dict(zip(names, judge.tolist(), strict=True)))
    y = np.array([human[names[k]][0] for k in range(n)])
    return frame, y, judge


@pytest.mark.parametrize(("seed", "n", "big_n"), [(0, 30, 200), (1, 100, 1000), (2, 12, 40)])
def test_the_estimate_and_interval_equal_ppi_python_with_power_tuning(
    seed, n, big_n, ppi_py
) -> None:
    frame, y, judge = _random_frame(seed, n, big_n)
    row = estimate(frame).frame.row(0, named=True)
    ref = ppi_py.ppi_mean_pointestimate(y, judge[:n], judge[n:], lam=None)
    low, high = ppi_py.ppi_mean_ci(y, judge[:n], judge[n:], alpha=0.05, lam=None)
    assert row["estimate"] == pytest.approx(float(np.squeeze(ref)), abs=1e-9)
    assert row["low"] == pytest.approx(float(np.squeeze(low)), abs=1e-9)
    assert row["high"] == pytest.approx(float(np.squeeze(high)), abs=1e-9)
    assert (row["rated"], row["unrated"]) == (n, big_n)


def test_the_pass_rate_equals_ppi_python_on_the_verdicts(ppi_py) -> None:
    frame, y, judge = _random_frame(3, 60, 300)
    row = (
        estimate(frame, threshold=5.0)
        .frame.filter(pl.col("measure") == "pass_rate")
        .row(0, named=True)
    )
    yb, jb = (y >= 5).astype(float), (judge >= 5).astype(float)
    low, high = ppi_py.ppi_mean_ci(yb, jb[:60], jb[60:], alpha=0.05, lam=None)
    ref = ppi_py.ppi_mean_pointestimate(yb, jb[:60], jb[60:], lam=None)
    assert row["estimate"] == pytest.approx(float(np.squeeze(ref)), abs=1e-9)
    assert (row["low"], row["high"]) == pytest.approx(
        (float(np.squeeze(low)), float(np.squeeze(high))), abs=1e-9
    )


def test_lam_one_and_zero_are_plain_ppi_and_the_classical_interval(ppi_py) -> None:
    _, y, judge = _random_frame(4, 40, 400)
    for lam in (0.0, 1.0, 0.3):
        _, low, high = ppi_mean(y, judge[:40], judge[40:], lam)
        ref_low, ref_high = ppi_py.ppi_mean_ci(y, judge[:40], judge[40:], alpha=0.05, lam=lam)
        assert (float(low), float(high)) == pytest.approx(
            (float(np.squeeze(ref_low)), float(np.squeeze(ref_high))), abs=1e-9
        )
    classical = ppi_py.classical_mean_ci(y, alpha=0.05)
    row = estimate(_random_frame(4, 40, 400)[0]).frame.row(0, named=True)
    assert (row["people_low"], row["people_high"]) == pytest.approx(classical, abs=1e-9)


def test_an_items_human_score_is_the_mean_over_its_raters() -> None:
    frame = _frame(
        {"a": [2, 4], "b": [6, 6, 9], "c": [1]}, {"a": 3, "b": 7, "c": 2, "d": 5, "e": 8}
    )
    row = estimate(frame).frame.row(0, named=True)
    assert row["people_mean"] == pytest.approx((3 + 7 + 1) / 3)
    assert (row["rated"], row["unrated"]) == (3, 2)
    assert row["judge_mean"] == pytest.approx((3 + 7 + 2 + 5 + 8) / 5)


# -- planted truths ----------------------------------------------------------------------


def _draws(rng, draws: int, n: int, big_n: int, bias: float, noise: float):
    truth = rng.normal(5.0, 2.0, (draws, n + big_n))
    judge = truth + bias + rng.normal(0, noise, truth.shape)
    return truth[:, :n], judge[:, :n], judge[:, n:]


def test_the_95_interval_covers_the_planted_mean_93_5_to_96_5_percent_of_1000_draws() -> None:
    rng = np.random.default_rng(20231103)
    # 200 rated items: at 80 the CLT interval runs a little short (93.9 % over ten seeds)
    y, yhat, yhat_u = _draws(rng, 1000, 200, 800, bias=0.83, noise=1.2)
    lam = power_lambda(y, yhat, yhat_u)
    _, low, high = ppi_mean(y, yhat, yhat_u, lam)
    covered = float(((low <= 5.0) & (high >= 5.0)).mean())
    assert 0.935 <= covered <= 0.965, covered


def test_at_the_same_ratings_the_interval_is_narrower_than_people_only() -> None:
    rng = np.random.default_rng(7)
    y, yhat, yhat_u = _draws(rng, 200, 50, 500, bias=0.83, noise=1.0)
    lam = power_lambda(y, yhat, yhat_u)
    _, low, high = ppi_mean(y, yhat, yhat_u, lam)
    _, plow, phigh = ppi_mean(y, yhat, yhat_u, 0.0)
    ratio = float(np.median((high - low) / (phigh - plow)))
    # judge noise 1 against a truth of sd 2 (correlation 0.89): the width is about
    # sqrt(1 - rho^2 * N / (n + N)) = 0.50 of people-only's
    assert ratio < 0.6, ratio


def test_a_judge_unrelated_to_people_costs_nothing_lam_near_zero() -> None:
    rng = np.random.default_rng(8)
    y = rng.normal(5, 2, (200, 50))
    yhat, yhat_u = rng.normal(5, 2, (200, 50)), rng.normal(5, 2, (200, 500))
    lam = power_lambda(y, yhat, yhat_u)
    _, low, high = ppi_mean(y, yhat, yhat_u, lam)
    _, plow, phigh = ppi_mean(y, yhat, yhat_u, 0.0)
    assert float(np.median(lam)) < 0.1
    assert float(np.median((high - low) / (phigh - plow))) < 1.02


# -- strata, digest, gate ----------------------------------------------------------------


def test_one_row_per_stratum_and_measure_with_a_digest_of_its_rows() -> None:
    frame = _frame(
        {"a": [2], "b": [6], "c": [1], "d": [7]},
        {"a": 3, "b": 7, "c": 2, "d": 8, "e": 5, "f": 4},
        agent={"a": "X", "b": "X", "c": "Y", "d": "Y", "e": "X", "f": "Y"},
    )
    result = estimate(frame)
    assert result.frame.select("group", "value", "measure").rows() == [
        ("all", "all", "mean"), ("all", "all", "pass_rate"),
        ("agent", "X", "mean"), ("agent", "X", "pass_rate"),
        ("agent", "Y", "mean"), ("agent", "Y", "pass_rate"),
    ]  # fmt: skip
    shuffled = estimate(frame.reverse())
    assert shuffled.frame["digest"].to_list() == result.frame["digest"].to_list()
    assert result.frame["digest"][0] != result.frame["digest"][2]
    assert result.to_dict()["rows"][2]["rated"] == 2


def test_every_item_rated_gives_the_peoples_mean_and_says_so() -> None:
    frame = _frame({"a": [2], "b": [6], "c": [4]}, {"a": 3, "b": 7, "c": 5})
    row = estimate(frame).frame.row(0, named=True)
    assert row["estimate"] == pytest.approx(4.0)
    assert row["note"].startswith("every item rated: the people's mean; only 3 rated items")


def test_the_gate_passes_above_and_counts_the_ratings_that_would_decide_it() -> None:
    frame, _, _ = _random_frame(5, 20, 400)
    result = estimate(frame)
    row = result.frame.row(0, named=True)
    assert gate_failures(result, frame, row["low"] - 0.01) == []
    reasons = gate_failures(result, frame, row["estimate"] - 0.2)
    assert len(reasons) == 1 and "more rated item" in reasons[0], reasons
    assert "below" in gate_failures(result, frame, row["high"] + 1)[0]


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (_frame({}, {"a": 3, "b": 4}), "no person rated any item"),
        (_frame({"a": [3]}, {"a": 3, "b": 4}), "1 item both judged and rated"),
        (_frame({"a": [3], "b": [5]}, {"a": 4, "b": 4, "c": 4}), "the same score"),
        (pl.DataFrame({"item": ["a"], "score": [1.0]}), "item, rater, score"),
        (_frame({"a": [3], "b": [5]}, {"a": 4, "b": 2}).with_columns(rater=pl.lit("x")),
         "no such rater"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line(frame, words) -> None:
    with pytest.raises(InputError) as err:
        estimate(frame)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_an_unknown_by_column_is_refused() -> None:
    frame = _frame({"a": [3], "b": [5]}, {"a": 4, "b": 2})
    with pytest.raises(InputError, match="no such group column"):
        estimate(frame, by="agent")


# -- toolkit calibrate --estimate ------------------------------------------------------


def _partial_session(path) -> None:
    """The sample session with people's ratings kept on every third item only."""
    scores = pl.read_csv(SCORES)
    keep = sorted(scores["item"].unique())[::3]
    scores.filter((pl.col("rater") == "judge") | pl.col("item").is_in(keep)).write_csv(path)


def test_cli_estimate_prints_the_table_and_json(tmp_path, capsys) -> None:
    path = tmp_path / "partial.csv"
    _partial_session(path)
    assert main(["calibrate", str(path), "--estimate", "--by", "agent"]) == 0
    out = capsys.readouterr().out
    assert "PPI++ estimate" in out and "agent=Ada" in out and "proposition=" not in out
    assert main(["calibrate", str(path), "--estimate", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    overall = data["rows"][0]
    assert (overall["rated"], overall["unrated"]) == (14, 26)
    assert overall["people_mean"] == pytest.approx(54 / 14)  # the 14 rated items' human means
    assert data["gate"] is None


def test_cli_gate_estimate_exits_1_and_says_how_many_ratings_decide_it(tmp_path, capsys) -> None:
    path = tmp_path / "partial.csv"
    _partial_session(path)
    args = ["calibrate", str(path), "--by", "agent", "--threshold", "4.5", "--gate", "estimate"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "agent=Lenny" in err and "more rated items would decide it" in err
    assert main(["calibrate", str(path), "--gate", "estimate", "2", "--by", "agent"]) == 0


def test_cli_estimate_bad_input_exits_2_in_one_line(tmp_path, capsys) -> None:
    path = tmp_path / "partial.csv"
    _partial_session(path)
    assert main(["calibrate", str(path), "--estimate", "--by", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no such group column" in err and "\n" not in err
    assert main(["calibrate", str(path), "--gate", "estimate", "x", "y"]) == 2


def test_ratings_to_decide_matches_the_hand_count_at_lam_zero() -> None:
    # people 4, 6, 4, 6: mean 5, variance 1 (over n); against 5.5 the half-width
    # 1.95996 / sqrt(m) first falls below 0.5 at m = 16 rated items, 12 more than 4
    y = np.array([4.0, 6.0, 4.0, 6.0])
    more = ratings_to_decide(y, np.array([1.0, 2, 3, 4]), np.arange(100.0), 0.0, 5.5)
    assert more == 12
    assert ratings_to_decide(y, np.array([1.0, 2, 3, 4]), np.arange(100.0), 0.0, 9.0) == 0
    assert ratings_to_decide(y, np.array([1.0, 2, 3, 4]), np.arange(5.0), 0.0, 5.01) is None


def test_a_judge_whose_verdict_never_changes_leaves_the_pass_rate_to_people() -> None:
    frame = _frame({"a": [2], "b": [6], "c": [7]}, {"a": 6, "b": 7, "c": 8, "d": 9, "e": 6})
    row = (
        estimate(frame, threshold=5)
        .frame.filter(pl.col("measure") == "pass_rate")
        .row(0, named=True)
    )
    assert row["lam"] == 0.0 and row["estimate"] == pytest.approx(2 / 3)
    assert row["note"].startswith("the judge does not vary here: the people's mean; only ")


def test_few_rated_items_are_said_and_a_pass_rate_interval_stays_in_0_1() -> None:
    """Four rated items gave a pass-rate interval [0.326, 1.174] with no word on how few
    they were; below 40 rated items the interval covers less often than it says."""
    rows = [("i1", "p", 9.0), ("i2", "p", 8.0), ("i3", "p", 2.0), ("i4", "p", 7.0)]
    rows += [(f"i{n}", "judge", s) for n, s in ((1, 8.0), (2, 9.0), (3, 3.0), (4, 6.0))]
    frame = pl.DataFrame(rows, schema=["item", "rater", "score"], orient="row")
    result = estimate(frame, judge="judge", threshold=5.0)
    rate = result.frame.filter(pl.col("measure") == "pass_rate").row(0, named=True)
    assert 0.0 <= rate["low"] <= rate["high"] <= 1.0
    assert rate["people_high"] == 1.0  # 0.75 + 1.96 * 0.5 / sqrt(4) = 1.24 > 1: clipped
    assert "only 4 rated items: below about 40" in rate["note"]


def test_an_estimate_carries_its_epoch_its_judges_epoch_and_its_inputs_digest() -> None:
    """What decides the numbers moves the epoch; the same inputs give the same digest."""
    rows = [(f"i{k}", "judge", float(k % 7)) for k in range(12)]
    rows += [(f"i{k}", "ana", float(k % 7) + 0.5) for k in range(0, 12, 2)]
    frame = pl.DataFrame(rows, schema=["item", "rater", "score"], orient="row")
    one = estimate(frame, judge_epoch="j1")
    again = estimate(frame.clone(), judge_epoch="j1")
    assert one.epoch == again.epoch and len(one.epoch) == 12
    varied = [
        estimate(frame, judge_epoch="j2"),
        estimate(frame, threshold=3),
        estimate(frame, confidence=0.9),
        estimate(frame, judge_epoch="j1"),
    ]
    others = {e.epoch for e in varied}
    assert len(others) == 4
    data = one.to_dict()
    assert data["epoch"] == one.epoch and data["judge_epoch"] == "j1"
    assert data["input_digest"] == again.to_dict()["input_digest"]
    changed = frame.with_columns(
        pl.when(pl.col("item") == "i0").then(pl.lit(1.5)).otherwise(pl.col("score")).alias("score")
    )
    assert estimate(changed).to_dict()["input_digest"] != data["input_digest"]
