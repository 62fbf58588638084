"""The eight dimensions of the simulation rubric at their exact boundaries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from conftest import refused_v1, tick_v1, tick_v2

from toolkit.errors import RubricError
from toolkit.frames import BATCHES_SCHEMA, CHECKPOINTS_SCHEMA, LOAD_ISSUES_SCHEMA
from toolkit.load._ticks import parse_ticks
from toolkit.load.universe import Universe
from toolkit.rubrics.simulation import (
    DEFAULT_RUBRIC,
    RUBRIC_1_1_0,
    dimension_series,
    load_simulation_rubric,
    score_universe,
)
from toolkit.scorecard import Scorecard


def make_universe(
    ticks: list[dict[str, Any]],
    checkpoints: list[tuple[int, int, int]] = (),  # type: ignore[assignment]
    slug: str = "run",
    batches: list[dict[str, Any]] | None = None,
) -> Universe:
    files = [Path(f"tick_{t['tick_id']}.json") for t in ticks]
    frame, errors = parse_ticks([slug] * len(ticks), files, [json.dumps(t).encode() for t in ticks])
    assert not errors
    cps = [{"slug": slug, "tick": t, "node_count": n, "edge_count": e} for t, n, e in checkpoints]
    return Universe(
        ticks=frame,
        batches=pl.DataFrame(batches or [], schema=BATCHES_SCHEMA),
        checkpoints=pl.DataFrame(cps, schema=CHECKPOINTS_SCHEMA),
        issues=pl.DataFrame(schema=LOAD_ISSUES_SCHEMA),
        names={slug: slug.title()},
        paths={slug: Path(slug)},
    )


def card(ticks: list[dict[str, Any]], window: int = 20, **kw: Any) -> Scorecard:
    return score_universe(make_universe(ticks, **kw), window=window)[0]


def row(c: Scorecard, key: str) -> dict[str, Any]:
    return c.dimensions.filter(pl.col("dimension") == key).row(0, named=True)


def novel_verbs(n_ticks: int, novel_at: set[int]) -> list[dict[str, Any]]:
    """Ticks 1..n whose verb is new exactly at the given ticks (1 must be one of them);
    every other tick repeats the latest verb."""
    assert 1 in novel_at
    out, verb = [], ""
    for n in range(1, n_ticks + 1):
        verb = f"verb{n}" if n in novel_at else verb
        out.append(tick_v1(n, classified_action={"verb": verb, "actor": "mara"}))
    return out


# --- 1. Groundedness --------------------------------------------------------------------


def ungrounded_v1(n: int) -> dict[str, Any]:
    return tick_v1(n, mutations={"count": 0, "list": []})


@pytest.mark.parametrize(
    ("ungrounded", "status"),
    [(0, "OK"), (1, "OK"), (2, "WARN"), (3, "WARN"), (4, "FAIL")],
)
def test_groundedness_bands_at_095_and_085(ungrounded: int, status: str) -> None:
    # 20 ticks: 19/20 = 0.95 is OK, 17/20 = 0.85 is still WARN, 16/20 = 0.80 fails.
    ticks = [ungrounded_v1(n) if n <= ungrounded else tick_v1(n) for n in range(1, 21)]
    r = row(card(ticks), "groundedness")
    assert r["status"] == status
    assert r["value"] == pytest.approx((20 - ungrounded) / 20)
    assert r["detail"].startswith(f"{20 - ungrounded}/20 grounded")


def test_groundedness_proxy_spares_refused_yielded_and_continuation_ticks() -> None:
    ticks = [tick_v1(n) for n in range(1, 21)]
    ticks[0] = refused_v1(1)
    ticks[1] = tick_v1(2, yielded=True, matched_mechanic_id=None, mutations={"count": 0})
    ticks[2] = tick_v1(
        3,
        action_text="[long_running_continuation]",
        matched_mechanic_id="continue_long_action",
        mutations={"count": 0, "list": []},
    )
    c = card(ticks)
    assert row(c, "groundedness")["value"] == 1.0
    assert "proxy" in row(c, "groundedness")["detail"]
    assert any("proxy" in w for w in c.warnings)


def test_groundedness_uses_observer_claims_when_present() -> None:
    # Tick 1 has mutations but its observer claims a change that did not happen;
    # tick 2 has zero mutations and claims nothing, which the proxy would call ungrounded.
    ticks = [tick_v2(n) for n in range(1, 21)]
    ticks[0] = tick_v2(1, observation={"text": "", "claimed_changes": [["mara", "mood", "happy"]]})
    ticks[1] = tick_v2(2, mutations={"count": 0, "list": []},
                       observation={"text": "", "claimed_changes": []})  # fmt: skip
    c = card(ticks)
    r = row(c, "groundedness")
    assert r["value"] == pytest.approx(19 / 20)
    assert r["detail"] == "19/20 grounded (observer claims)"


def test_observer_claim_must_match_target_property_and_new_value() -> None:
    wrong_value = tick_v2(1, observation={"claimed_changes": [["mara", "location", "home"]]})
    right = tick_v2(2)
    u = make_universe([wrong_value, right])
    assert u.ticks["grounded"].to_list() == [False, True]
    assert u.ticks["unsupported_claims"][0] == "mara.location=home"


# --- 2. Character stability -------------------------------------------------------------


@pytest.mark.parametrize(
    ("breaks", "status"), [(0, "OK"), (1, "OK"), (2, "WARN"), (5, "WARN"), (6, "FAIL")]
)
def test_character_stability_bands_at_098_and_090(breaks: int, status: str) -> None:
    # 50 turns: 49/50 = 0.98 OK, 45/50 = 0.90 WARN, 44/50 = 0.88 FAIL.
    ticks = [
        tick_v1(n, action_text="I wait for the OPERATOR to decide.") if n <= breaks else tick_v1(n)
        for n in range(1, 51)
    ]
    r = row(card(ticks, window=50), "character_stability")
    assert r["status"] == status
    assert r["detail"] == f"({breaks} breaks in 50 turns)"


def test_continuation_and_empty_ticks_are_not_turns() -> None:
    ticks = [tick_v1(n) for n in range(1, 11)]
    ticks[0] = tick_v1(1, action_text="[long_running_continuation]")
    ticks[1] = tick_v1(2, action_text="   ")
    ticks[2] = tick_v1(3, action_text="The scenario says I should stop.")
    r = row(card(ticks, window=10), "character_stability")
    assert r["detail"] == "(1 breaks in 8 turns)"
    assert r["value"] == pytest.approx(7 / 8)


def test_custom_markers_come_from_the_rubric() -> None:
    rubric = load_simulation_rubric(
        {"version": "1.0.0-test", "character_stability": {"markers": ["as an ai"]}}
    )
    ticks = [tick_v1(1, action_text="As an AI I cannot walk."), tick_v1(2)]
    c = score_universe(make_universe(ticks), rubric, window=2)[0]
    assert row(c, "character_stability")["detail"] == "(1 breaks in 2 turns)"
    assert c.rubric_version == "1.0.0-test"


def test_no_turns_is_not_applicable() -> None:
    ticks = [tick_v1(n, action_text="") for n in range(1, 6)]
    r = row(card(ticks, window=5), "character_stability")
    assert (r["status"], r["value"]) == ("N/A", None)


# --- 3. Action coherence ----------------------------------------------------------------


def with_refusals(n_ticks: int, refused_at: set[int]) -> list[dict[str, Any]]:
    return [refused_v1(n) if n in refused_at else tick_v1(n) for n in range(1, n_ticks + 1)]


def test_coherence_ok_at_streak_15_and_rate_15() -> None:
    r = row(card(with_refusals(20, {16, 17, 18})), "action_coherence")
    assert (r["value"], r["status"]) == (15, "OK")
    assert r["detail"] == "streak=15  refuse_rate=1.5"


def test_coherence_warns_at_streak_14() -> None:
    r = row(card(with_refusals(20, {15, 17, 19})), "action_coherence")
    assert (r["value"], r["status"]) == (14, "WARN")


def test_coherence_warns_at_rate_just_above_15() -> None:
    # 4 refusals in 20 ticks: rate 2.0 although the streak is 16.
    r = row(card(with_refusals(20, {17, 18, 19, 20})), "action_coherence")
    assert (r["value"], r["status"]) == (16, "WARN")


def test_coherence_fails_at_streak_4_but_not_5() -> None:
    # Refusals every 6th tick leave streaks of 5; every 5th leaves streaks of 4.
    fives = row(card(with_refusals(18, {6, 12, 18}), window=18), "action_coherence")
    fours = row(card(with_refusals(20, {5, 10, 15, 20})), "action_coherence")
    assert (fives["value"], fives["status"]) == (5, "WARN")
    assert (fours["value"], fours["status"]) == (4, "FAIL")


def test_coherence_fails_at_rate_4() -> None:
    # 8 refusals in 20 ticks (rate 4.0) bunched at the end: streak 12 cannot save it.
    r = row(card(with_refusals(20, set(range(13, 21)))), "action_coherence")
    assert r["status"] == "FAIL"
    assert "refuse_rate=4" in r["detail"]


# --- 4. Refusal cluster -----------------------------------------------------------------


@pytest.mark.parametrize(("run", "status"), [(2, "OK"), (3, "WARN"), (4, "WARN"), (5, "FAIL")])
def test_refusal_cluster_bands(run: int, status: str) -> None:
    r = row(card(with_refusals(20, set(range(5, 5 + run)))), "refusal_cluster")
    assert (r["value"], r["status"]) == (run, status)


def test_refusals_just_outside_the_window_do_not_count() -> None:
    # Ticks 1-5 refused, window = last 20 of 25 ticks (6..25): no refusals inside.
    r = row(card(with_refusals(25, set(range(1, 6)))), "refusal_cluster")
    assert (r["value"], r["status"]) == (0, "OK")
    inside = row(card(with_refusals(25, set(range(2, 7)))), "refusal_cluster")
    assert inside["value"] == 1  # only tick 6 falls inside


# --- 5. Vocabulary growth ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("novel", "status"),
    [(0, "WARN"), (1, "OK"), (5, "OK"), (6, "WARN"), (8, "WARN"), (9, "FAIL")],
)
def test_vocabulary_rate_bands(novel: int, status: str) -> None:
    # Window of 20 ticks after 20 ticks of history: rate = novel / 2 per 10 ticks.
    ticks = novel_verbs(40, {1} | set(range(21, 21 + novel)))
    r = row(card(ticks), "vocabulary_growth")
    assert r["value"] == pytest.approx(novel / 2)
    assert r["status"] == status


def test_verbs_used_before_the_window_are_not_novel() -> None:
    ticks = novel_verbs(30, {1, 3})  # 'verb3' from tick 3 on
    ticks += [tick_v1(31, classified_action={"verb": "VERB3", "actor": "mara"})]
    r = row(card(ticks), "vocabulary_growth")
    assert r["detail"].startswith("0 novel-verbs/10t")


def test_vocabulary_stagnant_for_30_ticks_fails_even_with_a_fine_rate() -> None:
    # 40-tick window, 2 novel verbs at ticks 1 and 2: rate 0.5 (OK) but 38 ticks stagnant.
    stagnant = row(card(novel_verbs(40, {1, 2}), window=40), "vocabulary_growth")
    assert stagnant["status"] == "FAIL"
    assert "stagnant=38" in stagnant["detail"]
    # Novel verbs at 1, 2 and 31 keep the longest stagnant stretch at 28 ticks (3..30).
    ok = row(card(novel_verbs(40, {1, 2, 31}), window=40), "vocabulary_growth")
    assert ok["status"] == "OK"
    assert "stagnant=28" in ok["detail"]


def test_mechanic_unit_uses_batch_history() -> None:
    rubric = load_simulation_rubric(
        {"version": "1.0.0-mech", "vocabulary_growth": {"unit": "mechanic"}}
    )
    ticks = [tick_v1(n, matched_mechanic_id=f"m{n % 3}") for n in range(101, 121)]
    batch = {"slug": "run", "kind": "batch", "batch_id": "0", "first_tick": 1, "last_tick": 100,
             "tick_count": 100, "total_mutations": 0, "agent_id": None,
             "mechanic_ids_used": ["m0", "m1"], "key_events": [], "source_file": "b"}  # fmt: skip
    c = score_universe(make_universe(ticks, batches=[batch]), rubric, window=20)[0]
    # Only m2 is new: m0 and m1 already appear in the batch record.
    assert row(c, "vocabulary_growth")["detail"].startswith("0.5 novel-mechanics/10t")


# --- 6. Conservation drift --------------------------------------------------------------


@pytest.mark.parametrize(
    ("rollbacks", "status"), [(0, "OK"), (1, "OK"), (2, "WARN"), (4, "WARN"), (5, "FAIL")]
)
def test_conservation_drift_bands_v1(rollbacks: int, status: str) -> None:
    ticks = [
        refused_v1(n, "conservation_violation: coins") if n <= rollbacks else tick_v1(n)
        for n in range(1, 51)
    ]
    r = row(card(ticks, window=50), "conservation_drift")
    assert r["status"] == status
    assert r["detail"] == f"({rollbacks}/50 rollbacks)"


def test_other_refusals_are_not_rollbacks() -> None:
    r = row(card(with_refusals(20, {1, 2})), "conservation_drift")
    assert r["value"] == 0


def test_v2_rollbacks_come_from_the_conservation_verdict() -> None:
    ticks = [tick_v2(n) for n in range(1, 21)]
    ticks[3] = tick_v2(4, kind="refuse", conservation_verdict="violated")
    ticks[4] = tick_v2(5, kind="refuse", refusal_reason="conservation maybe")  # verdict ok
    r = row(card(ticks), "conservation_drift")
    assert r["detail"] == "(1/20 rollbacks)"


# --- 7. Graph fan-out -------------------------------------------------------------------


def fanout_card(points: list[tuple[int, float]], last_tick: int = 100) -> dict[str, Any]:
    ticks = [tick_v1(n) for n in range(last_tick - 19, last_tick + 1)]
    cps = [(t, 100, round(f * 100)) for t, f in points]
    return row(card(ticks, checkpoints=cps), "graph_fanout")


def test_fanout_rising_is_ok_and_uses_last_five_checkpoints() -> None:
    # Checkpoints at 40..100; the last five are 60..100: (2.4 - 2.0) / 40 * 10 = 0.1.
    pts = [(40, 3.0), (50, 3.0), (60, 2.0), (70, 2.1), (80, 2.2), (90, 2.3), (100, 2.4)]
    r = fanout_card(pts)
    assert r["status"] == "OK"
    assert r["value"] == pytest.approx(0.1)
    assert "5 checkpoints, ticks 60-100" in r["detail"]


def test_fanout_only_counts_multiples_of_k_at_or_before_the_window_end() -> None:
    pts = [(85, 9.0), (90, 2.0), (100, 2.0), (110, 0.1)]
    r = fanout_card(pts)
    assert r["value"] == 0.0  # 85 is not a checkpoint, 110 is after tick 100
    assert r["status"] == "OK"


def test_fanout_fails_when_slope_and_last_three_steps_fall_below_minus_002() -> None:
    # Steps of -0.03 per 10 ticks (fan-out falls 0.03 each checkpoint).
    pts = [(60, 2.12), (70, 2.09), (80, 2.06), (90, 2.03), (100, 2.00)]
    r = fanout_card(pts)
    assert r["value"] == pytest.approx(-0.03)
    assert r["status"] == "FAIL"


def test_fanout_fails_on_the_5_checkpoint_slope_not_on_each_step() -> None:
    # The slope over up to 5 checkpoints at 80, 90 and 100 is -0.075, -0.053 and -0.05:
    # sustained below -0.02 although the single step 80 -> 90 is only -0.01.
    pts = [(60, 2.20), (70, 2.10), (80, 2.05), (90, 2.04), (100, 2.00)]
    r = fanout_card(pts)
    assert r["value"] == pytest.approx(-0.05)
    assert r["status"] == "FAIL"


def test_fanout_shrinking_five_times_faster_than_the_red_line_fails() -> None:
    # Issue 23, item 1, first example: a staircase that falls 0.2 every other checkpoint,
    # so its 5-checkpoint slope is -0.1 (five times -0.02) at 80, 90 and 100, while every
    # other step is flat. Rubric 1.1.0 (each step below -0.02) called it WARN.
    pts = [(40, 2.6), (50, 2.4), (60, 2.4), (70, 2.2), (80, 2.2), (90, 2.0), (100, 2.0)]
    r = fanout_card(pts)
    assert r["value"] == pytest.approx(-0.1)
    assert r["status"] == "FAIL"
    ticks = [tick_v1(n) for n in range(81, 101)]
    cps = [(t, 100, round(f * 100)) for t, f in pts]
    old = score_universe(make_universe(ticks, checkpoints=cps), RUBRIC_1_1_0, window=20)[0]
    assert old.status_of("graph_fanout") == "WARN"


def test_fanout_slope_held_at_minus_0025_over_three_checkpoints_fails() -> None:
    # Issue 23, item 1, second example: fan-out 2.4 2.4 2.4 2.3 2.3 2.3 2.3 at 40..100:
    # the slope over the last 5 checkpoints is (2.3 - 2.4) / 40 * 10 = -0.025 at 80, at 90
    # and at 100, with a single step of -0.1 among flat ones.
    pts = [(40, 2.4), (50, 2.4), (60, 2.4), (70, 2.3), (80, 2.3), (90, 2.3), (100, 2.3)]
    r = fanout_card(pts)
    assert r["value"] == pytest.approx(-0.025)
    assert r["status"] == "FAIL"


def test_fanout_below_the_red_line_at_only_two_checkpoints_is_warn() -> None:
    # The slope at 80 (over 40..80) is 0: only 90 and 100 are below -0.02.
    pts = [(40, 2.0), (50, 2.0), (60, 2.0), (70, 2.0), (80, 2.0), (90, 1.9), (100, 1.8)]
    r = fanout_card(pts)
    assert r["value"] == pytest.approx(-0.05)
    assert r["status"] == "WARN"


def test_fanout_needs_three_measured_slopes_to_fail() -> None:
    # Three checkpoints falling fast give only two slopes (at 90 and 100): not yet sustained.
    r = fanout_card([(80, 2.4), (90, 2.2), (100, 2.0)])
    assert r["value"] == pytest.approx(-0.2)
    assert r["status"] == "WARN"


def test_fanout_slope_of_exactly_minus_002_is_warn() -> None:
    pts = [(60, 2.08), (70, 2.06), (80, 2.04), (90, 2.02), (100, 2.00)]
    r = fanout_card(pts)
    assert r["value"] == pytest.approx(-0.02)
    assert r["status"] == "WARN"


def test_fanout_needs_two_checkpoints() -> None:
    r = fanout_card([(100, 2.0)])
    assert (r["status"], r["value"]) == ("N/A", None)
    assert "insufficient history" in r["detail"]


# --- Window, verdict, series ------------------------------------------------------------


# --- 8. Novel subtype rate (informational) -----------------------------------------------


def subtype_tick(n: int, *values: object, **fields: Any) -> dict[str, Any]:
    """An executed tick that also writes each of ``values`` to an item's subtype."""
    changes = [["mara", "location", "home", "well"]]
    changes += [[f"item{i}", "subtype", None, v] for i, v in enumerate(values)]
    return tick_v1(n, mutations={"count": len(changes), "list": changes}, **fields)


