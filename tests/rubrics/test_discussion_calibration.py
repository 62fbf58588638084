"""The engagement judge held against people: the calibration frame over games."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import krippendorff
import numpy as np
import polars as pl
import pytest

import toolkit as tk
from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.judge import RecordedJudge
from toolkit.rubrics.calibrate import calibrate
from toolkit.rubrics.discussion import (
    GAME_CALIBRATION_SCHEMA,
    discussion_requests,
    engagement_calibrate_rubric,
    engagement_calibration_scores,
    judge_discussion,
)


@pytest.fixture
def folder(sample_runs: Path) -> Path:
    return sample_runs / "discussions"


@pytest.fixture
def games(folder: Path) -> tk.Discussion:
    return tk.load_discussions([folder, folder / "baseline"])


@pytest.fixture
def frame(games: tk.Discussion, folder: Path) -> pl.DataFrame:
    judged = judge_discussion(
        games, RecordedJudge(folder / "judge" / "cassette.json"), metrics=["engagement"]
    )
    return engagement_calibration_scores(
        judged, games, tk.load_ratings(folder / "engagement_ratings.csv")
    )


def _people(folder: Path) -> list[dict[str, str]]:
    with open(folder / "engagement_ratings.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _judge_values(folder: Path) -> dict[str, int]:
    data = json.loads((folder / "judge" / "cassette.json").read_text())["recordings"]
    return {
        str(v["subject"]): int(v["value"])
        for v in data.values()
        if v["proposition"] == "discussion.engagement"
    }


def test_the_frame_follows_the_calibration_contract(
    frame: pl.DataFrame, games: tk.Discussion, folder: Path
) -> None:
    assert frame.schema == pl.Schema(GAME_CALIBRATION_SCHEMA)
    people = _people(folder)
    assert frame.height == len(people) + len(games.game_ids)
    judge = frame.filter(pl.col("rater") == "judge")
    humans = frame.filter(pl.col("rater") != "judge")
    assert judge["reasoning"].null_count() == 0 and judge["notes"].null_count() == judge.height
    assert humans["reasoning"].null_count() == humans.height
    noted = {(p["game_id"], p["rater"]): p["notes"] or None for p in people}
    for row in humans.iter_rows(named=True):
        assert row["notes"] == noted[(row["item"], row["rater"])]
    # one evidence, source, anchor and text hash per game, the same on every row
    per_item = frame.group_by("item").agg(
        pl.col(c).n_unique() for c in ("evidence", "source", "anchor", "text_sha256")
    )
    assert per_item.drop("item").to_numpy().max() == 1
    sources = dict(zip(games.game_ids, games.games["source_file"].to_list(), strict=True))
    sent = {g: r.trajectory for g, m, _, _, r in discussion_requests(games) if m == "engagement"}
    for row in judge.iter_rows(named=True):
        assert row["source"] == sources[row["item"]]
        assert row["text_sha256"] == hashlib.sha256(sent[row["item"]].encode()).hexdigest()
        shown = row["evidence"].removesuffix("…")
        assert shown.startswith("[turn ") and shown in sent[row["item"]]
        assert row["anchor"].startswith("turns 1-")
        assert row["game"] == row["item"]


def test_alpha_and_bias_come_out_of_the_ratings_and_the_cassette(
    frame: pl.DataFrame, folder: Path
) -> None:
    result = calibrate(frame, rubric=engagement_calibrate_rubric())
    people = _people(folder)
    games = sorted({p["game_id"] for p in people})
    raters = sorted({p["rater"] for p in people})
    table = np.full((len(raters), len(games)), np.nan)
    for p in people:
        table[raters.index(p["rater"]), games.index(p["game_id"])] = float(p["score"])
    expected = krippendorff.alpha(reliability_data=table, level_of_measurement="interval")
    assert result.alpha_humans == pytest.approx(expected)
    judge = _judge_values(folder)
    bias = np.mean([judge[g] - np.nanmean(table[:, games.index(g)]) for g in games])
    overall = result.bias.filter(pl.col("group") == "all")["bias"][0]
    assert overall == pytest.approx(bias)
    assert result.rubric.threshold == 3.0 and result.rubric.scale_max == 5.0


def test_the_ratings_store_gives_each_raters_latest_rating_and_note(
    games: tk.Discussion, folder: Path, tmp_path: Path
) -> None:
    from toolkit.ratings.store import RatingStore

    store = RatingStore(tmp_path / "ratings.db")
    store.save_rating("ana", "game-pass", 2, notes="first look")
    store.save_rating("ana", "game-pass", 4, notes="better on a second read")
    store.save_rating("ben", "game-pass", 3)
    judged = judge_discussion(
        games, RecordedJudge(folder / "judge" / "cassette.json"), metrics=["engagement"]
    )
    frame = engagement_calibration_scores(judged, games, store)
    humans = frame.filter(pl.col("rater") != "judge").sort("rater")
    assert humans.select("item", "rater", "score", "notes").rows() == [
        ("game-pass", "ana", 4.0, "better on a second read"),
        ("game-pass", "ben", 3.0, None),
    ]


def test_a_person_rating_as_judge_is_refused(games: tk.Discussion, folder: Path) -> None:
    judged = judge_discussion(
        games, RecordedJudge(folder / "judge" / "cassette.json"), metrics=["engagement"]
    )
    people = pl.DataFrame({"game_id": ["game-pass"], "rater": ["judge"], "score": [3.0]})
    with pytest.raises(InputError, match="judge's id"):
        engagement_calibration_scores(judged, games, people)


def test_the_cli_runs_from_the_cassette_and_gates(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "calibrate",
        "--discussion",
        str(folder),
        str(folder / "baseline"),
        "--ratings",
        str(folder / "engagement_ratings.csv"),
        "--judge",
        f"recorded:{folder / 'judge' / 'cassette.json'}",
        "--format",
        "json",
    ]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rubric_version"] == "1.0.0-engagement" and doc["threshold"] == 3.0
    assert doc["humans"] == ["ana", "ben", "chloe"] and doc["items"] == 6
    # a changed threshold re-runs from the cassette: nothing to pay again
    assert main([*args, "--threshold", "4"]) == 0
    assert json.loads(capsys.readouterr().out)["threshold"] == 4.0
    # the sample's judge is lenient: out of the humans' band, the gate fails
    assert main([*args, "--gate", "min-alpha", "0.667"]) == 1
    assert "judge in place of" in capsys.readouterr().err


def test_the_cli_needs_ratings_and_a_judge(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["calibrate", "--discussion", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "--ratings" in err and len(err.splitlines()) == 1
    assert main(["calibrate", "scores.csv", "--discussion", str(folder)]) == 2
    assert "not both" in capsys.readouterr().err
