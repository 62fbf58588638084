"""The disagreements to read (issue 27): the judge's reasoning, the raters' notes, the
evidence and where it comes from, read from the scores file and carried through
``calibrate`` into the disagreements and the JSON.

Expected words are read from the sample's CSV here with the ``csv`` module (the
generator's output), never from the code under test.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl
import pytest
from conftest import SAMPLE_RUNS

from toolkit.errors import InputError
from toolkit.load.calibration import load_calibration_scores
from toolkit.rubrics.calibrate import calibrate

SESSION = SAMPLE_RUNS / "calibration"
SCORES = SESSION / "scores.csv"
PLANTED = json.loads((SESSION / "planted.json").read_text(encoding="utf-8"))


def _csv_rows() -> list[dict[str, str]]:
    with open(SCORES, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def result():  # type: ignore[no-untyped-def]
    return calibrate(load_calibration_scores(SCORES), judge="judge", seed=0)


def _write(tmp_path: Path, rows: list[dict[str, object]], name: str = "s.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def _panel(**extra: dict[str, object]) -> list[dict[str, object]]:
    """Three items scored by ana, ben and the judge; ``extra`` maps a rater to more keys
    for that rater's rows."""
    rows: list[dict[str, object]] = []
    for item, base in (("a", 2), ("b", 5), ("c", 8)):
        for rater, shift in (("ana", 0), ("ben", 1), ("judge", -1)):
            more = extra.get(rater, {})
            rows.append({"item": item, "rater": rater, "score": base + shift, **more})
    return rows


# ---------------------------------------------------------------------------
# Reading the text columns
# ---------------------------------------------------------------------------


def test_the_text_columns_are_read_and_are_no_groups(result) -> None:  # type: ignore[no-untyped-def]
    frame = load_calibration_scores(SCORES)
    for column in ("reasoning", "notes", "evidence", "anchor"):
        assert frame.schema[column] == pl.String
    # the bias is broken down by the sample's two groups only, never by a text column
    assert set(result.bias["group"].unique()) == {"all", "agent", "proposition"}
    assert result.groups == ["agent", "proposition"]


def test_a_blank_text_cell_is_absent(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("item,rater,score,notes\na,ana,3,   \na,ben,4,too kind\n", encoding="utf-8")
    assert load_calibration_scores(path)["notes"].to_list() == [None, "too kind"]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (7, "scores.0.notes=7: must be a string"),
        (["a", "b"], "scores.0.notes=['a', 'b']: must be a string"),
        ({"x": 1}, "scores.0.notes={'x': 1}: must be a string"),
    ],
)
def test_a_json_text_that_is_no_string_is_refused_by_name(
    value: object, said: str, tmp_path: Path
) -> None:
    path = _write(tmp_path, [{"item": "a", "rater": "ana", "score": 3, "notes": value}])
    with pytest.raises(InputError) as info:
        load_calibration_scores(path)
    assert said in str(info.value)


def test_a_text_over_the_cell_limit_is_refused_naming_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLKIT_MAX_CELL_BYTES", "50")
    path = _write(tmp_path, [{"item": "a", "rater": "judge", "score": 3, "reasoning": "x" * 51}])
    with pytest.raises(InputError, match=r"scores\.0\.reasoning=.*longer than 50 characters"):
        load_calibration_scores(path)
    csv_path = tmp_path / "s.csv"
    csv_path.write_text(f"item,rater,score,evidence\na,ana,3,{'y' * 80}\n", encoding="utf-8")
    with pytest.raises(InputError, match="larger than 50 characters"):
        load_calibration_scores(csv_path)


def test_a_text_hash_must_be_a_sha256(tmp_path: Path) -> None:
    good = "AB" * 32
    path = _write(tmp_path, [{"item": "a", "rater": "judge", "score": 3, "text_sha256": good}])
    assert load_calibration_scores(path)["text_sha256"][0] == good.lower()
    bad = _write(tmp_path, [{"item": "a", "rater": "judge", "score": 3, "text_sha256": "abc"}])
    with pytest.raises(InputError, match=r"text_sha256='abc': must be a sha256"):
        load_calibration_scores(bad)


# ---------------------------------------------------------------------------
# Whose words go where
# ---------------------------------------------------------------------------


