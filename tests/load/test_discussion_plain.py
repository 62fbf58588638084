"""A 2L transcript read without pydantic (issue 38) gives what the models give: the same
``model_dump`` for a well-formed transcript, and for any other input the models' own
rows or one-line refusal (the plain check hands it to them).

Differential: every input is loaded twice, once as ``toolkit discussion`` loads it and
once with the plain check switched off (the models alone, as before the check existed).
"""

from __future__ import annotations

import copy
import json
import math
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from conftest import SAMPLE_RUNS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import toolkit.load.discussion as loader
from toolkit.errors import InputError
from toolkit.load._discussion_models import Transcript
from toolkit.load._discussion_plain import plain_transcript
from toolkit.load.discussion import Discussion, load_discussion, load_discussions

GAMES = SAMPLE_RUNS / "discussions"
TRANSCRIPTS = sorted(GAMES.glob("*.json"))
BASE: dict[str, Any] = json.loads((GAMES / "game-pass.json").read_text(encoding="utf-8"))
MAX_INT64 = 2**63 - 1


@contextmanager
def _models_only() -> Iterator[None]:
    """The loader with the plain check switched off: every transcript to the models."""
    with mock.patch.object(loader, "plain_transcript", lambda data: None):
        yield


def _outcome(path: Path) -> Discussion | str:
    try:
        return load_discussion(path)
    except InputError as exc:
        return f"InputError: {exc}"


def _same(plain: Discussion | str, models: Discussion | str) -> None:
    if isinstance(models, str) or isinstance(plain, str):
        assert plain == models
        return
    for name in ("games", "players", "messages", "votes"):
        assert_frame_equal(getattr(plain, name), getattr(models, name), check_exact=True)
    assert plain.warnings == models.warnings


def test_the_sample_transcripts_are_plain_and_dump_as_the_models() -> None:
    assert len(TRANSCRIPTS) == 3
    for path in TRANSCRIPTS:
        data = json.loads(path.read_text(encoding="utf-8"))
        plain = plain_transcript(data)
        assert plain is not None, path.name
        dumped = Transcript.model_validate(data).model_dump()
        assert repr(plain) == repr(dumped)  # the same keys, order, values and types


def test_the_sample_games_load_the_same_rows_either_way() -> None:
    plain = load_discussions([GAMES])
    with _models_only():
        models = load_discussions([GAMES])
    _same(plain, models)


@pytest.mark.parametrize(
    ("where", "value", "plain"),
    [
        # exact JSON types the models take as they are: read here, and converted alike
        (("metadata", "durationSeconds"), 165, {"durationSeconds": 165.0}),
        (("metadata", "cost", "cacheHitRate"), 83, {"cacheHitRate": 83.0}),
        (("metadata", "cost", "cacheHitRate"), "83%", {"cacheHitRate": "83%"}),
        (("players", 0, "role"), "  mafia ", {"role": "MAFIA"}),
        (("messages", 0, "timestamp"), 1773514809000, {"timestamp": 1773514809000}),
        (("messages", 0, "turn"), MAX_INT64, {"turn": MAX_INT64}),
        # anything else: the models decide (None here)
        (("messages", 0, "turn"), 1.0, None),
        (("messages", 0, "turn"), "1", None),
        (("messages", 0, "turn"), True, None),
        (("messages", 0, "turn"), MAX_INT64 + 1, None),
        (("players", 0, "isAlive"), 1, None),
        (("players", 0, "name"), "", None),
        (("players", 0, "name"), "Wren\ud800", None),
        (("metadata", "cost", "totalInputTokens"), 1.5, None),
        (("metadata",), None, None),
        (("votes",), None, None),
        (("messages", 0, "timestamp"), 1.5, None),
    ],
)
def test_the_plain_check_takes_exact_types_and_leaves_the_rest_to_the_models(
    where: tuple[Any, ...], value: Any, plain: dict[str, Any] | None
) -> None:
    data = copy.deepcopy(BASE)
    _put(data, where, value)
    read = plain_transcript(data)
    _same(*_both_ways(data))
    if plain is None:
        assert read is None
        return
    assert read is not None
    part: Any = read
    for key in where[:-1]:
        part = part[key]
    assert repr({k: part[k] for k in plain}) == repr(plain)  # 165.0, not 165
    assert repr(read) == repr(Transcript.model_validate(data).model_dump())


