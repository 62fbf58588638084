"""``toolkit outcome``: score an agent iteration log with the outcome rubric."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from toolkit.cli._gate import add_gate_arguments, finish, markdown
from toolkit.cli._scale import add_scale_arguments, storage_options
from toolkit.errors import InputError
from toolkit.gate import checks_of

if TYPE_CHECKING:
    from toolkit.load.iterlog import IterationLog
    from toolkit.rubrics.outcome import OutcomeResult, OutcomeRubric


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``outcome`` subcommand."""
    parser = sub.add_parser(
        "outcome",
        help="score an agent iteration log (dot-agents) with the outcome rubric",
        description=(
            "Score each iteration of LOG_DIR (iter-N.yaml files, schema v1 or v2) and each "
            "agent session with the outcome rubric, and pair what each role claimed with "
            "what was observed. LOG_DIR and --all take a local folder or an fsspec URL "
            "(s3://, gs://, az://); --repo and --transcripts are local folders. "
            "Exit 0 when printed; with --gate, 1 when an iteration's band (with --all, a "
            "log's mean band) fails it: poor fails every gate, fair and unscored fail "
            "strict; 2 on bad input. A folder of dot-agents eval-harness runs (a repository, "
            "its .agents/eval/runs, or run folders with eval-run.yaml) as LOG_DIR or --all: "
            "one line per run, each task's replicates together."
        ),
    )
    parser.add_argument(
        "log_dir", metavar="LOG_DIR", nargs="?", help="the iteration log folder, or its URL"
    )
    parser.add_argument(
        "--all",
        metavar="DIR",
        dest="all_dir",
        help="score every iteration log under DIR (or a URL): one line per log, worst mean first",
    )
    parser.add_argument(
        "--repo",
        metavar="DIR",
        help="the git repository of the log's commits (a local folder, bare or not)",
    )
    parser.add_argument(
        "--transcripts",
        metavar="DIR",
        nargs="+",
        action="extend",
        default=[],
        help="local folders of Claude Code *.jsonl transcripts (token and tool-error backfill)",
    )
    parser.add_argument("--iteration", metavar="N", type=int, help="score and show only N")
    parser.add_argument(
        "--write",
        action="store_true",
        help="write iter-N.score.yaml (and session-<id>.score.yaml) beside a local log",
    )
    parser.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    parser.add_argument(
        "--rubric", metavar="FILE", help="a YAML rubric merged over the default rubric version"
    )
    add_scale_arguments(parser)
    add_gate_arguments(parser, bare="strict", what="iteration")
    # the inputs whose size picks Polars' thread pool (toolkit.cli._pool)
    parser.set_defaults(func=run, inputs=("log_dir", "all_dir"))


def run(args: argparse.Namespace) -> int:
    """Load -> evidence -> score -> (write) -> print."""
    # The loaders, the rubric and the views import polars: every toolkit call imports
    # this module, and --help stays light (tests/test_startup_imports.py).
    from toolkit.load.outcome_evidence import check_local_evidence
    from toolkit.rubrics.outcome import load_outcome_rubric

    if (args.log_dir is None) == (args.all_dir is None):
        raise InputError(None, "give either LOG_DIR or --all DIR (one of them)")
    options = storage_options(args)
    check_local_evidence(args.repo, args.transcripts)
    rubric = load_outcome_rubric(args.rubric)
    if _holds_eval_runs(args.all_dir or args.log_dir, options):
        if args.iteration is not None or args.write:
            raise InputError(None, "--iteration and --write work on one log, not on eval runs")
        return _run_eval(args, rubric, options)
    if args.all_dir is not None:
        if args.iteration is not None or args.write:
            raise InputError(None, "--iteration and --write work on one log, not with --all")
        return _run_fleet(args, rubric, options)
    return _run_log(args, rubric, options)


def _run_fleet(args: argparse.Namespace, rubric: OutcomeRubric, options: dict[str, Any]) -> int:
    """``--all DIR``: one line per log, worst mean first."""
    # polars, the rubric and the views: as in run.
    from toolkit.fleet.find import find_iteration_logs, fleet_log_names
    from toolkit.fleet.outcome import fleet_scorecards, outcome_fleet, score_outcome_logs
    from toolkit.views.outcome import render_outcome_fleet_json, render_outcome_fleet_text
    from toolkit.views.text import terminal_style

    width, colour = terminal_style()
    logs = [str(p) for p in find_iteration_logs(args.all_dir, storage_options=options)]
    failures: list[Any] = []
    if args.engine == "dask":
        results, failures = _on_dask(args, logs, rubric, options)
    else:
        results = score_outcome_logs(
            logs,
            rubric,
            repo=args.repo,
            transcripts=args.transcripts,
            storage_options=options,
        )
    # Each log is named by its path under --all, the same wherever the logs live.
    labels = fleet_log_names(args.all_dir, logs, storage_options=options)
    names = dict(zip(logs, labels, strict=True))
    fleet = outcome_fleet({names[k]: v for k, v in results.items()}, rubric)
    cards = fleet_scorecards(fleet, rubric)
    checks = [c for card in cards for c in checks_of(card)]
    if args.format == "markdown":
        print(markdown(args, "outcome", cards, checks), end="")
    elif args.format == "json":
        print(render_outcome_fleet_json(fleet, rubric.version))
    else:
        print(render_outcome_fleet_text(fleet, rubric.version, width=width, colour=colour))
    code = finish(args, "outcome", cards, checks)
    for failure in failures:
        print(f"toolkit outcome: error: {failure}", file=sys.stderr)
    return 2 if failures else code


