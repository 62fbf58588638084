"""The msgspec shapes of a tick file and the file-at-a-time screen: a tick file decoded
once into typed structs (:class:`_Screen`; :class:`_Fast` for the batch path of
:mod:`toolkit.load._ticks`), and its fields turned into the raw frame's columns
(:func:`_row`, :func:`screened_frame`) when :func:`plain_row` can vouch for them. The
raw frame's schema, the accelerator's Arrow array as a frame and the paused collector
are :mod:`toolkit.load._tick_frame`'s (re-exported here): a load the accelerator takes
whole never imports this module."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any

import msgspec
import polars as pl

from toolkit.load._tick_frame import CHANGES as _CHANGES
from toolkit.load._tick_frame import RAW_TICK_SCHEMA as RAW_TICK_SCHEMA
from toolkit.load._tick_frame import STAGES as STAGES
from toolkit.load._tick_frame import (  # re-exported: tests and bench import them from here
    arrow_frame as arrow_frame,
)
from toolkit.load._tick_frame import arrow_text as arrow_text
from toolkit.load._tick_frame import collector_paused as collector_paused

_Unset = msgspec.UnsetType
_UNSET = msgspec.UNSET


class _Action(msgspec.Struct):
    verb: str | None = None
    actor: str | None = None
    target: str | None = None


class _Mutations(msgspec.Struct):
    count: int | _Unset | None = _UNSET
    changes: list[list[Any]] | _Unset = msgspec.field(name="list", default=_UNSET)


class _Observation(msgspec.Struct):
    text: str | None = None
    claimed_changes: list[list[Any]] | None = None


_Number = int | float | None


class _Tokens(msgspec.Struct):
    tokens_in: _Number = msgspec.field(name="in", default=None)
    tokens_out: _Number = msgspec.field(name="out", default=None)


class _StageTokens(msgspec.Struct):
    classifier: _Tokens | None = None
    observer: _Tokens | None = None


class _StageCosts(msgspec.Struct):
    classifier: _Number = None
    observer: _Number = None


class _Screen(msgspec.Struct):
    """The JSON types the bulk reader takes each field in (mirrors :data:`RAW_TICK_SCHEMA`).

    For a record of these types the bulk reader's values and the pydantic models' are the
    same; any other type (``"refused": "yes"``, ``"action_text": false``, ``"count":
    2.0``) is left to the models, which coerce it or refuse the file with a reason, so
    both paths answer alike. msgspec checks the types strictly (a ``bool`` is not a
    number, ``null`` is not a list) and ignores fields the frame does not read. A field
    the file does not hold is ``None`` or, where ``null`` is refused, unset.
    """

    schema_version: int | _Unset = _UNSET
    tick_id: str | int | _Unset = _UNSET
    timestamp_iso: str | None = None
    action_text: str | None = None
    matched_mechanic_id: str | None = None
    refusal_reason: str | None = None
    observation_text: str | None = None
    actor_id: str | None = None
    kind: str | None = None
    conservation_verdict: str | None = None
    duration_ms: _Number = None
    cost_usd: _Number = None
    yielded: Any = _UNSET  # v1: a bool (checked in :func:`screen_tick`)
    refused: Any = _UNSET
    classified_action: _Action | None = None
    mutations: _Mutations | None = None
    observation: _Observation | None = None
    llm_tokens_by_stage: _StageTokens | None = None
    llm_cost_usd_by_stage: _StageCosts | None = None


_DECODE = msgspec.json.Decoder().decode
#: What a decode of a file that does not fit raises.
DECODE_ERRORS = (msgspec.MsgspecError, ValueError, RecursionError)
ENCODE = msgspec.json.Encoder().encode


def screen_tick(blob: bytes) -> _Screen | None:
    """A tick file's fields, typed; ``None`` when the file must go the per-file way: it
    repeats a key (the bulk reader would keep the first value), a field has a JSON type
    the bulk reader would coerce (:class:`_Screen`), or the parser refuses it.

    One parse (msgspec, C). Repeated keys are found exactly by counting colons: outside
    strings a colon ends each key, so a file with no repeat has as many colons as its
    parsed value written back (every key kept, strings unchanged); a repeat drops a key
    and its colon. A ``\\u003a`` escape (a colon written escaped) would blur the count, so
    a file holding one is read on the per-file path.
    """
    try:
        data = _DECODE(blob)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, too deep: the edge says so
        return None
    if blob.count(b":") != ENCODE(data).count(b":") or b"\\u003" in blob:
        return None
    try:
        tick = msgspec.convert(data, _Screen)
    except msgspec.ValidationError:
        return None
    if tick.schema_version in (1, _UNSET) and not (
        type(tick.yielded) in (bool, _Unset) and type(tick.refused) in (bool, _Unset)
    ):
        return None
    return tick


# ---------------------------------------------------------------------------
# The typed columns, built from the screened fields (no second parse)
# ---------------------------------------------------------------------------

#: Integers a 64-bit column holds, and floats' exact integers: a number outside these
#: bounds leaves the file to Polars' reader (whose rounding and refusals are the rule).
_INT64 = 2**63
_EXACT = 2**53


class _NotPlain(Exception):
    """A value whose column form is Polars' reader's to decide (see :func:`_row`)."""


def _float(value: int | float | None) -> float | None:
    if value is None or type(value) is float:
        return value
    if -_EXACT < value < _EXACT:
        return float(value)
    raise _NotPlain


def _int(value: Any) -> int | None:
    if value is None or value is _UNSET:
        return None
    if -_INT64 <= value < _INT64:
        return int(value)
    raise _NotPlain


def _changes(changes: list[list[Any]] | _Unset | None) -> str | None:
    """A change list as compact JSON for :func:`screened_frame` to decode into text parts, when
    each part comes out as the bulk reader gives it: text as is, a whole number as its
    digits. Anything else (a float, a bool, an object) is left to the reader."""
    if changes is None or changes is _UNSET:
        return None
    for change in changes:
        for part in change:
            if not (part is None or type(part) is str or (type(part) is int and _is_int64(part))):
                raise _NotPlain
    return ENCODE(changes).decode()


def _is_int64(value: int) -> bool:
    return -_INT64 <= value < _INT64


def _flag(value: Any) -> bool | None:
    if value is None or value is _UNSET:
        return None
    if type(value) is bool:
        return value
    raise _NotPlain


def _row(tick: _Screen) -> tuple[Any, ...]:
    """One screened tick as the values of :data:`_FLAT` (raises :class:`_NotPlain`)."""
    action = tick.classified_action
    mutations = tick.mutations
    tokens = tick.llm_tokens_by_stage
    costs = tick.llm_cost_usd_by_stage
    seen = tick.observation
    tick_id = tick.tick_id
    if type(tick_id) is int:
        if not _is_int64(tick_id):
            raise _NotPlain
        tick_id = str(tick_id)
    cls = tokens.classifier if tokens is not None else None
    obs = tokens.observer if tokens is not None else None
    return (
        _int(tick.schema_version),
        None if tick_id is _UNSET else tick_id,
        tick.timestamp_iso,
        tick.action_text,
        action is not None,
        None if action is None else action.verb,
        None if action is None else action.actor,
        None if action is None else action.target,
        tick.matched_mechanic_id,
        _flag(tick.yielded),
        _flag(tick.refused),
        tick.refusal_reason,
        mutations is not None,
        None if mutations is None else _int(mutations.count),
        None if mutations is None else _changes(mutations.changes),
        tick.observation_text,
        _float(tick.duration_ms),
        tokens is not None,
        cls is not None,
        None if cls is None else _float(cls.tokens_in),
        None if cls is None else _float(cls.tokens_out),
        obs is not None,
        None if obs is None else _float(obs.tokens_in),
        None if obs is None else _float(obs.tokens_out),
        costs is not None,
        None if costs is None else _float(costs.classifier),
        None if costs is None else _float(costs.observer),
        tick.actor_id,
        tick.kind,
        tick.conservation_verdict,
        seen is not None,
        None if seen is None else seen.text,
        None if seen is None else _changes(seen.claimed_changes),
        _float(tick.cost_usd),
    )


_S, _F, _B = pl.String(), pl.Float64(), pl.Boolean()
#: The flat columns :func:`_row` fills; :func:`screened_frame` nests them as RAW_TICK_SCHEMA.
_FLAT: dict[str, pl.DataType] = {
    "schema_version": pl.Int64(), "tick_id": _S, "timestamp_iso": _S, "action_text": _S,
    "_action": _B, "_verb": _S, "_actor": _S, "_target": _S,
    "matched_mechanic_id": _S, "yielded": _B, "refused": _B, "refusal_reason": _S,
    "_mutations": _B, "_count": pl.Int64(), "_list": _S,
    "observation_text": _S, "duration_ms": _F,
    "_tokens": _B, "_cls": _B, "_cls_in": _F, "_cls_out": _F,
    "_obs": _B, "_obs_in": _F, "_obs_out": _F,
    "_costs": _B, "_cost_cls": _F, "_cost_obs": _F,
    "actor_id": _S, "kind": _S, "conservation_verdict": _S,
    "_observation": _B, "_obs_text": _S, "_claimed": _S, "cost_usd": _F,
}  # fmt: skip


def screened_frame(rows: Sequence[tuple[Any, ...]]) -> pl.DataFrame:
    """Rows of :func:`_row` as a frame of :data:`RAW_TICK_SCHEMA`, as Polars' NDJSON
    reader would give it (a missing object is a null struct, an empty one is not)."""
    flat = pl.DataFrame(
        {name: list(values) for name, values in zip(_FLAT, zip(*rows, strict=True), strict=True)}
        if rows
        else {name: [] for name in _FLAT},
        schema=_FLAT,
    )
    return _nested(flat)


def _nested(flat: pl.DataFrame) -> pl.DataFrame:
    """The flat columns of :data:`_FLAT` nested as :data:`RAW_TICK_SCHEMA`. The change
    lists (``_list``, ``_claimed``) are JSON text to decode, or already lists of text."""

    def nested(present: str, **fields: pl.Expr | str) -> pl.Expr:
        parts = [
            pl.col(v).alias(k) if isinstance(v, str) else v.alias(k) for k, v in fields.items()
        ]
        return pl.when(pl.col(present)).then(pl.struct(parts))

    def changes(column: str) -> pl.Expr:
        if flat.schema[column] == _CHANGES:
            return pl.col(column)
        return pl.col(column).str.json_decode(_CHANGES)

    def tokens(present: str, prefix: str) -> pl.Expr:
        return nested(present, **{"in": pl.col(f"{prefix}_in"), "out": pl.col(f"{prefix}_out")})

    frame = flat.select(
        "schema_version", "tick_id", "timestamp_iso", "action_text",
        classified_action=nested("_action", verb="_verb", actor="_actor", target="_target"),
        matched_mechanic_id="matched_mechanic_id", yielded="yielded", refused="refused",
        refusal_reason="refusal_reason",
        mutations=nested("_mutations", count="_count", list=changes("_list")),
        observation_text="observation_text", duration_ms="duration_ms",
        llm_tokens_by_stage=nested(
            "_tokens", classifier=tokens("_cls", "_cls"), observer=tokens("_obs", "_obs")
        ),
        llm_cost_usd_by_stage=nested("_costs", classifier="_cost_cls", observer="_cost_obs"),
        actor_id="actor_id", kind="kind", conservation_verdict="conservation_verdict",
        observation=nested(
            "_observation", text="_obs_text", claimed_changes=changes("_claimed")
        ),
        cost_usd="cost_usd",
    )  # fmt: skip
    return frame.cast(RAW_TICK_SCHEMA)  # type: ignore[arg-type]


#: ``\\udxxx`` escapes (a lone surrogate is no text) and a number ``-0`` (its sign would
#: not survive an integer): a file that may hold either is left to Polars' reader.
_PLAIN_UNSAFE = (b"\\ud", b"\\uD")
#: (Text: ``re`` compiles it on first use, which only a tick file holding ``-0`` makes;
#: compiled at import, it cost every one-run command, issue 38.)
_MINUS_ZERO = rb"[\[,:\s]-0(?![0-9.eE])"


def plain_row(tick: _Screen | None, blob: bytes) -> tuple[Any, ...] | None:
    """:func:`_row` of a screened tick, or ``None`` when its columns are Polars' to read."""
    if tick is None or any(mark in blob for mark in _PLAIN_UNSAFE):
        return None
    if b"-0" in blob and re.search(_MINUS_ZERO, blob):
        return None
    try:
        return _row(tick)
    except _NotPlain:
        return None


