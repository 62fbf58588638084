"""What a token-world run's files hold, checked without pydantic where the answer is plain:
the tick id's pattern, and a compressed record (``batch_<n>.json``, ``epoch_<n>.json``)
whose every field already has the JSON type its model takes as it is.

The models themselves (:mod:`toolkit.load._run_models`) cost nine classes, about 13 ms of
CPU, and pydantic where nothing else imported it; a well-formed run never needs them. A
record :func:`plain_record` cannot vouch for is handed to the model
(:class:`~toolkit.load._run_models.CompressedRecord`), whose refusal names the file, the
field and the value, as before.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["BATCH_FIELDS", "TICK_ID_PATTERN", "plain_record", "tick_id_number"]

#: A tick id as the engine writes it: ``42`` or ``tick_42`` (digits as Python reads them).
TICK_ID_PATTERN = r"^(?:tick_)?(\d+)$"
#: (Text: ``re`` compiles it on first use, which a well-formed run never makes;
#: compiled at import, it cost every one-run command, issue 38.)
_TICK_ID = TICK_ID_PATTERN

#: The largest tick number or count of a record (64 bits, signed).
_MAX = 2**63 - 1

#: The fields of a compressed record, in the model's order.
BATCH_FIELDS = (
    "kind",
    "batch_id",
    "first_tick",
    "last_tick",
    "tick_count",
    "key_events",
    "mechanic_ids_used",
    "total_mutations",
    "agent_id",
)


def tick_id_number(value: Any) -> Any:
    """A tick id written as text (``"42"``, ``"tick_42"``) as its number; any other value
    as it is (the model's check of a record's ``first_tick`` and ``last_tick``). Digits
    Python will not read (more than ``sys.get_int_max_str_digits()``, 4,300 by default)
    are left as text for the model to refuse, not a ValueError."""
    if isinstance(value, str) and (m := re.fullmatch(_TICK_ID, value.strip())):  # as a tick file's
        try:
            return int(m.group(1))
        except ValueError:  # too many digits to read: the model refuses the text
            return value
    return value


def _count(value: Any) -> bool:
    """A tick number or count the model takes as it is: a whole number within 64 bits."""
    return type(value) is int and 0 <= value <= _MAX


def _whole(value: Any) -> bool:
    """A whole number within 64 bits (a batch id; no boolean)."""
    return type(value) is int and -_MAX - 1 <= value <= _MAX


def plain_record(data: dict[str, Any]) -> dict[str, Any] | None:
    """The fields of a compressed record (:data:`BATCH_FIELDS`, a missing one as the
    model's default) when each holds exactly the JSON type the model keeps unchanged;
    ``None`` when one does not (a float count, a boolean, a list of mixed ids, ...): then
    the pydantic model decides, coercing or refusing as it always has.

    For every record it returns a value for, the value equals the model's
    (``tests/load/test_run_files.py`` checks it against the model).
    """
    kind, batch_id = data.get("kind"), data.get("batch_id")
    first, last = tick_id_number(data.get("first_tick")), tick_id_number(data.get("last_tick"))
    count, total = data.get("tick_count"), data.get("total_mutations")
    events, used = data.get("key_events", []), data.get("mechanic_ids_used", [])
    agent = data.get("agent_id")
    plain = (
        (kind is None or type(kind) is str)
        and (batch_id is None or type(batch_id) is str or _whole(batch_id))
        and all(v is None or _count(v) for v in (first, last, count, total))
        and type(events) is list
        and type(used) is list
        and all(type(u) is str for u in used)
        and (agent is None or type(agent) is str)
    )
    if not plain:
        return None
    values = (kind, batch_id, first, last, count, events, used, total, agent)
    return dict(zip(BATCH_FIELDS, values, strict=True))
