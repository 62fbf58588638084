"""The store's rating-session API (raters, tokens, queues, drafts, submit), the balanced
assignment, and a damaged or foreign store refused in one line (issue 29 items 4 and 7)."""

from __future__ import annotations

import hashlib
import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.errors import InputError
from toolkit.ratings.assign import assign_games, parse_raters
from toolkit.ratings.store import RatingStore, Save
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

GAMES = [f"game-{i:02d}" for i in range(12)]


# -- assignment ---------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    n_games=st.integers(1, 40),
    n_raters=st.integers(1, 8),
    data=st.data(),
    seed=st.integers(0, 2**31 - 1),
)
def test_every_game_goes_to_overlap_distinct_raters_and_queues_differ_by_at_most_one(
    n_games: int, n_raters: int, data: st.DataObject, seed: int
) -> None:
    overlap = data.draw(st.integers(1, n_raters))
    games = [f"g{i}" for i in range(n_games)]
    raters = [f"r{i}" for i in range(n_raters)]
    queues = assign_games(games, raters, overlap, seed)
    per_game = Counter(g for q in queues.values() for g in q)
    assert per_game == dict.fromkeys(games, overlap)
    assert all(len(set(q)) == len(q) for q in queues.values())  # no game twice to a rater
    sizes = [len(q) for q in queues.values()]
    assert max(sizes) - min(sizes) <= 1
    assert sum(sizes) == n_games * overlap


def test_the_same_seed_gives_the_same_assignment_and_another_seed_another_order() -> None:
    raters = ["ana", "ben", "chidi"]
    first = assign_games(GAMES, raters, 2, seed=7)
    assert assign_games(list(reversed(GAMES)), raters, 2, seed=7) == first
    other = assign_games(GAMES, raters, 2, seed=8)
    assert other != first
    # each rater's queue is shuffled, not the games in their listed order
    assert any(list(q) != sorted(q) for q in first.values())


@pytest.mark.parametrize("overlap", [0, 4])
def test_an_overlap_outside_one_to_the_number_of_raters_is_refused(overlap: int) -> None:
    with pytest.raises(InputError, match="overlap must be from 1 to the number of raters"):
        assign_games(GAMES, ["ana", "ben", "chidi"], overlap, seed=1)


@pytest.mark.parametrize(
    ("text", "message"),
    [("ana,,ben", "non-empty"), ("ana,Ana", "named twice"), (" ", "non-empty")],
)
def test_rater_lists_with_an_empty_or_repeated_name_are_refused(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_raters(text)
    assert parse_raters(" ana , ben") == ("ana", "ben")


# -- sessions -----------------------------------------------------------------


def test_a_session_is_created_once_and_resumed_with_the_same_tokens_and_queues(
    tmp_path: Path,
) -> None:
    store = RatingStore(tmp_path / "r.db")
    session, created = store.open_session(GAMES, ["ana", "ben", "chidi"], overlap=2, seed=3)
    assert created
    assert session.queues == assign_games(GAMES, ["ana", "ben", "chidi"], 2, 3)
    tokens = [*session.raters.values(), session.organiser_token]
    assert len(set(tokens)) == 4
    assert all(len(t) >= 32 for t in tokens)  # 24 random bytes, URL-safe
    assert "seed 3" in repr(session) and not any(t in repr(session) for t in tokens)

    again, created_again = RatingStore(tmp_path / "r.db").open_session(GAMES)
    assert not created_again
    assert again == session
    assert again.rater_of(session.raters["ben"]) == "ben"
    assert again.rater_of(session.organiser_token) is None
    assert again.rater_of("x" * 32) is None
    assert again.is_organiser(session.organiser_token)


def test_a_store_without_a_session_needs_raters(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no rating session yet: name the raters"):
        RatingStore(tmp_path / "r.db").open_session(GAMES)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"raters": ["ana", "dee"]}, "--raters"),
        ({"raters": ["ana", "ben"], "overlap": 1}, "--overlap"),
        ({"raters": ["ana", "ben"], "seed": 4}, "--seed"),
    ],
)
def test_resuming_with_other_raters_overlap_or_seed_is_refused(
    tmp_path: Path, kwargs: dict[str, object], field: str
) -> None:
    store = RatingStore(tmp_path / "r.db")
    store.open_session(GAMES, ["ana", "ben"], overlap=2, seed=3)
    with pytest.raises(InputError, match="holds a session with") as err:
        store.open_session(GAMES, **kwargs)  # type: ignore[arg-type]
    assert err.value.field == field
    # the same raters in other capitals resume it
    assert not store.open_session(GAMES, ["Ana", "BEN"])[1]


# -- drafts and submit --------------------------------------------------------


def test_a_draft_is_replaced_by_the_next_and_never_counts_as_a_rating(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "r.db")
    assert store.draft("ana", "g1") is None
    store.save_draft("ana", "g1", None, {"watch_another": True}, "")
    store.save_draft("ana", "g1", 4, {"watch_another": True, "agent_stood_out": None}, "tense")
    draft = store.draft("ana", "g1")
    assert draft is not None
    assert (draft.score, draft.answers, draft.notes) == (4, {"watch_another": True}, "tense")
    assert store.draft("ben", "g1") is None
    assert store.events().height == 0
    assert store.ratings().height == 0


@pytest.mark.parametrize("score", [0, 6, 2.5, "4", True])
def test_a_draft_with_a_score_off_the_scale_is_refused(tmp_path: Path, score: object) -> None:
    store = RatingStore(tmp_path / "r.db")
    with pytest.raises(InputError, match="score must be a whole number from 1 to 5"):
        store.save_draft("ana", "g1", score)  # type: ignore[arg-type]
    assert store.draft("ana", "g1") is None


