"""The alternative-annotator test (Calderon et al., ACL 2025) against planted truths.

Judges of known quality over simulated people (a copy of one person passes, a random
judge fails, a biased judge fails at epsilon 0 and passes at a large epsilon), the
leave-one-rater-out step and the p-values worked by hand on a 3-person, 4-item example
(the t distribution's closed forms at 1 and 2 degrees of freedom), and the
Benjamini-Yekutieli step against its step-up rule by hand and SciPy's
``false_discovery_control``.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import polars as pl
import pytest
from conftest import ROOT
from scipy.stats import false_discovery_control

from toolkit.errors import InputError
from toolkit.rubrics.alt_test import alt_test, by_rejections, leave_one_out, one_sided_p

SAMPLE = ROOT / "sample_runs" / "calibration" / "scores.csv"


def _frame(judge: np.ndarray, people: dict[str, np.ndarray]) -> pl.DataFrame:
    rows = [
        {"item": f"i{k:03d}", "rater": r, "score": float(s)}
        for r, scores in {**people, "judge": judge}.items()
        for k, s in enumerate(scores)
    ]
    return pl.DataFrame(rows)


def _people(seed: int, n: int = 80) -> tuple[np.random.Generator, dict[str, np.ndarray]]:
    """Four people rating n items of true quality 1-8 on 0-9, each with noise sd 1."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(1, 8, n)
    return rng, {r: np.clip(np.round(truth + rng.normal(0, 1, n)), 0, 9) for r in "abcd"}


# -- planted judges -------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_a_judge_that_copies_one_person_with_small_noise_passes(seed: int) -> None:
    rng, people = _people(seed)
    n = people["a"].size
    judge = people["a"] + (rng.random(n) < 0.1) * rng.choice([-1.0, 1.0], n)  # 10 % off by 1
    result = alt_test(_frame(judge, people))
    assert result.passed is True
    # against the other three it sits next to one of their peers: it wins them all
    assert result.raters.filter(pl.col("rater") != "a")["rejected"].all()
    assert result.winning_rate is not None and result.winning_rate >= 0.75


@pytest.mark.parametrize("seed", range(4))
def test_a_random_judge_fails(seed: int) -> None:
    rng, people = _people(seed)
    judge = rng.integers(0, 10, people["a"].size).astype(float)
    result = alt_test(_frame(judge, people))
    assert result.passed is False
    assert result.winning_rate == 0.0
    assert result.advantage is not None and result.advantage < 0.5


@pytest.mark.parametrize("seed", range(4))
def test_a_judge_of_planted_bias_fails_at_epsilon_0_and_passes_at_a_large_epsilon(
    seed: int,
) -> None:
    _, people = _people(seed)
    judge = np.round(np.mean(list(people.values()), axis=0) + 1.0)  # the people's mean + 1
    strict = alt_test(_frame(judge, people), epsilon=0.0)
    lenient = alt_test(_frame(judge, people), epsilon=0.7)
    assert strict.passed is False and strict.winning_rate == 0.0
    assert lenient.passed is True and lenient.winning_rate == 1.0
    # the advantage probabilities do not depend on epsilon
    assert strict.raters["rho_judge"].to_list() == lenient.raters["rho_judge"].to_list()


# -- leave-one-rater-out, by hand -----------------------------------------------------

#: 3 people (a, b, c) and the judge on 4 judged items (i4 has no second person, i5 no
#: judge): each comparison is worked in the comments of the test.
HAND = pl.DataFrame(
    [
        ("i1", "a", 2), ("i1", "b", 4), ("i1", "c", 6), ("i1", "judge", 4),
        ("i2", "a", 5), ("i2", "b", 5), ("i2", "judge", 1),
        ("i3", "a", 3), ("i3", "b", 7), ("i3", "c", 7), ("i3", "judge", 7),
        ("i4", "a", 8), ("i4", "judge", 8),
        ("i5", "a", 1), ("i5", "b", 1),
    ],
    schema=["item", "rater", "score"],
    orient="row",
)  # fmt: skip


