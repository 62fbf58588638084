"""Odd command-line arguments are one line on stderr and exit 2, never a traceback.

Each case runs the real ``toolkit`` console script in a child process (bounded by
``timeout=``) and checks that nothing was written where it should not be.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

ROOT = Path(__file__).resolve().parents[2]
PERSONA = SAMPLE_RUNS / "persona"
DEEP = "[" * 3000 + "]" * 3000
BOMB = "{" + ", ".join(
    [f"a0: &a0 [{', '.join(['x'] * 10)}]"]
    + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
) + "}"  # fmt: skip


def toolkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANTHROPIC_API_KEY": "dummy"}
    return subprocess.run(
        [str(Path(sys.executable).with_name("toolkit")), *args],
        capture_output=True, text=True, timeout=90, cwd=cwd, env=env, check=False,
    )  # fmt: skip


def persona(*extra: str) -> list[str]:
    return ["persona", str(PERSONA / "radio-week1.jsonl"), "--propositions",
            str(PERSONA / "propositions"), "--judge", "anthropic:claude-fake",
            "--judge-base-url", "http://127.0.0.1:9", "--no-progress", *extra]  # fmt: skip


CASES = {
    "scheduler not a url": (
        [
            "quality",
            "--all",
            str(SAMPLE_RUNS / "fleet"),
            "--engine",
            "dask",
            "--scheduler",
            "not a url",
        ],
        "--scheduler='not a url': not a scheduler address",
    ),
    "max_concurrency=0": (
        ["quality", "s3://bucket/run", "--storage-option", "max_concurrency=0"],
        "the s3:// back-end refuses these options",
    ),
    "deep storage option": (
        ["quality", "s3://bucket/run", "--storage-option", f"client_kwargs={DEEP}"],
        "--storage-option='client_kwargs': nested deeper than 100 levels",
    ),
    "judge retries -1": (
        persona("--judge-retries", "-1"),
        "--judge-retries=-1: a whole number of retries from 0 to 10",
    ),
    "judge timeout 0": (
        persona("--judge-timeout", "0"),
        "--judge-timeout=0.0: a number of seconds above 0",
    ),
    "param recursive alias": (
        ["report", "simulation", "x", "--param", "window=&a [*a]"],
        "--param='window': the alias *a refers to itself",
    ),
    "param deep": (
        ["report", "simulation", "x", "--param", f"window={DEEP}"],
        "--param='window': nested deeper than 100 levels",
    ),
    "param alias bomb": (
        ["report", "simulation", "x", "--param", f"window={BOMB}"],
        "--param='window': aliases expand the document by more than 10,000 nodes",
    ),
    "report -o a folder": (
        ["report", "simulation", str(SAMPLE_RUNS / "universes" / "ashfall"), "-o", "outdir"],
        "outdir: is a folder: name the file to write",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_odd_argument_is_one_line_and_exit_2(case: str, tmp_path: Path) -> None:
    args, message = CASES[case]
    (tmp_path / "outdir").mkdir()
    done = toolkit(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith("toolkit ") and ": error: " in lines[0]
    assert message in lines[0], lines[0]
    assert sorted(os.listdir(tmp_path)) == ["outdir"]  # nothing written, nothing left
    assert os.listdir(tmp_path / "outdir") == []


def test_param_values_that_are_no_yaml_stay_text() -> None:
    from toolkit.reports import parse_param

    assert parse_param("day=2026-02-30") == ("day", "2026-02-30")  # no such date: text
    assert parse_param("expr={not: yaml: here") == ("expr", "{not: yaml: here")
    assert parse_param("tag=!!python/name:os.system") == ("tag", "!!python/name:os.system")
    assert parse_param("anchors=[&a 1, *a]") == ("anchors", [1, 1])  # within the budget
