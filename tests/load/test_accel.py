"""The optional C accelerator of the tick batch path (issue 38, ``toolkit/load/_tickscan.c``).

The accelerator screens a chunk of tick files in one call and projects the fields the
frame reads of the files it can vouch for; every other file goes through the pure-Python
path unchanged. The pure path is the reference: here every input is loaded with the
accelerator and with it switched off (``_ticks.ACCEL``, what ``TOOLKIT_ACCEL=0`` sets),
and the raw frames, the ticks frames, the issues (their messages), the repeated-key
warnings and the input digests must be the same. Stronger still, at the level of the C
call: every file it accepts is one the pure batch path takes, and the row it gives is
the row Polars' JSON reader gives on that path. The inputs: every sample tick file, a
generated fleet, the hostile fixtures of ``test_run_at_a_time.py``, token-world's real
ticks when present, and Hypothesis-drawn tick documents and byte mutations of them
(truncations, repeated keys at depth, wrong types, bytes that are not UTF-8, deep
nesting, huge numbers, ``-0``, escapes). The tests also check that the common files do
take the fast path, so a C screen that silently refused everything would fail them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import test_run_at_a_time as batch_tests
from conftest import REAL_RUNS, ROOT, SAMPLE_RUNS, tick_v1, tick_v2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal, assert_series_equal
from test_projected_read import _assert_alike
from test_run_at_a_time import _GOOD, CAREFUL, RECORDS

from toolkit.io import edge
from toolkit.load import _ticks
from toolkit.load._tick_normalise import unsupported_claims
from toolkit.load._tick_screen import arrow_frame, arrow_text
from toolkit.load.universe import Universe, load_universes

SCAN = _ticks._accel_scan
needs_accel = pytest.mark.skipif(SCAN is None, reason="the C accelerator is not built here")


@contextlib.contextmanager
def accel(on: bool) -> Iterator[None]:
    """The C accelerator on or off for the block (shared by the accelerator tests)."""
    was, was_read = _ticks.ACCEL, edge.PACK_ACCEL
    _ticks.ACCEL = edge.PACK_ACCEL = on  # the C screen, and the C reader of toolkit/io
    try:
        yield
    finally:
        _ticks.ACCEL, edge.PACK_ACCEL = was, was_read


def _sample_blobs() -> list[bytes]:
    return [p.read_bytes() for p in sorted(SAMPLE_RUNS.glob("**/tick_summaries/ticks/*.json"))]


def _raw_alike(blobs: list[bytes]) -> list[int]:
    """The C call's rows against the pure batch path's over the same files: every file it
    accepts is taken by the pure path, with the same row; when it vouches for the rows
    (``checked``), the pure path's column-wise check passes every one; its unsupported
    claims are normalise's. Returns the accepted indexes."""
    assert SCAN is not None
    kept, schema, array, checked, claims = SCAN(blobs)
    with _ticks.collector_paused():
        frame, taken, _ = _ticks._pure_fast(blobs)
    assert set(kept) <= set(taken), "the C screen accepted a file the pure batch path refuses"
    assert claims is not None  # no file here holds enough claims to pass the budget
    found = arrow_text("unsupported_claims", *claims)
    if not kept:
        assert found.len() == 0
        return kept
    assert frame is not None
    where = {index: row for row, index in enumerate(taken)}
    ours = arrow_frame(schema, array)
    assert_frame_equal(ours, frame[[where[i] for i in kept]])
    assert_series_equal(found, unsupported_claims(ours), check_names=False)
    if checked:
        names = pl.Series([f"tick_{i}.json" for i in kept])
        assert not _ticks._problems(ours, names).any(), "vouched for a row the check refuses"
    return kept


def _parsed(blobs: list[bytes], on: bool) -> tuple[pl.DataFrame, list[str], list[Any]]:
    files = [f"run-{i % 2}/tick_summaries/ticks/tick_{i + 1}.json" for i in range(len(blobs))]
    slugs = [f"run-{i % 2}" for i in range(len(blobs))]
    notes: list[tuple[str, str]] = []
    with accel(on):
        frame, errors = _ticks.parse_ticks(slugs, files, blobs, notes)
    return frame, [str(e) for e in errors], notes


