"""Load LLM Mafia discussion games (the "2L" game) into typed frames.

Three input forms are read, each detected from the file itself:

* a **transcript JSON** as the game writes it (``discussion-<ts>.json``): one game with
  ``gameId``, ``metadata`` (turns, cost), ``players``, ``messages`` and ``votes``;
* a **database export** (``data-backup.json``): ``{"games": [...]}``, each game nesting its
  ``players``, ``discussionMessages`` and ``votes`` with ids instead of names;
* the game's **SQLite database**, tables ``Game``, ``Player``, ``DiscussionMessage`` and
  ``Vote`` (Prisma's column names).

A folder is read as every ``*.json`` / ``*.db`` / ``*.sqlite`` file in it (except a
toolkit ratings store kept there). The owners of
the format are lenient (unknown keys, personalities beyond the five documented ones,
missing metadata); so is this loader, and it says so in :attr:`Discussion.warnings`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolkit.errors import InputError
from toolkit.frames import (
    DISCUSSION_GAMES_SCHEMA,
    DISCUSSION_MESSAGES_SCHEMA,
    DISCUSSION_PLAYERS_SCHEMA,
    DISCUSSION_VOTES_SCHEMA,
)
from toolkit.io import edge
from toolkit.load._common import parse_json_text
from toolkit.load._fields import Int64
from toolkit.ratings.store import is_rating_store
from toolkit.summary import Shows, Summary, plural

__all__ = ["Discussion", "load_discussion", "load_discussions"]

SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
_SQLITE_MAGIC = b"SQLite format 3\x00"


# ---------------------------------------------------------------------------
# The load result
# ---------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Discussion(Shows):
    """Games of LLM Mafia as typed frames.

    Attributes:
        games: one row per game, :data:`~toolkit.frames.DISCUSSION_GAMES_SCHEMA` (game_id,
            source_kind, source_file, status, round_number, player_count, created_at,
            total_turns, duration_seconds, cost_usd, input_tokens, cached_tokens,
            output_tokens, cache_hit_rate).
        players: :data:`~toolkit.frames.DISCUSSION_PLAYERS_SCHEMA` (game_id, player_id,
            name, role, personality, alive, position).
        messages: :data:`~toolkit.frames.DISCUSSION_MESSAGES_SCHEMA` (game_id, message_id,
            turn, round, speaker, text, in_reply_to, in_reply_to_player, timestamp),
            sorted by game and turn.
        votes: :data:`~toolkit.frames.DISCUSSION_VOTES_SCHEMA` (game_id, round, voter,
            target, justification, timestamp).
        warnings: lenient readings the reader should know about.
    """

    games: pl.DataFrame
    players: pl.DataFrame
    messages: pl.DataFrame
    votes: pl.DataFrame
    warnings: tuple[str, ...] = ()

    def _summary(self) -> Summary:
        ids = self.game_ids
        shown = ", ".join(ids[:3]) + (f", … {len(ids) - 3} more" if len(ids) > 3 else "")
        return Summary(
            "Discussion",
            f"{plural(len(ids), 'game')} ({shown or 'none'})",
            (
                ("players", self.players.height),
                ("messages", self.messages.height),
                ("votes", self.votes.height),
            ),
            notes=self.warnings,
            notes_title="warnings",
        )

    @property
    def game_ids(self) -> list[str]:
        """The game ids, in load order."""
        return [str(g) for g in self.games["game_id"].to_list()]

    def game(self, game_id: str) -> Discussion:
        """The same frames restricted to one game."""
        if game_id not in self.game_ids:
            raise KeyError(game_id)
        keep = pl.col("game_id") == game_id
        return Discussion(
            games=self.games.filter(keep),
            players=self.players.filter(keep),
            messages=self.messages.filter(keep),
            votes=self.votes.filter(keep),
            warnings=tuple(w for w in self.warnings if game_id in w),
        )


@dataclass
class _Builder:
    """Rows collected while reading, turned into frames once."""

    path: str
    games: list[dict[str, Any]] = field(default_factory=list)
    players: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    votes: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def build(self) -> Discussion:
        messages = pl.DataFrame(self.messages, schema=DISCUSSION_MESSAGES_SCHEMA)
        order = {g["game_id"]: i for i, g in enumerate(self.games)}
        messages = (
            messages.with_columns(
                pl.col("game_id")
                .replace_strict(order, default=len(order), return_dtype=pl.Int64)
                .alias("_order")
            )
            .sort(["_order", "turn"], maintain_order=True)
            .drop("_order")
        )
        return Discussion(
            games=pl.DataFrame(self.games, schema=DISCUSSION_GAMES_SCHEMA),
            players=pl.DataFrame(self.players, schema=DISCUSSION_PLAYERS_SCHEMA),
            messages=messages,
            votes=pl.DataFrame(self.votes, schema=DISCUSSION_VOTES_SCHEMA),
            warnings=tuple(self.warnings),
        )


# ---------------------------------------------------------------------------
# Shared parsing helpers
# ---------------------------------------------------------------------------


def _parse_time(value: Any) -> datetime | None:
    """ISO-8601 text (``Z`` allowed) or epoch milliseconds (Prisma on SQLite) -> UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(float(value) / 1000.0, tz=UTC)
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return datetime.fromtimestamp(int(text) / 1000.0, tz=UTC)
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise ValueError(f"not a timestamp: {value!r}")