def test_subtype_rate_counts_distinct_values_first_written_in_the_run() -> None:
    # Window = ticks 11..30 (20 ticks). "oak" was written before the window: not new.
    # In the window: "elm" twice (one new), "ash" and 7 (a number) new, None ignored.
    ticks = [subtype_tick(n) for n in range(1, 31)]
    ticks[4] = subtype_tick(5, "oak")
    ticks[11] = subtype_tick(12, "oak", "elm")
    ticks[14] = subtype_tick(15, "elm", None)
    ticks[19] = subtype_tick(20, "ash", 7)
    r = row(card(ticks, window=20), "novel_subtype_rate")
    assert r["value"] == pytest.approx(3 / 2)  # 3 new values / (20 ticks / 10)
    assert r["status"] == "OK"
    assert r["detail"] == "3 new subtype values in 20 ticks (informational)"


def test_other_properties_and_refused_ticks_write_no_subtype() -> None:
    other = tick_v1(
        3, mutations={"count": 1, "list": [["bread_1", "subtypes", None, "rye"]]}
    )  # a different property name
    rolled_back = subtype_tick(
        4, "forged nail", refused=True, refusal_reason="conservation_violation"
    )
    ticks = [tick_v1(1), tick_v1(2), other, rolled_back, subtype_tick(5)]
    r = row(card(ticks, window=5), "novel_subtype_rate")
    assert (r["value"], r["status"]) == (0.0, "OK")  # zero, but fewer than 30 ticks
    # The value the rollback never kept is new when a later tick writes it.
    ticks.append(subtype_tick(6, "forged nail"))
    assert row(card(ticks, window=6), "novel_subtype_rate")["value"] == pytest.approx(10 / 6)


