"""Shared fixtures. Real runs are read in place from ../shared/real_runs when present."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_RUNS = ROOT / "sample_runs"
REAL_RUNS = ROOT.parent / "shared" / "real_runs"


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
