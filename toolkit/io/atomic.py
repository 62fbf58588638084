"""Atomic file writes: a reader sees the old file or the new one, never half of either.

Every writer of the toolkit (score sidecars, baselines, cassettes, reports, ratings
exports, the Parquet cache) writes through :func:`atomic_path`: the new bytes go to a
temporary file beside the target, named ``.<target>.<pid>.<random>.toolkit-tmp``, which
is renamed over the target when complete. A writer that is killed mid-write leaves that
temporary file behind; the next writer of the same target removes such leftovers first
(:func:`remove_leftovers`), and loaders never take them as input (:func:`is_temp_file`:
the names start with a dot and end in ``.toolkit-tmp``, which no input pattern matches).

A new file gets the mode a plain ``open()`` would give it under the user's umask (0644
under the common 022), so a report, a site or a JUnit file can be served or read by
another user; a file replaced keeps its own mode. Files that hold people's ratings or a
session's identity are written ``private`` (0600).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from toolkit.errors import InputError

#: (Text: ``re`` compiles it on first use, which only a write makes;
#: compiled at import, it cost every one-run command, issue 38.)
_UNSAFE = r"[^A-Za-z0-9._-]"


#: The longest name :func:`safe_file_name` returns: with a suffix (``.score.yaml``) and
#: the temporary file's decoration (:func:`atomic_path`) it stays within the 255 bytes
#: file systems allow.
MAX_NAME = 120


def safe_file_name(text: str) -> str:
    """A file name made from ``text`` taken from data: characters other than letters,
    digits, ``.``, ``_`` and ``-`` become ``_`` and leading dots are dropped, so the name
    can never leave its folder (no ``/``, no ``..``) nor hide itself. A name longer than
    :data:`MAX_NAME` keeps its start and ends in a digest of the whole text, so two long
    ids that share a start still get two names."""
    name = re.sub(_UNSAFE, "_", text).lstrip(".") or "_"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{name[: MAX_NAME - 17]}-{digest}"


#: The ending of every temporary file the toolkit writes.
TEMP_SUFFIX = ".toolkit-tmp"

#: The longest target name :func:`atomic_path` takes: its temporary file adds a dot, the
#: process id, 8 random characters and :data:`TEMP_SUFFIX` (up to 32 bytes) within 255.
_LONGEST_TARGET = 220

#: When this process loaded the toolkit: a leftover must be older than that.
_STARTED = time.time()


def is_temp_file(name: str) -> bool:
    """Whether ``name`` (a file name) is one of the toolkit's temporary files."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # past the C int: no process has it
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def writer_gone(name: str) -> bool:
    """Whether the process that made the temporary file or folder ``name``
    (``.<target>.<pid>.<random>.toolkit-tmp``) no longer runs (a pid that is not in
    ASCII digits names no process)."""
    pid_text = name.removesuffix(TEMP_SUFFIX).rsplit(".", 2)[-2]
    return not (pid_text.isascii() and pid_text.isdigit() and _alive(int(pid_text)))


def remove_leftovers(
    folder: Path, target: str | None = None, *, folders: bool = False
) -> list[Path]:
    """Remove the temporary files that interrupted earlier writers left in ``folder``: of
    the file named ``target``, or (``None``, for a folder the toolkit owns, like the
    cache's) of any file.

    A file counts as a leftover only when its name is ``.<target>.<pid>.<random>.toolkit-tmp``,
    it is a regular file (never a link), the process ``pid`` no longer runs, and it was
    last written before this process started, so a concurrent writer's file is never
    touched. With ``folders``, the same of temporary folders (never a link), removed
    whole. Returns what was removed.
    """
    prefix = "." if target is None else f".{target}."
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(TEMP_SUFFIX)):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            kind = entry.is_dir if folders else entry.is_file
            if not kind(follow_symlinks=False) or info.st_mtime >= _STARTED:
                continue
            if not writer_gone(name):
                continue
            if folders:
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def output_problem(path: str | Path, *, folder: bool = False) -> str | None:
    """Why ``path`` must not be written as an output, or ``None`` when it may be.

    An output replaces a regular file (``folder``: fills a folder) or makes a new one; it
    never replaces a named pipe, a socket or a device (``/dev/null`` stays a device), a
    folder where a file is expected (nor a file where a folder is), nor follows a
    symbolic link out of the folder that holds it. Checked before any work is done, so a
    refused output costs nothing and leaves nothing behind. Every writer asks this (see
    :func:`check_target` and :func:`check_output_folder`).
    """
    name = os.fspath(path)
    try:
        info = os.lstat(name)
    except OSError:
        return None  # nothing there yet: a new file (an unwritable folder fails later)
    if stat.S_ISLNK(info.st_mode):
        real = os.path.realpath(name)
        home = os.path.realpath(os.path.dirname(os.path.abspath(name)))
        if os.path.commonpath([real, home]) != home:
            return f"is a symbolic link leading out of its folder (to {real}); name the file itself"
        try:
            info = os.stat(name)
        except OSError:
            return None  # a dangling link inside the folder: replaced by the new file
    mode = info.st_mode
    if folder:
        if stat.S_ISDIR(mode):
            return None
        if stat.S_ISREG(mode):
            return "is a file, not a folder: name a folder to write into"
        return f"is {_kind(mode)}, not a folder: name a folder to write into"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a folder: name the file to write"
    return f"is {_kind(mode)}, not a regular file: an output never replaces it"


