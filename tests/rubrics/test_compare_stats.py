"""The statistics of ``compare``, each checked against its definition (hand-derived
values, exact enumeration, or scipy's distributions) to 1e-12, and planted effects
recovered."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

from toolkit.errors import InputError
from toolkit.rubrics.compare import (
    WILCOXON_ARE,
    adjust,
    compare_scores,
    gate_failures,
    holm,
    mcnemar_exact,
    noise_floor,
    paired_t_power,
    paired_test,
    pairs_for_power,
    parse_gate,
    pass_hat_k,
    plan_pairs,
    rank_biserial_paired,
    unpaired_test,
)

TOL = 1e-12
P = [0.01, 0.04, 0.03, 0.005]


def rows(
    arm: str,
    values: dict[str, list[list[float | None]]],
    *,
    family: str = "simulation",
    passed: dict[str, list[list[bool]]] | None = None,
    unit_prefix: str = "u",
) -> pl.DataFrame:
    """A scores frame: ``values[dim][unit]`` lists that unit's runs."""
    out = []
    for dim, units in values.items():
        for u, runs in enumerate(units):
            for r, v in enumerate(runs):
                out.append(
                    {"family": family, "unit": f"{unit_prefix}{u}", "run": f"{arm}{u}-{r}",
                     "dimension": dim, "value": v, "passed": None}
                )  # fmt: skip
    for dim, units in (passed or {}).items():
        for u, runs in enumerate(units):
            for r, ok in enumerate(runs):
                out.append(
                    {"family": family, "unit": f"{unit_prefix}{u}", "run": f"{arm}{u}-{r}",
                     "dimension": dim, "value": None, "passed": ok}
                )  # fmt: skip
    return pl.DataFrame(
        out,
        schema={"family": pl.String, "unit": pl.String, "run": pl.String,
                "dimension": pl.String, "value": pl.Float64, "passed": pl.Boolean},
    )  # fmt: skip


def test_holm_matches_the_step_down_definition() -> None:
    # sorted: .005*4=.02, .01*3=.03, .03*2=.06, .04*1=.04 -> running max .06
    expected = [0.03, 0.06, 0.06, 0.02]
    assert holm(P) == pytest.approx(expected, abs=TOL)


def test_benjamini_hochberg_matches_the_step_up_definition() -> None:
    # sorted p*m/i: .02, .02, .04, .04; the minimum from the top keeps them
    expected = [0.02, 0.04, 0.04, 0.02]
    assert adjust(P, "bh") == pytest.approx(expected, abs=TOL)


def test_an_unknown_correction_names_the_option() -> None:
    with pytest.raises(InputError, match="--correction"):
        adjust(P, "bonferroni")


def test_mcnemar_exact_is_the_two_sided_binomial_sum() -> None:
    # 3 pass->fail, 10 fail->pass: 2 * sum_{i<=3} C(13, i) / 2^13
    expected = 2 * sum(math.comb(13, i) for i in range(4)) / 2**13
    assert mcnemar_exact(3, 10) == pytest.approx(expected, abs=TOL)
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 0) == 1.0


def test_pass_hat_k_is_tau_bench_definition() -> None:
    counts = [(3, 2), (3, 3), (2, 1)]  # (runs, passes) per unit
    assert pass_hat_k(counts, 1) == pytest.approx((2 / 3 + 1 + 1 / 2) / 3, abs=TOL)
    assert pass_hat_k(counts, 2) == pytest.approx((1 / 3 + 1 + 0) / 3, abs=TOL)
    assert pass_hat_k(counts, 3) == pytest.approx((0 + 1) / 2, abs=TOL)  # units with n >= 3
    assert pass_hat_k(counts, 4) is None


def _exact_wilcoxon(d: np.ndarray) -> float:
    """Two-sided exact p by enumerating every sign assignment of the ranks."""
    ranks = stats.rankdata(np.abs(d))
    observed = min(ranks[d > 0].sum(), ranks[d < 0].sum())
    lower = 0
    for signs in itertools.product((0, 1), repeat=d.size):
        t_plus = sum(r for r, s in zip(ranks, signs, strict=True) if s)
        lower += t_plus <= observed
    return min(1.0, 2 * lower / 2**d.size)


