"""Is version B better than A? Paired statistics over two sets of scored runs.

``compare`` is a rubric over scorecards: it reads the long frame every family's
scores turn into (:data:`toolkit.frames.COMPARE_SCORES_SCHEMA`: family, unit, run,
dimension, value, passed) for two arms, A and B, and says per dimension how far B
lands from A, with an interval, an exact test, an effect size and a correction across
dimensions. It never opens a file: :mod:`toolkit.fleet.compare` loads and scores the
folders and hands the frames here.

* **Pairing.** Rows of A and B with the same ``unit`` (a scenario, a task, a game,
  proposition x agent) are a pair; repeated runs of a unit are averaged within an arm.
  Units of one arm only are listed, never dropped silently. With no pair at all the
  comparison falls back to unpaired tests and says so.
* **Numeric dimensions:** means of both arms, the mean paired difference B - A with a
  seeded percentile bootstrap interval (:func:`scipy.stats.bootstrap`), Wilcoxon's
  signed-rank test (:func:`scipy.stats.wilcoxon`, exact where scipy computes it) or
  the paired t-test, the standardised effect d_z and the matched-pairs rank-biserial
  correlation. Unpaired: Mann-Whitney U or Welch's t, Cohen's d.
* **Pass/fail outcomes** (a verdict): the flip table of paired units, McNemar's exact
  test (a binomial test on the discordant pairs) and pass^k as tau-bench defines it
  (per unit C(c, k) / C(n, k), averaged over units) for k = 1..n.
* **Correction** across the dimensions of one comparison: Holm (default) or
  Benjamini-Hochberg (:func:`scipy.stats.false_discovery_control`).
* **Noise floor.** From A's repeated runs of one unit: the pooled within-unit standard
  deviation, how far two single runs land apart by chance (95 % of the time), and the
  same for this comparison's mean difference. A difference below it is "within noise"
  whatever its p-value.
* **Planning** (:func:`plan_pairs`): pairs per arm for 80 % power at a given minimum
  detectable effect, from a pilot set.
* **Gate** (:func:`gate_failures`): the dimensions significantly worse after
  correction, one reason line each with its interval.

The rubric is data (:class:`CompareRubric`, loadable from YAML with
:func:`load_compare_rubric`): the level alpha, the interval's confidence, the bootstrap
resamples and the directions (is higher better?) per family and dimension, versioned and
stamped into every result. docs/rubrics/compare.md says what every number means.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import polars as pl
from pydantic import Field

from toolkit._show import Shows, Summary, plural
from toolkit.errors import InputError
from toolkit.frames import (
    COMPARE_DIMENSIONS_SCHEMA,
    COMPARE_FLIPS_SCHEMA,
    COMPARE_NOISE_SCHEMA,
    COMPARE_PASS_K_SCHEMA,
    COMPARE_PLAN_SCHEMA,
    COMPARE_SCORES_SCHEMA,
)
from toolkit.rubrics._spec import RubricSpec, load_spec

COMPARE_VERSION = "1.0.0"
FAMILIES: tuple[str, ...] = ("simulation", "outcome", "discussion", "persona")
TESTS: tuple[str, ...] = ("wilcoxon", "t")
CORRECTIONS: tuple[str, ...] = ("holm", "bh")
#: The pseudo-dimension holding each run's pass/fail verdict.
VERDICT = "verdict"

#: Per family: dimension -> +1 (higher is better), -1 (lower is better), 0 (a band: a
#: change is reported but is neither better nor worse). ``"*"`` is the default of
#: dimensions not named.
Direction = Literal[-1, 0, 1]

DIRECTIONS: Mapping[str, Mapping[str, Direction]] = {
    "simulation": {
        "groundedness": 1,
        "character_stability": 1,
        "action_coherence": 1,
        "refusal_cluster": -1,
        "vocabulary_growth": 0,  # a band: 0.5..2.5 novel verbs per 10 ticks is healthy
        "conservation_drift": -1,
        "graph_fanout": 1,
        "novel_subtype_rate": 0,  # informational in the simulation rubric
        VERDICT: 1,
        "*": 0,
    },
    "outcome": {"*": 1},
    "discussion": {"*": 1},
    "persona": {"*": 1},
}

#: Pairing keys each family offers, in the order the default pairing tries them.
PAIR_KEYS: Mapping[str, tuple[str, ...]] = {
    "simulation": ("scenario", "seed", "slug"),
    "outcome": ("task", "run"),
    "discussion": ("game_id",),
    "persona": ("proposition_agent",),
}

#: A unit passes a pass/fail dimension when more than this share of its runs passed.
MAJORITY = 0.5


class CompareRubric(RubricSpec):
    """The compare rubric's data (version 1.0.0 by default; YAML overrides with
    :func:`load_compare_rubric`, a changed number needs a new version).

    Attributes:
        alpha: significance level after correction.
        level: the bootstrap interval's confidence (and the noise floor's).
        resamples: bootstrap resamples (0: no interval).
        majority: a unit passes a pass/fail outcome when more than this share of its
            runs passed.
        directions: per family, dimension -> +1 / -1 / 0 (``"*"``: the default).
    """

    rubric: str = "compare"
    version: str = COMPARE_VERSION
    alpha: float = Field(default=0.05, gt=0, lt=1)
    level: float = Field(default=0.95, gt=0, lt=1)
    resamples: int = Field(default=9999, ge=0)
    majority: float = Field(default=MAJORITY, ge=0, lt=1)
    directions: dict[str, dict[str, Direction]] = Field(
        default_factory=lambda: {f: dict(d) for f, d in DIRECTIONS.items()}
    )

    def direction_of(
        self, family: str, dimension: str, overrides: Mapping[str, int] | None = None
    ) -> int:
        """+1, -1 or 0 for ``dimension`` of ``family`` (``overrides`` first)."""
        if overrides and dimension in overrides:
            return int(overrides[dimension])
        table = self.directions.get(family, {"*": 0})
        return int(table.get(dimension, table.get("*", 0)))


DEFAULT_COMPARE_RUBRIC = CompareRubric()


def load_compare_rubric(source: str | Path | Mapping[str, Any]) -> CompareRubric:
    """A compare rubric from YAML (a path) or a mapping, merged over version 1.0.0.

    Raises:
        RubricError: one line naming the file, the field and the value (a changed
            number under a published version too).
    """
    return load_spec(
        CompareRubric, source, DEFAULT_COMPARE_RUBRIC, {COMPARE_VERSION: DEFAULT_COMPARE_RUBRIC}
    )


def direction_of(family: str, dimension: str, overrides: Mapping[str, int] | None = None) -> int:
    """+1, -1 or 0 for ``dimension`` of ``family`` in rubric 1.0.0 (``overrides`` first)."""
    return DEFAULT_COMPARE_RUBRIC.direction_of(family, dimension, overrides)


# ---------------------------------------------------------------------------
# The statistics, one function each (tests check each against its definition)
# ---------------------------------------------------------------------------


def holm(p: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order.

    The i-th smallest of m p-values is multiplied by (m - i + 1), the running maximum
    keeps the order, and values are capped at 1.
    """
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def adjust(p: Sequence[float], correction: str) -> list[float]:
    """``p`` adjusted across dimensions: ``holm`` or ``bh`` (Benjamini-Hochberg)."""
    if not p:
        return []
    if correction == "holm":
        return holm(p)
    if correction == "bh":
        from scipy.stats import false_discovery_control

        return [float(v) for v in false_discovery_control(np.asarray(p, float), method="bh")]
    raise InputError(
        None, f"must be one of {', '.join(CORRECTIONS)}", field="--correction", value=correction
    )


