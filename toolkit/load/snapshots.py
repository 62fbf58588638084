"""Whole graphs from ``universe.db`` ``graph_snapshots``, and what changed between two.

token-world stores each snapshot's graph as networkx node-link JSON (``nodes: [{id,
properties: {...}, ...}]``, edges under ``edges`` or, in older networkx, ``links``, as
``{source, target}``). A mapping of nodes and a list of ``[source, target]`` pairs are
read too.

A :class:`GraphChange` compares two whole graphs, so it is the *net* change over the span,
as token-world's ``diff`` reports it: an edge (or node) added and removed again between
the two snapshots is in neither list. Edges removed because one of their nodes was removed
are named apart, and node properties that differ are listed with both values.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.load._ticks import tick_number


@dataclass(frozen=True)
class GraphSnapshot:
    """The node ids and directed edges of one snapshot (taken before tick ``tick``)."""

    tick: int
    nodes: frozenset[str]
    edges: frozenset[tuple[str, str]]
    #: each node's properties (its ``properties`` object, else its other fields)
    props: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, hash=False, compare=False)


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
        """Every edge gone, including those that vanished with a removed node."""
        return [f"{a}->{b}" for a, b in sorted(self.before.edges - self.after.edges)]

    @property
    def edges_removed_with_nodes(self) -> list[str]:
        """The removed edges that vanished with a removed node (an end of theirs is gone)."""
        gone = set(self.nodes_removed)
        return [
            f"{a}->{b}"
            for a, b in sorted(self.before.edges - self.after.edges)
            if a in gone or b in gone
        ]

    @property
    def property_changes(self) -> list[PropertyChange]:
        """Properties of nodes present in both snapshots whose value differs (a property
        that appears or disappears has ``None`` on that side), by node and property."""
        out: list[PropertyChange] = []
        for node in sorted(self.before.nodes & self.after.nodes):
            old, new = self.before.props.get(node, {}), self.after.props.get(node, {})
            for key in sorted(set(old) | set(new), key=str):
                if old.get(key) != new.get(key):
                    out.append(PropertyChange(node, str(key), old.get(key), new.get(key)))
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: both ticks, the node and edge lists and the property changes."""
        return {
            "from_tick": self.before.tick,
            "to_tick": self.after.tick,
            "nodes_added": self.nodes_added,
            "nodes_removed": self.nodes_removed,
            "edges_added": self.edges_added,
            "edges_removed": self.edges_removed,
            "edges_removed_with_nodes": self.edges_removed_with_nodes,
            "property_changes": [c.to_dict() for c in self.property_changes],
        }


@dataclass(frozen=True)
class PropertyChange:
    """One node property whose value differs between two snapshots."""

    node: str
    property: str
    old: Any
    new: Any

    def __str__(self) -> str:
        return f"{self.node}.{self.property}: {self.old!r} -> {self.new!r}"

    def to_dict(self) -> dict[str, Any]:
        return {"node": self.node, "property": self.property, "old": self.old, "new": self.new}


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
            props = {str(k): _props(v) for k, v in raw_nodes.items()}
        else:
            nodes = frozenset(str(n["id"]) for n in raw_nodes)
            props = {str(n["id"]): _props(n) for n in raw_nodes}
        edges = frozenset(
            (str(e["source"]), str(e["target"])) if isinstance(e, dict) else (str(e[0]), str(e[1]))
            for e in raw_edges
        )
    except (KeyError, IndexError, TypeError):
        raise InputError(
            db, "nodes need an id and edges a source and a target", field=field, value=text
        ) from None
    return GraphSnapshot(tick=tick, nodes=nodes, edges=edges, props=props)


def _props(node: Any) -> dict[str, Any]:
    """A node's properties: its ``properties`` object, else its fields other than id."""
    if not isinstance(node, dict):
        return {}
    inner = node.get("properties")
    if isinstance(inner, dict):
        return dict(inner)
    return {str(k): v for k, v in node.items() if k != "id"}


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
        conn = edge.sqlite_readonly(db)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise InputError(db, f"unreadable database ({exc})") from None
