"""Load LLM Mafia discussion games (the "2L" game) into typed frames.

Three input forms are read, each detected from the file itself:

* a **transcript JSON** as the game writes it (``discussion-<ts>.json``): one game with
  ``gameId``, ``metadata`` (turns, cost), ``players``, ``messages`` and ``votes``;
* a **database export** (``data-backup.json``): ``{"games": [...]}``, each game nesting its
  ``players``, ``discussionMessages`` and ``votes`` with ids instead of names;
* the game's **SQLite database**, tables ``Game``, ``Player``, ``DiscussionMessage`` and
  ``Vote`` (Prisma's column names);
* the game's **PostgreSQL database** (a ``postgresql://`` URL: the same tables, quoted;
  every game with a Discussion phase, or those named, created since a date), read by a
  read-only session (:mod:`toolkit.io.source_postgres`).

The result, :class:`Discussion`, and what the readers share are in
:mod:`toolkit.load.discussion_base`; the database-shaped forms (export, SQLite,
PostgreSQL: rows with player ids, nested per game by one function) in
:mod:`toolkit.load.discussion_db`.

A folder is read as every ``*.json`` / ``*.db`` / ``*.sqlite`` file in it (except a
toolkit ratings store kept there). The owners of
the format are lenient (unknown keys, personalities beyond the five documented ones,
missing metadata); so is this loader, and it says so in :attr:`Discussion.warnings`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.load._common import parse_json_text
from toolkit.load._discussion_plain import plain_transcript
from toolkit.load.discussion_base import Builder, Discussion, build_all, read_time

__all__ = ["Discussion", "load_discussion", "load_discussions"]

SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
#: A transcript's ``metadata.cost`` keys (all unknown when it has none).
_COST_KEYS = (
    "totalCost",
    "totalInputTokens",
    "totalCachedTokens",
    "totalOutputTokens",
    "cacheHitRate",
    "avgCostPerTurn",
)
_SQLITE_MAGIC = b"SQLite format 3\x00"


# ---------------------------------------------------------------------------
# Shared parsing helpers
# ---------------------------------------------------------------------------


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


def _check_names(b: Builder, game_id: str, names: set[str], used: Iterable[str | None]) -> None:
    unknown = sorted({n for n in used if n is not None and n not in names})
    if unknown:
        b.warnings.append(
            f"game {game_id}: {len(unknown)} name(s) not among its players: {', '.join(unknown)}"
        )


# ---------------------------------------------------------------------------
# Transcript JSON
# ---------------------------------------------------------------------------


def _read_transcript(b: Builder, data: Mapping[str, Any]) -> None:
    t = plain_transcript(data)
    if t is None:  # not plainly well-formed: the models coerce or refuse in one line
        t = _validated_transcript(b, data)
    gid = t["gameId"]
    _add_transcript_game(b, t)
    _add_transcript_players(b, t)
    _add_transcript_messages(b, t)
    _add_transcript_votes(b, t)
    names = {p["name"] for p in t["players"]}
    _check_names(
        b,
        gid,
        names,
        [m["playerName"] for m in t["messages"]]
        + [v["voterName"] for v in t["votes"]]
        + [v["targetName"] for v in t["votes"]],
    )


def _validated_transcript(b: Builder, data: Mapping[str, Any]) -> dict[str, Any]:
    """The transcript as its pydantic models read it (``model_dump`` form, as
    :func:`~toolkit.load._discussion_plain.plain_transcript` gives it)."""
    # pydantic and the transcript's models (~0.1 s of CPU, issue 38): only for a
    # transcript the plain check does not vouch for
    from toolkit.load._discussion_models import Transcript, validate

    model: Any = validate(Transcript, data, b.path, "transcript")
    dumped: dict[str, Any] = model.model_dump()
    return dumped


def _add_transcript_game(b: Builder, t: dict[str, Any]) -> None:
    """The game's row, its cost and cache hit rate (a warning when either is missing or
    was read leniently)."""
    gid = t["gameId"]
    meta = t["metadata"]
    cost = meta["cost"] or dict.fromkeys(_COST_KEYS)
    try:
        rate, note = _cache_rate(cost["cacheHitRate"])
    except ValueError as exc:
        raise InputError(
            b.path, "not a number", field="metadata.cost.cacheHitRate", value=cost["cacheHitRate"]
        ) from exc
    if note:
        b.warnings.append(f"game {gid}: {note}")
    if meta["cost"] is None or cost["totalCost"] is None:
        b.warnings.append(f"game {gid}: no metadata cost; the budget check cannot be made")
    b.games.append(
        {
            "game_id": gid,
            "source_kind": "transcript",
            "source_file": b.path,
            "status": None,
            "round_number": max((m["roundNumber"] for m in t["messages"]), default=None),
            "player_count": meta["playerCount"] or len(t["players"]),
            "created_at": read_time(t["timestamp"], b.path, "timestamp"),
            "total_turns": meta["totalTurns"],
            "duration_seconds": meta["durationSeconds"],
            "cost_usd": cost["totalCost"],
            "input_tokens": cost["totalInputTokens"],
            "cached_tokens": cost["totalCachedTokens"],
            "output_tokens": cost["totalOutputTokens"],
            "cache_hit_rate": rate,
        }
    )


def _add_transcript_players(b: Builder, t: dict[str, Any]) -> None:
    """A row per player, in the transcript's order unless a position is given."""
    gid = t["gameId"]
    for i, p in enumerate(t["players"]):
        b.players.append(
            {
                "game_id": gid,
                "player_id": p["name"],
                "name": p["name"],
                "role": p["role"],
                "personality": p["personality"],
                "alive": p["isAlive"],
                "position": p["position"] if p["position"] is not None else i,
            }
        )


