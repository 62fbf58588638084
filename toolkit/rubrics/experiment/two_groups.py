"""The two-group tests of treatment vs control per experiment x metric: Welch's t
(column-wise Polars, the t look-ups vectorised through scipy), or Student's t,
Mann-Whitney U, Kolmogorov-Smirnov or chi-square (one scipy call per row)."""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np
import polars as pl

from toolkit.frames import EXPERIMENT_STATS_SCHEMA
from toolkit.rubrics.experiment.rubric import DEFAULT_RUBRIC, TESTS, ExperimentRubric
from toolkit.rubrics.experiment.samples import (
    Floats,
    from_numpy,
    group_summaries,
    ordered_keys,
    score_lists,
    to_numpy,
)

# scipy is imported in the functions that use it: about 1 s of imports that a refused
# input (`toolkit experiment` with a missing file: 0.6 s, not 1.7 s) never pays

_NEEDS = {
    "welch": "Welch's test",
    "student": "Student's t-test",
    "mannwhitney": "the Mann-Whitney U test",
    "ks": "the Kolmogorov-Smirnov test",
    "chisquare": "the chi-square test",
}

_UNDEFINED = {
    "student": "both groups have sd 0 and equal means",
    "mannwhitney": "scipy returned no p-value",
    "ks": "scipy returned no p-value",
    "chisquare": "every score has the same value, so there is one category only",
}


def _arm(summaries: pl.DataFrame, group: str, prefix: str) -> pl.DataFrame:
    return summaries.filter(pl.col("group") == group).select(
        "experiment",
        "metric",
        pl.col("n").alias(f"{prefix}_n"),
        pl.col("nulls").alias(f"{prefix}_nulls"),
        pl.col("mean").alias(f"{prefix}_mean"),
        pl.col("sd").alias(f"{prefix}_sd"),
    )


def _few_reason(prefix: str, group: str, minimum: int, needs: str = _NEEDS["welch"]) -> pl.Expr:
    n = pl.col(f"{prefix}_n")
    nulls = pl.col(f"{prefix}_nulls")
    dropped = pl.when(nulls > 0).then(pl.format(" ({} null dropped)", nulls)).otherwise(pl.lit(""))
    return (
        pl.when(n == 0)
        .then(pl.format("no {} scores{}", pl.lit(group), dropped))
        .otherwise(
            pl.format(
                "{} has {} score{}{}; {} needs at least {} per group",
                pl.lit(group),
                n,
                pl.when(n == 1).then(pl.lit("")).otherwise(pl.lit("s")),
                dropped,
                pl.lit(needs),
                pl.lit(minimum),
            )
        )
    )


