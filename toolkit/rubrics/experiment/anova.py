"""One-way ANOVA over a family's groups (the arms of one file against one control)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl

from toolkit.rubrics.experiment.rubric import DEFAULT_RUBRIC, ExperimentRubric
from toolkit.rubrics.experiment.samples import finite, score_lists

# scipy is imported in the functions that use it: about 1 s of imports that a refused
# input (`toolkit experiment` with a missing file: 0.6 s, not 1.7 s) never pays

#: Columns of :func:`anova_stats`.
ANOVA_SCHEMA: dict[str, pl.DataType] = {
    "family": pl.String(),
    "metric": pl.String(),
    "groups": pl.List(pl.String()),
    "n": pl.List(pl.Int64()),
    "means": pl.List(pl.Float64()),
    "f_stat": pl.Float64(),
    "df_between": pl.Float64(),
    "df_within": pl.Float64(),
    "p_value": pl.Float64(),
    "eta_squared": pl.Float64(),
    "alpha": pl.Float64(),
    "significant": pl.Boolean(),
    "absent_reason": pl.String(),
}


def anova_stats(
    scores: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    alpha: float | None = None,
) -> pl.DataFrame:
    """One-way ANOVA (:func:`scipy.stats.f_oneway`) over a family's groups, per metric.

    A family is the experiments that share one control (the ``family`` column: the arms
    of one TinyTroupe file; an experiment without a family is its own). Its groups are
    the control once and each experiment's treatment, named ``control`` and by
    experiment. The test needs three or more groups with ``min_per_group`` scores each;
    with two, the two-group tests answer the same question (Student's t gives ANOVA's p).

    Returns:
        :data:`ANOVA_SCHEMA`: family, metric, groups (names), n and means per group,
        f_stat, df_between (k - 1), df_within (N - k), p_value, eta_squared (the share of
        variance between groups, F * df_b / (F * df_b + df_w)), alpha, significant,
        absent_reason.
    """
    from scipy import stats

    level = rubric.alpha if alpha is None else alpha
    minimum = rubric.min_per_group
    framed = scores.with_columns(
        family=pl.coalesce(pl.col("family"), pl.col("experiment"))
        if "family" in scores.columns
        else pl.col("experiment")
    )
    lists = score_lists(framed)
    rows: list[dict[str, Any]] = []
    keys = framed.select("family", "metric", "experiment").unique(maintain_order=True)
    for (family, metric), part in keys.group_by("family", "metric", maintain_order=True):
        experiments = part["experiment"].to_list()
        prefix = f"{family} / "
        names = [
            "control",
            *("treatment" if e == family else e.removeprefix(prefix) for e in experiments),
        ]
        groups = [lists.get((experiments[0], str(metric), "control"), [])]
        groups += [lists.get((e, str(metric), "treatment"), []) for e in experiments]
        kept = [(n, g) for n, g in zip(names, groups, strict=True) if g]
        row: dict[str, Any] = {
            "family": family,
            "metric": metric,
            "groups": [n for n, _ in kept],
            "n": [len(g) for _, g in kept],
            "means": [float(np.mean(g)) for _, g in kept],
            "alpha": level,
        }
        few = [n for n, g in kept if len(g) < minimum]
        if len(kept) < 3:
            row["absent_reason"] = (
                f"one-way ANOVA needs 3 or more groups; {len(kept)} have scores "
                "(two groups: use --test student, whose p is ANOVA's)"
            )
        elif few:
            row["absent_reason"] = (
                f"{', '.join(few)} has fewer than {minimum} scores; ANOVA needs at least "
                f"{minimum} per group"
            )
        else:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = stats.f_oneway(*[np.asarray(g, dtype=float) for _, g in kept])
            f, p = finite(float(res.statistic)), finite(float(res.pvalue))
            k, total = len(kept), sum(len(g) for _, g in kept)
            row.update(df_between=float(k - 1), df_within=float(total - k), f_stat=f, p_value=p)
            if f is None or p is None:
                row["absent_reason"] = "ANOVA is undefined: no spread within any group"
            else:
                row["eta_squared"] = f * (k - 1) / (f * (k - 1) + (total - k))
                row["significant"] = p < level
        rows.append(row)
    return pl.DataFrame(rows, schema=ANOVA_SCHEMA)
