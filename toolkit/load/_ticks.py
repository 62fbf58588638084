"""Tick summaries: one parse per file into typed columns, normalised column-wise.

The fast path parses each tick file once with msgspec: a batch of files together
(:func:`_fast`: one typed decoder mapped over them, one colon count for the batch, and
the decoded structs written back as one JSON array that Polars' JSON reader turns into
the raw frame's columns), and any file that path cannot vouch for on its own
(:func:`_screen`, whose typed fields become columns through :func:`_row` and
:func:`_columns`). Repeated keys are found exactly and the JSON types checked in the
same pass. A file holding a value whose column form Polars' NDJSON reader decides (a
float inside a change list, a number beyond 64 bits) is read by that reader instead, in
one read for all such files (JSON strings cannot hold a raw newline, so replacing
newlines with spaces keeps every file one NDJSON line). Every row is then checked
column-wise; a file the screen or the check refuses is looked at alone with the pydantic
models, which name the file, the field and the value. A file that passes there is
re-serialised in canonical form and read by Polars' reader, so there is exactly one
normaliser, :func:`normalise`.

The same bytes give the same frame whichever path a file takes (the differential tests
load every sample both ways). Polars' reader keeps the *first* of repeated keys and
coerces mistyped scalars (``false`` as the text ``"false"``), where the rule of
:mod:`toolkit.io.duplicates` is that the last value wins, with a warning, and the
models refuse or coerce a mistyped field: a file that repeats a key or holds a field of
a type the reader would coerce (:class:`_Screen`) is read on the per-file path.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import math
import re
import threading
from collections.abc import Iterator, Sequence
from itertools import repeat
from pathlib import Path
from typing import Annotated, Any

import msgspec
import polars as pl
from pydantic import ValidationError

from toolkit.errors import InputError
from toolkit.frames import GROUNDED_SOURCE, TICK_STATUS, TICKS_SCHEMA
from toolkit.load._common import load_json_bytes, validation_problem
from toolkit.load._run_files import TICK_ID_PATTERN, TickV1, TickV2

CONTINUATION_TEXT = "[long_running_continuation]"
CONTINUATION_MECHANIC = "continue_long_action"
_TICK_ID = re.compile(TICK_ID_PATTERN)
_CHANGES = pl.List(pl.List(pl.String()))
_STAGES = ("classifier", "observer")
#: The largest tick number the ticks frame holds (Int64).
MAX_TICK = 2**63 - 1
#: A duration must stay below this magnitude to fit the frame's 64-bit integer column, and
#: a stage's token count below half of it (two stages are summed). Numbers must be finite.
_DURATION_BOUND = 2.0**63
_TOKENS_BOUND = 2.0**62


def _number_problem(tick: Any) -> tuple[str, Any] | None:
    """The first number of a validated tick that the frame cannot hold: ``(field, value)``."""
    checks: list[tuple[str, Any, float]] = [("duration_ms", tick.duration_ms, _DURATION_BOUND)]
    for stage, counts in (tick.llm_tokens_by_stage or {}).items():
        for key, value in (counts or {}).items():
            checks.append((f"llm_tokens_by_stage.{stage}.{key}", value, _TOKENS_BOUND))
    costs = getattr(tick, "llm_cost_usd_by_stage", None) or {}
    checks += [(f"llm_cost_usd_by_stage.{k}", v, math.inf) for k, v in costs.items()]
    checks.append(("cost_usd", getattr(tick, "cost_usd", None), math.inf))
    for field, value, bound in checks:
        if value is not None and not (math.isfinite(value) and abs(value) < bound):
            return field, value
    return None


def _numbers_unfit() -> pl.Expr:
    """Column-wise :func:`_number_problem`: rows with a number the frame cannot hold."""

    def unfit(x: pl.Expr, bound: float) -> pl.Expr:
        # NaN and infinities fail ``<`` as they fail the bound: one comparison, no is_finite
        return (x.abs() < bound).not_()

    tokens = pl.col("llm_tokens_by_stage")
    costs = pl.col("llm_cost_usd_by_stage")
    parts = [
        unfit(pl.col("duration_ms"), _DURATION_BOUND),
        unfit(pl.col("cost_usd"), math.inf),
        *(unfit(costs.struct.field(s), math.inf) for s in _STAGES),
        *(
            unfit(tokens.struct.field(s).struct.field(k), _TOKENS_BOUND)
            for s in _STAGES
            for k in ("in", "out")
        ),
    ]
    return pl.any_horizontal([p.fill_null(False) for p in parts])


#: What the NDJSON reader is asked for: the union of tick schema v1 and v2. Scalars inside
#: mutation and claim lists arrive as text (numbers as digits, objects as JSON).
RAW_TICK_SCHEMA: dict[str, pl.DataType] = {
    "schema_version": pl.Int64(),
    "tick_id": pl.String(),
    "timestamp_iso": pl.String(),
    "action_text": pl.String(),
    "classified_action": pl.Struct(
        {"verb": pl.String(), "actor": pl.String(), "target": pl.String()}
    ),
    "matched_mechanic_id": pl.String(),
    "yielded": pl.Boolean(),
    "refused": pl.Boolean(),
    "refusal_reason": pl.String(),
    "mutations": pl.Struct({"count": pl.Int64(), "list": _CHANGES}),
    "observation_text": pl.String(),
    "duration_ms": pl.Float64(),
    "llm_tokens_by_stage": pl.Struct(
        {s: pl.Struct({"in": pl.Float64(), "out": pl.Float64()}) for s in _STAGES}
    ),
    "llm_cost_usd_by_stage": pl.Struct({s: pl.Float64() for s in _STAGES}),
    "actor_id": pl.String(),
    "kind": pl.String(),
    "conservation_verdict": pl.String(),
    "observation": pl.Struct({"text": pl.String(), "claimed_changes": _CHANGES}),
    "cost_usd": pl.Float64(),
}


#: Whether :func:`parse_ticks` tries the bulk read first. Off, every file takes the
#: per-file path: the reference the bulk path must agree with (the differential tests
#: switch it off; nothing else should).
BULK_READ = True
#: Whether the bulk read takes the files in batches of a few C calls (:func:`_fast`)
#: before the file-at-a-time screen (:func:`_screen`) takes the rest. Off, every file is
#: screened on its own: the reference the batch path must agree with (tests only).
BATCH_PATH = True


def tick_number(value: str | int | None) -> int | None:
    """``"42"``, ``"tick_42"`` or ``42`` → ``42``; anything else → ``None``."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    m = _TICK_ID.match(value.strip())
    return int(m.group(1)) if m else None


