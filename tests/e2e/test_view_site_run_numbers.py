"""Every number on the site's run pages prints as the text views print the same value
(:func:`toolkit.scorecard.format_value`: integers bare, others to three decimals rounded
as Python's ``format`` rounds, a tie to the even digit), not only the scorecard's: the
evidence table, the values cited under a transcript item and a window, the chart's axis
and its points' titles. The pages once printed these with an older formatter (two
decimals from 1, one from 100, ``toFixed``'s ties away from zero: 1.625 as "1.63",
0.0625 as "0.063", 123.4567 as "123.5"). Sizes print to one decimal as Python's
``f"{kb:.1f}"`` does (1280 bytes is 1.25 KB, an exact tie: "1.2", where ``toFixed`` gave
"1.3"). Run in Debian's Chromium from ``file://`` with the network off."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_view_site import Watched, _open, browser_page  # noqa: F401  (the fixture used below)

from toolkit.scorecard import Dimension, Scorecard
from toolkit.views.site import EvidenceRow, SiteItem, SiteRun, write_site

#: (value planted, what `toolkit quality` prints for it), worked by hand: 1.625 and
#: 0.0625 = 1/16 are exact in binary; 0.0625 is a tie at three decimals (to the even 2);
#: 123.4567 is 123.456699999999997885... (123.457); 2.0 is an integer (bare); 2/3 is
#: 0.666... (0.667); 0.1875 = 3/16 is a tie (187.5 thousandths: to the even 188).
PLANTED: list[tuple[float, str]] = [
    (1.625, "1.625"),
    (0.0625, "0.062"),
    (123.4567, "123.457"),
    (2.0, "2"),
    (2 / 3, "0.667"),
    (0.1875, "0.188"),
]


@pytest.fixture
def watched(request: pytest.FixtureRequest) -> Watched:
    """A browser page (test_view_site's ``browser_page``)."""
    page: Watched = request.getfixturevalue("browser_page")
    return page


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run whose dimension's evidence rows, one at each item, hold the planted values
    (a time series: the chart is drawn from them), and one row on a window of two items."""
    dims = [Dimension("g", "Groundedness", 0.1875, "FAIL", "below the floor", ">= 0.95",
                      "< 0.5"),
            Dimension("h", "Drift", 0.0, "OK", "none", "<= 0.02", ">= 0.1")]  # fmt: skip
    card = Scorecard("simulation", "1.0.0", "r", "Run r", "FAILED", "",
                     Scorecard.dimensions_frame("r", dims))  # fmt: skip
    items = tuple(SiteItem(f"t{i}", f"tick {i}", text=f"tick {i}") for i in range(len(PLANTED)))
    rows = tuple(
        EvidenceRow(f"tick {i}", v, "OK", f"at tick {i}", f"t{i}")
        for i, (v, _) in enumerate(PLANTED)
    )
    window = EvidenceRow("window", 0.0625, "FAIL", "over two ticks", "t0-t1")
    evidence = {"g": (*rows, window), "h": (EvidenceRow("run", 0.0),)}
    run = SiteRun("r", "simulation", card, items=items, evidence=evidence, size=1280)
    out = tmp_path_factory.mktemp("site")
    write_site([run], out)
    return out


def test_the_evidence_table_prints_values_as_the_text_views_do(
    site: Path, watched: Watched
) -> None:
    w = watched
    _open(w, site, "#run/r/dim/g")
    w.page.wait_for_selector("table.evidence")
    cells = w.page.eval_on_selector_all(
        "table.evidence tbody tr", "rs => rs.map(r => r.cells[1].textContent)"
    )
    assert cells == [said for _, said in PLANTED] + ["0.062"]
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_the_chart_labels_its_axis_and_points_as_the_text_views_do(
    site: Path, watched: Watched
) -> None:
    """The axis is labelled with the lowest and highest of the points and the threshold
    lines (0.0625 and 123.4567 here), each point titled with its label and value."""
    w = watched
    _open(w, site, "#run/r/dim/g")
    w.page.wait_for_selector(".chart svg")
    axis = w.page.eval_on_selector_all(
        ".chart svg > text[x='42']",
        "ts => ts.map(t => t.textContent)",  # left of the axis
    )
    assert axis == ["0.062", "123.457"]
    titles = w.page.eval_on_selector_all(".chart svg a title", "ts => ts.map(t => t.textContent)")
    ticks = [f"tick {i}: {said} OK" for i, (_, said) in enumerate(PLANTED)]
    assert titles == [*ticks, "window: 0.062 FAIL"]
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_the_values_cited_under_an_item_and_a_window_print_as_the_text_views_do(
    site: Path, watched: Watched
) -> None:
    w = watched
    _open(w, site, "#run/r/item/t0")
    assert w.page.locator("li.current .cites a.num").all_inner_texts() == ["1.625"]
    _open(w, site, "#run/r/item/t0-t1")
    assert w.page.locator("main > .cites a.num").all_inner_texts() == ["0.062"]
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_the_size_prints_to_one_decimal_as_python_rounds(site: Path, watched: Watched) -> None:
    w = watched
    _open(w, site, "#run/r")
    sizes = w.page.eval_on_selector_all(
        "dl.facts dt",
        "ds => ds.filter(d => d.textContent === 'Size').map(d => d.nextElementSibling.textContent)",
    )
    assert sizes == ["1.2 KB"]
    _open(w, site, "")
    w.page.wait_for_selector("#rows tr")
    assert w.page.eval_on_selector("#rows tr", "r => r.cells[5].textContent") == "1.2 KB"
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_the_threshold_labels_are_drawn_over_the_points_on_a_halo(
    site: Path, watched: Watched
) -> None:
    """Where the series runs along a threshold line (the samples' groundedness along its
    red line), the line's label stays readable: drawn after every point, on a white
    stroke painted under its letters. They were drawn first, the points over them."""
    w = watched
    _open(w, site, "#run/r/dim/g")
    w.page.wait_for_selector(".chart svg")
    drawn = w.page.eval_on_selector(
        ".chart svg",
        """s => Array.from(s.children).map(c => c.tagName === 'a' ? 'point'
             : /^(green|red) /.test(c.textContent) ? c.textContent + ' ' + c.getAttribute(
               'stroke') + ' ' + getComputedStyle(c).paintOrder : null).filter(Boolean)""",
    )
    assert drawn[-2:] == ["green >= 0.95 #fff stroke", "red < 0.5 #fff stroke"]
    assert drawn[:-2] == ["point"] * (len(PLANTED) + 1)


def test_one_evidence_row_is_counted_as_one_row(site: Path, watched: Watched) -> None:
    w = watched
    _open(w, site, "#run/r/dim/h")
    assert w.page.locator("#evidence").inner_text() == "Evidence (1 row)"
    _open(w, site, "#run/r/dim/g")
    assert w.page.locator("#evidence").inner_text() == "Evidence (7 rows)"
