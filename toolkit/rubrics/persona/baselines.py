"""Baselines: window-0 scores compared with golden baselines (regressions), and golden
baselines captured from a result.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

import polars as pl

from toolkit.frames import PERSONA_BASELINE_SCHEMA
from toolkit.load.persona import Baseline
from toolkit.rubrics.persona.result import PersonaResult
from toolkit.rubrics.persona.spec import DEFAULT_PERSONA_RUBRIC, ENVIRONMENT, PersonaRubric


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
