"""Shared fixtures. Real runs are read in place from ../shared/real_runs when present."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_RUNS = ROOT / "sample_runs"
REAL_RUNS = ROOT.parent / "shared" / "real_runs"

#: Debian's Chromium (installed by .ci/run) and the flags it needs on this closed network.
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def real_runs() -> Path:
    """The folder of real runs from public projects; skips when it is absent."""
    if not REAL_RUNS.is_dir():
        pytest.skip(f"real runs not available: {REAL_RUNS} is absent (fresh clone without shared/)")
    return REAL_RUNS


@pytest.fixture
def sample_runs() -> Path:
    """The sample runs bundled with the project."""
    return SAMPLE_RUNS


# ---------------------------------------------------------------------------
# Building token-world runs for tests
# ---------------------------------------------------------------------------


def tick_v1(n: int, **fields: Any) -> dict[str, Any]:
    """A schema-v1 tick summary of an executed tick with one mutation; override any field."""
    record: dict[str, Any] = {
        "schema_version": 1,
        "tick_id": str(n),
        "timestamp_iso": f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}Z",
        "action_text": f"Mara walks to the well (turn {n}).",
        "classified_action": {"verb": "walk", "actor": "mara", "target": "well"},
        "classified_actions": [],
        "matched_mechanic_id": "walk_action",
        "yielded": False,
        "refused": False,
        "refusal_reason": None,
        "mutations": {"count": 1, "list": [["mara", "location", "home", "well"]]},
        "observation_text": "Mara is at the well.",
        "long_running_action": None,
        "duration_ms": 1000,
        "llm_tokens_by_stage": {
            "classifier": {"in": 10, "out": 2},
            "observer": {"in": 5, "out": 1},
        },
        "llm_cost_usd_by_stage": {"classifier": 0.25, "observer": 0.5},
    }
    record.update(fields)
    return record


def tick_v2(n: int, **fields: Any) -> dict[str, Any]:
    """A schema-v2 tick summary of an executed tick whose observer claims its one mutation."""
    record: dict[str, Any] = {
        "schema_version": 2,
        "tick_id": str(n),
        "timestamp_iso": "2026-01-01T00:00:00Z",
        "actor_id": "mara",
        "action_text": f"Mara walks to the well (turn {n}).",
        "classified_action": {"verb": "walk", "actor": "mara", "target": "well"},
        "matched_mechanic_id": "walk_action",
        "kind": "execute",
        "refusal_reason": None,
        "conservation_verdict": "ok",
        "mutations": {"count": 1, "list": [["mara", "location", "home", "well"]]},
        "projected_state": {},
        "observation": {
            "text": "Mara is at the well.",
            "claimed_changes": [["mara", "location", "well"]],
        },
        "long_running_action": None,
        "duration_ms": 1000,
        "cost_usd": 0.75,
    }
    record.update(fields)
    return record


def refused_v1(n: int, reason: str = "no_viable_action") -> dict[str, Any]:
    """A refused v1 tick (zero mutations)."""
    return tick_v1(
        n, refused=True, refusal_reason=reason, matched_mechanic_id=None,
        mutations={"count": 0, "list": []},
    )  # fmt: skip


#: graph_snapshots as token-world's engine declares it (docs/formats/universe.md).
SNAPSHOTS_DDL = """
CREATE TABLE graph_snapshots (
    snapshot_id INTEGER PRIMARY KEY AUTOINCREMENT,
    tick_id INTEGER NOT NULL,
    summary TEXT NOT NULL DEFAULT '',
    graph_json TEXT NOT NULL,
    node_count INTEGER NOT NULL,
    edge_count INTEGER NOT NULL,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    UNIQUE(tick_id)
);
CREATE INDEX idx_snapshots_tick ON graph_snapshots(tick_id);
"""


def write_run(
    root: Path,
    ticks: list[dict[str, Any]],
    *,
    snapshots: list[tuple[int, int, int]] | None = None,
    batches: list[dict[str, Any]] | None = None,
) -> Path:
    """Write a run folder: tick files, optional batch records and graph snapshots."""
    tick_dir = root / "tick_summaries" / "ticks"
    tick_dir.mkdir(parents=True, exist_ok=True)
    for t in ticks:
        number = str(t["tick_id"]).removeprefix("tick_")
        (tick_dir / f"tick_{number}.json").write_text(json.dumps(t))
    for i, b in enumerate(batches or []):
        (root / "tick_summaries" / f"batch_{i}.json").write_text(json.dumps(b))
    if snapshots is not None:
        with sqlite3.connect(root / "universe.db") as conn:
            conn.executescript(SNAPSHOTS_DDL)
            conn.executemany(
                "INSERT INTO graph_snapshots (tick_id, graph_json, node_count, edge_count)"
                " VALUES (?, '{}', ?, ?)",
                snapshots,
            )
        conn.close()
    return root


# ---------------------------------------------------------------------------
# Agent iteration logs: the sample log and the git repository its script builds
# ---------------------------------------------------------------------------

ITERATION_LOGS = SAMPLE_RUNS / "iteration_logs"


def _build_tally_repo(dest: Path, *extra: str) -> Path:
    import subprocess
    import sys

    subprocess.run(
        [sys.executable, str(ITERATION_LOGS / "make_repo.py"), str(dest), *extra],
        check=True,
        capture_output=True,
    )
    return dest


@pytest.fixture
def tally_log() -> Path:
    """The sample iteration log (schema v1 and v2, sidecars, artifacts)."""
    return ITERATION_LOGS / "tally-loop"


@pytest.fixture
def tally_transcripts() -> Path:
    """The folder holding the sample log's Claude Code transcript."""
    return ITERATION_LOGS / "transcripts"


@pytest.fixture(scope="session")
def tally_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample log's git repository, built by its script into a temporary folder."""
    return _build_tally_repo(tmp_path_factory.mktemp("tally") / "repo")


@pytest.fixture(scope="session")
def tally_bare_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same repository, bare."""
    return _build_tally_repo(tmp_path_factory.mktemp("tally-bare") / "repo.git", "--bare")
