"""``toolkit rescore PATH --rubric A --rubric B``: what changes when the same runs are
scored under another rubric, before it is adopted.

Loads the runs of PATH once and scores them twice (each --rubric a YAML file or a
published version: 1.2.0 for simulation runs, 2.1.0 or 3.0.0 for dot-agents iteration
logs), then prints per run and overall the change of every dimension and score, the
verdict (or band) flips and the counts. Where scores stored earlier exist (outcome: the
iter-N.score.yaml sidecars beside the log; simulation: --stored, the JSON of toolkit
quality RUN --format json), each change since is split into what comes from the rubric
and what from inputs that changed (their input digests differ).

``--sweep DIMENSION.threshold=a:b:step`` (simulation) scores a loaded fleet once per
value and counts the verdicts that flip against the rubric's (--rubric, default 1.2.0),
as a table and, with --chart FILE.html, a chart. For outcome iteration logs the sweep
moves a band's cut-off (``bands.good=0.6:0.8:0.05``) or a signal's weight
(``signals.verifier=0.1:0.3:0.05``, the others taken in proportion) and counts band
changes against --rubric (default 2.1.0). For discussion games it moves one metric's pass
threshold (``metrics.engagement=2.5:4:0.5``, with --ratings and at most one --judge, who
answers once) and counts the games whose verdict flips against --rubric (default: the
current discussion rubric).

Persona sessions: ``--judge A --judge B`` with --propositions (see docs/rescore.md);
--dry-run says how many judge calls a judge change would cost.

Exit codes: 0 printed; 2 bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from toolkit.cli import help_text
from toolkit.cli._output import write_output
from toolkit.cli._run_args import add_run_arguments
from toolkit.cli._scale import add_storage_option, storage_options
from toolkit.errors import InputError

FORMATS = ("text", "json", "markdown")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``rescore`` subcommand."""
    p = sub.add_parser(
        "rescore",
        help="score the same runs under two rubrics (or judges) and show what moves",
        description=help_text(__doc__),
    )
    p.add_argument("path", metavar="PATH", help="a run, fleet, iteration log or chat file")
    p.add_argument(
        "--rubric",
        action="append",
        default=[],
        metavar="A|B",
        help="a rubric file or published version; give it twice (A then B), "
        "or once with --sweep (the base)",
    )
    p.add_argument(
        "--judge",
        action="append",
        default=[],
        metavar="SPEC",
        help="persona: a judge (recorded:CASSETTE, ...); give it twice",
    )
    p.add_argument(
        "--sweep",
        metavar="DIMENSION.threshold=a:b:step",
        help="count verdict (outcome: band) flips at each value of one threshold, band "
        "cut-off (bands.BAND), weight (signals.SIGNAL) or discussion metric threshold "
        "(metrics.METRIC)",
    )
    p.add_argument("--chart", metavar="FILE.html", help="with --sweep: write the chart")
    p.add_argument(
        "--stored",
        metavar="FILE|DIR",
        help="simulation: scores saved earlier (toolkit quality RUN --format json)",
    )
    p.add_argument(
        "--family",
        default="auto",
        help="auto (default), simulation, outcome, persona, discussion",
    )
    add_run_arguments(p)
    p.add_argument("--repo", metavar="DIR", help="outcome: the log's git repository")
    p.add_argument(
        "--transcripts",
        metavar="DIR",
        nargs="+",
        action="extend",
        default=[],
        help="outcome: folders of Claude Code transcripts",
    )
    p.add_argument(
        "--engagement",
        choices=("humans", "judge"),
        default="humans",
        help="discussion: who decides engagement (as toolkit discussion --engagement)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="persona, discussion: say how many judge calls B would make, and make none",
    )
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of printing")
    add_storage_option(p)  # no --engine: a re-score loads once and scores twice here
    p.set_defaults(func=run)


def _emit(args: argparse.Namespace, text: str, what: str) -> None:
    if args.output:
        write_output(
            args.output, text if text.endswith("\n") else text + "\n", what, storage_options(args)
        )
    else:
        print(text.rstrip("\n"))


