"""Where runs live: a local folder (the zero-setup default) or an fsspec URL.

``s3://bucket/sweep``, ``gs://…``, ``az://…`` name folders in object storage; the
back-ends are optional extras (``pip install 'toolkit[s3]'``, ``[gcs]``, ``[azure]``).
``file://`` URLs and plain paths are the local disk and take the loaders' local path,
untouched. Everything about URLs lives here: resolving a source, listing folders, and
fetching many small objects concurrently on fsspec's event loop (never one blocking
GET at a time, never a key expanded as a glob), returned as bytes keyed by name, which
the format modules then parse exactly as they parse bytes read from the disk.

Inside the toolkit a remote file is named by its fsspec path, ``bucket/key`` (a URL
without its scheme), so the same path arithmetic serves both; :meth:`RemoteSource.url`
gives the URL back. Credentials come from each cloud's usual chain (environment
variables, profiles, instance roles); ``storage_options`` are passed to fsspec as they
are (for example ``endpoint_url`` for an S3-compatible server).

fsspec back-ends are imported only when a URL is used.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.errors import InputError

#: How many object GETs :meth:`RemoteSource.cat_many` keeps in flight at once.
CONCURRENT_GETS = 64

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$")

#: scheme -> (the package that implements it, the toolkit extra that installs it).
EXTRAS: dict[str, tuple[str, str]] = {
    "s3": ("s3fs", "s3"),
    "s3a": ("s3fs", "s3"),
    "gs": ("gcsfs", "gcs"),
    "gcs": ("gcsfs", "gcs"),
    "az": ("adlfs", "azure"),
    "abfs": ("adlfs", "azure"),
    "abfss": ("adlfs", "azure"),
}


def scheme_of(source: str | Path) -> str | None:
    """The URL scheme of ``source`` (``"s3"``), or ``None`` for a plain path."""
    if isinstance(source, Path):
        return None
    m = _SCHEME.match(source)
    return m.group(1).lower() if m else None


def is_remote(source: str | Path) -> bool:
    """Whether ``source`` is a URL that is not on the local disk (not ``file://``)."""
    scheme = scheme_of(source)
    return scheme is not None and scheme not in ("file", "local")


def local_path(source: str | Path) -> Path:
    """A plain path, or the path of a ``file://`` URL."""
    if isinstance(source, Path):
        return source
    m = _SCHEME.match(source)
    if m and m.group(1).lower() in ("file", "local"):
        rest = m.group(2)
        return Path(rest if rest else "/")
    return Path(source)


def parse_storage_options(items: Iterable[str]) -> dict[str, Any]:
    """``["endpoint_url=http://…", "client_kwargs.region_name=eu-west-1"]`` → options.

    A dotted key nests (``client_kwargs.region_name``); a value is read as JSON when it
    parses (``true``, ``3``, ``{"a": 1}``), else kept as text.

    Raises:
        InputError: an item without ``=``, or a JSON value nested deeper than the reading
            edge allows.
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise InputError(
                None, "must be key=value (e.g. endpoint_url=http://127.0.0.1:9000)",
                field="--storage-option", value=item,
            )  # fmt: skip
        value: Any = text
        if text.lstrip()[:1] in ("[", "{"):  # nested: held to the reading edge's depth
            from toolkit.io import edge

            try:
                edge.check_json_text(text, None)
            except InputError as err:
                raise InputError(None, err.reason, field="--storage-option", value=key) from None
        with contextlib.suppress(ValueError):  # not JSON: kept as text
            value = json.loads(text)
        where = out
        *parents, leaf = key.strip().split(".")
        for part in parents:
            nested = where.setdefault(part, {})
            if not isinstance(nested, dict):
                raise InputError(None, "conflicting keys", field="--storage-option", value=item)
            where = nested
        where[leaf] = value
    return out


def _first_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass(frozen=True)
class RemoteSource:
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
        from toolkit.io.network import filesystem

        return filesystem(self.protocol, self.storage_options)

    def url(self, path: str | None = None) -> str:
        """``protocol://path`` of a path inside this source (the root by default)."""
        return f"{self.protocol}://{self.root if path is None else path}"

    def error(self, exc: BaseException, path: str | None = None, what: str = "read") -> InputError:
        """A storage failure as a one-line :class:`InputError` naming the URL."""
        where = self.url(path)
        if isinstance(exc, FileNotFoundError):
            return InputError(where, "no such bucket or folder (check the URL and the region)")
        from toolkit.io.network import deadlines, is_timeout

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

    def subfolders(self) -> list[str]:
        """The folders directly inside the root (fsspec paths, sorted).

        Raises:
            InputError: the bucket or folder does not exist, or cannot be listed.
        """
        fs = self.fs
        try:
            fs.invalidate_cache(self.root)
            entries = fs.ls(self.root, detail=True)
        except Exception as exc:  # any back-end's failure becomes one line
            raise self.error(exc, what="list the folder") from exc
        return sorted(
            e["name"].rstrip("/") for e in entries if e.get("type") == "directory"
        )  # fmt: skip

    def _each(self, method: str, calls: Sequence[tuple[Any, ...]], **kwargs: Any) -> list[Any]:
        """``fs.<method>(*args, **kwargs)`` for every ``args`` of ``calls``: concurrently
        on fsspec's event loop for asynchronous back-ends (s3fs, gcsfs, adlfs; at most
        :data:`CONCURRENT_GETS` in flight), else one after another. Each path is the exact
        key it names (never expanded as a glob); a call's failure is returned in its
        place, not raised."""
        fs = self.fs
        if getattr(fs, "async_impl", False):
            import asyncio

            from fsspec.asyn import sync

            call = getattr(fs, f"_{method}")

            async def _all() -> list[Any]:
                gate = asyncio.Semaphore(CONCURRENT_GETS)

                async def one(args: tuple[Any, ...]) -> Any:
                    async with gate:
                        return await call(*args, **kwargs)

                return await asyncio.gather(*(one(a) for a in calls), return_exceptions=True)

            return list(sync(fs.loop, _all))
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
        from toolkit.io import edge

        limit = edge.limits().max_file_bytes
        return {p: edge.checked_blob(b, p, limit) for p, b in self.cat_many(paths).items()}

    def put_many(self, files: Mapping[str, bytes]) -> None:
        """Write each object ``{path: bytes}`` (concurrent PUTs; a PUT replaces an object
        whole, so a reader sees the old object or the new one).

        Raises:
            InputError: an object could not be written (the first failure, named).
        """
        paths = list(files)
        try:
            done = self._each("pipe_file", list(files.items()))
        except Exception as exc:
            raise self.error(exc, paths[0] if paths else None, what="write") from exc
        for path, result in zip(paths, done, strict=True):
            if isinstance(result, BaseException):
                raise self.error(result, path, what="write")

    def remove_many(self, paths: Sequence[str]) -> None:
        """Delete each object by its exact key (never a glob, never recursive), best
        effort: an object that cannot be deleted stays."""
        with contextlib.suppress(Exception):
            self._each("rm_file", [(p,) for p in paths])


def version_mark(info: Mapping[str, Any]) -> int:
    """An integer that changes when an object is rewritten: its ETag (or generation,
    or modification time), hashed; 0 when the back-end reports none."""
    import hashlib

    for key in ("ETag", "etag", "md5Hash", "generation", "LastModified", "mtime", "updated"):
        if info.get(key) is not None:
            digest = hashlib.sha256(str(info[key]).encode()).hexdigest()[:15]
            return int(digest, 16)
    return 0


def file_mark(st: Any) -> int:
    """An integer that changes when a local file is rewritten, for a cache key: its
    modification time, change time and inode, hashed. The change time cannot be set back
    (``os.utime``, ``touch -d`` and ``cp -p`` set it to now), so a same-size edit with the
    old modification time restored still changes the mark; a file replaced by another
    (a rename over it) changes the inode. Python's hash of a tuple of integers is the
    same in every process (integers are not salted), and costs no more than the ``stat``
    a warm load makes anyway."""
    return hash((st.st_mtime_ns, st.st_ctime_ns, st.st_ino))


def open_remote(url: str, storage_options: Mapping[str, Any] | None = None) -> RemoteSource:
    """Resolve a remote URL to a :class:`RemoteSource`, checking that its back-end exists.

    Nothing is contacted here; a missing bucket is found when it is first listed.

    Raises:
        InputError: an unknown scheme, or the back-end's package is not installed (the
            message names the extra to install).
    """
    scheme = scheme_of(url)
    if scheme is None:
        raise InputError(url, "not a URL")
    import fsspec

    try:
        cls = fsspec.get_filesystem_class(scheme)
    except ValueError:
        raise InputError(
            url,
            f"unknown storage scheme {scheme!r} (use a local path, or s3://, gs://, az://, "
            "file://)",
        ) from None
    except ImportError:
        package, extra = EXTRAS.get(scheme, (f"the fsspec back-end for {scheme}://", ""))
        todo = f"pip install 'toolkit[{extra}]'" if extra else f"install {package}"
        raise InputError(url, f"reading {scheme}:// needs {package}: {todo}") from None
    root = str(cls._strip_protocol(url)).rstrip("/")
    if not root:
        raise InputError(url, "no bucket or container in the URL")
    return RemoteSource(scheme, root, dict(storage_options or {}))
