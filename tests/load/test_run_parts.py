"""Each run's parts beside its tick files (issue 25): the snapshots in ``universe.db``.

:func:`toolkit.load.universe._checkpoints` lets SQLite vouch for the common database
(every ``tick_id``, ``node_count`` and ``edge_count`` an integer, none negative) and then
builds the frame without looking at each cell in Python; any other row sends the whole
database the careful way, row by row. Here: the two ways give the same frame. The careful
way is reached by adding one row it must skip (a negative ``tick_id``), so the expected
frame never comes from the fast way itself.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from toolkit.load.universe import _checkpoints

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
