"""The report header (``tk.report_header``) as a person sees it in a notebook, drawn by
Debian's Chromium at the width of a JupyterLab output: an item moves to the next line
whole. In JupyterLab at 1400 pixels the "rendered" item was split, its "UTC" alone on
the next line."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from toolkit.reports import report_header


def test_each_header_item_stays_on_one_line(browser: Any) -> None:
    when = datetime(2026, 11, 27, 21, 0, tzinfo=UTC)
    block = report_header("calibration", "../sample_runs/calibration/scores.csv", now=when)
    page = browser.new_page(viewport={"width": 960, "height": 400})
    page.set_content(f"<div style='width:875px;font:14px sans-serif'>{block._repr_html_()}</div>")
    lines = page.eval_on_selector_all(
        ".toolkit-report-header > span",
        "ss => ss.map(s => [s.className, s.textContent, s.getClientRects().length])",
    )
    assert [name for name, _, _ in lines] == [
        "toolkit-report-input", "toolkit-report-rubric", "toolkit-report-toolkit",
        "toolkit-report-rendered",
    ]  # fmt: skip
    assert lines[3][1] == "rendered 2026-11-27 21:00 UTC"
    assert all(rects == 1 for _, _, rects in lines), lines
