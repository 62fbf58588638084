"""The compare rubric as data: the families, tests, corrections, directions and pairing
keys, and :class:`CompareRubric` (version 1.1.0, loadable from YAML; 1.0.0 kept)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from toolkit.rubrics._spec import RubricSpec, load_spec

COMPARE_VERSION = "1.1.0"
FAMILIES: tuple[str, ...] = ("simulation", "outcome", "discussion", "persona", "eval")
TESTS: tuple[str, ...] = ("wilcoxon", "t")
CORRECTIONS: tuple[str, ...] = ("holm", "bh")
#: The pseudo-dimension holding each run's pass/fail verdict.
VERDICT = "verdict"
#: The pass/fail dimension of eval-harness runs: the verifier's ``verify.passed``.
EVAL_PASSED = "passed"

#: Per family: dimension -> +1 (higher is better), -1 (lower is better), 0 (a band: a
#: change is reported but is neither better nor worse). ``"*"`` is the default of
#: dimensions not named.
Direction = Literal[-1, 0, 1]

DIRECTIONS: Mapping[str, Mapping[str, Direction]] = {
    "simulation": {
        "groundedness": 1,
        "character_stability": 1,
        "action_coherence": 1,
        "refusal_cluster": -1,
        "vocabulary_growth": 0,  # a band: 0.5..2.5 novel verbs per 10 ticks is healthy
        "conservation_drift": -1,
        "graph_fanout": 1,
        "novel_subtype_rate": 0,  # informational in the simulation rubric
        VERDICT: 1,
        "*": 0,
    },
    "outcome": {"*": 1},
    "discussion": {"*": 1},
    "persona": {"*": 1},
    # eval-harness runs (added with issue 36; the other families' numbers are unchanged)
    "eval": {EVAL_PASSED: 1, "score": 1, "retries": -1, "duration_s": -1, "*": 1},
}

#: Pairing keys each family offers, in the order the default pairing tries them.
PAIR_KEYS: Mapping[str, tuple[str, ...]] = {
    "simulation": ("scenario", "seed", "slug"),
    "outcome": ("task", "run"),
    "discussion": ("game_id",),
    "persona": ("proposition_agent",),
    "eval": ("task", "run"),
}

#: A unit passes a pass/fail dimension when more than this share of its runs passed.
MAJORITY = 0.5


class CompareRubric(RubricSpec):
    """The compare rubric's data (version 1.1.0 by default; YAML overrides with
    :func:`load_compare_rubric`, a changed number needs a new version).

    Attributes:
        alpha: significance level after correction.
        level: the bootstrap interval's confidence (and the noise floor's).
        resamples: bootstrap resamples (0: no interval).
        majority: a unit passes a pass/fail outcome when more than this share of its
            runs passed.
        directions: per family, dimension -> +1 / -1 / 0 (``"*"``: the default).
    """

    rubric: str = "compare"
    version: str = COMPARE_VERSION
    alpha: float = Field(default=0.05, gt=0, lt=1)
    level: float = Field(default=0.95, gt=0, lt=1)
    resamples: int = Field(default=9999, ge=0)
    majority: float = Field(default=MAJORITY, ge=0, lt=1)
    directions: dict[str, dict[str, Direction]] = Field(
        default_factory=lambda: {f: dict(d) for f, d in DIRECTIONS.items()}
    )

    def direction_of(
        self, family: str, dimension: str, overrides: Mapping[str, int] | None = None
    ) -> int:
        """+1, -1 or 0 for ``dimension`` of ``family`` (``overrides`` first)."""
        if overrides and dimension in overrides:
            return int(overrides[dimension])
        table = self.directions.get(family, {"*": 0})
        return int(table.get(dimension, table.get("*", 0)))


DEFAULT_COMPARE_RUBRIC = CompareRubric()
#: Version 1.0.0, as first published: no ``eval`` family (1.1.0 added its directions).
COMPARE_RUBRIC_1_0_0 = CompareRubric(
    version="1.0.0",
    directions={f: dict(d) for f, d in DIRECTIONS.items() if f != "eval"},
)
#: Published versions and their exact content.
PUBLISHED_COMPARE: dict[str, CompareRubric] = {
    "1.0.0": COMPARE_RUBRIC_1_0_0,
    COMPARE_VERSION: DEFAULT_COMPARE_RUBRIC,
}


def load_compare_rubric(source: str | Path | Mapping[str, Any]) -> CompareRubric:
    """A compare rubric from YAML (a path) or a mapping, merged over the version it names
    (a published one) or over the default, 1.1.0.

    Raises:
        RubricError: one line naming the file, the field and the value (a changed
            number under a published version too).
    """
    return load_spec(CompareRubric, source, DEFAULT_COMPARE_RUBRIC, PUBLISHED_COMPARE)


def direction_of(family: str, dimension: str, overrides: Mapping[str, int] | None = None) -> int:
    """+1, -1 or 0 for ``dimension`` of ``family`` in the default rubric (``overrides``
    first)."""
    return DEFAULT_COMPARE_RUBRIC.direction_of(family, dimension, overrides)
