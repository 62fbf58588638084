"""Whole snapshot graphs from universe.db, in the shapes networkx and older files use."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.load.snapshots import GraphChange, read_snapshots, snapshot_ticks


def db_with(tmp_path: Path, rows: list[tuple[object, str]]) -> Path:
    db = tmp_path / "universe.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE graph_snapshots (tick_id, graph_json)")
        conn.executemany("INSERT INTO graph_snapshots VALUES (?, ?)", rows)
    conn.close()
    return db


def test_node_link_with_edges_or_links_and_older_shapes_are_read(tmp_path: Path) -> None:
    edges = json.dumps(
        {"nodes": [{"id": "a"}, {"id": "b"}], "edges": [{"source": "a", "target": "b"}]}
    )
    links = json.dumps({"nodes": [{"id": "a"}], "links": [{"source": "a", "target": "a"}]})
    mapping = json.dumps({"nodes": {"a": {}, "c": {}}, "edges": [["c", "a"]]})
    db = db_with(tmp_path, [(1, edges), ("tick_2", links), ("3", mapping)])
    assert snapshot_ticks(db) == [1, 2, 3]
    graphs = read_snapshots(db, [1, 2, 3])
    assert graphs[1].nodes == {"a", "b"} and graphs[1].edges == {("a", "b")}
    assert graphs[2].edges == {("a", "a")}
    assert graphs[3].nodes == {"a", "c"} and graphs[3].edges == {("c", "a")}
    change = GraphChange(graphs[1], graphs[3])
    assert (change.nodes_added, change.nodes_removed) == (["c"], ["b"])
    assert (change.edges_added, change.edges_removed) == (["c->a"], ["a->b"])


@pytest.mark.parametrize(
    ("graph", "reason"),
    [
        ("[1, 2]", "a graph must be a JSON object"),
        ('{"nodes": [{"name": "a"}]}', "nodes need an id"),
        ('{"nodes": [], "edges": [{"source": "a"}]}', "edges a source and a target"),
    ],
)
def test_a_graph_that_is_not_node_link_names_the_row(
    tmp_path: Path, graph: str, reason: str
) -> None:
    db = db_with(tmp_path, [(7, graph)])
    with pytest.raises(InputError) as err:
        read_snapshots(db, [7])
    assert str(err.value).startswith(f"{db}: graph_snapshots[tick_id=7].graph_json=")
    assert reason in str(err.value)


def test_missing_snapshot_and_broken_database_are_input_errors(tmp_path: Path) -> None:
    db = db_with(tmp_path, [(1, "{}")])
    with pytest.raises(InputError, match=r"graph_snapshots.tick_id=9: no such snapshot"):
        read_snapshots(db, [9])
    bad = tmp_path / "bad.db"
    bad.write_text("not sqlite")
    with pytest.raises(InputError, match="unreadable database"):
        snapshot_ticks(bad)
