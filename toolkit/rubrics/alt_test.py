"""Can the judge take a rater's seat? The alternative-annotator test (Calderon, Reichart
& Dror, ACL 2025).

Over the calibration frame (item, rater, score; the judge is one rater id, every other
rater is a person), leave one person out at a time (leave-one-rater-out). On each item
the left-out person j rated, with at least one other person on it, compare two
alignments with the *other* people's scores of the item:

* ``S(judge)``: the judge's alignment with the others,
* ``S(j)``: person j's alignment with the others,

by the alignment scoring of the paper's reference implementation: ``neg_rmse`` (minus
the root mean squared difference from the others' scores; numeric ratings) or
``accuracy`` (the share of the others who gave the same score; categories). The judge
wins the item when ``S(judge) >= S(j)``, the person when ``S(j) >= S(judge)`` (a tie is
a win for both). The advantage probabilities are the win rates over j's items:
``rho_judge`` and ``rho_rater``. Per person the null ``rho_judge <= rho_rater - epsilon``
is tested against ``rho_judge > rho_rater - epsilon`` by a one-sided one-sample t-test
of the per-item differences ``d = W(j) - W(judge)`` against ``epsilon`` (a paired test:
``mean(d) < epsilon``), and the p-values of all people go through the
Benjamini-Yekutieli procedure at ``q`` = 0.05 (false discovery rate under any
dependence). The **winning rate** is the share of people whose null is rejected; the
judge passes when it is at least 0.5. The **average advantage probability** (the mean
of ``rho_judge``) compares judges.

``epsilon`` is the cost-benefit allowance (the paper's rule of thumb: 0.2 for expert
raters, 0.15 for skilled ones, 0.1 for crowd workers). docs/rubrics/estimate.md says
what the numbers mean and how this differs from the reference implementation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl

from toolkit.errors import InputError
from toolkit.rubrics.estimate import checked_scores
from toolkit.summary import Shows, Summary, plural

ALT_TEST_VERSION = "1.0.0"
#: The paper's allowance for expert raters (and its reference implementation's default).
DEFAULT_EPSILON = 0.2
#: The false discovery rate the Benjamini-Yekutieli procedure holds.
DEFAULT_Q = 0.05
#: The judge passes when it wins against at least this share of the people.
PASS_WINNING_RATE = 0.5
#: Below this many items a person's t-test leans on a normality it does not have (the
#: paper asks for at least 30 items per person).
MIN_ITEMS = 30
Scoring = Literal["neg_rmse", "accuracy"]
SCORINGS: tuple[str, ...] = ("neg_rmse", "accuracy")
#: The columns of :attr:`AltTest.raters`.
ALT_TEST_SCHEMA: dict[str, pl.DataType] = {
    "rater": pl.String(),
    "items": pl.Int64(),
    "rho_judge": pl.Float64(),
    "rho_rater": pl.Float64(),
    "p_value": pl.Float64(),
    "p_adjusted": pl.Float64(),
    "rejected": pl.Boolean(),
    "note": pl.String(),
}
#: The columns of :func:`leave_one_out`.
INDICATOR_SCHEMA: dict[str, pl.DataType] = {
    "rater": pl.String(),
    "item": pl.String(),
    "others": pl.Int64(),
    "s_judge": pl.Float64(),
    "s_rater": pl.Float64(),
    "w_judge": pl.Int64(),
    "w_rater": pl.Int64(),
}


# ---------------------------------------------------------------------------
# The steps, one function each
# ---------------------------------------------------------------------------


def leave_one_out(
    scores: pl.DataFrame, *, judge: str = "judge", scoring: Scoring = "neg_rmse"
) -> pl.DataFrame:
    """The leave-one-rater-out comparisons (:data:`INDICATOR_SCHEMA`): per person and per
    item they rated that the judge scored and at least one other person rated, the
    number of ``others``, the judge's and the person's alignment with them
    (``s_judge``, ``s_rater``) and who wins (``w_judge``, ``w_rater``: 1 at or above the
    other's alignment, so a tie counts for both). In rater, then item order.

    Raises:
        InputError: a missing column, a judge id that is no rater, an unknown scoring.
    """
    if scoring not in SCORINGS:
        raise InputError(None, f"must be one of {', '.join(SCORINGS)}", field="scoring",
                         value=scoring)  # fmt: skip
    long = _long(scores, judge)
    judged = long.filter(pl.col("rater") == judge).select("item", pl.col("score").alias("x"))
    people = long.filter(pl.col("rater") != judge).join(judged, on="item", how="inner")
    # one row per item, left-out person j and other person k: items x m(m-1) rows, every
    # alignment computed from the same rows in the same order, so an exact tie stays one
    pairs = (
        people.select("item", "rater", pl.col("score").alias("s_j"), "x")
        .join(
            people.select("item", pl.col("rater").alias("k"), pl.col("score").alias("s_k")),
            on="item",
        )
        .filter(pl.col("rater") != pl.col("k"))
    )
    if scoring == "accuracy":
        judge_fit = (pl.col("x") == pl.col("s_k")).cast(pl.Float64).mean()
        rater_fit = (pl.col("s_j") == pl.col("s_k")).cast(pl.Float64).mean()
    else:
        judge_fit = -((pl.col("x") - pl.col("s_k")) ** 2).mean().sqrt()
        rater_fit = -((pl.col("s_j") - pl.col("s_k")) ** 2).mean().sqrt()
    out = (
        pairs.group_by("rater", "item")
        .agg(
            pl.len().cast(pl.Int64).alias("others"),
            judge_fit.alias("s_judge"),
            rater_fit.alias("s_rater"),
        )
        .with_columns(
            (pl.col("s_judge") >= pl.col("s_rater")).cast(pl.Int64).alias("w_judge"),
            (pl.col("s_rater") >= pl.col("s_judge")).cast(pl.Int64).alias("w_rater"),
        )
        .sort("rater", "item")
    )
    return out.select(list(INDICATOR_SCHEMA)).cast(INDICATOR_SCHEMA)  # type: ignore[arg-type]


def one_sided_p(d: np.ndarray, epsilon: float) -> float:
    """The p-value of ``mean(d) >= epsilon`` against ``mean(d) < epsilon``: SciPy's
    one-sample t-test (``alternative="less"``). Differences that do not vary have no
    t statistic (the t-test's limit, p = 0, would call two tied items proof); their p
    is the exact sign test's instead: every one of the n differences below ``epsilon``
    has probability 0.5**n when the median is ``epsilon`` (1 when none is below)."""
    if d.size < 2:
        return math.nan
    if np.all(d == d[0]):
        return 0.5 ** int(d.size) if d[0] < epsilon else 1.0
    # the t distribution (scipy.stats: about 1 s of imports that `toolkit calibrate
    # --help` and `import toolkit` never pay)
    from scipy import stats

    return float(stats.ttest_1samp(d, epsilon, alternative="less").pvalue)


def by_rejections(p_values: np.ndarray, q: float = DEFAULT_Q) -> tuple[np.ndarray, np.ndarray]:
    """The Benjamini-Yekutieli step-up procedure at false discovery rate ``q``: (the
    adjusted p-values, which nulls are rejected). SciPy's ``false_discovery_control``
    (``method="by"``) adjusts; a null is rejected when its adjusted p is at most ``q``,
    which is the step-up rule ``p_(k) <= k q / (m H_m)``. A missing p is never rejected
    and does not count in m."""
    p = np.asarray(p_values, float)
    adjusted = np.full(p.shape, np.nan)
    present = ~np.isnan(p)
    if present.any():
        # the BY adjustment (scipy.stats: about 1 s of imports, paid only here)
        from scipy import stats

        adjusted[present] = stats.false_discovery_control(p[present], method="by")
    with np.errstate(invalid="ignore"):
        return adjusted, np.where(present, adjusted <= q, False)


# ---------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class AltTest(Shows):
    """The alternative-annotator test of a judge against the people.

    Attributes:
        raters: one row per person (:data:`ALT_TEST_SCHEMA`): the ``items`` compared,
            the advantage probabilities ``rho_judge`` and ``rho_rater``, the one-sided
            ``p_value``, the Benjamini-Yekutieli ``p_adjusted``, whether the null
            ``rho_judge <= rho_rater - epsilon`` is ``rejected`` (the judge wins this
            person), and a ``note`` (too few items) or null.
        judge: the judge's rater id.
        epsilon: the cost-benefit allowance.
        q: the false discovery rate.
        scoring: the alignment scoring (``neg_rmse`` or ``accuracy``).
        winning_rate: the share of people the judge wins (None: no person tested).
        advantage: the average advantage probability, the mean of ``rho_judge``.
    """

    raters: pl.DataFrame
    judge: str
    epsilon: float
    q: float
    scoring: str
    winning_rate: float | None
    advantage: float | None

    @property
    def passed(self) -> bool | None:
        """Whether the winning rate is at least 0.5 (None: no person could be tested)."""
        return None if self.winning_rate is None else self.winning_rate >= PASS_WINNING_RATE

    def _summary(self) -> Summary:
        verdict = {True: "passes", False: "fails", None: "undefined"}[self.passed]
        rate = "undefined" if self.winning_rate is None else f"{self.winning_rate:.2f}"
        adv = "undefined" if self.advantage is None else f"{self.advantage:.2f}"
        return Summary(
            "AltTest",
            f"judge {self.judge!r} {verdict} against {self._against()}",
            (("winning rate:", rate), ("advantage:", adv), ("epsilon:", f"{self.epsilon:g}")),
            notes=tuple(n for n in self.raters["note"].drop_nulls().unique(maintain_order=True)),
            notes_title="warning",
            columns=("rater", "items", "rho judge", "rho rater", "p (BY)", "judge wins"),
            rows=tuple(
                (
                    str(r["rater"]),
                    str(r["items"]),
                    _show(r["rho_judge"]),
                    _show(r["rho_rater"]),
                    _show(r["p_adjusted"], 4),
                    "yes" if r["rejected"] else "no",
                )
                for r in self.raters.iter_rows(named=True)
            ),
        )

    def _against(self) -> str:
        """Whom the verdict is against: the tested people, and how many were not."""
        everyone = self.raters.height
        tested = self.raters["p_value"].drop_nulls().len()
        if tested == everyone:
            return plural(everyone, "person", "people")
        return f"{tested} of {plural(everyone, 'person', 'people')} ({everyone - tested} untested)"

    def to_dict(self) -> dict[str, Any]:
        """Every number as plain JSON-able data (the JSON output)."""
        return {
            "test": "alt-test",
            "version": ALT_TEST_VERSION,
            "judge": self.judge,
            "epsilon": self.epsilon,
            "q": self.q,
            "scoring": self.scoring,
            "min_items": MIN_ITEMS,
            "winning_rate": self.winning_rate,
            "advantage": self.advantage,
            "passed": self.passed,
            "raters": self.raters.to_dicts(),
        }


def _show(value: float | None, digits: int = 2) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


# ---------------------------------------------------------------------------
# The test
# ---------------------------------------------------------------------------


def alt_test(
    scores: pl.DataFrame,
    *,
    judge: str = "judge",
    epsilon: float = DEFAULT_EPSILON,
    q: float = DEFAULT_Q,
    scoring: Scoring = "neg_rmse",
) -> AltTest:
    """The alternative-annotator test of ``judge`` against every person (module docs).

    Args:
        scores: item, rater, score and optional group columns (the calibration frame;
            a later row of the same item and rater replaces an earlier one).
        judge: the judge's rater id; every other rater is a person.
        epsilon: the cost-benefit allowance, from 0 to 1 (0.2: expert raters; 0.15
            skilled; 0.1 crowd workers).
        q: the false discovery rate of the Benjamini-Yekutieli step (0.05).
        scoring: ``neg_rmse`` (numeric ratings) or ``accuracy`` (categories).

    Raises:
        InputError: a missing column, an unknown judge or scoring, fewer than two people,
            an epsilon outside [0, 1] or a q outside (0, 1).
    """
    if not (isinstance(epsilon, int | float) and 0 <= epsilon <= 1):
        raise InputError(None, "must be from 0 to 1", field="--alt-epsilon", value=epsilon)
    if not 0 < q < 1:
        raise InputError(None, "must be between 0 and 1", field="q", value=q)
    indicators = leave_one_out(scores, judge=judge, scoring=scoring)
    people = sorted(set(_long(scores, judge)["rater"].to_list()) - {judge})
    if len(people) < 2:
        raise InputError(None, "the alternative-annotator test needs at least two people "
                         "besides the judge", field="rater", value=",".join(people))  # fmt: skip
    rows = []
    parts = {k[0]: v for k, v in indicators.partition_by("rater", as_dict=True).items()}
    empty = indicators.clear()
    for rater in people:
        part = parts.get(rater, empty)
        d = (part["w_rater"] - part["w_judge"]).to_numpy().astype(float)
        note = None
        if part.height < 2:
            note = f"{rater}: {plural(part.height, 'item')} to compare: not tested"
        elif part.height < MIN_ITEMS:
            note = (
                f"{rater}: {plural(part.height, 'item')}, below the {MIN_ITEMS} the t-test "
                "needs: its p-value is a rough guide"
            )
        rows.append({
            "rater": rater, "items": part.height,
            "rho_judge": float(part["w_judge"].mean()) if part.height else None,  # type: ignore[arg-type]
            "rho_rater": float(part["w_rater"].mean()) if part.height else None,  # type: ignore[arg-type]
            "p_value": one_sided_p(d, epsilon), "note": note,
        })  # fmt: skip
    p = np.array([r["p_value"] for r in rows], float)
    adjusted, rejected = by_rejections(p, q)
    for r, adj, rej in zip(rows, adjusted, rejected, strict=True):
        r["p_adjusted"] = None if math.isnan(adj) else float(adj)
        r["p_value"] = None if math.isnan(r["p_value"]) else r["p_value"]
        r["rejected"] = bool(rej)
    tested = [r for r in rows if r["p_value"] is not None]
    rhos = [r["rho_judge"] for r in tested]
    return AltTest(
        raters=pl.DataFrame(rows, schema=ALT_TEST_SCHEMA),
        judge=judge,
        epsilon=float(epsilon),
        q=q,
        scoring=scoring,
        winning_rate=sum(r["rejected"] for r in tested) / len(tested) if tested else None,
        advantage=float(np.mean(rhos)) if rhos else None,
    )


def _long(scores: pl.DataFrame, judge: str) -> pl.DataFrame:
    """item, rater (text), score (Float64), one row per item and rater (the last).

    Raises:
        InputError: a missing column, a score that is not a finite number (NaN sorts
            above every number in Polars: it would win every comparison), or a judge id
            that is no rater.
    """
    return checked_scores(scores, judge).select("item", "rater", "score")