def _holds_eval_runs(folder: str, options: dict[str, Any]) -> bool:
    """Whether ``folder`` holds dot-agents eval-harness runs (and no iteration log of its
    own at its top)."""
    # the finder (the io package): as in run.
    from toolkit.fleet.find import detect_family

    try:
        return detect_family(folder, options) == "eval"
    except InputError:
        return False  # nothing recognisable: the iteration-log path says why


def _run_eval(args: argparse.Namespace, rubric: OutcomeRubric, options: dict[str, Any]) -> int:
    """Eval-harness runs: one line per run, each task's replicates together."""
    # polars, the rubric and the views: as in run.
    from toolkit.fleet.eval_runs import eval_scorecards, score_eval_runs
    from toolkit.views.eval_runs import render_eval_runs_json, render_eval_runs_text
    from toolkit.views.text import terminal_style

    width, colour = terminal_style()
    if args.repo or args.transcripts:
        raise InputError(None, "eval-harness runs are scored without --repo or --transcripts "
                         "(trunk landing does not apply in the harness)")  # fmt: skip
    scored = score_eval_runs(args.all_dir or args.log_dir, rubric, storage_options=options)
    cards = eval_scorecards(scored.runs, rubric)
    checks = [c for card in cards for c in checks_of(card, by_verdict=True)]
    if args.format == "markdown":
        print(markdown(args, "outcome", cards, checks), end="")
    elif args.format == "json":
        print(render_eval_runs_json(scored.runs, rubric.version, scored.notes))
    else:
        print(render_eval_runs_text(scored.runs, scored.label, rubric.version,
                                    notes=scored.notes, width=width, colour=colour))  # fmt: skip
    return finish(args, "outcome", cards, checks)


def _load_log(args: argparse.Namespace, options: dict[str, Any]) -> IterationLog:
    """The one log of ``LOG_DIR``, refused when it has no iteration (or not the one
    ``--iteration`` names), or when ``--write`` would write into object storage."""
    # polars and the io package: as in run.
    from toolkit.io.source import open_source
    from toolkit.load.iterlog import load_iteration_log

    if args.write and open_source(args.log_dir, options).disk is None:
        raise InputError(
            args.log_dir,
            "--write writes score sidecars only into a local log folder; this log is in "
            "object storage (score it without --write, or copy it down first)",
        )
    log = load_iteration_log(args.log_dir, storage_options=options)
    if log.iterations.is_empty():
        first = log.issue_lines()[:1]
        reason = "no iteration could be loaded (no iter-N.yaml or historical.yaml entry)"
        raise InputError(args.log_dir, reason + (f"; first problem: {first[0]}" if first else ""))
    iterations = log.iterations["iteration"].to_list()
    if args.iteration is not None and args.iteration not in iterations:
        raise InputError(
            args.log_dir,
            f"no such iteration in the log (it has {iterations[0]}..{iterations[-1]})",
            field="--iteration",
            value=args.iteration,
        )
    return log


def _run_log(args: argparse.Namespace, rubric: OutcomeRubric, options: dict[str, Any]) -> int:
    """``LOG_DIR``: each iteration and session of one log (or ``--iteration N``)."""
    # polars, the rubric, the sidecars and the views: as in run.
    from toolkit.load.outcome_evidence import collect_outcome_evidence
    from toolkit.rubrics.outcome import score_outcome
    from toolkit.sidecars import write_score_sidecars
    from toolkit.views.outcome import (
        render_outcome_iteration,
        render_outcome_json,
        render_outcome_table,
    )
    from toolkit.views.text import terminal_style

    width, colour = terminal_style()
    log = _load_log(args, options)
    evidence = collect_outcome_evidence(log, repo=args.repo, transcripts=args.transcripts)
    result = score_outcome(log, evidence, rubric)
    shown = result if args.iteration is None else result.only([args.iteration])
    if args.write:
        if args.iteration is None:
            written = write_score_sidecars(result, log.root)
        else:
            written = write_score_sidecars(
                result, log.root, iterations=[args.iteration], sessions=False
            )
        print(
            f"toolkit outcome: wrote {len(written)} score sidecar(s) in {log.root}", file=sys.stderr
        )
    cards = shown.scorecards()
    checks = [c for card in cards for c in checks_of(card, by_verdict=True)]
    if args.format == "markdown":
        print(markdown(args, "outcome", cards, checks), end="")
    elif args.format == "json":
        print(render_outcome_json(shown))
    elif args.iteration is not None:
        print(render_outcome_iteration(shown, args.iteration, width=width, colour=colour))
    else:
        print(
            render_outcome_table(
                shown, title=f"Outcome scores of {log.where}", width=width, colour=colour
            )
        )
    return finish(args, "outcome", cards, checks)


def _on_dask(
    args: argparse.Namespace, logs: list[str], rubric: OutcomeRubric, options: dict[str, Any]
) -> tuple[dict[str, tuple[OutcomeResult, int]], list[Any]]:
    """The same per-log scoring, a partition of logs per Dask task (each task gets the
    logs' paths or URLs and the storage options, and reads the logs itself)."""
    # polars (the outcome fleet) and tqdm: as in run.
    from toolkit.fleet.engine import default_partition_size, map_partitions, partitions
    from toolkit.fleet.outcome import score_log_partition

    size = args.partition_size or default_partition_size(len(logs))
    done, failures = map_partitions(
        score_log_partition,
        partitions(logs, size),
        rubric,
        args.repo,
        tuple(args.transcripts),
        options,
        engine="dask",
        scheduler=args.scheduler,
        progress=None,
        desc="scoring iteration logs",
    )
    return dict(done), failures
