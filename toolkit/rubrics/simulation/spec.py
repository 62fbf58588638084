"""The simulation rubric as data: the verdicts, the dimensions and each one's thresholds,
the published versions (1.0.0, 1.1.0, 1.2.0) and :func:`load_simulation_rubric`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, PositiveInt, model_validator

from toolkit.rubrics._spec import RubricSpec, SpecPart, load_spec
from toolkit.rubrics.simulation._values import (  # the constants, also without pydantic
    DEFAULT_DATA,
    DEGRADED,
    DIMENSIONS,
    FAILED,
    HEALTHY,
    INSUFFICIENT,
    SLOPE_DECIMALS,
    SUBTYPE_PROPERTY,
    informational_dimensions,
    scored_dimensions,
)

__all__ = [
    "DEFAULT_RUBRIC",
    "DEGRADED",
    "DIMENSIONS",
    "FAILED",
    "HEALTHY",
    "INSUFFICIENT",
    "PUBLISHED",
    "RUBRIC_1_0_0",
    "RUBRIC_1_1_0",
    "SLOPE_DECIMALS",
    "SUBTYPE_PROPERTY",
    "CharacterSpec",
    "ClusterSpec",
    "CoherenceSpec",
    "DriftSpec",
    "FanoutSpec",
    "RatioBand",
    "SimulationRubric",
    "SubtypeSpec",
    "VocabularySpec",
    "load_simulation_rubric",
]


class _Part(SpecPart):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RatioBand(_Part):
    """OK at or above ``ok_min``; FAIL below ``fail_below``; WARN between."""

    ok_min: float = Field(ge=0, le=1)
    fail_below: float = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> RatioBand:
        if self.fail_below > self.ok_min:
            raise ValueError("fail_below must not exceed ok_min")
        return self


class CharacterSpec(RatioBand):
    """Character stability: a turn breaks character when its text holds a marker."""

    markers: tuple[str, ...] = Field(min_length=1)


class CoherenceSpec(_Part):
    """Action coherence: the longest non-refused streak and refusals per 10 ticks."""

    ok_streak_min: PositiveInt
    ok_rate_max: float = Field(ge=0)
    fail_streak_below: PositiveInt
    fail_rate_min: float = Field(gt=0)
    per_ticks: PositiveInt = 10

    @model_validator(mode="after")
    def _ordered(self) -> CoherenceSpec:
        if self.fail_streak_below > self.ok_streak_min or self.fail_rate_min <= self.ok_rate_max:
            raise ValueError("FAIL bounds must lie outside the OK bounds")
        return self


class ClusterSpec(_Part):
    """Refusal cluster: the longest run of consecutive refusals."""

    ok_max: int = Field(ge=0)
    fail_min: PositiveInt

    @model_validator(mode="after")
    def _ordered(self) -> ClusterSpec:
        if self.fail_min <= self.ok_max:
            raise ValueError("fail_min must exceed ok_max")
        return self


class VocabularySpec(_Part):
    """Vocabulary growth: novel verbs (or mechanic ids) per 10 ticks, and stagnation."""

    unit: Literal["verb", "mechanic"] = "verb"
    ok_rate_min: float = Field(ge=0)
    ok_rate_max: float = Field(gt=0)
    fail_rate_above: float = Field(gt=0)
    fail_stagnant_min: PositiveInt
    per_ticks: PositiveInt = 10

    @model_validator(mode="after")
    def _ordered(self) -> VocabularySpec:
        if not self.ok_rate_min <= self.ok_rate_max <= self.fail_rate_above:
            raise ValueError("need ok_rate_min <= ok_rate_max <= fail_rate_above")
        return self


class DriftSpec(_Part):
    """Conservation drift: rollback ticks / ticks in window."""

    ok_max: float = Field(ge=0, le=1)
    fail_min: float = Field(gt=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> DriftSpec:
        if self.fail_min <= self.ok_max:
            raise ValueError("fail_min must exceed ok_max")
        return self


class FanoutSpec(_Part):
    """Graph fan-out: the slope of edges/nodes over the last checkpoints.

    FAIL needs the fall to be sustained. With ``sustained: slope`` (1.2.0 on, token-world's
    rubric text) the slope over the last ``checkpoints`` checkpoints, measured at each of
    ``recent_steps`` successive checkpoints, stays below ``fail_slope_below``. With
    ``sustained: steps`` (1.0.0 and 1.1.0) the slope and each of the last ``recent_steps``
    steps between consecutive checkpoints must be below it.
    """

    checkpoint_every: PositiveInt = 10
    checkpoints: int = Field(default=5, ge=2)
    ok_slope_min: float = 0.0
    fail_slope_below: float = -0.02
    recent_steps: PositiveInt = 3
    per_ticks: PositiveInt = 10
    sustained: Literal["slope", "steps"] = "slope"

    @model_validator(mode="after")
    def _ordered(self) -> FanoutSpec:
        if self.fail_slope_below > self.ok_slope_min:
            raise ValueError("fail_slope_below must not exceed ok_slope_min")
        return self


class SubtypeSpec(_Part):
    """Novel subtype rate: distinct new ``subtype`` values written per 10 ticks.

    WARN when no new value appears over a window of at least ``warn_zero_min_ticks``
    ticks; never FAIL. ``verdict: false`` keeps it out of the verdict and the gate.
    """

    warn_zero_min_ticks: PositiveInt = 30
    per_ticks: PositiveInt = 10
    verdict: bool = False


class SimulationRubric(RubricSpec):
    """Every number of the simulation health rubric (version 1.2.0 by default).

    Version 1.1.0 is the same rubric with the older graph fan-out FAIL rule
    (``graph_fanout.sustained: steps``); 1.0.0 is 1.1.0 without ``novel_subtype_rate``
    (``None``: the dimension is not scored).
    """

    rubric: Literal["simulation"] = "simulation"
    version: str = DEFAULT_DATA["version"]
    window: PositiveInt = DEFAULT_DATA["window"]
    # The numbers of 1.2.0 live once, in ``_values`` (the plain values one run scores
    # with); the models take them from there.
    groundedness: RatioBand = RatioBand(**DEFAULT_DATA["groundedness"])
    character_stability: CharacterSpec = CharacterSpec(**DEFAULT_DATA["character_stability"])
    action_coherence: CoherenceSpec = CoherenceSpec(**DEFAULT_DATA["action_coherence"])
    refusal_cluster: ClusterSpec = ClusterSpec(**DEFAULT_DATA["refusal_cluster"])
    vocabulary_growth: VocabularySpec = VocabularySpec(**DEFAULT_DATA["vocabulary_growth"])
    conservation_drift: DriftSpec = DriftSpec(**DEFAULT_DATA["conservation_drift"])
    graph_fanout: FanoutSpec = FanoutSpec(**DEFAULT_DATA["graph_fanout"])
    novel_subtype_rate: SubtypeSpec | None = SubtypeSpec(**DEFAULT_DATA["novel_subtype_rate"])

    def dimension_keys(self) -> list[str]:
        """The dimensions this rubric scores, in scorecard order."""
        return scored_dimensions(self.novel_subtype_rate)

    def informational(self) -> list[str]:
        """Dimensions scored and shown but kept out of the verdict and the gate."""
        return informational_dimensions(self.novel_subtype_rate)


DEFAULT_RUBRIC = SimulationRubric()
RUBRIC_1_1_0 = SimulationRubric(version="1.1.0", graph_fanout=FanoutSpec(sustained="steps"))
RUBRIC_1_0_0 = RUBRIC_1_1_0.model_copy(update={"version": "1.0.0", "novel_subtype_rate": None})
PUBLISHED: dict[str, SimulationRubric] = {
    RUBRIC_1_0_0.version: RUBRIC_1_0_0,
    RUBRIC_1_1_0.version: RUBRIC_1_1_0,
    DEFAULT_RUBRIC.version: DEFAULT_RUBRIC,
}


def load_simulation_rubric(source: str | Path | Mapping[str, Any]) -> SimulationRubric:
    """A simulation rubric from YAML (only changed keys needed), merged over 1.2.0, or
    over the published version the file names (``1.1.0``, ``1.0.0``).

    Raises:
        RubricError: invalid numbers, or numbers changed without a new ``version``.
    """
    return load_spec(SimulationRubric, source, DEFAULT_RUBRIC, PUBLISHED)
