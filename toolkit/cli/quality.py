"""``toolkit quality``: the simulation health scorecard of one run, or of a whole fleet."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.errors import InputError

if TYPE_CHECKING:
    from toolkit.rubrics.simulation import SimulationRubric


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
        help="seven-dimension health scorecard of a simulation run (or of every run in a folder)",
        description=(
            "Score the last N ticks of a token-world run, or with --all DIR of every run "
            "folder in DIR (one line per run, worst first). Exit 0 when printed; with "
            "--gate, exit 1 unless every dimension of every run is OK; exit 2 on bad input."
        ),
    )
    p.add_argument("run_dir", metavar="RUN_DIR", nargs="?", help="the run folder (its slug)")
    p.add_argument("--all", metavar="DIR", dest="all_dir", help="score every run folder in DIR")
    p.add_argument("--window", type=_positive, help="ticks to score (default: the rubric's, 50)")
    p.add_argument("--format", choices=("table", "json", "html"), default="table")
    p.add_argument("--gate", action="store_true", help="exit 1 unless every dimension is OK")
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


def run(args: argparse.Namespace) -> int:
    """Load, score and print; the exit code follows the module docstring."""
    from toolkit.load.universe import load_universe
    from toolkit.rubrics.simulation import DEFAULT_RUBRIC, load_simulation_rubric, score_universe
    from toolkit.scorecard import OK
    from toolkit.views.html import render_html_page
    from toolkit.views.text import render_json, render_text

    if (args.run_dir is None) == (args.all_dir is None):
        raise InputError(None, "give either RUN_DIR or --all DIR (one of them)")
    rubric = load_simulation_rubric(args.rubric) if args.rubric else DEFAULT_RUBRIC
    if args.all_dir is not None:
        return _fleet(args, rubric)
    universe = load_universe(args.run_dir, cache=args.cache)
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


def _fleet(args: argparse.Namespace, rubric: SimulationRubric) -> int:
    from toolkit.load.universe import load_universes
    from toolkit.rubrics.simulation import score_universe
    from toolkit.scorecard import OK
    from toolkit.views.fleet import render_fleet_json, render_fleet_text

    folder = Path(args.all_dir)
    if not folder.is_dir():
        raise InputError(folder, "no such folder of runs")
    if args.format == "html":
        raise InputError(None, "--format html shows one run; use table or json with --all")
    universe = load_universes(folder / "*", cache=args.cache, progress=None)
    cards = score_universe(universe, rubric, args.window, series=False)
    print(render_fleet_json(cards) if args.format == "json" else render_fleet_text(cards))
    if args.gate:
        return 0 if all(set(c.dimensions["status"]) == {OK} for c in cards) else 1
    return 0
