"""The judge requests of a chat: one proposition row per (window, subject, proposition),
and the request each judged row needs (with the anchor of its window).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import CHAT_MESSAGES_SCHEMA
from toolkit.judge import JudgeRequest
from toolkit.load.persona import (
    ChatRun,
    PropositionFile,
    PropositionModel,
    PropositionSet,
    render_claim,
)
from toolkit.rubrics.persona.preconditions import (
    PRECONDITIONS,
    PreconditionContext,
    check_preconditions,
)
from toolkit.rubrics.persona.spec import ENVIRONMENT, PersonaRubric, file_window
from toolkit.rubrics.persona.trajectory import (
    format_trajectory,
    trajectory_rows,
    window_rows,
    window_variables,
)
from toolkit.rubrics.persona_evidence import message_pairs, ngram_evidence, vocabulary_evidence


def chosen_agents(run: ChatRun, agents: Sequence[str]) -> list[str]:
    """``agents`` checked against the run (ids, or names in any case), without repeats."""
    by_key: dict[str, str] = {}
    for agent_id in run.agent_ids:
        by_key.setdefault(agent_id.casefold(), agent_id)
        by_key.setdefault(run.name_of(agent_id).casefold(), agent_id)
    chosen: list[str] = []
    for given in agents:
        found = by_key.get(given.strip().casefold())
        if found is None:
            raise InputError(
                run.run,
                f"no such agent in the run (agents: {', '.join(run.agent_ids)})",
                field="agents",
                value=given,
            )
        if found not in chosen:
            chosen.append(found)
    if not chosen:
        raise InputError(run.run, "name at least one agent", field="agents", value="")
    return chosen


@dataclass
class PendingRequest:
    row: dict[str, Any]
    request: JudgeRequest
    #: where in the conversation the judged window lies (trajectory steps, ``s3-s9``).
    anchor: str = ""


def steps_anchor(steps: Sequence[Any], kept: set[Any]) -> str:
    """The ``kept`` steps of a trajectory (``steps``, in order) as runs of consecutive
    rows: ``s1-s5,s30-s52`` (``s4`` for a run of one): the anchor of a persona item, read
    by the rater's page, calibrate and the site."""
    runs: list[list[Any]] = []
    previous = False
    for step in steps:
        if step in kept:
            if previous:
                runs[-1][1] = step
            else:
                runs.append([step, step])
        previous = step in kept
    return ",".join(f"s{a}" if a == b else f"s{a}-s{b}" for a, b in runs)


