"""Required questions (from the instrument's data) refused server-side, and a rater's skip
with its reason stored beside their draft, in process (Starlette's test client). The
browser side is in tests/e2e/test_rater_keys.py."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from toolkit.load.discussion import load_discussion
from toolkit.rating_server import RatingServer, create_app
from toolkit.ratings.store import RatingStore, Session
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE, EngagementScale

BASE = "http://127.0.0.1:8866"


def _scale_with_two_required() -> EngagementScale:
    data = DEFAULT_ENGAGEMENT_SCALE.model_dump()
    data["version"] = "test-required"
    data["questions"][0]["required"] = True  # watch_three_minutes
    data["questions"][3]["required"] = True  # flowed_naturally
    return EngagementScale.model_validate(data)


@pytest.fixture
def served(tmp_path: Path, games: Path) -> tuple[TestClient, Session, RatingStore]:
    discussion = load_discussion(games)
    store = RatingStore(tmp_path / "ratings.db")
    session, _ = store.open_session(discussion.game_ids, ["ana", "ben"], 1, seed=5)
    server = RatingServer.build(store, session, discussion, _scale_with_two_required())
    return TestClient(create_app(server), base_url=BASE), session, store


def _post(client: TestClient, url: str, body: object) -> tuple[int, dict[str, object]]:
    page = client.get(url.rsplit("/", 1)[0])
    found = re.search(r'<meta name="csrf-token" content="([0-9a-f]{64})">', page.text)
    assert found is not None
    response = client.post(
        url,
        content=json.dumps(body),
        headers={"Content-Type": "application/json", "X-CSRF-Token": found.group(1)},
    )
    return response.status_code, response.json()


def test_the_packaged_instrument_requires_no_question_and_keeps_its_fingerprint() -> None:
    assert DEFAULT_ENGAGEMENT_SCALE.required == ()
    # the published 2L-1.0.0 fingerprint, unchanged by the new field at its default
    assert DEFAULT_ENGAGEMENT_SCALE.fingerprint() == "8346ddf9bf174012"
    assert _scale_with_two_required().fingerprint() != "8346ddf9bf174012"


def test_a_submit_with_a_required_question_unanswered_is_refused_and_nothing_is_stored(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    token = session.raters["ana"]
    answers = {"watch_three_minutes": True, "curious_who_mafia": False}
    status, body = _post(client, f"/r/{token}/1/submit", {"score": 4, "answers": answers})
    assert status == 422
    assert body["error"] == (
        "answer the required questions first: "
        "Did the conversation flow naturally (rather than feel scripted)?"
    )
    assert store.events().height == 0  # no partial rating stored as complete
    answers["flowed_naturally"] = False  # "no" is an answer; optional ones may stay open
    status, body = _post(client, f"/r/{token}/1/submit", {"score": 4, "answers": answers})
    assert status == 200 and body["submitted"] is True
    assert store.events().height == 1


def test_the_page_marks_the_required_questions(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, _store = served
    page = client.get(f"/r/{session.raters['ana']}/1").text
    assert page.count('data-required="1"') == 2
    assert page.count("(required)") == 2
    assert '<details id="help"' in page  # the keys' help works without the script
    assert '<button type="button" id="skip" hidden>' in page  # skip needs it: shown by it


def test_a_skip_stores_its_reason_keeps_the_draft_and_moves_on(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    assert len(session.queues["ben"]) == 2  # 3 games, 2 raters, 1 each, seed 5
    token = session.raters["ben"]
    status, _ = _post(client, f"/r/{token}/1/draft", {"score": 2, "notes": "half typed"})
    assert status == 200
    status, body = _post(client, f"/r/{token}/1/skip", {"reason": "  seen it before  "})
    assert status == 200 and body["next"] == f"/r/{token}/2"
    gid = session.queues["ben"][0]
    assert store.skips("ben")[["unit_id", "reason"]].rows() == [(gid, "seen it before")]
    draft = store.draft("ben", gid)
    assert draft is not None and (draft.score, draft.notes) == (2, "half typed")
    assert store.events().height == 0  # a skip is no rating
    page = client.get(f"/r/{token}/1").text
    assert "Skipped (seen it before). You can still rate it." in page
    assert "half typed</textarea>" in page  # the draft is still on the form
    home = client.get(f"/r/{token}", follow_redirects=False)
    assert home.headers["location"] == f"/r/{token}/2"  # the skipped game is set aside
    status, body = _post(client, f"/r/{token}/2/skip", {"reason": "cut off"})
    assert body["next"] == f"/r/{token}/done"  # both skipped: the done page lists them
    done = client.get(f"/r/{token}/done").text
    assert "All done" not in done and done.count("<b>skipped</b>, not submitted yet") == 2


def test_a_skip_without_a_reason_is_refused(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    token = session.raters["ana"]
    for body in ({}, {"reason": "   "}, {"reason": 3}, {"reason": "x" * 2001}):
        status, answer = _post(client, f"/r/{token}/1/skip", body)
        assert status == 422, body
        assert "reason" in str(answer["error"])
    assert store.skips().height == 0


def test_skips_are_append_only_in_the_store(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "ratings.db")
    store.save_skip("ana", "game-1", "seen it")
    store.save_skip("ana", "game-1", "seen it twice")  # a second skip adds, never replaces
    assert store.skips("ana")["reason"].to_list() == ["seen it", "seen it twice"]
    con = sqlite3.connect(tmp_path / "ratings.db")
    for sql in ("UPDATE skip_events SET reason = 'x'", "DELETE FROM skip_events"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            con.execute(sql)
    con.close()
