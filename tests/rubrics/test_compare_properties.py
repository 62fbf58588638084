"""Properties of a comparison that hold for any scores (Hypothesis), and each family's
scores mapped to units, dimensions and pass/fail as docs/rubrics/compare.md says."""

from __future__ import annotations

import polars as pl
import pytest
from conftest import SAMPLE_RUNS
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.rubrics.compare import compare_scores, discussion_scores, simulation_scores

values = st.lists(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_subnormal=False),
    min_size=3,
    max_size=25,
)


def frame(arm: str, xs: list[float]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "family": ["outcome"] * len(xs),
            "unit": [f"t{i}" for i in range(len(xs))],
            "run": [f"{arm}{i}" for i in range(len(xs))],
            "dimension": ["score"] * len(xs),
            "value": xs,
            "passed": [None] * len(xs),
        },
        schema_overrides={"passed": pl.Boolean},
    )


@settings(max_examples=40, deadline=None)
@given(values)
def test_an_arm_against_itself_never_differs(xs: list[float]) -> None:
    row = compare_scores(frame("a", xs), frame("b", xs), resamples=99).dimensions.row(0, named=True)
    assert row["diff"] == 0 and row["p"] == 1.0 and row["outcome"] == "no difference"
    assert row["ci_low"] == row["ci_high"] == 0


@settings(max_examples=40, deadline=None)
@given(values, values)
def test_swapping_the_arms_negates_the_difference_and_keeps_p(
    xs: list[float], ys: list[float]
) -> None:
    n = min(len(xs), len(ys))
    a, b = frame("a", xs[:n]), frame("b", ys[:n])
    ab = compare_scores(a, b, resamples=0).dimensions.row(0, named=True)
    ba = compare_scores(b, a, resamples=0).dimensions.row(0, named=True)
    assert ab["diff"] == pytest.approx(-ba["diff"], rel=1e-9, abs=1e-6)
    assert ab["p"] == pytest.approx(ba["p"], rel=1e-12)
    if ab["outcome"] in ("better", "worse"):
        assert {ab["outcome"], ba["outcome"]} == {"better", "worse"}


def test_simulation_cards_pair_by_scenario_and_verdict_is_pass_fail() -> None:
    import toolkit as tk

    cards = tk.score_fleet(SAMPLE_RUNS / "compare" / "b").cards
    keys = {"s01-r1": {"scenario": "s01", "seed": "9"}}
    scores = simulation_scores(cards, keys)
    one = scores.filter(pl.col("run") == "s01-r1")
    assert set(one["unit"].to_list()) == {"s01"}
    other = scores.filter(pl.col("run") == "s02-r1")
    assert set(other["unit"].to_list()) == {"s02-r1"}  # no keys given: the slug
    verdict = one.filter(pl.col("dimension") == "verdict").row(0, named=True)
    card = next(c for c in cards if c.subject == "s01-r1")
    assert verdict["passed"] == (card.verdict == "HEALTHY") and verdict["value"] is None
    assert one.filter(pl.col("dimension") != "verdict").height == card.dimensions.height


def test_discussion_pending_games_are_left_out_of_pass_fail() -> None:
    import toolkit as tk

    report = tk.score_discussion(tk.load_discussions([SAMPLE_RUNS / "discussions"]))
    scores = discussion_scores(report)
    verdicts = dict(
        scores.filter(pl.col("dimension") == "verdict").select("unit", "passed").iter_rows()
    )
    for card in report.scorecards:
        expected = None if card.verdict == "PENDING_RATING" else card.verdict == "PASS"
        assert verdicts[card.subject] is expected
