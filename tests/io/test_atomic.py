"""Interrupted writes leave nothing behind for long: the next writer removes them, and no
loader ever reads them (issue: same bytes, same score; interrupted writes)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS, tick_v1, write_run

from toolkit.io.atomic import (
    TEMP_SUFFIX,
    atomic_path,
    is_temp_file,
    remove_leftovers,
    write_text_atomic,
)
from toolkit.load.iterlog import load_iteration_log
from toolkit.load.universe import load_universe

#: A writer that dies (SIGKILL) halfway through writing ``argv[1]`` atomically.
KILLED_WRITER = """
import os, signal, sys
from toolkit.io.atomic import atomic_path
with atomic_path(sys.argv[1]) as tmp:
    tmp.write_text("half of a sidecar")
    os.kill(os.getpid(), signal.SIGKILL)
"""


CLI = "import sys; from toolkit.cli import main; sys.exit(main(sys.argv[1:]))"


def _killed_write(target: Path) -> Path:
    proc = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(target)], check=False)
    assert proc.returncode == -9
    (leftover,) = [p for p in target.parent.iterdir() if p.name.startswith(f".{target.name}.")]
    return leftover


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_temp_files_have_a_recognisable_name(tmp_path: Path) -> None:
    target = tmp_path / "iter-1.score.yaml"
    with atomic_path(target) as tmp:
        assert tmp.parent == tmp_path
        assert tmp.name.startswith(f".iter-1.score.yaml.{os.getpid()}.")
        assert tmp.name.endswith(TEMP_SUFFIX) and is_temp_file(tmp.name)
        tmp.write_text("whole")
    assert target.read_text() == "whole"
    assert [p.name for p in tmp_path.iterdir()] == ["iter-1.score.yaml"]


def test_a_killed_writers_leftover_is_removed_by_the_next_run_of_the_cli(
    tmp_path: Path, tally_log: Path
) -> None:
    log = shutil.copytree(tally_log, tmp_path / "log")
    before = load_iteration_log(log)
    leftover = _killed_write(log / "iter-2.score.yaml")
    assert leftover.read_text() == "half of a sidecar"
    # Loaders never take a leftover as input: the log reads exactly as before.
    after = load_iteration_log(log)
    assert after.iterations.equals(before.iterations) and after.issues.equals(before.issues)
    # The next writer of that sidecar, in a later process, removes it before writing.
    proc = subprocess.run(
        [sys.executable, "-c", CLI, "outcome", str(log), "--write"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert not leftover.exists()
    assert [p.name for p in log.iterdir() if is_temp_file(p.name)] == []
    assert "iteration: 2" in (log / "iter-2.score.yaml").read_text()


def test_a_killed_cache_writers_leftover_is_removed_and_never_read(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [tick_v1(n) for n in range(1, 6)])
    first = load_universe(run, cache=tmp_path / "cache")
    (folder,) = (tmp_path / "cache").iterdir()
    (entry,) = folder.glob("ticks-*.parquet")
    leftover = _killed_write(entry)
    assert load_universe(run, cache=tmp_path / "cache").ticks.equals(first.ticks)
    # A changed tick file rebuilds the entry: the rebuild (a later process) cleans up.
    (run / "tick_summaries" / "ticks" / "tick_5.json").write_text(json.dumps(tick_v1(5)) + " ")
    code = (
        "import sys; from toolkit.load.universe import load_universe; "
        "load_universe(sys.argv[1], cache=sys.argv[2])"
    )
    subprocess.run([sys.executable, "-c", code, str(run), str(tmp_path / "cache")], check=True)
    assert not leftover.exists()
    assert [p.name for p in folder.iterdir() if is_temp_file(p.name)] == []


def _leftover(folder: Path, target: str, pid: int, age_s: float) -> Path:
    path = folder / f".{target}.{pid}.abc123{TEMP_SUFFIX}"
    path.write_text("partial")
    stamp = time.time() - age_s
    os.utime(path, (stamp, stamp))
    return path


def test_only_dead_writers_files_from_before_this_process_are_removed(tmp_path: Path) -> None:
    target = tmp_path / "ratings.parquet"
    dead = _dead_pid()
    old_dead = _leftover(tmp_path, target.name, dead, age_s=3600)
    live = _leftover(tmp_path, target.name, os.getpid(), age_s=3600)  # a writer at work
    fresh = _leftover(tmp_path, target.name, dead + 1_000_000, age_s=-5)  # after our start
    other = _leftover(tmp_path, "other.parquet", dead, age_s=3600)  # another target's
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    link = tmp_path / f".{target.name}.{dead}.def456{TEMP_SUFFIX}"
    link.symlink_to(outside)
    assert remove_leftovers(tmp_path, target.name) == [old_dead]
    assert not old_dead.exists()
    assert live.exists() and fresh.exists() and other.exists()
    assert link.is_symlink() and outside.read_text() == "keep me"


def test_tick_loader_ignores_temp_files_in_a_run(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [tick_v1(1), tick_v1(2)])
    ticks = run / "tick_summaries" / "ticks"
    (ticks / f".tick_3.json.123.x{TEMP_SUFFIX}").write_text("{")
    universe = load_universe(run)
    assert universe.ticks["tick"].to_list() == [1, 2]
    assert universe.issues.height == 0


@pytest.mark.parametrize("name", ["ashfall", "willowbrook"])
def test_sample_runs_hold_no_temp_files(name: str) -> None:
    assert not [p for p in (SAMPLE_RUNS / "universes" / name).rglob("*") if is_temp_file(p.name)]


# --- the mode a written file gets (issue 41: 0600 files a web server could not serve) -------


def _umask_is(value: int) -> int:
    old = os.umask(value)
    return old


def test_a_new_file_gets_the_usual_mode_of_the_umask(tmp_path: Path) -> None:
    old = _umask_is(0o022)
    try:
        written = write_text_atomic(tmp_path / "report.xml", "<x/>")
        assert stat.S_IMODE(written.stat().st_mode) == 0o644
        os.umask(0o027)
        again = write_text_atomic(tmp_path / "other.xml", "<x/>")
        assert stat.S_IMODE(again.stat().st_mode) == 0o640
    finally:
        os.umask(old)


def test_a_replaced_file_keeps_its_own_mode_and_private_stays_private(tmp_path: Path) -> None:
    old = _umask_is(0o022)
    try:
        target = tmp_path / "score.yaml"
        target.write_text("old", encoding="utf-8")
        target.chmod(0o640)
        write_text_atomic(target, "new")
        assert stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_text() == "new"
        secret = write_text_atomic(tmp_path / "backup.json", "{}", private=True)
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    finally:
        os.umask(old)


def test_the_site_is_readable_by_others(tmp_path: Path) -> None:
    """The site's data folder came from mkdtemp (0700) and its files from mkstemp (0600):
    a web server run as another user served 404."""
    from toolkit.views.site import write_site

    old = _umask_is(0o022)
    try:
        write_site([], tmp_path / "site")
    finally:
        os.umask(old)
    for path in [tmp_path / "site", *(tmp_path / "site").rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & 0o004, (path, oct(mode))  # others may read
        if path.is_dir():
            assert mode & 0o001, (path, oct(mode))  # and enter


@pytest.mark.parametrize("pid", ["\u00b2", "99999999999999999999"])
def test_a_leftover_whose_pid_no_process_can_have_is_removed_not_a_traceback(
    tmp_path: Path, pid: str
) -> None:
    """Found in review: "²" passes str.isdigit but int() refuses it (ValueError), and a
    pid past the C int made os.kill raise OverflowError: either escaped the cleanup."""
    target = tmp_path / "ratings.parquet"
    leftover = tmp_path / f".{target.name}.{pid}.abc123{TEMP_SUFFIX}"
    leftover.write_text("half")
    os.utime(leftover, (1, 1))  # long before this process started
    assert remove_leftovers(tmp_path, target.name) == [leftover]
