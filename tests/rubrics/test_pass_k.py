"""pass^k (tau-bench): hand-computed values of C(c, k) / C(n, k) averaged over tasks, its
interval, pass^k per arm in every comparison, and the comparison by task property."""

from __future__ import annotations

import polars as pl
import pytest

from toolkit.errors import InputError
from toolkit.frames import COMPARE_SCORES_SCHEMA
from toolkit.rubrics.compare import compare_scores, pass_k

TOL = 1e-12


def trials(spec: dict[str, list[bool]]) -> pl.DataFrame:
    rows = [
        {"task": task, "trial": str(i), "passed": p}
        for task, verdicts in spec.items()
        for i, p in enumerate(verdicts)
    ]
    return pl.DataFrame(rows)


def test_pass_k_by_hand_three_tasks_of_four_trials() -> None:
    # a: 3/4, b: 4/4, c: 1/4
    result = pass_k(trials({"a": [True, True, False, True], "b": [True] * 4,
                            "c": [False, False, True, False]}), resamples=0)  # fmt: skip
    got = dict(result.table.select("k", "pass_k").rows())
    # k=1: (3/4 + 1 + 1/4) / 3; k=2: (C(3,2)/C(4,2) + 1 + 0) / 3 = (3/6 + 1) / 3
    # k=3: (C(3,3)/C(4,3) + 1) / 3 = (1/4 + 1) / 3; k=4: (0 + 1 + 0) / 3
    assert got[1] == pytest.approx(2 / 3, abs=TOL)
    assert got[2] == pytest.approx(0.5, abs=TOL)
    assert got[3] == pytest.approx(1.25 / 3, abs=TOL)
    assert got[4] == pytest.approx(1 / 3, abs=TOL)
    assert result.table["tasks"].to_list() == [3, 3, 3, 3]
    assert result.table["ci_low"].null_count() == 4  # resamples=0: no interval


def test_a_task_with_fewer_trials_counts_only_up_to_its_own_k() -> None:
    result = pass_k(trials({"a": [True, True, True], "b": [True, False]}), resamples=0)
    rows = {k: (tasks, v) for k, tasks, v in result.table.select("k", "tasks", "pass_k").rows()}
    assert rows[1] == (2, pytest.approx((1 + 0.5) / 2, abs=TOL))
    assert rows[2] == (2, pytest.approx((1 + 0) / 2, abs=TOL))  # C(1,2)=0
    assert rows[3] == (1, pytest.approx(1.0, abs=TOL))
    assert any("fewer trials" in n for n in result.notes)


def test_the_interval_brackets_pass_k_and_is_seeded() -> None:
    spec = {f"t{i}": [i % 3 != 0, i % 2 == 0, True] for i in range(12)}
    one = pass_k(trials(spec), resamples=999, seed=3)
    two = pass_k(trials(spec), resamples=999, seed=3)
    assert one.table.equals(two.table)
    for r in one.table.iter_rows(named=True):
        assert r["ci_low"] <= r["pass_k"] <= r["ci_high"]
    single = pass_k(trials({"a": [True, False]}), resamples=99)
    assert single.table["ci_low"].null_count() == single.table.height  # one task: none
    same = pass_k(trials({"a": [True, True], "b": [True, True]}), resamples=99)
    assert same.table["ci_low"].to_list() == [1.0, 1.0]  # every task the same: no spread


def test_bad_trials_frames_are_refused_in_one_line() -> None:
    twice = pl.DataFrame({"task": ["a", "a"], "trial": ["0", "0"], "passed": [True, False]})
    with pytest.raises(InputError, match="trial '0' of this task is given twice"):
        pass_k(twice)
    with pytest.raises(InputError, match="no column 'passed'"):
        pass_k(pl.DataFrame({"task": ["a"], "trial": ["0"]}))
    with pytest.raises(InputError, match="a trial without a task or a verdict"):
        pass_k(pl.DataFrame({"task": ["a"], "trial": ["0"], "passed": [None]},
                            schema={"task": pl.String, "trial": pl.String,
                                    "passed": pl.Boolean}))  # fmt: skip


def arm(name: str, spec: dict[str, tuple[str, str, list[bool]]]) -> pl.DataFrame:
    rows = []
    for task, (difficulty, language, verdicts) in spec.items():
        for i, p in enumerate(verdicts):
            base = {"family": "eval", "unit": task, "run": f"{name}-{task}-{i}", "task": task,
                    "difficulty": difficulty, "language": language}  # fmt: skip
            rows.append(base | {"dimension": "score", "value": 1.0 if p else 0.4,
                                "passed": None})  # fmt: skip
            rows.append(base | {"dimension": "passed", "value": None, "passed": p})
    schema = dict(COMPARE_SCORES_SCHEMA) | {k: pl.String() for k in
                                            ("task", "difficulty", "language")}  # fmt: skip
    return pl.DataFrame(rows, schema=schema)


def test_pass_k_is_given_per_arm_even_without_repeats() -> None:
    a = arm("a", {"t1": ("easy", "go", [True]), "t2": ("hard", "go", [False])})
    b = arm("b", {"t1": ("easy", "go", [True]), "t2": ("hard", "go", [True])})
    result = compare_scores(a, b, resamples=0)
    rows = result.pass_k.select("arm", "k", "units", "pass_k").rows()
    assert rows == [("A", 1, 2, 0.5), ("B", 1, 2, 1.0)]


def test_the_comparison_by_difficulty_and_language_by_hand() -> None:
    a = arm("a", {
        "t1": ("easy", "go", [True, True, True]),
        "t2": ("hard", "go", [True, False, False]),
        "t3": ("hard", "rust", [False, False, False]),
    })  # fmt: skip
    b = arm("b", {
        "t1": ("easy", "go", [True, True, False]),
        "t2": ("hard", "go", [True, True, True]),
        "t3": ("hard", "rust", [True, False, False]),
    })  # fmt: skip
    result = compare_scores(a, b, resamples=0)
    strata = {(r["by"], r["value"]): r for r in result.strata.iter_rows(named=True)}
    assert next(iter(strata)) == ("all", "all tasks")
    every = strata["all", "all tasks"]
    assert every["tasks"] == 3
    assert every["pass_a"] == pytest.approx((1 + 1 / 3 + 0) / 3, abs=TOL)
    assert every["pass_b"] == pytest.approx((2 / 3 + 1 + 1 / 3) / 3, abs=TOL)
    assert every["k"] == 3 and every["pass_k_a"] == pytest.approx(1 / 3, abs=TOL)
    assert every["pass_k_b"] == pytest.approx(1 / 3, abs=TOL)
    assert every["ahead"] == "B"
    hard = strata["difficulty", "hard"]
    assert hard["tasks"] == 2 and hard["diff"] == pytest.approx(((1 - 1 / 3) + 1 / 3) / 2)
    easy = strata["difficulty", "easy"]
    assert easy["ahead"] == "A" and easy["diff"] == pytest.approx(-1 / 3, abs=TOL)
    # score: 1.0 when passed, 0.4 when not; t1 in A: 1.0
    assert easy["score_a"] == pytest.approx(1.0) and easy["score_b"] == pytest.approx(0.8)
    assert strata["language", "rust"]["pass_b"] == pytest.approx(1 / 3, abs=TOL)
    assert result.to_dict()["strata"][0]["by"] == "all"


def test_families_without_difficulty_or_language_have_no_strata() -> None:
    a = arm("a", {"t1": ("easy", "go", [True])}).drop("difficulty", "language")
    result = compare_scores(a, a, resamples=0)
    assert result.strata is None and "strata" not in result.to_dict()
