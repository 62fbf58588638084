"""Every report template rendered for every sample run it is registered with.

This is the template matrix of ``make test``: each (template, sample) pair runs once
through the whole pipeline (papermill parameters, nbclient, nbconvert), so a template that
breaks on a degraded or failed run fails here, and the page is then opened and checked.
The failed sample run's simulation report is also looked at in a real headless Chromium.
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pytest
from conftest import CHROMIUM, CHROMIUM_ARGS

from toolkit import __version__
from toolkit.reports import TEMPLATES, ReportTemplate, Sample, render_report

ROOT = Path(__file__).resolve().parents[2]
SPEC = re.compile(r'<script[^>]*class="toolkit-vega-spec"[^>]*>(.*?)</script>', re.S)
PAIRS = [
    pytest.param(t, i, id=f"{t.name}-{Path(s.inputs[0]).name}")
    for t in TEMPLATES.values()
    for i, s in enumerate(t.samples)
]
_RENDERED: dict[tuple[str, int], Path] = {}


def rendered(
    template: ReportTemplate, index: int, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The report of one (template, sample) pair, rendered once per test session."""
    key = (template.name, index)
    if key not in _RENDERED:
        sample: Sample = template.samples[index]
        out = tmp_path_factory.mktemp(f"report-{template.name}") / f"{template.name}-{index}.html"
        old = Path.cwd()
        os.chdir(ROOT)  # sample inputs are relative to the checkout, as a user would type them
        try:
            _RENDERED[key] = render_report(
                template.name, sample.inputs, output=out, params=dict(sample.params)
            )
        finally:
            os.chdir(old)
    return _RENDERED[key]


def page_text(page: str) -> str:
    """The page's text content, roughly: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


@pytest.mark.parametrize(("template", "index"), PAIRS)
def test_template_renders_each_sample_run_into_one_offline_page(
    template: ReportTemplate, index: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    page = rendered(template, index, tmp_path_factory).read_text(encoding="utf-8")
    text = page_text(page)
    sample = template.samples[index]
    for expected in sample.expect:  # the scorecard's own text
        assert expected in text
    # the family's header and footer
    assert 'class="toolkit-report-header"' in page
    assert ", ".join(sample.inputs) in text  # the inputs as typed
    assert f"{template.rubric} {template.rubric_version}" in text
    assert f"toolkit {__version__}" in text.replace("toolkit\n", "toolkit ")
    assert re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", text)
    assert 'class="toolkit-report-footer"' in page
    assert template.doc in page
    # code hidden, charts embedded as Vega-Lite specs with the Vega JavaScript once
    assert "tk.report_header(" not in text
    specs = [json.loads(s) for s in SPEC.findall(page)]
    assert specs, "no chart spec embedded"
    assert all("vega-lite" in spec["$schema"] for spec in specs)
    assert page.count("window.vegaEmbed=") == 1
    # nothing from the network: no external script, stylesheet or widget manager
    assert not re.search(r"<script[^>]*\ssrc=", page)
    assert not re.search(r"<link[^>]*href=[\"']?(https?:)?//", page)
    assert "application/vnd.jupyter.widget-view+json" not in page


def test_failed_run_report_shows_eight_coloured_cells_in_chromium(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium")
        pytest.skip(f"{CHROMIUM} is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    simulation = TEMPLATES["simulation"]
    index = next(
        i for i, s in enumerate(simulation.samples) if s.inputs[0].endswith("universes/ashfall")
    )
    report = rendered(simulation, index, tmp_path_factory)
    screenshot = tmp_path / "ashfall-report.png"
    requests: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("request", lambda r: requests.append(r.url))
            page.goto(report.as_uri(), timeout=20_000)
            page.wait_for_selector(".toolkit-chart-view svg", timeout=20_000)
            panel = page.locator(".toolkit-chart-view").first
            fills = panel.evaluate(
                "el => Array.from(el.querySelectorAll('g.mark-rect.role-mark path'))"
                ".map(p => getComputedStyle(p).fill)"
            )
            labels = panel.evaluate(
                "el => Array.from(el.querySelectorAll('g.mark-text.role-mark text'))"
                ".map(t => t.textContent)"
            )
            panel.screenshot(path=str(screenshot), timeout=20_000)
            line = "el => el.querySelector('g.mark-line path').getAttribute('d')"
            before = panel.evaluate(line)
            # interactive offline: clicking another cell redraws the time series below
            # (the panel opens on the worst dimension, the second cell here: click the first)
            panel.locator("g.mark-rect.role-mark path").nth(0).click(
                position={"x": 10, "y": 8}, force=True, timeout=10_000
            )
            page.wait_for_function(
                "([el, d]) => el.querySelector('g.mark-line path').getAttribute('d') !== d",
                arg=[panel.element_handle(), before],
                timeout=10_000,
            )
        finally:
            browser.close()
    # Rubric 1.2.0: seven counted dimensions plus the informational novel subtype rate.
    assert len(fills) == 8
    green, red, amber = "rgb(46, 125, 50)", "rgb(198, 40, 40)", "rgb(249, 168, 37)"
    assert sorted(fills) == sorted([green] + [red] * 6 + [amber]), fills
    assert labels.count("FAIL") == 6 and labels.count("OK") == 1 and labels.count("WARN") == 1
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert screenshot.stat().st_size > 5_000
    assert [u for u in requests if not u.startswith("file://")] == []


def _notebook_only_sentences(template: ReportTemplate) -> list[str]:
    nb = json.loads(template.path.read_text(encoding="utf-8"))
    return [
        "".join(cell["source"]).split(". ")[0]
        for cell in nb["cells"]
        if cell["cell_type"] == "markdown" and "notebook-only" in cell["metadata"].get("tags", [])
    ]


@pytest.mark.parametrize(("template", "index"), PAIRS)
def test_reports_leave_out_the_notebook_only_sentences(
    template: ReportTemplate, index: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    text = page_text(rendered(template, index, tmp_path_factory).read_text(encoding="utf-8"))
    assert "parameters cell" not in text
    for sentence in _notebook_only_sentences(template):
        assert sentence not in text


def test_notebooks_that_tell_you_to_change_a_parameter_tag_it_notebook_only() -> None:
    tagged = [t.name for t in TEMPLATES.values() if _notebook_only_sentences(t)]
    assert {"simulation", "discussion", "outcome", "fleet", "experiment"} <= set(tagged)
    assert "rating-agreement" in tagged


def test_the_rating_agreement_report_adds_no_demonstration_data(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    template = TEMPLATES["rating-agreement"]
    assert template.report_params == {"DEMO": False}
    for index in range(len(template.samples)):
        text = page_text(rendered(template, index, tmp_path_factory).read_text("utf-8"))
        assert "reviewer labels overrode" not in text  # no invented label override
        assert "'you'" not in text and "rater you" not in text  # no rating by "you"
        assert "rating events saved" in text
