"""A tick's own reasons: the ticks that decided each simulation dimension, checked against
ticks planted by hand (which tick breaks character and with which marker, where a refusal
cluster begins, where drift crosses its threshold), and that they change no score."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from conftest import refused_v1, tick_v1
from test_simulation_rubric import make_universe

from toolkit.rubrics.simulation import DEFAULT_RUBRIC, dimension_series, score_universe
from toolkit.rubrics.simulation.reasons import status_changes, tick_reasons


def _planted() -> list[dict[str, Any]]:
    """20 ticks: tick 4 breaks character ("framework"), tick 9 too ("system prompt");
    ticks 12-14 are refused (a cluster of 3: two "no_viable_action", one conservation
    refusal, which is also a rollback); tick 17 executes with no mutation (ungrounded by
    the proxy); tick 6 uses a new verb."""
    ticks = [tick_v1(n) for n in range(1, 21)]
    ticks[3] = tick_v1(4, action_text="Stepping outside the framework, I pick a mechanic.")
    ticks[8] = tick_v1(9, action_text="Per my System Prompt I must wait.")
    ticks[5] = tick_v1(6, classified_action={"verb": "sing", "actor": "mara"})
    ticks[11] = refused_v1(12)
    ticks[12] = refused_v1(13, reason="conservation_violation: coins would be created")
    ticks[13] = refused_v1(14)
    ticks[16] = tick_v1(17, mutations={"count": 0, "list": []})
    return ticks


def _reasons(window: int = 20) -> pl.DataFrame:
    return tick_reasons(make_universe(_planted()), DEFAULT_RUBRIC, window)


def _of(reasons: pl.DataFrame, dimension: str) -> list[tuple[int, str, str]]:
    part = reasons.filter(pl.col("dimension") == dimension)
    return list(zip(part["tick"], part["reason"], part["status"], strict=True))


def test_the_ticks_that_broke_character_and_their_markers() -> None:
    # "stepping outside the framework, i pick a mechanic": "framework" is the rubric's
    # first marker found (markers are tried in the rubric's order: framework, yield,
    # mechanic, ...); tick 9 holds "system prompt" (matched without case).
    assert _of(_reasons(), "character_stability") == [
        (4, 'broke character: the action holds the marker "framework"', "FAIL"),
        (9, 'broke character: the action holds the marker "system prompt"', "FAIL"),
    ]


def test_the_refusal_that_began_a_cluster_names_its_length_and_reasons() -> None:
    assert _of(_reasons(), "refusal_cluster") == [
        (12, "refusal cluster begins here: 3 ticks (12-14): no_viable_action; "
             "conservation_violation: coins would be created", "FAIL"),
    ]  # fmt: skip


def test_action_coherence_names_each_refusal_and_the_longest_streak() -> None:
    rows = _of(_reasons(), "action_coherence")
    assert [r[0] for r in rows if r[2] == "FAIL"] == [12, 13, 14]
    # Streaks without a refusal: ticks 1-11 (11) and 15-20 (6): the longest begins at 1.
    assert (1, "the longest streak without a refusal begins here: 11 ticks (1-11)",
            "PASS") in rows  # fmt: skip


def test_ungrounded_rollback_and_new_verb_ticks() -> None:
    reasons = _reasons()
    # Refused ticks are never ungrounded by the proxy; tick 17 is (an executed tick, 0 mutations).
    assert _of(reasons, "groundedness") == [
        (17, "ungrounded (proxy): executed with 0 mutation(s)", "FAIL")
    ]
    assert _of(reasons, "conservation_drift") == [
        (13, "rolled back: conservation_violation: coins would be created", "FAIL")
    ]
    novel = _of(reasons, "vocabulary_growth")
    assert (1, 'first use of the verb "walk"', "PASS") in novel
    assert (6, 'first use of the verb "sing"', "PASS") in novel
    # No new verb after tick 6: ticks 7-20 are the longest stretch without one (14 ticks).
    assert (7, "the longest stretch with no new verb begins here: 14 ticks (7-20)",
            "FAIL") in novel  # fmt: skip


def test_only_the_scored_window_has_reasons() -> None:
    # A window of the last 10 ticks (11-20): the breaks at 4 and 9 are outside it; the
    # cluster at 12-14 is in it.
    reasons = _reasons(window=10)
    assert _of(reasons, "character_stability") == []
    assert [r[0] for r in _of(reasons, "refusal_cluster")] == [12]


def test_reasons_change_no_score() -> None:
    universe = make_universe(_planted())
    before = score_universe(universe, window=20)[0].dimensions
    tick_reasons(universe, DEFAULT_RUBRIC, 20)
    after = score_universe(universe, window=20)[0].dimensions
    assert before.equals(after)
    # What they explain: 2 breaks in 20 turns; the longest cluster is 3.
    values = dict(zip(after["dimension"], after["value"], strict=True))
    assert values["character_stability"] == pytest.approx(18 / 20)
    assert values["refusal_cluster"] == 3


def test_the_tick_where_drift_crossed_its_threshold() -> None:
    # 20 ticks, conservation refusals (rollbacks) at 5 and 6, a window of 20: drift at
    # tick n is rollbacks/n over ticks 1..n. At tick 5: 1/5 = 0.2 >= 0.1 (fail_min): FAIL
    # from OK; at tick 13: 2/13 = 0.154, still FAIL... it never drops below 0.1 by tick
    # 20 (2/20 = 0.1 >= 0.1). So two changes: OK at tick 1, FAIL at tick 5.
    ticks = [tick_v1(n) for n in range(1, 21)]
    ticks[4] = refused_v1(5, reason="conservation_violation: a lantern would vanish")
    ticks[5] = refused_v1(6, reason="conservation_violation: a lantern would vanish")
    d = DEFAULT_RUBRIC.conservation_drift
    assert (d.ok_max, d.fail_min) == (0.02, 0.1)  # the thresholds the numbers above use
    series = dimension_series(make_universe(ticks), DEFAULT_RUBRIC, 20)
    changes = status_changes(series).filter(pl.col("dimension") == "conservation_drift")
    assert changes.select("tick", "value", "status", "previous").rows() == [
        (1, 0.0, "OK", None),
        (5, pytest.approx(0.2), "FAIL", "OK"),
    ]
