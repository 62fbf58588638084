"""Tick summaries, read in bulk by Polars' NDJSON reader and normalised column-wise.

The fast path joins the tick files' bytes into one NDJSON document (JSON strings cannot
hold a raw newline, so replacing newlines with spaces keeps every file one valid line)
and parses it once with an explicit schema. Every row is then checked column-wise; only
when the bulk read fails, or some rows fail the check, are the files concerned looked at
one by one with the pydantic models, which name the file, the field and the value. A
file that passes there is re-serialised in canonical form and joins the bulk read, so
there is exactly one normaliser, :func:`normalise`.

The same bytes give the same frame whichever path a file takes (the differential tests
load every sample both ways). Polars' reader keeps the *first* of repeated keys and
coerces mistyped scalars (``false`` as the text ``"false"``), where the rule of
:mod:`toolkit.load._duplicates` is that the last value wins, with a warning, and the
models refuse or coerce a mistyped field. So every file of a bulk read is also screened
(:func:`_needs_own_read`: one msgspec parse, an exact repeated-key count and a strict type
check), and one that repeats a key or holds a field of a type the bulk reader would
coerce (:class:`_Screen`) is read on the per-file path.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import polars as pl
from pydantic import ValidationError

from toolkit.errors import InputError
from toolkit.frames import TICKS_SCHEMA
from toolkit.load._common import load_json_bytes

CONTINUATION_TEXT = "[long_running_continuation]"
CONTINUATION_MECHANIC = "continue_long_action"
TICK_ID_PATTERN = r"^(?:tick_)?(\d+)$"
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
        return x.is_not_null() & (x.is_finite().not_() | (x.abs() >= bound))

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
    from toolkit.load._common import validation_problem
    from toolkit.load.universe import TickV1, TickV2

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
    if tick.tick_id is None and not re.match(r"^tick_\d+\.json$", path.name):
        raise InputError(path, "no tick id, and none in the file name", field="tick_id")
    if (unfit := _number_problem(tick)) is not None:
        raise InputError(
            path, "a number the frame cannot hold (too large, or not finite)",
            field=unfit[0], value=unfit[1],
        )  # fmt: skip
    canonical = tick.model_dump(mode="json", by_alias=True)
    canonical["schema_version"] = version
    return canonical


def _one_line(blob: bytes) -> bytes:
    return blob.replace(b"\r", b" ").replace(b"\n", b" ").strip()


def _read(lines: Sequence[bytes]) -> pl.DataFrame:
    return pl.read_ndjson(io.BytesIO(b"\n".join(lines)), schema=RAW_TICK_SCHEMA)


class _Action(msgspec.Struct):
    verb: str | None = None
    actor: str | None = None
    target: str | None = None


class _Mutations(msgspec.Struct):
    count: int | None = 0
    changes: list[list[Any]] = msgspec.field(name="list", default_factory=list)


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
    number, ``null`` is not a list) and ignores fields the frame does not read.
    """

    schema_version: int = 1
    tick_id: str | int = ""
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
    yielded: Any = False  # v1 only: a bool (checked in :func:`_needs_own_read`)
    refused: Any = False
    classified_action: _Action | None = None
    mutations: _Mutations | None = None
    observation: _Observation | None = None
    llm_tokens_by_stage: _StageTokens | None = None
    llm_cost_usd_by_stage: _StageCosts | None = None


_DECODE = msgspec.json.Decoder().decode
_ENCODE = msgspec.json.Encoder().encode


def _needs_own_read(blob: bytes) -> bool:
    """Whether a file must go the per-file way although the bulk read took it: it repeats
    a key (the bulk reader would keep the first value), a field has a JSON type the bulk
    reader would coerce (:class:`_Screen`), or the parser refuses it.

    One parse (msgspec, C). Repeated keys are found exactly by counting colons: outside
    strings a colon ends each key, so a file with no repeat has as many colons as its
    parsed value written back (every key kept, strings unchanged); a repeat drops a key
    and its colon. A ``\\u003a`` escape (a colon written escaped) would blur the count, so
    a file holding one is read on the per-file path.
    """
    try:
        data = _DECODE(blob)
    except (msgspec.DecodeError, RecursionError):  # the edge names the problem
        return True
    if blob.count(b":") != _ENCODE(data).count(b":") or b"\\u003" in blob:
        return True
    try:
        tick = msgspec.convert(data, _Screen)
    except msgspec.ValidationError:
        return True
    return tick.schema_version == 1 and not (type(tick.yielded) is bool is type(tick.refused))


