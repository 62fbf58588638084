"""Terminal tables whose rows are named by long names (a run's folder, a game's file) fit
80 columns: a name too long to leave the other columns room is printed whole on a line of
its own and its row's cells on the next line, under their heads (a name wider than the
terminal is broken after a ``/``, every character kept). Before, the name column took
the width of the longest name and every other column was split into blocks of its own,
each line past 80 columns (``toolkit rescore`` of runs named over ~70 characters: 91)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

import toolkit as tk
from toolkit.views.rescore import render_rescore_text
from toolkit.views.text import fit_table

LONG = "nightly-2026-11-27-scenario-harbour-council-with-long-memory-and-tools-run-"


def test_a_long_name_goes_on_its_own_line_and_its_cells_under_the_heads() -> None:
    rows = [["run", "A", "B", "verdict"], ["short", "0.5", "0.75", "OK"],
            ["x" * 70, "1", "0.25", "FAILED"]]  # fmt: skip
    # worked by hand: 70+2+3+2+4+2+7 = 90 columns; without the long name "run"/"short"
    # are 5 wide, A 3, B 4, verdict 7 (25)
    assert fit_table(rows, right={1, 2}, width=72) == [
        "run      A     B  verdict",
        "short  0.5  0.75  OK",
        "x" * 70,
        "         1  0.25  FAILED",
    ]
    # piped (no width) or wide enough: one line a row, as before
    assert fit_table(rows, right={1, 2}, width=None)[2] == "x" * 70 + "    1  0.25  FAILED"
    assert len(fit_table(rows, right={1, 2}, width=90)) == 3


def test_a_name_wider_than_the_terminal_is_broken_after_a_slash_never_cut() -> None:
    name = "/data/" + "a" * 30 + "/" + "b" * 30 + "/run-1"  # 73 characters
    lines = fit_table([["run", "verdict"], [name, "OK"]], width=40)
    assert lines == [
        "run  verdict", "/data/" + "a" * 30 + "/", "  " + "b" * 30 + "/run-1", "     OK"
    ]  # fmt: skip
    assert "".join(line.strip() for line in lines[1:3]) == name


@pytest.mark.timeout(20)
@pytest.mark.parametrize("width", [0, 1, 2])
def test_a_long_name_at_a_terminal_two_columns_wide_or_less_ends_every_character_kept(
    width: int,
) -> None:
    """COLUMNS=2 (or 1) on a terminal: the continuation lines (indented two spaces) had
    no room left, cut nothing off the name and looped for ever; now one character a line
    at the least."""
    name = "abcdefghij/klmnopq"  # 18 characters: longer than the 12 a name keeps
    lines = fit_table([["run", "verdict"], [name, "OK"]], width=width)
    assert lines[0] == "run  verdict"
    assert "".join(line.strip() for line in lines[1:-1]) == name
    assert lines[-1].strip() == "OK"
    assert all(len(line) <= 3 for line in lines[2:-1])  # two spaces and one character


def test_a_column_empty_in_every_row_takes_no_block_of_its_own() -> None:
    """rescore's flip column, empty when nothing flipped, once made a block of names
    alone."""
    rows = [["run", "verdict", ""], ["y" * 76, "OK", ""]]
    assert fit_table(rows, width=80) == ["run  verdict", "y" * 76, "     OK"]


@pytest.fixture(scope="module")
def long_fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two sample fleet runs in folders named 79 characters, and one short."""
    root = tmp_path_factory.mktemp("fleet")
    for run in ("0006", "0009"):
        shutil.copytree(SAMPLE_RUNS / "fleet" / f"run-{run}", root / f"{LONG}{run}")
    shutil.copytree(SAMPLE_RUNS / "fleet" / "run-0001", root / "short-run")
    return root


def test_rescore_of_runs_with_long_names_fits_80_columns(long_fleet: Path) -> None:
    stricter = {"version": "1.2.0-strict", "refusal_cluster": {"ok_max": 1, "fail_min": 3}}
    result = tk.rescore(long_fleet, "1.2.0", stricter)
    lines = render_rescore_text(result, width=80).splitlines()
    assert max(len(line) for line in lines) <= 80
    at = lines.index("Per run")
    assert lines[at + 1].split() == ["run", "A", "verdict", "B", "verdict"]
    for k, run in enumerate(("0006", "0009")):
        assert lines[at + 2 + 2 * k] == f"{LONG}{run}"  # whole, on its own line
        assert lines[at + 3 + 2 * k].split() == ["FAILED", "FAILED"]
    assert lines[at + 6].split() == ["short-run", "HEALTHY", "HEALTHY"]
    flips = lines.index("Dimension status flips")
    assert lines[flips + 2] == f"{LONG}0006"  # refusal_cluster 2: OK under A, WARN under B
    assert lines[flips + 3].split() == ["refusal_cluster", "2.0000", "2.0000", "OK", "WARN"]


