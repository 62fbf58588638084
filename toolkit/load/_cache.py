"""A Parquet cache of loaded runs, keyed on the source files' names, sizes and mtimes.

Layout of one run's entry (``<run>/.toolkit_cache/`` or ``<cache dir>/<slug>-<hash>/``)::

    manifest.json                 {"format", "key": [[file, size, mtime_ns]...], "parts", ...}
    <part>-<digest>.parquet       ticks, batches, checkpoints, issues

The Parquet files carry the digest of the listing they were built from and the manifest
names them; the manifest is replaced last and atomically, so a reader sees either the old
entry or the new one, whole. An entry is used only when its key equals the current
listing, its frames have today's schemas, and every file reads; otherwise the run is
loaded from its files again and the entry rewritten. A cache never decides a score.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit._atomic import write_text_atomic
from toolkit.frames import BATCHES_SCHEMA, CHECKPOINTS_SCHEMA, LOAD_ISSUES_SCHEMA, TICKS_SCHEMA

if TYPE_CHECKING:
    from toolkit.load.universe import Listing, Universe

#: Bump when the cached frames' meaning changes: every older entry is then rebuilt.
CACHE_FORMAT = 1
FOLDER_NAME = ".toolkit_cache"
_PARTS: dict[str, dict[str, pl.DataType]] = {
    "ticks": TICKS_SCHEMA,
    "batches": BATCHES_SCHEMA,
    "checkpoints": CHECKPOINTS_SCHEMA,
    "issues": LOAD_ISSUES_SCHEMA,
}


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
        where = hashlib.sha256(str(listing.root.resolve()).encode()).hexdigest()[:12]
        return self.location / f"{listing.slug}-{where}"

    def get(self, listing: Listing) -> Universe | None:
        """The cached run, or ``None`` when missing, stale or unreadable."""
        from toolkit.load.universe import Universe

        folder = self.folder(listing)
        try:
            manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
            if manifest.get("format") != CACHE_FORMAT:
                return None
            if [tuple(k) for k in manifest["key"]] != list(listing.key):
                return None
            frames: dict[str, pl.DataFrame] = {}
            for part, schema in _PARTS.items():
                frame = pl.read_parquet(folder / manifest["parts"][part])
                if frame.schema != pl.Schema(schema):
                    return None
                frames[part] = frame
            slug = listing.slug
            return Universe(
                ticks=frames["ticks"],
                batches=frames["batches"],
                checkpoints=frames["checkpoints"],
                issues=frames["issues"],
                warnings=tuple(manifest["warnings"]),
                names={slug: manifest["name"]},
                paths={slug: listing.root},
                conserved={slug: tuple(manifest["conserved"])},
            )
        except (OSError, ValueError, KeyError, TypeError, pl.exceptions.PolarsError):
            return None  # corrupt or half-written: rebuilt by the caller

    def put(self, listing: Listing, universe: Universe) -> None:
        """Store a freshly loaded run (best effort: a read-only folder just skips it)."""
        folder = self.folder(listing)
        digest = _digest(listing)
        slug = listing.slug
        frames = {
            "ticks": universe.ticks,
            "batches": universe.batches,
            "checkpoints": universe.checkpoints,
            "issues": universe.issues,
        }
        try:
            folder.mkdir(parents=True, exist_ok=True)
            parts: dict[str, str] = {}
            for part, frame in frames.items():
                name = f"{part}-{digest}.parquet"
                tmp = folder / f".{name}.{os.getpid()}.tmp"
                frame.write_parquet(tmp)
                os.replace(tmp, folder / name)
                parts[part] = name
            manifest: dict[str, Any] = {
                "format": CACHE_FORMAT,
                "key": [list(k) for k in listing.key],
                "parts": parts,
                "name": universe.names[slug],
                "conserved": list(universe.conserved.get(slug, ())),
                "warnings": list(universe.warnings),
            }
            write_text_atomic(folder / "manifest.json", json.dumps(manifest))
        except OSError:
            return
        for old in folder.glob("*.parquet"):
            if digest not in old.name:
                with contextlib.suppress(OSError):
                    old.unlink()
