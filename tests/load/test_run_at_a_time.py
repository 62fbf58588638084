"""The batch tick path (issue 25): a batch of files in a few C calls.

:func:`toolkit.load._ticks._fast` decodes each batch of tick files with one typed
msgspec decoder mapped over them, checks the batch's colon count against its structs
written back, and has Polars' JSON reader build the columns from that written-back
array. A file it cannot vouch for goes the file-at-a-time way
(:func:`toolkit.load._tick_screen.screen_tick`), whose answers are pinned by ``test_one_parse.py``
and ``test_same_bytes_same_score.py``. Here: that the two paths give the same frame,
that exactly the files that need the careful path take it (so a run with one bad file
still warns about exactly that file), and that no repeated key slips past. Expected
answers come from Python's ``json`` module, the file-at-a-time builder and the per-file
path, never from the code under test.
"""

from __future__ import annotations

import gc
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLE_RUNS, has_repeated_key, tick_v1, tick_v2, write_run
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from toolkit.load import _tick_screen, _ticks
from toolkit.load.universe import Universe, load_universe, load_universes


def _blobs(records: list[dict[str, Any]]) -> list[bytes]:
    return [json.dumps(r, indent=1).encode() for r in records]


def _file_at_a_time(blobs: list[bytes]) -> Any:
    """The reference builder: each file screened and built on its own."""
    rows = [_tick_screen.plain_row(_tick_screen.screen_tick(b), b) for b in blobs]
    assert all(row is not None for row in rows)
    return _tick_screen.screened_frame(rows)  # type: ignore[arg-type]


def _left(blobs: list[bytes]) -> list[int]:
    """The files the batch path leaves to the file-at-a-time path."""
    with _ticks.collector_paused():
        _, taken, left = _ticks._fast(blobs)
    assert sorted(taken + left) == list(range(len(blobs)))  # every file goes one way
    return left


# ---------------------------------------------------------------------------
# The same columns as the file-at-a-time builder
# ---------------------------------------------------------------------------


def test_every_sample_tick_file_is_taken_and_built_as_the_file_at_a_time_path_builds_it() -> None:
    paths = sorted(SAMPLE_RUNS.glob("**/tick_summaries/ticks/*.json"))
    blobs = [p.read_bytes() for p in paths]
    slugs = [str(p.parent.parent.parent) for p in paths]
    assert len(blobs) > 1000 and len(set(slugs)) > 10
    with _ticks.collector_paused():
        frame, taken, left = _ticks._fast(blobs)
    assert left == [] and taken == list(range(len(blobs)))
    assert frame is not None
    assert_frame_equal(frame, _file_at_a_time(blobs))


#: Records whose every value the batch path builds itself (as EDGE_RECORDS in
#: test_one_parse.py): absent, null and empty objects, ints where floats go, an int tick
#: id, change parts of every kind it takes, unicode, colons in text, the format's other
#: fields (FORMATS.md) with values of any type.
RECORDS = [
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
    tick_v2(14, llm_tokens_by_stage={"observer": {"in": 1.5, "out": 0}}),
    tick_v1(15, tick_id=15, duration_ms=-(2**53) + 1, mutations={"list": [[-(2**63)]]}),
    tick_v2(
        16,
        projected_state={"mara": {"type": "agent", "properties": {"a": [1, {"b": None}]}}},
        long_running_action={"active": True, "turns_elapsed": 1.5, "interrupted": None},
        classified_actions=[{"verb": "v", "indirect_object": 3, "params": {"k": [True]}}],
    ),
    tick_v1(17, long_running_action=None, projected_state=None, classified_actions=None),
]


@pytest.mark.parametrize("ascii_only", [False, True])
def test_edge_records_are_taken_and_built_as_the_file_at_a_time_path_builds_them(
    ascii_only: bool,
) -> None:
    blobs = [json.dumps(r, ensure_ascii=ascii_only, indent=1).encode() for r in RECORDS]
    with _ticks.collector_paused():
        frame, taken, left = _ticks._fast(blobs)
    assert left == [] and taken == list(range(len(blobs)))
    assert frame is not None
    assert_frame_equal(frame, _file_at_a_time(blobs))


