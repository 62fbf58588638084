"""The per-step instruction count of one discussion run (bench/bench_steps.py): its dumps
read in the order callgrind numbers them, each paired with the mark that closed it, and
every step it names marked when the command runs (a renamed step fails here, not as a
silently missing row). Valgrind itself is not needed: the marks are plain calls."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import ROOT, script_module

BENCH = ROOT / "bench" / "bench_steps.py"


def _bench() -> ModuleType:
    return script_module(BENCH)


def _dump(path: Path, line: str) -> None:
    path.write_text(f"version: 1\ncreator: callgrind-3.19.0\n{line}\n", encoding="utf-8")


def test_dumps_are_read_in_numeric_order_and_the_last_part_apart(tmp_path: Path) -> None:
    for number, count in ((1, 100), (2, 200), (10, 1000), (9, 900)):
        _dump(tmp_path / f"run.{number}", f"summary: {count}")
    _dump(tmp_path / "run", "totals: 5")  # the older spelling of the total
    assert _bench().dump_totals(tmp_path / "run") == ([100, 200, 900, 1000], 5)


def test_a_file_without_a_total_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "run").write_text("events: Ir\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="run: no 'summary:'"):
        _bench().dump_totals(tmp_path / "run")


def test_each_dump_goes_to_the_mark_that_closed_it_and_repeated_steps_add_up() -> None:
    bench = _bench()
    steps = bench.by_step(["floor", "glue", "role", "glue"], [600, 3, 20, 4], 60)
    assert steps == {"floor": 600, "glue": 7, "role": 20, bench.TEARDOWN: 60}


def test_more_dumps_than_marks_is_refused_not_misattributed() -> None:
    with pytest.raises(SystemExit, match="3 dumps for 2 marks"):
        _bench().by_step(["floor", "glue"], [1, 2, 3], 0)


def test_every_named_step_is_marked_when_the_command_runs(tmp_path: Path) -> None:
    bench = _bench()
    labels = tmp_path / "labels"
    child = bench.CHILD.format(here=str(BENCH.parent))
    env = {k: v for k, v in os.environ.items() if k != "POLARS_MAX_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", child, str(labels), str(ROOT / "sample_runs" / "discussions")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Verdict:" in done.stdout  # the command ran and drew its table
    marked = labels.read_text(encoding="utf-8").splitlines()
    named = {label for steps in bench.STEPS.values() for _, label in steps}
    assert named <= set(marked), named - set(marked)
    assert bench.IMPORTS in marked
    # the floor's part first, then the bench's own; the end closed outside every step
    assert marked[:2] == [bench.FLOOR_IMPORT, bench.BENCH_OWN]
    assert marked[-1] == bench.OUTSIDE
