"""The raw records of the site: a tick, message or iteration as the toolkit loaded it,
made JSON-ready and bounded in size, so one huge record (a 5 MB action text, a list of
100,000 mutations) cannot freeze the page that shows it.

Every string longer than :data:`MAX_TEXT` characters is cut there, every list or object
longer than :data:`MAX_ENTRIES` keeps its first entries, and nesting deeper than
:data:`MAX_DEPTH` is left out; each cut says so where it was made, with how much was cut
(``… [cut: 12,345 more characters]``), never silently.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

#: The most characters of one string kept.
MAX_TEXT = 2_000
#: The most entries of one list or object kept.
MAX_ENTRIES = 100
#: The deepest nesting kept.
MAX_DEPTH = 8
#: The most characters of an original file's text kept beside its record.
MAX_ORIGINAL = 20_000


def cut_text(text: str, limit: int = MAX_TEXT) -> str:
    """``text``, cut after ``limit`` characters with a marker saying how many were cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [cut: {len(text) - limit:,} more characters]"


def _scalar(value: Any) -> Any:
    """A scalar as JSON can hold it (times as ISO text, non-finite numbers as text)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bytes):
        return f"<{len(value):,} bytes>"
    return str(value)


def bounded(value: Any, depth: int = 0) -> Any:
    """``value`` (a loaded row: mappings, sequences, scalars) as JSON-ready data within
    the bounds of this module, each cut marked where it was made."""
    if depth >= MAX_DEPTH and isinstance(value, Mapping | list | tuple | set | frozenset):
        return f"… [cut: nested deeper than {MAX_DEPTH} levels]"
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for n, (k, v) in enumerate(value.items()):
            if n == MAX_ENTRIES:
                out["…"] = f"[cut: {len(value) - MAX_ENTRIES:,} more entries]"
                break
            out[cut_text(str(k), 200)] = bounded(v, depth + 1)
        return out
    if isinstance(value, list | tuple | set | frozenset):
        items = list(value)
        kept = [bounded(v, depth + 1) for v in items[:MAX_ENTRIES]]
        if len(items) > MAX_ENTRIES:
            kept.append(f"… [cut: {len(items) - MAX_ENTRIES:,} more items]")
        return kept
    shown = _scalar(value)
    return cut_text(shown) if isinstance(shown, str) else shown


def raw_record(
    row: Mapping[str, Any], origin: str = "", original: str | None = None
) -> dict[str, Any]:
    """One raw record of the site: ``{"origin": where it was read (file, and the line or
    entry when known), "record": the row, bounded}``, and ``"original"``: the text of the
    file it was read from, when given (cut after :data:`MAX_ORIGINAL` characters)."""
    out: dict[str, Any] = {"origin": cut_text(origin, 1_000), "record": bounded(row)}
    if original is not None:
        out["original"] = cut_text(original, MAX_ORIGINAL)
    return out
