"""The other two-group tests, percent_change and the assumption checks.

Every expected number is computed here independently: by hand (worked in the comments) or
by calling :mod:`scipy.stats` directly on the raw lists, never through the code under test.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from conftest import experiment_scores as scores
from conftest import only_row as one
from scipy import stats as sps

from toolkit.load.experiments import load_experiments
from toolkit.rubrics.experiment import (
    ASSUMPTIONS_SCHEMA,
    TESTS,
    assumption_checks,
    compare_to_reported,
    experiment_stats,
)

T = [6.0, 7.0, 7.0, 8.0, 9.0, 5.0, 7.0, 8.0]
C = [5.0, 6.0, 4.0, 6.0, 7.0, 5.0, 6.0, 3.0, 5.0]


def test_welch_stays_the_default_and_names_itself() -> None:
    r = one(experiment_stats(scores(T, C)))
    assert r["test"] == "welch"
    assert r["statistic"] == r["t_stat"]
    expected = sps.ttest_ind(T, C, equal_var=False)
    assert r["t_stat"] == pytest.approx(expected.statistic, rel=1e-12)
    assert r["p_value"] == pytest.approx(expected.pvalue, rel=1e-9)


def test_student_t_matches_scipy_with_pooled_variance() -> None:
    r = one(experiment_stats(scores(T, C), test="student"))
    expected = sps.ttest_ind(T, C, equal_var=True)
    assert r["test"] == "student"
    assert r["t_stat"] == pytest.approx(expected.statistic, rel=1e-12)
    assert r["statistic"] == r["t_stat"]
    assert r["p_value"] == pytest.approx(expected.pvalue, rel=1e-12)
    assert r["df"] == len(T) + len(C) - 2
    low, high = expected.confidence_interval(0.95)
    assert (r["ci_low"], r["ci_high"]) == (pytest.approx(low), pytest.approx(high))
    # Sign: treatment - control, as the difference (our Welch convention too).
    assert r["t_stat"] > 0 and r["delta"] > 0


def test_mann_whitney_u_is_the_treatments_u() -> None:
    # Hand-worked: T = 3, 4, 5 vs C = 1, 2, 6 -> each T value beats two C values: U_T = 6.
    r = one(experiment_stats(scores([3, 4, 5], [1, 2, 6]), test="mannwhitney"))
    assert r["statistic"] == 6.0
    assert r["p_value"] == pytest.approx(sps.mannwhitneyu([3, 4, 5], [1, 2, 6]).pvalue)
    assert r["t_stat"] is None and r["ci_low"] is None and r["df"] is None


def test_mann_whitney_reports_p_t_beats_c_and_the_median_difference() -> None:
    # Hand-worked: T = 3, 4, 5 vs C = 1, 2, 6: T wins 6 of the 9 pairs -> P(T > C) = 2/3;
    # medians 4 and 2 -> median difference 2.
    r = one(experiment_stats(scores([3, 4, 5], [1, 2, 6]), test="mannwhitney"))
    assert r["prob_superiority"] == pytest.approx(2 / 3)
    assert r["median_delta"] == 2.0
    # Ties count as losses (TinyTroupe's count of strict wins): T = 1, 2 vs C = 2, 3 has
    # one tie (2, 2) and no win -> 0; U_T counts the tie half, so U_T / (2 * 2) = 1/8.
    r = one(experiment_stats(scores([1, 2], [2, 3]), test="mannwhitney"))
    assert r["prob_superiority"] == 0.0
    assert r["statistic"] / 4 == pytest.approx(0.125)
    assert r["median_delta"] == pytest.approx(1.5 - 2.5)
    # On the tied sample lists: the share of strict wins, counted here pair by pair
    wins = sum(1 for x in T for y in C if x > y)
    r = one(experiment_stats(scores(T, C), test="mannwhitney"))
    assert r["prob_superiority"] == pytest.approx(wins / (len(T) * len(C)))
    assert r["median_delta"] == pytest.approx(float(np.median(T) - np.median(C)))
    assert r["cramers_v"] is None


def test_mann_whitney_matches_scipy_on_tied_scores() -> None:
    r = one(experiment_stats(scores(T, C), test="mannwhitney"))
    expected = sps.mannwhitneyu(T, C, alternative="two-sided")
    assert r["statistic"] == expected.statistic
    assert r["p_value"] == pytest.approx(expected.pvalue, rel=1e-12)
    # U_T + U_C = n_T * n_C
    other = sps.mannwhitneyu(C, T, alternative="two-sided").statistic
    assert r["statistic"] + other == len(T) * len(C)


def test_kolmogorov_smirnov_matches_scipy() -> None:
    # Hand-worked: two samples that do not overlap have D = 1.
    assert one(experiment_stats(scores([1, 2, 3], [4, 5, 6]), test="ks"))["statistic"] == 1.0
    r = one(experiment_stats(scores(T, C), test="ks"))
    expected = sps.ks_2samp(T, C)
    assert r["statistic"] == pytest.approx(expected.statistic)
    assert r["p_value"] == pytest.approx(expected.pvalue, rel=1e-12)


def test_chi_square_counts_score_values_as_categories() -> None:
    # Hand-worked 2 x 2 table: T = [1, 1, 1, 2] (three 1s, one 2), C = [1, 2, 2, 2].
    # Expected counts: 2 in every cell, |observed - expected| = 1 in every cell. With
    # Yates' continuity correction (TinyTroupe calls scipy's chi2_contingency with its
    # default, which applies it to a 2 x 2 table): chi2 = 4 * (1 - 0.5)^2 / 2 = 0.5, df 1
    # (without it chi2 would be 4 * 1^2 / 2 = 2). Cramer's V = sqrt(0.5 / (8 * 1)) = 0.25.
    r = one(experiment_stats(scores([1, 1, 1, 2], [1, 2, 2, 2]), test="chisquare"))
    assert r["statistic"] == pytest.approx(0.5)
    assert r["df"] == 1.0
    assert r["p_value"] == pytest.approx(sps.chi2.sf(0.5, 1))
    assert r["cramers_v"] == pytest.approx(0.25)
    # Against scipy on a 2 x k table of counts (k > 2: no correction applies).
    values = sorted(set(T) | set(C))
    table = np.array([[T.count(v) for v in values], [C.count(v) for v in values]])
    expected = sps.chi2_contingency(table)
    r = one(experiment_stats(scores(T, C), test="chisquare"))
    assert r["statistic"] == pytest.approx(expected.statistic)
    assert r["p_value"] == pytest.approx(expected.pvalue)
    assert r["df"] == expected.dof
    v = sps.contingency.association(table, method="cramer")  # scipy's own Cramer's V
    assert r["cramers_v"] == pytest.approx(v)
    assert r["prob_superiority"] is None and r["median_delta"] is None


def test_chi_square_on_a_two_by_two_table_matches_scipys_yates() -> None:
    t, c = [1, 1, 1, 1, 1, 2, 2], [1, 2, 2, 2, 2, 2, 2, 2]
    table = np.array([[t.count(1), t.count(2)], [c.count(1), c.count(2)]])
    expected = sps.chi2_contingency(table, correction=True)
    r = one(experiment_stats(scores(t, c), test="chisquare"))
    assert r["statistic"] == pytest.approx(expected.statistic)
    assert r["statistic"] < sps.chi2_contingency(table, correction=False).statistic
    assert r["p_value"] == pytest.approx(expected.pvalue)
    # TinyTroupe's V uses the corrected chi2: sqrt(chi2 / (n * (2 - 1)))
    assert r["cramers_v"] == pytest.approx(math.sqrt(expected.statistic / table.sum()))


def test_chi_square_with_one_category_is_absent_with_a_reason() -> None:
    r = one(experiment_stats(scores([4, 4, 4], [4, 4]), test="chisquare"))
    assert r["p_value"] is None and r["significant"] is None
    assert "one category only" in str(r["absent_reason"])


@pytest.mark.parametrize("test", [t for t in TESTS if t != "welch"])
def test_too_few_scores_name_the_chosen_test(test: str) -> None:
    r = one(experiment_stats(scores([5], [5, 6]), test=test))
    assert r["p_value"] is None
    assert str(r["absent_reason"]).startswith("treatment has 1 score; ")
    assert "needs at least 2 per group" in str(r["absent_reason"])
    assert "Welch" not in str(r["absent_reason"])


def test_an_unknown_test_is_refused() -> None:
    with pytest.raises(ValueError, match="'anova-ish'"):
        experiment_stats(scores(T, C), test="anova-ish")


def test_percent_change_is_the_difference_over_the_control_mean() -> None:
    # T mean 3, C mean 2 -> +50 %.
    assert one(experiment_stats(scores([2, 4], [1, 3])))["percent_change"] == pytest.approx(50.0)
    # Control mean 0: infinite, where TinyTroupe's is (float("inf")), with delta's sign.
    assert one(experiment_stats(scores([2, 4], [-1, 1])))["percent_change"] == math.inf
    assert one(experiment_stats(scores([-2, -4], [0, 0])))["percent_change"] == -math.inf
    # 0 / 0 (no change from 0) is not a number: null (TinyTroupe says inf here)
    assert one(experiment_stats(scores([0, 0], [1, -1])))["percent_change"] is None


# ---------------------------------------------------------------------------
# Assumption checks
# ---------------------------------------------------------------------------


def test_shapiro_and_levene_match_scipy() -> None:
    out = assumption_checks(scores(T, C))
    assert out.schema == pl.Schema(ASSUMPTIONS_SCHEMA)
    r = one(out)
    for prefix, values in (("t", T), ("c", C)):
        expected = sps.shapiro(values)
        assert r[f"{prefix}_shapiro_w"] == pytest.approx(expected.statistic)
        assert r[f"{prefix}_shapiro_p"] == pytest.approx(expected.pvalue)
    levene = sps.levene(T, C)
    assert r["levene_w"] == pytest.approx(levene.statistic)
    assert r["levene_p"] == pytest.approx(levene.pvalue)
    assert r["normal"] is True and r["equal_variances"] is True and r["hint"] is None


def test_non_normal_small_groups_suggest_mann_whitney() -> None:
    skewed = [0.0] * 9 + [10.0]
    r = one(assumption_checks(scores(skewed, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])))
    assert sps.shapiro(skewed).pvalue < 0.05  # the premise, checked directly
    assert r["normal"] is False
    assert "treatment scores do not look normal" in str(r["hint"])
    assert "--test mannwhitney" in str(r["hint"])


def test_non_normal_large_groups_say_the_t_test_still_holds() -> None:
    rng = np.random.default_rng(7)
    t = list(rng.exponential(2.0, 60))
    c = list(rng.exponential(2.0, 60))
    r = one(assumption_checks(scores(t, c)))
    assert r["normal"] is False
    assert "30+ per group the t-test on means still holds" in str(r["hint"])


def test_unequal_spreads_point_to_welch_not_student() -> None:
    wide = [0.0, 10.0, 1.0, 9.0, 2.0, 8.0, 0.5, 9.5]
    narrow = [5.0, 5.1, 4.9, 5.0, 5.05, 4.95, 5.0, 5.02]
    r = one(assumption_checks(scores(wide, narrow)))
    assert sps.levene(wide, narrow).pvalue < 0.05  # the premise, checked directly
    assert r["equal_variances"] is False
    assert "Student's t (--test student) does not" in str(r["hint"])


def test_too_few_or_constant_scores_leave_the_checks_null() -> None:
    r = one(assumption_checks(scores([5, 5, 5, 5], [1, 2])))
    assert r["t_shapiro_p"] is None  # no spread
    assert r["c_shapiro_p"] is None  # fewer than 3
    assert r["normal"] is None
    assert "normal" not in str(r["hint"])  # no normality verdict without a test


# ---------------------------------------------------------------------------
# TinyTroupe's stored results
# ---------------------------------------------------------------------------


def test_percent_change_matches_tinytroupes_stored_results(real_runs: Path) -> None:
    folder = real_runs / "experiments" / "tinytroupe-june-2025"
    files = sorted(p for p in folder.glob("*.json") if p.name != "table1.published.json")
    loaded = load_experiments(files)
    out = compare_to_reported(experiment_stats(loaded.scores), loaded.reported).filter(
        pl.col("quantity") == "percent_change"
    )
    assert out.height == 5 * 6 + 2 * 3
    assert out["theirs"].null_count() == 0
    assert out["abs_diff"].max() < 1e-9  # type: ignore[operator]


def test_student_on_tinytroupe_scores_matches_scipy_on_the_raw_lists(real_runs: Path) -> None:
    import json

    path = (
        real_runs
        / "experiments"
        / "tinytroupe-june-2025"
        / "brainstorming_and_focus_group_quantitative_experimentation_1c.json"
    )
    raw = json.loads(path.read_text(encoding="utf-8"))["experiments"]
    loaded = load_experiments([path])
    for test in ("student", "mannwhitney", "ks"):
        stats = experiment_stats(loaded.scores, test=test)
        for r in stats.iter_rows(named=True):
            t = [float(x) for x in raw["Treatment"]["results"][r["metric"]] if x is not None]
            c = [float(x) for x in raw["Control"]["results"][r["metric"]] if x is not None]
            if test == "student":
                expected = sps.ttest_ind(t, c, equal_var=True)
            elif test == "mannwhitney":
                expected = sps.mannwhitneyu(t, c, alternative="two-sided")
            else:
                expected = sps.ks_2samp(t, c)
            assert r["statistic"] == pytest.approx(expected.statistic, rel=1e-12), (test, r)
            assert math.isclose(r["p_value"], expected.pvalue, rel_tol=1e-9, abs_tol=1e-300)


# ---------------------------------------------------------------------------
# Several treatments against one control; one-way ANOVA
# ---------------------------------------------------------------------------


def three_arms(tmp_path: Path) -> Path:
    import json

    data = {
        "experiments": {
            "Control": {"results": {"F": [1, 2, 3, 2], "G": [5, 5, 6, 4]}},
            "Variant A": {"results": {"F": [3, 4, 5, 4], "G": [5, 6, 5, 5]}},
            "Variant B": {"results": {"F": [6, 7, 6, 8], "G": [4, 6, 5, 6]}},
        }
    }
    path = tmp_path / "arms.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_each_treatment_is_tested_against_the_one_control(tmp_path: Path) -> None:
    loaded = load_experiments([three_arms(tmp_path)])
    stats = experiment_stats(loaded.scores).filter(pl.col("metric") == "F")
    by = {r["experiment"]: r for r in stats.iter_rows(named=True)}
    assert set(by) == {"arms / Variant A", "arms / Variant B"}
    for arm, values in (("Variant A", [3, 4, 5, 4]), ("Variant B", [6, 7, 6, 8])):
        expected = sps.ttest_ind(values, [1, 2, 3, 2], equal_var=False)
        assert by[f"arms / {arm}"]["t_stat"] == pytest.approx(expected.statistic)
        assert by[f"arms / {arm}"]["p_value"] == pytest.approx(expected.pvalue)


def test_anova_over_the_control_and_every_treatment_matches_scipy(tmp_path: Path) -> None:
    from toolkit.rubrics.experiment import ANOVA_SCHEMA, anova_stats

    out = anova_stats(load_experiments([three_arms(tmp_path)]).scores)
    assert out.schema == pl.Schema(ANOVA_SCHEMA)
    r = out.filter(pl.col("metric") == "F").row(0, named=True)
    assert r["groups"] == ["control", "Variant A", "Variant B"]
    assert r["n"] == [4, 4, 4]
    expected = sps.f_oneway([1, 2, 3, 2], [3, 4, 5, 4], [6, 7, 6, 8])
    assert r["f_stat"] == pytest.approx(expected.statistic)
    assert r["p_value"] == pytest.approx(expected.pvalue)
    assert (r["df_between"], r["df_within"]) == (2.0, 9.0)
    # Hand-worked: group means 2, 4, 6.75, grand mean 4.25; SS between = 4 * (2.25^2 +
    # 0.25^2 + 2.5^2) = 45.5; SS within = 2 + 2 + 2.75 = 6.75 -> eta^2 = 45.5 / 52.25.
    assert r["eta_squared"] == pytest.approx(45.5 / 52.25)
    assert r["significant"] is True


def test_anova_needs_three_groups(tmp_path: Path) -> None:
    from toolkit.rubrics.experiment import anova_stats

    r = anova_stats(scores(T, C)).row(0, named=True)
    assert r["groups"] == ["control", "treatment"]
    assert r["p_value"] is None and r["significant"] is None
    assert "needs 3 or more groups; 2 have scores" in r["absent_reason"]
    # With two groups Student's t answers the same question: F = t^2, same p.
    student = sps.ttest_ind(T, C)
    f = sps.f_oneway(T, C)
    assert f.statistic == pytest.approx(student.statistic**2)
    assert f.pvalue == pytest.approx(student.pvalue)
