"""The bundled sample runs: reproducible from their generator, and covering each verdict."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

import toolkit as tk

UNIVERSES = SAMPLE_RUNS / "universes"


def _rows(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT * FROM graph_snapshots ORDER BY snapshot_id").fetchall()
    conn.close()
    return rows


def test_generator_reproduces_the_committed_sample_runs(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(SAMPLE_RUNS / "make_universes.py"), str(tmp_path)],
        check=True,
        capture_output=True,
    )
    committed = sorted(p.relative_to(UNIVERSES) for p in UNIVERSES.rglob("*") if p.is_file())
    fresh = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert fresh == committed
    for rel in committed:
        if rel.suffix == ".db":
            assert _rows(tmp_path / rel) == _rows(UNIVERSES / rel), rel
        else:
            assert (tmp_path / rel).read_bytes() == (UNIVERSES / rel).read_bytes(), rel


@pytest.mark.parametrize(
    ("slug", "verdict", "failing"),
    [
        ("willowbrook", "HEALTHY", set()),
        ("harbor-town", "DEGRADED", set()),
        (
            "ashfall",
            "FAILED",
            {"character_stability", "action_coherence", "refusal_cluster",
             "vocabulary_growth", "conservation_drift", "graph_fanout"},
        ),
    ],
)  # fmt: skip
def test_each_sample_run_shows_its_case(slug: str, verdict: str, failing: set[str]) -> None:
    card = tk.score_universe(tk.load_universe(UNIVERSES / slug))[0]
    assert card.verdict == verdict
    fails = set(card.dimensions.filter(card.dimensions["status"] == "FAIL")["dimension"])
    assert fails == failing


def test_sample_runs_are_long_enough_and_have_batches() -> None:
    for slug in ("willowbrook", "harbor-town", "ashfall"):
        u = tk.load_universe(UNIVERSES / slug)
        assert u.ticks.height + int(u.batches["tick_count"].sum()) >= 150
        assert u.checkpoints.height == 50
