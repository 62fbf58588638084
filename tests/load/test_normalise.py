"""The Polars stages of a tick load (``_problems``, ``normalise``): the shortcuts they take
on the common case (plain tick ids, rows already in order) give the frame the general
path gives, and the general path still serves every other case (issue 25)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from conftest import tick_v1, tick_v2, write_run

from toolkit.frames import TICKS_SCHEMA
from toolkit.load import _ticks
from toolkit.load._run_build import load_listed
from toolkit.load._run_listing import list_run
from toolkit.load._ticks import parse_ticks


@pytest.fixture(params=["bulk", "per-file"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test runs on the bulk read and on the per-file path (the reference)."""
    monkeypatch.setattr(_ticks, "BULK_READ", request.param == "bulk")
    return str(request.param)


def _parse(
    named: list[tuple[str, dict[str, Any]]], slug: str = "vale"
) -> tuple[pl.DataFrame, list[str]]:
    files = [f"/runs/{slug}/tick_summaries/ticks/{name}" for name, _ in named]
    blobs = [json.dumps(tick).encode() for _, tick in named]
    frame, errors = parse_ticks([slug] * len(files), files, blobs)
    assert frame.schema == pl.Schema(TICKS_SCHEMA)  # whichever path, in the frame's types
    return frame, [str(e) for e in errors]


def _without_id(tick: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in tick.items() if k != "tick_id"}


def test_a_tick_without_an_id_takes_its_number_from_the_file_name(path: str) -> None:
    frame, errors = _parse([("tick_1.json", tick_v1(1)), ("tick_2.json", _without_id(tick_v2(2)))])
    assert errors == []
    assert frame["tick"].to_list() == [1, 2]
    assert frame["source_file"].to_list()[1].endswith("tick_2.json")


def test_ids_written_other_ways_than_plain_digits_are_still_read(path: str) -> None:
    frame, errors = _parse(
        [
            ("tick_7.json", tick_v1(7, tick_id="tick_7")),
            ("tick_8.json", tick_v1(8, tick_id=" 8 ")),
            ("tick_9.json", tick_v1(9, tick_id="009")),
            ("tick_10.json", tick_v1(10)),
        ]
    )
    assert errors == []
    assert frame["tick"].to_list() == [7, 8, 9, 10]


@pytest.mark.parametrize("tick_id", ["-2", "+2", "2.0", "1e2"])
def test_an_id_that_is_no_tick_number_is_refused_among_plain_ones(path: str, tick_id: str) -> None:
    # Each of these is a number to Polars' cast, but not a tick number.
    frame, errors = _parse(
        [("tick_1.json", tick_v1(1)), ("tick_2.json", tick_v1(2, tick_id=tick_id))]
    )
    assert frame["tick"].to_list() == [1]
    assert len(errors) == 1 and "tick_2.json" in errors[0] and repr(tick_id) in errors[0]


def test_files_out_of_tick_order_come_out_sorted(path: str) -> None:
    frame, errors = _parse(
        [("tick_3.json", tick_v1(3)), ("tick_1.json", tick_v2(1)), ("tick_2.json", tick_v1(2))]
    )
    assert errors == []
    assert frame["tick"].to_list() == [1, 2, 3]
    names = [p.rsplit("/", 1)[1] for p in frame["source_file"]]
    assert names == ["tick_1.json", "tick_2.json", "tick_3.json"]
    assert frame["schema_version"].to_list() == [2, 1, 1]  # each row stays with its file


def test_files_repeating_a_tick_number_keep_their_order_when_sorted(path: str) -> None:
    # The first file of a repeated tick number is the one a load keeps, so among equal
    # ticks the rows keep the files' order, also when the rows had to be sorted.
    frame, errors = _parse(
        [
            ("tick_5.json", tick_v1(5, action_text="first")),
            ("tick_4.json", tick_v1(4)),
            ("tick_05.json", tick_v1(5, action_text="second")),
            ("tick_005.json", tick_v1(5, action_text="third")),
        ]
    )
    assert errors == []
    assert frame["tick"].to_list() == [4, 5, 5, 5]
    assert frame["action_text"].to_list()[1:] == ["first", "second", "third"]


