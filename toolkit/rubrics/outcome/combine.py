"""The combination: sub-scores clamped to [0, 1], weighted and renormalised over the
present signals into a breakdown whose contributions sum to each iteration's value.
"""

from __future__ import annotations

import polars as pl

from toolkit.frames import OUTCOME_BREAKDOWN_SCHEMA, OUTCOME_SCORES_SCHEMA
from toolkit.rubrics.outcome.spec import OutcomeRubric


def combine(long: pl.DataFrame, rubric: OutcomeRubric) -> pl.DataFrame:
    """The breakdown from per-signal sub-scores.

    Args:
        long: one row per iteration and signal: iteration, signal, sub_score (null when
            absent), detail.
        rubric: gives the weights and the decimals.

    Returns:
        :data:`toolkit.frames.OUTCOME_BREAKDOWN_SCHEMA` (each row with the signal's
        ``label`` from the rubric). The effective weight of a present
        signal is its weight over the sum of present weights (0 when absent). The value is
        the sum of effective weight x sub-score, rounded to ``rubric.decimals``; the
        contributions are rounded by largest remainder so they sum to it exactly.
    """
    order = {s: i for i, s in enumerate(rubric.weights())}
    weights = pl.DataFrame(
        {
            "signal": list(rubric.weights()),
            "label": list(rubric.labels().values()),
            "nominal_weight": list(rubric.weights().values()),
            "_order": list(order.values()),
        },
        schema={
            "signal": pl.String(),
            "label": pl.String(),
            "nominal_weight": pl.Float64(),
            "_order": pl.Int64(),
        },
    )
    scale = 10.0**rubric.decimals
    present = pl.col("sub_score").is_not_null()
    by_iteration = "iteration"
    present_weight = pl.when(present).then(pl.col("nominal_weight")).otherwise(0.0)
    return (
        long.join(weights, on="signal", how="inner")
        .with_columns(present.alias("present"))
        .with_columns(
            pl.when(present)
            .then(pl.col("nominal_weight") / present_weight.sum().over(by_iteration))
            .otherwise(0.0)
            .alias("effective_weight")
        )
        .with_columns(
            (pl.col("effective_weight") * pl.col("sub_score").fill_null(0.0) * scale).alias("_x")
        )
        .with_columns(
            pl.col("_x").floor().alias("_floor"),
            pl.col("_x").sum().over(by_iteration).round(0).alias("_units"),
        )
        .with_columns(
            pl.when(present).then(pl.col("_x") - pl.col("_floor")).otherwise(-1.0).alias("_rem"),
            (pl.col("_units") - pl.col("_floor").sum().over(by_iteration)).alias("_short"),
        )
        .with_columns(
            pl.col("_rem").rank("ordinal", descending=True).over(by_iteration).alias("_rank")
        )
        .with_columns(
            (
                (
                    pl.col("_floor")
                    + pl.when(pl.col("_rank") <= pl.col("_short")).then(1.0).otherwise(0.0)
                )
                / scale
            )
            .round(rubric.decimals)
            .alias("contribution")
        )
        .sort("iteration", "_order")
        .select(list(OUTCOME_BREAKDOWN_SCHEMA))
        .cast(OUTCOME_BREAKDOWN_SCHEMA)  # type: ignore[arg-type]
    )


def combined_scores(
    inputs: pl.DataFrame, breakdown: pl.DataFrame, rubric: OutcomeRubric
) -> pl.DataFrame:
    scale = 10.0**rubric.decimals
    totals = breakdown.group_by("iteration").agg(
        pl.col("present").sum().alias("signals_present"),
        ((pl.col("contribution") * scale).round(0).sum() / scale).alias("_sum"),
    )
    value = pl.when(pl.col("signals_present") > 0).then(pl.col("_sum").round(rubric.decimals))
    return (
        inputs.select(
            "iteration",
            pl.col("agent_session_id").alias("session_id"),
            pl.col("v_traces").fill_null(False).alias("linked_traces_to_outcomes"),
        )
        .join(totals, on="iteration", how="left")
        .with_columns(value.alias("value"))
        .with_columns(
            pl.col("value").is_not_null().alias("scored"),
            rubric.band_expr(pl.col("value")).alias("band"),
        )
        .sort("iteration")
        .select(list(OUTCOME_SCORES_SCHEMA))
        .cast(OUTCOME_SCORES_SCHEMA)  # type: ignore[arg-type]
    )


def clamped_scores(long: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """Sub-scores clamped to [0, 1], as dot-agents clamps them; each clamp is said in the
    signal's detail and as a warning (an out-of-range input is kept, not dropped)."""
    raw = pl.col("sub_score")
    out = (~raw.is_between(0.0, 1.0)) & raw.is_not_null()
    flagged = long.with_columns(_out=out, _raw=raw)
    clamped = flagged.with_columns(
        pl.when("_out").then(raw.clip(0.0, 1.0)).otherwise(raw).alias("sub_score"),
    ).with_columns(
        pl.when("_out")
        .then(
            pl.format(
                "{} (sub-score {} is outside [0, 1]: clamped to {})",
                "detail",
                pl.col("_raw").round(6).cast(pl.String),
                pl.col("sub_score").cast(pl.String),
            )
        )
        .otherwise(pl.col("detail"))
        .alias("detail")
    )
    warnings = [
        f"iteration {n}: the {signal} sub-score {value:g} is outside [0, 1]; clamped to "
        f"{min(max(value, 0.0), 1.0):g}"
        for n, signal, value in flagged.filter("_out").select("iteration", "signal", "_raw").rows()
    ]
    return clamped.drop("_out", "_raw"), warnings
