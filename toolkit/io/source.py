"""Where bytes live: one :class:`Source` for a local folder and for an fsspec URL.

A *source* is a folder of named byte strings: a folder on the local disk
(:class:`LocalSource`, the zero-setup default) or a folder in object storage
(:class:`RemoteSource`: ``s3://bucket/sweep``, ``gs://…``, ``az://…``; the back-ends are
optional extras, ``pip install 'toolkit[s3]'``, ``[gcs]``, ``[azure]``). ``file://`` URLs
and plain paths are the local disk. :func:`open_source` is the only place that reads a
scheme; everything else receives a :class:`Source` and asks it to list, fetch, write
and name, never where it lives. The interface is in :mod:`toolkit.io.source_base`, the
two implementations in :mod:`toolkit.io.source_local` and :mod:`toolkit.io.source_remote`;
this module opens them and re-exports them.

The interface (every path is a string in the source's own syntax, as :meth:`Source.join`
builds it; a local path is an OS path, a remote one its fsspec path ``bucket/key``):

- naming: :attr:`~Source.root`, :attr:`~Source.name`, :meth:`~Source.url` (the text to
  show), :meth:`~Source.join`, :meth:`~Source.lookup` (a relative path a file wrote),
  :meth:`~Source.at` (a source rooted inside this one),
  :meth:`~Source.identity` (one string per place, for telling two names of one folder
  apart), :meth:`~Source.absolute`, :attr:`~Source.disk` (the local folder, when there
  is one), :meth:`~Source.same_store` (whether one source can list another's paths);
- listing: :meth:`~Source.kind`, :meth:`~Source.subfolders`, :meth:`~Source.glob`,
  :meth:`~Source.list_many` (what folders hold, with sizes and change marks for a
  cache), :meth:`~Source.is_link`;
- reading: :meth:`~Source.fetch` (many at once, each held to the reading edge's limits)
  and :meth:`~Source.fetch_some` (a prefix within a byte budget), or
  :meth:`~Source.fetch_packed` (the same, in one buffer: the bulk tick read);
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
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.io.source_base import Folder, Kind, Source, file_mark, version_mark
from toolkit.io.source_local import LocalSource

if TYPE_CHECKING:
    from toolkit.io.source_remote import CONCURRENT_GETS, RemoteSource

__all__ = [
    "CONCURRENT_GETS",
    "EXTRAS",
    "Folder",
    "Kind",
    "LocalSource",
    "RemoteSource",
    "Source",
    "disk_path",
    "file_mark",
    "is_postgres_url",
    "open_postgres",
    "open_remote",
    "open_source",
    "parse_storage_options",
    "redact_uri",
    "version_mark",
]

#: A URL: its scheme, then what follows ``://``. (Text: ``re`` compiles it on first use,
#: which only a source holding ``://`` makes; compiled at import, it cost every one-run
#: command ~0.1 ms, issue 38.)
_SCHEME = r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$"
#: (Text: ``re`` compiles it on first use, which only a message naming a URL makes;
#: compiled at import, it cost every one-run command, issue 38.)
_PG_URI = r"(?i)\b(postgres(?:ql)?://)(\S+)"
_PASSWORD_WORD = r"(?i)\b(\w*password)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&]+)"

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


# ---------------------------------------------------------------------------
# Reading a scheme (here only)
# ---------------------------------------------------------------------------


def _url(source: str) -> re.Match[str] | None:
    """``source`` read as a URL (groups: its scheme, the rest), or ``None``: only a text
    holding ``://`` can be one, and only such a text compiles the pattern."""
    return re.match(_SCHEME, source) if "://" in source else None


def _scheme_of(source: str | Path) -> str | None:
    """The URL scheme of ``source`` (``"s3"``), or ``None`` for a plain path."""
    if isinstance(source, Path):
        return None
    m = _url(source)
    return m.group(1).lower() if m else None


def _is_remote(source: str | Path) -> bool:
    """Whether ``source`` is a URL that is not on the local disk (not ``file://``)."""
    scheme = _scheme_of(source)
    return scheme is not None and scheme not in ("file", "local")


