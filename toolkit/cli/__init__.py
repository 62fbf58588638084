"""The ``toolkit`` command line: thin wrappers over load -> rubric -> view.

Each subcommand lives in its own module with a ``register(subparsers)`` function that
adds its parser and sets ``func``; :data:`COMMANDS` lists those modules.

Exit codes: 0 printed; 1 a ``--gate`` that did not pass; 2 bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
import warnings
from collections.abc import Sequence
from typing import Any, TextIO

from toolkit._version import __version__
from toolkit.cli._gate import normalize_argv, resolve
from toolkit.cli._output import check_outputs
from toolkit.cli._pool import run_command
from toolkit.errors import InputWarning, ToolkitError

COMMANDS: tuple[str, ...] = (
    "toolkit.cli.quality",
    "toolkit.cli.discussion",
    "toolkit.cli.persona",
    "toolkit.cli.experiment",
    "toolkit.cli.outcome",
    "toolkit.cli.rate",
    "toolkit.cli.report",
    "toolkit.cli.compare",
    "toolkit.cli.view",
    "toolkit.cli.calibrate",
    "toolkit.cli.rescore",
)

EXIT_OK, EXIT_GATE, EXIT_INPUT = 0, 1, 2

#: The commands whose pydantic models are the toolkit's own (unless a live judge is
#: named: the vendors' SDKs build pydantic models too). For them pydantic's plugin
#: discovery is switched off while the command runs (its documented
#: ``PYDANTIC_DISABLE_PLUGINS``, unless the user set it; put back when the command
#: returns, so a caller of :func:`main` keeps its own): it reads the entry points of every
#: installed distribution when the first model class is built, about 50 ms of CPU with
#: 240 distributions installed, a sixth of ``import polars``. ``report`` runs notebooks
#: in kernels that inherit the environment: it keeps it.
NO_PYDANTIC_PLUGINS = frozenset(
    {"quality", "discussion", "persona", "experiment", "outcome", "rate", "compare", "view",
     "calibrate"}
)  # fmt: skip


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered, or with subcommand ``only``
    alone (what a call naming its command first needs; the rest cost it about 20 ms of
    CPU, a tenth of ``import polars``: their modules and ~200 arguments)."""
    parser = argparse.ArgumentParser(
        prog="toolkit", description="Score LLM-agent runs against explicit quality rubrics."
    )
    parser.add_argument("--version", action="version", version=f"toolkit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS if only is None else (f"toolkit.cli.{only}",):
        importlib.import_module(name).register(sub)
    return parser


def _command_first(argv: Sequence[str]) -> str | None:
    """The subcommand when ``argv`` names it first (``toolkit quality RUN ...``), else
    None: then the whole parser is built (``--help``, a mistyped command, ``--version``)."""
    first = normalize_argv(argv)[:1]
    return first[0] if first and f"toolkit.cli.{first[0]}" in COMMANDS else None


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``command``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser = action.choices.get(command, parser)
            return found
    return parser


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Parse ``argv``: a subcommand's options and paths in any order (``--gate`` too, see
    :func:`toolkit.cli._gate.normalize_argv`); an unknown option is refused with the
    closest option it may have meant and a pointer to the subcommand's ``--help``."""
    argv = normalize_argv(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    if command is not None and command not in _commands(parser):
        import difflib  # 1 ms (heapq) that only a mistyped command pays

        close = difflib.get_close_matches(command, _commands(parser), n=1)
        if close:
            parser.error(f"unknown command {command!r} (did you mean {close[0]}?)")
    sub = _subparser(parser, command) if command is not None else parser
    if command is None or sub is parser or argv[0] != command:  # top-level options first
        args, unknown = parser.parse_known_args(argv)
        sub = _subparser(parser, args.command)
    else:
        args, unknown = sub.parse_known_intermixed_args(argv[1:])
        args.command = command
    if unknown:  # one line naming what was not understood, then where the options are
        _refuse(sub, f"unrecognized arguments: {' '.join(unknown)}{_did_you_mean(sub, unknown)}")
    return args


def _refuse(parser: argparse.ArgumentParser, message: str) -> None:
    """Exit 2 with ``PROG: error: MESSAGE`` and a pointer to ``PROG --help``: the error is
    the first line (a page of usage above it hides the one word that was wrong)."""
    parser.exit(
        EXIT_INPUT,
        f"{parser.prog}: error: {message}\nRun '{parser.prog} --help' for its options.\n",
    )


def _did_you_mean(parser: argparse.ArgumentParser, unknown: list[str]) -> str:
    """`` (did you mean --window?)`` for the first unknown option close to a real one."""
    import difflib  # 1 ms (heapq) that only an unknown option pays

    options = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    for word in unknown:
        if word.startswith("-"):
            flag = word.split("=", 1)[0]
            close = difflib.get_close_matches(flag, options, n=1, cutoff=0.6)
            if close:
                return f" (did you mean {close[0]}?)"
    return ""


def help_text(doc: str | None) -> str:
    """A module docstring as ``--help`` text: no rst markup (````x````, ``:func:`x```), and
    without a first paragraph that only repeats the usage line."""
    paragraphs = (doc or "").strip().split("\n\n")
    if paragraphs and paragraphs[0].startswith("``toolkit "):
        paragraphs = paragraphs[1:]
    text = "\n\n".join(paragraphs)
    if ":`" in text:  # a role (``:func:`x```) at all: else no pattern to compile
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
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_first(words))
    args = _parse(parser, words)
    ours = plugins_off(args)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default", InputWarning)
            warnings.showwarning = _warning_line(args.command)

            resolve(args)
            check_outputs(args)  # a FIFO, device, folder or outside link: before any work
            # the process is the command (argv is None): its Polars, its pool
            code = run_command(args) if argv is None else int(args.func(args))
    except ToolkitError as exc:
        print(f"toolkit {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:  # e.g. `toolkit quality ... | head`
        return EXIT_OK
    finally:
        if ours:
            os.environ.pop(PLUGINS_VARIABLE, None)
    return code


PLUGINS_VARIABLE = "PYDANTIC_DISABLE_PLUGINS"
#: A judge spec that calls a vendor's SDK (pydantic models of its own).
_LIVE_JUDGES = ("anthropic:", "openai:")


def plugins_off(args: argparse.Namespace) -> bool:
    """Switch pydantic's plugin discovery off for this command (see
    :data:`NO_PYDANTIC_PLUGINS`); whether it was this call that set it."""
    if args.command not in NO_PYDANTIC_PLUGINS or PLUGINS_VARIABLE in os.environ:
        return False
    judges = getattr(args, "judge", None)
    named = judges if isinstance(judges, list) else [judges]
    if any(isinstance(j, str) and j.startswith(_LIVE_JUDGES) for j in named):
        return False
    os.environ[PLUGINS_VARIABLE] = "__all__"
    return True


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