def _both_ways(data: Any) -> tuple[Discussion | str, Discussion | str]:
    """``data`` loaded as a transcript file as ``toolkit discussion`` loads it, and by
    the models alone."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "discussion-1.json"
        path.write_text(json.dumps(data), encoding="utf-8")  # surrogates escaped: \ud800
        by_plain = _outcome(path)
        with _models_only():
            by_models = _outcome(path)
    return by_plain, by_models


@pytest.mark.parametrize(
    ("where", "value", "shown"),
    [
        (("messages", 0, "turn"), 1.0, 1),
        (("messages", 0, "turn"), "1", 1),
        (("players", 0, "isAlive"), "yes", True),
        (("players", 0, "isAlive"), 0, False),
        (("metadata", "totalTurns"), 15.0, 15),
        (("messages", 0, "timestamp"), True, 1),
    ],
)
def test_what_the_models_coerce_is_read_by_them_as_before(
    where: tuple[Any, ...], value: Any, shown: Any
) -> None:
    data = copy.deepcopy(BASE)
    _put(data, where, value)
    assert plain_transcript(data) is None
    by_plain, by_models = _both_ways(data)
    assert not isinstance(by_plain, str)
    _same(by_plain, by_models)
    dumped: Any = Transcript.model_validate(data).model_dump()
    for key in where:
        dumped = dumped[key]
    assert (dumped, type(dumped)) == (shown, type(shown))


def _put(data: Any, where: tuple[Any, ...], value: Any) -> None:
    """Set (or, with ``_DELETE``, remove) the value at ``where``; a path through a part
    that is no longer a mapping or list (or lacks the key) is left alone."""
    part = data
    for key in where[:-1]:
        if not _holds(part, key):
            return
        part = part[key]
    last = where[-1]
    if isinstance(part, dict) or _holds(part, last):
        if value is not _DELETE:
            part[last] = value
        elif _holds(part, last):
            del part[last]


def _holds(part: Any, key: Any) -> bool:
    if isinstance(part, dict):
        return key in part
    return isinstance(part, list) and isinstance(key, int) and key < len(part)


_DELETE = object()

#: Every field of the transcript the models read, as a path.
_PATHS: list[tuple[Any, ...]] = [
    *[(k,) for k in ("gameId", "timestamp", "metadata", "players", "messages", "votes")],
    *[
        ("metadata", k)
        for k in ("playerCount", "totalTurns", "durationSeconds", "avgMessageLength", "cost")
    ],
    *[
        ("metadata", "cost", k)
        for k in ("totalCost", "totalInputTokens", "cacheHitRate", "avgCostPerTurn")
    ],
    *[
        ("players", i, k)
        for i in (0, 3)
        for k in ("name", "role", "personality", "isAlive", "position")
    ],
    *[
        ("messages", i, k)
        for i in (0, 4)
        for k in ("id", "turn", "roundNumber", "playerName", "message", "timestamp", "inReplyToId")
    ],
    *[
        ("votes", 0, k)
        for k in ("roundNumber", "voterName", "targetName", "justification", "timestamp")
    ],
    ("players", 1),
    ("messages", 2),
]

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.sampled_from([0, 1, -1, MAX_INT64, MAX_INT64 + 1, -(2**63), 2**53 + 1, 1773514809000]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, 1.0, 0.5, 165.0, -0.0]),
    st.text(max_size=8),
    st.sampled_from(["", " ", "Wren", " villager ", "mafia", "12", "1.5", "73.5%", "true", "Zoë"]),
    st.sampled_from(["\ud800", "Wren\udfff", "2026-03-14T19:00:09Z", "1773514809000", "x\x00"]),
)
_VALUES = st.one_of(
    _SCALARS,
    st.lists(_SCALARS, max_size=2),
    st.dictionaries(st.sampled_from(["name", "role", "turn", "x"]), _SCALARS, max_size=2),
    st.just(_DELETE),
)


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(st.tuples(st.sampled_from(_PATHS), _VALUES), max_size=3))
def test_generated_transcripts_load_the_same_rows_or_the_same_refusal(
    changes: list[tuple[tuple[Any, ...], Any]],
) -> None:
    data = copy.deepcopy(BASE)
    for where, value in changes:
        _put(data, where, value)
    plain = plain_transcript(data)
    if plain is not None:  # what it vouches for is exactly the models' reading (types too)
        assert repr(plain) == repr(Transcript.model_validate(data).model_dump())
    _same(*_both_ways(data))
    _SEEN["plain" if plain is not None else "models"] += 1


_SEEN = {"plain": 0, "models": 0}


def test_the_generated_transcripts_took_both_paths() -> None:
    """The differential test above exercised both the plain reading and the models (it
    runs first: pytest keeps a module's order)."""
    assert _SEEN["plain"] >= 10 and _SEEN["models"] >= 10, _SEEN


def test_a_nan_cost_is_read_alike() -> None:
    data = copy.deepcopy(BASE)
    data["metadata"]["cost"]["avgCostPerTurn"] = math.nan
    plain = plain_transcript(data)
    assert plain is not None and math.isnan(plain["metadata"]["cost"]["avgCostPerTurn"])