def test_eval_runs_give_a_long_run_id_its_own_line_at_80_columns() -> None:
    """The eval-harness table had fixed columns 87 wide (a 28-column run id): at 80
    columns each column is as wide as its cells, and a run id too long for the room
    left is printed whole above its cells."""
    import polars as pl

    from toolkit.fleet.eval_runs import score_eval_runs
    from toolkit.views.eval_runs import render_eval_runs_text

    scored = score_eval_runs(SAMPLE_RUNS / "eval_runs")
    first = scored.runs["run_id"].sort()[0]
    long = "run-20260610-with-a-harness-suffix-naming-the-machine-and-the-shard-0042"
    runs = scored.runs.with_columns(
        run_id=pl.when(pl.col("run_id") == first).then(pl.lit(long)).otherwise("run_id")
    )
    lines = render_eval_runs_text(runs, "eval_runs", "2.1.0", width=80).splitlines()
    assert max(len(line) for line in lines) <= 80
    at = lines.index(f"  {long}")  # whole, on its own line; its cells under the heads
    heads = lines[lines.index("") + 1]
    assert heads.split() == ["task", "/", "run", "verify", "score", "band", "retry", "took",
                             "recorded"]  # fmt: skip
    cells = lines[at + 1]
    assert cells[: heads.index("verify")].strip() == ""
    assert cells.split()[0] in {"pass", "FAIL"} and cells.endswith(")")
    others = [line for line in lines if line.startswith("  run-2026") and line != f"  {long}"]
    assert len(others) == runs.height - 1 and all(len(line.split()) >= 7 for line in others)


def test_quality_diff_of_runs_with_long_names_keys_them_a_and_b_at_80_columns() -> None:
    """``toolkit quality RUN --diff RUN`` put both names in the table's head, each column
    as wide as its name: two names of 79 characters made its lines 183 wide."""
    import dataclasses

    from toolkit.load.universe import load_universe
    from toolkit.rubrics.simulation import score_universe
    from toolkit.views.diff import render_diff_text

    universes = SAMPLE_RUNS / "universes"
    cards = [score_universe(load_universe(universes / n), series=False)[0]
             for n in ("ashfall", "harbor-town")]  # fmt: skip
    a, b = (dataclasses.replace(c, subject=f"{LONG}{k}") for k, c in enumerate(cards, 1))
    reasons = {"a": "no snapshots", "b": "no snapshots", "a_to_b": "no snapshots"}
    lines = render_diff_text(a, b, {}, reasons, width=80).splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[1:5] == ["  A =", f"{LONG}1", "  B =", f"{LONG}2"]
    assert lines[5].split() == ["dimension", "A", "B"]
    # the rows as in the samples' own diff (ashfall's groundedness OK 1, harbor-town's
    # WARN 0.920), under the letters
    assert lines[6].split() == ["Groundedness", "OK", "1", "WARN", "0.920"]
    assert "  A -> B: no snapshots" in lines
    piped = render_diff_text(a, b, {}, reasons).splitlines()  # names in the head when piped
    assert piped[1].split() == ["dimension", f"{LONG}1", f"{LONG}2"]


def test_the_discussion_summary_puts_a_long_game_id_on_its_own_line_at_80_columns(
    tmp_path: Path,
) -> None:
    """The one-line-per-game summary ended with the game id: 98 columns for an id of 76."""
    import json

    from toolkit.load.discussion import load_discussion
    from toolkit.rubrics.discussion import score_discussion
    from toolkit.views.discussion import render_discussion_text

    game = json.loads((SAMPLE_RUNS / "discussions" / "game-pass.json").read_text())
    long = "harbour-council-werewolf-nightly-2026-11-27-candidate-v2-seed-0042-game-pass"
    game["gameId"] = long
    (tmp_path / "game.json").write_text(json.dumps(game))
    report = score_discussion(load_discussion(tmp_path / "game.json"))
    lines = render_discussion_text(report, width=80).splitlines()
    assert max(len(line) for line in lines) <= 80
    at = lines.index(f"    {long}")  # whole, under its verdict (no rating yet: pending)
    assert lines[at - 1].split() == ["PENDING_RATING", "6/7"]
    piped = render_discussion_text(report).splitlines()
    assert f"  PENDING_RATING 6/7  {long}" in piped
