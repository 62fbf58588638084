"""``toolkit persona postgresql://…/DB --channel NAME``: the-office's database as a persona
run, its stored judge scores as ``--judge stored``, and its correction and intervention
logs summarised beside the scores.

``--judge stored`` takes, for each agent and dimension, the latest evaluation run whose window
overlaps ``--window`` (any, without one); ``--judge stored:ID[,ID…]`` names the evaluation
runs.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolkit.judge import Judge
    from toolkit.load.persona import ChatRun, PropositionSet
    from toolkit.rubrics.persona.office_logs import OfficeLogs

STORED = "stored"


def add_office_arguments(parser: argparse.ArgumentParser) -> None:
    """``--channel`` and ``--window`` (a postgresql:// run of the-office only)."""
    group = parser.add_argument_group("the-office's PostgreSQL database (a postgresql:// run)")
    group.add_argument(
        "--channel",
        metavar="NAME|ID",
        help="the channel whose conversation is judged (several: a,b)",
    )
    group.add_argument(
        "--window",
        metavar="7d|START..END",
        help="messages of the last 7d/12h/2w, or between two ISO dates (END's day included); "
        "with --compat the-office, 7d unless given",
    )


def is_database(run: str) -> bool:
    """Whether the run argument is a postgresql:// (or postgres://) URL."""
    # the io package's URL test (44 ms of CPU on import): `toolkit --help` imports this
    from toolkit.io.source import is_postgres_url

    return is_postgres_url(run)


def is_stored(spec: str | None) -> bool:
    """Whether ``--judge`` asks for the database's stored scores."""
    return spec is not None and (spec == STORED or spec.startswith(STORED + ":"))


def log_lines(logs: OfficeLogs) -> list[str]:
    """The log reports as text lines (every stage/outcome and type present)."""
    out = [f"correction logs: {logs.attempts} attempt(s)"]
    stages = logs.correction.stage_outcomes
    for r in [] if stages is None else stages.iter_rows(named=True):
        out.append(f"  {r['stage'] or '(none)':<18} {r['outcome']:<26} {r['attempts']:>4}")
    out.append(f"interventions: {logs.interventions.height} logged")
    said: dict[str, list[str]] = {}
    for r in logs.intervention.preconditions.iter_rows(named=True):
        said.setdefault(r["intervention_type"], []).append(
            f"{r['precondition']} {r['passed']} held/{r['failed']} failed/"
            f"{r['not_checked']} not run"
        )
    for r in logs.intervention.by_type.iter_rows(named=True):
        pre = "; ".join(said.get(r["intervention_type"], []))
        out.append(
            f"  {r['intervention_type']:<17} fired {r['fired']}/{r['evaluated']} "
            f"({r['fired_rate']:.0%}); {pre}"
        )
    return out + [
        f"warning: line {line} of intervention_logs: fired={fired} contradicts its preconditions"
        for line, fired in logs.intervention.inconsistent.select("line", "fired").rows()
    ]


def office_inputs(
    args: argparse.Namespace, propositions: PropositionSet
) -> tuple[ChatRun, Judge, OfficeLogs]:
    """The chat run, the judge (stored or as ``--judge`` names it) and the logs of a
    postgresql:// run.

    Raises:
        InputError: no ``--channel``; a missing table or column, an unknown channel or
            evaluation run, a value of the wrong type (one line, URI redacted).
    """
    # The database driver, polars and the loaders: imported only for a postgresql://
    # run, so that --help and the file runs stay light (tests/test_startup_imports.py).
    from toolkit.cli._judge import judge_of
    from toolkit.errors import InputError
    from toolkit.io.source_postgres import redact_uri
    from toolkit.judge.stored import StoredJudge
    from toolkit.load.persona import load_chat
    from toolkit.load.persona.office_db import office_chat, office_tables, parse_window
    from toolkit.load.persona.office_tables import (
        correction_logs,
        intervention_logs,
        proposition_settings,
        stored_scores,
    )
    from toolkit.rubrics.persona.office_logs import office_logs

    if not args.channel:
        raise InputError(redact_uri(args.run), "name the channel to judge: --channel NAME or ID")
    agents = _agents(args)
    window = parse_window(args.window)
    with office_tables(args.run) as tables:
        chat = office_chat(tables, channel=args.channel, window=window, agents=agents)
        agents = _ids(chat, agents)  # names given to --agents, as the logs know them
        judge: Judge
        if is_stored(args.judge):
            _, _, ids = str(args.judge).partition(":")
            chosen = [i.strip() for i in ids.split(",") if i.strip()] or None
            scores = stored_scores(
                tables,
                agents=None if chosen else chat.agent_ids,
                window=window if chosen is None else parse_window(None),
                evaluation_runs=chosen,
            )
            if scores.height == 0:
                what = f"evaluation runs {', '.join(chosen)}" if chosen else "evaluation runs"
                span = f" overlapping {window.label()}" if window.label() else ""
                raise InputError(tables.url(), f"no stored scores: no {what}{span}",
                                 field="--judge", value=args.judge)  # fmt: skip
            settings = proposition_settings(propositions)
            judge = StoredJudge(scores, "the-office evaluation_scores", settings)
        else:
            judge = judge_of(args)
        corrections = correction_logs(tables, channel=args.channel, window=window, agents=agents)
        interventions = intervention_logs(tables, channel=args.channel, window=window,
                                          agents=agents)  # fmt: skip
        source = tables.url()
    if args.personas:  # laid over the database's names and persona specs
        chat = load_chat(args.run, personas=args.personas, channel=args.channel,
                         window=args.window, agents=agents)  # fmt: skip
    return chat, judge, office_logs(corrections, interventions, source)


def stored_warning(judge: object) -> str | None:
    """A warning when a stored judge rounded scores that were not whole numbers."""
    rounded = getattr(judge, "rounded", 0)
    if not rounded:
        return None
    return (
        f"{rounded} stored score(s) were not whole numbers once inversion and hard mode "
        "were undone (the-office stores the mean over sampled messages) and were rounded "
        "to the nearest; each one's reasoning gives the stored value"
    )


def _ids(chat: ChatRun, agents: list[str] | None) -> list[str] | None:
    """``--agents`` as agent ids: a display name of the conversation is its agent's id."""
    if agents is None:
        return None
    by_name = {str(n): str(a) for a, n in chat.personas.select("agent_id", "name").rows()}
    return [by_name.get(a, a) for a in agents]


def _agents(args: argparse.Namespace) -> list[str] | None:
    value = getattr(args, "agents", None)
    if value is None:
        return None
    return [part.strip() for part in str(value).split(",") if part.strip()]
