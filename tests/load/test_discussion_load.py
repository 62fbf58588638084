"""Loading LLM Mafia games: transcript JSON, database export, SQLite database, folders."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from toolkit.errors import InputError
from toolkit.frames import (
    DISCUSSION_GAMES_SCHEMA,
    DISCUSSION_MESSAGES_SCHEMA,
    DISCUSSION_PLAYERS_SCHEMA,
    DISCUSSION_VOTES_SCHEMA,
)
from toolkit.load.discussion import load_discussion, load_discussions


def transcript(**over: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "gameId": "t-1",
        "timestamp": "2026-01-02T03:04:05.000Z",
        "metadata": {
            "playerCount": 3,
            "totalTurns": 2,
            "cost": {"totalCost": 1.25, "totalInputTokens": 1000, "cacheHitRate": 0.8},
        },
        "players": [
            {
                "name": "Ada",
                "role": "MAFIA",
                "personality": "analytical",
                "isAlive": True,
                "position": 0,
            },
            {
                "name": "Bo",
                "role": "villager",
                "personality": "stoic",
                "isAlive": False,
                "position": 1,
            },
            {
                "name": "Cy",
                "role": "VILLAGER",
                "personality": "social",
                "isAlive": True,
                "position": 2,
            },
        ],
        "messages": [
            {
                "turn": 2,
                "roundNumber": 1,
                "playerName": "Bo",
                "message": "Hi Ada.",
                "timestamp": "2026-01-02T03:04:09.000Z",
                "inReplyToId": "x1",
                "inReplyToPlayer": "Ada",
            },
            {
                "turn": 1,
                "roundNumber": 1,
                "playerName": "Ada",
                "message": "Hello.",
                "timestamp": "2026-01-02T03:04:07.000Z",
                "inReplyToId": None,
                "inReplyToPlayer": None,
            },
        ],
        "votes": [
            {
                "roundNumber": 1,
                "voterName": "Cy",
                "targetName": "Ada",
                "justification": "odd",
                "timestamp": "2026-01-02T03:05:00.000Z",
            }
        ],
        "extraKey": {"ignored": True},
    }
    doc.update(over)
    return doc


def write(tmp: Path, name: str, data: Any) -> Path:
    path = tmp / name
    path.write_text(json.dumps(data))
    return path


def test_transcript_loads_into_typed_frames(tmp_path: Path) -> None:
    d = load_discussion(write(tmp_path, "t.json", transcript()))
    assert d.games.schema == pl.Schema(DISCUSSION_GAMES_SCHEMA)
    assert d.players.schema == pl.Schema(DISCUSSION_PLAYERS_SCHEMA)
    assert d.messages.schema == pl.Schema(DISCUSSION_MESSAGES_SCHEMA)
    assert d.votes.schema == pl.Schema(DISCUSSION_VOTES_SCHEMA)
    g = d.games.row(0, named=True)
    assert (g["game_id"], g["source_kind"], g["cost_usd"], g["cache_hit_rate"]) == (
        "t-1",
        "transcript",
        1.25,
        0.8,
    )
    assert g["created_at"] == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert d.players["role"].to_list() == ["MAFIA", "VILLAGER", "VILLAGER"]  # upper-cased
    assert d.players["alive"].to_list() == [True, False, True]
    assert d.messages["turn"].to_list() == [1, 2]  # sorted by turn
    assert d.messages["in_reply_to_player"].to_list() == [None, "Ada"]
    assert d.votes.row(0, named=True)["target"] == "Ada"
    assert d.warnings == ()


def test_cache_rate_given_as_percentage_is_converted_and_said(tmp_path: Path) -> None:
    doc = transcript(metadata={"cost": {"totalCost": 1.0, "cacheHitRate": 73.5}})
    d = load_discussion(write(tmp_path, "t.json", doc))
    assert d.games["cache_hit_rate"][0] == pytest.approx(0.735)
    assert any("read as a percentage" in w for w in d.warnings)


def test_missing_cost_is_a_warning_not_an_error(tmp_path: Path) -> None:
    d = load_discussion(write(tmp_path, "t.json", transcript(metadata={})))
    assert d.games["cost_usd"][0] is None
    assert any("no metadata cost" in w for w in d.warnings)


def test_speaker_not_among_players_is_kept_and_warned(tmp_path: Path) -> None:
    doc = transcript()
    doc["messages"][0]["playerName"] = "Zed"
    d = load_discussion(write(tmp_path, "t.json", doc))
    assert "Zed" in d.messages["speaker"].to_list()
    assert d.warnings == ("game t-1: 1 name(s) not among its players: Zed",)


def export_doc() -> dict[str, Any]:
    return {
        "exportedAt": "2026-01-03T00:00:00.000Z",
        "games": [
            {
                "id": "e-1",
                "status": "DISCUSSION",
                "roundNumber": 2,
                "playerCount": 2,
                "createdAt": "2026-01-03T00:00:00.000Z",
                "players": [
                    {
                        "id": "p1",
                        "gameId": "e-1",
                        "name": "Ada",
                        "role": "MAFIA",
                        "personality": "x",
                        "isAlive": True,
                        "position": 0,
                        "eliminatedInRound": None,
                    },
                    {
                        "id": "p2",
                        "gameId": "e-1",
                        "name": "Bo",
                        "role": "VILLAGER",
                        "personality": "y",
                        "isAlive": True,
                        "position": 1,
                    },
                ],
                "discussionMessages": [
                    {
                        "id": "m1",
                        "gameId": "e-1",
                        "roundNumber": 1,
                        "playerId": "p1",
                        "message": "Hi.",
                        "inReplyToId": None,
                        "timestamp": "2026-01-03T00:00:01.000Z",
                        "turn": 1,
                    },
                    {
                        "id": "m2",
                        "gameId": "e-1",
                        "roundNumber": 1,
                        "playerId": "p2",
                        "message": "Yo.",
                        "inReplyToId": "m1",
                        "timestamp": "2026-01-03T00:00:02.000Z",
                        "turn": 2,
                    },
                ],
                "votes": [
                    {"roundNumber": 1, "voterId": "p2", "targetId": "p1", "justification": None}
                ],
                "nightMessages": [],
            },
            {"id": "e-2", "status": "LOBBY", "players": [], "discussionMessages": [], "votes": []},
        ],
    }


def test_export_resolves_player_ids_to_names(tmp_path: Path) -> None:
    d = load_discussion(write(tmp_path, "data-backup.json", export_doc()))
    assert d.game_ids == ["e-1", "e-2"]
    assert d.games["source_kind"].to_list() == ["export", "export"]
    assert d.messages["speaker"].to_list() == ["Ada", "Bo"]
    assert d.messages["in_reply_to_player"].to_list() == [None, "Ada"]
    assert d.votes.select("voter", "target").row(0) == ("Bo", "Ada")
    assert d.games["cost_usd"].to_list() == [None, None]
    assert any("holds no cost" in w for w in d.warnings)


def test_export_bad_field_names_file_field_and_value(tmp_path: Path) -> None:
    doc = export_doc()
    doc["games"][0]["discussionMessages"][1]["turn"] = "second"
    path = write(tmp_path, "data-backup.json", doc)
    with pytest.raises(InputError) as err:
        load_discussion(path)
    text = str(err.value)
    assert str(path) in text
    assert "games.0.discussionMessages.1.turn='second'" in text
    assert "\n" not in text


def make_sqlite(path: Path) -> None:
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE Game (id TEXT PRIMARY KEY, status TEXT, roundNumber INTEGER,
                           playerCount INTEGER, createdAt DATETIME);
        CREATE TABLE Player (id TEXT PRIMARY KEY, gameId TEXT, name TEXT, role TEXT,
                             personality TEXT, isAlive BOOLEAN, position INTEGER);
        CREATE TABLE DiscussionMessage (id TEXT PRIMARY KEY, gameId TEXT, roundNumber INTEGER,
                             playerId TEXT, message TEXT, inReplyToId TEXT, timestamp DATETIME,
                             turn INTEGER);
        CREATE TABLE Vote (id TEXT PRIMARY KEY, gameId TEXT, roundNumber INTEGER, voterId TEXT,
                           targetId TEXT, justification TEXT, timestamp DATETIME);
        INSERT INTO Game VALUES ('s-1', 'GAME_OVER', 2, 2, 1767225600000);
        INSERT INTO Player VALUES ('p1', 's-1', 'Ada', 'mafia', 'x', 0, 0);
        INSERT INTO Player VALUES ('p2', 's-1', 'Bo', 'VILLAGER', 'y', 1, 1);
        INSERT INTO DiscussionMessage
            VALUES ('m2', 's-1', 1, 'p2', 'Second.', 'm1', 1767225602000, 2);
        INSERT INTO DiscussionMessage
            VALUES ('m1', 's-1', 1, 'p1', 'First.', NULL, 1767225601000, 1);
        INSERT INTO Vote VALUES ('v1', 's-1', 1, 'p2', 'p1', 'sure', 1767225700000);
        """
    )
    con.commit()
    con.close()


