"""``toolkit compare --estimate A B --ratings-a --ratings-b``: each arm carries the epoch
its family's scorecards are stamped with (persona: the persona rubric's data and the
judge's basis; discussion: the discussion rubric's with the judge's), and two arms of
different epochs are refused in one line unless ``--across-epochs``, which says what
differs, as ``toolkit compare`` fences two scored arms (docs/epochs.md)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from toolkit.cli import main
from toolkit.judge import RecordedJudge
from toolkit.load.discussion import load_discussions
from toolkit.load.ratings import open_rating_source
from toolkit.rubrics.discussion import judge_discussion, score_discussion
from toolkit.rubrics.persona import DEFAULT_PERSONA_RUBRIC, persona_epoch


def _persona_args(sample_runs: Path, tmp_path: Path) -> tuple[list[str], Path, Path]:
    session = sample_runs / "calibration" / "persona"
    planted = json.loads((session / "planted.json").read_text(encoding="utf-8"))
    chats = [sample_runs.parent / c for c in planted["chats"]]
    ratings = pl.read_csv(session / "ratings.csv", infer_schema=False)
    for arm, chat in zip("ab", chats, strict=True):
        mine = ratings.filter(pl.col("item").str.starts_with(chat.stem + "/"))
        kept = sorted(set(mine["item"].to_list()))[::3]
        mine.filter(pl.col("item").is_in(kept)).write_csv(tmp_path / f"ratings-{arm}.csv")
    props = session.parents[2] / planted["propositions"]
    args = [
        "compare", "--estimate", str(chats[0]), str(chats[1]),
        "--judge", f"recorded:{session / 'cassette.json'}", "--propositions", str(props),
        "--ratings-a", str(tmp_path / "ratings-a.csv"),
        "--ratings-b", str(tmp_path / "ratings-b.csv"), "--format", "json",
    ]  # fmt: skip
    return args, chats[0], session / "cassette.json"


def test_persona_arms_carry_the_epoch_score_persona_stamps(
    sample_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args, _, cassette = _persona_args(sample_runs, tmp_path)
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    # persona_epoch is what score_persona stamps on each card (pinned in
    # tests/fleet/test_compare_persona_epoch.py); this session's cassette holds the
    # calibration's questions only, so the cards themselves cannot be scored here
    stamped = {persona_epoch(DEFAULT_PERSONA_RUBRIC, RecordedJudge(cassette)).id}
    assert len(stamped) == 1
    assert data["epochs"] == [*stamped, *stamped] and data["notes"] == []


def test_persona_arms_of_two_rubrics_are_fenced_unless_across_epochs(
    sample_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args, _, _ = _persona_args(sample_runs, tmp_path)
    stricter = tmp_path / "persona.yaml"
    stricter.write_text("version: 1.1-local\ngreen_at: 8.0\n")
    assert main([*args, "--rubric-b", str(stricter)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "different epochs" in err and "parameters.green_at: 7.0 → 8.0" in err
    assert main([*args, "--rubric-b", str(stricter), "--across-epochs"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["epochs"][0] != data["epochs"][1]
    [note] = data["notes"]
    assert note.startswith("compared across epochs") and "green_at: 7.0 → 8.0" in note
    table = [a for a in args if a not in ("--format", "json")]
    assert main([*table, "--rubric-b", str(stricter), "--across-epochs"]) == 0
    out = capsys.readouterr().out
    assert f"epoch: A {data['epochs'][0]}, B {data['epochs'][1]}" in out
    assert "note: compared across epochs" in out


def test_discussion_arms_carry_the_epoch_of_the_judged_score(
    sample_runs: Path,
    tmp_path: Path,
    discussion_estimate_args: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = sample_runs / "discussions"
    cassette = folder / "judge" / "cassette.json"
    assert main([*discussion_estimate_args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # the epoch score_discussion stamps when the judge's engagement decides
    games = load_discussions([folder])
    judged = judge_discussion(games, RecordedJudge(cassette), metrics=["engagement"],
                              progress=False)  # fmt: skip
    report = score_discussion(games, ratings=open_rating_source(tmp_path / "a.csv"),
                              judged=judged, engagement="judge")  # fmt: skip
    stamped = {card.meta["epoch"] for card in report.scorecards}
    assert data["epochs"] == [*stamped, *stamped]
    assert main([*discussion_estimate_args, "--rubric-a", str(tmp_path / "a.csv")]) == 2
    assert "a rubric per arm is for persona arms here" in capsys.readouterr().err


def test_the_text_of_two_long_arms_fits_an_80_column_terminal(
    discussion_estimate_args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Looked at in an 80-column terminal: two arms' paths made the title 95 columns wide;
    past 80 each arm is named on its own line (a path itself is never cut)."""
    a, b = discussion_estimate_args[2:4]
    assert len(f"B - A on the people's scale: A = {a}, B = {b}") > 80  # the case pinned
    assert main(discussion_estimate_args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["B - A on the people's scale:", f"  A = {a}", f"  B = {b}"]
    assert max(len(line) for line in lines[3:]) <= 80
