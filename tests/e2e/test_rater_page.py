"""The rating server end to end: ``toolkit rate`` in its own process on 127.0.0.1, driven
by Debian's Chromium through Playwright: two raters at once, drafts that survive Next and
a reload, keyboard only, another rater's token refused, and kill -9 then restart with
every acknowledged save in the store."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import require_browser

from toolkit.ratings.store import RatingStore

SERVER_START_S = 60
STEP_MS = 15_000
RATERS = "ana,ben,chidi"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """A ``toolkit rate`` process and what it printed."""

    games: Path
    store: Path
    port: int
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    links: dict[str, str] = field(default_factory=dict)

    def start(self) -> None:
        cmd = [
            sys.executable,
            "-c",
            "import sys; from toolkit.cli import main; sys.exit(main())",
            "rate",
            str(self.games),
            "--store",
            str(self.store),
            "--raters",
            RATERS,
            "--overlap",
            "2",
            "--seed",
            "3",
            "--port",
            str(self.port),
        ]
        out = self.log.with_suffix(".out")
        with out.open("wb") as stdout, self.log.open("ab") as stderr:
            self.proc = subprocess.Popen(
                cmd, stdout=stdout, stderr=stderr, start_new_session=True, cwd=self.games.parent
            )
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"toolkit rate exited with {self.proc.returncode}:\n{self.text()}")
            printed = out.read_text() if out.exists() else ""
            if "Organiser:" in printed:  # printed after the bind, just before serving
                with (
                    contextlib.suppress(OSError),
                    socket.create_connection(("127.0.0.1", self.port), 0.5),
                ):
                    break
            time.sleep(0.2)
        else:
            pytest.fail(f"the rating server did not listen on {self.port}")
        links = {}
        for line in out.read_text().splitlines():
            parts = line.split()
            if line.startswith("  ") and len(parts) == 2:
                links[parts[0]] = parts[1]
            elif line.startswith("Organiser: "):
                links["organiser"] = parts[1]
        assert set(links) == {*RATERS.split(","), "organiser"}
        if self.links:
            assert links == self.links  # a restart resumes: the same links
        self.links = links

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """Stop the server by its own process id."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def server(tmp_path: Path, games: Path) -> Iterator[Server]:
    require_browser()
    running = Server(games, tmp_path / "ratings.db", _free_port(), tmp_path / "server.log")
    running.start()
    try:
        yield running
    finally:
        running.stop()