# ---------------------------------------------------------------------------
# The batch path: one C decode of a batch of files into typed structs
# ---------------------------------------------------------------------------
#
# :func:`screen_tick` and :func:`_row` cost a Python call or two per field of every file.
# The path below takes a batch of files in a handful of C calls instead: ``map`` of one
# typed msgspec decoder over the files (structs of exactly the types :class:`_Screen`
# and :func:`_row` let through, every field defaulting to UNSET), one encode of the
# batch's structs whose colon count must equal the colon count of the raw bytes (as in
# :func:`screen_tick`: a repeated key, or a field no struct declares, drops a key and its
# colon), and that encoded JSON array read into columns by Polars' JSON reader. A file
# it cannot vouch for (a type outside those, a repeated or unknown key, an escape or
# number whose column form is Polars' reader's to decide, bytes that do not parse) takes
# the file-at-a-time path above, with its warnings and issues, so the frame is the same
# whichever path a file takes.

_Int64 = Annotated[int, msgspec.Meta(ge=-_INT64, le=_INT64 - 1)]
#: An integer a float column holds exactly (:func:`_float`).
_Exact = Annotated[int, msgspec.Meta(gt=-_EXACT, lt=_EXACT)]
_FNum = float | _Exact | _Unset | None
_FStr = str | _Unset | None
_FChanges = list[list[str | _Int64 | None]]