@pytest.mark.parametrize(("n_ticks", "status"), [(29, "OK"), (30, "WARN"), (50, "WARN")])
def test_zero_new_subtypes_warns_from_30_ticks_and_never_fails(n_ticks: int, status: str) -> None:
    c = card([tick_v1(n) for n in range(1, n_ticks + 1)], window=50)
    assert row(c, "novel_subtype_rate")["status"] == status
    assert "novel subtype rate" not in c.verdict_reason


def test_novel_subtype_rate_is_informational_by_default_and_the_rubric_can_count_it() -> None:
    ticks = novel_verbs(40, set(range(1, 41, 5)))  # every other dimension OK
    cps = [(10, 10, 10), (20, 10, 11), (30, 10, 12), (40, 10, 13)]
    informational = score_universe(make_universe(ticks, checkpoints=cps), window=40)[0]
    assert informational.status_of("novel_subtype_rate") == "WARN"
    assert informational.verdict == "HEALTHY"
    assert informational.meta["informational"] == ["novel_subtype_rate"]
    counted_rubric = load_simulation_rubric(
        {"version": "1.1.0-counted", "novel_subtype_rate": {"verdict": True}}
    )
    counted = score_universe(make_universe(ticks, checkpoints=cps), counted_rubric, 40)[0]
    assert counted.verdict == "DEGRADED"
    assert counted.verdict_reason == "warn: novel subtype rate"
    assert counted.meta["informational"] == []


