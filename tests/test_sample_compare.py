"""The sample pair of fleets: reproducible from its generator, scenario-keyed, and the
change planted in B is what `toolkit compare` reports (tests/cli/test_compare_cli.py)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from conftest import SAMPLE_RUNS

COMPARE = SAMPLE_RUNS / "compare"


def _rows(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT * FROM graph_snapshots ORDER BY snapshot_id").fetchall()
    conn.close()
    return rows


def test_generator_reproduces_the_committed_pair(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(SAMPLE_RUNS / "make_compare.py"), str(tmp_path)],
        check=True,
        capture_output=True,
    )
    committed = sorted(p.relative_to(COMPARE) for p in COMPARE.rglob("*") if p.is_file())
    fresh = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert fresh == committed
    for rel in committed:
        if rel.suffix == ".db":
            assert _rows(tmp_path / rel) == _rows(COMPARE / rel), rel
        else:
            assert (tmp_path / rel).read_bytes() == (COMPARE / rel).read_bytes(), rel


def test_a_runs_each_scenario_twice_and_b_once_and_the_pair_stays_small() -> None:
    a = sorted(p.name for p in (COMPARE / "a").iterdir())
    b = sorted(p.name for p in (COMPARE / "b").iterdir())
    assert len(a) == 24 and len(b) == 12
    assert all((COMPARE / "a" / run / "universe.yaml").read_text().endswith(
        f"scenario: {run[:3]}\n") for run in a)  # fmt: skip
    size = sum(p.stat().st_size for p in COMPARE.rglob("*") if p.is_file())
    assert size < 5 * 2**20
