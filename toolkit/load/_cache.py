"""A Parquet cache of loaded runs, keyed on the source files' names, sizes and mtimes.

One run's entry (``<run>/.toolkit_cache/`` or ``<cache dir>/<slug>-<hash>/``)::

    manifest.json              {"format", "key": [[file, size, mtime_ns]...], "ticks": file,
                                "batches"/"checkpoints"/"issues": the small frames, ...}
    ticks-<digest>.parquet     the ticks frame

The Parquet file carries the digest of the listing it was built from and the manifest
names it; the manifest is replaced last and atomically, so a reader sees either the old
entry or the new one, whole. An entry is used only when its key equals the current
listing, its frames have today's schemas, and everything reads; otherwise the run is
loaded from its files again and the entry rewritten. The tick files of every fresh entry
are read in one multi-file Parquet read.

The cache never reaches outside its folder: a cache folder that is a symlink is neither
read nor written, the manifest may only name a ``ticks-<digest>.parquet`` regular file
beside it, and the only file ever deleted is the Parquet file the previous manifest
named (never a symlink, never a file the cache did not write).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit._atomic import atomic_path, remove_leftovers, write_text_atomic
from toolkit.errors import InputError
from toolkit.frames import BATCHES_SCHEMA, CHECKPOINTS_SCHEMA, LOAD_ISSUES_SCHEMA, TICKS_SCHEMA
from toolkit.load import _edge

if TYPE_CHECKING:
    from toolkit.load.universe import Listing, Universe

#: Bump when the cached frames' meaning changes: every older entry is then rebuilt.
CACHE_FORMAT = 3
FOLDER_NAME = ".toolkit_cache"
_SMALL: dict[str, dict[str, pl.DataType]] = {
    "batches": BATCHES_SCHEMA,
    "checkpoints": CHECKPOINTS_SCHEMA,
    "issues": LOAD_ISSUES_SCHEMA,
}
_ERRORS = (
    OSError,
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    InputError,
    pl.exceptions.PolarsError,
)
#: The only files an entry holds besides its manifest (so the only ones it may delete).
_TICKS_FILE = re.compile(r"^ticks-[0-9a-f]{16}\.parquet$")


def _digest(listing: Listing) -> str:
    blob = json.dumps([CACHE_FORMAT, str(listing.root), listing.key]).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


class RunCache:
    """Where cached runs live: beside each run (``True``) or under one folder."""

    def __init__(self, location: bool | str | Path) -> None:
        self.location = None if isinstance(location, bool) else Path(location)

    def folder(self, listing: Listing) -> Path:
        """The cache folder of one run."""
        if self.location is None:
            return listing.root / FOLDER_NAME
        ident = (
            listing.source.url(str(listing.root))
            if listing.source is not None
            else str(listing.root.resolve())
        )
        where = hashlib.sha256(ident.encode()).hexdigest()[:12]
        return self.location / f"{listing.slug}-{where}"

    def _manifest(self, folder: Path) -> dict[str, Any] | None:
        """The entry's manifest when it is sound (a dict naming a ticks file of its own)."""
        if os.path.islink(folder):
            return None
        try:
            manifest = _edge.parse_json(_edge.read_bytes(folder / "manifest.json"), folder)
        except _ERRORS:
            return None
        if not isinstance(manifest, dict) or not _TICKS_FILE.match(str(manifest.get("ticks"))):
            return None
        return manifest

    def _entry(self, listing: Listing) -> tuple[Path, dict[str, pl.DataFrame], Any] | None:
        folder = self.folder(listing)
        manifest = self._manifest(folder)
        if manifest is None:
            return None
        try:
            if manifest.get("format") != CACHE_FORMAT:
                return None
            ticks = folder / manifest["ticks"]
            if not stat.S_ISREG(os.lstat(ticks).st_mode):
                return None
            if not isinstance(manifest["name"], str) or not all(
                isinstance(manifest[k], list) for k in ("warnings", "conserved")
            ):
                return None
            if [tuple(k) for k in manifest["key"]] != list(listing.key):
                return None
            small = {
                part: pl.read_json(io.StringIO(manifest[part]), schema=schema)
                for part, schema in _SMALL.items()
            }
            return ticks, small, manifest
        except _ERRORS:
            return None  # corrupt or half-written: rebuilt by the caller

    def get_many(self, listings: Sequence[Listing]) -> dict[int, Universe]:
        """The fresh cached runs among ``listings``, by index; the rest are misses."""
        from toolkit.load.universe import Universe

        entries = {i: e for i, listing in enumerate(listings) if (e := self._entry(listing))}
        if not entries:
            return {}
        ticks = self._read_ticks([e[0] for e in entries.values()])
        if ticks is None:  # some file is bad: find it the slow way, keep the good ones
            good = {}
            for i, entry in entries.items():
                if self._read_ticks([entry[0]]) is not None:
                    good[i] = entry
            entries = good
            ticks = self._read_ticks([e[0] for e in entries.values()]) if entries else None
        per_run = (
            ticks.partition_by("slug", as_dict=True, maintain_order=True)
            if ticks is not None
            else {}
        )
        out: dict[int, Universe] = {}
        for i, (_, small, manifest) in entries.items():
            slug = listings[i].slug
            out[i] = Universe(
                ticks=per_run.get((slug,), pl.DataFrame(schema=TICKS_SCHEMA)),
                batches=small["batches"],
                checkpoints=small["checkpoints"],
                issues=small["issues"],
                warnings=tuple(manifest["warnings"]),
                names={slug: manifest["name"]},
                paths={slug: listings[i].root},
                conserved={slug: tuple(manifest["conserved"])},
            )
        return out

    @staticmethod
    def _read_ticks(files: Sequence[Path]) -> pl.DataFrame | None:
        try:
            frame = pl.read_parquet(list(files))
        except _ERRORS:
            return None
        return frame if frame.schema == pl.Schema(TICKS_SCHEMA) else None

    def put(self, listing: Listing, universe: Universe) -> None:
        """Store a freshly loaded run (best effort: a read-only folder just skips it)."""
        folder = self.folder(listing)
        digest = _digest(listing)
        slug = listing.slug
        name = f"ticks-{digest}.parquet"
        if os.path.islink(folder):
            return  # a cache folder that leads elsewhere is never written (nor cleaned)
        old = self._manifest(folder)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            remove_leftovers(folder)
            with atomic_path(folder / name, durable=False) as tmp:
                universe.ticks.write_parquet(tmp, statistics=False)
            manifest: dict[str, Any] = {
                "format": CACHE_FORMAT,
                "key": [list(k) for k in listing.key],
                "ticks": name,
                "batches": universe.batches.write_json(),
                "checkpoints": universe.checkpoints.write_json(),
                "issues": universe.issues.write_json(),
                "name": universe.names[slug],
                "conserved": list(universe.conserved.get(slug, ())),
                "warnings": list(universe.warnings),
            }
            write_text_atomic(folder / "manifest.json", json.dumps(manifest), durable=False)
        except OSError:
            return
        previous = None if old is None else str(old["ticks"])
        if previous is not None and previous != name:
            stale = folder / previous
            with contextlib.suppress(OSError):
                if stat.S_ISREG(os.lstat(stale).st_mode):
                    stale.unlink()