def test_novel_subtype_rate_has_a_per_tick_series() -> None:
    ticks = [subtype_tick(n, f"kind{n}") if n in (3, 4) else tick_v1(n) for n in range(1, 13)]
    s = dimension_series(make_universe(ticks), window=5).filter(
        pl.col("dimension") == "novel_subtype_rate"
    )
    values = dict(zip(s["tick"].to_list(), s["value"].to_list(), strict=True))
    # The window ending at t holds ticks max(1, t-4)..t; new values at ticks 3 and 4.
    assert [values[t] for t in (2, 3, 4, 7, 8, 9)] == [
        0.0,
        pytest.approx(10 / 3),  # 1 new in 3 ticks
        5.0,  # 2 in 4
        4.0,  # 2 in 5 (ticks 3-7)
        2.0,  # 1 in 5 (ticks 4-8)
        0.0,
    ]


def test_rubric_100_is_still_loadable_and_scores_seven_dimensions() -> None:
    old = load_simulation_rubric({"version": "1.0.0"})
    assert old.novel_subtype_rate is None
    c = score_universe(make_universe([tick_v1(n) for n in range(1, 41)]), old)[0]
    assert c.rubric_version == "1.0.0"
    assert "novel_subtype_rate" not in c.dimensions["dimension"].to_list()
    assert c.dimensions.height == 7
    s = dimension_series(make_universe([tick_v1(1)]), old)
    assert "novel_subtype_rate" not in s["dimension"].to_list()
    # 1.0.0 with a changed number is still refused.
    with pytest.raises(RubricError, match="bump its version"):
        load_simulation_rubric({"version": "1.0.0", "window": 60})


