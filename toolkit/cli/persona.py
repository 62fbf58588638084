"""``toolkit persona``: score a chat run's persona drift and gate on regressions.

Exit codes: 0 scored (no regression); 1 a dimension regressed more than the tolerance
below its baseline; 2 bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_OK, EXIT_REGRESSION = 0, 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``persona`` subcommand."""
    parser = subparsers.add_parser(
        "persona",
        help="score persona drift of a chat run with an LLM judge (recorded in CI)",
        description=(
            "Score each agent's adherence, consistency and fluency and the group's "
            "convergence and ideas with proposition files and a judge. Exit 1 on a "
            "regression against --baseline, 2 on bad input."
        ),
    )
    parser.add_argument("run", type=Path, help="chat run: toolkit JSONL or run_messages export")
    parser.add_argument(
        "--propositions", type=Path, required=True, help="folder of proposition YAML files"
    )
    parser.add_argument(
        "--judge",
        required=True,
        help="recorded:CASSETTE (CI), or anthropic:MODEL / openai:MODEL (live, needs a key)",
    )
    parser.add_argument("--personas", type=Path, help="personas YAML/JSON (names, specs)")
    parser.add_argument("--baseline", type=Path, help="folder of golden baseline JSON files")
    parser.add_argument(
        "--write-baseline", type=Path, metavar="DIR", help="write this run's scores as baselines"
    )
    parser.add_argument("--rubric", type=Path, help="YAML overrides of the persona rubric")
    parser.add_argument(
        "--double-check", action="store_true", help="ask the judge to revise each answer once"
    )
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load -> score -> print; returns the exit code."""
    from toolkit.judge import judge_from_spec
    from toolkit.load.persona import load_baselines, load_chat, load_propositions, write_baselines
    from toolkit.rubrics.persona import (
        DEFAULT_PERSONA_RUBRIC,
        baselines_from,
        load_persona_rubric,
        score_persona,
    )
    from toolkit.views.persona import persona_table, render_persona_table
    from toolkit.views.text import render_json

    rubric = load_persona_rubric(args.rubric) if args.rubric else DEFAULT_PERSONA_RUBRIC
    chat = load_chat(args.run, personas=args.personas)
    propositions = load_propositions(args.propositions)
    baselines = load_baselines(args.baseline) if args.baseline else None
    judge = judge_from_spec(args.judge)
    result = score_persona(
        chat,
        propositions,
        judge,
        rubric=rubric,
        baselines=baselines,
        double_check=args.double_check,
    )
    if args.format == "json":
        table = persona_table(result)
        print(
            render_json(
                list(result.scorecards.values()),
                run=result.run,
                judge=result.judge,
                table=table.to_dicts(),
                regressions=result.regressions.to_dicts(),
                evidence=result.evidence.agents.to_dicts(),
                warnings=list(result.warnings),
            )
        )
    else:
        print(render_persona_table(result))
    if args.write_baseline:
        written = write_baselines(baselines_from(result), args.write_baseline)
        print(f"wrote {len(written)} baseline(s) to {args.write_baseline}", file=sys.stderr)
    return EXIT_REGRESSION if result.regressions.height else EXIT_OK