def test_wilcoxon_p_is_the_exact_signed_rank_distribution() -> None:
    a = np.array([0.1, 0.4, 0.35, 0.8, 0.55, 0.2, 0.9, 0.05, 0.6])
    d = np.array([0.12, -0.05, 0.31, 0.22, 0.4, -0.18, 0.27, 0.09, 0.5])
    got = paired_test(a, a + d, "wilcoxon")
    assert got.p == pytest.approx(_exact_wilcoxon(d), abs=TOL)
    ranks = stats.rankdata(np.abs(d))
    assert got.statistic == min(ranks[d > 0].sum(), ranks[d < 0].sum())
    plus, minus = ranks[d > 0].sum(), ranks[d < 0].sum()
    assert got.rank_biserial == pytest.approx((plus - minus) / (plus + minus), abs=TOL)
    assert got.effect == pytest.approx(d.mean() / d.std(ddof=1), abs=TOL)


def test_wilcoxon_with_ties_and_zeros_is_the_exact_permutation_p() -> None:
    # coarse scores: tied absolute differences and zero differences (dropped)
    d = np.array([0.1, -0.1, 0.2, 0.2, 0.0, 0.3, -0.2, 0.1, 0.0, 0.4, 0.1])
    a = np.linspace(0.0, 1.0, d.size)
    got = paired_test(a, a + d, "wilcoxon")  # (a + d) - a is d up to float noise
    assert got.p == pytest.approx(_exact_wilcoxon(d[d != 0]), abs=TOL)
    assert got.note == "ties: exact permutation p"


def test_paired_t_is_the_textbook_statistic() -> None:
    a = np.array([3.0, 4.5, 2.0, 5.5, 4.0, 3.5])
    b = np.array([3.4, 4.4, 2.9, 6.1, 4.6, 3.6])
    d = b - a
    t = d.mean() / (d.std(ddof=1) / math.sqrt(d.size))
    got = paired_test(a, b, "t")
    assert got.statistic == pytest.approx(t, abs=TOL)
    assert got.p == pytest.approx(2 * stats.t.sf(abs(t), d.size - 1), abs=TOL)


def test_rank_biserial_of_all_positive_differences_is_one() -> None:
    assert rank_biserial_paired(np.array([0.1, 0.2, 0.3])) == 1.0
    assert rank_biserial_paired(np.array([0.0, 0.0])) is None


def test_unpaired_effect_is_cohens_d_with_the_pooled_sd() -> None:
    a = np.array([1.0, 2.0, 3.0, 4.0])
    b = np.array([2.0, 3.5, 4.0, 5.5, 6.0])
    pooled = math.sqrt((3 * a.var(ddof=1) + 4 * b.var(ddof=1)) / 7)
    got = unpaired_test(a, b, "wilcoxon")
    assert got.effect == pytest.approx((b.mean() - a.mean()) / pooled, abs=TOL)
    u = sum((x > y) + 0.5 * (x == y) for x in b for y in a)  # U of B from its definition
    assert got.statistic == u
    assert got.rank_biserial == pytest.approx(2 * u / 20 - 1, abs=TOL)


def test_noise_floor_pools_the_within_unit_variance() -> None:
    a = rows("a", {"x": [[1.0, 3.0], [2.0, 2.0, 5.0], [7.0]]})
    got = noise_floor(a, 1.96).row(0, named=True)
    ss = (1 + 1) + (1 + 1 + 4)  # around the unit means 2 and 3; the single run adds nothing
    assert got["units"] == 2 and got["df"] == 3
    assert got["within_sd"] == pytest.approx(math.sqrt(ss / 3), abs=TOL)
    assert got["run_spread"] == pytest.approx(1.96 * math.sqrt(2) * math.sqrt(ss / 3), abs=TOL)


def test_power_and_sample_size_match_the_textbook_value() -> None:
    # Cohen's d_z = 0.5, two-sided alpha 0.05, power 0.80: 34 pairs (G*Power 3.1,
    # "Means: difference between two dependent means", actual power 0.8077775).
    assert pairs_for_power(0.5) == 34
    assert paired_t_power(0.5, 34) == pytest.approx(0.8077775, abs=5e-7)
    assert paired_t_power(0.5, 33) < 0.8


def test_plan_uses_the_repeats_of_a_and_wilcoxons_efficiency() -> None:
    a = rows("a", {"x": [[0.0, 1.0], [2.0, 3.0], [5.0, 6.0]]})  # within sd = sqrt(0.5)
    sd_diff = math.sqrt(2) * math.sqrt(0.5)  # = 1
    plan = plan_pairs(a, 0.5, test="t").row(0, named=True)
    assert plan["sd_diff"] == pytest.approx(sd_diff, abs=TOL)
    assert plan["source"] == "repeated runs of A"
    assert plan["pairs"] == 34
    wil = plan_pairs(a, 0.5).row(0, named=True)
    assert wil["pairs"] == math.ceil(34 / WILCOXON_ARE)
    with pytest.raises(InputError, match="--mde"):
        plan_pairs(a, 0.0)


