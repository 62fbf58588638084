"""The ``toolkit`` command line: thin wrappers over load -> rubric -> view.

Each subcommand lives in its own module with a ``register(subparsers)`` function that
adds its parser and sets ``func``; :data:`COMMANDS` lists those modules.

Exit codes: 0 printed; 1 a ``--gate`` that did not pass; 2 bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from toolkit.errors import ToolkitError

COMMANDS: tuple[str, ...] = (
    "toolkit.cli.quality",
    "toolkit.cli.discussion",
    "toolkit.cli.persona",
    "toolkit.cli.experiment",
    "toolkit.cli.outcome",
    "toolkit.cli.rate",
    "toolkit.cli.report",
)

EXIT_OK, EXIT_GATE, EXIT_INPUT = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="toolkit", description="Score LLM-agent runs against explicit quality rubrics."
    )
    from toolkit import __version__

    parser.add_argument("--version", action="version", version=f"toolkit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (also used as the console script)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(args.func(args))
    except ToolkitError as exc:
        print(f"toolkit {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:  # e.g. `toolkit quality ... | head`
        return EXIT_OK
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
