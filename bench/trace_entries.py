"""How often a command's calls enter each file of the toolkit: a measure of the layout.

Runs one CLI command in this process under :func:`sys.setprofile` and counts, per file
of ``toolkit/``, how many times a call crossed into it from another file (an *entry*) and
how many times a return went back to a file the call had already left (a *return to*).
A layout whose flow is straight enters each file about once; a file entered a dozen
times by the same command holds several ideas the command keeps coming back for.

    python bench/trace_entries.py quality sample_runs/universes/ashfall

Prints one line per file, most entered first; the totals go to docs/architecture.md.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import sys
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = str(ROOT / "toolkit")


def trace(argv: list[str]) -> tuple[collections.Counter[str], collections.Counter[str]]:
    """(entries, returns-to) per toolkit file while ``toolkit ARGV`` runs."""
    from toolkit.cli import main

    entries: collections.Counter[str] = collections.Counter()
    returns: collections.Counter[str] = collections.Counter()

    def own(frame: FrameType | None) -> str | None:
        while frame is not None:
            name = frame.f_code.co_filename
            if name.startswith(PACKAGE):
                return name[len(str(ROOT)) + 1 :]
            frame = frame.f_back
        return None

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        name = frame.f_code.co_filename
        if not name.startswith(PACKAGE) or event not in ("call", "return"):
            return
        here = name[len(str(ROOT)) + 1 :]
        caller = own(frame.f_back)
        if event == "call" and caller is not None and caller != here:
            entries[here] += 1
        elif event == "return" and caller is not None and caller != here:
            returns[caller] += 1

    sys.setprofile(profile)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
            main(argv)
    finally:
        sys.setprofile(None)
    return entries, returns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", nargs=argparse.REMAINDER, help="a toolkit command line")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    entries, returns = trace(args.command)
    print(f"toolkit {' '.join(args.command)}")
    print(f"{'file':48} {'entered':>8} {'returned to':>12}")
    for name, n in entries.most_common(args.top):
        print(f"{name:48} {n:8} {returns[name]:12}")
    print(f"{len(entries)} files entered; most entered: {max(entries.values(), default=0)}")


if __name__ == "__main__":
    main()
