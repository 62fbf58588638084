"""Correction logs: what an action-gate correction log says (outcome rates,
per-dimension failures, similarity).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from toolkit.rubrics.persona.spec import DEFAULT_PERSONA_RUBRIC, PersonaRubric
from toolkit.summary import Shows, Summary, plural


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
        stages: stage, attempts — the-office's pipeline stages (original, regeneration,
            direct_correction) over the attempts that record one.
        stage_outcomes: stage, outcome, attempts, agents (distinct), mean_total_score —
            attempts counted by stage and outcome, in the schema's order (a null stage,
            the toolkit's own shape, last); None when the log has no stage column.
        attempts_per_action: the mean number of attempts an action took.
        input_tokens, output_tokens: the gate's tokens summed over the attempts that
            record them (None when none does).
        mean_duration_ms: the mean ``duration_ms`` over attempts that record one.
        not_recorded: the log's fields that no attempt records (null in every row), so
            a reader knows what the report could not say.
    """

    outcomes: pl.DataFrame
    dimensions: pl.DataFrame
    mean_similarity: float | None
    similarity_failures: int = 0
    similarity_checked: int = 0
    mean_total_score: float | None = None
    stages: pl.DataFrame | None = None
    stage_outcomes: pl.DataFrame | None = None
    attempts_per_action: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    mean_duration_ms: float | None = None
    not_recorded: tuple[str, ...] = ()

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
            notes=tuple(f"not recorded: {f}" for f in self.not_recorded),
            notes_title="fields",
        )


def correction_report(
    log: pl.DataFrame, rubric: PersonaRubric = DEFAULT_PERSONA_RUBRIC
) -> CorrectionReport:
    """Outcome rates, per-dimension failure counts and mean scores of a correction log
    (:func:`toolkit.load_correction_log`)."""
    attempts = log.unique("line", maintain_order=True)
    action = "action" if "action" in log.columns else None
    keys = [action] if action else ["agent_id", "action_id"]
    final = (
        attempts.sort(["attempt", "line"])
        .group_by(keys)
        .agg(pl.col("outcome").last(), pl.len().alias("attempts"))
    )
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
        **_pipeline(log, attempts, final),
    )


def _mean(series: pl.Series) -> float | None:
    kept = series.drop_nulls()
    return float(kept.mean()) if kept.len() else None  # type: ignore[arg-type]


def _pipeline(log: pl.DataFrame, attempts: pl.DataFrame, final: pl.DataFrame) -> dict[str, Any]:
    """Stages, attempts per action, tokens, duration and the fields no attempt records."""
    out: dict[str, Any] = {"attempts_per_action": _mean(final["attempts"].cast(pl.Float64))}
    if "stage" in attempts.columns:
        out["stages"] = (
            attempts.filter(pl.col("stage").is_not_null())
            .group_by(pl.col("stage").cast(pl.String))
            .agg(pl.len().cast(pl.Int64).alias("attempts"))
            .sort("stage")
        )
        out["stage_outcomes"] = (
            attempts.group_by("stage", "outcome")
            .agg(
                pl.len().cast(pl.Int64).alias("attempts"),
                pl.col("agent_id").n_unique().cast(pl.Int64).alias("agents"),
                pl.col("total_score").mean().alias("mean_total_score"),
            )
            .sort("stage", "outcome", nulls_last=True)  # Enums: the schema's order
            .with_columns(pl.col("stage", "outcome").cast(pl.String))
        )
    for name in ("input_tokens", "output_tokens"):
        if name in attempts.columns and attempts[name].drop_nulls().len():
            out[name] = int(attempts[name].sum())
    if "duration_ms" in attempts.columns:
        out["mean_duration_ms"] = _mean(attempts["duration_ms"].cast(pl.Float64))
    out["not_recorded"] = tuple(
        c for c in log.columns
        if c not in ("line", "action", "extra") and log[c].null_count() == log.height
    )  # fmt: skip
    return out