def score_window(
    run: ChatRun,
    messages: pl.DataFrame,
    window: int,
    propositions: PropositionSet,
    rubric: PersonaRubric,
    pending: list[PendingRequest],
    warnings: list[str],
    agents: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """The window's proposition rows; the judge requests they need go to ``pending``."""
    rows: list[dict[str, Any]] = []
    chosen = list(run.agent_ids) if agents is None else list(agents)
    speakers = set(messages.filter(pl.col("kind") == "action")["agent_id"].to_list())
    for dimension in propositions.dimensions:
        target = propositions.target_of(dimension)
        kind: Literal["score", "count"] = (
            "count" if dimension in rubric.count_dimensions else "score"
        )
        subjects: list[str | None] = [None] if target == ENVIRONMENT else list(chosen)
        for agent_id in subjects:
            name = run.name_of(agent_id) if agent_id is not None else ENVIRONMENT
            all_rows = trajectory_rows(messages, agent_id, name)
            for pfile in propositions.files_for(dimension, agent_id):
                rows += _file_rows(
                    run,
                    rubric,
                    window,
                    dimension,
                    target,
                    kind,
                    agent_id,
                    name,
                    all_rows,
                    pfile,
                    speakers,
                    pending,
                    warnings,
                )
    return rows


def _file_rows(
    run: ChatRun,
    rubric: PersonaRubric,
    window: int,
    dimension: str,
    target: str,
    kind: Literal["score", "count"],
    agent_id: str | None,
    name: str,
    all_rows: pl.DataFrame,
    pfile: PropositionFile,
    speakers: set[str],
    pending: list[PendingRequest],
    warnings: list[str],
) -> list[dict[str, Any]]:
    spec = pfile.spec
    first_n, last_n = file_window(pfile, rubric)
    shown = window_rows(all_rows, first_n, last_n)
    acts = shown.filter(pl.col("kind") == "action")
    if agent_id is not None:
        acts = acts.filter(pl.col("agent_id") == agent_id)
    persona = run.persona_of(agent_id) if (agent_id is not None and spec.include_personas) else None
    values, reasons = window_variables(
        run, shown, agent_id, action_list=spec.profile == "tinytroupe"
    )
    trajectory, evidence, no_pairs = _judged_material(
        rubric, dimension, agent_id, name, acts, shown, format_trajectory(all_rows, first_n, last_n)
    )
    out: list[dict[str, Any]] = []
    for i, prop in enumerate(spec.propositions):
        row = _proposition_row(run, window, target, agent_id, name, dimension, prop, spec.hard)
        out.append(row)
        if acts.height == 0:
            who = f"by {name}" if agent_id is not None else ""
            row["absent_reason"] = " ".join(f"no messages {who} in this window".split())
            continue
        claim = render_claim(
            prop.claim, values, path=pfile.path, field=f"propositions.{i}.claim", reasons=reasons
        )
        row["claim"] = claim
        if prop.precondition is not None:
            ctx = PreconditionContext(run, agent_id, shown, prop.id)
            if not PRECONDITIONS[prop.precondition](ctx):
                row.update(
                    raw=9,
                    source="precondition",
                    reasoning=f"precondition {prop.precondition!r} not met: trivially true (9)",
                )
                continue
        if no_pairs:
            row["absent_reason"] = (
                f"1 message by {name} in this window: no earlier message to compare with"
            )
            continue
        request = JudgeRequest(
            proposition_id=prop.id,
            dimension=dimension,
            subject=agent_id if agent_id is not None else ENVIRONMENT,
            claim=claim,
            trajectory=trajectory,
            persona=persona,
            kind=kind,
            evidence=evidence,
        )
        pending.append(
            PendingRequest(
                row, request, steps_anchor(all_rows["step"].to_list(), set(shown["step"].to_list()))
            )
        )
    if agent_id is not None and agent_id not in speakers and window == 0:
        warnings.append(f"{name} sent no message in the run; their dimensions are absent")
    return out


def _judged_material(
    rubric: PersonaRubric,
    dimension: str,
    agent_id: str | None,
    name: str,
    acts: pl.DataFrame,
    shown: pl.DataFrame,
    trajectory: str,
) -> tuple[str, str | None, bool]:
    """What the judge reads for ``dimension`` (:attr:`PersonaRubric.judge_evidence`): the
    trajectory, or the message pairs instead of it; the supplementary evidence; and
    whether pairs were wanted but the agent wrote too few messages for one."""
    evidence: str | None = None
    no_pairs = False
    how = rubric.judge_evidence.get(dimension)
    if how == "pairs" and agent_id is not None:
        pairs = message_pairs(acts, name, rubric.consistency_pairs)
        no_pairs = pairs is None
        trajectory = pairs or trajectory
    elif how == "ngrams" and agent_id is not None:
        evidence = ngram_evidence(acts, name)
    elif how == "vocabulary":
        evidence = vocabulary_evidence(shown.filter(pl.col("kind") == "action"))
    return trajectory, evidence, no_pairs


def _proposition_row(
    run: ChatRun,
    window: int,
    target: str,
    agent_id: str | None,
    name: str,
    dimension: str,
    prop: PropositionModel,
    hard: bool,
) -> dict[str, Any]:
    """A proposition's row before it is judged: absent until a source fills it."""
    return {
        "run": run.run,
        "window": window,
        "target_type": target,
        "agent_id": agent_id,
        "agent_name": None if agent_id is None else name,
        "dimension": dimension,
        "proposition": prop.id,
        "claim": prop.claim,
        "weight": prop.weight,
        "inverted": prop.inverted,
        "hard": hard,
        "raw": None,
        "source": "absent",
        "absent_reason": None,
        "reasoning": "",
        "recommendation": prop.recommendations_for_improvement,
    }


def whole_run_requests(
    run: ChatRun,
    propositions: PropositionSet,
    rubric: PersonaRubric,
    warnings: list[str],
    agents: Sequence[str] | None,
) -> tuple[pl.DataFrame, list[dict[str, Any]], list[PendingRequest]]:
    """The run's messages, its window-0 proposition rows and the judge requests they
    need: what :func:`score_persona` sends to the judge, and what
    :func:`toolkit.rubrics.persona_items.persona_items` lists for human raters."""
    check_preconditions(propositions)
    messages = run.messages.select(list(CHAT_MESSAGES_SCHEMA))
    pending: list[PendingRequest] = []
    rows = score_window(run, messages, 0, propositions, rubric, pending, warnings, agents)
    return messages, rows, pending