def test_submit_saves_the_rating_stamped_with_its_instrument_and_the_draft_together(
    tmp_path: Path,
) -> None:
    store = RatingStore(tmp_path / "r.db", instrument=DEFAULT_ENGAGEMENT_SCALE.version)
    store.save_draft("ana", "g1", 2, {}, "first look")
    event_id = store.submit("ana", "g1", 5, {"watch_another": True}, "changed my mind")
    row = store.events().row(0, named=True)
    assert row["event_id"] == event_id
    assert (row["score"], row["notes"], row["instrument"]) == (5, "changed my mind", "2L-1.0.0")
    draft = store.draft("ana", "g1")
    assert draft is not None and (draft.score, draft.notes) == (5, "changed my mind")
    store.submit("ana", "g2", 3, instrument="team-2.0")
    assert store.latest("ana")["instrument"].to_list() == ["2L-1.0.0", "team-2.0"]


def test_the_instrument_comes_from_the_caller_and_a_rating_without_one_says_so(
    tmp_path: Path,
) -> None:
    # The store knows no rubric: the instrument a rating is stamped with is the save's,
    # else the one the store was opened with, else "" (not known).
    bare = RatingStore(tmp_path / "r.db")
    bare.submit("ana", "g1", 4)
    bare.save_many([Save("ana", "g2", 3, submit=True, instrument="team-2.0")])
    assert bare.latest("ana")["instrument"].to_list() == ["", "team-2.0"]
    team = RatingStore(tmp_path / "r.db", instrument=" team-3.0 ")
    team.save_rating("ben", "g1", 5)
    assert team.latest("ben")["instrument"].to_list() == ["team-3.0"]
    with pytest.raises(InputError, match="must be a non-empty string"):
        RatingStore(tmp_path / "r.db", instrument="   ")


def test_a_submit_that_fails_leaves_neither_the_rating_nor_the_draft(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "r.db")
    store.save_draft("ana", "g1", 2, {}, "before")

    def boom() -> None:
        raise OSError("disk pulled")

    store._before_commit = boom
    with pytest.raises(OSError, match="disk pulled"):
        store.submit("ana", "g1", 5, {}, "after")
    store._before_commit = None
    assert store.events().height == 0
    draft = store.draft("ana", "g1")
    assert draft is not None and draft.notes == "before"


# -- a damaged store (issue 29 item 7) ----------------------------------------


def _filled(path: Path) -> bytes:
    store = RatingStore(path)
    store.open_session([f"g{i}" for i in range(30)], ["ana", "ben"], overlap=2, seed=1)
    for i in range(30):
        store.save_draft("ana", f"g{i}", 3, {"watch_another": True}, "draft " * 10)
        store.submit("ben", f"g{i}", 4, {"agent_stood_out": False}, "note " * 20)
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return path.read_bytes()


def _read_everything(path: Path) -> None:
    store = RatingStore(path)
    store.events()
    store.latest()
    store.ratings()
    store.label_events()
    store.session()
    store.draft("ana", "g3")


def test_flipped_bytes_give_the_one_line_damaged_store_error_never_another_exception(
    tmp_path: Path,
) -> None:
    clean = _filled(tmp_path / "clean.db")
    # Half the trials flip a high bit inside the schema's own SQL text (SQLite then
    # complains with the damaged, non-UTF-8 bytes in its message), half flip bits anywhere.
    schema_text = [i for i in range(len(clean)) if clean.startswith(b"CREATE", i)]
    rng = random.Random(29)
    refused = 0
    for trial in range(120):
        damaged = bytearray(clean)
        if trial % 2:
            damaged[rng.choice(schema_text) + rng.randrange(0, 80)] ^= 0x80
        else:
            for _ in range(6):
                at = rng.randrange(100, len(damaged))
                damaged[at] ^= 1 << rng.randrange(8)
        path = tmp_path / f"damaged-{trial}.db"
        path.write_bytes(bytes(damaged))
        try:
            _read_everything(path)
        except InputError as exc:
            refused += 1
            text = str(exc)
            assert "\n" not in text
            assert text.startswith(str(path))
            assert "damaged" in text
    assert refused > 10  # the corpus does reach the damage it is meant to test


def _bypass(path: Path, sql: str) -> None:
    """Write what the store's own checks refuse, as a hand edit or a flipped byte would."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA ignore_check_constraints = ON")
    con.execute(sql)
    con.commit()
    con.close()


@pytest.mark.parametrize("score", ["9", "'four'", "3.5", "NULL"])
def test_a_stored_score_off_the_scale_or_not_a_number_is_a_damaged_store(
    tmp_path: Path, score: str
) -> None:
    path = tmp_path / "r.db"
    RatingStore(path).save_rating("ana", "g1", 4)
    if score == "NULL":  # NOT NULL is not a CHECK: rebuild the row through a view of bytes
        score = "x'00'"
    _bypass(
        path,
        "INSERT INTO rating_events (uid, rater, transcript_id, score, answers, notes, "
        f"created_at) VALUES ('u2', 'ben', 'g1', {score}, '{{}}', '', "
        "'2026-01-01T10:00:00.000000+00:00')",
    )
    store = RatingStore(path)
    for read in (store.events, store.latest, store.ratings):
        with pytest.raises(InputError, match="damaged ratings store") as err:
            read()
        assert err.value.field == "rating_events.score"


# -- a SQLite file of another kind (issue 29 item 4) ---------------------------


def test_a_game_database_named_as_the_store_is_refused_before_a_byte_changes(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE Game (id TEXT)")
    con.execute("INSERT INTO Game VALUES ('g1')")
    con.commit()
    con.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    with pytest.raises(InputError, match="not a toolkit ratings store"):
        RatingStore(db)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.db"]  # no -wal, no -shm