def run(args: argparse.Namespace) -> int:
    """Check the flags, score twice (or sweep), print or write."""
    # polars, the loaders, the rubrics and the views: every toolkit call imports this
    # module, and --help stays light (tests/test_startup_imports.py).
    from toolkit.views.text import terminal_style

    width, _ = terminal_style()
    if args.chart and not args.sweep:
        raise InputError(
            None, "--chart draws a sweep: give --sweep too", field="--chart", value=args.chart
        )
    if args.sweep:
        return _sweep(args, width)
    if _family(args) == "discussion":
        return _discussion(args, width)
    if args.ratings is not None or args.engagement != "humans":
        raise InputError(
            None,
            "is for discussion games",
            field="--ratings" if args.ratings is not None else "--engagement",
            value=args.ratings or args.engagement,
        )
    if args.judge or args.family == "persona":
        return _persona(args, width)
    if len(args.rubric) != 2:
        raise InputError(
            None,
            f"give --rubric twice, A then B (got {len(args.rubric)}), or --sweep",
            field="--rubric",
            value=" ".join(args.rubric) or "-",
        )
    if args.dry_run:
        raise InputError(
            None,
            "a rubric change makes no judge call: --dry-run is for --judge",
            field="--dry-run",
            value="true",
        )
    from toolkit.fleet.rescore import rescore  # as above

    result = rescore(
        args.path,
        args.rubric[0],
        args.rubric[1],
        family=args.family,
        window=args.window,
        cache=args.cache,
        storage_options=storage_options(args),
        stored=args.stored,
        repo=args.repo,
        transcripts=args.transcripts,
    )
    _print_result(args, result, width)
    return 0


def _print_result(args: argparse.Namespace, result: Any, width: int | None) -> None:
    from toolkit.views import rescore as views  # polars: as in run

    if args.format == "json":
        _emit(args, views.render_rescore_json(result), "the rescore")
    elif args.format == "markdown":
        _emit(args, views.render_rescore_markdown(result), "the rescore")
    else:
        _emit(args, views.render_rescore_text(result, width), "the rescore")


def _sweep(args: argparse.Namespace, width: int | None) -> int:
    """``--sweep SPEC``: flips at each value of one threshold."""
    # the fleet, the rubric and the views (polars): as in run.
    from toolkit.fleet.rescore import sweep, sweep_outcome
    from toolkit.fleet.rescore_discussion import sweep_discussion
    from toolkit.io.atomic import check_target
    from toolkit.io.source import disk_path
    from toolkit.views import rescore as views

    family = _family(args)
    judges = 1 if family == "discussion" else 0  # a discussion judge answers once
    if len(args.rubric) > 1 or len(args.judge) > judges:
        raise InputError(
            None,
            "--sweep takes one base rubric (--rubric A) and no --judge (discussion "
            "games: at most one)",
            field="--sweep",
            value=args.sweep,
        )
    if family not in ("simulation", "outcome", "discussion"):
        raise InputError(
            None,
            "--sweep sweeps simulation fleets, outcome iteration logs and discussion games",
            field="--family",
            value=family,
        )
    chart_path = disk_path(args.chart) if args.chart else None
    if chart_path is not None:
        check_target(chart_path, "--chart")
    if family == "discussion":
        result = sweep_discussion(
            args.path,
            args.sweep,
            rubric=args.rubric[0] if args.rubric else None,
            judge=args.judge[0] if args.judge else None,
            ratings=args.ratings,
            engagement=args.engagement,
        )
    elif family == "outcome":
        result = sweep_outcome(
            args.path,
            args.sweep,
            rubric=args.rubric[0] if args.rubric else None,
            repo=args.repo,
            transcripts=args.transcripts,
            storage_options=storage_options(args),
        )
    else:
        result = sweep(
            args.path,
            args.sweep,
            rubric=args.rubric[0] if args.rubric else None,
            window=args.window,
            cache=args.cache,
            storage_options=storage_options(args),
        )
    _some_value_valid(result.table, args.sweep)
    if args.format == "json":
        _emit(args, views.render_sweep_json(result), "the sweep")
    elif args.format == "markdown":
        _emit(args, views.render_sweep_markdown(result), "the sweep")
    else:
        _emit(args, views.render_sweep_text(result, width), "the sweep")
    if args.chart:
        write_output(
            args.chart,
            views.render_sweep_chart_html(result),
            "the sweep chart",
            storage_options(args),
        )
        print(f"toolkit rescore: wrote the chart to {args.chart}", file=sys.stderr)
    return 0


