"""Persona chats in the rating server: a rater sees each item's text exactly as the judge
reads it (hash of the prompt's text == hash of the page's text, for every item of the
samples), rates it 0-9 with notes, drafts and submits as for games, the store records
the hash of the text rated, a changed chat is refused by name, and the organiser's page
and exports carry the items."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from toolkit.judge import build_prompt
from toolkit.load.persona import load_chat, load_propositions
from toolkit.rating_server import RatingServer, create_app
from toolkit.ratings.store import RatingStore, Session, SessionItem
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE
from toolkit.rubrics.persona_items import PersonaItem, persona_items_of

BASE = "http://127.0.0.1:8866"
CHATS = ("radio-week1.jsonl", "radio-week2.jsonl", "radio-week1.run_messages.json")


class _Pre(HTMLParser):
    """The text content of the element with id ``judged-text`` (character references
    decoded, as a browser does)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth:
            self.depth += 1
        elif ("id", "judged-text") in attrs:
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.parts.append(data)


def page_text(html: str) -> str | None:
    """The judged text as it stands on a served page, read from its HTML."""
    parser = _Pre()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts) if "judged-text" in html else None


def prompt_text(item: PersonaItem) -> str:
    """The conversation part of the user prompt the judge receives for the item: what
    follows ``TRAJECTORY:`` up to the reply instruction (cut from build_prompt's output,
    not rebuilt by the code under test)."""
    _system, user = build_prompt([item.request])
    start = user.index("TRAJECTORY:\n") + len("TRAJECTORY:\n")
    end = user.rindex("\n\nReply with")
    return user[start:end]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chat_copies(tmp_path: Path, sample_runs: Path) -> list[Path]:
    folder = tmp_path / "chats"
    folder.mkdir(exist_ok=True)
    out = []
    for name in CHATS:
        shutil.copy(sample_runs / "persona" / name, folder / name)
        out.append(folder / name)
    return out


def build_items(chats: list[Path], sample_runs: Path) -> list[PersonaItem]:
    props = load_propositions(sample_runs / "persona" / "propositions")
    personas = sample_runs / "persona" / "personas.yaml"
    loaded = [
        (load_chat(c, personas=personas if c.name.endswith(".run_messages.json") else None), str(c))
        for c in chats
    ]
    return persona_items_of(loaded, props)


def session_items(items: list[PersonaItem]) -> list[SessionItem]:
    return [
        SessionItem(
            i.item_id,
            i.text_sha256,
            {
                "agent": i.agent,
                "proposition": i.proposition,
                "dimension": i.dimension,
                "source": i.source,
                "anchor": i.anchor,
            },
        )
        for i in items
    ]


Served = tuple[TestClient, Session, RatingStore, list[PersonaItem]]


@pytest.fixture
def served(tmp_path: Path, sample_runs: Path) -> Served:
    items = build_items(chat_copies(tmp_path, sample_runs), sample_runs)
    store = RatingStore(tmp_path / "ratings.db")
    session, created = store.open_session(
        [i.item_id for i in items], ["ana", "ben", "chloe"], 2, 5, items=session_items(items)
    )
    assert created and session.kind == "persona"
    server = RatingServer.build_persona(store, session, items, DEFAULT_ENGAGEMENT_SCALE)
    return TestClient(create_app(server), base_url=BASE), session, store, items


def _csrf(page: str) -> str:
    found = re.search(r'<meta name="csrf-token" content="([0-9a-f]{64})">', page)
    assert found is not None
    return found.group(1)


def _post(client: TestClient, url: str, csrf: str, body: object) -> tuple[int, dict[str, object]]:
    response = client.post(
        url,
        content=json.dumps(body),
        headers={"Content-Type": "application/json", "X-CSRF-Token": csrf},
    )
    return response.status_code, response.json()


def test_every_item_of_the_samples_shows_the_text_the_judge_receives(served: Served) -> None:
    client, session, _store, items = served
    by_id = {i.item_id: i for i in items}
    assert len(items) > 100  # three chats, four agents, four 0-9 dimensions
    seen: set[str] = set()
    for rater, token in session.raters.items():
        for n, item_id in enumerate(session.queues[rater], start=1):
            html = client.get(f"/r/{token}/{n}").text
            on_page = page_text(html)
            assert on_page is not None, (rater, n)
            assert sha(on_page) == sha(prompt_text(by_id[item_id])), item_id
            assert sha(on_page) == session.items[item_id].text_sha256
            seen.add(item_id)
    assert seen == set(by_id)  # every item, on some rater's page