def test_window_shorter_than_available_ticks_is_scored_and_warned() -> None:
    c = card([tick_v1(n) for n in range(1, 8)])
    assert c.meta["tick_count"] == 7
    assert any("only 7 ticks" in w for w in c.warnings)


def test_window_is_the_last_w_ticks_by_number_not_by_file_order() -> None:
    ticks = [tick_v1(n) for n in (100, 9, 10, 2)]
    c = card(ticks, window=2)
    assert (c.meta["first_tick"], c.meta["last_tick"]) == (10, 100)


def test_verdicts() -> None:
    healthy = card([tick_v1(n) for n in range(1, 21)], checkpoints=[(10, 10, 10), (20, 10, 11)])
    assert healthy.verdict == "HEALTHY" and healthy.verdict_reason == ""
    unmeasured = card([tick_v1(n) for n in range(1, 21)])  # every dimension OK but fan-out
    assert unmeasured.verdict == "HEALTHY"
    assert unmeasured.verdict_reason == "not measured: graph fan-out"
    degraded = card(with_refusals(20, {18, 19, 20}))
    assert degraded.verdict == "DEGRADED"
    # no universe.db: fan-out is N/A, and the verdict line says it was not measured
    assert degraded.verdict_reason == "warn: refusal cluster; not measured: graph fan-out"
    failed = card(with_refusals(20, set(range(1, 11))))
    assert failed.verdict == "FAILED"
    assert failed.verdict_reason.startswith("fail: action coherence, refusal cluster")


