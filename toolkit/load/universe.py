"""Token-world simulation runs ("universes") into typed Polars frames.

A run is a folder named by its slug::

    <slug>/universe.yaml, conservation.yaml, universe.db,
    <slug>/tick_summaries/ticks/tick_<id>.json, batch_<n>.json, epoch_<n>.json

Tick summaries of schema v1 and v2 are normalised into one ticks frame
(:data:`toolkit.frames.TICKS_SCHEMA`). A file that cannot be used is never dropped
silently: it is listed in ``issues`` with its path and the reason.
"""

from __future__ import annotations

import glob as globmod
import json
import os
import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import polars as pl
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolkit.errors import InputError
from toolkit.frames import (
    BATCHES_SCHEMA,
    CHECKPOINTS_SCHEMA,
    LOAD_ISSUES_SCHEMA,
    TICKS_SCHEMA,
)
from toolkit.load._common import read_json, validation_problem
from toolkit.load._ticks import (
    CONTINUATION_MECHANIC,
    CONTINUATION_TEXT,
    TICK_ID_PATTERN,
    parse_ticks,
    tick_number,
)

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


class CompressedRecord(_Model):
    """A ``batch_<n>.json`` or ``epoch_<n>.json`` record."""

    kind: str | None = None
    batch_id: str | int | None = None
    first_tick: int | None = None
    last_tick: int | None = None
    tick_count: int | None = None
    key_events: list[Any] = []
    mechanic_ids_used: list[str] = []
    total_mutations: int | None = None
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


@dataclass(frozen=True)
class Universe:
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
        prefix = str(self.paths[slug])
        return Universe(
            ticks=self.ticks.filter(pl.col("slug") == slug),
            batches=self.batches.filter(pl.col("slug") == slug),
            checkpoints=self.checkpoints.filter(pl.col("slug") == slug),
            issues=self.issues.filter(pl.col("path").str.starts_with(prefix)),
            warnings=tuple(w for w in self.warnings if w.startswith(f"{slug}:")),
            names={slug: self.names[slug]},
            paths={slug: self.paths[slug]},
            conserved={slug: self.conserved.get(slug, ())},
        )

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

    ``key`` names every source file with its size and modification time (ns): two
    listings with the same key hold the same bytes, as far as a cache can know.
    """

    root: Path
    ticks: tuple[str, ...]
    compressed: tuple[tuple[str, Path], ...]
    extras: tuple[Path, ...]
    key: tuple[tuple[str, int, int], ...]

    @property
    def slug(self) -> str:
        """The run's slug: its folder name."""
        return self.root.name


