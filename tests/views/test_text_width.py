"""Text scorecards and the fleet table at a terminal's width, with colour only on a
terminal; piped text (no width, no colour) keeps its one-line-per-dimension layout."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.load.universe import load_universe, load_universes
from toolkit.rubrics.simulation import score_universe
from toolkit.scorecard import Scorecard
from toolkit.views.fleet import render_fleet_text
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
    assert len({len(line) for line in lines[:-1]}) == 1  # every row as wide as the header


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
