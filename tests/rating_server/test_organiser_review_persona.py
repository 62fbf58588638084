"""The organiser's review of a persona session (issue 41): items rated 0-9 disagree when
two scores are 2 or more apart; the adjudicated score is on the 0-9 scale and exported
beside the originals; a rater added gets the items of one text one after another."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient
from test_persona_pages import build_items, chat_copies, session_items

from toolkit.rating_server import RatingServer, create_app
from toolkit.ratings.store import RatingStore, Save
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

BASE = "http://127.0.0.1:8866"
FORM = {"Content-Type": "application/x-www-form-urlencoded", "Origin": BASE}


def test_persona_disagreements_adjudication_and_a_rater_added(
    tmp_path: Path, sample_runs: Path
) -> None:
    items = build_items(chat_copies(tmp_path, sample_runs), sample_runs)
    store = RatingStore(tmp_path / "ratings.db")
    session, _ = store.open_session(
        [i.item_id for i in items], ["ana", "ben", "chloe"], 2, 5, items=session_items(items)
    )
    server = RatingServer.build_persona(store, session, items, DEFAULT_ENGAGEMENT_SCALE)
    client = TestClient(create_app(server), base_url=BASE)
    digest = {i.item_id: i.text_sha256 for i in items}
    shared = [i for i in session.queues["ana"] if i in session.queues["ben"]][:2]
    far, near = shared
    store.save_many(
        [
            Save("ana", far, 2, submit=True, text_sha256=digest[far]),
            Save("ben", far, 8, submit=True, text_sha256=digest[far]),
            Save("ana", near, 5, submit=True, text_sha256=digest[near]),
            Save("ben", near, 6, submit=True, text_sha256=digest[near]),
        ]
    )
    org = f"/o/{session.organiser_token}"
    page = client.get(f"{org}/disagreements").text
    assert page.count('class="disagreement"') == 1 and far in page and near not in page
    csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
    assert csrf is not None
    body = {"csrf": csrf.group(1), "unit": far, "question": "score", "value": "9",
            "note": "", "adjudicator": "org"}  # fmt: skip
    assert client.post(f"{org}/adjudicate", data=body, headers=FORM).status_code == 200
    body["value"] = "10"
    assert client.post(f"{org}/adjudicate", data=body, headers=FORM).status_code == 422
    exported = client.get(f"{org}/ratings.json").json()
    assert [(a["unit"], a["adjudicated"]) for a in exported["adjudications"]] == [(far, 9)]
    assert sorted(r["score"] for r in exported["ratings"] if r["item"] == far) == [2, 8]
    assert "Rater: ana" in client.get(f"{org}/raters/0").text

    after = store.add_raters(["dana"])
    queue = after.queues["dana"]
    assert queue
    texts = [digest[i] for i in queue]
    # the items of one text one after another: each text's items form one run
    runs = [t for k, t in enumerate(texts) if k == 0 or texts[k - 1] != t]
    assert len(runs) == len(set(texts))