def _problems(raw: pl.DataFrame, files: pl.Series) -> pl.Series:
    """Rows the column-wise check rejects (the pydantic models would reject them too)."""
    version = pl.col("schema_version").fill_null(1)
    name_number = files.str.extract(r"(?:^|/)tick_(\d+)\.json$", 1)
    id_digits = pl.col("tick_id").str.strip_chars().str.extract(TICK_ID_PATTERN, 1)
    bad = (
        version.is_in([1, 2]).not_()
        | ((version == 2) & pl.col("kind").is_in(["execute", "yield", "refuse"]).not_())
        | ((version == 2) & pl.col("kind").is_null())
        | (
            (version == 2)
            & pl.col("conservation_verdict").is_not_null()
            & pl.col("conservation_verdict").is_in(["ok", "violated"]).not_()
        )
        | (
            pl.col("tick_id").is_not_null()
            & pl.col("tick_id").str.strip_chars().str.contains(TICK_ID_PATTERN).not_()
        )
        | (pl.col("tick_id").is_null() & pl.lit(name_number).is_null())
        # a number beyond 64 bits: the slow path names it
        | (id_digits.is_not_null() & id_digits.cast(pl.Int64, strict=False).is_null())
        | (pl.col("tick_id").is_null() & pl.lit(name_number).cast(pl.Int64, strict=False).is_null())
    )
    bad = bad | _numbers_unfit()
    return raw.select(bad.fill_null(True)).to_series()