def validate_tick(path: Path, data: Any) -> dict[str, Any]:
    """Check one parsed tick file with the pydantic models; return it in canonical form.

    Raises:
        InputError: naming the file, the field and the value that is wrong.
    """
    if not isinstance(data, dict):
        raise InputError(path, "a tick summary must be a JSON object", field="(top level)")
    version = data.get("schema_version", 1)
    model: type[TickV1] | type[TickV2]
    if version == 1:
        model = TickV1
    elif version == 2:
        model = TickV2
    else:
        raise InputError(path, "unknown tick schema version", field="schema_version", value=version)
    try:
        tick = model.model_validate(data)
    except ValidationError as exc:
        raise validation_problem(path, exc) from exc
    number = tick_number(tick.tick_id) if tick.tick_id is not None else None
    if tick.tick_id is not None and number is None:
        raise InputError(path, "tick id is not a tick number", field="tick_id", value=tick.tick_id)
    if number is not None and not 0 <= number <= MAX_TICK:
        raise InputError(path, "tick id is beyond 64 bits", field="tick_id", value=tick.tick_id)
    count = tick.mutations.count
    if count is not None and not -MAX_TICK - 1 <= count <= MAX_TICK:
        raise InputError(path, "a count beyond 64 bits", field="mutations.count", value=count)
    if tick.tick_id is None:
        if not re.match(r"^tick_\d+\.json$", path.name):
            raise InputError(path, "no tick id, and none in the file name", field="tick_id")
        number = int(path.name[len("tick_") : -len(".json")])
        if number > MAX_TICK:
            raise InputError(path, "tick number beyond 64 bits", field="tick_id", value=path.name)
    if (unfit := _number_problem(tick)) is not None:
        raise InputError(
            path, "a number the frame cannot hold (too large, or not finite)",
            field=unfit[0], value=unfit[1],
        )  # fmt: skip
    canonical = tick.model_dump(mode="json", by_alias=True)
    canonical["schema_version"] = version
    # The number validated here, not its text: Polars would read some texts Python
    # reads (a digit or a space outside ASCII) differently, or not at all.
    canonical["tick_id"] = number
    return canonical


