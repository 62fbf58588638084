"""2L's games read from PostgreSQL: the same frames and scorecards as from the SQLite file
and the JSON export, the filters pushed into the query, and every command that takes a
discussion path."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from pg_cluster import Cluster

from toolkit.errors import InputError
from toolkit.load.discussion import load_discussion, load_discussions
from toolkit.rubrics.discussion import score_discussion
from toolkit.views.discussion import discussion_json

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_runs" / "discussions"
SQL = SAMPLES / "2l-postgres.sql"
DB = SAMPLES / "baseline" / "games.db"
SOURCE_COLUMNS = ("source_kind", "source_file")
CLI = "import sys; from toolkit.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture(scope="module")
def twol(pg_server: Cluster) -> str:
    return pg_server.make_database("twol", [SQL])


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CLI, *args],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip


def export_of(db: Path) -> dict[str, Any]:
    """The game database as 2L's ``data-backup.json`` nests it (FORMATS.md §3), written
    here from the SQLite rows with ISO-8601 times (not by the loader under test)."""
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row

    def iso(ms: int) -> str:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

    games = []
    for g in con.execute('SELECT * FROM "Game" ORDER BY rowid'):
        gid = g["id"]
        players = [
            {**dict(p), "isAlive": bool(p["isAlive"])}
            for p in con.execute('SELECT * FROM "Player" WHERE "gameId" = ?', (gid,))
        ]
        messages = [
            {**dict(m), "timestamp": iso(m["timestamp"])}
            for m in con.execute('SELECT * FROM "DiscussionMessage" WHERE "gameId" = ?', (gid,))
        ]
        votes = [
            {**dict(v), "timestamp": iso(v["timestamp"])}
            for v in con.execute('SELECT * FROM "Vote" WHERE "gameId" = ?', (gid,))
        ]
        games.append(
            {**dict(g), "createdAt": iso(g["createdAt"]), "players": players,
             "discussionMessages": messages, "votes": votes}
        )  # fmt: skip
    con.close()
    return {"games": games}


def frames(d: Any) -> dict[str, pl.DataFrame]:
    return {
        "games": d.games.drop(SOURCE_COLUMNS),
        "players": d.players,
        "messages": d.messages,
        "votes": d.votes,
    }


# -- the same games from three sources ------------------------------------------------------


def test_one_game_three_sources_identical_frames_and_scorecards(twol: str, tmp_path: Path) -> None:
    export = tmp_path / "data-backup.json"
    export.write_text(json.dumps(export_of(DB)))
    game = "base-7-2"
    from_pg = load_discussion(twol, games=[game])
    from_sqlite = load_discussion(DB, games=[game])
    from_export = load_discussion(export, games=[game])
    assert from_pg.game_ids == from_sqlite.game_ids == from_export.game_ids == [game]
    assert from_pg.messages.height == 12 and from_pg.votes.height == 12
    for name, frame in frames(from_pg).items():
        assert frame.equals(frames(from_sqlite)[name]), name
        assert frame.equals(frames(from_export)[name]), name
    cards = [discussion_json(score_discussion(d)) for d in (from_pg, from_sqlite, from_export)]
    assert cards[0] == cards[1] == cards[2]
    assert from_pg.games["source_kind"].to_list() == ["postgres"]


def test_every_game_with_its_redacted_source(pg_server: Cluster, twol: str) -> None:
    d = load_discussion(twol)
    assert d.game_ids == ["base-7-1", "base-7-2", "base-7-3"]  # "createdAt" order
    assert d.players.height == 18 and d.messages.height == 36 and d.votes.height == 36
    shown = d.games["source_file"].unique().to_list()
    assert shown == [f"postgresql://toolkit_guest@127.0.0.1:{pg_server.port}/twol"]
    first = d.messages.row(0, named=True)
    assert first["speaker"] == "Cedar" and first["timestamp"] == datetime(
        2026, 3, 7, 19, 0, 11, tzinfo=UTC
    )


def test_since_and_game_select_games(twol: str) -> None:
    assert load_discussion(twol, since="2026-03-08").game_ids == ["base-7-2", "base-7-3"]
    assert load_discussion(twol, since="2026-03-08T19:00:01Z").game_ids == ["base-7-3"]
    assert load_discussion(twol, games="base-7-3").game_ids == ["base-7-3"]
    with pytest.raises(InputError, match="--game='nope': no such game in this database"):
        load_discussion(twol, games=["nope"])
    with pytest.raises(InputError, match="--since='last week'"):
        load_discussion(twol, since="last week")
    with pytest.raises(InputError, match="no game with a Discussion phase created since 2030"):
        load_discussion(twol, since="2030-01-01")


def test_the_filters_are_in_the_query(pg_server: Cluster, tmp_path: Path) -> None:
    """A game outside --since whose message would be refused is never fetched."""
    extra = tmp_path / "old.sql"
    extra.write_text(
        """INSERT INTO "Game" VALUES ('old', 'GAME_OVER', 'GAME_OVER', 1, NULL, 1, '2020-01-01');
        INSERT INTO "Player" VALUES ('old-p', 'old', 'Zed', 'VILLAGER', 'calm', true, 0);
        INSERT INTO "DiscussionMessage" VALUES
          ('old-m', 'old', 1, 'old-p', repeat('x', 2000000), NULL, '2020-01-01', 1);"""
    )
    guest = pg_server.make_database("twol_old", [SQL, extra])
    with pytest.raises(InputError, match=r"DiscussionMessage\.message="):
        load_discussion(guest)
    assert load_discussion(guest, since="2021-01-01").game_ids[0] == "base-7-1"
    assert load_discussion(guest, games=["base-7-2"]).messages.height == 12


def test_a_game_without_a_discussion_is_left_out_with_a_warning(
    pg_server: Cluster, tmp_path: Path
) -> None:
    extra = tmp_path / "lobby.sql"
    extra.write_text(
        """INSERT INTO "Game" VALUES ('lobby-1', 'LOBBY', 'NIGHT', 1, NULL, 6, '2026-03-10');"""
    )
    guest = pg_server.make_database("twol_lobby", [SQL, extra])
    d = load_discussion(guest)
    assert "lobby-1" not in d.game_ids and len(d.game_ids) == 3
    assert any("1 game(s) without a discussion message" in w and "lobby-1" in w
               for w in d.warnings)  # fmt: skip
    with pytest.raises(InputError, match="--game='lobby-1': not among the games read"):
        load_discussion(guest, games=["lobby-1", "base-7-1"])


def test_a_database_and_files_together_refuse_a_game_loaded_twice(twol: str) -> None:
    with pytest.raises(InputError, match="game loaded twice"):
        load_discussions([twol, DB])


# -- the commands -------------------------------------------------------------------------


def test_cli_discussion_scores_the_database_and_never_shows_the_password(
    pg_server: Cluster, twol: str, tmp_path: Path
) -> None:
    junit = tmp_path / "junit.xml"
    done = run_cli(
        "discussion", twol, "--since", "2026-03-08", "--format", "json", "--junit", str(junit)
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [g["game_id"] for g in doc["games"]] == ["base-7-2", "base-7-3"]
    for text in (done.stdout, done.stderr, junit.read_text()):
        assert pg_server.guest_password not in text
        assert "gst%3A" not in text and "%2F%40%3F" not in text


def test_cli_discussion_write_refuses_a_database(twol: str) -> None:
    done = run_cli("discussion", twol, "--game", "base-7-1", "--write")
    assert done.returncode == 2
    assert "--write=True" in done.stderr and "a database has no folder" in done.stderr


def test_compare_two_databases_windows(pg_server: Cluster, twol: str) -> None:
    done = run_cli("compare", twol, str(DB), "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    assert pg_server.guest_password not in done.stdout + done.stderr
    assert json.loads(done.stdout)["family"] == "discussion"


def test_view_builds_a_site_from_a_database(pg_server: Cluster, twol: str, tmp_path: Path) -> None:
    out = tmp_path / "site"
    done = run_cli("view", twol, "--out", str(out))
    assert done.returncode == 0, done.stderr
    pages = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    assert "base-7-1" in pages
    assert pg_server.guest_password not in pages and "gst%3A" not in pages


def test_calibrate_gives_the_same_result_from_the_database_as_from_sqlite(
    pg_server: Cluster, twol: str
) -> None:
    docs = []
    for games in (twol, str(DB)):
        done = run_cli(
            "calibrate", "--discussion", games,
            "--ratings", str(SAMPLES / "engagement_ratings.csv"),
            "--judge", f"recorded:{SAMPLES / 'judge' / 'cassette.json'}", "--format", "json",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert pg_server.guest_password not in done.stdout + done.stderr
        docs.append(json.loads(done.stdout))
    assert docs[0]["items"] == 3 and docs[0]["humans"] == ["ana", "ben", "chloe"]
    sources = [{row.pop("source") for row in doc["disagreements"]} for doc in docs]
    assert sources == [
        {f"postgresql://toolkit_guest@127.0.0.1:{pg_server.port}/twol"},
        {str(DB)},
    ]
    assert docs[0] == docs[1]