def _parsed_alike(blobs: list[bytes]) -> None:
    """parse_ticks with the accelerator and without: frame, issues and warnings."""
    fast, fast_errors, fast_notes = _parsed(blobs, True)
    pure, pure_errors, pure_notes = _parsed(blobs, False)
    assert_frame_equal(fast, pure)
    assert fast_errors == pure_errors
    assert fast_notes == pure_notes


def _both(root: Path) -> list[Universe]:
    out = []
    for on in (True, False):
        with accel(on), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append(load_universes(root / "run-*", progress=False))
    return out


# ---------------------------------------------------------------------------
# It is built, optional, and switched off by TOOLKIT_ACCEL=0
# ---------------------------------------------------------------------------


def test_the_accelerator_is_built_wherever_a_c_compiler_is() -> None:
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler: the pure path is the whole loader here")
    assert SCAN is not None, "build it: pip install -e . (or python setup.py build_ext --inplace)"


@needs_accel
@pytest.mark.parametrize(("value", "on"), [("0", False), ("1", True), (None, True)])
def test_toolkit_accel_0_in_the_environment_turns_it_off(value: str | None, on: bool) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TOOLKIT_ACCEL"}
    if value is not None:
        env["TOOLKIT_ACCEL"] = value
    code = "from toolkit.load import _ticks; print(_ticks.ACCEL)"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(on)


# ---------------------------------------------------------------------------
# The files people have: taken on the fast path, the same frames
# ---------------------------------------------------------------------------


@needs_accel
def test_every_sample_tick_file_is_accepted_and_gives_the_pure_paths_row() -> None:
    blobs = _sample_blobs()
    assert len(blobs) > 900
    assert _raw_alike(blobs) == list(range(len(blobs)))  # the fast path, for every file
    _parsed_alike(blobs)


@needs_accel
def test_the_sample_fleets_load_alike_with_and_without_it() -> None:
    _assert_alike(_both(SAMPLE_RUNS / "fleet"))
    for universe in sorted((SAMPLE_RUNS / "universes").iterdir()):
        with accel(True):
            fast = load_universes(universe, progress=False)
        with accel(False):
            pure = load_universes(universe, progress=False)
        _assert_alike([fast, pure])


@needs_accel
def test_a_generated_fleet_is_accepted_whole_and_loads_alike(generated_fleet: Path) -> None:
    blobs = [p.read_bytes() for p in sorted(generated_fleet.glob("*/tick_summaries/ticks/*"))]
    assert len(blobs) == 8 * 60
    assert _raw_alike(blobs) == list(range(len(blobs)))
    _assert_alike(_both(generated_fleet))


@needs_accel
@pytest.mark.parametrize("ascii_only", [False, True])
def test_the_edge_records_give_the_pure_paths_rows(ascii_only: bool) -> None:
    blobs = [json.dumps(r, indent=1, ensure_ascii=ascii_only).encode() for r in RECORDS]
    kept = _raw_alike(blobs)
    # Escapes are the pure path's. Without them, only the ticks holding an integer of 16
    # or more digits in a float field (7, 15) or of 19 in an integer field (11, 15) are.
    if not ascii_only:
        assert [i + 1 for i in kept] == [1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17]
    _parsed_alike(blobs)


@needs_accel
def test_real_token_world_ticks_are_read_alike() -> None:
    files = sorted(REAL_RUNS.glob("**/tick_summaries/ticks/*.json")) if REAL_RUNS.is_dir() else []
    if not files:
        pytest.skip("no real token-world tick files in /work/shared/real_runs")
    blobs = [p.read_bytes() for p in files[:5000]]
    _raw_alike(blobs)
    _parsed_alike(blobs)


# ---------------------------------------------------------------------------
# Hostile files: refused by the C screen, and loaded exactly as without it
# ---------------------------------------------------------------------------