def experiment_stats(
    scores: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    alpha: float | None = None,
    test: str = "welch",
) -> pl.DataFrame:
    """Welch's t-test (or another test) of treatment vs control for every experiment x metric.

    Args:
        scores: the long scores frame (experiment, group, metric, unit, score, ...), as
            :func:`toolkit.load_experiments` returns it in ``.scores``.
        rubric: the rubric's alpha, minimum group size and display rules.
        alpha: overrides the rubric's alpha for this call (recorded in the ``alpha``
            column of every row).
        test: one of :data:`TESTS`: ``welch`` (the default), ``student``,
            ``mannwhitney``, ``ks`` or ``chisquare``; each from :mod:`scipy.stats`.

    Returns:
        One row per experiment x metric (experiments in order of first appearance,
        metrics in order of first appearance within each), schema
        :data:`toolkit.frames.EXPERIMENT_STATS_SCHEMA`: ``t_n``/``c_n`` non-null scores
        and ``t_nulls``/``c_nulls`` null scores dropped per group; ``t_mean``, ``t_sd``,
        ``c_mean``, ``c_sd``; ``delta`` = t_mean - c_mean; ``percent_change`` = 100 *
        delta / c_mean (as TinyTroupe: infinite when c_mean is 0, here with delta's
        sign; null for 0 / 0); ``se`` its standard error; ``t_stat`` =
        delta / se; ``df`` Welch-Satterthwaite; ``test`` the test's key; ``statistic``
        its statistic (:data:`STATISTIC_NAMES`); ``p_value`` two-sided; ``cohens_d`` =
        delta / pooled sd; ``ci_low``/``ci_high`` the 1 - alpha interval for delta;
        ``median_delta`` = median(T) - median(C) and ``prob_superiority`` = P(T > C), the
        share of (treatment, control) pairs where the treatment scores higher, ties
        counted as losses (TinyTroupe's effect size; ``mannwhitney`` only);
        ``cramers_v`` = sqrt(chi2 / (n (min(rows, columns) - 1))) (``chisquare`` only);
        ``significant`` = p < alpha; ``absent_reason`` why the test (or more) is
        missing, null when everything is there.

        With ``test="student"`` se, t_stat, df and the interval are the pooled-variance
        ones (df = n_t + n_c - 2); with ``mannwhitney`` (U of the treatment), ``ks`` (D)
        and ``chisquare`` (chi2 over a 2 x k table of score counts, with Yates'
        continuity correction when the table is 2 x 2, as scipy and TinyTroupe apply it;
        df its degrees of freedom) there is no t, se or interval, and the columns are
        null.
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    level = rubric.alpha if alpha is None else alpha
    if not 0 < level < 1:
        raise ValueError(f"alpha must lie strictly between 0 and 1, not {level}")
    minimum = rubric.min_per_group
    wide = _difference_columns(_wide(scores), minimum)
    if test == "welch":
        wide = _welch_test(wide, level, minimum)
        undefined: pl.Expr = (
            pl.when(_constant_apart(minimum))
            .then(pl.lit(CONSTANT_APART))
            .when(~_testable(minimum))
            .then(pl.lit(CONSTANT_EQUAL))
        )
    else:
        wide = _other_test(wide, scores, test, level, _enough(minimum))
        undefined = pl.when(pl.col("p_value").is_null()).then(
            pl.lit(f"{_NEEDS[test]} gives no result for these scores ({_UNDEFINED[test]})")
        )
    collapsed = pl.col("se") == 0  # no spread: the interval is the difference itself
    return (
        wide.with_columns(
            ci_low=pl.when(collapsed)
            .then(pl.col("delta"))
            .otherwise(pl.col("delta") - pl.col("crit") * pl.col("se")),
            ci_high=pl.when(collapsed)
            .then(pl.col("delta"))
            .otherwise(pl.col("delta") + pl.col("crit") * pl.col("se")),
            alpha=pl.lit(level, dtype=pl.Float64),
            test=pl.lit(test),
            significant=pl.col("p_value") < level,
            absent_reason=_absent_reason(test, minimum, undefined),
        )
        .select(list(EXPERIMENT_STATS_SCHEMA))
        .cast(EXPERIMENT_STATS_SCHEMA)  # type: ignore[arg-type]
    )


def _wide(scores: pl.DataFrame) -> pl.DataFrame:
    """One row per experiment x metric (:func:`ordered_keys`) with both groups'
    summaries side by side: ``t_n``, ``t_nulls``, ``t_mean``, ``t_sd`` and ``c_...``."""
    summaries = group_summaries(scores)
    return (
        ordered_keys(scores)
        .join(_arm(summaries, "treatment", "t"), on=["experiment", "metric"], how="left")
        .join(_arm(summaries, "control", "c"), on=["experiment", "metric"], how="left")
        .with_columns(pl.col("t_n", "c_n", "t_nulls", "c_nulls").fill_null(0))
    )


def _enough(minimum: int) -> pl.Expr:
    """Both groups have at least ``minimum`` scores."""
    return (pl.col("t_n") >= minimum) & (pl.col("c_n") >= minimum)


def _mean_variances() -> tuple[pl.Expr, pl.Expr]:
    """The variance of each group's mean, sd^2 / n (treatment, control)."""
    t_n, c_n = pl.col("t_n").cast(pl.Float64), pl.col("c_n").cast(pl.Float64)
    return pl.col("t_sd") ** 2 / t_n, pl.col("c_sd") ** 2 / c_n


#: Welch's test on two constant groups (sd 0 each) with different means: the difference
#: is certain, t = ±∞ and p = 0, as scipy's ``ttest_ind`` and TinyTroupe report them.
CONSTANT_APART = (
    "both groups constant (sd 0) with different means: t = ±∞, p = 0 (as scipy); "
    "Cohen's d and df are undefined (no spread)"
)
#: ... and with equal means: 0 / 0, no test.
CONSTANT_EQUAL = "both groups constant (sd 0) with equal means: t is undefined (0 / 0), no test"


