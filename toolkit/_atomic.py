"""Atomic file writes: a reader sees the old file or the new one, never half of either."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def safe_file_name(text: str) -> str:
    """A file name made from ``text`` taken from data: characters other than letters,
    digits, ``.``, ``_`` and ``-`` become ``_`` and leading dots are dropped, so the name
    can never leave its folder (no ``/``, no ``..``) nor hide itself."""
    return _UNSAFE.sub("_", text).lstrip(".") or "_"


def write_text_atomic(
    path: str | Path, text: str, encoding: str = "utf-8", *, durable: bool = True
) -> Path:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename.

    The temporary file is flushed and (when ``durable``) fsynced before ``os.replace``, so
    a crash at any point leaves either the previous file whole or the new one whole. Two
    writers racing each leave a complete file; the last rename wins. ``durable=False``
    skips the fsyncs: still atomic for readers, but a power cut may lose the new file
    (right for caches, which are rebuilt, never for scores or ratings).
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding=encoding) as handle:
            handle.write(text)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    if not durable:
        return target
    with contextlib.suppress(OSError):
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return target
