"""Below MIN_ITEMS (20) items scored by both, every output of calibrate says "too few
items" (issue 41, item 6): 3 items gave band "inside", Spearman 1.000 and bootstrap
intervals with no warning."""

from __future__ import annotations

import json

import polars as pl
from conftest import SAMPLE_RUNS

from toolkit.load.calibration import load_calibration_scores
from toolkit.rubrics.calibrate import MIN_ITEMS, calibrate
from toolkit.views.calibration import render_calibration_markdown, render_calibration_table
from toolkit.views.calibration_page import calibration_html, render_calibration_page

WARNING = "too few items: 3 scored by both, under the minimum of 20"


def _three_items() -> pl.DataFrame:
    """Three humans and a judge on three items, the judge in the humans' order."""
    humans = {
        "ana": {"a": 1, "b": 4, "c": 8},
        "ben": {"a": 2, "b": 5, "c": 9},
        "cy": {"a": 1, "b": 5, "c": 8},
        "judge": {"a": 2, "b": 4, "c": 9},
    }
    return pl.DataFrame(
        [
            {"item": i, "rater": r, "score": float(s)}
            for r, v in humans.items()
            for i, s in v.items()
        ]
    )


def test_three_items_are_flagged_in_every_output() -> None:
    result = calibrate(_three_items(), seed=0)
    assert MIN_ITEMS == 20 and result.items == 3
    assert result.spearman == 1.0  # the confident number the warning is about
    text = render_calibration_table(result, "s.csv", 5, None, [])
    assert f"WARNING: {WARNING}" in " ".join(text.split())  # wrapped at 80 columns
    assert all(len(line) <= 80 for line in text.splitlines())
    assert WARNING in render_calibration_markdown(result, "s.csv", 5, None, [])
    data = json.loads(json.dumps(result.to_dict()))
    assert data["min_items"] == 20 and data["too_few_items"].startswith(WARNING)
    assert WARNING in render_calibration_page(result, "s.csv")
    assert WARNING in calibration_html(result, "numbers")
    assert WARNING in repr(result)  # the notebook's repr


def test_enough_items_carry_no_warning() -> None:
    scores = load_calibration_scores(SAMPLE_RUNS / "calibration" / "scores.csv")
    result = calibrate(scores, seed=0)
    assert result.items >= MIN_ITEMS
    assert result.too_few_items is None and result.to_dict()["too_few_items"] is None
    assert "too few items" not in render_calibration_table(result, "s.json", 5, None, [])