def _add_transcript_messages(b: Builder, t: dict[str, Any]) -> None:
    """A row per message; a message id used twice is read as ``<id>.<n>``, with a warning."""
    gid = t["gameId"]
    seen_ids: dict[str, int] = {}
    for i, m in enumerate(t["messages"]):
        mid = m["id"] or f"{gid}#t{m['turn']}"
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
                "turn": m["turn"],
                "round": m["roundNumber"],
                "speaker": m["playerName"],
                "text": m["message"],
                "in_reply_to": m["inReplyToId"],
                "in_reply_to_player": m["inReplyToPlayer"],
                "timestamp": read_time(m["timestamp"], b.path, f"messages.{i}.timestamp"),
            }
        )


def _add_transcript_votes(b: Builder, t: dict[str, Any]) -> None:
    """A row per vote."""
    gid = t["gameId"]
    for i, v in enumerate(t["votes"]):
        b.votes.append(
            {
                "game_id": gid,
                "round": v["roundNumber"],
                "voter": v["voterName"],
                "target": v["targetName"],
                "justification": v["justification"],
                "timestamp": read_time(v["timestamp"], b.path, f"votes.{i}.timestamp"),
            }
        )


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def _read_file(
    b: Builder, path: Path, within: Path | None = None, head: bytes | None = None
) -> None:
    """Read the transcript, export or database ``path`` into ``b``; ``head``, its first
    16 bytes when the folder's listing has read them already (:func:`_files`)."""
    if head is None:
        head = edge.read_head(path, 16, within=within)  # refuses FIFOs, devices, folders
    if path.suffix.lower() in SQLITE_SUFFIXES or head == _SQLITE_MAGIC:
        # the database readers and their four pydantic models (~7 ms of CPU): only for a
        # database or its export, never for a folder of transcripts (issue 38)
        from toolkit.load.discussion_db import read_sqlite

        read_sqlite(b, path)
        return
    text = edge.read_text(path, within=within)
    data = parse_json_text(b.path, text)
    if isinstance(data, Mapping) and "games" in data:
        from toolkit.load.discussion_db import read_export  # as read_sqlite above

        read_export(b, data)
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


def _files(path: Path, warnings: list[str]) -> list[tuple[Path, bytes | None]]:
    """The game files of ``path``, each with its first 16 bytes when they were read here
    (a folder's entries: read once, to tell the ratings store apart, and handed on to
    :func:`_read_file`); in a folder, an entry with a game file's suffix that is not a
    readable regular file inside it is skipped with a warning (never silently)."""
    if path.is_dir():
        entries, problem = edge.scan_folder(path)
        if problem is not None:
            raise InputError(path, problem)
        found: list[tuple[Path, bytes | None]] = []
        for entry in sorted(entries, key=lambda e: e.name):
            if Path(entry.name).suffix.lower() not in (".json", *SQLITE_SUFFIXES):
                continue
            skipped = edge.entry_problem(entry, path)
            if skipped is not None:
                warnings.append(edge.skipped_input(entry.path, skipped))
                continue
            try:  # the checks _read_file's own read makes (a link stays in the folder)
                head: bytes | None = edge.read_head(entry.path, len(_SQLITE_MAGIC), within=path)
            except InputError:
                head = None  # not a store; _read_file reads it again and says why not
            if not _rating_store(entry.path, head):  # the ratings store kept beside them
                found.append((Path(entry.path), head))
        if not found:
            raise InputError(path, "no transcript (.json) or game database (.db) in this folder")
        return found
    if not path.exists():
        raise InputError(path, "no such file or folder")
    return [(path, None)]


def _rating_store(path: str, head: bytes | None) -> bool:
    """Whether ``path``, whose first bytes are ``head`` (None: it cannot be read), is a
    toolkit ratings store (:func:`toolkit.ratings.store.is_rating_store`). Only a SQLite
    file can be one: any other file is told apart by its first bytes, without importing
    the store's modules (~10 ms of CPU, issue 38)."""
    if head != _SQLITE_MAGIC:
        return False  # as is_rating_store: a file that cannot be read is not a store
    from toolkit.ratings.store import is_rating_store  # see above: only for a SQLite file

    return is_rating_store(path)


