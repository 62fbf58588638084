"""Session scores: the mean value of the iterations of each agent session."""

from __future__ import annotations

import polars as pl

from toolkit.frames import SESSION_SCORES_SCHEMA
from toolkit.rubrics.outcome.spec import OutcomeRubric


def session_scores(scores: pl.DataFrame, rubric: OutcomeRubric) -> pl.DataFrame:
    value = pl.col("value").mean().round(rubric.decimals)
    return (
        scores.filter(pl.col("session_id").is_not_null() & (pl.col("session_id") != ""))
        .group_by("session_id")
        .agg(
            pl.col("iteration").sort().alias("iterations"),
            pl.col("scored").sum().cast(pl.Int64).alias("scored_iterations"),
            value.alias("value"),
        )
        .with_columns(
            (pl.col("scored_iterations") > 0).alias("scored"),
            rubric.band_expr(pl.col("value")).alias("band"),
        )
        .sort("session_id")
        .select(list(SESSION_SCORES_SCHEMA))
        .cast(SESSION_SCORES_SCHEMA)  # type: ignore[arg-type]
    )
