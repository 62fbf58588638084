"""calibrate and compare inputs held to the reading edge's rules (issue 42): duplicate
JSON keys, a header naming a column twice, ragged rows, 5,000- and 400-digit numbers,
non-finite values, options out of range, blank-line padding and control characters in
ids. Each refusal is exit 2 and one stderr line naming the file (or option), the field
and the value; nothing is a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.load.calibration import load_calibration_scores
from toolkit.load.ratings import load_ratings

#: Three items, two humans and the judge (hand-made: every score on the 0-9 scale).
ROWS = [
    ("a", "h1", 3), ("a", "h2", 4), ("a", "judge", 3),
    ("b", "h1", 5), ("b", "h2", 6), ("b", "judge", 7),
    ("c", "h1", 1), ("c", "h2", 2), ("c", "judge", 2),
]  # fmt: skip
CSV = "item,rater,score\n" + "".join(f"{i},{r},{s}\n" for i, r, s in ROWS)
JSON_ROWS = [{"item": i, "rater": r, "score": s} for i, r, s in ROWS]


def _json_with_score(raw: str) -> str:
    """The scores as JSON text, the first score written as ``raw`` (any JSON literal)."""
    text = json.dumps(JSON_ROWS)
    return text.replace('"score": 3}', f'"score": {raw}}}', 1)


def _refused(tmp_path: Path, name: str, text: str, capsys: pytest.CaptureFixture[str]) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert main(["calibrate", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"toolkit calibrate: error: {path}"), err[0]
    return err[0]


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("dup.json", _json_with_score('9, "score": 3'),
         ":1: score=[9, 3]: names a field twice in one object"),
        ("digits5000.json", _json_with_score("1" * 5000), "more digits than can be read"),
        ("digits400.json", _json_with_score("1" * 400),
         "scores.0.score=" + "1" * 57 + "...: score must be"),
        ("infinity.json", _json_with_score("Infinity"), "scores.0.score=inf: score must be"),
        ("nan.json", _json_with_score("NaN"), "scores.0.score=nan: score must be"),
        ("header.csv", "item,rater,score,rater\na,h1,3,x\n",
         ":1: header='rater': names a column twice"),
        ("extra.csv", CSV.replace("a,h1,3\n", "a,h1,3,9\n"),
         ":2: row='a,h1,3,9': the row has 4 cells, the header 3"),
        ("missing.csv", CSV.replace("c,judge,2\n", "c,judge\n"),
         ":10: row='c,judge': the row has 2 cells, the header 3"),
        ("digits400.csv", CSV.replace("b,h2,6", "b,h2," + "9" * 400), ":6: score='999"),
        ("digits5000.csv", CSV.replace("b,h2,6", "b,h2," + "9" * 5000), ":6: score='999"),
        ("inf.csv", CSV.replace("b,h2,6", "b,h2,inf"), ":6: score='inf': score must be"),
        ("nan.csv", CSV.replace("b,h2,6", "b,h2,NaN"), ":6: score='NaN': score must be"),
        ("blank.csv", CSV.replace("a,h2,4\n", "\n\n\na,h2,x\n"),
         ":6: score='x': score must be a number from 0 to 9"),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 20 else "",
)  # fmt: skip
def test_hostile_scores_files_are_one_line(
    name: str, text: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert said in _refused(tmp_path, name, text, capsys)


def test_blank_lines_between_rows_are_skipped_and_lines_stay_true(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text(CSV.replace("b,h1,5\n", "\r\n\nb,h1,5\n"), encoding="utf-8")
    frame = load_calibration_scores(path)
    assert frame.height == 9
    assert frame.filter(frame["item"] == "b")["score"].to_list() == [5.0, 6.0, 7.0]


@pytest.mark.parametrize("reader", ["calibrate", "ratings", "experiment"])
def test_csv_padded_with_blank_lines_is_refused_by_the_line_limit(
    reader: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLKIT_MAX_LINES", "1000")
    if reader == "calibrate":
        path = tmp_path / "scores.csv"
        path.write_text(CSV + "\n" * 2000)
        with pytest.raises(InputError, match=r"2,010 lines \(at least 1,000 of them blank\)"):
            load_calibration_scores(path)
    elif reader == "ratings":
        path = tmp_path / "ratings.csv"
        path.write_text("game_id,rater,score\ng,ana,4\n" + "\n" * 2000)
        with pytest.raises(InputError, match=r"over the limit of 1,000 \(raise TOOLKIT_MAX_LINES"):
            load_ratings(path)
    else:
        source = SAMPLE_RUNS / "experiments" / "orchard_variety.csv"
        path = tmp_path / "orchard_variety.csv"
        path.write_text(source.read_text() + "\n" * 2000)
        assert main(["experiment", str(path)]) == 2


def test_the_line_limit_counts_every_line_not_only_blank_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLKIT_MAX_LINES", "5")
    path = tmp_path / "s.csv"
    path.write_text(CSV)  # 10 lines
    with pytest.raises(InputError, match="the file has 10 lines, over the limit of 5"):
        load_calibration_scores(path)


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["--seed", "-1"], "--seed=-1: must be from 0 to 4,294,967,295"),
        (["--seed", str(2**32)], "--seed=4294967296: must be from 0 to 4,294,967,295"),
    ],
)
def test_calibrate_options_out_of_range(
    words: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.csv"
    path.write_text(CSV)
    assert main(["calibrate", str(path), *words]) == 2
    assert capsys.readouterr().err.strip() == f"toolkit calibrate: error: {said}"


A = str(SAMPLE_RUNS / "compare" / "a")
B = str(SAMPLE_RUNS / "compare" / "b")


@pytest.mark.parametrize(
    ("words", "said"),
    [
        ([A, B, "--resamples", str(10**9)],
         "--resamples=1000000000: out of range (0 to 1,000,000)"),
        ([A, B, "--seed", "-1"], "--seed=-1: out of range (0 to 4,294,967,295)"),
        (["--plan", A, "--mde", "inf"], "--mde='inf': must be a positive, finite difference"),
        (["--plan", A, "--mde", "nan"], "--mde='nan': must be a positive, finite difference"),
        (["--plan", A, "--mde", "0.1", "--power", "inf"], "--power=inf: must be between 0 and 1"),
    ],
)  # fmt: skip
def test_compare_options_out_of_range(
    words: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", *words]) == 2
    assert capsys.readouterr().err.strip() == f"toolkit compare: error: {said}"


def test_control_characters_in_ids_are_shown_escaped_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.csv"
    path.write_text(CSV.replace("c,h1,1", "c,h\x1b[31m1,1").replace("b,h2,6", "b\u202e,h2,6"))
    page, junit = tmp_path / "page.html", tmp_path / "junit.xml"
    code = main(["calibrate", str(path), "--html", str(page), "--junit", str(junit)])
    assert code == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out
    assert "h\\x1b[31m1" in out
    for written in (page, junit):
        text = written.read_text(encoding="utf-8")
        assert "\x1b" not in text and "\u202e" not in text
        assert "h\\x1b[31m1" in text
    assert main(["calibrate", str(path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "h\\x1b[31m1" in data["humans"]


def test_cells_the_toolkit_neutralised_read_back_as_typed(tmp_path: Path) -> None:
    """The organiser's export puts a ``'`` before a cell a spreadsheet would run as a
    formula; calibrate reading that export takes it off again, so a rater called
    ``=evil`` is ``=evil``, not ``'=evil``, while a number stays a number."""
    import polars as pl

    from toolkit.io.csvcells import write_csv
    from toolkit.load.calibration import load_calibration_scores

    frame = pl.DataFrame(
        {
            "item": ["a", "a", "b", "b"],
            "rater": ["=evil", "judge", "=evil", "judge"],
            "score": ["-3", "4", "5", "6"],
            "notes": ["-cmd|x", None, "@here", None],
        }
    )
    path = tmp_path / "ratings.csv"
    write_csv(frame, path)
    assert "'=evil" in path.read_text("utf-8")  # neutralised on disk
    scores = load_calibration_scores(path, scale=(-10, 10))
    assert scores["rater"].to_list() == ["=evil", "judge", "=evil", "judge"]
    assert scores["score"].to_list() == [-3.0, 4.0, 5.0, 6.0]
    assert scores["notes"].to_list()[::2] == ["-cmd|x", "@here"]
