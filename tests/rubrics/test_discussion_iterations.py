"""Baseline vs candidate comparison and the rubric's success check, on hand-built cards."""

from __future__ import annotations

import pytest

from toolkit.rubrics.discussion_iterations import compare, success_check
from toolkit.rubrics.discussion_spec import DEFAULT_DISCUSSION_SPEC, METRIC_KEYS
from toolkit.scorecard import Dimension, Scorecard

GOOD = dict.fromkeys(METRIC_KEYS, 1.0) | {"engagement": 4.0}


def card(
    gid: str,
    values: dict[str, float | None],
    passed: int,
    engagement: float | None = 4.0,
    cost: float | None = 1.0,
    cache: float | None = 0.8,
) -> Scorecard:
    dims = [
        Dimension(k, DEFAULT_DISCUSSION_SPEC.metrics[k].name, values.get(k), "PASS", "", "", "")
        for k in METRIC_KEYS
    ]
    return Scorecard(
        rubric="discussion",
        rubric_version="1.0.0",
        subject=gid,
        title=gid,
        verdict="PASS",
        verdict_reason="",
        dimensions=Scorecard.dimensions_frame(gid, dims),
        meta={
            "passed_count": passed,
            "engagement": engagement,
            "cost": cost,
            "cache_hit_rate": cache,
        },
    )


def test_means_deltas_lowest_and_keep() -> None:
    base = [
        card("b1", GOOD | {"coherence": 0.5, "engagement": 3.0}, 5),
        card("b2", GOOD | {"coherence": 0.7, "engagement": 2.0}, 5),
        card("b3", GOOD | {"coherence": 0.6, "engagement": 4.0}, 5),
    ]
    cand = [
        card("c1", GOOD | {"coherence": 0.9, "strategic_depth": 0.5}, 6),
        card("c2", GOOD | {"coherence": 0.8, "strategic_depth": 0.6}, 6),
    ]
    comp = compare(base, cand)
    row = comp.metrics.filter(comp.metrics["key"] == "coherence").row(0, named=True)
    assert row["baseline_mean"] == pytest.approx(0.6)
    assert row["candidate_mean"] == pytest.approx(0.85)
    assert row["delta"] == pytest.approx(0.25)
    assert (row["baseline_n"], row["candidate_n"]) == (3, 2)
    eng = comp.metrics.filter(comp.metrics["key"] == "engagement").row(0, named=True)
    assert eng["baseline_mean"] == pytest.approx(3.0)
    assert eng["delta"] == pytest.approx(1.0)
    # strategic depth 0.55 / 0.60 = 0.917 is the lowest relative to its threshold.
    assert comp.lowest == "strategic_depth"
    assert comp.lowest_name == "Strategic depth"  # what a page shows, not the key
    assert comp.advice == DEFAULT_DISCUSSION_SPEC.metrics["strategic_depth"].advice
    # more metrics pass per game, but strategic depth fell from 1.0 to 0.55, below its
    # 0.6 threshold: not a plain "keep"
    assert comp.recommendation == "review"
    assert comp.reason.endswith(
        "but below its threshold now: Strategic depth 1.00 -> 0.55 (-45%, threshold 0.6)"
    )
    assert comp.warnings == ()


def test_keep_only_when_no_metric_that_met_its_threshold_now_misses_it() -> None:
    base = [card(f"b{i}", GOOD | {"role_consistency": 0.97}, 5) for i in range(3)]
    better = [card(f"c{i}", GOOD | {"role_consistency": 0.85}, 6) for i in range(3)]
    assert compare(base, better).recommendation == "keep"  # fell, but still meets 0.8
    # the sample's case: one more metric passes per game, but role consistency fell by a
    # quarter (0.97 -> 0.73) and now misses its 0.8 threshold
    broke = [card(f"c{i}", GOOD | {"role_consistency": 0.73}, 6) for i in range(3)]
    comp = compare(base, broke)
    assert comp.recommendation == "review"
    assert "Role consistency 0.97 -> 0.73 (-25%, threshold 0.8)" in comp.reason
    assert "role_consistency" not in comp.reason
    assert comp.to_dict()["lowest_metric_name"] == "Role consistency"


def test_fewer_passed_metrics_recommends_revert_and_small_baseline_warns() -> None:
    comp = compare([card("b1", GOOD, 7)], [card("c1", GOOD | {"coherence": 0.1}, 6)])
    assert comp.recommendation == "revert"
    assert comp.warnings == ("baseline has 1 game(s); the rubric's baseline is 3",)


def test_same_passed_count_but_lower_scores_recommends_revert() -> None:
    comp = compare([card("b1", GOOD, 7)], [card("c1", GOOD | {"coherence": 0.95}, 7)])
    assert comp.recommendation == "revert"


def test_success_needs_three_consecutive_ok_tests() -> None:
    tests = [
        card("t1", GOOD, 7, cost=2.00),  # cost not < $2.00
        card("t2", GOOD, 5),
        card("t3", GOOD, 6),
        card("t4", GOOD, 5, engagement=3.0, cache=0.71),
    ]
    check = success_check(tests)
    assert check.met
    assert check.best_streak == 3
    assert check.tests["ok"].to_list() == [False, True, True, True]
    assert check.tests["streak"].to_list() == [0, 1, 2, 3]
    assert check.tests["why_not"][0] == "cost not < $2.00"


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ({"passed": 4}, "fewer than 5/7 passed"),
        ({"engagement": 2.99}, "engagement not >= 3.0"),
        ({"engagement": None}, "engagement not >= 3.0"),
        ({"cache": 0.70}, "cache hit rate not > 70%"),
        ({"cost": None}, "cost not < $2.00"),
    ],
)
def test_one_bad_test_in_the_middle_breaks_the_run(bad: dict[str, object], why: str) -> None:
    kwargs = {"passed": 6, **bad}
    passed = int(kwargs.pop("passed"))  # type: ignore[call-overload]
    tests = [
        card("t1", GOOD, 6),
        card("t2", GOOD, 6),
        card("t3", GOOD, passed, **kwargs),  # type: ignore[arg-type]
        card("t4", GOOD, 6),
        card("t5", GOOD, 6),
    ]
    check = success_check(tests)
    assert not check.met
    assert check.best_streak == 2
    assert check.tests["why_not"][2] == why
