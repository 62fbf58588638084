"""Each run's parts beside its tick files (issue 25): the snapshots in ``universe.db``,
and the listing of its tick folder.

:func:`toolkit.load._run_parts._checkpoints` lets SQLite vouch for the common database
(every ``tick_id``, ``node_count`` and ``edge_count`` an integer, none negative) and then
builds the frame without looking at each cell in Python; any other row sends the whole
database the careful way, row by row. Here: the two ways give the same frame. The careful
way is reached by adding one row it must skip (a negative ``tick_id``), so the expected
frame never comes from the fast way itself.
"""

from __future__ import annotations

import platform
import sqlite3
import warnings
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from toolkit.errors import SkippedInputWarning
from toolkit.load import _run_build, universe
from toolkit.load._run_listing import TickPaths, list_run
from toolkit.load._run_parts import _checkpoints

_COUNT = st.integers(min_value=0, max_value=2**63 - 1)
#: Cells SQLite may hold in an untyped column: integers of both signs, reals, text ids.
_CELL = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["42", "tick_7", "soon", ""]),
)


def _db(path: Path, rows: list[tuple[object, object, object]]) -> Path:
    with sqlite3.connect(path) as conn:  # untyped columns: a cell keeps what was written
        conn.execute("CREATE TABLE graph_snapshots (tick_id, graph_json, node_count, edge_count)")
        conn.executemany("INSERT INTO graph_snapshots VALUES (?, '{}', ?, ?)", rows)
    conn.close()
    return path


def _both_ways(tmp: Path, rows: list[tuple[object, object, object]]) -> None:
    frame, issues, warnings = _checkpoints("run", _db(tmp / "a.db", rows))
    careful, careful_issues, careful_warnings = _checkpoints(
        "run", _db(tmp / "b.db", [*rows, (-1, 1, 1)])
    )
    assert_frame_equal(frame, careful)
    assert [i["reason"].split(": ", 1)[1] for i in issues] == [
        i["reason"].split(": ", 1)[1] for i in careful_issues[: len(issues)]
    ]
    assert len(careful_issues) == len(issues) + 1
    assert "tick_id=-1 is not a tick number" in careful_issues[-1]["reason"]
    assert [w.split(": ", 2)[2] for w in warnings] == [
        w.split(": ", 2)[2] for w in careful_warnings
    ]


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(min_value=0, max_value=30), _COUNT, _COUNT), max_size=40)
)
def test_vouched_snapshots_give_the_careful_frame(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[object, object, object]]
) -> None:
    """Whole, non-negative cells in any order, ticks repeated (the sort must be stable):
    the frame SQLite vouched for is the frame the row-by-row way builds."""
    _both_ways(tmp_path_factory.mktemp("db"), rows)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(_CELL, _CELL, _CELL), max_size=12))
def test_any_cells_give_the_careful_frame(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[object, object, object]]
) -> None:
    """Whatever the cells hold, a database takes the fast way only when every row is one
    the careful way keeps unchanged."""
    _both_ways(tmp_path_factory.mktemp("db"), rows)


def test_a_vouched_database_sorts_by_tick_keeping_row_order_for_ties(tmp_path: Path) -> None:
    rows: list[tuple[object, object, object]] = [(20, 5, 9), (10, 4, 6), (20, 1, 1), (0, 0, 0)]
    frame, issues, warnings = _checkpoints("run", _db(tmp_path / "u.db", rows))
    assert frame.select("tick", "node_count", "edge_count").rows() == [
        (0, 0, 0),
        (10, 4, 6),
        (20, 5, 9),
        (20, 1, 1),
    ]
    assert frame["slug"].to_list() == ["run"] * 4
    assert (issues, warnings) == ([], [])


def test_a_count_written_as_text_is_read_as_its_number(tmp_path: Path) -> None:
    """A count the careful way accepts as a whole number ("42") is stored as that number;
    it used to be stored as the cell's bytes, and building the frame failed."""
    rows: list[tuple[object, object, object]] = [(1, "42", 3), (2, 5, "7")]
    frame, issues, _ = _checkpoints("run", _db(tmp_path / "u.db", rows))
    assert frame.select("tick", "node_count", "edge_count").rows() == [(1, 42, 3), (2, 5, 7)]
    assert issues == []


# ---------------------------------------------------------------------------
# Listing a run's tick folder
# ---------------------------------------------------------------------------

#: Tick folder entries: plain tick files, numbers written with leading zeros or repeated,
#: beyond 64 bits, Unicode digits, other files, a folder or a symlink named like a tick
#: file, a newline in a name.
_ENTRY = st.one_of(
    st.integers(min_value=0, max_value=400).map(lambda n: f"tick_{n}.json"),
    st.integers(min_value=0, max_value=40).map(lambda n: f"tick_0{n}.json"),
    st.sampled_from(
        [
            f"tick_{2**63}.json",
            f"tick_{2**63 - 1}.json",
            f"tick_{10**17}.json",
            f"tick_{10**18}.json",
            "tick_0.json",
            "tick_\u0663.json",
            "tick_.json",
            "tick_1.json.bak",
            "notes.txt",
            "tick_2.json\n",
            "dir:tick_5.json",
            "link:tick_6.json",
        ]
    ),
)