def test_leave_one_rater_out_by_hand_on_three_people_and_four_items() -> None:
    got = leave_one_out(HAND)
    r2, r8 = math.sqrt(2), math.sqrt(8)
    expected = [
        # a left out. i1: others b=4, c=6: judge 4 -> -sqrt((0+4)/2); a=2 -> -sqrt((4+16)/2)
        ("a", "i1", 2, -r2, -math.sqrt(10), 1, 0),
        # i2: others b=5: judge 1 -> -4, a=5 -> 0
        ("a", "i2", 1, -4.0, 0.0, 0, 1),
        # i3: others b=7, c=7: judge 7 -> 0, a=3 -> -4
        ("a", "i3", 2, 0.0, -4.0, 1, 0),
        # b left out. i1: others a=2, c=6: judge 4 and b=4 both -sqrt((4+4)/2): a tie
        ("b", "i1", 2, -2.0, -2.0, 1, 1),
        ("b", "i2", 1, -4.0, 0.0, 0, 1),
        # i3: others a=3, c=7: judge 7 and b=7 both -sqrt((16+0)/2)
        ("b", "i3", 2, -r8, -r8, 1, 1),
        # c left out (c rated i1 and i3 only). i1: others a=2, b=4
        ("c", "i1", 2, -r2, -math.sqrt(10), 1, 0),
        ("c", "i3", 2, -r8, -r8, 1, 1),
    ]
    assert got["rater"].to_list() == [e[0] for e in expected]
    assert got["item"].to_list() == [e[1] for e in expected]
    assert got["others"].to_list() == [e[2] for e in expected]
    assert got["s_judge"].to_list() == pytest.approx([e[3] for e in expected], abs=1e-12)
    assert got["s_rater"].to_list() == pytest.approx([e[4] for e in expected], abs=1e-12)
    assert got["w_judge"].to_list() == [e[5] for e in expected]
    assert got["w_rater"].to_list() == [e[6] for e in expected]


def _t_cdf_df1(t: float) -> float:
    return 0.5 + math.atan(t) / math.pi


def _t_cdf_df2(t: float) -> float:
    return 0.5 + t / (2 * math.sqrt(2 + t * t))


def test_the_hand_example_advantage_probabilities_and_p_values() -> None:
    result = alt_test(HAND, epsilon=0.2)
    rows = {r["rater"]: r for r in result.raters.iter_rows(named=True)}
    # a: d = w_a - w_judge = [-1, 1, -1]: mean -1/3, sd sqrt(4/3), t = (-1/3 - 0.2) / (2/3)
    # b: d = [0, 1, 0]: mean 1/3, sd sqrt(1/3), t = (1/3 - 0.2) / (1/3) = 0.4
    # c: d = [-1, 0]: mean -1/2, sd sqrt(1/2), t = (-0.5 - 0.2) / 0.5 = -1.4 (1 df)
    assert rows["a"]["rho_judge"] == pytest.approx(2 / 3)
    assert rows["a"]["rho_rater"] == pytest.approx(1 / 3)
    assert rows["b"]["rho_rater"] == 1.0
    assert rows["c"]["rho_judge"] == 1.0 and rows["c"]["rho_rater"] == 0.5
    assert rows["a"]["p_value"] == pytest.approx(_t_cdf_df2(-0.8), abs=1e-12)
    assert rows["b"]["p_value"] == pytest.approx(_t_cdf_df2(0.4), abs=1e-12)
    assert rows["c"]["p_value"] == pytest.approx(_t_cdf_df1(-1.4), abs=1e-12)
    assert result.advantage == pytest.approx((2 / 3 + 2 / 3 + 1) / 3)
    assert result.winning_rate == 0.0  # p-values of 0.2-0.6 reject nothing
    assert all(r["note"] is not None for r in rows.values())  # every person under 30 items