def test_no_ticks_is_insufficient_data_with_every_dimension_na() -> None:
    c = card([])
    assert c.verdict == "INSUFFICIENT_DATA"
    assert set(c.dimensions["status"].to_list()) == {"N/A"}


def test_na_does_not_degrade_the_verdict() -> None:
    c = card([tick_v1(n) for n in range(1, 21)])  # no checkpoints: fan-out N/A
    assert row(c, "graph_fanout")["status"] == "N/A"
    assert c.verdict == "HEALTHY"


def test_series_holds_the_trailing_window_value_at_every_tick() -> None:
    u = make_universe(with_refusals(30, {5, 6, 7}))
    s = dimension_series(u, window=10).filter(pl.col("dimension") == "refusal_cluster")
    values = dict(zip(s["tick"].to_list(), s["value"].to_list(), strict=True))
    # The window ending at tick t holds ticks t-9..t.
    assert [values[t] for t in (4, 7, 14, 15, 16, 17)] == [0, 3, 3, 2, 1, 0]


def test_fleet_scoring_gives_each_run_its_own_card() -> None:
    from toolkit.load.universe import combine

    a = make_universe(with_refusals(20, set(range(1, 11))), slug="a")
    b = make_universe([tick_v1(n) for n in range(1, 21)], slug="b")
    cards = score_universe(combine([a, b]), window=20)
    assert [(c.subject, c.verdict) for c in cards] == [("a", "FAILED"), ("b", "HEALTHY")]


