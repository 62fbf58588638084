"""The sample games are written by a deterministic, committed generator."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import ModuleType

from conftest import script_module


def _generator(sample_runs: Path) -> ModuleType:
    return script_module(sample_runs / "make_discussions.py")


def _dump(db: Path) -> list[str]:
    con = sqlite3.connect(db)
    try:
        return list(con.iterdump())
    finally:
        con.close()


def test_regenerating_gives_the_committed_files(sample_runs: Path, tmp_path: Path) -> None:
    _generator(sample_runs).main(tmp_path)
    committed = sample_runs / "discussions"
    for name in (
        "game-pass.json",
        "game-role-repetition.json",
        "game-over-budget.json",
        "ratings.csv",
        "engagement_ratings.csv",
        "judge/cassette.json",
    ):
        assert (tmp_path / name).read_bytes() == (committed / name).read_bytes(), name
    assert _dump(tmp_path / "baseline" / "games.db") == _dump(committed / "baseline" / "games.db")


def test_the_sqlite_sample_has_the_games_tables(sample_runs: Path) -> None:
    con = sqlite3.connect(sample_runs / "discussions" / "baseline" / "games.db")
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        con.close()
    assert tables == {"Game", "Player", "DiscussionMessage", "Vote"}
