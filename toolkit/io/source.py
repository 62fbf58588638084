"""Where bytes live: one :class:`Source` for a local folder and for an fsspec URL.

A *source* is a folder of named byte strings: a folder on the local disk
(:class:`LocalSource`, the zero-setup default) or a folder in object storage
(:class:`RemoteSource`: ``s3://bucket/sweep``, ``gs://…``, ``az://…``; the back-ends are
optional extras, ``pip install 'toolkit[s3]'``, ``[gcs]``, ``[azure]``). ``file://`` URLs
and plain paths are the local disk. :func:`open_source` is the only place that reads a
scheme; everything else receives a :class:`Source` and asks it to list, fetch, write
and name, never where it lives.

The interface (every path is a string in the source's own syntax, as :meth:`Source.join`
builds it; a local path is an OS path, a remote one its fsspec path ``bucket/key``):

- naming: :attr:`~Source.root`, :attr:`~Source.name`, :meth:`~Source.url` (the text to
  show), :meth:`~Source.join`, :meth:`~Source.at` (a source rooted inside this one),
  :meth:`~Source.identity` (one string per place, for telling two names of one folder
  apart), :attr:`~Source.disk` (the local folder, when there is one);
- listing: :meth:`~Source.kind`, :meth:`~Source.subfolders`, :meth:`~Source.glob`,
  :meth:`~Source.list_many` (what folders hold, with sizes and change marks for a
  cache), :meth:`~Source.is_link`;
- reading: :meth:`~Source.fetch` (many at once, each held to the reading edge's limits)
  and :meth:`~Source.fetch_some` (a prefix within a byte budget: the bulk tick read);
- writing: :meth:`~Source.put_many` (each file replaced atomically) and
  :meth:`~Source.remove_many`.

A remote source fetches many small objects concurrently on fsspec's event loop (never
one blocking GET at a time, never a key expanded as a glob); the bytes are parsed
exactly as bytes read from the disk. Credentials come from each cloud's usual chain
(environment variables, profiles, instance roles); ``storage_options`` are passed to
fsspec as they are (for example ``endpoint_url`` for an S3-compatible server).

fsspec back-ends are imported only when a URL is used.
"""

from __future__ import annotations

import contextlib
import glob as globmod
import hashlib
import json
import operator
import os
import re
import stat
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.io.atomic import atomic_path, remove_leftovers
from toolkit.io.network import deadlines, filesystem, is_timeout

__all__ = [
    "CONCURRENT_GETS",
    "EXTRAS",
    "Folder",
    "LocalSource",
    "RemoteSource",
    "Source",
    "file_mark",
    "open_remote",
    "open_source",
    "parse_storage_options",
    "version_mark",
]

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

#: What :meth:`Source.kind` can say of a path.
Kind = Literal["folder", "file", "missing", "unknown"]


# ---------------------------------------------------------------------------
# Reading a scheme (here only)
# ---------------------------------------------------------------------------


def _scheme_of(source: str | Path) -> str | None:
    """The URL scheme of ``source`` (``"s3"``), or ``None`` for a plain path."""
    if isinstance(source, Path):
        return None
    m = _SCHEME.match(source)
    return m.group(1).lower() if m else None


def _is_remote(source: str | Path) -> bool:
    """Whether ``source`` is a URL that is not on the local disk (not ``file://``)."""
    scheme = _scheme_of(source)
    return scheme is not None and scheme not in ("file", "local")


def _local_path(source: str | Path) -> Path:
    """A plain path, or the path of a ``file://`` URL."""
    if isinstance(source, Path):
        return source
    m = _SCHEME.match(source)
    if m and m.group(1).lower() in ("file", "local"):
        rest = m.group(2)
        return Path(rest if rest else "/")
    return Path(source)


# The modules that still decide for themselves (toolkit.fleet, the CLI, reports) import
# these names until they open a Source; nothing in toolkit.load or toolkit.io does.
scheme_of = _scheme_of
is_remote = _is_remote
local_path = _local_path


def open_source(
    path_or_url: str | Path | Source, storage_options: Mapping[str, Any] | None = None
) -> Source:
    """The :class:`Source` a path or URL names: a local folder for a plain path or a
    ``file://`` URL, a :class:`RemoteSource` for any other URL (a Source is returned
    as it is).

    Nothing is read or contacted here.

    Raises:
        InputError: an unknown scheme, or its back-end's package is not installed.
    """
    if isinstance(path_or_url, Source):
        return path_or_url
    if _is_remote(path_or_url):
        return open_remote(str(path_or_url), storage_options)
    return LocalSource(_local_path(path_or_url))


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