# ---------------------------------------------------------------------------
# Exactly the files that need the careful path take it
# ---------------------------------------------------------------------------

_GOOD = [tick_v1(1), tick_v2(2), tick_v1(3), tick_v2(4), tick_v1(5)]
BASE = json.dumps(tick_v1(3))[:-1]  # without the closing brace

#: One file's text that the batch path must leave to the file-at-a-time path.
CAREFUL = {
    "a repeated key at the top": BASE + ', "action_text": "again"}',
    "a repeated key deep in a field the frame never reads": BASE
    + ', "projected_state": {"m": {"properties": {"q": 1, "q": 1}}}}',
    "a field no struct declares": BASE + ', "diagnostics": {"k": 1}}',
    "a key the format's objects do not have": BASE.replace('"verb"', '"mood": 1, "verb"') + "}",
    "a flag that is text": BASE.replace('"refused": false', '"refused": "yes"') + "}",
    "a flag that is null": BASE.replace('"refused": false', '"refused": null') + "}",
    "a duration that is a bool": BASE.replace('"duration_ms": 1000', '"duration_ms": true') + "}",
    "a float in a change": BASE.replace('"list": [', '"list": [["a", "b", 1.5], ') + "}",
    "a count beyond 64 bits": BASE.replace('"count": 1', f'"count": {2**64}') + "}",
    "a duration beyond 2**53": BASE.replace("1000", str(2**53)) + "}",
    "an escaped colon": BASE + ', "a\\u003a": 1}',
    "a surrogate escape": BASE.replace('"Mara', '"\\ud83d\\udc4b Mara') + "}",
    "a number -0": BASE.replace('"count": 1', '"count": -0') + "}",
    "not JSON": BASE,
    "not UTF-8": BASE.replace("Mara", "Mar\xe9") + "}",
    "not an object": "[1, 2]",
}


@pytest.mark.parametrize("name", sorted(CAREFUL))
def test_one_file_that_needs_the_careful_path_is_the_only_one_that_takes_it(name: str) -> None:
    text = CAREFUL[name]
    blob = text.encode("latin-1") if name == "not UTF-8" else text.encode()
    blobs = _blobs(_GOOD)
    blobs[2] = blob
    assert _left(blobs) == [2]
    # ... and among more files, only that file
    assert _left(blobs + _blobs(_GOOD)) == [2]


def test_batches_split_anywhere_give_the_same_frame_and_leave_only_the_careful_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    blobs = _blobs(RECORDS)
    blobs[5] = CAREFUL["a repeated key at the top"].encode()
    whole = [b for i, b in enumerate(blobs) if i != 5]
    expected = _file_at_a_time(whole)
    for size in (1, 2, 3, 5, 7, len(blobs)):
        monkeypatch.setattr(_ticks, "BATCH_FILES", size)
        with _ticks.collector_paused():
            frame, taken, left = _ticks._fast(blobs)
        assert left == [5] and taken == [i for i in range(len(blobs)) if i != 5], size
        assert frame is not None
        assert_frame_equal(frame, expected)