def mcnemar_exact(pass_to_fail: int, fail_to_pass: int) -> float:
    """McNemar's exact two-sided p-value: a binomial test of the discordant pairs
    against 1/2 (:func:`scipy.stats.binomtest`); 1.0 when no pair flipped."""
    from scipy.stats import binomtest

    n = pass_to_fail + fail_to_pass
    if n == 0:
        return 1.0
    return float(binomtest(fail_to_pass, n, 0.5).pvalue)


def pass_hat_k(counts: Sequence[tuple[int, int]], k: int) -> float | None:
    """pass^k as tau-bench defines it: the mean over units of C(c, k) / C(n, k), where a
    unit passed c of its n runs; units with fewer than k runs are left out (``None``
    when none is left)."""
    terms = [math.comb(c, k) / math.comb(n, k) for n, c in counts if n >= k]
    return sum(terms) / len(terms) if terms else None


def rank_biserial_paired(d: np.ndarray[Any, np.dtype[np.float64]]) -> float | None:
    """The matched-pairs rank-biserial correlation (T+ - T-) / (T+ + T-) over the
    nonzero differences, ranked by absolute value (ties share their mean rank)."""
    from scipy.stats import rankdata

    nz = d[d != 0]
    if nz.size == 0:
        return None
    ranks = rankdata(np.abs(nz))
    plus, minus = float(ranks[nz > 0].sum()), float(ranks[nz < 0].sum())
    return (plus - minus) / (plus + minus)


def bootstrap_interval(
    samples: Sequence[np.ndarray[Any, np.dtype[np.float64]]],
    rng: np.random.Generator,
    level: float,
    resamples: int,
) -> tuple[float | None, float | None]:
    """A percentile bootstrap interval (:func:`scipy.stats.bootstrap`) of the mean of one
    sample (paired differences) or of mean(B) - mean(A) (two independent samples)."""
    from scipy.stats import bootstrap

    if resamples < 1 or any(s.size < 2 for s in samples):  # 0 resamples: no interval
        return None, None
    if len(samples) == 1:
        d = samples[0]
        if np.all(d == d[0]):
            return float(d[0]), float(d[0])
        res = bootstrap(
            (d,), np.mean, n_resamples=resamples, confidence_level=level,
            method="percentile", rng=rng, vectorized=True,
        )  # fmt: skip
    else:

        def diff(x: Any, y: Any, axis: int = -1) -> Any:
            return np.mean(y, axis=axis) - np.mean(x, axis=axis)

        res = bootstrap(
            tuple(samples), diff, n_resamples=resamples, confidence_level=level,
            method="percentile", rng=rng, vectorized=True, paired=False,
        )  # fmt: skip
    ci = res.confidence_interval
    return float(ci.low), float(ci.high)


@dataclass(frozen=True)
class TestResult:
    """One test's numbers (``None`` where the data cannot give them, with ``note``)."""

    name: str
    statistic: float | None
    p: float | None
    effect: float | None
    rank_biserial: float | None
    note: str = ""


#: Up to this many nonzero differences with ties, Wilcoxon's p enumerates every sign
#: assignment (2^n of them): the exact permutation distribution of the mid-ranks.
EXACT_TIES_MAX = 16