# ---------------------------------------------------------------------------
# The interface
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Folder:
    """What one folder holds directly, found without reading a file.

    Attributes:
        path: the folder's path in its source.
        files: the names of the files (objects) that can be read as one, in listing
            order; a symlink counts when it leads to a regular file inside the folder
            listed by :meth:`Source.list_many`.
        marks: ``{name: (size, mark)}`` for each file when marks were asked for; the
            mark changes when the file is rewritten (:func:`file_mark`,
            :func:`version_mark`).
        skipped: ``(name, why)`` of each entry that is neither a folder nor a file that
            can be read (a FIFO, a dangling or looping symlink, a link out of the
            listed folder).
        folders: the names of the subfolders.
        problem: why the folder could not be listed (a missing folder lists as empty).
    """

    path: str
    files: Sequence[str] = ()
    marks: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    skipped: Sequence[tuple[str, str]] = ()
    folders: Sequence[str] = ()
    problem: str | None = None

    @property
    def empty(self) -> bool:
        """Whether nothing at all was found in it."""
        return not (self.files or self.skipped or self.folders)


class Source(ABC):
    """A folder of named byte strings, wherever it lives (see the module's docstring).

    Attributes:
        root: the folder's path in the source's own syntax.
    """

    root: str

    # -- naming ---------------------------------------------------------------

    @property
    def name(self) -> str:
        """The last part of the root (a run's slug)."""
        return self.root.rstrip("/").rsplit("/", 1)[-1]

    @property
    def disk(self) -> Path | None:
        """The local folder these bytes are in, when they are on this machine's disk
        (for what only a real folder allows: git, sidecars beside a log); else ``None``."""
        return None

    @abstractmethod
    def url(self, path: str | None = None) -> str:
        """How a path of this source (the root by default) is shown to a user."""

    @abstractmethod
    def join(self, folder: str, *names: str) -> str:
        """The path of ``names`` inside the path ``folder`` of this source."""

    @abstractmethod
    def at(self, path: str) -> Source:
        """The source rooted at ``path``, a path of this one (same storage, same
        options)."""

    def identity(self, path: str | None = None) -> str:
        """One string per place (a resolved local path; a remote path as it is), so two
        names of one folder are told to be one."""
        return self.root if path is None else path

    # -- listing --------------------------------------------------------------

    @abstractmethod
    def kind(self, path: str | None = None) -> Kind:
        """What the path (the root by default) is, when that can be told without
        contacting a remote storage: ``"unknown"`` otherwise (found when it is listed)."""

    @abstractmethod
    def subfolders(self, path: str | None = None) -> list[str]:
        """The folders directly inside a folder (the root by default): paths, sorted.

        Raises:
            InputError: the folder cannot be listed (a remote one: does not exist).
        """

    @abstractmethod
    def glob(self, pattern: str) -> list[str]:
        """The paths of the folders that ``pattern`` (a glob of this source's paths)
        matches, sorted (a local match may also be a file).

        Raises:
            InputError: the storage cannot be listed, or its bucket does not exist.
        """

    @abstractmethod
    def list_many(
        self, roots: Sequence[str], subs: Sequence[str] = ("",), *, marks: bool = True
    ) -> list[dict[str, Folder]]:
        """What the folders ``subs`` (relative, ``""`` the root itself) of each root hold,
        as ``{sub: Folder}`` per root, with each file's size and change mark when
        ``marks``. A remote source lists every root in one concurrent request.

        Raises:
            InputError: a remote folder cannot be listed (a local folder that cannot be
                has its :attr:`Folder.problem`).
        """

    def is_link(self, path: str) -> bool:
        """Whether ``path`` is a symbolic link (one that leads elsewhere)."""
        return False

    # -- reading --------------------------------------------------------------

    @abstractmethod
    def fetch(self, paths: Sequence[str]) -> dict[str, bytes | InputError]:
        """The bytes of many files, each held to the reading edge's size limit: bytes,
        or the one-line problem (a missing file's problem has its
        :class:`FileNotFoundError` as ``__cause__`` when the storage says so).

        Raises:
            InputError: the storage could not be reached at all.
        """

    @abstractmethod
    def fetch_some(self, paths: Sequence[str], budget: int) -> list[bytes | InputError]:
        """The bytes of the first of ``paths`` (at least one, in order), stopping once
        ``budget`` bytes are read; a file the listing vetted, so read as fast as the
        storage allows (the local one: :func:`toolkit.io.edge.read_many_fast`)."""

    # -- writing --------------------------------------------------------------

    @abstractmethod
    def put_many(
        self, files: Mapping[str, bytes], *, durable: bool = True, own_folders: bool = False
    ) -> dict[str, OSError | InputError]:
        """Write each file ``{path: bytes}``, each replacing the old one whole (a reader
        sees the old file or the new one); every file is tried.

        Args:
            files: the bytes by path.
            durable: on disk, fsync the file and its folder (``False`` for caches).
            own_folders: the files' folders are the writer's own: leftovers of its
                interrupted writes there are removed first.

        Returns:
            The files that could not be written, with why.
        """

    @abstractmethod
    def remove_many(self, paths: Sequence[str]) -> None:
        """Delete each file by its exact path (never a glob, never a folder, never a
        symlink), best effort: a file that cannot be deleted stays."""


