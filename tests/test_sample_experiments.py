"""The bundled sample experiments: reproducible from their generator."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import SAMPLE_RUNS

EXPERIMENTS = SAMPLE_RUNS / "experiments"


def test_generator_reproduces_the_committed_sample_experiments(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(SAMPLE_RUNS / "make_experiments.py"), str(tmp_path)],
        check=True,
        capture_output=True,
    )
    committed = sorted(p.name for p in EXPERIMENTS.iterdir() if p.is_file())
    assert sorted(p.name for p in tmp_path.iterdir()) == committed
    for name in committed:
        assert (tmp_path / name).read_bytes() == (EXPERIMENTS / name).read_bytes(), name
