"""The long scores frame as per-group samples: summaries (n, nulls, mean, sd), score
lists, the experiments' row order, and each group's mean with its t interval."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from toolkit.rubrics.experiment.rubric import DEFAULT_RUBRIC, ExperimentRubric

# scipy is imported in the functions that use it: about 1 s of imports that a refused
# input (`toolkit experiment` with a missing file: 0.6 s, not 1.7 s) never pays

Floats = np.ndarray[Any, np.dtype[np.float64]]


def group_summaries(scores: pl.DataFrame) -> pl.DataFrame:
    """n (non-null), nulls, mean and sample sd per experiment, metric and group."""
    return scores.group_by("experiment", "metric", "group", maintain_order=True).agg(
        n=pl.col("score").count().cast(pl.Int64),
        nulls=pl.col("score").null_count().cast(pl.Int64),
        mean=pl.col("score").mean(),
        sd=pl.col("score").std(ddof=1),
    )


def to_numpy(series: pl.Series) -> np.ndarray[Any, np.dtype[np.float64]]:
    return series.cast(pl.Float64).fill_null(float("nan")).to_numpy()


def from_numpy(name: str, values: np.ndarray[Any, np.dtype[np.float64]]) -> pl.Series:
    return pl.Series(name, values, dtype=pl.Float64).fill_nan(None)


def ordered_keys(scores: pl.DataFrame) -> pl.DataFrame:
    """(experiment, metric) pairs: experiments in order of first appearance, metrics in
    order of first appearance within each (the row order of every experiment table)."""
    keys = scores.select("experiment", "metric").unique(maintain_order=True)
    first_seen = keys["experiment"].unique(maintain_order=True).to_list()
    return (
        keys.with_columns(
            _rank=pl.col("experiment").replace_strict(
                first_seen, list(range(len(first_seen))), return_dtype=pl.Int64
            )
        )
        .sort("_rank", maintain_order=True)
        .drop("_rank")
    )


def score_lists(scores: pl.DataFrame) -> dict[tuple[str, str, str], list[float]]:
    """(experiment, metric, group) -> its non-null scores, in file order."""
    lists = scores.group_by("experiment", "metric", "group", maintain_order=True).agg(
        pl.col("score").drop_nulls()
    )
    return {
        (r["experiment"], r["metric"], str(r["group"])): r["score"]
        for r in lists.iter_rows(named=True)
    }


def finite(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else float(value)


#: Columns of :func:`group_intervals`.
INTERVALS_SCHEMA: dict[str, pl.DataType] = {
    "experiment": pl.String(),
    "metric": pl.String(),
    "group": pl.String(),
    "n": pl.Int64(),
    "mean": pl.Float64(),
    "sd": pl.Float64(),
    "ci_low": pl.Float64(),
    "ci_high": pl.Float64(),
}


def group_intervals(
    scores: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    alpha: float | None = None,
) -> pl.DataFrame:
    """Each group's mean with its 1 - alpha t interval (mean ± t(n - 1) · sd / √n).

    Args:
        scores: the long scores frame (experiment, group, metric, unit, score, ...).
        rubric: supplies alpha unless ``alpha`` is given.
        alpha: overrides the rubric's alpha.

    Returns:
        :data:`INTERVALS_SCHEMA`: experiment, metric, group, n (non-null scores), mean,
        sd, ci_low, ci_high (null with fewer than two scores).
    """
    from scipy import stats

    level = rubric.alpha if alpha is None else alpha
    summaries = group_summaries(scores)
    n = summaries["n"].cast(pl.Float64).to_numpy()
    with np.errstate(invalid="ignore"):
        crit = stats.t.ppf(1.0 - level / 2.0, np.where(n >= 2, n - 1, np.nan))
    half = pl.col("crit") * pl.col("sd") / pl.col("n").cast(pl.Float64).sqrt()
    return (
        summaries.with_columns(from_numpy("crit", crit))
        .with_columns(
            group=pl.col("group").cast(pl.String),
            ci_low=pl.col("mean") - half,
            ci_high=pl.col("mean") + half,
        )
        .select(list(INTERVALS_SCHEMA))
        .cast(INTERVALS_SCHEMA)  # type: ignore[arg-type]
    )
