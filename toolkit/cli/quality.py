"""``toolkit quality``: the simulation health scorecard of one run, or of a whole fleet."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.cli._gate import add_gate_arguments, finish, markdown
from toolkit.cli._scale import add_scale_arguments, storage_options
from toolkit.cli._watch_options import check_watch
from toolkit.errors import InputError, NothingLoadable
from toolkit.gate import checks_of

if TYPE_CHECKING:
    from toolkit.rubrics.simulation import SimulationRubric
    from toolkit.scorecard import Scorecard


def _positive(text: str) -> int:
    # The rubric (polars): parsing --window must not cost every toolkit call its import
    # (tests/test_startup_imports.py).
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
            "is OK for every run (N/A too, unless --allow-na names it); with --gate "
            "fail-only, exit 1 only when one is FAIL; stderr says why. Exit 2 on bad "
            "input. --junit FILE and --format markdown serve CI (docs/ci.md)."
        ),
    )
    _add_run_arguments(p)
    _add_output_arguments(p)
    _add_watch_arguments(p)
    _add_rubric_and_cache_arguments(p)
    add_scale_arguments(p)
    add_gate_arguments(p, bare="strict", allow_na=True, what="run")
    # the inputs whose size picks Polars' thread pool (toolkit.cli._pool)
    p.set_defaults(func=run, inputs=("run_dir", "all_dir", "diff"))


def _add_run_arguments(p: argparse.ArgumentParser) -> None:
    """What is scored: RUN_DIR (or its slug under --root) or --all DIR, and --window."""
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
    p.add_argument(
        "--window",
        "--last",
        dest="window",
        type=_positive,
        help="ticks to score (default: the rubric's, 50); --last N is token-world's spelling",
    )


def _add_output_arguments(p: argparse.ArgumentParser) -> None:
    """How it is shown: --format, --compat, --only and --sort (a fleet), --diff."""
    p.add_argument("--format", choices=("table", "json", "html", "markdown"), default="table")
    p.add_argument(
        "--compat",
        metavar="SYSTEM",
        help="token-world: with --format json, print token-world's own JSON shape; "
        "its gate reading too (all eight dimensions count, N/A passes)",
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
        help="show RUN_DIR and RUN_B side by side: scorecards and graph changes; "
        "--diff A:B compares ticks A and B of RUN_DIR (token-world's diff)",
    )


def _add_watch_arguments(p: argparse.ArgumentParser) -> None:
    """--watch: the card reprinted as ticks arrive (--interval, --watch-for)."""
    p.add_argument(
        "--watch",
        action="store_true",
        help="reprint the scorecard whenever new ticks arrive (Ctrl-C stops)",
    )
    p.add_argument(
        "--interval",
        type=float,
        default=2.0,
        metavar="S",
        help="with --watch: seconds between looks at the run folder (default 2)",
    )
    p.add_argument(
        "--watch-for",
        type=float,
        metavar="S",
        help="with --watch: stop after S seconds (default: until Ctrl-C)",
    )


def _add_rubric_and_cache_arguments(p: argparse.ArgumentParser) -> None:
    """The rubric scored against (--rubric FILE) and the Parquet cache (--cache [DIR])."""
    p.add_argument(
        "--rubric", metavar="FILE", help="a rubric YAML merged over the default rubric version"
    )
    p.add_argument(
        "--cache",
        nargs="?",
        const=True,
        default=False,
        metavar="DIR",
        help="keep loaded runs as Parquet (beside each run, or in DIR: a folder or a URL "
        "such as s3://bucket/cache, reached with the same --storage-option) for fast reloads",
    )


COMPAT = ("token-world",)
SORT_KEYS = ("verdict", "slug", "ticks", "ended")


def _check_options(args: argparse.Namespace) -> None:
    """Bad values of the newer options: one line naming the option and the value."""
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
    if args.diff is not None and args.format in ("html", "markdown"):
        raise InputError(None, "--diff prints table or json", field="--format", value=args.format)
    if args.watch and (args.all_dir is not None or args.diff is not None or args.gate):
        raise InputError(
            None, "--watch reprints one run's card until stopped (no --all, --diff or --gate)",
            field="--watch", value=True,
        )  # fmt: skip
    check_watch(args)  # --watch-for without --watch, an --interval out of range


def _verdicts(text: str) -> list[str]:
    from toolkit.views.fleet import VERDICT_ORDER  # polars: not paid by --help

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
    # The loader and the rubric (polars): every toolkit call imports this module, and
    # --help stays light (tests/test_startup_imports.py).
    from toolkit.load.universe import resolve_run
    from toolkit.rubrics import simulation

    _check_options(args)
    if (args.run_dir is None) == (args.all_dir is None):
        raise InputError(None, "give either RUN_DIR or --all DIR (one of them)")
    rubric: SimulationRubric
    if args.rubric:
        rubric = simulation.load_simulation_rubric(args.rubric)
    elif args.all_dir is None and args.diff is None and not args.watch:
        # one run with the default rubric: its plain values, not the pydantic model
        # (pydantic and the rubric's classes, ~0.1 s of CPU; issue 38)
        rubric = simulation.DEFAULT_VALUES
    else:
        rubric = simulation.DEFAULT_RUBRIC
    if args.all_dir is not None:
        return _fleet(args, rubric)
    args.run_dir = resolve_run(args.run_dir, args.root)
    if args.diff is not None:
        # the snapshots and the diff views: 55 ms that a run without --diff never pays
        from toolkit.cli._run_diff import diff_runs, is_tick_span

        if not is_tick_span(args.diff):  # --diff A:B is two ticks of RUN_DIR, not a run
            args.diff = resolve_run(args.diff, args.root)
        return diff_runs(args, rubric)
    if args.watch:
        from toolkit.cli._watch import watch_run  # 7 ms, only when watching

        return watch_run(args, rubric)
    try:  # refuses what is not a run (one rule for every face)
        card = score_one(args, rubric)
    except NothingLoadable as err:
        if args.compat != "token-world" and args.gate is None:
            raise
        card = _insufficient(args, rubric, err)
    return _show(args, card)


def score_one(args: argparse.Namespace, rubric: SimulationRubric) -> Scorecard:
    """The scorecard of ``args.run_dir`` (raises :class:`NothingLoadable` when empty)."""
    # The loader and the rubric (polars): as in run.
    from toolkit.load.universe import load_universe
    from toolkit.rubrics.simulation import score_universe

    universe = load_universe(args.run_dir, cache=args.cache, storage_options=storage_options(args))
    # No per-tick series: only charts draw them, and no output of this command is a chart
    # (the series' rolling pass is about 20 ms of CPU of a one-run call, issue 38).
    return score_universe(universe, rubric, args.window, series=False)[0]


def card_text(card: Scorecard, width: int | None, colour: bool) -> str:
    """The text card the command prints (rubric version and thresholds included)."""
    from toolkit.views.text import render_text  # polars: as in run

    return render_text(card, width=width, colour=colour, thresholds=True)


def _insufficient(args: argparse.Namespace, rubric: SimulationRubric, err: Exception) -> Scorecard:
    """An empty run as an INSUFFICIENT_DATA card (token-world's reading), when a gate or
    ``--compat`` asked what to do with it; its reason goes to stderr."""
    # The rubric and the scorecard (polars): as in run.
    from toolkit.rubrics.simulation import INSUFFICIENT
    from toolkit.scorecard import Scorecard

    _warn_stderr([str(err)])
    slug = Path(str(args.run_dir).rstrip("/")).name
    window = args.window or rubric.window
    return Scorecard(
        rubric=rubric.rubric,
        rubric_version=rubric.version,
        subject=slug,
        title=f"{slug} · no ticks to score",
        verdict=INSUFFICIENT,
        verdict_reason="no ticks to score",
        dimensions=Scorecard.dimensions_frame(slug, []),
        meta={"slug": slug, "window": window, "tick_count": 0},
    )


def _show(args: argparse.Namespace, card: Scorecard) -> int:
    """Print ``card`` in the asked format; the gate's exit code."""
    # The views (polars): as in run; each format's own view only when it is asked for
    # (the HTML page's modules are ~5 ms of a one-run call; issue 38).
    from toolkit.views.text import render_json, terminal_style

    checks = checks_of(card)
    allow: tuple[str, ...] = ()
    if args.compat == "token-world":  # token-world's reading: all eight count, N/A is OK
        from toolkit.views.compat import render_token_world_json

        checks = [replace(c, counted=True) for c in checks]
        allow = tuple(c.key for c in checks if c.key != "verdict")
        _warn_stderr(list(card.warnings))
        print(render_token_world_json(card))
    elif args.format == "json":
        print(render_json(card))
    elif args.format == "html":
        from toolkit.views.html import render_html_page

        print(render_html_page(card))
    elif args.format == "markdown":
        print(markdown(args, "quality", [card], checks, allow_na=allow), end="")
    else:
        width, colour = terminal_style()
        print(card_text(card, width, colour))
    return finish(args, "quality", [card], checks, allow_na=allow)


def _warn_stderr(warnings: list[str]) -> None:
    """token-world's JSON has no warnings field: they go to stderr, one line each."""
    for text in warnings:
        print(f"toolkit quality: warning: {text}", file=sys.stderr)


def _fleet(args: argparse.Namespace, rubric: SimulationRubric) -> int:
    # The engine and the views (polars, tqdm): as in run.
    from toolkit.fleet.engine import score_fleet
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
    checks = [c for card in cards for c in checks_of(card)]  # the gate judges every run
    if only is not None:
        cards = [c for c in cards if c.verdict in only]
    sort_by = args.sort or "verdict"
    if args.format == "json":
        print(render_fleet_json(cards, sort_by=sort_by))
    elif args.format == "markdown":
        print(markdown(args, "quality", cards, checks), end="")
    else:
        width, colour = terminal_style()
        print(render_fleet_text(cards, sort_by=sort_by, width=width, colour=colour))
    code = finish(args, "quality", fleet.cards, checks)
    for failure in fleet.failures:
        print(f"toolkit quality: error: {failure}", file=sys.stderr)
    if fleet.failures:
        return 2
    return code
