"""Edges of the C accelerator found in review (``toolkit/load/_tickscan.c``).

Each input is checked as ``test_accel.py`` checks its own: every file the C call accepts
is one the pure batch path takes, with the same row, and ``parse_ticks`` gives the same
frame, issues and warnings with the accelerator on and off.
"""

from __future__ import annotations

import json

import pytest
from conftest import tick_v2
from test_accel import _parsed, _parsed_alike, _raw_alike, needs_accel

#: Where a tick file holds values of any JSON type (fields kept only for the colon count).
_ANY_PLACES = {
    "long_running_action": {"active": True, "turns_elapsed": "@@"},
    "params": {"verb": "walk", "params": {"n": ["@@"]}},
    "properties": {"well": {"type": "place", "properties": {"depth": "@@"}}},
}


def _with_number(place: str, number: str) -> bytes:
    record = tick_v2(3)
    key = {"params": "classified_action", "properties": "projected_state"}.get(place, place)
    record[key] = _ANY_PLACES[place]
    return json.dumps(record).replace('"@@"', number).encode()


@needs_accel
@pytest.mark.parametrize("place", sorted(_ANY_PLACES))
def test_an_integer_of_more_than_4300_digits_anywhere_is_an_issue_on_both_paths(
    place: str,
) -> None:
    """Python (and msgspec) refuse to read an integer of more than 4,300 digits: the
    pure path names the file in an issue. The C screen once took any number grammar
    allows inside an untyped value, so with it on the file loaded as a clean tick."""
    blob = _with_number(place, "7" * 4301)
    assert _raw_alike([blob, json.dumps(tick_v2(4)).encode()]) == [1]
    frame, errors, _ = _parsed([blob], True)
    assert frame.height == 0
    assert len(errors) == 1 and "4,300" in errors[0]
    _parsed_alike([blob])


@needs_accel
@pytest.mark.parametrize("place", sorted(_ANY_PLACES))
@pytest.mark.parametrize("number", ["1e999", "-1E400", "1" * 400 + ".5"])
def test_a_float_beyond_a_double_anywhere_is_left_to_the_pure_path(place: str, number: str) -> None:
    """msgspec refuses a number that overflows a double ("Number out of range"), so the
    pure batch path leaves such a file to the file-at-a-time path; the C screen must too."""
    blob = _with_number(place, number)
    assert _raw_alike([blob]) == []
    _parsed_alike([blob])


@needs_accel
@pytest.mark.parametrize("number", ["7" * 640, "1e308", "-4.9e-324", "1e-999", "1" * 300 + ".5"])
def test_numbers_a_double_or_python_holds_are_still_accepted_anywhere(number: str) -> None:
    blob = _with_number("properties", number)
    assert _raw_alike([blob]) == [0]
    _parsed_alike([blob])