# --- The rubric as data -----------------------------------------------------------------


def test_default_rubric_is_version_120_with_the_published_numbers() -> None:
    assert DEFAULT_RUBRIC.version == "1.2.0"
    assert DEFAULT_RUBRIC.graph_fanout.sustained == "slope"
    assert RUBRIC_1_1_0.graph_fanout.sustained == "steps"
    assert DEFAULT_RUBRIC.novel_subtype_rate is not None
    assert DEFAULT_RUBRIC.novel_subtype_rate.warn_zero_min_ticks == 30
    assert DEFAULT_RUBRIC.novel_subtype_rate.verdict is False
    assert DEFAULT_RUBRIC.window == 50
    assert DEFAULT_RUBRIC.groundedness.ok_min == 0.95


def test_changing_a_number_without_a_new_version_is_rejected(tmp_path: Path) -> None:
    f = tmp_path / "r.yaml"
    f.write_text("groundedness:\n  ok_min: 0.9\n")
    with pytest.raises(RubricError, match="bump its version"):
        load_simulation_rubric(f)
    f.write_text("version: 1.1.0\ngroundedness:\n  ok_min: 0.9\n")  # 1.1.0 is published
    with pytest.raises(RubricError, match=r"differs from published version 1\.1\.0"):
        load_simulation_rubric(f)
    f.write_text("version: 1.3.0-ours\ngroundedness:\n  ok_min: 0.9\n")
    assert load_simulation_rubric(f).groundedness.ok_min == 0.9


def test_a_file_naming_110_keeps_its_fanout_rule(tmp_path: Path) -> None:
    f = tmp_path / "r.yaml"
    f.write_text("version: 1.1.0\n")
    assert load_simulation_rubric(f) == RUBRIC_1_1_0
    f.write_text("version: 1.1.0-ours\nwindow: 60\n")  # merged over the default, 1.2.0
    assert load_simulation_rubric(f).graph_fanout.sustained == "slope"


def test_invalid_rubric_numbers_name_the_field(tmp_path: Path) -> None:
    f = tmp_path / "r.yaml"
    f.write_text("version: 2.0.0\nrefusal_cluster:\n  ok_max: 6\n")
    with pytest.raises(RubricError) as err:
        load_simulation_rubric(f)
    assert str(f) in str(err.value) and "refusal_cluster" in str(err.value)
    f.write_text("version: 2.0.0\nwindow: fifty\n")
    with pytest.raises(RubricError, match=r"window='fifty'"):
        load_simulation_rubric(f)


def test_one_row_per_run_scores_equal_the_last_row_of_the_rolling_series() -> None:
    from toolkit.rubrics.simulation import window_scores, window_series

    ticks = [refused_v1(n) if n % 7 in (0, 1) else tick_v1(n) for n in range(1, 90)]
    ticks += [tick_v1(n, classified_action={"verb": f"v{n}"}) for n in range(90, 95)]
    frame = make_universe(ticks).ticks
    rolled = window_series(frame, window=30).collect().tail(1).drop("slug")
    scored = window_scores(frame, window=30).collect().drop("slug")
    assert scored.select(rolled.columns).equals(rolled)


def test_scores_accept_a_lazy_scan_and_the_streaming_engine(tmp_path: Path) -> None:
    from toolkit.rubrics.simulation import window_scores

    ticks = [refused_v1(n) if n % 5 == 0 else tick_v1(n) for n in range(1, 61)]
    frame = make_universe(ticks).ticks
    frame.write_parquet(tmp_path / "ticks.parquet")
    eager = window_scores(frame, window=20).collect()
    streamed = window_scores(pl.scan_parquet(tmp_path / "ticks.parquet"), window=20).collect(
        engine="streaming"
    )
    assert streamed.equals(eager)
    assert eager["refused"][0] == 4  # ticks 45, 50, 55, 60 of the last 20


