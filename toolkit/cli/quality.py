"""``toolkit quality RUN_DIR``: the simulation health scorecard of one run."""

from __future__ import annotations

import argparse

from toolkit.errors import InputError
from toolkit.load.universe import load_universe
from toolkit.rubrics.simulation import DEFAULT_RUBRIC, load_simulation_rubric, score_universe
from toolkit.scorecard import OK
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
        help="seven-dimension health scorecard of a simulation run",
        description=(
            "Score the last N ticks of a token-world run. Exit 0 when printed; with --gate, "
            "exit 1 unless all seven dimensions are OK; exit 2 on bad input."
        ),
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run folder (named by its slug)")
    p.add_argument("--window", type=_positive, help="ticks to score (default: the rubric's, 50)")
    p.add_argument("--format", choices=("table", "json", "html"), default="table")
    p.add_argument("--gate", action="store_true", help="exit 1 unless every dimension is OK")
    p.add_argument("--rubric", metavar="FILE", help="a rubric YAML overriding version 1.0.0")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load, score and print one run; the exit code follows the module docstring."""
    rubric = load_simulation_rubric(args.rubric) if args.rubric else DEFAULT_RUBRIC
    universe = load_universe(args.run_dir)
    if not universe.loadable:
        if universe.issues.height:
            raise InputError(None, f"nothing loadable: {universe.issues['reason'][0]}")
        raise InputError(args.run_dir, "nothing loadable: no tick files and no batch records")
    card = score_universe(universe, rubric, args.window)[0]
    if args.format == "json":
        print(render_json(card))
    elif args.format == "html":
        print(render_html_page(card))
    else:
        print(render_text(card))
    if args.gate:
        statuses = set(card.dimensions["status"].to_list())
        return 0 if statuses == {OK} else 1
    return 0
