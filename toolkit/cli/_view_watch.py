"""``toolkit view --watch``: rebuild the site as runs arrive.

Every ``--interval`` seconds the folders are surveyed again and each find is stamped
(names, sizes and times of its files: :mod:`toolkit.fleet.view.memo`); only the finds
whose stamps changed, and the new ones, are loaded and scored, the others are replayed
from the previous round; when anything changed the site is written again (its data
folder swapped in whole) and a line says how many runs were scored again. The page
looks at the build on disk and reloads its index when a newer one is there (on a run's
page it offers a reload instead). A folder that cannot be read after the first build (gone
for a moment) is said once and the site kept. Ctrl-C stops, as does ``--watch-for S``;
both exit 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from toolkit.cli._watch_options import check_watch, wait_round
from toolkit.errors import InputError

__all__ = ["add_watch_arguments", "check_watch", "watch"]

#: What one round gathers (the collected runs), given the memo of earlier rounds.
Gather = Callable[[Any], Any]
#: Writes what a round gathered with the watch record; returns how many runs it has.
Write = Callable[[Any, dict[str, Any]], int]


def add_watch_arguments(p: argparse.ArgumentParser) -> None:
    """--watch, --interval and --watch-for (as ``toolkit quality --watch`` has them)."""
    p.add_argument(
        "--watch",
        action="store_true",
        help="rebuild the site whenever runs arrive or change, scoring only those "
        "(Ctrl-C stops); the open page reloads its index",
    )
    p.add_argument(
        "--interval",
        type=float,
        default=2.0,
        metavar="S",
        help="with --watch: seconds between looks at the folders (default 2)",
    )
    p.add_argument(
        "--watch-for",
        type=float,
        metavar="S",
        help="with --watch: stop after S seconds (default: until Ctrl-C)",
    )


def watch(args: argparse.Namespace, gather: Gather, write: Write) -> int:
    """Build now, then again whenever a find came, went or changed, until Ctrl-C or
    ``--watch-for`` seconds; returns 0."""
    # the memo imports the site records (polars): only a watched view pays it
    from toolkit.fleet.view.memo import Memo

    memo = Memo()
    deadline = None if args.watch_for is None else time.monotonic() + args.watch_for
    seen: object = None
    missing = ""  # what the last round could not read (said once, until it is back)
    try:
        while True:
            memo.start_round()
            try:
                collected = gather(memo)
            except InputError as err:
                if seen is None:  # nothing built yet: bad input, exit 2
                    raise
                if str(err) != missing:  # a folder gone for a moment: keep the site
                    print(f"toolkit view: {err} (the site is kept; still watching)",
                          file=sys.stderr, flush=True)  # fmt: skip
                missing = str(err)
                if not wait_round(args.interval, deadline):
                    break
                continue
            missing = ""
            state = (memo.state(), tuple(collected.notes))
            if state != seen or memo.unstamped:
                when = time.strftime("%H:%M:%S")
                record = {"build": f"{time.time_ns():x}", "interval": args.interval, "when": when}
                count = write(collected, record)
                # one line a build, within 80 columns: the first says how it goes on
                tail = (f"; watching every {args.interval:g} s (Ctrl-C stops)" if seen is None
                        else f" ({memo.misses} scored, {memo.hits} unchanged)")  # fmt: skip
                print(f"toolkit view: {count} run(s) at {when}{tail}", flush=True)
                seen = state
            if not wait_round(args.interval, deadline):
                break
    except KeyboardInterrupt:
        print(file=sys.stderr)
    return 0
