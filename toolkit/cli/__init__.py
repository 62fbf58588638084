"""The ``toolkit`` command line: thin wrappers over load -> rubric -> view.

Each subcommand lives in its own module with a ``register(subparsers)`` function that
adds its parser and sets ``func``; :data:`COMMANDS` lists those modules.

Exit codes: 0 printed; 1 a ``--gate`` that did not pass; 2 bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Sequence
from typing import Any, TextIO

from toolkit.errors import InputWarning, ToolkitError

COMMANDS: tuple[str, ...] = (
    "toolkit.cli.quality",
    "toolkit.cli.discussion",
    "toolkit.cli.persona",
    "toolkit.cli.experiment",
    "toolkit.cli.outcome",
    "toolkit.cli.rate",
    "toolkit.cli.report",
    "toolkit.cli.view",
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


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``command``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser = action.choices[command]
            return found
    return parser


def help_text(doc: str | None) -> str:
    """A module docstring as ``--help`` text: no rst markup (````x````, ``:func:`x```), and
    without a first paragraph that only repeats the usage line."""
    import re

    paragraphs = (doc or "").strip().split("\n\n")
    if paragraphs and paragraphs[0].startswith("``toolkit "):
        paragraphs = paragraphs[1:]
    text = "\n\n".join(paragraphs)
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)
    return text.replace("``", "")


def _warning_line(command: str) -> Any:
    """``warnings.showwarning`` for the CLI: an input warning is one line on stderr."""
    shown = warnings.showwarning

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, InputWarning):
            print(f"toolkit {command}: warning: {message}", file=sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    return show


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (also used as the console script)."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # with the subcommand's usage, not the top-level one
        _subparser(parser, args.command).error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default", InputWarning)
            warnings.showwarning = _warning_line(args.command)
            code = int(args.func(args))
    except ToolkitError as exc:
        print(f"toolkit {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:  # e.g. `toolkit quality ... | head`
        return EXIT_OK
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
