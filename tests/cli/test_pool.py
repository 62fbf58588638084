"""Polars' thread pool sized to a command's input (:mod:`toolkit.cli._pool`, issue 38).

A one-run command on a small input imports Polars with one worker thread; a large or
unknown input, a user's ``POLARS_MAX_THREADS`` or a Polars imported first keep the pool
as it would be; the variable is never left behind; and the pool's size changes no score.
A small input's run that ends by itself is done on that worker, and what it returns or
raises comes back to the command line as before. The command runs below a frame with room
for its calls (:func:`~toolkit.cli._pool.with_room`), so CPython does not map and unmap a
chunk of its frame stack each time a call crosses a chunk's end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLE_RUNS

import toolkit.cli._pool as pool
from toolkit.cli._pool import (
    MAX_ENTRIES,
    SMALL_INPUT,
    ends_alone,
    input_bytes,
    on_worker,
    run_command,
    with_room,
)

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


def _reported(script: str, *args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    """What ``script`` (a wrapper around the CLI, given ``args``) prints last, as JSON."""
    proc = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True, text=True, cwd=ROOT, env=_environ(**(env or {})), check=False,
    )  # fmt: skip
    found: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return found


def _pool_after(*args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    return _reported(WRAPPER, *args, env=env)


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


#: Runs the CLI as the script does, with the discussion command's ``run`` wrapped to note
#: the thread it is called on (its name as the kernel has it: Polars names its workers).
THREAD_WRAPPER = """
import json, sys, threading
import toolkit.cli.discussion as command
from toolkit.cli import main
real, seen = command.run, {}
def run(args):
    tid = threading.get_native_id()
    with open(f"/proc/self/task/{tid}/comm") as comm:
        seen["thread"] = comm.read().strip()
    seen["main"] = tid == main_tid
    return real(args)
main_tid = threading.get_native_id()
command.run = run
code = main()
print(json.dumps({"code": code, **seen}))
"""


def _ran_on(*args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    return _reported(THREAD_WRAPPER, *args, env=env)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux's /proc names threads")
@pytest.mark.parametrize("env", [{}, {"POLARS_MAX_THREADS": "1"}], ids=["sized", "user's one"])
def test_a_small_input_s_run_is_done_on_polars_one_worker(env: dict[str, str]) -> None:
    found = _ran_on("discussion", str(GAMES), "--format", "json", env=env)
    assert found["code"] == 0
    assert found["main"] is False
    assert str(found["thread"]).startswith("polars")


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux's /proc names threads")
def test_a_pool_of_two_or_a_judge_keeps_the_run_on_the_main_thread() -> None:
    two = _ran_on("discussion", str(GAMES), env={"POLARS_MAX_THREADS": "2"})
    assert two["code"] == 0 and two["main"] is True
    cassette = SAMPLE_RUNS / "discussions" / "judge"
    judged = _ran_on("discussion", str(GAMES), "--judge", f"recorded:{next(cassette.iterdir())}")
    assert judged["main"] is True


def test_a_refusal_on_the_worker_is_the_usual_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "game.json"
    bad.write_text('{"players": 3}')
    proc = subprocess.run(
        [sys.executable, "-c", CLI, "discussion", str(bad)],
        capture_output=True, text=True, cwd=ROOT, env=_environ(), check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"toolkit discussion: error: {bad}")
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr


def test_a_reader_that_stops_early_ends_the_run_quietly_with_exit_0() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "discussion", str(GAMES)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=_environ(),
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # as `| head -0` does: nothing is read
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait() == 0
    assert b"Traceback" not in err


def test_on_worker_returns_what_the_run_returns_from_another_thread_once() -> None:
    calls: list[int] = []

    def run(args: argparse.Namespace) -> int:
        calls.append(threading.get_ident())
        return int(args.code)

    assert on_worker(run, argparse.Namespace(code=7)) == 7
    assert len(calls) == 1
    assert calls[0] != threading.get_ident()


class _Refused(Exception):
    pass


@pytest.mark.parametrize("exc", [_Refused("no"), SystemExit(3), BrokenPipeError()])
def test_on_worker_raises_on_the_caller_what_the_run_raised(exc: BaseException) -> None:
    def run(args: argparse.Namespace) -> int:
        raise exc

    with pytest.raises(type(exc)) as caught:
        on_worker(run, argparse.Namespace())
    assert caught.value is exc


def _chain(depth: int) -> int:
    return 0 if depth == 0 else _chain(depth - 1) + 1


def _calls(times: int, depth: int) -> int:
    for _ in range(times):
        _chain(depth)
    return times


def _faults(func: Callable[..., object], *args: object) -> int:
    """The page faults of this thread while ``func(*args)`` runs."""
    before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    func(*args)
    return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before


def test_a_call_loop_below_with_room_maps_no_chunk_per_call() -> None:
    # 2,000 calls 300 frames deep: deeper than a 16 KiB chunk holds, so called plainly each
    # one crosses a chunk's end, and CPython maps a fresh chunk (a page fault) each time
    plain = _faults(_calls, 2000, 300)
    if plain < 2000:  # an interpreter that keeps its chunks: nothing for the room to spare
        pytest.skip(f"this Python splits no call loop across chunks ({plain} faults)")
    assert _faults(with_room, _calls, 2000, 300) < 200


def test_with_room_returns_what_it_calls_and_raises_what_it_raised() -> None:
    assert with_room(divmod, 7, 2) == (3, 1)
    with pytest.raises(ZeroDivisionError):
        with_room(divmod, 1, 0)
    assert with_room.__code__.co_stacksize >= pool.ROOM_SLOTS


def test_run_command_runs_the_command_below_a_frame_with_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    through: list[object] = []

    def recording(func: Callable[..., object], *args: object) -> object:
        through.append(func)
        return with_room(func, *args)

    monkeypatch.setattr(pool, "with_room", recording)
    assert run_command(argparse.Namespace(func=lambda args: 4)) == 4
    assert through  # the command (the pool's sizing with it) ran below the room's frame


@pytest.mark.parametrize(
    ("options", "alone"),
    [
        ({"paths": ["games/"], "judge": None, "watch": False}, True),
        ({"paths": ["games/"], "judge": "recorded:c.yaml"}, False),
        ({"run_dir": "run", "watch": True}, False),
        ({"log_dir": "logs", "scheduler": "tcp://10.0.0.1:8786"}, False),
        ({"run_dir": "run", "cache": "s3://bucket/cache"}, False),
        ({"paths": ["a.json", "postgresql://reader@db/2l"]}, False),
    ],
)
def test_only_a_run_that_ends_by_itself_on_local_files_is_handed_over(
    options: dict[str, object], alone: bool
) -> None:
    assert ends_alone(argparse.Namespace(**options)) is alone
