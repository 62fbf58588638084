"""The SQLite ratings store: versioned schema, WAL, append-only events, the latest rating
counts, export/import, reviewer labels, and nothing lost under real concurrent or killed
processes."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import polars as pl
import pytest

from toolkit.errors import InputError
from toolkit.load.discussion import load_discussion
from toolkit.load.ratings import open_rating_source
from toolkit.ratings.store import (
    APPLICATION_ID,
    MIGRATIONS,
    SCHEMA_VERSION,
    RatingStore,
    default_store_path,
    is_rating_store,
)
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE, score_discussion

ROOT = Path(__file__).resolve().parents[2]


def _run_child(code: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )


# ---------------------------------------------------------------------------
# Schema, pragmas, append-only
# ---------------------------------------------------------------------------


def test_a_new_store_is_at_the_latest_schema_in_wal_mode_and_marked(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "sub" / "r.db")
    assert store.schema_version == SCHEMA_VERSION
    con = sqlite3.connect(store.path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    con.close()
    assert is_rating_store(store.path)


def test_a_version_1_store_is_migrated_and_keeps_its_ratings(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    con.executescript(MIGRATIONS[0])
    con.execute(
        "INSERT INTO rating_events (uid, rater, transcript_id, score, answers, notes, "
        "created_at) VALUES ('u1', 'ana', 'g1', 4, '{}', 'from v1', "
        "'2026-01-01T10:00:00.000000+00:00')"
    )
    con.execute("PRAGMA user_version = 1")
    con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    con.commit()
    con.close()

    store = RatingStore(path, instrument=DEFAULT_ENGAGEMENT_SCALE.version)
    assert store.schema_version == SCHEMA_VERSION
    assert store.ratings().rows() == [("g1", "ana", 4.0)]
    assert store.events()["notes"].to_list() == ["from v1"]
    # a rating from before instruments were versioned says so; a new one is stamped
    store.save_rating("ana", "g2", 3)
    assert store.events()["instrument"].to_list() == ["", "2L-1.0.0"]
    store.set_label("rev", "g1", "role", "m1", True)  # the v2 table exists now
    assert store.labels().rows() == [("g1", "role", "m1", True)]


def test_a_version_2_store_keeps_its_labels_and_takes_the_new_kinds(tmp_path: Path) -> None:
    # Issue 23 items 10 and 11: label kinds for personality diversity and the
    # "fascinating to watch" sign-off; a store written before them still opens.
    path = tmp_path / "v2.db"
    con = sqlite3.connect(path)
    con.executescript(MIGRATIONS[0])
    con.executescript(MIGRATIONS[1])
    con.execute(
        "INSERT INTO label_events (uid, reviewer, game_id, kind, item_id, label, created_at) "
        "VALUES ('u1', 'rev', 'g1', 'role', 'm1', 0, '2026-01-01T10:00:00.000000+00:00')"
    )
    with pytest.raises(sqlite3.IntegrityError):  # the v2 table refuses a new kind
        con.execute(
            "INSERT INTO label_events (uid, reviewer, game_id, kind, item_id, label, "
            "created_at) VALUES ('u2', 'rev', 'g1', 'diversity', 'Ash', 1, 'x')"
        )
    con.execute("PRAGMA user_version = 2")
    con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    con.commit()
    con.close()

    store = RatingStore(path)
    assert store.schema_version == SCHEMA_VERSION  # every later migration ran too
    store.set_label("rev", "g1", "diversity", "Ash", True)
    store.set_label("rev", "g1", "fascinating", "game", True)
    assert store.labels().rows() == [
        ("g1", "diversity", "Ash", True),
        ("g1", "fascinating", "game", True),
        ("g1", "role", "m1", False),
    ]
    con = sqlite3.connect(path)
    try:
        for sql in ("UPDATE label_events SET label = 1", "DELETE FROM label_events"):
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                con.execute(sql)
        with pytest.raises(sqlite3.IntegrityError):
            con.execute(
                "INSERT INTO label_events (uid, reviewer, game_id, kind, item_id, label, "
                "created_at) VALUES ('u9', 'rev', 'g1', '', 'm1', 1, 'x')"
            )
    finally:
        con.close()
    with pytest.raises(InputError, match="kind must be one of"):
        store.set_label("rev", "g1", "charm", "Ash", True)


def test_a_store_from_a_newer_toolkit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    RatingStore(path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version = 99")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="newer toolkit") as err:
        RatingStore(path)
    assert "user_version=99" in str(err.value)


def test_a_game_database_is_not_taken_for_a_store(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE Game (id TEXT)")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="not a toolkit ratings store"):
        RatingStore(path)
    assert not is_rating_store(path)
    # ... and the file was left as it was.
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 0


def test_a_text_file_is_not_a_store(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    path.write_text("game_id,rater,score\n")
    with pytest.raises(InputError, match="not a SQLite ratings store"):
        RatingStore(path)


def test_a_missing_store_is_not_created_when_asked_not_to(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such ratings store"):
        RatingStore(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


def test_events_are_append_only(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "r.db")
    store.save_rating("ana", "g1", 3)
    store.set_label("rev", "g1", "memory", "m1#0", False)
    con = sqlite3.connect(store.path)
    for sql in (
        "UPDATE rating_events SET score = 5",
        "DELETE FROM rating_events",
        "UPDATE label_events SET label = 1",
        "DELETE FROM label_events",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            con.execute(sql)
    con.close()
    assert store.ratings().rows() == [("g1", "ana", 3.0)]


# ---------------------------------------------------------------------------
# Ratings: the latest counts, history kept, bad input named
# ---------------------------------------------------------------------------


def test_the_latest_rating_per_rater_and_transcript_counts_and_history_is_kept(
    tmp_path: Path,
) -> None:
    store = RatingStore(tmp_path / "r.db")
    store.save_rating("ana", "g1", 2, {"strategy": True, "surprise": None}, "first look")
    store.save_rating("ben", "g1", 5)
    store.save_rating("ana", "g2", 1)
    store.save_rating("ana", "g1", 4, notes="changed my mind")
    assert store.events().height == 4
    latest = store.latest()
    assert latest.select("rater", "transcript_id", "score", "notes").rows() == [
        ("ana", "g1", 4, "changed my mind"),
        ("ben", "g1", 5, ""),
        ("ana", "g2", 1, ""),
    ]
    first = store.events().row(0, named=True)
    assert json.loads(first["answers"]) == {"strategy": True}  # unanswered left out
    assert sorted(store.ratings(["g1"]).rows()) == [("g1", "ana", 4.0), ("g1", "ben", 5.0)]
    assert store.latest("ben")["transcript_id"].to_list() == ["g1"]


@pytest.mark.parametrize(
    ("kwargs", "field", "value"),
    [
        ({"score": 0}, "score", "0"),
        ({"score": 6}, "score", "6"),
        ({"score": 3.5}, "score", "3.5"),
        ({"score": True}, "score", "True"),
        ({"rater": "  "}, "rater", "'  '"),
        ({"transcript_id": ""}, "transcript_id", "''"),
        ({"answers": {"strategy": "yes"}}, "answers.strategy", "'yes'"),
    ],
)
def test_a_bad_rating_is_refused_with_its_field_and_value(
    tmp_path: Path, kwargs: dict[str, object], field: str, value: str
) -> None:
    store = RatingStore(tmp_path / "r.db")
    args: dict[str, object] = {"rater": "ana", "transcript_id": "g1", "score": 3, **kwargs}
    with pytest.raises(InputError) as err:
        store.save_rating(**args)
    assert f"{field}={value}" in str(err.value)
    assert store.events().height == 0


# ---------------------------------------------------------------------------
# Export and import
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_export_then_import_restores_every_event_once(tmp_path: Path, suffix: str) -> None:
    store = RatingStore(tmp_path / "a.db")
    store.save_rating("ana", "g1", 2, {"strategy": False}, 'dull, with a comma, and "quotes"')
    store.save_rating("ana", "g1", 4, {"strategy": True, "reveal": True})
    store.save_rating("ben", "g2", 3)
    store.set_label("rev", "g1", "strategic", "m3", True)
    out = store.export(tmp_path / f"events{suffix}")
    labels_out = store.export(tmp_path / f"labels{suffix}", what="labels")

    other = RatingStore(tmp_path / "b.db")
    assert other.import_events(out) == 3
    assert other.import_events(out) == 0  # the same uids are not added twice
    assert other.import_events(labels_out, what="labels") == 1
    cols = ["uid", "rater", "transcript_id", "score", "answers", "notes", "created_at"]
    assert other.events().select(cols).equals(store.events().select(cols))
    assert other.latest()["score"].to_list() == [4, 3]
    assert other.labels().rows() == [("g1", "strategic", "m3", True)]


def test_an_imported_older_rating_does_not_replace_a_newer_one(tmp_path: Path) -> None:
    old = tmp_path / "old.csv"
    old.write_text(
        "uid,rater,transcript_id,score,answers,notes,created_at\n"
        "x1,ana,g1,1,{},,2020-01-01T00:00:00Z\n"
    )
    store = RatingStore(tmp_path / "r.db")
    store.save_rating("ana", "g1", 5)
    assert store.import_events(old) == 1
    assert store.ratings().rows() == [("g1", "ana", 5.0)]
    assert store.events().height == 2


def test_a_bad_import_names_its_line_field_and_value_and_adds_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "uid,rater,transcript_id,score,answers,notes,created_at\n"
        "x1,ana,g1,4,{},,2026-01-01T00:00:00Z\n"
        "x2,ben,g1,9,{},,2026-01-01T00:00:00Z\n"
    )
    store = RatingStore(tmp_path / "r.db")
    with pytest.raises(InputError) as err:
        store.import_events(bad)
    assert str(err.value).startswith(f"{bad}:3: score=9")
    assert store.events().height == 0


def test_an_export_must_be_parquet_or_csv(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "r.db")
    with pytest.raises(InputError, match=r"suffix='\.json'"):
        store.export(tmp_path / "out.json")


# ---------------------------------------------------------------------------
# The store feeds the discussion rubric: ratings and reviewer labels
# ---------------------------------------------------------------------------


def test_the_store_is_opened_by_the_rating_source_opener(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "r.db")
    store.save_rating("ana", "game-pass", 4)
    source = open_rating_source(store.path)
    assert isinstance(source, RatingStore)
    assert source.ratings(["game-pass"]).rows() == [("game-pass", "ana", 4.0)]


def test_a_store_beside_the_transcripts_is_not_read_as_a_game(
    tmp_path: Path, sample_runs: Path
) -> None:
    for name in ("game-pass.json", "game-over-budget.json"):
        (tmp_path / name).write_bytes((sample_runs / "discussions" / name).read_bytes())
    path = default_store_path(tmp_path)
    assert path == tmp_path / "ratings.db"
    RatingStore(path).save_rating("ana", "game-pass", 4)
    assert sorted(load_discussion(tmp_path).game_ids) == ["game-over-budget", "game-pass"]
    assert default_store_path(tmp_path / "game-pass.json") == path


def test_reviewer_labels_in_the_store_override_the_rubric_and_are_counted(
    tmp_path: Path, sample_runs: Path
) -> None:
    games = load_discussion(sample_runs / "discussions" / "game-pass.json")
    plain = score_discussion(games)
    ev = plain.evidence.messages
    strategic = ev.filter(pl.col("strategic"))["message_id"][0]
    consistent = ev.filter(pl.col("role_break") == False)["message_id"][0]  # noqa: E712
    store = RatingStore(tmp_path / "r.db")
    store.save_rating("ana", "game-pass", 4)
    store.set_label("rev", "game-pass", "strategic", strategic, True)  # same as automatic
    store.set_label("rev", "game-pass", "strategic", strategic, False)  # latest: flips it
    store.set_label("rev", "game-pass", "role", consistent, False)
    report = score_discussion(games, ratings=store)
    card = report.scorecards[0]
    assert "reviewer labels overrode 1 strategic and 1 role label(s)" in card.warnings
    assert card.meta["labels_overridden"] == {
        "strategic": 1,
        "role": 1,
        "memory": 0,
        "diversity": 0,
    }
    assert card.meta["engagement"] == 4.0
    before = plain.metrics.filter(pl.col("key") == "strategic_depth")["score"][0]
    after = report.metrics.filter(pl.col("key") == "strategic_depth")["score"][0]
    messages = ev.height
    assert after == pytest.approx(before - 1 / messages)


# ---------------------------------------------------------------------------
# Nothing saved is lost: real processes
# ---------------------------------------------------------------------------


def test_concurrent_saves_from_several_processes_all_land(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    RatingStore(path)
    go = tmp_path / "go"
    workers, saves = 4, 30
    code = """
        import sys, time
        from pathlib import Path
        from toolkit.ratings.store import RatingStore
        store = RatingStore(sys.argv[1])
        go = Path(sys.argv[2])
        deadline = time.monotonic() + 30
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(0.005)
        for i in range(int(sys.argv[4])):
            store.save_rating(sys.argv[3], f"game-{i:03d}", i % 5 + 1, {"q": i % 2 == 0})
        print("done", flush=True)
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                textwrap.dedent(code),
                str(path),
                str(go),
                f"rater{w}",
                str(saves),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for w in range(workers)
    ]
    time.sleep(0.5)
    go.touch()
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert out.strip() == "done"
    store = RatingStore(path)
    events = store.events()
    assert events.height == workers * saves
    assert events["uid"].n_unique() == workers * saves
    counts = events.group_by("rater").len().sort("rater")["len"].to_list()
    assert counts == [saves] * workers
    assert store.ratings().height == workers * saves


