"""The organiser's pages on a phone (a viewport 375 pixels wide, in Debian's Chromium):
nothing runs off the right edge, so the page never scrolls sideways. The progress and
agreement tables were as wide as their longest row (a game id, a rater's link and the
export links side by side), and the page scrolled to the right. A wide table now scrolls
inside its own box; the page itself stays the screen's width.
``TOOLKIT_RATER_SCREENSHOTS=DIR`` keeps the pictures."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import require_browser

from toolkit.load.discussion import load_discussion
from toolkit.rating_server import RatingServer, create_app
from toolkit.ratings.store import RatingStore
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

PHONE = {"width": 375, "height": 800}


@pytest.mark.parametrize("where", ["", "/raters", "/raters/1", "/disagreements"])
def test_an_organiser_page_does_not_scroll_sideways_on_a_phone(
    where: str,
    games: Path,
    tmp_path: Path,
    serve_in_thread: Callable[[Any], str],
    browser: Any,
) -> None:
    require_browser()
    discussion = load_discussion(games)
    store = RatingStore(tmp_path / "ratings.db")
    session, _ = store.open_session(discussion.game_ids, ["ana", "ben"], 2, seed=4)
    game = session.queues["ana"][0]
    store.submit("ana", game, 1, {"watch_another": False}, "Slow start; nobody bluffs.")
    store.submit("ben", game, 4, {"watch_another": True}, "The vote in round 2 surprised me.")
    app = create_app(RatingServer.build(store, session, discussion, DEFAULT_ENGAGEMENT_SCALE))
    base = serve_in_thread(app)
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(f"{base}/o/{session.organiser_token}{where}")
    page.wait_for_selector("h1")
    pictures = Path(os.environ.get("TOOLKIT_RATER_SCREENSHOTS") or tmp_path)
    name = "organiser" + where.replace("/", "-")
    page.screenshot(path=str(pictures / f"{name}-375.png"), full_page=True)
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= PHONE["width"], f"{where or '/'}: {scroll} px wide"
