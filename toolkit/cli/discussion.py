"""``toolkit discussion PATH... [--ratings FILE] [--baseline PATH...] [--format table|json]``.

Scores LLM Mafia games (transcripts, database exports, SQLite game databases, or folders
of them) against the discussion rubric; with ``--baseline`` also compares them with a
baseline set and runs the rubric's success check over them. With ``--judge SPEC`` an LLM
judge's readings of engagement, strategic depth and memory accuracy are shown beside the
keyword and human ones; they never decide a verdict, unless ``--engagement judge`` lets
the judge's engagement stand in for a missing human rating (stamped on the scorecard).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.cli import help_text
from toolkit.cli._gate import add_gate_arguments, finish, markdown
from toolkit.cli._judge import add_judge_arguments, judge_of
from toolkit.errors import InputError
from toolkit.gate import checks_of

if TYPE_CHECKING:
    from toolkit.gate import Check
    from toolkit.load.discussion import Discussion
    from toolkit.load.ratings import RatingSource
    from toolkit.rubrics.discussion import DiscussionReport, DiscussionSpec, JudgedDiscussion


def register(sub: Any) -> None:
    """Add the ``discussion`` subcommand."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "discussion",
        help="score LLM Mafia discussions against the discussion rubric",
        description=help_text(__doc__),
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="transcript, export, .db, folder, or 2L's PostgreSQL database "
        "(postgresql://USER@HOST/DB: read-only; see docs/postgres.md)",
    )
    parser.add_argument(
        "--game",
        action="append",
        metavar="ID",
        help="only this game (repeatable; asked of a database alone)",
    )
    parser.add_argument(
        "--since",
        metavar="DATE",
        help="only games created on or after DATE (YYYY-MM-DD, UTC, or an ISO-8601 time; "
        "pushed into a database's query)",
    )
    parser.add_argument(
        "--ratings",
        metavar="FILE",
        help="engagement ratings: CSV (game_id,rater,score) or JSON list of those",
    )
    parser.add_argument(
        "--baseline", nargs="+", metavar="PATH", help="baseline games to compare against"
    )
    parser.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    parser.add_argument("--rubric", metavar="YAML", help="rubric overrides (YAML)")
    parser.add_argument(
        "--require-cost",
        action="store_true",
        help="FAIL a game whose cost is unknown (database exports and SQLite games record "
        "none); by default an unknown cost is shown as unknown and does not decide",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="save each game's scorecard JSON in an evaluations/ folder beside its file",
    )
    parser.add_argument(
        "--compat",
        choices=("2l",),
        help="with --write: save 2L's own evaluation file instead "
        "(evaluations/<stem>-evaluation.json, 2L's camelCase shape)",
    )
    add_judge_arguments(
        parser,
        required=False,
        judge_help="add an LLM judge's readings of engagement (1-5), strategic depth and "
        "memory accuracy beside the others: recorded:CASSETTE (CI), or anthropic:MODEL / "
        "openai:MODEL (live, needs a key)",
    )
    parser.add_argument(
        "--engagement",
        choices=("humans", "judge"),
        default="humans",
        help="who decides engagement: humans (default: a game without a rating is "
        "PENDING_RATING) or judge (with --judge: a game without a human rating takes the "
        "judge's reading, stamped on its scorecard; human ratings still decide)",
    )
    # A game's verdict decides (PASS with 5 of 7 metrics); bare --gate is fail-only (a
    # game waiting for its rating passes, with a warning), as before; strict fails it.
    add_gate_arguments(parser, bare="fail-only", what="game")
    # the inputs whose size picks Polars' thread pool (toolkit.cli._pool)
    parser.set_defaults(func=run, inputs=("paths", "baseline"))


def run(args: argparse.Namespace) -> int:
    """Load -> score -> print. Returns 0 (bad input raises, which the CLI turns into 2)."""
    # The loaders, the rubric and the views (polars): every toolkit call imports this
    # module, and --help stays light (tests/test_startup_imports.py).
    from toolkit.load.discussion import load_discussions
    from toolkit.rubrics.discussion import score_discussion
    from toolkit.rubrics.discussion._values import DEFAULT_VALUES
    from toolkit.views.discussion import render_discussion_json, render_discussion_text
    from toolkit.views.text import terminal_style

    _check_judge_options(args)
    # the default rubric's plain values; a rubric file is validated by the models
    # (pydantic and the rubric's classes, ~0.1 s of CPU; issue 38)
    spec = _rubric_file(args.rubric) if args.rubric else DEFAULT_VALUES
    ratings: RatingSource | None = None
    if args.ratings:
        # the ratings files' reader (~1.5 ms of CPU): only when --ratings names one
        from toolkit.load.ratings import open_rating_source

        ratings = open_rating_source(args.ratings)
    discussion = load_discussions(
        args.paths, games=getattr(args, "game", None) or (), since=getattr(args, "since", None)
    )
    kinds = dict(zip(discussion.game_ids, discussion.games["source_kind"].to_list(), strict=True))
    require_cost = bool(getattr(args, "require_cost", False))
    judged = _judged(args, discussion, spec) if getattr(args, "judge", None) else None
    report = score_discussion(
        discussion,
        ratings=ratings,
        spec=spec,
        require_cost=require_cost,
        judged=judged,
        engagement="judge" if getattr(args, "engagement", "humans") == "judge" else "humans",
    )
    comparison = success = None
    if args.baseline:
        # the comparison and the success check (two modules and their dataclasses, ~2 ms
        # of CPU): only a run with --baseline compares
        from toolkit.rubrics.discussion import compare, success_check

        baseline = score_discussion(
            load_discussions(args.baseline), ratings=ratings, spec=spec, require_cost=require_cost
        )
        comparison = compare(baseline, report, spec)
        success = success_check(report, spec)
    if args.format == "markdown":
        notes = _judge_notes(report)
        print(markdown(args, "discussion", report.scorecards, _checks(report), notes=notes), end="")
    elif args.format == "json":
        # The JSON keeps the documented shape; what was read leniently goes to stderr.
        for warning in dict.fromkeys(w for c in report.scorecards for w in c.warnings):
            print(f"toolkit discussion: warning: {warning}", file=sys.stderr)
        print(render_discussion_json(report, comparison, success))
    else:
        width, colour = terminal_style()
        print(render_discussion_text(report, comparison, success, width=width, colour=colour))
        usage = judged.usage if judged is not None else None
        if usage is not None and usage.model is not None:
            print("\n".join(usage.lines(width or 80)))
    if args.compat and not args.write:
        raise InputError(None, "needs --write (it names the file --write saves)",
                         field="--compat", value=args.compat)  # fmt: skip
    if args.write:
        if "postgres" in kinds.values():
            raise InputError(None, "saves beside each game's file; a database has no folder "
                             "(use --format json > FILE)", field="--write", value=True)  # fmt: skip
        for path in _write_scorecards(report, kinds, compat=args.compat):
            print(f"toolkit discussion: wrote {path}", file=sys.stderr)
    return _gate(args, report)