def wilcoxon_test(
    d: np.ndarray[Any, np.dtype[np.float64]], dz: float | None, rb: float | None
) -> TestResult:
    """Wilcoxon's signed-rank test of the differences ``d``, zeros dropped (Wilcoxon's
    own convention). Without ties: scipy's exact distribution up to 50 differences, its
    normal approximation beyond. With ties (scores on a coarse scale often tie), scipy's
    "exact" distribution no longer holds, so the p-value is the exact permutation one
    (every sign assignment of the mid-ranks, :class:`scipy.stats.PermutationMethod`) up
    to :data:`EXACT_TIES_MAX` differences, and the tie-corrected normal approximation
    beyond."""
    from scipy import stats

    nz = d[d != 0]
    ties = np.unique(np.abs(nz)).size < nz.size
    method: Any
    if not ties:
        method = "exact" if nz.size <= 50 else "asymptotic"
        note = ""
    elif nz.size <= EXACT_TIES_MAX:
        method = stats.PermutationMethod(n_resamples=2**nz.size)
        note = "ties: exact permutation p"
    else:
        method = "asymptotic"
        note = "ties: normal approximation"
    res = stats.wilcoxon(nz, method=method)
    return TestResult("wilcoxon", float(res.statistic), float(res.pvalue), dz, rb, note)


def paired_test(
    a: np.ndarray[Any, np.dtype[np.float64]], b: np.ndarray[Any, np.dtype[np.float64]], test: str
) -> TestResult:
    """Wilcoxon's signed-rank test (scipy's exact distribution where it computes one,
    zeros dropped as Wilcoxon did) or the paired t-test of B - A, with d_z (mean
    difference over its standard deviation) and the rank-biserial correlation."""
    from scipy import stats

    d = np.round(b - a, 12).astype(np.float64)  # 0.94 - 0.92 and 0.96 - 0.94: one tie
    n = d.size
    sd = float(np.std(d, ddof=1)) if n >= 2 else 0.0
    dz = float(np.mean(d)) / sd if sd > 0 else None
    rb = rank_biserial_paired(d)
    if n < 2:
        return TestResult(test, None, None, dz, rb, "fewer than 2 pairs")
    if test == "wilcoxon":
        if not np.any(d != 0):
            return TestResult("wilcoxon", 0.0, 1.0, dz, rb, "every pair equal")
        return wilcoxon_test(d, dz, rb)
    if sd == 0:
        note = "every pair equal" if np.all(d == 0) else "the differences do not vary"
        return TestResult("t", None, 1.0 if np.all(d == 0) else None, dz, rb, note)
    res = stats.ttest_rel(b, a)
    return TestResult("t", float(res.statistic), float(res.pvalue), dz, rb)


def unpaired_test(
    a: np.ndarray[Any, np.dtype[np.float64]], b: np.ndarray[Any, np.dtype[np.float64]], test: str
) -> TestResult:
    """Mann-Whitney U (for ``wilcoxon``) or Welch's t (for ``t``) of B against A, with
    Cohen's d (pooled standard deviation) and the rank-biserial correlation 2U/(n_a n_b) - 1."""
    from scipy import stats

    if a.size < 2 or b.size < 2:
        return TestResult(test, None, None, None, None, "fewer than 2 units in an arm")
    pooled = math.sqrt(
        ((a.size - 1) * np.var(a, ddof=1) + (b.size - 1) * np.var(b, ddof=1))
        / (a.size + b.size - 2)
    )
    d = (float(np.mean(b)) - float(np.mean(a))) / pooled if pooled > 0 else None
    if test == "wilcoxon":
        if np.all(np.concatenate([a, b]) == a[0]):
            return TestResult("mann-whitney", None, 1.0, d, 0.0, "every value equal")
        res = stats.mannwhitneyu(b, a, alternative="two-sided", method="auto")
        rb = 2 * float(res.statistic) / (a.size * b.size) - 1
        return TestResult("mann-whitney", float(res.statistic), float(res.pvalue), d, rb)
    if pooled == 0:
        return TestResult("welch", None, None, d, None, "the values do not vary")
    res = stats.ttest_ind(b, a, equal_var=False)
    return TestResult("welch", float(res.statistic), float(res.pvalue), d, None)


def paired_t_power(dz: float, n: int, alpha: float = 0.05) -> float:
    """The power of a two-sided paired t-test at standardised effect ``dz`` over ``n``
    pairs (noncentral t, :data:`scipy.stats.nct`)."""
    from scipy import stats

    df = n - 1
    crit = float(stats.t.ppf(1 - alpha / 2, df))
    nc = dz * math.sqrt(n)
    return float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))


#: Pitman's asymptotic relative efficiency of Wilcoxon's test to the t-test on normal data.
WILCOXON_ARE = 3 / math.pi
MAX_PAIRS = 1_000_000


def pairs_for_power(dz: float, power: float = 0.8, alpha: float = 0.05) -> int | None:
    """The fewest pairs (at least 2) whose paired t-test reaches ``power`` at effect
    ``dz``; ``None`` above :data:`MAX_PAIRS`."""
    if dz == 0:
        return None
    dz = abs(dz)
    lo, hi = 2, 2
    while paired_t_power(dz, hi, alpha) < power:
        lo, hi = hi, hi * 2
        if hi > MAX_PAIRS:
            return None
    while lo < hi:  # the power grows with n: the first n that reaches it
        mid = (lo + hi) // 2
        if paired_t_power(dz, mid, alpha) >= power:
            hi = mid
        else:
            lo = mid + 1
    return hi


# ---------------------------------------------------------------------------
# Frames in, one comparison out
# ---------------------------------------------------------------------------


