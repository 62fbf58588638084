"""Where a command writes: a local path as given, or a URL through the same door the inputs
come in by (:func:`toolkit.io.source.open_source`), never a local folder named after a
scheme (``-o s3://bucket/site`` once made a folder ``s3:``).

A writer opens the output's :class:`~toolkit.io.source.Source` and asks it: on this
machine it writes into the Source's folder (a ``file://`` URL is its path, never a
folder ``file:``); in object storage a writer that needs a real folder (the site
writer's atomic swap, a report's atomic file) writes into a temporary local folder, and
:func:`put_folder` or :func:`put_file` puts the files through the Source. An option that
can only write on this machine refuses a URL in one line (:func:`local_target`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.errors import InputError

if TYPE_CHECKING:
    from toolkit.io.source import Source


def open_output(target: str | Path, storage_options: Mapping[str, Any] | None = None) -> Source:
    """The :class:`~toolkit.io.source.Source` an output path or URL names (its
    :attr:`~toolkit.io.source.Source.disk` is the local path; ``None`` for a URL).

    Raises:
        InputError: an unknown scheme, or its back-end's package is not installed.
    """
    # the io package's Source (the reading edge, sqlite3, csv: 25 ms of CPU) only when an
    # output is written: `toolkit --help` imports this module
    from toolkit.io.source import open_source

    return open_source(target, storage_options)


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


def local_target(target: str | Path, option: str, writes: str) -> Path:
    """The local path of an output an option writes only on this machine.

    Raises:
        InputError: ``target`` is a URL (one line naming it and the option).
    """
    path = open_output(target).disk
    if path is None:
        raise InputError(target, f"{option} writes {writes} on this machine, not to a URL")
    return path


def write_output(
    target: str | Path,
    text: str,
    what: str,
    storage_options: Mapping[str, Any] | None = None,
) -> None:
    """Write ``text`` (UTF-8) as the file ``target`` names: atomically on this machine, or
    as one object through its Source (a PUT replaces an object whole).

    Raises:
        InputError: the file or object could not be written (one line naming ``target``
            and ``what`` was written, such as "the JUnit report").
    """
    # atomic writes (tempfile, random: 3 ms of CPU) only when a file is written: `toolkit
    # --help` imports this module
    from toolkit.io.atomic import write_text_atomic

    dest = open_output(target, storage_options)
    if dest.disk is None:
        for failed in dest.put_many({dest.root: text.encode("utf-8")}).values():
            raise InputError(target, f"cannot write {what} ({failed})")
        return
    try:
        write_text_atomic(dest.disk, text)
    except OSError as exc:
        raise InputError(target, f"cannot write {what} ({exc.strerror})") from None