def _careful_blob(name: str) -> bytes:
    text = CAREFUL[name]
    return text.encode("latin-1") if name == "not UTF-8" else text.encode()


@needs_accel
@pytest.mark.parametrize("name", sorted(CAREFUL))
def test_a_hostile_file_is_left_to_the_pure_path(name: str) -> None:
    blobs = [json.dumps(r, indent=1).encode() for r in _GOOD]
    blobs[2] = _careful_blob(name)
    kept = _raw_alike(blobs)
    assert kept == [0, 1, 3, 4]  # the good files on the fast path, never the hostile one
    _parsed_alike(blobs)


@needs_accel
@pytest.mark.parametrize("name", sorted(CAREFUL))
def test_a_hostile_file_in_a_generated_fleet_loads_alike(
    name: str, generated_fleet: Path, tmp_path: Path
) -> None:
    root = tmp_path / "fleet"
    shutil.copytree(generated_fleet, root)
    target = root / "run-0002" / "tick_summaries" / "ticks" / "tick_10.json"
    target.write_bytes(_careful_blob(name).replace(b'"tick_id": "3"', b'"tick_id": "10"'))
    _assert_alike(_both(root))


@needs_accel
def test_anything_that_is_not_bytes_is_refused_not_a_crash() -> None:
    assert SCAN is not None
    good = json.dumps(_GOOD[0]).encode()
    kept, schema, array, _, _ = SCAN(
        [bytearray(good), good.decode(), None, 7, good, memoryview(good)]
    )
    assert kept == [4] and arrow_frame(schema, array)["tick_id"].to_list() == ["1"]
    with pytest.raises(TypeError):
        SCAN(7)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Drawn documents and byte mutations
# ---------------------------------------------------------------------------

#: The names the format's objects use, so drawn objects often hit a declared field.
_NAMES = [
    "schema_version", "tick_id", "timestamp_iso", "action_text", "classified_action",
    "classified_actions", "matched_mechanic_id", "yielded", "refused", "refusal_reason",
    "mutations", "observation_text", "long_running_action", "duration_ms",
    "llm_tokens_by_stage", "llm_cost_usd_by_stage", "actor_id", "kind",
    "conservation_verdict", "projected_state", "observation", "cost_usd", "verb", "actor",
    "target", "indirect_object", "params", "count", "list", "text", "claimed_changes",
    "classifier", "observer", "in", "out", "type", "properties", "edges", "active",
    "m", "x", "a:b", "é",
]  # fmt: skip
_BOUNDS = [2**53 - 1, 2**53, 10**15 - 1, 10**15, 2**63 - 1, 2**63, 10**18 - 1, 10**18, 2**70]
_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.sampled_from(_BOUNDS + [-b for b in _BOUNDS] + [0, 1, -1]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 5e-324, 1.7976931348623157e308, 0.1, 1e22, 2.0**53]),
    st.text(max_size=8),
    st.sampled_from(["", "a:b", 'q"', "back\\slash", "new\nline", "é✓🙂", "\x00", "-0,"]),
    st.sampled_from(["execute", "yield", "refuse", "ok", "violated", "42", "tick_7"]),
)
_VALUES = st.recursive(
    _LEAVES,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(_NAMES), children, max_size=4),
    ),
    max_leaves=12,
)
_CHANGES = st.lists(
    st.lists(
        st.one_of(st.none(), st.text(max_size=5), st.integers(-(2**64), 2**64), st.floats()),
        max_size=4,
    ),
    max_size=3,
)


@st.composite
def _documents(draw: st.DrawFn) -> dict[str, Any]:
    """A tick v1 or v2 with some fields replaced by drawn values of any JSON type."""
    n = draw(st.integers(1, 500))
    record = draw(st.sampled_from([tick_v1, tick_v2]))(n)
    if draw(st.booleans()):
        record["projected_state"] = {"m": {"type": "agent", "properties": {"q": [1, None]}}}
        record["classified_actions"] = [{"verb": "go", "params": {}}]
    for key in draw(st.lists(st.sampled_from([*_NAMES[:22], "diagnostics"]), max_size=4)):
        record[key] = draw(_VALUES)
    for key in draw(st.lists(st.sampled_from(["mutations", "observation"]), max_size=2)):
        inner = "list" if key == "mutations" else "claimed_changes"
        record[key] = {inner: draw(_CHANGES), **({"count": 1} if key == "mutations" else {})}
    return record