def _tick_folder(root: Path, names: list[str]) -> Path:
    ticks = root / "tick_summaries" / "ticks"
    ticks.mkdir(parents=True)
    for name in names:
        if name.startswith("dir:"):
            (ticks / name[4:]).mkdir()
        elif name.startswith("link:"):  # a symlink to a file inside the run
            (root / "target.json").write_text("{}")
            (ticks / name[5:]).symlink_to(root / "target.json")
        else:
            (ticks / name).write_text("{}")
    return root


def _entry_name(name: str) -> str:
    """The file name an entry makes: ``dir:tick_5.json`` and ``tick_5.json`` are one name,
    so a drawn list holds at most one of them."""
    return name.split(":", 1)[1] if name.startswith(("dir:", "link:")) else name


_PLAIN = st.integers(min_value=0, max_value=10**6).map(lambda n: f"tick_{n}.json")


@settings(max_examples=80, deadline=None)
@given(
    names=st.one_of(
        st.lists(_PLAIN, unique=True), st.lists(_ENTRY, unique_by=_entry_name, max_size=25)
    )
)
def test_a_tick_folder_lists_the_same_as_entry_by_entry(
    tmp_path_factory: pytest.TempPathFactory, names: list[str]
) -> None:
    """Without ``stat``, a plain folder is listed by a few C calls over all names; the
    listing (files, order, skipped entries) is the one the entry-by-entry loop gives, which
    a listing with ``stat`` always takes."""
    root = _tick_folder(tmp_path_factory.mktemp("run") / "r", names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedInputWarning)
        quick, careful = list_run(root, stat=False), list_run(root, stat=True)
    assert quick.ticks == careful.ticks
    assert quick.skipped == careful.skipped


def test_a_plain_tick_folder_is_sorted_by_number(tmp_path: Path) -> None:
    root = _tick_folder(tmp_path / "r", ["tick_10.json", "tick_9.json", "tick_100.json"])
    ticks = root / "tick_summaries" / "ticks"
    assert list_run(root, stat=False).ticks == tuple(
        str(ticks / f"tick_{n}.json") for n in (9, 10, 100)
    )


def test_a_repeated_tick_number_lists_both_files_by_path(tmp_path: Path) -> None:
    root = _tick_folder(tmp_path / "r", ["tick_1.json", "tick_01.json", "tick_001.json"])
    ticks = root / "tick_summaries" / "ticks"
    assert list_run(root, stat=False).ticks == tuple(
        str(ticks / name) for name in ("tick_001.json", "tick_01.json", "tick_1.json")
    )


def test_a_plain_listing_holds_no_string_per_path(tmp_path: Path) -> None:
    """A fleet's listing is held all load long: a plain folder's paths are kept as the
    folder and the names joined (built again when read), and read back the same."""
    root = _tick_folder(tmp_path / "r", [f"tick_{n}.json" for n in range(1, 51)])
    ticks = list_run(root, stat=False).ticks
    assert isinstance(ticks, TickPaths)
    assert len(ticks) == 50
    folder = root / "tick_summaries" / "ticks"
    expected = [str(folder / f"tick_{n}.json") for n in range(1, 51)]
    assert list(ticks) == expected and ticks[0] == expected[0] and ticks[-2:] == expected[-2:]
    assert ticks == tuple(expected) and tuple(expected) == ticks and ticks != expected[:-1]


# ---------------------------------------------------------------------------
# Memory: the C heap's free pages after a fleet load
# ---------------------------------------------------------------------------


def _rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc" or not Path("/proc/self/status").exists(),
    reason="malloc_trim is glibc's; RSS is read from /proc",
)
def test_freed_heap_pages_go_back_to_the_system() -> None:
    """Bytes freed under a block still in use stay in the process until trimmed."""
    blobs = [bytes(2048) + bytes([i % 256]) for i in range(40_000)]  # ~80 MiB, C heap
    keep = blobs[-1]  # allocated last: the heap's top stays in use
    del blobs
    before = _rss_kib()
    _run_build._release_freed_heap()
    assert before - _rss_kib() > 40 * 1024
    assert keep


def test_a_fleet_sized_load_releases_the_freed_heap_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[None] = []
    monkeypatch.setattr(_run_build, "_release_freed_heap", lambda: calls.append(None))
    monkeypatch.setattr(_run_build, "CHUNK_FILES", 10)
    fleet = universe.load_universes(SAMPLE_RUNS / "fleet" / "*")
    assert fleet.ticks.height >= 10 and len(calls) == 1
    monkeypatch.setattr(_run_build, "CHUNK_FILES", 10**9)  # a small load: not worth a trim
    universe.load_universes(SAMPLE_RUNS / "fleet" / "*")
    assert len(calls) == 1


def test_without_malloc_trim_the_release_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    def no_library(name: object) -> object:
        raise OSError("no C library here")

    monkeypatch.setattr(ctypes, "CDLL", no_library)
    _run_build._release_freed_heap()  # no error, nothing to do