def _one_line(blob: bytes) -> bytes:
    return blob.replace(b"\r", b" ").replace(b"\n", b" ").strip()


def _read(lines: Sequence[bytes]) -> pl.DataFrame:
    return pl.read_ndjson(io.BytesIO(b"\n".join(lines)), schema=RAW_TICK_SCHEMA)


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
    yielded: Any = _UNSET  # v1: a bool (checked in :func:`_screen`)
    refused: Any = _UNSET
    classified_action: _Action | None = None
    mutations: _Mutations | None = None
    observation: _Observation | None = None
    llm_tokens_by_stage: _StageTokens | None = None
    llm_cost_usd_by_stage: _StageCosts | None = None


_DECODE = msgspec.json.Decoder().decode
_ENCODE = msgspec.json.Encoder().encode


def _screen(blob: bytes) -> _Screen | None:
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
    if blob.count(b":") != _ENCODE(data).count(b":") or b"\\u003" in blob:
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
    """A change list as compact JSON for :func:`_columns` to decode into text parts, when
    each part comes out as the bulk reader gives it: text as is, a whole number as its
    digits. Anything else (a float, a bool, an object) is left to the reader."""
    if changes is None or changes is _UNSET:
        return None
    for change in changes:
        for part in change:
            if not (part is None or type(part) is str or (type(part) is int and _is_int64(part))):
                raise _NotPlain
    return _ENCODE(changes).decode()


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
#: The flat columns :func:`_row` fills; :func:`_columns` nests them as RAW_TICK_SCHEMA.
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


def _columns(rows: Sequence[tuple[Any, ...]]) -> pl.DataFrame:
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
_MINUS_ZERO = re.compile(rb"[\[,:\s]-0(?![0-9.eE])")


def _plain(tick: _Screen | None, blob: bytes) -> tuple[Any, ...] | None:
    """:func:`_row` of a screened tick, or ``None`` when its columns are Polars' to read."""
    if tick is None or any(mark in blob for mark in _PLAIN_UNSAFE):
        return None
    if b"-0" in blob and _MINUS_ZERO.search(blob):
        return None
    try:
        return _row(tick)
    except _NotPlain:
        return None


# ---------------------------------------------------------------------------
# The batch path: one C decode of a batch of files into typed structs
# ---------------------------------------------------------------------------
#
# :func:`_screen` and :func:`_row` cost a Python call or two per field of every file.
# The path below takes a batch of files in a handful of C calls instead: ``map`` of one
# typed msgspec decoder over the files (structs of exactly the types :class:`_Screen`
# and :func:`_row` let through, every field defaulting to UNSET), one encode of the
# batch's structs whose colon count must equal the colon count of the raw bytes (as in
# :func:`_screen`: a repeated key, or a field no struct declares, drops a key and its
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


_FAST_DECODE = msgspec.json.Decoder(_Fast).decode
#: Bytes that send a file the file-at-a-time way before any parse: an escaped colon (it
#: would blur the colon count), a surrogate escape, and a number ``-0`` (each a value
#: whose column form is Polars' reader's to decide; see :func:`_plain`). A number is
#: followed by a delimiter, so ``-0`` then one of these covers every ``-0`` number.
_UNSAFE = ["\\u003", "\\ud", "\\uD", "-0,", "-0]", "-0}", "-0 ", "-0\n", "-0\r", "-0\t"]
_DECODE_ERRORS = (msgspec.MsgspecError, ValueError, RecursionError)


def _unsafe(blobs: Sequence[bytes]) -> list[bool]:
    """Per file: whether it holds bytes of :data:`_UNSAFE` or is not UTF-8 (one pass of
    Polars' multi-pattern search over all files)."""
    binary = pl.Series(blobs, dtype=pl.Binary())
    try:
        text = binary.cast(pl.String())
    except pl.exceptions.ComputeError:  # some file is not UTF-8: it goes the careful way
        text = pl.Series([_utf8(b) for b in blobs], dtype=pl.String())
    return text.str.contains_any(_UNSAFE).fill_null(True).to_list()


