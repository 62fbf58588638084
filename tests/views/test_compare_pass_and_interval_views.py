"""Every view of a comparison names how its interval is adjusted, and says what "pass"
counts in each table: the dimensions table the share of runs (averaged over units), the
flips units by majority of their runs (issue 41, item 3)."""

from __future__ import annotations

import json

import polars as pl

from toolkit.rubrics.compare import compare_scores
from toolkit.views.compare import (
    render_compare_html,
    render_compare_json,
    render_compare_markdown,
    render_compare_text,
)


def _frame(arm: str, verdicts: list[list[bool]], score: list[float]) -> pl.DataFrame:
    """A simulation-family frame: a pass/fail ``verdict`` (a list of runs per unit) and
    one numeric ``groundedness`` per unit."""
    out = []
    for u, runs in enumerate(verdicts):
        for r, ok in enumerate(runs):
            out.append({"family": "simulation", "unit": f"u{u}", "run": f"{arm}{u}-{r}",
                        "dimension": "verdict", "value": None, "passed": ok})  # fmt: skip
            out.append({"family": "simulation", "unit": f"u{u}", "run": f"{arm}{u}-{r}",
                        "dimension": "groundedness", "value": score[u],
                        "passed": None})  # fmt: skip
    return pl.DataFrame(
        out,
        schema={"family": pl.String, "unit": pl.String, "run": pl.String,
                "dimension": pl.String, "value": pl.Float64, "passed": pl.Boolean},
    )  # fmt: skip


def _result():  # type: ignore[no-untyped-def]
    # A: unit 0 passes 1 of 2 runs (0.5: fails by majority), unit 1 passes 2 of 2, ...
    a = _frame(
        "a", [[True, False], [True, True], [False, False], [True, True]], [0.8, 0.7, 0.9, 0.6]
    )
    b = _frame(
        "b", [[False, False], [True, True], [True, False], [False, False]], [0.9, 0.8, 0.95, 0.7]
    )
    return compare_scores(a, b, seed=1, resamples=999)


def test_the_table_counts_runs_and_the_flips_count_units_in_every_view() -> None:
    result = _result()
    text = render_compare_text(result)
    md = render_compare_markdown(result)
    html = render_compare_html(result)
    for out in (text, md, html):
        assert "mean A and mean B are the share of runs passing, averaged over units" in out
        assert "a unit passes when most of its runs pass" in out
    # the row's mean A is the runs' share averaged over units: (0.5 + 1 + 0 + 1) / 4
    row = result.dimensions.filter(pl.col("dimension") == "verdict").row(0, named=True)
    assert row["mean_a"] == 0.625
    assert (
        "verdict (units by majority of runs)" in md
        and "verdict (units by majority of runs)" in html
    )


def test_every_view_names_the_adjusted_interval() -> None:
    result = _result()  # two dimensions tested under Holm: 1 - 0.05 / 2 = 97.5%
    adjusted = "97.5% bootstrap CI (seed 1): 95% simultaneous over the dimensions tested"
    text = render_compare_text(result)
    assert adjusted in text and "97.5% CI adj." in text
    assert adjusted in render_compare_markdown(result)
    assert adjusted in render_compare_html(result) and "97.5% CI adj." in render_compare_html(
        result
    )
    data = json.loads(render_compare_json(result))
    assert data["interval_level"] == 0.975 and "Bonferroni" in data["interval_adjustment"]


def test_no_pass_fail_dimension_no_pass_legend() -> None:
    a = _frame("a", [[True]] * 4, [0.8, 0.7, 0.9, 0.6]).filter(pl.col("dimension") != "verdict")
    b = _frame("b", [[True]] * 4, [0.9, 0.8, 0.95, 0.7]).filter(pl.col("dimension") != "verdict")
    text = render_compare_text(compare_scores(a, b, resamples=99))
    assert "share of runs passing" not in text
    assert "unadjusted (one dimension tested)" in text
