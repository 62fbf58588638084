"""Graph fan-out: the slope of the fan-out over the checkpoints, and its status."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from toolkit.rubrics.simulation._values import DEFAULT_VALUES as DEFAULT_RUBRIC
from toolkit.rubrics.simulation._values import SLOPE_DECIMALS
from toolkit.rubrics.simulation.windows import status_of

if TYPE_CHECKING:
    from toolkit.rubrics.simulation.spec import SimulationRubric


def fanout_series(
    checkpoints: pl.LazyFrame | pl.DataFrame, rubric: SimulationRubric = DEFAULT_RUBRIC
) -> pl.LazyFrame:
    """Graph fan-out at each checkpoint (a snapshot whose tick is a multiple of K).

    One row per checkpoint: slug, tick, node_count, edge_count, ``fan_out``
    (edges / nodes), ``n_checkpoints`` (how many of the last ``checkpoints`` exist),
    ``first_cp_tick``, ``slope`` (fan-out change per 10 ticks over those checkpoints),
    ``step_slope`` (from the previous checkpoint), ``sustained_n`` (how many of the last
    ``recent_steps`` measures exist: slopes, or steps under ``sustained: steps``),
    ``sustained_max`` (the largest of them) and ``status_graph_fanout``. FAIL: the slope
    is below ``fail_slope_below`` and so is every one of those ``recent_steps`` measures.
    """
    f = rubric.graph_fanout
    cps = (
        checkpoints.lazy()
        .filter((pl.col("tick") % f.checkpoint_every == 0) & (pl.col("node_count") > 0))
        .sort("slug", "tick")
        .with_columns(
            fan_out=pl.col("edge_count") / pl.col("node_count"),
            pos=pl.int_range(pl.len()).over("slug"),
        )
    )
    rolled = cps.rolling(index_column="pos", period=f"{f.checkpoints}i", group_by="slug").agg(
        n_checkpoints=pl.len().cast(pl.Int64),
        first_cp_tick=pl.col("tick").first(),
        first_fan_out=pl.col("fan_out").first(),
    )
    out = (
        cps.join(rolled, on=["slug", "pos"])
        .sort("slug", "tick")
        .with_columns(
            slope=pl.when(pl.col("n_checkpoints") >= 2).then(
                (
                    (pl.col("fan_out") - pl.col("first_fan_out"))
                    / (pl.col("tick") - pl.col("first_cp_tick"))
                    * f.per_ticks
                ).round(SLOPE_DECIMALS)
            ),
            step_slope=(
                (pl.col("fan_out") - pl.col("fan_out").shift(1))
                / (pl.col("tick") - pl.col("tick").shift(1))
                * f.per_ticks
            )
            .round(SLOPE_DECIMALS)
            .over("slug"),
        )
        .with_columns(_measure=pl.col("slope" if f.sustained == "slope" else "step_slope"))
        .with_columns(
            sustained_n=pl.col("_measure")
            .is_not_null()
            .cast(pl.Int64)
            .rolling_sum(window_size=f.recent_steps, min_samples=1)
            .over("slug"),
            sustained_max=pl.col("_measure")
            .rolling_max(window_size=f.recent_steps, min_samples=1)
            .over("slug"),
        )
    )
    collapsing = (
        (pl.col("slope") < f.fail_slope_below)
        & (pl.col("sustained_n") >= f.recent_steps)
        & (pl.col("sustained_max") < f.fail_slope_below)
    )
    return (
        out.with_columns(
            status_graph_fanout=status_of(
                pl.col("slope"), fail=collapsing, ok=pl.col("slope") >= f.ok_slope_min
            )
        )
        .drop("pos", "first_fan_out", "_measure")
        .sort("slug", "tick")
    )
