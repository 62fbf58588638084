"""`toolkit calibrate` on the command line: text at 80 columns, JSON, Markdown, the
``min-alpha`` gate's exit codes and one-line errors (issue 27, first slice)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main

SESSION = SAMPLE_RUNS / "calibration"
SCORES = SESSION / "scores.csv"
PLANTED = json.loads((SESSION / "planted.json").read_text(encoding="utf-8"))
#: A judge that gives ana's own scores, on a panel that agrees: inside the band.
HUMANS = {
    "ana": {"a": 1, "b": 3, "c": 5, "d": 7, "e": 8, "f": 2},
    "ben": {"a": 2, "b": 3, "c": 6, "d": 7, "e": 9, "f": 2},
    "cy": {"a": 1, "b": 4, "c": 5, "d": 6, "e": 8, "f": 3},
}


def _write_close_session(path: Path) -> None:
    raters = HUMANS | {"judge": HUMANS["ana"]}
    rows = [
        {"item": i, "rater": r, "score": float(v)}
        for r, scores in raters.items()
        for i, v in scores.items()
    ]
    pl.DataFrame(rows).write_csv(path)


def test_cli_table_fits_80_columns_and_lists_the_planted_items_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["calibrate", str(SCORES), "--top", "6"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    listed = [  # the item lines (the words under each are indented further)
        line for line in out.split("disagreements")[1].splitlines()[2:] if line[2:3] != " "
    ]
    assert {line.split()[0] for line in listed} == set(PLANTED["misreads"])


def test_cli_gate_exit_codes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["calibrate", str(SCORES), "--gate", "min-alpha", "0.667"]) == 1
    err = capsys.readouterr().err
    assert "below the humans' leave-one-out band" in err
    # the gate words before the file work too
    assert main(["calibrate", "--gate", "min-alpha", "0.667", str(SCORES)]) == 1
    capsys.readouterr()
    good = tmp_path / "good.csv"
    _write_close_session(good)
    assert main(["calibrate", str(good), "--gate", "min-alpha"]) == 0
    assert "passed" in capsys.readouterr().out
    assert main(["calibrate", str(good), "--gate", "min-alpha", "1.5"]) == 2
    assert main(["calibrate", str(good), "--gate", "no-regression"]) == 2


def test_cli_json_has_every_number_and_the_gate(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "calibrate",
                str(SCORES),
                "--format",
                "json",
                "--top",
                "3",
                "--gate",
                "min-alpha",
                "0.5",
            ]
        )
        == 1
    )
    data = json.loads(capsys.readouterr().out)
    assert data["rubric"] == "calibrate" and data["rubric_version"] == "1.0.0"
    assert len(data["disagreements"]) == 3
    assert data["gate"]["passed"] is False and data["gate"]["min_alpha"] == 0.5
    assert data["band"]["inside"] is False


def test_cli_threshold_changes_the_stamped_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", str(SCORES), "--format", "json", "--threshold", "7"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["threshold"] == 7 and data["rubric_version"] == "1.0.0+cli"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["calibrate", "no-such.csv"], "no-such.csv: no such scores file"),
        (["calibrate", str(SCORES), "--judge-id", "gpt"], "--judge-id='gpt'"),
        (["calibrate"], "give the scores file"),
        (["calibrate", str(SCORES), "--threshold", "nan"], "--threshold=nan: must be a finite"),
        (["calibrate", str(SCORES), "--top", "-1"], "--top=-1: must be 0 or more"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "Traceback" not in err


def test_markdown_has_the_sections(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", str(SCORES), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    for heading in ("### Agreement", "### Bias", "### Confusion", "### Top 10 disagreements"):
        assert heading in out
