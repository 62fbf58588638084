"""The alternative-annotator test in calibrate's Markdown, page and JUnit outputs
(toolkit/views/calibration_alt.py), checked against a planted AltTest whose numbers are
written here by hand, never recomputed by the code under test."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main
from toolkit.load.calibration import load_calibration_scores
from toolkit.rubrics import alt_test as rubric
from toolkit.rubrics.alt_test import ALT_TEST_SCHEMA, AltTest
from toolkit.rubrics.calibrate import calibrate
from toolkit.views.calibration_alt import (
    PASS_WINNING_RATE,
    alt_test_html,
    alt_test_markdown,
    alt_test_properties,
)
from toolkit.views.calibration_page import render_calibration_page
from toolkit.views.junit import render_junit

HOSTILE = "<script>alert(1)</script> | <b>eve</b>"
NOTE = "ana: 12 items, fewer than 30 (the t-test leans on normality)"


def _planted(
    rows: list[tuple[object, ...]] | None = None, winning_rate: float | None = 2 / 3
) -> AltTest:
    """Three people (one of them named with HTML), the judge winning two: 0.67."""
    if rows is None:
        rows = [
            ("ana", 12, 0.75, 0.5, 0.01234, 0.03456, True, NOTE),
            (HOSTILE, 40, 0.625, 0.6, 0.002, 0.011, True, None),
            ("chloe", 40, 0.4, 0.9, 0.97, 1.0, False, None),
        ]
    raters = pl.DataFrame(rows, schema=ALT_TEST_SCHEMA, orient="row")
    return AltTest(raters, "judge", 0.15, 0.05, "neg_rmse", winning_rate, 0.591667)


def test_the_pass_mark_repeated_in_the_views_is_the_rubrics() -> None:
    assert PASS_WINNING_RATE == rubric.PASS_WINNING_RATE


def test_markdown_shows_verdict_winning_rate_epsilon_and_each_person() -> None:
    text = "\n".join(alt_test_markdown(_planted()))
    assert "**The judge passes**: winning rate 0.67 (0.50 passes), epsilon 0.15" in text
    assert "average advantage probability 0.59" in text
    assert "| ana | 12 | 0.75 | 0.50 | 0.0346 | yes |" in text
    assert "| chloe | 40 | 0.40 | 0.90 | 1.0000 | no |" in text
    assert f"- {NOTE}" in text


def test_markdown_shows_a_hostile_rater_name_as_text() -> None:
    text = "\n".join(alt_test_markdown(_planted()))
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt; \\| &lt;b&gt;eve&lt;/b&gt;"
    assert f"| {escaped} | 40 | 0.62 | 0.60 | 0.0110 | yes |" in text
    assert "<script>" not in text and "<b>" not in text


def test_markdown_lists_twenty_people_and_counts_the_rest() -> None:
    rows = [(f"p{i:02d}", 30, 0.5, 0.5, 0.5, 0.5, False, None) for i in range(25)]
    lines = alt_test_markdown(_planted(rows, winning_rate=0.0))
    assert "**The judge fails**: winning rate 0.00" in "\n".join(lines)
    people = [line for line in lines if line.startswith("| p")]
    assert len(people) == 20 and people[-1].startswith("| p19 |")
    assert "… and 5 more people (the JSON output lists all)." in lines


def test_markdown_of_an_untested_judge_says_undefined() -> None:
    rows = [("ana", 1, None, None, None, None, False, "ana: 1 item, too few to test")]
    text = "\n".join(alt_test_markdown(_planted(rows, winning_rate=None)))
    assert "**The test is undefined (no person could be tested)**: winning rate -" in text
    assert "| ana | 1 | - | - | - | - |" in text


class _Cells(HTMLParser):
    """The text of every table cell, and every element's tag."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[str] = []
        self.tags: list[str] = []
        self._in = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "td":
            self._in = True
            self.cells.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._in = False

    def handle_data(self, data: str) -> None:
        if self._in:
            self.cells[-1] += data


def test_html_shows_verdict_numbers_and_the_table_with_names_as_text() -> None:
    fragment = alt_test_html(_planted())
    parser = _Cells()
    parser.feed(fragment)
    assert parser.cells == [
        "ana", "12", "0.75", "0.50", "0.0346", "yes",
        HOSTILE, "40", "0.62", "0.60", "0.0110", "yes",
        "chloe", "40", "0.40", "0.90", "1.0000", "no",
    ]  # fmt: skip
    assert "script" not in parser.tags and "b" not in parser.tags
    assert "The judge passes: winning rate 0.67 (0.50 passes), epsilon 0.15" in fragment
    assert "PASS</span> The judge passes" in fragment
    assert NOTE in fragment


def test_junit_carries_the_winning_rate_and_verdict_as_suite_properties() -> None:
    xml = render_junit(
        [], suite="toolkit calibrate", rubric="calibrate", rubric_version="1.0.0",
        mode="none", properties=alt_test_properties(_planted()),
    )  # fmt: skip
    suite = ET.fromstring(xml).find("testsuite")
    assert suite is not None
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["alt_test_winning_rate"] == "0.6667"
    assert props["alt_test_verdict"] == "passes"
    assert props["alt_test_epsilon"] == "0.15"
    assert props["rubric"] == "calibrate"  # the shared properties stay


def test_junit_of_an_untested_judge_has_an_empty_rate_and_says_undefined() -> None:
    rows = [("ana", 1, None, None, None, None, False, None)]
    props = dict(alt_test_properties(_planted(rows, winning_rate=None)))
    assert props["alt_test_winning_rate"] == ""
    assert props["alt_test_verdict"] == "undefined"


def test_the_page_has_the_test_after_the_band_and_before_the_bias() -> None:
    result = calibrate(load_calibration_scores(SAMPLE_RUNS / "calibration" / "scores.csv"))
    page = render_calibration_page(result, "scores.csv", alt_test=_planted())
    band = page.index("Is the judge inside the human band?")
    seat = page.index("<h2>Can the judge take a rater's seat?</h2>")
    assert band < seat < page.index("<h2>The judge's bias</h2>")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>" not in page
    assert "rater's seat" not in render_calibration_page(result, "scores.csv")


def test_the_cli_markdown_and_step_summary_carry_the_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The sample session's test as docs/rubrics/estimate.md shows it (epsilon 0.2)."""
    scores = str(SAMPLE_RUNS / "calibration" / "scores.csv")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["calibrate", scores, "--format", "markdown"]) == 0
    for text in (capsys.readouterr().out, summary.read_text("utf-8")):
        assert "**The judge fails**: winning rate 0.00 (0.50 passes), epsilon 0.2" in text
        assert "| ana | 40 | 0.60 | 0.75 | 0.9564 | no |" in text
        assert "| ben | 40 | 0.55 | 0.78 | 1.0000 | no |" in text
