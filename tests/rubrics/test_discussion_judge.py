"""Judged readings of the sample games, beside the keyword and human readings."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import polars as pl
import pytest

import toolkit as tk
from toolkit.judge import CassetteMiss, JudgeRequest, JudgeResult, RecordedJudge
from toolkit.rubrics.discussion import (
    DEFAULT_ENGAGEMENT_SCALE,
    discussion_requests,
    game_text,
    judge_discussion,
)


@pytest.fixture
def games(sample_runs: Path) -> tk.Discussion:
    folder = sample_runs / "discussions"
    return tk.load_discussions([folder, folder / "baseline"])


@pytest.fixture
def cassette(sample_runs: Path) -> Path:
    return sample_runs / "discussions" / "judge" / "cassette.json"


class Counting:
    """A judge that counts the calls it passes on to another."""

    def __init__(self, inner: RecordedJudge) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls = 0

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        self.calls += 1
        return self.inner.judge(requests, double_check=double_check)


def _recorded(cassette: Path) -> dict[str, dict[str, object]]:
    data: dict[str, dict[str, object]] = json.loads(cassette.read_text())["recordings"]
    return data


def test_the_sample_cassette_answers_every_request_with_no_live_call(
    games: tk.Discussion, cassette: Path
) -> None:
    judge = Counting(RecordedJudge(cassette))
    judged = judge_discussion(games, judge)
    assert judged.usage is not None
    assert judged.usage.answered_live == 0 and judged.usage.calls == 0
    assert judged.usage.replayed == judged.items.height == len(_recorded(cassette))
    # batched: claims of one game share calls of up to 10; the engagement rating has its own
    assert 0 < judge.calls < judged.items.height
    assert judged.items["value"].null_count() == 0


def test_readings_are_the_share_of_claims_the_judge_scored_true(
    games: tk.Discussion, cassette: Path
) -> None:
    judged = judge_discussion(games, RecordedJudge(cassette))
    recorded = list(_recorded(cassette).values())
    for gid in games.game_ids:
        for metric in ("strategic_depth", "memory_accuracy"):
            values = [
                int(r["value"])  # type: ignore[call-overload]
                for r in recorded
                if r["subject"] == gid and str(r["proposition"]).startswith(f"discussion.{metric}:")
            ]
            reading = judged.reading(gid, metric)
            assert reading is not None
            if values:
                assert reading["value"] == pytest.approx(sum(v >= 5 for v in values) / len(values))
                assert reading["judged"] == len(values)
            else:  # nothing to judge is absent, not a pass
                assert reading["value"] is None and reading["detail"].startswith("absent")
        (rating,) = [
            r["value"]
            for r in recorded
            if r["subject"] == gid and r["proposition"] == "discussion.engagement"
        ]
        assert judged.reading(gid, "engagement")["value"] == rating  # type: ignore[index]


def test_the_engagement_prompt_is_the_instruments_scale_and_questions(
    games: tk.Discussion,
) -> None:
    (request,) = [r for _, m, _, _, r in discussion_requests(games) if m == "engagement"][:1]
    assert request.scale == (1, 5)
    assert request.bands is not None and len(request.bands) == 5
    for level, band in zip(DEFAULT_ENGAGEMENT_SCALE.levels, request.bands, strict=True):
        assert band == f"{level.score} ({level.label}): {level.description}"
    for question in DEFAULT_ENGAGEMENT_SCALE.questions:
        assert question.text in request.claim
    assert DEFAULT_ENGAGEMENT_SCALE.hint in request.claim


def test_the_judge_reads_the_game_without_roles(games: tk.Discussion) -> None:
    text = game_text(games, "game-pass")
    assert text.startswith("Players: ")
    assert "MAFIA" not in text and "VILLAGER" not in text
    first = games.messages.filter(pl.col("game_id") == "game-pass").row(0, named=True)
    assert f"[turn {first['turn']}] {first['speaker']}: {first['text']}" in text
    assert "Votes: " in text


def test_a_request_the_cassette_lacks_names_the_file_and_the_request(
    games: tk.Discussion, cassette: Path, tmp_path: Path
) -> None:
    data = json.loads(cassette.read_text())
    key = next(
        k for k, v in data["recordings"].items() if v["proposition"] == "discussion.engagement"
    )
    del data["recordings"][key]
    short = tmp_path / "short.json"
    short.write_text(json.dumps(data))
    with pytest.raises(CassetteMiss) as caught:
        judge_discussion(games, RecordedJudge(short))
    line = str(caught.value)
    assert str(short) in line and "discussion.engagement" in line and "\n" not in line


def test_a_value_off_the_scale_is_absent_with_the_reason(
    games: tk.Discussion, cassette: Path, tmp_path: Path
) -> None:
    data = json.loads(cassette.read_text())
    for entry in data["recordings"].values():
        if entry["proposition"] == "discussion.engagement" and entry["subject"] == "game-pass":
            entry["value"] = 7
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(data))
    judged = judge_discussion(games, RecordedJudge(odd))
    reading = judged.reading("game-pass", "engagement")
    assert reading is not None and reading["value"] is None
    assert "outside 1-5" in reading["detail"]
    assert any("no usable answer" in w for w in judged.warnings)


def test_without_a_judge_the_scorecard_is_as_before(games: tk.Discussion) -> None:
    report = tk.score_discussion(games)
    for card in report.scorecards:
        assert card.dimensions.height == 7
        assert not {"judge", "engagement_source", "informational"} & set(card.meta)
    assert report.judged is None


def test_judged_rows_sit_beside_their_metric_and_never_decide(
    games: tk.Discussion, cassette: Path, sample_runs: Path
) -> None:
    ratings = tk.load_ratings(sample_runs / "discussions" / "ratings.csv")
    judged = judge_discussion(games, RecordedJudge(cassette))
    plain = tk.score_discussion(games, ratings=ratings)
    report = tk.score_discussion(games, ratings=ratings, judged=judged)
    for before, card in zip(plain.scorecards, report.scorecards, strict=True):
        assert (card.verdict, card.verdict_reason) == (before.verdict, before.verdict_reason)
        keys = card.dimensions["dimension"].to_list()
        assert keys[:4] == [
            "memory_accuracy",
            "memory_accuracy_judge",
            "strategic_depth",
            "strategic_depth_judge",
        ]
        assert keys[-2:] == ["engagement", "engagement_judge"]
        assert set(card.meta["informational"]) == {k for k in keys if k.endswith("_judge")}
    # base-7-3 has no human rating: the judge's engagement does not fill it by default
    assert report.scorecard("base-7-3").verdict == "PENDING_RATING"


def test_engagement_judge_fills_only_games_without_a_human_rating(
    games: tk.Discussion, cassette: Path, sample_runs: Path
) -> None:
    ratings = tk.load_ratings(sample_runs / "discussions" / "ratings.csv")
    judged = judge_discussion(games, RecordedJudge(cassette))
    report = tk.score_discussion(games, ratings=ratings, judged=judged, engagement="judge")
    rated = report.scorecard("base-7-1")  # rated 3 and 2 by people; the judge says 3
    assert rated.meta["engagement_source"] == "humans"
    assert rated.dimensions.filter(pl.col("dimension") == "engagement")["value"][0] == 2.5
    assert rated.verdict == "FAIL"
    filled = report.scorecard("base-7-3")
    judge_value = judged.reading("base-7-3", "engagement")["value"]  # type: ignore[index]
    row = filled.dimensions.filter(pl.col("dimension") == "engagement").row(0, named=True)
    assert row["value"] == judge_value and "--engagement judge" in row["detail"]
    assert filled.verdict != "PENDING_RATING"
    assert filled.meta["engagement_source"] == "judge"
    assert "engagement: judge" in filled.title
    assert any("--engagement judge" in r for r in filled.meta["reasons"])
    assert any(w.startswith("engagement by the judge") for w in filled.warnings)


def test_engagement_judge_needs_the_judges_engagement(games: tk.Discussion) -> None:
    with pytest.raises(ValueError, match="engagement='judge' needs"):
        tk.score_discussion(games, engagement="judge")