def test_differences_that_do_not_vary_take_the_tests_limit() -> None:
    assert one_sided_p(np.zeros(5), 0.2) == 0.0
    assert one_sided_p(np.ones(5), 0.2) == 1.0
    assert math.isnan(one_sided_p(np.zeros(1), 0.2))


def _by_the_paper(judge: dict, people: dict, epsilon: float) -> tuple[list, list, list]:
    """The procedure as the paper defines it, written out item by item (negative RMSE,
    ties to both, one-sided t-test): per person (rho_judge, rho_person, p)."""
    from scipy.stats import ttest_1samp

    rho_j, rho_h, ps = [], [], []
    for j in sorted(people):
        wj, wh = [], []
        for item, score in people[j].items():
            others = [people[k][item] for k in people if k != j and item in people[k]]
            if not others or item not in judge:
                continue
            s_f = -math.sqrt(sum((judge[item] - o) ** 2 for o in others) / len(others))
            s_h = -math.sqrt(sum((score - o) ** 2 for o in others) / len(others))
            wj.append(int(s_f >= s_h))
            wh.append(int(s_h >= s_f))
        d = [h - f for h, f in zip(wh, wj, strict=True)]
        rho_j.append(sum(wj) / len(wj))
        rho_h.append(sum(wh) / len(wh))
        ps.append(float(ttest_1samp(d, epsilon, alternative="less").pvalue))
    return rho_j, rho_h, ps


@pytest.mark.parametrize("seed", range(3))
def test_the_whole_frame_at_once_equals_the_procedure_item_by_item(seed: int) -> None:
    rng, people = _people(seed, n=60)
    judge = np.clip(np.round(np.mean(list(people.values()), axis=0) + rng.normal(0, 1, 60)), 0, 9)
    # every person skips a different fifth of the items: uneven "others" per item
    sparse = {
        r: {f"i{k:03d}": float(v) for k, v in enumerate(scores) if k % 5 != i}
        for i, (r, scores) in enumerate(people.items())
    }
    judged = {f"i{k:03d}": float(v) for k, v in enumerate(judge)}
    rows = [(i, r, v) for r, d in sparse.items() for i, v in d.items()]
    rows += [(i, "judge", v) for i, v in judged.items()]
    frame = pl.DataFrame(rows, schema=["item", "rater", "score"], orient="row")
    result = alt_test(frame, epsilon=0.1)
    rho_j, rho_h, ps = _by_the_paper(judged, sparse, 0.1)
    assert result.raters["rho_judge"].to_list() == pytest.approx(rho_j, abs=1e-12)
    assert result.raters["rho_rater"].to_list() == pytest.approx(rho_h, abs=1e-12)
    assert result.raters["p_value"].to_list() == pytest.approx(ps, abs=1e-12)


# -- the multiple-comparison step -----------------------------------------------------


def test_by_rejects_by_its_step_up_rule_where_bh_would_reject_more() -> None:
    # m = 4, H_4 = 25/12: thresholds k * 0.05 / (4 * 25/12) = 0.006 k.
    # Sorted p: 0.001 <= 0.006, 0.008 <= 0.012, 0.02 > 0.018, 0.6 > 0.024: two rejected
    # (Benjamini-Hochberg's 0.0125 k would take the third as well).
    p = np.array([0.6, 0.02, 0.001, 0.008])
    adjusted, rejected = by_rejections(p, 0.05)
    assert rejected.tolist() == [False, False, True, True]
    # adjusted p_(k) = min over j >= k of m H_m p_(j) / j, at most 1 (m H_m = 25/3)
    mh = 25 / 3
    by_hand = [1.0, mh * 0.02 / 3, mh * 0.001, mh * 0.008 / 2]
    assert adjusted.tolist() == pytest.approx(by_hand, abs=1e-12)


