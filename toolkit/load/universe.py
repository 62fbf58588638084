"""Token-world simulation runs ("universes") into typed Polars frames.

A run is a folder named by its slug::

    <slug>/universe.yaml, conservation.yaml, universe.db,
    <slug>/tick_summaries/ticks/tick_<id>.json, batch_<n>.json, epoch_<n>.json

Tick summaries of schema v1 and v2 are normalised into one ticks frame
(:data:`toolkit.frames.TICKS_SCHEMA`). A file that cannot be used is never dropped
silently: it is listed in ``issues`` with its path and the reason.
"""

from __future__ import annotations

import contextlib
import glob as globmod
import json
import operator
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, overload

import polars as pl
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolkit._show import Shows, Summary, issue_notes, plural
from toolkit.errors import InputError, NothingLoadable
from toolkit.frames import (
    BATCHES_SCHEMA,
    CHECKPOINTS_SCHEMA,
    LOAD_ISSUES_SCHEMA,
    TICKS_SCHEMA,
)
from toolkit.io import edge
from toolkit.load._common import parse_json_bytes, read_json, validation_problem
from toolkit.load._ticks import (
    CONTINUATION_MECHANIC,
    CONTINUATION_TEXT,
    TICK_ID_PATTERN,
    _in_order,
    collector_paused,
    parse_ticks,
    tick_number,
)

if TYPE_CHECKING:
    from toolkit.io.source import RemoteSource

__all__ = [
    "CONTINUATION_MECHANIC",
    "CONTINUATION_TEXT",
    "Universe",
    "combine",
    "load_universe",
    "load_universes",
    "parse_tick_number",
]

_TICK_FILE = re.compile(r"^tick_(\d+)\.json$")
_COMPRESSED_FILE = re.compile(r"^(batch|epoch)_(\d+)\.json$")
_TICK_ID = re.compile(TICK_ID_PATTERN)


# ---------------------------------------------------------------------------
# File models (the edge): lenient where the engine is lenient.
# ---------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ClassifiedAction(_Model):
    """``classified_action``: what the classifier understood the agent to do."""

    verb: str | None = None
    actor: str | None = None
    target: str | None = None


class Mutations(_Model):
    """``mutations``: ``{"count": int, "list": [[target, property, old, new], ...]}``."""

    count: int | None = None
    changes: list[list[Any]] = Field(default=[], alias="list")


class Observation(_Model):
    """v2 ``observation``: the observer's text and the changes it claims happened."""

    text: str | None = None
    claimed_changes: list[list[Any]] | None = None


class _TickBase(_Model):
    tick_id: str | int | None = None
    timestamp_iso: str | None = None
    action_text: str | None = None
    classified_action: ClassifiedAction | None = None
    matched_mechanic_id: str | None = None
    refusal_reason: str | None = None
    mutations: Mutations = Mutations()
    duration_ms: float | None = None
    llm_tokens_by_stage: dict[str, dict[str, float | None] | None] | None = None

    @field_validator("mutations", mode="before")
    @classmethod
    def _bare_list(cls, value: Any) -> Any:
        # Some writers store the list alone; the engine reads both.
        if value is None:
            return {}
        if isinstance(value, list):
            return {"list": value}
        return value


class TickV1(_TickBase):
    """Tick summary schema v1, as the engine writes it today."""

    schema_version: Literal[1] = 1
    yielded: bool = False
    refused: bool = False
    observation_text: str | None = None
    llm_cost_usd_by_stage: dict[str, float | None] | None = None


class TickV2(_TickBase):
    """Tick summary schema v2: the pipeline design's shape, with observer claims."""

    schema_version: Literal[2]
    actor_id: str | None = None
    kind: Literal["execute", "yield", "refuse"]
    conservation_verdict: Literal["ok", "violated"] | None = None
    observation: Observation | None = None
    cost_usd: float | None = None


#: A tick number or count of a batch record: whole, non-negative, within 64 bits.
Tick = Annotated[int, Field(ge=0, le=2**63 - 1)]


class CompressedRecord(_Model):
    """A ``batch_<n>.json`` or ``epoch_<n>.json`` record."""

    kind: str | None = None
    batch_id: str | int | None = None
    first_tick: Tick | None = None
    last_tick: Tick | None = None
    tick_count: Tick | None = None
    key_events: list[Any] = []
    mechanic_ids_used: list[str] = []
    total_mutations: Tick | None = None
    agent_id: str | None = None

    @field_validator("first_tick", "last_tick", mode="before")
    @classmethod
    def _tick_number(cls, value: Any) -> Any:
        if isinstance(value, str) and (m := _TICK_ID.match(value)):
            return int(m.group(1))
        return value