def parse_ticks(
    slugs: Sequence[str],
    files: Sequence[str | Path],
    blobs: Sequence[bytes],
    notes: list[tuple[str, str]] | None = None,
) -> tuple[pl.DataFrame, list[InputError]]:
    """Parse tick files' bytes (of one run or many) into the ticks frame.

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
    names = pl.Series("source_file", [str(f) for f in files], dtype=pl.String)
    slug_col = pl.Series("slug", list(slugs), dtype=pl.String)
    count = len(blobs)
    errors: list[InputError] = []
    raw: pl.DataFrame | None = None
    try:
        raw = _read([_one_line(b) for b in blobs]) if count and BULK_READ else None
    except pl.exceptions.PolarsError:
        raw = None
    if raw is not None and raw.height == count:
        bad = _problems(raw, names) | pl.Series([_needs_own_read(b) for b in blobs])
        if not bad.any():
            return normalise(raw, slug_col, names), errors
        redo = set(bad.arg_true().to_list())
    elif len(set(slugs)) > 1 and BULK_READ:
        # One broken file must not send a whole fleet down the slow path: retry run by run.
        frames: list[pl.DataFrame] = []
        by_run: dict[str, list[int]] = {}
        for i, s in enumerate(slugs):
            by_run.setdefault(s, []).append(i)
        for run, idx in by_run.items():
            frame, errs = parse_ticks(
                [run] * len(idx), [files[i] for i in idx], [blobs[i] for i in idx], notes
            )
            frames.append(frame)
            errors.extend(errs)
        return pl.concat(frames), errors
    else:
        redo = set(range(count))
    # The slow path: only for the files the bulk read could not take.
    keep_lines: list[bytes] = []
    keep_files: list[str] = []
    keep_slugs: list[str] = []
    for i, (path, blob) in enumerate(zip(files, blobs, strict=True)):
        if i not in redo:
            keep_lines.append(_one_line(blobs[i]))
            keep_files.append(str(path))
            keep_slugs.append(slugs[i])
            continue
        try:
            data, dupes = load_json_bytes(Path(path), blob)
            canonical = validate_tick(Path(path), data)
        except InputError as err:
            errors.append(err)
            continue
        if notes is not None:
            notes.extend((str(path), d.describe(path)) for d in dupes)
        keep_lines.append(json.dumps(canonical).encode())
        keep_files.append(str(path))
        keep_slugs.append(slugs[i])
    if not keep_lines:
        return pl.DataFrame(schema=TICKS_SCHEMA), errors
    frame = normalise(
        _read(keep_lines),
        pl.Series("slug", keep_slugs, dtype=pl.String),
        pl.Series("source_file", keep_files, dtype=pl.String),
    )
    return frame, errors


def _change_key(change: pl.Expr, value_index: int) -> pl.Expr:
    """A change ``[target, property, ..., value]`` as ``target␟property␟value`` text; null
    when it has fewer than three parts (so it can never match)."""
    parts = [change.list.get(i, null_on_oob=True).fill_null("null") for i in (0, 1, value_index)]
    return pl.when(change.list.len() >= 3).then(pl.concat_str(parts, separator="\x1f"))


def _unsupported_claims(frame: pl.DataFrame) -> pl.DataFrame:
    """Per row (``_row``): observer claims with no matching mutation, and how many."""
    claims = (
        frame.select("_row", claim="_claimed")
        .explode("claim")
        .drop_nulls("claim")
        .with_columns(
            key=_change_key(pl.col("claim"), 2),
            text=pl.concat_str(
                pl.col("claim").list.get(0, null_on_oob=True).fill_null("?"),
                pl.lit("."),
                pl.col("claim").list.get(1, null_on_oob=True).fill_null("?"),
                pl.lit("="),
                pl.col("claim").list.last().fill_null("null"),
            ),
        )
    )
    made = (
        frame.select("_row", change=pl.col("mutations").struct.field("list"))
        .explode("change")
        .drop_nulls("change")
        .select("_row", key=_change_key(pl.col("change"), -1))
    )
    return (
        claims.join(made, on=["_row", "key"], how="anti")
        .group_by("_row")
        .agg(unsupported_claims=pl.col("text").str.join("; "))
    )


def _subtypes(changes: pl.Expr) -> pl.Expr:
    """The new values (last part) of the changes ``[target, "subtype", ..., new]``."""
    written = changes.list.eval(
        pl.when(
            (pl.element().list.len() >= 3)
            & (pl.element().list.get(1, null_on_oob=True) == "subtype")
        ).then(pl.element().list.last())
    )
    return written.list.drop_nulls().fill_null(pl.lit([], dtype=pl.List(pl.String())))


def normalise(raw: pl.DataFrame, slugs: pl.Series, files: pl.Series) -> pl.DataFrame:
    """Turn raw tick records (:data:`RAW_TICK_SCHEMA`) into the ticks frame.

    Status, rollback, continuation, groundedness (exact from observer claims, else the
    proxy), cost and tokens are derived column-wise; see ``docs/formats/universe.md``.
    Claimed and made values are compared as text (``5`` and ``"5"`` are the same value).
    """
    v2 = pl.col("schema_version").fill_null(1) == 2
    action = pl.col("classified_action")
    mechanic = pl.col("matched_mechanic_id")
    status = (
        pl.when(v2)
        .then(
            pl.col("kind").replace_strict(
                {"execute": "executed", "yield": "yielded", "refuse": "refused"},
                default=None,
                return_dtype=pl.String,
            )
        )
        .when(pl.col("refused").fill_null(False))
        .then(pl.lit("refused"))
        .when(pl.col("yielded").fill_null(False))
        .then(pl.lit("yielded"))
        .when(mechanic.is_not_null() & (mechanic != ""))
        .then(pl.lit("executed"))
        .otherwise(pl.lit("unmatched"))
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
    verb = action.struct.field("verb").str.strip_chars().str.to_lowercase()

    frame = raw.with_columns(
        files.alias("source_file"),
        slugs.alias("slug"),
        _row=pl.int_range(pl.len()),
        _claimed=pl.when(v2).then(claims),
    )
    unsupported = _unsupported_claims(frame)
    out = (
        frame.join(unsupported, on="_row", how="left")
        .with_columns(status=status, continuation=continuation, mutation_count=mutation_count)
        .with_columns(
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
            .then(pl.lit("observer"))
            .otherwise(pl.lit("proxy")),
        )
        .select(
            slug="slug",
            tick=pl.coalesce(
                pl.col("tick_id").str.strip_chars().str.extract(TICK_ID_PATTERN, 1),
                pl.col("source_file").str.extract(r"tick_(\d+)\.json$", 1),
            ).cast(pl.Int64),
            schema_version=pl.col("schema_version").fill_null(1),
            timestamp=pl.col("timestamp_iso").str.strptime(
                pl.Datetime("us", "UTC"), "%Y-%m-%dT%H:%M:%SZ", strict=False
            ),
            actor=pl.when(v2)
            .then(pl.coalesce(pl.col("actor_id"), action.struct.field("actor")))
            .otherwise(action.struct.field("actor")),
            action_text="action_text",
            verb=pl.when(verb != "").then(verb),
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
            claimed_count=pl.col("_claimed").list.len(),
            unsupported_claims="unsupported_claims",
            grounded="grounded",
            grounded_source="grounded_source",
            observation_text=pl.when(v2)
            .then(pl.col("observation").struct.field("text"))
            .otherwise(pl.col("observation_text")),
            cost_usd=pl.when(v2).then(pl.col("cost_usd")).when(costs.is_not_null()).then(v1_cost),
            tokens_in=pl.when(tokens.is_not_null()).then(tokens_in),
            tokens_out=pl.when(tokens.is_not_null()).then(tokens_out),
            duration_ms="duration_ms",
            source_file="source_file",
        )
    )
    return out.cast(TICKS_SCHEMA).sort("slug", "tick")  # type: ignore[arg-type]