def test_the_text_of_a_batched_prompt_is_the_same_text(served: Served) -> None:
    _client, _session, _store, items = served
    # the rubric sends propositions that share a window in one call: same text
    same = [i for i in items if i.request.trajectory == items[0].request.trajectory]
    assert len(same) > 1
    _system, user = build_prompt([i.request for i in same])
    start = user.index("TRAJECTORY:\n") + len("TRAJECTORY:\n")
    assert user[start : user.rindex("\n\nReply with")] == prompt_text(items[0])


def test_items_with_evidence_show_the_evidence_after_the_conversation(served: Served) -> None:
    client, session, _store, items = served
    with_evidence = [i for i in items if i.request.evidence]
    assert {i.dimension for i in with_evidence} == {"fluency", "convergence"}
    item = with_evidence[0]
    rater = next(r for r, q in session.queues.items() if item.item_id in q)
    n = session.queues[rater].index(item.item_id) + 1
    shown = page_text(client.get(f"/r/{session.raters[rater]}/{n}").text)
    assert shown is not None and "SUPPLEMENTARY EVIDENCE" in shown
    assert shown.endswith(item.request.evidence or "")


def test_the_page_shows_the_claim_and_the_0_to_9_scale_but_no_item_id(served: Served) -> None:
    client, session, _store, items = served
    token = session.raters["ana"]
    item_id = session.queues["ana"][0]
    item = next(i for i in items if i.item_id == item_id)
    page = client.get(f"/r/{token}/1").text
    assert f"Item 1 of {len(session.queues['ana'])}" in page
    assert item.claim.replace("'", "&#39;") in page
    assert len(re.findall(r'<input type="radio" name="score" value="\d"', page)) == 10
    assert "0: the claim is certainly false" in page and "9: the claim is certainly true" in page
    assert item_id not in page and item.run not in page  # neutral label only


def test_a_draft_and_a_rating_are_0_to_9_with_notes_and_record_the_text_hash(
    served: Served,
) -> None:
    client, session, store, _items = served
    token = session.raters["ben"]
    csrf = _csrf(client.get(f"/r/{token}/2").text)
    item_id = session.queues["ben"][1]
    status, _ = _post(client, f"/r/{token}/2/draft", csrf, {"score": 0, "notes": "no memo"})
    assert status == 200
    draft = store.item_draft("ben", item_id)
    assert draft is not None and (draft.score, draft.notes) == (0, "no memo")
    page = client.get(f"/r/{token}/2").text  # the draft is back on the form
    assert 'value="0"\n             checked' in page and "no memo" in page
    for bad in ({"score": 10}, {"score": -1}, {"score": 4.5}, {"score": 3, "answers": {"x": True}}):
        assert _post(client, f"/r/{token}/2/draft", csrf, bad)[0] == 422
    status, body = _post(client, f"/r/{token}/2/submit", csrf, {"score": 9, "notes": "fits"})
    assert status == 200 and body["next"] == f"/r/{token}/3"  # the next one not submitted
    rating = store.item_latest("ben").row(0, named=True)
    assert (rating["item_id"], rating["score"], rating["notes"]) == (item_id, 9, "fits")
    assert rating["text_sha256"] == session.items[item_id].text_sha256
    assert store.latest().height == 0  # nothing went to the games' 1-5 table


def test_another_raters_token_can_neither_read_nor_write(served: Served) -> None:
    client, session, store, _items = served
    ana, ben = session.raters["ana"], session.raters["ben"]
    ana_csrf = _csrf(client.get(f"/r/{ana}/1").text)
    # ben's address with ana's CSRF token: refused, nothing saved
    assert _post(client, f"/r/{ben}/1/draft", ana_csrf, {"score": 5})[0] == 403
    assert store.item_drafts().height == 0
    assert client.get("/r/not-a-token/1").status_code == 404
    assert client.get(f"/o/{ana}").status_code == 404  # a rater is no organiser


