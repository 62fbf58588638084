"""Loading listed runs: their tick files read and parsed in bulk, a chunk of runs at a
time, through each run's :class:`~toolkit.io.source.Source`; the rest of each run
(:mod:`toolkit.load._run_parts`) beside them; fresh runs from the cache."""

from __future__ import annotations

import contextlib
import ctypes
import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.frames import LOAD_ISSUES_SCHEMA
from toolkit.io import edge
from toolkit.load._run_listing import Listing
from toolkit.load._run_parts import fetch_parts, run_parts
from toolkit.load._run_result import Universe, frame, issue_row
from toolkit.load._ticks import Parsed, collector_paused, in_order, normalised, parse_raw

if TYPE_CHECKING:
    from toolkit.load._cache import RunCache

__all__ = ["CHUNK_BYTES", "CHUNK_FILES", "load_listed"]


#: Tick files parsed per bulk read: bounds the raw bytes and parse buffers held at once.
CHUNK_FILES = 5_000
#: ... and the bytes read before a parse (a chunk of large tick files is parsed in
#: several reads of about this much; token-world's files, about 1 KiB each, never are).
CHUNK_BYTES = 64 * 2**20
#: Parsed tick rows normalised together: :func:`~toolkit.load._ticks.normalise` costs
#: about 40 Polars operations whatever its rows (some 7 ms, against about 0.3 µs a row),
#: so the raw rows of several chunks (about the size of their frame, a fifth of their
#: files' bytes) are held and normalised in one call once there are this many.
NORMALISE_ROWS = 32_768


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


class _Group:
    """The tick files of a group of runs being read, and what their parse found."""

    def __init__(self, notes: dict[str, list[str]]) -> None:
        self.notes = notes
        self.slugs: list[str] = []
        self.files: list[str] = []
        self.packs: list[edge.Packed] = []  # the bytes read, one buffer a fetch
        self.pending = 0
        self.parts: list[Parsed] = []
        self.issues: dict[str, list[dict[str, Any]]] = {}

    def take(self, slugs: Sequence[str], read: Sequence[str], got: edge.Packed) -> None:
        """Hold the bytes read (a file that could not be read is an issue of its run)."""
        if got.problems:  # rare: the files read, packed again without the others
            blobs: list[bytes] = []
            for i, (slug, path) in enumerate(zip(slugs, read, strict=True)):
                if i in got.problems:
                    self.issues.setdefault(slug, []).append(issue_row(got.problems[i]))
                    continue
                self.slugs.append(slug)
                self.files.append(path)
                blobs.append(got[i])
            got = edge.pack(blobs)
        else:
            self.slugs.extend(slugs)
            self.files.extend(read)
        self.packs.append(got)
        self.pending += len(got.data)

    def parse(self) -> None:
        """Parse the bytes held into raw rows."""
        found: list[tuple[str, str]] = []
        packed = self.packs[0] if len(self.packs) == 1 else edge.join_packed(self.packs)
        parsed, errors = parse_raw(self.slugs, self.files, packed, found)
        self.parts.append(parsed)
        # each file's run, for its warnings and issues: most chunks have none (a dict of
        # 5,000 paths costs about 0.3 ms)
        by_path = dict(zip(self.files, self.slugs, strict=True)) if found or errors else {}
        for path, note in found:
            self.notes.setdefault(by_path[path], []).append(f"{by_path[path]}: {note}")
        for err in errors:
            self.issues.setdefault(by_path.get(err.path or "", ""), []).append(issue_row(err))
        self.slugs.clear()
        self.files.clear()
        self.packs.clear()
        self.pending = 0


