"""The metrics frame: each game's seven scores, their thresholds, statuses and details."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.frames import ENGINE, typed
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
    metrics in rubric order), from the per-game tallies.

    One select over the tallies (a row per game) gives each game its seven scores and
    seven details as two lists, exploded together: the rows come out game by game, each
    game's metrics in rubric order. Issue 38: seven selects concatenated and sorted cost
    ~7 ms of CPU on the three samples (Polars' cost per expression and per plan on tiny
    frames); this costs ~2. The key, name, threshold and pending status of a row are the
    rubric's seven taken by row number (a Python list repeated per game cost ~24 ms a
    column at 10^5 games, this ~5).
    """
    plan = table.lazy()
    if table.height and table.get_column("game_id").to_list() != list(game_ids):
        order = {g: i for i, g in enumerate(game_ids)}
        plan = plan.sort(
            pl.col("game_id").replace_strict(order, return_dtype=pl.Int64), maintain_order=True
        )
    long = plan.select(
        "game_id",
        pl.concat_list([e.cast(pl.Float64) for e in _scores()]).alias("score"),
        pl.concat_list([metric_detail(key, spec) for key in METRIC_KEYS]).alias("detail"),
    ).explode("score", "detail")
    t = spec.threshold
    score = pl.col("score")
    threshold = _per_metric([t(k) for k in METRIC_KEYS], pl.Float64())
    out = long.select(
        "game_id",
        _per_metric(list(METRIC_KEYS), pl.String()).alias("key"),
        _per_metric([spec.metrics[k].name for k in METRIC_KEYS], pl.String()).alias("name"),
        "score",
        threshold.alias("threshold"),
        (score >= threshold).alias("passed"),
        pl.when(score.is_null())
        .then(_per_metric([PENDING if k == "engagement" else NA for k in METRIC_KEYS], pl.String()))
        .when(score >= threshold)
        .then(pl.lit(PASS))
        .otherwise(pl.lit(FAIL))
        .alias("status"),
        "detail",
    )
    return typed(out.collect(engine=ENGINE), METRIC_SCHEMA)


def _per_metric(values: list[Any], dtype: pl.DataType) -> pl.Expr:
    """``values`` (one a metric, in rubric order) repeated down the long frame, whose rows
    run through the metrics game by game: taken by row number, column-wise."""
    return pl.lit(pl.Series(values, dtype=dtype)).gather(pl.int_range(pl.len()) % len(values))


def _scores() -> list[pl.Expr]:
    """Each metric's score over the tallies, in rubric order (null where there is nothing
    to score)."""
    scores = {
        "memory_accuracy": pl.when(CHECKED > 0).then(pl.col("accurate") / CHECKED).otherwise(1.0),
        "strategic_depth": pl.when(pl.col("messages") > 0).then(
            pl.col("strategic") / pl.col("messages")
        ),
        "coherence": pl.when(pl.col("coherence_n") > 0).then(
            pl.col("coherent") / pl.col("coherence_n")
        ),
        "role_consistency": pl.when(pl.col("role_n") > 0).then(
            1.0 - pl.col("breaks") / pl.col("role_n")
        ),
        "personality_diversity": pl.when(pl.col("speakers") >= 2).then(
            pl.col("unique") / pl.col("speakers")
        ),
        "anti_repetition": pl.when(pl.col("phrases") > 0).then(
            1.0 - pl.col("repeats") / pl.col("phrases")
        ),
        "engagement": pl.col("engagement"),
    }
    return [scores[k] for k in METRIC_KEYS]