def _planted(seed: int = 3, n: int = 30) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    base = rng.normal(0, 1, size=n)
    va: dict[str, list[list[float | None]]] = {"groundedness": [], "conservation_drift": [],
                                               "graph_fanout": []}  # fmt: skip
    vb: dict[str, list[list[float | None]]] = {k: [] for k in va}
    for u in range(n):
        for dim, shift in (("groundedness", 0.8), ("conservation_drift", 0.8), ("graph_fanout", 0)):
            va[dim].append([base[u] + rng.normal(0, 0.3)])
            vb[dim].append([base[u] + shift + rng.normal(0, 0.3)])
    return rows("a", va), rows("b", vb)


def test_planted_effects_are_recovered_with_their_direction() -> None:
    a, b = _planted()
    result = compare_scores(a, b, seed=7)
    assert result.mode == "paired" and result.pairs == 30
    assert result.outcome_of("groundedness") == "better"  # higher is better
    assert result.outcome_of("conservation_drift") == "worse"  # lower is better
    assert result.outcome_of("graph_fanout") == "no difference"
    row = result.dimensions.filter(pl.col("dimension") == "groundedness").row(0, named=True)
    assert row["ci_low"] < 0.8 < row["ci_high"]
    failures = gate_failures(result)
    assert len(failures) == 1 and failures[0].startswith("conservation_drift is worse")
    assert "98.3% adjusted CI" in failures[0]  # 1 - 0.05 / 3: Holm over 3 dimensions
    assert gate_failures(result, ["groundedness"]) == []
    with pytest.raises(InputError, match="--gate"):
        gate_failures(result, ["nope"])


def test_holm_adjusts_across_the_dimensions_of_one_comparison() -> None:
    a, b = _planted()
    result = compare_scores(a, b, correction="bh")
    raw = result.dimensions["p"].to_list()
    assert result.dimensions["p_adj"].to_list() == pytest.approx(adjust(raw, "bh"), abs=TOL)
    holm_result = compare_scores(a, b)
    assert holm_result.dimensions["p_adj"].to_list() == pytest.approx(holm(raw), abs=TOL)


def test_the_bootstrap_is_seeded() -> None:
    a, b = _planted()
    one = compare_scores(a, b, seed=1, resamples=999).dimensions["ci_low"].to_list()
    same = compare_scores(a, b, seed=1, resamples=999).dimensions["ci_low"].to_list()
    other = compare_scores(a, b, seed=2, resamples=999).dimensions["ci_low"].to_list()
    assert one == same
    assert one != other


def test_a_difference_below_the_noise_floor_is_within_noise_whatever_its_p() -> None:
    # B is A + 0.01 on every unit (Wilcoxon: p tiny), but two runs of a unit differ by 2.
    va = {"groundedness": [[u - 1.0, u + 1.0] for u in range(20)]}
    vb = {"groundedness": [[u - 0.99, u + 1.01] for u in range(20)]}
    result = compare_scores(rows("a", va), rows("b", vb))
    row = result.dimensions.row(0, named=True)
    assert row["p_adj"] < 1e-4
    assert row["diff"] == pytest.approx(0.01, abs=1e-9)
    # floor = z * sd_w * sqrt(sum(1/2 + 1/2)) / n, sd_w = sqrt(2)
    z = stats.norm.ppf(0.975)
    assert row["noise_floor"] == pytest.approx(z * math.sqrt(2) * math.sqrt(20) / 20, abs=TOL)
    assert row["outcome"] == "within noise"
    assert gate_failures(result) == []


def test_pass_fail_gets_flips_mcnemar_and_pass_k() -> None:
    pa = {"verdict": [[True, True], [True, False], [False, False], [True, True]]}
    pb = {"verdict": [[True, True], [False, False], [True, True], [True, False]]}
    result = compare_scores(rows("a", {}, passed=pa), rows("b", {}, passed=pb))
    flips = result.flips.row(0, named=True)
    # unit passes when more than half its runs passed: A = T, F, F, T; B = T, F, T, F
    assert (flips["both_pass"], flips["pass_to_fail"], flips["fail_to_pass"],
            flips["both_fail"]) == (1, 1, 1, 1)  # fmt: skip
    assert flips["p"] == 1.0
    k2 = result.pass_k.filter((pl.col("arm") == "A") & (pl.col("k") == 2))["pass_k"][0]
    assert k2 == pytest.approx((1 + 0 + 0 + 1) / 4, abs=TOL)


