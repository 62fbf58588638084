"""The metrics frame: each game's seven scores, their thresholds, statuses and details."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from toolkit.rubrics.discussion._values import METRIC_KEYS
from toolkit.rubrics.discussion.details import CHECKED, metric_detail
from toolkit.rubrics.discussion.schemas import FAIL, METRIC_SCHEMA, PASS, PENDING
from toolkit.scorecard import NA

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["metrics_frame"]


def metrics_frame(
    table: pl.DataFrame, spec: DiscussionSpec, game_ids: Sequence[str]
) -> pl.DataFrame:
    """:data:`METRIC_SCHEMA`, one row per game and metric (games in ``game_ids`` order,
    metrics in rubric order), from the per-game tallies."""
    t = spec.threshold
    # one lazy query for the seven metrics, not a query per metric (issue 38: each eager
    # step is a Polars query with a fixed cost of about 0.3 ms)
    scores = _scores(table.lazy())
    long = pl.concat(
        [
            scores.select(
                "game_id",
                pl.lit(key).alias("key"),
                pl.lit(spec.metrics[key].name).alias("name"),
                pl.col(key).cast(pl.Float64).alias("score"),
                pl.lit(t(key)).alias("threshold"),
                (pl.col(key) >= t(key)).alias("passed"),
                pl.when(pl.col(key).is_null())
                .then(pl.lit(PENDING if key == "engagement" else NA))
                .when(pl.col(key) >= t(key))
                .then(pl.lit(PASS))
                .otherwise(pl.lit(FAIL))
                .alias("status"),
                metric_detail(key, spec).alias("detail"),
            )
            for key in METRIC_KEYS
        ]
    )
    order = {g: i for i, g in enumerate(game_ids)}
    return (
        long.with_columns(
            pl.col("game_id").replace_strict(order, return_dtype=pl.Int64).alias("_g"),
            pl.col("key")
            .replace_strict({k: i for i, k in enumerate(METRIC_KEYS)}, return_dtype=pl.Int64)
            .alias("_k"),
        )
        .sort("_g", "_k")
        .drop("_g", "_k")
        .cast(METRIC_SCHEMA)  # type: ignore[arg-type]
        .collect()
    )


def _scores(table: pl.LazyFrame) -> pl.LazyFrame:
    """The tallies with each metric's score (null where there is nothing to score)."""
    return table.with_columns(
        pl.when(CHECKED > 0)
        .then(pl.col("accurate") / CHECKED)
        .otherwise(1.0)
        .alias("memory_accuracy"),
        pl.when(pl.col("messages") > 0)
        .then(pl.col("strategic") / pl.col("messages"))
        .alias("strategic_depth"),
        pl.when(pl.col("coherence_n") > 0)
        .then(pl.col("coherent") / pl.col("coherence_n"))
        .alias("coherence"),
        pl.when(pl.col("role_n") > 0)
        .then(1.0 - pl.col("breaks") / pl.col("role_n"))
        .alias("role_consistency"),
        pl.when(pl.col("speakers") >= 2)
        .then(pl.col("unique") / pl.col("speakers"))
        .alias("personality_diversity"),
        pl.when(pl.col("phrases") > 0)
        .then(1.0 - pl.col("repeats") / pl.col("phrases"))
        .alias("anti_repetition"),
        pl.col("engagement"),
    )