# ---------------------------------------------------------------------------
# A folder on the local disk
# ---------------------------------------------------------------------------

_NAME = operator.attrgetter("name")


@dataclass(frozen=True)
class LocalSource(Source):
    """A folder on the local disk: bytes read through the reading edge.

    Attributes:
        path: the folder as given (relative paths stay relative, as the user named them).
    """

    path: Path

    @property
    def root(self) -> str:  # type: ignore[override]
        return os.fspath(self.path)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def disk(self) -> Path:
        return self.path

    def url(self, path: str | None = None) -> str:
        return self.root if path is None else path

    def join(self, folder: str, *names: str) -> str:
        return os.path.join(folder, *names)

    def at(self, path: str) -> LocalSource:
        return LocalSource(Path(path))

    def identity(self, path: str | None = None) -> str:
        return str(Path(self.root if path is None else path).resolve())

    def kind(self, path: str | None = None) -> Kind:
        where = self.path if path is None else Path(path)
        if where.is_dir():
            return "folder"
        return "file" if where.exists() else "missing"

    def subfolders(self, path: str | None = None) -> list[str]:
        folder = self.root if path is None else path
        entries, problem = edge.scan_folder(folder)
        if problem is not None:
            raise InputError(folder, problem)
        return sorted(e.path for e in entries if e.is_dir())

    def glob(self, pattern: str) -> list[str]:
        return sorted(globmod.glob(pattern))

    def list_many(
        self, roots: Sequence[str], subs: Sequence[str] = ("",), *, marks: bool = True
    ) -> list[dict[str, Folder]]:
        return [
            {sub: self._folder(self.join(root, sub) if sub else root, root, marks) for sub in subs}
            for root in roots
        ]

    @staticmethod
    def _folder(path: str, within: str, marks: bool) -> Folder:
        """One folder's entries: regular files (and symlinks to regular files inside
        ``within``), subfolders, and the entries that cannot be read as a file."""
        entries, problem = edge.scan_folder(path)
        if problem is not None:
            return Folder(path, problem=problem)
        if all(e.is_file(follow_symlinks=False) for e in entries):  # the common case
            files = list(map(_NAME, entries))
            usable = entries
            folders: list[str] = []
            skipped: list[tuple[str, str]] = []
        else:
            usable, folders, skipped = [], [], []
            for e in entries:
                if e.is_file(follow_symlinks=False):
                    usable.append(e)
                elif e.is_dir():
                    folders.append(e.name)
                elif (why := edge.entry_problem(e, within)) is None:
                    usable.append(e)
                else:
                    skipped.append((e.name, why))
            files = [e.name for e in usable]
        noted: dict[str, tuple[int, int]] = {}
        if marks:
            for e in usable:
                st = e.stat()
                noted[e.name] = (st.st_size, file_mark(st))
        return Folder(path, files, noted, skipped, folders)

    def is_link(self, path: str) -> bool:
        return os.path.islink(path)

    def fetch(self, paths: Sequence[str]) -> dict[str, bytes | InputError]:
        out: dict[str, bytes | InputError] = {}
        for path in paths:
            try:
                out[path] = edge.read_bytes(path)
            except InputError as err:
                out[path] = err
        return out

    def fetch_some(self, paths: Sequence[str], budget: int) -> list[bytes | InputError]:
        return edge.read_many_fast(paths, edge.limits().max_file_bytes, budget)

    def put_many(
        self, files: Mapping[str, bytes], *, durable: bool = True, own_folders: bool = False
    ) -> dict[str, OSError | InputError]:
        failed: dict[str, OSError | InputError] = {}
        for path, data in files.items():
            try:  # one file that cannot be written never keeps the others from theirs
                folder = os.path.dirname(path)
                if own_folders:
                    os.makedirs(folder, exist_ok=True)
                    remove_leftovers(Path(folder))
                with atomic_path(path, durable=durable) as tmp:
                    tmp.write_bytes(data)
            except OSError as exc:  # named by the file it was to replace, not a temp file
                failed[path] = OSError(exc.errno, exc.strerror, path)
            except InputError as exc:
                failed[path] = exc
        return failed

    def remove_many(self, paths: Sequence[str]) -> None:
        for path in paths:
            with contextlib.suppress(OSError):
                if stat.S_ISREG(os.lstat(path).st_mode):
                    os.unlink(path)


# ---------------------------------------------------------------------------
# A folder in object storage
# ---------------------------------------------------------------------------


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

    def at(self, path: str) -> RemoteSource:
        return RemoteSource(self.protocol, path.rstrip("/"), self.storage_options)

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


def version_mark(info: Mapping[str, Any]) -> int:
    """An integer that changes when an object is rewritten: its ETag (or generation,
    or modification time), hashed; 0 when the back-end reports none."""
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
    scheme = _scheme_of(url)
    if scheme is None:
        raise InputError(url, "not a URL")
    import fsspec  # fsspec: `import toolkit` stays light (tests/test_startup_imports.py)

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