def _utf8(blob: bytes) -> str | None:
    try:
        return blob.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _decoded(blobs: Sequence[bytes]) -> tuple[bytes, list[int]]:
    """The files msgspec decodes as :class:`_Fast` with every key accounted for by the
    colon count, written back as one JSON array, and their positions in ``blobs``."""
    try:
        ticks = list(map(_FAST_DECODE, blobs))
        kept = list(range(len(blobs)))
    except _DECODE_ERRORS:  # some file does not fit: find which, one at a time
        ticks, kept = [], []
        for i, blob in enumerate(blobs):
            try:
                ticks.append(_FAST_DECODE(blob))
            except _DECODE_ERRORS:
                continue
            kept.append(i)
    raw = sum(map(bytes.count, (blobs[i] for i in kept), repeat(b":")))
    written = _ENCODE(ticks)
    if written.count(b":") == raw:
        return written, kept
    same = [
        i
        for i, (k, tick) in enumerate(zip(kept, ticks, strict=True))
        if _ENCODE(tick).count(b":") == blobs[k].count(b":")
    ]
    return _ENCODE([ticks[i] for i in same]), [kept[i] for i in same]


#: Files decoded and read back per batch. Polars' JSON reader costs least per record on
#: arrays of a few hundred (about 3.5 µs a tick file at 300, 4.0 at 100, 4.7 at 1,000,
#: 5.8 at 5,000 here), and a whole load's peak memory is lowest at 400-500 (3.0x the
#: frames, against 3.2x at 300, 3.7x at 100 and 5.1x at 5,000: docs/performance.md).
BATCH_FILES = 400


def _fast(blobs: Sequence[bytes]) -> tuple[pl.DataFrame | None, list[int], list[int]]:
    """The batch path over a chunk: the frame of the files it takes (with their indexes
    in the chunk) and the indexes of the files left to the file-at-a-time path.

    Each batch of files is decoded by one typed msgspec decoder mapped over them
    (:func:`_decoded`) and its structs, written back as one JSON array for the colon
    count, are what Polars' JSON reader turns into the frame's columns: the typed values
    go from C to Rust without a Python object per field."""
    unsafe = _unsafe(blobs)
    frames: list[pl.DataFrame] = []
    taken: list[int] = []
    left = [i for i in range(len(blobs)) if unsafe[i]]
    index = [i for i in range(len(blobs)) if not unsafe[i]]
    for start in range(0, len(index), BATCH_FILES):
        batch = index[start : start + BATCH_FILES]
        written, kept = _decoded([blobs[i] for i in batch])
        chosen = [batch[k] for k in kept]
        try:
            frame = pl.read_json(written, schema=RAW_TICK_SCHEMA) if chosen else None
        except pl.exceptions.PolarsError:  # not expected: the structs' types are the schema's
            frame = None
        if frame is None or frame.height != len(chosen):
            left.extend(batch)
            continue
        if len(chosen) < len(batch):
            left.extend(sorted(set(batch) - set(chosen)))
        frames.append(frame)
        taken.extend(chosen)
    frame = (pl.concat(frames) if len(frames) > 1 else frames[0]) if frames else None
    return frame, taken, sorted(left)


