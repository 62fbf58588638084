"""Where a command writes: a local path as given, or a URL through the same door the inputs
come in by (:func:`toolkit.io.source.open_source`), never a local folder named after a
scheme (``-o s3://bucket/site`` once made a folder ``s3:``).

A writer that needs a real folder (the site writer's atomic swap, a report's atomic
file) writes into a temporary local folder, and :func:`put_folder` puts its files
through the output's :class:`~toolkit.io.source.Source`; an option that can only write
beside local files refuses a URL in one line (:func:`refuse_url`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkit.errors import InputError
from toolkit.io.source import Source, open_source


def output_source(
    target: str | Path, storage_options: Mapping[str, Any] | None = None
) -> Source | None:
    """The :class:`~toolkit.io.source.Source` of an output URL; ``None`` for a path on this
    machine (written as it always was).

    Raises:
        InputError: an unknown scheme, or its back-end's package is not installed.
    """
    dest = open_source(target, storage_options)
    return None if dest.disk is not None else dest


def put_folder(folder: Path, dest: Source) -> int:
    """Put every file under the local ``folder`` at the same path under ``dest``; the
    number of files put.

    Raises:
        InputError: a file could not be written (the first, named by its URL).
    """
    files: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            files[dest.join(dest.root, *path.relative_to(folder).parts)] = path.read_bytes()
    failed = dest.put_many(files)
    for where, why in failed.items():
        if isinstance(why, InputError):
            raise why
        raise InputError(dest.url(where), f"cannot write ({why.strerror or why})")
    return len(files)


def put_file(local: Path, dest: Source) -> str:
    """Put the local file ``local`` as the object ``dest`` names; its URL.

    Raises:
        InputError: the object could not be written.
    """
    failed = dest.put_many({dest.root: local.read_bytes()})
    for why in failed.values():
        if isinstance(why, InputError):
            raise why
        raise InputError(dest.url(), f"cannot write ({why.strerror or why})")
    return dest.url()


def refuse_url(target: str | Path, option: str, writes: str) -> None:
    """Refuse an output URL for an option that writes only on this machine.

    Raises:
        InputError: ``target`` is a URL (one line naming it and the option).
    """
    if open_source(target).disk is None:
        raise InputError(target, f"{option} writes {writes} on this machine, not to a URL")
