"""``frames.typed``: a frame in a schema's columns, order and types, with no query when it
is so already."""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from toolkit.frames import typed

SCHEMA: dict[str, pl.DataType] = {"game_id": pl.String(), "n": pl.Int64()}


def test_a_frame_already_in_the_schema_is_returned_as_it_is() -> None:
    frame = pl.DataFrame({"game_id": ["g"], "n": [3]}, schema=SCHEMA)
    assert typed(frame, SCHEMA) is frame


def test_other_order_types_and_extra_columns_are_selected_and_cast() -> None:
    frame = pl.DataFrame(
        {"extra": [1.5], "n": [3], "game_id": ["g"]},
        schema={"extra": pl.Float64(), "n": pl.Int32(), "game_id": pl.String()},
    )
    expected = pl.DataFrame({"game_id": ["g"], "n": [3]}, schema=SCHEMA)
    assert_frame_equal(typed(frame, SCHEMA), expected)


def test_columns_of_the_schemas_types_are_picked_without_a_query(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frame = pl.DataFrame(
        {"extra": [1.5], "n": [3], "game_id": ["g"]},
        schema={"extra": pl.Float64(), "n": pl.Int64(), "game_id": pl.String()},
    )

    def no_query(*args: object, **kwargs: object) -> None:
        raise AssertionError("a query was run")

    monkeypatch.setattr(pl.LazyFrame, "collect", no_query)
    picked = typed(frame, SCHEMA)
    monkeypatch.undo()
    assert_frame_equal(picked, pl.DataFrame({"game_id": ["g"], "n": [3]}, schema=SCHEMA))
