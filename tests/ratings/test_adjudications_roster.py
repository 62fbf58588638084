"""The organiser's adjudications and mid-session raters in the store (issue 41):
an adjudication is kept beside the raters' ratings (never over them), travels in every
export, backup and restore (once, by uid, in the store's order), and is bounded like a
rater's input; raters added or a rater's games reassigned move only what nobody rated,
drafted or skipped, in one transaction."""

from __future__ import annotations

import csv
import json
import re
import sqlite3
from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.ratings.store import MIGRATIONS, SCHEMA_VERSION, RatingStore


def _rated(tmp_path: Path, name: str = "a.db") -> RatingStore:
    store = RatingStore(tmp_path / name)
    store.open_session(["g1", "g2"], ["ana", "ben"], 2, 1)
    store.submit("ana", "g1", 1, {"watch_another": True}, "dull")
    store.submit("ben", "g1", 4, {"watch_another": False}, "gripping")
    return store


def test_an_adjudication_is_stored_beside_the_ratings_never_over_them(tmp_path: Path) -> None:
    store = _rated(tmp_path)
    before = store.events().drop("event_id").rows()
    store.adjudicate("g1", "score", 3, "ana missed the twist", "org")
    store.adjudicate("g1", "watch_another", True, "", "org")
    assert store.events().drop("event_id").rows() == before  # the raters' originals
    assert sorted(store.latest()["score"].to_list()) == [1, 4]
    got = store.adjudications()[["unit_id", "question", "value", "note", "adjudicator"]].rows()
    assert got == [
        ("g1", "score", "3", "ana missed the twist", "org"),
        ("g1", "watch_another", "true", "", "org"),
    ]
    store.adjudicate("g1", "score", 2, "second look", "org")  # the latest counts
    assert store.adjudications().filter(question="score")["value"].to_list() == ["2"]
    assert store.adjudications(history=True).height == 3
    with sqlite3.connect(tmp_path / "a.db") as con, pytest.raises(sqlite3.IntegrityError):
        con.execute("UPDATE adjudication_events SET value = '5'")  # append-only


@pytest.mark.parametrize(
    ("question", "value", "note", "who"),
    [
        ("score", 2.5, "", "org"),  # not a whole number
        ("score", True, "", "org"),  # a bool is no score
        ("watch_another", 1, "", "org"),  # 1 is a number, not yes
        ("score", 3, "x" * 20_001, "org"),  # a huge note
        ("score", 3, "\ud800", "org"),  # a lone surrogate
        ("score", 3, "", "  "),  # nobody
        ("score", 3, "", "o" * 201),  # an absurd name
        ("", 3, "", "org"),
    ],
)
def test_a_bad_adjudication_is_one_line_and_nothing_stored(
    tmp_path: Path, question: str, value: object, note: str, who: str
) -> None:
    store = _rated(tmp_path)
    with pytest.raises(InputError):
        store.adjudicate("g1", question, value, note, who)  # type: ignore[arg-type]
    assert store.adjudications(history=True).height == 0


@pytest.mark.parametrize("target", ["bk", "bk.zip", "csv"])
def test_backup_and_restore_carry_adjudications_once(tmp_path: Path, target: str) -> None:
    store = _rated(tmp_path)
    store.adjudicate("g1", "score", 3, "=cmd and a, comma\nnewline", "org")
    fmt = "csv" if target == "csv" else "parquet"
    path = tmp_path / ("bk" if target == "csv" else target)
    store.backup(path, fmt=fmt)
    fresh = RatingStore(tmp_path / "b.db")
    assert fresh.restore(path)["adjudications"] == 1
    assert fresh.restore(path)["adjudications"] == 0  # twice adds nothing
    cols = ["uid", "unit_id", "question", "value", "note", "adjudicator", "created_at"]
    assert fresh.adjudications()[cols].rows() == store.adjudications()[cols].rows()
    if target == "csv":
        with open(path / "adjudications.csv", newline="", encoding="utf-8") as fh:
            (row,) = list(csv.DictReader(fh))
        assert row["note"].startswith("'=cmd")  # a formula in a spreadsheet: text


def test_an_older_adjudication_restored_never_counts_over_a_newer_one(tmp_path: Path) -> None:
    store = _rated(tmp_path)
    store.adjudicate("g1", "score", 2, "first", "org")
    store.backup(tmp_path / "old")
    store.adjudicate("g1", "score", 4, "second", "org")
    fresh = _rated(tmp_path, "b.db")
    # the same session? no: a different one; import the parts instead
    fresh.import_events(tmp_path / "old" / "adjudications.parquet", what="adjudications")
    fresh.adjudicate("g1", "score", 5, "mine", "org")
    store.export(tmp_path / "new.parquet", what="adjudications")
    fresh.import_events(tmp_path / "new.parquet", what="adjudications")
    # 'second' came after 'first' in its store, but 'mine' is this store's latest and
    # the backup never saw it: what counts here stays
    assert fresh.adjudications().filter(question="score")["note"].to_list() == ["mine"]


