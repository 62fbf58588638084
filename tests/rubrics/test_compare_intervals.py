"""compare's interval is adjusted the way its p-value is (issue 41, item 3): Holm's
p over m dimensions gets the simultaneous (Bonferroni) interval at 1 - (1 - level) / m,
BH's the false-coverage-rate interval at 1 - R (1 - level) / m; the unadjusted one stays
in ``ci_low_raw``/``ci_high_raw``."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from toolkit.rubrics.compare import compare_scores

#: 20 fixed deviations (mean 0.0075): B - A = 0.4 + these on the planted dimension d0.
Z = [-1.6, -1.2, -0.9, -0.7, -0.5, -0.35, -0.2, -0.1, -0.05, 0.03,
     0.08, 0.15, 0.25, 0.4, 0.55, 0.7, 0.85, 1.05, 1.3, 1.9]  # fmt: skip
#: Symmetric differences: Wilcoxon's p is 1 on these dimensions.
NULL = [-1.0, 1.0, -0.6, 0.6, -0.3, 0.3, -0.8, 0.8, -0.15, 0.15] * 2


def rows(arm: str, values: dict[str, list[float]]) -> pl.DataFrame:
    """A scores frame of the simulation family: ``values[dim][unit]``, one run a unit."""
    out = [
        {"family": "simulation", "unit": f"u{u}", "run": f"{arm}{u}", "dimension": dim,
         "value": v, "passed": None}
        for dim, units in values.items()
        for u, v in enumerate(units)
    ]  # fmt: skip
    return pl.DataFrame(
        out,
        schema={"family": pl.String, "unit": pl.String, "run": pl.String,
                "dimension": pl.String, "value": pl.Float64, "passed": pl.Boolean},
    )  # fmt: skip


def _planted(effects: dict[str, float]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A and B over 20 units, one run each: B - A is ``effect + Z`` on the dimensions
    named in ``effects``, :data:`NULL` on d0..d4 otherwise."""
    va: dict[str, list[float]] = {}
    vb: dict[str, list[float]] = {}
    for i in range(5):
        dim = f"d{i}"
        diffs = [effects[dim] + z for z in Z] if dim in effects else NULL
        va[dim] = [float(u) for u in range(20)]
        vb[dim] = [float(u) + d for u, d in zip(range(20), diffs, strict=True)]
    return rows("a", va), rows("b", vb)


def _scipy_interval(diffs: list[float], seed: int, index: int, level: float) -> tuple[float, float]:
    """The reference: scipy's percentile bootstrap of the mean difference, seeded as
    compare seeds dimension ``index``."""
    by_unit = [d for _, d in sorted((f"u{u}", d) for u, d in enumerate(diffs))]  # as paired
    res = stats.bootstrap(
        (np.asarray(by_unit),), np.mean, n_resamples=9999, confidence_level=level,
        method="percentile", rng=np.random.default_rng([seed, index]), vectorized=True,
    )  # fmt: skip
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def test_holm_not_significant_gets_a_simultaneous_interval_that_contains_zero() -> None:
    a, b = _planted({"d0": 0.4})
    result = compare_scores(a, b, seed=5)
    row = result.dimensions.row(0, named=True)
    assert row["dimension"] == "d0"
    # unadjusted: p < 0.05 and the 95% interval excludes 0; Holm over 5: p_adj >= 0.05
    assert row["p"] < 0.05 <= row["p_adj"]
    assert row["p_adj"] == pytest.approx(5 * row["p"], abs=1e-12)
    assert row["ci_low_raw"] > 0
    assert row["outcome"] == "no difference"
    # the shown interval is at 1 - 0.05 / 5 = 0.99, and it contains 0
    assert result.interval_level == pytest.approx(0.99, abs=1e-12)
    assert row["ci_low"] < 0 < row["ci_high"]
    diffs = [0.4 + z for z in Z]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(_scipy_interval(diffs, 5, 0, 0.99))
    assert (row["ci_low_raw"], row["ci_high_raw"]) == pytest.approx(
        _scipy_interval(diffs, 5, 0, 0.95)
    )


def test_bh_gets_the_false_coverage_rate_interval_of_the_selected_share() -> None:
    a, b = _planted({"d0": 1.5, "d1": 1.5})  # two selected (p tiny), three null (p = 1)
    result = compare_scores(a, b, seed=5, correction="bh")
    assert (result.dimensions["p_adj"] < 0.05).to_list() == [True, True, False, False, False]
    # R = 2 selected of m = 5: 1 - 2 * 0.05 / 5 = 0.98
    assert result.interval_level == pytest.approx(0.98, abs=1e-12)
    row = result.dimensions.row(1, named=True)
    diffs = [1.5 + z for z in Z]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(_scipy_interval(diffs, 5, 1, 0.98))


def test_one_dimension_is_not_adjusted_and_json_names_the_adjustment() -> None:
    a, b = _planted({"d0": 0.4})
    one = compare_scores(
        a.filter(pl.col("dimension") == "d0"), b.filter(pl.col("dimension") == "d0"), seed=5
    )
    assert one.interval_level == 0.95
    row = one.dimensions.row(0, named=True)
    assert (row["ci_low"], row["ci_high"]) == (row["ci_low_raw"], row["ci_high_raw"])
    data = compare_scores(a, b, seed=5).to_dict()
    assert data["interval_level"] == pytest.approx(0.99, abs=1e-12)
    assert "simultaneous" in data["interval_adjustment"]
    assert {"ci_low_raw", "ci_high_raw"} <= set(data["dimensions"][0])


def test_an_interval_that_still_excludes_zero_beside_no_difference_says_why() -> None:
    # a pass/fail dimension, 8 units of 2 runs: A passes 1 of 2 on every unit, B none.
    # Every unit's pass share drops by 0.5, so the interval is [-0.5, -0.5]; but no unit
    # passes by majority in either arm, so McNemar sees no flip: p = 1, no difference.
    def arm(name: str, passes: int) -> pl.DataFrame:
        out = [
            {"family": "simulation", "unit": f"u{u}", "run": f"{name}{u}-{r}",
             "dimension": "verdict", "value": None, "passed": r < passes}
            for u in range(8)
            for r in range(2)
        ]  # fmt: skip
        return pl.DataFrame(
            out,
            schema={"family": pl.String, "unit": pl.String, "run": pl.String,
                    "dimension": pl.String, "value": pl.Float64, "passed": pl.Boolean},
        )  # fmt: skip

    result = compare_scores(arm("a", 1), arm("b", 0), seed=5)
    row = result.dimensions.row(0, named=True)
    assert row["outcome"] == "no difference" and row["p_adj"] == 1.0
    assert (row["ci_low"], row["ci_high"]) == (-0.5, -0.5)
    note = "verdict: its 95% interval excludes 0 but its adjusted p (1) does not reach alpha"
    assert any(n.startswith(note) for n in result.notes)
    assert "mcnemar test counts units by majority" in " ".join(result.notes)
