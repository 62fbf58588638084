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

With a pool of one worker, every query still goes from the calling thread to that worker
and back: two context switches a query, about 120 queries for the sample games, and the
worker spins a little before it sleeps each time. So a small input's whole run is handed
to the worker once (:func:`on_worker`): from the pool's own thread a query runs in place,
as rayon runs any job asked for from inside its pool. On the sample games that took
``discussion`` from ~250 context switches to ~20 and 1.36x to 1.30x ``import polars`` in
CPU; ``quality``, whose run makes ~60, gains little (docs/performance.md, "One run,
eighth round"). Only a run that ends by itself does this
(:func:`ends_alone`: no ``--watch``, no judge, no cluster, nothing at a URL): Python runs
signal handlers on the main thread, so Ctrl-C waits for the handed-over run to end, which
on a small local input is a fraction of a second.

CPython 3.11 keeps the frames of Python calls in chunks of 16 KiB that it maps when a
call does not fit in the chunk in use and unmaps when that call returns: a loop of calls
across a chunk's end maps and unmaps a chunk each time. Where the command line imports
Polars, two calls deeper than ``python -c "import polars"`` does, Polars' own import did
that ~350 times, the run ~40 more (~780 system calls and ~390 page faults a run;
docs/performance.md, "One run, ninth round"). So :func:`run_command` runs the command in
a frame that asks for room (:func:`with_room`): its chunk, allocated once, holds every
call below it.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Callable, Iterable
from typing import Any

#: Polars' own setting of its pool's size, read once when Polars is imported.
VARIABLE = "POLARS_MAX_THREADS"

#: Inputs smaller than this (bytes, all paths together) are scored with one Polars thread:
#: 30 sample-sized games (280 KB) score with less CPU and no later on one; 300 (2.8 MB)
#: score 14 % sooner on two (docs/performance.md).
SMALL_INPUT = 1 << 20

#: Entries a folder walk looks at before it calls the input large: a folder of more
#: files than this is a fleet, whatever their size (and the walk stays ~1 ms).
MAX_ENTRIES = 256


#: The value-stack slots the frame of :func:`with_room` declares: CPython sizes a new
#: chunk to the first power of two that holds the frame and 1,000 slots more, so this
#: gives a chunk of 1 MiB with ~500 KiB free below the frame. Only the pages calls
#: reach are touched.
ROOM_SLOTS = 1 << 16


def with_room(func: Callable[..., Any], *args: Any) -> Any:
    """``func(*args)``, called from a frame that declares :data:`ROOM_SLOTS` value-stack
    slots (its code's declared stack depth raised below, nothing else changed): that frame
    starts a chunk of 1 MiB, so the calls below it are not split across chunks of 16 KiB."""
    return func(*args)


with_room.__code__ = with_room.__code__.replace(co_stacksize=ROOM_SLOTS)


def run_command(args: argparse.Namespace) -> int:
    """Run the command ``args`` names as the process's own (in a frame with room below it,
    :func:`with_room`): Polars' pool sized to its input first (:func:`size_pool`), and a
    small input's run handed to a pool of one worker whole when it ends by itself
    (:func:`on_worker`). Returns its exit code."""
    return int(with_room(_run_command, args))


def _run_command(args: argparse.Namespace) -> int:
    func: Callable[[argparse.Namespace], int] = args.func
    if small_input(args):
        size_pool()
        if ends_alone(args) and _one_worker():
            return on_worker(func, args)
    return int(func(args))


def small_input(args: argparse.Namespace) -> bool:
    """Whether the command names its inputs and they are local files smaller together
    than :data:`SMALL_INPUT`."""
    names: tuple[str, ...] = getattr(args, "inputs", ())
    paths = [p for name in names for p in _listed(getattr(args, name, None))]
    return bool(paths) and input_bytes(paths, SMALL_INPUT) < SMALL_INPUT


def size_pool() -> None:
    """Import Polars with one worker thread, unless the user set ``POLARS_MAX_THREADS``
    or Polars was imported already."""
    if "polars" in sys.modules or VARIABLE in os.environ:
        return
    os.environ[VARIABLE] = "1"
    try:
        import polars  # noqa: F401  (its pool takes the variable now)
    finally:
        del os.environ[VARIABLE]


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


def _one_worker() -> bool:
    """Whether Polars' pool has one worker (imported here if it was not: the commands
    that name their inputs score with Polars)."""
    import polars

    return polars.thread_pool_size() == 1


def ends_alone(args: argparse.Namespace) -> bool:
    """Whether the run ends by itself, reading and writing local files only: no watch
    loop, no judge (a live one waits on a vendor), no cluster scheduler, and no argument
    naming a URL (a database, a bucket, a server)."""
    if any(getattr(args, name, None) for name in ("watch", "judge", "scheduler")):
        return False
    return not any("://" in text for value in vars(args).values() for text in _listed(value))


def on_worker(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``func(args)`` called on a worker of Polars' pool, its result (or the exception it
    raised) brought back to the calling thread.

    The carrier is one query of two expressions, which Polars evaluates on its pool; the
    first calls ``func`` once. Were a Polars release to evaluate it on the calling thread,
    ``func`` would still run once there, with the same result.
    """
    import polars as pl

    returned: list[int] = []
    raised: list[BaseException] = []

    def call(column: pl.Series) -> pl.Series:
        if not returned and not raised:  # once, whatever Polars does with the expression
            try:  # the worker's own frames, with room too (run_command)
                returned.append(int(with_room(func, args)))
            except BaseException as exc:  # raised again on the calling thread, below
                raised.append(exc)
        return column

    carrier = pl.DataFrame({"run": [0]})
    carrier.select(
        pl.col("run").map_batches(call, return_dtype=pl.Int64), pl.col("run").alias("other")
    )
    if raised:
        raise raised[0]
    return returned[0] if returned else int(func(args))
