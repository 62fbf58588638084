"""Objects of object storage copied into a local folder, for the loaders that read one
file as a whole from a path (game transcripts and databases, persona chats, proposition
files, judge cassettes, baselines).

Each object is fetched through :meth:`toolkit.io.source.RemoteSource.fetch` (the
reading edge's size limit, one batch of concurrent requests) and written under the folder
at its path below the source's root; a key that would land outside the folder (``..``,
an absolute part) is refused by name. The caller removes the folder when done and shows
the URLs, never the local copies (:func:`shown`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from toolkit.errors import InputError
from toolkit.io.source import open_source


def local_name(root_url: str, url: str, folder: Path) -> Path:
    """Where the object ``url`` under ``root_url`` is copied in ``folder``.

    Raises:
        InputError: the key does not lie under the root, or would leave the folder.
    """
    base = root_url.rstrip("/")
    if url == base:
        parts = [base.rsplit("/", 1)[-1]]
    elif url.startswith(base + "/"):
        parts = url[len(base) + 1 :].split("/")
    else:
        raise InputError(url, f"not under {base}")
    if any(part in ("", ".", "..") for part in parts):
        raise InputError(url, "an object key that would leave the folder it is read into")
    rel = PurePosixPath(*parts)
    return folder.joinpath(*rel.parts)


def stage(
    root_url: str,
    urls: Sequence[str],
    folder: Path,
    storage_options: Mapping[str, Any] | None = None,
) -> dict[str, Path | InputError]:
    """Copy the objects ``urls`` (under ``root_url``) into ``folder``.

    Returns:
        Each URL's local copy, or the one-line problem that kept it out (a missing or
        too large object, a key leaving the folder).

    Raises:
        InputError: the storage could not be reached at all.
    """
    if not urls:
        return {}
    remote = open_source(root_url, storage_options)
    out: dict[str, Path | InputError] = {}
    keys: dict[str, str] = {}
    for url in urls:
        try:
            target = local_name(root_url, url, folder)
        except InputError as err:
            out[url] = err
            continue
        keys[url.split("://", 1)[1]] = url
        out[url] = target
    for key, blob in remote.fetch(list(keys)).items():
        url = keys[key]
        if isinstance(blob, InputError):
            out[url] = InputError(url, blob.reason)
            continue
        copy = out[url]
        if isinstance(copy, Path):
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(blob)
    return out


def shown(text: str, copies: Mapping[str, str]) -> str:
    """``text`` with each local copy's folder (``copies``: folder → URL) named by its URL."""
    for local, url in copies.items():
        text = text.replace(local, url)
    return text
