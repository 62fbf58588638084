"""The re-score's pure parts (toolkit.rubrics.rescore): the per-subject and per-dimension
changes, the split of a change since a stored score into rubric and inputs, and the sweep
spec's parsing. Every expected number is written out by hand."""

from __future__ import annotations

import pytest

from toolkit.errors import InputError
from toolkit.rubrics.rescore import Scored, parse_sweep, rescore_diff, swept_rubric
from toolkit.rubrics.simulation import DEFAULT_RUBRIC


def _side(label: str, epoch: str, rows: list[tuple[str, float, str, str]]) -> Scored:
    """subject, value, band, input digest -> a side with one dimension ``d``."""
    units = [{"subject": s, "value": v, "verdict": b, "epoch": epoch, "input_digest": dg}
             for s, v, b, dg in rows]  # fmt: skip
    dims = [{"subject": s, "dimension": "d", "value": v, "status": b} for s, v, b, _ in rows]
    return Scored.of(units, dims, label, epoch)


STORED = _side("stored", "e-old", [("1", 0.80, "good", "x1"), ("2", 0.90, "excellent", "x2")])
# subject 2's inputs changed since (digest y2); both are re-scored under A and B
A_NOW = _side("A", "e-old", [("1", 0.80, "good", "x1"), ("2", 0.70, "good", "y2")])
B_NOW = _side("B", "e-new", [("1", 0.85, "excellent", "x1"), ("2", 0.60, "fair", "y2")])


def test_changes_and_flips_per_subject_and_overall() -> None:
    result = rescore_diff(A_NOW, B_NOW)
    runs = {r["subject"]: r for r in result.runs.to_dicts()}
    assert runs["1"]["delta"] == pytest.approx(0.05)
    assert runs["2"]["delta"] == pytest.approx(-0.10)
    assert runs["1"]["flipped"] and runs["2"]["flipped"]
    overall = result.overall()
    assert overall["subjects"] == 2 and overall["verdict_flips"] == 2
    assert overall["mean_delta"] == pytest.approx(-0.025)  # (0.05 - 0.10) / 2
    assert overall["max_abs_delta"] == pytest.approx(0.10)
    assert sorted(result.flips().rows()) == [("good", "excellent", 1), ("good", "fair", 1)]


def test_a_planted_rubric_change_and_input_change_are_separated() -> None:
    result = rescore_diff(A_NOW, B_NOW, stored=STORED)
    runs = {r["subject"]: r for r in result.runs.to_dicts()}
    # subject 1: same inputs, only the rubric moved it: 0.80 -> 0.85
    assert runs["1"]["inputs_changed"] is False
    assert runs["1"]["from_inputs"] == 0.0
    assert runs["1"]["from_rubric"] == pytest.approx(0.05)
    # subject 2: stored 0.90 -> A now 0.70 (inputs) -> B now 0.60 (rubric)
    assert runs["2"]["inputs_changed"] is True
    assert runs["2"]["from_inputs"] == pytest.approx(-0.20)
    assert runs["2"]["from_rubric"] == pytest.approx(-0.10)
    assert runs["2"]["flipped_inputs"] is True  # excellent -> good came from the inputs
    overall = result.overall()
    assert overall["inputs_changed"] == 1 and overall["flips_from_inputs"] == 1
    assert overall["mean_from_inputs"] == pytest.approx(-0.10)  # (0 - 0.20) / 2
    assert overall["mean_from_rubric"] == pytest.approx(-0.025)  # (0.05 - 0.10) / 2


def test_a_stored_score_of_another_epoch_on_other_inputs_is_not_split() -> None:
    stored = _side("stored", "e-older", [("2", 0.90, "excellent", "x2")])
    result = rescore_diff(A_NOW, B_NOW, stored=stored)
    row = result.runs.filter(result.runs["subject"] == "2").to_dicts()[0]
    assert row["from_inputs"] is None
    assert "cannot be split" in row["note"]
    assert row["from_rubric"] == pytest.approx(-0.10)


def test_a_stored_score_without_an_input_digest_is_not_put_down_to_inputs() -> None:
    """Found in review: a stored score with no digest (written before digests, or by
    another tool) counted every change as "inputs changed"; what changed is unknown."""
    stored = Scored.of(
        [{"subject": "1", "value": 0.75, "verdict": "good", "epoch": "e-old",
          "input_digest": None}],
        [{"subject": "1", "dimension": "d", "value": 0.75, "status": "good"}],
        "stored", "e-old",
    )  # fmt: skip
    result = rescore_diff(A_NOW, B_NOW, stored=stored)
    row = result.runs.filter(result.runs["subject"] == "1").to_dicts()[0]
    assert row["inputs_changed"] is None and row["from_inputs"] is None
    assert row["flipped_inputs"] is False
    assert row["from_rubric"] == pytest.approx(0.05)  # A now -> B now, known
    assert "has no input digest: the change since it cannot be split" in row["note"]
    assert result.overall()["inputs_changed"] == 0


