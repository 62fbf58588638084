"""``toolkit compare --estimate`` given rows the estimate cannot use: said, never
dropped without a word."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from toolkit.cli import main


def _arm(path: Path, suffix: str, extra: list[tuple[str, str, str]]) -> Path:
    """Ten items judged 0..9, the even ones rated by ana one point under the judge."""
    rows = [(f"i{i}{suffix}", "judge", str(i)) for i in range(10)]
    rows += [(f"i{i}{suffix}", "ana", str(max(i - 1, 0))) for i in range(0, 10, 2)]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["item", "rater", "score"])
        writer.writerows(rows + extra)
    return path


def test_an_item_people_rated_but_the_judge_did_not_is_said_per_arm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in review: ``calibrate --estimate`` says "N rated item(s) the judge did not
    score: left out", but ``compare --estimate`` dropped them without a word (the arm's
    estimate then rests on fewer people's ratings than the file holds). Now a note names
    the arm and the count, in the text and the JSON."""
    a = _arm(tmp_path / "a.csv", "a", [])
    b = _arm(tmp_path / "b.csv", "b", [("x1", "ana", "3"), ("x2", "ben", "4")])
    assert main(["compare", "--estimate", str(a), str(b), "--format", "json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert notes == [f"{b}: 2 rated item(s) the judge did not score: left out"]
    assert main(["compare", "--estimate", str(a), str(b)]) == 0
    shown = " ".join(capsys.readouterr().out.split())  # wrapped at 80 columns
    assert "2 rated item(s) the judge did not score: left out" in shown


@pytest.mark.parametrize("score", ["nan", "inf", "-1", "10", "1e308", "0x5", "", "4,5"])
def test_a_score_that_is_no_score_is_one_line_naming_file_line_and_value(
    score: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _arm(tmp_path / "a.csv", "a", [])
    b = _arm(tmp_path / "b.csv", "b", [("i1b", "ana", score)])
    assert main(["compare", "--estimate", str(a), str(b)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{b}:" in err and "score=" in err