_GC_LOCK = threading.Lock()
_gc_holds = 0
_gc_was_enabled = False


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector held off while runs are listed and decoded.

    A decode makes many small containers (the lists and dicts inside each tick; the
    structs themselves are not tracked), and a listing many tuples, none of them in a
    cycle, so the collector's passes over them find nothing, yet cost about a fifth of the
    decode's CPU and 5-10 % of a whole load (docs/performance.md). Counted under a lock, so
    that threads loading at once (or a load inside a load) switch it back on once, and
    only if it was on."""
    global _gc_holds, _gc_was_enabled
    with _GC_LOCK:
        if _gc_holds == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_holds += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_holds -= 1
            if _gc_holds == 0 and _gc_was_enabled:
                gc.enable()


def _plain_ids(ids: pl.Series) -> pl.Series | None:
    """The tick numbers of ``ids`` when every id is present and plain digits (``"42"``,
    as almost every file writes it), else ``None``: then :data:`TICK_ID_PATTERN` must
    read them. An id equal to its number written back has no sign, space, prefix or
    leading zero, so for these ids the cast alone gives what the pattern would, without
    running a regex over every row."""
    if ids.null_count():
        return None
    numbers = ids.cast(pl.Int64, strict=False)
    if not ((numbers >= 0) & (numbers.cast(pl.String) == ids)).fill_null(False).all():
        return None
    return numbers


def _problems(raw: pl.DataFrame, files: pl.Series) -> pl.Series:
    """Rows the column-wise check rejects (the pydantic models would reject them too)."""
    version = pl.col("schema_version").fill_null(1)
    bad = (
        version.is_in([1, 2]).not_()
        | ((version == 2) & pl.col("kind").is_in(["execute", "yield", "refuse"]).not_())
        | ((version == 2) & pl.col("kind").is_null())
        | (
            (version == 2)
            & pl.col("conservation_verdict").is_not_null()
            & pl.col("conservation_verdict").is_in(["ok", "violated"]).not_()
        )
        | _numbers_unfit()
    )
    if _plain_ids(raw["tick_id"]) is None:  # plain ids are all good tick numbers
        bad = bad | _tick_id_unfit(files)
    return raw.select(bad.fill_null(True)).to_series()


def _tick_id_unfit(files: pl.Series) -> pl.Expr:
    """Rows whose tick id is not a tick number, or that have none and no file name
    ``tick_<n>.json`` to take it from, or whose number is beyond 64 bits."""
    name_number = files.str.extract(r"(?:^|/)tick_(\d+)\.json$", 1)
    id_digits = pl.col("tick_id").str.strip_chars().str.extract(TICK_ID_PATTERN, 1)
    return (
        (
            pl.col("tick_id").is_not_null()
            & pl.col("tick_id").str.strip_chars().str.contains(TICK_ID_PATTERN).not_()
        )
        | (pl.col("tick_id").is_null() & pl.lit(name_number).is_null())
        # a number beyond 64 bits: the slow path names it
        | (id_digits.is_not_null() & id_digits.cast(pl.Int64, strict=False).is_null())
        | (pl.col("tick_id").is_null() & pl.lit(name_number).cast(pl.Int64, strict=False).is_null())
    )


def _ordered(raw: pl.DataFrame, rows: Sequence[int]) -> pl.DataFrame:
    return raw.with_columns(pl.Series("_order", rows, dtype=pl.Int64))


def parse_ticks(
    slugs: Sequence[str],
    files: Sequence[str | Path],
    blobs: Sequence[bytes],
    notes: list[tuple[str, str]] | None = None,
) -> tuple[pl.DataFrame, list[InputError]]:
    """Parse tick files' bytes (of one run or many) into the ticks frame.

    Each file is parsed once (:func:`_screen`) and its typed fields become the frame's
    columns (:func:`_columns`); a file whose values are Polars' reader's to decide (a
    float inside a change list, a number beyond 64 bits) is read by it, in one NDJSON
    read for all such files. A file the screen or the column-wise check refuses is read
    on its own and validated by the pydantic models (:func:`validate_tick`).

    Args:
        slugs: the run slug of each file.
        files: the tick files, in the same order.
        blobs: each file's bytes.
        notes: when given, ``(file, warning)`` is appended to it for each repeated key
            (``path:line: duplicate key 'k': the last value is used``).

    Returns:
        The ticks frame (:data:`toolkit.frames.TICKS_SCHEMA`) sorted by slug and tick,
        and one :class:`InputError` per file that could not be used.
    """
    count = len(blobs)
    errors: list[InputError] = []
    parts: list[pl.DataFrame] = []
    redo: set[int] = set(range(count))
    if count and BULK_READ:
        careful: Sequence[int] = range(count)
        if BATCH_PATH:
            with collector_paused():
                fast, taken, careful = _fast(blobs)
            if fast is not None:
                parts.append(_ordered(fast, taken))
        plain: list[int] = []
        plain_rows: list[tuple[Any, ...]] = []
        rest: list[int] = []
        for i in careful:
            blob = blobs[i]
            tick = _screen(blob)
            if tick is None:
                continue
            row = _plain(tick, blob)
            if row is None:
                rest.append(i)
            else:
                plain.append(i)
                plain_rows.append(row)
        if plain:
            parts.append(_ordered(_columns(plain_rows), plain))
        del plain_rows
        if rest:
            try:
                read = _read([_one_line(blobs[i]) for i in rest])
            except pl.exceptions.PolarsError:
                read = None
            if read is not None and read.height == len(rest):
                parts.append(_ordered(read, rest))
        raw = pl.concat(parts) if len(parts) > 1 else parts[0] if parts else None
        parts = []
        if raw is not None:
            names = _texts("source_file", files).gather(raw["_order"])
            bad = _problems(raw, names)
            redo -= set(raw["_order"].filter(bad.not_()).to_list())
            if not redo:
                return _normalised(raw, slugs, files), errors
            parts.append(raw.filter(bad.not_()))
    # The per-file path: only for the files the bulk read could not take.
    lines: list[bytes] = []
    kept: list[int] = []
    for i in sorted(redo):
        path = Path(files[i])
        try:
            data, dupes = load_json_bytes(path, blobs[i])
            canonical = validate_tick(path, data)
        except InputError as err:
            errors.append(err)
            continue
        if notes is not None:
            notes.extend((str(files[i]), d.describe(files[i])) for d in dupes)
        lines.append(json.dumps(canonical).encode())
        kept.append(i)
    if kept:
        parts.append(_ordered(_read(lines), kept))
    if not parts:
        return pl.DataFrame(schema=TICKS_SCHEMA), errors
    return _normalised(pl.concat(parts), slugs, files), errors


def _normalised(
    raw: pl.DataFrame, slugs: Sequence[str], files: Sequence[str | Path]
) -> pl.DataFrame:
    """:func:`normalise` of raw rows carrying their file's index (``_order``), in file
    order (the first of two files with one tick number is the one kept)."""
    order = raw["_order"]
    if order.len() == len(files) and order.is_sorted():  # every file, in order: as it is
        return normalise(raw.drop("_order"), _texts("slug", slugs), _texts("source_file", files))
    raw = raw.sort("_order")
    order = raw["_order"]
    return normalise(
        raw.drop("_order"),
        _texts("slug", slugs).gather(order),
        _texts("source_file", files).gather(order),
    )


def _texts(name: str, values: Sequence[str | Path]) -> pl.Series:
    """``values`` as a text column (Polars then picks rows by index, not Python)."""
    try:  # all text, as a listing gives them: Polars takes the list as it is (2.5x faster)
        return pl.Series(name, values, dtype=pl.String)
    except (TypeError, ValueError):  # some are paths
        return pl.Series(name, [v if type(v) is str else str(v) for v in values], dtype=pl.String)


def _change_parts(change: pl.Expr, value_index: int) -> list[pl.Expr]:
    """A change ``[target, property, ..., value]`` as three text columns ``target``,
    ``property``, ``value`` (numbers arrive as their digits, so ``5`` and ``"5"`` are one
    value; a null part is the text ``"null"``); the value is null when the change has
    fewer than three parts, so that it never matches."""
    target, prop, value = (
        change.list.get(i, null_on_oob=True).fill_null("null") for i in (0, 1, value_index)
    )
    return [
        target.alias("target"),
        prop.alias("property"),
        pl.when(change.list.len() >= 3).then(value).alias("value"),
    ]


def _unsupported_claims(claimed: pl.Series, changes: pl.Series) -> pl.Series:
    """Per row: the claims no change of the row makes, as ``target.property=value; ...``
    (null where every claim is made, or there are none).

    Args:
        claimed: each row's claimed changes ``[target, property, value]`` (null: none).
        changes: each row's changes ``[target, property, ..., new value]``.
    """
    claim, change = pl.col("claim"), pl.col("change")
    rows = (
        pl.DataFrame([claimed.alias("claim"), changes.alias("change")])
        .with_row_index("_row")
        .filter(claim.list.len() > 0)  # only rows with claims need their changes
    )
    claims = (
        rows.select("_row", "claim")
        .explode("claim")
        .drop_nulls("claim")
        .with_columns(_change_parts(claim, 2))
    )
    made = (
        rows.select("_row", "change")
        .explode("change")
        .drop_nulls("change")
        .select("_row", *_change_parts(change, -1))
    )
    text = pl.concat_str(
        claim.list.get(0, null_on_oob=True).fill_null("?"),
        pl.lit("."),
        claim.list.get(1, null_on_oob=True).fill_null("?"),
        pl.lit("="),
        claim.list.last().fill_null("null"),
    )
    unmade = (
        # Joined on the three parts, not one text of them (-12 %; exact, no separator)
        claims.join(
            made, on=["_row", "target", "property", "value"], how="anti", maintain_order="left"
        )
        .group_by("_row")
        .agg(text.str.join("; "))
    )
    # Put in place by row number: a join back would not promise to keep the rows' order.
    return (
        pl.repeat(None, claimed.len(), dtype=pl.String(), eager=True)
        .scatter(unmade["_row"], unmade["claim"])
        .alias("unsupported_claims")
    )


def _subtypes(changes: pl.Expr) -> pl.Expr:
    """The new values (last part) of the changes ``[target, "subtype", ..., new]``."""
    # Nulls are dropped inside the eval: ``list.drop_nulls`` after it cost 5x the rest.
    written = changes.list.eval(
        pl.when(
            (pl.element().list.len() >= 3)
            & (pl.element().list.get(1, null_on_oob=True) == "subtype")
        )
        .then(pl.element().list.last())
        .drop_nulls()
    )
    return written.fill_null(pl.lit([], dtype=pl.List(pl.String())))


def _tick_numbers(ids: pl.Series, files: pl.Series) -> pl.Series:
    """Each row's tick number: its tick id's (``"42"``, ``" tick_42 "``), else its file
    name's (``tick_42.json``); plain ids without a regex (:func:`_plain_ids`)."""
    plain = _plain_ids(ids)
    if plain is not None:
        return plain.alias("tick")
    named = ids.str.strip_chars().str.extract(TICK_ID_PATTERN, 1)
    if named.null_count():
        named = named.fill_null(files.str.extract(r"tick_(\d+)\.json$", 1))
    return named.cast(pl.Int64).alias("tick")