def test_a_bad_row_of_an_adjudications_export_is_named(tmp_path: Path) -> None:
    store = _rated(tmp_path)
    store.adjudicate("g1", "score", 3, "", "org")
    part = store.export(tmp_path / "a.csv", what="adjudications")
    text = part.read_text(encoding="utf-8").replace(",3,", ",seven,")
    part.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"a\.csv:2: value=.seven."):
        RatingStore(tmp_path / "b.db").import_events(part, what="adjudications")


def test_a_store_of_the_previous_schema_gains_the_tables(tmp_path: Path) -> None:
    _rated(tmp_path)
    # the schema before the adjudications' migration: it and every later one undone
    before = next(i for i, m in enumerate(MIGRATIONS) if "adjudication_events" in m)
    with sqlite3.connect(tmp_path / "a.db") as con:
        con.execute("DROP TABLE adjudication_events")
        con.execute("ALTER TABLE session_raters DROP COLUMN taking")
        for later in MIGRATIONS[before + 1 :]:
            for table in re.findall(r"CREATE TABLE (\w+)", later):
                con.execute(f"DROP TABLE {table}")
        con.execute(f"PRAGMA user_version = {before}")
    again = RatingStore(tmp_path / "a.db")
    assert again.schema_version == SCHEMA_VERSION
    assert again.adjudications().height == 0
    assert again.session() is not None and again.session().off == ()  # type: ignore[union-attr]


def _overlap_ok(store: RatingStore) -> None:
    session = store.session()
    assert session is not None
    for g in session.game_ids:
        assert sum(g in q for q in session.queues.values()) >= session.overlap


def test_a_rater_added_mid_session_gets_a_queue_and_nothing_saved_moves(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "a.db")
    games = [f"g{i}" for i in range(12)]
    session, _ = store.open_session(games, ["ana", "ben", "chidi"], 2, 7)
    ana = session.queues["ana"]
    store.submit("ana", ana[0], 3, {}, "")
    store.save_draft("ana", ana[1], 2, {}, "half")
    store.save_skip("ana", ana[2], "seen it")
    before = store.events().rows()
    after = store.add_raters(["Dana"])
    assert set(after.raters) == {"ana", "ben", "chidi", "Dana"}
    assert after.raters["ana"] == session.raters["ana"]  # links unchanged
    assert after.queues["ana"][:3] == ana[:3]  # rated, drafted, skipped: where they were
    assert len(after.queues["Dana"]) > 0
    _overlap_ok(store)
    open_loads = [
        len([g for g in q if g not in (ana[:3] if r == "ana" else ())])
        for r, q in after.queues.items()
    ]
    assert max(open_loads) - min(open_loads) <= 1
    assert store.events().rows() == before
    with pytest.raises(InputError, match="already"):
        store.add_raters(["dana"])  # capitals do not matter
    with pytest.raises(InputError):
        store.add_raters(["x" * 201])


def test_reassigning_a_rater_moves_only_their_open_games(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "a.db")
    session, _ = store.open_session([f"g{i}" for i in range(9)], ["ana", "ben", "chidi"], 1, 3)
    ben = session.queues["ben"]
    store.submit("ben", ben[0], 4, {}, "")
    after = store.reassign("ben")
    assert after.queues["ben"] == (ben[0],)
    assert after.off == ("ben",)
    _overlap_ok(store)
    assert abs(len(after.queues["ana"]) - len(after.queues["chidi"])) <= 1
    later = store.add_raters(["dana"])  # ben takes nothing new
    assert later.queues["ben"] == (ben[0],)
    assert json.loads(json.dumps(later.queues)) is not None
    with pytest.raises(InputError, match="no such rater"):
        store.reassign("nobody")


@pytest.mark.parametrize("second", ["dan", "Dan"])
def test_two_organisers_adding_the_same_name_at_once_get_one_rater(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, second: str
) -> None:
    """Found in review: the name was checked against the session read before the write,
    so a "dan" added by another process in between gave an IntegrityError traceback
    ("dan") or a second rater of the same name in other capitals ("Dan")."""
    store = _rated(tmp_path)
    other = RatingStore(store.path)
    read = store._held_session
    calls = []

    def racing() -> object:
        held = read()
        calls.append(1)
        if len(calls) == 1:  # between this process's read and its write
            other.add_raters(["dan"])
        return held

    monkeypatch.setattr(store, "_held_session", racing)
    with pytest.raises(InputError, match="in the session already"):
        store.add_raters([second])
    session = RatingStore(store.path).session()
    assert session is not None
    assert [r for r in session.raters if r.casefold() == "dan"] == ["dan"]


def test_an_adjudicated_value_nested_too_deep_is_one_line(tmp_path: Path) -> None:
    """Found in review: json.loads of a value 100,000 brackets deep raised RecursionError
    (a traceback) instead of naming the file, line and field."""
    store = _rated(tmp_path)
    store.adjudicate("g1", "score", 3, "", "org")
    part = store.export(tmp_path / "a.csv", what="adjudications")
    deep = "[" * 100_000 + "]" * 100_000
    part.write_text(part.read_text(encoding="utf-8").replace(",3,", f",{deep},"), "utf-8")
    with pytest.raises(InputError, match=r"a\.csv:2: value="):
        RatingStore(tmp_path / "b.db").import_events(part, what="adjudications")