def test_unsupported_claims_stay_with_their_row(path: str) -> None:
    claims = [["a", "x", "1"], ["mara", "location", "well"], ["b", "y", None]]
    frame, errors = _parse(
        [
            ("tick_1.json", tick_v2(1)),
            ("tick_2.json", tick_v2(2, observation={"text": "t", "claimed_changes": claims})),
            ("tick_3.json", tick_v2(3, observation={"text": "t", "claimed_changes": []})),
            ("tick_4.json", tick_v2(4, observation={"text": "t", "claimed_changes": claims[:1]})),
            ("tick_5.json", tick_v1(5)),
        ]
    )
    assert errors == []
    assert frame["unsupported_claims"].to_list() == [None, "a.x=1; b.y=null", None, "a.x=1", None]
    assert frame["claimed_count"].to_list() == [1, 3, 0, 1, None]
    assert frame["grounded"].to_list() == [True, False, True, False, True]


def test_subtypes_are_the_non_null_values_written_to_a_subtype(path: str) -> None:
    changes = [
        ["oak1", "subtype", None, "oak"],
        ["elm1", "subtype", "elm", None],  # a null value is no subtype
        ["ash1", "colour", "grey", "ash"],  # another property
        ["x", "subtype"],  # too short to hold a value
        ["birch1", "subtype", 7],
    ]
    frame, errors = _parse(
        [
            ("tick_1.json", tick_v1(1, mutations={"count": 5, "list": changes})),
            ("tick_2.json", tick_v1(2, mutations=None)),
            ("tick_3.json", tick_v1(3, mutations={"count": 0, "list": []})),
        ]
    )
    assert errors == []
    assert frame["subtypes"].to_list() == [["oak", "7"], [], []]


def test_each_run_gets_only_its_own_warnings_when_one_slug_begins_another(
    tmp_path: Path,
) -> None:
    # A run's warnings begin "<slug>: ", so "vale: x"'s also begin "vale: ".
    for slug in ("vale", "vale: x"):
        run = write_run(tmp_path / slug, [tick_v1(1), tick_v1(2)])
        text = json.dumps(tick_v1(3))[:-1] + ', "action_text": "again"}'
        (run / "tick_summaries" / "ticks" / "tick_3.json").write_text(text)
    listed = [list_run(tmp_path / slug, stat=False) for slug in ("vale", "vale: x")]
    loaded = load_listed(listed, cache=False, progress=False)
    for u, slug in zip(loaded, ("vale", "vale: x"), strict=True):
        dupes = [w for w in u.warnings if "duplicate key" in w]
        assert len(dupes) == 1, dupes
        assert dupes[0].startswith(f"{slug}: {tmp_path / slug / 'tick_summaries'}")


@pytest.mark.parametrize(
    ("name", "fields"),
    [
        ("tick_2.json", {"tick_id": "\u0663"}),  # ARABIC-INDIC DIGIT THREE, a digit to Python
        ("tick_4.json", {"tick_id": "\x1c3"}),  # a space to Python's strip, not to Polars'
        ("tick_\u0663.json", {}),  # no id, and the file name's number in such digits
    ],
)
def test_a_tick_number_python_reads_is_the_frames_tick(
    path: str, name: str, fields: dict[str, Any]
) -> None:
    # The per-file path validates the id with Python's rules; the frame takes the number
    # it validated, not a second reading of the text by Polars (which raised here).
    tick = {k: v for k, v in tick_v1(3).items() if k != "tick_id"} | fields
    frame, errors = _parse([("tick_1.json", tick_v1(1)), (name, tick)])
    assert errors == []
    assert frame["tick"].to_list() == [1, 3]


def test_a_claim_is_matched_part_by_part(path: str) -> None:
    # Parts are compared one by one: no separator inside a part can make two claims meet.
    change = ["a", "b\x1fc", "old", "d"]
    claims = [["a\x1fb", "c", "d"], ["a", "b\x1fc", "d"]]
    tick = tick_v2(1, mutations={"count": 1, "list": [change]})
    tick["observation"] = {"text": "t", "claimed_changes": claims}
    frame, errors = _parse([("tick_1.json", tick)])
    assert errors == []
    assert frame["unsupported_claims"].to_list() == ["a\x1fb.c=d"]
