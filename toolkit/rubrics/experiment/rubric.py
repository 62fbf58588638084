"""The experiment rubric as data: the two-group tests and their names, the
significance labels, and :class:`ExperimentRubric` (version 1.0.0, loadable from YAML)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from toolkit.rubrics._spec import RubricSpec, load_spec

#: A difference is rounded to this many decimals before its sign is taken, so float noise
#: around zero (1e-16) does not count as a direction.
SIGN_DECIMALS = 9

SIGNIFICANT, NOT_SIGNIFICANT = "SIGNIFICANT", "n.s."

#: The two-group tests :func:`experiment_stats` runs (``--test``), and how they are named
#: in reports. Welch's t is the default (TinyTroupe's and the paper's test).
TESTS: dict[str, str] = {
    "welch": "Welch's two-sided t-test",
    "student": "Student's two-sided t-test (equal variances)",
    "mannwhitney": "Mann-Whitney U test (two-sided)",
    "ks": "two-sample Kolmogorov-Smirnov test (two-sided)",
    "chisquare": "chi-square test of independence (each score value a category)",
}

#: What each test's ``statistic`` column holds.
STATISTIC_NAMES: dict[str, str] = {
    "welch": "t",
    "student": "t",
    "mannwhitney": "U",
    "ks": "D",
    "chisquare": "chi2",
}


class ExperimentRubric(RubricSpec):
    """Every number of the experiment report (version 1.0.0 by default).

    Attributes:
        alpha: significance level; p < alpha is significant, and the interval for the
            difference has confidence 1 - alpha.
        min_per_group: scores a group needs before the test is run (at least 2: a
            sample sd needs two numbers).
        p_floor: p-values below this are shown as ``<p_floor`` (``<0.001``).
        decimals: decimals shown for means, sds and differences (p gets one more).
        reference_p_decimals: decimals a reference table states its p-values with; a
            stated p within half a unit of that last decimal of alpha cannot tell
            significance apart (``0.050`` at alpha 0.05) and is left undecided.
    """

    rubric: Literal["experiment"] = "experiment"
    version: str = "1.0.0"
    alpha: float = Field(default=0.05, gt=0, lt=1)
    min_per_group: int = Field(default=2, ge=2)
    p_floor: float = Field(default=0.001, gt=0, lt=1)
    decimals: int = Field(default=2, ge=0, le=6)
    reference_p_decimals: int = Field(default=3, ge=1, le=9)

    @model_validator(mode="after")
    def _floor_below_alpha(self) -> ExperimentRubric:
        if self.p_floor > self.alpha:
            raise ValueError("p_floor must not exceed alpha")
        return self


DEFAULT_RUBRIC = ExperimentRubric()
PUBLISHED: dict[str, ExperimentRubric] = {DEFAULT_RUBRIC.version: DEFAULT_RUBRIC}


def load_experiment_rubric(source: str | Path | Mapping[str, Any]) -> ExperimentRubric:
    """An experiment rubric from YAML (only changed keys needed), merged over 1.0.0.

    Raises:
        RubricError: invalid numbers, or numbers changed without a new ``version``.
    """
    return load_spec(ExperimentRubric, source, DEFAULT_RUBRIC, PUBLISHED)
