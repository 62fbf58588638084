"""``toolkit persona``: score a chat run's persona drift and gate on regressions.

Exit codes: 0 scored and the gate passed; 1 the gate failed (by default, ``--gate
regression``: a dimension regressed more than the tolerance below its baseline); 2 bad
input (one line on stderr).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.cli._gate import add_gate_arguments, finish, markdown
from toolkit.cli._judge import JUDGE_HELP, add_judge_arguments, judge_of
from toolkit.cli._office import (
    add_office_arguments,
    is_database,
    is_stored,
    log_lines,
    office_inputs,
    stored_warning,
)
from toolkit.cli._output import local_target
from toolkit.errors import InputError
from toolkit.gate import REGRESSION_KIND, checks_of

if TYPE_CHECKING:
    from toolkit.gate import Check
    from toolkit.rubrics.persona import PersonaResult

EXIT_OK, EXIT_REGRESSION = 0, 1

#: Without ``--gate`` persona gates on regressions against ``--baseline``, as it always
#: did; ``--gate none`` prints without gating, ``--gate`` alone is strict.
DEFAULT_GATE = "regression"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``persona`` subcommand."""
    parser = subparsers.add_parser(
        "persona",
        help="score persona drift of a chat run with an LLM judge (recorded in CI)",
        description=(
            "Score each agent's adherence, consistency and fluency and the group's "
            "convergence and ideas with proposition files and a judge. Exit 1 when the "
            "gate fails (by default on a regression against --baseline; --gate none "
            "never), 2 on bad input."
        ),
    )
    parser.add_argument(  # a str: a postgresql:// URL is not mangled by Path
        "run",
        help="chat run: toolkit JSONL, run_messages export, or postgresql://…/DB of the-office",
    )
    parser.add_argument(
        "--propositions", type=Path, required=True, help="folder of proposition YAML files"
    )
    add_judge_arguments(parser, judge_help=JUDGE_HELP + "; stored[:EVAL_RUN_ID,…] (the-office)")
    add_office_arguments(parser)
    parser.add_argument("--personas", type=Path, help="personas YAML/JSON (names, specs)")
    parser.add_argument("--baseline", type=Path, help="folder of golden baseline JSON files")
    parser.add_argument(  # a str: a URL given here is refused by name, not mangled by Path
        "--write-baseline", metavar="DIR", help="write this run's scores as baselines"
    )
    parser.add_argument("--rubric", type=Path, help="YAML overrides of the persona rubric")
    parser.add_argument(
        "--agents",
        metavar="ID,...",
        help="score only these agents (ids or names, comma-separated), e.g. michael,dwight",
    )
    parser.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    add_gate_arguments(parser, bare="strict", default=DEFAULT_GATE, what="agent")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load -> score -> print; returns the exit code."""
    # The loaders, the rubric and the views (polars): every toolkit call
    # imports this module, and --help stays light (tests/test_startup_imports.py).
    from toolkit.load.persona import load_baselines, load_chat, load_propositions, write_baselines
    from toolkit.rubrics.persona import (
        DEFAULT_PERSONA_RUBRIC,
        baselines_from,
        load_persona_rubric,
        score_persona,
    )
    from toolkit.views.persona import persona_table, render_persona_table
    from toolkit.views.text import render_json, terminal_style

    baselines_to = None
    if args.write_baseline:
        baselines_to = local_target(args.write_baseline, "--write-baseline", "baseline files")
    rubric = load_persona_rubric(args.rubric) if args.rubric else DEFAULT_PERSONA_RUBRIC
    logs, database = None, is_database(args.run)
    if not database:
        if args.channel or args.window or is_stored(args.judge):
            what = "--judge stored" if is_stored(args.judge) else "--channel and --window"
            raise InputError(args.run, f"{what} need a postgresql:// database of the-office")
        chat = load_chat(args.run, personas=args.personas)
    propositions = load_propositions(args.propositions)
    baselines = load_baselines(args.baseline) if args.baseline else None
    if database:
        chat, judge, logs = office_inputs(args, propositions)
    else:
        judge = judge_of(args)
    result = score_persona(
        chat,
        propositions,
        judge,
        rubric=rubric,
        baselines=baselines,
        double_check=args.double_check,
        concurrency=args.judge_concurrency,
        max_cost=args.max_cost,
        prices=args.prices,
        progress=False if args.no_progress else None,
        agents=_agent_list(getattr(args, "agents", None)),
    )
    rounded = stored_warning(judge)
    if rounded is not None:
        result = replace(result, warnings=(*result.warnings, rounded))
    usage = result.usage
    cards, checks = list(result.scorecards.values()), _checks(result)
    if args.format == "markdown":
        print(markdown(args, "persona", cards, checks), end="")
    elif args.format == "json":
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
                judge_usage=None if usage is None else usage.to_dict(),
                **({} if logs is None else {"the_office_logs": logs.to_dict()}),
            )
        )
    else:
        width, colour = terminal_style()
        print(render_persona_table(result, width=width, colour=colour))
        if usage is not None and usage.model is not None:
            print("\n".join(usage.lines()))
        if logs is not None:
            print("\n".join(log_lines(logs)))
    if baselines_to is not None:
        written = write_baselines(baselines_from(result), baselines_to)
        print(f"wrote {len(written)} baseline(s) to {baselines_to}", file=sys.stderr)
    return finish(args, "persona", cards, checks)


def _checks(result: PersonaResult) -> list[Check]:
    """Every agent's and the environment's dimensions; a regression against the baseline
    is a ``regression`` (what the default gate fails on), not a plain FAIL. A group
    dimension (convergence) that regressed is the environment's regression, once, with
    the agents whose baselines it fell below."""
    from toolkit.rubrics.persona import ENVIRONMENT  # polars: as in run

    rows = result.regressions.select("agent_id", "dimension", "score", "baseline").rows()
    out: list[Check] = []
    for key, card in result.scorecards.items():
        kinds = {d: REGRESSION_KIND for a, d, _, _ in rows if a == key}
        checks = checks_of(card, kinds=kinds)
        if key == ENVIRONMENT:
            for i, check in enumerate(checks):
                below = [(a, s, b) for a, d, s, b in rows if d == check.key]
                if below and check.value is not None:
                    agents = ", ".join(f"{a} {b:.2f}" for a, _, b in below)
                    why = f"{check.value:.2f} against the baselines of {agents}"
                    checks[i] = replace(check, kind=REGRESSION_KIND, detail=why)
        out += checks
    return out


def _agent_list(value: str | None) -> list[str] | None:
    """``--agents a,b`` as a list (``None`` without the flag)."""
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]
