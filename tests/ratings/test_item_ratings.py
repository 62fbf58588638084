"""Schema 6 of the ratings store: persona items rated 0-9 beside the games' 1-5 ratings.

A version-5 store with a game session migrates and its session, drafts and ratings work
as before; an item rating records the hash of the text rated, is append-only, and its
checks (0-9, a SHA-256, no answers) hold in Python and in SQLite."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.ratings.store import (
    APPLICATION_ID,
    MIGRATIONS,
    SCHEMA_VERSION,
    RatingStore,
    Save,
    SessionItem,
)

H1 = hashlib.sha256(b"one").hexdigest()
H2 = hashlib.sha256(b"two").hexdigest()


def _v5_store_with_a_game_session(path: Path) -> tuple[str, str]:
    """A store as schema 5 wrote it: a game session, a draft, a rating. Returns the
    tokens of ana and of the organiser."""
    con = sqlite3.connect(path)
    for script in MIGRATIONS[:5]:
        con.executescript(script)
    con.execute(
        "INSERT INTO session (id, game_ids, overlap, seed, organiser_token, csrf_secret, "
        "created_at) VALUES (1, '[\"g1\", \"g2\"]', 1, 3, 'org-token', 'secret', "
        "'2026-01-01T09:00:00.000000+00:00')"
    )
    con.execute("INSERT INTO session_raters VALUES ('ana', 'ana-token', 0)")
    con.executemany("INSERT INTO assignments VALUES ('ana', ?, ?)", [(0, "g2"), (1, "g1")])
    con.execute(
        "INSERT INTO rating_events (uid, rater, transcript_id, score, answers, notes, "
        "created_at, instrument) VALUES ('u1', 'ana', 'g1', 4, '{}', 'kept', "
        "'2026-01-01T10:00:00.000000+00:00', '2L-1.0.0')"
    )
    con.execute(
        "INSERT INTO drafts VALUES ('ana', 'g2', 2, '{}', 'half done', "
        "'2026-01-01T10:01:00.000000+00:00')"
    )
    con.execute("PRAGMA user_version = 5")
    con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    con.commit()
    con.close()
    return "ana-token", "org-token"


def test_a_version_5_game_session_migrates_and_works_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "v5.db"
    ana_token, org_token = _v5_store_with_a_game_session(path)
    store = RatingStore(path)
    assert store.schema_version == SCHEMA_VERSION
    session = store.session()
    assert session is not None and session.kind == "games" and session.items == {}
    assert session.raters == {"ana": ana_token} and session.organiser_token == org_token
    assert session.queues == {"ana": ("g2", "g1")}
    assert store.ratings().rows() == [("g1", "ana", 4.0)]
    draft = store.draft("ana", "g2")
    assert draft is not None and (draft.score, draft.notes) == (2, "half done")
    # resuming it as a game session works; as a persona session it is refused by name
    assert store.open_session(["g1", "g2"], ["ana"])[1] is False
    with pytest.raises(InputError, match="holds a rating session of games"):
        store.open_session(["i1"], None, items=[SessionItem("i1", H1)])
    # game ratings keep their 1-5 check
    store.submit("ana", "g2", 5)
    with pytest.raises(InputError, match="from 1 to 5"):
        store.submit("ana", "g2", 0)
    assert sorted(store.ratings()["score"].to_list()) == [4.0, 5.0]


def test_an_item_session_keeps_its_items_hashes_and_what_they_are_about(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "r.db")
    items = [
        SessionItem("chat/lenny/adherence/p1", H1, {"agent": "Lenny", "anchor": "s1-s9"}),
        SessionItem("chat/mags/adherence/p1", H2, {"agent": "Mags"}),
    ]
    session, created = store.open_session([], ["ana", "ben"], 2, 1, items=items)
    assert created and session.kind == "persona"
    again = RatingStore(tmp_path / "r.db").session()
    assert again is not None and again.items == {i.item_id: i for i in items}
    assert set(again.game_ids) == {i.item_id for i in items}
    assert again.queues["ana"] and set(again.queues["ana"]) == set(again.queues["ben"])
    with pytest.raises(InputError, match="holds a rating session of persona chats"):
        store.open_session(["g1"], ["ana", "ben"])  # games into an item session


def test_an_item_rating_is_0_to_9_records_its_text_hash_and_the_latest_counts(
    tmp_path: Path,
) -> None:
    store = RatingStore(tmp_path / "r.db")
    store.save_many([Save("ana", "i1", None, notes="thinking", text_sha256=H1)])
    draft = store.item_draft("ana", "i1")
    assert draft is not None and (draft.score, draft.notes) == (None, "thinking")
    first = store.save_many([Save("ana", "i1", 0, notes="no", submit=True, text_sha256=H1)])
    second = store.save_many([Save("ana", "i1", 9, notes="yes", submit=True, text_sha256=H1)])
    assert isinstance(first[0], int) and isinstance(second[0], int) and second[0] > first[0]
    latest = store.item_latest()
    assert latest.select("rater", "item_id", "score", "notes", "text_sha256").rows() == [
        ("ana", "i1", 9, "yes", H1)
    ]
    assert store.item_rated_ids("ana") == {"i1"} and store.item_rated_ids("ben") == set()
    assert store.latest().height == 0 and store.drafts().height == 0  # games untouched


@pytest.mark.parametrize(
    ("save", "message"),
    [
        (Save("ana", "i1", 10, submit=True, text_sha256=H1), "from 0 to 9"),
        (Save("ana", "i1", -1, text_sha256=H1), "from 0 to 9"),
        (Save("ana", "i1", None, submit=True, text_sha256=H1), "from 0 to 9"),
        (Save("ana", "i1", 3, submit=True, text_sha256="abc"), "64 lowercase hex"),
        (Save("ana", "i1", 3, submit=True, text_sha256=H1.upper()), "64 lowercase hex"),
        (Save("ana", "i1", 3, {"q": True}, submit=True, text_sha256=H1), "no answers"),
        (Save(" ", "i1", 3, submit=True, text_sha256=H1), "non-empty"),
    ],
)
def test_a_bad_item_save_is_refused_before_anything_is_written(
    tmp_path: Path, save: Save, message: str
) -> None:
    store = RatingStore(tmp_path / "r.db")
    ok = Save("ben", "i2", 4, submit=True, text_sha256=H2)
    with pytest.raises(InputError, match=message):
        store.save_many([ok, save])  # all or nothing
    assert store.item_latest().height == 0


def test_item_ratings_are_append_only_and_checked_by_sqlite_too(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "r.db")
    store.save_many([Save("ana", "i1", 3, submit=True, text_sha256=H1)])
    con = sqlite3.connect(store.path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        con.execute("UPDATE item_rating_events SET score = 4")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        con.execute("DELETE FROM item_rating_events")
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        con.execute(
            "INSERT INTO item_rating_events (uid, rater, item_id, score, notes, text_sha256, "
            f"created_at) VALUES ('u9', 'ana', 'i1', 10, '', '{H1}', 'x')"
        )
    con.close()


def test_items_that_show_one_text_come_one_after_another_in_each_queue(tmp_path: Path) -> None:
    texts = [hashlib.sha256(f"window {k}".encode()).hexdigest() for k in range(5)]
    items = [SessionItem(f"chat/agent{k}/dim/p{j}", texts[k]) for k in range(5) for j in range(4)]
    store = RatingStore(tmp_path / "r.db")
    session, _ = store.open_session([], ["ana", "ben", "chloe"], 2, 11, items=items)
    text_of = {i.item_id: i.text_sha256 for i in items}
    for rater, queue in session.queues.items():
        shown = [text_of[i] for i in queue]
        runs = [t for k, t in enumerate(shown) if k == 0 or shown[k - 1] != t]
        assert len(runs) == len(set(shown)), rater  # each text in one run
    assert sorted(i for q in session.queues.values() for i in q) == sorted(
        i.item_id for i in items for _ in range(2)
    )  # still every item to two raters