def _serialised(draw: st.DrawFn, record: dict[str, Any]) -> bytes:
    indent = draw(st.sampled_from([None, 1, 2]))
    text = json.dumps(record, indent=indent, ensure_ascii=draw(st.booleans()))
    return text.encode("utf-8", "surrogatepass")


_NUMBER = re.compile(rb"(?<=[:\[,] )-?\d[\d.eE+-]*|(?<=[:\[,])-?\d[\d.eE+-]*")
_ODD_NUMBERS = [b"-0", b"-0.0", b"1e400", b"-1e400", b"1.0", b"00", b"1e5", b"9" * 30, b"1E-400"]


@st.composite
def _mutated(draw: st.DrawFn) -> bytes:
    """A drawn document's bytes, then one mutation: truncated, a key repeated at some
    depth, a number replaced by an odd one, a byte replaced or inserted, deep nesting."""
    blob = _serialised(draw, draw(_documents()))
    kind = draw(st.sampled_from(["none", "cut", "repeat", "number", "byte", "insert", "deep"]))
    if kind == "cut":
        return blob[: draw(st.integers(0, max(0, len(blob) - 1)))]
    if kind == "repeat":
        opens = [m.start() for m in re.finditer(rb'\{\s*"', blob)]
        if opens:
            at = draw(st.sampled_from(opens))
            key = re.match(rb'\{\s*("(?:[^"\\]|\\.)*")', blob[at:])
            if key is not None:
                value = draw(st.sampled_from([b"null", b"1", b'"x"', b"{}"]))
                return blob[: at + 1] + key.group(1) + b": " + value + b", " + blob[at + 1 :]
        return blob
    if kind == "number":
        spots = list(_NUMBER.finditer(blob))
        if spots:
            m = draw(st.sampled_from(spots))
            return blob[: m.start()] + draw(st.sampled_from(_ODD_NUMBERS)) + blob[m.end() :]
        return blob
    if kind in ("byte", "insert"):
        at = draw(st.integers(0, max(0, len(blob) - 1)))
        byte = bytes([draw(st.integers(0, 255))])
        return blob[:at] + byte + blob[at + (kind == "byte") :]
    if kind == "deep":
        depth = draw(st.integers(20, 80))
        nested = b"[" * depth + b"1" + b"]" * depth
        return blob.replace(b'"tick_id"', b'"params": ' + nested + b', "tick_id"', 1)
    return blob


@needs_accel
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.lists(_documents(), min_size=1, max_size=4), data=st.data())
def test_drawn_tick_documents_load_alike(
    records: list[dict[str, Any]], data: st.DataObject
) -> None:
    blobs = [_serialised(data.draw, r) for r in records]
    _raw_alike(blobs)
    _parsed_alike(blobs)


@needs_accel
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blob=_mutated(), where=st.integers(0, 2))
def test_mutated_tick_files_load_alike(blob: bytes, where: int) -> None:
    blobs = [json.dumps(r).encode() for r in _GOOD[:2]]
    blobs.insert(where, blob)
    kept = _raw_alike(blobs)
    assert len(kept) >= 2  # the two good files at least
    _parsed_alike(blobs)


@needs_accel
def test_the_drawn_documents_do_reach_the_fast_path() -> None:
    """Not vacuous: the plain documents the drawn ones start from are all accepted."""
    assert SCAN is not None
    plain = [
        json.dumps(tick_v1(n) if n % 2 else tick_v2(n), indent=n % 3).encode() for n in range(60)
    ]
    assert SCAN(plain)[0] == list(range(60))


