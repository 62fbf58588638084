"""Views of a comparison: text within 80 columns, the forest plot's spec, a drawn SVG."""

from __future__ import annotations

import polars as pl
import pytest
from conftest import SAMPLE_RUNS

from toolkit.fleet.compare import compare
from toolkit.rubrics.compare import CompareResult
from toolkit.views.compare import (
    compare_chart,
    forest_frame,
    num,
    render_compare_markdown,
    render_compare_text,
)


@pytest.fixture(scope="module")
def result() -> CompareResult:
    return compare(SAMPLE_RUNS / "compare" / "a", SAMPLE_RUNS / "compare" / "b", resamples=999)


def test_text_fits_80_columns_and_keeps_every_dimension(result: CompareResult) -> None:
    text = render_compare_text(result, width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    for dim in result.dimensions["dimension"].to_list():
        assert any(line.startswith(dim) for line in text.splitlines())


def test_long_dimension_names_shorten_only_on_a_terminal(result: CompareResult) -> None:
    long = "a_dimension_with_a_name_far_longer_than_the_column_has_room_for"
    dims = result.dimensions.with_columns(pl.lit(long).alias("dimension")).head(1)
    from dataclasses import replace

    wide = replace(result, dimensions=dims, noise=result.noise.head(0))
    assert any(line.startswith(long) for line in render_compare_text(wide).splitlines())
    narrow = render_compare_text(wide, width=80)
    assert max(len(line) for line in narrow.splitlines()) <= 80
    row = next(line for line in narrow.splitlines() if line.startswith("a_dimension_with"))
    assert long not in row and "…" in row


def test_colour_only_when_asked(result: CompareResult) -> None:
    assert "\x1b[" not in render_compare_text(result, width=80)
    assert "\x1b[1;31mworse\x1b[0m" in render_compare_text(result, width=80, colour=True)


def test_numbers_fit_their_column() -> None:
    assert num(0.0142345, 6, True) == "+0.014"
    assert num(-11.25) == "-11.2"
    assert num(0.0) == "0" and num(None) == "-"
    assert len(num(-1.23456e-7, 7, True)) <= 7


def test_forest_plot_has_an_interval_a_point_and_the_zero_line(result: CompareResult) -> None:
    spec = compare_chart(result).to_dict()
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["rule", "rule", "point"]
    interval = spec["layer"][1]["encoding"]
    assert interval["x"]["field"] == "scaled_ci_low" and interval["x2"]["field"] == "scaled_ci_high"
    frame = forest_frame(result)
    assert frame.height == result.dimensions.filter(pl.col("diff").is_not_null()).height
    assert frame["scaled_ci_low"].min() >= -1 and frame["scaled_ci_high"].max() <= 1  # type: ignore[operator]


def test_the_forest_plot_draws() -> None:
    import vl_convert

    res = compare(SAMPLE_RUNS / "compare" / "a", SAMPLE_RUNS / "compare" / "b", resamples=99)
    svg = vl_convert.vegalite_to_svg(compare_chart(res).to_dict())
    assert svg.startswith("<svg") and "character_stability" in svg


def test_markdown_escapes_pipes(result: CompareResult) -> None:
    from dataclasses import replace

    odd = replace(result, labels=("v1|old", "v2"))
    assert "v1\\|old" in render_compare_markdown(odd)


def test_the_plan_fits_80_columns() -> None:
    from toolkit.fleet.compare import compare_plan
    from toolkit.views.compare import render_plan_text

    plan = compare_plan(SAMPLE_RUNS / "compare" / "a", 0.5, standardized=True)
    text = render_plan_text(
        plan, label="sample_runs/compare/a", power=0.8, alpha=0.05, test="wilcoxon", width=80
    )
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "groundedness" in text and "no SD to plan with" in " ".join(text.split())


def test_long_arm_names_each_get_a_line_of_their_own_at_80_columns(
    result: CompareResult,
) -> None:
    """Folder names of 76 characters, wrapped with the title's 4-space indent, ran to 82
    columns; each now follows its arm's letter on a line of its own, whole."""
    from dataclasses import replace

    a, b = "candidate-" + "a" * 66, "baseline-" + "b" * 67  # 76 each
    long = replace(result, labels=(a, b))
    lines = render_compare_text(long, width=80).splitlines()
    assert lines[:3] == ["compare · simulation · B vs A:", f"  B={b}", f"  A={a}"]
    assert max(len(line) for line in lines) <= 80
    piped = render_compare_text(long).splitlines()  # one line, as before, when piped
    assert piped[0] == f"compare · simulation · B={b} vs A={a}"