def check_scores(frame: pl.DataFrame, arm: str) -> pl.DataFrame:
    """``frame`` with the :data:`COMPARE_SCORES_SCHEMA` columns cast; extra String
    columns (pairing keys) kept.

    Raises:
        InputError: a column is missing, or the arm holds no row.
    """
    missing = [c for c in COMPARE_SCORES_SCHEMA if c not in frame.columns]
    if missing:
        raise InputError(None, f"arm {arm}: no column {missing[0]!r} in the scores frame")
    if frame.is_empty():
        raise InputError(None, f"arm {arm}: nothing was scored")
    cast = frame.with_columns([pl.col(c).cast(t) for c, t in COMPARE_SCORES_SCHEMA.items()])
    return cast.with_columns(pl.col("value").fill_nan(None))  # NaN is no score, as null


def rekey(frame: pl.DataFrame, pair_by: str | None, arm: str) -> pl.DataFrame:
    """``frame`` paired by column ``pair_by`` instead of ``unit`` (a run without that
    key keeps its run id, so it stays unpaired and is listed)."""
    if pair_by is None or pair_by == "unit":
        return frame
    if pair_by not in frame.columns:
        keys = [c for c in frame.columns if c not in COMPARE_SCORES_SCHEMA or c == "run"]
        raise InputError(
            None,
            f"arm {arm} has no such pairing key (it has: {', '.join(sorted(keys)) or 'none'})",
            field="--pair-by",
            value=pair_by,
        )
    key = pl.col(pair_by).cast(pl.String)
    return frame.with_columns(pl.coalesce(key, pl.col("run")).alias("unit"))


def _unit_means(frame: pl.DataFrame) -> pl.DataFrame:
    """Per unit and dimension: the mean value over its runs, the runs and the passes."""
    return frame.group_by("unit", "dimension", maintain_order=True).agg(
        pl.col("value").drop_nulls().mean().alias("value"),
        pl.col("value").drop_nulls().len().alias("runs"),
        pl.col("passed").drop_nulls().len().alias("judged"),
        pl.col("passed").drop_nulls().sum().cast(pl.Int64).alias("passes"),
    )


def noise_floor(a: pl.DataFrame, z: float) -> pl.DataFrame:
    """Per dimension of A: the pooled within-unit standard deviation over units with at
    least two runs (pass/fail as 0/1), and ``run_spread`` = z * sqrt(2) * sd, the
    distance two single runs of one unit stay within by chance. ``floor`` is filled in
    by :func:`compare_scores` for the comparison's own design."""
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