def test_a_chat_changed_since_the_session_began_is_refused_by_name(
    tmp_path: Path, sample_runs: Path, served: Served
) -> None:
    _client, session, store, _items = served
    chats = [tmp_path / "chats" / name for name in CHATS]
    text = chats[0].read_text("utf-8")
    assert "Gala costs money." in text
    chats[0].write_text(text.replace("Gala costs money.", "Galas cost money."), "utf-8")
    rebuilt = build_items(chats, sample_runs)
    server = RatingServer.build_persona(store, session, rebuilt, DEFAULT_ENGAGEMENT_SCALE)
    assert server.changed  # Otis's items of week 1 (and the group's)
    assert all(i.startswith("radio-week1/") for i in server.changed)
    assert any(i.startswith("radio-week1/otis/") for i in server.changed)
    client = TestClient(create_app(server), base_url=BASE)
    rater, queue = next((r, q) for r, q in session.queues.items() if server.changed[0] in q)
    n = queue.index(server.changed[0]) + 1
    token = session.raters[rater]
    page = client.get(f"/r/{token}/{n}").text
    assert "changed since the session began" in page and page_text(page) is None
    status, body = _post(client, f"/r/{token}/{n}/submit", _csrf(page), {"score": 4})
    assert status == 409 and "changed" in str(body["error"])
    assert store.item_latest().height == 0


def test_the_organiser_sees_items_and_exports_them_with_what_they_are_about(
    served: Served,
) -> None:
    client, session, _store, items = served
    token = session.raters["chloe"]
    csrf = _csrf(client.get(f"/r/{token}/1").text)
    assert _post(client, f"/r/{token}/1/submit", csrf, {"score": 7, "notes": 'a, "b"'})[0] == 200
    org = session.organiser_token
    page = client.get(f"/o/{org}").text
    assert f"{len(items)} items" in page and "scale 0–9" in page
    assert "1 of " in page  # chloe's progress
    rows = list(csv.DictReader(io.StringIO(client.get(f"/o/{org}/ratings.csv").text)))
    assert len(rows) == 1
    item = next(i for i in items if i.item_id == session.queues["chloe"][0])
    row = rows[0]
    assert list(row)[:11] == [
        "item", "rater", "score", "notes", "agent", "proposition", "dimension", "source",
        "anchor", "text_sha256", "created_at",
    ]  # fmt: skip
    assert (row["item"], row["rater"], row["score"], row["notes"]) == (
        item.item_id, "chloe", "7", 'a, "b"',
    )  # fmt: skip
    assert (row["agent"], row["proposition"], row["dimension"]) == (
        item.agent, item.proposition, item.dimension,
    )  # fmt: skip
    assert (row["source"], row["anchor"], row["text_sha256"]) == (
        item.source, item.anchor, item.text_sha256,
    )  # fmt: skip
    data = client.get(f"/o/{org}/ratings.json").json()
    assert data["kind"] == "persona" and data["ratings"][0]["item"] == item.item_id


HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> & \r\n  carriage\rreturn'


def test_hostile_chat_text_is_escaped_and_still_hashes_to_the_judges_text(
    tmp_path: Path, sample_runs: Path
) -> None:
    chats = chat_copies(tmp_path, sample_runs)
    lines = chats[0].read_text("utf-8").splitlines()
    edited = []
    for line in lines:
        record = json.loads(line)
        if record.get("text") == "Gala costs money. Transmitter costs money. Pick one.":
            record["text"] = "Gala " + HOSTILE
        edited.append(json.dumps(record))
    assert edited != lines
    chats[0].write_text("\n".join(edited) + "\n", "utf-8")
    items = build_items(chats, sample_runs)
    hostile = [i for i in items if "<script>" in i.text]
    assert hostile and any("\r" in i.text for i in hostile)  # the loader kept the text
    store = RatingStore(tmp_path / "ratings.db")
    session, _ = store.open_session([], ["ana"], 1, 1, items=session_items(items))
    server = RatingServer.build_persona(store, session, items, DEFAULT_ENGAGEMENT_SCALE)
    client = TestClient(create_app(server), base_url=BASE)
    token = session.raters["ana"]
    for item in hostile:
        n = session.queues["ana"].index(item.item_id) + 1
        html = client.get(f"/r/{token}/{n}").text
        assert "<script>alert" not in html and "<img src=x" not in html
        on_page = page_text(html)
        assert on_page is not None and sha(on_page) == sha(prompt_text(item))