def test_a_reasoning_on_a_human_row_is_refused_naming_item_and_rater(tmp_path: Path) -> None:
    rows = _panel()
    rows[1]["reasoning"] = "I think so"  # item a, ben
    with pytest.raises(InputError, match=r"reasoning='I think so': item 'a', rater 'ben'"):
        calibrate(load_calibration_scores(_write(tmp_path, rows)))


def test_notes_on_the_judge_row_are_refused(tmp_path: Path) -> None:
    rows = _panel(judge={"notes": "confident"})
    with pytest.raises(InputError, match=r"notes='confident': item 'a', rater 'judge'.*reasoning"):
        calibrate(load_calibration_scores(_write(tmp_path, rows)))
    # the same rows are fine when the judge is someone else: the check follows --judge-id
    frame = load_calibration_scores(_write(tmp_path, _panel(ben={"reasoning": "why"})))
    assert calibrate(frame, judge="ben").disagreements["reasoning"].to_list() == ["why"] * 3


def test_two_evidence_texts_for_one_item_are_refused(tmp_path: Path) -> None:
    rows = _panel()
    rows[0]["evidence"], rows[1]["evidence"] = "first text", "second text"
    with pytest.raises(InputError, match="item 'a' has two different evidence values"):
        calibrate(load_calibration_scores(_write(tmp_path, rows)))


def test_evidence_given_on_one_row_of_an_item_describes_the_item(tmp_path: Path) -> None:
    rows = _panel()
    rows[2].update(evidence="the window", source="chats/a.jsonl", anchor="m3-m9")  # a, judge
    d = calibrate(load_calibration_scores(_write(tmp_path, rows))).disagreements
    a = d.filter(pl.col("item") == "a").row(0, named=True)
    assert (a["evidence"], a["source"], a["anchor"]) == ("the window", "chats/a.jsonl", "m3-m9")
    b = d.filter(pl.col("item") == "b").row(0, named=True)
    assert (b["evidence"], b["source"], b["anchor"]) == (None, None, None)


# ---------------------------------------------------------------------------
# Through calibrate into the disagreements and the JSON
# ---------------------------------------------------------------------------


def test_each_planted_misread_carries_its_reasoning_notes_and_evidence(result) -> None:  # type: ignore[no-untyped-def]
    rows = _csv_rows()
    top = result.disagreements.head(len(PLANTED["misreads"]))
    assert set(top["item"]) == set(PLANTED["misreads"])
    for entry in top.iter_rows(named=True):
        mine = [r for r in rows if r["item"] == entry["item"]]
        judge_row = next(r for r in mine if r["rater"] == "judge")
        assert entry["reasoning"] == judge_row["reasoning"]
        assert entry["evidence"] == judge_row["evidence"]
        assert entry["anchor"] == judge_row["anchor"]
        expected = sorted(
            (r["rater"], r["notes"]) for r in mine if r["rater"] != "judge" and r["notes"]
        )
        assert sorted((n["rater"], n["note"]) for n in entry["notes"]) == expected
        assert len(expected) == len(PLANTED["humans"])  # every rater notes a misread
        assert sorted((r["rater"], r["score"]) for r in entry["ratings"]) == sorted(
            (r["rater"], float(r["score"])) for r in mine if r["rater"] != "judge"
        )


def test_the_json_disagreement_entry_has_the_contract_keys(result) -> None:  # type: ignore[no-untyped-def]
    entry = json.loads(json.dumps(result.to_dict()))["disagreements"][0]
    for key in ("reasoning", "notes", "evidence", "source", "anchor", "text_sha256"):
        assert key in entry
    assert entry["notes"] and set(entry["notes"][0]) == {"rater", "note"}
    assert entry["source"] is None  # the sample names no source file


def test_a_scores_frame_without_words_gives_null_and_empty(tmp_path: Path) -> None:
    result = calibrate(load_calibration_scores(_write(tmp_path, _panel())))
    entry = result.to_dict()["disagreements"][0]
    assert entry["notes"] == [] and entry["reasoning"] is None and entry["evidence"] is None


def test_the_repr_lists_the_widest_disagreements_with_the_judges_words(result) -> None:  # type: ignore[no-untyped-def]
    shown = repr(result).splitlines()
    assert "in the band: no" in shown[1]  # the sample's judge falls below the band
    item = shown[2].split()[0]
    assert item in PLANTED["misreads"]
    judge_row = next(r for r in _csv_rows() if r["item"] == item and r["rater"] == "judge")
    assert judge_row["reasoning"][:40] in shown[2]
    assert all(len(line) <= 100 for line in shown)
