"""TinyTroupe's own test cases: two constant groups (issue 37).

scipy (and TinyTroupe, which calls it) gives two constant groups with different means
(all 1s vs all 2s) t = ±∞ and p = 0: the difference is certain. Two constant groups with
the same mean give 0 / 0: no test. Checked against ``scipy.stats.ttest_ind`` itself.
"""

from __future__ import annotations

import math
import warnings

import pytest
from conftest import experiment_scores as scores
from conftest import only_row as one
from scipy import stats

from toolkit.rubrics.experiment import experiment_scorecards, experiment_stats
from toolkit.views.experiment import experiment_report_dict


def scipy_welch(t: list[float], c: list[float]) -> tuple[float, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on the zero variance
        res = stats.ttest_ind(t, c, equal_var=False)
    return float(res.statistic), float(res.pvalue)


@pytest.mark.parametrize(
    ("treatment", "control", "sign"),
    [([1, 1, 1], [2, 2, 2], -1), ([2, 2, 2, 2], [1, 1, 1], 1), ([9, 9], [0, 0, 0, 0, 0], 1)],
)
def test_constant_groups_apart_give_infinite_t_and_zero_p_as_scipy(
    treatment: list[float], control: list[float], sign: int
) -> None:
    t_ref, p_ref = scipy_welch(treatment, control)
    assert t_ref == sign * math.inf and p_ref == 0.0  # scipy's own answer
    r = one(experiment_stats(scores(treatment, control)))
    assert r["t_stat"] == t_ref and r["statistic"] == t_ref
    assert r["p_value"] == p_ref
    assert r["significant"] is True
    assert r["delta"] == pytest.approx(treatment[0] - control[0])
    assert r["se"] == 0
    assert r["ci_low"] == r["ci_high"] == pytest.approx(treatment[0] - control[0])
    assert r["cohens_d"] is None and r["df"] is None  # undefined, and said so
    assert "Cohen's d and df are undefined" in r["absent_reason"]


def test_constant_groups_with_equal_means_give_no_test_as_scipy_gives_nan() -> None:
    t_ref, p_ref = scipy_welch([3, 3, 3], [3, 3])
    assert math.isnan(t_ref) and math.isnan(p_ref)
    r = one(experiment_stats(scores([3, 3, 3], [3, 3])))
    assert r["t_stat"] is None and r["p_value"] is None and r["significant"] is None
    assert "equal means" in r["absent_reason"]


def test_a_certain_difference_is_a_significant_card_row_and_json_keeps_the_sign() -> None:
    stats_frame = experiment_stats(scores([1, 1, 1], [2, 2, 2]))
    (card,) = experiment_scorecards(stats_frame)
    assert card.dimensions["status"].to_list() == ["SIGNIFICANT"]
    cell = experiment_report_dict(stats_frame)["experiments"]["e"]["metrics"]["m"]
    assert cell["t_stat"] == "-Infinity" and cell["statistic"] == "-Infinity"
    assert cell["p_value"] == 0.0 and cell["significant"] is True