def _cache_rate(value: Any) -> tuple[float | None, str | None]:
    """A cache hit rate as a fraction; percentages (``73.5`` or ``"73.5%"``) are converted."""
    if value is None:
        return None, None
    if isinstance(value, str):
        text = value.strip().rstrip("%")
        number = float(text)
        if value.strip().endswith("%"):
            return number / 100.0, None
        value = number
    rate = float(value)
    if rate > 1.0:
        return rate / 100.0, f"cacheHitRate {rate!r} read as a percentage"
    return rate, None


class _Lenient(BaseModel):
    """File-boundary models: unknown keys are kept out of the frames, never an error."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class _Role(_Lenient):
    @field_validator("role", mode="before", check_fields=False)
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value


def _validate(model: type[BaseModel], data: Any, path: str, where: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        field_name = f"{where}.{loc}" if loc else where
        raise InputError(path, err["msg"], field=field_name, value=err.get("input")) from exc


def _check_names(b: _Builder, game_id: str, names: set[str], used: Iterable[str | None]) -> None:
    unknown = sorted({n for n in used if n is not None and n not in names})
    if unknown:
        b.warnings.append(
            f"game {game_id}: {len(unknown)} name(s) not among its players: {', '.join(unknown)}"
        )


# ---------------------------------------------------------------------------
# Transcript JSON
# ---------------------------------------------------------------------------


class _Cost(_Lenient):
    totalCost: float | None = None
    totalInputTokens: Int64 | None = None
    totalCachedTokens: Int64 | None = None
    totalOutputTokens: Int64 | None = None
    cacheHitRate: float | str | None = None
    avgCostPerTurn: float | None = None


class _Metadata(_Lenient):
    playerCount: Int64 | None = None
    mafiaCount: Int64 | None = None
    villagerCount: Int64 | None = None
    totalTurns: Int64 | None = None
    durationSeconds: float | None = None
    avgMessageLength: float | None = None
    cost: _Cost | None = None


class _TPlayer(_Role):
    name: str = Field(min_length=1)
    role: str
    personality: str | None = None
    isAlive: bool = True
    position: Int64 | None = None


class _TMessage(_Lenient):
    id: str | None = None
    turn: Int64
    roundNumber: Int64
    playerName: str = Field(min_length=1)
    message: str
    timestamp: str | int | None = None
    inReplyToId: str | None = None
    inReplyToPlayer: str | None = None


class _TVote(_Lenient):
    roundNumber: Int64
    voterName: str = Field(min_length=1)
    targetName: str | None = None
    justification: str | None = None
    timestamp: str | int | None = None


class _Transcript(_Lenient):
    gameId: str = Field(min_length=1)
    timestamp: str | int | None = None
    metadata: _Metadata = Field(default_factory=_Metadata)
    players: list[_TPlayer]
    messages: list[_TMessage]
    votes: list[_TVote] = Field(default_factory=list)


def _time(value: Any, path: str, where: str) -> datetime | None:
    try:
        return _parse_time(value)
    except (ValueError, OverflowError, OSError) as exc:  # e.g. epoch ms beyond year 9999
        raise InputError(path, "not an ISO-8601 timestamp", field=where, value=value) from exc


def _read_transcript(b: _Builder, data: Mapping[str, Any]) -> None:
    t: _Transcript = _validate(_Transcript, data, b.path, "transcript")
    gid = t.gameId
    _add_transcript_game(b, t)
    _add_transcript_players(b, t)
    _add_transcript_messages(b, t)
    _add_transcript_votes(b, t)
    names = {p.name for p in t.players}
    _check_names(
        b,
        gid,
        names,
        [m.playerName for m in t.messages]
        + [v.voterName for v in t.votes]
        + [v.targetName for v in t.votes],
    )


def _add_transcript_game(b: _Builder, t: _Transcript) -> None:
    """The game's row, its cost and cache hit rate (a warning when either is missing or
    was read leniently)."""
    gid = t.gameId
    cost = t.metadata.cost or _Cost()
    try:
        rate, note = _cache_rate(cost.cacheHitRate)
    except ValueError as exc:
        raise InputError(
            b.path, "not a number", field="metadata.cost.cacheHitRate", value=cost.cacheHitRate
        ) from exc
    if note:
        b.warnings.append(f"game {gid}: {note}")
    if t.metadata.cost is None or cost.totalCost is None:
        b.warnings.append(f"game {gid}: no metadata cost; the budget check cannot be made")
    b.games.append(
        {
            "game_id": gid,
            "source_kind": "transcript",
            "source_file": b.path,
            "status": None,
            "round_number": max((m.roundNumber for m in t.messages), default=None),
            "player_count": t.metadata.playerCount or len(t.players),
            "created_at": _time(t.timestamp, b.path, "timestamp"),
            "total_turns": t.metadata.totalTurns,
            "duration_seconds": t.metadata.durationSeconds,
            "cost_usd": cost.totalCost,
            "input_tokens": cost.totalInputTokens,
            "cached_tokens": cost.totalCachedTokens,
            "output_tokens": cost.totalOutputTokens,
            "cache_hit_rate": rate,
        }
    )


def _add_transcript_players(b: _Builder, t: _Transcript) -> None:
    """A row per player, in the transcript's order unless a position is given."""
    gid = t.gameId
    for i, p in enumerate(t.players):
        b.players.append(
            {
                "game_id": gid,
                "player_id": p.name,
                "name": p.name,
                "role": p.role,
                "personality": p.personality,
                "alive": p.isAlive,
                "position": p.position if p.position is not None else i,
            }
        )


