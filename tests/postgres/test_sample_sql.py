"""The 2L PostgreSQL sample is written by a deterministic, committed generator."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_2l_postgres", ROOT / "sample_runs" / "make_2l_postgres.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_regenerating_gives_the_committed_sql(tmp_path: Path) -> None:
    samples = ROOT / "sample_runs" / "discussions"
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
