"""The one status palette: contrast ratios computed (WCAG 2 AA), a symbol and a shape
beside every colour, and every HTML view escaping ``$`` and left-aligning text."""

from __future__ import annotations

import re

import pytest

import toolkit as tk
from toolkit.views.html import STATUS_COLOURS, badge, render_html, text, wrap
from toolkit.views.palette import (
    AA_TEXT,
    DELTA_BINS,
    STATUS_ORDER,
    SWATCHES,
    WHITE,
    contrast_ratio,
    relative_luminance,
    swatch,
)


def test_contrast_ratio_matches_the_wcag_reference_points() -> None:
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#ffffff", "#ffffff") == pytest.approx(1.0)
    # WCAG's own example: #767676 on white is the lightest grey passing AA (4.54:1)
    assert contrast_ratio("#767676", WHITE) == pytest.approx(4.54, abs=0.01)
    assert relative_luminance("#ff0000") == pytest.approx(0.2126)
    with pytest.raises(ValueError, match="#rrggbb"):
        relative_luminance("red")


@pytest.mark.parametrize("status", sorted(SWATCHES))
def test_every_status_text_passes_aa_on_its_fill_and_on_white(status: str) -> None:
    s = SWATCHES[status]
    assert contrast_ratio(s.fill, s.text) >= AA_TEXT
    assert contrast_ratio(s.on_white, WHITE) >= AA_TEXT


def test_the_reported_bad_pairs_are_gone() -> None:
    # "white on amber" WARN badges and "dark text on dark red" are what the issue saw
    assert swatch("WARN").text != WHITE
    assert contrast_ratio(swatch("FAIL").fill, swatch("FAIL").text) >= AA_TEXT
    assert swatch("FAIL").text == WHITE


def test_no_status_is_told_by_colour_alone() -> None:
    symbols = {swatch(s).symbol for s in STATUS_ORDER}
    shapes = {swatch(s).shape for s in STATUS_ORDER}
    assert len(symbols) == len(shapes) == len(STATUS_ORDER)


def test_heat_map_bins_keep_label_contrast() -> None:
    for b in DELTA_BINS:
        assert contrast_ratio(b.fill, b.text) >= AA_TEXT, b.label


def test_html_colours_come_from_the_palette() -> None:
    assert STATUS_COLOURS["WARN"] == swatch("WARN").fill
    html = badge("WARN")
    assert f"background:{swatch('WARN').fill};color:{swatch('WARN').text}" in html
    assert "! WARN" in html


def test_dollars_are_escaped_and_the_fragment_skips_mathjax() -> None:
    assert text("cost $3.42 over $3.00 <b>") == "cost &#36;3.42 over &#36;3.00 &lt;b&gt;"
    html = wrap("<p>x</p>")
    assert "mathjax_ignore" in html and "tex2jax_ignore" in html


def test_discussion_scorecard_html_has_no_raw_dollar() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "sample_runs" / "discussions"
    report = tk.score_discussion(tk.load_discussions([root / "game-over-budget.json"]))
    html = render_html(report.scorecards[0])
    visible = re.sub(r"<style>.*?</style>", "", html)
    assert "&#36;" in visible and "$" not in visible


def test_text_cells_are_left_aligned_above_jupyterlab_specificity() -> None:
    # JupyterLab: ":not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td {text-align:right}"
    # is (0,2,1); ours must be more specific.
    html = wrap("")
    rule = re.search(r"\.tk-html table\.tk-table th,\.tk-html table\.tk-table td\{[^}]*\}", html)
    assert rule is not None and "text-align:left" in rule.group(0)


def test_regression_is_told_apart_from_fail_by_hue_symbol_and_shape() -> None:
    import colorsys

    def hue(colour: str) -> float:
        rgb = [int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
        return colorsys.rgb_to_hsv(*rgb)[0] * 360

    fail, regression = swatch("FAIL"), swatch("REGRESSION")
    gap = abs(hue(fail.fill) - hue(regression.fill))
    assert min(gap, 360 - gap) >= 45  # two reds ("#c62828" and "#b71c1c") were 1 degree apart
    assert fail.symbol != regression.symbol and fail.shape != regression.shape
    assert contrast_ratio(regression.fill, regression.text) >= AA_TEXT


def test_a_terminal_paints_regression_apart_from_fail() -> None:
    from toolkit.views.text import paint

    assert paint("REGRESSION", "REGRESSION", True) == "\x1b[1;35mREGRESSION\x1b[0m"
    assert paint("FAIL", "FAIL", True) == "\x1b[1;31mFAIL\x1b[0m"