def test_a_process_killed_inside_a_save_leaves_earlier_ratings_intact(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    code = f"""
        import sys, time
        from toolkit.ratings.store import RatingStore
        store = RatingStore({str(path)!r})
        store.save_rating("ana", "g1", 2)
        store.save_rating("ana", "g2", 3)
        store.save_rating("ben", "g1", 4)
        def stall():
            print("inside", flush=True)
            time.sleep(60)
        store._before_commit = stall
        store.save_rating("ana", "g1", 5, notes="never committed")
    """
    child = _run_child(code)
    assert child.stdout is not None
    line = child.stdout.readline()  # blocks until the child is inside the transaction
    assert line.strip() == "inside"
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=10)
    child.stdout.close()
    assert child.returncode == -signal.SIGKILL

    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    store = RatingStore(path)
    assert sorted(store.ratings().rows()) == [
        ("g1", "ana", 2.0),
        ("g1", "ben", 4.0),
        ("g2", "ana", 3.0),
    ]
    assert "never committed" not in store.events()["notes"].to_list()
    # The dead process's lock is gone: the next save lands at once.
    started = time.monotonic()
    store.save_rating("ana", "g1", 1)
    assert time.monotonic() - started < 5
    assert ("g1", "ana", 1.0) in store.ratings().rows()


