"""Correction logs: the attempts an action gate made, from a file or from table rows.

Two shapes, told apart per row by their keys:

* the toolkit's own: ``{agent_id, action_id, attempt, outcome, scores: {<dim>: 0-9},
  similarity}``;
* the-office's ``correction_logs`` table (two stages since its correction pipeline):
  ``{id, agent_id, run_id?, channel_id?, original_text, final_text (the seed's
  corrected_text), stage original|regeneration|direct_correction, attempt_number,
  outcome, dimension_scores [{dimension, score, reasoning, passed, threshold}],
  similarity_score?, total_score, token_usage {input_tokens, output_tokens}?,
  duration_ms?, created_at}``, snake_case as the table or camelCase as Drizzle returns
  it; ``dimension_scores`` and ``token_usage`` may be JSON text.

**Actions.** A row is one attempt. Rows with an ``action_id`` are grouped by it. the-office's
rows carry none: per agent and run, in time order (``created_at``, else the order given),
an action begins at an attempt number that does not go up, or after an attempt that
ended one (every outcome but ``regeneration_requested`` and the toolkit's ``corrected``).
Grouping by ``original_text`` would split an action: a regenerated attempt logs the
regenerated message as its ``original_text``.

Nothing is dropped: each field has a column, and keys the shapes do not name are kept as
JSON text in ``extra``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal
from uuid import UUID

import polars as pl
from pydantic import AliasChoices, Field, ValidationError, field_validator

from toolkit.errors import InputError
from toolkit.frames import CORRECTION_LOG_SCHEMA, CorrectionOutcome
from toolkit.io import edge
from toolkit.load._common import parse_json_lines, parse_json_text
from toolkit.load._fields import MAX_INT64
from toolkit.load.persona._parse import Lenient, first_error, read_text, utc

#: Outcomes after which the gate tries the same action again.
NON_TERMINAL_OUTCOMES = ("regeneration_requested", "corrected")


class _BadDimension(ValueError):
    def __init__(self, reason: str, field: str, value: Any) -> None:
        super().__init__(reason)
        self.field, self.value = field, value


def _aliases(*names: str) -> AliasChoices:
    return AliasChoices(*names)


def json_or_value(value: Any) -> Any:
    """A jsonb column handed over as text (a driver without JSON decoding), parsed."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        return json.loads(value)
    return value


_PG_OFFSET = re.compile(r"[+-]\d\d$")


def pg_time(value: Any) -> Any:
    """A timestamptz as psql writes it in CSV (``2026-11-09 18:41:02.118+00``): the
    offset's minutes added so it parses as ISO 8601."""
    if isinstance(value, str) and _PG_OFFSET.search(value.strip()):
        return value.strip() + ":00"
    return value


def as_text(value: Any) -> Any:
    """A uuid or an integer id as text (PostgreSQL drivers return ``UUID`` objects)."""
    return str(value) if isinstance(value, UUID | int) and not isinstance(value, bool) else value


class _DimensionScore(Lenient):
    """One entry of the table shape's ``dimension_scores``."""

    dimension: str | None = None
    score: float | None = Field(default=None, ge=0.0, le=9.0)
    reasoning: str | None = None
    passed: bool | None = None
    threshold: float | None = None