def _in_order(frame: pl.DataFrame) -> bool:
    """Whether the rows are sorted by slug, then tick (no null tick)."""
    slug, tick = pl.col("slug"), pl.col("tick")
    later = (slug.shift(-1) > slug) | ((slug.shift(-1) == slug) & (tick.shift(-1) >= tick))
    return bool(frame.select(later.head(pl.len() - 1).fill_null(False).all()).item())


_TICKS = pl.Schema(TICKS_SCHEMA)


def normalise(raw: pl.DataFrame, slugs: pl.Series, files: pl.Series) -> pl.DataFrame:
    """Turn raw tick records (:data:`RAW_TICK_SCHEMA`) into the ticks frame.

    Status, rollback, continuation, groundedness (exact from observer claims, else the
    proxy), cost and tokens are derived column-wise; see ``docs/formats/universe.md``.
    Claimed and made values are compared as text (``5`` and ``"5"`` are the same value).
    """
    v2 = pl.col("schema_version").fill_null(1) == 2
    action = pl.col("classified_action")
    mechanic = pl.col("matched_mechanic_id")
    kind = pl.col("kind")

    def status_(name: str) -> pl.Expr:  # built as the enum: no cast of text afterwards
        return pl.lit(name, dtype=TICK_STATUS)

    status = (
        pl.when(v2)
        .then(  # three comparisons cost less than a replace_strict
            pl.when(kind == "execute")
            .then(status_("executed"))
            .when(kind == "yield")
            .then(status_("yielded"))
            .when(kind == "refuse")
            .then(status_("refused"))
        )
        .when(pl.col("refused").fill_null(False))
        .then(status_("refused"))
        .when(pl.col("yielded").fill_null(False))
        .then(status_("yielded"))
        .when(mechanic.is_not_null() & (mechanic != ""))
        .then(status_("executed"))
        .otherwise(status_("unmatched"))
    )
    claims = pl.col("observation").struct.field("claimed_changes")
    continuation = (pl.col("action_text") == CONTINUATION_TEXT).fill_null(False) | (
        mechanic == CONTINUATION_MECHANIC
    ).fill_null(False)
    mutations = pl.col("mutations")
    mutation_count = pl.coalesce(
        mutations.struct.field("count"), mutations.struct.field("list").list.len(), pl.lit(0)
    )
    tokens = pl.col("llm_tokens_by_stage")
    tokens_in = pl.sum_horizontal(
        [tokens.struct.field(s).struct.field("in").fill_null(0) for s in _STAGES]
    )
    tokens_out = pl.sum_horizontal(
        [tokens.struct.field(s).struct.field("out").fill_null(0) for s in _STAGES]
    )
    costs = pl.col("llm_cost_usd_by_stage")
    v1_cost = pl.sum_horizontal([costs.struct.field(s).fill_null(0.0) for s in _STAGES])

    claimed = raw.select(pl.when(v2).then(claims)).to_series()
    frame = raw.with_columns(
        slugs.alias("slug"),
        files.alias("source_file"),
        _tick_numbers(raw["tick_id"], files),
        claimed.alias("_claimed"),
        _unsupported_claims(claimed, raw["mutations"].struct.field("list")),
        status=status,
        continuation=continuation,
        mutation_count=mutation_count,
        _verb=action.struct.field("verb").str.strip_chars().str.to_lowercase(),
    )
    out = frame.select(
        slug="slug",
        tick="tick",
        schema_version=pl.col("schema_version").fill_null(1),
        # Each tick has its own time: a cache of parsed strings only costs (-20 %).
        timestamp=pl.col("timestamp_iso").str.strptime(
            pl.Datetime("us", "UTC"), "%Y-%m-%dT%H:%M:%SZ", strict=False, cache=False
        ),
        actor=pl.coalesce(pl.when(v2).then("actor_id"), action.struct.field("actor")),
        action_text="action_text",
        verb=pl.when(pl.col("_verb") != "").then("_verb"),
        target=action.struct.field("target"),
        mechanic="matched_mechanic_id",
        status="status",
        refusal_reason="refusal_reason",
        rollback=pl.when(v2)
        .then(pl.col("conservation_verdict") == "violated")
        .otherwise(
            (pl.col("status") == "refused")
            & pl.col("refusal_reason")
            .fill_null("")
            .str.to_lowercase()
            .str.contains("conservation", literal=True)
        )
        .fill_null(False),
        continuation="continuation",
        mutation_count="mutation_count",
        subtypes=_subtypes(mutations.struct.field("list")),
        claimed_count=pl.col("_claimed").list.len().cast(pl.Int64),
        unsupported_claims="unsupported_claims",
        grounded=pl.when(pl.col("_claimed").is_not_null())
        .then(pl.col("unsupported_claims").is_null())
        .otherwise(
            (
                pl.col("status").is_in(["executed", "unmatched"])
                & pl.col("continuation").not_()
                & (pl.col("mutation_count") == 0)
            ).not_()
        ),
        grounded_source=pl.when(pl.col("_claimed").is_not_null())
        .then(pl.lit("observer", dtype=GROUNDED_SOURCE))
        .otherwise(pl.lit("proxy", dtype=GROUNDED_SOURCE)),
        observation_text=pl.when(v2)
        .then(pl.col("observation").struct.field("text"))
        .otherwise(pl.col("observation_text")),
        cost_usd=pl.when(v2).then(pl.col("cost_usd")).when(costs.is_not_null()).then(v1_cost),
        tokens_in=pl.when(tokens.is_not_null()).then(tokens_in).cast(pl.Int64),
        tokens_out=pl.when(tokens.is_not_null()).then(tokens_out).cast(pl.Int64),
        duration_ms=pl.col("duration_ms").cast(pl.Int64),
        source_file="source_file",
    )
    # Built in the frame's types: casting a whole frame costs even when nothing changes.
    if out.schema != _TICKS:
        out = out.cast(TICKS_SCHEMA)  # type: ignore[arg-type]
    # Files are listed run by run in tick order, so the rows nearly always come in order:
    # checking costs a fraction of sorting. Equal ticks keep their files' order.
    if _in_order(out):
        return out
    return out.sort("slug", "tick", maintain_order=True)
