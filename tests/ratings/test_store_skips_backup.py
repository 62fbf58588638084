"""A rater's skips and their typed reasons travel in every export and backup: restored
into a fresh store as typed (a formula-like reason through the CSV too), matched by
their unique ids so a second import adds nothing, another session's skips kept as that
session's data and never shown here, and a backup written before skips were backed up
restores as it did."""

from __future__ import annotations

import csv
import os
import re
import sqlite3
import zipfile
from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.ratings.store import SCHEMA_VERSION, RatingStore

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def _reasons(store: RatingStore) -> list[tuple[str, str, str]]:
    return store.skips()[["rater", "unit_id", "reason"]].rows()


def _session_store(path: Path) -> RatingStore:
    store = RatingStore(path)
    store.open_session(["g1", "g2"], ["ana", "ben"], 2, 1)
    return store


def test_a_formula_like_reason_is_neutralised_in_the_csv_and_restored_as_typed(
    tmp_path: Path,
) -> None:
    store = RatingStore(tmp_path / "a.db")
    store.save_skip("ana", "g1", "=cmd")
    store.save_skip("ben", "g2", '+1, "quoted"\nsecond line')
    store.backup(tmp_path / "bk", fmt="csv")
    with open(tmp_path / "bk" / "skips.csv", newline="", encoding="utf-8") as fh:
        cells = [(r["rater"], r["reason"]) for r in csv.DictReader(fh)]
    # read by the standard library: the leading quote OWASP's CSV-injection advice adds
    assert cells == [("ana", "'=cmd"), ("ben", '\'+1, "quoted"\nsecond line')]

    fresh = RatingStore(tmp_path / "b.db")
    assert fresh.restore(tmp_path / "bk")["skips"] == 2
    assert _reasons(fresh) == [("ana", "g1", "=cmd"), ("ben", "g2", '+1, "quoted"\nsecond line')]
    assert fresh.skips()["uid"].to_list() == store.skips()["uid"].to_list()


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_importing_the_skips_export_twice_adds_nothing_the_second_time(
    tmp_path: Path, suffix: str
) -> None:
    store = RatingStore(tmp_path / "a.db")
    store.save_skip("ana", "g1", "seen it")
    store.save_skip("ana", "g1", "seen it twice")
    part = store.export(tmp_path / f"skips.{suffix}", what="skips")
    other = RatingStore(tmp_path / "b.db")
    other.save_skip("ben", "g2", "already here")
    assert other.import_events(part, what="skips") == 2
    assert other.import_events(part, what="skips") == 0
    assert _reasons(other) == [
        ("ben", "g2", "already here"),
        ("ana", "g1", "seen it"),
        ("ana", "g1", "seen it twice"),
    ]


@pytest.mark.parametrize("as_zip", [False, True])
def test_a_backup_written_before_skips_were_backed_up_restores_as_before(
    tmp_path: Path, as_zip: bool
) -> None:
    store = RatingStore(tmp_path / "a.db")
    store.submit("ana", "g1", 4, notes="kept")
    store.backup(tmp_path / "old")
    os.remove(tmp_path / "old" / "skips.parquet")  # what a backup of the older toolkit held
    source: Path = tmp_path / "old"
    if as_zip:
        source = tmp_path / "old.zip"
        with zipfile.ZipFile(source, "w") as archive:
            for name in sorted(os.listdir(tmp_path / "old")):
                archive.write(tmp_path / "old" / name, name)
    fresh = RatingStore(tmp_path / "b.db")
    added = fresh.restore(source)
    assert "skips" not in added and added["ratings"] == 1
    assert fresh.latest()["notes"].to_list() == ["kept"]
    assert fresh.skips().height == 0


def test_another_sessions_skips_come_in_only_with_the_flag_as_its_data_never_shown_here(
    tmp_path: Path,
) -> None:
    ours = _session_store(tmp_path / "ours.db")
    ours.save_skip("ana", "g1", "ours: seen it")
    theirs = _session_store(tmp_path / "theirs.db")  # same games, same rater names
    theirs.save_skip("ana", "g2", "theirs: too long")
    theirs.backup(tmp_path / "theirs.zip")

    with pytest.raises(InputError, match="another rating session"):
        ours.restore(tmp_path / "theirs.zip")
    assert ours.skip_events().height == 1

    added = ours.restore(tmp_path / "theirs.zip", other_session=True)
    assert added["skips"] == 1
    assert _reasons(ours) == [("ana", "g1", "ours: seen it")]  # never shown here
    kept = ours.skip_events()[["reason", "origin"]].rows()
    assert kept == [("ours: seen it", ""), ("theirs: too long", theirs.session_identity())]
    assert ours.restore(tmp_path / "theirs.zip", other_session=True)["skips"] == 0
    # this store's own backup carries them as the other session's, and restores so
    ours.backup(tmp_path / "ours.zip", fmt="csv")
    moved = RatingStore(tmp_path / "moved.db")
    assert moved.restore(tmp_path / "ours.zip")["skips"] == 2
    assert moved.skip_events()[["reason", "origin"]].rows() == kept
    assert _reasons(moved) == [("ana", "g1", "ours: seen it")]


def test_migration_9_gives_every_existing_skip_its_own_random_uuid(tmp_path: Path) -> None:
    path = tmp_path / "v8.db"
    RatingStore(path)  # the current schema, taken back to version 8 by hand below
    con = sqlite3.connect(path)
    con.executescript(
        "DROP TABLE draw_events;"  # migration 10's, made again on the way up
        "DROP INDEX skip_events_uid; DROP TABLE skip_events;"
        "CREATE TABLE skip_events (event_id INTEGER PRIMARY KEY AUTOINCREMENT, rater TEXT "
        "NOT NULL, unit_id TEXT NOT NULL, reason TEXT NOT NULL, created_at TEXT NOT NULL);"
        "INSERT INTO skip_events (rater, unit_id, reason, created_at) VALUES "
        "('ana', 'g1', 'seen it', '2026-01-01T10:00:00.000000+00:00'), "
        "('ben', 'g1', 'too long', '2026-01-01T10:01:00.000000+00:00');"
        "CREATE TRIGGER skip_events_no_update BEFORE UPDATE ON skip_events "
        "BEGIN SELECT RAISE(ABORT, 'skip_events is append-only'); END;"
        "PRAGMA user_version = 8;"
    )
    con.close()
    store = RatingStore(path)
    assert store.schema_version == SCHEMA_VERSION
    uids = store.skips()["uid"].to_list()
    assert len(set(uids)) == 2 and all(UUID4.match(u) for u in uids), uids
    assert _reasons(store) == [("ana", "g1", "seen it"), ("ben", "g1", "too long")]
    store.save_skip("ana", "g2", "a new one")  # and saving goes on, each with its own uid
    assert len(set(store.skips()["uid"].to_list())) == 3
    with pytest.raises(sqlite3.DatabaseError, match="append-only"), sqlite3.connect(path) as raw:
        raw.execute("UPDATE skip_events SET reason = 'changed'")
