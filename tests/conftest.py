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
