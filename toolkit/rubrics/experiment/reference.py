"""Checks against other tables: the directional check against a reference table (a
paper's Table 1 or an earlier run) and our numbers beside the authors' own."""

from __future__ import annotations

import re

import polars as pl

from toolkit.rubrics.experiment.rubric import DEFAULT_RUBRIC, SIGN_DECIMALS, ExperimentRubric


def match_key(name: str) -> str:
    """The key two tables are matched on: lower case, runs of non-alphanumerics -> ``_``.

    ``"Self-consistency"`` and ``"self_consistency"`` match; ``"Hard Persona Adherence"``
    and ``"persona_adherence"`` do not (rename the metric when loading).
    """
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")


def match_key_expr(names: pl.Expr) -> pl.Expr:
    """:func:`match_key` as a column expression."""
    return names.str.to_lowercase().str.replace_all(r"[^0-9a-z]+", "_").str.strip_chars("_")


#: Columns of :func:`compare_to_reference`.
DIRECTION_SCHEMA: dict[str, pl.DataType] = {
    "experiment": pl.String(),
    "metric": pl.String(),
    "delta": pl.Float64(),
    "significant": pl.Boolean(),
    "ref_delta": pl.Float64(),
    "ref_p": pl.String(),
    "ref_significant": pl.Boolean(),
    "same_sign": pl.Boolean(),
    "same_significance": pl.Boolean(),
    "agrees": pl.Boolean(),
    "detail": pl.String(),
}


def compare_to_reference(
    stats: pl.DataFrame,
    reference: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
) -> pl.DataFrame:
    """The directional check: same sign of the difference and same significance.

    For a reproduction with another model, the numbers differ but the conclusions should
    not: does the treatment move each metric the same way, and is that movement
    significant in both? Rows are matched on :func:`match_key` of experiment and metric.

    Args:
        stats: :func:`experiment_stats` output (its ``alpha`` column decides both our and
            the reference's significance).
        reference: a reference table, :data:`toolkit.frames.EXPERIMENT_REFERENCE_SCHEMA`.
        rubric: ``reference_p_decimals`` decides when a stated p is too close to alpha.

    Returns:
        One row per experiment x metric of ``stats`` (then reference-only rows), schema
        :data:`DIRECTION_SCHEMA`: delta, significant; ref_delta, ref_p (as stated),
        ref_significant (null when the stated p cannot tell); same_sign,
        same_significance (null when undecidable); agrees = both hold (null when a row
        has no counterpart or the test is absent); detail says why.
    """
    joined = _directions(_joined(stats, reference, rubric))
    return joined.select(list(DIRECTION_SCHEMA)).cast(DIRECTION_SCHEMA)  # type: ignore[arg-type]


def _match_column() -> pl.Expr:
    """The key rows are matched on: :func:`match_key_expr` of experiment and metric."""
    return pl.concat_str(
        match_key_expr(pl.col("experiment")), match_key_expr(pl.col("metric")), separator="/"
    )


def _joined(stats: pl.DataFrame, reference: pl.DataFrame, rubric: ExperimentRubric) -> pl.DataFrame:
    """Our rows and the reference's, joined on :func:`_match_column` (either side may be
    missing), with the reference's p as stated (``ref_p``) and its significance at our
    alpha (``ref_significant``, null when the stated p is too close to alpha to tell)."""
    half_unit = 0.5 * 10.0 ** (-rubric.reference_p_decimals)

    ours = stats.select(
        "experiment",
        "metric",
        "delta",
        "significant",
        "alpha",
        _key=_match_column(),
        _ours=pl.lit(True),
    )
    theirs = reference.select(
        pl.col("experiment").alias("ref_experiment"),
        pl.col("metric").alias("ref_metric"),
        pl.col("delta").alias("ref_delta"),
        pl.col("p_value").alias("_ref_p"),
        pl.col("p_below").alias("_ref_below"),
        _key=_match_column(),
        _theirs=pl.lit(True),
    )
    default_alpha = stats["alpha"].max() if stats.height else rubric.alpha
    alpha = pl.col("alpha").fill_null(pl.lit(default_alpha, dtype=pl.Float64))
    joined = ours.join(theirs, on="_key", how="full", coalesce=True, maintain_order="left_right")
    joined = joined.with_columns(
        experiment=pl.coalesce("experiment", "ref_experiment"),
        metric=pl.coalesce("metric", "ref_metric"),
        ref_p=pl.when(pl.col("_ref_below"))
        .then(pl.format("<{}", pl.col("_ref_p")))
        .otherwise(pl.col("_ref_p").cast(pl.String)),
        ref_significant=pl.when(pl.col("_ref_below"))
        .then(pl.col("_ref_p") <= alpha)
        .when((pl.col("_ref_p") - alpha).abs() <= half_unit + 1e-12)
        .then(pl.lit(None, dtype=pl.Boolean))
        .otherwise(pl.col("_ref_p") < alpha),
    )
    return joined