def _add_transcript_messages(b: _Builder, t: _Transcript) -> None:
    """A row per message; a message id used twice is read as ``<id>.<n>``, with a warning."""
    gid = t.gameId
    seen_ids: dict[str, int] = {}
    for i, m in enumerate(t.messages):
        mid = m.id or f"{gid}#t{m.turn}"
        seen_ids[mid] = seen_ids.get(mid, 0) + 1
        if seen_ids[mid] > 1:
            b.warnings.append(
                f"game {gid}: message id {mid} used twice; read as {mid}.{seen_ids[mid]}"
            )
            mid = f"{mid}.{seen_ids[mid]}"
        b.messages.append(
            {
                "game_id": gid,
                "message_id": mid,
                "turn": m.turn,
                "round": m.roundNumber,
                "speaker": m.playerName,
                "text": m.message,
                "in_reply_to": m.inReplyToId,
                "in_reply_to_player": m.inReplyToPlayer,
                "timestamp": _time(m.timestamp, b.path, f"messages.{i}.timestamp"),
            }
        )


def _add_transcript_votes(b: _Builder, t: _Transcript) -> None:
    """A row per vote."""
    gid = t.gameId
    for i, v in enumerate(t.votes):
        b.votes.append(
            {
                "game_id": gid,
                "round": v.roundNumber,
                "voter": v.voterName,
                "target": v.targetName,
                "justification": v.justification,
                "timestamp": _time(v.timestamp, b.path, f"votes.{i}.timestamp"),
            }
        )


