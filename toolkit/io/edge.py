"""The reading edge: every byte a loader reads passes these helpers.

Two layers, so that bytes from elsewhere (an fsspec URL) can pass the same checks:

* **files** — :func:`read_bytes` opens a path only when it is a regular file (a FIFO,
  socket or device is refused *before* anything could block: the file is opened with
  ``O_NONBLOCK`` and checked with ``fstat``), follows a symlink only when it resolves
  inside the folder being read, and refuses a file over the size limit.
  :func:`entry_problem` says the same of a directory-scan entry from its cached type,
  so the bulk tick reader needs no extra system call for an ordinary file.
* **bytes** — :func:`decode_text` (UTF-8, BOM-aware, errors name the byte offset),
  :func:`parse_json` / :func:`parse_json_lines` (nesting depth checked without recursion
  *before* :func:`json.loads`), and :func:`check_yaml` (nesting depth and alias
  expansion checked on libyaml's event stream, before anything is composed).

Every refusal is an :class:`~toolkit.errors.InputError` whose message is one line that
names the file. The limits (:class:`Limits`) are read from environment variables at call
time, so a user can raise them for one command::

    TOOLKIT_MAX_FILE_BYTES=2000000000 toolkit discussion big-export.json

See ``docs/formats/limits.md``.
"""

from __future__ import annotations

import array
import contextlib
import errno
import io
import json
import os
import re
import stat
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from toolkit._record import FieldsEqual, FieldsRepr, record
from toolkit.errors import InputError, SkippedInputWarning
from toolkit.io import duplicates
from toolkit.io.duplicates import DuplicateKey

if TYPE_CHECKING:
    import sqlite3

Name = str | Path | None

# ---------------------------------------------------------------------------
# Limits
# ---------------------------------------------------------------------------

#: Environment variable -> (Limits field, default).
LIMIT_VARIABLES: dict[str, tuple[str, int]] = {
    "TOOLKIT_MAX_FILE_BYTES": ("max_file_bytes", 256 * 1024 * 1024),
    "TOOLKIT_MAX_DEPTH": ("max_depth", 100),
    "TOOLKIT_MAX_YAML_ALIAS_NODES": ("max_yaml_alias_nodes", 10_000),
    "TOOLKIT_MAX_CELL_BYTES": ("max_cell_bytes", 1024 * 1024),
    "TOOLKIT_MAX_LINES": ("max_lines", 2_000_000),
    "TOOLKIT_MAX_ROWS": ("max_archive_rows", 500_000),
}


@record  # eq, hash, repr: toolkit._record
class Limits(FieldsEqual, FieldsRepr):
    """What the reading edge accepts.

    Attributes:
        max_file_bytes: the largest file read (``TOOLKIT_MAX_FILE_BYTES``, 256 MiB).
        max_depth: the deepest nesting of JSON or YAML values (``TOOLKIT_MAX_DEPTH``, 100).
        max_yaml_alias_nodes: how many nodes YAML aliases may add to a document by
            repeating anchored values (``TOOLKIT_MAX_YAML_ALIAS_NODES``, 10,000).
        max_cell_bytes: the largest CSV cell (``TOOLKIT_MAX_CELL_BYTES``, 1 MiB).
        max_lines: the most lines a CSV file may have, blank lines included
            (``TOOLKIT_MAX_LINES``, 2,000,000): a file padded with blank lines is refused
            before a reader makes a row of each.
        max_archive_rows: the most rows of one member of a ratings backup zip (a CSV's
            lines, blank lines included; a Parquet file's rows) (``TOOLKIT_MAX_ROWS``,
            500,000).
    """

    max_file_bytes: int
    max_depth: int
    max_yaml_alias_nodes: int
    max_cell_bytes: int
    max_lines: int = 2_000_000
    max_archive_rows: int = 500_000


def limits() -> Limits:
    """The limits in force: the defaults, raised or lowered by the environment variables
    of :data:`LIMIT_VARIABLES` (a value that is not a positive whole number is ignored)."""
    values: dict[str, int] = {}
    for variable, (name, default) in LIMIT_VARIABLES.items():
        raw = os.environ.get(variable)
        value = default
        if raw is not None and raw.strip().isascii() and raw.strip().isdigit() and int(raw) > 0:
            value = int(raw)
        values[name] = value
    return Limits(**values)


