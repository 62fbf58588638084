"""Names read from files never act on the terminal: a run folder called
``evil<ESC>[2J…<U+202E>`` or a universe named with an ESC is printed as its escape
(``\\x1b``, ``\\u202e``) by every text table that shows it (``quality`` of one run, of a
fleet and of two runs, ``rescore``), and the names that are plain print as they are."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main

#: ESC clears the screen, U+202E reverses what follows: both as a folder's name.
HOSTILE = "evil\x1b[2Jred\u202eX"
SHOWN = "evil\\x1b[2Jred\\u202eX"
RUN = SAMPLE_RUNS / "compare" / "a" / "s02-r1"


@pytest.fixture
def hostile_fleet(tmp_path: Path) -> Path:
    fleet = tmp_path / "fleet"
    shutil.copytree(RUN, fleet / HOSTILE)
    shutil.copytree(RUN, fleet / "plain-run")
    meta = fleet / HOSTILE / "universe.yaml"
    text = meta.read_text(encoding="utf-8").replace(
        "name: Scenario 2 run 1 (A)", 'name: "Scenario\\e[31m 2\\u202e"', 1
    )
    meta.write_text(text, encoding="utf-8")
    return fleet


def _out(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(args)
    out = capsys.readouterr().out
    assert code in (0, 1), out
    return out


def _no_raw_controls(out: str) -> None:
    assert "\x1b" not in out and "\u202e" not in out, out


def test_a_fleet_table_prints_a_hostile_folder_name_as_its_escapes(
    hostile_fleet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _out(["quality", "--all", str(hostile_fleet)], capsys)
    _no_raw_controls(out)
    assert SHOWN in out and "plain-run" in out


def test_one_run_prints_a_hostile_universe_name_as_its_escapes(
    hostile_fleet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _out(["quality", str(hostile_fleet / HOSTILE)], capsys)
    _no_raw_controls(out)
    assert out.splitlines()[0].startswith("Scenario\\x1b[31m 2\\u202e")


def test_two_runs_side_by_side_print_the_hostile_name_escaped_and_aligned(
    hostile_fleet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = hostile_fleet / HOSTILE, hostile_fleet / "plain-run"
    out = _out(["quality", "--diff", str(a), str(b)], capsys)
    _no_raw_controls(out)
    head = next(line for line in out.splitlines() if line.lstrip().startswith("dimension"))
    row = next(line for line in out.splitlines() if line.lstrip().startswith("Groundedness"))
    # the second run's column starts where its heading does: widths of the escaped name
    assert head.index("plain-run") == row.index("FAIL", head.index("plain-run") - 2)


def test_rescore_prints_a_hostile_folder_name_as_its_escapes(
    hostile_fleet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _out(["rescore", str(hostile_fleet), "--rubric", "1.2.0", "--rubric", "1.1.0"], capsys)
    _no_raw_controls(out)
    assert SHOWN in out
