"""The 2L PostgreSQL sample is written by a deterministic, committed generator."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from conftest import SAMPLE_RUNS, script_module


def _generator() -> ModuleType:
    return script_module(SAMPLE_RUNS / "make_2l_postgres.py")


def test_regenerating_gives_the_committed_sql(tmp_path: Path) -> None:
    samples = SAMPLE_RUNS / "discussions"
    out = tmp_path / "2l.sql"
    _generator().main(samples / "baseline" / "games.db", out)
    assert out.read_bytes() == (samples / "2l-postgres.sql").read_bytes()


def test_literals_follow_postgres_quoting_and_prisma_times() -> None:
    literal = _generator().literal
    assert literal("let's", "message") == "'let''s'"
    assert literal(None, "inReplyToId") == "NULL"
    assert literal(1, "isAlive") == "true" and literal(0, "isAlive") == "false"
    # 2026-03-07 19:00:11.250 UTC as Prisma-on-SQLite's epoch milliseconds
    assert literal(1772910011250, "timestamp") == "'2026-03-07 19:00:11.250'"
