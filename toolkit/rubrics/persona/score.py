"""Scoring a chat run on every dimension of its propositions with a judge."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import polars as pl

from toolkit.epoch import Epoch, input_digest, rows_bytes, stamp
from toolkit.errors import InputError
from toolkit.frames import PERSONA_SCORES_SCHEMA
from toolkit.judge import DEFAULT_CONCURRENCY, Judge, JudgeUsage, PriceTable
from toolkit.judge.epoch import judge_basis
from toolkit.load.persona import Baseline, ChatRun, PropositionSet
from toolkit.rubrics.persona.baselines import compare_baselines
from toolkit.rubrics.persona.judging import ask_pending
from toolkit.rubrics.persona.requests import chosen_agents, score_window, whole_run_requests
from toolkit.rubrics.persona.result import PersonaResult
from toolkit.rubrics.persona.scorecards import persona_scorecards
from toolkit.rubrics.persona.scores import dimension_scores, score_rows
from toolkit.rubrics.persona.spec import DEFAULT_PERSONA_RUBRIC, PersonaRubric
from toolkit.rubrics.persona_evidence import PersonaEvidence, persona_evidence


def score_persona(
    run: ChatRun,
    propositions: PropositionSet,
    judge: Judge,
    *,
    rubric: PersonaRubric = DEFAULT_PERSONA_RUBRIC,
    baselines: Mapping[str, Baseline] | None = None,
    windows: int | None = None,
    double_check: bool = False,
    concurrency: int = DEFAULT_CONCURRENCY,
    max_cost: float | None = None,
    prices: PriceTable | str | Path | None = None,
    progress: bool | None = None,
    agents: Sequence[str] | None = None,
) -> PersonaResult:
    """Score a chat run on every dimension of ``propositions`` with ``judge``.

    Args:
        run: the chat run (:func:`toolkit.load_chat`).
        propositions: the proposition files (:func:`toolkit.load_propositions`).
        judge: any :class:`toolkit.judge.Judge` (CI: a :class:`RecordedJudge`).
        rubric: the rubric's numbers.
        baselines: golden baselines by agent id; adds the comparison and regressions.
        windows: when given, also score each successive window of this many messages
            (drift over the run); those rows have ``window`` 1, 2, ...
        double_check: ask the judge to revise each answer once.
        concurrency: judge calls in flight at once (results do not depend on it).
        max_cost: a cap in US dollars: no call is sent whose conservative estimate
            would pass it; the propositions left are absent, naming the cap.
        prices: a price table, or a YAML file laid over the built-in one
            (:func:`toolkit.judge.load_prices`), for the cost estimate.
        progress: a progress bar over judge calls; ``None``: in notebooks and on a
            terminal only.
        agents: score only these agents (ids of the run, in the given order); the
            environment dimensions still read the whole conversation. ``None``: all.

    Raises:
        InputError: an unknown precondition, a claim variable with no value, a judge
            miss (a cassette without that request), a cost cap for a model without a
            price.
    """
    if agents is not None:
        agents = chosen_agents(run, agents)
        if baselines is not None:
            baselines = {k: v for k, v in baselines.items() if k in agents}
    warnings: list[str] = [*run.warnings, *propositions.warnings]
    messages, scores, usage = _judged_scores(
        run, propositions, judge, rubric, warnings, agents, windows,
        double_check, concurrency, max_cost, prices, progress,
    )  # fmt: skip
    partial = PersonaResult(
        run=run.run,
        rubric=rubric,
        judge=judge.name,
        scores=scores,
        dimensions=dimension_scores(scores),
        scorecards={},
        comparison=None,
        evidence=_evidence(messages, rubric, agents),
        warnings=tuple(dict.fromkeys(warnings)),
    )
    comparison = compare_baselines(partial, baselines, rubric) if baselines is not None else None
    if comparison is not None:
        warnings.extend(_unscored_baselines(comparison))
    cards = persona_scorecards(partial, comparison, rubric)
    epoch = persona_epoch(rubric, judge, windows=windows, double_check=double_check)
    inputs = _messages_digest(run)
    cards = {key: stamp(card, epoch, inputs) for key, card in cards.items()}
    return replace(
        partial,
        scorecards=cards,
        comparison=comparison,
        warnings=tuple(dict.fromkeys(warnings)),
        usage=usage,
    )


def _judged_scores(
    run: ChatRun,
    propositions: PropositionSet,
    judge: Judge,
    rubric: PersonaRubric,
    warnings: list[str],
    agents: Sequence[str] | None,
    windows: int | None,
    double_check: bool,
    concurrency: int,
    max_cost: float | None,
    prices: PriceTable | str | Path | None,
    progress: bool | None,
) -> tuple[pl.DataFrame, pl.DataFrame, JudgeUsage]:
    """The run's messages, its proposition scores (window 0, then each window of
    ``windows`` messages) as the judge answered them, and the judge calls' account."""
    messages, rows, pending = whole_run_requests(run, propositions, rubric, warnings, agents)
    if windows is not None:
        if windows < 1:
            raise InputError(
                None, "a window holds at least one message", field="windows", value=windows
            )
        for k, start in enumerate(range(0, messages.height, windows), start=1):
            part = messages.slice(start, windows)
            rows += score_window(run, part, k, propositions, rubric, pending, [], agents)
    usage = ask_pending(
        judge,
        pending,
        rubric,
        double_check=double_check,
        concurrency=concurrency,
        max_cost=max_cost,
        prices=prices,
        progress=progress,
    )
    if usage.not_judged:
        warnings.append(f"{usage.not_judged} proposition(s) {usage.cap_reason}")
    scores = score_rows(pl.DataFrame(rows, schema=PERSONA_SCORES_SCHEMA), rubric)
    return messages, scores, usage


def _evidence(
    messages: pl.DataFrame, rubric: PersonaRubric, agents: Sequence[str] | None
) -> PersonaEvidence:
    """The algorithmic evidence of the run's messages (of ``agents`` only, when given)."""
    evidence = persona_evidence(
        messages,
        last_messages=rubric.evidence_last_messages,
        ngram=rubric.evidence_ngram,
        similarity_window=rubric.similarity_window,
        flag_above=rubric.similarity_flag_above,
    )
    if agents is not None:
        evidence = evidence.only(agents)
    return evidence


def _unscored_baselines(comparison: pl.DataFrame) -> list[str]:
    """A warning per dimension with a baseline but no score in this run."""
    return [
        f"{row['agent_id']}: {row['dimension']} has a baseline but no score "
        "(cannot tell whether it regressed)"
        for row in comparison.filter(pl.col("note").str.starts_with("absent")).iter_rows(named=True)
    ]


def persona_epoch(
    rubric: PersonaRubric, judge: Judge, *, windows: int | None = None, double_check: bool = False
) -> Epoch:
    """The epoch :func:`score_persona` stamps on its scorecards: the rubric's data, the
    options that change a score (``windows``, ``double_check``) and the judge's basis
    (:func:`toolkit.judge.epoch.judge_basis`)."""
    data = rubric.model_dump(mode="json", exclude={"rubric", "version"})
    params = {**data, "windows": windows, "double_check": double_check}
    return Epoch(rubric.rubric, rubric.version, params, judge_basis(judge))


def _messages_digest(run: ChatRun) -> str:
    """The run's input digest: its messages and personas as loaded, as JSON lines
    (:func:`toolkit.epoch.rows_bytes`)."""
    parts = []
    for name, frame in (("messages", run.messages), ("personas", run.personas)):
        parts.append((name, rows_bytes(frame)))
    return input_digest(parts)
