"""Polars' thread pool sized to a command's input (issue 38).

Polars starts a pool of one worker thread a core on its first query and hands every
parallel step of a query to it: the calling thread wakes a worker and sleeps until the
step is done, and idle workers spin before they sleep. On the few kilobytes of one run
or a few games that costs more than the steps themselves: on the three sample games,
with two cores, about 5-7 ms of CPU of ~200 (a thousand or more context switches, against
~300 with one worker), with the same wall-clock time. With more input the second worker
earns its keep: 300 games (2.8 MB) score 14 % sooner with two (docs/performance.md, "One
run, seventh round").

So a command that names its inputs (``parser.set_defaults(inputs=(...))``: the
arguments holding paths) imports Polars with a pool of one thread when those inputs
together are smaller than :data:`SMALL_INPUT`, and with Polars' own default otherwise.
The size is read before Polars is imported, because Polars reads ``POLARS_MAX_THREADS``
once, when it is imported. A user's ``POLARS_MAX_THREADS`` always wins, an input that is
not a local path (a URL, a slug under a root, a path that does not exist) leaves the
default, and a caller that imported Polars first (a notebook, the tests) keeps its pool.
Only the command line's own process is sized (``toolkit.cli.main()`` reading the
process's arguments, as the ``toolkit`` script calls it): a program that calls
``main(argv)`` keeps Polars' default for whatever else it does with Polars later. The
variable is set only while Polars is imported: a process the command starts inherits the
user's environment, not the toolkit's choice.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Iterable

#: Polars' own setting of its pool's size, read once when Polars is imported.
VARIABLE = "POLARS_MAX_THREADS"

#: Inputs smaller than this (bytes, all paths together) are scored with one Polars thread:
#: 30 sample-sized games (280 KB) score with less CPU and no later on one; 300 (2.8 MB)
#: score 14 % sooner on two (docs/performance.md).
SMALL_INPUT = 1 << 20

#: Entries a folder walk looks at before it calls the input large: a folder of more
#: files than this is a fleet, whatever their size (and the walk stays ~1 ms).
MAX_ENTRIES = 256


def size_pool(args: argparse.Namespace) -> bool:
    """Import Polars with one worker thread when the command's inputs are small.

    Returns:
        True when Polars was imported here with one thread; False when the pool keeps
        Polars' default (no inputs named, a large or unknown input, ``POLARS_MAX_THREADS``
        set by the user, or Polars imported already).
    """
    names: tuple[str, ...] = getattr(args, "inputs", ())
    if not names or "polars" in sys.modules or VARIABLE in os.environ:
        return False
    paths = [p for name in names for p in _listed(getattr(args, name, None))]
    if not paths or input_bytes(paths, SMALL_INPUT) >= SMALL_INPUT:
        return False
    os.environ[VARIABLE] = "1"
    try:
        import polars  # noqa: F401  (its pool takes the variable now)
    finally:
        del os.environ[VARIABLE]
    return True


def _listed(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str | os.PathLike):
        return [os.fspath(value)]
    if isinstance(value, Iterable):
        return [os.fspath(v) for v in value if isinstance(v, str | os.PathLike)]
    return []


def input_bytes(paths: Iterable[str], limit: int) -> int:
    """The bytes of the files at ``paths`` (a folder's files, walked), counted until
    ``limit``: ``limit`` itself for an input that is not a local file or folder, or a
    folder of more than :data:`MAX_ENTRIES` entries (both treated as large)."""
    total = 0
    seen = 0
    folders: list[str] = []
    for path in paths:
        try:
            info = os.stat(path)
        except (OSError, ValueError):  # a URL, a slug, a missing path: unknown, so large
            return limit
        if stat.S_ISDIR(info.st_mode):
            folders.append(path)
        else:
            total += info.st_size
    while folders and total < limit:
        try:
            with os.scandir(folders.pop()) as entries:
                for entry in entries:
                    seen += 1
                    if seen > MAX_ENTRIES:
                        return limit
                    if entry.is_dir():
                        folders.append(entry.path)
                    elif entry.is_file():
                        total += entry.stat().st_size
        except OSError:
            return limit
    return min(total, limit)