class _FAction(msgspec.Struct, gc=False):
    verb: _FStr = _UNSET
    actor: _FStr = _UNSET
    target: _FStr = _UNSET
    indirect_object: Any = _UNSET
    params: Any = _UNSET


class _FLongAction(msgspec.Struct, gc=False):
    active: Any = _UNSET
    turns_elapsed: Any = _UNSET
    turns_total: Any = _UNSET
    threshold_fired: Any = _UNSET
    interrupted: Any = _UNSET


class _FNode(msgspec.Struct, gc=False):
    type: Any = _UNSET
    properties: Any = _UNSET
    edges: Any = _UNSET


class _FMutations(msgspec.Struct, gc=False):
    count: _Int64 | _Unset | None = _UNSET
    changes: _FChanges | _Unset = msgspec.field(name="list", default=_UNSET)


class _FObservation(msgspec.Struct, gc=False):
    text: _FStr = _UNSET
    claimed_changes: _FChanges | _Unset | None = _UNSET


class _FTokens(msgspec.Struct, gc=False):
    tokens_in: _FNum = msgspec.field(name="in", default=_UNSET)
    tokens_out: _FNum = msgspec.field(name="out", default=_UNSET)


class _FStageTokens(msgspec.Struct, gc=False):
    classifier: _FTokens | _Unset | None = _UNSET
    observer: _FTokens | _Unset | None = _UNSET


