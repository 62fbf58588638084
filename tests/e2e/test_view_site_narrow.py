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
