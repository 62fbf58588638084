"""The site's calibration page shows the alternative-annotator test of ``toolkit calibrate
--format json`` (its ``alt_test``) in a real browser: the verdict, the winning rate,
epsilon and one row per person, from a planted test whose numbers are written here by
hand; a rater named with HTML is shown as text; a calibration without the test has no
such section. The same page names the judge's epoch and the scores digest (escaped), and
says so when a calibration of a scores file records no judge epoch."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from calibration_fixture import HOSTILE, calibration_result
from conftest import CHROMIUM, CHROMIUM_ARGS

from toolkit.views.site import write_site

PLANTED: dict[str, Any] = {
    "test": "alt-test", "version": "1.0.0", "judge": "judge", "epsilon": 0.15, "q": 0.05,
    "scoring": "neg_rmse", "min_items": 30, "winning_rate": 2 / 3, "advantage": 0.591667,
    "passed": True,
    "raters": [
        {"rater": "ana", "items": 12, "rho_judge": 0.75, "rho_rater": 0.5, "p_value": 0.0123,
         "p_adjusted": 0.03456, "rejected": True, "note": "ana: 12 items, fewer than 30"},
        {"rater": HOSTILE, "items": 40, "rho_judge": 0.7, "rho_rater": 0.6, "p_value": 0.002,
         "p_adjusted": 0.011, "rejected": True, "note": None},
        {"rater": "chloe", "items": 40, "rho_judge": 0.4, "rho_rater": 0.9, "p_value": 0.97,
         "p_adjusted": 1.0, "rejected": False, "note": None},
    ],
}  # fmt: skip


@pytest.fixture
def page() -> Iterator[Any]:
    """A Chromium page with every request but ``file://`` aborted and its errors kept."""
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium")
        pytest.skip(f"{CHROMIUM} is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            pg = browser.new_page(viewport={"width": 1280, "height": 900})
            pg.set_default_timeout(15_000)
            errors: list[str] = []
            pg.on("pageerror", lambda e: errors.append(str(e)))
            pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            pg.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://")
                     else r.abort())  # fmt: skip
            pg.errors = errors
            yield pg
        finally:
            browser.close()


def _calibration_page(page: Any, site: Path, calibration: dict[str, Any]) -> None:
    write_site([], site, calibration=calibration)
    page.goto(site.joinpath("index.html").as_uri() + "#calibration")
    page.wait_for_selector("table.cal-disagreements")


def test_the_calibration_page_shows_the_planted_alt_test(tmp_path: Path, page: Any) -> None:
    _calibration_page(page, tmp_path, {**calibration_result(), "alt_test": PLANTED})
    heading = page.locator("#cal-alt-test")
    assert heading.inner_text() == "The alternative-annotator test (Calderon et al. 2025)"
    facts = heading.locator("xpath=following-sibling::dl[1]").inner_text()
    for said in ("the judge passes", "Winning rate\n0.67",
                 "Epsilon\n0.15 (the cost-benefit allowance)",
                 "Average advantage probability\n0.59"):  # fmt: skip
        assert said in facts, facts
    rows = page.eval_on_selector_all(
        "table.cal-alt-test tbody tr",
        "rs => rs.map(r => Array.from(r.cells).map(c => c.textContent))",
    )
    assert rows == [
        ["ana", "12", "0.75", "0.50", "0.0346", "yes"],
        [HOSTILE, "40", "0.70", "0.60", "0.0110", "yes"],
        ["chloe", "40", "0.40", "0.90", "1.0000", "no"],
    ]
    assert "ana: 12 items, fewer than 30" in page.locator("main").inner_text()
    assert page.locator("main img, main script").count() == 0
    assert page.evaluate("window.owned === undefined")
    page.locator("dd a", has_text="0.67").click()  # the winning rate: the people's table
    assert page.evaluate("location.hash") == "#calibration/alt-test"
    page.wait_for_selector("table.cal-alt-test")
    assert page.errors == []


def test_a_calibration_without_the_test_has_no_section(tmp_path: Path, page: Any) -> None:
    doc = {k: v for k, v in calibration_result().items() if k != "alt_test"}
    _calibration_page(page, tmp_path, doc)
    assert page.locator("#cal-alt-test, table.cal-alt-test").count() == 0
    assert page.errors == []


def _fact(page: Any, name: str) -> str:
    """The value of the calibration's fact ``name`` (its ``dd``), or ``""`` when absent."""
    found = page.eval_on_selector_all(
        "main dl.facts dt",
        "(ts, name) => ts.filter(t => t.textContent === name)"
        ".map(t => t.nextElementSibling.textContent)",
        name,
    )
    return str(found[0]) if found else ""


def test_the_calibration_page_names_the_judge_epoch_and_the_scores_digest(
    tmp_path: Path, page: Any
) -> None:
    doc = {**calibration_result(), "judge_epoch": "3f2a9c0d1e7b", "input_digest": "a1b2c3d4e5f6"}
    _calibration_page(page, tmp_path / "one", doc)
    assert _fact(page, "Judge epoch") == "3f2a9c0d1e7b"
    assert _fact(page, "Scores digest") == "a1b2c3d4e5f6"
    # an epoch is a hash the toolkit writes, but the file is the user's: shown as text
    _calibration_page(page, tmp_path / "two", {**doc, "judge_epoch": HOSTILE})
    assert _fact(page, "Judge epoch") == HOSTILE
    assert page.locator("main img, main script").count() == 0
    assert page.evaluate("window.owned === undefined")
    assert page.errors == []


def test_a_calibration_of_a_scores_file_says_its_judge_epoch_is_not_recorded(
    tmp_path: Path, page: Any
) -> None:
    doc = calibration_result()  # toolkit calibrate scores.csv: judge_epoch is null
    assert doc["judge_epoch"] is None and len(doc["input_digest"]) == 12
    _calibration_page(page, tmp_path, doc)
    assert _fact(page, "Judge epoch") == "not recorded (a scores file does not say)"
    assert _fact(page, "Scores digest") == doc["input_digest"]
    assert page.errors == []
