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
from toolkit.cli._output import local_target, write_output
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
    _add_office_arguments(parser)
    parser.set_defaults(func=run)


#: The flags only ``--compat the-office`` takes (its evaluation harness's own).
OFFICE_FLAGS = (  # --window too, which a database run takes as well (cli/_office.py)
    "dimensions",
    "threshold",
    "regression_delta",
    "update_baseline",
    "output",
)


def _add_office_arguments(parser: argparse.ArgumentParser) -> None:
    """``--compat the-office`` and the harness's flags (see docs/rubrics/persona.md)."""
    office = parser.add_argument_group("the-office's evaluation harness (--compat the-office)")
    office.add_argument(
        "--compat",
        choices=("the-office",),
        help="print the-office harness's JSON (or, with --format markdown, its PR comment) "
        "and exit 1 when an agent fails, as its CI expects",
    )
    office.add_argument("--dimensions", metavar="DIM,...", help="dimensions to report")
    office.add_argument(
        "--threshold", type=float, metavar="X", help="a dimension passes at X or above (5.0)"
    )
    office.add_argument(
        "--regression-delta", type=float, metavar="X", help="more than X below baseline (1.0)"
    )
    office.add_argument(
        "--update-baseline", action="store_true", help="rewrite the --baseline files"
    )
    office.add_argument("--output", metavar="FILE", help="write the JSON here, not on stdout")


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

    if args.compat == "the-office":
        return _run_office(args)
    given = [f for f in OFFICE_FLAGS if getattr(args, f, None) not in (None, False)]
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise InputError(
            None, "only with --compat the-office", field=flag, value=getattr(args, given[0])
        )
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
    """``--agents a,b`` as a list (``None`` without the flag or with ``all``)."""
    if value is None or value.strip() == "all":
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


#: Where the-office keeps its golden baselines (read when --baseline is not given).
OFFICE_BASELINES = Path("src/features/evaluation/baselines")


def _run_office(args: argparse.Namespace) -> int:
    """``--compat the-office``: the harness's JSON (stdout or ``--output``), its PR comment
    with ``--format markdown``, its summary on stderr; exit 1 when an agent fails."""
    # the loaders, the rubric and the views (polars): as in run
    from toolkit.load.persona import (
        PropositionSet,
        load_baselines,
        load_chat,
        load_propositions,
        write_baselines,
    )
    from toolkit.rubrics.persona import DEFAULT_PERSONA_RUBRIC, load_persona_rubric, score_persona
    from toolkit.rubrics.persona.office import (
        OFFICE_REGRESSION_DELTA,
        OFFICE_THRESHOLD,
        OFFICE_WINDOW,
        office_baselines,
        office_dimensions,
        office_harness_report,
        parse_office_window,
        within_window,
    )  # fmt: skip
    from toolkit.views.office import office_json, office_pr_comment, office_summary

    _refuse_under_compat(args)
    dims = office_dimensions(args.dimensions) if args.dimensions else None
    window = parse_office_window(args.window or OFFICE_WINDOW)
    base_dir = args.baseline
    if base_dir is None and OFFICE_BASELINES.is_dir():
        base_dir = OFFICE_BASELINES
        print(f"baselines: {OFFICE_BASELINES} (the harness's folder)", file=sys.stderr)
    update_folder = _update_folder(args.update_baseline, base_dir)
    rubric = load_persona_rubric(args.rubric) if args.rubric else DEFAULT_PERSONA_RUBRIC
    chat, note = within_window(load_chat(args.run, personas=args.personas), window)
    if note:
        print(f"window: {note}", file=sys.stderr)
    propositions = load_propositions(args.propositions)
    if dims is not None:
        propositions = PropositionSet(
            tuple(f for f in propositions.files if f.spec.dimension in dims), propositions.warnings
        )
    baselines = None
    if base_dir is not None and not args.update_baseline:
        baselines = load_baselines(base_dir)
    result = score_persona(
        chat, propositions, judge_of(args), rubric=rubric, double_check=args.double_check,
        concurrency=args.judge_concurrency, max_cost=args.max_cost, prices=args.prices,
        progress=False if args.no_progress else None, agents=_agent_list(args.agents),
    )  # fmt: skip
    report = office_harness_report(
        result, baselines, dimensions=dims, update_baseline=args.update_baseline,
        threshold=OFFICE_THRESHOLD if args.threshold is None else args.threshold,
        regression_delta=(
            OFFICE_REGRESSION_DELTA if args.regression_delta is None else args.regression_delta
        ),
    )  # fmt: skip
    text = office_json(report.document)
    if args.output:
        write_output(args.output, text, "the harness report")
        print(f"Report written to {args.output}", file=sys.stderr)
    if args.format == "markdown":
        print(office_pr_comment(report.document), end="")
    elif not args.output:
        print(text)
    print(office_summary(report.document, report.absent + result.warnings), file=sys.stderr)
    if update_folder is not None:
        written = write_baselines(office_baselines(report), update_folder)
        print(f"wrote {len(written)} baseline(s) to {update_folder}", file=sys.stderr)
    return EXIT_REGRESSION if report.failed else EXIT_OK


def _update_folder(update: bool, base_dir: str | Path | None) -> Path | None:
    """The folder ``--update-baseline`` rewrites (None without the flag), checked before
    any judge call.

    Raises:
        InputError: no ``--baseline`` folder, a URL, or no such folder.
    """
    if not update:
        return None
    if base_dir is None:
        raise InputError(None, "names no folder to write: give --baseline DIR",
                         field="--update-baseline", value=True)  # fmt: skip
    folder = local_target(str(base_dir), "--baseline", "baseline files")
    if not folder.is_dir():
        raise InputError(folder, "no such folder to write the baselines in", field="--baseline")
    return folder


def _refuse_under_compat(args: argparse.Namespace) -> None:
    """Refuse the options the harness's own rules stand in for.

    Raises:
        InputError: ``--junit``, ``--write-baseline`` or a ``--gate`` mode given.
    """
    for flag, value in (
        ("--junit", args.junit),
        ("--write-baseline", args.write_baseline),
        ("--gate", None if args.gate == DEFAULT_GATE else args.gate),
    ):
        if value:  # the harness's exit rule and baseline folder stand in for these
            raise InputError(
                None,
                "not with --compat the-office (exit 1 when an agent fails; "
                "--update-baseline rewrites --baseline)",
                field=flag,
                value=value,
            )
