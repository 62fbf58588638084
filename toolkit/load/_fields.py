"""Lenient field parsers shared by the loaders' pydantic models (and their field types,
built on first use: see :func:`__getattr__`).

Each parser takes what YAML or JSON produced and returns the typed value, ``None`` for
"not reported", or raises ``ValueError`` with a reason that names what was expected.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import TYPE_CHECKING, Annotated, Any

#: Words accepted for a tri-state flag, lower-cased.
TRUE_WORDS = frozenset({"true", "yes", "y", "on", "pass", "passed"})
FALSE_WORDS = frozenset({"false", "no", "n", "off", "fail", "failed"})


def tristate(value: Any) -> bool | None:
    """A tri-state flag: null or empty -> unreported (``None``); bool as is; a number ->
    true when non-zero; a boolean word (true/false, yes/no, y/n, on/off, pass/fail) ->
    that boolean; anything else is an error."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        if isinstance(value, float) and math.isnan(value):
            return None
        return value != 0
    if isinstance(value, str):
        word = value.strip().lower()
        if not word:
            return None
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise ValueError("not a boolean word (true/false, yes/no, on/off, pass/fail)")
    raise ValueError(f"not a flag (got a {type(value).__name__})")


#: The range of a whole number in a frame (Int64).
MIN_INT64, MAX_INT64 = -(2**63), 2**63 - 1


def _int64(number: int) -> int:
    if not MIN_INT64 <= number <= MAX_INT64:
        raise ValueError("a whole number beyond 64 bits")
    return number


def count(value: Any) -> int | None:
    """A whole number that fits 64 bits: int, an integral float or a digit string; null
    or empty -> None."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError("not a whole number (got a boolean)")
    if isinstance(value, int):
        return _int64(value)
    if isinstance(value, float) and value.is_integer():
        return _int64(int(value))
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            number = int(text)
        except ValueError:
            pass
        else:
            return _int64(number)
    raise ValueError("not a whole number")


def rate(value: Any) -> float | None:
    """A fraction in [0, 1]; null or empty -> None."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError("not a number in [0, 1] (got a boolean)")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError("not a number in [0, 1]") from None
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise ValueError("not a number in [0, 1]")
    return number


def number(value: Any) -> float | None:
    """A finite number of any size (a rubric decides what is in range); null or empty ->
    None."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError("not a number (got a boolean)")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ValueError("not a number") from None
    if not math.isfinite(out):
        raise ValueError("not a finite number")
    return out


def text(value: Any) -> str | None:
    """Text, stripped; null or blank -> None. Scalars of other types become their text."""
    if value is None:
        return None
    if isinstance(value, dict | list):
        raise ValueError(f"not text (got a {'mapping' if isinstance(value, dict) else 'list'})")
    out = str(value).strip()
    return out or None


def date(value: Any) -> dt.date | None:
    """A calendar date (``YYYY-MM-DD``); null or empty -> None."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        if not value.strip():
            return None
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            pass
    raise ValueError("not a date (YYYY-MM-DD)")


def timestamp(value: Any) -> dt.datetime | None:
    """An ISO-8601 instant, as UTC; a naive time is taken as UTC; null or empty -> None."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, dt.date):
        moment = dt.datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        raw = value.strip()
        if not raw:
            return None
        try:
            moment = dt.datetime.fromisoformat(raw.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise ValueError("not an ISO-8601 timestamp") from None
    else:
        raise ValueError("not an ISO-8601 timestamp")
    if moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)


if TYPE_CHECKING:  # at run time built by __getattr__ below, on first use
    from pydantic import BeforeValidator, Field

    TriState = Annotated[bool | None, BeforeValidator(tristate)]
    Count = Annotated[int | None, BeforeValidator(count)]
    #: A required whole number that fits the frames' Int64 columns.
    Int64 = Annotated[int, Field(ge=MIN_INT64, le=MAX_INT64)]
    Rate = Annotated[float | None, BeforeValidator(rate)]
    Number = Annotated[float | None, BeforeValidator(number)]
    Text = Annotated[str | None, BeforeValidator(text)]
    Date = Annotated[dt.date | None, BeforeValidator(date)]
    Timestamp = Annotated[dt.datetime | None, BeforeValidator(timestamp)]

#: The pydantic field types this module offers the loaders' models.
_MODEL_TYPES = ("TriState", "Count", "Int64", "Rate", "Number", "Text", "Date", "Timestamp")


def __getattr__(name: str) -> Any:
    """The pydantic field types (:data:`_MODEL_TYPES`: ``Int64``, ``Count``...), built
    the first time a model module imports one. pydantic's import costs 70-80 ms of CPU,
    and the parsers above are used without it (the 2L transcript's plain check, issue
    38): only the models pay for it."""
    if name not in _MODEL_TYPES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}", name=name)
    from pydantic import BeforeValidator, Field  # see above: only for the models

    built: dict[str, Any] = {
        "TriState": Annotated[bool | None, BeforeValidator(tristate)],
        "Count": Annotated[int | None, BeforeValidator(count)],
        "Int64": Annotated[int, Field(ge=MIN_INT64, le=MAX_INT64)],
        "Rate": Annotated[float | None, BeforeValidator(rate)],
        "Number": Annotated[float | None, BeforeValidator(number)],
        "Text": Annotated[str | None, BeforeValidator(text)],
        "Date": Annotated[dt.date | None, BeforeValidator(date)],
        "Timestamp": Annotated[dt.datetime | None, BeforeValidator(timestamp)],
    }
    globals().update(built)
    return built[name]
