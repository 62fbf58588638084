"""Where a sample generator writes: the output paths on its command line.

Each ``make_*.py`` takes its output paths as optional positional arguments. They are read
with argparse, so ``--help`` prints the script's usage and an option-like word (a
mistyped flag) is refused with exit 2, instead of being taken for a folder to write the
samples into. A path that starts with ``-`` goes after ``--``.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def output_paths(doc: str | None, *outputs: tuple[str, Path]) -> list[Path]:
    """The output paths of ``outputs`` (``(NAME, default)`` pairs, in order) read from the
    command line; ``doc`` (the script's docstring) is its ``--help`` text."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for name, default in outputs:
        parser.add_argument(
            name.lower(), metavar=name, nargs="?", type=Path, default=default,
            help=f"default: {default}",
        )  # fmt: skip
    args = parser.parse_args()
    return [getattr(args, name.lower()) for name, _ in outputs]
