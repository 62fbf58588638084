"""Whole graphs from ``universe.db`` ``graph_snapshots``, and what changed between two.

token-world stores each snapshot's graph as networkx node-link JSON (``nodes: [{id,
...}]``, edges under ``edges`` or, in older networkx, ``links``, as ``{source,
target}``). A mapping of nodes and a list of ``[source, target]`` pairs are read too.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.errors import InputError
from toolkit.load import _edge
from toolkit.load._ticks import tick_number


@dataclass(frozen=True)
class GraphSnapshot:
    """The node ids and directed edges of one snapshot (taken before tick ``tick``)."""

    tick: int
    nodes: frozenset[str]
    edges: frozenset[tuple[str, str]]


@dataclass(frozen=True)
class GraphChange:
    """Nodes and edges added and removed from snapshot ``before`` to snapshot ``after``."""

    before: GraphSnapshot
    after: GraphSnapshot

    @property
    def nodes_added(self) -> list[str]:
        return sorted(self.after.nodes - self.before.nodes)

    @property
    def nodes_removed(self) -> list[str]:
        return sorted(self.before.nodes - self.after.nodes)

    @property
    def edges_added(self) -> list[str]:
        return [f"{a}->{b}" for a, b in sorted(self.after.edges - self.before.edges)]

    @property
    def edges_removed(self) -> list[str]:
        return [f"{a}->{b}" for a, b in sorted(self.before.edges - self.after.edges)]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: both ticks and the four lists."""
        return {
            "from_tick": self.before.tick,
            "to_tick": self.after.tick,
            "nodes_added": self.nodes_added,
            "nodes_removed": self.nodes_removed,
            "edges_added": self.edges_added,
            "edges_removed": self.edges_removed,
        }


def _graph(db: Path, tick: int, text: str) -> GraphSnapshot:
    field = f"graph_snapshots[tick_id={tick}].graph_json"
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        raise InputError(db, "not valid JSON", field=field, value=text) from None
    if not isinstance(data, dict):
        raise InputError(db, "a graph must be a JSON object", field=field, value=data)
    raw_nodes: Any = data.get("nodes") or []
    raw_edges: Any = data.get("edges", data.get("links")) or []
    try:
        if isinstance(raw_nodes, dict):
            nodes = frozenset(str(k) for k in raw_nodes)
        else:
            nodes = frozenset(str(n["id"]) for n in raw_nodes)
        edges = frozenset(
            (str(e["source"]), str(e["target"])) if isinstance(e, dict) else (str(e[0]), str(e[1]))
            for e in raw_edges
        )
    except (KeyError, IndexError, TypeError):
        raise InputError(
            db, "nodes need an id and edges a source and a target", field=field, value=text
        ) from None
    return GraphSnapshot(tick=tick, nodes=nodes, edges=edges)


def snapshot_ticks(db: Path) -> list[int]:
    """The tick of every snapshot in ``db``, ascending (text ids read leniently)."""
    rows = _query(db, "SELECT tick_id FROM graph_snapshots")
    return sorted(t for (raw,) in rows if (t := tick_number(str(raw))) is not None)


def read_snapshots(db: Path, ticks: Sequence[int]) -> dict[int, GraphSnapshot]:
    """The graphs of the snapshots taken at ``ticks``.

    Raises:
        InputError: an unreadable database, a missing snapshot, or a graph that is not
            node-link JSON; naming the file, the row and the value.
    """
    wanted = set(ticks)
    found: dict[int, GraphSnapshot] = {}
    for raw, text in _query(db, "SELECT tick_id, graph_json FROM graph_snapshots"):
        tick = tick_number(str(raw))
        if tick in wanted and tick is not None:
            found[tick] = _graph(db, tick, text)
    missing = sorted(wanted - set(found))
    if missing:
        raise InputError(db, "no such snapshot", field="graph_snapshots.tick_id", value=missing[0])
    return found


def _query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    try:
        conn = _edge.sqlite_readonly(db)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise InputError(db, f"unreadable database ({exc})") from None
