"""The site's experiments page keeps an option named in an assumption's advice in one
piece ("--test mannwhitney"): the browser broke the line after its "--", leaving "--" at
the end of one line and "test mannwhitney" on the next (looked at in Chromium at 1280
pixels, the sample harbour_council_gate.json). The advice is still text, never markup."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS
from test_view_site import Watched, _open, browser_page  # noqa: F401  (the fixture used below)

from toolkit.fleet.view.experiments import experiment_page
from toolkit.views.site import write_site


@pytest.fixture
def watched(request: pytest.FixtureRequest) -> Watched:
    """A browser page (test_view_site's ``browser_page``)."""
    page: Watched = request.getfixturevalue("browser_page")
    return page


@pytest.fixture
def gate_page(tmp_path: Path, watched: Watched) -> Watched:
    """The experiments page of a site holding the sample gate experiment, open."""
    gate = experiment_page(str(SAMPLE_RUNS / "experiments" / "harbour_council_gate.json"))
    write_site([], tmp_path, experiments=[gate])
    _open(watched, tmp_path, "#experiments")
    watched.page.wait_for_selector("table.experiment")
    return watched


def test_an_option_in_the_advice_is_never_broken_after_its_dashes(gate_page: Watched) -> None:
    w = gate_page
    options = w.page.eval_on_selector_all(
        "table.experiment td .opt", "os => os.map(o => [o.textContent, o.getClientRects().length])"
    )
    # the sample's normality advice names the rank test three times (worked from its rows)
    assert options and all(o == ["--test mannwhitney", 1] for o in options)
    cells = w.page.eval_on_selector_all(
        "table.experiment tbody tr", "rs => rs.map(r => r.cells[9].textContent)"
    )
    assert sum("--test mannwhitney" in c for c in cells) == len(options)
    assert w.page.locator("table.experiment td script, table.experiment td img").count() == 0
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_the_short_heads_are_never_split(gate_page: Watched) -> None:
    """At 1280 pixels the page showed "n (c /" over "t)" and "Cohen's" over "d"."""
    w = gate_page
    heads = w.page.eval_on_selector_all(
        "table.experiment th",
        """hs => hs.map(h => { const r = document.createRange(); r.selectNodeContents(h);
             return [h.textContent.replace(/\\u00a0/g, " "),
                     new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size];
           })""",
    )
    lines = dict(heads)
    assert lines["n (c / t)"] == 1 and lines["Cohen's d"] == 1
