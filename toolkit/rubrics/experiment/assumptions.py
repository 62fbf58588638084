"""The assumption checks of the two-group tests: Shapiro-Wilk (normality per group)
and Levene (equal variances), with a hint in plain words when one fails."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl

from toolkit.rubrics.experiment.rubric import DEFAULT_RUBRIC, ExperimentRubric
from toolkit.rubrics.experiment.samples import finite, ordered_keys, score_lists

# scipy is imported in the functions that use it: about 1 s of imports that a refused
# input (`toolkit experiment` with a missing file: 0.6 s, not 1.7 s) never pays

#: Columns of :func:`assumption_checks`.
ASSUMPTIONS_SCHEMA: dict[str, pl.DataType] = {
    "experiment": pl.String(),
    "metric": pl.String(),
    "t_shapiro_w": pl.Float64(),
    "t_shapiro_p": pl.Float64(),
    "c_shapiro_w": pl.Float64(),
    "c_shapiro_p": pl.Float64(),
    "levene_w": pl.Float64(),
    "levene_p": pl.Float64(),
    "normal": pl.Boolean(),
    "equal_variances": pl.Boolean(),
    "hint": pl.String(),
}

#: Below this many scores per group, a t-test leans on normality; at or above it the
#: means are close to normal whatever the scores (central limit theorem), so a
#: non-normal Shapiro-Wilk result matters less.
LARGE_GROUP = 30


def assumption_checks(
    scores: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    alpha: float | None = None,
) -> pl.DataFrame:
    """Shapiro-Wilk (normality, per group) and Levene (equal variances) per experiment x metric.

    Both from :mod:`scipy.stats` (Levene centred on the median, scipy's default, i.e.
    Brown-Forsythe). A check looks violated when its p is below alpha.

    Args:
        scores: the long scores frame, as for :func:`experiment_stats`.
        rubric: supplies alpha unless ``alpha`` is given.
        alpha: overrides the rubric's alpha.

    Returns:
        :data:`ASSUMPTIONS_SCHEMA`, rows in the order of :func:`experiment_stats`:
        ``t_shapiro_w``/``t_shapiro_p`` and ``c_shapiro_w``/``c_shapiro_p`` (null with
        fewer than 3 scores or all scores equal), ``levene_w``/``levene_p`` (null
        without 2 scores per group or with no spread at all), ``normal`` (both groups
        pass Shapiro-Wilk; null when untested), ``equal_variances`` (Levene passes),
        ``hint``: what to do in plain words when a check fails, null when none does.
    """
    from scipy import stats

    level = rubric.alpha if alpha is None else alpha
    lists = score_lists(scores)
    keys = ordered_keys(scores)
    rows: list[dict[str, Any]] = []
    for exp, metric in keys.iter_rows():
        t = np.asarray(lists.get((exp, metric, "treatment"), []), dtype=float)
        c = np.asarray(lists.get((exp, metric, "control"), []), dtype=float)
        row: dict[str, Any] = {"experiment": exp, "metric": metric}
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for prefix, values in (("t", t), ("c", c)):
                w = pw = None
                if values.size >= 3 and np.ptp(values) > 0:
                    res = stats.shapiro(values)
                    w, pw = finite(res.statistic), finite(res.pvalue)
                row[f"{prefix}_shapiro_w"], row[f"{prefix}_shapiro_p"] = w, pw
            lw = lp = None
            if t.size >= 2 and c.size >= 2:
                res = stats.levene(t, c)
                lw, lp = finite(res.statistic), finite(res.pvalue)
            row["levene_w"], row["levene_p"] = lw, lp
        shapiro = [row["t_shapiro_p"], row["c_shapiro_p"]]
        tested = [p for p in shapiro if p is not None]
        row["normal"] = all(p >= level for p in tested) if tested else None
        row["equal_variances"] = None if lp is None else lp >= level
        row["hint"] = _assumption_hint(row, min(t.size, c.size), level)
        rows.append(row)
    return pl.DataFrame(rows, schema=ASSUMPTIONS_SCHEMA)


def _assumption_hint(row: Mapping[str, Any], smallest: int, level: float) -> str | None:
    hints: list[str] = []
    if row["normal"] is False:
        groups = [
            name
            for name, p in (("treatment", row["t_shapiro_p"]), ("control", row["c_shapiro_p"]))
            if p is not None and p < level
        ]
        which = " and ".join(groups)
        if smallest < LARGE_GROUP:
            hints.append(
                f"{which} scores do not look normal and a group has fewer than {LARGE_GROUP}: "
                "the t-test may mislead; try --test mannwhitney (compares ranks)"
            )
        else:
            hints.append(
                f"{which} scores do not look normal, but with {LARGE_GROUP}+ per group the "
                "t-test on means still holds; --test mannwhitney compares ranks instead"
            )
    if row["equal_variances"] is False:
        hints.append(
            "the groups' spreads differ: Welch's test (the default) allows that, "
            "Student's t (--test student) does not"
        )
    return "; ".join(hints) or None