# ---------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Universe(Shows):
    """One or more loaded runs.

    Attributes:
        ticks: one row per tick (:data:`toolkit.frames.TICKS_SCHEMA`), sorted by slug, tick.
        batches: compressed records (:data:`toolkit.frames.BATCHES_SCHEMA`).
        checkpoints: graph snapshots from ``universe.db`` (slug, tick, node_count,
            edge_count).
        issues: files that could not be used (path, line, reason).
        warnings: leniencies applied while loading (one sentence each).
        names: display name per slug (``name`` in universe.yaml, else the slug titled).
        paths: folder per slug.
        conserved: conserved properties per slug (from conservation.yaml).
    """

    ticks: pl.DataFrame
    batches: pl.DataFrame
    checkpoints: pl.DataFrame
    issues: pl.DataFrame
    warnings: tuple[str, ...] = ()
    names: dict[str, str] = field(default_factory=dict)
    paths: dict[str, Path] = field(default_factory=dict)
    conserved: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def _summary(self) -> Summary:
        slugs = self.slugs
        shown = ", ".join(slugs[:3]) + (f", … {len(slugs) - 3} more" if len(slugs) > 3 else "")
        return Summary(
            "Universe",
            f"{plural(len(slugs), 'run')} ({shown or 'nothing loaded'})",
            (
                ("ticks", self.ticks.height),
                ("compressed records", self.batches.height),
                ("checkpoints", self.checkpoints.height),
                ("issues", self.issues.height),
                ("warnings", len(self.warnings)),
            ),
            notes=issue_notes(self.issues.iter_rows(named=True)) + self.warnings,
            notes_title="issues and warnings",
        )

    @property
    def slugs(self) -> list[str]:
        """The runs held, in load order."""
        return list(self.paths)

    @property
    def slug(self) -> str:
        """The slug of a single-run load."""
        if len(self.paths) != 1:
            raise ValueError(f"this load holds {len(self.paths)} runs; use .run(slug)")
        return next(iter(self.paths))

    def run(self, slug: str) -> Universe:
        """The part of this load that belongs to ``slug``."""
        if slug not in self.paths:
            raise KeyError(slug)
        root = str(self.paths[slug])
        path = pl.col("path")
        inside = (path == root) | path.str.starts_with(root.rstrip("/\\") + "/")
        if os.sep != "/":
            inside = inside | path.str.starts_with(root.rstrip("/\\") + os.sep)
        return Universe(
            ticks=self.ticks.filter(pl.col("slug") == slug),
            batches=self.batches.filter(pl.col("slug") == slug),
            checkpoints=self.checkpoints.filter(pl.col("slug") == slug),
            issues=self.issues.filter(inside),
            warnings=tuple(w for w in self.warnings if self._warning_of(w) == slug),
            names={slug: self.names[slug]},
            paths={slug: self.paths[slug]},
            conserved={slug: self.conserved.get(slug, ())},
        )

    def _warning_of(self, warning: str) -> str | None:
        """The run a warning (``"<slug>: ..."``) is about: the longest slug it starts
        with, so that run ``vale`` is not given the warnings of a run named ``vale: x``."""
        owners = [s for s in self.paths if warning.startswith(f"{s}:")]
        return max(owners, key=len) if owners else None

    @property
    def loadable(self) -> bool:
        """Whether anything at all could be read (ticks or compressed records)."""
        return self.ticks.height > 0 or self.batches.height > 0


# ---------------------------------------------------------------------------
# Reading a run folder
# ---------------------------------------------------------------------------

parse_tick_number = tick_number


@dataclass(frozen=True)
class Listing:
    """What a run folder holds, found without reading any file.

    ``key`` names every source file with its size and a mark of its modification and
    change times and inode (:func:`toolkit.io.source.file_mark`): two listings with
    the same key hold the same bytes, as far as a cache can know.
    A run in object storage has a ``source``; its paths are fsspec paths
    (``bucket/key``) and its key holds each object's version mark (ETag) instead.
    ``skipped`` holds the entries named like source files that cannot be read as one
    (a FIFO, a folder, a dangling or looping symlink, a link out of the run, a tick
    number beyond 64 bits), each with its reason; they are issues of the load.
    """

    root: Path
    ticks: Sequence[str]
    compressed: tuple[tuple[str, Path], ...]
    extras: tuple[Path, ...]
    key: tuple[tuple[str, int, int], ...]
    source: RemoteSource | None = None
    summaries: bool = True
    skipped: tuple[tuple[str, str], ...] = ()

    @property
    def slug(self) -> str:
        """The run's slug: its folder name."""
        return self.root.name


#: The largest tick or batch number a frame can hold (Int64).
MAX_NUMBER = 2**63 - 1


#: Tick file names joined by newlines, each ``tick_<n>.json`` with ``n`` in ASCII digits,
#: no leading zero and at most 18 digits (below 2**63): sorting such names by length, then
#: by text, sorts them by number.
_PLAIN_NAME = r"tick_(?:0|[1-9][0-9]{0,17})\.json"
_PLAIN_TICK_NAMES = re.compile(rf"(?:{_PLAIN_NAME}\n)*{_PLAIN_NAME}")
_NAME = operator.attrgetter("name")
_REGULAR = operator.methodcaller("is_file", follow_symlinks=False)


def _plain_tick_paths(
    folder: str, entries: Sequence[os.DirEntry[str]]
) -> TickPaths | tuple[()] | None:
    """The paths of a tick folder's files sorted by tick number, when the folder is plain:
    every entry a regular file named ``tick_<n>.json`` as token-world writes them (see
    :data:`_PLAIN_TICK_NAMES`); else ``None``, and :func:`list_run` looks at each entry on
    its own.

    The same listing as the entry-by-entry loop in a few C calls (one regular expression
    over the names joined, two sorts, one join and split for the paths) instead of a
    match, an ``int`` and a tuple per entry (docs/performance.md)."""
    if not entries:
        return ()
    joined = "\n".join(map(_NAME, entries))
    if (
        joined.count("\n") != len(entries) - 1  # a name holding a newline
        or _PLAIN_TICK_NAMES.fullmatch(joined) is None
        or not all(map(_REGULAR, entries))
    ):
        return None
    names = joined.split("\n")
    names.sort()
    names.sort(key=len)  # stable: by length, then by text, which is by number here
    return TickPaths(os.path.join(folder, ""), "\n".join(names), len(names))


class TickPaths(Sequence[str]):
    """A plain tick folder's file paths in tick order, held as the folder and the file
    names joined by newlines (two strings), not as a string per path.

    A fleet's listing is made before its first file is read and held until the load
    ends: 90,000 path strings cost about 12 MiB of small Python objects, whose memory
    outlived the load (docs/performance.md, "Memory"). The paths are built when they are
    read, a chunk of runs at a time. Equal to any sequence of the same paths."""

    __slots__ = ("_count", "_names", "_prefix")

    def __init__(self, prefix: str, names: str, count: int) -> None:
        self._prefix, self._names, self._count = prefix, names, count

    def _paths(self) -> list[str]:
        return (self._prefix + self._names.replace("\n", "\n" + self._prefix)).split("\n")

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths())

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        return self._paths()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == self._count and list(other) == self._paths()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self._paths()))

    def __repr__(self) -> str:
        return f"TickPaths({self._prefix!r}, {plural(self._count, 'file')})"


