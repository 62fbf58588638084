"""The discussion verdict rule on every edge, and the rubric as versioned data."""

from __future__ import annotations

import pytest

from toolkit.errors import RubricError
from toolkit.rubrics.discussion import (
    DEFAULT_DISCUSSION_SPEC,
    DISCUSSION_SPEC_1_0_0,
    METRIC_KEYS,
    decide_verdict,
    load_discussion_spec,
)

MACHINE = [k for k in METRIC_KEYS if k != "engagement"]


def statuses(machine_passed: int, engagement: str) -> dict[str, str]:
    """The first ``machine_passed`` machine metrics PASS, the rest FAIL."""
    out = {k: ("PASS" if i < machine_passed else "FAIL") for i, k in enumerate(MACHINE)}
    out["engagement"] = engagement
    return out


def test_six_of_seven_with_engagement_2_5_fails_on_engagement() -> None:
    verdict, reasons, passed = decide_verdict(statuses(6, "FAIL"), 2.5, 1.0)
    assert (verdict, passed) == ("FAIL", 6)
    assert "engagement 2.50 below 3.0" in reasons


def test_four_of_seven_with_engagement_4_fails_on_count() -> None:
    verdict, reasons, passed = decide_verdict(statuses(3, "PASS"), 4.0, 1.0)
    assert (verdict, passed) == ("FAIL", 4)
    assert reasons[0] == "only 4/7 metrics passed (5 needed)"


def test_five_of_seven_engagement_3_cost_3_00_passes_on_every_boundary() -> None:
    verdict, reasons, passed = decide_verdict(statuses(4, "PASS"), 3.0, 3.00)
    assert (verdict, passed) == ("PASS", 5)
    assert reasons[:3] == ["5/7 metrics passed", "engagement 3.00 >= 3.0", "cost $3.00 <= $3.00"]


def test_cost_3_01_fails_as_caching_broken() -> None:
    verdict, reasons, _ = decide_verdict(statuses(6, "PASS"), 4.5, 3.01)
    assert verdict == "FAIL"
    assert reasons == ["cost $3.01 over $3.00: caching broken"]


def test_each_reason_is_named() -> None:
    verdict, reasons, _ = decide_verdict(statuses(2, "FAIL"), 2.0, 3.5)
    assert verdict == "FAIL"
    assert reasons[:3] == [
        "cost $3.50 over $3.00: caching broken",
        "engagement 2.00 below 3.0",
        "only 2/7 metrics passed (5 needed)",
    ]
    assert reasons[3] == (
        "failed: Conversation coherence, Role consistency, Personality diversity, Anti-repetition"
    )


def test_no_rating_but_otherwise_passable_is_pending_rating() -> None:
    # 4 machine metrics pass: a good rating would make 5/7.
    verdict, reasons, passed = decide_verdict(statuses(4, "PENDING"), None, 1.0)
    assert (verdict, passed) == ("PENDING_RATING", 4)
    assert reasons[0] == "no engagement rating yet"


def test_no_rating_and_too_few_metrics_is_already_a_fail() -> None:
    verdict, reasons, _ = decide_verdict(statuses(3, "PENDING"), None, 1.0)
    assert verdict == "FAIL"
    assert reasons[0].startswith("only 3/7 metrics passed (5 needed)")


def test_no_rating_and_over_budget_is_already_a_fail() -> None:
    verdict, reasons, _ = decide_verdict(statuses(6, "PENDING"), None, 3.01)
    assert verdict == "FAIL"
    assert reasons == ["cost $3.01 over $3.00: caching broken"]


def test_unknown_cost_is_not_over_the_budget() -> None:
    # Issue 23 item 6: the rubric fails a cost *over* $3.00; an unknown cost is not over it.
    verdict, reasons, passed = decide_verdict(statuses(6, "PASS"), 4.0, None)
    assert (verdict, passed) == ("PASS", 7)
    assert reasons[:3] == [
        "7/7 metrics passed",
        "engagement 4.00 >= 3.0",
        "cost unknown: the $3.00 budget not checked",
    ]


def test_unknown_cost_fails_when_cost_is_required() -> None:
    verdict, reasons, _ = decide_verdict(statuses(6, "PASS"), 4.0, None, require_cost=True)
    assert verdict == "FAIL"
    assert reasons == ["cost unknown: the $3.00 budget cannot be checked (cost required)"]