def _variable(field: str) -> str:
    return next(v for v, (f, _) in LIMIT_VARIABLES.items() if f == field)


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def describe_mode(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    return "not a regular file"


def _inside(real: str, root_real: str) -> bool:
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def _link_problem(path: str, within: str | Path) -> str | None:
    """Why the symlink ``path`` may not be followed (``None``: it may)."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symlink loop"
        if exc.errno == errno.ENOENT:
            return f"a dangling symlink (to {os.readlink(path)!s})"
        return f"cannot follow the symlink ({exc.strerror or exc})"
    real = os.path.realpath(path)
    if not _inside(real, os.path.realpath(within)):
        return f"a symlink to {real}, outside the folder being read"
    return None


def entry_problem(entry: os.DirEntry[str], within: str | Path) -> str | None:
    """Why the directory-scan ``entry`` cannot be read as a file (``None``: it can).

    Uses the type cached by the scan; only a symlink costs a ``stat`` (and a
    ``realpath`` to check that it stays inside ``within``).
    """
    try:
        if entry.is_symlink():
            problem = _link_problem(entry.path, within)
            if problem is not None:
                return problem
            mode = entry.stat().st_mode
            return None if stat.S_ISREG(mode) else describe_mode(mode)
        if entry.is_file(follow_symlinks=False):
            return None
        return describe_mode(entry.stat(follow_symlinks=False).st_mode)
    except OSError as exc:
        return f"cannot read the folder entry ({exc.strerror or exc})"


def skipped_input(path: str | os.PathLike[str], reason: str) -> str:
    """Say that an input is skipped: the one line ``PATH: skipped: REASON``, also raised as
    a :class:`~toolkit.errors.SkippedInputWarning` so that it never vanishes silently (the
    command line prints every one on stderr; a notebook shows it). Loaders record the
    returned line on their result as well.
    """
    line = f"{os.fspath(path)}: skipped: {reason}"
    warnings.warn(line, SkippedInputWarning, stacklevel=2)
    return line


def regular_names(folder: str) -> list[str] | None:
    """The names of ``folder``'s entries, in the order :func:`scan_folder` gives them, when
    the C listing (``_readpack.regular_names``) is built and on and finds every entry a
    regular file by its directory entry's type (no ``stat``, no ``DirEntry`` made): the
    names :func:`scan_folder`'s entries carry then. ``None`` otherwise (not built, off,
    a folder that cannot be opened, any other entry): :func:`scan_folder` looks at each
    entry and says why."""
    if _c_regular_names is None or not PACK_ACCEL:
        return None
    return _c_regular_names(folder)


def scan_folder(folder: str | Path) -> tuple[list[os.DirEntry[str]], str | None]:
    """The entries of ``folder`` and, when it cannot be listed, why (a missing folder is
    no problem: it lists as empty)."""
    try:
        with os.scandir(folder) as entries:
            return list(entries), None
    except (FileNotFoundError, NotADirectoryError):
        return [], None
    except OSError as exc:
        return [], f"cannot list the folder ({exc.strerror or exc})"


def _open_error(path: str, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a symlink loop"
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return "a dangling symlink"
    if exc.errno == errno.ENOENT:
        return f"cannot read file ({exc.strerror})"
    return f"cannot read file ({exc.strerror or exc})"


_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_bytes(path: str | Path, *, within: str | Path | None = None) -> bytes:
    """The bytes of the regular file ``path``.

    Args:
        path: the file.
        within: the folder being read; a symlink must resolve inside it.

    Raises:
        InputError: not a regular file (checked before a read could block), a symlink
            loop, a dangling symlink or one leading out of ``within``, over the size
            limit, or unreadable.
    """
    with _regular_file(path, within) as (fd, name, info):
        limit = limits().max_file_bytes
        if info.st_size > limit:
            raise InputError(name, _too_big(info.st_size, limit))
        return _read_all(fd, limit, name, info.st_size)


def read_head(path: str | Path, size: int, *, within: str | Path | None = None) -> bytes:
    """The first ``size`` bytes of the regular file ``path`` (a magic-number check), with
    the checks of :func:`read_bytes` except the size limit.

    Raises:
        InputError: as :func:`read_bytes`.
    """
    with _regular_file(path, within) as (fd, _, _):
        return os.read(fd, size)


@contextlib.contextmanager
def _regular_file(
    path: str | Path, within: str | Path | None
) -> Iterator[tuple[int, str, os.stat_result]]:
    """Open ``path`` without blocking and yield ``(fd, name, stat)`` once it is known to be
    a regular file (a link must resolve inside ``within``); every failure, then or while
    the caller reads, is a one-line :class:`InputError`."""
    name = os.fspath(path)
    if within is not None and os.path.islink(name):
        problem = _link_problem(name, within)
        if problem is not None:
            raise InputError(name, problem)
    try:
        fd = os.open(name, _FLAGS)
    except OSError as exc:
        raise InputError(name, _open_error(name, exc)) from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(name, describe_mode(info.st_mode))
        yield fd, name, info
    except OSError as exc:
        raise InputError(name, f"cannot read file ({exc.strerror or exc})") from exc
    finally:
        os.close(fd)


def _too_big(size: int, limit: int) -> str:
    return (
        f"the file is {size:,} bytes, over the limit of {limit:,} "
        f"(raise {_variable('max_file_bytes')} to read it)"
    )


#: The first read of a file whose size is not known (a tick file the scan vetted): 64 KiB,
#: below glibc's mmap threshold. A larger buffer (4 MiB here before) is mapped and
#: unmapped on every read, which cost 15-20 µs a file against 5 µs (docs/performance.md).
_READ_SIZE = 1 << 16
#: Later reads of a file that turned out larger, or grew since its ``fstat``.
_MORE_SIZE = 1 << 20


def _read_all(fd: int, limit: int, name: str, size: int | None = None) -> bytes:
    """Every byte of ``fd``, refused past ``limit``. ``size`` (from ``fstat``) sizes the
    first read to the file (plus one byte, to see growth); unknown, the first read is
    :data:`_READ_SIZE`, which holds any ordinary tick file whole."""
    want = min(_READ_SIZE if size is None else size + 1, limit + 1)
    first = os.read(fd, want)
    if len(first) < want:
        return first
    return _read_more(fd, first, limit, name)


def _read_more(fd: int, first: bytes, limit: int, name: str) -> bytes:
    """The rest of ``fd`` after a first read that filled its buffer, refused past
    ``limit``."""
    if len(first) > limit:
        raise InputError(name, _too_big(len(first), limit))
    chunks = [first]
    total = len(first)
    while chunk := os.read(fd, min(_MORE_SIZE, limit + 1 - total)):
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise InputError(name, _too_big(total, limit))
    return b"".join(chunks)


def read_bytes_fast(path: str, limit: int) -> bytes | InputError:
    """:func:`read_bytes` for a file already vetted by :func:`entry_problem`: one
    ``open`` and (for a file up to 64 KiB) one ``read``, no ``fstat``; a problem is
    returned, not raised.

    ``O_NONBLOCK`` keeps a file swapped for a FIFO since the scan from blocking (it then
    reads as empty and fails to parse, with an issue row)."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        return InputError(path, _open_error(path, exc))
    try:
        return _read_all(fd, limit, path)
    except InputError as err:
        return err
    except OSError as exc:
        return InputError(path, f"cannot read file ({exc.strerror or exc})")
    finally:
        os.close(fd)