def list_run(root: Path, *, stat: bool = True) -> Listing:
    """List a run folder's source files, with their sizes and change marks when ``stat``.

    An entry named like a source file that is not a readable regular file inside the run
    (see :func:`toolkit.io.edge.entry_problem`) is listed in ``skipped``, never
    dropped silently; so is a folder that cannot be listed.
    """
    from toolkit.io.source import file_mark

    key: list[tuple[str, int, int]] = []
    skipped: list[tuple[str, str]] = []

    def _scan(folder: Path) -> list[os.DirEntry[str]]:
        entries, problem = edge.scan_folder(folder)
        if problem is not None:
            edge.skipped_input(folder, problem)
            skipped.append((str(folder), problem))
            key.append((str(folder), -1, 0))
        return entries

    def usable(entry: os.DirEntry[str], rel: str, number: int | None = None) -> bool:
        if number is not None and number > MAX_NUMBER:
            problem: str | None = "its number is beyond 64 bits"
        elif entry.is_file(follow_symlinks=False):  # a regular file: the scan's type says so
            return True
        else:
            problem = edge.entry_problem(entry, root)
        if problem is None:
            return True
        edge.skipped_input(entry.path, problem)
        skipped.append((entry.path, f"skipped: {problem}"))
        key.append((rel, -1, 0))  # a cached load is rebuilt when this entry changes
        return False

    def note(entry: os.DirEntry[str], rel: str) -> None:
        if stat:
            st = entry.stat()
            key.append((rel, st.st_size, file_mark(st)))

    ticks: list[tuple[int, str]] = []
    match = _TICK_FILE.match
    tick_folder = root / "tick_summaries" / "ticks"
    entries = _scan(tick_folder)
    plain = None if stat else _plain_tick_paths(os.fspath(tick_folder), entries)
    for e in entries if plain is None else ():
        if (m := match(e.name)) is None:
            continue
        number = int(m.group(1))
        # The common case without a call: a regular file (the scan's type says so).
        if (number <= MAX_NUMBER and e.is_file(follow_symlinks=False)) or usable(
            e, f"ticks/{e.name}", number
        ):
            ticks.append((number, e.path))
            if stat:  # note(), inline: a warm load stats every tick file
                st = e.stat()
                key.append((f"ticks/{e.name}", st.st_size, file_mark(st)))
    compressed: list[tuple[str, int, Path]] = []
    for e in _scan(root / "tick_summaries"):
        if (m := _COMPRESSED_FILE.match(e.name)) and usable(e, e.name, int(m.group(2))):
            compressed.append((m.group(1), int(m.group(2)), Path(e.path)))
            note(e, e.name)
    extras: list[Path] = []
    for e in _scan(root):
        if e.name in ("universe.db", "universe.yaml", "conservation.yaml") and usable(e, e.name):
            extras.append(Path(e.path))
            note(e, e.name)
    return Listing(
        root=root,
        ticks=tuple(p for _, p in sorted(ticks)) if plain is None else plain,
        compressed=tuple((k, p) for k, _, p in sorted(compressed)),
        extras=tuple(sorted(extras)),
        key=tuple(sorted(key)),
        skipped=tuple(sorted(skipped)),
    )


def list_remote_runs(
    source: RemoteSource, roots: Sequence[str], *, only_runs: bool = True
) -> list[Listing]:
    """List runs in object storage (one concurrent listing of every run's objects).

    With ``only_runs``, a folder without ``tick_summaries/`` is not a run and is left
    out; otherwise it is kept when it holds anything at all."""
    from toolkit.io.source import version_mark

    out: list[Listing] = []
    for root, objects in zip(roots, source.find_many(roots), strict=True):
        ticks: list[tuple[int, str]] = []
        compressed: list[tuple[str, int, Path]] = []
        extras: list[Path] = []
        key: list[tuple[str, int, int]] = []
        for rel, info in objects.items():
            parent, _, name = rel.rpartition("/")
            mark = (int(info.get("size") or 0), version_mark(info))
            if parent == "tick_summaries/ticks" and (m := _TICK_FILE.match(name)):
                ticks.append((int(m.group(1)), f"{root}/{rel}"))
                key.append((f"ticks/{name}", *mark))
            elif parent == "tick_summaries" and (m := _COMPRESSED_FILE.match(name)):
                compressed.append((m.group(1), int(m.group(2)), Path(f"{root}/{rel}")))
                key.append((name, *mark))
            elif not parent and name in ("universe.db", "universe.yaml", "conservation.yaml"):
                extras.append(Path(f"{root}/{rel}"))
                key.append((name, *mark))
        summaries = any(rel.startswith("tick_summaries/") for rel in objects)
        if not objects or (only_runs and not summaries):
            continue
        out.append(
            Listing(
                root=Path(root),
                ticks=tuple(p for _, p in sorted(ticks)),
                compressed=tuple((k, p) for k, _, p in sorted(compressed)),
                extras=tuple(sorted(extras)),
                key=tuple(sorted(key)),
                source=source,
                summaries=summaries,
            )
        )
    return out


