"""The values a store's rows hold: their scales and the checks a value passes on its way
in (a save, an import) and out (a read, turned into a typed frame)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import polars as pl

from toolkit.errors import InputError

MIN_SCORE, MAX_SCORE = 1, 5
#: The scale of an item rating (a persona proposition's 0-9).
ITEM_MIN_SCORE, ITEM_MAX_SCORE = 0, 9
HEX = frozenset("0123456789abcdef")


def now_stamp() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def checked_text(path: str, value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(path, "must be a non-empty string", field=field, value=value)
    return value.strip()


def check_score(path: str, value: Any, line: int | None = None) -> int:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or value != int(value) or not MIN_SCORE <= int(value) <= MAX_SCORE:
        raise InputError(
            path, "score must be a whole number from 1 to 5", field="score", value=value, line=line
        )
    return int(value)


ITEM_SCORE_RULE = "score must be a whole number from 0 to 9"


def item_score_ok(value: Any, *, none_ok: bool) -> bool:
    if value is None:
        return none_ok
    return type(value) is int and ITEM_MIN_SCORE <= value <= ITEM_MAX_SCORE


def check_item_score(path: str, value: Any) -> int:
    if not item_score_ok(value, none_ok=False):
        raise InputError(path, ITEM_SCORE_RULE, field="score", value=value)
    return int(value)


def check_answers(path: str, answers: Mapping[str, bool | None] | None) -> str:
    if answers is None:
        return "{}"
    if not isinstance(answers, Mapping):
        raise InputError(
            path, "answers must be a mapping of question -> yes/no", field="answers", value=answers
        )
    clean: dict[str, bool] = {}
    for key, value in answers.items():
        if not isinstance(key, str) or not key:
            raise InputError(
                path, "a question key must be a non-empty string", field="answers", value=key
            )
        if value is None:
            continue
        if not isinstance(value, bool):
            raise InputError(
                path, "an answer must be true, false or None", field=f"answers.{key}", value=value
            )
        clean[key] = value
    return json.dumps(clean, sort_keys=True)


def utc_stamp(name: str, text: str, field: str, shown: Any, line: int | None) -> str:
    """An imported ISO-8601 time as the store writes it (UTC, microseconds); a naive one
    is UTC.

    Raises:
        InputError: not a time, or one outside the years 1 to 9999 in UTC (naming
            ``name``, ``field``, ``shown`` and ``line``).
    """
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        utc = (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)
    except ValueError:
        raise InputError(name, "not an ISO-8601 timestamp", field=field, value=shown,
                         line=line) from None  # fmt: skip
    except OverflowError:  # year 1 east of UTC, year 9999 west of it
        raise InputError(name, "outside the years 1 to 9999 in UTC", field=field, value=shown,
                         line=line) from None  # fmt: skip
    return utc.isoformat(timespec="microseconds")


def draft_row(name: str, rec: Mapping[str, Any], line: int | None) -> tuple[Any, ...]:
    """A draft of a ``drafts`` export, checked: (kind, rater, id, score, answers,
    notes, text_sha256, updated_at)."""
    kind = rec["kind"]
    if kind not in ("game", "item"):
        raise InputError(name, "kind must be game or item", field="kind", value=kind,
                         line=line)  # fmt: skip
    for field in ("rater", "id", "updated_at"):
        if not isinstance(rec[field], str) or not rec[field].strip():
            raise InputError(name, "must not be empty", field=field, value=rec[field],
                             line=line)  # fmt: skip
    # As the store writes it (UTC, microseconds): the newer draft is the later string.
    stamp = utc_stamp(name, rec["updated_at"], "updated_at", rec["updated_at"], line)
    score = rec["score"]
    if isinstance(score, str):
        digits = score.strip().lstrip("-")
        score = int(score) if digits.isascii() and digits.isdigit() else score
    low, high = (MIN_SCORE, MAX_SCORE) if kind == "game" else (ITEM_MIN_SCORE, ITEM_MAX_SCORE)
    if score is not None and not (type(score) is int and low <= score <= high):
        raise InputError(name, f"score must be a whole number from {low} to {high} or "
                         "empty", field="score", value=score, line=line)  # fmt: skip
    notes = rec["notes"] or ""
    if not isinstance(notes, str):
        raise InputError(name, "must be text", field="notes", value=notes, line=line)
    answers_text = rec["answers"] or "{}"
    try:
        answers = json.loads(answers_text)
    except (TypeError, ValueError, RecursionError):  # not JSON, too long an int, too deep
        answers = None
    if not isinstance(answers, dict) or (kind == "item" and answers):
        raise InputError(name, "answers must be a JSON object ({} for an item)",
                         field="answers", value=answers_text, line=line)  # fmt: skip
    digest = rec["text_sha256"]
    if kind == "item":
        if not isinstance(digest, str) or len(digest) != 64 or not set(digest) <= HEX:
            raise InputError(name, "text_sha256 must be 64 lowercase hex digits",
                             field="text_sha256", value=digest, line=line)  # fmt: skip
        return ("item", rec["rater"], rec["id"], score, "{}", notes, digest, stamp)
    return ("game", rec["rater"], rec["id"], score, check_answers(name, answers), notes,
            None, stamp)  # fmt: skip


def rows_frame(rows: Sequence[Sequence[Any]], schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    cols = list(schema)
    records = [dict(zip(cols, r, strict=True)) for r in rows]
    for rec in records:
        rec["created_at"] = datetime.fromisoformat(rec["created_at"])
    return pl.DataFrame(records, schema=dict(schema), orient="row")