def test_by_matches_scipys_false_discovery_control_on_random_p_values() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        m = int(rng.integers(1, 12))
        p = rng.beta(0.3, 2.0, m)
        adjusted, rejected = by_rejections(p, 0.05)
        reference = false_discovery_control(p, method="by")
        assert adjusted == pytest.approx(reference, abs=1e-15)
        # and the step-up rule, by hand: reject the k smallest, k the largest with
        # p_(k) <= k q / (m H_m)
        order = np.sort(p)
        h = sum(1 / i for i in range(1, m + 1))
        ks = [k for k in range(1, m + 1) if order[k - 1] <= k * 0.05 / (m * h)]
        assert int(rejected.sum()) == (max(ks) if ks else 0)


def test_a_missing_p_value_is_never_rejected_and_not_counted() -> None:
    adjusted, rejected = by_rejections(np.array([0.001, math.nan]), 0.05)
    assert rejected.tolist() == [True, False]
    assert adjusted[0] == pytest.approx(0.001)  # m = 1: nothing to adjust
    assert math.isnan(adjusted[1])


# -- refusals and the command line ----------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"epsilon": 1.5}, "--alt-epsilon"), ({"epsilon": -0.1}, "--alt-epsilon"),
     ({"judge": "nobody"}, "--judge-id"), ({"scoring": "kappa"}, "scoring")],
)  # fmt: skip
def test_bad_arguments_are_refused_in_one_line(kwargs: dict, field: str) -> None:
    with pytest.raises(InputError) as err:
        alt_test(HAND, **kwargs)
    assert err.value.field == field


def test_one_person_is_refused() -> None:
    one = HAND.filter(pl.col("rater").is_in(["a", "judge"]))
    with pytest.raises(InputError, match="at least two people"):
        alt_test(one)


def _toolkit(*args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from toolkit.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.skipif(not SAMPLE.exists(), reason="the sample session is absent")
def test_calibrate_shows_the_test_beside_the_band_in_text_and_json() -> None:
    import json

    text = _toolkit("calibrate", str(SAMPLE), "--top", "0")
    assert text.returncode == 0, text.stderr
    out = text.stdout
    assert out.index("humans' leave-one-out band") < out.index("Alternative-annotator test")
    assert out.index("Alternative-annotator test") < out.index("Bias: judge")
    assert "winning rate 0.00 (0.50 passes): the judge fails" in out
    assert max(len(line) for line in out.splitlines()) <= 80
    data = json.loads(_toolkit("calibrate", str(SAMPLE), "--format", "json",
                               "--alt-epsilon", "0.1").stdout)  # fmt: skip
    alt = data["alt_test"]
    assert alt["epsilon"] == 0.1 and alt["passed"] is False
    assert [r["rater"] for r in alt["raters"]] == ["ana", "ben", "chloe"]
    assert [r["items"] for r in alt["raters"]] == [40, 40, 40]


def test_calibrate_refuses_an_epsilon_outside_0_to_1() -> None:
    got = _toolkit("calibrate", str(SAMPLE), "--alt-epsilon", "2")
    assert got.returncode == 2
    assert got.stderr.strip().splitlines() == [
        "toolkit calibrate: error: --alt-epsilon=2.0: must be from 0 to 1"
    ]


def test_a_person_with_fewer_than_two_items_is_not_tested_nor_counted() -> None:
    # c rated only i2, which nobody else rated: no comparison, so no p-value; a and b
    # have one item each; nobody is tested, so the winning rate is undefined, not 0
    frame = pl.DataFrame(
        [("i1", "a", 1), ("i1", "b", 2), ("i1", "judge", 2), ("i2", "c", 3),
         ("i2", "judge", 3)],
        schema=["item", "rater", "score"], orient="row",
    )  # fmt: skip
    result = alt_test(frame)
    assert result.raters["items"].to_list() == [1, 1, 0]
    assert result.raters["p_value"].to_list() == [None, None, None]
    assert result.raters["rejected"].to_list() == [False, False, False]
    assert result.winning_rate is None and result.passed is None
    assert result.raters["note"].to_list()[2] == "c: 0 items to compare: not tested"
