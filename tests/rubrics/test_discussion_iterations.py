"""Baseline vs candidate comparison and the rubric's success check, on hand-built cards."""

from __future__ import annotations

import pytest

from toolkit.rubrics.discussion import (
    DEFAULT_DISCUSSION_SPEC,
    DISCUSSION_SPEC_1_0_0,
    METRIC_KEYS,
    compare,
    success_check,
)
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
        rubric_version="1.1.0",
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
    assert comp.advice == DEFAULT_DISCUSSION_SPEC.metrics["strategic_depth"].guidance
    assert "raise the temperature" in comp.advice  # the guide's fixes come with it
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


def test_success_needs_three_consecutive_ok_tests_of_three_games() -> None:
    # Issue 23 item 11: a test is a batch of 3 games; 3 ok batches in a row.
    tests = [card(f"t{i}", GOOD, 7) for i in range(1, 13)]
    tests[1] = card("t2", GOOD, 7, cost=2.00)  # batch 1: cost not < $2.00 in every game
    check = success_check(tests)
    assert check.met
    assert check.best_streak == 3
    assert check.batches["ok"].to_list() == [False, True, True, True]
    assert check.batches["streak"].to_list() == [0, 1, 2, 3]
    assert check.batches["games"][0].to_list() == ["t1", "t2", "t3"]
    assert check.batches["why_not"][0] == "cost not < $2.00 in every game"
    assert check.tests["test"].to_list() == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]


def test_a_batch_passes_on_the_average_of_its_games() -> None:
    # one game passes only 4/7 (coherence, strategic, role at 0.5); the batch's means
    # (coherence (0.5 + 1 + 1) / 3 = 0.83, ...) pass all 7
    weak = card("w", GOOD | {"coherence": 0.5, "strategic_depth": 0.5, "role_consistency": 0.5}, 4)
    check = success_check([weak, card("a", GOOD, 7), card("b", GOOD, 7)])
    assert check.batches.row(0, named=True) | {"games": None} == {
        "test": 1,
        "games": None,
        "passed_count": 7,
        "engagement_min": 4.0,
        "cost_max": 1.0,
        "cache_hit_rate": pytest.approx(0.8),
        "ok": True,
        "why_not": "",
        "streak": 1,
    }
    # three weak games average 4/7: the batch fails
    check = success_check([weak, weak, weak])
    assert check.batches["why_not"][0] == "fewer than 5/7 passed on average"


def test_an_incomplete_last_batch_is_listed_not_judged() -> None:
    check = success_check([card(f"t{i}", GOOD, 7) for i in range(5)])
    assert check.batches["ok"].to_list() == [True, None]
    assert check.batches["why_not"][1] == "incomplete test: 2 of 3 games"
    assert check.batches["streak"].to_list() == [1, 0]


def _nine(signed: bool = False, cache: float = 0.8) -> list[Scorecard]:
    cards = [card(f"t{i}", GOOD, 7, cache=cache) for i in range(9)]
    if signed:
        cards[4].meta["signed_off"] = True
    return cards


def test_proceed_needs_a_fascinating_sign_off_and_cache_above_70() -> None:
    check = success_check(_nine())
    assert check.met and not check.proceed
    assert check.proceed_reason == (
        'do not proceed (tests 1, 2, 3): no "fascinating to watch" sign-off recorded '
        "for these games"
    )
    check = success_check(_nine(signed=True))
    assert check.proceed
    assert check.proceed_reason.startswith("proceed: tests 1, 2, 3 pass")
    check = success_check(_nine(signed=True, cache=0.70))
    assert not check.proceed
    assert check.proceed_reason == "do not proceed (tests 1, 2, 3): cache hit rate 70% not > 70%"
    check = success_check(_nine(signed=True, cache=None))  # type: ignore[arg-type]
    assert not check.proceed
    assert "cache hit rate unknown" in check.proceed_reason
    assert check.met  # cache decides proceeding, not the tests


def test_not_met_never_proceeds() -> None:
    check = success_check(_nine(signed=True)[:6])
    assert not check.met and not check.proceed
    assert check.proceed_reason == "do not proceed: no 3 consecutive passing tests yet"


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (
            {
                "passed": 4,
                "values": GOOD
                | {"coherence": 0.1, "strategic_depth": 0.1, "role_consistency": 0.1},
            },
            "fewer than 5/7 passed on average",
        ),
        ({"engagement": 2.99}, "engagement not >= 3.0 in every game"),
        ({"engagement": None}, "engagement not >= 3.0 in every game"),
        ({"cost": None}, "cost not < $2.00 in every game"),
    ],
)
def test_one_bad_game_per_game_test_breaks_the_run_under_1_0_0(
    bad: dict[str, object], why: str
) -> None:
    # Rubric 1.0.0 took each game as a test (batch_size 1).
    kwargs = {"passed": 6, "values": GOOD, **bad}
    passed = int(kwargs.pop("passed"))  # type: ignore[call-overload]
    values = kwargs.pop("values")
    tests = [
        card("t1", GOOD, 6),
        card("t2", GOOD, 6),
        card("t3", values, passed, **kwargs),  # type: ignore[arg-type]
        card("t4", GOOD, 6),
        card("t5", GOOD, 6),
    ]
    check = success_check(tests, DISCUSSION_SPEC_1_0_0)
    assert not check.met
    assert check.best_streak == 2
    assert check.batches["why_not"][2] == why
