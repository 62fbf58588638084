"""The site's index in a window 1024 pixels wide (Debian's Chromium, from ``file://``):
no column runs off the right edge. A run's id (its path) was one unbreakable word that
set the width of the run column; at 1024 pixels the time column was cut off and the page
scrolled sideways. The id now breaks between its folders, never inside a name."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_view_site import Watched, _open, browser_page  # noqa: F401  (the fixture used below)

from toolkit.scorecard import Dimension, Scorecard
from toolkit.views.site import SiteRun, write_site

#: A games.db game as the samples list theirs (sample_runs/discussions/baseline/games.db/
#: base-7-1), named with underscores: one unbreakable word of 73 characters.
LONG_ID = "sample_runs/discussions/baseline/games.db/harbour_council_nightly_base_7_1"


#: Item ids as the samples' persona calibration names them (chat/agent/dimension/claim).
SAMPLE_ITEMS = [
    "radio-week1/otis/consistency/same-stance",
    "radio-week2/priya/adherence/priya-structured-with-owners-and-deadlines",
    "radio-week2/mags/fluency/varied-openings",
]


@pytest.fixture
def watched(request: pytest.FixtureRequest) -> Watched:
    """A browser page (test_view_site's ``browser_page``)."""
    page: Watched = request.getfixturevalue("browser_page")
    return page


def _run(run_id: str) -> SiteRun:
    dims = [Dimension(f"d{i}", f"Dimension {i}", 1.0, "OK", "", ">= 1", "< 0") for i in range(8)]
    card = Scorecard("discussion", "1.2.0", run_id, "Game g · 12 messages, 2 rounds",
                     "PENDING_RATING", "", Scorecard.dimensions_frame(run_id, dims))  # fmt: skip
    return SiteRun(run_id, "discussion", card, size=45_056, time="2026-03-07T19:00:00Z")


def test_the_index_fits_a_1024_pixel_window_and_keeps_each_id_whole(
    tmp_path: Path, watched: Watched
) -> None:
    write_site([_run(LONG_ID), _run("short.json")], tmp_path)
    w = watched
    w.page.set_viewport_size({"width": 1024, "height": 800})
    _open(w, tmp_path, "")
    w.page.wait_for_selector("#rows tr")
    assert w.page.evaluate("document.documentElement.scrollWidth") <= 1024
    right = w.page.evaluate(
        "Math.max(...Array.from(document.querySelectorAll('main table th'))"
        ".map(c => c.getBoundingClientRect().right))"
    )
    assert right <= 1024
    ids = w.page.locator("#rows a.run .id").all_text_contents()
    assert LONG_ID in ids  # the whole id, its break chances adding no character
    # broken only between folders: each folder's piece lies on one line
    pieces = w.page.eval_on_selector_all(
        "#rows a.run .id",
        """ss => ss.flatMap(s => Array.from(s.childNodes).filter(n => n.tagName !== 'WBR')
             .map(n => { const r = document.createRange(); r.selectNodeContents(n);
                         return [n.textContent, r.getClientRects().length]; }))""",
    )
    assert "".join(t for t, _ in pieces[:-1]) == LONG_ID  # the last piece is short.json's
    assert all(n == 1 for _, n in pieces), pieces
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_the_calibration_page_fits_1024_pixels_and_one_line_an_item_from_1200(
    tmp_path: Path, watched: Watched
) -> None:
    """The disagreements' item ids (``radio-week1/otis/consistency/same-stance``) were
    kept on one line at any width: at 1024 pixels the table ran 39 pixels off the edge.
    From 1200 pixels they stay on one line, as before; narrower, they break between
    their folders."""
    from calibration_fixture import calibration_result

    doc = calibration_result()
    for row, item in zip(doc["disagreements"], SAMPLE_ITEMS, strict=False):
        row["item"] = item
    write_site([], tmp_path, calibration=doc)
    w = watched
    for width in (1024, 1280):
        w.page.set_viewport_size({"width": width, "height": 800})
        _open(w, tmp_path, "#calibration")
        w.page.wait_for_selector("table.cal-disagreements")
        assert w.page.evaluate("document.documentElement.scrollWidth") <= width
        items = w.page.eval_on_selector_all(
            "table.cal-disagreements tbody td:nth-child(2) a",
            """as => as.map(a => { const segs = Array.from(a.querySelectorAll('.seg'));
                 return [a.textContent, segs.map(s => s.getClientRects().length),
                         new Set(segs.map(s => Math.round(s.getBoundingClientRect().top))).size];
               })""",
        )
        assert items
        for item, pieces, lines in items:
            assert pieces and all(n == 1 for n in pieces), item  # never inside a folder
            assert width < 1200 or lines == 1, item  # one line, as before, from 1200
    assert (w.failed, w.errors, w.outside) == ([], [], [])


@pytest.mark.parametrize("route", ["", "#run/short.json", "#run/short.json/dim/d1", "#calibration"])
def test_no_page_scrolls_sideways_on_a_375_pixel_phone(
    route: str, tmp_path: Path, watched: Watched
) -> None:
    """On a phone the index ran to 929 pixels (its search box alone asked for 27rem, and
    the nine-column table set the page's width), so the whole page scrolled sideways and
    the header scrolled away with it. A table wider than the screen now scrolls inside
    its own box, and the controls take the screen's width."""
    from calibration_fixture import calibration_result

    write_site([_run(LONG_ID), _run("short.json")], tmp_path, calibration=calibration_result())
    w = watched
    w.page.set_viewport_size({"width": 375, "height": 800})
    _open(w, tmp_path, route)
    w.page.wait_for_selector("main h1")
    w.page.wait_for_timeout(200)
    w.page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
    assert w.page.evaluate("document.documentElement.scrollWidth") <= 375, route
    assert (w.failed, w.errors, w.outside) == ([], [], [])
