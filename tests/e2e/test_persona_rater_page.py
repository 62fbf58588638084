"""Rating persona items end to end: ``toolkit rate CHATS --propositions DIR`` in its own
process on 127.0.0.1, driven by Debian's Chromium through Playwright: the text in the
page's DOM hashes to the text the judge receives for every item, a draft survives Next
and a reload, 0-9 by keyboard, another rater's token refused."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
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

from toolkit.judge import build_prompt
from toolkit.ratings.store import RatingStore
from toolkit.rubrics.persona_items import items_of_files

SERVER_START_S = 60
STEP_MS = 15_000
RATERS = ("ana", "ben", "chloe")
CHATS = ("radio-week1.jsonl", "radio-week2.jsonl")


@dataclass
class Server:
    """A ``toolkit rate`` process over persona chats, and the links it printed."""

    chats: list[Path]
    propositions: Path
    store: Path
    log: Path
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    links: dict[str, str] = field(default_factory=dict)

    def start(self) -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        cmd = [
            sys.executable, "-c", "import sys; from toolkit.cli import main; sys.exit(main())",
            "rate", *map(str, self.chats), "--propositions", str(self.propositions),
            "--store", str(self.store), "--raters", ",".join(RATERS), "--overlap", "2",
            "--seed", "3", "--port", str(self.port),
        ]  # fmt: skip
        out = self.log.with_suffix(".out")
        with out.open("wb") as stdout, self.log.open("ab") as stderr:
            self.proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr, start_new_session=True)
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                said = self.log.read_text()
                pytest.fail(f"toolkit rate exited with {self.proc.returncode}:\n{said}")
            if "Organiser:" in (out.read_text() if out.exists() else ""):
                with (
                    contextlib.suppress(OSError),
                    socket.create_connection(("127.0.0.1", self.port), 0.5),
                ):
                    break
            time.sleep(0.2)
        else:
            pytest.fail(f"the rating server did not listen on {self.port}")
        for line in out.read_text().splitlines():
            parts = line.split()
            if line.startswith("  ") and len(parts) == 2:
                self.links[parts[0]] = parts[1]
            elif line.startswith("Organiser: "):
                self.links["organiser"] = parts[1]
        assert set(self.links) == {*RATERS, "organiser"}

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
def server(tmp_path: Path, sample_runs: Path) -> Iterator[Server]:
    require_browser()
    folder = tmp_path / "chats"
    folder.mkdir()
    for name in CHATS:
        shutil.copy(sample_runs / "persona" / name, folder / name)
    running = Server(
        [folder / name for name in CHATS],
        sample_runs / "persona" / "propositions",
        tmp_path / "ratings.db",
        tmp_path / "server.log",
    )
    running.start()
    try:
        yield running
    finally:
        running.stop()


def _page(browser: Any, problems: list[str]) -> Any:
    page = browser.new_context(viewport={"width": 1100, "height": 1300}).new_page()
    page.set_default_timeout(STEP_MS)
    page.on(
        "console",
        lambda m: problems.append(m.text) if m.type in ("error", "warning") else None,
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    return page


def _ready(page: Any, title: str) -> None:
    from playwright.sync_api import expect

    expect(page.locator("h1")).to_have_text(title)
    page.locator('form[data-ready="1"]').wait_for()


def _saved(page: Any) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#status")).to_have_text(re.compile(r"^Draft saved"))


#: Every page of a rater's queue, parsed by the browser (DOMParser): the text content of
#: the judged text's element, as a person's browser holds it.
_DOM_TEXTS = """async ([base, total]) => {
  const out = [];
  for (let n = 1; n <= total; n++) {
    const html = await (await fetch(base + "/" + n)).text();
    const doc = new DOMParser().parseFromString(html, "text/html");
    const pre = doc.getElementById("judged-text");
    out.push(pre === null ? null : pre.textContent);
  }
  return out;
}"""


def test_the_text_in_the_browser_is_the_text_the_judge_receives_for_every_item(
    server: Server, browser: Any
) -> None:
    problems: list[str] = []
    session = RatingStore(server.store).session()
    assert session is not None
    items = {i.item_id: i for i in items_of_files(server.chats, server.propositions)}
    sent = {}
    for item_id, item in items.items():
        _system, user = build_prompt([item.request])
        text = user[user.index("TRAJECTORY:\n") + 12 : user.rindex("\n\nReply with")]
        sent[item_id] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    page = _page(browser, problems)
    checked = set()
    for rater in RATERS:
        page.goto(server.links[rater] + "/1")
        queue = session.queues[rater]
        texts = page.evaluate(_DOM_TEXTS, [server.links[rater], len(queue)])
        for item_id, text in zip(queue, texts, strict=True):
            assert text is not None, item_id
            assert hashlib.sha256(text.encode("utf-8")).hexdigest() == sent[item_id], item_id
            checked.add(item_id)
    assert checked == set(items) and len(checked) == 118
    assert problems == []


def test_a_draft_survives_next_previous_and_a_reload(server: Server, browser: Any) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(server.links["chloe"])
    session = RatingStore(server.store).session()
    assert session is not None
    _ready(page, f"Item 1 of {len(session.queues['chloe'])}")
    page.get_by_label("0", exact=True).check()
    page.locator("#notes").fill("no memo voice anywhere")
    page.locator("#next").click()  # right after typing: the draft is saved before leaving
    total = len(session.queues["chloe"])
    _ready(page, f"Item 2 of {total}")
    page.locator("#previous").click()
    _ready(page, f"Item 1 of {total}")
    expect(page.get_by_label("0", exact=True)).to_be_checked()
    expect(page.locator("#notes")).to_have_value("no memo voice anywhere")
    page.locator("#notes").fill("no memo voice anywhere; one stock phrase")
    _saved(page)
    page.reload()
    expect(page.get_by_label("0", exact=True)).to_be_checked()
    expect(page.locator("#notes")).to_have_value("no memo voice anywhere; one stock phrase")
    store = RatingStore(server.store)
    assert store.item_latest().height == 0  # drafts are not ratings
    draft = store.item_draft("chloe", session.queues["chloe"][0])
    assert draft is not None and draft.score == 0
    assert problems == []


def test_a_rater_scores_0_to_9_with_the_keyboard_only(server: Server, browser: Any) -> None:
    problems: list[str] = []
    store = RatingStore(server.store)
    session = store.session()
    assert session is not None
    queue = session.queues["ana"]
    page = _page(browser, problems)
    page.goto(server.links["ana"])
    _ready(page, f"Item 1 of {len(queue)}")
    page.keyboard.press("9")
    _saved(page)
    page.keyboard.press("Enter")
    _ready(page, f"Item 2 of {len(queue)}")
    page.keyboard.press("0")
    _saved(page)
    page.keyboard.press("Enter")
    _ready(page, f"Item 3 of {len(queue)}")
    rows = store.item_latest("ana").sort("event_id")
    assert rows.select("item_id", "score").rows() == [(queue[0], 9), (queue[1], 0)]
    assert rows["text_sha256"].to_list() == [session.items[i].text_sha256 for i in queue[:2]]
    assert problems == []


def test_another_raters_token_cannot_read_or_write(server: Server, browser: Any) -> None:
    problems: list[str] = []
    page = _page(browser, problems)
    ana, ben = server.links["ana"], server.links["ben"]
    page.goto(ana + "/1")
    csrf = page.locator('meta[name="csrf-token"]').get_attribute("content")
    origin = f"http://127.0.0.1:{server.port}"
    headers = {"X-CSRF-Token": csrf, "Content-Type": "application/json", "Origin": origin}
    request = page.context.request
    assert request.post(f"{ben}/1/draft", data='{"score": 1}', headers=headers).status == 403
    assert request.post(f"{ben}/1/submit", data='{"score": 1}', headers=headers).status == 403
    assert request.get(f"{ana}/999").status == 404  # beyond ana's own queue
    assert request.get(ana.replace("/r/", "/o/")).status == 404
    assert request.post(f"{ana}/1/draft", data='{"score": 10}', headers=headers).status == 422
    assert request.post(f"{ana}/1/draft", data='{"score": 8}', headers=headers).status == 200
    assert RatingStore(server.store).item_drafts()["rater"].to_list() == ["ana"]
    assert problems == []


def test_the_persona_pages_render_for_a_person_and_their_pictures_are_kept(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    """``TOOLKIT_RATER_SCREENSHOTS=DIR`` keeps the pictures (docs/ratings.md)."""
    from playwright.sync_api import expect

    problems: list[str] = []
    session = RatingStore(server.store).session()
    assert session is not None
    total = len(session.queues["ben"])
    page = _page(browser, problems)
    page.goto(server.links["ben"])
    _ready(page, f"Item 1 of {total}")
    page.keyboard.press("6")
    _saved(page)
    page.keyboard.press("Enter")
    _ready(page, f"Item 2 of {total}")  # the page Enter moved to, not the one it left
    page.keyboard.press("7")
    page.locator("#notes").fill("Early and late alike: short, numbered, owner and deadline.")
    _saved(page)
    page.locator("#notes").blur()
    pictures = Path(os.environ.get("TOOLKIT_RATER_SCREENSHOTS") or tmp_path)
    page.screenshot(path=str(pictures / "rating_persona.png"), full_page=True)
    organiser = _page(browser, problems)
    organiser.goto(server.links["organiser"])
    expect(organiser.locator(".progress")).to_contain_text("1 of 236 ratings submitted")
    organiser.screenshot(path=str(pictures / "rating_persona_organiser.png"))  # the top
    for name in ("rating_persona.png", "rating_persona_organiser.png"):
        assert (pictures / name).stat().st_size > 10_000
    assert problems == []


def test_the_renderer_keeps_every_character_in_a_browsers_dom(browser: Any) -> None:
    """A browser turns a raw carriage return into a newline and drops a newline right
    after ``<pre>``: the one renderer writes both so the DOM holds the text exactly."""
    from toolkit.views.transcript import judged_text_html

    problems: list[str] = []
    page = _page(browser, problems)
    for text in (
        "\nLenny acts: a\r\nb\rc <script>alert(1)</script> &amp; \u00e9\u2014\t end\n\n",
        "plain",
        "",
    ):
        page.set_content(f"<!doctype html><body>{judged_text_html(text)}</body>")
        assert page.locator("#judged-text").evaluate("e => e.textContent") == text
    assert problems == []
