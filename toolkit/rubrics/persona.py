"""Persona-drift rubric: five proposition scorers, baselines and regressions.

Each proposition is judged (0-9) about a windowed trajectory; its score is the raw
value, ``9 - raw`` when inverted, times :attr:`PersonaRubric.hard_multiplier` in hard
mode when below 9. A dimension's score is the weighted mean of its judged propositions;
absent propositions (no messages, judge errors) are left out of both sums and counted.
Agent dimensions (adherence, consistency, fluency) are scored per agent; environment
dimensions (convergence, ideas_quantity) once per run. ``ideas_quantity`` is a count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import polars as pl
from pydantic import Field, model_validator

from toolkit._show import Shows, Summary, plural
from toolkit.errors import InputError
from toolkit.frames import (
    CHAT_MESSAGES_SCHEMA,
    PERSONA_BASELINE_SCHEMA,
    PERSONA_DIMENSIONS_SCHEMA,
    PERSONA_SCORES_SCHEMA,
)
from toolkit.judge import (
    DEFAULT_CONCURRENCY,
    MAX_BATCH,
    Judge,
    JudgeRequest,
    JudgeResult,
    JudgeUsage,
    PriceTable,
    budget_for,
    judge_usage,
    load_prices,
    run_batches,
)
from toolkit.load.persona import (
    Baseline,
    ChatRun,
    PropositionFile,
    PropositionSet,
    render_claim,
)
from toolkit.rubrics._spec import RubricSpec, load_spec
from toolkit.rubrics.persona_evidence import (
    PersonaEvidence,
    message_pairs,
    ngram_evidence,
    persona_evidence,
    vocabulary_evidence,
)
from toolkit.scorecard import FAIL, NA, OK, WARN, Dimension, Scorecard

ENVIRONMENT = "environment"


JudgeEvidence = Literal["pairs", "ngrams", "vocabulary"]
#: the-office's scorers: consistency on message pairs, fluency with n-gram statistics,
#: convergence with vocabulary statistics.
_JUDGE_EVIDENCE: dict[str, JudgeEvidence] = {
    "consistency": "pairs",
    "fluency": "ngrams",
    "convergence": "vocabulary",
}


class PersonaRubric(RubricSpec):
    """The persona rubric's numbers (override from YAML; bump the version on change)."""

    rubric: str = "persona"
    version: str = "1.1"
    #: the window of a proposition file that sets no ``first_n`` / ``last_n`` (the-office's
    #: defaults: the first 10 and the last 100 entries); ``None``: no limit.
    default_first_n: int | None = Field(default=10, ge=0)
    default_last_n: int | None = Field(default=100, ge=0)
    #: what a dimension's judge sees besides (or instead of) the trajectory: ``pairs``
    #: (pairs of an earlier and a recent message of the agent, instead of the
    #: trajectory), ``ngrams`` (n-gram repetition of the agent's messages) or
    #: ``vocabulary`` (each agent's vocabulary and the vocabulary shared between them).
    judge_evidence: dict[str, JudgeEvidence] = Field(default_factory=lambda: dict(_JUDGE_EVIDENCE))
    #: consistency: at most this many pairs of earlier and recent messages.
    consistency_pairs: int = Field(default=10, ge=1)
    #: a hard-mode proposition scoring below 9 is multiplied by this.
    hard_multiplier: float = Field(default=0.8, gt=0.0, le=1.0)
    #: a dimension more than this below its baseline is a regression.
    regression_tolerance: float = Field(default=1.0, ge=0.0)
    #: propositions sent to the judge per call (at most 10).
    batch_size: int = Field(default=MAX_BATCH, ge=1, le=MAX_BATCH)
    #: 0-9 dimensions: OK at or above ``green_at``, FAIL below ``red_below``, else WARN.
    green_at: float = Field(default=7.0, ge=0.0, le=9.0)
    red_below: float = Field(default=5.0, ge=0.0, le=9.0)
    #: count dimensions and their own green/red thresholds.
    count_dimensions: tuple[str, ...] = ("ideas_quantity",)
    count_green_at: float = Field(default=3.0, ge=0.0)
    count_red_below: float = Field(default=1.0, ge=0.0)
    #: correction logs: a gate dimension score below this is a failure.
    gate_threshold: float = Field(default=7.0, ge=0.0, le=9.0)
    #: algorithmic evidence.
    evidence_last_messages: int = Field(default=5, ge=1)
    evidence_ngram: int = Field(default=3, ge=1)
    similarity_window: int = Field(default=5, ge=1)
    similarity_flag_above: float = Field(default=0.6, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _ordered(self) -> PersonaRubric:
        if self.red_below > self.green_at:
            raise ValueError("red_below must not exceed green_at")
        if self.count_red_below > self.count_green_at:
            raise ValueError("count_red_below must not exceed count_green_at")
        return self


DEFAULT_PERSONA_RUBRIC = PersonaRubric()
#: Rubric 1.0: a file without a window judged the whole trajectory; every dimension's
#: judge saw the trajectory alone.
PERSONA_RUBRIC_1_0 = PersonaRubric(
    version="1.0", default_first_n=None, default_last_n=None, judge_evidence={}
)
PUBLISHED_PERSONA_RUBRICS: dict[str, PersonaRubric] = {
    "1.0": PERSONA_RUBRIC_1_0,
    "1.1": DEFAULT_PERSONA_RUBRIC,
}


def file_window(pfile: PropositionFile, rubric: PersonaRubric) -> tuple[int | None, int | None]:
    """``(first_n, last_n)`` of a proposition file: its own values, and the rubric's
    defaults (first 10, last 100) for a field the file does not set (an explicit
    ``null`` in the file means no limit)."""
    spec = pfile.spec
    given = spec.model_fields_set
    first = spec.first_n if "first_n" in given else rubric.default_first_n
    last = spec.last_n if "last_n" in given else rubric.default_last_n
    return first, last


def load_persona_rubric(source: str | Path | Mapping[str, Any]) -> PersonaRubric:
    """The persona rubric with overrides from a YAML file or mapping."""
    return load_spec(PersonaRubric, source, DEFAULT_PERSONA_RUBRIC, PUBLISHED_PERSONA_RUBRICS)


# ---------------------------------------------------------------------------
# Preconditions
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PreconditionContext:
    """What a precondition sees.

    Attributes:
        run: the chat run.
        agent_id: the agent judged (``None`` for an environment dimension).
        window: the trajectory rows shown to the judge (messages schema, windowed).
        proposition_id: the proposition asking.
    """

    run: ChatRun
    agent_id: str | None
    window: pl.DataFrame
    proposition_id: str

    def actions(self) -> pl.DataFrame:
        """The windowed actions of the agent (of everyone for the environment)."""
        acts = self.window.filter(pl.col("kind") == "action")
        if self.agent_id is None:
            return acts
        return acts.filter(pl.col("agent_id") == self.agent_id)


Precondition = Callable[[PreconditionContext], bool]

#: Named preconditions a proposition file may refer to (``precondition: <name>``).
PRECONDITIONS: dict[str, Precondition] = {}


def register_precondition(name: str) -> Callable[[Precondition], Precondition]:
    """Register a predicate under ``name`` so proposition files can use it."""

    def decorator(func: Precondition) -> Precondition:
        PRECONDITIONS[name] = func
        return func

    return decorator


@register_precondition("agent_has_messages")
def _agent_has_messages(ctx: PreconditionContext) -> bool:
    return ctx.actions().height >= 1


@register_precondition("agent_spoke_twice")
def _agent_spoke_twice(ctx: PreconditionContext) -> bool:
    return ctx.actions().height >= 2


@register_precondition("several_agents_spoke")
def _several_agents_spoke(ctx: PreconditionContext) -> bool:
    acts = ctx.window.filter(pl.col("kind") == "action")
    return acts["agent_id"].n_unique() >= 2


@register_precondition("agent_addressed_someone")
def _agent_addressed_someone(ctx: PreconditionContext) -> bool:
    return ctx.actions()["recipient_id"].drop_nulls().len() >= 1


def _check_preconditions(propositions: PropositionSet) -> None:
    for f in propositions.files:
        for i, p in enumerate(f.spec.propositions):
            if p.precondition is not None and p.precondition not in PRECONDITIONS:
                raise InputError(
                    f.path,
                    "unknown precondition; registered: " + ", ".join(sorted(PRECONDITIONS)),
                    field=f"propositions.{i}.precondition",
                    value=p.precondition,
                )


# ---------------------------------------------------------------------------
# Trajectories
# ---------------------------------------------------------------------------


def trajectory_rows(messages: pl.DataFrame, agent_id: str | None, agent_name: str) -> pl.DataFrame:
    """The messages an agent saw or wrote, each with its trajectory ``line``.

    For an agent: its own actions (``Name acts: text``), other agents' actions in the
    channels it speaks in and stimuli addressed to it or to those channels
    (``--> Name: Other: text`` / ``--> Name: text``). For the environment
    (``agent_id=None``): every message, actions as ``Name acts: text`` and stimuli as
    ``--> Name: text`` or ``--> #channel: text``.
    """
    is_action = pl.col("kind") == "action"
    if agent_id is None:
        line = (
            pl.when(is_action)
            .then(pl.format("{} acts: {}", "agent_name", "text"))
            .when(pl.col("agent_id").is_not_null())
            .then(pl.format("--> {}: {}", "agent_name", "text"))
            .otherwise(pl.format("--> #{}: {}", "channel", "text"))
        )
        return messages.sort("step").with_columns(line.alias("line"))
    own = is_action & (pl.col("agent_id") == agent_id)
    channels = messages.filter(own)["channel"].unique()
    in_channels = pl.col("channel").is_in(channels.implode())
    keep = (
        own
        | (is_action & (pl.col("agent_id") != agent_id) & in_channels)
        | (~is_action & (pl.col("agent_id") == agent_id))
        | (~is_action & pl.col("agent_id").is_null() & in_channels)
    )
    line = (
        pl.when(own)
        .then(pl.format("{} acts: {}", pl.lit(agent_name), "text"))
        .when(is_action)
        .then(pl.format("--> {}: {}: {}", pl.lit(agent_name), "agent_name", "text"))
        .otherwise(pl.format("--> {}: {}", pl.lit(agent_name), "text"))
    )
    return messages.sort("step").filter(keep).with_columns(line.alias("line"))


def window_rows(rows: pl.DataFrame, first_n: int | None, last_n: int | None) -> pl.DataFrame:
    """Keep the first ``first_n`` and the last ``last_n`` rows (all when both are None).

    With only one of them given, only that end is kept.
    """
    if first_n is None and last_n is None:
        return rows
    n = rows.height
    idx = pl.int_range(pl.len())
    head = idx < (first_n or 0)
    tail = idx >= n - (last_n or 0)
    return rows.filter(head | tail)


def format_trajectory(rows: pl.DataFrame, first_n: int | None, last_n: int | None) -> str:
    """The windowed trajectory text, with a marker where entries were left out."""
    kept = window_rows(rows, first_n, last_n)
    lines = [str(x) for x in kept["line"].to_list()]
    omitted = rows.height - kept.height
    if omitted and first_n:
        cut = min(first_n, len(lines))
        lines = [*lines[:cut], f"(... {omitted} entries omitted ...)", *lines[cut:]]
    elif omitted:
        lines = [f"(... {omitted} earlier entries omitted ...)", *lines]
    return "\n".join(lines)


def _variables(
    run: ChatRun, window: pl.DataFrame, agent_id: str | None
) -> tuple[dict[str, str | None], dict[str, str]]:
    values: dict[str, str | None] = {}
    reasons: dict[str, str] = {}
    acts = window.filter(pl.col("kind") == "action")
    if agent_id is not None:
        acts = acts.filter(pl.col("agent_id") == agent_id)
        values["agent_name"] = run.name_of(agent_id)
    else:
        values["agent_name"] = None
        reasons["agent_name"] = "an environment dimension judges no single agent"
    channels = [str(c) for c in acts["channel"].unique(maintain_order=True).to_list()]
    values["channel_name"] = ", ".join(channels) if channels else None
    if not channels:
        reasons["channel_name"] = "no message in this window"
    values["action"] = str(acts["text"][-1]) if acts.height else None
    if not acts.height:
        reasons["action"] = "no message in this window"
    recipients = acts["recipient_id"].drop_nulls()
    values["recipient_name"] = run.name_of(str(recipients[-1])) if recipients.len() else None
    if not recipients.len():
        reasons["recipient_name"] = "no message in this window names a recipient"
    return values, reasons


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------


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


def _score_window(
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
    trajectory = format_trajectory(all_rows, first_n, last_n)
    acts = shown.filter(pl.col("kind") == "action")
    if agent_id is not None:
        acts = acts.filter(pl.col("agent_id") == agent_id)
    persona = run.persona_of(agent_id) if (agent_id is not None and spec.include_personas) else None
    values, reasons = _variables(run, shown, agent_id)
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
    out: list[dict[str, Any]] = []
    for i, prop in enumerate(spec.propositions):
        row: dict[str, Any] = {
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
            "hard": spec.hard,
            "raw": None,
            "source": "absent",
            "absent_reason": None,
            "reasoning": "",
            "recommendation": prop.recommendations_for_improvement,
        }
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


def ask_pending(
    judge: Judge,
    pending: list[PendingRequest],
    rubric: PersonaRubric,
    *,
    double_check: bool,
    concurrency: int,
    max_cost: float | None,
    prices: PriceTable | str | Path | None,
    progress: bool | None,
) -> JudgeUsage:
    """Batch the pending requests (same window, trajectory, persona, kind), run the
    batches (concurrently, under the cost cap), fill each row, and account for it."""
    groups: dict[tuple[int, str, str | None, str, str | None], list[PendingRequest]] = {}
    for item in pending:
        request = item.request
        key = (
            item.row["window"],
            request.trajectory,
            request.persona,
            request.kind,
            request.evidence,
        )
        groups.setdefault(key, []).append(item)
    chunks = [
        items[start : start + rubric.batch_size]
        for items in groups.values()
        for start in range(0, len(items), rubric.batch_size)
    ]
    table: PriceTable | None = None
    if isinstance(prices, PriceTable):
        table = prices
    elif prices is not None or max_cost is not None or getattr(judge, "model", None):
        table = load_prices(*([] if prices is None else [prices]))
    budget = None
    if max_cost is not None and table is not None:
        budget = budget_for(judge, max_cost, table)
    outcome = run_batches(
        judge,
        [[c.request for c in chunk] for chunk in chunks],
        double_check=double_check,
        concurrency=concurrency,
        budget=budget,
        progress=progress,
    )
    entries: list[tuple[str, str, JudgeResult]] = []
    for chunk, results in zip(chunks, outcome.results, strict=True):
        for item, result in zip(chunk, results, strict=True):
            _apply(item.row, result, item.request.kind, outcome.cap_reason)
            entries.append((item.request.dimension, item.request.subject, result))
    return judge_usage(judge, entries, outcome, prices=table, max_cost=max_cost)


def _apply(
    row: dict[str, Any], result: JudgeResult, kind: str, cap_reason: str | None = None
) -> None:
    if result.transient and result.error is not None and result.error == cap_reason:
        row.update(source="absent", absent_reason=result.error, reasoning="")
    elif result.value is not None and (result.value < 0 or (kind == "score" and result.value > 9)):
        row.update(
            source="absent",
            absent_reason=f"judge value {result.value} is outside "
            + ("0-9" if kind == "score" else "0 and up"),
            reasoning=result.reasoning,
        )
    elif result.value is None:
        raw = f"; reply: {result.raw[:80]!r}" if result.raw else ""
        row.update(
            source="absent",
            absent_reason=f"judge error: {result.error or 'no value'}{raw}",
            reasoning=result.reasoning,
        )
    else:
        row.update(raw=result.value, source="judge", reasoning=result.reasoning)


def score_rows(rows: pl.DataFrame, rubric: PersonaRubric) -> pl.DataFrame:
    """Fill ``score`` and ``contribution`` of proposition rows, column-wise.

    ``rows`` has the columns of :data:`toolkit.frames.PERSONA_SCORES_SCHEMA` with
    ``raw`` and ``source`` set. A proposition whose precondition is not met scores 9
    (neither inverted nor penalised); counts are neither inverted nor penalised.
    """
    is_count = pl.col("dimension").is_in(list(rubric.count_dimensions))
    base = pl.when(pl.col("inverted") & ~is_count).then(9 - pl.col("raw")).otherwise(pl.col("raw"))
    penalised = (
        pl.when(pl.col("hard") & ~is_count & (base < 9))
        .then(base * rubric.hard_multiplier)
        .otherwise(base)
    )
    score = (
        pl.when(pl.col("source") == "absent")
        .then(None)
        .when(pl.col("source") == "precondition")
        .then(pl.lit(9.0))
        .otherwise(penalised.cast(pl.Float64))
    )
    group = ["run", "window", "target_type", "agent_id", "dimension"]
    judged_weight = pl.col("weight").filter(pl.col("score").is_not_null()).sum().over(group)
    return (
        rows.with_columns(score.alias("score"))
        .with_columns(
            pl.when(judged_weight > 0)
            .then(pl.col("score") * pl.col("weight") / judged_weight)
            .alias("contribution")
        )
        .select(list(PERSONA_SCORES_SCHEMA))
    )


def dimension_scores(scores: pl.DataFrame) -> pl.DataFrame:
    """Per (run, window, agent, dimension): the weighted mean of its propositions.

    Returns:
        Schema :data:`toolkit.frames.PERSONA_DIMENSIONS_SCHEMA`: run, window,
        target_type, agent_id, agent_name, dimension, score (null when nothing was
        judged or the judged weights sum to 0), judged, absent, lowest_proposition,
        lowest_score.
    """
    group = ["run", "window", "target_type", "agent_id", "agent_name", "dimension"]
    judged = pl.col("score").is_not_null()
    wsum = pl.col("weight").filter(judged).sum()
    return (
        scores.group_by(group, maintain_order=True)
        .agg(
            pl.when(wsum > 0)
            .then((pl.col("score") * pl.col("weight")).filter(judged).sum() / wsum)
            .alias("score"),
            judged.sum().cast(pl.Int64).alias("judged"),
            (~judged).sum().cast(pl.Int64).alias("absent"),
            pl.col("proposition")
            .filter(judged)
            .sort_by(pl.col("score").filter(judged))
            .first()
            .alias("lowest_proposition"),
            pl.col("score").min().alias("lowest_score"),
        )
        .select(list(PERSONA_DIMENSIONS_SCHEMA))
        .cast(PERSONA_DIMENSIONS_SCHEMA)  # type: ignore[arg-type]
    )


@dataclass(frozen=True, repr=False)
class PersonaResult(Shows):
    """Everything a persona evaluation produced.

    Attributes:
        run: the run id.
        rubric: the rubric used (its version is stamped in every scorecard).
        judge: the judge's name.
        scores: the tidy per-proposition frame, :data:`toolkit.frames.PERSONA_SCORES_SCHEMA`
            (run, window, target_type, agent_id, agent_name, dimension, proposition,
            claim, weight, inverted, hard, raw, score, contribution, source,
            absent_reason, reasoning, recommendation). Window 0 is the whole run; 1..k
            are the successive message windows when ``windows`` was given.
        dimensions: :data:`toolkit.frames.PERSONA_DIMENSIONS_SCHEMA`.
        scorecards: one :class:`Scorecard` per agent (key: agent id) and one for the
            environment dimensions (key ``"environment"``), window 0.
        comparison: the baseline comparison (:data:`toolkit.frames.PERSONA_BASELINE_SCHEMA`)
            or ``None`` without baselines.
        evidence: the algorithmic evidence.
        warnings: what the reader must know.
        usage: the judge calls' account (tokens, cost, per dimension and agent).
    """

    run: str
    rubric: PersonaRubric
    judge: str
    scores: pl.DataFrame
    dimensions: pl.DataFrame
    scorecards: dict[str, Scorecard]
    comparison: pl.DataFrame | None
    evidence: PersonaEvidence
    warnings: tuple[str, ...] = field(default=())
    usage: JudgeUsage | None = None

    def _summary(self) -> Summary:
        agents = [a for a in self.scorecards if a != ENVIRONMENT]
        regressions = self.regressions
        return Summary(
            "PersonaResult",
            f"run {self.run}, judge {self.judge}, rubric {self.rubric.rubric} "
            f"{self.rubric.version}",
            (
                ("agents", len(agents)),
                ("dimensions", self.dimensions["dimension"].n_unique()),
                ("scores", self.scores.height),
                ("regressions", regressions.height if self.comparison is not None else "-"),
            ),
            notes=tuple(
                f"regression: {a} {d} ({s:.2f} against baseline {b:.2f})"
                for a, d, s, b in regressions.select(
                    "agent_id", "dimension", "score", "baseline"
                ).rows()
            )
            + self.warnings,
            notes_title="regressions and warnings",
        )

    @property
    def regressions(self) -> pl.DataFrame:
        """The rows of the comparison that regressed (empty without baselines)."""
        if self.comparison is None:
            return pl.DataFrame(schema=PERSONA_BASELINE_SCHEMA)
        return self.comparison.filter(pl.col("regression"))

    def agent_view(self) -> pl.DataFrame:
        """Window-0 dimension scores per agent, environment dimensions repeated per agent.

        Columns: agent_id, agent_name, dimension, target_type, score.
        """
        whole = self.dimensions.filter(pl.col("window") == 0)
        agents = whole.filter(pl.col("target_type") == "agent")
        env = whole.filter(pl.col("target_type") == ENVIRONMENT).drop("agent_id", "agent_name")
        names = (
            self.scores.filter(pl.col("agent_id").is_not_null())
            .select("agent_id", "agent_name")
            .unique(maintain_order=True)
        )
        env_rows = names.join(env, how="cross")
        cols = ["agent_id", "agent_name", "dimension", "target_type", "score"]
        return pl.concat([agents.select(cols), env_rows.select(cols)])


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
    _check_preconditions(propositions)
    messages = run.messages.select(list(CHAT_MESSAGES_SCHEMA))
    pending: list[PendingRequest] = []
    rows = _score_window(run, messages, 0, propositions, rubric, pending, warnings, agents)
    return messages, rows, pending


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
    messages, rows, pending = whole_run_requests(run, propositions, rubric, warnings, agents)
    if windows is not None:
        if windows < 1:
            raise InputError(
                None, "a window holds at least one message", field="windows", value=windows
            )
        for k, start in enumerate(range(0, messages.height, windows), start=1):
            part = messages.slice(start, windows)
            rows += _score_window(run, part, k, propositions, rubric, pending, [], agents)
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
    dims = dimension_scores(scores)
    evidence = persona_evidence(
        messages,
        last_messages=rubric.evidence_last_messages,
        ngram=rubric.evidence_ngram,
        similarity_window=rubric.similarity_window,
        flag_above=rubric.similarity_flag_above,
    )
    if agents is not None:
        evidence = evidence.only(agents)
    partial = PersonaResult(
        run=run.run,
        rubric=rubric,
        judge=judge.name,
        scores=scores,
        dimensions=dims,
        scorecards={},
        comparison=None,
        evidence=evidence,
        warnings=tuple(dict.fromkeys(warnings)),
    )
    comparison = compare_baselines(partial, baselines, rubric) if baselines is not None else None
    if comparison is not None:
        for row in comparison.filter(pl.col("note").str.starts_with("absent")).iter_rows(
            named=True
        ):
            warnings.append(
                f"{row['agent_id']}: {row['dimension']} has a baseline but no score "
                "(cannot tell whether it regressed)"
            )
    cards = _scorecards(partial, comparison, rubric)
    return PersonaResult(
        run=run.run,
        rubric=rubric,
        judge=judge.name,
        scores=scores,
        dimensions=dims,
        scorecards=cards,
        comparison=comparison,
        evidence=evidence,
        warnings=tuple(dict.fromkeys(warnings)),
        usage=usage,
    )


# ---------------------------------------------------------------------------
# Baselines
# ---------------------------------------------------------------------------


def compare_baselines(
    result: PersonaResult,
    baselines: Mapping[str, Baseline],
    rubric: PersonaRubric = DEFAULT_PERSONA_RUBRIC,
) -> pl.DataFrame:
    """Compare window-0 scores with golden baselines, column-wise.

    A regression is a score more than ``rubric.regression_tolerance`` below its
    baseline (``delta < -tolerance``; exactly the tolerance below is not one).

    An environment (group) dimension such as convergence is one number for the whole chat:
    it is compared once, on a row whose ``agent_id`` is ``"environment"`` (the key of the
    environment's scorecard), against the mean of the agents' baselines for it (a
    baseline file holds it per agent, as captured), never once per agent, so one group
    problem counts as one regression.

    Returns:
        :data:`toolkit.frames.PERSONA_BASELINE_SCHEMA`: agent_id, dimension, baseline,
        score, delta, regression, note — one row per (agent, dimension) in the scores
        of agents that have a baseline, or in a baseline, then one row per environment
        dimension (agent_id ``"environment"``).
    """
    whole = result.dimensions.filter(pl.col("window") == 0)
    group_dims = whole.filter(pl.col("target_type") == ENVIRONMENT)["dimension"].to_list()
    view = result.agent_view().filter(
        pl.col("agent_id").is_in(list(baselines)) & (pl.col("target_type") != ENVIRONMENT)
    )
    base = pl.DataFrame(
        [
            {"agent_id": b.agent_id, "dimension": d, "baseline": float(v)}
            for b in baselines.values()
            for d, v in b.dimensions.items()
        ],
        schema={"agent_id": pl.String(), "dimension": pl.String(), "baseline": pl.Float64()},
    )
    in_group = pl.col("dimension").is_in(group_dims)
    joined = view.select("agent_id", "dimension", "score").join(
        base.filter(~in_group), on=["agent_id", "dimension"], how="full", coalesce=True
    )
    group = (
        whole.filter(pl.col("target_type") == ENVIRONMENT)
        .select(pl.lit(ENVIRONMENT, pl.String()).alias("agent_id"), "dimension", "score")
        .join(
            base.filter(in_group).group_by("dimension").agg(pl.col("baseline").mean()),
            on="dimension",
            how="inner",
        )
    )
    joined = pl.concat([joined, group.select(joined.columns)], how="vertical_relaxed")
    delta = pl.col("score") - pl.col("baseline")
    return (
        joined.with_columns(delta.alias("delta"))
        .with_columns(
            (pl.col("delta") < -rubric.regression_tolerance).fill_null(False).alias("regression"),
            pl.when(pl.col("baseline").is_null())
            .then(pl.lit("no baseline"))
            .when(pl.col("score").is_null())
            .then(pl.lit("absent: no score in this run"))
            .when(pl.col("delta") < -rubric.regression_tolerance)
            .then(
                pl.format(
                    "regression: more than {} below baseline", pl.lit(rubric.regression_tolerance)
                )
            )
            .otherwise(pl.lit("within tolerance"))
            .alias("note"),
        )
        .select(list(PERSONA_BASELINE_SCHEMA))
        .cast(PERSONA_BASELINE_SCHEMA)  # type: ignore[arg-type]
    )


#: Decimals a baseline score keeps: a weighted mean of whole 0-9 answers can land a float
#: step off the scale (weights 0.1 and 0.7, both answered 9, give 9.000000000000002).
BASELINE_DECIMALS = 6


def _on_scale(keys: pl.Series, scores: pl.Series) -> dict[str, float]:
    """Scores for a baseline file, rounded to :data:`BASELINE_DECIMALS` so float noise at
    the scale's ends (0 and 9) never makes a score the baseline format refuses."""
    return {k: round(float(v), BASELINE_DECIMALS) for k, v in zip(keys, scores, strict=True)}


def baselines_from(result: PersonaResult, captured_at: datetime | None = None) -> list[Baseline]:
    """Golden baselines from a result: per agent, its 0-9 dimension scores (environment
    dimensions included) and the scores of every proposition it was judged on."""
    stamp = captured_at or datetime.now(UTC)
    view = result.agent_view().filter(
        pl.col("score").is_not_null()
        & ~pl.col("dimension").is_in(list(result.rubric.count_dimensions))
    )
    whole = result.scores.filter(
        (pl.col("window") == 0)
        & pl.col("score").is_not_null()
        & ~pl.col("dimension").is_in(list(result.rubric.count_dimensions))
    )
    env = whole.filter(pl.col("target_type") == ENVIRONMENT)
    out = []
    for agent_id in view["agent_id"].unique(maintain_order=True).to_list():
        dims = view.filter(pl.col("agent_id") == agent_id)
        props = pl.concat([whole.filter(pl.col("agent_id") == agent_id), env])
        out.append(
            Baseline(
                agent_id=agent_id,
                captured_at=stamp,
                dimensions=_on_scale(dims["dimension"], dims["score"]),
                proposition_scores=_on_scale(props["proposition"], props["score"]),
            )
        )
    return out


# ---------------------------------------------------------------------------
# Scorecards
# ---------------------------------------------------------------------------


def _status(value: float | None, count: bool, rubric: PersonaRubric) -> str:
    if value is None:
        return NA
    green, red = (
        (rubric.count_green_at, rubric.count_red_below)
        if count
        else (rubric.green_at, rubric.red_below)
    )
    if value >= green:
        return OK
    if value < red:
        return FAIL
    return WARN


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def _scorecards(
    result: PersonaResult, comparison: pl.DataFrame | None, rubric: PersonaRubric
) -> dict[str, Scorecard]:
    whole = result.dimensions.filter(pl.col("window") == 0)
    scores = result.scores.filter(pl.col("window") == 0)
    subjects: list[tuple[str, str | None, str]] = [
        (str(a), str(a), str(n))
        for a, n in scores.filter(pl.col("agent_id").is_not_null())
        .select("agent_id", "agent_name")
        .unique(maintain_order=True)
        .iter_rows()
    ]
    if whole.filter(pl.col("target_type") == ENVIRONMENT).height:
        subjects.append((ENVIRONMENT, None, ENVIRONMENT))
    cards: dict[str, Scorecard] = {}
    for key, agent_id, name in subjects:
        dims_rows = (
            whole.filter(pl.col("agent_id") == agent_id)
            if agent_id is not None
            else whole.filter(pl.col("target_type") == ENVIRONMENT)
        )
        records = []
        for row in dims_rows.iter_rows(named=True):
            count = row["dimension"] in rubric.count_dimensions
            props = scores.filter(
                (pl.col("dimension") == row["dimension"])
                & (
                    (pl.col("agent_id") == agent_id)
                    if agent_id is not None
                    else pl.col("agent_id").is_null()
                )
            )
            forced = props.filter(pl.col("source") == "precondition").height
            total = props.height
            value = row["score"]
            status = _status(value, count, rubric)
            if value is None:
                reasons = props["absent_reason"].drop_nulls().unique(maintain_order=True)
                detail = "absent: " + ("; ".join(reasons.to_list()) or "no proposition judged")
            elif count:
                detail = f"{_fmt(value)} distinct ideas counted by the judge"
            else:
                detail = (
                    f"weighted mean of {row['judged']}/{total} propositions"
                    + (f" ({forced} precondition not met: 9)" if forced else "")
                    + (f", {row['absent']} absent" if row["absent"] else "")
                    + f"; lowest {row['lowest_proposition']} {_fmt(row['lowest_score'])}"
                )
            green = f">= {_fmt(rubric.count_green_at if count else rubric.green_at)}"
            red = f"< {_fmt(rubric.count_red_below if count else rubric.red_below)}"
            if comparison is not None:
                whose = pl.col("agent_id") == (agent_id if agent_id is not None else ENVIRONMENT)
                cmp = comparison.filter(whose & (pl.col("dimension") == row["dimension"]))
                if cmp.height and cmp["baseline"][0] is not None and value is not None:
                    detail += f"; baseline {_fmt(cmp['baseline'][0])}, delta {cmp['delta'][0]:+.2f}"
                    if cmp["regression"][0]:
                        status = FAIL
                        detail = "REGRESSION: " + detail
                if agent_id is not None or cmp.height:
                    red += f" or > {_fmt(rubric.regression_tolerance)} below baseline"
            records.append(
                Dimension(
                    key=row["dimension"],
                    name=row["dimension"],
                    value=value,
                    status=status,
                    detail=detail,
                    green=green,
                    red=red,
                )
            )
        frame = Scorecard.dimensions_frame(key, records)
        statuses = frame["status"].to_list()
        if statuses and all(s == NA for s in statuses):
            verdict, why = "INSUFFICIENT_DATA", "no dimension could be scored"
        elif FAIL in statuses:
            verdict = "FAILED"
            why = "failing: " + ", ".join(frame.filter(pl.col("status") == FAIL)["dimension"])
        elif WARN in statuses:
            verdict = "DEGRADED"
            why = "warning: " + ", ".join(frame.filter(pl.col("status") == WARN)["dimension"])
        else:
            verdict, why = "HEALTHY", "every scored dimension in its green range"
        title = (
            f"{result.run} · {name} ({agent_id})"
            if agent_id is not None
            else f"{result.run} · environment"
        )
        cards[key] = Scorecard(
            rubric=rubric.rubric,
            rubric_version=rubric.version,
            subject=f"{result.run}/{key}",
            title=title,
            verdict=verdict,
            verdict_reason=why,
            dimensions=frame,
            warnings=result.warnings,
            meta={"run": result.run, "agent_id": agent_id, "judge": result.judge},
        )
    return cards


# ---------------------------------------------------------------------------
# Correction logs
# ---------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class CorrectionReport(Shows):
    """What an action-gate correction log says.

    Attributes:
        outcomes: outcome, actions, rate — each action counted once, by the outcome of
            its last attempt; rates sum to 1.
        dimensions: dimension, scored, failures (the gate's own ``passed: false`` where
            the log records it, else a score below the gate threshold), mean_score —
            over every attempt.
        mean_similarity: the mean similarity over attempts that report one (None if none).
        similarity_failures: attempts whose similarity to recent messages is above
            ``similarity_flag_above`` (0.6), as the-office's gate statistics count them.
        similarity_checked: attempts that report a similarity.
        mean_total_score: the mean ``total_score`` over attempts that report one.
    """

    outcomes: pl.DataFrame
    dimensions: pl.DataFrame
    mean_similarity: float | None
    similarity_failures: int = 0
    similarity_checked: int = 0
    mean_total_score: float | None = None

    def _summary(self) -> Summary:
        mean = "-" if self.mean_similarity is None else f"{self.mean_similarity:.3f}"
        return Summary(
            "CorrectionReport",
            f"{plural(int(self.outcomes['actions'].sum()), 'action')}",
            (
                *((f"{o}:", n) for o, n in self.outcomes.select("outcome", "actions").rows()),
                ("mean similarity:", mean),
                ("similarity failures:", f"{self.similarity_failures}/{self.similarity_checked}"),
            ),
        )


def correction_report(
    log: pl.DataFrame, rubric: PersonaRubric = DEFAULT_PERSONA_RUBRIC
) -> CorrectionReport:
    """Outcome rates, per-dimension failure counts and mean scores of a correction log
    (:func:`toolkit.load_correction_log`)."""
    attempts = log.unique(["agent_id", "action_id", "attempt", "line"])
    final = attempts.sort("attempt").group_by("agent_id", "action_id").agg(pl.col("outcome").last())
    outcomes = (
        final.group_by("outcome")
        .agg(pl.len().cast(pl.Int64).alias("actions"))
        .with_columns((pl.col("actions") / pl.col("actions").sum()).alias("rate"))
        .with_columns(pl.col("outcome").cast(pl.String))
        .sort("actions", "outcome", descending=[True, False])
    )
    dims = (
        log.filter(pl.col("dimension").is_not_null())
        .group_by("dimension")
        .agg(
            pl.col("score").is_not_null().sum().cast(pl.Int64).alias("scored"),
            pl.coalesce(~pl.col("passed"), pl.col("score") < rubric.gate_threshold)
            .sum()
            .cast(pl.Int64)
            .alias("failures"),
            pl.col("score").mean().alias("mean_score"),
        )
        .sort("dimension")
    )
    sim = attempts["similarity"].drop_nulls()
    total = attempts["total_score"].drop_nulls()
    return CorrectionReport(
        outcomes=outcomes,
        dimensions=dims,
        mean_similarity=float(sim.mean()) if sim.len() else None,  # type: ignore[arg-type]
        similarity_failures=int((sim > rubric.similarity_flag_above).sum()),
        similarity_checked=int(sim.len()),
        mean_total_score=float(total.mean()) if total.len() else None,  # type: ignore[arg-type]
    )


def persona_scores_frame(results: Iterable[PersonaResult]) -> pl.DataFrame:
    """Stack the tidy per-proposition frames of several results (same schema)."""
    frames = [r.scores for r in results]
    if not frames:
        return pl.DataFrame(schema=PERSONA_SCORES_SCHEMA)
    return pl.concat(frames, how="vertical")


__all__: Sequence[str] = [
    "DEFAULT_PERSONA_RUBRIC",
    "PRECONDITIONS",
    "CorrectionReport",
    "PersonaResult",
    "PersonaRubric",
    "PreconditionContext",
    "baselines_from",
    "compare_baselines",
    "correction_report",
    "dimension_scores",
    "file_window",
    "format_trajectory",
    "load_persona_rubric",
    "persona_scores_frame",
    "register_precondition",
    "score_persona",
    "score_rows",
    "trajectory_rows",
    "window_rows",
]