class _FStageCosts(msgspec.Struct, gc=False):
    classifier: _FNum = _UNSET
    observer: _FNum = _UNSET


class _Fast(msgspec.Struct, gc=False):
    """A tick file as the batch path takes it: the fields of :class:`_Screen` in
    the types :func:`_row` builds columns from itself (a float or bool in a change, an
    integer beyond 64 bits, or beyond 2**53 where a float goes, a flag that is not a bool
    fail here), and the other fields the format names (FORMATS: ``classified_actions``,
    ``long_running_action``, ``projected_state``), so that the colon count sees them.
    Every default is UNSET, which an encode leaves out."""

    schema_version: _Int64 | _Unset = _UNSET
    tick_id: str | _Int64 | _Unset = _UNSET
    timestamp_iso: _FStr = _UNSET
    action_text: _FStr = _UNSET
    classified_action: _FAction | _Unset | None = _UNSET
    classified_actions: list[_FAction] | _Unset | None = _UNSET
    matched_mechanic_id: _FStr = _UNSET
    yielded: bool | _Unset = _UNSET
    refused: bool | _Unset = _UNSET
    refusal_reason: _FStr = _UNSET
    mutations: _FMutations | _Unset | None = _UNSET
    observation_text: _FStr = _UNSET
    long_running_action: _FLongAction | _Unset | None = _UNSET
    duration_ms: _FNum = _UNSET
    llm_tokens_by_stage: _FStageTokens | _Unset | None = _UNSET
    llm_cost_usd_by_stage: _FStageCosts | _Unset | None = _UNSET
    actor_id: _FStr = _UNSET
    kind: _FStr = _UNSET
    conservation_verdict: _FStr = _UNSET
    projected_state: dict[str, _FNode] | _Unset | None = _UNSET
    observation: _FObservation | _Unset | None = _UNSET
    cost_usd: _FNum = _UNSET


FAST_DECODE = msgspec.json.Decoder(_Fast).decode


def projected(ticks: Sequence[_Fast]) -> bytes:
    """The batch's structs written back with only the fields the frame reads, as one
    JSON array for Polars' JSON reader: the fields :class:`_Fast` declares only for the
    colon count (``classified_actions``, ``long_running_action``, ``projected_state``, an
    action's ``indirect_object`` and ``params``) are unset first, in place, so the reader
    tokenises about two thirds of the bytes. Call it after the count (:func:`ENCODE` of
    the whole structs), never before."""
    for tick in ticks:
        tick.classified_actions = _UNSET
        tick.long_running_action = _UNSET
        tick.projected_state = _UNSET
        action = tick.classified_action
        if action:  # a struct (UNSET and None are false)
            action.indirect_object = _UNSET
            action.params = _UNSET
    return ENCODE(ticks)
