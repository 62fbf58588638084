"""A 2L transcript checked without pydantic where the answer is plain (issue 38).

The transcript's models (:mod:`toolkit.load._discussion_models`) cost pydantic's import
and six model classes, about 0.1 s of CPU on every ``toolkit discussion``. Every
transcript 2L writes holds exactly the JSON types those models accept as they are: text
for text, whole numbers within 64 bits for counts, numbers for costs, ``true``/``false``
for flags. :func:`plain_transcript` accepts exactly those and returns what
``Transcript.model_validate(data).model_dump()`` returns for them (the same keys, order,
defaults and conversions: a whole number where a float is expected becomes a float, a
role is stripped and upper-cased); for anything else (a missing field, a number as text,
a float turn, a boolean count, text that is not valid Unicode, ...) it returns ``None``
and the models decide, coercing or refusing in one line as they always have.
``tests/load/test_discussion_plain.py`` compares the two on the samples and on generated
transcripts.
"""

from __future__ import annotations

from typing import Any

from toolkit.load._fields import MAX_INT64, MIN_INT64

__all__ = ["plain_transcript"]


class _NotPlain(Exception):
    """A value the plain check does not vouch for: the models decide."""


def _text(value: Any) -> str:
    # pydantic refuses text that is not valid Unicode (a lone surrogate from a JSON
    # "\ud800" escape): such text is left to it
    if type(value) is str and (value.isascii() or _encodes(value)):
        return value
    raise _NotPlain


def _encodes(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _name(value: Any) -> str:
    text = _text(value)
    if not text:  # min_length=1
        raise _NotPlain
    return text


def _opt_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _int64(value: Any) -> int:
    if type(value) is int and MIN_INT64 <= value <= MAX_INT64:
        return value
    raise _NotPlain


def _opt_int64(value: Any) -> int | None:
    return None if value is None else _int64(value)


def _opt_float(value: Any) -> float | None:
    if value is None or type(value) is float:
        return value
    return float(_int64(value))  # pydantic's float takes a whole number as a float


def _opt_time(value: Any) -> str | int | None:
    """``str | int | None``: text as it is, a whole number as it is."""
    if value is None or (type(value) is int and MIN_INT64 <= value <= MAX_INT64):
        return value
    return _text(value)


def _opt_rate(value: Any) -> float | str | None:
    """``float | str | None``: a number as a float, text as it is."""
    if type(value) is str:
        return _text(value)
    return _opt_float(value)


def _mapping(value: Any) -> dict[str, Any]:
    if type(value) is dict:
        return value
    raise _NotPlain


def _list(value: Any) -> list[Any]:
    if type(value) is list:
        return value
    raise _NotPlain


def _required(data: dict[str, Any], key: str) -> Any:
    if key not in data:
        raise _NotPlain
    return data[key]


def _cost(data: Any) -> dict[str, Any] | None:
    if data is None:
        return None
    c = _mapping(data)
    return {
        "totalCost": _opt_float(c.get("totalCost")),
        "totalInputTokens": _opt_int64(c.get("totalInputTokens")),
        "totalCachedTokens": _opt_int64(c.get("totalCachedTokens")),
        "totalOutputTokens": _opt_int64(c.get("totalOutputTokens")),
        "cacheHitRate": _opt_rate(c.get("cacheHitRate")),
        "avgCostPerTurn": _opt_float(c.get("avgCostPerTurn")),
    }


def _metadata(data: dict[str, Any]) -> dict[str, Any]:
    m = _mapping(data["metadata"]) if "metadata" in data else {}
    return {
        "playerCount": _opt_int64(m.get("playerCount")),
        "mafiaCount": _opt_int64(m.get("mafiaCount")),
        "villagerCount": _opt_int64(m.get("villagerCount")),
        "totalTurns": _opt_int64(m.get("totalTurns")),
        "durationSeconds": _opt_float(m.get("durationSeconds")),
        "avgMessageLength": _opt_float(m.get("avgMessageLength")),
        "cost": _cost(m.get("cost")),
    }


def _player(raw: Any) -> dict[str, Any]:
    p = _mapping(raw)
    role = _required(p, "role")
    alive = p.get("isAlive", True)
    if type(alive) is not bool:
        raise _NotPlain
    return {
        "name": _name(_required(p, "name")),
        "role": _text(role.strip().upper() if type(role) is str else role),
        "personality": _opt_text(p.get("personality")),
        "isAlive": alive,
        "position": _opt_int64(p.get("position")),
    }


def _message(raw: Any) -> dict[str, Any]:
    m = _mapping(raw)
    return {
        "id": _opt_text(m.get("id")),
        "turn": _int64(_required(m, "turn")),
        "roundNumber": _int64(_required(m, "roundNumber")),
        "playerName": _name(_required(m, "playerName")),
        "message": _text(_required(m, "message")),
        "timestamp": _opt_time(m.get("timestamp")),
        "inReplyToId": _opt_text(m.get("inReplyToId")),
        "inReplyToPlayer": _opt_text(m.get("inReplyToPlayer")),
    }


def _vote(raw: Any) -> dict[str, Any]:
    v = _mapping(raw)
    return {
        "roundNumber": _int64(_required(v, "roundNumber")),
        "voterName": _name(_required(v, "voterName")),
        "targetName": _opt_text(v.get("targetName")),
        "justification": _opt_text(v.get("justification")),
        "timestamp": _opt_time(v.get("timestamp")),
    }


def plain_transcript(data: Any) -> dict[str, Any] | None:
    """``Transcript.model_validate(data).model_dump()`` for a transcript of exactly the
    JSON types the models accept as they are; ``None`` for anything else (the models
    decide)."""
    try:
        t = _mapping(data)
        return {
            "gameId": _name(_required(t, "gameId")),
            "timestamp": _opt_time(t.get("timestamp")),
            "metadata": _metadata(t),
            "players": [_player(p) for p in _list(_required(t, "players"))],
            "messages": [_message(m) for m in _list(_required(t, "messages"))],
            "votes": [_vote(v) for v in _list(t.get("votes", []))],
        }
    except _NotPlain:
        return None
