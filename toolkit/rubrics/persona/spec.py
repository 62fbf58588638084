"""The persona rubric as data: its numbers (windows, judge evidence, thresholds, the
hard-mode multiplier, the regression tolerance), its published versions and
:func:`load_persona_rubric`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from toolkit.judge import MAX_BATCH
from toolkit.load.persona import PropositionFile
from toolkit.rubrics._spec import RubricSpec, load_spec

ENVIRONMENT = "environment"


JudgeEvidence = Literal["pairs", "ngrams", "vocabulary"]
#: the-office's scorers: consistency on message pairs, fluency with n-gram statistics,
#: convergence with vocabulary statistics.
_JUDGE_EVIDENCE: dict[str, JudgeEvidence] = {
    "consistency": "pairs",
    "fluency": "ngrams",
    "convergence": "vocabulary",
}


class PersonaRubric(RubricSpec):
    """The persona rubric's numbers (override from YAML; bump the version on change)."""

    rubric: str = "persona"
    version: str = "1.1"
    #: the window of a proposition file that sets no ``first_n`` / ``last_n`` (the-office's
    #: defaults: the first 10 and the last 100 entries); ``None``: no limit.
    default_first_n: int | None = Field(default=10, ge=0)
    default_last_n: int | None = Field(default=100, ge=0)
    #: what a dimension's judge sees besides (or instead of) the trajectory: ``pairs``
    #: (pairs of an earlier and a recent message of the agent, instead of the
    #: trajectory), ``ngrams`` (n-gram repetition of the agent's messages) or
    #: ``vocabulary`` (each agent's vocabulary and the vocabulary shared between them).
    judge_evidence: dict[str, JudgeEvidence] = Field(default_factory=lambda: dict(_JUDGE_EVIDENCE))
    #: consistency: at most this many pairs of earlier and recent messages.
    consistency_pairs: int = Field(default=10, ge=1)
    #: a hard-mode proposition scoring below 9 is multiplied by this.
    hard_multiplier: float = Field(default=0.8, gt=0.0, le=1.0)
    #: a dimension more than this below its baseline is a regression.
    regression_tolerance: float = Field(default=1.0, ge=0.0)
    #: propositions sent to the judge per call (at most 10).
    batch_size: int = Field(default=MAX_BATCH, ge=1, le=MAX_BATCH)
    #: 0-9 dimensions: OK at or above ``green_at``, FAIL below ``red_below``, else WARN.
    green_at: float = Field(default=7.0, ge=0.0, le=9.0)
    red_below: float = Field(default=5.0, ge=0.0, le=9.0)
    #: count dimensions and their own green/red thresholds.
    count_dimensions: tuple[str, ...] = ("ideas_quantity",)
    count_green_at: float = Field(default=3.0, ge=0.0)
    count_red_below: float = Field(default=1.0, ge=0.0)
    #: correction logs: a gate dimension score below this is a failure.
    gate_threshold: float = Field(default=7.0, ge=0.0, le=9.0)
    #: algorithmic evidence.
    evidence_last_messages: int = Field(default=5, ge=1)
    evidence_ngram: int = Field(default=3, ge=1)
    similarity_window: int = Field(default=5, ge=1)
    similarity_flag_above: float = Field(default=0.6, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _ordered(self) -> PersonaRubric:
        if self.red_below > self.green_at:
            raise ValueError("red_below must not exceed green_at")
        if self.count_red_below > self.count_green_at:
            raise ValueError("count_red_below must not exceed count_green_at")
        return self


DEFAULT_PERSONA_RUBRIC = PersonaRubric()
#: Rubric 1.0: a file without a window judged the whole trajectory; every dimension's
#: judge saw the trajectory alone.
PERSONA_RUBRIC_1_0 = PersonaRubric(
    version="1.0", default_first_n=None, default_last_n=None, judge_evidence={}
)
PUBLISHED_PERSONA_RUBRICS: dict[str, PersonaRubric] = {
    "1.0": PERSONA_RUBRIC_1_0,
    "1.1": DEFAULT_PERSONA_RUBRIC,
}


def file_window(pfile: PropositionFile, rubric: PersonaRubric) -> tuple[int | None, int | None]:
    """``(first_n, last_n)`` of a proposition file: its own values, and the rubric's
    defaults (first 10, last 100) for a field the file does not set (an explicit
    ``null`` in the file means no limit)."""
    spec = pfile.spec
    given = spec.model_fields_set
    first = spec.first_n if "first_n" in given else rubric.default_first_n
    last = spec.last_n if "last_n" in given else rubric.default_last_n
    return first, last


def load_persona_rubric(source: str | Path | Mapping[str, Any]) -> PersonaRubric:
    """The persona rubric with overrides from a YAML file or mapping."""
    return load_spec(PersonaRubric, source, DEFAULT_PERSONA_RUBRIC, PUBLISHED_PERSONA_RUBRICS)