def test_sqlite_database_loads(tmp_path: Path) -> None:
    db = tmp_path / "game.db"
    make_sqlite(db)
    d = load_discussion(db)
    assert d.games.row(0, named=True)["created_at"] == datetime(2026, 1, 1, tzinfo=UTC)
    assert d.games["source_kind"].to_list() == ["sqlite"]
    assert d.players["alive"].to_list() == [False, True]
    assert d.players["role"].to_list() == ["MAFIA", "VILLAGER"]
    assert d.messages["text"].to_list() == ["First.", "Second."]
    assert d.messages["in_reply_to_player"].to_list() == [None, "Ada"]
    assert d.votes.select("voter", "target").row(0) == ("Bo", "Ada")


def test_sqlite_detected_by_content_whatever_the_name(tmp_path: Path) -> None:
    db = tmp_path / "game.data"
    make_sqlite(db)
    assert load_discussion(db).game_ids == ["s-1"]


def test_sqlite_without_a_game_table_is_one_line_error(tmp_path: Path) -> None:
    db = tmp_path / "other.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE Something (x INTEGER)")
    con.close()
    with pytest.raises(InputError, match=r"not a 2L game database: it has no Game table"):
        load_discussion(db)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", r"t.json:1: not valid JSON"),
        ("[1, 2]", r"neither a transcript"),
        (json.dumps(transcript(gameId="")), r"transcript.gameId=''"),
        (
            json.dumps({**transcript(), "messages": [{"turn": 1}]}),
            r"transcript.messages.0.roundNumber",
        ),
    ],
)
def test_bad_json_inputs_are_one_line_errors(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(content)
    with pytest.raises(InputError, match=expected):
        load_discussion(path)


def test_missing_path_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or folder"):
        load_discussion(tmp_path / "absent.json")
    with pytest.raises(InputError, match="no transcript"):
        load_discussion(tmp_path)


def test_folder_loads_every_game_and_duplicates_are_refused(tmp_path: Path) -> None:
    write(tmp_path, "a.json", transcript())
    write(tmp_path, "b.json", export_doc())
    make_sqlite(tmp_path / "c.db")
    d = load_discussion(tmp_path)
    assert d.game_ids == ["t-1", "e-1", "e-2", "s-1"]
    assert d.game("e-1").messages.height == 2
    with pytest.raises(InputError, match="game loaded twice"):
        load_discussions([tmp_path / "a.json", tmp_path / "a.json"])


def test_sample_games_load(sample_runs: Path) -> None:
    folder = sample_runs / "discussions"
    d = load_discussions([folder, folder / "baseline"])
    assert d.game_ids == [
        "game-over-budget",
        "game-pass",
        "game-role-repetition",
        "base-7-1",
        "base-7-2",
        "base-7-3",
    ]
    assert d.games["source_kind"].to_list() == ["transcript"] * 3 + ["sqlite"] * 3


def test_every_game_of_the_real_export_loads(real_runs: Path) -> None:
    d = load_discussion(real_runs / "discussions" / "2l-ai-mafia" / "data-backup.json")
    assert d.games.height == 9
    assert d.players.height == 86
    assert d.messages.height == 43
    assert d.votes.height == 0
    big = d.game("cmgo31art0000d036btjje97q")
    assert big.messages.height == 41
    # every speaker resolved from its player id to a player name of its game
    assert set(big.messages["speaker"]) <= set(big.players["name"])
    assert big.messages["in_reply_to_player"].null_count() == 1
    assert set(d.players["role"]) == {"MAFIA", "VILLAGER"}


def test_a_ratings_store_kept_beside_the_games_is_left_out(tmp_path: Path) -> None:
    # The loader tells it apart by its header; a JSON transcript by its first bytes alone.
    import shutil

    from conftest import SAMPLE_RUNS

    from toolkit.ratings.store import RatingStore

    games = tmp_path / "games"
    games.mkdir()
    for name in ("game-pass.json", "game-over-budget.json"):
        shutil.copy(SAMPLE_RUNS / "discussions" / name, games / name)
    alone = load_discussions([games]).game_ids
    RatingStore(games / "ratings.db")
    assert (games / "ratings.db").read_bytes()[:16] == b"SQLite format 3\x00"
    assert load_discussions([games]).game_ids == alone
    assert len(alone) == 2


def test_a_folders_game_files_have_their_first_bytes_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the listing reads them to tell a ratings store apart and hands them to the reader,
    # which needs them to tell a database from a transcript: one read, not two
    import toolkit.load.discussion as loader

    write(tmp_path, "a.json", transcript())
    write(tmp_path, "b.json", export_doc())
    make_sqlite(tmp_path / "c.db")
    heads: list[str] = []
    real = loader.edge.read_head

    def counted(path: str | Path, size: int, *, within: str | Path | None = None) -> bytes:
        heads.append(Path(path).name)
        return real(path, size, within=within)

    monkeypatch.setattr(loader.edge, "read_head", counted)
    assert load_discussion(tmp_path).game_ids == ["t-1", "e-1", "e-2", "s-1"]
    assert sorted(heads) == ["a.json", "b.json", "c.db"]


@pytest.mark.parametrize("failures", [1, 2])
def test_a_file_whose_first_bytes_the_listing_could_not_read_is_read_again_by_the_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failures: int
) -> None:
    # the listing takes an unreadable file for no ratings store; the reader reads it
    # again, and names what is wrong when that fails too, as when the reads were separate
    import toolkit.load.discussion as loader

    write(tmp_path, "a.json", transcript())
    real = loader.edge.read_head
    calls: list[str] = []

    def failing(path: str | Path, size: int, *, within: str | Path | None = None) -> bytes:
        calls.append(Path(path).name)
        if len(calls) <= failures:
            raise InputError(path, "cannot read file (Input/output error)")
        return real(path, size, within=within)

    monkeypatch.setattr(loader.edge, "read_head", failing)
    if failures == 1:
        assert load_discussion(tmp_path).game_ids == ["t-1"]
    else:
        with pytest.raises(InputError, match=r"a\.json: cannot read file \(Input/output"):
            load_discussion(tmp_path)
    assert calls == ["a.json", "a.json"]