@dataclass(frozen=True, repr=False)
class CompareResult(Shows):
    """B against A, per dimension.

    Attributes:
        family: the rubric family compared.
        mode: ``"paired"`` or ``"unpaired"`` (no unit in both arms).
        test, correction, alpha, level, seed, resamples: how it was computed.
        pairs: units in both arms.
        only_a, only_b: units of one arm only (listed, not compared when paired).
        dimensions: :data:`toolkit.frames.COMPARE_DIMENSIONS_SCHEMA`, one row per
            dimension (numeric first, then pass/fail outcomes).
        flips: :data:`toolkit.frames.COMPARE_FLIPS_SCHEMA` (pass/fail outcomes, paired).
        pass_k: :data:`toolkit.frames.COMPARE_PASS_K_SCHEMA` (when a unit has repeats).
        noise: :data:`toolkit.frames.COMPARE_NOISE_SCHEMA` (when A has repeats).
        runs_a, runs_b: runs read in each arm.
        labels: what A and B are called (folder names).
        notes: what the reader must know (fallbacks, dropped values, keys used).
    """

    family: str
    mode: str
    test: str
    correction: str
    alpha: float
    level: float
    seed: int
    resamples: int
    pairs: int
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    dimensions: pl.DataFrame
    flips: pl.DataFrame
    pass_k: pl.DataFrame
    noise: pl.DataFrame
    runs_a: int = 0
    runs_b: int = 0
    labels: tuple[str, str] = ("A", "B")
    pair_by: str = "unit"
    notes: tuple[str, ...] = ()
    version: str = COMPARE_VERSION

    def _summary(self) -> Summary:
        counts = self.dimensions.group_by("outcome", maintain_order=True).len().rows()
        return Summary(
            "CompareResult",
            f"{self.family}: {self.labels[1]} vs {self.labels[0]}, {self.mode}, "
            f"{plural(self.pairs, 'pair')}",
            tuple((f"{o}:", n) for o, n in counts),
            notes=self.notes,
            notes_title="notes",
            columns=("dimension", "diff", "p_adj", "outcome"),
            rows=tuple(
                (
                    r["dimension"],
                    "-" if r["diff"] is None else f"{r['diff']:+.3g}",
                    "-" if r["p_adj"] is None else f"{r['p_adj']:.3g}",
                    r["outcome"],
                )
                for r in self.dimensions.iter_rows(named=True)
            ),
        )

    def outcome_of(self, dimension: str) -> str:
        """The outcome (better, worse, ...) of ``dimension``."""
        row = self.dimensions.filter(pl.col("dimension") == dimension)
        if row.height != 1:
            raise KeyError(dimension)
        return str(row["outcome"][0])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of everything (the shape of ``--format json``)."""
        return {
            "rubric": "compare",
            "rubric_version": self.version,
            "family": self.family,
            "a": self.labels[0],
            "b": self.labels[1],
            "mode": self.mode,
            "pair_by": self.pair_by,
            "test": self.test,
            "correction": self.correction,
            "alpha": self.alpha,
            "level": self.level,
            "seed": self.seed,
            "resamples": self.resamples,
            "runs_a": self.runs_a,
            "runs_b": self.runs_b,
            "pairs": self.pairs,
            "only_a": list(self.only_a),
            "only_b": list(self.only_b),
            "dimensions": self.dimensions.to_dicts(),
            "flips": self.flips.to_dicts(),
            "pass_k": self.pass_k.to_dicts(),
            "noise": self.noise.to_dicts(),
            "notes": list(self.notes),
        }


def _classify(
    p_adj: float | None, diff: float | None, floor: float | None, direction: int, alpha: float
) -> str:
    if p_adj is None or diff is None:
        return "n/a"
    if p_adj >= alpha:
        return "no difference"
    if floor is not None and abs(diff) < floor:
        return "within noise"
    if direction == 0 or diff == 0:
        return "changed"
    return "better" if direction * diff > 0 else "worse"


def compare_scores(
    a: pl.DataFrame,
    b: pl.DataFrame,
    *,
    family: str | None = None,
    pair_by: str | None = None,
    test: str = "wilcoxon",
    correction: str = "holm",
    alpha: float | None = None,
    level: float | None = None,
    seed: int = 0,
    resamples: int | None = None,
    directions: Mapping[str, int] | None = None,
    labels: tuple[str, str] = ("A", "B"),
    notes: Sequence[str] = (),
    rubric: CompareRubric = DEFAULT_COMPARE_RUBRIC,
) -> CompareResult:
    """Compare the scores of arm B with arm A, dimension by dimension.

    Args:
        a, b: :data:`toolkit.frames.COMPARE_SCORES_SCHEMA` frames (family, unit, run,
            dimension, value, passed), plus any pairing-key columns.
        family: the family (default: the frames' ``family`` column); decides the
            directions (:data:`DIRECTIONS`).
        pair_by: a column to pair units by instead of ``unit`` (e.g. ``"seed"``).
        test: ``"wilcoxon"`` (signed-rank; Mann-Whitney unpaired) or ``"t"`` (paired
            t; Welch unpaired).
        correction: ``"holm"`` or ``"bh"`` across the dimensions' p-values.
        alpha: the significance level after correction (default: the rubric's, 0.05).
        level: the bootstrap interval's confidence level (and the noise floor's;
            default: the rubric's, 0.95).
        seed: seeds the bootstrap (each dimension its own stream of it).
        resamples: bootstrap resamples (0: no interval, e.g. for a calibration loop;
            default: the rubric's, 9999).
        directions: dimension -> +1/-1/0, over the rubric's for the family.
        labels: what A and B are called in the output.
        notes: notes from the loading step, shown first.
        rubric: the rubric data (:class:`CompareRubric`, version 1.0.0 by default).

    Returns:
        A :class:`CompareResult`.

    Raises:
        InputError: a bad option, a missing column, an empty arm or a pairing key
            that is not there.
    """
    from scipy.stats import fisher_exact, norm

    if test not in TESTS:
        raise InputError(None, f"must be one of {', '.join(TESTS)}", field="--test", value=test)
    if correction not in CORRECTIONS:
        raise InputError(
            None, f"must be one of {', '.join(CORRECTIONS)}", field="--correction",
            value=correction,
        )  # fmt: skip
    alpha = rubric.alpha if alpha is None else alpha
    level = rubric.level if level is None else level
    resamples = rubric.resamples if resamples is None else resamples
    for name, value, ok in (
        ("--alpha", alpha, 0 < alpha < 1),
        ("--level", level, 0 < level < 1),
        ("--seed", seed, seed >= 0),
        ("--resamples", resamples, resamples >= 0),
    ):
        if not ok:
            raise InputError(None, "out of range", field=name, value=value)
    a = rekey(check_scores(a, "A"), pair_by, "A")
    b = rekey(check_scores(b, "B"), pair_by, "B")
    fam = family or str(a["family"][0])
    note_list = list(notes)
    other = str(b["family"][0])
    if other != fam:
        raise InputError(
            None, f"arm A is {fam} but arm B is {other}: compare the same family",
            field="--family", value=other,
        )  # fmt: skip
    ua, ub = _unit_means(a), _unit_means(b)
    units_a = list(dict.fromkeys(a["unit"].to_list()))
    units_b = list(dict.fromkeys(b["unit"].to_list()))
    shared = [u for u in units_a if u in set(units_b)]
    only_a = tuple(u for u in units_a if u not in set(shared))
    only_b = tuple(u for u in units_b if u not in set(shared))
    mode = "paired" if shared else "unpaired"
    if mode == "unpaired":
        note_list.append(
            "no unit is in both arms: unpaired tests (Mann-Whitney / Welch, Fisher) over "
            "all units; pairing would be more sensitive (--pair-by FIELD)"
        )
    elif only_a or only_b:
        note_list.append(
            f"{len(only_a)} unit(s) only in A and {len(only_b)} only in B are not in the "
            "paired tests (listed under unpaired)"
        )
    z = float(norm.ppf(1 - (1 - level) / 2))
    noise = noise_floor(a, z)
    runs_per_unit = {
        arm: dict(frame.group_by("unit").agg(pl.col("run").n_unique()).iter_rows())
        for arm, frame in (("A", a), ("B", b))
    }
    binary = set(
        pl.concat([a, b], how="diagonal_relaxed")
        .filter(pl.col("passed").is_not_null())["dimension"]
        .unique()
        .to_list()
    )
    dims = list(dict.fromkeys([*a["dimension"].to_list(), *b["dimension"].to_list()]))
    dims = [d for d in dims if d not in binary] + [d for d in dims if d in binary]
    rows: list[dict[str, Any]] = []
    flips: list[dict[str, Any]] = []
    pass_k: list[dict[str, Any]] = []
    floors: dict[str, float | None] = {}
    within = dict(zip(noise["dimension"].to_list(), noise["within_sd"].to_list(), strict=True))
    for index, dim in enumerate(dims):
        rng = np.random.default_rng([seed, index])
        kind = "pass/fail" if dim in binary else "numeric"
        col = "rate" if kind == "pass/fail" else "value"
        da = ua.filter(pl.col("dimension") == dim)
        db = ub.filter(pl.col("dimension") == dim)
        if kind == "pass/fail":
            da = da.filter(pl.col("judged") > 0).with_columns(
                (pl.col("passes") / pl.col("judged")).alias("rate")
            )
            db = db.filter(pl.col("judged") > 0).with_columns(
                (pl.col("passes") / pl.col("judged")).alias("rate")
            )
            arm_counts = {
                arm: list(zip(frame["judged"].to_list(), frame["passes"].to_list(), strict=True))
                for arm, frame in (("A", da), ("B", db))
            }
            repeats = any(n >= 2 for counts in arm_counts.values() for n, _ in counts)
            for arm, counts in arm_counts.items():
                top = max((n for n, _ in counts), default=0)
                if repeats:
                    for k in range(1, top + 1):
                        pass_k.append(
                            {
                                "dimension": dim, "arm": arm, "k": k,
                                "units": sum(1 for n, _ in counts if n >= k),
                                "pass_k": pass_hat_k(counts, k),
                            }
                        )  # fmt: skip
        else:
            da, db = da.drop_nulls("value"), db.drop_nulls("value")
        direction = rubric.direction_of(fam, dim, directions)
        row: dict[str, Any] = {"dimension": dim, "kind": kind, "direction": direction}
        note = ""
        floor: float | None = None
        sd_w = within.get(dim)
        if mode == "paired":
            joined = da.join(db, on="unit", suffix="_b").sort("unit")
            xa = joined[col].to_numpy().astype(float)
            xb = joined[f"{col}_b"].to_numpy().astype(float)
            n = xa.size
            if kind == "pass/fail":
                pa, pb = xa > rubric.majority, xb > rubric.majority
                table = {
                    "both_pass": int(np.sum(pa & pb)),
                    "pass_to_fail": int(np.sum(pa & ~pb)),
                    "fail_to_pass": int(np.sum(~pa & pb)),
                    "both_fail": int(np.sum(~pa & ~pb)),
                }
                p = mcnemar_exact(table["pass_to_fail"], table["fail_to_pass"]) if n else None
                flips.append({"dimension": dim, **table, "p": p})
                net = (table["fail_to_pass"] - table["pass_to_fail"]) / n if n else None
                result = TestResult(
                    "mcnemar", float(table["fail_to_pass"]) if n else None, p, net, None,
                    "" if n else "no pair judged",
                )  # fmt: skip
            else:
                result = paired_test(xa, xb, test)
            low, high = bootstrap_interval([xb - xa], rng, level, resamples)
            if sd_w is not None and n:
                ra = [runs_per_unit["A"].get(u, 1) for u in joined["unit"].to_list()]
                rb = [runs_per_unit["B"].get(u, 1) for u in joined["unit"].to_list()]
                spread = sum(1 / x + 1 / y for x, y in zip(ra, rb, strict=True))
                floor = z * sd_w * math.sqrt(spread) / n
        else:
            xa = da[col].to_numpy().astype(float)
            xb = db[col].to_numpy().astype(float)
            n = xa.size + xb.size
            if kind == "pass/fail":
                na, nb = int(np.sum(xa > rubric.majority)), int(np.sum(xb > rubric.majority))
                if xa.size and xb.size:
                    table2 = [[nb, xb.size - nb], [na, xa.size - na]]
                    p = float(fisher_exact(table2).pvalue)
                else:
                    p = None
                net = nb / xb.size - na / xa.size if xa.size and xb.size else None
                result = TestResult("fisher", None, p, net, None)
            else:
                result = unpaired_test(xa, xb, test)
            low, high = bootstrap_interval([xa, xb], rng, level, resamples)
            if sd_w is not None and xa.size and xb.size:
                ra = [runs_per_unit["A"].get(u, 1) for u in da["unit"].to_list()]
                rb = [runs_per_unit["B"].get(u, 1) for u in db["unit"].to_list()]
                var = sum(1 / x for x in ra) / xa.size**2 + sum(1 / y for y in rb) / xb.size**2
                floor = z * sd_w * math.sqrt(var)
        floors[dim] = floor
        mean_a = float(np.mean(xa)) if xa.size else None
        mean_b = float(np.mean(xb)) if xb.size else None
        diff = mean_b - mean_a if mean_a is not None and mean_b is not None else None
        if mode == "paired" and xa.size:
            diff = float(np.mean(xb - xa))
        note = result.note or note
        if xa.size == 0 or xb.size == 0:
            note = "no paired unit has this dimension" if mode == "paired" else "absent in an arm"
        row |= {
            "n": n, "mean_a": mean_a, "mean_b": mean_b, "diff": diff,
            "ci_low": low, "ci_high": high, "test": result.name,
            "statistic": result.statistic, "p": result.p, "effect": result.effect,
            "rank_biserial": result.rank_biserial, "noise_floor": floor, "note": note,
        }  # fmt: skip
        rows.append(row)
    tested = [i for i, r in enumerate(rows) if r["p"] is not None and not math.isnan(r["p"])]
    adjusted = adjust([rows[i]["p"] for i in tested], correction)
    for r in rows:
        r["p_adj"] = None
    for i, value in zip(tested, adjusted, strict=True):
        rows[i]["p_adj"] = value
    for r in rows:
        r["outcome"] = _classify(r["p_adj"], r["diff"], r["noise_floor"], r["direction"], alpha)
    noise = noise.with_columns(
        pl.col("dimension")
        .replace_strict(floors, default=None, return_dtype=pl.Float64)
        .alias("floor")
    )
    return CompareResult(
        family=fam,
        mode=mode,
        test=test,
        correction=correction,
        alpha=alpha,
        level=level,
        seed=seed,
        resamples=resamples,
        pairs=len(shared),
        only_a=only_a,
        only_b=only_b,
        dimensions=pl.DataFrame(rows, schema=COMPARE_DIMENSIONS_SCHEMA),
        flips=pl.DataFrame(flips, schema=COMPARE_FLIPS_SCHEMA),
        pass_k=pl.DataFrame(pass_k, schema=COMPARE_PASS_K_SCHEMA),
        noise=noise,
        runs_a=a["run"].n_unique(),
        runs_b=b["run"].n_unique(),
        labels=labels,
        pair_by=pair_by or ", else ".join(PAIR_KEYS.get(fam, ("unit",))),
        notes=tuple(note_list),
        version=rubric.version,
    )


# ---------------------------------------------------------------------------
# The gate and the plan
# ---------------------------------------------------------------------------


def parse_gate(spec: str) -> tuple[str, ...] | None:
    """``no-regression`` -> ``None`` (every dimension); ``no-regression:a,b`` -> those.

    Raises:
        InputError: another mode, or an empty list.
    """
    mode, _, names = spec.partition(":")
    if mode != "no-regression":
        raise InputError(
            None, "must be no-regression or no-regression:DIM,...", field="--gate", value=spec
        )
    if not _:
        return None
    dims = tuple(n.strip() for n in names.split(",") if n.strip())
    if not dims:
        raise InputError(None, "names no dimension after ':'", field="--gate", value=spec)
    return dims


def gate_failures(result: CompareResult, dimensions: Sequence[str] | None = None) -> list[str]:
    """Why a no-regression gate fails: one line per dimension (of ``dimensions``, or all)
    that is significantly worse in B after correction and above the noise floor, with
    its interval. An empty list passes.

    Raises:
        InputError: a dimension in ``dimensions`` that the comparison does not have.
    """
    known = result.dimensions["dimension"].to_list()
    if dimensions is not None:
        for name in dimensions:
            if name not in known:
                raise InputError(
                    None, f"no such dimension (there are: {', '.join(known)})",
                    field="--gate", value=name,
                )  # fmt: skip
    pct = f"{result.level * 100:g}%"
    lines = []
    for r in result.dimensions.iter_rows(named=True):
        if r["outcome"] != "worse" or (dimensions is not None and r["dimension"] not in dimensions):
            continue
        interval = (
            f"{pct} CI {r['ci_low']:+.4g} to {r['ci_high']:+.4g}"
            if r["ci_low"] is not None
            else "no interval"
        )
        lines.append(
            f"{r['dimension']} is worse in {result.labels[1]}: {r['diff']:+.4g} ({interval}), "
            f"{result.correction}-adjusted p={r['p_adj']:.3g}"
        )
    return lines


def plan_pairs(
    a: pl.DataFrame,
    mde: float,
    *,
    standardized: bool = False,
    power: float = 0.8,
    alpha: float = 0.05,
    test: str = "wilcoxon",
) -> pl.DataFrame:
    """How many pairs per arm a paired comparison needs to find a difference of ``mde``
    with ``power``, per dimension of the pilot set ``a``.

    The standard deviation of a paired difference comes from A's repeated runs of one
    unit when there are some (sqrt(2) x the pooled within-unit SD: two runs of the same
    version, the null that a real pairing starts from); otherwise from the spread
    across units (sqrt(2) x their SD, as if pairing gained nothing: conservative). The
    paired t-test's sample size follows from the noncentral t; for Wilcoxon it is
    divided by the test's efficiency on normal data, 3/pi.

    Args:
        a: a pilot arm (:data:`toolkit.frames.COMPARE_SCORES_SCHEMA`).
        mde: the minimum detectable effect, in the dimension's units (or, with
            ``standardized``, in standard deviations of the paired difference).
        power, alpha: the wanted power at two-sided level ``alpha`` (no correction).
        test: ``wilcoxon`` or ``t``.

    Returns:
        :data:`toolkit.frames.COMPARE_PLAN_SCHEMA`, one row per dimension.
    """
    if not mde > 0:
        raise InputError(None, "must be a positive difference", field="--mde", value=mde)
    if test not in TESTS:
        raise InputError(None, f"must be one of {', '.join(TESTS)}", field="--test", value=test)
    a = check_scores(a, "A")
    noise = noise_floor(a, 1.96)
    within = dict(zip(noise["dimension"].to_list(), noise["within_sd"].to_list(), strict=True))
    value = pl.coalesce(pl.col("passed").cast(pl.Float64), pl.col("value"))
    units = (
        a.with_columns(value.alias("x"))
        .drop_nulls("x")
        .group_by("dimension", "unit", maintain_order=True)
        .agg(pl.col("x").mean())
    )
    rows = []
    for dim in dict.fromkeys(a["dimension"].to_list()):
        xs = units.filter(pl.col("dimension") == dim)["x"].to_numpy().astype(float)
        if dim in within:
            sd = math.sqrt(2) * float(within[dim])
            source = "repeated runs of A"
        elif xs.size >= 2:
            sd = math.sqrt(2) * float(np.std(xs, ddof=1))
            source = "spread across units (no repeats: pairing gain unknown)"
        else:
            rows.append({"dimension": dim, "mde": mde, "sd_diff": None, "source": "",
                         "pairs": None, "note": "fewer than 2 units"})  # fmt: skip
            continue
        note = ""
        if sd == 0:
            pairs = None
            note = "no spread in the pilot: no SD to plan with"
        else:
            dz = mde if standardized else mde / sd
            needed = pairs_for_power(dz, power, alpha)
            if needed is None:
                pairs, note = None, f"more than {MAX_PAIRS} pairs"
            else:
                pairs = needed if test == "t" else math.ceil(needed / WILCOXON_ARE)
        rows.append(
            {"dimension": dim, "mde": mde * sd if standardized else mde, "sd_diff": sd,
             "source": source, "pairs": pairs, "note": note}
        )  # fmt: skip
    return pl.DataFrame(rows, schema=COMPARE_PLAN_SCHEMA)


# ---------------------------------------------------------------------------
# Each family's scores as the long frame (pure: from what the family's rubric returns)
# ---------------------------------------------------------------------------


def _frame(rows: list[dict[str, Any]], keys: Sequence[str]) -> pl.DataFrame:
    schema = dict(COMPARE_SCORES_SCHEMA) | {k: pl.String() for k in keys}
    return pl.DataFrame(rows, schema=schema)


def simulation_scores(
    cards: Sequence[Any], keys: Mapping[str, Mapping[str, str]] | None = None
) -> pl.DataFrame:
    """Simulation scorecards (one per run) as compare's long frame.

    Each dimension's value is a numeric row; the verdict is a pass/fail row (HEALTHY
    passes). The unit is the run's ``scenario``, else its ``seed`` (both from
    universe.yaml, given in ``keys`` by slug), else its slug; all three are kept as
    columns for ``--pair-by``.
    """
    rows: list[dict[str, Any]] = []
    for card in cards:
        slug = str(card.subject)
        extra = dict((keys or {}).get(slug, {}))
        found = {"scenario": extra.get("scenario"), "seed": extra.get("seed"), "slug": slug}
        unit = next(v for k in PAIR_KEYS["simulation"] if (v := found.get(k)) is not None)
        base = {"family": "simulation", "unit": unit, "run": slug, **found}
        for dim, value in card.dimensions.select("dimension", "value").iter_rows():
            rows.append(base | {"dimension": dim, "value": value, "passed": None})
        rows.append(
            base | {"dimension": VERDICT, "value": None, "passed": card.verdict == "HEALTHY"}
        )
    return _frame(rows, ("scenario", "seed", "slug"))


def outcome_scores(log: str, result: Any, iterations: pl.DataFrame) -> pl.DataFrame:
    """One iteration log's outcome scores as compare's long frame.

    A run is an iteration (``log#iter-N``), its unit the iteration's task (``task_id``;
    an iteration without one keeps its run id and stays unpaired). Numeric rows: each
    present signal's sub-score and the weighted ``score``; the pass/fail row passes
    unless the iteration lands in the rubric's lowest band.
    """
    lowest = result.rubric.bands[-1].band
    tasks = dict(iterations.select("iteration", "task_id").iter_rows())
    rows: list[dict[str, Any]] = []

    def base(n: int) -> dict[str, Any]:
        run = f"{log}#iter-{n}"
        task = tasks.get(n)
        return {"family": "outcome", "unit": task or run, "run": run, "task": task}

    for n, signal, present, sub in result.breakdown.select(
        "iteration", "signal", "present", "sub_score"
    ).iter_rows():
        rows.append(base(n) | {"dimension": signal, "value": sub if present else None,
                               "passed": None})  # fmt: skip
    for n, scored, value, band in result.scores.select(
        "iteration", "scored", "value", "band"
    ).iter_rows():
        rows.append(base(n) | {"dimension": "score", "value": value, "passed": None})
        rows.append(
            base(n) | {"dimension": VERDICT, "value": None,
                       "passed": (band != lowest) if scored else None}
        )  # fmt: skip
    return _frame(rows, ("task",))


def discussion_scores(report: Any) -> pl.DataFrame:
    """Discussion games as compare's long frame: a game is a run, its unit the game id
    (the transcript formats carry no scenario); each metric's score is a numeric row,
    the verdict a pass/fail row (PASS passes; PENDING_RATING is left out)."""
    rows: list[dict[str, Any]] = []
    for game, key, score in report.metrics.select("game_id", "key", "score").iter_rows():
        rows.append({"family": "discussion", "unit": game, "run": game, "game_id": game,
                     "dimension": key, "value": score, "passed": None})  # fmt: skip
    for card in report.scorecards:
        verdict = card.verdict
        passed = None if verdict == "PENDING_RATING" else verdict == "PASS"
        rows.append({"family": "discussion", "unit": card.subject, "run": card.subject,
                     "game_id": card.subject, "dimension": VERDICT, "value": None,
                     "passed": passed})  # fmt: skip
    return _frame(rows, ("game_id",))


def persona_scores(result: Any) -> pl.DataFrame:
    """A persona result as compare's long frame: the unit is proposition x agent (the
    whole run's window), the dimension the proposition's, the value its judged score."""
    scores = result.scores.filter(pl.col("window") == 0)
    rows: list[dict[str, Any]] = []
    for run, agent, prop, dim, score in scores.select(
        "run", "agent_name", "proposition", "dimension", "score"
    ).iter_rows():
        who = agent or "environment"
        rows.append({"family": "persona", "unit": f"{prop} x {who}", "run": str(run),
                     "proposition_agent": f"{prop} x {who}", "dimension": dim,
                     "value": score, "passed": None})  # fmt: skip
    return _frame(rows, ("proposition_agent",))