def test_files_without_a_tick_id_are_never_sent_to_the_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tick number comes from the file name; the batch path takes such files whole
    (an absent id once became the text "None", which only the models then put right)."""
    run = write_run(tmp_path / "run", [tick_v2(n) for n in (1, 2, 3)])
    for path in (run / "tick_summaries" / "ticks").iterdir():
        record = json.loads(path.read_text())
        del record["tick_id"]
        path.write_text(json.dumps(record))
    checked: list[Any] = []
    real = _ticks.validate_tick
    monkeypatch.setattr(_ticks, "validate_tick", lambda p, d: checked.append(p) or real(p, d))
    u = load_universe(run)
    assert u.ticks["tick"].to_list() == [1, 2, 3] and u.ticks["tick"].null_count() == 0
    assert checked == []


def test_the_careful_texts_are_what_their_names_say() -> None:
    """The table above is not vacuous: the repeats repeat, the rest are valid JSON with no
    repeat (except the two that are not JSON or not UTF-8)."""
    for name, text in CAREFUL.items():
        if name in ("not JSON", "not UTF-8"):
            continue
        assert has_repeated_key(text) is ("repeated" in name), name
    with pytest.raises(ValueError):
        json.loads(CAREFUL["not JSON"])


@pytest.mark.parametrize("name", sorted(CAREFUL))
def test_a_run_with_one_careful_file_loads_as_the_file_at_a_time_path_loads_it(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = CAREFUL[name]
    run = write_run(tmp_path / "run", _GOOD)
    target = run / "tick_summaries" / "ticks" / "tick_3.json"
    target.write_bytes(text.encode("latin-1") if name == "not UTF-8" else text.encode())

    def load() -> Universe:
        return load_universe(run)

    fast = load()
    monkeypatch.setattr(_ticks, "BATCH_PATH", False)
    screened = load()
    monkeypatch.setattr(_ticks, "BULK_READ", False)
    per_file = load()
    for other in (screened, per_file):
        assert_frame_equal(fast.ticks, other.ticks)
        assert_frame_equal(fast.issues, other.issues)
        assert fast.warnings == other.warnings
    dupes = [w for w in fast.warnings if "duplicate key" in w]
    if "repeated" in name:  # one warning, naming exactly that file
        assert len(dupes) == 1 and str(target) in dupes[0]
    else:
        assert dupes == []


def test_a_repeated_key_in_one_file_of_a_fleet_warns_once_and_keeps_the_last_value(
    tmp_path: Path,
) -> None:
    for slug in ("a", "b", "c"):
        write_run(tmp_path / slug, _GOOD)
    target = tmp_path / "b" / "tick_summaries" / "ticks" / "tick_4.json"
    text = json.dumps(tick_v2(4))[:-1] + ', "actor_id": "tobin"}'
    target.write_text(text)
    fleet = load_universes(tmp_path / "*")
    dupes = [w for w in fleet.warnings if "duplicate key" in w]
    assert len(dupes) == 1 and str(target) in dupes[0] and "'actor_id'" in dupes[0]
    row = fleet.ticks.filter(slug="b", tick=4)
    assert row["actor"].to_list() == ["tobin"]
    assert fleet.ticks.filter(slug="a", tick=4)["actor"].to_list() == ["mara"]
    assert fleet.ticks.height == 15


def test_the_sample_fleet_loads_the_same_with_and_without_the_run_at_a_time_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fast = load_universes(SAMPLE_RUNS / "fleet" / "*")
    monkeypatch.setattr(_ticks, "BATCH_PATH", False)
    screened = load_universes(SAMPLE_RUNS / "fleet" / "*")
    assert fast.ticks.height > 900 and len(fast.slugs) > 10
    assert_frame_equal(fast.ticks, screened.ticks)
    assert_frame_equal(fast.issues, screened.issues)
    assert fast.warnings == screened.warnings


# ---------------------------------------------------------------------------
# No repeated key slips past the run's colon count
# ---------------------------------------------------------------------------

_KEYS = st.sampled_from(["verb", "q", "a:b", "type", "text", "é", ""])
_LEAVES = st.one_of(st.none(), st.integers(-5, 5), st.text(alphabet='a:" é', max_size=5))


def _objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    pairs = st.lists(st.tuples(_KEYS, children), max_size=3)
    return st.one_of(st.lists(children, max_size=3), pairs.map(lambda p: ("obj", p)))


def _text(value: Any) -> str:
    """JSON text where ``("obj", pairs)`` is an object written with its pairs as drawn."""
    if isinstance(value, tuple) and value[:1] == ("obj",):
        return "{" + ", ".join(f"{json.dumps(k)}: {_text(v)}" for k, v in value[1]) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


#: The fields the format names whose values may be anything (or any object's members).
_FREE = ["params", "indirect_object", "properties", "edges", "active"]


def _file(extra: list[tuple[str, Any]], n: int) -> str:
    """A v2 tick whose free-form fields hold the drawn values (pairs may repeat a key)."""
    record = tick_v2(n, projected_state={"m": {"type": "agent"}}, long_running_action={})
    text = json.dumps(record)
    for where, (key, value) in zip(_FREE * 3, extra, strict=False):
        inner = f"{json.dumps(key)}: {_text(value)}"
        if where in ("params", "indirect_object"):
            text = text.replace('"target": "well"', f'"target": "well", {inner}', 1)
        elif where in ("properties", "edges"):
            text = text.replace('"type": "agent"', f'"type": "agent", {inner}', 1)
        else:
            text = text.replace('"long_running_action": {', '"long_running_action": {' + inner, 1)
    return text


@settings(max_examples=200, deadline=None)
@given(
    files=st.lists(
        st.lists(st.tuples(_KEYS, st.recursive(_LEAVES, _objects, max_leaves=8)), max_size=4),
        min_size=1,
        max_size=4,
    )
)
def test_no_file_with_a_repeated_key_is_taken(files: list[list[tuple[str, Any]]]) -> None:
    texts = [_file(extra, i + 1) for i, extra in enumerate(files)]
    left = set(_left([t.encode() for t in texts]))
    for i, text in enumerate(texts):
        if has_repeated_key(text):
            assert i in left, text


# ---------------------------------------------------------------------------
# The collector is paused only while a chunk is decoded
# ---------------------------------------------------------------------------


def test_the_collector_is_back_as_it_was_after_a_load_even_a_failing_one() -> None:
    assert gc.isenabled()
    with _ticks.collector_paused():
        assert not gc.isenabled()
        with _ticks.collector_paused():  # nested (another thread's load)
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), _ticks.collector_paused():
        raise RuntimeError
    assert gc.isenabled()
    gc.disable()
    try:
        with _ticks.collector_paused():
            pass
        assert not gc.isenabled()  # it was off: it stays off
    finally:
        gc.enable()


def test_threads_loading_at_once_leave_the_collector_on(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [tick_v1(i) for i in range(1, 40)])
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(5):
                assert load_universe(run).ticks.height == 39
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    assert gc.isenabled()


# ---------------------------------------------------------------------------
# The reading edge: many files in one loop, with the one-file reader's answers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [2**30, 65_536, 65_535, 10])
def test_reading_many_files_gives_each_file_what_reading_it_alone_gives(
    tmp_path: Path, limit: int
) -> None:
    from toolkit.errors import InputError
    from toolkit.io import edge

    paths = []
    for size in (0, 1, 65_535, 65_536, 65_537, 3 * 2**20 + 5):
        path = tmp_path / f"tick_{size}.json"
        path.write_bytes(bytes(range(256)) * (size // 256) + b"x" * (size % 256))
        paths.append(str(path))
    paths.append(str(tmp_path / "missing.json"))
    (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
    paths.append(str(tmp_path / "loop.json"))
    many = edge.read_many_fast(paths, limit)
    alone = [edge.read_bytes_fast(p, limit) for p in paths]
    assert len(many) == len(paths)
    for got, want, path in zip(many, alone, paths, strict=True):
        if isinstance(want, InputError):
            assert isinstance(got, InputError) and str(got) == str(want), path
        else:
            assert got == want == Path(path).read_bytes(), path
    assert sum(isinstance(g, InputError) for g in many) == 2 + sum(
        Path(p).stat().st_size > limit for p in paths[:-2]
    )


def test_reading_many_files_within_a_budget_stops_after_the_file_that_reaches_it(
    tmp_path: Path,
) -> None:
    from toolkit.io import edge

    paths = []
    for i, size in enumerate((100, 300, 50, 1_000)):
        path = tmp_path / f"tick_{i}.json"
        path.write_bytes(b"a" * size)
        paths.append(str(path))
    assert [len(b) for b in edge.read_many_fast(paths, 2**20, 400)] == [100, 300]
    assert [len(b) for b in edge.read_many_fast(paths, 2**20, 401)] == [100, 300, 50]
    assert [len(b) for b in edge.read_many_fast(paths, 2**20, 1)] == [100]  # one at least
    assert [len(b) for b in edge.read_many_fast(paths, 2**20, 0)] == [100]
    assert len(edge.read_many_fast(paths, 2**20)) == 4  # no budget: every file
    # a file that cannot be read counts nothing, and reading goes on past it
    missing = [str(tmp_path / "missing.json"), *paths]
    got = edge.read_many_fast(missing, 2**20, 350)
    assert len(got) == 3 and isinstance(got[0], Exception)