def _some_value_valid(table: Any, spec: str) -> None:
    """Refuse a sweep none of whose values makes a valid rubric: it measured nothing, and a
    table of dashes with exit 0 would pass a CI step (some values out of range: the table
    shows the others and names each bad one)."""
    if table.height and not table["valid"].any():
        value, reason = table.row(0, named=True)["value"], table.row(0, named=True)["reason"]
        raise InputError(
            None,
            f"no value of the sweep makes a valid rubric (first, {value:g}: {reason})",
            field="--sweep",
            value=spec,
        )


def _persona(args: argparse.Namespace, width: int | None) -> int:
    """``--judge A [--judge B]``: persona sessions judged twice (or, with one judge and
    two rubrics, judged once and scored twice); ``--dry-run`` counts the calls."""
    # the persona loaders, the judges and the rubric (polars): as in run.
    from toolkit.fleet.rescore_persona import dry_run_persona, rescore_persona
    from toolkit.views.text import wrap_item

    judges, rubrics = args.judge, args.rubric
    if args.propositions is None:
        raise InputError(
            None,
            "persona sessions are judged against propositions: give --propositions DIR",
            field="--judge",
            value=" ".join(judges),
        )
    if len(judges) > 2 or len(rubrics) not in (0, 2) or (len(judges) == 1 and not rubrics):
        raise InputError(
            None,
            "give --judge A --judge B (a judge change), or one --judge "
            "and --rubric A --rubric B (a rubric change)",
            field="--judge",
            value=" ".join(judges),
        )
    rubric_a, rubric_b = (rubrics[0], rubrics[1]) if rubrics else (None, None)
    if args.dry_run:
        if len(judges) == 1:
            print(
                "a rubric change reuses the judge's answers: 0 judge calls (run it without "
                "--dry-run to see whether the new rubric asks anything new)"
            )
            return 0
        dry = dry_run_persona(
            args.path, args.propositions, judges[1], rubric=rubric_b, personas=args.personas
        )
        print("\n".join(wrap_item(dry.line(), min(width or 80, 80), bullet="")))
        return 0
    result = rescore_persona(
        args.path,
        args.propositions,
        judges[0],
        judges[1] if len(judges) == 2 else None,
        rubric_a=rubric_a,
        rubric_b=rubric_b,
        personas=args.personas,
    )
    _print_result(args, result, width)
    return 0


def _family(args: argparse.Namespace) -> str:
    """The family flag, or (auto) the family told from PATH."""
    from toolkit.fleet.find import detect_family  # the loaders (polars): as in run

    if args.family != "auto":
        return str(args.family)
    return str(detect_family(args.path, storage_options(args)))


def _discussion(args: argparse.Namespace, width: int | None) -> int:
    """Discussion games under ``--rubric A --rubric B`` (with one ``--judge``: its
    answers reused for B) or ``--judge A --judge B``; ``--dry-run`` counts B's calls."""
    # the discussion loaders, the judge and the rubric (polars): as in run.
    from toolkit.fleet.rescore_discussion import dry_run_discussion, rescore_discussion
    from toolkit.views.text import wrap_item

    judges, rubrics = args.judge, args.rubric
    if len(judges) > 2 or len(rubrics) > 2 or (len(judges) < 2 and len(rubrics) != 2):
        raise InputError(
            None,
            "give --rubric A --rubric B (a rubric change, with at most one --judge), "
            "or --judge A --judge B",
            field="--rubric" if len(judges) < 2 else "--judge",
            value=" ".join(rubrics if len(judges) < 2 else judges) or "-",
        )
    if len(rubrics) == 1:
        rubrics = [rubrics[0], rubrics[0]]
    rubric_a, rubric_b = (rubrics[0], rubrics[1]) if rubrics else (None, None)
    if args.dry_run:
        if not judges:
            raise InputError(
                None,
                "without a judge nothing is judged: --dry-run counts --judge calls",
                field="--dry-run",
                value="true",
            )
        dry = (
            dry_run_discussion(args.path, judges[0], rubric=rubric_b, reuse_from=rubric_a)
            if len(judges) == 1
            else dry_run_discussion(args.path, judges[1], rubric=rubric_b)
        )
        print("\n".join(wrap_item(dry.line(), min(width or 80, 80), bullet="")))
        return 0
    result = rescore_discussion(
        args.path,
        rubric_a,
        rubric_b,
        judge_a=judges[0] if judges else None,
        judge_b=judges[1] if len(judges) == 2 else None,
        ratings=args.ratings,
        engagement=args.engagement,
    )
    _print_result(args, result, width)
    return 0
