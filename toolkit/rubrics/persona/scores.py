"""Proposition and dimension scores, column-wise: inverted and hard-mode scores, the
contributions, and each dimension's weighted mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import polars as pl

from toolkit.frames import PERSONA_DIMENSIONS_SCHEMA, PERSONA_SCORES_SCHEMA
from toolkit.rubrics.persona.spec import PersonaRubric


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


def exact_weighted_mean(scores: Sequence[float], weights: Sequence[float]) -> float | None:
    """The weighted mean of ``scores``, computed exactly (each float is an exact binary
    fraction) and rounded once to the nearest float; ``None`` when the weights sum to 0.

    Float arithmetic drifts: weights 0.1 and 0.2 with both answers 7 give
    6.999999999999999, which prints as 7.000 and falls short of a 7.0 line; weights 0.1 and
    0.7 with both answers 9 give 9.000000000000002, past the top of the 0-9 scale. Exactly
    computed, a mean of equal scores is that score and a mean never leaves the range of
    its scores.
    """
    total = sum((Fraction(w) for w in weights), Fraction(0))
    if total <= 0:
        return None
    weighted = sum((Fraction(s) * Fraction(w) for s, w in zip(scores, weights, strict=True)),
                   Fraction(0))  # fmt: skip
    return float(weighted / total)


def dimension_scores(scores: pl.DataFrame) -> pl.DataFrame:
    """Per (run, window, agent, dimension): the weighted mean of its propositions, computed
    exactly (:func:`exact_weighted_mean`).

    Returns:
        Schema :data:`toolkit.frames.PERSONA_DIMENSIONS_SCHEMA`: run, window,
        target_type, agent_id, agent_name, dimension, score (null when nothing was
        judged or the judged weights sum to 0), judged, absent, lowest_proposition,
        lowest_score.
    """
    group = ["run", "window", "target_type", "agent_id", "agent_name", "dimension"]
    judged = pl.col("score").is_not_null()
    grouped = scores.group_by(group, maintain_order=True).agg(
        pl.col("score").filter(judged).alias("_scores"),
        pl.col("weight").filter(judged).alias("_weights"),
        judged.sum().cast(pl.Int64).alias("judged"),
        (~judged).sum().cast(pl.Int64).alias("absent"),
        pl.col("proposition")
        .filter(judged)
        .sort_by(pl.col("score").filter(judged))
        .first()
        .alias("lowest_proposition"),
        pl.col("score").min().alias("lowest_score"),
    )
    means = [
        exact_weighted_mean(s, w)
        for s, w in zip(grouped["_scores"].to_list(), grouped["_weights"].to_list(), strict=True)
    ]
    return (
        grouped.with_columns(pl.Series("score", means, dtype=pl.Float64))
        .select(list(PERSONA_DIMENSIONS_SCHEMA))
        .cast(PERSONA_DIMENSIONS_SCHEMA)  # type: ignore[arg-type]
    )
