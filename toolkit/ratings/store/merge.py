"""Merging imported rating events into a store by their unique ids, in the order of
submission the store records (``seq``), never by the clocks' stamps.

Which rating counts is the latest a store recorded for that rater and game (or item),
which reviewer label counts the latest for that game, kind and item: the highest
``seq``. A save takes the next ``seq`` after every rating the store holds, so
a rater's new submit always counts, whatever stamps a backup from another machine
carried in. An imported event the store does not hold (by ``uid``) is placed:

- on top (it counts) when the store holds no rating of that rater and game yet, or when
  the rating that counts here is in the backup too and the imported one came after it
  there (the backup saw more of the same history);
- below the store's own ratings of that rater and game otherwise (the store recorded
  something the backup never saw: what counts here stays), kept in the history.

An event of another session (``origin`` not empty) is kept for the record and never
counts (:mod:`toolkit.ratings.store.ratings` reads ``origin = ''`` only).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolkit.errors import InputError


@dataclass(frozen=True)
class Step:
    """One step of an import: ``sql`` run over ``rows``, or (``table`` given) events of
    ``table`` merged by :func:`merge_events`, each row ``(order, origin, values)`` with
    ``values`` in the order of ``columns`` (``uid`` first)."""

    sql: str
    rows: list[Any]
    table: str = ""
    columns: tuple[str, ...] = field(default=())
    #: The columns that name what an event rates (its rater and game or item; a label's
    #: game, kind and item): the latest event of each counts.
    key: tuple[str, ...] = field(default=())
    #: Whether the table records an event's ``origin`` (rating events do, labels not).
    with_origin: bool = True
    #: Whether each row of ``sql`` ends with its ``origin`` ("" for the backup's own
    #: session's, which an import of another session's backup records as that one's).
    origin_last: bool = False


def order_of(name: str, rec: Mapping[str, Any], index: int, line: int | None) -> int:
    """An exported event's place in its own store's order of submission: its ``seq``,
    else its ``event_id`` (an export from before ``seq``), else its row's position."""
    for key in ("seq", "event_id"):
        value = rec.get(key)
        if value is None or value == "":
            continue
        try:
            return int(str(value))
        except ValueError:
            raise InputError(name, "must be a whole number", field=key, value=value,
                             line=line) from None  # fmt: skip
    return index


def merge_events(con: sqlite3.Connection, step: Step, origin: str = "") -> None:
    """Insert the events of ``step`` the store does not hold (by ``uid``), each with the
    ``seq`` the module's rules give it; ``origin`` given, the events of the backup's own
    session are recorded as that session's (never counted here). Runs inside the
    caller's transaction."""
    table = step.table
    keys = ", ".join(step.key)
    at = [step.columns.index(k) for k in step.key]
    own = "WHERE origin = ''" if step.with_origin else ""
    held = {str(r[0]) for r in con.execute(f"SELECT uid FROM {table}")}
    top_seq = int(con.execute(f"SELECT coalesce(max(seq), 0) FROM {table}").fetchone()[0])
    counting: dict[tuple[Any, ...], str] = {}
    lowest: dict[tuple[Any, ...], int] = {}
    for *named, uid, low in con.execute(
        f"SELECT {keys}, uid, low FROM (SELECT {keys}, uid, min(seq) OVER w AS low, "
        f"row_number() OVER (w ORDER BY seq DESC, event_id DESC) AS rank FROM {table} "
        f"{own} WINDOW w AS (PARTITION BY {keys})) WHERE rank = 1"
    ):
        counting[tuple(named)] = uid
        lowest[tuple(named)] = int(low)
    ordered = sorted(step.rows, key=lambda r: r[0])
    in_backup: dict[tuple[Any, ...], list[str]] = {}
    for _order, was, values in ordered:
        if not was:
            in_backup.setdefault(tuple(values[i] for i in at), []).append(values[0])
    on_top: list[tuple[Any, ...]] = []
    below: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
    for _order, was, values in ordered:
        uid = values[0]
        if uid in held:
            continue
        held.add(uid)
        mine = tuple(values[i] for i in at)
        shown_origin = was or origin
        if shown_origin or mine not in counting:
            on_top.append((*values, shown_origin))
            continue
        uids = in_backup.get(mine, [])
        there = counting[mine]
        if there in uids and uids.index(uid) > uids.index(there):
            on_top.append((*values, ""))
        else:
            below.setdefault(mine, []).append((*values, ""))
    rows = [(*v, top_seq + i + 1) for i, v in enumerate(on_top)]
    for mine, kept in below.items():
        start = lowest[mine] - len(kept)
        rows.extend((*v, start + i) for i, v in enumerate(kept))
    if not step.with_origin:  # the table has no origin column: drop it again
        rows = [(*r[:-2], r[-1]) for r in rows]
    names = (*step.columns, "origin", "seq") if step.with_origin else (*step.columns, "seq")
    cols = ", ".join(names)
    marks = ", ".join("?" for _ in names)
    con.executemany(f"INSERT INTO {table} ({cols}) VALUES ({marks})", rows)