def read_many_fast(
    paths: Iterable[str], limit: int, budget: int | None = None
) -> list[bytes | InputError]:
    """:func:`read_bytes_fast` of many files in one loop (two Python calls per file cost
    about a tenth of the read itself): one ``open``, one 64 KiB ``read`` and one
    ``close`` for a file that fits in it; the same limits and problems.

    With a ``budget`` (bytes), reading stops after the file that brings the bytes read to
    it or beyond (at least one file is read): the result is then a prefix of ``paths``,
    and the caller reads the rest later. A fleet of large tick files is thus read a few
    hundred MiB at a time, whatever its number of files."""
    out: list[bytes | InputError] = []
    append = out.append
    want = min(_READ_SIZE, limit + 1)
    flags, opened, read, close = _FLAGS, os.open, os.read, os.close
    total = 0
    stop = budget if budget is not None else -1
    for path in paths:
        try:
            fd = opened(path, flags)
        except OSError as exc:
            append(InputError(path, _open_error(path, exc)))
            if total >= stop >= 0:  # a file that cannot be opened counts as one read
                break
            continue
        try:
            blob = read(fd, want)
            if len(blob) >= want:
                blob = _read_more(fd, blob, limit, path)
            append(blob)
            total += len(blob)
        except InputError as err:
            append(err)
        except OSError as exc:
            append(InputError(path, f"cannot read file ({exc.strerror or exc})"))
        finally:
            close(fd)
        if total >= stop >= 0:
            break
    return out


_c_read_packed: Callable[[list[str], int, int, int, int], tuple[bytes, bytes, int]] | None
try:  # the optional C reader (setup.py builds it where a C compiler is found)
    from toolkit.io._readpack import read_packed as _c_read_packed
except ImportError:  # pragma: no cover - a machine without a C compiler
    _c_read_packed = None
