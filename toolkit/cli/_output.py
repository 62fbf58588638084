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


#: The output options of the commands, by the name argparse gives them: each names a file
#: a command writes (and would replace).
FILE_OPTIONS: dict[str, str] = {
    "junit": "--junit",
    "html": "--html",
    "output": "-o",
    "record": "--record",
}

#: The output options naming a folder a command writes into.
FOLDER_OPTIONS: dict[str, str] = {
    "out": "-o",
    "write_baseline": "--write-baseline",
}


def check_outputs(args: Any) -> None:
    """Refuse, before any work, every local output the parsed ``args`` name that is not
    where a file or folder may be written: a named pipe, a socket, a device, a folder
    named as a file (a file named as a folder), a symbolic link out of its folder
    (:func:`toolkit.io.atomic.output_problem`, the helper every writer asks again when it
    writes). A URL is checked by its Source when written.

    Raises:
        InputError: one line naming the option, the path and why.
    """
    wanted = [(a, o, False) for a, o in FILE_OPTIONS.items()]
    wanted += [(a, o, True) for a, o in FOLDER_OPTIONS.items()]
    given: list[tuple[str | Path, str, bool]] = []
    for attribute, option, folder in wanted:
        value = getattr(args, attribute, None)
        if isinstance(value, str | Path) and str(value):
            given.append((value, option, folder))
    if not given:
        return
    # the output checks (tempfile, random: 3 ms of CPU) only when an output is named:
    # `toolkit --help` imports this module
    from toolkit.io.atomic import check_output_folder, check_target

    for value, option, folder in given:
        path = open_output(value).disk
        if path is None:
            continue
        if folder:
            check_output_folder(path, option)
        else:
            check_target(path, option)
