"""Intervention logs: the-office's ``intervention_logs`` rows, from a file or from rows.

One row per evaluation of an intervention (``anti_convergence``, ``variety``, ``custom``)
for an agent: ``{id, agent_id, channel_id?, intervention_type, textual_precondition?
(the claim), textual_precondition_result?, functional_precondition_result?,
propositional_precondition_result?, fired, nudge_text?, token_usage?, created_at}``,
snake_case as the table or camelCase as Drizzle returns it. the-office checks the
functional precondition first, then the textual one, then the propositional one, and stops
at the first that fails, so a null result means "not checked" (never set, or an earlier
one failed); ``fired`` is true when every precondition checked passed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import polars as pl
from pydantic import AliasChoices, Field, ValidationError, field_validator

from toolkit.errors import InputError
from toolkit.frames import INTERVENTION_LOG_SCHEMA
from toolkit.load.persona._parse import Lenient, first_error, utc
from toolkit.load.persona.corrections import (
    as_text,
    json_or_value,
    numbered_rows,
    pg_time,
    token_count,
)


def _alias(snake: str, camel: str) -> Any:
    return Field(default=None, validation_alias=AliasChoices(snake, camel))


class _InterventionRow(Lenient):
    id: str | None = None
    agent_id: str | None = _alias("agent_id", "agentId")
    channel_id: str | None = _alias("channel_id", "channelId")
    intervention_type: Literal["anti_convergence", "variety", "custom"] = Field(
        validation_alias=AliasChoices("intervention_type", "interventionType")
    )
    textual_precondition: str | None = _alias("textual_precondition", "textualPrecondition")
    textual_precondition_result: bool | None = _alias(
        "textual_precondition_result", "textualPreconditionResult"
    )
    functional_precondition_result: bool | None = _alias(
        "functional_precondition_result", "functionalPreconditionResult"
    )
    propositional_precondition_result: bool | None = _alias(
        "propositional_precondition_result", "propositionalPreconditionResult"
    )
    fired: bool
    nudge_text: str | None = _alias("nudge_text", "nudgeText")
    token_usage: dict[str, Any] | None = _alias("token_usage", "tokenUsage")
    created_at: datetime | None = _alias("created_at", "createdAt")

    _ids = field_validator("id", "agent_id", "channel_id", mode="before")(
        classmethod(lambda cls, v: as_text(v))
    )
    _jsonb = field_validator("token_usage", mode="before")(
        classmethod(lambda cls, v: json_or_value(v))
    )
    _time = field_validator("created_at", mode="before")(classmethod(lambda cls, v: pg_time(v)))


_KNOWN = frozenset(_InterventionRow.model_fields) | frozenset(
    name
    for f in _InterventionRow.model_fields.values()
    if isinstance(f.validation_alias, AliasChoices)
    for name in f.validation_alias.choices
    if isinstance(name, str)
)


def _row(source: Path | str, obj: Any, number: int) -> dict[str, Any]:
    if not isinstance(obj, Mapping):
        raise InputError(source, "each row must be a JSON object", line=number, value=obj)
    try:
        row = _InterventionRow.model_validate(dict(obj))
    except ValidationError as exc:
        loc, value, msg = first_error(exc)
        raise InputError(source, msg, field=loc, value=value, line=number) from exc
    except json.JSONDecodeError as exc:
        raise InputError(source, f"token_usage is not JSON ({exc.msg})", line=number) from exc
    usage = row.token_usage or {}
    extra = {k: v for k, v in obj.items() if k not in _KNOWN}
    return {
        **row.model_dump(exclude={"token_usage", "created_at"}),
        "token_usage": None if row.token_usage is None else json.dumps(row.token_usage),
        "input_tokens": token_count(usage, "input_tokens"),
        "output_tokens": token_count(usage, "output_tokens"),
        "created_at": utc(row.created_at),
        "extra": json.dumps(extra, default=str, ensure_ascii=False) if extra else None,
        "line": number,
    }  # fmt: skip


def _frame(source: Path | str, numbered: Sequence[tuple[int, Any]]) -> pl.DataFrame:
    rows = [_row(source, obj, number) for number, obj in numbered]
    if not rows:
        raise InputError(source, "the intervention log has no rows")
    return pl.DataFrame(rows, schema=INTERVENTION_LOG_SCHEMA)


def intervention_log_from_rows(
    rows: Sequence[Mapping[str, Any]] | pl.DataFrame, source: str = "(rows)"
) -> pl.DataFrame:
    """An intervention log from rows in memory: a Polars frame or a list of dicts in the
    ``intervention_logs`` shape (as a PostgreSQL driver returns them).

    Returns:
        :data:`toolkit.frames.INTERVENTION_LOG_SCHEMA` (see :func:`load_intervention_log`);
        ``line`` counts rows from 1.

    Raises:
        InputError: naming ``source``, the row, the field and the value.
    """
    items = rows.to_dicts() if isinstance(rows, pl.DataFrame) else list(rows)
    return _frame(source, list(enumerate(items, start=1)))  # a URL kept whole


def load_intervention_log(path: str | Path) -> pl.DataFrame:
    """Read an intervention log: JSON Lines, a JSON array of rows,
    ``{"intervention_logs": [...]}``, or a CSV export of the table.

    Returns:
        :data:`toolkit.frames.INTERVENTION_LOG_SCHEMA`, one row per evaluation: id,
        agent_id, channel_id, intervention_type, textual_precondition,
        textual_precondition_result, functional_precondition_result,
        propositional_precondition_result (null: not checked), fired, nudge_text,
        token_usage (JSON text), input_tokens, output_tokens, created_at (UTC), extra
        (JSON text of keys the shape does not name), line.

    Raises:
        InputError: naming the file, the line, the field and the value.
    """
    source = Path(path)
    return _frame(source, numbered_rows(source, "intervention_logs"))
