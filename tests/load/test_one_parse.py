"""One parse per tick file (issue 25): the screen and the columns built from it.

The bulk tick path parses each file once with msgspec, finds repeated keys by counting
colons, checks the JSON types, and builds the typed columns from the parsed fields. The
columns must be what Polars' NDJSON reader gives for the same bytes (the reader is still
used for the files whose values it must decide), and a repeated key must never slip past
the count. Expected answers come from Polars' reader and Python's ``json`` module, never
from the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from conftest import SAMPLE_RUNS, has_repeated_key, tick_v1, tick_v2, write_run
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.load import _tick_screen, _ticks
from toolkit.load.universe import load_universe


def _polars_reads(blobs: list[bytes]) -> pl.DataFrame:
    """The reference: Polars' NDJSON reader over the same bytes."""
    return _ticks._read([_ticks._one_line(b) for b in blobs])


def _built(blobs: list[bytes]) -> pl.DataFrame:
    rows = []
    for blob in blobs:
        row = _tick_screen.plain_row(_tick_screen.screen_tick(blob), blob)
        assert row is not None, blob
        rows.append(row)
    return _tick_screen.screened_frame(rows)


# ---------------------------------------------------------------------------
# The columns: what Polars' reader gives, without it
# ---------------------------------------------------------------------------


def test_every_sample_tick_file_is_built_as_polars_reads_it() -> None:
    blobs = [p.read_bytes() for p in sorted(SAMPLE_RUNS.glob("**/tick_summaries/ticks/*.json"))]
    assert len(blobs) > 1000
    assert_frame_equal(_built(blobs), _polars_reads(blobs))


#: Records whose every value the builder takes itself: absent, null and empty objects
#: (a null struct and an empty one differ in the frame), ints where floats go, an int
#: tick id, unicode raw and escaped, colons in text.
EDGE_RECORDS = [
    tick_v1(1),
    tick_v2(2),
    {"tick_id": 3},
    {"schema_version": 1, "tick_id": 4, "mutations": {}, "classified_action": {}},
    {"tick_id": "5", "mutations": {"list": []}, "llm_tokens_by_stage": {}},
    tick_v1(6, llm_tokens_by_stage={"classifier": {}, "observer": None}),
    tick_v1(7, llm_cost_usd_by_stage={}, duration_ms=2**53 - 1, mutations=None),
    tick_v2(8, observation={"text": None}, cost_usd=3),
    tick_v2(9, observation={"claimed_changes": None}, kind="yield"),
    tick_v2(10, observation={"claimed_changes": [[], ["a", None, 5, -7]]}),
    tick_v1(11, mutations={"count": None, "list": [["x", "subtype", 2**63 - 1]]}),
    tick_v1(12, action_text="Mara: «well» — 10:30", refusal_reason="a:b"),
    tick_v1(13, classified_action=None),
    tick_v2(15, yielded=None, refused=False),
    tick_v2(14, llm_tokens_by_stage={"observer": {"in": 1.5, "out": 0}}),
]


@pytest.mark.parametrize("ascii_only", [False, True])
def test_edge_records_are_built_as_polars_reads_them(ascii_only: bool) -> None:
    blobs = [json.dumps(r, ensure_ascii=ascii_only, indent=1).encode() for r in EDGE_RECORDS]
    assert_frame_equal(_built(blobs), _polars_reads(blobs))


#: Values whose column form is the reader's to decide: the file goes to Polars' reader.
LEFT_TO_POLARS = {
    "a float in a change": tick_v1(1, mutations={"list": [["a", "b", 1.5, 2.0]]}),
    "a bool in a claim": tick_v2(1, observation={"claimed_changes": [["a", "b", True]]}),
    "an object in a change": tick_v1(1, mutations={"list": [["a", "b", {"x": 1}, "y"]]}),
    "a tick id beyond 64 bits": tick_v1(1, tick_id=2**70),
    "a count beyond 64 bits": tick_v1(1, mutations={"count": 2**64, "list": []}),
    "a duration beyond 2**53": tick_v1(1, duration_ms=2**53 + 1),
    "a v2 flag that is text": tick_v2(1, yielded="yes"),
}


