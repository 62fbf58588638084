"""``toolkit quality``: the simulation health scorecard of one run, or of a whole fleet."""

from __future__ import annotations

import argparse
from pathlib import Path

from toolkit.errors import InputError
from toolkit.load.universe import load_universe, load_universes
from toolkit.rubrics.simulation import (
    DEFAULT_RUBRIC,
    GATE_MODES,
    SimulationRubric,
    load_simulation_rubric,
    passes_gate,
    score_universe,
)
from toolkit.views.fleet import render_fleet_json, render_fleet_text
from toolkit.views.html import render_html_page
from toolkit.views.text import render_json, render_text


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--window must be a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"--window must be at least 1, not {value}")
    return value


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
    p.add_argument("run_dir", metavar="RUN_DIR", nargs="?", help="the run folder (its slug)")
    p.add_argument("--all", metavar="DIR", dest="all_dir", help="score every run folder in DIR")
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
    p.add_argument("--rubric", metavar="FILE", help="a rubric YAML overriding version 1.0.0")
    p.add_argument(
        "--cache",
        nargs="?",
        const=True,
        default=False,
        metavar="DIR",
        help="keep loaded runs as Parquet (beside each run, or in DIR) for fast reloads",
    )
    p.set_defaults(func=run)


COMPAT = ("token-world",)
SORT_KEYS = ("verdict", "slug", "ticks", "ended")


def _check_options(args: argparse.Namespace) -> None:
    """Bad values of the newer options: one line naming the option and the value."""
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
    _check_options(args)
    if (args.run_dir is None) == (args.all_dir is None):
        raise InputError(None, "give either RUN_DIR or --all DIR (one of them)")
    rubric = load_simulation_rubric(args.rubric) if args.rubric else DEFAULT_RUBRIC
    if args.all_dir is not None:
        return _fleet(args, rubric)
    if args.diff is not None:
        from toolkit.cli._run_diff import diff_runs

        return diff_runs(args, rubric)
    universe = load_universe(args.run_dir, cache=args.cache)
    if not universe.loadable:
        if args.compat == "token-world":
            from toolkit.views.compat import insufficient_data, render_token_world_json

            _warn_stderr([str(r) for r in universe.issues["reason"]])
            doc = insufficient_data(universe.slug, args.window or rubric.window)
            print(render_token_world_json(doc))
            return 0 if args.gate != "strict" else 1
        if universe.issues.height:
            raise InputError(None, f"nothing loadable: {universe.issues['reason'][0]}")
        raise InputError(args.run_dir, "nothing loadable: no tick files and no batch records")
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
        print(render_text(card))
    if args.gate:
        return 0 if passes_gate(card, args.gate) else 1
    return 0


def _warn_stderr(warnings: list[str]) -> None:
    """token-world's JSON has no warnings field: they go to stderr, one line each."""
    import sys

    for text in warnings:
        print(f"toolkit quality: warning: {text}", file=sys.stderr)


def _fleet(args: argparse.Namespace, rubric: SimulationRubric) -> int:
    folder = Path(args.all_dir)
    if not folder.is_dir():
        raise InputError(folder, "no such folder of runs")
    if args.format == "html":
        raise InputError(None, "--format html shows one run; use table or json with --all")
    only = _verdicts(args.only) if args.only is not None else None
    universe = load_universes(folder / "*", cache=args.cache, progress=None)
    cards = score_universe(universe, rubric, args.window, series=False)
    gated = all(passes_gate(c, args.gate) for c in cards) if args.gate else True
    if only is not None:
        cards = [c for c in cards if c.verdict in only]
    sort_by = args.sort or "verdict"
    if args.format == "json":
        print(render_fleet_json(cards, sort_by=sort_by))
    else:
        print(render_fleet_text(cards, sort_by=sort_by))
    return 0 if gated else 1