_c_regular_names: Callable[[str], list[str] | None] | None
try:  # the C listing of a folder of regular files (built with the reader)
    from toolkit.io._readpack import regular_names as _c_regular_names
except ImportError:  # pragma: no cover - not built, or built before it had regular_names
    _c_regular_names = None

#: Whether :func:`read_packed` uses the C reader (``toolkit/io/_readpack.c``) where it is
#: built; ``TOOLKIT_ACCEL=0`` (read when the module is imported) switches it off, as it
#: switches off the C screen of tick files. The pure loop is the reference.
PACK_ACCEL = _c_read_packed is not None and os.environ.get("TOOLKIT_ACCEL", "1") != "0"


@record  # repr: toolkit._record
class Packed(FieldsRepr, Sequence[bytes]):
    """The bytes of many files back to back in one buffer (:func:`read_packed`).

    As a sequence, item ``i`` is file ``i``'s bytes (a slice made when asked for: the
    C screen of tick files reads the buffer itself, with no bytes object per file); a
    file in ``problems`` is ``b""`` there.

    Attributes:
        data: every file's bytes, in order, with nothing between them.
        ends: where each file ends in ``data`` (an ``array('q')``): file ``i`` is
            ``data[ends[i - 1]:ends[i]]`` (from 0 for the first).
        problems: the files that could not be read, by index: their one-line problem
            (their slot in ``data`` is empty).
    """

    data: bytes
    ends: array.array[int]
    problems: dict[int, InputError]

    def __len__(self) -> int:
        return len(self.ends)

    @overload
    def __getitem__(self, i: int) -> bytes: ...
    @overload
    def __getitem__(self, i: slice) -> list[bytes]: ...
    def __getitem__(self, i: int | slice) -> bytes | list[bytes]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self.ends)))]
        if i < 0:
            i += len(self.ends)
        if not 0 <= i < len(self.ends):
            raise IndexError(i)
        return self.data[self.ends[i - 1] if i else 0 : self.ends[i]]

    def blobs(self) -> list[bytes | InputError]:
        """Every file's bytes or problem, as :func:`read_many_fast` gives them."""
        return [self.problems.get(i) or self[i] for i in range(len(self.ends))]


def pack(got: Sequence[bytes | InputError]) -> Packed:
    """The :class:`Packed` form of bytes read one file at a time (what a storage without
    a packed reader returns)."""
    ends = array.array("q")
    problems: dict[int, InputError] = {}
    total = 0
    for i, blob in enumerate(got):
        if isinstance(blob, InputError):
            problems[i] = blob
        else:
            total += len(blob)
        ends.append(total)
    data = b"".join(b for b in got if not isinstance(b, InputError))
    return Packed(data, ends, problems)


def join_packed(packs: Sequence[Packed]) -> Packed:
    """Several :class:`Packed` as one, in order (their problems renumbered)."""
    ends = array.array("q")
    problems: dict[int, InputError] = {}
    total = 0
    for pack_ in packs:
        problems.update({len(ends) + i: err for i, err in pack_.problems.items()})
        ends.extend(pack_.ends if not total else array.array("q", (total + e for e in pack_.ends)))
        total += len(pack_.data)
    return Packed(b"".join(p.data for p in packs), ends, problems)


def read_packed(paths: Sequence[str], limit: int, budget: int | None = None) -> Packed:
    """:func:`read_many_fast` into one buffer: the same files read (the same prefix of
    ``paths`` under a ``budget``), the same bytes and the same problems, without a
    Python object per file.

    With the C reader built (:data:`PACK_ACCEL`), a run of files each taken whole by one
    64 KiB ``read`` is read in one C call (``open`` with :data:`_FLAGS`, ``read``,
    ``close``, the GIL released); a file it cannot take so (missing, unreadable, a path
    that is not plain UTF-8, 64 KiB or more) is read by :func:`read_many_fast`'s own loop,
    which gives its bytes or its problem, and the C call goes on after it."""
    if not PACK_ACCEL or _c_read_packed is None:
        return pack(read_many_fast(paths, limit, budget))
    want = min(_READ_SIZE, limit + 1)
    names = paths if isinstance(paths, list) else list(paths)
    parts: list[bytes] = []
    ends = array.array("q")
    problems: dict[int, InputError] = {}
    total, start = 0, 0
    while start < len(names):
        left = -1 if budget is None else max(budget - total, 0)
        data, stops, count = _c_read_packed(names, start, _FLAGS, want, left)
        if count:
            done = array.array("q", stops)
            if total:
                done = array.array("q", (total + end for end in done))
            ends.extend(done)
            parts.append(data)
            total += len(data)
            start += count
            if budget is not None and total >= budget:
                break
            if start == len(names):
                break
        one = read_many_fast([names[start]], limit)[0]  # the file the C call stopped at
        if isinstance(one, InputError):
            problems[start] = one
        else:
            parts.append(one)
            total += len(one)
        ends.append(total)
        start += 1
        if budget is not None and total >= budget:
            break
    return Packed(parts[0] if len(parts) == 1 else b"".join(parts), ends, problems)