def _refused(path: str | Path, problem: str, option: str | None) -> InputError:
    """The one-line refusal of an output, naming its path whole (and the option)."""
    return InputError(path, problem if option is None else f"{problem} (given to {option})")


def check_output_folder(path: str | Path, option: str | None = None) -> Path:
    """``path`` as a folder an output may be written into (made if missing), checked
    before any work (:func:`output_problem` with ``folder=True``).

    Raises:
        InputError: one line naming ``path`` (and ``option``) and why.
    """
    problem = output_problem(path, folder=True)
    if problem is not None:
        raise _refused(path, problem, option)
    return Path(path)


def check_target(path: str | Path, option: str | None = None) -> Path:
    """``path`` as a file :func:`atomic_path` can write, checked before any work is done
    for it (a report checks its ``-o`` before running its notebook).

    Raises:
        InputError: the path is a folder, a named pipe, a socket, a device or a symbolic
            link out of its folder (:func:`output_problem`), or its name is too long for
            the temporary file beside it.
    """
    target = Path(path)
    problem = output_problem(target)
    if problem is not None:
        raise _refused(path, problem, option)
    if len(os.fsencode(target.name)) > _LONGEST_TARGET:
        raise InputError(
            target, f"the file name is longer than {_LONGEST_TARGET} bytes (with the "
            "temporary file's name beside it, more than the file system allows)",
        )  # fmt: skip
    return target


def _umask() -> int:
    """This process's umask, read without changing it where Linux tells it (other threads
    may be creating files), else by setting and restoring it."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    old = os.umask(0o022)
    os.umask(old)
    return old


def usual_mode(*, folder: bool = False) -> int:
    """The mode ``open()`` (or ``mkdir()``, with ``folder``) gives a new file under the
    user's umask: 0644 (0755) under the common 022."""
    return (0o777 if folder else 0o666) & ~_umask()


def _mode_for(target: Path) -> int:
    """The mode of the file ``target`` replaces, or the usual mode of a new file."""
    try:
        st = target.stat()
    except OSError:
        return usual_mode()
    return st.st_mode & 0o7777 if stat.S_ISREG(st.st_mode) else usual_mode()


@contextlib.contextmanager
def atomic_path(path: str | Path, *, durable: bool = True, private: bool = False) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block ends without an exception,
    it replaces ``path`` (else it is removed).

    Leftovers of earlier interrupted writers of ``path`` are removed first. A target that
    is a folder, a name too long for its temporary file, or a folder that cannot be
    written is an :class:`~toolkit.errors.InputError` before anything is written. With
    ``durable``, the new file and the folder are fsynced, so a power cut keeps the old
    file or the new one; ``durable=False`` is still atomic for readers (right for caches,
    which are rebuilt, never for scores or ratings). The new file gets the mode of the
    file it replaces, or the usual mode of a new file (:func:`usual_mode`); ``private``
    keeps the temporary file's 0600 (people's ratings and notes, a session's identity).
    """
    target = check_target(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(target.parent, f"cannot make the folder ({exc.strerror or exc})") from None
    remove_leftovers(target.parent, target.name)
    try:
        fd, tmp_name = tempfile.mkstemp(
            prefix=f".{target.name}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=target.parent
        )
    except OSError as exc:
        raise InputError(target, f"cannot write here ({exc.strerror or exc})") from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        if not private:
            tmp.chmod(_mode_for(target))
        yield tmp
        if durable:
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_folder(target.parent)


def write_text_atomic(
    path: str | Path,
    text: str,
    encoding: str = "utf-8",
    *,
    durable: bool = True,
    mode: int | None = None,
    private: bool = False,
) -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_path`).

    Two writers racing each leave a complete file; the last rename wins. ``mode`` (e.g.
    ``0o644``) is set on the new file before it replaces ``path``; without it the file
    gets the mode :func:`atomic_path` gives (``private``: 0600).
    """
    with atomic_path(path, durable=durable, private=private) as tmp:
        tmp.write_text(text, encoding=encoding)
        if mode is not None:
            tmp.chmod(mode)
    return Path(path)
