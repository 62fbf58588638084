"""Every input a command skips is printed on stderr, one line naming it and why.

The reading edge's link rule decides what is read: a symlink that resolves inside the
folder being read is read; a link out of it, a folder named like an input file, a FIFO are
skipped. A skipped input never vanishes silently: the loader raises a
``SkippedInputWarning`` (and records it on its result), and the CLI prints every input
warning as one ``toolkit COMMAND: warning: ...`` line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.errors import SkippedInputWarning
from toolkit.load.discussion import load_discussion

ROOT = Path(__file__).resolve().parents[2]
GAMES = SAMPLE_RUNS / "discussions"


def toolkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).with_name("toolkit")), *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80"},
        check=False,
    )


@pytest.fixture
def selection(tmp_path: Path) -> Path:
    """A folder of games: one copied, one linked from outside, one linked from inside,
    and a folder named like a game file."""
    sel = tmp_path / "sel"
    (sel / "kept").mkdir(parents=True)
    shutil.copy(GAMES / "game-pass.json", sel)
    shutil.copy(GAMES / "game-role-repetition.json", sel / "kept")
    (sel / "game-over-budget.json").symlink_to(GAMES / "game-over-budget.json")
    (sel / "inside.json").symlink_to(sel / "kept" / "game-role-repetition.json")
    (sel / "folder.json").mkdir()
    return sel


def stderr_lines(done: subprocess.CompletedProcess[str], command: str) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.startswith(f"toolkit {command}:")]


def test_discussion_prints_each_skipped_game_file_and_reads_links_inside(
    selection: Path,
) -> None:
    for fmt in ("table", "json"):
        done = toolkit("discussion", str(selection), "--format", fmt, cwd=selection.parent)
        assert done.returncode == 0, done.stderr
        lines = stderr_lines(done, "discussion")
        outside = [line for line in lines if "game-over-budget.json: skipped: a symlink" in line]
        folder = [line for line in lines if "folder.json: skipped: a folder" in line]
        assert len(outside) == 1 and "outside the folder being read" in outside[0], lines
        assert len(folder) == 1, lines
        assert all(line.startswith("toolkit discussion: warning: ") for line in outside + folder)
        assert "inside.json" not in done.stderr  # a link inside the folder is read
        scored = done.stdout
        assert "game-pass" in scored and "game-role-repetition" in scored
        assert "game-over-budget" not in scored


def test_the_library_raises_a_skipped_input_warning_and_records_it(selection: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        games = load_discussion(selection)
    raised = [str(w.message) for w in caught if issubclass(w.category, SkippedInputWarning)]
    assert sorted(raised) == sorted(w for w in games.warnings if ": skipped: " in w)
    assert len(raised) == 2


def test_quality_prints_skipped_tick_files_on_stderr(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(SAMPLE_RUNS / "universes" / "ashfall", run)
    ticks = run / "tick_summaries" / "ticks"
    first = sorted(ticks.iterdir())[0]
    (ticks / "tick_9999.json").symlink_to(SAMPLE_RUNS / "universes/ashfall/tick_summaries/ticks"
                                          / first.name)  # fmt: skip
    (ticks / "tick_9998.json").mkdir()
    done = toolkit("quality", str(run), "--format", "json", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    lines = stderr_lines(done, "quality")
    assert any("tick_9999.json: skipped: a symlink" in line for line in lines), lines
    assert any("tick_9998.json: skipped: a folder" in line for line in lines), lines


def test_outcome_prints_skipped_iteration_files_on_stderr(tmp_path: Path) -> None:
    log = tmp_path / "log"
    shutil.copytree(SAMPLE_RUNS / "iteration_logs" / "tally-loop", log)
    (log / "iter-8.yaml").symlink_to(SAMPLE_RUNS / "iteration_logs/tally-loop/iter-7.yaml")
    (log / "iter-9.yaml").mkdir()
    done = toolkit("outcome", str(log), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = stderr_lines(done, "outcome")
    assert any("iter-8.yaml: skipped: a symlink" in line for line in lines), lines
    assert any("iter-9.yaml: skipped: a folder" in line for line in lines), lines
