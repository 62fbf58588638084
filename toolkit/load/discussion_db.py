"""2L's game database, whichever holds it: the database export (``data-backup.json``), the
SQLite file and PostgreSQL (:mod:`toolkit.load.discussion_postgres`) give the same rows,
with player ids instead of names; the tables' rows are nested per game by one function
and every game is read by one model, whichever database it came from."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import Field

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.load._discussion_models import Lenient, RoleModel, validate
from toolkit.load._fields import Int64
from toolkit.load.discussion_base import Builder, read_time
from toolkit.load.discussion_postgres import postgres_rows

__all__ = ["read_export", "read_postgres", "read_sqlite"]


# ---------------------------------------------------------------------------
# Database export (data-backup.json) and SQLite: the same rows, ids instead of names
# ---------------------------------------------------------------------------


class _DPlayer(RoleModel):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    role: str
    personality: str | None = None
    isAlive: bool = True
    position: Int64 | None = None


class _DMessage(Lenient):
    id: str = Field(min_length=1)
    roundNumber: Int64
    playerId: str
    message: str
    inReplyToId: str | None = None
    timestamp: str | int | None = None
    turn: Int64


class _DVote(Lenient):
    roundNumber: Int64
    voterId: str
    targetId: str | None = None
    justification: str | None = None
    timestamp: str | int | None = None


class _DGame(Lenient):
    id: str = Field(min_length=1)
    status: str | None = None
    roundNumber: Int64 | None = None
    playerCount: Int64 | None = None
    createdAt: str | int | None = None
    players: list[_DPlayer] = Field(default_factory=list)
    discussionMessages: list[_DMessage] = Field(default_factory=list)
    votes: list[_DVote] = Field(default_factory=list)


def _add_db_game(b: Builder, g: _DGame, kind: str, where: str) -> None:
    """Rows of one database game; player ids are resolved to names."""
    gid = g.id
    by_id = {p.id: p.name for p in g.players}
    speaker_of = {m.id: by_id.get(m.playerId, m.playerId) for m in g.discussionMessages}
    b.games.append(
        {
            "game_id": gid,
            "source_kind": kind,
            "source_file": b.path,
            "status": g.status,
            "round_number": g.roundNumber,
            "player_count": g.playerCount if g.playerCount is not None else len(g.players),
            "created_at": read_time(g.createdAt, b.path, f"{where}.createdAt"),
            "total_turns": len(g.discussionMessages),
            "duration_seconds": None,
            "cost_usd": None,
            "input_tokens": None,
            "cached_tokens": None,
            "output_tokens": None,
            "cache_hit_rate": None,
        }
    )
    for i, p in enumerate(g.players):
        b.players.append(
            {
                "game_id": gid,
                "player_id": p.id,
                "name": p.name,
                "role": p.role,
                "personality": p.personality,
                "alive": p.isAlive,
                "position": p.position if p.position is not None else i,
            }
        )
    missing: set[str] = set()
    for i, m in enumerate(g.discussionMessages):
        if m.playerId not in by_id:
            missing.add(m.playerId)
        b.messages.append(
            {
                "game_id": gid,
                "message_id": m.id,
                "turn": m.turn,
                "round": m.roundNumber,
                "speaker": by_id.get(m.playerId, m.playerId),
                "text": m.message,
                "in_reply_to": m.inReplyToId,
                "in_reply_to_player": speaker_of.get(m.inReplyToId) if m.inReplyToId else None,
                "timestamp": read_time(
                    m.timestamp, b.path, f"{where}.discussionMessages.{i}.timestamp"
                ),
            }
        )
    for i, v in enumerate(g.votes):
        for pid in (v.voterId, v.targetId):
            if pid is not None and pid not in by_id:
                missing.add(pid)
        b.votes.append(
            {
                "game_id": gid,
                "round": v.roundNumber,
                "voter": by_id.get(v.voterId, v.voterId),
                "target": by_id.get(v.targetId, v.targetId) if v.targetId else None,
                "justification": v.justification,
                "timestamp": read_time(v.timestamp, b.path, f"{where}.votes.{i}.timestamp"),
            }
        )
    if missing:
        b.warnings.append(
            f"game {gid}: {len(missing)} player id(s) not among its players, kept as ids: "
            + ", ".join(sorted(missing))
        )


def read_export(b: Builder, data: Mapping[str, Any]) -> None:
    games = data.get("games")
    if not isinstance(games, list):
        raise InputError(b.path, "expected a list of games", field="games", value=games)
    for i, raw in enumerate(games):
        g: _DGame = validate(_DGame, raw, b.path, f"games.{i}")
        _add_db_game(b, g, "export", f"games.{i}")
    _no_cost_warning(b)


_SQL_TABLES = ("Game", "Player", "DiscussionMessage", "Vote")


def read_sqlite(b: Builder, path: Path) -> None:
    try:
        _read_sqlite_tables(b, path)
    except sqlite3.Error as exc:  # a damaged file can fail at any query
        raise edge.sqlite_problem(b.path, exc) from exc


#: Tables that mark a token-world universe database (its graph store).
_UNIVERSE_TABLES = frozenset({"graph_events", "graph_snapshots", "graph_state"})


def _not_a_game_database(tables: set[str], missing: str) -> str:
    """Why a SQLite file is not a 2L game database, in the user's words (what it looks like
    instead and the command that reads it, when the file says so)."""
    if _UNIVERSE_TABLES & tables:
        return (
            "a token-world universe database, not a 2L game database; "
            "score its run folder with `toolkit quality`"
        )
    return f"not a 2L game database: it has no {missing} table"


def _read_sqlite_tables(b: Builder, path: Path) -> None:
    con = edge.sqlite_readonly(path)
    con.row_factory = sqlite3.Row
    undecodable = 0

    def text(raw: bytes) -> str:
        nonlocal undecodable
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            undecodable += 1
            return raw.decode("utf-8", errors="replace")

    con.text_factory = text
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for table in ("Game", "Player", "DiscussionMessage"):
            if table not in tables:
                raise InputError(b.path, _not_a_game_database(tables, table))
        if "Vote" not in tables:
            b.warnings.append(f"{b.path}: no Vote table; read as a game without votes")

        def rows(table: str) -> list[dict[str, Any]]:
            if table not in tables:
                return []
            cur = con.execute(f'SELECT * FROM "{table}"')  # names from a fixed list
            return [dict(r) for r in cur]

        nested = _nest(b, rows("Game"), {t: rows(t) for t in _SQL_TABLES[1:]})
    finally:
        con.close()
    if undecodable:
        b.warnings.append(
            f"{b.path}: {undecodable} text cell(s) are not UTF-8; read with the bad bytes "
            "replaced (U+FFFD)"
        )
    _add_nested(b, nested, "sqlite")


#: The game database's tables -> the key its rows are nested under in a game.
_NESTED_KEYS = {"Player": "players", "DiscussionMessage": "discussionMessages", "Vote": "votes"}


def _nest(
    b: Builder, games: Iterable[Mapping[str, Any]], tables: Mapping[str, Iterable[dict[str, Any]]]
) -> dict[str, dict[str, Any]]:
    """Rows of the game database's tables (SQLite or PostgreSQL) nested per game, as
    the export nests them: ``{game id: {**game row, players, discussionMessages, votes}}``.

    Raises:
        InputError: a row names a game that is not among ``games``.
    """
    nested: dict[str, dict[str, Any]] = {}
    for g in games:
        nested[str(g.get("id"))] = {**g, "players": [], "discussionMessages": [], "votes": []}
    for table, key in _NESTED_KEYS.items():
        for r in tables.get(table, ()):
            gid = str(r.get("gameId"))
            if gid not in nested:
                raise InputError(
                    b.path,
                    f"{table} row names an unknown game",
                    field=f"{table}.gameId",
                    value=r.get("gameId"),
                )
            if "isAlive" in r and isinstance(r["isAlive"], int):
                r["isAlive"] = bool(r["isAlive"])
            nested[gid][key].append(r)
    return nested


def _add_nested(b: Builder, nested: Mapping[str, dict[str, Any]], kind: str) -> None:
    """Validate each nested game (messages in turn order) and add its rows."""
    for i, (gid, raw) in enumerate(nested.items()):
        raw["discussionMessages"].sort(key=lambda m: m.get("turn") or 0)
        game: _DGame = validate(_DGame, raw, b.path, f"Game[{gid}]")
        _add_db_game(b, game, kind, f"Game.{i}")
    _no_cost_warning(b)


def read_postgres(b: Builder, url: str, games: Sequence[str], since: datetime | None) -> None:
    """The games of a 2L PostgreSQL database (see :mod:`toolkit.load.discussion_postgres`):
    each game with a Discussion phase (a discussion message), the rest counted in a
    warning.

    Raises:
        InputError: what :func:`postgres_rows` refuses, a row that cannot be read, or no
            game with a Discussion phase at all (nothing to score is not a pass).
    """
    rows = postgres_rows(url, games=games, since=since)
    b.path = rows.url
    try:
        nested = _nest(b, rows.games, rows.tables)
    finally:
        rows.close()
    quiet = [gid for gid, g in nested.items() if not g["discussionMessages"]]
    for gid in quiet:
        del nested[gid]
    b.warnings.extend(rows.warnings)
    if quiet:
        b.warnings.append(
            f"{b.path}: {len(quiet)} game(s) without a discussion message (no Discussion "
            f"phase yet) not read: {', '.join(quiet[:5])}{' …' if len(quiet) > 5 else ''}"
        )
    if not nested:
        when = f" created since {since:%Y-%m-%d %H:%M} UTC" if since else ""
        raise InputError(b.path, f"no game with a Discussion phase{when} in this database")
    _add_nested(b, nested, "postgres")


def _no_cost_warning(b: Builder) -> None:
    if b.games:
        b.warnings.append(
            f"{b.path}: the game database holds no cost; the budget check cannot be made "
            f"for its {len(b.games)} game(s)"
        )
