"""The sample generators' command lines: ``--help`` shows the usage, and a mistyped option is
refused (exit 2) instead of being taken for the folder to write the samples into."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

GENERATORS = sorted(p.name for p in SAMPLE_RUNS.glob("make_*.py"))


@pytest.mark.parametrize("script", GENERATORS)
def test_an_option_like_word_writes_nothing(script: str, tmp_path: Path) -> None:
    for words, code in ((["--help"], 0), (["--bogus"], 2), (["-x", "out"], 2)):
        proc = subprocess.run(
            [sys.executable, str(SAMPLE_RUNS / script), *words],
            cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert proc.returncode == code, (words, proc.stderr)
        assert "usage:" in (proc.stdout if code == 0 else proc.stderr), words
        assert list(tmp_path.iterdir()) == [], words  # nothing written where it ran
