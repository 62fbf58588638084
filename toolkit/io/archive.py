"""Reading members of a zip archive through the reading edge's limits.

A zip's own word is not trusted: each member named is read in full only through a
stream capped at the file limit (a member whose header understates its size is caught
as it inflates), a member that inflates more than :data:`MAX_RATIO` times is refused
before it is read, an encrypted member or one compressed by a method the standard
library cannot read (AES, PPMd, ...) is refused by name, and a corrupt stream is a
one-line refusal naming the archive and the member. A member's rows count against
:func:`max_rows` (a CSV's lines, blank ones too; a Parquet file's rows, read from its
footer before it is decoded). The archive itself is read by
:func:`toolkit.io.edge.read_bytes` (a regular file only, under the size limit), so a FIFO
or a device is refused before it is opened.
"""

from __future__ import annotations

import io
import lzma
import os
import stat
import zipfile
import zlib
from pathlib import Path

from toolkit.errors import InputError
from toolkit.io.edge import describe_mode, limits, read_bytes

#: The most a member may inflate (its size over its compressed size) once it is larger
#: than :data:`RATIO_FREE_BYTES`: a backup's CSV or Parquet inflates 2-10 times; a zip
#: bomb thousands of times.
MAX_RATIO = 100
#: Members up to this size are not held to :data:`MAX_RATIO` (small files of repeated
#: text compress well and cost nothing).
RATIO_FREE_BYTES = 1 << 20
#: The compression methods the standard library reads.
READABLE_METHODS = {
    zipfile.ZIP_STORED: "stored",
    zipfile.ZIP_DEFLATED: "deflate",
    zipfile.ZIP_BZIP2: "bzip2",
    zipfile.ZIP_LZMA: "lzma",
}
#: Names of methods it does not read, for the refusal.
_OTHER_METHODS = {9: "deflate64", 12: "bzip2", 19: "lz77", 93: "zstandard", 97: "wavpack",
                  98: "PPMd", 99: "AES encryption"}  # fmt: skip
_READ_SIZE = 1 << 20


def refuse_special(path: str | Path) -> None:
    """Refuse ``path`` unless it is a regular file or a folder, from its ``stat`` alone
    (a FIFO or a device is never opened: opening one may block or act).

    Raises:
        InputError: a missing path, or one that is neither a file nor a folder.
    """
    name = os.fspath(path)
    try:
        mode = os.stat(name).st_mode
    except OSError as exc:
        raise InputError(name, f"cannot read it ({exc.strerror or exc})") from exc
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError(name, describe_mode(mode))


def _refused(name: str, member: str, reason: str) -> InputError:
    return InputError(name, f"member {member}: {reason}")


def _method_problem(info: zipfile.ZipInfo) -> str | None:
    if info.flag_bits & 0x1:
        return (
            "encrypted: a backup is never encrypted (unpack it yourself, then restore the folder)"
        )
    if info.compress_type not in READABLE_METHODS:
        what = _OTHER_METHODS.get(info.compress_type, "an unknown method")
        return (
            f"compressed with method {info.compress_type} ({what}), which cannot be read "
            "here: re-zip it with deflate"
        )
    return None


def _inflate(zipped: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, limit: int) -> bytes:
    """The member's bytes, refused once they pass ``limit`` or the size its header
    declares (whichever is smaller), or when the stream is corrupt."""
    cap = min(limit, info.file_size)
    chunks: list[bytes] = []
    total = 0
    try:
        with zipped.open(info) as stream:
            while chunk := stream.read(min(_READ_SIZE, cap + 1 - total)):
                total += len(chunk)
                if total > cap:
                    raise _refused(
                        name, info.filename, f"inflates past {cap:,} bytes (the size its "
                        "header declares or the reading limit): a damaged or hostile archive",
                    )  # fmt: skip
                chunks.append(chunk)
    except InputError:
        raise
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, ValueError,
            NotImplementedError, RuntimeError) as exc:  # fmt: skip
        said = " ".join(str(exc).split())[:160] or type(exc).__name__
        raise _refused(name, info.filename, f"cannot be read ({said})") from exc
    return b"".join(chunks)


def check_rows(blob: bytes, name: str, member: str | None = None) -> None:
    """Refuse a member of the archive ``name`` (or, ``member`` None, the file ``name``)
    of more rows than :func:`max_rows`: a CSV's lines (blank lines count), a Parquet
    file's rows (from its footer, before any value is decoded)."""
    rows_limit = limits().max_archive_rows
    if (member or name).lower().endswith(".parquet"):
        import polars as pl  # polars: `toolkit --help` imports the io package, not polars

        try:
            rows = int(pl.scan_parquet(io.BytesIO(blob)).select(pl.len()).collect().item())
        except (OSError, ValueError, pl.exceptions.PolarsError, pl.exceptions.PanicException):
            return  # not Parquet: the reader names the problem
    else:
        rows = blob.count(b"\n") + (0 if blob.endswith(b"\n") or not blob else 1)
    if rows > rows_limit:
        said = (
            f"holds {rows:,} rows (blank lines count), over the limit of {rows_limit:,} "
            "(raise TOOLKIT_MAX_ROWS to read it)"
        )
        raise _refused(name, member, said) if member else InputError(name, said)


def read_zip_members(path: str | Path, wanted: set[str]) -> dict[str, bytes]:
    """The members of the zip archive ``path`` named in ``wanted`` (by their exact name;
    any other member is ignored, never extracted), each read through the limits of this
    module.

    Raises:
        InputError: one line naming the archive (and the member): not a regular file,
            not a zip, a member named twice, encrypted or compressed by a method the
            standard library cannot read, larger than the file limit, inflating more
            than :data:`MAX_RATIO` times, of more rows than :func:`max_rows`, or corrupt.
    """
    name = os.fspath(path)
    refuse_special(name)
    blob = read_bytes(name)
    limit = limits().max_file_bytes
    out: dict[str, bytes] = {}
    try:
        zipped = zipfile.ZipFile(io.BytesIO(blob))
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise InputError(name, f"not a readable zip backup ({exc})") from exc
    with zipped:
        for info in zipped.infolist():
            member = info.filename
            if member not in wanted:
                continue
            if member in out:
                raise _refused(name, member, "named twice in the archive")
            problem = _method_problem(info)
            if problem is not None:
                raise _refused(name, member, problem)
            if info.file_size > limit:
                raise InputError(
                    name, f"a backup part larger than the limit ({limit} bytes)",
                    field=member, value=info.file_size,
                )  # fmt: skip
            ratio = info.file_size / max(info.compress_size, 1)
            if info.file_size > RATIO_FREE_BYTES and ratio > MAX_RATIO:
                raise _refused(
                    name, member, f"inflates {ratio:,.0f} times ({info.compress_size:,} to "
                    f"{info.file_size:,} bytes), over the limit of {MAX_RATIO}: a zip bomb?",
                )  # fmt: skip
            out[member] = _inflate(zipped, info, name, limit)
            check_rows(out[member], name, member)
    return out
