"""The parts of a run besides its tick files: its name (``universe.yaml``), what it
conserves (``conservation.yaml``), its compressed records (``batch_<n>.json``,
``epoch_<n>.json``) and its graph checkpoints (``universe.db``), from bytes fetched
through the run's :class:`~toolkit.io.source.Source`."""

from __future__ import annotations

import json
import operator
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import (
    BATCHES_SCHEMA,
    CHECKPOINTS_SCHEMA,
    LOAD_ISSUES_SCHEMA,
    TICKS_SCHEMA,
)
from toolkit.io import edge
from toolkit.io.yaml_plain import OUTSIDE, plain_yaml
from toolkit.load._common import parse_json_bytes, validation_problem
from toolkit.load._run_files import BATCH_FIELDS, plain_record
from toolkit.load._run_listing import MAX_NUMBER, Listing
from toolkit.load._run_result import Universe, frame, issue_row
from toolkit.load._ticks import tick_number

__all__ = ["fetch_parts", "run_parts"]

Blobs = Mapping[str, bytes | InputError]


def _batch_fields(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """A compressed record's fields: checked plainly when every one has the JSON type the
    model keeps (every record token-world writes), else by the pydantic model."""
    fields = plain_record(data)
    if fields is not None:
        return fields
    # the run's file models (~13 ms of CPU, and pydantic): only for a record the plain
    # check cannot vouch for, so that a refusal names the file, the field and the value
    from pydantic import ValidationError

    from toolkit.load._run_models import CompressedRecord

    try:
        rec = CompressedRecord.model_validate(data)
    except ValidationError as exc:
        raise validation_problem(path, exc) from exc
    return {name: getattr(rec, name) for name in BATCH_FIELDS}


def _batch_row(slug: str, path: Path, data: Any, kind: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InputError(path, "a batch record must be a JSON object", field="(top level)")
    rec = _batch_fields(path, data)
    count, first, last = rec["tick_count"], rec["first_tick"], rec["last_tick"]
    if count is None and first is not None and last is not None:
        count = last - first + 1
    return {
        "slug": slug,
        "kind": rec["kind"] or kind,
        "batch_id": None if rec["batch_id"] is None else str(rec["batch_id"]),
        "first_tick": first,
        "last_tick": last,
        "tick_count": count,
        "total_mutations": rec["total_mutations"],
        "agent_id": rec["agent_id"],
        "mechanic_ids_used": rec["mechanic_ids_used"],
        "key_events": [e if isinstance(e, str) else json.dumps(e) for e in rec["key_events"]],
        "source_file": str(path),
    }


#: The snapshots' counts, and the type SQLite gives each tick id (a text id is read as a
#: tick number, with a warning).
_SNAPSHOTS = "SELECT tick_id, typeof(tick_id), node_count, edge_count FROM graph_snapshots"
_by_tick = operator.itemgetter(0)


def _plain(rows: list[tuple[Any, ...]]) -> bool:
    """Whether every cell of the rows is a non-negative integer (an SQLite integer is a
    Python ``int``; text and blobs are ``bytes`` here, reals ``float``, nulls ``None``):
    exactly the rows :func:`_cell_number` takes as they are. Checked in Python: the same
    check in the query cost SQLite about 1 µs a row."""
    return all(
        type(t) is int and t >= 0 and type(n) is int and n >= 0 and type(e) is int and e >= 0
        for t, _, n, e in rows
    )


def _checkpoints(
    slug: str, db: Path, blob: bytes | None = None
) -> tuple[pl.DataFrame, list[dict[str, Any]], list[str]]:
    """The graph snapshots' counts, an issue per snapshot row that cannot be used (a tick
    id that is no tick number, a count that is no whole number; SQLite cells hold whatever
    a writer put there), and a warning for each leniency applied.

    token-world declares ``tick_id INTEGER``; older or hand-made files hold text ids
    (``"42"``, ``"tick_42"``), which are read as tick numbers, with a warning. ``blob`` is
    the database's bytes when it was fetched from object storage: the same query runs
    over an in-memory copy."""
    if blob is None:
        conn = edge.sqlite_readonly(db)
    else:
        conn = sqlite3.connect(":memory:")
        conn.deserialize(blob)
    conn.text_factory = bytes
    try:
        rows = conn.execute(_SNAPSHOTS).fetchall()
    finally:
        conn.close()
    if _plain(rows):  # every cell a whole number: no row to look at
        rows.sort(key=_by_tick)  # stable, as the careful path's sort below
        fast = [{"slug": slug, "tick": t, "node_count": n, "edge_count": e} for t, _, n, e in rows]
        return frame(fast, CHECKPOINTS_SCHEMA), [], []
    parsed: list[dict[str, Any]] = []
    issues: list[dict[str, Any]] = []
    for index, (t, _, n, e) in enumerate(rows, start=1):
        tick, nodes, edges = _cell_number(t), _cell_number(n), _cell_number(e)
        problem = None
        if tick is None:
            problem = f"tick_id={edge.shown(t)} is not a tick number"
        elif nodes is None:
            problem = f"node_count={edge.shown(n)} is not a whole number"
        elif edges is None:
            problem = f"edge_count={edge.shown(e)} is not a whole number"
        if problem is not None:
            reason = f"{db}: graph_snapshots row {index}: {problem}; the snapshot was skipped"
            issues.append({"path": str(db), "line": None, "reason": reason})
            continue
        # the numbers read, not the cells: a count written as text ("42") is 42
        parsed.append({"slug": slug, "tick": tick, "node_count": nodes, "edge_count": edges})
    warnings: list[str] = []
    texts = [t for t, kind, *_ in rows if kind in ("text", b"text")]
    if texts:
        first = texts[0].decode("utf-8", "replace") if isinstance(texts[0], bytes) else texts[0]
        warnings.append(
            f"{slug}: {db}: graph_snapshots.tick_id holds text in {len(texts)} rows"
            f" (e.g. {first!r}), read as tick numbers; token-world writes INTEGER"
        )
    parsed.sort(key=lambda row: row["tick"])  # in Python: a Polars sort costs ~0.5 ms a run
    return frame(parsed, CHECKPOINTS_SCHEMA), issues, warnings


def _cell_number(value: Any) -> int | None:
    """A non-negative whole number that fits 64 bits, from an SQLite cell (integer, or
    the text of a tick id such as ``"42"`` / ``"tick_42"``); else ``None``."""
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if isinstance(value, str):
        value = tick_number(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value <= MAX_NUMBER else None


def fetch_parts(listings: Sequence[Listing]) -> dict[str, bytes | InputError]:
    """The bytes of the runs' files other than tick files, held to the size limit: one
    batched request per source (a database the source has on disk is opened in place
    by SQLite instead)."""
    out: dict[str, bytes | InputError] = {}
    by_source: dict[Any, list[str]] = {}
    for listing in listings:
        names = [str(p) for _, p in listing.compressed] + [
            str(p) for p in listing.extras if p.name != "universe.db" or listing.source.disk is None
        ]
        by_source.setdefault(listing.source, []).extend(names)
    for source, names in by_source.items():
        out.update(source.fetch(names))
    return out


def _fetched(path: Path, blobs: Blobs) -> bytes:
    """A fetched file's bytes (held to the size limit by the source's ``fetch``)."""
    blob = blobs.get(str(path), InputError(path, "cannot read file (not fetched)"))
    if isinstance(blob, InputError):
        raise blob
    return blob


def _read_yaml(path: Path, blobs: Blobs) -> Any:
    """A run's YAML file through the reading edge (decoding and YAML checks); a plain
    one (every ``universe.yaml`` token-world writes) without importing PyYAML."""
    text = edge.decode_text(_fetched(path, blobs), path)
    data = plain_yaml(text)
    return edge.parse_yaml_text(text, path) if data is OUTSIDE else data


def _config(
    extras: Mapping[str, Path], blobs: Blobs, name: str, issues: list[dict[str, Any]]
) -> tuple[str, tuple[str, ...]]:
    """The run's display name (``name`` in universe.yaml, else ``name`` as given) and its
    conserved properties (conservation.yaml); a file that cannot be read is an issue."""
    conserved: tuple[str, ...] = ()
    if "universe.yaml" in extras:
        try:
            config = _read_yaml(extras["universe.yaml"], blobs)
            if isinstance(config, dict) and isinstance(config.get("name"), str):
                name = config["name"]
        except InputError as err:
            issues.append(issue_row(err))
    if "conservation.yaml" in extras:
        try:
            cons = _read_yaml(extras["conservation.yaml"], blobs)
            props = cons.get("conserved_properties") if isinstance(cons, dict) else None
            if isinstance(props, list):
                conserved = tuple(str(p) for p in props)
        except InputError as err:
            issues.append(issue_row(err))
    return name, conserved


def _database(
    listing: Listing, db: Path, blobs: Blobs, issues: list[dict[str, Any]], warnings: list[str]
) -> pl.DataFrame:
    """The run's checkpoints from ``universe.db``: opened in place on disk, else from its
    fetched bytes; a database that cannot be read is an issue."""
    fetched = None if listing.source.disk is not None else blobs.get(str(db))
    if listing.source.disk is None and fetched is None:
        fetched = InputError(db, "not fetched")
    if isinstance(fetched, InputError):  # unreadable, or over the size limit
        issues.append(issue_row(fetched))
        return frame((), CHECKPOINTS_SCHEMA)
    try:
        checkpoints, bad_rows, db_warnings = _checkpoints(listing.slug, db, fetched)
    except sqlite3.Error as exc:
        issues.append(issue_row(edge.sqlite_problem(db, exc)))
        return frame((), CHECKPOINTS_SCHEMA)
    issues.extend(bad_rows)
    warnings.extend(db_warnings)
    return checkpoints


def run_parts(listing: Listing, blobs: Blobs) -> tuple[Universe, list[dict[str, Any]]]:
    """Everything of a run except its tick files: config, batches, checkpoints, from the
    bytes :func:`fetch_parts` fetched."""
    root, slug = listing.root, listing.slug
    issues: list[dict[str, Any]] = []
    warnings: list[str] = []
    extras = {p.name: p for p in listing.extras}
    titled = slug.replace("-", " ").replace("_", " ").title()
    name, conserved = _config(extras, blobs, titled, issues)
    if not listing.summaries:
        warnings.append(f"{slug}: no tick_summaries/ folder")
    batch_rows: list[dict[str, Any]] = []
    for kind, path in listing.compressed:
        try:
            data = parse_json_bytes(path, _fetched(path, blobs))
            batch_rows.append(_batch_row(slug, path, data, kind))
        except InputError as err:
            issues.append(issue_row(err))
    checkpoints = frame((), CHECKPOINTS_SCHEMA)
    if "universe.db" in extras:
        checkpoints = _database(listing, extras["universe.db"], blobs, issues, warnings)
    else:
        warnings.append(f"{slug}: no universe.db, so graph fan-out has no checkpoints")
    part = Universe(
        ticks=frame((), TICKS_SCHEMA),
        batches=frame(batch_rows, BATCHES_SCHEMA),
        checkpoints=checkpoints,
        issues=frame((), LOAD_ISSUES_SCHEMA),
        warnings=tuple(warnings),
        names={slug: name},
        paths={slug: root},
        conserved={slug: conserved},
    )
    return part, issues
