"""The key lines of ``toolkit compare`` (``B=<folder>``, ``A=<folder>``) and of
``toolkit discussion`` (the summary's line naming each game) fit an 80-column terminal
whatever the name: a name wider than the line left for it is broken onto the next lines,
every character kept (as the tables break a long run name), measured in the columns a
terminal gives each character (a CJK character takes two). Before, a 100-character folder
name ran the line to 104 columns and 50 CJK characters to 104; the JSON keeps every name
whole, as before."""

from __future__ import annotations

import json
import shutil
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main
from toolkit.fleet.compare import compare
from toolkit.load.discussion import load_discussions
from toolkit.rubrics.compare import CompareResult
from toolkit.rubrics.discussion import score_discussion
from toolkit.views.compare import render_compare_text
from toolkit.views.discussion import render_discussion_text
from toolkit.views.text import name_lines

LONG = "nightly-" + "r" * 92  # 100 characters, 100 columns
WIDE = "運行" * 25  # 50 characters, 100 columns (each East Asian Wide: two columns)


def columns(line: str) -> int:
    """A line's width on a terminal, from Unicode's East Asian Width property (W and F
    take two columns): a reference independent of the code under test."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def test_a_name_past_the_width_breaks_onto_lines_under_it_every_character_kept() -> None:
    # worked by hand: "  B=" takes 4 columns, 76 are left a line; continuation lines are
    # indented 4 so the name reads in one column
    assert name_lines("  B=", LONG, 80) == ["  B=" + LONG[:76], "    " + LONG[76:]]
    # 38 wide characters fill 76 columns; 12 are left for the next line
    assert name_lines("  A=", WIDE, 80) == ["  A=" + WIDE[:38], "    " + WIDE[38:]]
    # a slash before the width is where it breaks, as the tables break a path
    path = "runs/" + "x" * 60 + "/" + "y" * 30
    assert name_lines("  ", path, 40) == ["  runs/", "  " + "x" * 38, "  " + "x" * 22 + "/",
                                          "  " + "y" * 30]  # fmt: skip
    # one line when it fits, or when nothing limits it (piped)
    assert name_lines("  B=", "b", 80) == ["  B=b"]
    assert name_lines("  B=", LONG, None) == ["  B=" + LONG]


def test_a_bidi_control_in_a_name_is_shown_as_its_escape_as_the_scorecard_does() -> None:
    assert name_lines("  A=", "run\u202eevil", 80) == ["  A=run\\u202eevil"]


@pytest.fixture(scope="module")
def result() -> CompareResult:
    return compare(SAMPLE_RUNS / "compare" / "a", SAMPLE_RUNS / "compare" / "b", resamples=99)


def test_compare_key_lines_of_long_and_wide_folder_names_fit_80_columns(
    result: CompareResult,
) -> None:
    lines = render_compare_text(replace(result, labels=(LONG, WIDE)), width=80).splitlines()
    assert lines[:5] == [
        "compare · simulation · B vs A:",
        "  B=" + WIDE[:38],
        "    " + WIDE[38:],
        "  A=" + LONG[:76],
        "    " + LONG[76:],
    ]
    assert max(columns(line) for line in lines) <= 80


def test_a_title_of_wide_characters_within_80_by_count_but_not_columns_is_split(
    result: CompareResult,
) -> None:
    """30 CJK characters: the title is 70 characters but 100 columns."""
    wide = "運行" * 15
    lines = render_compare_text(replace(result, labels=("a", wide)), width=80).splitlines()
    assert lines[:3] == ["compare · simulation · B vs A:", "  B=" + wide, "  A=a"]


def test_compare_json_keeps_both_folder_names_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(SAMPLE_RUNS / "compare" / "a", tmp_path / LONG)
    shutil.copytree(SAMPLE_RUNS / "compare" / "b", tmp_path / WIDE)
    code = main(["compare", str(tmp_path / LONG), str(tmp_path / WIDE), "--format", "json",
                 "--resamples", "99"])  # fmt: skip
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    assert (document["a"], document["b"]) == (LONG, WIDE)


def _game(tmp_path: Path, game_id: str, name: str) -> Path:
    document = json.loads((SAMPLE_RUNS / "discussions" / "game-pass.json").read_text())
    document["gameId"] = game_id
    path = tmp_path / name
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def test_discussion_summary_lines_of_long_and_wide_game_ids_fit_80_columns(
    tmp_path: Path,
) -> None:
    paths = [_game(tmp_path, LONG, "long.json"), _game(tmp_path, WIDE, "wide.json")]
    report = score_discussion(load_discussions(paths))
    text = render_discussion_text(report, width=80)
    summary = text.split("\n\n")[-1].splitlines()  # one game or more: the last block
    assert [line.strip() for line in summary[1:]] == [
        "PENDING_RATING 6/7", LONG[:76], LONG[76:], "PENDING_RATING 6/7", WIDE[:38], WIDE[38:]
    ]  # fmt: skip
    assert max(columns(line) for line in summary) <= 80


def test_discussion_json_keeps_the_game_ids_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [_game(tmp_path, LONG, "long.json"), _game(tmp_path, WIDE, "wide.json")]
    main(["discussion", *map(str, paths), "--format", "json"])
    document = json.loads(capsys.readouterr().out)
    assert sorted(g["game_id"] for g in document["games"]) == sorted([LONG, WIDE])


def test_every_line_of_a_games_text_fits_80_columns_with_a_wide_game_id(
    tmp_path: Path,
) -> None:
    """The scorecard's title (``Game <id> · 15 messages, ...``) was wrapped at 80
    characters, so 50 wide characters ran it to 104 columns; it is broken at the
    terminal's columns now, every character kept."""
    report = score_discussion(load_discussions([_game(tmp_path, WIDE, "wide.json")]))
    lines = render_discussion_text(report, width=80).splitlines()
    assert max(columns(line) for line in lines) <= 80
    # worked by hand: "Game " is 5 columns, 37 wide characters 74 more (the 38th would
    # end at 81); the rest follows on a line indented 2, as a wrapped title is
    assert lines[:2] == [f"Game {WIDE[:37]}", f"  {WIDE[37:]} · 15 messages, 2 rounds · $1.18"]


@pytest.mark.timeout(20)
@pytest.mark.parametrize("width", [0, 1, 2, 3])
def test_a_wide_title_at_a_terminal_a_few_columns_wide_ends_every_character_kept(
    width: int,
) -> None:
    """No room for a wide character, or for the indent: one character a line at least,
    never a loop for ever."""
    from toolkit.views.text import wrap_columns

    title = "Game  運行/x · 3"
    lines = wrap_columns(title, width, 2)
    assert "".join(line.strip() for line in lines) == title.replace(" ", "")
