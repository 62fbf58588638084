"""``toolkit quality``: the simulation health scorecard of one run, or of a whole fleet."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from toolkit.cli._scale import add_scale_arguments, storage_options
from toolkit.errors import InputError, NothingLoadable

if TYPE_CHECKING:
    from toolkit.rubrics.simulation import SimulationRubric


def _positive(text: str) -> int:
    from toolkit.rubrics.simulation import scored_window

    try:
        return scored_window(int(text))  # the rubric's one rule for W
    except (ValueError, InputError):
        raise argparse.ArgumentTypeError(
            f"--window must be at least 1 (a whole number of ticks), not {text!r}"
        ) from None


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``quality`` subcommand."""
    p = sub.add_parser(
        "quality",
        help="health scorecard of a simulation run (or of every run in a folder)",
        description=(
            "Score the last N ticks of a token-world run, or with --all DIR of every run "
            "folder in DIR (one line per run, worst first). Exit 0 when printed; with "
            "--gate (strict), exit 1 unless every dimension that counts toward the verdict "
            "is OK for every run; with --gate fail-only, exit 1 only when one is FAIL; "
            "exit 2 on bad input."
        ),
    )
    p.add_argument(
        "run_dir",
        metavar="RUN_DIR",
        nargs="?",
        help="the run folder or its URL, or its slug under --root / $TOOLKIT_UNIVERSES_ROOT",
    )
    p.add_argument(
        "--root",
        metavar="DIR",
        help="the universes root where RUN_DIR (and --diff RUN_B) may be named by slug "
        "(default: $TOOLKIT_UNIVERSES_ROOT); a folder or URL given as such wins",
    )
    p.add_argument(
        "--all",
        metavar="DIR",
        dest="all_dir",
        help="score every run folder in DIR (a path, or a URL such as s3://bucket/sweep)",
    )
    p.add_argument("--window", type=_positive, help="ticks to score (default: the rubric's, 50)")
    p.add_argument("--format", choices=("table", "json", "html"), default="table")
    p.add_argument(
        "--gate",
        nargs="?",
        const="strict",
        metavar="MODE",
        help="strict (the default when no MODE is given): exit 1 unless every counted "
        "dimension is OK; fail-only: exit 1 only on FAIL (WARN and INSUFFICIENT_DATA pass)",
    )
    p.add_argument(
        "--compat",
        metavar="SYSTEM",
        help="token-world: with --format json, print token-world's own JSON shape",
    )
    p.add_argument(
        "--only",
        metavar="VERDICTS",
        help="with --all: show only runs with these verdicts (comma-separated, "
        "e.g. FAILED,DEGRADED)",
    )
    p.add_argument(
        "--sort",
        metavar="KEY",
        help="with --all: verdict (worst first, the default), slug, ticks or ended (latest first)",
    )
    p.add_argument(
        "--diff",
        metavar="RUN_B",
        help="show RUN_DIR and RUN_B side by side: scorecards and graph changes",
    )
    p.add_argument("--rubric", metavar="FILE", help="a rubric YAML merged over version 1.2.0")
    p.add_argument(
        "--cache",
        nargs="?",
        const=True,
        default=False,
        metavar="DIR",
        help="keep loaded runs as Parquet (beside each run, or in DIR: a folder or a URL "
        "such as s3://bucket/cache, reached with the same --storage-option) for fast reloads",
    )
    add_scale_arguments(p)
    p.set_defaults(func=run)


COMPAT = ("token-world",)
SORT_KEYS = ("verdict", "slug", "ticks", "ended")


def _check_options(args: argparse.Namespace) -> None:
    """Bad values of the newer options: one line naming the option and the value."""
    from toolkit.rubrics.simulation import GATE_MODES

    if args.gate is not None and args.gate not in GATE_MODES:
        if args.run_dir is None and args.all_dir is None:
            # `--gate RUN_DIR`: the run folder was taken as the gate's mode.
            args.run_dir, args.gate = args.gate, "strict"
        else:
            raise InputError(
                None, f"must be one of {', '.join(GATE_MODES)}", field="--gate", value=args.gate
            )
    if args.compat is not None:
        if args.compat not in COMPAT:
            raise InputError(None, "must be token-world", field="--compat", value=args.compat)
        if args.format != "json" or args.all_dir is not None or args.diff is not None:
            raise InputError(
                None, "token-world's shape is JSON of one run: use it with --format json",
                field="--compat", value=args.compat,
            )  # fmt: skip
    if args.all_dir is not None and args.root is not None:
        raise InputError(
            None, "names one run by slug: give RUN_DIR, not --all DIR",
            field="--root", value=args.root,
        )  # fmt: skip
    if args.all_dir is None:
        for option in ("only", "sort"):
            if getattr(args, option) is not None:
                raise InputError(
                    None, "applies to a fleet: use it with --all DIR",
                    field=f"--{option}", value=getattr(args, option),
                )  # fmt: skip
    if args.sort is not None and args.sort not in SORT_KEYS:
        raise InputError(
            None, f"must be one of {', '.join(SORT_KEYS)}", field="--sort", value=args.sort
        )
    if args.diff is not None and args.format == "html":
        raise InputError(None, "--diff prints table or json", field="--format", value="html")