def _constant_apart(minimum: int) -> pl.Expr:
    """Enough scores, no spread in either group, and different means."""
    v_t, v_c = _mean_variances()
    return _enough(minimum) & ((v_t + v_c) == 0) & (pl.col("t_mean") != pl.col("c_mean"))


def _testable(minimum: int) -> pl.Expr:
    """Enough scores in both groups and some spread: Welch's t is defined."""
    v_t, v_c = _mean_variances()
    return _enough(minimum) & ((v_t + v_c) > 0)


def _difference_columns(wide: pl.DataFrame, minimum: int) -> pl.DataFrame:
    """``wide`` with delta, percent_change, Welch's se and df, the pooled sd, t and
    Cohen's d (null where the groups are too small or do not vary)."""
    t_n, c_n = pl.col("t_n").cast(pl.Float64), pl.col("c_n").cast(pl.Float64)
    t_var, c_var = pl.col("t_sd") ** 2, pl.col("c_sd") ** 2
    enough, testable = _enough(minimum), _testable(minimum)
    v_t, v_c = _mean_variances()
    return wide.with_columns(
        delta=pl.when((pl.col("t_n") > 0) & (pl.col("c_n") > 0)).then(
            pl.col("t_mean") - pl.col("c_mean")
        ),
        # TinyTroupe's rule: infinite when the control mean is 0 (with Δ's sign here;
        # 0 / 0, no change from 0, stays null).
        percent_change=pl.when((pl.col("t_n") == 0) | (pl.col("c_n") == 0))
        .then(None)
        .when(pl.col("c_mean") != 0)
        .then(100.0 * (pl.col("t_mean") - pl.col("c_mean")) / pl.col("c_mean"))
        .when(pl.col("t_mean") > 0)
        .then(float("inf"))
        .when(pl.col("t_mean") < 0)
        .then(float("-inf")),
        se=pl.when(enough).then((v_t + v_c).sqrt()),
        df=pl.when(testable).then((v_t + v_c) ** 2 / (v_t**2 / (t_n - 1) + v_c**2 / (c_n - 1))),
        pooled=pl.when(enough).then(
            (((t_n - 1) * t_var + (c_n - 1) * c_var) / (t_n + c_n - 2)).sqrt()
        ),
    ).with_columns(
        t_stat=pl.when(testable)
        .then(pl.col("delta") / pl.col("se"))
        .when(_constant_apart(minimum))
        .then(pl.col("delta").sign() * float("inf")),
        cohens_d=pl.when(testable & (pl.col("pooled") > 0)).then(
            pl.col("delta") / pl.col("pooled")
        ),
    )


def _welch_test(wide: pl.DataFrame, level: float, minimum: int) -> pl.DataFrame:
    """Welch's two-sided p and the interval's critical t, both looked up in scipy's t
    distribution for the whole column at once; p = 0 for two constant groups apart
    (:data:`CONSTANT_APART`)."""
    from scipy import stats

    t_values = to_numpy(wide["t_stat"])
    dfs = to_numpy(wide["df"])
    with np.errstate(invalid="ignore"):
        p = 2.0 * stats.t.sf(np.abs(t_values), dfs)
        crit = stats.t.ppf(1.0 - level / 2.0, dfs)
    return wide.with_columns(
        from_numpy("p_value", p),
        from_numpy("crit", crit),
    ).with_columns(
        pl.when(_constant_apart(minimum)).then(0.0).otherwise(pl.col("p_value")).alias("p_value"),
        statistic=pl.col("t_stat"),
        median_delta=pl.lit(None, dtype=pl.Float64),
        prob_superiority=pl.lit(None, dtype=pl.Float64),
        cramers_v=pl.lit(None, dtype=pl.Float64),
    )


def _absent_reason(test: str, minimum: int, undefined: pl.Expr) -> pl.Expr:
    """Why a row has no test: no scores, too few in a group, or ``undefined``."""
    needs = _NEEDS[test]
    return (
        pl.when((pl.col("t_n") == 0) & (pl.col("c_n") == 0))
        .then(pl.lit("no scores in either group"))
        .when(pl.col("t_n") < minimum)
        .then(_few_reason("t", "treatment", minimum, needs))
        .when(pl.col("c_n") < minimum)
        .then(_few_reason("c", "control", minimum, needs))
        .otherwise(undefined)
    )


