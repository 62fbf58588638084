"""The organiser's review pages in Debian's Chromium (issue 41): the server in this
process (uvicorn on a thread, 127.0.0.1). The organiser adjudicates a disagreement and
finds it in the export beside the raters' originals, which stay as they were; a rater
added mid-session gets a queue at once while an existing rater's next game is unchanged.
``TOOLKIT_RATER_SCREENSHOTS=DIR`` keeps the pictures of the new pages (docs/ratings.md)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import require_browser
from test_rater_page import _ready

from toolkit.load.discussion import load_discussion
from toolkit.rating_server import RatingServer, create_app
from toolkit.ratings.store import RatingStore, Session
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

STEP_MS = 20_000


@dataclass
class Served:
    base: str
    store: RatingStore
    session: Session


@pytest.fixture
def served(games: Path, tmp_path: Path, serve_in_thread: Callable[[Any], str]) -> Served:
    """A two-rater session of the sample games, served in this process."""
    require_browser()
    discussion = load_discussion(games)
    store = RatingStore(tmp_path / "ratings.db")
    session, _ = store.open_session(discussion.game_ids, ["ana", "ben"], 2, seed=4)
    app = create_app(RatingServer.build(store, session, discussion, DEFAULT_ENGAGEMENT_SCALE))
    return Served(serve_in_thread(app), store, session)


def _page(browser: Any, problems: list[str]) -> Any:
    """A page 1280 px wide (the pictures' width) that records console errors."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(STEP_MS)
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    return page


def _pictures(tmp_path: Path) -> Path:
    return Path(os.environ.get("TOOLKIT_RATER_SCREENSHOTS") or tmp_path)


def test_the_organiser_adjudicates_a_disagreement_and_the_export_keeps_the_originals(
    served: Served, browser: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    store, session = served.store, served.session
    game = session.queues["ana"][0]
    store.submit("ana", game, 1, {"watch_another": False}, "Slow start; nobody bluffs.")
    store.submit("ben", game, 4, {"watch_another": True}, "The vote in round 2 surprised me.")
    other = next(g for g in session.game_ids if g != game)
    store.submit("ben", other, 3, {"watch_another": True}, "")
    store.save_skip("ana", other, "I have seen this game before")
    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(f"{served.base}/o/{session.organiser_token}")
    expect(page.locator("#disagreements-link")).to_contain_text("2 disagreement(s)")
    page.locator("#disagreements-link").click()
    expect(page.locator("h1")).to_have_text("Disagreements to adjudicate")
    score = page.locator("section.disagreement", has_text="score").first
    expect(score).to_contain_text("ana: 1")
    expect(score).to_contain_text("ben: 4")
    score.locator("select[name=value]").select_option("3")
    score.locator("input[name=adjudicator]").fill("Org (Mara)")
    score.locator("textarea[name=note]").fill("Talked it over: the middle rounds drag.")
    score.get_by_role("button", name="Adjudicate").click()
    decided = page.locator("section.disagreement.decided")
    expect(decided).to_contain_text("Adjudicated: 3 by Org (Mara)")
    expect(decided).to_contain_text("the middle rounds drag")
    page.screenshot(path=str(_pictures(tmp_path) / "rating_adjudicate.png"), full_page=True)

    exported = page.request.get(f"{served.base}/o/{session.organiser_token}/ratings.json").json()
    originals = sorted(
        (r["rater"], r["score"]) for r in exported["ratings"] if r["game_id"] == game
    )
    assert originals == [("ana", 1), ("ben", 4)]  # the raters' own, untouched
    (adjudicated,) = exported["adjudications"]
    assert (adjudicated["unit"], adjudicated["adjudicated"]) == (game, 3)
    assert adjudicated["originals"] == {"ana": 1, "ben": 4}
    assert adjudicated["adjudicator"] == "Org (Mara)"
    csv_text = page.request.get(
        f"{served.base}/o/{session.organiser_token}/adjudications.csv"
    ).text()
    assert f"{game},score,3," in csv_text
    assert sorted(store.latest().filter(transcript_id=game)["score"].to_list()) == [1, 4]

    page.goto(f"{served.base}/o/{session.organiser_token}")
    page.locator("a.rater-link", has_text="ana").click()
    expect(page.locator("h1")).to_have_text("Rater: ana")
    expect(page.locator("#rater-ratings")).to_contain_text("Slow start; nobody bluffs.")
    expect(page.locator("#rater-ratings")).to_contain_text("I have seen this game before")
    # the adjudication beside ana's own 1 (never over it), and the open yes/no disagreement
    row = page.locator("#rater-ratings tr", has_text=game)
    expect(row.locator("td.num").nth(1)).to_contain_text("1")
    adjudicated = row.locator("a.adjudicated-value")
    expect(adjudicated).to_have_text("adjudicated 3 by Org (Mara)")
    expect(adjudicated).to_have_attribute("title", "Talked it over: the middle rounds drag.")
    expect(row.locator("a.open-disagreement")).to_have_text("disagreement, not adjudicated")
    page.screenshot(path=str(_pictures(tmp_path) / "rating_organiser_raters.png"), full_page=True)
    assert problems == []


def test_a_rater_added_mid_session_gets_a_queue_and_the_others_next_game_stays(
    served: Served, browser: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    session = served.session
    problems: list[str] = []
    ana = _page(browser, problems)
    ana.goto(f"{served.base}/r/{session.raters['ana']}")
    _ready(ana, "Game 1 of 3")
    ana.keyboard.press("4")
    ana.keyboard.press("Enter")  # asks first: questions unanswered
    ana.keyboard.press("Enter")
    _ready(ana, "Game 2 of 3")
    next_game = ana.locator("section.transcript").inner_text()

    org = _page(browser, problems)
    org.goto(f"{served.base}/o/{session.organiser_token}")
    org.locator("#team-link").click()
    expect(org.locator("h1")).to_have_text("Raters")
    org.locator("#rater-name").fill("Dana")
    org.get_by_role("button", name="Add and rebalance").click()
    expect(org.locator("#added")).to_contain_text("Added Dana with")
    link = org.locator("#added code.link").inner_text()
    org.screenshot(path=str(_pictures(tmp_path) / "rating_organiser_team.png"), full_page=True)

    dana = _page(browser, problems)
    dana.goto(served.base + link)
    expect(dana.locator("h1")).to_have_text(re.compile(r"^Game 1 of [12]$"))
    dana.locator('form[data-ready="1"]').wait_for()

    ana.reload()  # the page ana is on shows the same game, at the same place
    expect(ana.locator("h1")).to_have_text(re.compile(r"^Game 2 of [23]$"))
    assert ana.locator("section.transcript").inner_text() == next_game
    ana.goto(f"{served.base}/r/{session.raters['ana']}")  # and her link goes there too
    expect(ana.locator("h1")).to_have_text(re.compile(r"^Game 2 of [23]$"))
    assert ana.locator("section.transcript").inner_text() == next_game
    now = served.store.session()
    assert now is not None
    for game in now.game_ids:  # every game still with two raters
        assert sum(game in q for q in now.queues.values()) == 2
    assert served.store.latest("ana")["score"].to_list() == [4]
    assert problems == []


def test_the_organiser_reassigns_a_raters_remaining_games_and_their_rated_one_stays(
    served: Served, browser: Any
) -> None:
    from playwright.sync_api import expect

    session, store = served.session, served.store
    rated = session.queues["ben"][0]
    store.submit("ben", rated, 5, {}, "loved the endgame")
    store.add_raters(["chidi"])  # a third rater to take ben's share (overlap 2)
    problems: list[str] = []
    org = _page(browser, problems)
    org.goto(f"{served.base}/o/{session.organiser_token}/raters/1")
    expect(org.locator("h1")).to_have_text("Rater: ben")
    org.get_by_role("button", name="Reassign ben's remaining games").click()
    expect(org.locator("#rater-facts")).to_contain_text("reassigned")
    expect(org.locator("#rater-ratings tbody tr")).to_have_count(1)
    expect(org.locator("#rater-ratings")).to_contain_text("loved the endgame")
    now = store.session()
    assert now is not None and now.queues["ben"] == (rated,)
    for game in now.game_ids:
        assert sum(game in q for q in now.queues.values()) == 2
    ben = _page(browser, problems)
    ben.goto(f"{served.base}/r/{session.raters['ben']}")
    expect(ben.locator("h1")).to_have_text("All done")
    assert problems == []
