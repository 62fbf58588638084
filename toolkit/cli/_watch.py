"""``toolkit quality RUN --watch``: reprint the scorecard as ticks arrive.

token-world's ``watch`` tails a run in a terminal; this is its scorecard form. The run
folder is looked at every ``--interval`` seconds (only file names, sizes and times, so a
look is cheap); when its tick files or batch records changed, the run is loaded and scored
again and the card reprinted (on a terminal, over the previous one). Ctrl-C stops, as does
``--watch-for S``; both exit 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.cli._watch_options import check_watch, wait_round
from toolkit.cli.quality import card_text, score_one
from toolkit.errors import InputError, NothingLoadable
from toolkit.io.source import open_source
from toolkit.io.stamp import FileStamp, file_stamp
from toolkit.views.text import terminal_style

if TYPE_CHECKING:
    from toolkit.rubrics.simulation import SimulationRubric

#: What a terminal gets before each card: cursor home, clear the screen.
_CLEAR = "\x1b[H\x1b[2J"


def tick_stamp(root: Path) -> tuple[tuple[str, FileStamp], ...]:
    """Name and stamp (:func:`toolkit.io.stamp.file_stamp`: size, modification and
    change time, inode) of every file under ``tick_summaries/`` (one level of
    subfolders): changes whenever a tick file or batch record is written, also in place
    with as many bytes within the modification time's resolution."""
    entries: list[tuple[str, FileStamp]] = []
    base = root / "tick_summaries"
    for folder in (base, base / "ticks"):
        try:
            with os.scandir(folder) as it:
                for e in it:
                    if e.is_file(follow_symlinks=False):
                        st = e.stat(follow_symlinks=False)
                        entries.append((f"{folder.name}/{e.name}", file_stamp(st)))
        except OSError:
            continue
    return tuple(sorted(entries))


def watch_run(args: argparse.Namespace, rubric: SimulationRubric) -> int:
    """Print the card now and again whenever the run changes, until Ctrl-C or
    ``--watch-for`` seconds; returns 0."""
    root = open_source(args.run_dir).disk
    if root is None:
        raise InputError(args.run_dir, "--watch follows a local run folder, not a URL")
    if not root.is_dir():
        raise InputError(root, "not a folder")
    check_watch(args)
    width, colour = terminal_style()
    deadline = None if args.watch_for is None else time.monotonic() + args.watch_for
    seen: tuple[tuple[str, FileStamp], ...] | None = None
    first = True
    try:
        while True:
            stamp = tick_stamp(root)
            if stamp != seen:
                seen = stamp
                try:
                    text = card_text(score_one(args, rubric), width, colour)
                except NothingLoadable as err:
                    text = f"{root.name}: waiting for ticks ({err})"
                except InputError as err:
                    if first:  # no card yet: bad input, exit 2
                        raise
                    text = f"{root.name}: waiting ({err})"  # gone for a moment, say
                first = False
                clock = time.strftime("%H:%M:%S")
                footer = f"watching {root}, updated {clock}; Ctrl-C stops"
                print(f"{_CLEAR if width is not None else ''}{text}\n{footer}", flush=True)
            if not wait_round(args.interval, deadline):
                break
    except KeyboardInterrupt:
        print(file=sys.stderr)
    return 0