# ---------------------------------------------------------------------------
# Database export (data-backup.json) and SQLite: the same rows, ids instead of names
# ---------------------------------------------------------------------------


class _DPlayer(_Role):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    role: str
    personality: str | None = None
    isAlive: bool = True
    position: Int64 | None = None


class _DMessage(_Lenient):
    id: str = Field(min_length=1)
    roundNumber: Int64
    playerId: str
    message: str
    inReplyToId: str | None = None
    timestamp: str | int | None = None
    turn: Int64


class _DVote(_Lenient):
    roundNumber: Int64
    voterId: str
    targetId: str | None = None
    justification: str | None = None
    timestamp: str | int | None = None


class _DGame(_Lenient):
    id: str = Field(min_length=1)
    status: str | None = None
    roundNumber: Int64 | None = None
    playerCount: Int64 | None = None
    createdAt: str | int | None = None
    players: list[_DPlayer] = Field(default_factory=list)
    discussionMessages: list[_DMessage] = Field(default_factory=list)
    votes: list[_DVote] = Field(default_factory=list)


def _add_db_game(b: _Builder, g: _DGame, kind: str, where: str) -> None:
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
            "created_at": _time(g.createdAt, b.path, f"{where}.createdAt"),
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
                "timestamp": _time(
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
                "timestamp": _time(v.timestamp, b.path, f"{where}.votes.{i}.timestamp"),
            }
        )
    if missing:
        b.warnings.append(
            f"game {gid}: {len(missing)} player id(s) not among its players, kept as ids: "
            + ", ".join(sorted(missing))
        )


def _read_export(b: _Builder, data: Mapping[str, Any]) -> None:
    games = data.get("games")
    if not isinstance(games, list):
        raise InputError(b.path, "expected a list of games", field="games", value=games)
    for i, raw in enumerate(games):
        g: _DGame = _validate(_DGame, raw, b.path, f"games.{i}")
        _add_db_game(b, g, "export", f"games.{i}")
    _no_cost_warning(b)


_SQL_TABLES = ("Game", "Player", "DiscussionMessage", "Vote")


def _read_sqlite(b: _Builder, path: Path) -> None:
    try:
        _read_sqlite_tables(b, path)
    except sqlite3.Error as exc:  # a damaged file can fail at any query
        raise edge.sqlite_problem(b.path, exc) from exc


def _read_sqlite_tables(b: _Builder, path: Path) -> None:
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
                raise InputError(
                    b.path, "missing table of the game database", field="table", value=table
                )
        if "Vote" not in tables:
            b.warnings.append(f"{b.path}: no Vote table; read as a game without votes")

        def rows(table: str) -> list[dict[str, Any]]:
            if table not in tables:
                return []
            cur = con.execute(f'SELECT * FROM "{table}"')  # names from a fixed list
            return [dict(r) for r in cur]

        games = rows("Game")
        nested: dict[str, dict[str, Any]] = {}
        for g in games:
            nested[str(g.get("id"))] = {**g, "players": [], "discussionMessages": [], "votes": []}
        for table, key in (
            ("Player", "players"),
            ("DiscussionMessage", "discussionMessages"),
            ("Vote", "votes"),
        ):
            for r in rows(table):
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
    finally:
        con.close()
    if undecodable:
        b.warnings.append(
            f"{b.path}: {undecodable} text cell(s) are not UTF-8; read with the bad bytes "
            "replaced (U+FFFD)"
        )
    for i, (gid, raw) in enumerate(nested.items()):
        raw["discussionMessages"].sort(key=lambda m: m.get("turn") or 0)
        game: _DGame = _validate(_DGame, raw, b.path, f"Game[{gid}]")
        _add_db_game(b, game, "sqlite", f"Game.{i}")
    _no_cost_warning(b)