def _scan(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return [e for e in entries if e.is_file()]
    except (FileNotFoundError, NotADirectoryError):
        return []


def list_run(root: Path, *, stat: bool = True) -> Listing:
    """List a run folder's source files, with their sizes and mtimes when ``stat``."""
    key: list[tuple[str, int, int]] = []

    def note(entry: os.DirEntry[str], rel: str) -> None:
        if stat:
            st = entry.stat()
            key.append((rel, st.st_size, st.st_mtime_ns))

    ticks: list[tuple[int, str]] = []
    for e in _scan(root / "tick_summaries" / "ticks"):
        if m := _TICK_FILE.match(e.name):
            ticks.append((int(m.group(1)), e.path))
            note(e, f"ticks/{e.name}")
    compressed: list[tuple[str, int, Path]] = []
    for e in _scan(root / "tick_summaries"):
        if m := _COMPRESSED_FILE.match(e.name):
            compressed.append((m.group(1), int(m.group(2)), Path(e.path)))
            note(e, e.name)
    extras: list[Path] = []
    for e in _scan(root):
        if e.name in ("universe.db", "universe.yaml", "conservation.yaml"):
            extras.append(Path(e.path))
            note(e, e.name)
    return Listing(
        root=root,
        ticks=tuple(p for _, p in sorted(ticks)),
        compressed=tuple((k, p) for k, _, p in sorted(compressed)),
        extras=tuple(sorted(extras)),
        key=tuple(sorted(key)),
    )


_READ_SIZE = 1 << 22


def _read_bytes(path: str | Path) -> bytes | OSError:
    """A file's bytes with as few syscalls as possible (one read for a tick file)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        return exc
    try:
        first = os.read(fd, _READ_SIZE)
        if len(first) < _READ_SIZE:
            return first
        chunks = [first]
        while chunk := os.read(fd, _READ_SIZE):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        return exc
    finally:
        os.close(fd)


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


def _checkpoints(slug: str, db: Path) -> tuple[pl.DataFrame, list[str]]:
    """The snapshots' counts, and a warning for each leniency applied to them.

    token-world declares ``tick_id INTEGER``; older or hand-made files hold text ids
    (``"42"``, ``"tick_42"``), which are read as tick numbers, with a warning.
    """
    uri = f"file:{db}?mode=ro"
    conn = sqlite3.connect(uri, uri=True)
    try:
        rows = conn.execute(
            "SELECT tick_id, typeof(tick_id), node_count, edge_count FROM graph_snapshots"
        ).fetchall()
    finally:
        conn.close()
    parsed = [
        {"slug": slug, "tick": tick_number(str(t)), "node_count": n, "edge_count": e}
        for t, _, n, e in rows
    ]
    warnings: list[str] = []
    texts = [t for t, kind, _, _ in rows if kind == "text"]
    if texts:
        warnings.append(
            f"{slug}: {db}: graph_snapshots.tick_id holds text in {len(texts)} rows"
            f" (e.g. {texts[0]!r}), read as tick numbers; token-world writes INTEGER"
        )
    unusable = [t for t, row in zip(rows, parsed, strict=True) if row["tick"] is None]
    if unusable:
        warnings.append(
            f"{slug}: {db}: {len(unusable)} snapshots skipped: tick_id={unusable[0][0]!r}"
            " is not a tick number"
        )
    frame = pl.DataFrame(parsed, schema=CHECKPOINTS_SCHEMA)
    return frame.filter(pl.col("tick").is_not_null()).sort("tick"), warnings


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(path, f"not readable YAML ({type(exc).__name__})") from exc


_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _issue(err: InputError) -> dict[str, Any]:
    return {"path": err.path, "line": err.line, "reason": str(err)}


def _run_parts(listing: Listing) -> tuple[Universe, list[dict[str, Any]]]:
    """Everything of a run except its tick files: config, batches, checkpoints."""
    root, slug = listing.root, listing.slug
    issues: list[dict[str, Any]] = []
    warnings: list[str] = []
    name = slug.replace("-", " ").replace("_", " ").title()
    conserved: tuple[str, ...] = ()
    extras = {p.name: p for p in listing.extras}
    if "universe.yaml" in extras:
        try:
            config = _read_yaml(extras["universe.yaml"])
            if isinstance(config, dict) and isinstance(config.get("name"), str):
                name = config["name"]
        except InputError as err:
            issues.append(_issue(err))
    if "conservation.yaml" in extras:
        try:
            cons = _read_yaml(extras["conservation.yaml"])
            props = cons.get("conserved_properties") if isinstance(cons, dict) else None
            if isinstance(props, list):
                conserved = tuple(str(p) for p in props)
        except InputError as err:
            issues.append(_issue(err))
    if not (root / "tick_summaries").is_dir():
        warnings.append(f"{slug}: no tick_summaries/ folder")
    batch_rows: list[dict[str, Any]] = []
    for kind, path in listing.compressed:
        try:
            batch_rows.append(_batch_row(slug, path, read_json(path), kind))
        except InputError as err:
            issues.append(_issue(err))
    checkpoints = pl.DataFrame(schema=CHECKPOINTS_SCHEMA)
    if "universe.db" in extras:
        db = extras["universe.db"]
        try:
            checkpoints, db_warnings = _checkpoints(slug, db)
            warnings.extend(db_warnings)
        except sqlite3.Error as exc:
            issues.append(
                {"path": str(db), "line": None, "reason": f"{db}: unreadable database ({exc})"}
            )
    else:
        warnings.append(f"{slug}: no universe.db, so graph fan-out has no checkpoints")
    part = Universe(
        ticks=pl.DataFrame(schema=TICKS_SCHEMA),
        batches=pl.DataFrame(batch_rows, schema=BATCHES_SCHEMA),
        checkpoints=checkpoints,
        issues=pl.DataFrame(schema=LOAD_ISSUES_SCHEMA),
        warnings=tuple(warnings),
        names={slug: name},
        paths={slug: root},
        conserved={slug: conserved},
    )
    return part, issues


#: Tick files parsed per bulk read: bounds the raw bytes and parse buffers held at once.
CHUNK_FILES = 5_000


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
    group: Sequence[Listing], bar: Any
) -> tuple[pl.DataFrame, dict[str, list[dict[str, Any]]]]:
    """Read and parse the tick files of a group of runs in one bulk read."""
    slugs: list[str] = []
    files: list[str] = []
    blobs: list[bytes] = []
    tick_issues: dict[str, list[dict[str, Any]]] = {}
    for listing in group:
        for path in listing.ticks:
            blob = _read_bytes(path)
            bar.update()
            if isinstance(blob, OSError):
                err = InputError(path, f"cannot read file ({blob})")
                tick_issues.setdefault(listing.slug, []).append(_issue(err))
                continue
            slugs.append(listing.slug)
            files.append(path)
            blobs.append(blob)
    ticks, errors = parse_ticks(slugs, files, blobs)
    del blobs
    by_path = dict(zip(files, slugs, strict=True))
    for err in errors:
        tick_issues.setdefault(by_path.get(err.path or "", ""), []).append(_issue(err))
    return ticks, tick_issues


def _build(listings: Sequence[Listing], progress: bool | None) -> list[Universe]:
    """Load runs from their files: tick files parsed in bulk, a chunk of runs at a time."""
    from tqdm.auto import tqdm

    frames: list[pl.DataFrame] = []
    tick_issues: dict[str, list[dict[str, Any]]] = {}
    with tqdm(
        total=sum(len(listing.ticks) for listing in listings),
        desc="reading tick files",
        unit="file",
        disable=(not progress) if progress is not None else None,
        leave=False,
        miniters=1000,
    ) as bar:
        for group in _chunks(listings):
            frame, group_issues = _parse_group(group, bar)
            frames.append(frame)
            for slug, found in group_issues.items():
                tick_issues.setdefault(slug, []).extend(found)
    ticks = pl.concat(frames) if frames else pl.DataFrame(schema=TICKS_SCHEMA)

    dupes = ticks.filter(pl.struct("slug", "tick").is_duplicated())
    if dupes.height:
        first = dupes.unique(subset=["slug", "tick"], keep="first", maintain_order=True)
        for row in dupes.join(first, on="source_file", how="anti").iter_rows(named=True):
            tick_issues.setdefault(row["slug"], []).append(
                {"path": row["source_file"], "line": None, "reason": "duplicate tick number"}
            )
        ticks = ticks.unique(subset=["slug", "tick"], keep="first", maintain_order=True)

    # Each run's rows are contiguous: zero-copy slices instead of a partitioned copy.
    extents = ticks.group_by("slug", maintain_order=True).len()
    offsets: dict[str, tuple[int, int]] = {}
    start = 0
    for slug, count in extents.iter_rows():
        offsets[slug] = (start, count)
        start += count
    out: list[Universe] = []
    for listing in listings:
        part, issues = _run_parts(listing)
        issues = tick_issues.get(listing.slug, []) + issues
        offset, length = offsets.get(listing.slug, (0, 0))
        out.append(
            Universe(
                ticks=ticks.slice(offset, length),
                batches=part.batches,
                checkpoints=part.checkpoints,
                issues=pl.DataFrame(issues, schema=LOAD_ISSUES_SCHEMA),
                warnings=part.warnings,
                names=part.names,
                paths=part.paths,
                conserved=part.conserved,
            )
        )
    return out


def _load(roots: Sequence[Path], cache: bool | str | Path, progress: bool | None) -> list[Universe]:
    from toolkit.load._cache import RunCache

    store = RunCache(cache) if cache else None
    listings = [list_run(r, stat=store is not None) for r in roots]
    found: dict[int, Universe] = store.get_many(listings) if store is not None else {}
    stale = [i for i in range(len(listings)) if i not in found]
    if stale:
        built = _build([listings[i] for i in stale], progress)
        for i, universe in zip(stale, built, strict=True):
            found[i] = universe
            if store is not None:
                store.put(listings[i], universe)
    return [found[i] for i in range(len(listings))]


def load_universe(
    path: str | Path, *, cache: bool | str | Path = False, progress: bool | None = False
) -> Universe:
    """Load one universe folder.

    Args:
        path: the run folder (its name is the slug).
        cache: ``True`` keeps normalised frames as Parquet in ``<run>/.toolkit_cache/``;
            a folder path keeps them there instead; ``False`` (default) reads the files.
            A cache entry is used only while every source file has the name, size and
            modification time it was built from.
        progress: show a progress bar (``None``: only on a terminal or in a notebook).

    Returns:
        A :class:`Universe` whose ``ticks`` frame has the columns of
        :data:`toolkit.frames.TICKS_SCHEMA` (slug, tick, schema_version, timestamp, actor,
        action_text, verb, target, mechanic, status, refusal_reason, rollback,
        continuation, mutation_count, claimed_count, unsupported_claims, grounded,
        grounded_source, observation_text, cost_usd, tokens_in, tokens_out, duration_ms,
        source_file), sorted by tick number.

    Raises:
        InputError: the folder does not exist or is not a folder.
    """
    root = Path(path)
    if not root.exists():
        raise InputError(root, "no such run folder")
    if not root.is_dir():
        raise InputError(root, "a run must be a folder (the universe's slug)")
    if root.name in ("", ".", ".."):
        root = root.resolve()
    return _load([root], cache, progress)[0]


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
    *patterns: str | Path, cache: bool | str | Path = False, progress: bool | None = None
) -> Universe:
    """Load every run folder matching the glob ``patterns`` into one set of frames.

    A folder counts as a run when it holds ``tick_summaries/``. Every frame carries the
    ``slug`` column, so ``universe.ticks.group_by("slug")`` works across runs. The tick
    files of all runs not served by the cache are parsed in one bulk read.

    Args:
        patterns: globs such as ``"runs/*"``.
        cache: as for :func:`load_universe`.
        progress: show a progress bar (``None``: only on a terminal or in a notebook).

    Raises:
        InputError: no run folder matches, or two runs share a slug.
    """
    dirs = _run_dirs(patterns)
    if not dirs:
        shown = ", ".join(str(p) for p in patterns)
        raise InputError(shown, "no run folders (with tick_summaries/) match")
    seen: dict[str, Path] = {}
    for d in dirs:
        if d.name in seen:
            raise InputError(d, f"two runs share the slug {d.name!r} (also {seen[d.name]})")
        seen[d.name] = d
    return combine(_load(dirs, cache, progress))
