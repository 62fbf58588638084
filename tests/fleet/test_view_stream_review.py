"""Review of the streamed site writer (``toolkit view -o``, ``collect(..., sink=...)``):
behaviours found in review."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main


def test_a_refused_output_folder_is_one_error_not_notes_of_runs_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output folder holding a ``data/`` folder that is not a site's is refused with
    one line and exit 2; no run was left out, so no note may say one was (before the
    stream, the folder was checked after every run was gathered, and only the error
    was printed)."""
    out = tmp_path / "site"
    (out / "data").mkdir(parents=True)
    (out / "data" / "mine.txt").write_text("not a site's", encoding="utf-8")
    code = main(["view", str(SAMPLE_RUNS / "universes"), str(SAMPLE_RUNS / "iteration_logs"),
                 "-o", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert "not a toolkit site's" in err
    assert "left out" not in err
    assert (out / "data" / "mine.txt").read_text(encoding="utf-8") == "not a site's"
