"""``toolkit rescore GAMES --sweep metrics.METRIC=a:b:step``: a discussion metric's pass
threshold swept over the sample games, each value one scoring of games loaded once,
counting the verdicts and the metric's statuses that differ from the base rubric's.

Worked by hand from the sample ratings (sample_runs/discussions/ratings.csv): the
engagement means are game-over-budget (4 + 3)/2 = 3.5, game-pass (4 + 3 + 4)/3 = 3.67
and game-role-repetition (2 + 3)/2 = 2.5; discussion 1.2.0 passes engagement at 3.0.
At 2.5 role-repetition's engagement passes (a status flip) but the game still fails (4
of 7 metrics pass, 5 needed); at 4.0 both other games' engagement fails and game-pass,
which passed, fails (engagement below the threshold fails a game): one verdict flip, two
status flips. game-over-budget fails at every value (its cost is over the budget)."""

from __future__ import annotations

import pytest
from conftest import ROOT, SAMPLE_RUNS

from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.fleet.rescore_discussion import sweep_discussion
from toolkit.rubrics.discussion import DEFAULT_DISCUSSION_SPEC
from toolkit.rubrics.rescore import parse_discussion_sweep, swept_discussion_rubric

GAMES = SAMPLE_RUNS / "discussions"
RATINGS = GAMES / "ratings.csv"


def test_the_engagement_threshold_sweep_matches_the_hand_count() -> None:
    result = sweep_discussion(GAMES, "metrics.engagement=2.5:4:0.5", ratings=RATINGS)
    assert result.family == "discussion" and result.base == "discussion 1.2.0"
    assert result.base_value == 3.0
    rows = result.table.select("value", "runs", "flips", "status_flips", "PASS", "FAIL").rows()
    assert rows == [
        (2.5, 3, 0, 1, 1, 2),
        (3.0, 3, 0, 0, 1, 2),
        (3.5, 3, 0, 0, 1, 2),
        (4.0, 3, 1, 2, 0, 3),
    ]


def test_a_swept_rubric_moves_only_that_threshold_and_marks_its_version() -> None:
    spec = parse_discussion_sweep("metrics.strategic_depth=0.5:0.7:0.1", DEFAULT_DISCUSSION_SPEC)
    assert (spec.dimension, spec.threshold, spec.values) == ("metrics", "strategic_depth",
                                                            (0.5, 0.6, 0.7))  # fmt: skip
    swept = swept_discussion_rubric(DEFAULT_DISCUSSION_SPEC, spec, 0.5)
    assert not isinstance(swept, str)
    assert swept.version == "1.2.0+sweep" and swept.threshold("strategic_depth") == 0.5
    others = {k: m.threshold for k, m in swept.metrics.items() if k != "strategic_depth"}
    assert others == {k: m.threshold for k, m in DEFAULT_DISCUSSION_SPEC.metrics.items()
                      if k != "strategic_depth"}  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("metrics.charisma=0.1:0.2:0.1", "no metric 'charisma'"),
        ("success.min_engagement=1:2:1", "moves metrics.METRIC"),
        ("metrics.coherence=0.9:0.1:0.1", "need a <= b"),
        ("metrics.coherence=0.1:0.9", "must be metrics.METRIC=a:b:step"),
    ],
)
def test_bad_specs_are_one_line(spec: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError, match=words) as err:
        parse_discussion_sweep(spec, DEFAULT_DISCUSSION_SPEC)
    assert err.value.field == "--sweep"
    code = main(["rescore", str(GAMES), "--sweep", spec])
    out, err_text = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err_text.strip().splitlines()) == 1 and words in err_text


def test_the_worked_example_in_the_docs_is_current(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    command = ("toolkit rescore sample_runs/discussions --sweep metrics.engagement=2.5:4:0.5 "
               "--ratings sample_runs/discussions/ratings.csv")  # fmt: skip
    doc = (ROOT / "docs" / "rescore.md").read_text(encoding="utf-8")
    shown = doc.split(f"$ {command}\n", 1)[1].split("\n```", 1)[0].split("\n$ ", 1)[0]
    monkeypatch.chdir(ROOT)
    assert main(command.split()[1:]) == 0
    assert capsys.readouterr().out.rstrip("\n") == shown


def test_tk_sweep_sends_discussion_games_to_the_discussion_sweep() -> None:
    import toolkit as tk

    result = tk.sweep(GAMES, "metrics.strategic_depth=0.4:0.9:0.5")
    # strategic depth: game-over-budget 0.7, game-pass 13/15 = 0.867, role-repetition 0.4;
    # passing at 0.6: PASS, PASS, FAIL; at 0.4 all three pass, at 0.9 none does
    assert result.family == "discussion"
    assert result.table.select("value", "status_flips").rows() == [(0.4, 1), (0.9, 2)]


def test_a_judged_sweep_asks_the_judge_once_and_two_judges_are_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit.fleet import rescore_discussion

    cassette = f"recorded:{GAMES / 'judge' / 'cassette.json'}"
    memos: list[rescore_discussion.AnswerMemo] = []

    class Kept(rescore_discussion.AnswerMemo):
        def __init__(self, inner: object) -> None:
            super().__init__(inner)  # type: ignore[arg-type]
            memos.append(self)

    monkeypatch.setattr(rescore_discussion, "AnswerMemo", Kept)
    result = sweep_discussion(GAMES, "metrics.strategic_depth=0.5:0.7:0.1", judge=cassette,
                              ratings=RATINGS)  # fmt: skip
    assert result.table.height == 3 and result.table["valid"].all()
    # the base scoring alone (one value: the rubric's own) makes as many judge calls as
    # the base and three swept values: those reuse its answers
    base_only = sweep_discussion(GAMES, "metrics.strategic_depth=0.6:0.6:0.1", judge=cassette,
                                 ratings=RATINGS)  # fmt: skip
    assert base_only.table.height == 1
    assert len(memos) == 2 and memos[0].calls == memos[1].calls > 0
    code = main(["rescore", str(GAMES), "--sweep", "metrics.coherence=0.5:0.7:0.1",
                 "--judge", cassette, "--judge", cassette])  # fmt: skip
    assert code == 2 and "at most one" in capsys.readouterr().err
