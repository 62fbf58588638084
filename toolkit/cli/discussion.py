"""``toolkit discussion PATH... [--ratings FILE] [--baseline PATH...] [--format table|json]``.

Scores LLM Mafia games (transcripts, database exports, SQLite game databases, or folders
of them) against the discussion rubric; with ``--baseline`` also compares them with a
baseline set and runs the rubric's success check over them.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkit.load.ratings import RatingSource


def register(sub: Any) -> None:
    """Add the ``discussion`` subcommand."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "discussion",
        help="score LLM Mafia discussions against the discussion rubric",
        description=__doc__,
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
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument("--rubric", metavar="YAML", help="rubric overrides (YAML)")
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
    report = score_discussion(load_discussions(args.paths), ratings=ratings, spec=spec)
    comparison = success = None
    if args.baseline:
        baseline = score_discussion(load_discussions(args.baseline), ratings=ratings, spec=spec)
        comparison = compare(baseline, report, spec)
        success = success_check(report, spec)
    if args.format == "json":
        # The JSON keeps the documented shape; what was read leniently goes to stderr.
        for warning in dict.fromkeys(w for c in report.scorecards for w in c.warnings):
            print(f"toolkit discussion: warning: {warning}", file=sys.stderr)
        print(render_discussion_json(report, comparison, success))
    else:
        print(render_discussion_text(report, comparison, success))
    return 0