def checked_blob(got: bytes | OSError, name: str, limit: int) -> bytes | InputError:
    """Bytes fetched from object storage, held to the limits a local read is held to
    (:func:`read_bytes_fast`'s contract: a problem is returned, not raised)."""
    if isinstance(got, OSError):
        err = InputError(name, f"cannot read file ({got})")
        err.__cause__ = got  # so a caller can tell a missing object from a broken one
        return err
    if len(got) > limit:
        return InputError(name, _too_big(len(got), limit))
    return got


def shown(value: Any) -> str:
    """``repr`` of a value for a one-line message, cut at 60 characters (bytes that are
    UTF-8 text, as SQLite cells are read, are shown as that text)."""
    if isinstance(value, bytes):
        with contextlib.suppress(UnicodeDecodeError):
            value = value.decode("utf-8")
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


#: Characters a terminal or a renderer acts on instead of showing: C0 and C1 controls
#: (ESC starts an ANSI sequence), DEL, zero-width and bidirectional marks, lone surrogates.
#: (Compiled on first use: every character of the class is one ``str.isprintable`` refuses,
#: so a printable text, as almost every id is, is returned as it is without it; the
#: compile is ~1 ms of every one-run command, issue 38.)
INVISIBLE = "[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
#: The same class as a Polars (Rust) pattern, to find the values that need :func:`visible`.
INVISIBLE_PATTERN = r"[\x00-\x1F\x7F-\x9F\x{200B}-\x{200F}\x{202A}-\x{202E}\x{2066}-\x{2069}]"


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every character of :data:`INVISIBLE` written as its escape
    (ESC as ``\\x1b``, U+202E as ``\\u202e``), so an id from a file can be printed to a
    terminal or handed to a renderer without acting on either."""
    if text.isprintable():  # no character of INVISIBLE is printable: nothing to escape
        return text
    return re.sub(INVISIBLE, _escape, text)


def visible_lines(text: str) -> str:
    """:func:`visible` of each line of ``text``: its line breaks kept, every other
    invisible character (a folder's ESC, a node's U+202E) written as its escape, so a
    table of names read from files prints to a terminal as it reads."""
    return "\n".join(visible(line) for line in text.split("\n"))


def sqlite_readonly(path: str | Path) -> sqlite3.Connection:
    """Open an SQLite file read-only, from exactly that path: the one place a ``file:`` URI
    is built.

    The path is made absolute and percent-encoded (``pathlib``'s ``as_uri``), so ``?``,
    ``#``, ``%``, ``&`` and spaces in a folder's name are part of the path, never the
    URI's query or fragment: ``run #1`` never opens ``run `` and ``run%41`` never opens
    ``runA``. ``mode=ro`` never creates a missing file.

    Raises:
        sqlite3.Error: the file cannot be opened (callers turn it into
            :func:`sqlite_problem`).
    """
    # sqlite3 (~1.5 ms of CPU): imported by the readers of SQLite files only, not by
    # every command that reads through this module
    import sqlite3

    uri = Path(os.path.abspath(path)).as_uri()
    return sqlite3.connect(f"{uri}?mode=ro", uri=True)


def sqlite_problem(path: str | Path, exc: Exception) -> InputError:
    """The one-line error for an SQLite file that cannot be read: what SQLite said, and
    the command that checks the file."""
    said = " ".join(str(exc).split()) or type(exc).__name__
    return InputError(
        path,
        f"damaged or unreadable SQLite database ({said}); check it with: "
        f'sqlite3 {path} "PRAGMA integrity_check"',
    )


def check_lines(blob: bytes | str, name: Name) -> int:
    """The number of lines of CSV bytes or text, blank lines included; refused past the
    line limit before any reader makes a row of each (Polars reads a blank line as a row
    of nulls, 130-500 bytes of memory each).

    Raises:
        InputError: more lines than :attr:`Limits.max_lines`, naming the file.
    """
    data = blob if isinstance(blob, bytes) else blob.encode("utf-8", "surrogatepass")
    lines = data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    limit = limits().max_lines
    if lines > limit:
        blank = data.count(b"\n\n")
        said = f" (at least {blank:,} of them blank)" if blank else ""
        raise InputError(
            name,
            f"the file has {lines:,} lines{said}, over the limit of {limit:,} "
            f"(raise {_variable('max_lines')} to read it)",
        )
    return lines


def read_frame(blob: bytes, name: Name, kind: str) -> Any:
    """A Polars frame from CSV (every column as text) or Parquet bytes; CSV is held to
    the line limit first (:func:`check_lines`).

    Raises:
        InputError: the bytes are not a readable file of that kind (Polars' own error,
            or a panic inside it, on one line), or a CSV over the line limit.
    """
    import polars as pl  # polars: `import toolkit` stays light (tests/test_startup_imports.py)

    if kind == "csv":
        check_lines(blob, name)
    try:
        if kind == "csv":
            return pl.read_csv(io.BytesIO(blob), infer_schema=False)
        return pl.read_parquet(io.BytesIO(blob))
    except (OSError, ValueError, pl.exceptions.PolarsError, pl.exceptions.PanicException) as exc:
        said = " ".join(str(exc).split())[:200]
        raise InputError(name, f"not a readable {kind.upper()} file ({said})") from exc


@contextlib.contextmanager
def csv_cells() -> Iterator[int]:
    """Let the ``csv`` module read cells up to the cell limit (restored afterwards);
    yields the limit."""
    # csv: only the readers of CSV files need it (every command imports this module)
    import csv

    limit = limits().max_cell_bytes
    before = csv.field_size_limit(limit)
    try:
        yield limit
    finally:
        csv.field_size_limit(before)


def csv_problem(name: Name, exc: Exception, line: int | None) -> InputError:
    """A ``csv.Error`` as a one-line :class:`InputError` (an oversized cell names the
    limit and how to raise it)."""
    said = " ".join(str(exc).split())
    if "field larger than field limit" in said:
        said = (
            f"a cell is larger than {limits().max_cell_bytes:,} characters "
            f"(raise {_variable('max_cell_bytes')} to read it)"
        )
    return InputError(name, f"not readable CSV: {said}", line=line)


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------

_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
    (b"\xfe\xff", "UTF-16 (big-endian)"),
    (b"\xff\xfe", "UTF-16 (little-endian)"),
)


def decode_text(blob: bytes, name: Name) -> str:
    """UTF-8 text of ``blob`` (a UTF-8 byte-order mark is dropped).

    Raises:
        InputError: UTF-16/32 text (by its byte-order mark) or bytes that are not UTF-8,
            naming the byte offset of the first bad byte.
    """
    if blob.startswith(b"\xef\xbb\xbf"):
        blob = blob[3:]
    else:
        for bom, encoding in _BOMS:
            if blob.startswith(bom):
                raise InputError(
                    name, f"the text is {encoding} (byte-order mark at byte 0); save it as UTF-8"
                )
    try:
        return blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = blob[exc.start : exc.start + 1].hex()
        raise InputError(
            name, f"not UTF-8 text: {exc.reason} (byte 0x{bad} at byte offset {exc.start})"
        ) from exc


def read_text(path: str | Path, *, within: str | Path | None = None) -> str:
    """:func:`read_bytes` then :func:`decode_text`."""
    return decode_text(read_bytes(path, within=within), path)


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------

#: A JSON string, quotes included: a run of plain characters, then each escape with the run
#: after it ("unrolled": the same matches as ``"(?:[^"\\]|\\.)*"``, a fifth of the time in
#: ``re``, which steps through an alternation in a loop one character at a time).
#: Compiled by ``re`` on first use, as the brackets' pattern: only a text with more
#: brackets than the depth limit is scanned (:func:`check_json_text`).
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_BRACKETS = r"[\[\]{}]"
#: (Compiled by ``re`` on first use: only a text with a ``\\u`` escape is searched.)
_LONE_SURROGATE = (
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def _max_depth(text: str) -> int:
    """The deepest bracket nesting of JSON text (strings skipped), without recursion."""
    if "[" not in text and "{" not in text:
        return 0
    depth = deepest = 0
    for bracket in re.findall(_BRACKETS, re.sub(_STRING, "", text, flags=re.DOTALL)):
        if bracket in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def _json_path(text: str, limit: int) -> str:
    """The JSON path (``$.a[0]...``) to the first value nested deeper than ``limit``."""
    string = re.compile(_STRING, re.DOTALL)
    path: list[str] = []
    stack: list[list[Any]] = []  # per open container: [kind, index or key]
    i, n = 0, len(text)
    pending_key: str | None = None
    while i < n:
        c = text[i]
        if c == '"':
            m = string.match(text, i)
            end = m.end() if m else n
            if stack and stack[-1][0] == "{":
                rest = text[end:].lstrip()
                if rest.startswith(":"):
                    try:
                        pending_key = json.loads(text[i:end])
                    except ValueError:
                        pending_key = "?"
            i = end
            continue
        if c in "[{":
            if stack:
                top = stack[-1]
                path.append(f"[{top[1]}]" if top[0] == "[" else f".{pending_key}")
            stack.append([c, 0])
            if len(stack) > limit:
                return "$" + _compress(path)
        elif c in "]}":
            if stack:
                stack.pop()
            if path:
                path.pop()
        elif c == "," and stack and stack[-1][0] == "[":
            stack[-1][1] += 1
        i += 1
    return "$" + _compress(path)


def _compress(parts: list[str]) -> str:
    """``[0][0][0]`` -> ``[0]×3``: a path 100 levels deep on one line."""
    out: list[str] = []
    i = 0
    while i < len(parts):
        j = i
        while j < len(parts) and parts[j] == parts[i]:
            j += 1
        out.append(parts[i] if j - i < 3 else f"{parts[i]}×{j - i}")
        i = j
    return "".join(out)


def check_json_text(text: str, name: Name, *, line: int | None = None) -> None:
    """Refuse JSON text nested deeper than the limit, or holding a lone surrogate escape.

    Raises:
        InputError: naming the file (and ``line``) and the JSON path to the deep value.
    """
    limit = limits().max_depth
    # no deeper than the brackets it holds (inside strings or not): a text with no more of
    # them than the limit needs no scan (most files; issue 38)
    if text.count("[") + text.count("{") > limit and _max_depth(text) > limit:
        raise InputError(
            name,
            f"nested deeper than {limit} levels at {_json_path(text, limit)} "
            f"(raise {_variable('max_depth')} to read it)",
            line=line,
        )
    if "\\u" in text and (m := re.search(_LONE_SURROGATE, text)):
        raise InputError(
            name,
            f"a lone UTF-16 surrogate escape {m.group(0)} at character {m.start()} is not text",
            line=line,
        )


#: An integer literal longer than Python converts (``sys.get_int_max_str_digits()``).
_TOO_LONG = "holds an integer with more digits than can be read (over 4,300): not a number"


def load_json_text(text: str, name: Name) -> tuple[Any, list[DuplicateKey]]:
    """Parse JSON text with the depth check: the value (of a repeated key, the last value
    wins) and the repeated keys, for a caller that reports them itself.

    Raises:
        InputError: too deep, or not valid JSON (with the line of the error).
    """
    check_json_text(text, name)
    try:
        return duplicates.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(name, f"not valid JSON ({exc.msg})", line=exc.lineno) from exc
    except ValueError as exc:  # an integer longer than Python converts (4,300 digits)
        raise InputError(name, _TOO_LONG) from exc
    except RecursionError as exc:  # pragma: no cover - the depth check comes first
        raise InputError(name, "nested too deeply") from exc


def parse_json_text(text: str, name: Name) -> Any:
    """Parse JSON text with the depth check; each repeated key is a
    :class:`~toolkit.errors.DuplicateKeyWarning` (file, key, line) and keeps its last value.

    Raises:
        InputError: too deep, or not valid JSON (with the line of the error).
    """
    value, dupes = load_json_text(text, name)
    duplicates.warn(name, dupes)
    return value


def load_json(blob: bytes, name: Name) -> tuple[Any, list[DuplicateKey]]:
    """Decode and parse JSON bytes: the value and the repeated keys (no warning)."""
    return load_json_text(decode_text(blob, name), name)


def parse_json(blob: bytes, name: Name) -> Any:
    """Decode and parse JSON bytes (see :func:`decode_text`, :func:`parse_json_text`)."""
    return parse_json_text(decode_text(blob, name), name)


def iter_json_lines(text: str, name: Name) -> Iterator[tuple[int, Any | InputError]]:
    """``(line number, value or the problem of that line)`` per non-blank line; a repeated
    key is warned of with the line of its record."""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            check_json_text(line, name, line=number)
            value, dupes = duplicates.loads(line)
        except InputError as err:
            yield number, err
            continue
        except json.JSONDecodeError as exc:
            yield number, InputError(name, f"not valid JSON ({exc.msg})", line=number)
            continue
        except ValueError:  # an integer longer than Python converts
            yield number, InputError(name, _TOO_LONG, line=number)
            continue
        duplicates.warn(name, dupes, line=number)
        yield number, value


def parse_json_lines(text: str, name: Name) -> list[tuple[int, Any]]:
    """Parse JSON Lines text: ``(line number, value)`` per non-blank line.

    Raises:
        InputError: the first line that is not valid JSON, or too deep.
    """
    rows: list[tuple[int, Any]] = []
    for number, value in iter_json_lines(text, name):
        if isinstance(value, InputError):
            raise value
        rows.append((number, value))
    return rows


# ---------------------------------------------------------------------------
# YAML
# ---------------------------------------------------------------------------


def yaml_problem(text: str) -> tuple[str, int | None] | None:
    """Why YAML ``text`` must not be composed: nested past the depth limit, a recursive
    alias, or aliases expanding the document past the alias budget. ``None`` when it is
    safe. Checked on libyaml's event stream (iterative), before any node is built.

    A syntax error is left for the parser to report; ``(reason, line)`` otherwise.
    """
    limit = limits()
    cheap = (
        text.count("\n") + text.count("[") + text.count("{") + text.count("- ")
        + text.count("? ") + 1
    )  # fmt: skip
    if cheap <= limit.max_depth and "&" not in text:
        return None  # too few nesting marks to reach the limit, and no anchors
    import yaml  # yaml: ~35 ms, only when a YAML text has nesting to count

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    sizes: dict[str, int] = {}
    stack: list[list[Any]] = []  # [anchor, expanded size so far]
    events = 0
    expanded = 0
    try:
        for event in yaml.parse(text, Loader=loader):
            line = event.start_mark.line + 1 if event.start_mark is not None else None
            if isinstance(event, yaml.CollectionStartEvent):
                events += 1
                stack.append([event.anchor, 1])
                if len(stack) > limit.max_depth:
                    return (
                        f"nested deeper than {limit.max_depth} levels "
                        f"(raise {_variable('max_depth')} to read it)",
                        line,
                    )
            elif isinstance(event, yaml.CollectionEndEvent):
                anchor, size = stack.pop()
                if anchor is not None:
                    sizes[anchor] = size
                if stack:
                    stack[-1][1] += size
                else:
                    expanded += size
            elif isinstance(event, yaml.ScalarEvent | yaml.AliasEvent):
                size = 1
                if isinstance(event, yaml.AliasEvent):
                    if event.anchor not in sizes:
                        if any(frame[0] == event.anchor for frame in stack):
                            return f"the alias *{event.anchor} refers to itself", line
                        continue  # undefined: the parser reports it
                    size = sizes[event.anchor]
                else:
                    events += 1
                    if event.anchor is not None:
                        sizes[event.anchor] = 1
                if stack:
                    stack[-1][1] += size
                else:
                    expanded += size
                total = expanded + sum(frame[1] for frame in stack)
                if total - events > limit.max_yaml_alias_nodes:
                    return (
                        f"aliases expand the document by more than "
                        f"{limit.max_yaml_alias_nodes:,} nodes "
                        f"(raise {_variable('max_yaml_alias_nodes')} to read it)",
                        line,
                    )
    except yaml.MarkedYAMLError as exc:
        if "nesting depth" in str(exc.problem):  # libyaml >= 0.2.5 stops at its own depth
            mark = exc.problem_mark
            return (
                f"nested deeper than {limit.max_depth} levels "
                f"(raise {_variable('max_depth')} to read it)",
                None if mark is None else mark.line + 1,
            )
        return None  # a syntax error: the parser names it with its line
    except yaml.YAMLError:
        return None  # a syntax error: the parser names it with its line
    return None


def parse_yaml_text(text: str, name: Name) -> Any:
    """Parse one YAML document (checked by :func:`yaml_problem` first) into plain data.

    A timestamp-looking scalar that is not a real date stays text.

    Raises:
        InputError: not valid YAML, too deep, or an alias bomb; naming the file and line.
    """
    # yamlkeys imports this module (and yaml, ~35 ms): a cycle and a startup cost
    from toolkit.io.yamlkeys import YamlProblem, YamlRefused, parse_yaml

    try:
        return parse_yaml(text, source=None if name is None else str(name)).data
    except YamlProblem as exc:
        reason = exc.reason if isinstance(exc, YamlRefused) else f"not valid YAML: {exc.reason}"
        raise InputError(name, reason, line=exc.line) from exc


def read_yaml(path: str | Path, *, within: str | Path | None = None) -> Any:
    """:func:`read_text` then :func:`parse_yaml_text`."""
    return parse_yaml_text(read_text(path, within=within), path)