def _page(browser: Any, problems: list[str]) -> Any:
    context = browser.new_context(viewport={"width": 1100, "height": 1300})
    page = context.new_page()
    page.set_default_timeout(STEP_MS)
    page.on(
        "console",
        lambda m: problems.append(m.text) if m.type in ("error", "warning") else None,
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    return page


def _ready(page: Any, title: str) -> None:
    """Wait for game page ``title`` with its script running (keys and saving live)."""
    from playwright.sync_api import expect

    expect(page.locator("h1")).to_have_text(title)
    page.locator('form[data-ready="1"]').wait_for()


def _saved(page: Any) -> None:
    """Wait for the page to acknowledge the last change (the server answered)."""
    from playwright.sync_api import expect

    expect(page.locator("#status")).to_have_text(re.compile(r"^Draft saved"))


def test_two_raters_rate_at_the_same_time_each_in_their_own_queue(
    server: Server, browser: Any
) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    ana, ben = _page(browser, problems), _page(browser, problems)
    ana.goto(server.links["ana"])
    ben.goto(server.links["ben"])
    for page in (ana, ben):
        expect(page.locator("h1")).to_have_text("Game 1 of 2")
        expect(page.locator(".transcript")).to_contain_text("Round 1")
        assert "game-" not in page.content()  # no game id before rating
    ana.get_by_label("4 Engaging").check()
    ben.get_by_label("2 Somewhat Interesting").check()
    _saved(ana)
    _saved(ben)
    for page in (ana, ben):  # no question answered: the first click asks, the second submits
        page.get_by_role("button", name=re.compile("Submit")).click()
        expect(page.locator("#status")).to_contain_text("5 of 5 questions unanswered")
        page.get_by_role("button", name=re.compile("Submit")).click()
    expect(ana.locator("h1")).to_have_text("Game 2 of 2")
    expect(ben.locator("h1")).to_have_text("Game 2 of 2")
    store = RatingStore(server.store)
    session = store.session()
    assert session is not None
    latest = {(r["rater"], r["transcript_id"]): r["score"] for r in store.latest().to_dicts()}
    assert latest == {("ana", session.queues["ana"][0]): 4, ("ben", session.queues["ben"][0]): 2}
    expect(ana.locator("#progress-text")).to_have_text("1 of 2 submitted")
    assert problems == []  # no CSP violation, no script error


def test_a_draft_survives_next_previous_and_a_reload(server: Server, browser: Any) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(server.links["chidi"])
    page.get_by_label("3 Acceptable").check()
    page.locator('.question[data-key="agent_stood_out"] input[value="yes"]').check()
    page.locator("#notes").fill("the vote in round 2")
    # Next right after typing: the page saves the draft before it leaves
    page.locator("#next").click()
    expect(page.locator("h1")).to_have_text("Game 2 of 2")
    page.locator("#previous").click()
    expect(page.locator("h1")).to_have_text("Game 1 of 2")
    expect(page.get_by_label("3 Acceptable")).to_be_checked()
    expect(page.locator('.question[data-key="agent_stood_out"] input[value="yes"]')).to_be_checked()
    expect(page.locator("#notes")).to_have_value("the vote in round 2")
    page.locator("#notes").fill("the vote in round 2, then a reveal")
    _saved(page)
    page.reload()
    expect(page.locator("#notes")).to_have_value("the vote in round 2, then a reveal")
    expect(page.locator("#status")).to_contain_text("Draft saved")
    # a new tab (a closed tab reopened) comes back to the same state
    again = _page(browser, problems)
    again.goto(server.links["chidi"])
    expect(again.locator("h1")).to_have_text("Game 1 of 2")
    expect(again.get_by_label("3 Acceptable")).to_be_checked()
    assert RatingStore(server.store).events().height == 0  # drafts are not ratings
    assert problems == []


def test_a_rater_can_rate_everything_with_the_keyboard_only(server: Server, browser: Any) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(server.links["ana"])
    _ready(page, "Game 1 of 2")
    for key in ("5", "y", "y", "n", "y", "y"):
        page.keyboard.press(key)
    _saved(page)
    expect(page.locator("#hint-count")).to_contain_text("yes to 4 of 5: that suggests 3")
    page.keyboard.press("Enter")
    _ready(page, "Game 2 of 2")
    page.keyboard.press("1")
    _saved(page)
    page.keyboard.press("Enter")  # no question answered: asks first
    page.keyboard.press("Enter")
    expect(page.locator("h1")).to_have_text("All done")
    store = RatingStore(server.store)
    session = store.session()
    assert session is not None
    rows = store.latest("ana").sort("event_id").to_dicts()
    first, second = session.queues["ana"]
    assert [(r["transcript_id"], r["score"]) for r in rows] == [(first, 5), (second, 1)]
    assert rows[0]["answers"] == (
        '{"agent_stood_out": false, "curious_who_mafia": true, "flowed_naturally": true, '
        '"watch_another": true, "watch_three_minutes": true}'
    )
    assert problems == []


def test_another_raters_token_cannot_read_or_write_over_http(server: Server, browser: Any) -> None:
    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(server.links["ana"] + "/1")
    csrf = page.locator('meta[name="csrf-token"]').get_attribute("content")
    ana = server.links["ana"]
    ben = server.links["ben"]
    origin = f"http://127.0.0.1:{server.port}"
    request = page.context.request
    headers = {"X-CSRF-Token": csrf, "Content-Type": "application/json", "Origin": origin}
    wrote = request.post(f"{ben}/1/draft", data='{"score": 1}', headers=headers)
    assert wrote.status == 403
    submitted = request.post(f"{ben}/1/submit", data='{"score": 1}', headers=headers)
    assert submitted.status == 403
    assert request.get(f"{ana}/3").status == 404  # beyond ana's own queue
    assert request.get(ana.replace("/r/", "/o/")).status == 404
    assert request.get(f"{origin}/r/{'A' * 32}/1").status == 404
    own = request.post(f"{ana}/1/draft", data='{"score": 2}', headers=headers)
    assert own.status == 200
    store = RatingStore(server.store)
    assert store.drafts()["rater"].to_list() == ["ana"]
    assert store.events().height == 0
    # tokens never reach the server's log
    log = server.text()
    assert not any(link.rsplit("/", 1)[1] in log for link in server.links.values())


def test_kill_9_mid_session_then_restart_keeps_every_acknowledged_save(
    server: Server, browser: Any
) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(server.links["ben"])
    _ready(page, "Game 1 of 2")
    page.keyboard.press("4")
    _saved(page)
    page.keyboard.press("Enter")  # questions unanswered: asks first
    page.keyboard.press("Enter")  # acknowledged by moving on
    _ready(page, "Game 2 of 2")
    page.keyboard.press("2")
    page.locator("#notes").fill("kill me")
    _saved(page)
    page.locator("#notes").blur()  # keys go to the page again, not into the notes

    server.kill9()
    page.keyboard.press("3")  # the server is gone: the page says so and keeps retrying
    expect(page.locator("#status")).to_contain_text("Not saved yet")
    server.start()  # same port at once (SO_REUSEADDR), same store, same links
    _saved(page)  # the retry reached the restarted server

    store = RatingStore(server.store)
    session = store.session()
    assert session is not None
    first, second = session.queues["ben"]
    assert store.latest("ben")[["transcript_id", "score"]].rows() == [(first, 4)]
    draft = store.draft("ben", second)
    assert draft is not None and (draft.score, draft.notes) == (3, "kill me")
    page.reload()
    expect(page.get_by_label("3 Acceptable")).to_be_checked()
    expect(page.locator("#notes")).to_have_value("kill me")
    problems = [p for p in problems if "Failed to fetch" not in p and "ERR_CONNECTION" not in p]
    assert problems == []


def test_both_pages_render_for_a_person_and_their_pictures_are_kept(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    """A rater mid-way and the organiser's page with progress and agreement, as a person
    sees them; ``TOOLKIT_RATER_SCREENSHOTS=DIR`` keeps the pictures (docs/ratings.md)."""
    from playwright.sync_api import expect

    problems: list[str] = []
    for rater, scores in (("ana", "43"), ("ben", "4")):
        page = _page(browser, problems)
        page.goto(server.links[rater])
        for n, score in enumerate(scores, start=1):
            _ready(page, f"Game {n} of 2")  # the page Enter moved to, not the one it left
            page.keyboard.press(score)
            _saved(page)
            page.keyboard.press("Enter")  # questions unanswered: asks first
            page.keyboard.press("Enter")
    page = _page(browser, problems)
    page.goto(server.links["chidi"])
    _ready(page, "Game 1 of 2")
    for key in ("3", "y", "n", "y"):
        page.keyboard.press(key)
    page.locator("#notes").fill("Good accusations in round 1; the vote felt rushed.")
    _saved(page)
    page.locator("#notes").blur()
    pictures = Path(os.environ.get("TOOLKIT_RATER_SCREENSHOTS") or tmp_path)
    page.screenshot(path=str(pictures / "rating_rater.png"), full_page=True)
    organiser = _page(browser, problems)
    organiser.goto(server.links["organiser"])
    expect(organiser.locator("h1")).to_have_text("Rating session: progress")
    expect(organiser.locator(".progress")).to_contain_text("3 of 6 ratings submitted")
    organiser.screenshot(path=str(pictures / "rating_organiser.png"), full_page=True)
    for name in ("rating_rater.png", "rating_organiser.png"):
        assert (pictures / name).stat().st_size > 10_000
    assert problems == []