@pytest.mark.parametrize("version", [True, 1.0, 2.0, "1"])
def test_a_schema_version_that_is_not_an_integer_is_an_issue_not_a_traceback(
    version: Any,
) -> None:
    """Found by the mutations above: ``true == 1.0 == 1`` in Python, so such a version
    once passed as version 1 (or 2) and then broke Polars' read of the canonical form."""
    blob = json.dumps(tick_v1(1) | {"schema_version": version}).encode()
    for on in (True, False):
        frame, errors, _ = _parsed([blob], on)
        assert frame.height == 0
        assert len(errors) == 1
        assert "unknown tick schema version" in errors[0] and "schema_version" in errors[0]


@needs_accel
@pytest.mark.parametrize("size", [3, 16, 17, 40, 300])
@pytest.mark.parametrize("where", ["projected_state", "properties"])
def test_a_repeated_key_among_many_is_found(size: int, where: str) -> None:
    """Objects of more than 16 keys are checked by sorting their keys (fewer by pairs):
    a repeat anywhere among them is refused, and the same object without it accepted."""
    keys = [f'"k{i}"' for i in range(size)]
    texts = []
    for repeat in (False, True):
        names = [*keys, keys[size // 2]] if repeat else keys
        if where == "projected_state":
            inner = ", ".join(f'{k}: {{"type": "agent"}}' for k in names)
            extra = f'"projected_state": {{{inner}}}'
        else:
            inner = ", ".join(f"{k}: {i}" for i, k in enumerate(names))
            extra = f'"projected_state": {{"m": {{"type": "agent", "properties": {{{inner}}}}}}}'
        record = tick_v2(7)
        del record["projected_state"]  # written by hand below
        texts.append(json.dumps(record)[:-1] + ", " + extra + "}")
    blobs = [t.encode() for t in texts]
    assert _raw_alike(blobs) == [0]  # the first has no repeat, the second one
    _parsed_alike(blobs)


@needs_accel
def test_a_polars_that_cannot_take_the_arrow_array_leaves_the_chunk_to_the_pure_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    blobs = _sample_blobs()[:50]
    expected = _parsed(blobs, False)

    def refuse(schema: object, array: object) -> pl.DataFrame:
        raise pl.exceptions.ComputeError("cannot import")

    monkeypatch.setattr(_ticks, "arrow_frame", refuse)
    with _ticks.collector_paused():
        _, taken, left = _ticks._fast(blobs)
    assert taken == list(range(50)) and left == []
    fast = _parsed(blobs, True)
    assert_frame_equal(fast[0], expected[0])
    assert fast[1:] == expected[1:]


# ---------------------------------------------------------------------------
# The pure batch path's own tests, with the accelerator off
# ---------------------------------------------------------------------------
#
# With the accelerator on, ``test_run_at_a_time.py``'s tests of ``_ticks._fast`` see the
# C screen take every good file, so the pure batch path (its batches, its colon count)
# would only ever see the hostile ones. Here the same tests run with it off.


@pytest.mark.parametrize("name", sorted(CAREFUL))
def test_the_pure_batch_path_alone_leaves_only_the_careful_file(name: str) -> None:
    with accel(False):
        batch_tests.test_one_file_that_needs_the_careful_path_is_the_only_one_that_takes_it(name)


@pytest.mark.parametrize("ascii_only", [False, True])
def test_the_pure_batch_path_alone_builds_the_edge_records(ascii_only: bool) -> None:
    with accel(False):
        batch_tests.test_edge_records_are_taken_and_built_as_the_file_at_a_time_path_builds_them(
            ascii_only
        )


def test_the_pure_batch_path_alone_takes_every_sample_and_splits_batches_anywhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with accel(False):
        batch_tests.test_every_sample_tick_file_is_taken_and_built_as_the_file_at_a_time_path_builds_it()
        batch_tests.test_batches_split_anywhere_give_the_same_frame_and_leave_only_the_careful_file(
            monkeypatch
        )


def test_the_pure_batch_path_alone_takes_no_file_with_a_repeated_key() -> None:
    with accel(False):
        batch_tests.test_no_file_with_a_repeated_key_is_taken()
