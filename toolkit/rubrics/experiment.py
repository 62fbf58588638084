"""Treatment-vs-control experiments: Welch's t-test per experiment and metric (or another
test from scipy: Student's t, Mann-Whitney U, Kolmogorov-Smirnov, chi-square; one-way
ANOVA over three or more groups), with Shapiro-Wilk and Levene assumption checks.

Per-group summaries (n, nulls, mean, sample sd) come from one Polars ``group_by`` over
the long scores frame; the test itself (difference, standard error, Welch-Satterthwaite
degrees of freedom, t, Cohen's d) is column-wise Polars expressions; only the two
t-distribution look-ups (two-sided p-value and the critical value for the interval) go
through :mod:`scipy.stats`, vectorised over the whole column.

Conventions (those of TinyTroupe's paper, arXiv:2507.09788): the difference is
**treatment - control**, sds are sample sds (n - 1), Cohen's d divides the difference by
the pooled sd (weights n - 1), the interval for the difference is Welch's with the same
degrees of freedom at confidence 1 - alpha, so it excludes 0 exactly when p < alpha.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import polars as pl
from pydantic import Field, model_validator

from toolkit.frames import EXPERIMENT_STATS_SCHEMA
from toolkit.rubrics._spec import RubricSpec, load_spec
from toolkit.scorecard import FAIL, NA, OK, WARN, Dimension, Scorecard

if TYPE_CHECKING:
    import numpy as np

#: A difference is rounded to this many decimals before its sign is taken, so float noise
#: around zero (1e-16) does not count as a direction.
SIGN_DECIMALS = 9

SIGNIFICANT, NOT_SIGNIFICANT = "SIGNIFICANT", "n.s."

#: The two-group tests :func:`experiment_stats` runs (``--test``), and how they are named
#: in reports. Welch's t is the default (TinyTroupe's and the paper's test).
TESTS: dict[str, str] = {
    "welch": "Welch's two-sided t-test",
    "student": "Student's two-sided t-test (equal variances)",
    "mannwhitney": "Mann-Whitney U test (two-sided)",
    "ks": "two-sample Kolmogorov-Smirnov test (two-sided)",
    "chisquare": "chi-square test of independence (each score value a category)",
}

#: What each test's ``statistic`` column holds.
STATISTIC_NAMES: dict[str, str] = {
    "welch": "t",
    "student": "t",
    "mannwhitney": "U",
    "ks": "D",
    "chisquare": "chi2",
}

_NEEDS = {
    "welch": "Welch's test",
    "student": "Student's t-test",
    "mannwhitney": "the Mann-Whitney U test",
    "ks": "the Kolmogorov-Smirnov test",
    "chisquare": "the chi-square test",
}

# ---------------------------------------------------------------------------
# The rubric as data
# ---------------------------------------------------------------------------


class ExperimentRubric(RubricSpec):
    """Every number of the experiment report (version 1.0.0 by default).

    Attributes:
        alpha: significance level; p < alpha is significant, and the interval for the
            difference has confidence 1 - alpha.
        min_per_group: scores a group needs before the test is run (at least 2: a
            sample sd needs two numbers).
        p_floor: p-values below this are shown as ``<p_floor`` (``<0.001``).
        decimals: decimals shown for means, sds and differences (p gets one more).
        reference_p_decimals: decimals a reference table states its p-values with; a
            stated p within half a unit of that last decimal of alpha cannot tell
            significance apart (``0.050`` at alpha 0.05) and is left undecided.
    """

    rubric: Literal["experiment"] = "experiment"
    version: str = "1.0.0"
    alpha: float = Field(default=0.05, gt=0, lt=1)
    min_per_group: int = Field(default=2, ge=2)
    p_floor: float = Field(default=0.001, gt=0, lt=1)
    decimals: int = Field(default=2, ge=0, le=6)
    reference_p_decimals: int = Field(default=3, ge=1, le=9)

    @model_validator(mode="after")
    def _floor_below_alpha(self) -> ExperimentRubric:
        if self.p_floor > self.alpha:
            raise ValueError("p_floor must not exceed alpha")
        return self


DEFAULT_RUBRIC = ExperimentRubric()
PUBLISHED: dict[str, ExperimentRubric] = {DEFAULT_RUBRIC.version: DEFAULT_RUBRIC}


def load_experiment_rubric(source: str | Path | Mapping[str, Any]) -> ExperimentRubric:
    """An experiment rubric from YAML (only changed keys needed), merged over 1.0.0.

    Raises:
        RubricError: invalid numbers, or numbers changed without a new ``version``.
    """
    return load_spec(ExperimentRubric, source, DEFAULT_RUBRIC, PUBLISHED)


# ---------------------------------------------------------------------------
# Rounding for display
# ---------------------------------------------------------------------------


def round_half_away(value: float | None, decimals: int = 2) -> float | None:
    """Round as papers do: half away from zero, on the number as Python prints it.

    The float's shortest decimal form (``repr``: 6.745, not the binary
    6.74499999999999957...) is rounded half away from zero in decimal, so 6.745 -> 6.75
    and -0.125 -> -0.13, where Python's ``round`` (half to even, on the binary value)
    gives 6.74 and -0.12. A difference that float subtraction left just short of a half
    (6.15 - 6.625 = -0.47499999999999964) rounds towards zero (-0.47), as it does in any
    program that prints the float it computed.
    """
    if value is None or math.isnan(value) or math.isinf(value):
        return None
    exact = Decimal(repr(float(value)))
    try:
        return float(exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))
    except InvalidOperation:  # more digits than decimal's precision: nothing to round
        return float(value)


def format_number(value: float | None, decimals: int = 2) -> str:
    """``value`` rounded half away from zero and printed with ``decimals`` decimals."""
    rounded = round_half_away(value, decimals)
    if rounded is None:
        return "-"
    text = f"{rounded:.{decimals}f}"
    return "0." + "0" * decimals if text == "-0." + "0" * decimals else text


def format_p(p: float | None, floor: float = 0.001, decimals: int = 3) -> str:
    """A p-value as in the paper: ``<0.001`` below the floor, else three decimals."""
    if p is None or math.isnan(p):
        return "-"
    if p < floor:
        return f"<{floor:g}"
    return format_number(p, decimals)


# ---------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------


def _group_summaries(scores: pl.DataFrame) -> pl.DataFrame:
    """n (non-null), nulls, mean and sample sd per experiment, metric and group."""
    return scores.group_by("experiment", "metric", "group", maintain_order=True).agg(
        n=pl.col("score").count().cast(pl.Int64),
        nulls=pl.col("score").null_count().cast(pl.Int64),
        mean=pl.col("score").mean(),
        sd=pl.col("score").std(ddof=1),
    )


def _arm(summaries: pl.DataFrame, group: str, prefix: str) -> pl.DataFrame:
    return summaries.filter(pl.col("group") == group).select(
        "experiment",
        "metric",
        pl.col("n").alias(f"{prefix}_n"),
        pl.col("nulls").alias(f"{prefix}_nulls"),
        pl.col("mean").alias(f"{prefix}_mean"),
        pl.col("sd").alias(f"{prefix}_sd"),
    )


def _to_numpy(series: pl.Series) -> np.ndarray[Any, np.dtype[np.float64]]:
    return series.cast(pl.Float64).fill_null(float("nan")).to_numpy()


def _from_numpy(name: str, values: np.ndarray[Any, np.dtype[np.float64]]) -> pl.Series:
    return pl.Series(name, values, dtype=pl.Float64).fill_nan(None)


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


def _ordered_keys(scores: pl.DataFrame) -> pl.DataFrame:
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


_UNDEFINED = {
    "student": "both groups have sd 0",
    "mannwhitney": "scipy returned no p-value",
    "ks": "scipy returned no p-value",
    "chisquare": "every score has the same value, so there is one category only",
}


def _score_lists(scores: pl.DataFrame) -> dict[tuple[str, str, str], list[float]]:
    """(experiment, metric, group) -> its non-null scores, in file order."""
    lists = scores.group_by("experiment", "metric", "group", maintain_order=True).agg(
        pl.col("score").drop_nulls()
    )
    return {
        (r["experiment"], r["metric"], str(r["group"])): r["score"]
        for r in lists.iter_rows(named=True)
    }


def _other_test(
    wide: pl.DataFrame, scores: pl.DataFrame, test: str, level: float, enough: pl.Expr
) -> pl.DataFrame:
    """The columns of a test other than Welch's, each number from :mod:`scipy.stats`.

    One scipy call per experiment x metric (groups differ in size, so the tests cannot
    be vectorised); everything else stays column-wise.
    """
    import numpy as np
    from scipy import stats

    lists = _score_lists(scores)
    ok = wide.select(enough.alias("ok"))["ok"].to_list()
    stat: list[float | None] = []
    pval: list[float | None] = []
    dof: list[float | None] = []
    median_delta: list[float | None] = []
    superiority: list[float | None] = []
    cramers: list[float | None] = []
    for row, run in zip(wide.iter_rows(named=True), ok, strict=True):
        key = (row["experiment"], row["metric"])
        t = np.asarray(lists.get((*key, "treatment"), []), dtype=float)
        c = np.asarray(lists.get((*key, "control"), []), dtype=float)
        s = p = d = md = ps = v = None
        if run:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if test == "student":
                    res = stats.ttest_ind(t, c, equal_var=True)
                    s, p, d = float(res.statistic), float(res.pvalue), float(res.df)
                elif test == "mannwhitney":
                    res = stats.mannwhitneyu(t, c, alternative="two-sided")
                    s, p = float(res.statistic), float(res.pvalue)
                    md = float(np.median(t) - np.median(c))
                    # TinyTroupe's common-language effect size: the share of (T, C) pairs
                    # in which the treatment score is higher, ties counted as losses.
                    ps = float(np.mean(t[:, None] > c[None, :]))
                elif test == "ks":
                    res = stats.ks_2samp(t, c, alternative="two-sided")
                    s, p = float(res.statistic), float(res.pvalue)
                else:  # chisquare: the score values are the categories
                    values = np.unique(np.concatenate([t, c]))
                    if values.size >= 2:
                        table = np.array(
                            [[np.sum(t == v) for v in values], [np.sum(c == v) for v in values]]
                        )
                        # scipy's default, as TinyTroupe calls it: Yates' continuity
                        # correction when the table has one degree of freedom (2 x 2).
                        res = stats.chi2_contingency(table, correction=True)
                        s, p, d = float(res.statistic), float(res.pvalue), float(res.dof)
                        cells = float(table.sum()) * (min(table.shape) - 1)
                        v = math.sqrt(s / cells) if cells > 0 else None
        stat.append(None if s is None or math.isnan(s) else s)
        pval.append(None if p is None or math.isnan(p) else p)
        dof.append(d)
        median_delta.append(md)
        superiority.append(ps)
        cramers.append(v)
    out = wide.with_columns(
        statistic=pl.Series(stat, dtype=pl.Float64),
        p_value=pl.Series(pval, dtype=pl.Float64),
        df=pl.Series(dof, dtype=pl.Float64),
        median_delta=pl.Series(median_delta, dtype=pl.Float64),
        prob_superiority=pl.Series(superiority, dtype=pl.Float64),
        cramers_v=pl.Series(cramers, dtype=pl.Float64),
    )
    if test == "student":
        t_n, c_n = pl.col("t_n").cast(pl.Float64), pl.col("c_n").cast(pl.Float64)
        out = out.with_columns(
            se=pl.when(pl.col("p_value").is_not_null()).then(
                pl.col("pooled") * (1.0 / t_n + 1.0 / c_n).sqrt()
            ),
            t_stat=pl.col("statistic"),
        )
        with np.errstate(invalid="ignore"):
            crit = stats.t.ppf(1.0 - level / 2.0, _to_numpy(out["df"]))
        return out.with_columns(_from_numpy("crit", crit))
    return out.with_columns(
        se=pl.lit(None, dtype=pl.Float64),
        t_stat=pl.lit(None, dtype=pl.Float64),
        crit=pl.lit(None, dtype=pl.Float64),
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
    import numpy as np
    from scipy import stats as sps

    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    level = rubric.alpha if alpha is None else alpha
    if not 0 < level < 1:
        raise ValueError(f"alpha must lie strictly between 0 and 1, not {level}")
    minimum = rubric.min_per_group
    keys = _ordered_keys(scores)
    summaries = _group_summaries(scores)
    wide = (
        keys.join(_arm(summaries, "treatment", "t"), on=["experiment", "metric"], how="left")
        .join(_arm(summaries, "control", "c"), on=["experiment", "metric"], how="left")
        .with_columns(pl.col("t_n", "c_n", "t_nulls", "c_nulls").fill_null(0))
    )
    t_n, c_n = pl.col("t_n").cast(pl.Float64), pl.col("c_n").cast(pl.Float64)
    t_var, c_var = pl.col("t_sd") ** 2, pl.col("c_sd") ** 2
    enough = (pl.col("t_n") >= minimum) & (pl.col("c_n") >= minimum)
    v_t, v_c = t_var / t_n, c_var / c_n
    testable = enough & ((v_t + v_c) > 0)
    wide = wide.with_columns(
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
        t_stat=pl.when(testable).then(pl.col("delta") / pl.col("se")),
        cohens_d=pl.when(testable & (pl.col("pooled") > 0)).then(
            pl.col("delta") / pl.col("pooled")
        ),
    )
    if test == "welch":
        t_values = _to_numpy(wide["t_stat"])
        dfs = _to_numpy(wide["df"])
        with np.errstate(invalid="ignore"):
            p = 2.0 * sps.t.sf(np.abs(t_values), dfs)
            crit = sps.t.ppf(1.0 - level / 2.0, dfs)
        wide = wide.with_columns(
            _from_numpy("p_value", p),
            _from_numpy("crit", crit),
            statistic=pl.col("t_stat"),
            median_delta=pl.lit(None, dtype=pl.Float64),
            prob_superiority=pl.lit(None, dtype=pl.Float64),
            cramers_v=pl.lit(None, dtype=pl.Float64),
        )
        undefined = pl.when(~testable).then(
            pl.lit("both groups have sd 0 (all scores equal within each group): t is undefined")
        )
    else:
        wide = _other_test(wide, scores, test, level, enough)
        undefined = pl.when(pl.col("p_value").is_null()).then(
            pl.lit(f"{_NEEDS[test]} gives no result for these scores ({_UNDEFINED[test]})")
        )
    needs = _NEEDS[test]
    reason = (
        pl.when((pl.col("t_n") == 0) & (pl.col("c_n") == 0))
        .then(pl.lit("no scores in either group"))
        .when(pl.col("t_n") < minimum)
        .then(_few_reason("t", "treatment", minimum, needs))
        .when(pl.col("c_n") < minimum)
        .then(_few_reason("c", "control", minimum, needs))
        .otherwise(undefined)
    )
    return (
        wide.with_columns(
            ci_low=pl.col("delta") - pl.col("crit") * pl.col("se"),
            ci_high=pl.col("delta") + pl.col("crit") * pl.col("se"),
            alpha=pl.lit(level, dtype=pl.Float64),
            test=pl.lit(test),
            significant=pl.col("p_value") < level,
            absent_reason=reason,
        )
        .select(list(EXPERIMENT_STATS_SCHEMA))
        .cast(EXPERIMENT_STATS_SCHEMA)  # type: ignore[arg-type]
    )


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
    import numpy as np
    from scipy import stats

    level = rubric.alpha if alpha is None else alpha
    minimum = rubric.min_per_group
    framed = scores.with_columns(
        family=pl.coalesce(pl.col("family"), pl.col("experiment"))
        if "family" in scores.columns
        else pl.col("experiment")
    )
    lists = _score_lists(framed)
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
            f, p = _finite(float(res.statistic)), _finite(float(res.pvalue))
            k, total = len(kept), sum(len(g) for _, g in kept)
            row.update(df_between=float(k - 1), df_within=float(total - k), f_stat=f, p_value=p)
            if f is None or p is None:
                row["absent_reason"] = "ANOVA is undefined: no spread within any group"
            else:
                row["eta_squared"] = f * (k - 1) / (f * (k - 1) + (total - k))
                row["significant"] = p < level
        rows.append(row)
    return pl.DataFrame(rows, schema=ANOVA_SCHEMA)


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


def _finite(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else float(value)


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
    import numpy as np
    from scipy import stats

    level = rubric.alpha if alpha is None else alpha
    lists = _score_lists(scores)
    keys = _ordered_keys(scores)
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
                    w, pw = _finite(res.statistic), _finite(res.pvalue)
                row[f"{prefix}_shapiro_w"], row[f"{prefix}_shapiro_p"] = w, pw
            lw = lp = None
            if t.size >= 2 and c.size >= 2:
                res = stats.levene(t, c)
                lw, lp = _finite(res.statistic), _finite(res.pvalue)
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


# ---------------------------------------------------------------------------
# Checks against other tables
# ---------------------------------------------------------------------------


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
    half_unit = 0.5 * 10.0 ** (-rubric.reference_p_decimals)

    def key() -> pl.Expr:
        return pl.concat_str(
            match_key_expr(pl.col("experiment")), match_key_expr(pl.col("metric")), separator="/"
        )

    ours = stats.select(
        "experiment", "metric", "delta", "significant", "alpha", _key=key(), _ours=pl.lit(True)
    )
    theirs = reference.select(
        pl.col("experiment").alias("ref_experiment"),
        pl.col("metric").alias("ref_metric"),
        pl.col("delta").alias("ref_delta"),
        pl.col("p_value").alias("_ref_p"),
        pl.col("p_below").alias("_ref_below"),
        _key=key(),
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
    return joined.select(list(DIRECTION_SCHEMA)).cast(DIRECTION_SCHEMA)  # type: ignore[arg-type]


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


# ---------------------------------------------------------------------------
# Scorecards (one per experiment, the shape every rubric returns)
# ---------------------------------------------------------------------------


def experiment_scorecards(
    stats: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    direction: pl.DataFrame | None = None,
) -> list[Scorecard]:
    """One :class:`~toolkit.Scorecard` per experiment, one dimension per metric.

    Each dimension's value is the difference (treatment - control); its status is
    ``SIGNIFICANT`` or ``n.s.`` (``N/A`` with the reason when absent), or, when a
    directional check ``direction`` is given, ``OK`` (agrees with the reference),
    ``FAIL`` (disagrees), ``WARN`` (undecidable) or ``N/A``. The detail holds the numbers:
    ``T 5.81 (1.66) vs C 6.72 (1.50), p<0.001``.
    """
    cards: list[Scorecard] = []
    d = rubric.decimals
    for experiment in stats["experiment"].unique(maintain_order=True).to_list():
        rows = stats.filter(pl.col("experiment") == experiment)
        checks: dict[str, dict[str, Any]] = {}
        if direction is not None:
            for r in direction.filter(pl.col("experiment") == experiment).iter_rows(named=True):
                checks[r["metric"]] = r
        dims: list[Dimension] = []
        for r in rows.iter_rows(named=True):
            numbers = (
                f"T {format_number(r['t_mean'], d)} ({format_number(r['t_sd'], d)}) vs "
                f"C {format_number(r['c_mean'], d)} ({format_number(r['c_sd'], d)}), "
                f"p {format_p(r['p_value'], rubric.p_floor)}"
            )
            if r["absent_reason"] is not None and r["significant"] is None:
                status, detail = NA, f"{r['absent_reason']}; {numbers}"
            elif direction is not None:
                check = checks.get(r["metric"])
                if check is None or check["ref_delta"] is None:
                    status, detail = NA, f"{numbers}; not in the reference"
                else:
                    agrees = check["agrees"]
                    status = OK if agrees else FAIL if agrees is False else WARN
                    detail = f"{numbers}; {check['detail']}"
            else:
                status = SIGNIFICANT if r["significant"] else NOT_SIGNIFICANT
                detail = numbers
            dims.append(
                Dimension(
                    key=match_key(r["metric"]),
                    name=r["metric"],
                    value=r["delta"],
                    status=status,
                    detail=detail,
                    green=f"p < {r['alpha']:g}",
                    red="",
                )
            )
        frame = Scorecard.dimensions_frame(experiment, dims)
        statuses = frame["status"].to_list()
        if direction is not None:
            bad = [n for n, s in zip(frame["name"], statuses, strict=True) if s == FAIL]
            verdict = "DIVERGES" if bad else "REPRODUCED"
            reason = ", ".join(bad)
        else:
            hits = [n for n, s in zip(frame["name"], statuses, strict=True) if s == SIGNIFICANT]
            verdict = f"{len(hits)}/{len(statuses)} SIGNIFICANT"
            reason = ", ".join(hits)
        cards.append(
            Scorecard(
                rubric=rubric.rubric,
                rubric_version=rubric.version,
                subject=experiment,
                title=f"{experiment} · treatment vs control (Welch's t-test)",
                verdict=verdict,
                verdict_reason=reason,
                dimensions=frame,
                meta={"alpha": rows["alpha"][0] if rows.height else rubric.alpha},
            )
        )
    return cards


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
    import numpy as np
    from scipy import stats as sps

    level = rubric.alpha if alpha is None else alpha
    summaries = _group_summaries(scores)
    n = summaries["n"].cast(pl.Float64).to_numpy()
    with np.errstate(invalid="ignore"):
        crit = sps.t.ppf(1.0 - level / 2.0, np.where(n >= 2, n - 1, np.nan))
    half = pl.col("crit") * pl.col("sd") / pl.col("n").cast(pl.Float64).sqrt()
    return (
        summaries.with_columns(_from_numpy("crit", crit))
        .with_columns(
            group=pl.col("group").cast(pl.String),
            ci_low=pl.col("mean") - half,
            ci_high=pl.col("mean") + half,
        )
        .select(list(INTERVALS_SCHEMA))
        .cast(INTERVALS_SCHEMA)  # type: ignore[arg-type]
    )