def _no_cost_warning(b: _Builder) -> None:
    if b.games:
        b.warnings.append(
            f"{b.path}: the game database holds no cost; the budget check cannot be made "
            f"for its {len(b.games)} game(s)"
        )


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def _read_file(b: _Builder, path: Path, within: Path | None = None) -> None:
    head = edge.read_head(path, 16, within=within)  # refuses FIFOs, devices, folders
    if path.suffix.lower() in SQLITE_SUFFIXES or head == _SQLITE_MAGIC:
        _read_sqlite(b, path)
        return
    text = edge.read_text(path, within=within)
    data = parse_json_text(b.path, text)
    if isinstance(data, Mapping) and "games" in data:
        _read_export(b, data)
    elif isinstance(data, Mapping) and ("gameId" in data or "messages" in data):
        _read_transcript(b, data)
    else:
        shown = sorted(data)[:6] if isinstance(data, Mapping) else type(data).__name__
        raise InputError(
            b.path,
            "neither a transcript (gameId, messages) nor a database export (games)",
            field="(top level)",
            value=shown,
        )


def _files(path: Path, warnings: list[str]) -> list[Path]:
    """The game files of ``path``; in a folder, an entry with a game file's suffix that is
    not a readable regular file inside it is skipped with a warning (never silently)."""
    if path.is_dir():
        entries, problem = edge.scan_folder(path)
        if problem is not None:
            raise InputError(path, problem)
        found: list[Path] = []
        for entry in sorted(entries, key=lambda e: e.name):
            if Path(entry.name).suffix.lower() not in (".json", *SQLITE_SUFFIXES):
                continue
            skipped = edge.entry_problem(entry, path)
            if skipped is not None:
                warnings.append(edge.skipped_input(entry.path, skipped))
            elif not is_rating_store(entry.path):  # the ratings store kept beside them
                found.append(Path(entry.path))
        if not found:
            raise InputError(path, "no transcript (.json) or game database (.db) in this folder")
        return found
    if not path.exists():
        raise InputError(path, "no such file or folder")
    return [path]


def load_discussion(path: str | Path) -> Discussion:
    """Load the games held in ``path``: a transcript, a database export, a SQLite game
    database, or a folder of those.

    Args:
        path: the file or folder.

    Returns:
        A :class:`Discussion` with frames games, players, messages (game_id, message_id,
        turn, round, speaker, text, in_reply_to, in_reply_to_player, timestamp) and votes
        (game_id, round, voter, target, justification, timestamp).

    Raises:
        InputError: one line naming the file, the field and the value.
    """
    return load_discussions([path])


def load_discussions(paths: Sequence[str | Path]) -> Discussion:
    """Load and stack the games of several paths (see :func:`load_discussion`).

    Raises:
        InputError: for a bad file, or when the same game id is loaded twice.
    """
    parts: list[Discussion] = []
    seen: dict[str, str] = {}
    skipped: list[str] = []
    for raw in paths:
        folder = Path(raw) if Path(raw).is_dir() else None
        for file in _files(Path(raw), skipped):
            b = _Builder(str(file))
            _read_file(b, file, folder)
            for g in b.games:
                if g["game_id"] in seen:
                    raise InputError(
                        file,
                        f"game loaded twice (also in {seen[g['game_id']]})",
                        field="game_id",
                        value=g["game_id"],
                    )
                seen[g["game_id"]] = str(file)
            parts.append(b.build())
    if not parts:
        raise InputError(None, "no input paths given")
    return Discussion(
        games=pl.concat([p.games for p in parts]),
        players=pl.concat([p.players for p in parts]),
        messages=pl.concat([p.messages for p in parts]),
        votes=pl.concat([p.votes for p in parts]),
        warnings=(*skipped, *(w for p in parts for w in p.warnings)),
    )
