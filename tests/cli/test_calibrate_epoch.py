"""``toolkit calibrate`` records the judge's measurement epoch and the scores' input
digest (JSON, text, Markdown); two calibrations of judges of different epochs given to
``toolkit view`` together are flagged in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main


def _calibrate(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["calibrate", *args, "--format", "json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def _scores(path: Path, rows: list[tuple[str, str, int]]) -> Path:
    path.write_text(
        "item,rater,score\n" + "".join(f"{i},{r},{s}\n" for i, r, s in rows), encoding="utf-8"
    )
    return path


ROWS = [
    (f"i{n}", rater, (n + k) % 9)
    for n in range(12)
    for k, rater in enumerate(("judge", "ana", "ben", "cy"))
]


def test_a_scores_file_has_a_digest_of_its_rows_and_no_judge_epoch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _calibrate([str(_scores(tmp_path / "a.csv", ROWS))], capsys)
    assert doc["judge_epoch"] is None  # a scores file does not say which judge
    digest = doc["input_digest"]
    assert len(digest) == 12 and int(digest, 16) >= 0
    # the same scores in another order: the same input
    reordered = _calibrate([str(_scores(tmp_path / "b.csv", ROWS[::-1]))], capsys)
    assert reordered["input_digest"] == digest
    # one score changed: another input
    changed = [(i, r, (s + 1) % 9) if (i, r) == ("i3", "ana") else (i, r, s) for i, r, s in ROWS]
    assert _calibrate([str(_scores(tmp_path / "c.csv", changed))], capsys)["input_digest"] != digest
    assert main(["calibrate", str(tmp_path / "a.csv")]) == 0
    text = capsys.readouterr().out
    assert f"judge epoch unknown (the scores do not say); scores digest {digest}" in text


def _games_args(folder: Path, cassette: Path) -> list[str]:
    return [
        "--discussion", str(folder), str(folder / "baseline"),
        "--ratings", str(folder / "engagement_ratings.csv"),
        "--judge", f"recorded:{cassette}",
    ]  # fmt: skip


def test_judged_games_record_the_judges_epoch(
    sample_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = sample_runs / "discussions"
    cassette = folder / "judge" / "cassette.json"
    first = _calibrate(_games_args(folder, cassette), capsys)
    assert first["judge_epoch"] and len(first["judge_epoch"]) == 12
    again = _calibrate(_games_args(folder, cassette), capsys)
    assert again["judge_epoch"] == first["judge_epoch"]
    assert again["input_digest"] == first["input_digest"]
    # a threshold is the calibration's, not the judge's: same judge epoch
    moved = _calibrate([*_games_args(folder, cassette), "--threshold", "4"], capsys)
    assert moved["judge_epoch"] == first["judge_epoch"]
    # another recording is another judge
    doc = json.loads(cassette.read_text(encoding="utf-8"))
    key = next(iter(doc["recordings"]))
    doc["recordings"][key]["reasoning"] = "changed by the test"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(doc), encoding="utf-8")
    assert _calibrate(_games_args(folder, other), capsys)["judge_epoch"] != first["judge_epoch"]
    assert main(["calibrate", *_games_args(folder, cassette), "--format", "markdown"]) == 0
    assert f"judge epoch {first['judge_epoch']}" in capsys.readouterr().out


def test_two_calibrations_of_different_judge_epochs_are_flagged_in_one_line(
    sample_runs: Path, tmp_path: Path
) -> None:
    from calibration_fixture import calibration_result

    from toolkit.fleet.view import collect

    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "game-pass.json").write_bytes(
        (sample_runs / "discussions" / "game-pass.json").read_bytes()
    )
    shown, other = calibration_result(), calibration_result()
    shown["judge_epoch"], other["judge_epoch"] = "aaaaaaaaaaaa", "bbbbbbbbbbbb"
    (folder / "calibration.json").write_text(json.dumps(shown), encoding="utf-8")
    (folder / "old.calibration.json").write_text(json.dumps(other), encoding="utf-8")
    notes = [n for n in collect([folder]).notes if "old.calibration.json" in n]
    assert len(notes) == 1 and "\n" not in notes[0]
    assert "another epoch, bbbbbbbbbbbb not aaaaaaaaaaaa: not comparable" in notes[0]
    # one judge epoch: the note says only which one the site shows
    other["judge_epoch"] = "aaaaaaaaaaaa"
    (folder / "old.calibration.json").write_text(json.dumps(other), encoding="utf-8")
    (note,) = [n for n in collect([folder]).notes if "old.calibration.json" in n]
    assert "not comparable" not in note


def test_the_scores_digest_ignores_where_rows_were_read() -> None:
    """One game's scores read from 2L's database and from its file: one digest (the
    ``source`` column names a path or a URL, not what the rows say)."""
    import polars as pl

    from toolkit.rubrics.calibrate import scores_digest

    rows = {"item": ["g1", "g1"], "rater": ["judge", "ana"], "score": [3.0, 4.0]}
    here = pl.DataFrame({**rows, "source": ["games.db", "games.db"]})
    there = pl.DataFrame({**rows, "source": ["postgresql://guest@db/twol"] * 2})
    assert scores_digest(here) == scores_digest(there)
    changed = here.with_columns(pl.Series("score", [3.0, 5.0]))
    assert scores_digest(changed) != scores_digest(here)
