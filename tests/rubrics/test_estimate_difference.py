"""The difference of two PPI++ estimates (toolkit/rubrics/estimate.py, estimate_difference):
each arm equal to ppi-python, the difference's interval the arms' variances added, and
coverage of a planted difference over 1,000 draws within a stated binomial tolerance."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest

from toolkit.errors import InputError
from toolkit.rubrics.estimate import estimate_difference

Z = NormalDist().inv_cdf(0.975)


@pytest.fixture(scope="module")
def ppi_py():  # type: ignore[no-untyped-def]
    return pytest.importorskip("ppi_py")


def _arm(
    rng: np.random.Generator, truth: float, n: int, big_n: int, bias: float
) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    """One arm: n + N items of people's score ~ N(truth, 2), a judge of planted ``bias``
    and noise sd 1.2 on every item, one person on the first n. Also (y, judge)."""
    people = rng.normal(truth, 2, n + big_n)
    judge = people + bias + rng.normal(0, 1.2, n + big_n)
    items = [f"i{k:04d}" for k in range(n + big_n)]
    frame = pl.DataFrame({
        "item": items + items[:n],
        "rater": ["judge"] * (n + big_n) + ["p1"] * n,
        "score": np.concatenate([judge, people[:n]]),
    })  # fmt: skip
    return frame, people[:n], judge


def _row(result, measure: str, arm: str) -> dict:  # type: ignore[no-untyped-def]
    return result.frame.filter((pl.col("measure") == measure) & (pl.col("arm") == arm)).row(
        0, named=True
    )


def test_each_arm_equals_ppi_python_and_the_difference_adds_their_variances(ppi_py) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    a, ya, ja = _arm(rng, 4.0, 60, 240, 0.8)
    b, yb, jb = _arm(rng, 4.6, 45, 300, -0.4)
    result = estimate_difference(a, b)
    half = []
    for frame_arm, y, judge, n in (("A", ya, ja, 60), ("B", yb, jb, 45)):
        ref = float(ppi_py.ppi_mean_pointestimate(y, judge[:n], judge[n:], lam=None)[0])
        low, high = ppi_py.ppi_mean_ci(y, judge[:n], judge[n:], alpha=0.05, lam=None)
        got = _row(result, "mean", frame_arm)
        assert got["estimate"] == pytest.approx(ref, abs=1e-9)
        assert got["low"] == pytest.approx(float(low[0]), abs=1e-9)
        assert got["high"] == pytest.approx(float(high[0]), abs=1e-9)
        half.append((float(high[0]) - float(low[0])) / 2)
    diff = _row(result, "mean", "B - A")
    point = _row(result, "mean", "B")["estimate"] - _row(result, "mean", "A")["estimate"]
    width = math.sqrt(half[0] ** 2 + half[1] ** 2)  # z se_A and z se_B, added in quadrature
    assert diff["estimate"] == pytest.approx(point, abs=1e-12)
    assert diff["low"] == pytest.approx(point - width, abs=1e-9)
    assert diff["high"] == pytest.approx(point + width, abs=1e-9)


def test_the_pass_rate_arms_equal_ppi_python_on_the_verdicts(ppi_py) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(4)
    a, ya, ja = _arm(rng, 5.0, 80, 200, 0.5)
    b, _, _ = _arm(rng, 5.5, 80, 200, 0.5)
    result = estimate_difference(a, b, threshold=5.0)
    yv, jv = (ya >= 5).astype(float), (ja >= 5).astype(float)
    ref = float(ppi_py.ppi_mean_pointestimate(yv, jv[:80], jv[80:], lam=None)[0])
    low, high = ppi_py.ppi_mean_ci(yv, jv[:80], jv[80:], alpha=0.05, lam=None)
    got = _row(result, "pass_rate", "A")
    assert got["estimate"] == pytest.approx(ref, abs=1e-9)
    assert (got["low"], got["high"]) == pytest.approx((float(low[0]), float(high[0])), abs=1e-9)


def test_the_interval_covers_a_planted_difference_at_its_level_over_1000_draws() -> None:
    # People's means 5.0 (A) and 5.5 (B): the truth B - A = 0.5, whatever the judges'
    # biases (+0.8 in A, +0.3 in B: a judge-only difference would say 0). 100 rated and
    # 300 unrated items per arm. 1,000 draws of a 95 % interval: the coverage's binomial
    # sd is sqrt(0.95 * 0.05 / 1000) = 0.0069; the tolerance is 3 sd, [0.929, 0.971].
    rng = np.random.default_rng(2026)
    covered, judge_only_covered = 0, 0
    draws = 1000
    for _ in range(draws):
        a, _, _ = _arm(rng, 5.0, 100, 300, 0.8)
        b, _, _ = _arm(rng, 5.5, 100, 300, 0.3)
        diff = _row(estimate_difference(a, b), "mean", "B - A")
        covered += diff["low"] <= 0.5 <= diff["high"]
        judge_only_covered += abs(diff["judge_mean"] - 0.5) < 0.1
    assert 0.929 <= covered / draws <= 0.971
    assert judge_only_covered / draws < 0.05  # the judge alone sees about 0, not 0.5


def test_an_arm_without_ratings_is_refused_naming_the_arm() -> None:
    rng = np.random.default_rng(5)
    a, _, _ = _arm(rng, 5.0, 20, 20, 0.0)
    b = a.filter(pl.col("rater") == "judge").with_columns(pl.lit("p0").alias("rater")).head(1)
    b = pl.concat([a.filter(pl.col("rater") == "judge"), b])
    with pytest.raises(InputError) as err:
        estimate_difference(a, b, labels=("v1.csv", "v2.csv"))
    assert str(err.value).startswith("v2.csv: ")
    assert "at least two" in str(err.value)


def _toolkit(*args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from toolkit.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )


def test_compare_estimate_prints_both_arms_and_b_minus_a(tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    a, _, _ = _arm(rng, 4.0, 30, 60, 0.5)
    b, _, _ = _arm(rng, 4.0, 30, 60, 0.5)
    # scores on the 0-9 scale the loader holds them to
    for frame, name in ((a, "a.csv"), (b, "b.csv")):
        frame.with_columns(pl.col("score").clip(0, 9)).write_csv(tmp_path / name)
    got = _toolkit("compare", "--estimate", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"))
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("measure"))
    arms = [line.split()[1] for line in lines[head + 1 : head + 7]]
    assert arms == ["A", "B", "B", "A", "B", "B"]
    # the arms' paths (as long as the temporary folder makes them) aside, 80 columns
    named = {f"  A = {tmp_path / 'a.csv'}", f"  B = {tmp_path / 'b.csv'}"}
    assert max(len(line) for line in lines[1:] if line not in named) <= 80
    data = json.loads(_toolkit("compare", "--estimate", str(tmp_path / "a.csv"),
                               str(tmp_path / "b.csv"), "--format", "json").stdout)  # fmt: skip
    rows = {(r["measure"], r["arm"]): r for r in data["rows"]}
    a_csv, b_csv = str(tmp_path / "a.csv"), str(tmp_path / "b.csv")
    diff = rows[("mean", f"{b_csv} - {a_csv}")]
    assert diff["estimate"] == pytest.approx(
        rows[("mean", b_csv)]["estimate"] - rows[("mean", a_csv)]["estimate"]
    )


def test_compare_estimate_refuses_one_file_in_one_line(tmp_path: Path) -> None:
    got = _toolkit("compare", "--estimate", str(tmp_path / "a.csv"))
    assert got.returncode == 2
    assert len(got.stderr.strip().splitlines()) == 1
    assert "--estimate takes two score files" in got.stderr


def _small(prefix: str, judge: list[float], people: list[float | None]) -> pl.DataFrame:
    rows = [(f"{prefix}{k}", "judge", j) for k, j in enumerate(judge)]
    rows += [(f"{prefix}{k}", "p1", p) for k, p in enumerate(people) if p is not None]
    return pl.DataFrame(rows, schema=["item", "rater", "score"], orient="row")


def test_the_same_input_twice_is_refused() -> None:
    """Found in review: one scores file given as both arms ran and printed an interval
    around 0; the arms' input digests are equal, so it is refused by name."""
    a = _small("i", [5, 6, 7, 4], [5, 6, None, None])
    with pytest.raises(InputError, match=r"the same ratings and judge scores as A"):
        estimate_difference(a, a.clone())


def test_shared_items_few_ratings_and_a_zero_width_interval_are_warned() -> None:
    a = _small("i", [6, 7, 8, 6, 7], [6, 7, None, None, None])
    b = _small("i", [2, 3, 2, 4, 3, 2], [3, 2, 3, None, None, None])  # i0-i4 also in A
    result = estimate_difference(a, b, threshold=5)
    notes = " | ".join(result.frame["note"].drop_nulls().to_list())
    assert "5 item id(s) in both arms" in notes
    assert "only 2 rated items: below about 40" in notes
    # B's rated items all fail the pass mark: a pass rate of 0 with an interval of no width
    b_pass = _row(result, "pass_rate", "B")
    assert b_pass["low"] == b_pass["high"] == 0.0
    assert "the interval has no width" in b_pass["note"]
    assert "warning" in repr(result)


def test_a_nan_score_is_refused_by_name() -> None:
    a = _small("a", [5, float("nan"), 7], [5, 6, None])
    b = _small("b", [5, 6, 7], [5, 6, None])
    with pytest.raises(InputError, match=r"score=nan: a score must be a finite number \(item 'a1'"):
        estimate_difference(a, b)
