"""What the C accelerator vouches for beyond the raw rows (``toolkit/load/_tickscan.c``):
each row's unsupported claims, as normalise writes them, and whether every row passes
the column-wise check (then that check is not run again).

The expected texts are written out by hand from the rule of ``docs/formats/universe.md``
(a claim ``[target, property, value]`` is made when a change of the same tick has the same
target and property and ends with that value, values compared as text; an unmade claim is
shown as ``target.property=value``, a missing part as ``?`` and a missing value as
``null``); the pure path (``TOOLKIT_ACCEL=0``) must give the same.
"""

from __future__ import annotations

import json
from typing import Any

import polars as pl
import pytest
from conftest import tick_v1, tick_v2
from test_accel import SCAN, accel, needs_accel

from toolkit.load import _ticks


def _v2(claims: Any, changes: Any = ..., **fields: Any) -> bytes:
    record = tick_v2(1, **fields)
    record["observation"] = {"text": "seen", "claimed_changes": claims}
    if changes is not ...:
        record["mutations"] = None if changes is None else {"count": 1, "list": changes}
    return json.dumps(record, indent=2).encode()


#: (claims, changes, the unsupported claims), by hand.
CASES: list[tuple[Any, Any, str | None]] = [
    ([["rope", "condition", 13]], [["rope", "condition", 12, 13]], None),
    ([["rope", "condition", "13"]], [["rope", "condition", 12, 13]], None),  # "13" is 13
    ([["rope", "condition", 14]], [["rope", "condition", 12, 13]], "rope.condition=14"),
    ([["a", "b", None]], [["a", "b", "x", None]], None),  # null against null
    ([["a", "b", "null"]], [["a", "b", 1, None]], None),  # the text "null" against null
    ([["a", "b"]], [["a", "b", "b"]], "a.b=b"),  # two parts: no value, never made
    ([[]], [["a", "b", 1]], "?.?=null"),
    ([[None, "b", 1]], [[None, "b", 0, 1]], None),
    ([[None, "b", 1]], [], "?.b=1"),
    ([["a", "b", 1, 2]], [["a", "b", 0, 1]], None),  # the third part is the value
    ([["a", "b", 1, 2]], [], "a.b=2"),  # ... the last is shown
    ([["a", "b", 1]], [["a", "b"]], "a.b=1"),  # a change of two parts makes nothing
    ([["a", "b", 1]], [["a", "c", 0, 1], ["x", "b", 0, 1]], "a.b=1"),
    ([["a", "b", 1], ["c", "d", 2]], [["a", "b", 0, 1]], "c.d=2"),
    ([["a", "b", 1], ["c", "d", 2]], [], "a.b=1; c.d=2"),
    ([["a", "b", 1], ["a", "b", 1]], [], "a.b=1; a.b=1"),
    ([["a", "b", -7]], [["a", "b", "-7"]], None),
    ([["a", "b", 1]], None, "a.b=1"),  # no mutations at all
    ([], [], None),
    (None, [], None),
]


def _unsupported(blobs: list[bytes], on: bool) -> list[str | None]:
    files = [f"run/tick_summaries/ticks/tick_{i + 1}.json" for i in range(len(blobs))]
    with accel(on):
        frame, errors = _ticks.parse_ticks(["run"] * len(blobs), files, blobs)
    assert not errors
    return frame.sort("source_file")["unsupported_claims"].to_list()


@needs_accel
@pytest.mark.parametrize(("claims", "changes", "expected"), CASES)
def test_unsupported_claims_found_in_c_are_normalises(
    claims: Any, changes: Any, expected: str | None
) -> None:
    blob = _v2(claims, changes)
    assert SCAN is not None
    kept, _, _, checked, found = SCAN([blob])
    assert kept == [0] and checked and found is not None  # the C path took it, and vouches
    assert _unsupported([blob], True) == [expected]
    assert _unsupported([blob], False) == [expected]


@needs_accel
def test_a_v1_tick_has_no_unsupported_claims_whatever_it_holds() -> None:
    record = tick_v1(1)
    record["observation"] = {"text": "seen", "claimed_changes": [["a", "b", 1]]}
    blob = json.dumps(record).encode()
    assert _unsupported([blob], True) == _unsupported([blob], False) == [None]


@needs_accel
def test_claims_and_checks_of_many_rows_stay_with_their_rows() -> None:
    blobs = [_v2(c, m) for c, m, _ in CASES] * 3
    expected = [e for _, _, e in CASES] * 3
    by_file = sorted(range(len(blobs)), key=lambda i: f"tick_{i + 1}.json")
    want = [expected[i] for i in by_file]
    assert _unsupported(blobs, True) == want
    assert _unsupported(blobs, False) == want


#: Rows the column-wise check refuses (True), or that the C screen does not vouch for
#: though they are good (False, by the tick id rule ``^(?:tick_)?(\d+)$``): each still
#: read, and refused or kept, as the pure path does.
UNCHECKED: list[tuple[dict[str, Any], bool]] = [
    ({"schema_version": 3}, True),
    ({"kind": "bogus"}, True),
    ({"kind": None}, True),
    ({"conservation_verdict": "maybe"}, True),
    ({"duration_ms": 1e19}, True),
    ({"llm_tokens_by_stage": {"classifier": {"in": 5e18, "out": 1}}}, True),
    ({"tick_id": "tick_1"}, False),  # good, but not plain digits: Polars checks the chunk
    ({"tick_id": "01"}, False),
]


@needs_accel
@pytest.mark.parametrize(("fields", "refused"), [*UNCHECKED, ({"tick_id": 1}, False)])
def test_a_row_the_c_screen_does_not_vouch_for_is_checked_as_before(
    fields: dict[str, Any], refused: bool
) -> None:
    good = json.dumps(tick_v2(2)).encode()
    odd = json.dumps(tick_v2(1, **fields)).encode()
    assert SCAN is not None
    assert SCAN([good])[3] is True
    kept, _, _, checked, _ = SCAN([good, odd])
    assert kept == [0, 1]  # every field is of a type the screen takes
    assert checked is (fields == {"tick_id": 1})  # a plain id as an integer: vouched for
    files = ["run/tick_summaries/ticks/tick_2.json", "run/tick_summaries/ticks/tick_1.json"]
    results = []
    for on in (True, False):
        with accel(on):
            frame, errors = _ticks.parse_ticks(["run", "run"], files, [good, odd])
        results.append((frame, [str(e) for e in errors]))
    (fast, fast_errors), (pure, pure_errors) = results
    assert fast.equals(pure) and fast_errors == pure_errors
    assert len(fast_errors) == refused and fast.height == 2 - refused


@needs_accel
def test_claims_past_the_budget_are_left_to_polars() -> None:
    """A file of thousands of claims and changes: the C call leaves the column to Polars
    (None) rather than compare them all; the frame is the same."""
    many = [["n", "p", i] for i in range(5_000)]
    blob = _v2(many, [["n", "p", 0, -i] for i in range(5_000)])
    assert SCAN is not None
    kept, _, _, _, found = SCAN([blob])
    assert kept == [0] and found is None
    fast, pure = _unsupported([blob], True), _unsupported([blob], False)
    assert fast == pure
    assert fast[0] is not None and fast[0].startswith("n.p=1; n.p=2; ")
    assert pl.Series(fast).str.count_matches(";").item() == 4_998  # all but claim 0 unmade