def _directions(joined: pl.DataFrame) -> pl.DataFrame:
    """``joined`` with same_sign, same_significance, agrees and the detail saying why."""
    both = pl.col("delta").is_not_null() & pl.col("ref_delta").is_not_null()
    ours_sign = pl.col("delta").round(SIGN_DECIMALS).sign()
    joined = joined.with_columns(
        same_sign=pl.when(both).then(ours_sign == pl.col("ref_delta").sign()),
        same_significance=pl.col("significant") == pl.col("ref_significant"),
    )
    joined = joined.with_columns(
        agrees=pl.when(pl.col("same_sign").is_null() | pl.col("significant").is_null())
        .then(pl.lit(None, dtype=pl.Boolean))
        .when(pl.col("same_sign").not_())
        .then(False)
        .otherwise(pl.col("same_significance")),
        detail=pl.when(pl.col("_theirs").is_null())
        .then(pl.lit("not in the reference"))
        .when(pl.col("_ours").is_null())
        .then(pl.lit("only in the reference"))
        .when(pl.col("delta").is_null() | pl.col("significant").is_null())
        .then(pl.lit("no test here (absent)"))
        .when(pl.col("ref_delta").is_null())
        .then(pl.lit("the reference gives no difference"))
        .when(pl.col("same_sign").not_() & ((ours_sign == 0) | (pl.col("ref_delta").sign() == 0)))
        .then(pl.lit("no difference on one side, a difference on the other"))
        .when(pl.col("same_sign").not_())
        .then(pl.lit("opposite direction"))
        .when(pl.col("same_significance").is_null())
        .then(pl.format("same direction; reference p {} is too close to alpha", pl.col("ref_p")))
        .when(pl.col("same_significance").not_() & pl.col("significant"))
        .then(pl.lit("same direction; significant here, not in the reference"))
        .when(pl.col("same_significance").not_())
        .then(pl.lit("same direction; significant in the reference, not here"))
        .otherwise(pl.lit("same direction and significance")),
    )
    return joined


#: Columns of :func:`compare_to_reported`.
AGREEMENT_SCHEMA: dict[str, pl.DataType] = {
    "experiment": pl.String(),
    "metric": pl.String(),
    "quantity": pl.String(),
    "ours": pl.Float64(),
    "theirs": pl.Float64(),
    "abs_diff": pl.Float64(),
}

#: Quantity -> (column in stats, column in reported, sign applied to theirs).
_REPORTED_QUANTITIES: dict[str, tuple[str, str, float]] = {
    "t_n": ("t_n", "t_n", 1.0),
    "c_n": ("c_n", "c_n", 1.0),
    "t_mean": ("t_mean", "t_mean", 1.0),
    "c_mean": ("c_mean", "c_mean", 1.0),
    "t_sd": ("t_sd", "t_sd", 1.0),
    "c_sd": ("c_sd", "c_sd", 1.0),
    "delta": ("delta", "delta", 1.0),
    "percent_change": ("percent_change", "percent_change", 1.0),
    # TinyTroupe tests control against treatment, so its t has the opposite sign.
    "t_stat": ("t_stat", "reported_t", -1.0),
    "df": ("df", "df", 1.0),
    "p_value": ("p_value", "p_value", 1.0),
    "cohens_d": ("cohens_d", "effect_size", 1.0),
    "ci_low": ("ci_low", "ci_low", 1.0),
    "ci_high": ("ci_high", "ci_high", 1.0),
}


def compare_to_reported(stats: pl.DataFrame, reported: pl.DataFrame) -> pl.DataFrame:
    """Our numbers beside the authors' own (TinyTroupe ``statistical_test_results_vs_others``).

    Args:
        stats: :func:`experiment_stats` output.
        reported: ``ExperimentScores.reported`` (:data:`toolkit.frames.EXPERIMENT_REPORTED_SCHEMA`).

    Returns:
        Long frame :data:`AGREEMENT_SCHEMA`: experiment, metric, quantity (t_n, c_n,
        t_mean, c_mean, t_sd, c_sd, delta, percent_change, t_stat, df, p_value, cohens_d, ci_low,
        ci_high), ours, theirs (their t negated to our treatment - control convention),
        abs_diff. Only metrics present in both.
    """
    joined = stats.join(
        reported, on=["experiment", "metric"], how="inner", suffix="_rep", maintain_order="left"
    )
    parts = []
    for quantity, (mine, theirs, sign) in _REPORTED_QUANTITIES.items():
        their_col = theirs if theirs not in stats.columns else f"{theirs}_rep"
        # A reported frame built before a quantity existed simply lacks it: null there.
        their = pl.col(their_col) if their_col in joined.columns else pl.lit(None)
        parts.append(
            joined.select(
                "experiment",
                "metric",
                quantity=pl.lit(quantity),
                ours=pl.col(mine).cast(pl.Float64),
                theirs=their.cast(pl.Float64) * sign,
            )
        )
    if not parts:
        return pl.DataFrame(schema=AGREEMENT_SCHEMA)
    out = pl.concat(parts, how="vertical").with_columns(
        # two equal infinities (a percent change from a control mean of 0) agree
        abs_diff=pl.when(pl.col("ours") == pl.col("theirs"))
        .then(0.0)
        .otherwise((pl.col("ours") - pl.col("theirs")).abs())
    )
    order = joined.select("experiment", "metric").with_row_index("_order")
    return (
        out.join(order, on=["experiment", "metric"], how="left")
        .sort("_order", maintain_order=True)
        .select(list(AGREEMENT_SCHEMA))
        .cast(AGREEMENT_SCHEMA)  # type: ignore[arg-type]
    )