def _local_path(source: str | Path) -> Path:
    """A plain path, or the path of a ``file://`` URL."""
    if isinstance(source, Path):
        return source
    m = _url(source)
    if m and m.group(1).lower() in ("file", "local"):
        rest = m.group(2)
        return Path(rest if rest else "/")
    return Path(source)


def is_postgres_url(path_or_url: str | Path) -> bool:
    """Whether ``path_or_url`` is a ``postgresql://`` or ``postgres://`` URL (a
    database: :class:`~toolkit.io.source_postgres.PostgresSource`)."""
    return _scheme_of(path_or_url) in ("postgresql", "postgres")


def redact_uri(text: str) -> str:
    """``text`` with the password of every PostgreSQL URI in it removed
    (``postgresql://user:secret@host/db`` -> ``postgresql://user@host/db``) and every
    ``password=…`` or ``sslpassword=…`` (a URI query parameter or a keyword connection
    string) shown as ``password=***`` (``sslpassword=***``). The user information is taken
    to end at the last ``@`` of the URI, so a password holding an unescaped ``@`` is
    removed whole."""

    def one(m: re.Match[str]) -> str:
        token = m.group(2)
        if "@" in token:
            userinfo, rest = token.rsplit("@", 1)
            user = userinfo.split(":", 1)[0]
            token = f"{user}@{rest}" if user else rest
        return m.group(1) + token

    return re.sub(_PASSWORD_WORD, r"\1=***", re.sub(_PG_URI, one, text))


def disk_path(path_or_url: str | Path) -> Path | None:
    """The local path a path or ``file://`` URL names; ``None`` for a URL of remote
    storage (nothing is opened: for what only a folder on this machine allows, such as
    git or writing sidecars, refused in one line before anything is read)."""
    return None if _is_remote(path_or_url) else _local_path(path_or_url)


def open_source(
    path_or_url: str | Path | Source, storage_options: Mapping[str, Any] | None = None
) -> Source:
    """The :class:`Source` a path or URL names: a local folder for a plain path or a
    ``file://`` URL, a :class:`~toolkit.io.source_postgres.PostgresSource` for a
    ``postgresql://`` or ``postgres://`` URL, a :class:`RemoteSource` for any other URL
    (a Source is returned as it is).

    Nothing is read or contacted here.

    Raises:
        InputError: an unknown scheme, or its back-end's package is not installed.
    """
    if isinstance(path_or_url, Source):
        return path_or_url
    if is_postgres_url(path_or_url):
        return open_postgres(str(path_or_url))
    if _is_remote(path_or_url):
        return open_remote(str(path_or_url), storage_options)
    return LocalSource(_local_path(path_or_url))


def open_postgres(url: str) -> Source:
    """A :class:`~toolkit.io.source_postgres.PostgresSource` for a ``postgresql://`` URL
    (nothing contacted yet).

    Raises:
        InputError: the URL is not one libpq reads, or psycopg is not installed.
    """
    try:  # psycopg and libpq: only when a database URL is used (tests/test_startup_imports.py)
        from toolkit.io.source_postgres import PostgresSource
    except ImportError:
        raise InputError(
            redact_uri(url),
            "reading postgresql:// needs psycopg: pip install 'toolkit[postgres]'",
        ) from None
    return PostgresSource(url)


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
    # Imported here: a local run never needs the remote source or its network settings
    # (~5 ms of a one-run `toolkit quality`, issue 38; tests/test_startup_imports.py).
    from toolkit.io.source_remote import RemoteSource

    return RemoteSource(scheme, root, dict(storage_options or {}))


def __getattr__(name: str) -> Any:
    """``RemoteSource`` and ``CONCURRENT_GETS``, imported on first use (see `open_remote`)."""
    if name in ("RemoteSource", "CONCURRENT_GETS"):
        from toolkit.io import source_remote  # on first use: a local run never needs it

        return getattr(source_remote, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
