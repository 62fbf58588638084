"""`toolkit rescore` for LLM Mafia discussion games: planted rubric changes whose flips are
known by hand from the rubric's rules and the sample files, the judge's answers reused
for a rubric change (a judge that raises on a second ask pins zero calls), the dry run
against the calls a real judging makes, and bad input (exit 2, one line)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.fleet.rescore_discussion import (
    discussion_rubric,
    dry_run_discussion,
    rescore_discussion,
)
from toolkit.judge import JudgeRequest, JudgeResult
from toolkit.judge.recorded import RecordedJudge
from toolkit.load.discussion import load_discussions
from toolkit.rubrics.discussion.spec import PUBLISHED

GAMES = SAMPLE_RUNS / "discussions"
RATINGS = GAMES / "ratings.csv"
CASSETTE = GAMES / "judge" / "cassette.json"
# game-pass.json records metadata.cost.totalCost 1.18; ratings.csv rates game-pass
# 4, 3, 4 (mean 3.667), game-over-budget 4, 3 (3.5), game-role-repetition 2, 3 (2.5).
UNDER_COST = {"version": "1.1.0-cost", "max_cost_usd": 1.00}
ENGAGEMENT_36 = {"version": "1.1.0-eng", "metrics": {"engagement": {"threshold": 3.6}}}


class AskOnce:
    """The recorded judge, counting calls; asking a request a second time raises (so a
    re-score that re-asks what A asked fails loudly)."""

    def __init__(self) -> None:
        self.inner = RecordedJudge(CASSETTE)
        self.name = self.inner.name
        self.calls = 0
        self.asked: Counter[str] = Counter()

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        self.calls += 1
        for r in requests:
            key = r.key(double_check=double_check)
            if self.asked[key]:
                raise AssertionError(f"asked twice: {r.proposition_id}")
            self.asked[key] += 1
        return self.inner.judge(requests, double_check=double_check)


def _runs(result: Any) -> dict[str, tuple[str, str, bool]]:
    return {
        r["subject"]: (r["verdict_a"], r["verdict_b"], r["flipped"]) for r in result.runs.to_dicts()
    }


def test_a_lower_cost_cap_flips_the_one_game_above_it() -> None:
    # 1.18 > 1.00: game-pass now FAILs on cost; the two others FAIL under both
    result = rescore_discussion(GAMES, "1.1.0", UNDER_COST, ratings=RATINGS)
    assert _runs(result) == {
        "game-pass": ("PASS", "FAIL", True),
        "game-over-budget": ("FAIL", "FAIL", False),
        "game-role-repetition": ("FAIL", "FAIL", False),
    }
    assert result.overall()["verdict_flips"] == 1
    assert result.overall()["dimension_flips"] == 0  # the cost is no metric
    assert "parameters.max_cost_usd: 3.0 → 1.0" in result.differences


def test_a_higher_engagement_threshold_flips_the_game_rated_between() -> None:
    # 3.6 sits between 3.5 (game-over-budget) and 3.667 (game-pass); 2.5 failed already
    result = rescore_discussion(GAMES, "1.1.0", ENGAGEMENT_36, ratings=RATINGS)
    flipped = result.dimensions.filter("flipped").to_dicts()
    assert [(d["subject"], d["dimension"]) for d in flipped] == [("game-over-budget", "engagement")]
    assert flipped[0]["value_a"] == pytest.approx(3.5) == flipped[0]["value_b"]
    assert flipped[0]["status_a"] == "PASS" and flipped[0]["status_b"] == "FAIL"


def test_a_rubric_change_reuses_the_judges_answers() -> None:
    judge = AskOnce()
    result = rescore_discussion(
        GAMES,
        "1.0.0",
        UNDER_COST,
        judge_a=judge,
        ratings=RATINGS,  # type: ignore[arg-type]
    )
    assert result.judge_calls == 0
    assert judge.calls > 0  # A was judged, once
    assert _runs(result)["game-pass"] == ("PASS", "FAIL", True)
    # the judge's readings are the same answers on both sides
    judged = result.dimensions.filter(result.dimensions["dimension"].str.ends_with("_judge"))
    assert judged.height == 9 and judged["delta"].abs().max() == 0.0


def test_a_judge_change_is_counted_by_the_dry_run_as_the_judge_then_calls() -> None:
    dry = dry_run_discussion(GAMES, "recorded:" + str(CASSETTE), rubric="1.1.0")
    second = AskOnce()
    result = rescore_discussion(
        GAMES, "1.1.0", "1.1.0", judge_a="recorded:" + str(CASSETTE),
        judge_b=second,  # type: ignore[arg-type]
    )  # fmt: skip
    assert result.judge_calls == second.calls == dry.calls
    assert dry.requests == sum(second.asked.values())
    # one engagement request per game: the three games are in the count
    assert dry.games == 3 and dry.requests >= 3
    # a rubric change that asks nothing new costs nothing
    reuse = dry_run_discussion(GAMES, "j", rubric="1.1.0", reuse_from="1.0.0")
    assert reuse.calls == 0 and reuse.requests == 0 and reuse.reused == dry.requests


def test_versions_are_resolved_through_the_published_table() -> None:
    for name, spec in PUBLISHED.items():
        assert discussion_rubric(name) is spec
        assert discussion_rubric(f"discussion-{name}") is spec
    with pytest.raises(InputError, match="no published discussion rubric") as err:
        discussion_rubric("9.9.9")
    assert err.value.field == "--rubric"


def test_loaded_games_are_taken_as_they_are() -> None:
    games = load_discussions([GAMES])
    result = rescore_discussion(games, "1.1.0", UNDER_COST, ratings=RATINGS)
    assert result.source == "loaded games" and result.overall()["verdict_flips"] == 1


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["rescore", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_prints_the_flip_and_the_calls(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "tight.yaml"
    rubric.write_text("version: 1.1.0-cost\nmax_cost_usd: 1.0\n", encoding="utf-8")
    code, out, _ = run_cli(
        [str(GAMES), "--rubric", "1.1.0", "--rubric", str(rubric), "--ratings", str(RATINGS),
         "--judge", f"recorded:{CASSETTE}"], capsys,
    )  # fmt: skip
    assert code == 0
    assert "judge calls made for B: 0" in out
    assert "3 game(s), 1 verdict flip(s)" in out
    assert any(line.split()[:4] == ["game-pass", "PASS", "FAIL", "flip"] for line in
               out.splitlines())  # fmt: skip
    assert max(len(line) for line in out.splitlines()) <= 80
    code, out, _ = run_cli(
        [str(GAMES), "--rubric", "1.0.0", "--rubric", "1.1.0", "--judge", f"recorded:{CASSETTE}",
         "--dry-run"], capsys,
    )  # fmt: skip
    assert code == 0 and "make 0 judge call(s)" in " ".join(out.split())


@pytest.mark.parametrize(
    "args",
    [
        [str(GAMES), "--rubric", "1.0.0"],
        [str(GAMES), "--rubric", "1.0.0", "--rubric", "7.7.7"],
        [str(GAMES), "--rubric", "1.0.0", "--rubric", "1.1.0", "--dry-run"],
        [str(SAMPLE_RUNS / "fleet"), "--rubric", "1.1.0", "--rubric", "1.2.0", "--ratings", "x"],
        [str(GAMES), "--rubric", "1.0.0", "--rubric", "1.1.0", "--engagement", "judge"],
        [str(GAMES), "--family", "discussion", "--sweep", "engagement.threshold=3:4:0.5"],
    ],
    ids=[
        "one-rubric",
        "unknown-version",
        "dry-run-without-judge",
        "ratings-elsewhere",
        "engagement-judge-without-judge",
        "no-discussion-sweep",
    ],
)
def test_bad_discussion_input_exits_2_with_one_line(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("toolkit rescore: error:")


def test_a_reports_own_rubric_is_taken_as_the_model_it_equals() -> None:
    """``score_discussion`` without a spec reports the rubric as plain values (no pydantic
    on the one-run path); handing that ``report.spec`` back to a rescore was read as a file
    name and refused with "cannot read rubric file (File name too long)". The values give
    the published model they equal, and the simulation rubric's values likewise."""
    from toolkit.fleet.rescore import simulation_rubric
    from toolkit.rubrics.discussion import score_discussion
    from toolkit.rubrics.simulation import DEFAULT_RUBRIC
    from toolkit.rubrics.simulation._values import DEFAULT_VALUES as SIMULATION_VALUES

    report = score_discussion(load_discussions([GAMES]))
    spec = discussion_rubric(report.spec)
    assert type(spec).__name__ == "DiscussionSpec" and spec == PUBLISHED["1.2.0"]
    assert simulation_rubric(SIMULATION_VALUES) == DEFAULT_RUBRIC
    assert type(simulation_rubric(SIMULATION_VALUES)) is type(DEFAULT_RUBRIC)
