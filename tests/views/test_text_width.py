"""Text scorecards, the fleet table and the outcome, discussion and persona text at a
terminal's width, with colour only on a terminal; piped text (no width, no colour) keeps
its one-line-per-dimension layout."""

from __future__ import annotations

import os
import re
from pathlib import Path

import polars as pl
import pytest
from conftest import SAMPLE_RUNS

import toolkit as tk
from toolkit.fleet.outcome import OUTCOME_FLEET_SCHEMA
from toolkit.load.discussion import load_discussion
from toolkit.load.iterlog import load_iteration_log
from toolkit.load.outcome_evidence import collect_outcome_evidence
from toolkit.load.universe import load_universe, load_universes
from toolkit.rubrics.discussion import compare, score_discussion
from toolkit.rubrics.outcome import OutcomeResult, score_outcome
from toolkit.rubrics.simulation import score_universe
from toolkit.scorecard import Scorecard
from toolkit.views.discussion import render_discussion_text
from toolkit.views.fleet import render_fleet_text
from toolkit.views.outcome import render_outcome_fleet_text, render_outcome_table
from toolkit.views.persona import render_persona_table
from toolkit.views.text import render_text, terminal_style

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def ashfall() -> Scorecard:
    return score_universe(load_universe(SAMPLE_RUNS / "universes" / "ashfall"))[0]


@pytest.fixture(scope="module")
def fleet() -> list[Scorecard]:
    return score_universe(load_universes(SAMPLE_RUNS / "fleet" / "*"), series=False)


def test_piped_text_is_one_line_per_dimension_and_wider_than_80(ashfall: Scorecard) -> None:
    lines = render_text(ashfall).splitlines()
    assert len(lines) == 1 + ashfall.dimensions.height + 1 + 1 + len(ashfall.warnings)
    assert max(len(line) for line in lines) > 80  # the long warning stays on its line
    assert not ANSI.search(render_text(ashfall))


def test_at_80_columns_every_line_fits_and_details_wrap_under_their_line(
    ashfall: Scorecard,
) -> None:
    text = render_text(ashfall, width=80)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    fanout = next(i for i, line in enumerate(lines) if "Graph fan-out" in line)
    detail_column = lines[fanout].index("slope=")
    continued = lines[fanout + 1]
    assert continued.startswith(" " * detail_column) and continued.strip()
    # nothing lost: the words of every detail and warning are all there
    words = " ".join(text.split())
    for detail in ashfall.dimensions["detail"].to_list():
        assert " ".join(detail.split()) in words
    for warning in ashfall.warnings:
        assert " ".join(warning.split()) in words


def test_colour_marks_statuses_and_verdict_without_changing_the_text(ashfall: Scorecard) -> None:
    plain = render_text(ashfall, width=80)
    coloured = render_text(ashfall, width=80, colour=True)
    assert ANSI.sub("", coloured) == plain
    assert "\x1b[1;31m[FAIL]\x1b[0m" in coloured and "\x1b[32m[OK]\x1b[0m" in coloured
    assert "Verdict: \x1b[1;31mFAILED\x1b[0m" in coloured


def test_the_fleet_table_fits_80_columns_and_stays_aligned(fleet: list[Scorecard]) -> None:
    assert max(len(line) for line in render_fleet_text(fleet).splitlines()) > 80  # piped
    lines = render_fleet_text(fleet, width=80).splitlines()
    assert max(len(line) for line in lines) <= 80
    coloured = render_fleet_text(fleet, width=80, colour=True)
    assert ANSI.sub("", coloured) == "\n".join(lines)
    assert "\x1b[33mWARN\x1b[0m" in coloured
    rows = lines[: len(fleet) + 1]
    assert len({len(line) for line in rows}) == 1  # every row as wide as the header
    assert lines[0].split()[3:] == ["Gr", "CS", "AC", "RC", "VG", "CD", "GF", "NS"]
    legend = " ".join(lines[len(fleet) + 2 :])  # after the total: the full names
    assert legend.startswith("Columns: Gr Groundedness · CS Character stability · ")
    assert "GF Graph fan-out · NS Novel subtype rate" in legend


def test_a_long_slug_is_shortened_to_fit(fleet: list[Scorecard]) -> None:
    import dataclasses

    long = [dataclasses.replace(fleet[0], subject="a-very-long-run-name-" * 3), *fleet[1:]]
    lines = render_fleet_text(long, width=80).splitlines()
    assert max(len(line) for line in lines) <= 80
    shortened = [line.split()[0] for line in lines if line.startswith("a-very")]
    assert len(shortened) == 1 and shortened[0].endswith("…")
    assert len(shortened[0]) >= 8  # still recognisable


