"""Write ``sample_runs/discussions/2l-postgres.sql``: 2L's game database on PostgreSQL.

Usage: ``python sample_runs/make_2l_postgres.py [SQLITE_DB] [OUT_SQL]`` (defaults: the
sample SQLite database ``discussions/baseline/games.db`` and the file above). Load it with
``createdb llm_mafia && psql -d llm_mafia -f sample_runs/discussions/2l-postgres.sql``.

The schema is what Prisma's ``migrate`` writes for 2L's models on PostgreSQL (FORMATS.md
§5): tables named after the models, so quoted and case-sensitive; ``String`` as ``TEXT``,
``Int`` as ``INTEGER``, ``Boolean`` as ``BOOLEAN``, ``DateTime`` as ``TIMESTAMP(3)``
(UTC, without a zone), primary keys named ``<Model>_pkey``, foreign keys with ``ON DELETE
CASCADE``. The rows are the sample SQLite database's games, as the same facts: Prisma on
SQLite stores times as epoch milliseconds, here they are UTC timestamps. ``"NightMessage"``
and ``"GameEvent"`` are created empty (the samples have no night chat or event log);
``"SharedGame"`` is left out (the toolkit never reads it). The vote columns the SQLite
sample lacks are filled as the game fills them: ``"phaseType"`` ``'VOTING'`` and
``"voteOrder"``, the vote's place in its round.

Deterministic: the same database always gives the same file.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCHEMA = """\
CREATE TABLE "Game" (
    "id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "currentPhase" TEXT,
    "roundNumber" INTEGER NOT NULL DEFAULT 1,
    "winner" TEXT,
    "playerCount" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Game_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "Player" (
    "id" TEXT NOT NULL,
    "gameId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "personality" TEXT NOT NULL,
    "isAlive" BOOLEAN NOT NULL DEFAULT true,
    "position" INTEGER NOT NULL,
    "eliminatedInRound" INTEGER,
    "eliminationType" TEXT,
    CONSTRAINT "Player_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "DiscussionMessage" (
    "id" TEXT NOT NULL,
    "gameId" TEXT NOT NULL,
    "roundNumber" INTEGER NOT NULL,
    "playerId" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "inReplyToId" TEXT,
    "timestamp" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "turn" INTEGER NOT NULL,
    CONSTRAINT "DiscussionMessage_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "NightMessage" (
    "id" TEXT NOT NULL,
    "gameId" TEXT NOT NULL,
    "roundNumber" INTEGER NOT NULL,
    "playerId" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "inReplyToId" TEXT,
    "timestamp" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "turn" INTEGER NOT NULL,
    CONSTRAINT "NightMessage_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "Vote" (
    "id" TEXT NOT NULL,
    "gameId" TEXT NOT NULL,
    "roundNumber" INTEGER NOT NULL,
    "voterId" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "justification" TEXT,
    "phaseType" TEXT NOT NULL DEFAULT 'VOTING',
    "voteOrder" INTEGER NOT NULL,
    "timestamp" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Vote_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "GameEvent" (
    "id" TEXT NOT NULL,
    "gameId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "data" TEXT NOT NULL,
    "timestamp" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "GameEvent_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "Player_gameId_idx" ON "Player"("gameId");
CREATE INDEX "DiscussionMessage_gameId_roundNumber_idx"
    ON "DiscussionMessage"("gameId", "roundNumber");
CREATE INDEX "NightMessage_gameId_roundNumber_idx" ON "NightMessage"("gameId", "roundNumber");
CREATE INDEX "Vote_gameId_roundNumber_idx" ON "Vote"("gameId", "roundNumber");
CREATE INDEX "GameEvent_gameId_idx" ON "GameEvent"("gameId");

ALTER TABLE "Player" ADD CONSTRAINT "Player_gameId_fkey"
    FOREIGN KEY ("gameId") REFERENCES "Game"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "DiscussionMessage" ADD CONSTRAINT "DiscussionMessage_gameId_fkey"
    FOREIGN KEY ("gameId") REFERENCES "Game"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "NightMessage" ADD CONSTRAINT "NightMessage_gameId_fkey"
    FOREIGN KEY ("gameId") REFERENCES "Game"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Vote" ADD CONSTRAINT "Vote_gameId_fkey"
    FOREIGN KEY ("gameId") REFERENCES "Game"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "GameEvent" ADD CONSTRAINT "GameEvent_gameId_fkey"
    FOREIGN KEY ("gameId") REFERENCES "Game"("id") ON DELETE CASCADE ON UPDATE CASCADE;
"""

#: The columns copied from each SQLite table, in the order of the INSERTs.
COLUMNS: dict[str, tuple[str, ...]] = {
    "Game": ("id", "status", "currentPhase", "roundNumber", "winner", "playerCount", "createdAt"),
    "Player": ("id", "gameId", "name", "role", "personality", "isAlive", "position"),
    "DiscussionMessage": (
        "id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp",
        "turn",
    ),
    "Vote": (
        "id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp",
    ),
}  # fmt: skip

_TIMES = frozenset({"createdAt", "timestamp"})


def literal(value: Any, column: str) -> str:
    """A SQL literal: NULL, a number, a boolean, a UTC timestamp (from Prisma-on-SQLite's
    epoch milliseconds) or a string with its quotes doubled."""
    if value is None:
        return "NULL"
    if column in _TIMES:
        moment = datetime.fromtimestamp(int(value) / 1000, tz=UTC)
        return "'" + moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}'"
    if column == "isAlive":
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def _insert(table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    names = ", ".join(f'"{c}"' for c in columns)
    out = []
    for row in rows:
        values = ", ".join(literal(v, c) for v, c in zip(row, columns, strict=True))
        out.append(f'INSERT INTO "{table}" ({names}) VALUES ({values});')
    return out


def render(db: Path) -> str:
    """The SQL file's text for the SQLite game database ``db``."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        lines = [
            "-- 2L (LLM Mafia) game database on PostgreSQL: Prisma's schema and the sample",
            "-- games of sample_runs/discussions/baseline/games.db.",
            "-- Written by sample_runs/make_2l_postgres.py; load with psql -f.",
            "SET client_encoding = 'UTF8';",
            "SET standard_conforming_strings = on;",
            "",
            "BEGIN;",
            "",
            SCHEMA,
        ]
        for table, columns in COLUMNS.items():
            names = ", ".join(f'"{c}"' for c in columns)
            rows = con.execute(f'SELECT {names} FROM "{table}" ORDER BY rowid').fetchall()
            if table == "Vote":
                lines += _votes(rows)
            else:
                lines += _insert(table, columns, rows)
            lines.append("")
        lines.append("COMMIT;")
    finally:
        con.close()
    return "\n".join(lines) + "\n"


def _votes(rows: Sequence[Sequence[Any]]) -> list[str]:
    """Votes with their ``"voteOrder"``: the place of each in its game's round."""
    seen: dict[tuple[Any, Any], int] = {}
    full = []
    for row in rows:
        key = (row[1], row[2])
        seen[key] = seen.get(key, 0) + 1
        full.append((*row, "VOTING", seen[key]))
    return _insert("Vote", (*COLUMNS["Vote"], "phaseType", "voteOrder"), full)


def main(db: Path, out: Path) -> None:
    """Write the SQL file ``out`` from the SQLite database ``db`` (atomically)."""
    text = render(db)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, out)


if __name__ == "__main__":
    from _outputs import output_paths

    here = Path(__file__).parent / "discussions"
    games_db = ("GAMES_DB", here / "baseline" / "games.db")
    main(*output_paths(__doc__, games_db, ("OUT_SQL", here / "2l-postgres.sql")))