def test_a_process_killed_while_importing_adds_none_of_the_import(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    store = RatingStore(path)
    store.save_rating("ana", "g1", 4)
    export = tmp_path / "big.csv"
    lines = ["uid,rater,transcript_id,score,answers,notes,created_at"]
    lines += [f"u{i},r{i % 7},g{i},{i % 5 + 1},{{}},,2026-01-01T00:00:00Z" for i in range(500)]
    export.write_text("\n".join(lines) + "\n")
    code = f"""
        import time
        from toolkit.ratings.store import RatingStore
        store = RatingStore({str(path)!r})
        def stall():
            print("inside", flush=True)
            time.sleep(60)
        store._before_commit = stall
        store.import_events({str(export)!r})
    """
    child = _run_child(code)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "inside"
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=10)
    child.stdout.close()
    after = RatingStore(path)
    assert after.ratings().rows() == [("g1", "ana", 4.0)]
    assert after.import_events(export) == 500


def test_the_sample_session_export_imports_whole(tmp_path: Path, sample_runs: Path) -> None:
    store = RatingStore(tmp_path / "r.db")
    assert store.import_events(sample_runs / "discussions" / "rating_events.csv") == 21
    latest = store.latest()
    assert latest.height == 20  # ana rated game-pass twice; her second rating counts
    ana_pass = latest.filter((pl.col("rater") == "ana") & (pl.col("transcript_id") == "game-pass"))
    assert ana_pass["score"].to_list() == [4]
    assert set(store.ratings()["game_id"]) == {
        "game-pass", "game-role-repetition", "game-over-budget", "base-7-1", "base-7-2", "base-7-3",
    }  # fmt: skip
