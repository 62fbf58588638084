"""SQLite files under paths holding URI characters (``?``, ``#``, ``%xx``, spaces) are read
read-only from exactly that path: each run its own database, nothing created beside it.

Every read-only open goes through one URI builder (``_edge.sqlite_readonly``); before it,
``run #1`` opened ``run `` (a new, empty file outside the run) and ``run%41`` opened
``runA``'s database.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import tick_v1, write_run

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.load.discussion import load_discussion
from toolkit.load.snapshots import snapshot_ticks
from toolkit.load.universe import load_universe

#: Folder names that are URI syntax, beside the one ``run%41`` decodes to.
NAMES = ["run #1", "run?x", "run%41", "runA", "a&mode=rwc", "ü ;=,"]


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    """One run per name, each with a universe.db whose only snapshot counts its index."""
    root = tmp_path / "sweep"
    for index, name in enumerate(NAMES, start=1):
        write_run(root / name, [tick_v1(1)], snapshots=[(1, index, index * 10)])
    return root


def test_each_run_reads_its_own_universe_db_and_creates_nothing(sweep: Path) -> None:
    before = tree(sweep.parent)
    for index, name in enumerate(NAMES, start=1):
        universe = load_universe(sweep / name)
        assert universe.checkpoints["node_count"].to_list() == [index], name
        assert universe.issues.height == 0, universe.issues
    assert tree(sweep.parent) == before


def test_snapshots_read_their_own_db(sweep: Path) -> None:
    before = tree(sweep.parent)
    for name in NAMES:
        assert snapshot_ticks(sweep / name / "universe.db") == [1], name
    assert tree(sweep.parent) == before


def test_game_databases_are_read_from_their_own_path(tmp_path: Path) -> None:
    for index, name in enumerate(NAMES, start=1):
        folder = tmp_path / name
        folder.mkdir()
        con = sqlite3.connect(folder / "game.db")
        con.executescript(
            "CREATE TABLE Game (id TEXT PRIMARY KEY, status TEXT, roundNumber INTEGER,"
            " playerCount INTEGER, createdAt DATETIME);"
            "CREATE TABLE Player (id TEXT PRIMARY KEY, gameId TEXT, name TEXT, role TEXT,"
            " personality TEXT, isAlive BOOLEAN, position INTEGER);"
            "CREATE TABLE DiscussionMessage (id TEXT PRIMARY KEY, gameId TEXT,"
            " roundNumber INTEGER, playerId TEXT, message TEXT, inReplyToId TEXT,"
            " timestamp DATETIME, turn INTEGER);"
            f"INSERT INTO Game VALUES ('g-{index}', 'GAME_OVER', 1, 0, 1767225600000);"
        )
        con.commit()
        con.close()
    before = tree(tmp_path)
    for index, name in enumerate(NAMES, start=1):
        games = load_discussion(tmp_path / name / "game.db")
        assert games.game_ids == [f"g-{index}"], name
    assert tree(tmp_path) == before


def test_a_missing_database_is_not_created(tmp_path: Path) -> None:
    target = tmp_path / "run #1" / "universe.db"
    target.parent.mkdir()
    with pytest.raises(sqlite3.OperationalError):
        edge.sqlite_readonly(target).execute("SELECT 1 FROM sqlite_master").fetchall()
    assert tree(tmp_path) == {"run #1"}


def test_a_relative_path_is_read_from_the_current_folder(
    sweep: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(sweep)
    con = edge.sqlite_readonly(Path("run%41") / "universe.db")
    try:
        assert con.execute("SELECT node_count FROM graph_snapshots").fetchall() == [(3,)]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            con.execute("DELETE FROM graph_snapshots")
    finally:
        con.close()


def test_quality_cli_scores_run_hash_1_with_its_checkpoints(tmp_path: Path) -> None:
    run = write_run(
        tmp_path / "sweep" / "run #1",
        [tick_v1(n) for n in range(1, 21)],
        snapshots=[(10, 3, 30), (20, 4, 40)],
    )  # checkpoints: every 10 ticks
    before = tree(tmp_path)
    toolkit = Path(sys.executable).with_name("toolkit")
    done = subprocess.run(
        [str(toolkit), "quality", str(run)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    fan_out = next(line for line in done.stdout.splitlines() if "Graph fan-out" in line)
    assert "insufficient history" not in fan_out and "[N/A]" not in fan_out, fan_out
    assert tree(tmp_path) == before


def test_a_universe_database_given_as_a_game_says_what_it_is(tmp_path: Path) -> None:
    """A token-world universe.db handed to the discussion loader is named for what it is
    (with the command that reads it), not by the 2L table it lacks."""
    db = tmp_path / "universe.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE graph_events (id INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(InputError) as info:
        load_discussion(db)
    message = str(info.value)
    assert "token-world universe database" in message
    assert "toolkit quality" in message
    assert "table='Game'" not in message