def test_terminal_style_width_and_colour_only_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with (tmp_path / "out.txt").open("w") as piped:
        assert terminal_style(piped) == (None, False)
    primary, secondary = os.openpty()
    try:
        with os.fdopen(primary, "w") as tty:
            monkeypatch.setenv("COLUMNS", "80")
            monkeypatch.setenv("TERM", "xterm")
            monkeypatch.delenv("NO_COLOR", raising=False)
            assert terminal_style(tty) == (80, True)
            monkeypatch.setenv("NO_COLOR", "1")
            assert terminal_style(tty) == (80, False)
    finally:
        os.close(secondary)


# --- The other commands' text: outcome, discussion, persona ------------------------------


def _fits(text: str, width: int) -> bool:
    return max(len(line) for line in ANSI.sub("", text).splitlines()) <= width


def _words(text: str) -> str:
    return " ".join(ANSI.sub("", text).split())


@pytest.fixture(scope="module")
def outcome() -> OutcomeResult:
    log = load_iteration_log(SAMPLE_RUNS / "iteration_logs" / "tally-loop")
    return score_outcome(log, collect_outcome_evidence(log))


def test_outcome_table_closes_up_at_80_columns_and_keeps_every_number(
    outcome: OutcomeResult,
) -> None:
    piped = render_outcome_table(outcome)
    assert not _fits(piped, 80)  # piped: the full layout, whole session ids
    narrow = render_outcome_table(outcome, width=80)
    assert _fits(narrow, 80)

    # The same rows with the same cells; only the session id is cut to 8 characters.
    def rows(text: str) -> list[list[str]]:
        return [line.split() for line in text.splitlines() if re.match(r"^\s*\d+ ", line)]

    wide_rows, narrow_rows = rows(piped), rows(narrow)
    assert len(wide_rows) == outcome.scores.height == len(narrow_rows)
    for wide, cut in zip(wide_rows, narrow_rows, strict=True):
        assert cut[1] == wide[1][:8] and cut[:1] + cut[2:] == wide[:1] + wide[2:]
    # wrapped sessions and warnings lose no word
    for session in outcome.sessions["session_id"].to_list():
        assert session in narrow  # whole in the Sessions block
    for warning in outcome.warnings:
        assert " ".join(warning.split()) in _words(narrow)


def test_outcome_table_colours_bands_without_changing_the_text(outcome: OutcomeResult) -> None:
    plain = render_outcome_table(outcome, width=80)
    coloured = render_outcome_table(outcome, width=80, colour=True)
    assert ANSI.sub("", coloured) == plain
    assert "\x1b[1;31mpoor" in coloured and "\x1b[32mexcellent" in coloured


def test_a_band_name_of_several_words_wraps_like_any_text() -> None:
    from toolkit.rubrics.outcome import load_outcome_rubric

    bands = [{"band": "fine", "min": 0.7}, {"band": "needs some work", "min": 0.0}]
    rubric = load_outcome_rubric({"version": "2.1.0-test", "bands": bands})
    log = load_iteration_log(SAMPLE_RUNS / "iteration_logs" / "tally-loop")
    result = score_outcome(log, collect_outcome_evidence(log), rubric)
    for colour in (False, True):
        text = ANSI.sub("", render_outcome_table(result, width=80, colour=colour))
        sessions = text.split("Sessions\n", 1)[1].split("Over-claims", 1)[0]
        assert _fits(sessions, 80)
        assert " ".join(sessions.split()).count("needs some work") == 1
        assert "needs needs" not in " ".join(sessions.split())


def test_outcome_fleet_gives_a_long_log_name_its_own_line_never_cutting_it() -> None:
    row = {"iterations": 6, "scored": 6, "mean": 0.79, "band": "good", "worst_iteration": 5,
           "worst_value": 0.479, "poor": 1, "over_claims": 3, "issues": 1}  # fmt: skip
    names = ["/data/agents/" + "a-rather-long-log-folder-name-" * 2 + str(i) for i in range(2)]
    fleet = pl.DataFrame([{"log": n, **row} for n in names], schema=OUTCOME_FLEET_SCHEMA)
    piped = render_outcome_fleet_text(fleet, "2.1.0").splitlines()
    assert [line.split()[0] for line in piped[1:3]] == names  # one line per log when piped
    narrow = render_outcome_fleet_text(fleet, "2.1.0", width=80).splitlines()
    assert max(len(line) for line in narrow) <= 80
    for name in names:
        at = narrow.index(name)  # whole, on its own line
        assert narrow[at + 1].split() == piped[1 + names.index(name)].split()[1:]