def _verdicts(text: str) -> list[str]:
    from toolkit.views.fleet import VERDICT_ORDER

    wanted = [v.strip().upper() for v in text.split(",") if v.strip()]
    bad = [v for v in wanted if v not in VERDICT_ORDER]
    if bad or not wanted:
        raise InputError(
            None, f"verdicts are {', '.join(VERDICT_ORDER)} (comma-separated)",
            field="--only", value=bad[0] if bad else text,
        )  # fmt: skip
    return wanted


def run(args: argparse.Namespace) -> int:
    """Load, score and print; the exit code follows the module docstring."""
    from toolkit.load.universe import load_universe
    from toolkit.rubrics.simulation import (
        DEFAULT_RUBRIC,
        load_simulation_rubric,
        passes_gate,
        score_universe,
    )
    from toolkit.views.html import render_html_page
    from toolkit.views.text import render_json, render_text, terminal_style

    _check_options(args)
    if (args.run_dir is None) == (args.all_dir is None):
        raise InputError(None, "give either RUN_DIR or --all DIR (one of them)")
    rubric = load_simulation_rubric(args.rubric) if args.rubric else DEFAULT_RUBRIC
    if args.all_dir is not None:
        return _fleet(args, rubric)
    from toolkit.load.universe import resolve_run

    args.run_dir = resolve_run(args.run_dir, args.root)
    if args.diff is not None:
        args.diff = resolve_run(args.diff, args.root)
    if args.diff is not None:
        from toolkit.cli._run_diff import diff_runs

        return diff_runs(args, rubric)
    try:  # refuses what is not a run (one rule for every face)
        universe = load_universe(
            args.run_dir, cache=args.cache, storage_options=storage_options(args)
        )
    except NothingLoadable as err:
        if args.compat != "token-world":
            raise
        from pathlib import Path

        from toolkit.views.compat import insufficient_data, render_token_world_json

        _warn_stderr([str(err)])  # token-world: an empty run is INSUFFICIENT_DATA, exit 0
        doc = insufficient_data(Path(args.run_dir).name, args.window or rubric.window)
        print(render_token_world_json(doc))
        return 0 if args.gate != "strict" else 1
    card = score_universe(universe, rubric, args.window)[0]
    if args.compat == "token-world":
        from toolkit.views.compat import render_token_world_json

        _warn_stderr(list(card.warnings))
        print(render_token_world_json(card))
    elif args.format == "json":
        print(render_json(card))
    elif args.format == "html":
        print(render_html_page(card))
    else:
        width, colour = terminal_style()
        print(render_text(card, width=width, colour=colour))
    if args.gate:
        return 0 if passes_gate(card, args.gate) else 1
    return 0


def _warn_stderr(warnings: list[str]) -> None:
    """token-world's JSON has no warnings field: they go to stderr, one line each."""
    for text in warnings:
        print(f"toolkit quality: warning: {text}", file=sys.stderr)


def _fleet(args: argparse.Namespace, rubric: SimulationRubric) -> int:
    from toolkit.engine import score_fleet
    from toolkit.rubrics.simulation import passes_gate
    from toolkit.views.fleet import render_fleet_json, render_fleet_text
    from toolkit.views.text import terminal_style

    if args.format == "html":
        raise InputError(None, "--format html shows one run; use table or json with --all")
    only = _verdicts(args.only) if args.only is not None else None
    fleet = score_fleet(
        args.all_dir,
        engine=args.engine,
        scheduler=args.scheduler,
        partition_size=args.partition_size,
        rubric=rubric,
        window=args.window,
        cache=args.cache,
        storage_options=storage_options(args),
    )
    cards = fleet.cards
    gated = all(passes_gate(c, args.gate) for c in cards) if args.gate else True
    if only is not None:  # the gate still judges every run
        cards = [c for c in cards if c.verdict in only]
    sort_by = args.sort or "verdict"
    if args.format == "json":
        print(render_fleet_json(cards, sort_by=sort_by))
    else:
        width, colour = terminal_style()
        print(render_fleet_text(cards, sort_by=sort_by, width=width, colour=colour))
    for failure in fleet.failures:
        print(f"toolkit quality: error: {failure}", file=sys.stderr)
    if fleet.failures:
        return 2
    return 0 if gated else 1
