"""The rater page's keys, skip and required questions in Debian's Chromium: the server in
this process (uvicorn on a thread, 127.0.0.1) over an instrument with two required
questions, so the refusal and the partial-submit question can be seen."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import require_browser
from test_rater_page import _page, _ready, _saved

from toolkit.load.discussion import load_discussion
from toolkit.rating_server import RatingServer, create_app
from toolkit.ratings.store import RatingStore, Session
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE, EngagementScale


@dataclass
class Served:
    url: str  # ana's address
    store: RatingStore
    session: Session


@pytest.fixture
def served(games: Path, tmp_path: Path, serve_in_thread: Callable[[Any], str]) -> Served:
    """ana's session of the sample games under an instrument with two required questions,
    served in this process."""
    require_browser()
    data = DEFAULT_ENGAGEMENT_SCALE.model_dump()
    data["version"] = "test-required"
    data["questions"][0]["required"] = True
    data["questions"][3]["required"] = True
    scale = EngagementScale.model_validate(data)
    discussion = load_discussion(games)
    store = RatingStore(tmp_path / "ratings.db")
    session, _ = store.open_session(discussion.game_ids, ["ana"], 1, seed=2)
    base = serve_in_thread(create_app(RatingServer.build(store, session, discussion, scale)))
    return Served(f"{base}/r/{session.raters['ana']}", store, session)


def test_j_and_k_move_after_saving_the_draft_and_keys_sleep_while_typing(
    served: Served, browser: Any
) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(served.url + "/1")
    _ready(page, "Game 1 of 3")
    page.keyboard.press("2")
    page.keyboard.press("j")  # right after the change: the draft is saved before leaving
    _ready(page, "Game 2 of 3")
    page.keyboard.press("ArrowLeft")
    _ready(page, "Game 1 of 3")
    expect(page.get_by_label("2 Somewhat Interesting")).to_be_checked()
    page.locator("#notes").type("jk s?")  # typed, not obeyed
    expect(page.locator("#notes")).to_have_value("jk s?")
    expect(page.locator("h1")).to_have_text("Game 1 of 3")
    expect(page.locator("#skip-panel")).to_be_hidden()
    expect(page.locator("#help")).not_to_have_attribute("open", "")
    page.locator("#notes").blur()
    page.keyboard.press("ArrowRight")
    _ready(page, "Game 2 of 3")
    page.keyboard.press("k")
    _ready(page, "Game 1 of 3")
    expect(page.locator("#notes")).to_have_value("jk s?")
    assert problems == []


def test_question_mark_toggles_the_help_listing_the_keys(served: Served, browser: Any) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(served.url + "/1")
    _ready(page, "Game 1 of 3")
    expect(page.locator("#help .keys-table")).to_be_hidden()
    page.keyboard.press("?")
    table = page.locator("#help .keys-table")
    expect(table).to_be_visible()
    for keys in ("1–5", "y / n", "Enter", "j or →", "k or ←", "s", "?"):
        expect(table.locator("th", has_text=keys).first).to_be_visible()
    page.keyboard.press("?")
    expect(table).to_be_hidden()
    assert problems == []


def test_s_skips_with_a_reason_stored_and_the_draft_kept(served: Served, browser: Any) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(served.url + "/1")
    _ready(page, "Game 1 of 3")
    page.keyboard.press("4")
    page.locator("#notes").fill("half a thought")
    page.locator("#notes").blur()
    page.keyboard.press("s")
    expect(page.locator("#skip-reason")).to_be_focused()
    page.keyboard.press("Enter")  # no reason yet: refused, still here
    expect(page.locator("#status")).to_contain_text("Give a reason for skipping")
    page.locator("#skip-reason").fill("I have seen this game")
    page.keyboard.press("Enter")
    _ready(page, "Game 2 of 3")
    gid = served.session.queues["ana"][0]
    assert served.store.skips("ana")[["unit_id", "reason"]].rows() == [
        (gid, "I have seen this game")
    ]
    draft = served.store.draft("ana", gid)
    assert draft is not None and (draft.score, draft.notes) == (4, "half a thought")
    assert served.store.events().height == 0
    page.keyboard.press("k")
    _ready(page, "Game 1 of 3")
    expect(page.locator("#status")).to_have_text(
        "Skipped (I have seen this game). You can still rate it."
    )
    assert problems == []


def test_required_questions_refuse_enter_and_a_partial_submit_asks_first(
    served: Served, browser: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(served.url + "/1")
    _ready(page, "Game 1 of 3")
    for key in ("3", "n", "y"):  # watch_three_minutes no, curious yes; flowed_naturally open
        page.keyboard.press(key)
    _saved(page)
    page.keyboard.press("Enter")
    status = page.locator("#status")
    expect(status).to_have_text(
        "Not submitted: answer the required questions first: "
        "Did the conversation flow naturally (rather than feel scripted)?"
    )
    expect(page.locator(".question.missing-answer")).to_have_count(1)
    pictures = Path(os.environ.get("TOOLKIT_RATER_SCREENSHOTS") or tmp_path)
    page.screenshot(path=str(pictures / "rating_rater_required.png"), full_page=True)
    assert served.store.events().height == 0
    page.locator('.question[data-key="flowed_naturally"] input[value="yes"]').check()
    _saved(page)
    page.keyboard.press("Enter")  # two optional questions open: asks first
    expect(status).to_contain_text("2 of 5 questions unanswered")
    expect(status).to_contain_text("Press Enter or Submit again to submit anyway")
    assert served.store.events().height == 0
    page.keyboard.press("Enter")
    _ready(page, "Game 2 of 3")
    assert served.store.events().height == 1
    assert problems == []


def test_the_help_panel_and_the_skip_box_are_kept_as_pictures(
    served: Served, browser: Any, tmp_path: Path
) -> None:
    """``TOOLKIT_RATER_SCREENSHOTS=DIR`` keeps the picture (docs/ratings.md)."""
    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(served.url + "/1")
    _ready(page, "Game 1 of 3")
    page.keyboard.press("4")
    page.keyboard.press("y")
    _saved(page)
    page.keyboard.press("?")
    page.keyboard.press("s")
    page.locator("#skip-reason").fill("the transcript is cut off in round 2")
    pictures = Path(os.environ.get("TOOLKIT_RATER_SCREENSHOTS") or tmp_path)
    page.screenshot(path=str(pictures / "rating_rater_keys.png"), full_page=True)
    assert (pictures / "rating_rater_keys.png").stat().st_size > 10_000
    assert re.search(r"\bopen\b", page.locator("#help").evaluate("e => e.outerHTML"))
    assert problems == []
