"""The judge options every judged command shares: ``--judge SPEC`` and the live-judge group.

One helper, so that ``toolkit persona`` and ``toolkit discussion`` (and any command that
asks a judge) take the same words: ``--judge recorded:CASSETTE`` (CI) or
``anthropic:MODEL`` / ``openai:MODEL`` (live), ``--judge-base-url``,
``--judge-concurrency``, ``--judge-timeout``, ``--judge-retries``, ``--record``,
``--max-cost``, ``--prices``, ``--no-progress`` and ``--double-check``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkit.judge import Judge

JUDGE_HELP = "recorded:CASSETTE (CI), or anthropic:MODEL / openai:MODEL (live, needs a key)"


def add_argument_once(
    parser: argparse.ArgumentParser,
    container: argparse._ActionsContainer,
    flag: str,
    **kwargs: Any,
) -> None:
    """Add ``flag`` to ``container`` (``parser`` or one of its groups) unless ``parser``
    already has it: two argument blocks of one command (``toolkit calibrate`` over
    discussions and over persona sessions) can both ask for ``--judge`` or ``--ratings``
    and share the one option."""
    if flag not in parser._option_string_actions:
        container.add_argument(flag, **kwargs)


def add_judge_arguments(
    parser: argparse.ArgumentParser, *, required: bool = True, judge_help: str = JUDGE_HELP
) -> None:
    """Add ``--judge`` (``required`` or not), ``--double-check`` and the live-judge group;
    an option the parser already has is left as it is (:func:`add_argument_once`)."""
    add_argument_once(parser, parser, "--judge", required=required, metavar="SPEC", help=judge_help)
    live = parser.add_argument_group("live judges")

    def live_arg(flag: str, **kwargs: Any) -> None:
        add_argument_once(parser, live, flag, **kwargs)

    live_arg(
        "--judge-base-url",
        metavar="URL",
        help="server of a live judge, e.g. an OpenAI-compatible http://host:8000/v1 "
        "(default: $TOOLKIT_JUDGE_BASE_URL, else the vendor's)",
    )
    live_arg(
        "--judge-concurrency",
        type=int,
        default=4,
        metavar="N",
        help="judge calls in flight at once (default 4)",
    )
    live_arg(
        "--judge-timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds a call waits for its answer (default 30)",
    )
    live_arg(
        "--judge-retries",
        type=int,
        default=2,
        metavar="N",
        help="retries on timeouts, 429 and 5xx (default 2)",
    )
    live_arg(
        "--record",
        type=Path,
        metavar="CASSETTE",
        help="record answers here as they arrive; rerun with it to ask only what is missing",
    )
    live_arg(
        "--max-cost",
        type=float,
        metavar="USD",
        help="send no call that could take the estimated cost past USD",
    )
    live_arg(
        "--prices", type=Path, metavar="FILE", help="YAML price table laid over the built-in one"
    )
    live_arg(
        "--no-progress", action="store_true", help="no progress bar (shown only on a terminal)"
    )
    add_argument_once(
        parser,
        parser,
        "--double-check",
        action="store_true",
        help="ask the judge to revise each answer once",
    )


def judge_of(args: argparse.Namespace) -> Judge:
    """The judge ``--judge`` names, with the live-judge options applied.

    Raises:
        InputError: a spec, timeout or retry count the judge factory refuses.
    """
    from toolkit.judge import judge_from_spec

    judge: Judge = judge_from_spec(
        args.judge,
        base_url=args.judge_base_url,
        record=args.record,
        timeout=args.judge_timeout,
        max_retries=args.judge_retries,
    )
    return judge
