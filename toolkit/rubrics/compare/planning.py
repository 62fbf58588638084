"""Run planning: the power of a paired t-test and how many pairs a comparison needs
(:func:`plan_pairs`, from a pilot set)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from toolkit.errors import InputError
from toolkit.frames import COMPARE_PLAN_SCHEMA
from toolkit.rubrics.compare.arms import check_scores
from toolkit.rubrics.compare.noise import noise_floor, within_sds
from toolkit.rubrics.compare.rubric import TESTS

# scipy is imported in paired_t_power: about 1 s of imports that a refused input
# (`toolkit compare --plan` with a missing folder) never pays


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
    within = within_sds(noise)
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