def _parse_group(
    group: Sequence[Listing], bar: Any, notes: dict[str, list[str]]
) -> tuple[list[Parsed], dict[str, list[dict[str, Any]]]]:
    """Read and parse the tick files of a group of runs: in one bulk read per source,
    or in a few when their bytes pass :data:`CHUNK_BYTES` (a run's files may then be
    parsed in two reads; their frame once normalised is the same)."""
    held = _Group(notes)
    for source, same in itertools.groupby(group, key=lambda listing: listing.source):
        listed = list(same)
        paths = [p for listing in listed for p in listing.ticks]  # built here (see TickPaths)
        slugs = [s for x in listed for s in itertools.repeat(x.slug, len(x.ticks))]
        start = 0
        while start < len(paths):
            got = source.fetch_packed(paths[start:], CHUNK_BYTES - held.pending)
            end = start + len(got)
            held.take(slugs[start:end], paths[start:end], got)
            start = end
            bar.update(len(got))
            if held.pending >= CHUNK_BYTES:
                held.parse()
    if held.packs:
        held.parse()
    return held.parts, held.issues


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
        from tqdm.auto import tqdm  # tqdm: ~30 ms, only when a bar may show (see _NoBar)

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
    held: list[Parsed] = []  # parsed, not yet normalised (see NORMALISE_ROWS)
    with bar:
        for group in _chunks(listings):
            parsed, group_issues = _parse_group(group, bar, notes)
            for slug, found in group_issues.items():
                tick_issues.setdefault(slug, []).extend(found)
            held.extend(parsed)
            if sum(part.raw.height for part in held) >= NORMALISE_ROWS:
                frames.append(_first_of_each_tick(normalised(held), tick_issues))
                held = []
    if held or not frames:
        frames.append(_first_of_each_tick(normalised(held), tick_issues))
    ticks = pl.concat(frames) if len(frames) > 1 else frames[0]

    # Each run's rows are contiguous: zero-copy slices instead of a partitioned copy,
    # their lengths the slug column's run lengths (no hashing).
    extents = ticks["slug"].rle().struct.unnest()  # (a select of its columns: a query)
    offsets: dict[str, tuple[int, int]] = {}
    start = 0
    for slug, count in zip(extents["value"].to_list(), extents["len"].to_list(), strict=True):
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
    if in_order(ticks):  # as parse_ticks gives them: a repeat follows the row it repeats
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
    blobs = fetch_parts(group)
    out: list[Universe] = []
    for listing in group:
        part, issues = run_parts(listing, blobs)
        skipped = [{"path": p, "line": None, "reason": f"{p}: {r}"} for p, r in listing.skipped]
        issues = skipped + tick_issues.get(listing.slug, []) + issues
        offset, length = offsets.get(listing.slug, (0, 0))
        out.append(
            Universe(
                ticks=ticks.slice(offset, length),
                batches=part.batches,
                checkpoints=part.checkpoints,
                issues=frame(issues, LOAD_ISSUES_SCHEMA),
                warnings=part.warnings + tuple(notes.get(listing.slug, ())),
                names=part.names,
                paths=part.paths,
                conserved=part.conserved,
            )
        )
    return out


def _release_freed_heap() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; nothing
    where there is no such call).

    A fleet load reads its tick files' bytes into the C heap a chunk at a time; once the
    load is done, about 9 MiB of it is free but still held, under whatever the caller does
    next (scoring's own memory comes from Polars' allocator, which cannot reuse it). It
    costs about 1 ms after a 300-run load (docs/performance.md, "Memory")."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return
    trim(0)


def load_listed(
    listings: Sequence[Listing],
    cache: bool | str | Path,
    progress: bool | None,
    storage_options: Mapping[str, Any] | None = None,
) -> list[Universe]:
    """Load listed runs: fresh cache entries from the cache (a folder, or a URL reached
    with ``storage_options``), the rest from their files, then cached."""
    with collector_paused():  # loading makes many objects, none in a cycle
        store: RunCache | None = None
        if cache:
            # the Parquet cache's module (its manifest rules and msgspec encoder, ~1 ms of
            # CPU): only a load with --cache (or cache=...) needs it
            from toolkit.load._cache import RunCache

            store = RunCache(cache, storage_options)
        found: dict[int, Universe] = store.get_many(listings) if store is not None else {}
        stale = [i for i in range(len(listings)) if i not in found]
        if stale:
            built = _build([listings[i] for i in stale], progress)
            found.update(zip(stale, built, strict=True))
            if store is not None:
                store.put_many([(listings[i], found[i]) for i in stale])
    if sum(len(listing.ticks) for listing in listings) >= CHUNK_FILES:
        _release_freed_heap()
    return [found[i] for i in range(len(listings))]
