"""How often a command's path argument enters each file of the toolkit: the layout, measured.

Runs one CLI command in this process under :func:`sys.setprofile` and follows its path
argument: every call of a toolkit function that receives the path (as text, a
``Path``, or a Source rooted at it) is a step, and a step in another file than the step
before is an *entry* into that file. A layout whose flow is straight enters each file
about once; a file the path enters a dozen times holds ideas the command keeps coming
back for. Beside it, every call between two files of the package is counted too
(``calls in``), which splitting a file naturally raises.

    python bench/trace_entries.py quality sample_runs/universes/ashfall

The figures are recorded in docs/architecture.md.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import os
import sys
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = str(ROOT / "toolkit")


def _names_path(value: Any, target: str) -> bool:
    """Whether ``value`` is the path argument: text or a path naming it, or a Source
    rooted at it."""
    if isinstance(value, str | os.PathLike):
        with contextlib.suppress(OSError, ValueError):
            return os.path.realpath(os.fspath(value)) == target
        return False
    root = getattr(value, "root", None)
    if isinstance(root, str | os.PathLike) and type(value).__name__.endswith("Source"):
        return _names_path(root, target)
    return False


def trace(argv: list[str], path: str) -> tuple[collections.Counter[str], collections.Counter[str]]:
    """(entries of the path argument, calls in from another file) per toolkit file."""
    from toolkit.cli import main

    target = os.path.realpath(path)
    entries: collections.Counter[str] = collections.Counter()
    calls_in: collections.Counter[str] = collections.Counter()
    last: list[str] = [""]

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        name = frame.f_code.co_filename
        if event != "call" or not name.startswith(PACKAGE):
            return
        here = name[len(str(ROOT)) + 1 :]
        back = frame.f_back
        if back is not None and back.f_code.co_filename != name:
            calls_in[here] += 1
        code = frame.f_code
        given = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        if any(_names_path(frame.f_locals.get(v), target) for v in given if v != "self"):
            if here != last[0]:
                entries[here] += 1
            last[0] = here

    sys.setprofile(profile)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
            main(argv)
    finally:
        sys.setprofile(None)
    return entries, calls_in


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="a toolkit command line")
    args = parser.parse_args()
    path = next(a for a in args.command[1:] if not a.startswith("-"))
    entries, calls_in = trace(args.command, path)
    print(f"toolkit {' '.join(args.command)}: the path argument {path}")
    print(f"{'file':48} {'entered':>8} {'calls in':>9}")
    for name, n in entries.most_common(args.top):
        print(f"{name:48} {n:8} {calls_in[name]:9}")
    total = sum(entries.values())
    print(f"{len(entries)} files on the path's way, {total} entries; most: "
          f"{max(entries.values(), default=0)}")  # fmt: skip


if __name__ == "__main__":
    main()
