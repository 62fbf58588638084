"""The noise floor: how far runs of one unit land apart by chance (from A's repeats),
and how far this comparison's mean difference may for its design."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import polars as pl

from toolkit.frames import COMPARE_NOISE_SCHEMA


def noise_floor(a: pl.DataFrame, z: float) -> pl.DataFrame:
    """Per dimension of A: the pooled within-unit standard deviation over units with at
    least two runs (pass/fail as 0/1), and ``run_spread`` = z * sqrt(2) * sd, the
    distance two single runs of one unit stay within by chance. ``floor`` is filled in
    by :func:`~toolkit.rubrics.compare.compare_scores` for the comparison's own design
    (:func:`paired_floor`, :func:`unpaired_floor`)."""
    value = pl.coalesce(pl.col("passed").cast(pl.Float64), pl.col("value"))
    per = (
        a.with_columns(value.alias("x"))
        .drop_nulls("x")
        .group_by("dimension", "unit", maintain_order=True)
        .agg(
            pl.len().alias("r"),
            ((pl.col("x") - pl.col("x").mean()) ** 2).sum().alias("ss"),
        )
        .filter(pl.col("r") >= 2)
    )
    out = per.group_by("dimension", maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("units"),
        (pl.col("r") - 1).sum().cast(pl.Int64).alias("df"),
        pl.col("ss").sum().alias("ss"),
    )
    out = out.with_columns((pl.col("ss") / pl.col("df")).sqrt().alias("within_sd")).with_columns(
        (z * math.sqrt(2) * pl.col("within_sd")).alias("run_spread"),
        pl.lit(None, pl.Float64).alias("floor"),
    )
    return out.select(list(COMPARE_NOISE_SCHEMA)).cast(COMPARE_NOISE_SCHEMA)  # type: ignore[arg-type]


def paired_floor(within_sd: float, z: float, runs_a: Sequence[int], runs_b: Sequence[int]) -> float:
    """The noise floor of a paired mean difference over n pairs: z * sd * sqrt(sum of
    1/r_a + 1/r_b) / n, r_a and r_b the runs behind each pair's two unit means."""
    spread = sum(1 / x + 1 / y for x, y in zip(runs_a, runs_b, strict=True))
    return z * within_sd * math.sqrt(spread) / len(runs_a)


def unpaired_floor(
    within_sd: float, z: float, runs_a: Sequence[int], runs_b: Sequence[int]
) -> float:
    """The noise floor of mean(B) - mean(A) over independent units: z * sd * sqrt(sum
    of 1/r_a / n_a^2 + sum of 1/r_b / n_b^2), r the runs behind each unit's mean."""
    var = (
        sum(1 / x for x in runs_a) / len(runs_a) ** 2
        + sum(1 / y for y in runs_b) / len(runs_b) ** 2
    )
    return z * within_sd * math.sqrt(var)


def within_sds(noise: pl.DataFrame) -> dict[str, float]:
    """Dimension -> the pooled within-unit SD of a :func:`noise_floor` frame."""
    return dict(zip(noise["dimension"].to_list(), noise["within_sd"].to_list(), strict=True))


def with_floors(noise: pl.DataFrame, floors: Mapping[str, float | None]) -> pl.DataFrame:
    """The :func:`noise_floor` frame with each dimension's ``floor`` of this comparison
    (null for a dimension not in ``floors``)."""
    return noise.with_columns(
        pl.col("dimension")
        .replace_strict(floors, default=None, return_dtype=pl.Float64)
        .alias("floor")
    )
