"""The optional C writer of the input digests' JSON lines (``_rowsjson.c``, issue 38) writes
the bytes Polars' ``write_ndjson`` writes (the reference: the digest is defined over
them), refuses every type it does not write so that Polars writes it, and leaves each
run's digest what the digest's definition gives, with the writer on or off."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from collections.abc import Iterator

import polars as pl
import pytest
from conftest import SAMPLE_RUNS
from hypothesis import HealthCheck, given, settings
from polars.exceptions import PanicException
from polars.testing.parametric import column, dataframes
from test_simulation_digests import reference_digests  # the digest's definition, run by run

import toolkit as tk
from toolkit.epoch import rows_bytes
from toolkit.rubrics.simulation import digests

_rowsjson = pytest.importorskip("toolkit.rubrics.simulation._rowsjson")

UTC = dt.UTC


@pytest.fixture
def writer(request: pytest.FixtureRequest) -> Iterator[bool]:
    """``digests.ACCEL`` as the parameter says, for the test."""
    was = digests.ACCEL
    digests.ACCEL = request.param
    try:
        yield request.param
    finally:
        digests.ACCEL = was


def c_lines(frame: pl.DataFrame) -> tuple[bytes, list[int]]:
    """The C writer's lines of ``frame`` and each line's end, as the digests hand it the
    frame (floats as Polars' text of them)."""
    texts, raw = digests.floats_as_text(frame)
    text, ends = _rowsjson.rows(texts.__arrow_c_stream__(), raw)
    return text, list(memoryview(ends).cast("q"))


def assert_as_polars(frame: pl.DataFrame) -> None:
    text, ends = c_lines(frame)
    assert text == frame.write_ndjson().encode("utf-8")
    assert ends == [i + 1 for i, b in enumerate(text) if b == 0x0A]  # each line's end


def test_a_row_is_written_as_json_by_hand() -> None:
    frame = pl.DataFrame(
        {
            "s": ['a"b\\\n\t\x01\x08\x0c\x7f é'],
            "n": [-5],
            "u": pl.Series([2**64 - 1], dtype=pl.UInt64),
            "b": [False],
            "t": [dt.datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC)],
            "l": [["x", None]],
            "e": pl.Series(["proxy"], dtype=pl.Enum(["observer", "proxy"])),
            "f": [0.1],
            "z": [None],
        }
    )
    text, ends = c_lines(frame)
    assert (
        text
        == (
            '{"s":"a\\"b\\\\\\n\\t\\u0001\\b\\f\x7f é","n":-5,"u":18446744073709551615,'
            '"b":false,"t":"1969-12-31T23:59:59.500+00:00","l":["x",null],"e":"proxy",'
            '"f":0.1,"z":null}\n'
        ).encode()
    )
    assert ends == [len(text)]


@pytest.mark.parametrize("name", ["ticks", "checkpoints", "batches"])
@pytest.mark.parametrize("folder", ["fleet", "universes", "compare/a"])
def test_the_sample_frames_are_written_as_polars_writes_them(folder: str, name: str) -> None:
    frame = getattr(tk.load_universes(SAMPLE_RUNS / folder / "*"), name)
    assert_as_polars(frame)
    if frame.height > 3:  # a slice, and rows in several chunks
        assert_as_polars(frame.slice(1, frame.height - 2))
        chunks = pl.concat([frame.slice(0, 2), frame.slice(3, 4)], rechunk=False)
        assert chunks.n_chunks() == 2
        assert_as_polars(chunks)


def test_edge_values_are_written_as_polars_writes_them() -> None:
    floats = [0.0, -0.0, 0.1, 1e-7, 1e-5, 1e15, 1e16, 5e-324, 1.7976931348623157e308]
    floats += [float("nan"), float("inf"), -float("inf"), None, 123456789.125]
    n = len(floats)
    texts = ["", "x" * 12, "y" * 13, '"\\', "\u2028\u2029", "🎲" * 5, None, "\r\n"]
    times = [
        dt.datetime(1, 1, 1, tzinfo=UTC),
        dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        dt.datetime(1970, 1, 1, tzinfo=UTC),
        dt.datetime(2000, 2, 29, 12, 0, 0, 120000, tzinfo=UTC),
        dt.datetime(2026, 11, 28, 9, 30, 1, 1000, tzinfo=UTC),
        dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        None,
    ]
    frame = pl.DataFrame(
        {
            "f64": floats,
            "f32": pl.Series(floats, dtype=pl.Float32),
            "i8": pl.Series([(-128, 127, 0, None)[i % 4] for i in range(n)], dtype=pl.Int8),
            "i64": [(-(2**63), 2**63 - 1, 0, None, 10)[i % 5] for i in range(n)],
            "u32": pl.Series([(0, 2**32 - 1, None)[i % 3] for i in range(n)], dtype=pl.UInt32),
            "text": [texts[i % len(texts)] for i in range(n)],
            "cat": pl.Series([("a", None, "b")[i % 3] for i in range(n)], dtype=pl.Categorical),
            "when": [times[i % len(times)] for i in range(n)],
            "lists": [[["a"], [], None, [None]][i % 4] if i % 5 else None for i in range(n)],
            "nested": [[[1, None], []] if i % 2 else [] for i in range(n)],
            "struct": [{"k": i, "v": "q" if i % 2 else None} if i % 3 else None for i in range(n)],
            'key "quoted"\n é': list(range(n)),
        }
    )
    for unit in ("ms", "us"):
        assert_as_polars(frame.with_columns(pl.col("when").dt.cast_time_unit(unit)))
    in_ns = frame.with_columns(pl.col("when").dt.cast_time_unit("us")).slice(1, 4)
    assert_as_polars(in_ns.with_columns(pl.col("when").dt.cast_time_unit("ns")))
    assert_as_polars(frame.clear())
    assert_as_polars(pl.DataFrame())