@pytest.fixture(scope="module")
def discussion_text() -> tuple[str, str]:
    folder = SAMPLE_RUNS / "discussions"
    candidate = score_discussion(load_discussion(folder / "game-pass.json"))
    comparison = compare(score_discussion(load_discussion(folder / "baseline")), candidate)
    return (
        render_discussion_text(candidate, comparison),
        render_discussion_text(candidate, comparison, width=80, colour=True),
    )


def test_discussion_text_fits_80_columns_and_loses_no_word(
    discussion_text: tuple[str, str],
) -> None:
    piped, narrow = discussion_text
    assert not _fits(piped, 80) and _fits(narrow, 80)
    assert _words(narrow) == _words(piped)  # wrapping moved words, never dropped them
    assert "\x1b[32m[PASS]\x1b[0m" in narrow and "\x1b[2m[PENDING]\x1b[0m" in narrow
    assert not ANSI.search(piped)


def test_persona_table_fits_and_colours_regressions(persona_week2: tk.PersonaResult) -> None:
    result = persona_week2
    piped = render_persona_table(result)
    narrow = render_persona_table(result, width=80, colour=True)
    assert not _fits(piped, 80) and _fits(narrow, 80)
    assert _words(narrow) == _words(piped)
    assert narrow.count("\x1b[1;35mREGRESSION\x1b[0m") == result.regressions.height


def _on_a_terminal(args: list[str], columns: int) -> str:
    """What ``toolkit ARGS`` shows on a pseudo-terminal ``columns`` wide (stdout and
    stderr, as a person sees them)."""
    import subprocess
    import sys

    primary, secondary = os.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    code = "import sys; from toolkit.cli import main; sys.exit(main())"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=secondary, stderr=secondary,
        cwd=SAMPLE_RUNS.parent, env=env,
    )  # fmt: skip
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the other end closed (EIO on Linux)
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(primary)
    proc.wait(timeout=120)
    return b"".join(chunks).decode().replace("\r\n", "\n")


@pytest.mark.parametrize(
    "args",
    [
        ["outcome", "sample_runs/iteration_logs/tally-loop"],
        ["discussion", "sample_runs/discussions/game-pass.json"],
        [
            "persona",
            "sample_runs/persona/radio-week2.jsonl",
            "--propositions",
            "sample_runs/persona/propositions",
            "--judge",
            "recorded:sample_runs/persona/cassette.json",
            "--baseline",
            "sample_runs/persona/baselines",
        ],
    ],
    ids=["outcome", "discussion", "persona"],
)
def test_each_command_fits_an_80_column_terminal_in_colour(args: list[str]) -> None:
    shown = _on_a_terminal(args, 80)
    assert shown.strip() and ANSI.search(shown)
    assert _fits(shown, 80)


def _piped(args: list[str]) -> str:
    """What ``toolkit ARGS`` prints into a pipe (never wrapped), stdout and stderr."""
    import subprocess
    import sys

    code = "import sys; from toolkit.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True,
        cwd=SAMPLE_RUNS.parent, timeout=120, check=False,
    )  # fmt: skip
    return done.stdout + done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["quality", "sample_runs/universes/ashfall", "--gate"],
        ["quality", "--all", "sample_runs/universes"],
        ["quality", "sample_runs/universes/ashfall", "--diff", "sample_runs/universes/harbor-town"],
        [
            "experiment",
            "sample_runs/experiments/harbour_council_gate.json",
            "sample_runs/experiments/lantern_fair_arms.json",
            "sample_runs/experiments/orchard_variety.csv",
        ],
        [
            "experiment",
            "sample_runs/experiments/harbour_council_gate.json",
            "--reference",
            "sample_runs/experiments/harbour_council_reference.json",
        ],
        ["experiment", "sample_runs/experiments/lantern_fair_arms.json", "--test", "anova"],
        ["outcome", "--all", "sample_runs/eval_runs"],  # was 87 columns wide
    ],
    ids=[
        "quality-gate",
        "quality-fleet",
        "quality-diff",
        "experiment",
        "experiment-ref",
        "anova",
        "eval-runs",
    ],
)
def test_at_80_columns_no_number_or_word_is_cut(args: list[str]) -> None:
    shown = ANSI.sub("", _on_a_terminal(args, 80))
    assert _fits(shown, 80)

    # every word on the terminal is a whole word of the unwrapped output: nothing was
    # cut mid-number or mid-word (a table split in blocks and wrapped prose keep words)
    def words(text: str) -> set[str]:
        return {w.strip(",;:()") for w in text.split()} - {"/", "Groups"}  # ANOVA's groups

    whole = words(_piped(args))
    assert {w for w in words(shown) if w not in whole} == set()
