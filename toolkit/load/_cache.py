"""A Parquet cache of loaded runs, keyed on the source files' names, sizes and change
marks (:func:`toolkit.io.source.file_mark`; ETags for objects), on the local disk or
in object storage.

One run's entry (``<run>/.toolkit_cache/``, ``<cache dir>/<slug>-<hash>/`` or
``<cache url>/<slug>-<hash>/``)::

    manifest.json              {"format", "key": [[file, size, mark]...], "ticks": file,
                                "rows", "batches"/"checkpoints"/"issues": the small frames, ...}
    ticks-<digest>.parquet     the ticks frame

The Parquet file carries the digest of the listing it was built from and the manifest
names it; the manifest is written last (renamed into place on disk; one PUT in object
storage, which is atomic), so a reader sees either the old entry or the new one, whole.
A load writes the Parquet files of all its rebuilt runs first, then their manifests (in
object storage, one concurrent request each).
An entry is used only when its key equals the current listing, its frames have today's
schemas and row count, and everything reads; otherwise the run is loaded from its files
again and the entry rewritten. The manifests of all runs are fetched at once (one batched
request in object storage), then the tick files of every fresh entry, read by Polars in
one multi-file read from their bytes; every byte passes the reading edge's size check.

The cache never reaches outside its folder: a cache folder that is a symlink is neither
read nor written, the manifest may only name a ``ticks-<digest>.parquet`` file beside it
(a regular file on disk), and the only file ever deleted is the Parquet file the previous
manifest named (never a symlink, never a file the cache did not write).

Writing is best effort: a cache that cannot be written (a read-only folder, a missing
bucket, no permission) never costs the load its answer. The first failure of a load is
reported once as a :class:`~toolkit.errors.CacheWarning` (one line on the CLI's stderr;
forwarded to the client when the load runs on a Dask worker), and a cache in one place
is not tried again for the rest of that load.

The cache wraps a :class:`~toolkit.io.source.Source` (a cache folder on disk, or a URL):
validation, keys and decoding are :class:`RunCache`'s alone, the bytes the source's.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
import polars as pl

from toolkit.errors import CacheWarning, InputError
from toolkit.frames import (
    BATCHES_SCHEMA,
    CHECKPOINTS_SCHEMA,
    LOAD_ISSUES_SCHEMA,
    TICKS_SCHEMA,
    slices,
)
from toolkit.io import edge
from toolkit.io.atomic import safe_file_name
from toolkit.io.source import LocalSource, Source, open_source
from toolkit.load._run_listing import Listing
from toolkit.load._run_result import Universe

#: Bump when the cached frames' meaning changes: every older entry is then rebuilt.
#: (5: the Parquet file's digest is taken over msgspec's encoding of the key.)
CACHE_FORMAT = 5
FOLDER_NAME = ".toolkit_cache"
MANIFEST = "manifest.json"
_SMALL: dict[str, dict[str, pl.DataType]] = {
    "batches": BATCHES_SCHEMA,
    "checkpoints": CHECKPOINTS_SCHEMA,
    "issues": LOAD_ISSUES_SCHEMA,
}
_KEY_ENCODE = msgspec.json.Encoder().encode
_ERRORS = (
    OSError,
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    InputError,
    pl.exceptions.PolarsError,
    pl.exceptions.PanicException,  # Polars' reader on some damaged files
)
#: The only files an entry holds besides its manifest (so the only ones it may delete).
#: (Text: ``re`` compiles it on first use, which only a load with a cache makes;
#: compiled at import, it cost every one-run command, issue 38.)
_TICKS_FILE = r"^ticks-[0-9a-f]{16}\.parquet$"


def _digest(listing: Listing) -> str:
    """Names an entry's Parquet file: the format, where the run is (its absolute path or
    its URL) and its files' key."""
    where = listing.source.absolute(str(listing.root))
    blob = _KEY_ENCODE([CACHE_FORMAT, where, listing.key])  # msgspec: C, ~10x json.dumps
    return hashlib.sha256(blob).hexdigest()[:16]


