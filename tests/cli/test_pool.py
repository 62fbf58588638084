"""Polars' thread pool sized to a command's input (:mod:`toolkit.cli._pool`, issue 38).

A one-run command on a small input imports Polars with one worker thread; a large or
unknown input, a user's ``POLARS_MAX_THREADS`` or a Polars imported first keep the pool
as it would be; the variable is never left behind; and the pool's size changes no score.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLE_RUNS

from toolkit.cli._pool import MAX_ENTRIES, SMALL_INPUT, input_bytes

GAMES = SAMPLE_RUNS / "discussions"
RUN = SAMPLE_RUNS / "universes" / "ashfall"
LOGS = SAMPLE_RUNS / "iteration_logs" / "tally-loop"

#: The CLI as the ``toolkit`` script runs it.
CLI = "import sys; from toolkit.cli import main; sys.exit(main())"

#: Runs the CLI in a fresh process as the ``toolkit`` script does (``main()`` reading the
#: process's arguments), then prints Polars' pool size and the variable.
WRAPPER = """
import json, os, sys
from toolkit.cli import main
code = main()
import polars
print(json.dumps({"code": code, "threads": polars.thread_pool_size(),
                  "variable": os.environ.get("POLARS_MAX_THREADS")}))
"""


def _environ(**extra: str) -> dict[str, str]:
    """This process's environment without ``POLARS_MAX_THREADS``, plus ``extra``."""
    return {k: v for k, v in os.environ.items() if k != "POLARS_MAX_THREADS"} | extra


def _pool_after(*args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, *args],
        capture_output=True, text=True, cwd=ROOT, env=_environ(**(env or {})), check=False,
    )  # fmt: skip
    found: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return found


def _default_threads() -> int:
    out = subprocess.run(
        [sys.executable, "-c", "import polars; print(polars.thread_pool_size())"],
        capture_output=True, text=True, check=True, env=_environ(),
    )  # fmt: skip
    return int(out.stdout)


def test_the_sample_games_and_run_are_scored_with_one_thread_and_the_variable_is_not_left() -> None:
    for args in (("discussion", str(GAMES)), ("quality", str(RUN)), ("outcome", str(LOGS))):
        assert _pool_after(*args) == {"code": 0, "threads": 1, "variable": None}, args


def test_a_large_input_keeps_polars_default_pool(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * SMALL_INPUT)
    found = _pool_after("discussion", str(big))
    assert found["code"] == 2  # not a game: refused, after the pool was sized
    assert found["threads"] == _default_threads()


def test_a_user_setting_wins_and_stays_theirs() -> None:
    found = _pool_after("discussion", str(GAMES), env={"POLARS_MAX_THREADS": "2"})
    assert found == {"code": 0, "threads": 2, "variable": "2"}


def test_a_program_calling_main_with_its_arguments_keeps_the_default_pool() -> None:
    code = (
        "import json, sys\n"
        "from toolkit.cli import main\n"
        f"code = main(['discussion', {str(GAMES)!r}])\n"
        "import polars\n"
        "print(json.dumps({'code': code, 'threads': polars.thread_pool_size()}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=_environ(),
        check=True,
    )  # fmt: skip
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found == {"code": 0, "threads": _default_threads()}


def test_a_database_url_is_an_unknown_size_and_keeps_the_default() -> None:
    found = _pool_after("discussion", "postgresql://nobody@127.0.0.1:9/none")
    assert found["code"] == 2
    assert found["threads"] == _default_threads()


def test_one_thread_or_the_default_gives_the_same_scores() -> None:
    for args in (
        ("discussion", str(GAMES), "--format", "json"),
        ("quality", str(RUN), "--format", "json"),
        ("outcome", str(LOGS), "--format", "json"),
    ):
        outputs = []
        for env in (_environ(), _environ(POLARS_MAX_THREADS="2")):  # one thread, then two
            proc = subprocess.run(
                [sys.executable, "-c", CLI, *args],
                capture_output=True, text=True, cwd=ROOT, env=env, check=True,
            )  # fmt: skip
            outputs.append(proc.stdout)
        assert outputs[0] == outputs[1], args


def test_input_bytes_counts_files_and_walks_folders(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 100)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"x" * 50)
    assert input_bytes([str(tmp_path)], 10_000) == 150
    assert input_bytes([str(tmp_path / "a"), str(tmp_path / "sub")], 10_000) == 150
    assert input_bytes([str(tmp_path)], 120) == 120  # counted until the limit


@pytest.mark.parametrize(
    "path", ["postgresql://u@h/db", "s3://bucket/run", "no/such/run", "a\x00b"]
)
def test_what_is_not_a_local_path_counts_as_large(path: str) -> None:
    assert input_bytes([path], 1000) == 1000


def test_a_folder_of_more_entries_than_the_walk_looks_at_is_large(tmp_path: Path) -> None:
    for i in range(MAX_ENTRIES + 1):
        (tmp_path / f"f{i}").touch()
    assert input_bytes([str(tmp_path)], 1000) == 1000


def test_a_link_loop_ends(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to(tmp_path)
    assert input_bytes([str(tmp_path)], 1000) == 1000  # walked round until MAX_ENTRIES