def load_discussion(
    path: str | Path,
    *,
    games: Sequence[str] | str = (),
    since: datetime | date | str | None = None,
) -> Discussion:
    """Load the games held in ``path``: a transcript, a database export, a SQLite game
    database, a folder of those, or 2L's PostgreSQL database (a ``postgresql://`` URL:
    every game with a Discussion phase; see :mod:`toolkit.load.discussion_postgres`).

    Args:
        path: the file, folder or database URL.
        games: only these game ids (a database is asked for them alone).
        since: only games created at or after this date or time (UTC unless it says
            otherwise; pushed into a database's query).

    Returns:
        A :class:`Discussion` with frames games, players, messages (game_id, message_id,
        turn, round, speaker, text, in_reply_to, in_reply_to_player, timestamp) and votes
        (game_id, round, voter, target, justification, timestamp).

    Raises:
        InputError: one line naming the file, the field and the value.
    """
    return load_discussions([path], games=games, since=since)


def load_discussions(
    paths: Sequence[str | Path],
    *,
    games: Sequence[str] | str = (),
    since: datetime | date | str | None = None,
) -> Discussion:
    """Load and stack the games of several paths (see :func:`load_discussion`).

    Raises:
        InputError: for a bad file, or when the same game id is loaded twice.
    """
    wanted = [games] if isinstance(games, str) else list(games)
    after = None
    if since is not None:
        # the PostgreSQL reader's module (a dataclass and its column tables, ~1-3 ms of CPU)
        # only when --since asks: it owns the one rule for reading a time
        from toolkit.load.discussion_postgres import since_time

        after = since_time(since)
    parts: list[Builder] = []
    seen: dict[str, str] = {}
    skipped: list[str] = []
    for raw in paths:
        if _is_postgres(raw):
            from toolkit.load.discussion_db import read_postgres  # as read_sqlite in _read_file

            b = Builder(str(raw))
            read_postgres(b, str(raw), wanted, after)
            _add_part(parts, seen, b, b.path)
            continue
        folder = Path(raw) if Path(raw).is_dir() else None
        for file, head in _files(Path(raw), skipped):
            b = Builder(str(file))
            _read_file(b, file, folder, head)
            _add_part(parts, seen, b, str(file))
    if not parts:
        raise InputError(None, "no input paths given")
    return _only(_stacked(parts, skipped), wanted, after)


def _is_postgres(raw: str | Path) -> bool:
    """Whether ``raw`` is a PostgreSQL URL (:func:`toolkit.io.source.is_postgres_url`)."""
    text = str(raw)
    if "://" not in text:  # no URL (every scheme the io package reads is followed by ://)
        return False
    # the io package's Sources (two dataclasses and their modules, ~2 ms of CPU): only for
    # text that may be a URL, never for a folder of transcripts
    from toolkit.io.source import is_postgres_url

    return is_postgres_url(text)


def _add_part(parts: list[Builder], seen: dict[str, str], b: Builder, where: str) -> None:
    """Add one file's (or database's) games, refusing a game id loaded twice (built into
    frames with the others', once: :func:`_stacked`)."""
    for g in b.games:
        if g["game_id"] in seen:
            raise InputError(
                where,
                f"game loaded twice (also in {seen[g['game_id']]})",
                field="game_id",
                value=g["game_id"],
            )
        seen[g["game_id"]] = where
    parts.append(b)


def _only(d: Discussion, games: Sequence[str], since: datetime | None) -> Discussion:
    """The games named (all when none) created at or after ``since`` (a game of unknown
    creation time is kept only without ``since``)."""
    if not games and since is None:
        return d
    keep = d.games
    if games:
        missing = sorted(set(games) - set(d.game_ids))
        if missing:
            raise InputError(None, "not among the games read (a game without a discussion "
                             "is left out)", field="--game", value=missing[0])  # fmt: skip
        keep = keep.filter(pl.col("game_id").is_in(list(games)))
    if since is not None:
        keep = keep.filter(pl.col("created_at") >= since)
    ids = keep["game_id"].to_list()
    inside = pl.col("game_id").is_in(ids)
    return Discussion(
        games=keep,
        players=d.players.filter(inside),
        messages=d.messages.filter(inside),
        votes=d.votes.filter(inside),
        warnings=d.warnings,
    )


def _stacked(parts: Sequence[Builder], skipped: Sequence[str]) -> Discussion:
    built = build_all(parts)
    return Discussion(
        games=built.games,
        players=built.players,
        messages=built.messages,
        votes=built.votes,
        warnings=(*skipped, *built.warnings),
    )