def test_unpaired_units_are_listed_and_no_pair_falls_back_to_unpaired_tests() -> None:
    a = rows("a", {"groundedness": [[1.0], [2.0], [3.0]]})
    b = rows("b", {"groundedness": [[1.5], [2.5], [3.5], [4.0]]})
    paired = compare_scores(a, b)
    assert paired.pairs == 3 and paired.only_b == ("u3",)
    assert any("only in B" in n for n in paired.notes)
    disjoint = compare_scores(a, rows("b", {"groundedness": [[2.0], [3.0]]}, unit_prefix="v"))
    assert disjoint.mode == "unpaired" and disjoint.pairs == 0
    assert disjoint.only_a == ("u0", "u1", "u2") and disjoint.only_b == ("v0", "v1")
    assert any("unpaired tests" in n for n in disjoint.notes)
    assert disjoint.dimensions["test"][0] == "mann-whitney"


def test_pair_by_rekeys_units_and_names_a_missing_key() -> None:
    a = rows("a", {"groundedness": [[1.0], [2.0]]}).with_columns(pl.Series("seed", ["7", "8"]))
    b = rows("b", {"groundedness": [[1.5], [2.5]]}, unit_prefix="v").with_columns(
        pl.Series("seed", ["8", "7"])
    )
    assert compare_scores(a, b).mode == "unpaired"
    by_seed = compare_scores(a, b, pair_by="seed")
    assert by_seed.pairs == 2
    assert by_seed.dimensions["diff"][0] == pytest.approx(((2.5 - 1.0) + (1.5 - 2.0)) / 2)
    with pytest.raises(InputError, match="--pair-by"):
        compare_scores(a, b, pair_by="scenario")


def test_bad_options_and_mixed_families_are_one_line_errors() -> None:
    a, b = _planted()
    with pytest.raises(InputError, match="--test"):
        compare_scores(a, b, test="anova")
    with pytest.raises(InputError, match="same family"):
        compare_scores(a, b.with_columns(pl.lit("outcome").alias("family")))
    with pytest.raises(InputError, match="nothing was scored"):
        compare_scores(a.head(0), b)
    assert parse_gate("no-regression") is None
    assert parse_gate("no-regression:a, b") == ("a", "b")
    with pytest.raises(InputError, match="--gate"):
        parse_gate("strict")


@pytest.mark.parametrize(
    ("option", "value"),
    [("alpha", 0.0), ("alpha", 1.5), ("level", 1.0), ("seed", -1), ("resamples", -5)],
)
def test_out_of_range_options_name_the_option(option: str, value: float) -> None:
    a, b = _planted()
    with pytest.raises(InputError, match=f"--{option}="):
        compare_scores(a, b, **{option: value})  # type: ignore[arg-type]


def test_nan_is_no_score_like_null() -> None:
    a = rows("a", {"groundedness": [[1.0], [2.0], [float("nan")], [4.0]]})
    b = rows("b", {"groundedness": [[1.5], [2.5], [3.5], [4.5]]})
    row = compare_scores(a, b).dimensions.row(0, named=True)
    assert row["n"] == 3 and row["diff"] == pytest.approx(0.5, abs=TOL)


def test_the_rubric_is_data_loaded_from_yaml_with_a_version_guard(tmp_path: Path) -> None:
    from toolkit.errors import RubricError
    from toolkit.rubrics.compare import COMPARE_VERSION, load_compare_rubric

    flipped = tmp_path / "flipped.yaml"
    flipped.write_text(
        "version: 1.1.0-ours\ndirections:\n  simulation:\n    conservation_drift: 1\n"
    )
    rubric = load_compare_rubric(flipped)
    assert rubric.directions["simulation"]["groundedness"] == 1  # merged over 1.1.0
    a, b = _planted()
    result = compare_scores(a, b, rubric=rubric)
    assert result.outcome_of("conservation_drift") == "better"  # now higher is better
    assert result.version == "1.1.0-ours"
    assert compare_scores(a, b).version == COMPARE_VERSION
    same = tmp_path / "same.yaml"
    same.write_text("version: 1.0.0\nalpha: 0.01\n")
    with pytest.raises(RubricError, match="bump its version"):
        load_compare_rubric(same)
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 2.0.0\ndirections:\n  simulation:\n    graph_fanout: 2\n")
    with pytest.raises(RubricError, match=r"directions\.simulation\.graph_fanout"):
        load_compare_rubric(bad)
