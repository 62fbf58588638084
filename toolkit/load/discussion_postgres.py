"""The rows of 2L's game database on PostgreSQL (Prisma's tables, FORMATS.md §5).

2L moved its Prisma datasource from SQLite to PostgreSQL; the tables keep the model names,
so identifiers are case-sensitive and quoted: ``"Game"``, ``"Player"``,
``"DiscussionMessage"`` and ``"Vote"``, with the same columns as the SQLite database.
:func:`postgres_rows` reads only the columns the loader uses, with the game filter
(``--game``) and the date (``--since``, on ``"Game"."createdAt"``) pushed into the SQL,
streamed in batches; :mod:`toolkit.load.discussion` nests the rows per game exactly as it
nests the SQLite database's.

Timestamps (Prisma's ``timestamp(3)``, UTC without a zone; or ``timestamptz``) are
passed on as ISO-8601 text in UTC, so one parser reads every source.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.errors import InputError
from toolkit.io.source import open_source

if TYPE_CHECKING:
    from toolkit.io.source_postgres import PostgresSource

__all__ = ["COLUMNS", "SYSTEM", "DbRows", "postgres_rows", "since_time"]

#: How a missing table or column names the system that has it.
SYSTEM = "2L (Prisma, PostgreSQL)"

#: The columns read from each table (Prisma's names).
COLUMNS: dict[str, tuple[str, ...]] = {
    "Game": ("id", "status", "roundNumber", "playerCount", "createdAt"),
    "Player": ("id", "gameId", "name", "role", "personality", "isAlive", "position"),
    "DiscussionMessage": (
        "id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp",
        "turn",
    ),
    "Vote": ("gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp"),
}  # fmt: skip

#: The order rows are read in (the loader sorts messages by turn within a game anyway).
_ORDER: dict[str, tuple[str, ...]] = {
    "Game": ("createdAt", "id"),
    "Player": ("gameId", "position", "id"),
    "DiscussionMessage": ("gameId", "turn", "id"),
    "Vote": ("gameId", "roundNumber", "timestamp", "voterId"),
}


@dataclass
class DbRows:
    """What :func:`postgres_rows` read.

    Attributes:
        url: the database's URI without its password (the "file" of every message).
        games: the ``"Game"`` rows, as dicts of Prisma's column names.
        tables: the rows of ``"Player"``, ``"DiscussionMessage"`` and ``"Vote"``,
            streamed (each iterated once).
        warnings: lenient readings (a missing ``"Vote"`` table).
        source: the open database (:meth:`close` it once the tables are read).
    """

    url: str
    games: list[dict[str, Any]]
    tables: dict[str, Iterable[dict[str, Any]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    source: PostgresSource | None = None

    def close(self) -> None:
        """Close the database session."""
        if self.source is not None:
            self.source.close()


def since_time(value: datetime | date | str | None) -> datetime | None:
    """``--since``: a date (midnight UTC) or an ISO-8601 time (UTC unless it names a
    zone), as an aware time.

    Raises:
        InputError: text that is neither; a time that is no time in UTC.
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InputError(
                None, "not a date (YYYY-MM-DD) or an ISO-8601 time", field="--since", value=value
            ) from None
    if value is None:
        return None
    if not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    aware = value if value.tzinfo else value.replace(tzinfo=UTC)
    try:
        aware.astimezone(UTC)
    except OverflowError:  # year 1 east of UTC, year 9999 west of it
        raise InputError(
            None, "before or after the years a time in UTC holds (1 to 9999)", field="--since",
            value=value.isoformat(),
        ) from None  # fmt: skip
    return aware


def _as_text_times(frame: pl.DataFrame) -> pl.DataFrame:
    """Datetime columns as ISO-8601 text in UTC (a zone-less one is UTC, as Prisma
    writes it)."""
    out = []
    for name, dtype in frame.schema.items():
        if isinstance(dtype, pl.Datetime):
            col = pl.col(name)
            if dtype.time_zone is None:
                col = col.dt.replace_time_zone("UTC")
            else:
                col = col.dt.convert_time_zone("UTC")
            out.append(col.dt.strftime("%Y-%m-%dT%H:%M:%S%.6f+00:00").alias(name))
    return frame.with_columns(out) if out else frame


def _rows(
    src: PostgresSource, table: str, where: Sequence[tuple[str, str, Any]]
) -> Iterator[dict[str, Any]]:
    for batch in src.select(table, COLUMNS[table], where=where, order_by=_ORDER[table]):
        yield from _as_text_times(batch).iter_rows(named=True)


def postgres_rows(url: str, *, games: Sequence[str] = (), since: datetime | None = None) -> DbRows:
    """The rows of 2L's tables in the database at ``url``: every game (or the ``games``
    named), created at or after ``since`` when given, with their players, discussion
    messages and votes.

    The tables are checked first: a missing one (``"Vote"`` aside, read as a game
    without votes, with a warning) or a missing column is one line naming it and
    :data:`SYSTEM`.

    Raises:
        InputError: the database cannot be reached or read, or is not 2L's.
    """
    src: PostgresSource = open_source(url)  # type: ignore[assignment]
    try:
        return _read(src, games, since)
    except BaseException:
        src.close()
        raise


def _read(src: PostgresSource, games: Sequence[str], since: datetime | None) -> DbRows:
    warnings: list[str] = []
    catalog = src.tables()
    for table in ("Game", "Player", "DiscussionMessage", "Vote"):
        if table == "Vote" and table not in catalog:
            warnings.append(f"{src.url()}: no Vote table; read as games without votes")
            continue
        src.require(table, COLUMNS[table], system=SYSTEM)
    where: list[tuple[str, str, Any]] = []
    if games:
        where.append(("id", "in", list(games)))
    if since is not None:
        utc = since.astimezone(UTC).replace(tzinfo=None) if since.tzinfo else since
        where.append(("createdAt", ">=", utc))
    game_rows = list(_as_text_times(src.frame("Game", COLUMNS["Game"], where=where)).to_dicts())
    ids = [str(g["id"]) for g in game_rows]
    unknown = sorted(set(games) - set(ids))
    if unknown:
        raise InputError(
            src.url(), "no such game in this database" + (" since that date" if since else ""),
            field="--game", value=unknown[0],
        )  # fmt: skip
    by_game: list[tuple[str, str, Any]] = [("gameId", "in", ids)] if where else []
    tables: dict[str, Iterable[dict[str, Any]]] = {}
    if ids:
        for table in ("Player", "DiscussionMessage", "Vote"):
            if table in catalog:
                tables[table] = _rows(src, table, by_game)
    return DbRows(src.url(), game_rows, tables, warnings, src)