def test_unknown_cost_does_not_decide_a_failing_game_either() -> None:
    verdict, reasons, _ = decide_verdict(statuses(2, "FAIL"), 2.0, None)
    assert verdict == "FAIL"
    assert not any(r.startswith("cost") for r in reasons)


def test_absent_metrics_do_not_count_as_passed() -> None:
    s = statuses(5, "PASS")  # 6/7 passing ...
    s["coherence"] = "N/A"  # ... then two of them have no evidence: 4/7
    s["role_consistency"] = "N/A"
    verdict, reasons, passed = decide_verdict(s, 4.0, 1.0)
    assert (verdict, passed) == ("FAIL", 4)
    assert "no evidence: Conversation coherence, Role consistency" in reasons


# --- the rubric as data -----------------------------------------------------------------


def test_rubric_1_1_0_holds_the_issue_numbers() -> None:
    spec = DEFAULT_DISCUSSION_SPEC
    assert spec.version == "1.2.0"
    assert {k: spec.threshold(k) for k in METRIC_KEYS} == {
        "memory_accuracy": 0.80,
        "strategic_depth": 0.60,
        "coherence": 0.70,
        "role_consistency": 0.80,
        "personality_diversity": 0.50,
        "anti_repetition": 0.90,
        "engagement": 3.0,
    }
    assert (spec.min_passed, spec.max_cost_usd, spec.baseline_games) == (5, 3.00, 3)
    assert spec.similarity_threshold == 0.70


def test_rubric_1_0_0_stays_loadable_with_its_own_rules() -> None:
    old = load_discussion_spec({"version": "1.0.0"})
    assert old == DISCUSSION_SPEC_1_0_0
    assert (old.coherence_counts_first, old.phrase_names) == (False, "exclude")
    assert "too hasty" not in old.role.deflection
    assert old.fingerprint() != DEFAULT_DISCUSSION_SPEC.fingerprint()
    with pytest.raises(RubricError, match="bump its version"):
        load_discussion_spec({"version": "1.0.0", "phrase_names": "placeholder"})


def test_changed_threshold_without_new_version_is_rejected() -> None:
    with pytest.raises(RubricError, match="bump its version"):
        load_discussion_spec({"metrics": {"coherence": {"threshold": 0.5}}})


def test_changed_threshold_with_new_version_applies(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "rubric.yaml"
    path.write_text("version: 1.1.0-team\nmetrics:\n  coherence:\n    threshold: 0.5\n")
    spec = load_discussion_spec(path)
    assert spec.version == "1.1.0-team"
    assert spec.threshold("coherence") == 0.5
    assert spec.threshold("engagement") == 3.0  # untouched keys keep their values


def test_changed_threshold_moves_the_verdict() -> None:
    spec = load_discussion_spec({"version": "9.0.0", "max_cost_usd": 4.0})
    assert decide_verdict(statuses(6, "PASS"), 4.0, 3.5, spec)[0] == "PASS"


def test_bad_rubric_value_names_the_field() -> None:
    with pytest.raises(RubricError, match="min_passed"):
        load_discussion_spec({"version": "2.0.0", "min_passed": 9})


def test_unknown_cost_without_rating_waits_for_the_rating() -> None:
    verdict, reasons, _ = decide_verdict(statuses(6, "PENDING"), None, None)
    assert verdict == "PENDING_RATING"
    assert reasons == [
        "no engagement rating yet",
        "6/7 metrics passed so far",
        "cost unknown: the $3.00 budget not checked",
    ]


def test_unknown_cost_without_rating_is_already_a_fail_when_cost_is_required() -> None:
    verdict, reasons, _ = decide_verdict(statuses(6, "PENDING"), None, None, require_cost=True)
    assert verdict == "FAIL"
    assert reasons == ["cost unknown: the $3.00 budget cannot be checked (cost required)"]


def test_pass_lists_failing_metrics_too() -> None:
    verdict, reasons, passed = decide_verdict(statuses(5, "PASS"), 3.5, 0.5)
    assert (verdict, passed) == ("PASS", 6)
    assert reasons == [
        "6/7 metrics passed",
        "engagement 3.50 >= 3.0",
        "cost $0.50 <= $3.00",
        "failed: Anti-repetition",
    ]