# ---------------------------------------------------------------------------
# The cache
# ---------------------------------------------------------------------------


class RunCache:
    """Where cached runs live: beside each local run (``True``), under one local folder,
    or under one URL (``s3://bucket/cache``, ``gs://…``, ``az://…``; ``file://`` is the
    local disk) reached with ``storage_options``.

    Raises:
        InputError: a URL with an unknown scheme, or whose back-end is not installed.
    """

    def __init__(
        self, location: bool | str | Path, storage_options: Mapping[str, Any] | None = None
    ) -> None:
        self.root: str | None = None
        self.source: Source
        self.where: str
        if isinstance(location, bool):  # beside each run: every path names its own folder
            self.source = LocalSource(Path(os.curdir))
            self.where = FOLDER_NAME
        else:
            self.source = open_source(location, storage_options)
            self.root = self.source.root
            self.where = self.source.url()
        #: Whether every entry lives in one place, so that one failed write says the rest
        #: fail too (object storage: most often the whole store's failure, no bucket).
        self.one_place = self.source.disk is None
        #: The first write that failed in this cache's life (one warning, then no retries
        #: when the cache is in one place).
        self.failure: str | None = None
        self._warned_size = False
        #: The manifests read by :meth:`get_many`, by entry folder (so a miss is rewritten
        #: without fetching its manifest again).
        self._seen: dict[str, dict[str, Any] | None] = {}

    def folder(self, listing: Listing) -> str:
        """The cache folder (or prefix) of one run."""
        if self.root is None:
            return os.path.join(listing.root, FOLDER_NAME)
        ident = listing.source.identity(str(listing.root))
        where = hashlib.sha256(ident.encode()).hexdigest()[:12]
        return self.source.join(self.root, f"{safe_file_name(listing.slug)}-{where}")

    def _read_many(self, paths: Sequence[str]) -> dict[str, bytes | None]:
        """The bytes of each file, within the reading edge's size limit; ``None`` for a
        file that is missing, unreadable, too big, not a regular file or a symlink."""
        wanted = [p for p in paths if not self.source.is_link(p)]
        try:
            got = self.source.fetch(wanted)  # object storage: concurrent requests, one call
        except InputError:
            return dict.fromkeys(paths)  # storage out of reach: every entry is a miss
        return {p: None if isinstance(b := got.get(p), InputError) else b for p in paths}

    def _write_many(
        self, files: Sequence[tuple[str, str, bytes]]
    ) -> dict[str, OSError | InputError]:
        """Replace each file ``(folder, name, bytes)`` atomically; every file is written,
        or has failed, before this returns.

        Returns:
            The entries (folders) a file of which could not be written, with why.
        """
        paths = {self.source.join(f, name): f for f, name, _ in files}
        failed = self.source.put_many(
            {self.source.join(f, name): data for f, name, data in files},
            durable=False,  # a cache is rebuilt, never lost
            own_folders=True,  # the cache owns its folders
        )
        out: dict[str, OSError | InputError] = {}
        for path, err in failed.items():
            out.setdefault(paths[path], err)
        return out

    @staticmethod
    def _manifest(blob: bytes | None, where: str) -> dict[str, Any] | None:
        """The entry's manifest when it is sound (a dict naming a ticks file of its own)."""
        if blob is None:
            return None
        try:  # the cache's own file: msgspec parses it in C (the reading edge's careful
            # JSON parse cost a fifth of a warm load); anything odd is a miss, not an error
            manifest = msgspec.json.decode(blob)
        except (msgspec.DecodeError, ValueError, RecursionError):  # ValueError: not UTF-8
            return None
        if not isinstance(manifest, dict) or not re.match(_TICKS_FILE, str(manifest.get("ticks"))):
            return None
        return manifest

    @staticmethod
    def _fresh(manifest: dict[str, Any], listing: Listing) -> dict[str, pl.DataFrame] | None:
        """The small frames of an entry of today's format built from ``listing``'s files;
        ``None`` when anything differs or does not read (corrupt or half-written)."""
        try:
            if manifest.get("format") != CACHE_FORMAT:
                return None
            if not isinstance(manifest["name"], str) or not all(
                isinstance(manifest[k], list) and all(isinstance(v, str) for v in manifest[k])
                for k in ("warnings", "conserved")
            ):
                return None
            # The Parquet file is named by the digest of the listing it was built from,
            # and that digest covers the run's folder: an entry carried along when a run
            # is renamed or copied (its files' names, sizes and mtimes unchanged) holds
            # another run's frames and is never used.
            if manifest["ticks"] != f"ticks-{_digest(listing)}.parquet":
                return None
            rows = manifest["rows"]
            if isinstance(rows, bool) or not isinstance(rows, int) or rows < 0:
                return None
            if [tuple(k) for k in manifest["key"]] != list(listing.key):
                return None
            return {
                part: pl.read_json(io.StringIO(manifest[part]), schema=schema)
                for part, schema in _SMALL.items()
            }
        except _ERRORS:
            return None

    def get_many(self, listings: Sequence[Listing]) -> dict[int, Universe]:
        """The fresh cached runs among ``listings``, by index; the rest are misses."""
        folders = {i: self.folder(listing) for i, listing in enumerate(listings)}
        folders = {i: f for i, f in folders.items() if not self.source.is_link(f)}
        blobs = self._read_many([self.source.join(f, MANIFEST) for f in folders.values()])
        entries: dict[int, tuple[str, dict[str, pl.DataFrame], dict[str, Any]]] = {}
        for i, folder in folders.items():
            manifest = self._manifest(blobs[self.source.join(folder, MANIFEST)], folder)
            self._seen[folder] = manifest
            small = None if manifest is None else self._fresh(manifest, listings[i])
            if manifest is not None and small is not None:
                entries[i] = (self.source.join(folder, manifest["ticks"]), small, manifest)
        if not entries:
            return {}
        got = self._read_many([path for path, _, _ in entries.values()])
        parquet = {i: blob for i, (path, _, _) in entries.items() if (blob := got[path])}
        entries = {i: e for i, e in entries.items() if i in parquet}
        rows = {i: manifest["rows"] for i, (_, _, manifest) in entries.items()}
        frames = self._decode(list(parquet.values()), list(rows.values()))
        if frames is None:  # some file is bad: decode one at a time, keep the good ones
            single = {i: self._decode([parquet[i]], [rows[i]]) for i in entries}
            entries = {i: e for i, e in entries.items() if single[i] is not None}
            frames = [frame for i in entries for frame in single[i] or ()]
        out: dict[int, Universe] = {}
        for (i, (_, small, manifest)), frame in zip(entries.items(), frames, strict=True):
            slug = listings[i].slug
            out[i] = Universe(
                ticks=frame,
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
    def _decode(blobs: Sequence[bytes], rows: Sequence[int]) -> list[pl.DataFrame] | None:
        """The ticks frames of Parquet files in one multi-file read, each the number of
        rows its manifest names; ``None`` when any does not read or does not fit."""
        if not blobs:
            return []
        try:
            frame = pl.read_parquet(list(blobs))
        except _ERRORS:
            return None
        if frame.schema != pl.Schema(TICKS_SCHEMA) or frame.height != sum(rows):
            return None
        return slices(frame, rows)

    def put_many(self, loaded: Sequence[tuple[Listing, Universe]]) -> None:
        """Store freshly loaded runs (best effort: see the module's docstring).

        Every entry's Parquet file is written before any manifest that names it (in object
        storage: one concurrent request for the Parquet objects, then one for the
        manifests); then the Parquet files the replaced manifests named are deleted."""
        if self.failure is not None and self.one_place:
            return
        entries: list[tuple[str, str, bytes, bytes]] = []
        limit = edge.limits().max_file_bytes
        for listing, universe in loaded:
            folder = self.folder(listing)
            if self.source.is_link(folder):
                continue  # a cache folder that leads elsewhere is never written (nor cleaned)
            name = f"ticks-{_digest(listing)}.parquet"
            manifest = _manifest_bytes(listing, name, universe)
            ticks = _parquet(universe.ticks)
            if max(len(ticks), len(manifest)) > limit:  # it could never be read back
                self._too_big(listing.slug, max(len(ticks), len(manifest)), limit)
                continue
            entries.append((folder, name, ticks, manifest))
        unseen = {self.source.join(f, MANIFEST): f for f, *_ in entries if f not in self._seen}
        got = self._read_many(list(unseen))  # the manifests about to be replaced
        for path, folder in unseen.items():
            self._seen[folder] = self._manifest(got[path], folder)
        # Every Parquet file first, then the manifests of the entries whose Parquet file
        # was written (a manifest never names a file that is not there).
        failed = self._write_many([(f, name, ticks) for f, name, ticks, _ in entries])
        written = [e for e in entries if e[0] not in failed]
        failed.update(self._write_many([(f, MANIFEST, m) for f, _, _, m in written]))
        for folder, exc in failed.items():
            self._failed(folder, exc)
        stale: list[tuple[str, str]] = []
        for folder, name, _, _ in written:
            if folder in failed:
                continue
            old = self._seen.pop(folder, None)
            previous = None if old is None else str(old["ticks"])  # matched _TICKS_FILE
            if previous is not None and previous != name:
                stale.append((folder, previous))
        self.source.remove_many([self.source.join(f, name) for f, name in stale])

    def _too_big(self, slug: str, size: int, limit: int) -> None:
        """One warning per cache for entries over the reading edge's size limit."""
        if self._warned_size:
            return
        self._warned_size = True
        _warn(
            f"{self.where}: run {slug}: its cache entry would be {size:,} bytes, over the "
            f"limit of {limit:,} (TOOLKIT_MAX_FILE_BYTES) it is read back with, so it is "
            "not cached; the scores are complete"
        )

    def _failed(self, folder: str, exc: OSError | InputError) -> None:
        if self.failure is not None:
            return
        if isinstance(exc, InputError):
            why = exc.reason
            if exc.path is not None and "://" not in exc.path:  # a file of a cache on disk
                why = f"{why}: {exc.path}"
        else:
            why = exc.strerror or " ".join(str(exc).split()) or type(exc).__name__
            if exc.filename is not None:  # which file of the cache, when the disk says
                why = f"{why}: {exc.filename}"
        where = folder if self.root is None else self.where
        self.failure = (
            f"{where}: cannot write the run cache: {why}; the scores are complete (runs "
            "not cached are read from their files again next time)"
        )
        _warn(self.failure)


def _parquet(ticks: pl.DataFrame) -> bytes:
    buffer = io.BytesIO()
    ticks.write_parquet(buffer, statistics=False)
    return buffer.getvalue()


def _manifest_bytes(listing: Listing, ticks: str, universe: Universe) -> bytes:
    """The manifest of a run's entry whose ticks frame is in the file ``ticks``."""
    slug = listing.slug
    manifest: dict[str, Any] = {
        "format": CACHE_FORMAT,
        "key": [list(k) for k in listing.key],
        "ticks": ticks,
        "rows": universe.ticks.height,
        "batches": universe.batches.write_json(),
        "checkpoints": universe.checkpoints.write_json(),
        "issues": universe.issues.write_json(),
        "name": universe.names[slug],
        "conserved": list(universe.conserved.get(slug, ())),
        "warnings": list(universe.warnings),
    }
    return json.dumps(manifest).encode()


def _warn(text: str) -> None:
    """Warn here, or (on a Dask worker) at the client that submitted the task."""
    dist = sys.modules.get("distributed")
    if dist is not None:
        try:
            dist.get_worker()
        except ValueError:
            pass
        else:
            with warnings.catch_warnings():  # the worker's own stderr is not the user's
                warnings.simplefilter("ignore", CacheWarning)
                dist.warn(text, CacheWarning)
            return
    warnings.warn(text, CacheWarning, stacklevel=4)
