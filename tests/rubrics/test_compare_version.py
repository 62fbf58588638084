"""The compare rubric's eval family came with version 1.1.0; 1.0.0 stays as published,
and the two are two epochs."""

from __future__ import annotations

import polars as pl

from toolkit.rubrics.compare import compare_scores, load_compare_rubric
from toolkit.rubrics.compare.rubric import COMPARE_RUBRIC_1_0_0, DEFAULT_COMPARE_RUBRIC


def _arm(values: list[float]) -> pl.DataFrame:
    n = len(values)
    return pl.DataFrame(
        {
            "family": ["eval"] * n,
            "unit": [f"u{i}" for i in range(n)],
            "run": [f"r{i}" for i in range(n)],
            "dimension": ["score"] * n,
            "value": values,
            "passed": [None] * n,
        },
        schema_overrides={"passed": pl.Boolean()},
    )


def test_1_0_0_has_no_eval_family_and_1_1_0_has_it() -> None:
    assert DEFAULT_COMPARE_RUBRIC.version == "1.1.0"
    assert "eval" in DEFAULT_COMPARE_RUBRIC.directions
    assert "eval" not in COMPARE_RUBRIC_1_0_0.directions
    assert load_compare_rubric({"version": "1.0.0"}) == COMPARE_RUBRIC_1_0_0


def test_each_version_is_its_own_epoch_in_the_result() -> None:
    a, b = _arm([0.1, 0.2, 0.3, 0.4]), _arm([0.2, 0.3, 0.4, 0.5])
    new = compare_scores(a, b, resamples=0)
    old = compare_scores(a, b, resamples=0, rubric=COMPARE_RUBRIC_1_0_0)
    assert (old.version, new.version) == ("1.0.0", "1.1.0")
    assert old.epoch and new.epoch and old.epoch != new.epoch
    assert new.to_dict()["epoch"] == new.epoch
    assert compare_scores(a, b, resamples=0).epoch == new.epoch  # same inputs, same epoch
    assert compare_scores(a, b, resamples=0, alpha=0.01).epoch != new.epoch