class _CorrectionRow(Lenient):
    id: str | None = None
    agent_id: str | None = Field(default=None, validation_alias=_aliases("agent_id", "agentId"))
    action_id: str | None = Field(
        default=None, validation_alias=_aliases("action_id", "actionId", "message_id")
    )
    run_id: str | None = Field(default=None, validation_alias=_aliases("run_id", "runId"))
    channel_id: str | None = Field(
        default=None, validation_alias=_aliases("channel_id", "channelId")
    )
    original_text: str | None = Field(
        default=None, validation_alias=_aliases("original_text", "originalText")
    )
    final_text: str | None = Field(
        default=None,
        validation_alias=_aliases("final_text", "finalText", "corrected_text", "correctedText"),
    )
    stage: Literal["original", "regeneration", "direct_correction"] | None = None
    attempt: int = Field(
        ge=1, le=MAX_INT64, validation_alias=_aliases("attempt", "attempt_number", "attemptNumber")
    )
    outcome: CorrectionOutcome
    scores: dict[str, float | None] = Field(default_factory=dict)
    dimension_scores: list[_DimensionScore] | dict[str, float | _DimensionScore | None] = Field(
        default_factory=list, validation_alias=_aliases("dimension_scores", "dimensionScores")
    )
    similarity: float | None = Field(
        default=None, ge=0.0, le=1.0,
        validation_alias=_aliases("similarity", "similarity_score", "similarityScore"),
    )  # fmt: skip
    total_score: float | None = Field(
        default=None, validation_alias=_aliases("total_score", "totalScore")
    )
    token_usage: dict[str, Any] | None = Field(
        default=None, validation_alias=_aliases("token_usage", "tokenUsage")
    )
    duration_ms: int | None = Field(
        default=None, ge=0, le=MAX_INT64, validation_alias=_aliases("duration_ms", "durationMs")
    )
    created_at: datetime | None = Field(
        default=None, validation_alias=_aliases("created_at", "createdAt")
    )

    _ids = field_validator("id", "agent_id", "action_id", "run_id", "channel_id", mode="before")(
        classmethod(lambda cls, v: as_text(v))
    )
    _jsonb = field_validator("dimension_scores", "token_usage", mode="before")(
        classmethod(lambda cls, v: json_or_value(v))
    )
    _time = field_validator("created_at", mode="before")(classmethod(lambda cls, v: pg_time(v)))

    @field_validator("scores")
    @classmethod
    def _on_the_scale(cls, value: dict[str, float | None]) -> dict[str, float | None]:
        for key, score in value.items():
            if score is not None and not 0.0 <= score <= 9.0:
                raise ValueError(f"score {key!r} = {score!r} is not a number from 0 to 9")
        return value

    def dimension_rows(
        self,
    ) -> list[tuple[str, float | None, str | None, bool | None, float | None]]:
        """``(dimension, score, reasoning, passed, threshold)`` from ``scores`` and
        ``dimension_scores`` (a list of ``{dimension, score, reasoning, passed,
        threshold}`` or a mapping of a dimension to a score or to such an object)."""
        out: dict[str, tuple[str, float | None, str | None, bool | None, float | None]] = {
            k: (k, v, None, None, None) for k, v in self.scores.items()
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
                out[key] = (key, value.score, value.reasoning, value.passed, value.threshold)
            else:
                if value is not None and not 0.0 <= value <= 9.0:
                    raise _BadDimension(
                        "is not a number from 0 to 9", f"dimension_scores.{key}", value
                    )
                out[key] = (key, value, None, None, None)
        return list(out.values())


#: Every key a row may use (both shapes, both spellings); others go to ``extra``.
KNOWN_KEYS = frozenset(
    name
    for f in _CorrectionRow.model_fields.values()
    for name in (f.validation_alias.choices if isinstance(f.validation_alias, AliasChoices) else ())
    if isinstance(name, str)
) | frozenset(_CorrectionRow.model_fields)


def token_count(usage: Mapping[str, Any] | None, key: str) -> int | None:
    value = (usage or {}).get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _rows_of(source: Path | str, obj: Any, number: int) -> list[dict[str, Any]]:
    """The frame rows of one attempt (one per dimension; one with a null dimension when
    the attempt has no scores)."""
    if not isinstance(obj, Mapping):
        raise InputError(source, "each row must be a JSON object", line=number, value=obj)
    try:
        row = _CorrectionRow.model_validate(dict(obj))
        dims = row.dimension_rows()
    except ValidationError as exc:
        loc, value, msg = first_error(exc)
        raise InputError(source, msg, field=loc, value=value, line=number) from exc
    except _BadDimension as exc:
        raise InputError(source, str(exc), field=exc.field, value=exc.value, line=number) from exc
    except json.JSONDecodeError as exc:
        raise InputError(source, f"a JSON column is not JSON ({exc.msg})", line=number) from exc
    extra = {k: v for k, v in obj.items() if k not in KNOWN_KEYS}
    base = {
        **row.model_dump(exclude={"scores", "dimension_scores", "token_usage", "created_at"}),
        "created_at": utc(row.created_at),
        "token_usage": None if row.token_usage is None else json.dumps(row.token_usage),
        "input_tokens": token_count(row.token_usage, "input_tokens"),
        "output_tokens": token_count(row.token_usage, "output_tokens"),
        "extra": json.dumps(extra, default=str, ensure_ascii=False) if extra else None,
        "line": number,
    }
    if not dims:
        return [{**base, "dimension": None}]
    return [
        {**base, "dimension": d, "score": s, "reasoning": r, "passed": p, "threshold": t}
        for d, s, r, p, t in dims
    ]


def _numbered(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with ``action``: 1, 2, ... one number per action (see the module
    docstring), in order of each action's first attempt."""
    attempts = frame.unique("line", maintain_order=True).select(
        "line", "agent_id", "action_id", "run_id", "attempt", "outcome", "created_at"
    )
    group = [pl.col("agent_id"), pl.col("run_id")]
    ordered = attempts.sort(["agent_id", "run_id", "created_at", "line"], nulls_last=False)
    previous_attempt = pl.col("attempt").shift(1).over(group)
    previous_outcome = pl.col("outcome").cast(pl.String).shift(1).over(group)
    sequence_key = (
        previous_attempt.is_null()
        | (pl.col("attempt") <= previous_attempt)
        | ~previous_outcome.is_in(list(NON_TERMINAL_OUTCOMES))
    ).cum_sum()
    keyed = ordered.with_columns(
        key=pl.when(pl.col("action_id").is_not_null())
        .then(
            pl.concat_str(
                pl.lit("id:"), pl.col("agent_id").fill_null(""), pl.lit("\x1f"), pl.col("action_id")
            )
        )
        .otherwise(pl.concat_str(pl.lit("seq:"), sequence_key.cast(pl.String)))
    )
    first = keyed.group_by("key").agg(pl.col("line").min().alias("first")).sort("first")
    numbers = first.with_row_index("action", offset=1).select("key", "action")
    lines = keyed.join(numbers, on="key").select("line", pl.col("action").cast(pl.Int64))
    return frame.join(lines, on="line", how="left", maintain_order="left")


def correction_log_from_rows(
    rows: Sequence[Mapping[str, Any]] | pl.DataFrame, source: str = "(rows)"
) -> pl.DataFrame:
    """A correction log from rows already in memory: a Polars frame or a list of dicts in
    either shape (the-office's ``correction_logs`` rows as a PostgreSQL driver returns
    them: uuids, datetimes and decoded or textual jsonb all accepted).

    Returns:
        :data:`toolkit.frames.CORRECTION_LOG_SCHEMA` (see :func:`load_correction_log`);
        ``line`` counts rows from 1.

    Raises:
        InputError: naming ``source``, the row, the field and the value.
    """
    items = rows.to_dicts() if isinstance(rows, pl.DataFrame) else list(rows)
    return _frame(source, list(enumerate(items, start=1)))  # a URL kept whole


def _frame(source: Path | str, numbered: list[tuple[int, Any]]) -> pl.DataFrame:
    out: list[dict[str, Any]] = []
    for number, obj in numbered:
        out.extend(_rows_of(source, obj, number))
    if not out:
        raise InputError(source, "the correction log has no rows")
    schema = {k: v for k, v in CORRECTION_LOG_SCHEMA.items() if k != "action"}
    return _numbered(pl.DataFrame(out, schema=schema)).select(list(CORRECTION_LOG_SCHEMA))


def load_correction_log(path: str | Path) -> pl.DataFrame:
    """Read an action-gate correction log: JSON Lines (one attempt per line), a JSON
    array of rows, ``{"correction_logs": [...]}`` (a table export), or a CSV export of
    the table (``\\copy correction_logs TO ... CSV HEADER``; jsonb cells as JSON text).

    Outcome is passed | corrected | passed_after_retry | forced_through |
    timeout_pass_through | regeneration_requested | regeneration_success |
    direct_correction_success.

    Returns:
        Schema :data:`toolkit.frames.CORRECTION_LOG_SCHEMA`, one row per (attempt,
        dimension): action (1, 2, ... per action, see the module docstring), id, agent_id,
        action_id, run_id, channel_id, original_text, final_text, stage, attempt, outcome,
        dimension, score, reasoning, passed, threshold (as the log recorded them; null
        when not), similarity, total_score, token_usage (JSON text), input_tokens,
        output_tokens, duration_ms, created_at (UTC), extra (JSON text of keys no shape
        names), line. An attempt without scores gives one row with a null dimension.
    """
    source = Path(path)
    return _frame(source, numbered_rows(source, "correction_logs"))


def numbered_rows(source: Path, table: str) -> list[tuple[int, Any]]:
    """``(line, row)`` of a log file: CSV (line 2 is the first row), JSON Lines, a JSON
    array or ``{<table>: [...]}``.

    Raises:
        InputError: unreadable, or a JSON document that holds no list of rows.
    """
    if source.suffix.lower() == ".csv":
        frame = edge.read_frame(edge.read_bytes(source), source, "csv")
        return list(enumerate(frame.to_dicts(), start=2))
    text = read_text(source)
    head = text.lstrip()[:1]
    if head == "[" or (head == "{" and one_document(text)):
        data = parse_json_text(source, text)
        items = data.get(table) if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise InputError(source, "expected a list of rows", field=table,
                             value=type(items).__name__)  # fmt: skip
        return list(enumerate(items, start=1))
    return parse_json_lines(source, text)


def one_document(text: str) -> bool:
    """Whether ``text`` is a single JSON object spread over lines (not JSON Lines)."""
    first = text.lstrip().split("\n", 1)[0].strip()
    try:
        json.loads(first)
    except json.JSONDecodeError:
        return True
    return False
