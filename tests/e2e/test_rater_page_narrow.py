"""The rater page on a phone (a viewport 375 pixels wide, in Debian's Chromium): nothing
runs off the right edge. The engagement scale's rows were a grid with a fixed 230-pixel
label column, and a fieldset is at least as wide as its content: the scale's box ran
past the screen, its legend "(keys 1–5)" and right border cut off, the page scrolling
sideways."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import require_browser

from toolkit.load.discussion import load_discussion
from toolkit.rating_server import RatingServer, create_app
from toolkit.ratings.store import RatingStore
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

PHONE = {"width": 375, "height": 800}


def test_the_rater_page_fits_a_phone_screen(
    games: Path, tmp_path: Path, serve_in_thread: Callable[[Any], str], browser: Any
) -> None:
    require_browser()
    discussion = load_discussion(games)
    store = RatingStore(tmp_path / "ratings.db")
    session, _ = store.open_session(discussion.game_ids, ["ana"], 1, seed=2)
    app = create_app(RatingServer.build(store, session, discussion, DEFAULT_ENGAGEMENT_SCALE))
    base = serve_in_thread(app)
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(f"{base}/r/{session.raters['ana']}")
    page.wait_for_selector("fieldset.scale")
    wide = page.evaluate(
        """() => Array.from(document.querySelectorAll('main, fieldset, legend, .level, .question'))
             .filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5)
             .map(e => e.tagName + '.' + e.className)"""
    )
    assert wide == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # each level's name and words are still all there, the words under the name
    names = page.locator(".level .level-name").all_inner_texts()
    assert names[0] == "1 Boring" and len(names) == 5
    name_box = page.locator(".level .level-name").first.bounding_box()
    text_box = page.locator(".level .level-text").first.bounding_box()
    assert text_box["y"] >= name_box["y"] + name_box["height"] - 1