@pytest.mark.parametrize("window", [0, -3, 2.5, True, "50"])
def test_a_window_that_is_not_a_positive_whole_number_is_refused(window: Any) -> None:
    from toolkit.errors import InputError

    universe = make_universe([tick_v1(i) for i in range(1, 11)])
    with pytest.raises(InputError, match=r"window=.*must be a whole number of ticks, at least 1"):
        score_universe(universe, window=window)


def test_a_window_longer_than_the_run_titles_what_was_scored() -> None:
    universe = make_universe([tick_v1(i) for i in range(1, 65)])
    card = score_universe(universe, window=100_000)[0]
    assert card.title.endswith("· all 64 ticks (window 100000)")
    assert "100000 ticks" not in card.title.replace("window 100000", "")
    assert score_universe(universe, window=64)[0].title.endswith("· last 64 ticks")


# --- Secondary measures (issue 23, item 3) ------------------------------------------------


def test_refuse_rate_and_stagnant_are_numbers_not_only_detail_text() -> None:
    # 20 ticks, refused at 16, 17, 18: 3 refusals x 10 / 20 ticks = 1.5 per 10 ticks.
    c = card(with_refusals(20, {16, 17, 18}))
    coherence = c.measures_of("action_coherence")
    assert coherence == {"refuse_rate_10tick": 1.5, "refused": 3.0}
    assert c.measures_of("refusal_cluster") == {"refused": 3.0}
    # Novel verbs at ticks 1 and 2 of 40: ticks 3..40 introduce nothing, 38 in a row.
    vocab = card(novel_verbs(40, {1, 2}), window=40).measures_of("vocabulary_growth")
    assert vocab == {"novel": 2.0, "stagnant": 38.0, "classified": 40.0}


def test_every_dimension_reports_its_measures_in_the_json_and_the_frame() -> None:
    pts = [(60, 2.20), (70, 2.10), (80, 2.05), (90, 2.04), (100, 2.00)]
    ticks = [tick_v1(n) for n in range(81, 101)]
    c = card(ticks, checkpoints=[(t, 100, round(f * 100)) for t, f in pts])
    fan = c.measures_of("graph_fanout")
    assert fan["fan_out"] == 2.0 and fan["checkpoints"] == 5.0
    assert (fan["first_checkpoint_tick"], fan["last_checkpoint_tick"]) == (60.0, 100.0)
    # Slopes at 80, 90, 100: -0.075, -0.0533, -0.05; the highest of the three is -0.05.
    assert fan["sustained_checkpoints"] == 3.0
    assert fan["sustained_max_slope"] == pytest.approx(-0.05)
    data = c.to_dict()
    measured = {d["key"] for d in data["dimensions"] if d["measures"]}
    assert measured == set(DEFAULT_RUBRIC.dimension_keys())
    grounded = next(d for d in data["dimensions"] if d["key"] == "groundedness")
    assert grounded["measures"] == {"grounded": 20.0, "ticks": 20.0, "observer_ticks": 0.0}
    assert c.measures.schema == pl.Schema(
        {"subject": pl.String, "dimension": pl.String, "measure": pl.String, "value": pl.Float64}
    )


def test_measures_of_an_unmeasured_dimension_are_null_not_zero() -> None:
    c = card([tick_v1(n) for n in range(1, 21)])  # no checkpoints
    assert set(c.measures_of("graph_fanout").values()) == {None}
    assert c.measures_of("graph_fanout").keys() >= {"fan_out", "sustained_max_slope"}


def test_measures_frame_stacks_a_fleet_long_and_wide() -> None:
    from toolkit.load.universe import combine
    from toolkit.scorecard import measures_frame

    a = make_universe(with_refusals(20, set(range(1, 11))), slug="a")
    b = make_universe([tick_v1(n) for n in range(1, 21)], slug="b")
    cards = score_universe(combine([a, b]), window=20)
    long = measures_frame(cards)
    assert long.height == sum(c.measures.height for c in cards)
    wide = measures_frame(cards, wide=True)
    rates = dict(zip(wide["subject"], wide["action_coherence.refuse_rate_10tick"], strict=True))
    assert rates == {"a": 5.0, "b": 0.0}  # 10 refusals in 20 ticks; none
