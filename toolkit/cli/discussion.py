"""``toolkit discussion PATH... [--ratings FILE] [--baseline PATH...] [--format table|json]``.

Scores LLM Mafia games (transcripts, database exports, SQLite game databases, or folders
of them) against the discussion rubric; with ``--baseline`` also compares them with a
baseline set and runs the rubric's success check over them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.cli import help_text
from toolkit.cli._gate import add_gate_arguments

if TYPE_CHECKING:
    from toolkit.gate import Check
    from toolkit.load.ratings import RatingSource
    from toolkit.rubrics.discussion import DiscussionReport


def register(sub: Any) -> None:
    """Add the ``discussion`` subcommand."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "discussion",
        help="score LLM Mafia discussions against the discussion rubric",
        description=help_text(__doc__),
    )
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="transcript, export, .db or folder"
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
    # A game's verdict decides (PASS with 5 of 7 metrics); bare --gate is fail-only (a
    # game waiting for its rating passes, with a warning), as before; strict fails it.
    add_gate_arguments(parser, bare="fail-only", what="game")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load -> score -> print. Returns 0 (bad input raises, which the CLI turns into 2)."""
    from toolkit.load.discussion import load_discussions
    from toolkit.load.ratings import open_rating_source
    from toolkit.rubrics.discussion import score_discussion
    from toolkit.rubrics.discussion_iterations import compare, success_check
    from toolkit.rubrics.discussion_spec import DEFAULT_DISCUSSION_SPEC, load_discussion_spec
    from toolkit.views.discussion import render_discussion_json, render_discussion_text

    spec = load_discussion_spec(args.rubric) if args.rubric else DEFAULT_DISCUSSION_SPEC
    ratings: RatingSource | None = open_rating_source(args.ratings) if args.ratings else None
    discussion = load_discussions(args.paths)
    kinds = dict(zip(discussion.game_ids, discussion.games["source_kind"].to_list(), strict=True))
    require_cost = bool(getattr(args, "require_cost", False))
    report = score_discussion(discussion, ratings=ratings, spec=spec, require_cost=require_cost)
    comparison = success = None
    if args.baseline:
        baseline = score_discussion(
            load_discussions(args.baseline), ratings=ratings, spec=spec, require_cost=require_cost
        )
        comparison = compare(baseline, report, spec)
        success = success_check(report, spec)
    if args.format == "markdown":
        from toolkit.cli._gate import markdown

        print(markdown(args, "discussion", report.scorecards, _checks(report)), end="")
    elif args.format == "json":
        # The JSON keeps the documented shape; what was read leniently goes to stderr.
        for warning in dict.fromkeys(w for c in report.scorecards for w in c.warnings):
            print(f"toolkit discussion: warning: {warning}", file=sys.stderr)
        print(render_discussion_json(report, comparison, success))
    else:
        from toolkit.views.text import terminal_style

        width, colour = terminal_style()
        print(render_discussion_text(report, comparison, success, width=width, colour=colour))
    if args.compat and not args.write:
        from toolkit.errors import InputError

        raise InputError(None, "needs --write (it names the file --write saves)",
                         field="--compat", value=args.compat)  # fmt: skip
    if args.write:
        for path in _write_scorecards(report, kinds, compat=args.compat):
            print(f"toolkit discussion: wrote {path}", file=sys.stderr)
    return _gate(args, report)


def _write_scorecards(
    report: DiscussionReport, kinds: dict[str, str], compat: str | None = None
) -> list[Path]:
    """Each game's scorecard JSON beside its source file (see :mod:`toolkit.sidecars`);
    with ``compat="2l"`` 2L's own evaluation file instead."""
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


def _checks(report: DiscussionReport) -> list[Check]:
    """Each game's metrics (shown, never deciding) and its verdict (deciding)."""
    from toolkit.gate import checks_of

    return [c for card in report.scorecards for c in checks_of(card, by_verdict=True)]


def _gate(args: argparse.Namespace, report: DiscussionReport) -> int:
    """The gate's exit code (0 without a gate); under fail-only a game still waiting for
    its rating passes, and stderr says how many did."""
    from toolkit.cli._gate import finish
    from toolkit.rubrics.discussion import PENDING_RATING

    code = finish(args, "discussion", report.scorecards, _checks(report))
    pending = sum(c.verdict == PENDING_RATING for c in report.scorecards)
    if args.gate == "fail-only" and pending:
        from toolkit.views.text import terminal_style, wrap_item

        warning = (
            f"warning: {pending} game(s) wait for an engagement rating and pass the gate "
            "unrated ('--gate strict' fails them)"
        )
        width, _ = terminal_style(sys.stderr)
        for line in wrap_item(warning, width, bullet="toolkit discussion: ", indent=2):
            print(line, file=sys.stderr)
    return code