class _Outcome(NamedTuple):
    """One row's numbers of a test other than Welch's (None where it gives none)."""

    statistic: float | None = None
    p_value: float | None = None
    df: float | None = None
    median_delta: float | None = None
    prob_superiority: float | None = None
    cramers_v: float | None = None


def _other_test(
    wide: pl.DataFrame, scores: pl.DataFrame, test: str, level: float, enough: pl.Expr
) -> pl.DataFrame:
    """The columns of a test other than Welch's, each number from :mod:`scipy.stats`.

    One scipy call per experiment x metric (groups differ in size, so the tests cannot
    be vectorised); everything else stays column-wise.
    """
    lists = score_lists(scores)
    ok = wide.select(enough.alias("ok"))["ok"].to_list()
    outcomes: list[_Outcome] = []
    for row, run in zip(wide.iter_rows(named=True), ok, strict=True):
        key = (row["experiment"], row["metric"])
        t = np.asarray(lists.get((*key, "treatment"), []), dtype=float)
        c = np.asarray(lists.get((*key, "control"), []), dtype=float)
        outcomes.append(_one_test(test, t, c) if run else _Outcome())
    out = wide.with_columns(
        **{
            name: pl.Series([o[i] for o in outcomes], dtype=pl.Float64)
            for i, name in enumerate(_Outcome._fields)
        }
    )
    if test == "student":
        return _student_interval(out, level)
    return out.with_columns(
        se=pl.lit(None, dtype=pl.Float64),
        t_stat=pl.lit(None, dtype=pl.Float64),
        crit=pl.lit(None, dtype=pl.Float64),
    )


def _one_test(test: str, t: Floats, c: Floats) -> _Outcome:
    """The numbers of ``test`` (not Welch's) for treatment scores ``t`` and control
    scores ``c`` (scipy's warnings silenced: an undefined result is a null)."""
    from scipy import stats

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if test == "student":
            res = stats.ttest_ind(t, c, equal_var=True)
            return _Outcome(_defined(res.statistic), _defined(res.pvalue), float(res.df))
        if test == "mannwhitney":
            res = stats.mannwhitneyu(t, c, alternative="two-sided")
            # TinyTroupe's common-language effect size: the share of (T, C) pairs
            # in which the treatment score is higher, ties counted as losses.
            return _Outcome(
                _defined(res.statistic),
                _defined(res.pvalue),
                median_delta=float(np.median(t) - np.median(c)),
                prob_superiority=float(np.mean(t[:, None] > c[None, :])),
            )
        if test == "ks":
            res = stats.ks_2samp(t, c, alternative="two-sided")
            return _Outcome(_defined(res.statistic), _defined(res.pvalue))
        # chisquare: the score values are the categories
        values = np.unique(np.concatenate([t, c]))
        if values.size < 2:
            return _Outcome()
        table = np.array([[np.sum(t == v) for v in values], [np.sum(c == v) for v in values]])
        # scipy's default, as TinyTroupe calls it: Yates' continuity
        # correction when the table has one degree of freedom (2 x 2).
        res = stats.chi2_contingency(table, correction=True)
        s = float(res.statistic)
        cells = float(table.sum()) * (min(table.shape) - 1)
        v = math.sqrt(s / cells) if cells > 0 else None
        return _Outcome(_defined(s), _defined(res.pvalue), float(res.dof), cramers_v=v)


def _defined(value: float) -> float | None:
    """``value`` as a float, None when it is NaN."""
    number = float(value)
    return None if math.isnan(number) else number


def _student_interval(out: pl.DataFrame, level: float) -> pl.DataFrame:
    """Student's pooled standard error, t and the interval's critical t (df n_t + n_c - 2)."""
    from scipy import stats

    t_n, c_n = pl.col("t_n").cast(pl.Float64), pl.col("c_n").cast(pl.Float64)
    out = out.with_columns(
        se=pl.when(pl.col("p_value").is_not_null()).then(
            pl.col("pooled") * (1.0 / t_n + 1.0 / c_n).sqrt()
        ),
        t_stat=pl.col("statistic"),
    )
    with np.errstate(invalid="ignore"):
        crit = stats.t.ppf(1.0 - level / 2.0, to_numpy(out["df"]))
    return out.with_columns(from_numpy("crit", crit))
