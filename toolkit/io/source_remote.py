"""A folder in object storage as a :class:`~toolkit.io.source_base.Source`, reached
through fsspec: many small objects fetched concurrently on fsspec's event loop (never one
blocking GET at a time, never a key expanded as a glob). Credentials come from each
cloud's usual chain (environment variables, profiles, instance roles); ``storage_options``
are passed to fsspec as they are (for example ``endpoint_url``). fsspec is imported only
when a URL is used."""

from __future__ import annotations

import contextlib
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.io.network import deadlines, filesystem, is_timeout
from toolkit.io.source_base import Folder, Kind, Source, version_mark

__all__ = ["CONCURRENT_GETS", "RemoteSource"]

#: How many object GETs :meth:`RemoteSource.cat_many` keeps in flight at once.
CONCURRENT_GETS = 64


def _first_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass(frozen=True)
class RemoteSource(Source):
    """A folder in object storage, reached through fsspec.

    Attributes:
        protocol: the URL scheme (``s3``).
        root: the folder's fsspec path, ``bucket/prefix`` without a trailing slash.
        storage_options: passed to ``fsspec.filesystem`` (credentials from the usual
            chain when empty). Plain data, so a source pickles to Dask workers, which
            open their own connection.
    """

    protocol: str
    root: str
    storage_options: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def fs(self) -> Any:
        """The fsspec filesystem (fsspec caches instances, so this is cheap), with the
        network deadlines of :mod:`toolkit.io.network`.

        Raises:
            InputError: the back-end refuses the storage options.
        """
        return filesystem(self.protocol, self.storage_options)

    def url(self, path: str | None = None) -> str:
        """``protocol://path`` of a path inside this source (the root by default)."""
        return f"{self.protocol}://{self.root if path is None else path}"

    def join(self, folder: str, *names: str) -> str:
        return "/".join([folder.rstrip("/"), *names])

    def lookup(self, folder: str, ref: str) -> str | None:
        """A key has no ``..``: they are resolved here, within the folder's bucket."""
        key = posixpath.normpath(f"{folder}/{ref}")
        bucket = folder.split("/", 1)[0]
        return key if key.startswith(bucket + "/") else None

    def at(self, path: str) -> RemoteSource:
        return RemoteSource(self.protocol, path.rstrip("/"), self.storage_options)

    def identity(self, path: str | None = None) -> str:
        return self.url(path)

    def absolute(self, path: str | None = None) -> str:
        return self.url(path)

    def same_store(self, other: Source) -> bool:
        return (
            isinstance(other, RemoteSource)
            and other.protocol == self.protocol
            and dict(other.storage_options) == dict(self.storage_options)
        )

    def kind(self, path: str | None = None) -> Kind:
        return "unknown"

    def error(self, exc: BaseException, path: str | None = None, what: str = "read") -> InputError:
        """A storage failure as a one-line :class:`InputError` naming the URL."""
        where = self.url(path)
        if isinstance(exc, FileNotFoundError):
            return InputError(where, "no such bucket or folder (check the URL and the region)")
        if is_timeout(exc):
            return InputError(
                where, f"cannot {what}: no answer in time ({_first_line(exc)}; "
                f"{deadlines().said()})",
            )  # fmt: skip
        if isinstance(exc, PermissionError):
            return InputError(
                where,
                f"access denied ({_first_line(exc)}); check the credentials in the "
                "environment or profile, or pass --storage-option",
            )
        return InputError(where, f"cannot {what} ({_first_line(exc)})")

    def subfolders(self, path: str | None = None) -> list[str]:
        """The folders directly inside a folder (the root by default; fsspec paths,
        sorted).

        Raises:
            InputError: the bucket or folder does not exist, or cannot be listed.
        """
        folder = self.root if path is None else path
        fs = self.fs
        try:
            fs.invalidate_cache(folder)
            entries = fs.ls(folder, detail=True)
        except Exception as exc:  # any back-end's failure becomes one line
            raise self.error(exc, None if path is None else path, "list the folder") from exc
        return sorted(
            e["name"].rstrip("/") for e in entries if e.get("type") == "directory"
        )  # fmt: skip

    def glob(self, pattern: str) -> list[str]:
        fs = self.fs
        try:
            hits = fs.glob(pattern, detail=True)
        except Exception as exc:
            raise self.error(exc, what="list the folder") from exc
        dirs = sorted(str(k).rstrip("/") for k, v in hits.items() if v.get("type") == "directory")
        if not dirs:  # say so when the bucket itself is missing
            try:
                fs.ls(pattern.split("/")[0])
            except Exception as exc:
                raise self.error(exc, what="list the bucket") from exc
        return dirs

    def _each(self, method: str, calls: Sequence[tuple[Any, ...]], **kwargs: Any) -> list[Any]:
        """``fs.<method>(*args, **kwargs)`` for every ``args`` of ``calls``: concurrently
        on fsspec's event loop for asynchronous back-ends (s3fs, gcsfs, adlfs; at most
        :data:`CONCURRENT_GETS` in flight), else one after another. Each path is the exact
        key it names (never expanded as a glob); a call's failure is returned in its
        place, not raised."""
        fs = self.fs
        if getattr(fs, "async_impl", False):
            return _each_async(fs, getattr(fs, f"_{method}"), calls, kwargs)
        out: list[Any] = []
        for args in calls:
            try:
                out.append(getattr(fs, method)(*args, **kwargs))
            except Exception as exc:  # returned in its place, as above
                out.append(exc)
        return out

    def find_many(self, folders: Sequence[str]) -> list[dict[str, dict[str, Any]]]:
        """Every object under each folder: ``{path relative to the folder: info}``.

        The folders are listed concurrently on asynchronous back-ends (s3fs, gcsfs,
        adlfs); an info holds ``size`` and the back-end's version marks (ETag,
        LastModified, …).

        Raises:
            InputError: a folder cannot be listed.
        """
        fs = self.fs
        try:
            for folder in folders:
                fs.invalidate_cache(folder)
            found = self._each("find", [(f,) for f in folders], detail=True)
        except Exception as exc:
            raise self.error(exc, what="list the folders") from exc
        out: list[dict[str, dict[str, Any]]] = []
        for folder, hits in zip(folders, found, strict=True):
            if isinstance(hits, BaseException):
                raise self.error(hits, folder, what="list the folder")
            prefix = folder.rstrip("/") + "/"
            out.append(
                {
                    name[len(prefix) :]: info
                    for name, info in hits.items()
                    if name.startswith(prefix) and info.get("type", "file") != "directory"
                }
            )
        return out

    def list_many(
        self, roots: Sequence[str], subs: Sequence[str] = ("",), *, marks: bool = True
    ) -> list[dict[str, Folder]]:
        """:meth:`Source.list_many` from one concurrent :meth:`find_many` of the roots
        (an object's marks are its size and :func:`version_mark`)."""
        out: list[dict[str, Folder]] = []
        for root, objects in zip(roots, self.find_many(roots), strict=True):
            files: dict[str, list[str]] = {sub: [] for sub in subs}
            noted: dict[str, dict[str, tuple[int, int]]] = {sub: {} for sub in subs}
            folders: dict[str, dict[str, None]] = {sub: {} for sub in subs}
            for rel, info in objects.items():
                parent, _, name = rel.rpartition("/")
                if parent in files:
                    files[parent].append(name)
                    if marks:
                        noted[parent][name] = (int(info.get("size") or 0), version_mark(info))
                for sub in subs:  # the subfolders an object's key passes through
                    prefix = f"{sub}/" if sub else ""
                    if rel.startswith(prefix) and "/" in rel[len(prefix) :]:
                        folders[sub][rel[len(prefix) :].split("/", 1)[0]] = None
            out.append(
                {
                    sub: Folder(
                        self.join(root, sub) if sub else root,
                        files[sub],
                        noted[sub],
                        folders=list(folders[sub]),
                    )
                    for sub in subs
                }
            )
        return out

    def cat_many(self, paths: Sequence[str]) -> dict[str, bytes | OSError]:
        """The bytes of many objects at once (concurrent requests on fsspec's event loop).

        Each path is fetched as the one object it names: never expanded as a glob, so a
        key holding ``[``, ``*`` or ``?`` is read as it is (fsspec's batched ``cat``
        would expand it). At most :data:`CONCURRENT_GETS` requests are in flight.
        A path that cannot be read maps to an :class:`OSError` saying why.

        Raises:
            InputError: the storage could not be reached at all.
        """
        if not paths:
            return {}
        try:
            got = self._each("cat_file", [(p,) for p in paths])
        except Exception as exc:
            raise self.error(exc, paths[0]) from exc
        out: dict[str, bytes | OSError] = {}
        for path, blob in zip(paths, got, strict=True):
            if isinstance(blob, bytes | OSError):
                out[path] = blob
            else:
                out[path] = OSError(_first_line(blob) if blob is not None else "not returned")
        return out

    def fetch(self, paths: Sequence[str]) -> dict[str, bytes | InputError]:
        """:meth:`cat_many`, each object held to the reading edge's size limit, as a
        local file is: bytes, or the one-line problem (a missing object's problem has
        its :class:`FileNotFoundError` as ``__cause__``).

        Raises:
            InputError: the storage could not be reached at all.
        """
        limit = edge.limits().max_file_bytes
        return {p: edge.checked_blob(b, p, limit) for p, b in self.cat_many(paths).items()}

    def fetch_some(self, paths: Sequence[str], budget: int) -> list[bytes | InputError]:
        """Every one of ``paths`` in one batched request (the budget bounds a local
        read; the requests' round trips cost more than the bytes held)."""
        got = self.fetch(list(paths))
        return [got[p] for p in paths]

    def put_many(
        self, files: Mapping[str, bytes], *, durable: bool = True, own_folders: bool = False
    ) -> dict[str, OSError | InputError]:
        """Write each object (concurrent PUTs; a PUT replaces an object whole, so a
        reader sees the old object or the new one, and no temporary object is needed)."""
        paths = list(files)
        if not paths:
            return {}
        try:
            done = self._each("pipe_file", list(files.items()))
        except Exception as exc:  # the whole store's failure (no bucket, no network)
            err = self.error(exc, paths[0], what="write")
            return dict.fromkeys(paths, err)
        return {
            path: self.error(result, path, what="write")
            for path, result in zip(paths, done, strict=True)
            if isinstance(result, BaseException)
        }

    def remove_many(self, paths: Sequence[str]) -> None:
        """Delete each object by its exact key (never a glob, never recursive), best
        effort: an object that cannot be deleted stays."""
        with contextlib.suppress(Exception):
            self._each("rm_file", [(p,) for p in paths])


def _each_async(
    fs: Any, call: Any, calls: Sequence[tuple[Any, ...]], kwargs: Mapping[str, Any]
) -> list[Any]:
    """``call(*args, **kwargs)`` for every ``args``, on fsspec's event loop, at most
    :data:`CONCURRENT_GETS` in flight; a failure is returned in its place."""
    import asyncio  # asyncio and fsspec: only when a URL is read (startup imports)

    from fsspec.asyn import sync

    async def _all() -> list[Any]:
        gate = asyncio.Semaphore(CONCURRENT_GETS)

        async def one(args: tuple[Any, ...]) -> Any:
            async with gate:
                return await call(*args, **kwargs)

        return await asyncio.gather(*(one(a) for a in calls), return_exceptions=True)

    return list(sync(fs.loop, _all))