@pytest.mark.parametrize("name", sorted(LEFT_TO_POLARS))
def test_values_polars_decides_are_left_to_its_reader_and_load_alike_both_ways(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = LEFT_TO_POLARS[name]
    blob = json.dumps(record).encode()
    tick = _tick_screen.screen_tick(blob)
    assert tick is not None and _tick_screen.plain_row(tick, blob) is None
    run = write_run(tmp_path / "run", [tick_v1(2), tick_v2(3)])
    (run / "tick_summaries" / "ticks" / "tick_1.json").write_bytes(blob)

    def load() -> Any:
        try:
            return load_universe(run)
        except InputError as err:
            return str(err)

    bulk = load()
    monkeypatch.setattr(_ticks, "BULK_READ", False)
    per_file = load()
    if isinstance(bulk, str) or isinstance(per_file, str):
        assert bulk == per_file
        return
    assert_frame_equal(bulk.ticks, per_file.ticks)
    assert_frame_equal(bulk.issues, per_file.issues)


@pytest.mark.parametrize(
    "text",
    [
        '{"tick_id": "1", "mutations": {"list": [["a", "b", -0, 1]]}}',
        '{"tick_id": "1", "action_text": "\\ud83d\\udc4b"}',
    ],
)
def test_a_minus_zero_or_a_surrogate_escape_leaves_the_file_to_polars(text: str) -> None:
    blob = text.encode()
    assert _tick_screen.screen_tick(blob) is not None
    assert _tick_screen.plain_row(_tick_screen.screen_tick(blob), blob) is None


@pytest.mark.parametrize(
    "blob",
    [b'{"sch\xe9ma_version": 1, "tick_id": "1"}', b'{"tick_id": "1\xff"}', b"[" * 5000],
)
def test_bytes_the_parser_refuses_go_the_per_file_way_and_become_an_issue(
    tmp_path: Path, blob: bytes
) -> None:
    assert _tick_screen.screen_tick(blob) is None
    run = write_run(tmp_path / "run", [tick_v1(2)])
    (run / "tick_summaries" / "ticks" / "tick_1.json").write_bytes(blob)
    universe = load_universe(run)
    assert universe.ticks["tick"].to_list() == [2]
    assert universe.issues["path"].to_list() == [str(run / "tick_summaries/ticks/tick_1.json")]


# ---------------------------------------------------------------------------
# Repeated keys: found exactly by the colon count
# ---------------------------------------------------------------------------

BASE = json.dumps(tick_v1(1))[:-1]  # without the closing brace


@pytest.mark.parametrize(
    ("text", "repeat"),
    [
        (BASE + "}", False),
        (BASE + ', "note": "10:30 a:b::c", "we:ird": {"k:": ":"}}', False),
        (BASE + ', "extra": 1, "extra": 1}', True),  # a field the frame never reads
        (BASE + ', "classified_actions": [{"verb": "a", "verb": "b"}]}', True),
        (BASE + ', "x": "a:b:c:d", "x": "e"}', True),  # the dropped value held colons
        (BASE + ', "x": "e", "x": "a:b:c:d"}', True),  # the kept value holds them
        (BASE + ', "params": {"p": {"q": 1, "q": 1}}}', True),  # deep, same value
    ],
)
def test_a_repeated_key_anywhere_sends_the_file_the_per_file_way(text: str, repeat: bool) -> None:
    assert has_repeated_key(text) is repeat
    assert (_tick_screen.screen_tick(text.encode()) is None) is repeat


def test_an_escaped_colon_sends_the_file_the_per_file_way() -> None:
    # "a\u003a" is the key "a:"; escaped, it would blur the count, so it is not trusted.
    text = BASE + ', "a\\u003a": 1}'
    assert not has_repeated_key(text)
    assert _tick_screen.screen_tick(text.encode()) is None


_KEYS = st.text(alphabet='ab:"\\ é', min_size=0, max_size=4)
_LEAVES = st.one_of(st.none(), st.integers(-5, 5), st.text(alphabet='a:" é', max_size=5))


def _objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    pairs = st.lists(st.tuples(_KEYS, children), max_size=4)
    return st.one_of(st.lists(children, max_size=3), pairs.map(lambda p: ("obj", p)))


def _text(value: Any) -> str:
    """JSON text of ``value``, where ``("obj", pairs)`` is an object written with its pairs
    as drawn: a key may come twice."""
    if isinstance(value, tuple) and value[:1] == ("obj",):
        return "{" + ", ".join(f"{json.dumps(k)}: {_text(v)}" for k, v in value[1]) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


@settings(max_examples=300, deadline=None)
@given(extra=st.lists(st.tuples(_KEYS, st.recursive(_LEAVES, _objects, max_leaves=12)), max_size=5))
def test_any_repeated_key_is_found(extra: list[tuple[str, Any]]) -> None:
    text = BASE + "".join(f", {json.dumps('x' + k)}: {_text(v)}" for k, v in extra) + "}"
    if has_repeated_key(text):
        assert _tick_screen.screen_tick(text.encode()) is None
    else:  # no repeat, no escaped colon, every field of the frame well typed
        assert _tick_screen.screen_tick(text.encode()) is not None


# ---------------------------------------------------------------------------
# The reading edge: one 64 KiB read for a small file, every byte of a large one
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 65_535, 65_536, 65_537, 3 * 2**20 + 5])
def test_fast_and_checked_reads_return_every_byte(tmp_path: Path, size: int) -> None:
    path = tmp_path / "tick_1.json"
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    path.write_bytes(data)
    assert edge.read_bytes_fast(str(path), 2**30) == data
    assert edge.read_bytes(path) == data


@pytest.mark.parametrize("size", [65_536, 65_537, 2**20 + 1])
def test_the_size_limit_holds_past_the_first_read(tmp_path: Path, size: int) -> None:
    path = tmp_path / "tick_1.json"
    path.write_bytes(b"a" * size)
    got = edge.read_bytes_fast(str(path), size - 1)
    assert isinstance(got, InputError) and "over the limit" in str(got)
    assert edge.read_bytes_fast(str(path), size) == b"a" * size