def _rubric_file(path: str) -> DiscussionSpec:
    """The rubric of ``--rubric`` (its overrides over the version it names)."""
    from toolkit.rubrics.discussion import load_discussion_spec  # the models: see run

    return load_discussion_spec(path)


def _check_judge_options(args: argparse.Namespace) -> None:
    """``--engagement judge`` and the live-judge options need ``--judge``.

    Raises:
        InputError: naming the option given without a judge.
    """
    if getattr(args, "judge", None):
        return
    if getattr(args, "engagement", "humans") == "judge":
        raise InputError(None, "needs --judge (whose engagement would stand in?)",
                         field="--engagement", value="judge")  # fmt: skip
    for flag, given in (
        ("--record", getattr(args, "record", None) is not None),
        ("--max-cost", getattr(args, "max_cost", None) is not None),
        ("--prices", getattr(args, "prices", None) is not None),
        ("--double-check", bool(getattr(args, "double_check", False))),
        ("--judge-base-url", getattr(args, "judge_base_url", None) is not None),
    ):
        if given:
            raise InputError(None, "needs --judge", field=flag, value=True)


def _judged(
    args: argparse.Namespace, discussion: Discussion, spec: DiscussionSpec
) -> JudgedDiscussion:
    """The judge's readings of every game (``--judge`` and the live-judge options)."""
    from toolkit.rubrics.discussion import judge_discussion  # polars: as in run

    return judge_discussion(
        discussion,
        judge_of(args),
        spec=spec,
        double_check=args.double_check,
        concurrency=args.judge_concurrency,
        max_cost=args.max_cost,
        prices=args.prices,
        progress=False if args.no_progress else None,
    )


def _write_scorecards(
    report: DiscussionReport, kinds: dict[str, str], compat: str | None = None
) -> list[Path]:
    """Each game's scorecard JSON beside its source file (see :mod:`toolkit.sidecars`);
    with ``compat="2l"`` 2L's own evaluation file instead."""
    # The sidecars and the views (polars): as in run.
    from toolkit.sidecars import (
        discussion_sidecar_path,
        two_l_evaluation_path,
        write_json_sidecar,
    )
    from toolkit.views.compat import two_l_evaluation
    from toolkit.views.discussion import game_document

    thresholds = {key: metric.threshold for key, metric in report.spec.metrics.items()}
    written: list[Path] = []
    for card in report.scorecards:
        source = str(card.meta["source_file"])
        per_game = kinds.get(card.subject) != "transcript"
        if compat == "2l":
            path = two_l_evaluation_path(source, card.subject, per_game=per_game)
            document = two_l_evaluation(card, thresholds)
        else:
            path = discussion_sidecar_path(source, card.subject, per_game=per_game)
            document = game_document(card, report.spec.version)
        written.append(write_json_sidecar(path, document, compat_2l=compat == "2l"))
    return written


def _judge_notes(report: DiscussionReport) -> list[str]:
    """The judge's block as Markdown notes (empty without a judge)."""
    from toolkit.views.discussion import judge_lines  # polars: as in run

    return judge_lines(report, None)


def _checks(report: DiscussionReport) -> list[Check]:
    """Each game's metrics (shown, never deciding) and its verdict (deciding)."""
    return [c for card in report.scorecards for c in checks_of(card, by_verdict=True)]


def _gate(args: argparse.Namespace, report: DiscussionReport) -> int:
    """The gate's exit code (0 without a gate); under fail-only a game still waiting for
    its rating passes, and stderr says how many did."""
    # The rubric and the text views (polars): as in run.
    from toolkit.rubrics.discussion import PENDING_RATING
    from toolkit.views.text import terminal_style, wrap_item

    code = finish(
        args, "discussion", report.scorecards, _checks(report), notes=_judge_notes(report)
    )
    pending = sum(c.verdict == PENDING_RATING for c in report.scorecards)
    if args.gate == "fail-only" and pending:
        warning = (
            f"warning: {pending} game(s) wait for an engagement rating and pass the gate "
            "unrated ('--gate strict' fails them)"
        )
        width, _ = terminal_style(sys.stderr)
        for line in wrap_item(warning, width, bullet="toolkit discussion: ", indent=2):
            print(line, file=sys.stderr)
    return code
