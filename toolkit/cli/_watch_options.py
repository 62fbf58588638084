"""The options every ``--watch`` shares (``toolkit quality`` and ``toolkit view``):
their checks and the wait between two looks. Apart from the watchers themselves, so
``toolkit quality`` checks them before it loads anything (``_watch`` imports
``quality``)."""

from __future__ import annotations

import argparse
import time

from toolkit.errors import InputError

#: The longest ``--interval``: a day (``time.sleep`` overflows a little past 2**63 ns).
MAX_INTERVAL = 86400.0


def check_watch(args: argparse.Namespace) -> None:
    """Refuse ``--watch-for`` without ``--watch``, and ``--interval``/``--watch-for`` out
    of range (NaN and infinity included: :func:`time.sleep` raises on them, and a NaN
    deadline is never reached)."""
    if not args.watch:
        if args.watch_for is not None:
            raise InputError(None, "goes with --watch", field="--watch-for", value=args.watch_for)
        return
    if not 0 < args.interval <= MAX_INTERVAL:
        raise InputError(
            None, f"must be more than 0 seconds, at most {MAX_INTERVAL:g}", field="--interval",
            value=args.interval,
        )  # fmt: skip
    if args.watch_for is not None and not args.watch_for >= 0:
        raise InputError(
            None, "must be 0 seconds or more", field="--watch-for", value=args.watch_for
        )


def wait_round(interval: float, deadline: float | None) -> bool:
    """Sleep until the next look (``interval`` seconds, or less to end at ``deadline``,
    a :func:`time.monotonic` value); False when the deadline has passed."""
    if deadline is None:
        time.sleep(interval)
        return True
    left = deadline - time.monotonic()
    if left <= 0:
        return False
    time.sleep(min(interval, left))
    return True
