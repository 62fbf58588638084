"""The discussion rubric on the bundled sample games and on the real export."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from toolkit.load.discussion import load_discussion
from toolkit.load.ratings import load_ratings
from toolkit.rubrics.discussion import score_discussion
from toolkit.scorecard import SCORECARD_SCHEMA


def _report(sample_runs: Path):  # type: ignore[no-untyped-def]
    folder = sample_runs / "discussions"
    return score_discussion(load_discussion(folder), ratings=load_ratings(folder / "ratings.csv"))


def test_sample_verdicts(sample_runs: Path) -> None:
    report = _report(sample_runs)
    verdicts = {c.subject: c.verdict for c in report.scorecards}
    assert verdicts == {
        "game-pass": "PASS",
        "game-role-repetition": "FAIL",
        "game-over-budget": "FAIL",
    }


def test_failing_sample_fails_on_role_consistency_and_repetition(sample_runs: Path) -> None:
    card = _report(sample_runs).scorecard("game-role-repetition")
    assert card.status_of("role_consistency") == "FAIL"
    assert card.status_of("anti_repetition") == "FAIL"
    assert "Role consistency" in card.verdict_reason
    assert "Anti-repetition" in card.verdict_reason


def test_over_budget_sample_fails_only_on_cost(sample_runs: Path) -> None:
    card = _report(sample_runs).scorecard("game-over-budget")
    assert card.meta["passed_count"] == 7
    assert card.meta["reasons"] == ["cost $3.42 over $3.00: caching broken"]


def test_scorecards_have_the_one_shape_and_stamp_the_version(sample_runs: Path) -> None:
    for card in _report(sample_runs).scorecards:
        assert card.dimensions.schema == pl.Schema(SCORECARD_SCHEMA)
        assert card.dimensions["dimension"].to_list() == [
            "memory_accuracy",
            "strategic_depth",
            "coherence",
            "role_consistency",
            "personality_diversity",
            "anti_repetition",
            "engagement",
        ]
        assert set(card.dimensions["status"]) <= {"PASS", "FAIL", "PENDING", "N/A"}
        assert card.rubric_version == "1.2.0"
        assert card.to_dict()["rubric_version"] == "1.2.0"


def test_sqlite_baseline_ratings_are_read(sample_runs: Path) -> None:
    folder = sample_runs / "discussions"
    report = score_discussion(
        load_discussion(folder / "baseline"), ratings=load_ratings(folder / "ratings.csv")
    )
    by_game = {c.subject: c for c in report.scorecards}
    assert by_game["base-7-3"].status_of("engagement") == "PENDING"
    assert by_game["base-7-1"].meta["engagement"] == 2.5  # (3 + 2) / 2


def test_real_export_scores_every_game(real_runs: Path) -> None:
    d = load_discussion(real_runs / "discussions" / "2l-ai-mafia" / "data-backup.json")
    report = score_discussion(d)
    assert len(report.scorecards) == 9
    assert report.metrics.height == 9 * 7
    empty = [c for c in report.scorecards if c.title.split(" · ")[1].startswith("0 messages")]
    assert len(empty) == 7
    for card in empty:
        assert card.verdict == "FAIL"
        assert card.meta["reasons"][0] == "no discussion messages: nothing to score"
    big = report.scorecard("cmgo31art0000d036btjje97q")
    # 40 of its 41 messages reply to another (inReplyToId): coherence is decided by that;
    # the first counts in the denominator, as in the rubric's formula.
    assert big.dimensions.filter(pl.col("dimension") == "coherence")["detail"][0].startswith(
        "40/41"
    )
    assert big.status_of("engagement") == "PENDING"
    # its first message, a Villager's "statistically at least two of you are Mafia hiding
    # among us", accuses nobody (issue 37)
    first = report.evidence.messages.filter(pl.col("game_id") == big.subject).sort("turn")
    assert first["role"][0] == "VILLAGER" and "two of you are Mafia" in first["text"][0]
    assert first["role_break"][0] is False, first["role_break_reason"][0]
    # the database holds no cost: unknown is not over the budget (issue 23 item 6), so
    # the verdict rests on the metrics; no game of the export fails on cost alone
    assert big.meta["cost"] is None
    assert big.verdict == "PENDING_RATING"
    assert "cost unknown: the $3.00 budget not checked" in big.meta["reasons"]
    for card in report.scorecards:
        assert not any("cannot be checked" in r for r in card.meta["reasons"])
    required = score_discussion(d, require_cost=True)
    for card in required.scorecards:
        assert card.verdict == "FAIL"
        assert (
            "cost unknown: the $3.00 budget cannot be checked (cost required)"
            in (card.meta["reasons"])
        )