def test_a_stored_score_of_another_epoch_on_the_same_inputs_counts_as_rubric() -> None:
    stored = _side("stored", "e-older", [("1", 0.75, "good", "x1")])
    result = rescore_diff(A_NOW, B_NOW, stored=stored)
    row = result.runs.filter(result.runs["subject"] == "1").to_dicts()[0]
    assert row["from_inputs"] == 0.0
    assert row["from_rubric"] == pytest.approx(0.10)  # 0.75 -> 0.80 -> 0.85, all rubric


def test_a_dimension_one_rubric_adds_is_a_note_not_a_flip() -> None:
    b = Scored.of(
        B_NOW.units.to_dicts(),
        [*B_NOW.dimensions.to_dicts(),
         {"subject": "1", "dimension": "human_label", "value": 0.5, "status": "present"}],
        "B", "e-new",
    )  # fmt: skip
    result = rescore_diff(A_NOW, b)
    added = result.dimensions.filter(result.dimensions["dimension"] == "human_label")
    assert added["flipped"].to_list() == [False]
    assert "human_label: scored under B only" in result.notes


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("groundedness.ok_min", "DIMENSION.threshold=a:b:step"),
        ("groundedness.ok_min=0.8:1", "DIMENSION.threshold=a:b:step"),
        ("groundedness.ok_min=x:1:0.1", "a must be a number"),
        ("groundedness.ok_min=0.8:1:0", "positive step"),
        ("groundedness.ok_min=1:0.8:0.1", "a <= b"),
        ("nosuch.ok_min=0.8:1:0.1", "no such rubric dimension 'nosuch'"),
        ("groundedness.okmin=0.8:1:0.1", "no threshold 'okmin'"),
        ("refusal_cluster.fail_min=3:5:0.5", "whole number"),
        ("groundedness.ok_min=0:1:0.0001", "at most 500"),
        ("groundedness.ok_min=nan:1:0.1", "finite"),
        ("refusal_cluster.fail_min=1_0:20:1", "a must be a number"),
    ],
)
def test_a_malformed_sweep_is_one_input_error_naming_the_flag(spec: str, words: str) -> None:
    with pytest.raises(InputError) as err:
        parse_sweep(spec)
    text = str(err.value)
    assert "--sweep" in text and spec in text and words in text
    assert "\n" not in text


def test_a_sweep_spec_lists_its_values_inclusive() -> None:
    spec = parse_sweep("groundedness.ok_min=0.85:0.95:0.05")
    assert spec.values == (0.85, 0.9, 0.95)
    assert parse_sweep("refusal_cluster.fail_min=3:5:1").values == (3.0, 4.0, 5.0)


def test_a_swept_value_that_breaks_the_rubric_says_why() -> None:
    spec = parse_sweep("groundedness.ok_min=0.8:0.8:0.1")
    why = swept_rubric(DEFAULT_RUBRIC, spec, 0.8)  # below fail_below 0.85
    assert isinstance(why, str) and "fail_below" in why
    ok = swept_rubric(DEFAULT_RUBRIC, spec, 0.9)
    assert not isinstance(ok, str) and ok.groundedness.ok_min == 0.9


def test_a_result_shows_its_flips_and_split_in_a_few_lines() -> None:
    text = repr(rescore_diff(A_NOW, B_NOW, stored=STORED, family="outcome"))
    lines = text.splitlines()
    assert lines[0] == "RescoreResult: outcome: A → B"
    assert "2 subjects, 2 verdict flips" in lines[1] and "inputs changed: 1" in lines[1]
    assert "mean change: -0.0250" in lines[1]
    assert any("good" in line and "excellent" in line and "1 flip" in line for line in lines)


def test_a_sweep_of_astronomically_many_values_says_so_in_a_short_line() -> None:
    """Found in review: a step of 1e-300 over 0..1 printed the count of values in full,
    a 300-digit number with its thousands commas (a line of some 400 characters)."""
    spec = "groundedness.ok_min=0:1:1e-300"
    with pytest.raises(InputError) as err:
        parse_sweep(spec)
    text = str(err.value)
    assert "more than 1,000,000 values: a sweep scores at most 500" in text
    assert len(text) < 160
