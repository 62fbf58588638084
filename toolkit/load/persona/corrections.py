"""Correction logs: the attempts an action gate made, one JSON object per line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
from pydantic import AliasChoices, Field, ValidationError, field_validator

from toolkit.errors import InputError
from toolkit.frames import CORRECTION_LOG_SCHEMA, CorrectionOutcome
from toolkit.load._common import parse_json_lines
from toolkit.load._fields import MAX_INT64
from toolkit.load.persona._parse import Lenient, first_error, read_text


class _BadDimension(ValueError):
    def __init__(self, reason: str, field: str, value: Any) -> None:
        super().__init__(reason)
        self.field, self.value = field, value


class _DimensionScore(Lenient):
    """One entry of the table shape's ``dimension_scores``."""

    dimension: str | None = None
    score: float | None = Field(default=None, ge=0.0, le=9.0)
    reasoning: str | None = None
    passed: bool | None = None


class _CorrectionRow(Lenient):
    agent_id: str | None = Field(default=None, validation_alias=AliasChoices("agent_id", "agentId"))
    action_id: str | int | None = Field(
        default=None, validation_alias=AliasChoices("action_id", "actionId", "message_id")
    )
    attempt: int = Field(
        ge=1,
        le=MAX_INT64,
        validation_alias=AliasChoices("attempt", "attempt_number", "attemptNumber"),
    )
    outcome: CorrectionOutcome
    scores: dict[str, float | None] = Field(default_factory=dict)
    dimension_scores: list[_DimensionScore] | dict[str, float | _DimensionScore | None] = Field(
        default_factory=list, validation_alias=AliasChoices("dimension_scores", "dimensionScores")
    )
    similarity: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        validation_alias=AliasChoices("similarity", "similarity_score", "similarityScore"),
    )
    total_score: float | None = Field(
        default=None, validation_alias=AliasChoices("total_score", "totalScore")
    )

    @field_validator("scores")
    @classmethod
    def _on_the_scale(cls, value: dict[str, float | None]) -> dict[str, float | None]:
        for key, score in value.items():
            if score is not None and not 0.0 <= score <= 9.0:
                raise ValueError(f"score {key!r} = {score!r} is not a number from 0 to 9")
        return value

    def dimension_rows(self) -> list[tuple[str, float | None, str | None, bool | None]]:
        """``(dimension, score, reasoning, passed)`` from ``scores`` and ``dimension_scores``
        (the table shape: a list of ``{dimension, score, reasoning, passed}`` or a mapping
        of a dimension to a score or to ``{score, reasoning, passed}``)."""
        out: dict[str, tuple[str, float | None, str | None, bool | None]] = {
            k: (k, v, None, None) for k, v in self.scores.items()
        }
        items: list[tuple[str | None, float | _DimensionScore | None]]
        if isinstance(self.dimension_scores, dict):
            items = list(self.dimension_scores.items())
        else:
            items = [(d.dimension, d) for d in self.dimension_scores]
        for i, (key, value) in enumerate(items):
            if key is None:
                raise _BadDimension("names no dimension", f"dimension_scores.{i}", value)
            if isinstance(value, _DimensionScore):
                out[key] = (key, value.score, value.reasoning, value.passed)
            else:
                if value is not None and not 0.0 <= value <= 9.0:
                    raise _BadDimension(
                        "is not a number from 0 to 9", f"dimension_scores.{key}", value
                    )
                out[key] = (key, value, None, None)
        return list(out.values())


def load_correction_log(path: str | Path) -> pl.DataFrame:
    """Read an action-gate correction log (JSONL, one attempt per line).

    Each line: ``{agent_id, action_id, attempt, outcome, scores: {<dimension>: 0-9},
    similarity}``, or the-office's table shape: ``{agent_id, attempt_number, outcome,
    dimension_scores: [{dimension, score, reasoning, passed}, ...], similarity_score,
    total_score}`` (``dimension_scores`` may also map a dimension to a score or to
    ``{score, reasoning, passed}``). Outcome is passed | corrected | passed_after_retry
    | forced_through | timeout_pass_through | regeneration_requested |
    regeneration_success | direct_correction_success.

    Returns:
        Schema :data:`toolkit.frames.CORRECTION_LOG_SCHEMA`: one row per (line,
        dimension) with columns agent_id, action_id, attempt, outcome, dimension, score,
        reasoning, passed (as the log recorded it; null when not), similarity,
        total_score, line (a line without scores gives one row with a null dimension).
    """
    source = Path(path)
    rows: list[dict[str, Any]] = []
    for number, obj in parse_json_lines(source, read_text(source)):
        try:
            row = _CorrectionRow.model_validate(obj)
            dims = row.dimension_rows()
        except ValidationError as exc:
            loc, value, msg = first_error(exc)
            raise InputError(source, msg, field=loc, value=value, line=number) from exc
        except _BadDimension as exc:
            raise InputError(
                source, str(exc), field=exc.field, value=exc.value, line=number
            ) from exc
        base = {
            "agent_id": row.agent_id,
            "action_id": None if row.action_id is None else str(row.action_id),
            "attempt": row.attempt,
            "outcome": row.outcome,
            "similarity": row.similarity,
            "total_score": row.total_score,
            "line": number,
        }
        if not dims:
            rows.append({**base, "dimension": None, "score": None})
        for dimension, score, reasoning, passed in dims:
            rows.append(
                {
                    **base,
                    "dimension": dimension,
                    "score": score,
                    "reasoning": reasoning,
                    "passed": passed,
                }
            )
    if not rows:
        raise InputError(source, "the correction log has no rows")
    return pl.DataFrame(rows, schema=CORRECTION_LOG_SCHEMA)