def _fetch(listings: Sequence[Listing], ticks: bool) -> dict[str, bytes | InputError] | None:
    """The bytes of remote runs' tick files (``ticks``) or other files, held to the size
    limit, in one batched request per source; ``None`` for runs on the local disk (read
    where parsed)."""
    remote = [listing for listing in listings if listing.source is not None]
    if not remote:
        return None
    out: dict[str, bytes | InputError] = {}
    by_source: dict[RemoteSource, list[str]] = {}
    for listing in remote:
        assert listing.source is not None
        names = (
            list(listing.ticks)
            if ticks
            else [str(p) for _, p in listing.compressed] + [str(p) for p in listing.extras]
        )
        by_source.setdefault(listing.source, []).extend(names)
    for source, names in by_source.items():
        out.update(source.fetch(names))
    return out


def _batch_row(slug: str, path: Path, data: Any, kind: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InputError(path, "a batch record must be a JSON object", field="(top level)")
    try:
        rec = CompressedRecord.model_validate(data)
    except ValidationError as exc:
        raise validation_problem(path, exc) from exc
    count = rec.tick_count
    if count is None and rec.first_tick is not None and rec.last_tick is not None:
        count = rec.last_tick - rec.first_tick + 1
    return {
        "slug": slug,
        "kind": rec.kind or kind,
        "batch_id": None if rec.batch_id is None else str(rec.batch_id),
        "first_tick": rec.first_tick,
        "last_tick": rec.last_tick,
        "tick_count": count,
        "total_mutations": rec.total_mutations,
        "agent_id": rec.agent_id,
        "mechanic_ids_used": rec.mechanic_ids_used,
        "key_events": [e if isinstance(e, str) else json.dumps(e) for e in rec.key_events],
        "source_file": str(path),
    }


#: The snapshots' counts, and whether SQLite vouches for the row (every cell an integer,
#: none negative): exactly the rows :func:`_cell_number` takes as they are.
_SNAPSHOTS = (
    "SELECT tick_id, typeof(tick_id), node_count, edge_count,"
    " typeof(tick_id) = 'integer' AND tick_id >= 0"
    " AND typeof(node_count) = 'integer' AND node_count >= 0"
    " AND typeof(edge_count) = 'integer' AND edge_count >= 0"
    " FROM graph_snapshots"
)
_by_tick = operator.itemgetter(0)


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
    if all(row[4] for row in rows):  # SQLite vouches for every cell: no row to look at
        rows.sort(key=_by_tick)  # stable, as the careful path's sort below
        fast = [
            {"slug": slug, "tick": t, "node_count": n, "edge_count": e} for t, _, n, e, _ in rows
        ]
        return _frame(fast, CHECKPOINTS_SCHEMA), [], []
    parsed: list[dict[str, Any]] = []
    issues: list[dict[str, Any]] = []
    for index, (t, _, n, e, _) in enumerate(rows, start=1):
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
    return _frame(parsed, CHECKPOINTS_SCHEMA), issues, warnings


_EMPTY: dict[int, pl.DataFrame] = {}


def _frame(rows: Sequence[Mapping[str, Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """``rows`` as a frame of ``schema`` (one of :mod:`toolkit.frames`' schemas). An empty
    one is built once per schema and shared (frames are immutable): most runs have no
    batch record and no issue, and building an empty frame costs about 0.1 ms."""
    if rows:
        return pl.DataFrame(rows, schema=schema)
    frame = _EMPTY.get(id(schema))
    if frame is None:
        frame = _EMPTY[id(schema)] = pl.DataFrame(schema=schema)
    return frame


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


def _read_yaml(path: Path, blobs: Mapping[str, bytes | InputError] | None = None) -> Any:
    """A run's YAML file through the reading edge; from ``blobs`` when the run was fetched
    from object storage (the same decoding and YAML checks)."""
    if blobs is None:
        return edge.read_yaml(path, within=path.parent)
    blob = _fetched(path, blobs)
    return edge.parse_yaml_text(edge.decode_text(blob, path), path)


def _fetched(path: Path, blobs: Mapping[str, bytes | InputError]) -> bytes:
    """A fetched object's bytes (held to the size limit by :meth:`RemoteSource.fetch`)."""
    blob = blobs.get(str(path), InputError(path, "cannot read file (not fetched)"))
    if isinstance(blob, InputError):
        raise blob
    return blob


def _issue(err: InputError) -> dict[str, Any]:
    return {"path": err.path, "line": err.line, "reason": str(err)}


def _run_parts(
    listing: Listing, blobs: Mapping[str, bytes | InputError] | None = None
) -> tuple[Universe, list[dict[str, Any]]]:
    """Everything of a run except its tick files: config, batches, checkpoints.

    ``blobs`` holds the files' bytes when the run lives in object storage."""
    root, slug = listing.root, listing.slug
    issues: list[dict[str, Any]] = []
    warnings: list[str] = []
    name = slug.replace("-", " ").replace("_", " ").title()
    conserved: tuple[str, ...] = ()
    extras = {p.name: p for p in listing.extras}
    if "universe.yaml" in extras:
        try:
            config = _read_yaml(extras["universe.yaml"], blobs)
            if isinstance(config, dict) and isinstance(config.get("name"), str):
                name = config["name"]
        except InputError as err:
            issues.append(_issue(err))
    if "conservation.yaml" in extras:
        try:
            cons = _read_yaml(extras["conservation.yaml"], blobs)
            props = cons.get("conserved_properties") if isinstance(cons, dict) else None
            if isinstance(props, list):
                conserved = tuple(str(p) for p in props)
        except InputError as err:
            issues.append(_issue(err))
    if not (listing.summaries if blobs is not None else (root / "tick_summaries").is_dir()):
        warnings.append(f"{slug}: no tick_summaries/ folder")
    batch_rows: list[dict[str, Any]] = []
    for kind, path in listing.compressed:
        try:
            data = read_json(path, within=root) if blobs is None else _json_blob(path, blobs)
            batch_rows.append(_batch_row(slug, path, data, kind))
        except InputError as err:
            issues.append(_issue(err))
    checkpoints = _frame((), CHECKPOINTS_SCHEMA)
    if "universe.db" in extras:
        db = extras["universe.db"]
        fetched = None if blobs is None else blobs.get(str(db), InputError(db, "not fetched"))
        if isinstance(fetched, InputError):  # unreadable, or over the size limit
            issues.append(_issue(fetched))
        else:
            try:
                checkpoints, bad_rows, db_warnings = _checkpoints(slug, db, fetched)
                issues.extend(bad_rows)
                warnings.extend(db_warnings)
            except sqlite3.Error as exc:
                issues.append(_issue(edge.sqlite_problem(db, exc)))
    else:
        warnings.append(f"{slug}: no universe.db, so graph fan-out has no checkpoints")
    part = Universe(
        ticks=_frame((), TICKS_SCHEMA),
        batches=_frame(batch_rows, BATCHES_SCHEMA),
        checkpoints=checkpoints,
        issues=_frame((), LOAD_ISSUES_SCHEMA),
        warnings=tuple(warnings),
        names={slug: name},
        paths={slug: root},
        conserved={slug: conserved},
    )
    return part, issues


def _json_blob(path: Path, blobs: Mapping[str, bytes | InputError]) -> Any:
    return parse_json_bytes(path, _fetched(path, blobs))


#: Tick files parsed per bulk read: bounds the raw bytes and parse buffers held at once.
CHUNK_FILES = 5_000
#: ... and the bytes read before a parse (a chunk of large tick files is parsed in
#: several reads of about this much; token-world's files, about 1 KiB each, never are).
CHUNK_BYTES = 64 * 2**20


def _chunks(listings: Sequence[Listing]) -> list[list[Listing]]:
    groups: list[list[Listing]] = [[]]
    size = 0
    for listing in listings:
        if groups[-1] and size + len(listing.ticks) > CHUNK_FILES:
            groups.append([])
            size = 0
        groups[-1].append(listing)
        size += len(listing.ticks)
    return groups


def _parse_group(
    group: Sequence[Listing], bar: Any, notes: dict[str, list[str]]
) -> tuple[pl.DataFrame, dict[str, list[dict[str, Any]]]]:
    """Read and parse the tick files of a group of runs: in one bulk read, or in a few
    when their bytes pass :data:`CHUNK_BYTES` (a run's files may then be parsed in two
    reads; the group's frame is the same)."""
    slugs: list[str] = []
    files: list[str] = []
    blobs: list[bytes] = []
    pending = 0
    parts: list[pl.DataFrame] = []
    tick_issues: dict[str, list[dict[str, Any]]] = {}
    fetched = _fetch(group, ticks=True)
    limit = edge.limits().max_file_bytes

    def parse() -> None:
        nonlocal pending
        found: list[tuple[str, str]] = []
        ticks, errors = parse_ticks(slugs, files, blobs, found)
        parts.append(ticks)
        by_path = dict(zip(files, slugs, strict=True))
        for path, note in found:
            notes.setdefault(by_path[path], []).append(f"{by_path[path]}: {note}")
        for err in errors:
            tick_issues.setdefault(by_path.get(err.path or "", ""), []).append(_issue(err))
        slugs.clear()
        files.clear()
        blobs.clear()
        pending = 0

    for listing in group:
        paths = list(listing.ticks)  # built here, a chunk at a time (see TickPaths)
        start = 0
        while start < len(paths):
            if fetched is not None and listing.source is not None:
                got = [fetched[path] for path in paths]
            else:
                got = edge.read_many_fast(paths[start:], limit, CHUNK_BYTES - pending)
            read = paths[start : start + len(got)]
            start += len(got)
            bar.update(len(got))
            if InputError not in map(type, got):  # every file read: no loop in Python
                slugs.extend([listing.slug] * len(got))
                files.extend(read)
                blobs.extend(got)  # type: ignore[arg-type]
                pending += sum(map(len, got))  # type: ignore[arg-type]
            else:
                for path, blob in zip(read, got, strict=True):
                    if isinstance(blob, InputError):
                        tick_issues.setdefault(listing.slug, []).append(_issue(blob))
                        continue
                    slugs.append(listing.slug)
                    files.append(path)
                    blobs.append(blob)
                    pending += len(blob)
            if pending >= CHUNK_BYTES:
                parse()
    if blobs or not parts:
        parse()
    ticks = parts[0] if len(parts) == 1 else pl.concat(parts)
    if len(parts) > 1 and not _in_order(ticks):  # runs parsed apart: put them together
        ticks = ticks.sort("slug", "tick", maintain_order=True)
    return ticks, tick_issues


class _NoBar(contextlib.nullcontext["_NoBar"]):
    """What :func:`_build` counts on when no bar is shown (importing tqdm costs ~30 ms)."""

    def update(self, n: int = 1) -> None:
        pass


def _build(listings: Sequence[Listing], progress: bool | None) -> list[Universe]:
    """Load runs from their files: tick files parsed in bulk, a chunk of runs at a time."""
    frames: list[pl.DataFrame] = []
    tick_issues: dict[str, list[dict[str, Any]]] = {}
    notes: dict[str, list[str]] = {}  # each run's warnings, by slug
    bar: Any = _NoBar()
    if progress is not False:
        from tqdm.auto import tqdm

        bar = tqdm(
            total=sum(len(listing.ticks) for listing in listings),
            desc="reading tick files",
            unit="file",
            disable=(not progress) if progress is not None else None,
            leave=False,
            miniters=1000,
        )
    # Every entry point reads a run once and refuses two runs sharing a slug
    # (:func:`_each_run_once`), so a run's files are in one chunk: its repeated tick
    # numbers are found a chunk at a time, which keeps the hashing's memory small.
    if len({listing.slug for listing in listings}) != len(listings):
        raise ValueError("_build needs runs with distinct slugs (see _each_run_once)")
    with bar:
        for group in _chunks(listings):
            frame, group_issues = _parse_group(group, bar, notes)
            for slug, found in group_issues.items():
                tick_issues.setdefault(slug, []).extend(found)
            frames.append(_first_of_each_tick(frame, tick_issues))
    ticks = pl.concat(frames) if frames else pl.DataFrame(schema=TICKS_SCHEMA)

    # Each run's rows are contiguous: zero-copy slices instead of a partitioned copy,
    # their lengths the slug column's run lengths (no hashing).
    extents = ticks["slug"].rle().struct.unnest().select("value", "len")
    offsets: dict[str, tuple[int, int]] = {}
    start = 0
    for slug, count in extents.iter_rows():
        offsets[slug] = (start, count)
        start += count
    out: list[Universe] = []
    for group in _chunks(listings):
        out.extend(_assemble(group, ticks, offsets, tick_issues, notes))
    return out


def _first_of_each_tick(
    ticks: pl.DataFrame, tick_issues: dict[str, list[dict[str, Any]]]
) -> pl.DataFrame:
    """``ticks`` with only the first file of each (slug, tick); each later one is an
    issue of its run ("duplicate tick number")."""
    if _in_order(ticks):  # as parse_ticks gives them: a repeat follows the row it repeats
        slug, tick = pl.col("slug"), pl.col("tick")
        later = ticks.select(
            ((slug == slug.shift()) & (tick == tick.shift())).fill_null(False)
        ).to_series()
        if not later.any():
            return ticks
        for slug_, path in ticks.filter(later).select("slug", "source_file").iter_rows():
            tick_issues.setdefault(slug_, []).append(
                {"path": path, "line": None, "reason": "duplicate tick number"}
            )
        return ticks.filter(later.not_())
    dupes = ticks.filter(pl.struct("slug", "tick").is_duplicated())
    if not dupes.height:
        return ticks
    first = dupes.unique(subset=["slug", "tick"], keep="first", maintain_order=True)
    for row in dupes.join(first, on="source_file", how="anti").iter_rows(named=True):
        tick_issues.setdefault(row["slug"], []).append(
            {"path": row["source_file"], "line": None, "reason": "duplicate tick number"}
        )
    return ticks.unique(subset=["slug", "tick"], keep="first", maintain_order=True)


def _assemble(
    group: Sequence[Listing],
    ticks: pl.DataFrame,
    offsets: Mapping[str, tuple[int, int]],
    tick_issues: Mapping[str, list[dict[str, Any]]],
    notes: Mapping[str, list[str]],
) -> list[Universe]:
    blobs = _fetch(group, ticks=False)
    out: list[Universe] = []
    for listing in group:
        part, issues = _run_parts(listing, blobs if listing.source is not None else None)
        skipped = [{"path": p, "line": None, "reason": f"{p}: {r}"} for p, r in listing.skipped]
        issues = skipped + tick_issues.get(listing.slug, []) + issues
        offset, length = offsets.get(listing.slug, (0, 0))
        out.append(
            Universe(
                ticks=ticks.slice(offset, length),
                batches=part.batches,
                checkpoints=part.checkpoints,
                issues=_frame(issues, LOAD_ISSUES_SCHEMA),
                warnings=part.warnings + tuple(notes.get(listing.slug, ())),
                names=part.names,
                paths=part.paths,
                conserved=part.conserved,
            )
        )
    return out


def _load(
    roots: Sequence[Path],
    cache: bool | str | Path,
    progress: bool | None,
    storage_options: Mapping[str, Any] | None = None,
) -> list[Universe]:
    with collector_paused():  # listing and loading make many objects, none in a cycle
        listings = [list_run(r, stat=bool(cache)) for r in roots]
        loaded = _load_listed(listings, cache, progress, storage_options)
    if sum(len(listing.ticks) for listing in listings) >= CHUNK_FILES:
        _release_freed_heap()
    return loaded


def _release_freed_heap() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; nothing
    where there is no such call).

    A fleet load reads its tick files' bytes into the C heap a chunk at a time; once the
    load is done, about 9 MiB of it is free but still held, under whatever the caller does
    next (scoring's own memory comes from Polars' allocator, which cannot reuse it). It
    costs about 1 ms after a 300-run load (docs/performance.md, "Memory")."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return
    trim(0)


def _load_listed(
    listings: Sequence[Listing],
    cache: bool | str | Path,
    progress: bool | None,
    storage_options: Mapping[str, Any] | None = None,
) -> list[Universe]:
    """Load listed runs: fresh cache entries from the cache (a folder, or a URL reached
    with ``storage_options``), the rest from their files, then cached."""
    from toolkit.load._cache import RunCache

    store = RunCache(cache, storage_options) if cache else None
    found: dict[int, Universe] = store.get_many(listings) if store is not None else {}
    stale = [i for i in range(len(listings)) if i not in found]
    if stale:
        built = _build([listings[i] for i in stale], progress)
        found.update(zip(stale, built, strict=True))
        if store is not None:
            store.put_many([(listings[i], found[i]) for i in stale])
    return [found[i] for i in range(len(listings))]


#: The environment variable naming the folder (or URL) that holds runs by slug, as
#: token-world keeps its universes; ``--root`` overrides it.
UNIVERSES_ROOT_ENV = "TOOLKIT_UNIVERSES_ROOT"

_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def resolve_run(
    name: str | Path, root: str | Path | None = None, env: Mapping[str, str] | None = None
) -> str | Path:
    """Where the run ``name`` lives: a folder or URL as given, or a slug under a root.

    token-world names a run by its slug (``quality willowbrook``). ``name`` is used as it
    is when it is a URL or an existing path; otherwise, when it is a plain slug (letters,
    digits, ``.``, ``_``, ``-``; no folder parts, so it cannot leave the root) and a
    universes root is known, it is ``<root>/<slug>``. The root is ``root`` (``--root``),
    else the ``TOOLKIT_UNIVERSES_ROOT`` environment variable; a URL root is joined and
    left for the loader to check.

    Args:
        name: a run folder, a run URL, or a slug.
        root: the universes root (a folder or URL); ``None`` reads the environment.
        env: the environment to read (default: ``os.environ``).

    Returns:
        The path or URL to load.

    Raises:
        InputError: neither a folder nor a run of that slug under the root exists (one
            line naming both places), or the root itself does not exist.
    """
    from toolkit.io.source import is_remote, local_path

    if is_remote(name) or local_path(name).exists():
        return name
    environ = os.environ if env is None else env
    where = "--root"
    if root is None or str(root) == "":
        root, where = environ.get(UNIVERSES_ROOT_ENV) or None, UNIVERSES_ROOT_ENV
    text = str(name)
    if root is None:
        hint = f" (to name a run by its slug, give --root DIR or set {UNIVERSES_ROOT_ENV})"
        raise InputError(local_path(name), "no such run folder" + (hint * bool(_SLUG.match(text))))
    if not _SLUG.match(text) or text in (".", ".."):
        raise InputError(
            local_path(name),
            f"no such run folder, and not a slug to look up under {root} ({where})",
        )
    if is_remote(root):
        return f"{str(root).rstrip('/')}/{text}"
    base = local_path(root)
    if not base.is_dir():
        raise InputError(base, f"the universes root ({where}) is not an existing folder")
    candidate = base / text
    if not candidate.exists():
        raise InputError(
            text, f"no such run folder here, and no run {text!r} under {base} ({where})"
        )
    return candidate


def load_universe(
    path: str | Path,
    *,
    cache: bool | str | Path = False,
    progress: bool | None = False,
    storage_options: Mapping[str, Any] | None = None,
) -> Universe:
    """Load one universe folder.

    Args:
        path: the run folder (its name is the slug).
        cache: ``True`` keeps normalised frames as Parquet in ``<run>/.toolkit_cache/``;
            a folder path keeps them there instead, and a URL (``s3://bucket/cache``)
            in object storage; ``False`` (default) reads the files. A cache entry is
            used only while every source file has the name, size and modification time
            (ETag for an object) it was built from. A cache that cannot be written
            costs only speed: a :class:`~toolkit.errors.CacheWarning` says so.
        progress: show a progress bar (``None``: only on a terminal or in a notebook).
        storage_options: fsspec options when ``path`` or ``cache`` is a URL
            (``s3://bucket/run``): the same options serve both.

    Returns:
        A :class:`Universe` whose ``ticks`` frame has the columns of
        :data:`toolkit.frames.TICKS_SCHEMA` (slug, tick, schema_version, timestamp, actor,
        action_text, verb, target, mechanic, status, refusal_reason, rollback,
        continuation, mutation_count, claimed_count, unsupported_claims, grounded,
        grounded_source, observation_text, cost_usd, tokens_in, tokens_out, duration_ms,
        source_file), sorted by tick number.

    Raises:
        InputError: the folder does not exist, is not a folder, is not a run (no
            ``tick_summaries/``; a folder of runs is named as such) or holds nothing
            loadable (no tick file or batch record could be read). Every face (API,
            reports, CLI) meets this one rule.
    """
    from toolkit.io.source import is_remote, local_path, open_remote

    if is_remote(path):
        source = open_remote(str(path), storage_options)
        listed = list_remote_runs(source, [source.root], only_runs=False)
        if not listed:
            raise InputError(source.url(), "no such run folder (no objects under it)")
        return _load_listed(listed, _remote_cache(cache, source), progress, storage_options)[0]
    root = local_path(path)
    if not root.exists():
        raise InputError(root, "no such run folder")
    if not root.is_dir():
        raise InputError(root, "a run must be a folder (the universe's slug)")
    if root.name in ("", ".", ".."):
        root = root.resolve()
    if not (root / "tick_summaries").is_dir():
        runs = _run_dirs([root / "*"])
        if runs:
            raise InputError(
                root,
                f"a folder of {len(runs)} runs, not a run: score them as a fleet with "
                f"toolkit quality --all {path} (or toolkit report fleet {path})",
            )
        raise NothingLoadable(root, "not a run folder: it has no tick_summaries/")
    universe = _load([root], cache, progress, storage_options)[0]
    if not universe.loadable:
        if universe.issues.height:
            raise NothingLoadable(None, f"nothing loadable: {universe.issues['reason'][0]}")
        raise NothingLoadable(root, "nothing loadable: no tick files and no batch records")
    return universe


def combine(universes: Sequence[Universe]) -> Universe:
    """Stack loads of several runs into one :class:`Universe` with the same frames."""
    if not universes:
        return Universe(
            ticks=pl.DataFrame(schema=TICKS_SCHEMA),
            batches=pl.DataFrame(schema=BATCHES_SCHEMA),
            checkpoints=pl.DataFrame(schema=CHECKPOINTS_SCHEMA),
            issues=pl.DataFrame(schema=LOAD_ISSUES_SCHEMA),
        )
    return Universe(
        ticks=pl.concat([u.ticks for u in universes], rechunk=False),
        batches=pl.concat([u.batches for u in universes]),
        checkpoints=pl.concat([u.checkpoints for u in universes]),
        issues=pl.concat([u.issues for u in universes]),
        warnings=tuple(w for u in universes for w in u.warnings),
        names={k: v for u in universes for k, v in u.names.items()},
        paths={k: v for u in universes for k, v in u.paths.items()},
        conserved={k: v for u in universes for k, v in u.conserved.items()},
    )


def _run_dirs(patterns: Iterable[str | Path]) -> list[Path]:
    found: dict[str, Path] = {}
    for pattern in patterns:
        for hit in sorted(globmod.glob(str(pattern))):
            p = Path(hit)
            if p.is_dir() and (p / "tick_summaries").is_dir():
                found.setdefault(str(p.resolve()), p)
    return list(found.values())


def load_universes(
    *patterns: str | Path,
    cache: bool | str | Path = False,
    progress: bool | None = None,
    storage_options: Mapping[str, Any] | None = None,
) -> Universe:
    """Load every run folder matching the glob ``patterns`` into one set of frames.

    A folder counts as a run when it holds ``tick_summaries/``. Every frame carries the
    ``slug`` column, so ``universe.ticks.group_by("slug")`` works across runs. The tick
    files of all runs not served by the cache are parsed in one bulk read.

    Args:
        patterns: globs such as ``"runs/*"``, or URLs such as ``"s3://bucket/sweep/*"``.
        cache: as for :func:`load_universe`.
        progress: show a progress bar (``None``: only on a terminal or in a notebook).
        storage_options: fsspec options for URL patterns (e.g. ``endpoint_url``).

    Raises:
        InputError: no run folder matches, or two runs share a slug.
    """
    from toolkit.io.source import is_remote, local_path

    if any(is_remote(p) for p in patterns):
        return _load_remote_patterns(patterns, cache, progress, storage_options)
    dirs = _run_dirs(local_path(p) for p in patterns)
    if not dirs:
        shown = ", ".join(str(p) for p in patterns)
        raise InputError(shown, "no run folders (with tick_summaries/) match")
    _each_run_once((str(d.resolve()), d.name, str(d)) for d in dirs)
    return combine(_load(dirs, cache, progress, storage_options))


def _shown(listing: Listing) -> str:
    """A listed run as the user names it: its URL, or its local path."""
    root = str(listing.root)
    return listing.source.url(root) if listing.source is not None else root


def _each_run_once(runs: Iterable[tuple[str, str, str]]) -> list[int]:
    """The runs of one load to read, by position: one run named twice is read once, and
    two different runs that share a slug are refused (their frames would mix).

    Args:
        runs: per run, its identity (the resolved path, or the storage path of a URL),
            its slug (the folder's name) and the path or URL as the user gave it.

    Raises:
        InputError: two different runs share a slug; the line names both.
    """
    keep: list[int] = []
    seen: set[str] = set()
    slugs: dict[str, str] = {}
    for i, (identity, slug, shown) in enumerate(runs):
        if identity in seen:
            continue
        if slug in slugs:
            raise InputError(shown, f"two runs share the slug {slug!r} (also {slugs[slug]})")
        seen.add(identity)
        slugs[slug] = shown
        keep.append(i)
    return keep


def _remote_cache(cache: bool | str | Path, source: RemoteSource) -> bool | str | Path:
    if cache is True:
        raise InputError(
            source.url(),
            "runs in object storage keep no cache beside them: name a cache DIR or URL",
        )
    return cache


def load_runs(
    runs: Sequence[str | Path],
    *,
    cache: bool | str | Path = False,
    progress: bool | None = False,
    storage_options: Mapping[str, Any] | None = None,
) -> Universe:
    """Load the given run folders (paths, or URLs of one storage) into one set of frames.

    The unit of work of a fleet engine (:func:`toolkit.fleet.engine.score_fleet`): a folder
    without ``tick_summaries/`` is not a run and is left out, and a run named twice is
    read once, as in :func:`load_universes`.

    Raises:
        InputError: two different runs share a slug (a folder name), e.g.
            ``a/run-1`` and ``b/run-1``: their ticks would mix under one slug.
    """
    from toolkit.io.source import is_remote, local_path, open_remote

    if not runs:
        return combine([])
    if not is_remote(runs[0]):
        local = [r for r in map(local_path, runs) if (r / "tick_summaries").is_dir()]
        keep = _each_run_once((str(r.resolve()), r.name, str(r)) for r in local)
        return combine(_load([local[i] for i in keep], cache, progress, storage_options))
    first = open_remote(str(runs[0]), storage_options)
    roots = list(dict.fromkeys(open_remote(str(r), storage_options).root for r in runs))
    listed = list_remote_runs(first, roots)
    _each_run_once((str(x.root), x.slug, _shown(x)) for x in listed)  # roots are distinct
    return combine(_load_listed(listed, _remote_cache(cache, first), progress, storage_options))


def _load_remote_patterns(
    patterns: Sequence[str | Path],
    cache: bool | str | Path,
    progress: bool | None,
    storage_options: Mapping[str, Any] | None,
) -> Universe:
    from toolkit.io.source import is_remote, open_remote

    listed: list[Listing] = []
    first = None
    for pattern in patterns:
        if not is_remote(pattern):
            raise InputError(pattern, "mix of local paths and URLs: load them separately")
        source = open_remote(str(pattern), storage_options)
        if first is None:
            first = source
        try:
            hits = source.fs.glob(source.root, detail=True)
        except Exception as exc:
            raise source.error(exc, what="list the folder") from exc
        dirs = sorted(str(k).rstrip("/") for k, v in hits.items() if v.get("type") == "directory")
        if not dirs:  # say so when the bucket itself is missing
            try:
                source.fs.ls(source.root.split("/")[0])
            except Exception as exc:
                raise source.error(exc, what="list the bucket") from exc
        listed.extend(list_remote_runs(source, dirs))
    if not listed or first is None:
        shown = ", ".join(str(p) for p in patterns)
        raise InputError(shown, "no run folders (with tick_summaries/) match")
    keep = _each_run_once((str(x.root), x.slug, _shown(x)) for x in listed)
    listed = [listed[i] for i in keep]  # overlapping patterns name a run twice
    return combine(_load_listed(listed, _remote_cache(cache, first), progress, storage_options))