@pytest.mark.parametrize(
    "column",
    [
        pl.Series("d", [dt.date(2020, 1, 1)]),
        pl.Series("naive", [dt.datetime(2020, 1, 1)]),
        pl.Series("paris", [dt.datetime(2020, 1, 1, tzinfo=UTC)]).dt.convert_time_zone(
            "Europe/Paris"
        ),
        pl.Series("late", [dt.datetime(9999, 12, 31, tzinfo=UTC)]) + pl.duration(days=400),
        pl.Series("floats", [[1.5]]),
        pl.Series("span", [dt.timedelta(seconds=1)]),
        pl.Series("bin", [b"ab"]),
    ],
)
def test_types_it_does_not_write_are_refused_and_left_to_polars(column: pl.Series) -> None:
    frame = pl.DataFrame({"slug": ["a"], "n": [1]}).with_columns(column)
    with pytest.raises(_rowsjson.Unsupported):
        c_lines(frame)
    if column.name != "bin":  # (Polars cannot write binary either)
        expected = {"a": rows_bytes(frame)}
        assert {s: bytes(r) for s, r in digests.run_rows_bytes(frame)} == expected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dataframes(
        min_cols=1,
        max_cols=6,
        max_size=12,
        allowed_dtypes=[
            pl.String,
            pl.Int64,
            pl.UInt64,
            pl.Int8,
            pl.Boolean,
            pl.Float64,
            pl.Float32,
            pl.Null,
            pl.List(pl.String),
            pl.List(pl.Int32),
            pl.Categorical,
            pl.Enum(["a", "b\\"]),
            pl.Struct({"s": pl.String, "n": pl.Int16}),
        ],
        allow_time_zones=False,
        include_cols=[column("t", dtype=pl.Datetime("us", "UTC"))],
    )
)
def test_any_frame_it_writes_is_written_as_polars_writes_it(frame: pl.DataFrame) -> None:
    try:
        expected = frame.write_ndjson().encode("utf-8")
    except (pl.exceptions.PolarsError, PanicException):  # a frame Polars cannot write
        return
    try:
        text, _ = c_lines(frame)
    except _rowsjson.Unsupported:
        return
    assert text == expected


@pytest.mark.parametrize("writer", [True, False], indirect=True)
@pytest.mark.parametrize("chunk_rows", [1, 97, 8_192])
def test_digests_are_the_definitions_with_the_writer_on_or_off(
    writer: bool, chunk_rows: int
) -> None:
    universe = tk.load_universes(SAMPLE_RUNS / "universes" / "*")
    expected = reference_digests(universe)
    assert digests.input_digests(universe, chunk_rows) == expected


@pytest.mark.parametrize("writer", [True, False], indirect=True)
def test_shuffled_rows_keep_each_runs_digest_of_its_rows_in_order(writer: bool) -> None:
    universe = tk.load_universes(SAMPLE_RUNS / "fleet" / "*")
    order = list(range(universe.ticks.height))
    random.Random(7).shuffle(order)
    shuffled = dataclasses.replace(universe, ticks=universe.ticks[order])
    assert shuffled.ticks["slug"].rle_id().max() + 1 > len(shuffled.slugs)  # really apart
    assert digests.input_digests(shuffled, 50) == reference_digests(shuffled)


@pytest.mark.parametrize("writer", [True, False], indirect=True)
def test_a_frame_with_a_type_left_to_polars_keeps_the_definitions_digest(writer: bool) -> None:
    universe = tk.load_universes(SAMPLE_RUNS / "universes" / "*")
    dated = universe.ticks.with_columns(day=pl.lit(dt.date(2026, 11, 28)), naive=pl.lit(1.5))
    changed = dataclasses.replace(universe, ticks=dated)
    assert digests.input_digests(changed) == reference_digests(changed)
